# Shared helpers for integration tests (sourced).  Each test prints TAP lines.
#   ok "name"  /  not_ok "name" "why"  /  check "name" CMD...  /  skip "name" "reason"
#   check_eq "name" EXPECTED ACTUAL   /  check_contains "name" HAYSTACK NEEDLE
set -u
HK_TAP_N=0
HK_TAP_FAILED=0
B=${HARKAQ_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
HARKAQ=$B/harkaq
HARKAQ_EXEC=$B/harkaq-exec
HARKAQ_AUDIT=$B/harkaq-audit
HELPERS=$B/tests/helpers

ok() { HK_TAP_N=$((HK_TAP_N + 1)); echo "ok $HK_TAP_N - $1"; }
not_ok() {
	HK_TAP_N=$((HK_TAP_N + 1)); HK_TAP_FAILED=$((HK_TAP_FAILED + 1))
	echo "not ok $HK_TAP_N - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/#   /'
	return 0
}
skip() { HK_TAP_N=$((HK_TAP_N + 1)); echo "ok $HK_TAP_N - $1 # SKIP $2"; }
check() { local name=$1; shift; local out; if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "command failed: $* -> $out"; fi; }
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2
got:      $3"; fi
}
check_contains() {
	case "$2" in *"$3"*) ok "$1" ;; *) not_ok "$1" "expected to find: $3
in: $2" ;; esac
}
check_not_contains() {
	case "$2" in *"$3"*) not_ok "$1" "did not expect: $3
in: $2" ;; *) ok "$1" ;; esac
}
finish() { echo "1..$HK_TAP_N"; [ "$HK_TAP_FAILED" -eq 0 ]; }

# A scratch directory readable by the unprivileged build user (DAC must not be what blocks:
# what DAC blocks is invisible to Landlock, and a negative test would prove nothing).
hk_scratch() {
	local d
	d=$(mktemp -d /var/tmp/harkaq-it.XXXXXX)
	chmod 755 "$d"
	echo "$d"
}

# check_seen NAME FILE [JQ]: the positive control for a Hermetic verdict (a broken reader and a
# hermetic build both show no denial): every Hermetic verdict selected by JQ (default: the
# phases of a build result) saw its canary, and the kernel's denial count arrived and equals
# the records received.  At least one Hermetic verdict must be selected.
check_seen() {
	local sel=${3:-'.phases[].verdict'} got
	got=$(jq -r "[$sel | select(. != null and .state == \"Hermetic\") |
		(.canary.seen == true and .kernel.denials != null and .kernel.denials == .kernel.records_received)]
		| if length == 0 then \"no Hermetic verdict\" else (all | tostring) end" "$2" 2>&1)
	check_eq "$1 (control: canary seen, kernel denials == records received)" true "$got"
}
