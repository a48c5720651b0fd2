#!/bin/bash
# The sweep's bookkeeping at scale (docs/sweep.md, "Scale"; figures in bench/RESULTS.md):
# synthetic catalogues of 100, 1,000 and 10,000 recipes with trivial phases, timed step by
# step: CPU time (user + system) and peak memory (/usr/bin/time's maximum resident set size):
#
#   discovery   harkaq sweep DIR --list: walk, sort, catalogue id
#   merge       harkaq sweep merge of 4 shard results --json: parse, merge, classify every debt
#               path against a real store (the Debian toolchain fixture), summarise, encode
#   out         the same with --out: result.json, summary.json, summary.txt
#   html        the same with --html only: the report
#
# The shard results are generated in the sweep's own document format (harkaq.sweep.v1): each
# recipe has three phases and 0 to 4 debt paths drawn from a pool with a long tail (a few
# paths in many recipes, most in few), as a real catalogue's debt is distributed.  No build
# runs: builds are measured by bench/sweep-throughput.sh.
#
#   bench/sweep-scale.sh [SIZES...]          default: 100 1000 10000
#
# Prints a table and, per step, the time and memory per recipe from one size to the next
# (flat = linear); the raw figures as JSON on the last line after "raw: ".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(100 1000 10000)
make -s -j"$(nproc)" >/dev/null
H=$ROOT/build/harkaq
STORE=$(tests/fixtures/debstore.sh)
W=$(mktemp -d /var/tmp/harkaq-bench-scale.XXXXXX)
trap 'rm -rf "$W"' EXIT

# timed STEP N CMD...: runs CMD R times (more for small catalogues, so that the figure is not
# the clock's resolution) and appends "STEP N cpu_seconds maxrss_kib wall_seconds" (per run)
# to $W/times.  CPU time (user + system, getrusage of the child, microseconds) is the measure:
# on a machine shared with other builds the wall time mostly says how long the process waited
# for a CPU.
timed() {
	local step=$1 n=$2; shift 2
	python3 - "$step" "$n" "$@" >>"$W/times" 2>"$W/err" <<'PY' ||
import os, resource, subprocess, sys, tempfile, time
step, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = max(2, 20000 // max(n, 1)) if n < 10000 else 3
# The peak memory of harkaq itself: /usr/bin/time's (getrusage of this process's children
# would count the forked Python too).
rss = tempfile.NamedTemporaryFile(delete=False).name
peak = 0
t0 = time.monotonic()
for _ in range(runs):
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, check=True)
    peak = max(peak, int(open(rss).read().split()[-1]))
wall = (time.monotonic() - t0) / runs
os.unlink(rss)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%s %d %.4f %d %.3f" % (step, n, (ru.ru_utime + ru.ru_stime) / runs, peak, wall))
PY
		{ echo "bench/sweep-scale.sh: $step at $n failed:" >&2; cat "$W/err" >&2; exit 1; }
}

for n in "${SIZES[@]}"; do
	log "catalogue of $n recipes"
	C=$W/cat-$n
	python3 - "$C" "$n" <<'PY'
import json, os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(n)
# Debt paths: a pool with a long tail; some are files the fixture store provides.
provided = ["/usr/bin/make", "/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/include/stdio.h",
            "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/gmake"]
pool = provided + ["/usr/share/synthetic/p%05d" % i for i in range(max(50, n // 2))]
weights = [1.0 / (i + 1) for i in range(len(pool))]
keys = []
for i in range(n):
    d = os.path.join(root, "r%05d" % i)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "recipe.toml"), "w") as f:
        f.write('name = "synthetic-%05d"\nversion = "1.0"\n[source]\ndir = "."\n'
                '[phases]\nconfigure = "true"\ncompile = "true"\ninstall = "true"\n' % i)
    keys.append(os.path.join(root, "r%05d" % i, "recipe.toml"))
keys.sort()
json.dump(keys, open(root + ".keys.json", "w"))
PY
	timed discovery "$n" "$H" sweep "$C" --list
	# The catalogue id as the sweep computes it, for the generated shards.
	id=$("$H" sweep "$C" --list 2>&1 >/dev/null | sed -n 's/^catalogue \(b3:[0-9a-f]*\):.*/\1/p')
	python3 - "$C" "$n" "$id" <<'PY'
import json, random, sys
root, n, cat_id = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(n + 1)
keys = json.load(open(root + ".keys.json"))
provided = ["/usr/bin/make", "/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/include/stdio.h",
            "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/gmake"]
pool = provided + ["/usr/share/synthetic/p%05d" % i for i in range(max(50, n // 2))]
weights = [1.0 / (i + 1) for i in range(len(pool))]
SHARDS = 4
def ev():
    return "b3:" + "%064x" % rng.getrandbits(256)
def item(p, key):
    debts = sorted(set(rng.choices(pool, weights, k=rng.choice([0, 0, 1, 2, 4])))) if p % 7 else []
    state = "Impure" if debts else "Hermetic"
    phases = [{"phase": ph, "state": state if ph == "configure" else "Hermetic", "reason": None,
               "exit_code": 0, "debt": len(debts) if ph == "configure" else 0, "expected": 1,
               "policy_bug": 0, "ms": 5, "evidence": ev()} for ph in ("configure", "compile", "install")]
    return {"key": key, "name": "synthetic-%05d" % p, "version": "1.0", "recipe_hash": ev(),
            "policy_id": ev(), "outcome": "irreducible" if debts else "hermetic", "failure": None,
            "failed_phase": None, "phases": phases,
            "debt": [{"path": d, "class": "irreducible", "providers": [], "in_base": True,
                      "phases": ["configure"], "exe": "/bin/sh", "records": 1,
                      "evidence": [phases[0]["evidence"]]} for d in debts],
            "policy_bugs": [],
            "run": {"artifact": ev(), "ms": 100, "exit_status": 1 if debts else 0, "log": None}}
for s in range(1, SHARDS + 1):
    items = [item(p, k) for p, k in enumerate(keys) if p % SHARDS == s - 1]
    doc = {"kind": "harkaq.sweep.v1", "catalogue": {"id": cat_id, "recipes": n},
           "shard": {"index": s, "count": SHARDS}, "interrupted": None, "summary": {},
           "recipes": items, "run": {"jobs": 2, "elapsed_ms": 1000, "store": "/worker/store"}}
    json.dump(doc, open("%s.shard%d.json" % (root, s), "w"), indent=1)
PY
	timed merge "$n" "$H" sweep merge "$C".shard{1,2,3,4}.json --store "$STORE" --json
	timed out "$n" "$H" sweep merge "$C".shard{1,2,3,4}.json --store "$STORE" --out "$W/out-$n"
	timed html "$n" "$H" sweep merge "$C".shard{1,2,3,4}.json --store "$STORE" --html "$W/report-$n.html"
	log "  $(jq -c '.summary | {recipes, hermetic, declarable, irreducible, paths: (.debt_paths | length)}' "$W/out-$n/summary.json")"
	rm -rf "$C"
done

echo "step       recipes   CPU s   CPU ms/recipe   peak MiB   KiB/recipe   (wall s)"
awk '{ printf "%-10s %7d %7.3f %15.4f %10.1f %12.2f   (%.2f)\n", $1, $2, $3, 1000 * $3 / $2, $4 / 1024, $4 / $2, $5 }' "$W/times"
echo
echo "growth from one size to the next (x10 recipes: linear is x10 CPU time; both have a fixed base):"
awk '{ t[$1, $2] = $3; m[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; steps[++ns] = $1 }
       if (!($2 in sz)) { sz[$2] = 1; sizes[++nz] = $2 } }
     END { for (i = 1; i <= ns; i++) { line = sprintf("%-10s", steps[i])
             for (k = 2; k <= nz; k++) { a = t[steps[i], sizes[k - 1]]; b = t[steps[i], sizes[k]]
               line = line sprintf("  %d->%d: time x%.1f, memory x%.1f", sizes[k - 1], sizes[k],
                 (a > 0 ? b / a : 0), m[steps[i], sizes[k]] / m[steps[i], sizes[k - 1]]) }
             print line } }' "$W/times"
echo "machine: $(machine_json)"
echo "raw: $(jq -R -s -c 'split("\n") | map(select(length > 0) | split(" ") |
	{step: .[0], recipes: (.[1] | tonumber), cpu_seconds: (.[2] | tonumber), maxrss_kib: (.[3] | tonumber),
	 wall_seconds: (.[4] | tonumber)})' "$W/times")"
