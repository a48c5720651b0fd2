#!/bin/bash
# harkaq checks itself, and its package (docs/install.md, "The Debian package"):
#   - harkaq's source package, made with dpkg-source -b from a copy of this tree (its files as
#     git sees them: tracked, or new and not ignored), is lintian clean;
#   - `harkaq build --dsc DIR` of that tree on debian-12-buildd: the same .dsc, every phase
#     Hermetic with its canary seen, no Build-Depends missing, none declared in vain (the
#     converse, where the kernel has fanotify filesystem marks);
#   - the .deb it made, with its .buildinfo (the .changes), is lintian clean; lintian's
#     control is a package it must find fault with;
#   - installed with dpkg: harkaq finds its helpers in /usr/libexec/harkaq, man harkaq-build
#     shows its page, harkaq-audit is root:harkaq 0750 with cap_audit_read and
#     cap_audit_control; with an override registered by dpkg-statoverride, the override's
#     owner and mode, and still the capabilities; purged: its files and the group gone.
. "$(dirname "$0")/lib.sh"
hk_require_builds
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_STORE HARKAQ_LIBEXEC

BASESTORE=$("$ROOT/tests/fixtures/base.sh" buildd) || { not_ok "buildd base fixture"; finish; exit 1; }
W=$(hk_scratch)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $W"; return; }; rm -rf "$W"; }
trap cleanup EXIT
sec() { echo "# [${SECONDS}s] $*"; }
S=$W/store
"$HARKAQ" store --store "$S" base import debian-12-buildd --from "$BASESTORE" >/dev/null ||
	not_ok "import the buildd base"
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)

# lint NAME FILE: lintian finds nothing, informational and pedantic tags included (each
# override in debian/ says why).
lint() {
	local out rc
	out=$(lintian --pedantic -I --fail-on error,warning,info,pedantic "$2" 2>&1); rc=$?
	out=$(grep -v '^running with root privileges is not recommended!$' <<<"$out")
	check_eq "$1: lintian exits 0" 0 "$rc"
	check_eq "$1: lintian names nothing" "" "$out"
}

# --- the source package ----------------------------------------------------------------------
sec "the source package"
T=$W/src/harkaq-$VERSION
mkdir -p "$T"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$T"
else
	tar -C "$ROOT" --exclude=./build --exclude=./build-san --exclude=./build-fuzz \
		--exclude=./store -cf - . | tar -xf - -C "$T"
fi
chmod -R a+rX "$W/src"
(cd "$W/src" && dpkg-source -b "harkaq-$VERSION" >"$W/source.log" 2>&1)
check_eq "dpkg-source -b of the tree" 0 $?
DSC=$W/src/harkaq_$VERSION.dsc
lint "the source package" "$DSC"

# --- harkaq builds it ---------------------------------------------------------------------
sec "harkaq build --dsc of its own tree"
"$HARKAQ" build --store "$S" --dsc "$T" --json >"$W/self.json" 2>"$W/self.log"
check_eq "harkaq build --dsc harkaq-$VERSION/: exit 0" 0 $?
check_eq "its .dsc is the source package linted above" \
	"$(sha256sum <"$DSC" | cut -d' ' -f1)" "$(jq -r .dsc.sha256 "$W/self.json")"
check_eq "every phase Hermetic" "clean:Hermetic build:Hermetic binary:Hermetic" \
	"$(jq -r '[.result.phases[] | "\(.phase):\(.verdict.state)"] | join(" ")' "$W/self.json")"
check_seen "harkaq's own build" "$W/self.json" '.result.phases[].verdict'
check_eq "no Build-Depends missing" "[]" "$(jq -c .missing "$W/self.json")"
check_eq "the package class: hermetic" "hermetic" "$(jq -r .class "$W/self.json")"
if hk_probe_fanotify "$W"; then
	check_eq "every Build-Depends had a file opened (none declared in vain)" "true []" \
		"$(jq -c -r '"\(.converse.computed) \(.converse.unopened)"' "$W/self.json")"
else
	skip "every Build-Depends had a file opened" "$HK_PROBE_WHY"
fi
art=$(jq -r .result.artifact "$W/self.json")
O=$S/${art#b3:}-harkaq_debs
check "the .deb is in the store" test -f "$O/harkaq_${VERSION}_amd64.deb"
echo "# build: $(jq -r .timings_ms.total "$W/self.json") ms in all, $(jq -r .timings_ms.engine "$W/self.json") ms its phases"

# --- the binary package ----------------------------------------------------------------------
sec "the binary package"
cp "$O"/* "$W/"
lint "the binary package (.changes: the .deb, the .buildinfo)" "$W/harkaq_${VERSION}_amd64.changes"
# lintian's control: a package it must find fault with (no copyright, no changelog, a binary
# in /usr/bin without a man page).
mkdir -p "$W/bad/DEBIAN" "$W/bad/usr/bin"
printf 'Package: hk-lint-control\nVersion: 1\nArchitecture: all\nMaintainer: x <x@harkaq.invalid>\nDescription: x\n' \
	>"$W/bad/DEBIAN/control"
printf '#!/bin/sh\n' >"$W/bad/usr/bin/hk-lint-control"
chmod 755 "$W/bad/usr/bin/hk-lint-control"
dpkg-deb --root-owner-group --build "$W/bad" "$W/bad.deb" >/dev/null 2>&1
out=$(lintian --fail-on error "$W/bad.deb" 2>&1)
check "control: lintian fails a package without a copyright file (exit $?)" test $? -ne 0
check_contains "control: ...naming it" "$out" "no-copyright-file"

# --- installed, then purged --------------------------------------------------------------
sec "installed and purged"
F=/usr/libexec/harkaq/harkaq-audit
if [ "$(id -u)" -ne 0 ]; then
	skip "the package installed and purged" "needs root (dpkg)"
elif dpkg-query -W -f='${Status}' harkaq 2>/dev/null | grep -q 'ok installed'; then
	skip "the package installed and purged" "harkaq's package is installed on this machine already"
elif getent group harkaq >/dev/null; then
	skip "the package installed and purged" "a group harkaq exists already, which purging would remove"
else
	out=$(dpkg -i "$W/harkaq_${VERSION}_amd64.deb" 2>&1); rc=$?
	check_eq "dpkg -i: exit 0" 0 "$rc"
	[ "$rc" -eq 0 ] || echo "$out" | sed 's/^/# /'
	check_eq "the reader: root:harkaq 0750" "root:harkaq 750" "$(stat -c '%U:%G %a' "$F" 2>&1)"
	check_contains "the reader: cap_audit_read,cap_audit_control+ep" "$(getcap "$F" 2>&1)" \
		"cap_audit_control,cap_audit_read=ep"
	printf 'harkaq-policy 1\n' >"$W/empty.policy"
	/usr/bin/harkaq run --json --policy "$W/empty.policy" -- /bin/true >"$W/run.json" 2>"$W/run.log"
	check_eq "the installed harkaq runs a caged command: Hermetic, canary seen" "0 Hermetic true" \
		"$? $(jq -r '"\(.verdict.state) \(.verdict.canary.seen)"' "$W/run.json" 2>&1)"
	check_eq "man -w harkaq-build: the installed page" "/usr/share/man/man1/harkaq-build.1.gz" \
		"$(man -w harkaq-build 2>&1)"
	check_contains "man harkaq-build shows it" "$(MANWIDTH=80 man harkaq-build 2>&1)" \
		"harkaq build --dsc FILE.dsc|DIR|NAME[=VERSION]"
	sec "...purged"
	dpkg --purge harkaq >/dev/null 2>&1
	check_eq "purged: exit 0" 0 $?
	check "purged: /usr/bin/harkaq gone" test ! -e /usr/bin/harkaq
	check "purged: /usr/libexec/harkaq gone" test ! -e /usr/libexec/harkaq
	check_eq "purged: the group harkaq gone" "" "$(getent group harkaq)"

	# An administrator's override (dpkg-statoverride): its owner and mode, and the
	# capabilities still given.
	dpkg-statoverride --add root root 0700 "$F"
	dpkg -i "$W/harkaq_${VERSION}_amd64.deb" >/dev/null 2>&1
	check_eq "with a statoverride: dpkg -i exit 0" 0 $?
	sec "...with a statoverride"
	check_eq "with a statoverride: its owner and mode kept" "root:root 700" "$(stat -c '%U:%G %a' "$F" 2>&1)"
	check_contains "with a statoverride: the capabilities given" "$(getcap "$F" 2>&1)" \
		"cap_audit_control,cap_audit_read=ep"
	dpkg --purge harkaq >/dev/null 2>&1
	check_eq "with a statoverride: purged" 0 $?
	check_eq "with a statoverride: the administrator's override stays" "root root 700 $F" \
		"$(dpkg-statoverride --list "$F")"
	dpkg-statoverride --remove "$F"
fi
finish
