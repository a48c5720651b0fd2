#!/bin/bash
# The worked example of docs/attestations.md, run as the document writes it: its indented
# command lines, taken from the markdown, from the top of the source tree, on a store that
# starts empty (the base is made by the example itself, with mmdebstrap).  Two changes only:
# /var/tmp/demo becomes a scratch directory, and each `echo $?   # N` line reports the status
# beside the N the document promises.  Then the document's other claims are checked against
# what the commands printed.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE
DOC=$ROOT/docs/attestations.md
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT

# The section's indented lines are the commands (and their expected output, as comments).
sed -n '/^## Worked example/,/^## Keys/p' "$DOC" | sed -n 's/^    //p' >"$W/example.sh"
check_contains "the worked example makes its own base" "$(cat "$W/example.sh")" \
	"harkaq store --store store base create debian-12-essential"
want=$(sed -n 's/^echo \$? *# \([0-9]*\).*/\1/p' "$W/example.sh" | tr '\n' ' ')
check_eq "the example promises two statuses: verified, and the hermetic policy satisfied" "0 0 " "$want"
sed -i -e "s|/var/tmp/demo|$W/demo|g" \
	-e 's/^echo \$? *# \([0-9]*\).*/echo "[status] $? want \1"/' "$W/example.sh"

(cd "$ROOT" && PATH=$ROOT/build:$PATH bash "$W/example.sh") >"$W/out" 2>"$W/err"
check_eq "the example runs to its end (its last command's status)" 0 $?
out=$(cat "$W/out" "$W/err")
check_not_contains "no step asks for a base the store lacks" "$out" "no base"
check_eq "every 'echo \$?' prints the status the document gives" \
	"0 want 0|0 want 0|" "$(sed -n 's/^\[status\] //p' "$W/out" | tr '\n' '|')"
check_contains "the build is Hermetic" "$out" "Hermetic"
check_contains "the build names the signing key" "$out" "[attest] signed by key"
check_contains "harkaq verified the provenance's subject" "$out" "1 subject(s) match"
check_contains "the hermetic policy is satisfied, as the document says" "$out" \
	"policy hermetic satisfied"
check_contains "the provenance Statement reads with jq" "$out" '"predicateType": "https://slsa.dev/provenance/v1"'
check_contains "the independent verifier (python3-cryptography) accepts the verdict" "$out" \
	"verified: application/vnd.in-toto+json"
# The document names the artifact's hash prefix and the verdict's payload size: the same
# output gives the same bytes.
art=$(ls "$W/demo/store/.attestations" 2>/dev/null)
check_eq "the artifact's hash begins as the document says" \
	"$(sed -n 's/.*\[attest\] .*\/\([0-9a-f]*\)…-greet\/provenance.dsse.json$/\1/p' "$DOC" | head -1)" \
	"${art:0:4}"
finish
