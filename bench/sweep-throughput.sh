#!/bin/bash
# Sweep throughput, and what harkaq costs per recipe beyond the build itself (docs/sweep.md,
# "Scale"; figures in bench/RESULTS.md).
#
#   bench/sweep-throughput.sh [--jobs N] [--trivial N] [--no-real]
#
# 1. The real catalogue (catalogue/, Debian source packages fetched with apt-get source,
#    their build deps imported from real .debs), swept with --jobs N (default 2): recipes per
#    hour, and per recipe the wall time of its `harkaq build` against the time of its phases.
# 2. A catalogue of N (default 40) trivial recipes (phases `true`, one declared dep): there the
#    build costs nothing, so a recipe's wall time is harkaq's own per-recipe cost — policy,
#    closure check, sandbox, reader, canaries, evidence wait, seal — and the sweep's.
#
# Needs root.  Prints a table; the raw figures as JSON on the last line after "raw: ".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh
JOBS=2; TRIVIAL=40; REAL=1
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) JOBS=$2; shift 2 ;;
	--trivial) TRIVIAL=$2; shift 2 ;;
	--no-real) REAL=0; shift ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "bench/sweep-throughput.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench/sweep-throughput.sh: run as root" >&2; exit 1; }
make -s -j"$(nproc)" >/dev/null
H=$ROOT/build/harkaq
W=$(mktemp -d /var/tmp/harkaq-bench-sweep.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT

# per_recipe OUT: one line per built recipe: key, wall ms, phases ms, outcome
per_recipe() {
	jq -r '.recipes[] | select(.run.exit_status >= 0) |
		"\(.key) \(.run.ms) \([.phases[].ms] | add // 0) \(.outcome)"' "$1/result.json"
}
summarise() { # NAME OUT: the table's two lines, then the raw JSON line
	jq -r --arg name "$1" --argjson jobs "$JOBS" '
		def median: sort | if length == 0 then 0 elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		(.recipes | length) as $n | .run.elapsed_ms as $el |
		[.recipes[] | select(.run.exit_status >= 0) |
		 {key, ms: .run.ms, phases_ms: ([.phases[].ms] | add // 0), outcome}] as $b |
		($b | length) as $k |
		"\($name | .[0:10]) \($n) recipes (\($k) built), --jobs \($jobs): \($el / 1000 * 10 | round / 10) s elapsed, \($n * 3600000 / $el | round) recipes/hour",
		"\($name | .[0:10]) per built recipe: wall \([$b[].ms] | add / $k | round) ms, phases \([$b[].phases_ms] | add / $k | round) ms, outside the phases \([$b[] | .ms - .phases_ms] | add / $k | round) ms (median \([$b[] | .ms - .phases_ms] | median | round) ms)",
		({name: $name, recipes: $n, elapsed_ms: $el, jobs: $jobs, built: $b,
		  summary: (.summary | {hermetic, declarable, irreducible, no_evidence, failed})} | tojson)
	' "$2/result.json"
}

raw="[]"
# ---- trivial recipes: harkaq's own cost --------------------------------------------------------
log "trivial catalogue: $TRIVIAL recipes"
mkdir -p "$W/tool/usr/share/bench-tool" "$W/trivial/src"
echo data >"$W/tool/usr/share/bench-tool/data"
echo x >"$W/trivial/src/x"
"$H" store --store "$W/tstore" add "$W/tool" --name bench-tool --version 1 >/dev/null
for i in $(seq -w 1 "$TRIVIAL"); do
	mkdir -p "$W/trivial/r$i"
	cat >"$W/trivial/r$i/recipe.toml" <<EOF
name = "trivial-$i"
version = "1.0"
base = "host"
[source]
dir = "../src"
[deps]
build = ["bench-tool"]
[phases]
configure = "true"
compile = "cat /usr/share/bench-tool/data >/dev/null"
install = "mkdir -p /out/usr/share/trivial-$i && cp /usr/share/bench-tool/data /out/usr/share/trivial-$i/"
EOF
done
chmod -R a+rX "$W"
"$H" sweep "$W/trivial" --store "$W/tstore" --jobs "$JOBS" --out "$W/trivial-out" --quiet >/dev/null
raw=$(jq -c --argjson r "$(summarise trivial "$W/trivial-out" | tail -1)" '. + [$r]' <<<"$raw")
summarise trivial "$W/trivial-out" | head -2

# ---- the real catalogue ----------------------------------------------------------------------
if [ "$REAL" -eq 1 ]; then
	log "real catalogue: fixture store (gcc-12 libc6-dev make cmake meson ninja-build pkgconf)"
	FIX=$(tests/fixtures/debstore.sh gcc-12 libc6-dev make cmake meson ninja-build pkgconf)
	cp -al "$FIX" "$W/rstore"
	log "sweeping catalogue/ with --jobs $JOBS"
	"$H" sweep catalogue --store "$W/rstore" --jobs "$JOBS" --out "$W/real-out" --quiet >/dev/null
	raw=$(jq -c --argjson r "$(summarise real "$W/real-out" | tail -1)" '. + [$r]' <<<"$raw")
	summarise real "$W/real-out" | head -2
	echo "outcomes: $(jq -c '.summary | {hermetic, declarable, irreducible, no_evidence, failed}' "$W/real-out/summary.json")"
	per_recipe "$W/real-out" | awk '{ printf "  %-34s wall %6d ms  phases %6d ms  outside %5d ms  %s\n", $1, $2, $3, $2 - $3, $4 }'
fi
echo "machine: $(machine_json)"
echo "raw: $raw"
