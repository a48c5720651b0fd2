#!/bin/bash
# Attestations end to end (docs/attestations.md): a real caged build signs an in-toto SLSA
# provenance and a verdict Statement in DSSE envelopes; harkaq verifies them, an independent
# DSSE implementation on python3-cryptography (tests/interop/dsse_ed25519.py, no code shared
# with harkaq) verifies them too, and envelopes it signs verify with harkaq.  Each kind of bad
# input gets its own exit status, and verification writes nothing.  Every negative has its
# positive control in this run.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export HARKAQ=$HARKAQ
unset HARKAQ_STORE
PYDSSE=$ROOT/tests/interop/dsse_ed25519.py
# Debian's interpreter, where python3-cryptography is installed (not whatever python3 is first
# on PATH).
PY=/usr/bin/python3
VEC=$ROOT/tests/data/dsse

if ! "$PY" -c 'import cryptography' 2>/dev/null; then
	not_ok "python3-cryptography is installed (tests/setup-deps)"; finish; exit
fi
FIX=$("$ROOT/tests/fixtures/debstore.sh") || { not_ok "fixture store" "debstore.sh failed"; finish; exit 1; }
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT

# ---- the DSSE specification's own test vector ---------------------------------------------
"$HARKAQ" attest pae "$VEC/hello-world.envelope.json" >"$W/vec.pae" 2>"$W/err"
check_eq "PAE of the spec's envelope is the spec's PAE, byte for byte" \
	"$(sha256sum <"$VEC/hello-world.pae")" "$(sha256sum <"$W/vec.pae")"
check "the spec's ECDSA signature verifies over harkaq's PAE (python3-cryptography)" \
	"$PY" "$PYDSSE" ecdsa-vector "$W/vec.pae"
# Control: the same check refuses bytes the vector did not sign.
printf 'DSSEv1 29 http://example.com/HelloWorld 11 hello worle' >"$W/vec-bad.pae"
if "$PY" "$PYDSSE" ecdsa-vector "$W/vec-bad.pae" >/dev/null 2>&1; then
	not_ok "control: the vector's signature does not cover a changed PAE"
else
	ok "control: the vector's signature does not cover a changed PAE"
fi

# ---- keys ---------------------------------------------------------------------------------
mkdir -p "$W/keys"
out=$(umask 000; "$HARKAQ" attest keygen "$W/keys/build" 2>&1)
check_eq "keygen succeeds" 0 $?
check_eq "the private key is 0600 even under umask 000" 600 "$(stat -c %a "$W/keys/build.key")"
keyid=$(sed -n 's/^key id *//p' <<<"$out")
check_eq "the key id is the SHA-256 of the public key's DER SubjectPublicKeyInfo" \
	"$(openssl pkey -pubin -in "$W/keys/build.pub" -outform DER | sha256sum | cut -d' ' -f1)" "$keyid"
before=$(sha256sum "$W/keys/build.key")
"$HARKAQ" attest keygen "$W/keys/build" >/dev/null 2>"$W/err"
check_eq "keygen never replaces a key (65)" 65 $?
check_eq "the old key is untouched" "$before" "$(sha256sum "$W/keys/build.key")"
"$PY" "$PYDSSE" keygen "$W/keys/py" >/dev/null
"$HARKAQ" attest keygen "$W/keys/other" >/dev/null

# ---- a caged build, signed --------------------------------------------------------------------
P=$W/proj
mkdir -p "$P/src"
cp -a "$FIX" "$P/store"
echo hello >"$P/src/greeting"
cat >"$P/recipe.toml" <<'R'
name = "greet"
version = "1"
[source]
dir = "src"
[deps]
build = ["make"]
[phases]
install = ["read line < greeting; printf '%s, attested\n' \"$line\" > /out/greeting.txt"]
R
chmod -R a+rX "$P"
S=$P/store

# A private key others may read is refused before anything runs.
cp "$W/keys/build.key" "$W/keys/loose.key"
chmod 644 "$W/keys/loose.key"
ls -a "$S" >"$W/store-before"
"$HARKAQ" build "$P/recipe.toml" --key "$W/keys/loose.key" >"$W/out" 2>"$W/err"
check_eq "a private key readable by others is refused (65)" 65 $?
check_contains "the refusal names the mode" "$(cat "$W/err")" "mode 0644 lets others read"
check_not_contains "and no build started" "$(cat "$W/err")" "[work]"
check_eq "and nothing was added to the store" "$(cat "$W/store-before")" "$(ls -a "$S")"

"$HARKAQ" build "$P/recipe.toml" --key "$W/keys/build.key" --result-out "$W/result.json" >"$W/out" 2>"$W/err"
rc=$?
check_eq "signed build exits 0 (Hermetic)" 0 "$rc"
[ "$rc" -ne 0 ] && sed 's/^/#   /' "$W/err"
check_seen "the build's verdict" "$W/result.json"
art=$(jq -r .artifact "$W/result.json")
A=$(ls -d "$S"/.attestations/*-greet 2>/dev/null | head -1)
PROV=$A/provenance.dsse.json
VERD=$A/verdict.dsse.json
check "both envelopes are written next to the store" test -s "$PROV" -a -s "$VERD"
check_contains "the build names the signing key" "$(cat "$W/err")" "signed by key $keyid"
stmt=$(jq -r .payload "$PROV" | base64 -d)
check_eq "provenance: in-toto Statement v1, SLSA provenance v1" \
	"https://in-toto.io/Statement/v1 https://slsa.dev/provenance/v1" \
	"$(jq -r '"\(._type) \(.predicateType)"' <<<"$stmt")"
check_eq "provenance: the subject's sha256 is the artifact file's" \
	"$(sha256sum <"$S/${art#b3:}-greet/greeting.txt" | cut -d' ' -f1)" \
	"$(jq -r '.subject[] | select(.name == "greeting.txt") | .digest.sha256' <<<"$stmt")"
check_eq "provenance: make is resolved as a Debian purl with its .deb's sha256" \
	"pkg:deb/debian/make@4.3-4.1?arch=amd64 64" \
	"$(jq -r '.predicate.buildDefinition.resolvedDependencies[] | select(.uri | startswith("pkg:deb/debian/make@")) | "\(.uri) \(.digest.sha256 | length)"' <<<"$stmt")"
BASE_ID=$("$HARKAQ" store --store "$S" base show debian-12-essential | awk '$1 == "id" {print $2}')
check_eq "provenance: the base is the pinned debian-12-essential, by its id" \
	"debian-12-essential true $BASE_ID" \
	"$(jq -r '.predicate.buildDefinition.internalParameters.base | "\(.name) \(.pinned) \(.id)"' <<<"$stmt")"
check_eq "provenance: the base is a resolved dependency named by its id" "harkaq:base:$BASE_ID" \
	"$(jq -r '.predicate.buildDefinition.resolvedDependencies[] | select(.name == "base") | .uri' <<<"$stmt")"
check_eq "provenance: one byproduct per phase's evidence object" \
	"$(jq -r '.phases[0].report.evidence' "$W/result.json")" \
	"$(jq -r '.predicate.runDetails.byproducts[] | select(.name == "evidence/install") | .uri | sub("^harkaq:evidence:"; "")' <<<"$stmt")"
vstmt=$(jq -r .payload "$VERD" | base64 -d)
check_eq "verdict statement: the phase's state and its embedded evidence object agree" \
	"Hermetic Hermetic harkaq.verdict.v1" \
	"$(jq -r '.predicate.phases[0] | "\(.state) \(.evidence.state) \(.evidence.kind)"' <<<"$vstmt")"

# ---- verification: the positive controls ----------------------------------------------------
touch "$W/stamp"
sleep 1
out=$("$HARKAQ" attest verify "$PROV" "$VERD" --pub "$W/keys/build.pub" --store "$S" 2>&1)
check_eq "harkaq verifies both envelopes against the store (0)" 0 $?
check_contains "and says how many subjects matched" "$out" "1 subject(s) match"
check "the independent verifier accepts harkaq's provenance envelope" \
	"$PY" "$PYDSSE" verify "$PROV" "$W/keys/build.pub" application/vnd.in-toto+json
check "the independent verifier accepts harkaq's verdict envelope" \
	"$PY" "$PYDSSE" verify "$VERD" "$W/keys/build.pub" application/vnd.in-toto+json
if "$PY" "$PYDSSE" verify "$VERD" "$W/keys/other.pub" >/dev/null 2>&1; then
	not_ok "control: the independent verifier refuses another key"
else
	ok "control: the independent verifier refuses another key"
fi

# An envelope the independent implementation signs (its own key, and harkaq's key file read
# by python3-cryptography) verifies with harkaq.
"$PY" "$PYDSSE" payload "$PROV" >"$W/prov.json"
"$PY" "$PYDSSE" sign "$W/prov.json" application/vnd.in-toto+json "$W/keys/py.key" "$W/py-prov.json"
check "harkaq verifies an envelope signed by the independent implementation" \
	"$HARKAQ" attest verify "$W/py-prov.json" --pub "$W/keys/py.pub" --store "$S"
"$PY" "$PYDSSE" sign "$W/prov.json" application/vnd.in-toto+json "$W/keys/build.key" "$W/py-prov2.json"
check "harkaq verifies the independent implementation's signature with harkaq's own key file" \
	"$HARKAQ" attest verify "$W/py-prov2.json" --pub "$W/keys/build.pub" --store "$S"

# ---- the hermetic policy ------------------------------------------------------------------
out=$("$HARKAQ" attest verify "$VERD" --pub "$W/keys/build.pub" --store "$S" --policy hermetic 2>&1)
check_eq "policy hermetic passes for the build on the pinned base, every phase Hermetic (0)" 0 $?
check_contains "and says so" "$out" "policy hermetic satisfied"
# Control: the same statement with the base unpinned (host), signed by the independent signer.
"$PY" "$PYDSSE" payload "$VERD" |
	jq -c '.predicate.base = {"id": "host", "name": "host", "pinned": false}' >"$W/verd-host.json"
"$PY" "$PYDSSE" sign "$W/verd-host.json" application/vnd.in-toto+json "$W/keys/py.key" "$W/py-host.json"
"$HARKAQ" attest verify "$W/py-host.json" --pub "$W/keys/py.pub" --store "$S" --policy hermetic \
	>/dev/null 2>"$W/err"
check_eq "control: policy hermetic fails for the same build on the unpinned host base (14)" 14 $?
check_contains "and says why" "$(cat "$W/err")" "the base host is not pinned"
check_not_contains "and only that: every phase was Hermetic" "$(cat "$W/err")" "phase install"
"$PY" "$PYDSSE" payload "$VERD" >"$W/verd-pinned.json"
# A verdict whose embedded evidence object was changed (then re-signed) no longer hashes to the
# evidenceId it claims: malformed (65), while the unchanged one above passed.
jq -c '.predicate.phases[0].evidence.kernel.denials = 0' "$W/verd-pinned.json" >"$W/verd-ev.json"
"$PY" "$PYDSSE" sign "$W/verd-ev.json" application/vnd.in-toto+json "$W/keys/py.key" "$W/py-ev.json"
"$HARKAQ" attest verify "$W/py-ev.json" --pub "$W/keys/py.pub" --store "$S" >/dev/null 2>"$W/err"
check_eq "an embedded evidence object that does not hash to its evidenceId (65)" 65 $?
check_contains "naming the phase" "$(cat "$W/err")" "phase install: the embedded evidence object"

# ---- bad input: each its own status, a clear error, nothing written ---------------------------
bad() { # NAME EXPECTED-STATUS NEEDLE ENVELOPE [OPTIONS...]
	local name=$1 want=$2 needle=$3 env=$4
	shift 4
	"$HARKAQ" attest verify "$env" "$@" >/dev/null 2>"$W/err"
	check_eq "$name ($want)" "$want" $?
	check_contains "$name: the error says so" "$(cat "$W/err")" "$needle"
}
jq -r .payload "$VERD" | base64 -d | sed 's/"state":"Hermetic"/"state":"Impure"/' | base64 -w0 >"$W/tampered.b64"
jq --rawfile p "$W/tampered.b64" '.payload = $p' "$VERD" >"$W/tampered.json"
bad "a tampered payload" 10 "does not verify" "$W/tampered.json" --pub "$W/keys/build.pub" --store "$S"
bad "a wrong key" 11 "no signature by key" "$VERD" --pub "$W/keys/other.pub" --store "$S"
jq '.payloadType = "application/json"' "$VERD" >"$W/type.json"
bad "a wrong payload type" 12 "payloadType is 'application/json'" "$W/type.json" --pub "$W/keys/build.pub" --store "$S"
head -c 200 "$VERD" >"$W/truncated.json"
bad "a truncated envelope" 65 "truncated or not a DSSE envelope" "$W/truncated.json" --pub "$W/keys/build.pub" --store "$S"
# Subjects against a directory: an unchanged copy passes (control), a changed file does not.
mkdir -p "$W/copy"
cp "$S/${art#b3:}-greet/greeting.txt" "$W/copy/"
check "control: the subjects match an unchanged copy (--dir)" \
	"$HARKAQ" attest verify "$VERD" --pub "$W/keys/build.pub" --dir "$W/copy"
chmod u+w "$W/copy/greeting.txt"
echo changed >>"$W/copy/greeting.txt"
bad "a subject digest that does not match (--dir)" 13 "subject greeting.txt: sha256" "$VERD" \
	--pub "$W/keys/build.pub" --dir "$W/copy"
check_eq "verification wrote nothing, in the store or beside the envelopes" "" \
	"$(find "$S" "$A" "$W/keys" -newer "$W/stamp" 2>/dev/null | head -5)"
# And in the store itself: the artifact's file changed underneath.
f=$S/${art#b3:}-greet/greeting.txt
chmod u+w "$f"
echo changed >>"$f"
bad "a subject digest that does not match (store)" 13 "subject greeting.txt: sha256" "$PROV" \
	--pub "$W/keys/build.pub" --store "$S"

# ---- an unsigned build ----------------------------------------------------------------------
echo again >"$P/src/greeting"
"$HARKAQ" build "$P/recipe.toml" --quiet >/dev/null 2>"$W/err"
check_eq "an unsigned build still succeeds" 0 $?
U=$(ls -d "$S"/.attestations/*-greet | grep -v "${art#b3:}" | head -1)
check_eq "its envelopes carry no signature" 0 "$(jq '.signatures | length' "$U/verdict.dsse.json" 2>/dev/null)"
bad "an unsigned envelope" 11 "unsigned" "$U/verdict.dsse.json" --pub "$W/keys/build.pub" --store "$S"

# ---- a NoEvidence build: its signed verdict fails the policy, naming the phase --------------
# Only a Hermetic build's output enters the store by default, and only what is stored is
# attested: a NoEvidence build is attested when --seal-impure stores it.
echo noev >"$P/src/greeting"
ls -a "$S/.attestations" >"$W/att-before"
"$HARKAQ" build "$P/recipe.toml" --key "$W/keys/build.key" --no-evidence >/dev/null 2>"$W/err"
check_eq "a build without the evidence channel is NoEvidence (2)" 2 $?
check_eq "  its output is not stored, so nothing is attested" "$(cat "$W/att-before")" \
	"$(ls -a "$S/.attestations")"
check_contains "  and the build says so" "$(cat "$W/err")" \
	"[attest] nothing attested: the artifact was not stored"
"$HARKAQ" build "$P/recipe.toml" --key "$W/keys/build.key" --no-evidence --seal-impure --quiet \
	>/dev/null 2>"$W/err"
check_eq "with --seal-impure the NoEvidence build is stored and attested (2)" 2 $?
N=$(for f in "$S"/.attestations/*-greet/verdict.dsse.json; do
	jq -r .payload "$f" | base64 -d | grep -q '"state":"NoEvidence"' && echo "$f"; done | head -1)
"$HARKAQ" attest verify "$N" --pub "$W/keys/build.pub" --store "$S" --policy hermetic >/dev/null 2>"$W/err"
check_eq "policy hermetic fails on a NoEvidence phase (14)" 14 $?
check_contains "naming the phase and its reason" "$(cat "$W/err")" "phase install is NoEvidence ("

finish
