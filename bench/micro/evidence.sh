#!/bin/bash
# The fixed cost of the evidence channel per caged run: `harkaq run --json -- /usr/bin/true`
# (reader start, canary probe, deallocation wait) against `--no-evidence` (the cage alone).
# Prints one JSON object with medians over N runs.
#   bench/micro/evidence.sh HARKAQ SCRATCH_DIR [N]
set -euo pipefail
H=$1; S=$2; N=${3:-10}
mkdir -p "$S"
printf 'harkaq-policy 1\n' >"$S/empty.policy"
for i in $(seq "$N"); do
	"$H" run --policy "$S/empty.policy" --quiet --json -- /usr/bin/true >"$S/ev.$i.json" || true
	t0=$(date +%s%N)
	"$H" run --policy "$S/empty.policy" --quiet --no-evidence -- /usr/bin/true >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 )) >"$S/ne.$i"
done
python3 - "$S" "$N" <<'PY'
import json, statistics, sys
s, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(f"{s}/ev.{i}.json")) for i in range(1, n + 1)]
ne = [int(open(f"{s}/ne.{i}").read()) for i in range(1, n + 1)]
med = lambda k: statistics.median(r["timing_ms"][k] for r in runs)
states = sorted({r["verdict"]["state"] for r in runs})
print(json.dumps({"runs": n, "verdicts": states,
                  "reader_start_ms": med("reader_start"), "command_ms": med("command"),
                  "dealloc_wait_ms": med("dealloc_wait"), "total_ms": med("total"),
                  "no_evidence_wall_ms": statistics.median(ne),
                  "fixed_cost_ms": med("total") - statistics.median(ne)}))
PY
