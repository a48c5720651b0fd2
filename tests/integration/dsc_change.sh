#!/bin/bash
# The change to make after harkaq build --dsc (docs/debian-builds.md, "The change to make"): a
# suggestion must lead where it says.  Each one is applied with `patch -p1` to the unpacked
# source, the source is built again, and the build gives what the suggestion promised:
#   - a missing Build-Depends (hkcalc reading curses.h, libncurses-dev visible, --confirm):
#     the patch adds libncurses-dev; rebuilt, the package is hermetic; the bug report names
#     the evidence, the command and the base; a debian/control in wrap-and-sort -ast layout
#     keeps it (wrap-and-sort -ast -N names nothing);
#   - an undeclared influence (--decide-probes): the patch declares it; rebuilt, the class
#     is hermetic or inert_probes;
#   - a Build-Depends none of whose files was opened: the patch drops it; rebuilt, hermetic,
#     the .deb byte for byte the one built with it;
#   - a build with nothing to change gives no suggestion, and says so.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE

BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd) || { not_ok "buildd base fixture"; finish; exit 1; }
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT
S=$W/store
"$HARKAQ" store --store "$S" base import debian-12-buildd --from "$BASESTORE" >/dev/null ||
	not_ok "import the buildd base"
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"

# pkg DIR BUILD-DEPENDS BUILD-LINE [INSTALL-LINE]: hkcalc (tests/fixtures/hkcalc.sh) whose
# build target first runs BUILD-LINE and whose binary target runs INSTALL-LINE before building
# the .deb.
pkg() {
	"$ROOT/tests/fixtures/hkcalc.sh" "$1" "$2" >/dev/null || not_ok "the hkcalc fixture in $1"
	awk -v b="$3" -v i="${4:-}" '
		/^\tdpkg-gencontrol/ && i != "" { print "\t" i }
		{ print }
		/^build build-arch:/ && b != "" { print "\t" b }' \
		"$1/hkcalc-1.0/debian/rules" >"$1/rules" && mv "$1/rules" "$1/hkcalc-1.0/debian/rules"
	chmod 755 "$1/hkcalc-1.0/debian/rules"
	resource "$1"
}
# resource DIR: the .dsc made again from DIR/hkcalc-1.0.
resource() {
	rm -f "$1"/hkcalc_1.0.*
	(cd "$1" && dpkg-source -b hkcalc-1.0 >/dev/null 2>&1) || not_ok "dpkg-source -b in $1"
}
# applied DIR PATCH NEW: the source of DIR's .dsc unpacked into NEW, PATCH applied there
# with patch -p1, and its .dsc made; prints patch's output.
applied() {
	rm -rf "$3"
	mkdir -p "$3"
	dpkg-source -x "$1/hkcalc_1.0.dsc" "$3/hkcalc-1.0" >/dev/null 2>&1 || not_ok "dpkg-source -x of $1"
	(cd "$3/hkcalc-1.0" && patch -p1 <"$2") || return 1
	resource "$3"
}
build() { # NAME DSC [options]: the JSON result in $W/NAME.json, the report in $W/NAME.log
	local name=$1 dsc=$2
	shift 2
	"$HARKAQ" build --store "$S" --dsc "$dsc" --result-out "$W/$name.json" "$@" \
		>/dev/null 2>"$W/$name.log"
}
cls() { jq -r '.class' "$W/$1.json"; }
phases() { jq -r '[.result.phases[] | "\(.phase):\(.verdict.state)"] | join(" ")' "$W/$1.json"; }

# ---- a missing Build-Depends --------------------------------------------------------------------
pkg "$W/need" "bison" 'cat /usr/include/curses.h >/dev/null'
build need "$W/need/hkcalc_1.0.dsc" --see libncurses-dev --confirm
check_eq "need: the build names libncurses-dev missing, --confirm says a need" \
	"missing libncurses-dev still_fails" \
	"$(cls need) $(jq -r '[.missing[].package] | join(" ")' "$W/need.json") $(jq -r '.confirm.answer' "$W/need.json")"
check_eq "need: the suggestion adds it to Build-Depends" "add Build-Depends libncurses-dev true" \
	"$(jq -r '.suggestion.changes[] | "\(.op) \(.field) \(.item) \(.made)"' "$W/need.json")"
P=$W/hkcalc_1.0.control.patch
B=$W/hkcalc_1.0.bug.txt
check_eq "need: the patch and the report are written beside the result, named in the JSON" \
	"$P $B" "$(jq -r '.suggestion.files | "\(.control_patch) \(.bug_report)"' "$W/need.json")"
check_eq "need: the patch file is the JSON's" "$(jq -r '.suggestion.control_patch' "$W/need.json")" \
	"$(cat "$P")"
check_contains "need: the terminal report points to them" "$(cat "$W/need.log")" \
	"    + Build-Depends: libncurses-dev  (missing: libncurses-dev ships /usr/include/curses.h"
check_contains "need: ...and the files" "$(cat "$W/need.log")" "    patch: $P (patch -p1 in the unpacked source)
    bug report (severity serious): $B"
# The report, ready to send: its headers, the evidence, the command, the base.
check_contains "need: the report's headers" "$(cat "$B")" "Subject: hkcalc: missing Build-Depends on libncurses-dev

Package: src:hkcalc
Version: 1.0
Severity: serious
Tags: patch ftbfs
Justification: FTBFS"
check_contains "need: the report names the path and the tool" "$(tr -s ' \n' '  ' <"$B")" \
	"debian/rules build read /usr/include/curses.h (by /usr/bin/cat, comm cat)"
check_contains "need: the command that reproduces it" "$(cat "$B")" \
	"harkaq build --store STORE --dsc hkcalc_1.0.dsc --base debian-12-buildd --see libncurses-dev --confirm"
check_contains "need: the base's id, the result's" "$(cat "$B")" \
	"The base: debian-12-buildd $(jq -r '.base.id' "$W/need.json")."
for ev in $(jq -r '.result.phases[].report.evidence' "$W/need.json"); do
	check_contains "need: the report lists evidence object $ev" "$(cat "$B")" "$ev"
done
check_contains "need: the patch is in the report" "$(cat "$B")" "$(cat "$P")"
# Applied, built again: hermetic.
out=$(applied "$W/need" "$P" "$W/need-fixed")
check_eq "need: patch -p1 applies the patch" "patching file debian/control" "$out"
check_eq "need: the .dsc made from it declares libncurses-dev" "Build-Depends: bison, libncurses-dev" \
	"$(grep '^Build-Depends:' "$W/need-fixed/hkcalc_1.0.dsc")"
build need-fixed "$W/need-fixed/hkcalc_1.0.dsc"
check_eq "need: built again with the patch: hermetic, every phase" \
	"hermetic clean:Hermetic build:Hermetic binary:Hermetic" "$(cls need-fixed) $(phases need-fixed)"
check_seen "need: the patched build" "$W/need-fixed.json" '.result.phases[].verdict'
check_eq "need: nothing left to change" "null nothing to change" \
	"$(jq -r '"\(.suggestion) \(.suggestion_not | split(":")[0])"' "$W/need-fixed.json")"

# ---- the same in a debian/control of wrap-and-sort -ast layout -------------------------------------
pkg "$W/ast" "bison, debhelper-compat (= 13)" 'cat /usr/include/curses.h >/dev/null'
(cd "$W/ast/hkcalc-1.0" && wrap-and-sort -ast -f debian/control)
resource "$W/ast"
check_eq "ast: the control file is in -ast layout (the control: wrap-and-sort names nothing)" "" \
	"$(cd "$W/ast/hkcalc-1.0" && wrap-and-sort -ast -N -f debian/control)"
build ast "$W/ast/hkcalc_1.0.dsc" --see libncurses-dev --suggest-out "$W/ast-out"
check_eq "ast: the layout read" "true -ast sorted" \
	"$(jq -r '.suggestion.layout | "\(.wrap_and_sort) \(.options) \(.order)"' "$W/ast.json")"
check_contains "ast: the item on a line of its own, in order" "$(cat "$W/ast-out/hkcalc_1.0.control.patch")" \
	"  bison,
  debhelper-compat (= 13),
+ libncurses-dev,"
applied "$W/ast" "$W/ast-out/hkcalc_1.0.control.patch" "$W/ast-fixed" >/dev/null ||
	not_ok "ast: the patch applies"
check_eq "ast: after the patch the file is still wrap-and-sort -ast's" "" \
	"$(cd "$W/ast-fixed/hkcalc-1.0" && wrap-and-sort -ast -N -f debian/control)"
check_contains "ast: not confirmed, the report says so (severity important)" \
	"$(head -6 "$W/ast-out/hkcalc_1.0.bug.txt")" "Severity: important"

# ---- an undeclared influence ------------------------------------------------------------------
pkg "$W/infl" "bison" \
	'if cat /usr/include/curses.h >/dev/null 2>&1; then echo curses >features; else echo plain >features; fi' \
	'install -D -m 644 features debian/tmp/usr/share/hkcalc/features'
build infl "$W/infl/hkcalc_1.0.dsc" --see libncurses-dev --decide-probes
check_eq "influence: decided an influence" "influence libncurses-dev influence" \
	"$(cls infl) $(jq -r '.decide.decisions[] | "\(.package) \(.class)"' "$W/infl.json")"
check_eq "influence: the suggestion declares it" "influence add Build-Depends libncurses-dev" \
	"$(jq -r '.suggestion.changes[] | "\(.kind) \(.op) \(.field) \(.item)"' "$W/infl.json")"
IB=$W/hkcalc_1.0.bug.txt
check_contains "influence: the report names the differing member" "$(cat "$IB")" \
	"    hkcalc_1.0_amd64.deb: /usr/share/hkcalc/features: content differs"
check_contains "influence: ...the other choice, and that harkaq cannot know the option" \
	"$(tr -s ' \n' '  ' <"$IB")" \
	"or switch the feature off explicitly in debian/rules. harkaq cannot know which option of the build guards this use"
applied "$W/infl" "$W/hkcalc_1.0.control.patch" "$W/infl-fixed" >/dev/null ||
	not_ok "influence: the patch applies"
build infl-fixed "$W/infl-fixed/hkcalc_1.0.dsc" --see libncurses-dev --decide-probes
c=$(cls infl-fixed)
check "influence: built again with the patch, the class is hermetic or inert_probes ($c)" \
	test "$c" = hermetic -o "$c" = inert_probes
check_seen "influence: the patched build" "$W/infl-fixed.json" '.result.phases[].verdict'
check_eq "influence: the feature it guarded is now always built in" "curses" \
	"$(dpkg-deb --fsys-tarfile "$S/$(jq -r '.result.artifact | ltrimstr("b3:")' "$W/infl-fixed.json")-hkcalc_debs/hkcalc_1.0_amd64.deb" | tar -xO ./usr/share/hkcalc/features)"

# ---- a Build-Depends none of whose files was opened ----------------------------------------------
if ! hk_probe_fanotify "$W"; then
	skip "the drop of an unopened Build-Depends (files opened)" "$HK_PROBE_WHY"
else
	pkg "$W/unused" "bison, hello" ''
	build unused "$W/unused/hkcalc_1.0.dsc"
	check_eq "unopened: hello named, and the suggestion drops it" "unopened drop Build-Depends hello" \
		"$(jq -r '.suggestion.changes[] | "\(.kind) \(.op) \(.field) \(.item)"' "$W/unused.json")"
	check_eq "unopened: the report's severity" "minor" "$(jq -r '.suggestion.severity' "$W/unused.json")"
	applied "$W/unused" "$W/hkcalc_1.0.control.patch" "$W/unused-fixed" >/dev/null ||
		not_ok "unopened: the patch applies"
	check_eq "unopened: the .dsc made from it" "Build-Depends: bison" \
		"$(grep '^Build-Depends:' "$W/unused-fixed/hkcalc_1.0.dsc")"
	build unused-fixed "$W/unused-fixed/hkcalc_1.0.dsc"
	check_eq "unopened: built again without it: hermetic" "hermetic" "$(cls unused-fixed)"
	deb() { jq -r '.outputs[] | select(.file | endswith(".deb")) | .sha256' "$W/$1.json"; }
	check_eq "unopened: the .deb is byte for byte the one built with it" "$(deb unused)" \
		"$(deb unused-fixed)"
	check "unopened: (and there was a .deb)" test -n "$(deb unused)"
fi
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"
finish
