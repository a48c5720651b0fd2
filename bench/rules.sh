#!/bin/bash
# Rule installation cost of harkaq-exec, and the wall-time ratio of a real build caged vs
# uncaged.
#
#  1. harkaq-exec --policy P -- /usr/bin/true with 1k / 10k / 100k per-file `ro` rules on real
#     files of this machine (so every rule is opened and added, none is "missing"), under
#     /usr/bin/time -v for the peak RSS; wall time by the monotonic clock around it.  The
#     installation cost is the run minus the same run with the 3-rule policy that /usr/bin/true
#     needs (its loader and libc): what is left is opening the files, adding the rules and
#     restrict_self.  Target: 100k rules installed in under one second.
#  2. A real build from the fixture store (tests/fixtures/debstore.sh: gcc-12 libc6-dev make):
#     a generated C project of 60 files built with make -j2, `harkaq build` against
#     `harkaq build --no-cage`, interleaved (the order flips every round), whole-command wall
#     time (derivation, sandbox set-up, reader, canary, seal: everything a user waits for).
#     Target: ratio <= 1.05.
#
#   bench/rules.sh [--rounds N] [--no-rules] [--no-build]
#
# Prints a table; raw figures in bench/out/rules-STAMP.json.  Needs root (harkaq build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export LC_ALL=C
ROUNDS=5; RULES=1; BUILD=1
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=$2; shift 2 ;;
	--no-rules) RULES=0; shift ;;
	--no-build) BUILD=0; shift ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "bench/rules.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench/rules.sh: run as root" >&2; exit 1; }
[ "$ROUNDS" -ge 3 ] || { echo "bench/rules.sh: --rounds must be >= 3" >&2; exit 64; }
[ -x /usr/bin/time ] || { echo "bench/rules.sh: /usr/bin/time missing (./setup installs 'time')" >&2; exit 1; }
make -s -j"$(nproc)" build/harkaq build/harkaq-exec build/harkaq-audit >/dev/null
H=$ROOT/build/harkaq
X=$ROOT/build/harkaq-exec
OUT=$ROOT/bench/out
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
S=$(mktemp -d /var/tmp/harkaq-bench-rules.XXXXXX)
chmod 755 "$S"
trap 'rm -rf "$S"' EXIT
RAW=$S/raw.jsonl
: >"$RAW"

now_ns() { date +%s%N; }
stats() { # numbers on stdin -> "min median"
	sort -g | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%s %s\n", a[1], m }'
}

if [ "$RULES" = 1 ]; then
	base=(/usr/bin/true /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 /usr/lib/x86_64-linux-gnu/libc.so.6)
	# Real regular files, names the policy format takes raw (escaping is not what is measured).
	find /usr /etc /var/lib -xdev -type f 2>/dev/null | grep -E '^[!-~]+$' | grep -v '\\' |
		sort -u >"$S/all"
	avail=$(wc -l <"$S/all")
	[ "$avail" -ge 100000 ] || { echo "bench/rules.sh: only $avail files on this machine, 100k needed" >&2; exit 1; }
	for n in 3 1000 10000 100000; do
		{ echo "harkaq-policy 1"
		  { printf '%s\n' "${base[@]}"
		    awk -v want=$((n - 3)) 'NR == FNR { skip[$0] = 1; next }
			!($0 in skip) && c < want { print; c++ }' <(printf '%s\n' "${base[@]}") "$S/all"; } |
			sort -u | sed 's/^/ro /'; } >"$S/p.$n"
		for r in $(seq "$ROUNDS"); do
			t0=$(now_ns)
			/usr/bin/time -v -o "$S/time" "$X" --status-fd 3 --policy "$S/p.$n" -- /usr/bin/true \
				3>"$S/status" >/dev/null 2>"$S/err" || { cat "$S/err" >&2; exit 1; }
			t1=$(now_ns)
			rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$S/time")
			rules=$(grep '"event":"cage"' "$S/status" | jq -r .rules)
			missing=$(grep -o '"missing":\[[^]]*\]' "$S/status" | tr -cd ',' | wc -c)
			echo "{\"bench\":\"rules\",\"rules_requested\":$n,\"rules_installed\":$rules,\"round\":$r,\"wall_ms\":$(( (t1 - t0) / 1000 ))e-3,\"peak_rss_kib\":$rss}" >>"$RAW"
		done
	done
fi

if [ "$BUILD" = 1 ]; then
	FIX=$(tests/fixtures/debstore.sh)
	P=$S/proj
	mkdir -p "$P/src"
	cp -a "$FIX" "$P/store"   # a copy: the builds seal into it
	for i in $(seq 1 60); do
		printf '#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\nint f%d(int x) { char b[64]; snprintf(b, sizeof b, "%%d", x); return (int)strlen(b) + atoi(b) %% 7; }\n' "$i" >"$P/src/f$i.c"
	done
	{ echo '#include <stdio.h>'; for i in $(seq 1 60); do echo "int f$i(int);"; done
	  echo 'int main(void) { int s = 0;'; for i in $(seq 1 60); do echo "s += f$i($i);"; done
	  echo 'printf("%d\n", s); return 0; }'; } >"$P/src/main.c"
	printf 'CC = x86_64-linux-gnu-gcc-12\nCFLAGS = -O2\nOBJS = main.o %s\napp: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' \
		"$(for i in $(seq 1 60); do printf 'f%d.o ' "$i"; done)" >"$P/src/Makefile"
	cat >"$P/recipe.toml" <<'EOF'
name = "bench-c60"
version = "1"
[source]
dir = "src"
[deps]
build = ["gcc-12", "libc6-dev", "make"]
[phases]
compile = "make -j2"
install = ["mkdir -p /out/usr/bin", "cp app /out/usr/bin/app"]
EOF
	chmod -R a+rX "$S"
	run_build() { # MODE ROUND
		local args=() t0 t1
		[ "$1" = nocage ] && args=(--no-cage)
		t0=$(now_ns)
		"$H" build --json --quiet "${args[@]}" "$P/recipe.toml" >"$S/b.json" 2>"$S/b.err" || true
		t1=$(now_ns)
		local state
		state=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(",".join((p["verdict"] or {}).get("state","none") for p in d["phases"]), d["artifact"])' "$S/b.json" 2>/dev/null || echo "unreadable -")
		echo "{\"bench\":\"build\",\"mode\":\"$1\",\"round\":$2,\"wall_ms\":$(( (t1 - t0) / 1000 ))e-3,\"states\":\"${state% *}\",\"artifact\":\"${state#* }\"}" >>"$RAW"
	}
	run_build cage 0; run_build nocage 0   # warm-up (page cache, first seal), not counted
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then run_build cage "$r"; run_build nocage "$r"
		else run_build nocage "$r"; run_build cage "$r"; fi
	done
fi

python3 - "$RAW" "$OUT/rules-$STAMP.json" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
summary = {"rules": [], "build": None, "rows": rows}
def mm(v): return (min(v), statistics.median(v))
base = [r["wall_ms"] for r in rows if r["bench"] == "rules" and r["rules_requested"] == 3]
if base:
    print("rule installation (harkaq-exec --policy P -- /usr/bin/true; ms; min / median of %d)" % len(base))
    print("%-8s %-9s %-17s %-22s %s" % ("rules", "installed", "wall ms", "install ms (- 3 rules)", "peak RSS KiB"))
    b = min(base)
    for n in sorted({r["rules_requested"] for r in rows if r["bench"] == "rules"}):
        rs = [r for r in rows if r["bench"] == "rules" and r["rules_requested"] == n]
        w = mm([r["wall_ms"] for r in rs]); k = min(r["peak_rss_kib"] for r in rs)
        inst = (w[0] - b, w[1] - statistics.median(base))
        summary["rules"].append({"rules": n, "installed": rs[0]["rules_installed"], "wall_ms_min": w[0],
            "wall_ms_median": w[1], "install_ms_min": inst[0], "install_ms_median": inst[1], "peak_rss_kib": k})
        print("%-8d %-9s %7.1f / %-7.1f %8.1f / %-11.1f %d" % (n, rs[0]["rules_installed"], w[0], w[1], inst[0], inst[1], k))
    big = [s for s in summary["rules"] if s["rules"] == 100000]
    if big:
        print("target: 100k rules installed in < 1000 ms: %s (median %.0f ms)" %
              ("met" if big[0]["install_ms_median"] < 1000 else "NOT met", big[0]["install_ms_median"]))
bs = [r for r in rows if r["bench"] == "build" and r["round"] > 0]
if bs:
    cage = [r["wall_ms"] for r in bs if r["mode"] == "cage"]
    noc = [r["wall_ms"] for r in bs if r["mode"] == "nocage"]
    ratios = [c / n for c, n in zip([r["wall_ms"] for r in bs if r["mode"] == "cage"], noc)]
    c, n, q = mm(cage), mm(noc), mm(ratios)
    print()
    print("real build: 61 C files, make -j2, fixture toolchain store; whole harkaq build, %d interleaved rounds" % len(cage))
    print("%-10s %-10s %-10s" % ("", "min", "median"))
    print("%-10s %-10.0f %-10.0f" % ("cage ms", c[0], c[1]))
    print("%-10s %-10.0f %-10.0f" % ("nocage ms", n[0], n[1]))
    print("%-10s %-10.3f %-10.3f" % ("ratio", min(cage) / min(noc), q[1]))
    states = sorted({r["states"] for r in bs if r["mode"] == "cage"})
    arts = {r["artifact"] for r in bs}
    print("caged verdicts: %s; artifacts: %s" % (" ".join(states), "identical" if len(arts) == 1 else "DIFFER: " + " ".join(sorted(arts))))
    print("target: ratio <= 1.05: %s" % ("met" if q[1] <= 1.05 else "NOT met"))
    summary["build"] = {"cage_ms_min": c[0], "cage_ms_median": c[1], "nocage_ms_min": n[0],
        "nocage_ms_median": n[1], "ratio_of_mins": min(cage) / min(noc), "ratio_median": q[1],
        "caged_states": states, "artifacts": sorted(arts)}
json.dump(summary, open(sys.argv[2], "w"), indent=1)
print("\nraw: %s" % sys.argv[2])
EOF
