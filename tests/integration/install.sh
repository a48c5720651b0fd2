#!/bin/bash
# make install (docs/install.md): into a DESTDIR, with the Makefile's PREFIX (/usr/local), from
# this tree's build.
#   - the files where they belong: harkaq in bin, harkaq-exec and harkaq-audit in
#     libexec/harkaq, a man page for harkaq and for every command `harkaq --help` lists;
#   - the installed harkaq finds its helpers in the DESTDIR's libexec (a caged run Hermetic),
#     and, with the installed harkaq-exec taken away, names the path it looked at (the
#     control: it did not use build/'s); harkaq copied alone names both places it looked;
#   - every man page renders without a warning (man --warnings, groff -ww), and `man
#     harkaq-build` finds the installed page through MANPATH;
#   - the version harkaq says is the Debian package's (debian/changelog).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset HARKAQ_LIBEXEC
D=$(mktemp -d /tmp/harkaq-it-install.XXXXXX)
cleanup() { [ -n "${HK_KEEP:-}" ] && { echo "# kept $D"; return; }; rm -rf "$D"; }
trap cleanup EXIT
chmod 755 "$D"
DEST=$D/root

# The Makefile installs what build/ holds: the same binaries the other suites test (make
# finds them up to date), and the man pages made from them.
out=$(make -s -C "$ROOT" install DESTDIR="$DEST" 2>&1)
check_eq "make install DESTDIR=… succeeds" 0 $?
[ -n "$out" ] && echo "$out" | sed 's/^/# /'
P=$DEST/usr/local
check "harkaq in bin" test -x "$P/bin/harkaq"
check "harkaq-exec in libexec/harkaq" test -x "$P/libexec/harkaq/harkaq-exec"
check "harkaq-audit in libexec/harkaq" test -x "$P/libexec/harkaq/harkaq-audit"
check_eq "no helper in bin" "harkaq" "$(ls "$P/bin")"
check_eq "into a DESTDIR, harkaq-audit is given no capability (its package or make install gives it)" \
	"" "$(getcap "$P/libexec/harkaq/harkaq-audit" 2>/dev/null)"

# --- the helpers, found where they were installed ------------------------------------------
printf 'harkaq-policy 1\n' >"$D/empty.policy"
if hk_probe_runns && hk_probe_seccomp; then
	"$P/bin/harkaq" run --json --policy "$D/empty.policy" -- /bin/true >"$D/run.json" 2>"$D/run.log"
	check_eq "the installed harkaq runs a caged command (its harkaq-exec from libexec): Hermetic, canary seen" \
		"0 Hermetic true" "$? $(jq -r '"\(.verdict.state) \(.verdict.canary.seen)"' "$D/run.json" 2>&1)"
	mv "$P/libexec/harkaq/harkaq-exec" "$D/harkaq-exec.away"
	out=$("$P/bin/harkaq" run --policy "$D/empty.policy" -- /bin/true 2>&1)
	check_eq "control: its harkaq-exec taken away, it fails (exit 70)" 70 $?
	check_contains "...naming the installed path, not build/'s" "$out" \
		"helper program '$P/libexec/harkaq/harkaq-exec' not found or not executable (harkaq is installed in $P/bin"
	mv "$D/harkaq-exec.away" "$P/libexec/harkaq/harkaq-exec"
	mkdir "$D/alone"
	cp "$P/bin/harkaq" "$D/alone/"
	out=$("$D/alone/harkaq" run --policy "$D/empty.policy" -- /bin/true 2>&1)
	check_eq "harkaq copied alone: exit 70" 70 $?
	check_contains "...naming both places it looked" "$out" \
		"neither beside harkaq in $D/alone nor in /usr/local/libexec/harkaq"
	out=$(HARKAQ_LIBEXEC=$P/libexec/harkaq "$D/alone/harkaq" run --policy "$D/empty.policy" -- /bin/true 2>&1)
	check_eq "...and runs with HARKAQ_LIBEXEC naming them" 0 $?
else
	skip "the installed harkaq runs a caged command" "$HK_PROBE_WHY"
fi

# --- the man pages ---------------------------------------------------------------------------
M=$P/share/man
pages=$(cd "$M" && ls man1/*.1 man8/*.8 2>/dev/null | sed 's|^man[18]/||' | sort | tr '\n' ' ')
want="harkaq.1 "
for c in $("$HARKAQ" --help | sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
	want+="harkaq-$c.1 "
	[ "$c" = store ] && want+="harkaq-store-base.1 harkaq-store-export.1 "
done
want=$(echo "$want harkaq-audit.8" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
check_eq "a man page for harkaq, each command and subcommand with a --help, harkaq-audit" \
	"$want" "$pages"
for f in "$M"/man1/*.1 "$M"/man8/*.8; do
	n=$(basename "$f")
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null)
	check_eq "$n: man --warnings renders it without a warning" "" "$w"
	w=$(groff -ww -z -man -Tutf8 "$f" 2>&1)
	check_eq "$n: groff -ww without a warning" "" "$w"
done
# Control for the warnings: a page with a broken request is reported by both.
printf '.TH BROKEN 1\n.SH NAME\nbroken \\- x\n.BOGUS request\n\\fQ\n' >"$D/broken.1"
check_contains "control: man --warnings reports a broken page" \
	"$(LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$D/broken.1" 2>&1 >/dev/null)" "warning"
check_contains "control: groff -ww reports it" "$(groff -ww -z -man "$D/broken.1" 2>&1)" "warning"

out=$(MANPATH=$M MANWIDTH=80 man harkaq-build 2>&1)
check_eq "MANPATH=… man harkaq-build: exit 0" 0 $?
check_contains "...is the installed page, made from --help" "$out" "harkaq build --dsc FILE.dsc|DIR|NAME[=VERSION]"
out=$(MANPATH=$M man -w harkaq-audit 2>&1)
check_eq "MANPATH=… man -w harkaq-audit finds section 8" "$M/man8/harkaq-audit.8" "$out"

# --- the version --------------------------------------------------------------------------------
check_eq "harkaq --version is debian/changelog's" \
	"harkaq $(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)" "$("$HARKAQ" --version)"

# --- the reader's privilege, as make install gives it into the running system -------------
# deploy/audit-privilege on a copy of the reader (the package's postinst does the same:
# tests/integration/selfcheck.sh).
cp "$HARKAQ_AUDIT" "$D/reader"
chmod 755 "$D/reader"
if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "deploy/audit-privilege" "needs root and the user nobody"
elif getent group harkaq >/dev/null; then
	skip "deploy/audit-privilege" "a group harkaq exists already, which this test would remove"
else
	out=$(runuser -u nobody -- "$ROOT/deploy/audit-privilege" set "$D/reader" 2>&1)
	check_eq "audit-privilege, not as root: exit 0" 0 $?
	check_contains "...says what root must run" "$out" "as root, run: $ROOT/deploy/audit-privilege set $D/reader"
	check_eq "...and changes nothing" "root:root 755 " \
		"$(stat -c '%U:%G %a' "$D/reader") $(getcap "$D/reader")"
	out=$("$ROOT/deploy/audit-privilege" set "$D/reader" 2>&1)
	check_eq "audit-privilege, as root: exit 0" 0 $?
	check_eq "...the reader root:harkaq 0750" "root:harkaq 750" "$(stat -c '%U:%G %a' "$D/reader")"
	check_contains "...with cap_audit_read,cap_audit_control+ep" "$(getcap "$D/reader")" \
		"cap_audit_control,cap_audit_read=ep"
	groupdel harkaq
fi

# uninstall takes back what install put.
make -s -C "$ROOT" uninstall DESTDIR="$DEST" >/dev/null 2>&1
check_eq "make uninstall leaves no file" "" "$(find "$DEST" -type f)"
finish
