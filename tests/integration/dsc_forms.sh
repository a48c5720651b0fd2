#!/bin/bash
# What `harkaq build --dsc` takes (docs/debian-builds.md, "What --dsc takes"), beside a .dsc:
#   - an unpacked source tree: made a source package with dpkg-source -b in the work
#     directory, then built as that .dsc; the same .deb as the .dsc dpkg-source -b makes
#     beside it (the control, built first), the tree untouched, no work directory left;
#     a 3.0 (quilt) tree, whose upstream tarball lies beside it;
#   - a source package's NAME=VERSION: fetched as apt-get source fetches it (the .dsc is the
#     archive's, byte for byte the one tests/fixtures/dscsrc.sh fetched), and built;
#   - errors, each exit 65 with the argument named and nothing left: a directory without
#     debian/control, a tree dpkg-source -b refuses, a name the archive does not have, a path
#     that does not exist, something that is neither a path nor a name, a device.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE

BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd) || { not_ok "buildd base fixture"; finish; exit 1; }
SL=$("$ROOT/tests/fixtures/dscsrc.sh" sl=5.02-1) || { not_ok "sl source fixture"; finish; exit 1; }
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT
sec() { echo "# [${SECONDS}s] $*"; }
S=$W/store
"$HARKAQ" store --store "$S" base import debian-12-buildd --from "$BASESTORE" >/dev/null ||
	not_ok "import the buildd base"
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"

phases() { jq -r '[.result.phases[] | "\(.phase):\(.verdict.state)"] | join(" ")' "$1" 2>&1; }
deb_sha() { jq -r --arg f "$2" '.outputs[] | select(.file == $f) | .sha256' "$1" 2>&1; }
tree_snap() { find "$1" -printf '%p %M %s %T@\n' | sort; }

# --- a source tree ---------------------------------------------------------------------------
sec "a source tree"
"$ROOT/tests/fixtures/hkcalc.sh" "$W/calc" bison >/dev/null || not_ok "the hkcalc fixture"
T=$W/calc/hkcalc-1.0
"$HARKAQ" build --store "$S" --dsc "$W/calc/hkcalc_1.0.dsc" --json >"$W/dsc.json" 2>"$W/dsc.log"
check_eq "control: the .dsc dpkg-source -b made beside the tree builds, every phase Hermetic" \
	"clean:Hermetic build:Hermetic binary:Hermetic" "$(phases "$W/dsc.json")"
check_eq "control: ...made from nothing (a .dsc given)" "null" "$(jq -r .dsc.made_from "$W/dsc.json")"
before=$(tree_snap "$T")
"$HARKAQ" build --store "$S" --dsc "$T" --json >"$W/dir.json" 2>"$W/dir.log"
check_eq "the tree: exit 0" 0 $?
check_eq "the tree: every phase Hermetic" "clean:Hermetic build:Hermetic binary:Hermetic" \
	"$(phases "$W/dir.json")"
check_seen "the tree" "$W/dir.json" '.result.phases[].verdict'
check_eq "the tree: the result says how its .dsc was made" "dpkg-source -b $T" \
	"$(jq -r .dsc.made_from "$W/dir.json")"
check_contains "the tree: and so does the report" "$(cat "$W/dir.log")" \
	"made by dpkg-source -b $T"
check_eq "the tree: the .dsc is the one dpkg-source -b makes of it" \
	"$(sha256sum <"$W/calc/hkcalc_1.0.dsc" | cut -d' ' -f1)" "$(jq -r .dsc.sha256 "$W/dir.json")"
a=$(deb_sha "$W/dsc.json" hkcalc_1.0_amd64.deb)
check "the tree: a .deb was made" test -n "$a"
check_eq "the tree: the same .deb as the .dsc's build" "$a" "$(deb_sha "$W/dir.json" hkcalc_1.0_amd64.deb)"
check_eq "the tree: untouched" "$before" "$(tree_snap "$T")"
check_eq "the tree: no work directory left" "" "$(ls -A "$TMPDIR")"

# A 3.0 (quilt) tree: its upstream tarball lies beside it, where dpkg-source -b finds it, and
# is taken next to the .dsc made in the work directory.
sec "a 3.0 (quilt) tree"
Q=$W/quilt/hkcalc-1.0
mkdir -p "$W/quilt"
cp -a "$T" "$Q"
rm -rf "$Q/debian"
tar -C "$W/quilt" -cJf "$W/quilt/hkcalc_1.0.orig.tar.xz" hkcalc-1.0
cp -a "$T/debian" "$Q/debian"
echo '3.0 (quilt)' >"$Q/debian/source/format"
sed -i '1s/(1\.0)/(1.0-1)/' "$Q/debian/changelog"
"$HARKAQ" build --store "$S" --dsc "$Q" --json >"$W/quilt.json" 2>"$W/quilt.log"
check_eq "the quilt tree: exit 0" 0 $?
check_eq "the quilt tree: every phase Hermetic" "clean:Hermetic build:Hermetic binary:Hermetic" \
	"$(phases "$W/quilt.json")"
check_eq "the quilt tree: its .dsc, version 1.0-1, format 3.0 (quilt)" "1.0-1 3.0 (quilt)" \
	"$(jq -r '"\(.dsc.version) \(.dsc.format)"' "$W/quilt.json")"
check_contains "the quilt tree: the upstream tarball taken from beside it" "$(cat "$W/quilt.log")" \
	"hkcalc_1.0.orig.tar.xz: from beside the tree ($W/quilt)"
check_eq "the quilt tree: no work directory left" "" "$(ls -A "$TMPDIR")"

# --- a name of the archive -------------------------------------------------------------------
sec "a source package by name"
"$HARKAQ" build --store "$S" --dsc sl=5.02-1 --json >"$W/sl.json" 2>"$W/sl.log"
check_eq "sl=5.02-1: exit 0" 0 $?
check_eq "sl=5.02-1: fetched as apt-get source fetches it" \
	"apt-get source --download-only sl=5.02-1" "$(jq -r .dsc.made_from "$W/sl.json")"
check_eq "sl=5.02-1: the archive's .dsc, byte for byte" \
	"$(sha256sum <"$SL" | cut -d' ' -f1)" "$(jq -r .dsc.sha256 "$W/sl.json")"
check_eq "sl=5.02-1: every phase Hermetic" "clean:Hermetic build:Hermetic binary:Hermetic" \
	"$(phases "$W/sl.json")"
check "sl=5.02-1: its .deb made" test -n "$(deb_sha "$W/sl.json" sl_5.02-1_amd64.deb)"
check_eq "sl=5.02-1: no work directory left" "" "$(ls -A "$TMPDIR")"

# --- errors ----------------------------------------------------------------------------------
sec "errors"
artifacts() { "$HARKAQ" store --store "$S" list 2>/dev/null | wc -l; }
# bad NAME ARG EXPECTED-TEXT: exit 65, the text in the message, nothing made.
bad() {
	local before out rc
	before=$(artifacts)
	out=$(cd "$W" && "$HARKAQ" build --store "$S" --dsc "$2" --quiet 2>&1); rc=$?
	check_eq "$1: exit 65" 65 "$rc"
	check_contains "$1: the message names it" "$out" "$3"
	check_eq "$1: nothing added to the store" "$before" "$(artifacts)"
	check_eq "$1: no work directory left" "" "$(ls -A "$TMPDIR")"
}
mkdir -p "$W/notsrc/debian"
echo 'not a source package' >"$W/notsrc/README"
bad "a directory without debian/control" "$W/notsrc" \
	"$W/notsrc is a directory but not an unpacked Debian source package: it has no debian/control"
cp -a "$T" "$W/badlog"
echo 'this is not a changelog' >"$W/badlog/debian/changelog"
bad "a tree dpkg-source -b refuses (a malformed changelog)" "$W/badlog" \
	"dpkg-source -b $W/badlog refused the tree: "
bad "a name the archive does not have" hk-no-such-source \
	"apt-get source --download-only hk-no-such-source failed: E: Unable to find a source package for hk-no-such-source"
bad "a version the archive does not have" sl=0.0-hk \
	"apt-get source --download-only sl=0.0-hk failed: E: Can not find version '0.0-hk' of package 'sl'"
bad "a path that does not exist" ./nope/hkcalc_1.0.dsc "./nope/hkcalc_1.0.dsc: no such file or directory"
bad "a .dsc that does not exist" nope.dsc "nope.dsc: no such file or directory"
bad "neither a path nor a name" 'Not A Name' \
	"'Not A Name' is not a .dsc file, a source tree, nor a source package NAME[=VERSION]"
bad "a device" /dev/null "/dev/null is neither a .dsc file nor a source tree"
finish
