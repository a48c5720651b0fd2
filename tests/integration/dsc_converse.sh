#!/bin/bash
# The converse of harkaq build --dsc never calls a need unopened (docs/debian-builds.md, "The
# report"), on the debian-12-buildd base (tests/fixtures/base.sh buildd):
#   - a package made here declares pkg-config, bookworm's transitional package: it ships no
#     file the build opens, and its dependency pkgconf (whose own dependency pkgconf-bin holds
#     the program /usr/bin/pkg-config leads to) ships pkg.m4. The build runs pkg-config and
#     reads pkg.m4 as aclocal does: pkg-config is reported used through pkgconf and
#     pkgconf-bin, never "none opened";
#   - in the same run, the control: hello, declared and never used, is still "none opened";
#   - the same package calling PKG_PROG_PKG_CONFIG from configure.ac: declared, it builds and
#     nothing is named from the log (the control); with pkg-config dropped, aclocal finds no
#     pkg.m4 (the store view leaves /usr/share/aclocal out), configure fails, no denial names
#     anything, and the log names pkgconf by the macro its pkg.m4 defines;
#   - as lzo2: Makefile.am installs into $(pkgconfigdir), which pkg.m4's PKG_INSTALLDIR
#     substitutes: declared, it builds and nothing is named (the control); dropped, automake
#     stops on the undefined variable and the log names pkgconf by it;
#   - a private library in a directory only an /etc/ld.so.conf.d file of a store package names:
#     dpkg-shlibdeps cannot find it, and the log names that package (not another whose file
#     names another directory); the control, dpkg-shlibdeps told with -l, names nothing.
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

# --- a Build-Depends used only through /usr/share/aclocal --------------------------------------
# configure.ac calls PKG_PROG_PKG_CONFIG, which pkgconf's pkg.m4 defines. The store view leaves
# /usr/share/aclocal out, so once pkg-config is dropped aclocal finds no pkg.m4, no denial is
# made, and configure fails on the unexpanded name: only the log can name pkgconf.
sec() { echo "# [${SECONDS}s] $*"; }
sec "aclocal"
ac_pkg() {
	mkdir -p "$1/hkpc-1.0"
	cat >"$1/hkpc-1.0/configure.ac" <<'EOF2'
AC_INIT([hkpc], [1.0])
PKG_PROG_PKG_CONFIG
AS_IF([test -z "$PKG_CONFIG"], [AC_MSG_ERROR([pkg-config is required])])
AC_OUTPUT
EOF2
	make_pkg "$1" "$2" 'aclocal' 'autoconf' './configure' 'echo "$$PKG_CONFIG" >pcver'
}
ac_pkg "$W/ac" "autoconf, automake, pkg-config"
"$HARKAQ" build --store "$S" --dsc "$W/ac/hkpc_1.0.dsc" --json >"$W/ac.json" 2>"$W/ac.log"
check_eq "declared: every phase succeeds (aclocal found pkg.m4)" "clean:0 build:0 binary:0" \
	"$(jq -r '[.result.phases[] | "\(.phase):\(.exit_code)"] | join(" ")' "$W/ac.json")"
check_eq "declared: nothing is named from the log" "[]" "$(jq -c '.from_log' "$W/ac.json")"
check_eq "declared: pkg-config is used through pkgconf, whose pkg.m4 aclocal read" \
	"pkg-config /usr/share/aclocal/pkg.m4" \
	"$(jq -r '.converse.used_through[] | "\(.group) \(.through[] | select(.package == "pkgconf") | .path)"' "$W/ac.json")"

ac_pkg "$W/ac-drop" "autoconf, automake"
"$HARKAQ" build --store "$S" --dsc "$W/ac-drop/hkpc_1.0.dsc" --json >"$W/acd.json" 2>"$W/acd.log"
check_eq "dropped: the build phase fails" "build:2" \
	"$(jq -r '[.result.phases[] | select(.exit_code != 0) | "\(.phase):\(.exit_code)"] | join(" ")' "$W/acd.json")"
check_contains "dropped: configure met the unexpanded macro" "$(cat "$W/acd.log")" \
	"PKG_PROG_PKG_CONFIG: command not found"
check_eq "dropped: no denial names pkgconf (pkg.m4 was left out of the view)" "" \
	"$(jq -r '[(.missing + .probes)[].package | select(startswith("pkgconf"))] | join(" ")' "$W/acd.json")"
check_eq "dropped: the log names pkgconf, by its macro and file" \
	"pkgconf true build_log macro PKG_PROG_PKG_CONFIG /usr/share/aclocal/pkg.m4" \
	"$(jq -r '[.from_log[] | "\(.package) \(.need) \(.evidence) \(.kind) \(.macro) \(.file)"] | join(";")' "$W/acd.json")"
check_contains "dropped: said to people, with the kind of evidence" "$(cat "$W/acd.log")" \
	"missing Build-Depends, named from the build log: pkgconf (macro PKG_PROG_PKG_CONFIG is defined by /usr/share/aclocal/pkg.m4 of pkgconf; the log says: "
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"

# --- a variable an m4 file substitutes: automake's "'X' is undefined" ---------------------------
# As lzo2 2.10-2: configure.ac calls PKG_INSTALLDIR (pkg.m4), Makefile.am installs into
# $(pkgconfigdir), which that macro substitutes. Without pkg.m4 autoconf leaves the name as it
# is (it is outside its forbidden patterns), and automake stops first, on the variable: the
# log names no macro, and pkgconf is named by the variable its pkg.m4 substitutes.
sec "an AC_SUBST variable"
am_pkg() {
	mkdir -p "$1/hkpc-1.0"
	cat >"$1/hkpc-1.0/configure.ac" <<'EOF2'
AC_INIT([hkpc], [1.0])
AM_INIT_AUTOMAKE([foreign])
PKG_INSTALLDIR
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF2
	printf 'pkgconfig_DATA = hkpc.pc\n' >"$1/hkpc-1.0/Makefile.am"
	make_pkg "$1" "$2" 'autoreconf -fi' './configure' \
		'sed -n "s/^pkgconfigdir = //p" Makefile >pcver'
}
am_pkg "$W/am" "autoconf, automake, pkg-config"
"$HARKAQ" build --store "$S" --dsc "$W/am/hkpc_1.0.dsc" --json >"$W/am.json" 2>"$W/am.log"
check_eq "declared: every phase succeeds (automake found pkgconfigdir)" "clean:0 build:0 binary:0" \
	"$(jq -r '[.result.phases[] | "\(.phase):\(.exit_code)"] | join(" ")' "$W/am.json")"
check_eq "declared: nothing is named from the log" "[]" "$(jq -c '.from_log' "$W/am.json")"
am_pkg "$W/am-drop" "autoconf, automake"
"$HARKAQ" build --store "$S" --dsc "$W/am-drop/hkpc_1.0.dsc" --json >"$W/amd.json" 2>"$W/amd.log"
check_eq "dropped: the build phase fails" "build:2" \
	"$(jq -r '[.result.phases[] | select(.exit_code != 0) | "\(.phase):\(.exit_code)"] | join(" ")' "$W/amd.json")"
check_contains "dropped: automake stopped on the variable" "$(cat "$W/amd.log")" \
	"error: 'pkgconfig_DATA' is used but 'pkgconfigdir' is undefined"
check_eq "dropped: no denial names pkgconf" "" \
	"$(jq -r '[(.missing + .probes)[].package | select(startswith("pkgconf"))] | join(" ")' "$W/amd.json")"
check_eq "dropped: the log names pkgconf, by the variable its pkg.m4 substitutes" \
	"pkgconf true variable pkgconfigdir /usr/share/aclocal/pkg.m4" \
	"$(jq -r '[.from_log[] | "\(.package) \(.need) \(.kind) \(.macro) \(.file)"] | join(";")' "$W/amd.json")"
check_contains "dropped: said to people" "$(cat "$W/amd.log")" \
	"missing Build-Depends, named from the build log: pkgconf (variable pkgconfigdir is substituted (AC_SUBST) by /usr/share/aclocal/pkg.m4 of pkgconf; the log says: "
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"

# --- a library directory an /etc/ld.so.conf.d file names -----------------------------------------
# hkld ships a program and its private library in /usr/lib/hkfoo, where dpkg-shlibdeps looks
# only when an ld.so.conf.d file names it: here, that of hkfoo-conf, a package of the store
# (imported from a .deb made here) which ships the file and a libhkfoo.so.1 of its own. The
# store view leaves /etc/ld.so.conf.d out, so dpkg-shlibdeps cannot find the library, no
# denial is made, and the log names hkfoo-conf. hkother-conf, whose file names a directory
# without that library, is not named. The control: the same package telling dpkg-shlibdeps
# where its library is (-l, the maintainer's other way) builds, and nothing is named.
sec "an ld.so.conf.d directory"
mkdeb() { # DIR NAME CONF-DIR LIB: a .deb shipping /etc/ld.so.conf.d/NAME.conf and CONF-DIR/LIB
	local t=$1/$2
	mkdir -p "$t/DEBIAN" "$t/etc/ld.so.conf.d" "$t$3"
	printf 'Package: %s\nVersion: 1.0\nArchitecture: amd64\nMaintainer: harkaq tests <tests@harkaq.invalid>\nDescription: a library directory for ld.so\n harkaq test package.\n' \
		"$2" >"$t/DEBIAN/control"
	printf '# %s\n%s\n' "$2" "$3" >"$t/etc/ld.so.conf.d/$2.conf"
	printf 'int hk(void){return 1;}\n' | cc -shared -fPIC -Wl,-soname,"$4" -o "$t$3/$4" -x c - ||
		not_ok "cc of $4"
	dpkg-deb --root-owner-group --build "$t" "$1/$2_1.0_amd64.deb" >/dev/null ||
		not_ok "dpkg-deb of $2"
}
mkdir -p "$W/debs"
mkdeb "$W/debs" hkfoo-conf /usr/lib/hkfoo libhkfoo.so.1
mkdeb "$W/debs" hkother-conf /usr/lib/hkother libhkother.so.1
"$HARKAQ" store --store "$S" import-deb "$W/debs/hkfoo-conf_1.0_amd64.deb" \
	"$W/debs/hkother-conf_1.0_amd64.deb" >/dev/null || not_ok "import the two .debs"
ld_pkg() { # DIR SHLIBDEPS-OPTIONS
	local t=$1/hkld-1.0
	mkdir -p "$t/debian/source"
	printf '3.0 (native)\n' >"$t/debian/source/format"
	printf 'Source: hkld\nSection: misc\nPriority: optional\nMaintainer: harkaq tests <tests@harkaq.invalid>\nBuild-Depends: make\nStandards-Version: 4.6.2\nRules-Requires-Root: no\n\nPackage: hkld\nArchitecture: any\nDepends: ${shlibs:Depends}\nDescription: a program and its private library\n harkaq test package.\n' \
		>"$t/debian/control"
	printf 'hkld (1.0) unstable; urgency=medium\n\n  * A test package.\n\n -- harkaq tests <tests@harkaq.invalid>  Thu, 01 Jun 2023 00:00:00 +0000\n' \
		>"$t/debian/changelog"
	printf 'int hkfoo(void){return 42;}\n' >"$t/hkfoo.c"
	printf 'int hkfoo(void);\nint main(void){return hkfoo()!=42;}\n' >"$t/main.c"
	printf '%s\n' '#!/usr/bin/make -f' \
		'build build-arch:' \
		$'\tcc -shared -fPIC -Wl,-soname,libhkfoo.so.1 -o libhkfoo.so.1 hkfoo.c' \
		$'\tln -sf libhkfoo.so.1 libhkfoo.so' $'\tcc -o hkld main.c -L. -lhkfoo' \
		'build-indep:' \
		'clean:' $'\trm -rf libhkfoo.so* hkld debian/files debian/hkld debian/substvars' \
		'binary binary-arch: build' $'\trm -rf debian/hkld' \
		$'\tinstall -d debian/hkld/DEBIAN debian/hkld/usr/bin debian/hkld/usr/lib/hkfoo' \
		$'\tinstall -m 755 hkld debian/hkld/usr/bin/hkld' \
		$'\tinstall -m 644 libhkfoo.so.1 debian/hkld/usr/lib/hkfoo/libhkfoo.so.1' \
		$'\tdpkg-shlibdeps '"$2"' debian/hkld/usr/bin/hkld' \
		$'\tdpkg-gencontrol -phkld -Pdebian/hkld' \
		$'\tdpkg-deb --root-owner-group --build debian/hkld ..' \
		'binary-indep:' \
		'.PHONY: build build-arch build-indep clean binary binary-arch binary-indep' \
		>"$t/debian/rules"
	chmod 755 "$t/debian/rules"
	(cd "$1" && dpkg-source -b hkld-1.0 >/dev/null 2>&1) || not_ok "dpkg-source -b in $1"
}
ld_pkg "$W/ld" ""
"$HARKAQ" build --store "$S" --dsc "$W/ld/hkld_1.0.dsc" --json >"$W/ld.json" 2>"$W/ld.log"
check_eq "without the file: the binary phase fails" "binary:2" \
	"$(jq -r '[.result.phases[] | select(.exit_code != 0) | "\(.phase):\(.exit_code)"] | join(" ")' "$W/ld.json")"
check_contains "without the file: dpkg-shlibdeps could not find the library" "$(cat "$W/ld.log")" \
	"dpkg-shlibdeps: error: cannot find library libhkfoo.so.1 needed by debian/hkld/usr/bin/hkld"
check_eq "without the file: no denial names hkfoo-conf" "" \
	"$(jq -r '[(.missing + .probes)[].package | select(startswith("hk"))] | join(" ")' "$W/ld.json")"
check_eq "without the file: the log names hkfoo-conf, by the directory its file names, and only it" \
	"hkfoo-conf true library libhkfoo.so.1 /etc/ld.so.conf.d/hkfoo-conf.conf /usr/lib/hkfoo" \
	"$(jq -r '[.from_log[] | "\(.package) \(.need) \(.kind) \(.macro) \(.file) \(.dir)"] | join(";")' "$W/ld.json")"
check_contains "without the file: said to people" "$(cat "$W/ld.log")" \
	"missing Build-Depends, named from the build log: hkfoo-conf (library libhkfoo.so.1 is in /usr/lib/hkfoo, which /etc/ld.so.conf.d/hkfoo-conf.conf of hkfoo-conf names; the log says: "
ld_pkg "$W/ld-l" "-ldebian/hkld/usr/lib/hkfoo"
"$HARKAQ" build --store "$S" --dsc "$W/ld-l/hkld_1.0.dsc" --json >"$W/ldl.json" 2>"$W/ldl.log"
check_eq "the control, -l: every phase succeeds" "clean:0 build:0 binary:0" \
	"$(jq -r '[.result.phases[] | "\(.phase):\(.exit_code)"] | join(" ")' "$W/ldl.json")"
check_eq "the control, -l: nothing is named from the log" "[]" "$(jq -c '.from_log' "$W/ldl.json")"
check_eq "no work directory left" "" "$(ls -A "$TMPDIR")"
finish
