#!/bin/bash
# Fault injection: a canary nonce that cannot be drawn (design.md §4, docs/verdict.md).  A
# canary at a path the build could know in advance proves nothing, so the phase whose nonce
# is not drawn is not run: its verdict is NoEvidence (no_canary_nonce), the phases after it are
# not run, nothing is sealed, and the build exits 2.  harkaq runs with
# tests/preload/getrandom_gate.so, whose getrandom fails once the gate file exists; the test
# opens the gate while the first phase runs.  The control is the same build, gate shut.
. "$(dirname "$0")/lib.sh"
hk_require_builds

GATE_SO=$B/tests/preload/getrandom_gate.so
S=$(hk_scratch)
MARK=$$   # the first phase sleeps "2.$$" seconds: findable on the host, and only ours
cleanup() {
	for p in $(pgrep -f "^sleep 2\.$MARK\$" 2>/dev/null); do kill "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$S"
}
trap cleanup EXIT

mkdir -p "$S/tree/usr/share/nonce"
echo declared >"$S/tree/usr/share/nonce/declared.txt"
ST=$S/store
"$HARKAQ" store --store "$ST" add "$S/tree" --name nonce-data --version 1 >/dev/null
mkdir -p "$S/r/src"
cat >"$S/r/recipe.toml" <<EOT
name = "nonce"
version = "1"
base = "host"
[source]
dir = "src"
[deps]
build = ["nonce-data"]
[phases]
configure = "sleep 2.$MARK"
compile = "cat /usr/share/nonce/declared.txt >/out/compiled"
install = "cat /usr/share/nonce/declared.txt >/out/installed"
EOT
chmod -R a+rX "$S"

# build OUT [open]: harkaq build with the gate preloaded, --keep (so /out can be looked at);
# with "open", the gate opens once the first phase runs.  Sets RC, ERR, WORK.
build() {
	local out=$1 gate=$S/gate-$1
	rm -f "$gate"
	HARKAQ_TEST_GETRANDOM_GATE=$gate LD_PRELOAD=$GATE_SO \
		"$HARKAQ" build --store "$ST" --keep --result-out "$S/$out.json" "$S/r/recipe.toml" \
		>/dev/null 2>"$S/$out.err" &
	local bp=$!
	if [ "${2:-}" = open ]; then
		for _ in $(seq 200); do pgrep -f "^sleep 2\.$MARK\$" >/dev/null && break; sleep 0.05; done
		pgrep -f "^sleep 2\.$MARK\$" >/dev/null && : >"$gate"
	fi
	wait "$bp"; RC=$?
	ERR=$(cat "$S/$out.err")
	WORK=$(sed -n 's/^work directory kept: //p' "$S/$out.err")
}
states() { jq -r '[.phases[] | .phase + ":" + .verdict.state] | join(" ")' "$S/$1.json" 2>/dev/null; }

before=$("$HARKAQ" store --store "$ST" list 2>&1)
build gated open
check_eq "the gate opened while the first phase ran" yes "$([ -e "$S/gate-gated" ] && echo yes)"
check_eq "no canary nonce: the build exits 2 (NoEvidence)" 2 "$RC"
check_eq "...configure kept its verdict; compile is NoEvidence; install was not run" \
	"configure:Hermetic compile:NoEvidence" "$(states gated)"
check_seen "...configure's verdict stands" "$S/gated.json"
check_eq "...compile's one reason is no_canary_nonce" "no_canary_nonce" \
	"$(jq -r '[.phases[1].verdict.reasons[].code] | join(",")' "$S/gated.json")"
check_contains "...which says why" \
	"$(jq -r '.phases[1].verdict.reasons[0].message' "$S/gated.json")" "getrandom"
check_contains "...and so does stderr" "$ERR" "[compile] not run: no canary nonce"
check_eq "...compile never ran: nothing it writes is in /out" "absent" \
	"$([ -n "$WORK" ] && [ -d "$WORK/out" ] && { [ -e "$WORK/out/compiled" ] && echo present || echo absent; })"
check_eq "...no artifact, nothing sealed" "$before" "$("$HARKAQ" store --store "$ST" list 2>&1)"
check_eq "...no error: the build reached its verdicts" "null" "$(jq -r '.error' "$S/gated.json")"
[ -n "$WORK" ] && rm -rf "$WORK"

build shut
check_eq "control: the gate stays shut" no "$([ -e "$S/gate-shut" ] && echo yes || echo no)"
check_eq "control: the same build with its nonces exits 0" 0 "$RC"
check_eq "control: every phase Hermetic" \
	"configure:Hermetic compile:Hermetic install:Hermetic" "$(states shut)"
check_seen "control: every verdict" "$S/shut.json"
check_eq "control: compile ran and wrote /out/compiled" "declared" \
	"$(cat "$WORK/out/compiled" 2>/dev/null)"
check_contains "control: the artifact is sealed" "$("$HARKAQ" store --store "$ST" list 2>&1)" "nonce"
[ -n "$WORK" ] && rm -rf "$WORK"
finish
