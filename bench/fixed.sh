#!/bin/bash
# What harkaq adds to a build, measured where the build itself costs nothing: a recipe whose
# three phases are `true`, declaring cjson's deps (the gcc toolchain and cmake: the largest
# closure of bench/run, 8.9k grants), built `--no-cage`, caged, and `--no-evidence`,
# interleaved (the order rotates every round).  The phases of a real build vary by ±10% from
# round to round on this machine, more than the cage adds; here the variation is a few ms, so
# the difference is the cage's fixed cost per build: rules installed in each phase, the
# canary, the reader, the final wait for the deallocation records.  bench/run divides it by
# each package's uncaged median to give the ratio the fixed cost alone implies.
#
#   bench/fixed.sh [--rounds N]
#
# Prints a table; raw figures as JSON on the last line after "raw: ".  Needs root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh
ROUNDS=15
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=$2; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "bench/fixed.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
closure_bench_setup fixed.sh "$ROUNDS"
mkdir -p "$W/src" && echo x >"$W/src/x" && chmod -R a+rX "$W"
cat >"$W/recipe.toml" <<'EOF'
name = "fixed-cost"
version = "1"
[source]
dir = "src"
[deps]
build = ["cmake", "gcc-12", "libc6-dev", "make"]
[phases]
configure = "true"
compile = "true"
install = "true"
EOF
closure_bench_rounds "$ROUNDS"
python3 - "$W" "$ROUNDS" <<'EOF'
import json, statistics, sys
w, rounds = sys.argv[1], int(sys.argv[2])
def run(m, r):
    d = json.load(open(f"{w}/{m}-{r}.json"))
    return {"phases_ms": sum(p["ms"] for p in d["phases"]) + d.get("evidence_finish_ms", 0),
            "wall_ms": int(open(f"{w}/{m}-{r}.wall").read()),
            "states": [(p.get("verdict") or {}).get("state") for p in d["phases"]],
            "rules": [p.get("rules") for p in d["phases"]],
            "setup_rules_ms": [((p.get("timing_ms") or {}).get("cage_setup") or {}).get("rules")
                               for p in d["phases"]],
            "evidence_finish_ms": d.get("evidence_finish_ms", 0)}
out = {"rounds": rounds, "modes": {}}
for m in ("nocage", "cage", "noevid"):
    runs = [run(m, r) for r in range(1, rounds + 1)]
    out["modes"][m] = {"runs": runs,
                       "phases_median_ms": statistics.median(x["phases_ms"] for x in runs),
                       "wall_median_ms": statistics.median(x["wall_ms"] for x in runs)}
for m in ("cage", "noevid"):
    # Per round, against the nocage build of the same round: slow drift cancels.
    d = [run(m, r)["phases_ms"] - run("nocage", r)["phases_ms"] for r in range(1, rounds + 1)]
    dw = [run(m, r)["wall_ms"] - run("nocage", r)["wall_ms"] for r in range(1, rounds + 1)]
    out["modes"][m]["adds_phases_ms_median"] = statistics.median(d)
    out["modes"][m]["adds_wall_ms_median"] = statistics.median(dw)
c = out["modes"]["cage"]
print(f"fixed cost of the cage per build (3 phases of `true`, cjson's closure, {rounds} rounds)")
print(f"{'mode':8} {'phases ms':>10} {'wall ms':>8} {'adds (phases)':>14} {'adds (wall)':>12}  states")
for m, v in out["modes"].items():
    st = sorted({s or "-" for x in v["runs"] for s in x["states"]})
    print(f"{m:8} {v['phases_median_ms']:>10.0f} {v['wall_median_ms']:>8.0f} "
          f"{v.get('adds_phases_ms_median', 0):>14.0f} {v.get('adds_wall_ms_median', 0):>12.0f}  {','.join(st)}")
r0 = c["runs"][0]
print(f"rules per phase: {r0['rules'][0]}; rule set-up ms per phase (round 1): "
      f"{[round(x or 0, 1) for x in r0['setup_rules_ms']]}; final evidence wait "
      f"{statistics.median(x['evidence_finish_ms'] for x in c['runs']):.0f} ms (median)")
print("raw: " + json.dumps(out))
EOF
