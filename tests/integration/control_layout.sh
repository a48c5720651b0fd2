#!/bin/bash
# The control-file editor (src/core/debian/control_edit.h) held against the real wrap-and-sort
# (devscripts, which setup installs): a control file put in each of wrap-and-sort's layouts
# (no option, -a, -s, -t and their mixes) is read as that layout, and after each edit —
# an item added, one that makes a one-line field wrap, one dropped, a field made — it is still
# that layout: `wrap-and-sort OPTIONS -N -f debian/control` names no file to change.  The
# control of each: the same item appended by hand at the field's end, unsorted, is named.
. "$(dirname "$0")/lib.sh"
EDIT=$HARKAQ_BUILD/tests/helpers/control_edit
command -v wrap-and-sort >/dev/null || { not_ok "wrap-and-sort is installed (setup installs devscripts)"; finish; exit 1; }
[ -x "$EDIT" ] || { not_ok "the control_edit helper is built ($EDIT)"; finish; exit 1; }
W=$(mktemp -d /tmp/harkaq-control.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/debian"
C=$W/debian/control

messy() {
	cat >"$C" <<'EOF'
Source: hkcalc
Section: misc
Priority: optional
Maintainer: harkaq tests <tests@harkaq.invalid>
Build-Depends: zlib1g-dev, debhelper-compat (= 13), libssl-dev|libressl-dev, bison
Build-Depends-Indep: python3-sphinx
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: hkcalc
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}, libc6
Description: a calculator made with yacc and cc
 harkaq's test of a Debian build that calls yacc and cc.
EOF
}
# was OPTS: wrap-and-sort's dry run, which prints the file only when it would change it.
was() { (cd "$W" && wrap-and-sort $1 -N -f debian/control); }

for opts in "" -a -s -t -as -at -st -ast; do
	name=${opts:-none}
	messy
	(cd "$W" && wrap-and-sort $opts -f debian/control)
	check_eq "$name: the file is in the layout (wrap-and-sort $opts -N: nothing)" "" "$(was "$opts")"
	layout=$("$EDIT" "$C" add Build-Depends libncurses-dev)
	check_eq "$name: read as its layout" "${opts:--} sorted wrap-and-sort" "$layout"
	check_eq "$name: an item added keeps it" "" "$(was "$opts")"
	check "$name: ...the item is there" grep -q 'libncurses-dev' "$C"
	# Past 79 columns: the one-line fields of the no-option layouts wrap now.
	"$EDIT" "$C" add Build-Depends "libreadline-dev (>= 8.2) | libeditreadline-dev" >/dev/null
	check_eq "$name: a long item added keeps it" "" "$(was "$opts")"
	"$EDIT" "$C" drop Build-Depends bison >/dev/null
	check_eq "$name: an item dropped keeps it" "" "$(was "$opts")"
	check "$name: ...bison is gone" test "$(grep -c 'bison' "$C")" -eq 0
	"$EDIT" "$C" drop Build-Depends-Indep python3-sphinx >/dev/null
	check "$name: the only item dropped: the field goes" test "$(grep -c '^Build-Depends-Indep' "$C")" -eq 0
	"$EDIT" "$C" add Build-Depends-Indep doxygen >/dev/null
	check_eq "$name: a field made takes the layout" "" "$(was "$opts")"
	# The control: an item appended by hand, out of order, is named by wrap-and-sort.
	cp "$C" "$W/saved"
	if grep -q '^Build-Depends-Indep: doxygen' "$C"; then
		sed -i 's/^Build-Depends-Indep: doxygen\(,\?\)$/Build-Depends-Indep: doxygen, aaa-first\1/' "$C"
	else
		sed -i 's/^\( *\)doxygen\(,\?\)$/\1doxygen,\n\1aaa-first\2/' "$C"
	fi
	check_contains "$name: control: an item out of order is named" "$(was "$opts")" "debian/control"
	cp "$W/saved" "$C"
done
finish
