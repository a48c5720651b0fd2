#!/bin/bash
# Replays the fuzz corpora (fuzz/corpus/NAME/: seeds and saved crashers; NAME-coverage.tar.xz:
# the coverage-minimised corpus a fuzzing run found) through every harness, built without
# libFuzzer by the replay driver (fuzz/driver.c) under ASan+UBSan with the ordinary compiler.
# A sanitizer report or a broken harness invariant aborts the driver: the test fails.
# Fast (seconds once built): it runs in CI; fuzzing itself is fuzz/build.sh --run.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build-fuzz/replay
T=$(mktemp -d /tmp/harkaq-fuzzreg.XXXXXX)
trap 'rm -rf "$T"' EXIT

if ! "$ROOT/fuzz/build.sh" --replay "$OUT" >"$T/build.log" 2>&1; then
	not_ok "replay drivers build" "$(tail -20 "$T/build.log")"
	finish; exit
fi
ok "replay drivers build (ASan+UBSan, $(${CC:-cc} --version | head -1))"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for h in audit reader policy toml recipe json deb elf; do
	dirs=("$ROOT/fuzz/corpus/$h")
	if [ -f "$ROOT/fuzz/corpus/$h-coverage.tar.xz" ]; then
		mkdir -p "$T/$h"
		tar -C "$T/$h" -xJf "$ROOT/fuzz/corpus/$h-coverage.tar.xz"
		dirs+=("$T/$h")
	fi
	n=$(find "${dirs[@]}" -type f | wc -l)
	if out=$("$OUT/fuzz_$h-replay" "${dirs[@]}" 2>&1); then
		check_eq "fuzz_$h: every corpus input replays clean under ASan+UBSan" "$n inputs replayed" "$out"
	else
		not_ok "fuzz_$h: an input fails under the sanitizers" "$(tail -30 <<<"$out")"
	fi
done

# Control: the same driver and flags must catch a real overread, or the clean runs above mean
# nothing.  A harness with a deliberate off-by-one, built exactly like the others.
cat >"$T/fuzz_broken.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint8_t sum = 0;
	for (size_t i = 0; i <= size; i++) /* reads one byte past the input */
		sum += data[i];
	return sum == 255 && size == 0;
}
C
printf 'abc' >"$T/input"
if ${CC:-cc} -std=gnu11 -g -O1 -I"$ROOT" -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$T/broken" "$T/fuzz_broken.c" "$ROOT/fuzz/driver.c" 2>"$T/cc.err"; then
	out=$("$T/broken" "$T/input" 2>&1); rc=$?
	check_eq "control: an overread is caught by the driver's sanitizers (non-zero exit)" yes \
		"$([ $rc -ne 0 ] && echo yes || echo "no (exit $rc)")"
	check_contains "control: ... reported as a heap-buffer-overflow" "$out" "heap-buffer-overflow"
else
	not_ok "control harness builds" "$(cat "$T/cc.err")"
fi
finish
