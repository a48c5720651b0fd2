#!/bin/bash
# Policy derivation time: `harkaq policy RECIPE` (the same hk_build_derive a build runs: recipe,
# store closure, every artifact's manifest, the base runtime's ELF closure, policy finish,
# canonical encoding, PolicyId) for closures of 1k, 10k and 100k files — synthetic artifacts
# made with `harkaq store add` — and for the largest real closure here: the fixture toolchain
# (tests/fixtures/debstore.sh: gcc-12 libc6-dev make and their whole dependency closure).
# Whole-command wall time, N rounds (default 5), min and median; the same policy id every
# round is checked (a derivation that is fast but not deterministic is a bug, not a result).
#
#   bench/derive.sh [--rounds N] [--sizes "1000 10000 100000"]
#
# Measured 2026-12-01: 100k files in ONE artifact first took minutes (252 s): the store's
# manifest reader decoded each content hash with sscanf(), which strlen()s its whole input
# every call, so reading a manifest was quadratic.  Decoding by hand (hk_unhex) brought the
# same 100k closure to ~0.45 s.
#
# Prints a table; raw figures in bench/out/derive-STAMP.json.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export LC_ALL=C
ROUNDS=5; SIZES="1000 10000 100000"
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) echo "bench/derive.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
make -s -j"$(nproc)" build/harkaq >/dev/null
H=$ROOT/build/harkaq
OUT=$ROOT/bench/out
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
S=$(mktemp -d /var/tmp/harkaq-bench-derive.XXXXXX)
trap 'rm -rf "$S"' EXIT
RAW=$S/raw.jsonl
: >"$RAW"
now_ns() { date +%s%N; }

recipe() { # DIR DEP...
	mkdir -p "$1"
	{ printf 'name = "bench-derive"\nversion = "1"\n[source]\ndir = "."\n[deps]\nbuild = ['
	  shift; local first=1
	  for d in "$@"; do [ $first = 1 ] || printf ', '; printf '"%s"' "$d"; first=0; done
	  printf ']\n[phases]\ncompile = "true"\n'; }
}

measure() { # LABEL FILES RECIPE [--store DIR]
	local label=$1 files=$2 rec=$3; shift 3
	local ids=() r t0 t1
	for r in $(seq "$ROUNDS"); do
		t0=$(now_ns)
		"$H" policy --json "$@" "$rec" >"$S/p.json"
		t1=$(now_ns)
		local id grants
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["policy_id"])' "$S/p.json")
		grants=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grants"])' "$S/p.json")
		echo "{\"closure\":\"$label\",\"closure_files\":$files,\"grants\":$grants,\"round\":$r,\"wall_ms\":$(( (t1 - t0) / 1000 ))e-3,\"policy_id\":\"$id\"}" >>"$RAW"
	done
}

# Synthetic artifacts: N regular files in a tree shaped like a package (100 files per dir).
for n in $SIZES; do
	t=$S/tree$n
	mkdir -p "$t"
	python3 - "$t" "$n" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "usr/share/bench-%d/d%04d" % (n, i // 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "w") as f:
        f.write("%d\n" % i)
EOF
	"$H" store --store "$S/store" add "$t" --name "synth$n" --version 1 >/dev/null
	rm -rf "$t"
	recipe "$S/r$n" "synth$n" >"$S/r$n.toml"
	measure "synthetic $n" "$n" "$S/r$n.toml" --store "$S/store"
done
FIX=$(tests/fixtures/debstore.sh)
recipe "$S/rgcc" gcc-12 libc6-dev make >"$S/rgcc.toml"
gfiles=$("$H" policy --json --store "$FIX" "$S/rgcc.toml" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["files"] + d["symlinks"])')
measure "toolchain (gcc-12 libc6-dev make)" "$gfiles" "$S/rgcc.toml" --store "$FIX"

python3 - "$RAW" "$OUT/derive-$STAMP.json" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out = {"summary": [], "rows": rows}
print("policy derivation: harkaq policy RECIPE, whole command, ms (min / median of %d)" %
      len([r for r in rows if r["closure"] == rows[0]["closure"]]))
print("%-36s %-10s %-9s %-10s %-10s %s" % ("closure", "files", "grants", "min", "median", "deterministic"))
for label in dict.fromkeys(r["closure"] for r in rows):
    rs = [r for r in rows if r["closure"] == label]
    w = [r["wall_ms"] for r in rs]
    det = len({r["policy_id"] for r in rs}) == 1
    s = {"closure": label, "files": rs[0]["closure_files"], "grants": rs[0]["grants"],
         "ms_min": min(w), "ms_median": statistics.median(w), "deterministic": det}
    out["summary"].append(s)
    print("%-36s %-10d %-9d %-10.1f %-10.1f %s" % (label, s["files"], s["grants"], s["ms_min"], s["ms_median"], "yes" if det else "NO"))
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("\nraw: %s" % sys.argv[2])
EOF
