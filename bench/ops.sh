#!/bin/bash
# Where the cage's cost in a real build comes from, operation by operation: what each
# operation the cage makes dearer costs inside a build's sandbox, caged and uncaged
# (bench/micro/percall.c run as the phase of a recipe declaring cjson's deps, the largest
# closure of bench/run: the same merged view, the same 8.9k-grant policy and collapsed
# directories as cjson's build), times how many of them each real build makes (counted with
# `strace -f -c` around each phase of one uncaged build).  The product is the cost those
# operations add to the build, which bench/run sets beside the build's measured ratio and the
# fixed cost of bench/fixed.sh.
#
#   bench/ops.sh [--rounds N] [RECIPE=STORE ...]
#
# N rounds (default 7) of nocage, cage and noevid, interleaved; each RECIPE=STORE is a recipe
# whose operations are counted, built with that store.  Prints a table; raw figures as JSON on
# the last line after "raw: ".  Needs root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh
ROUNDS=7
COUNT=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) echo "bench/ops.sh: unknown option $1" >&2; exit 64 ;;
	*=*) COUNT+=("$1"); shift ;;
	*) echo "bench/ops.sh: expected RECIPE=STORE, got '$1'" >&2; exit 64 ;;
	esac
done
closure_bench_setup ops.sh "$ROUNDS"
mkdir -p "$W/src"
cc -std=gnu11 -O2 -Wall -Wextra -Werror -static bench/micro/percall.c -o "$W/src/percall"
echo x >"$W/src/x"
chmod -R a+rX "$W"
# A header deep in the gcc tree, one near the root, a file beneath the read-write /src.
DEEP=/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
SHALLOW=/usr/include/stdio.h
cat >"$W/recipe.toml" <<EOF
name = "percall"
version = "1"
[source]
dir = "src"
[deps]
build = ["cmake", "gcc-12", "libc6-dev", "make"]
[phases]
configure = "out=\$(/src/percall $DEEP $SHALLOW /src/x /src/percall) && echo \"percall: \$out\""
EOF
closure_bench_rounds "$ROUNDS"
# The operations of each real build, counted once, uncaged (strace's own slowness does not
# matter here: only the counts are kept).
n=0
for rs in "${COUNT[@]}"; do
	n=$((n + 1))
	recipe=${rs%%=*} store=${rs#*=}
	echo "$recipe" >"$W/count-$n.recipe"
	"$H" build --quiet --no-cage --store "$store" --wrap "strace -f -c" \
		--result-out "$W/count-$n.json" "$recipe" >"$W/count-$n.log" 2>&1 || true
done
python3 - "$W" "$ROUNDS" "$n" <<'EOF'
import json, os, re, statistics, sys
w, rounds, ncount = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
OPS = ["syscall", "stat_missing", "open_deep", "open_shallow", "open_rw", "exec"]

def percall(m, r):
    for line in open(f"{w}/{m}-{r}.log"):
        if line.startswith("percall: {"):
            return json.loads(line[len("percall: "):])
    return None

out = {"rounds": rounds, "modes": {}, "builds": []}
for m in ("nocage", "cage", "noevid"):
    runs = [percall(m, r) for r in range(1, rounds + 1)]
    good = [x for x in runs if x]
    # The verdicts say the cage was there: caged rounds Hermetic (canary seen), nocage none.
    states = sorted({(p.get("verdict") or {}).get("state") or "-"
                     for r in range(1, rounds + 1)
                     if os.path.exists(f"{w}/{m}-{r}.json")
                     for p in json.load(open(f"{w}/{m}-{r}.json")).get("phases", [])})
    out["modes"][m] = {"ok_runs": len(good), "states": states, "ns_median": {
        op: statistics.median(x[op] for x in good) for op in OPS} if good else None}
noc = out["modes"]["nocage"]["ns_median"]
ok = noc is not None
for m in ("cage", "noevid"):
    mm = out["modes"][m]["ns_median"]
    ok = ok and mm is not None
    if noc and mm:
        out["modes"][m]["adds_ns"] = {op: mm[op] - noc[op] for op in OPS}

# strace -c: "% time  seconds  usecs/call  calls  [errors]  syscall" rows, one table per phase.
ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$")
for k in range(1, ncount + 1):
    calls = {}
    for line in open(f"{w}/count-{k}.log"):
        mt = ROW.match(line)
        if mt and mt.group(2) != "total":
            calls[mt.group(2)] = calls.get(mt.group(2), 0) + int(mt.group(1))
    res = json.load(open(f"{w}/count-{k}.json")) if calls else {}
    b = {"recipe": open(f"{w}/count-{k}.recipe").read().strip(),
         "syscalls": sum(calls.values()),
         "opens": sum(calls.get(s, 0) for s in ("open", "openat", "openat2", "creat")),
         "execs": sum(calls.get(s, 0) for s in ("execve", "execveat")),
         "top": sorted(calls.items(), key=lambda kv: -kv[1])[:8]}
    if ok and calls:
        a = out["modes"]["cage"]["adds_ns"]
        # An upper bound: every syscall pays the filter, every open the dearest open measured,
        # every execve a whole fork + exec + wait.
        open_add = max(a["open_deep"], a["open_shallow"], a["open_rw"])
        parts = {"syscalls": b["syscalls"] * max(a["syscall"], 0),
                 "opens": b["opens"] * max(open_add, 0),
                 "execs": b["execs"] * max(a["exec"], 0)}
        b["adds_ms"] = {p: v / 1e6 for p, v in parts.items()}
        b["adds_ms_total"] = sum(parts.values()) / 1e6
    out["builds"].append(b)

print(f"what operations cost in a build's sandbox (ns, median of {rounds} rounds of the fastest batch)")
print(f"{'op':13} {'nocage':>9} {'cage':>9} {'noevid':>9} {'cage adds':>10}")
for op in OPS:
    row = [out["modes"][m]["ns_median"][op] if out["modes"][m]["ns_median"] else None
           for m in ("nocage", "cage", "noevid")]
    add = out["modes"]["cage"].get("adds_ns", {}).get(op)
    print(f"{op:13} " + " ".join(f"{x:>9.0f}" if x is not None else f"{'-':>9}" for x in row)
          + (f" {add:>10.0f}" if add is not None else f" {'-':>10}"))
print("verdicts: " + ", ".join(f"{m} {','.join(v['states'])} ({v['ok_runs']} rounds timed)"
                              for m, v in out["modes"].items()))
for b in out["builds"]:
    if "adds_ms_total" not in b:
        print(f"{b['recipe']}: no operation counts (see the log)")
        continue
    print(f"{b['recipe']}: {b['syscalls']:,} syscalls, {b['opens']:,} opens, {b['execs']:,} execs "
          f"-> the cage adds at most {b['adds_ms_total']:.0f} ms (syscalls "
          f"{b['adds_ms']['syscalls']:.0f}, opens {b['adds_ms']['opens']:.0f}, execs "
          f"{b['adds_ms']['execs']:.0f})")
print("raw: " + json.dumps(out))
EOF
