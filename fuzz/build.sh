#!/bin/bash
# Builds and runs the fuzz harnesses of every parser of untrusted bytes (docs/escape-suite.md,
# "Fuzzing").  The harnesses are fuzz/fuzz_NAME.c; each links against the pure core
# (src/core) compiled with the same instrumentation.
#
#   fuzz/build.sh                 libFuzzer binaries (clang -fsanitize=fuzzer,address,undefined)
#                                 into build-fuzz/fuzz_NAME
#   fuzz/build.sh --replay [DIR]  replay drivers (fuzz/driver.c, no libFuzzer, any C compiler,
#                                 $CC, ASan+UBSan) into DIR (default build-fuzz/replay)
#   fuzz/build.sh --run SECONDS [NAME...]
#                                 builds, then fuzzes each harness SECONDS seconds from its
#                                 seed corpus fuzz/corpus/NAME/; new coverage goes to
#                                 build-fuzz/corpus/NAME/, crashers to fuzz/corpus/NAME/
#                                 (crash-*) so that fuzz_regress.sh replays them forever.
#                                 Prints seconds and executions per harness.  To refresh
#                                 the saved coverage corpus afterwards: fuzz/build.sh --save
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/build-fuzz
HARNESSES=(audit reader policy toml recipe json deb elf)
LIBS=(-lelf)   # elf.c reads through libelf (not instrumented: our code over it is)
CFLAGS_COMMON=(-std=gnu11 -g -O1 -D_GNU_SOURCE -Isrc -I. -fno-omit-frame-pointer)
# Sources outside the core a harness needs: the reader's parser of netlink datagrams and its
# filter (fuzz_reader.c).
extra_src() { # NAME
	case $1 in
	reader) echo src/audit/filter.c src/sys/auditnl.c ;;
	esac
}

build_lib() { # CC OBJDIR FLAGS...
	local cc=$1 objdir=$2; shift 2
	mkdir -p "$objdir"
	local objs=() pids=()
	for src in src/core/*/*.c; do
		local o
		o=$objdir/$(basename "$src" .c).o
		objs+=("$o")
		if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$ROOT/fuzz/build.sh" -nt "$o" ] ||
			[ -n "$(find src/core -name '*.h' -newer "$o" 2>/dev/null | head -1)" ]; then
			"$cc" "${CFLAGS_COMMON[@]}" "$@" -c "$src" -o "$o" &
			pids+=($!)
		fi
	done
	local p
	for p in "${pids[@]}"; do wait "$p"; done
	rm -f "$objdir/libcore.a"
	ar rcs "$objdir/libcore.a" "${objs[@]}"
}

pids=()
if [ "${1:-}" = --replay ]; then
	DEST=${2:-$OUT/replay}
	CC=${CC:-cc}
	SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all)
	build_lib "$CC" "$DEST/obj" "${SAN[@]}"
	for h in "${HARNESSES[@]}"; do
		# shellcheck disable=SC2046
		"$CC" "${CFLAGS_COMMON[@]}" "${SAN[@]}" -o "$DEST/fuzz_$h-replay" \
			fuzz/fuzz_$h.c $(extra_src "$h") fuzz/driver.c "$DEST/obj/libcore.a" "${LIBS[@]}" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	echo "replay drivers in $DEST"
	exit 0
fi

CLANG=${CLANG:-$(command -v clang || command -v clang-14)}
build_lib "$CLANG" "$OUT/obj" -fsanitize=fuzzer-no-link,address,undefined
for h in "${HARNESSES[@]}"; do
	# shellcheck disable=SC2046
	"$CLANG" "${CFLAGS_COMMON[@]}" -fsanitize=fuzzer,address,undefined -o "$OUT/fuzz_$h" \
		fuzz/fuzz_$h.c $(extra_src "$h") "$OUT/obj/libcore.a" "${LIBS[@]}" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "fuzzers in $OUT"

if [ "${1:-}" = --save ]; then
	# Coverage-minimise seeds + what the runs found into fuzz/corpus/NAME-coverage.tar.xz
	# (one reproducible archive per harness instead of thousands of small files).
	for h in "${HARNESSES[@]}"; do
		m=$(mktemp -d)
		"$OUT/fuzz_$h" -merge=1 "$m" "fuzz/corpus/$h" "$OUT/corpus/$h" >/dev/null 2>&1
		tar -C "$m" --owner=0 --group=0 --numeric-owner --mtime=@1700000000 --sort=name \
			-cJf "fuzz/corpus/$h-coverage.tar.xz" .
		echo "$h: $(ls "$m" | wc -l) inputs saved"
		rm -rf "$m"
	done
fi

if [ "${1:-}" = --run ]; then
	secs=${2:?--run wants SECONDS}
	shift 2
	[ $# -gt 0 ] && HARNESSES=("$@")
	for h in "${HARNESSES[@]}"; do
		mkdir -p "$OUT/corpus/$h" "fuzz/corpus/$h"
		# Start from what earlier runs found (the saved coverage corpus), not from scratch.
		if [ -f "fuzz/corpus/$h-coverage.tar.xz" ] && [ -z "$(ls -A "$OUT/corpus/$h")" ]; then
			tar -C "$OUT/corpus/$h" -xJf "fuzz/corpus/$h-coverage.tar.xz"
		fi
		log=$OUT/fuzz_$h.log
		set +e
		"$OUT/fuzz_$h" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="fuzz/corpus/$h/crash-" \
			"$OUT/corpus/$h" "fuzz/corpus/$h" >"$log" 2>&1
		rc=$?
		set -e
		execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
		tsecs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
		printf '%-8s %4ss  %10s executions  %8s exec/s  exit %d  (log %s)\n' \
			"$h" "$secs" "$execs" "$tsecs" "$rc" "$log"
	done
fi
