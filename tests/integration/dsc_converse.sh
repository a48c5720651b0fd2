#!/bin/bash
# The converse of harkaq build --dsc never calls a need unopened (docs/debian-builds.md, "The
# report"), on the debian-12-buildd base (tests/fixtures/base.sh buildd):
#   - a package made here declares pkg-config, bookworm's transitional package: it ships no
#     file the build opens, and its dependency pkgconf (whose own dependency pkgconf-bin holds
#     the program /usr/bin/pkg-config leads to) ships pkg.m4. The build runs pkg-config and
#     reads pkg.m4 as aclocal does: pkg-config is reported used through pkgconf and
#     pkgconf-bin, never "none opened";
#   - in the same run, the control: hello, declared and never used, is still "none opened".
. "$(dirname "$0")/lib.sh"
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

# make_pkg DIR BUILD-DEPENDS RULES-BUILD-LINE...: the source package hkpc 1.0, whose build
# target runs the given lines and whose binary package ships what they wrote (pcver).
make_pkg() {
	local d=$1 bd=$2 t=$1/hkpc-1.0
	shift 2
	mkdir -p "$t/debian/source"
	printf '3.0 (native)\n' >"$t/debian/source/format"
	cat >"$t/debian/control" <<EOF
Source: hkpc
Section: misc
Priority: optional
Maintainer: harkaq tests <tests@harkaq.invalid>
Build-Depends: $bd
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: hkpc
Architecture: all
Description: what pkg-config says
 harkaq's test of a Debian build using a transitional Build-Depends.
EOF
	cat >"$t/debian/changelog" <<'EOF'
hkpc (1.0) unstable; urgency=medium

  * A test package.

 -- harkaq tests <tests@harkaq.invalid>  Thu, 01 Jun 2023 00:00:00 +0000
EOF
	{
		echo '#!/usr/bin/make -f'
		echo 'build build-indep:'
		for line in "$@"; do printf '\t%s\n' "$line"; done
		echo 'build-arch:'
		printf '%s\n' 'clean:' $'\trm -rf pcver debian/files debian/tmp' \
			'binary binary-indep: build' $'\trm -rf debian/tmp' \
			$'\tinstall -d debian/tmp/DEBIAN debian/tmp/usr/share/hkpc' \
			$'\tinstall -m 644 pcver debian/tmp/usr/share/hkpc/pcver' \
			$'\tdpkg-gencontrol -phkpc -Pdebian/tmp' \
			$'\tdpkg-deb --root-owner-group --build debian/tmp ..' \
			'binary-arch:' \
			'.PHONY: build build-arch build-indep clean binary binary-arch binary-indep'
	} >"$t/debian/rules"
	chmod 755 "$t/debian/rules"
	(cd "$d" && dpkg-source -b hkpc-1.0 >/dev/null 2>&1) || not_ok "dpkg-source -b in $d"
}

# pkg-config runs (the program is pkgconf-bin's, reached by pkgconf's symlink) and pkg.m4 is
# read as aclocal reads it; hello is declared and never run.
make_pkg "$W/pc" "pkg-config, hello" \
	'pkg-config --version >pcver' \
	'grep -c "AC_DEFUN(\[PKG_PROG_PKG_CONFIG\]" /usr/share/aclocal/pkg.m4 >>pcver'
"$HARKAQ" build --store "$S" --dsc "$W/pc/hkpc_1.0.dsc" --json >"$W/pc.json" 2>"$W/pc.log"
rc=$?
check "the build gives a verdict (exit $rc)" test "$rc" -le 1
check_eq "every phase ran and succeeded" "clean:0 build:0 binary:0" \
	"$(jq -r '[.result.phases[] | "\(.phase):\(.exit_code)"] | join(" ")' "$W/pc.json")"
check_eq "the closure holds the transitional package and what it pulls in" \
	"fakeroot hello libfakeroot libpkgconf3 pkg-config pkgconf pkgconf-bin" \
	"$(jq -r '[.closure[].name] | sort | join(" ")' "$W/pc.json")"
art=$(jq -r '.result.artifact' "$W/pc.json")
mkdir -p "$W/x" && dpkg-deb -x "$S/${art#b3:}-hkpc_debs/hkpc_1.0_all.deb" "$W/x"
check_eq "pkg-config ran and pkg.m4 was read (what the .deb ships)" "1.8.1 1" \
	"$(tr '\n' ' ' <"$W/x/usr/share/hkpc/pcver" | sed 's/ $//')"
check_eq "the converse was computed, for both Build-Depends" "true 2" \
	"$(jq -r '"\(.converse.computed) \(.converse.checked)"' "$W/pc.json")"
# The transitional package: none of its own files opened, used through its dependencies.
check_eq "pkg-config is used through pkgconf (pkg.m4) and pkgconf-bin (the program)" \
	"Build-Depends:pkg-config:pkgconf=/usr/share/aclocal/pkg.m4,pkgconf-bin=/usr/bin/pkgconf" \
	"$(jq -r '[.converse.used_through[] | "\(.field):\(.group):\(.through | map(select(.package == "pkgconf" or .package == "pkgconf-bin") | "\(.package)=\(.path)") | join(","))"] | join(" ")' "$W/pc.json")"
check_eq "pkg-config is not called unopened" "" \
	"$(jq -r '[.converse.unopened[].group | select(. == "pkg-config")] | join(" ")' "$W/pc.json")"
check_contains "said to people" "$(cat "$W/pc.log")" \
	"    Build-Depends: pkg-config — used through pkgconf (/usr/share/aclocal/pkg.m4), pkgconf-bin (/usr/bin/pkgconf)"
# The control, same run: hello, declared and unused, is still none opened.
check_eq "the control: hello, never run, is none opened" "Build-Depends:hello" \
	"$(jq -r '[.converse.unopened[] | "\(.field):\(.group)"] | join(" ")' "$W/pc.json")"
check_contains "the control, said to people" "$(cat "$W/pc.log")" \
	"declared, none of its files opened (opens are seen"
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"
finish
