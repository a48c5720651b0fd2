#!/bin/bash
# The pinned base's speed targets, each ratio measured side by side (two builds started
# together, sharing the CPUs, which one starts first swapped every pair):
#
#  1. trivial  a recipe of one phase running `true`, no deps, on the pinned base
#              debian-12-essential, warm (its store view made, its base's stat cache recorded
#              by an untimed build first): the whole `harkaq build` caged against the same
#              build --no-cage (target <= 1.15x), and caged alone, one build at a time
#              (target <= 0.25 s); where the caged build's extra time goes, from the phases'
#              timing_ms;
#  2. zlib     catalogue/zlib, the whole `harkaq build` (set-up, verification, phases, seal,
#              evidence) against the same commands run bare on the host, outside any sandbox
#              (bench/lib/bare.py: configure, make, make install into a temporary DESTDIR, in
#              a fresh copy of the same source, made before the pair starts) (target <= 1.05x);
#              and `harkaq build --no-cage` against bare, which tells the sandbox's share (its
#              set-up, bubblewrap, the merged view) from the cage's.
#
# Each part also runs its control pairs: the baseline against itself (--no-cage | --no-cage;
# bare | bare), whose ratio is the method's own bias (it must stay within 1 +- 0.02 for zlib,
# 1 +- 0.05 for the trivial build, whose ~0.2 s is at the scheduler's grain).
#
#   bench/warm.sh [--pairs N] [--alone N] [--zlib-pairs M] [--no-trivial] [--no-zlib]
#                 [--against DIR]
#
# N side-by-side pairs of each kind for the trivial recipe (default 20) and N of its builds
# alone in each mode (default 10); M pairs of each kind for zlib (default 6).  The store is the
# catalogue's (tests/fixtures/debstore.sh gcc-12 libc6-dev make cmake meson ninja-build pkgconf
# gettext); zlib's source is fetched once (apt-get source, pinned) as bench/run does.  Prints a
# table; raw files in bench/out/raw-warm-STAMP/, the summary in bench/out/warm-STAMP.json.
# --against DIR adds N trivial pairs of this tree's caged build against the caged build of
# the binaries in DIR (harkaq, harkaq-exec, harkaq-audit of another commit, built elsewhere):
# what a change to the caged path gained, side by side.  Needs root.  Defaults take ~4
# minutes here at a load average of 4-5.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh

PAIRS=20; ALONE=10; ZPAIRS=6; TRIVIAL=1; ZLIB=1; AGAINST=
while [ $# -gt 0 ]; do
	case "$1" in
	--pairs) PAIRS=$2; shift 2 ;;
	--alone) ALONE=$2; shift 2 ;;
	--zlib-pairs) ZPAIRS=$2; shift 2 ;;
	--no-trivial) TRIVIAL=0; shift ;;
	--no-zlib) ZLIB=0; shift ;;
	--against) AGAINST=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '2,36p' "$0"; exit 0 ;;
	*) echo "bench/warm.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench/warm.sh: run as root (harkaq build needs it)" >&2; exit 1; }
[ -z "$AGAINST" ] || [ -x "$AGAINST/harkaq" ] ||
	{ echo "bench/warm.sh: --against: no harkaq in $AGAINST" >&2; exit 64; }
for n in "$PAIRS" "$ALONE" "$ZPAIRS"; do
	[[ "$n" =~ ^[0-9]+$ ]] || { echo "bench/warm.sh: counts are whole numbers" >&2; exit 64; }
done

OUT=$ROOT/bench/out
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RAW=$OUT/raw-warm-$STAMP
mkdir -p "$RAW"
make -s -j"$(nproc)" >/dev/null
H=$ROOT/build/harkaq
W=$(mktemp -d /var/tmp/harkaq-bench-warm.XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
log "store: tests/fixtures/debstore.sh $CATALOGUE_STORE_PKGS"
# shellcheck disable=SC2086
STORE=$(tests/fixtures/debstore.sh $CATALOGUE_STORE_PKGS)

# hb NAME ARGS...: one whole `harkaq build`, its result JSON and wall time in $RAW/NAME.*
# (HB_BIN: another harkaq)
hb() {
	local name=$1 rc=0 t0 t1; shift
	t0=$(date +%s%N)
	"${HB_BIN:-$H}" build --quiet --store "$STORE" --result-out "$RAW/$name.json" "$@" \
		>"$RAW/$name.log" 2>&1 || rc=$?
	t1=$(date +%s%N)
	echo "{\"rc\":$rc,\"wall_ms\":$(( (t1 - t0) / 1000000 ))}" >"$RAW/$name.wall"
}

hb_against() { HB_BIN="$AGAINST/harkaq" hb "$@"; }

# pair NAME_A CMD_A -- NAME_B CMD_B, with FIRST (a or b) started first: both at once.
pair() {
	local first=$1; shift
	local -a ca=() cb=()
	while [ "$1" != -- ]; do ca+=("$1"); shift; done
	shift
	cb=("$@")
	local pa pb
	if [ "$first" = a ]; then
		"${ca[@]}" & pa=$!
		"${cb[@]}" & pb=$!
	else
		"${cb[@]}" & pb=$!
		"${ca[@]}" & pa=$!
	fi
	wait "$pa" "$pb"
}

if [ "$TRIVIAL" -eq 1 ]; then
	mkdir -p "$W/trivial/src"
	echo x >"$W/trivial/src/x"
	cat >"$W/trivial/recipe.toml" <<'EOF'
name = "trivial"
version = "1"
[source]
dir = "src"
[phases]
compile = "true"
EOF
	chmod -R a+rX "$W/trivial"
	TR=$W/trivial/recipe.toml
	log "trivial: one untimed build in each mode (the store view and the base's stat cache)"
	hb t-warmup-cage "$TR"
	hb t-warmup-nocage --no-cage "$TR"
	for r in $(seq "$ALONE"); do
		log "trivial alone $r/$ALONE"
		if [ $((r % 2)) -eq 1 ]; then
			hb "t-alone-cage-$r" "$TR"; hb "t-alone-nocage-$r" --no-cage "$TR"
		else
			hb "t-alone-nocage-$r" --no-cage "$TR"; hb "t-alone-cage-$r" "$TR"
		fi
	done
	for r in $(seq "$PAIRS"); do
		first=$([ $((r % 2)) -eq 1 ] && echo a || echo b)
		log "trivial side by side $r/$PAIRS: cage | nocage, then nocage | nocage"
		pair "$first" hb "t-sbs-cage-$r-mode" "$TR" -- hb "t-sbs-cage-$r-base" --no-cage "$TR"
		pair "$first" hb "t-sbs-nocage-$r-mode" --no-cage "$TR" -- \
			hb "t-sbs-nocage-$r-base" --no-cage "$TR"
		if [ -n "$AGAINST" ]; then
			log "trivial side by side $r/$PAIRS: cage | cage of $AGAINST"
			pair "$first" hb "t-sbs-against-$r-mode" "$TR" -- \
				hb_against "t-sbs-against-$r-base" "$TR"
		fi
	done
fi

if [ "$ZLIB" -eq 1 ]; then
	fetch_source zlib /var/tmp/harkaq-bench-src "$OUT/recipes"
	ZR=$OUT/recipes/zlib/recipe.toml
	ZSRC=$(find /var/tmp/harkaq-bench-src/zlib -mindepth 1 -maxdepth 1 -type d | head -n 1)
	# bare NAME: the recipe's commands on the host in $W/NAME/src (copied before the pair
	# starts), installing into $W/NAME/dest; wall time in $RAW/NAME.wall.
	bare_prepare() {
		rm -rf "${W:?}/$1"; mkdir -p "$W/$1"
		cp -a "$ZSRC" "$W/$1/src"
		python3 bench/lib/bare.py "$ZR" "$W/$1/dest" >"$W/$1/run.sh"
	}
	bare() {
		local rc=0 t0 t1
		t0=$(date +%s%N)
		(cd "$W/$1/src" && env -i /bin/sh "$W/$1/run.sh") >"$RAW/$1.log" 2>&1 || rc=$?
		t1=$(date +%s%N)
		echo "{\"rc\":$rc,\"wall_ms\":$(( (t1 - t0) / 1000000 ))}" >"$RAW/$1.wall"
		find "$W/$1/dest" -type f | sed "s|^$W/$1/dest||" | sort >"$RAW/$1.files"
	}
	# After the pair: a tree removed while its partner still runs would slow the partner.
	bare_remove() { local n; for n in "$@"; do rm -rf "${W:?}/$n"; done; }
	log "zlib: one untimed build each way (page cache, store view)"
	hb z-warmup-cage "$ZR"
	bare_prepare z-warmup-bare; bare z-warmup-bare; bare_remove z-warmup-bare
	for r in $(seq "$ZPAIRS"); do
		first=$([ $((r % 2)) -eq 1 ] && echo a || echo b)
		log "zlib side by side $r/$ZPAIRS: harkaq build | bare, --no-cage | bare, bare | bare"
		bare_prepare "z-sbs-cage-$r-base"
		pair "$first" hb "z-sbs-cage-$r-mode" "$ZR" -- bare "z-sbs-cage-$r-base"
		bare_remove "z-sbs-cage-$r-base"
		bare_prepare "z-sbs-nocage-$r-base"
		pair "$first" hb "z-sbs-nocage-$r-mode" --no-cage "$ZR" -- bare "z-sbs-nocage-$r-base"
		bare_remove "z-sbs-nocage-$r-base"
		bare_prepare "z-sbs-bare-$r-mode"; bare_prepare "z-sbs-bare-$r-base"
		pair "$first" bare "z-sbs-bare-$r-mode" -- bare "z-sbs-bare-$r-base"
		bare_remove "z-sbs-bare-$r-mode" "z-sbs-bare-$r-base"
	done
fi

MACHINE=$(machine_json)
python3 bench/lib/warm_summary.py "$RAW" "$TRIVIAL" "$ALONE" "$PAIRS" "$ZLIB" "$ZPAIRS" \
	"$MACHINE" "$STAMP" "$OUT/warm-$STAMP.json" | tee "$OUT/warm-report-$STAMP.txt"
echo "raw: $OUT/warm-$STAMP.json"
