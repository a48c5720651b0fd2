#!/bin/bash
# Attestations of Debian builds (docs/attestations.md, "Debian builds"): `harkaq build --dsc
# --key` signs an in-toto SLSA provenance and a verdict Statement, and every claim in them is
# checked here without harkaq's code:
#   - both envelopes verify with OpenSSL alone (the PAE built from the DSSE specification) and
#     with the independent DSSE verifier on python3-cryptography; a changed byte is refused;
#   - every subject's sha256 is recomputed from the .deb, .buildinfo and .changes files;
#   - every resolved .deb's sha256 is apt's own (`apt-cache show NAME=VERSION`), the base is
#     the store's by id, the .dsc and its files are the bytes on disk;
#   - `attest verify --policy complete-build-depends` passes on hkcalc with every Build-Depends
#     declared, and fails on hkcalc without bison (a build that falls back on a hand-written
#     parser and completes, its run of yacc a probe), naming the phase and the package.
# hkcalc declares tzdata with bison: the phases run with TZ=UTC, and perl reads the zone file
# in every phase (docs/debian-builds.md, "The report"); declared, every phase can be Hermetic.
# Three Debian builds of hkcalc in all (the second with --decide-probes runs two more).
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE
PY=/usr/bin/python3
PYDSSE=$ROOT/tests/interop/dsse_ed25519.py
TYPE=application/vnd.in-toto+json
if ! "$PY" -c 'import cryptography' 2>/dev/null; then
	not_ok "python3-cryptography is installed (tests/setup-deps)"; finish; exit
fi
BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd) || { not_ok "buildd base fixture"; finish; exit 1; }
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT
sec() { echo "# [${SECONDS}s] $*"; }
S=$W/store
"$HARKAQ" store --store "$S" base import debian-12-buildd --from "$BASESTORE" >/dev/null ||
	not_ok "import the buildd base"
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR" "$W/keys"
"$HARKAQ" attest keygen "$W/keys/k" >/dev/null
"$HARKAQ" attest keygen "$W/keys/other" >/dev/null
"$PY" "$PYDSSE" keygen "$W/keys/py" >/dev/null
FULL=$("$ROOT/tests/fixtures/hkcalc.sh" "$W/full" "bison, tzdata") || not_ok "hkcalc fixture"
DROP=$("$ROOT/tests/fixtures/hkcalc.sh" "$W/drop" "tzdata" --fallback) || not_ok "hkcalc fixture"

# openssl_verify ENVELOPE PUB [FLIP]: the DSSE signature checked by OpenSSL alone: the PAE
# ("DSSEv1" SP LEN(type) SP type SP LEN(body) SP body) from the envelope's own bytes, the
# signature over it with `openssl pkeyutl -verify -rawin` (Ed25519).  FLIP changes the last
# byte of the PAE first (the control).
openssl_verify() {
	local env=$1 pub=$2 d
	d=$(mktemp -d "$W/ossl.XXXXXX")
	jq -j .payload "$env" | base64 -d >"$d/body"
	jq -j .payloadType "$env" >"$d/type"
	jq -j '.signatures[0].sig' "$env" | base64 -d >"$d/sig"
	{ printf 'DSSEv1 %d ' "$(stat -c %s "$d/type")"; cat "$d/type"
	  printf ' %d ' "$(stat -c %s "$d/body")"; cat "$d/body"; } >"$d/pae"
	[ -z "${3:-}" ] || printf 'X' | dd of="$d/pae" bs=1 seek=$(($(stat -c %s "$d/pae") - 1)) \
		conv=notrunc 2>/dev/null
	openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -in "$d/pae" -sigfile "$d/sig" >/dev/null 2>&1
}

# ---- a key that may have leaked stops a Debian build before anything runs --------------------
sec "key refused"
cp "$W/keys/k.key" "$W/keys/loose.key"
chmod 644 "$W/keys/loose.key"
before=$("$HARKAQ" store --store "$S" list 2>/dev/null | wc -l)
"$HARKAQ" build --store "$S" --dsc "$FULL" --key "$W/keys/loose.key" >/dev/null 2>"$W/err"
check_eq "a --dsc build with a key others may read is refused (65)" 65 $?
check_contains "  naming the mode" "$(cat "$W/err")" "mode 0644 lets others read"
check_eq "  and nothing was imported" "$before" "$("$HARKAQ" store --store "$S" list 2>/dev/null | wc -l)"

# ---- every Build-Depends declared: signed, complete ------------------------------------------
sec "hkcalc, complete"
"$HARKAQ" build --store "$S" --dsc "$FULL" --key "$W/keys/k.key" --json >"$W/full.json" 2>"$W/full.log"
rc=$?
check_eq "the complete hkcalc builds, every phase Hermetic (0)" \
	"0 clean:0:Hermetic build:0:Hermetic binary:0:Hermetic" \
	"$rc $(jq -r '[.result.phases[] | "\(.phase):\(.exit_code):\(.verdict.state)"] | join(" ")' "$W/full.json")"
check_seen "the complete build's verdicts" "$W/full.json" '.result.phases[].verdict'
art=$(jq -r '.result.artifact' "$W/full.json")
ADIR=$S/${art#b3:}-hkcalc_debs
A=$S/.attestations/${art#b3:}-hkcalc_debs
PROV=$A/provenance.dsse.json
VERD=$A/verdict.dsse.json
check "both envelopes are written for the .debs' artifact" test -s "$PROV" -a -s "$VERD"
check_contains "the build names the signing key" "$(cat "$W/full.log")" \
	"[attest] signed by key $(openssl pkey -pubin -in "$W/keys/k.pub" -outform DER | sha256sum | cut -d' ' -f1)"
P=$(jq -r .payload "$PROV" | base64 -d)
V=$(jq -r .payload "$VERD" | base64 -d)

# OpenSSL alone, then the independent DSSE implementation.
for e in provenance verdict; do
	check "OpenSSL alone verifies the $e envelope (PAE from the DSSE specification)" \
		openssl_verify "$A/$e.dsse.json" "$W/keys/k.pub"
	check "the independent verifier (python3-cryptography) accepts the $e envelope" \
		"$PY" "$PYDSSE" verify "$A/$e.dsse.json" "$W/keys/k.pub" "$TYPE"
done
if openssl_verify "$VERD" "$W/keys/k.pub" flip; then
	not_ok "control: OpenSSL refuses the signature over a PAE with one byte changed"
else
	ok "control: OpenSSL refuses the signature over a PAE with one byte changed"
fi
if openssl_verify "$VERD" "$W/keys/other.pub"; then
	not_ok "control: OpenSSL refuses the signature with another key"
else
	ok "control: OpenSSL refuses the signature with another key"
fi

# Subjects: every file of the artifact, each sha256 recomputed here.
check_eq "provenance: SLSA v1, the Debian build type" \
	"https://slsa.dev/provenance/v1 urn:harkaq:build-type:dsc:v1" \
	"$(jq -r '"\(.predicateType) \(.predicate.buildDefinition.buildType)"' <<<"$P")"
check_eq "the subjects are the artifact's files: the .deb, the .buildinfo and the .changes" \
	"$(cd "$ADIR" && ls | sort | tr '\n' ' ')" "$(jq -r '[.subject[].name] | sort | join(" ") + " "' <<<"$P")"
check_eq "every subject's sha256 is the file's, recomputed with sha256sum" \
	"$(cd "$ADIR" && sha256sum * | awk '{print $2 " " $1}' | sort)" \
	"$(jq -r '.subject[] | "\(.name) \(.digest.sha256)"' <<<"$P" | sort)"
check_eq "the verdict Statement has the same subjects" "$(jq -c .subject <<<"$P")" "$(jq -c .subject <<<"$V")"

# Resolved dependencies: each .deb against apt's own record of it.
jq -r '.predicate.buildDefinition.resolvedDependencies[] | select((.uri // "") | startswith("pkg:deb/debian/")) |
	select(.uri | endswith("?arch=source") | not) | "\(.uri) \(.digest.sha256)"' <<<"$P" >"$W/debs"
# apt_sha NAME VERSION: the SHA256 apt's Packages index gives that version.
apt_sha() { apt-cache show "$1=$2" 2>/dev/null | awk '/^SHA256:/ {print $2; exit}'; }
# check_debs FILE: "ok N" when every purl's sha256 is apt's, else the first that is not.
check_debs() {
	local uri sha nv name ver n=0
	while read -r uri sha; do
		nv=${uri#pkg:deb/debian/}; nv=${nv%%\?*}
		name=${nv%%@*}; ver=$(printf '%b' "${nv#*@}" | sed 's/%2B/+/g; s/%7E/~/g')
		[ "$(apt_sha "$name" "$ver")" = "$sha" ] || { echo "$name=$ver: apt says $(apt_sha "$name" "$ver"), the statement $sha"; return; }
		n=$((n + 1))
	done <"$1"
	echo "ok $n"
}
check_eq "every resolved .deb's sha256 is apt's (apt-cache show NAME=VERSION), one per closure package" \
	"ok $(jq '.closure | length' "$W/full.json")" "$(check_debs "$W/debs")"
check_contains "  bison among them, its version's + encoded as the purl specification says" \
	"$(cat "$W/debs")" "pkg:deb/debian/bison@2:3.8.2%2Bdfsg-1%2Bb1?arch=amd64 "
sed '1s/ [0-9a-f]*$/ 0000000000000000000000000000000000000000000000000000000000000000/' "$W/debs" >"$W/debs-bad"
check_contains "control: a changed digest is caught by the same check" "$(check_debs "$W/debs-bad")" "apt says"
BASE_ID=$("$HARKAQ" store --store "$S" base show debian-12-buildd | awk '$1 == "id" {print $2}')
check_eq "the base is resolved by its id, pinned, with the base packages the build declared" \
	"harkaq:base:$BASE_ID true true" \
	"$(jq -r '.predicate.buildDefinition.resolvedDependencies[] | select(.name == "base") | "\(.uri) \(.annotations.pinned) \(.annotations.declaredPackages | any(startswith("tzdata=")))"' <<<"$P")"
check_eq "the .dsc is resolved by its purl and the sha256 of its bytes" \
	"pkg:deb/debian/hkcalc@1.0?arch=source $(sha256sum <"$FULL" | cut -d' ' -f1)" \
	"$(jq -r '.predicate.buildDefinition.resolvedDependencies[] | select(.name == "hkcalc_1.0.dsc") | "\(.uri) \(.digest.sha256)"' <<<"$P")"
check_eq "the .dsc's tarball is resolved with its sha256, the bytes on disk" \
	"$(sha256sum <"$W/full/hkcalc_1.0.tar.xz" | cut -d' ' -f1)" \
	"$(jq -r '.predicate.buildDefinition.resolvedDependencies[] | select(.name == "hkcalc_1.0.tar.xz") | .digest.sha256' <<<"$P")"
check_eq "the external parameters name the .dsc and the build" "hkcalc 1.0 binary nocheck debian-12-buildd" \
	"$(jq -r '.predicate.buildDefinition.externalParameters | "\(.dsc.source) \(.dsc.version) \(.build) \(.buildProfiles) \(.base)"' <<<"$P")"

# The verdict: what the Debian verdicts decide, per phase.
check_eq "verdict: complete, every phase Hermetic, nothing named, the expected set by its version" \
	"true true harkaq-debian-expect 1 clean:Hermetic:0:0 build:Hermetic:0:0 binary:Hermetic:0:0" \
	"$(jq -r '.predicate.debian | "\(.complete) \(.completed) \(.expectedSet) \([.phases[] | "\(.phase):\(.state):\(.exitCode):\(.missing + .probes + .unattributed | length)"] | join(" "))"' <<<"$V")"
out=$("$HARKAQ" attest verify "$PROV" "$VERD" --pub "$W/keys/k.pub" --store "$S" \
	--policy complete-build-depends 2>&1)
check_eq "attest verify --policy complete-build-depends passes on the complete hkcalc (0)" 0 $?
check_contains "  and says so" "$out" "policy complete-build-depends satisfied"
check_contains "  after checking the 3 subjects against the store" "$out" "3 subject(s) match"

# ---- bison dropped: the build completes, Impure on the probe ---------------------------------
sec "hkcalc without bison"
"$HARKAQ" build --store "$S" --dsc "$DROP" --key "$W/keys/k.key" --decide-probes --json \
	>"$W/drop.json" 2>"$W/drop.log"
rc=$?
check_eq "without bison the build completes, Impure: yacc (the dpkg state's link) denied (1)" \
	"1 clean:0 build:0 binary:0 bison" \
	"$rc $(jq -r '"\([.result.phases[] | "\(.phase):\(.exit_code)"] | join(" ")) \([.probes[].package] | join(" "))"' "$W/drop.json")"
check_contains "  the fallback parser was built instead" "$(cat "$W/drop.log")" "cp calc-dist.c calc.c"
dart=$(jq -r '.result.artifact' "$W/drop.json")
DA=$S/.attestations/${dart#b3:}-hkcalc_debs
DV=$(jq -r .payload "$DA/verdict.dsse.json" | base64 -d)
check "OpenSSL alone verifies its verdict envelope" openssl_verify "$DA/verdict.dsse.json" "$W/keys/k.pub"
class=$(jq -r '.decide.decisions[] | select(.package == "bison") | .class' "$W/drop.json")
check_eq "verdict: not complete; the build phase's probe is bison, with its --decide-probes class" \
	"false true bison:executed:/usr/bin/yacc:$class" \
	"$(jq -r '.predicate.debian | "\(.complete) \(.completed) \(.phases[] | select(.phase == "build") | .probes[] | "\(.package):\(.access):\(.via):\(.class)")"' <<<"$DV")"
"$HARKAQ" attest verify "$DA/provenance.dsse.json" "$DA/verdict.dsse.json" --pub "$W/keys/k.pub" \
	--store "$S" --policy complete-build-depends >"$W/out" 2>"$W/err"
check_eq "attest verify --policy complete-build-depends fails without bison (14)" 14 $?
check_contains "  the signatures and subjects verified first" "$(cat "$W/out")" "3 subject(s) match"
check_contains "  naming the phase, the package and what it did" "$(cat "$W/err")" \
	"phase build: undeclared bison, a probe (executed /usr/bin/yacc, its symlink, by dash; the phase went on); --decide-probes: $class"

# The policy reads the signed member, and the member must agree with the evidence: the complete
# verdict with "debian" removed, and the incomplete one claiming completeness, each re-signed.
"$PY" "$PYDSSE" payload "$VERD" | jq -c 'del(.predicate.debian)' >"$W/nodeb.json"
"$PY" "$PYDSSE" sign "$W/nodeb.json" "$TYPE" "$W/keys/py.key" "$W/nodeb.env"
"$HARKAQ" attest verify "$W/nodeb.env" --pub "$W/keys/py.pub" --store "$S" \
	--policy complete-build-depends >/dev/null 2>"$W/err"
check_eq "a verdict without the Debian member fails the policy (14)" 14 $?
check_contains "  saying it is not a Debian build's" "$(cat "$W/err")" "no predicate.debian"
"$PY" "$PYDSSE" payload "$VERD" >"$W/full-verdict.json"
"$PY" "$PYDSSE" sign "$W/full-verdict.json" "$TYPE" "$W/keys/py.key" "$W/full.env"
check "control: the same complete verdict re-signed by the independent signer passes" \
	"$HARKAQ" attest verify "$W/full.env" --pub "$W/keys/py.pub" --store "$S" --policy complete-build-depends
"$PY" "$PYDSSE" payload "$DA/verdict.dsse.json" | jq -c '.predicate.debian.complete = true' >"$W/lie.json"
"$PY" "$PYDSSE" sign "$W/lie.json" "$TYPE" "$W/keys/py.key" "$W/lie.env"
"$HARKAQ" attest verify "$W/lie.env" --pub "$W/keys/py.pub" --store "$S" \
	--policy complete-build-depends >/dev/null 2>"$W/err"
check_eq "a verdict claiming completeness over Impure phases fails (14)" 14 $?
check_contains "  naming the contradiction" "$(cat "$W/err")" "which the lines above contradict"
"$PY" "$PYDSSE" payload "$VERD" | jq -c '(.predicate.debian.phases[] | select(.phase == "build") | .state) = "Impure"' >"$W/disagree.json"
"$PY" "$PYDSSE" sign "$W/disagree.json" "$TYPE" "$W/keys/py.key" "$W/disagree.env"
"$HARKAQ" attest verify "$W/disagree.env" --pub "$W/keys/py.pub" --store "$S" \
	--policy complete-build-depends >/dev/null 2>"$W/err"
check_eq "a Debian phase state that disagrees with its evidence object fails (14)" 14 $?
check_contains "  naming both" "$(cat "$W/err")" \
	"phase build: the Debian verdict says Impure, the phase Hermetic, its evidence object Hermetic"

# ---- --no-seal: nothing stored, nothing attested, and said ------------------------------------
sec "--no-seal"
ls -a "$S/.attestations" >"$W/att-before"
"$HARKAQ" build --store "$S" --dsc "$FULL" --key "$W/keys/k.key" --no-seal >/dev/null 2>"$W/err"
check_eq "a --no-seal Debian build still gives its verdicts (0)" 0 $?
check_contains "  and says nothing was attested" "$(cat "$W/err")" \
	"[attest] nothing attested: the outputs were not stored (--no-seal)"
check_eq "  and wrote no envelope" "$(cat "$W/att-before")" "$(ls -a "$S/.attestations")"
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"
sec "done"
finish
