#!/bin/bash
# The tests pass wherever the tree lives (docs/install.md, "Wherever it lives"): a copy of this
# tree under /var/tmp, where a test that mounts another /var/tmp over the machine's would hide
# the tree's own binaries, runs from there the suites that mount one (integration/reach, whose
# checks integration/build shares) and make install (integration/install).  The control: in
# such a mount namespace the copy's harkaq is indeed out of sight.
# The copy takes this tree's build/ and build-san/ with their times, so the copy's tests/run
# finds them up to date and builds nothing.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
C=$(mktemp -d /var/tmp/harkaq-it-anywhere.XXXXXX)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $C"; return; }; rm -rf "$C"; }
trap cleanup EXIT
chmod 755 "$C"
T=$C/harkaq
mkdir "$T"

if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$T"
else
	tar -C "$ROOT" --exclude=./build --exclude=./build-san --exclude=./build-fuzz \
		--exclude=./store -cf - . | tar -xf - -C "$T"
fi
cp -a "$ROOT/build" "$ROOT/build-san" "$T/"
check "the copy has its own harkaq, under /var/tmp" test -x "$T/build/harkaq"

# The control: another /var/tmp hides it.
unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /var/tmp && test -e "$1"' sh \
	"$T/build/harkaq"
check_eq "control: under another /var/tmp, the copy's harkaq is out of sight" 1 $?

# run_from_copy FILTER: the copy's tests/run FILTER passes, and ran something.
run_from_copy() {
	local out last
	out=$(cd "$T" && tests/run "$1" 2>&1)
	last=$(tail -1 <<<"$out")
	if [[ "$last" =~ ^([0-9]+)\ passed,\ 0\ failed,\ 0\ skipped$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
		ok "from the copy under /var/tmp, tests/run $1: $last"
	else
		not_ok "from the copy under /var/tmp, tests/run $1" "$out"
	fi
	check_contains "...the suite ran from the copy" "$out" "integration/$1 "
}
run_from_copy reach
run_from_copy install
finish
