#!/bin/bash
# harkaq-audit on a machine with many users (docs/audit-reader.md, "Whose records", "Threat
# model"): two ordinary users, each with a reader of their own (a copy of harkaq-audit with the
# file capabilities and group its package gives it), produce denials at the same time; each
# reader hands over exactly its own user's domains, whole (every record the kernel counted),
# and nothing of the other's, while a root reader in the same run sees both (the other user's
# records exist).  Then what a hostile caller can try: --all and a huge backlog, LD_PRELOAD,
# inherited descriptors, a huge argv, reading the reader's memory.  And `harkaq probe` as each
# kind of user: in the group, not in it, a reader without its capabilities.
. "$(dirname "$0")/lib.sh"

AUDIT_SET=$HELPERS/audit_set
LL_DENY=$HELPERS/ll_deny

if [ "$(id -u)" -ne 0 ]; then
	skip "readers of two users" "needs root (to create the users and give the reader its capabilities)"
	finish; exit
fi
for tool in useradd userdel groupadd setcap getcap setpriv unshare cc; do
	if ! command -v "$tool" >/dev/null; then
		skip "readers of two users" "$tool is not installed"
		finish; exit
	fi
done
for b in "$HARKAQ" "$HARKAQ_AUDIT" "$AUDIT_SET" "$LL_DENY"; do
	if [ ! -x "$b" ]; then not_ok "binaries are built" "missing $b (run make)"; finish; exit; fi
done
abi=$("$HARKAQ" probe --json | jq -r .landlock.abi)
if [ "${abi:-0}" -lt 7 ]; then
	skip "readers of two users" "Landlock ABI $abi: this kernel writes no Landlock audit record (ABI 7 needed)"
	finish; exit
fi

S=$(hk_scratch)
UA=hkra$$ UB=hkrb$$ G=hkrg$$
ORIG=$("$AUDIT_SET") || { not_ok "read audit settings" "$ORIG"; finish; exit; }
orig_field() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$ORIG"; }
ORIG_ENABLED=$(orig_field enabled)
ORIG_BACKLOG=$(orig_field backlog_limit)
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	userdel "$UA" 2>/dev/null; userdel "$UB" 2>/dev/null; groupdel "$G" 2>/dev/null
	if [ "$ORIG_ENABLED" != 2 ]; then
		"$AUDIT_SET" backlog_limit="$ORIG_BACKLOG" enabled="$ORIG_ENABLED" >/dev/null
	fi
	rm -rf "$S"
}
trap cleanup EXIT

groupadd "$G" || { not_ok "create the reader's group"; finish; exit; }
for u in "$UA" "$UB"; do
	useradd -M -s /usr/sbin/nologin "$u" || { not_ok "create user $u"; finish; exit; }
done
UIDA=$(id -u "$UA") UIDB=$(id -u "$UB")
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"; }

# The reader as a package installs it: root:GROUP 0750, then the capabilities (a chown would
# clear them).  Beside it, a copy with neither, as a plain `cp` leaves it.
mkdir -p "$S/bin" "$S/nocap" "$S/hk" "$S/a" "$S/b"
cp "$HARKAQ_AUDIT" "$S/bin/harkaq-audit"
# The users run copies of their own: the build tree may lie where they cannot reach.
cp "$HARKAQ" "$S/hk/harkaq"
cp "$LL_DENY" "$S/hk/ll_deny"
LL_DENY=$S/hk/ll_deny
cp "$HARKAQ_AUDIT" "$S/nocap/harkaq-audit"
chown root:"$G" "$S/bin/harkaq-audit"
chmod 0750 "$S/bin/harkaq-audit"
setcap cap_audit_read,cap_audit_control+ep "$S/bin/harkaq-audit"
chmod 755 "$S/bin" "$S/nocap" "$S/hk"
chown "$UA:" "$S/a"; chown "$UB:" "$S/b"; chmod 755 "$S/a" "$S/b"
check_contains "the installed copy has its capabilities" "$(getcap "$S/bin/harkaq-audit")" \
	"cap_audit_control,cap_audit_read=ep"
READER=$S/bin/harkaq-audit

# ---- 1. harkaq probe, as each kind of user ----
probe_as() { as "$1" env HARKAQ_LIBEXEC="$2" "$S/hk/harkaq" probe --json; }
# Without HARKAQ_LIBEXEC: beside harkaq (nothing there), then the directory compiled in.
LIBEXEC_BUILT=$(strings "$HARKAQ" | grep -m1 '/libexec/harkaq$')
if [ -n "$LIBEXEC_BUILT" ] && [ ! -e "$LIBEXEC_BUILT/harkaq-audit" ]; then
	p=$(as "$UB" env -u HARKAQ_LIBEXEC "$S/hk/harkaq" probe --json)
	check_eq "probe, no reader beside harkaq nor installed: missing" "false:missing" \
		"$(jq -r '"\(.evidence.possible):\(.reader.found)"' <<<"$p")"
	check_contains "probe, no reader: the remedy names both places looked in" \
		"$(jq -r '.evidence.remedies[0]' <<<"$p")" "neither beside harkaq in $S/hk nor in $LIBEXEC_BUILT"
else
	skip "probe, no reader installed" "${LIBEXEC_BUILT:-no libexec path in harkaq}/harkaq-audit exists on this machine"
fi
p=$(probe_as "$UB" "$S/bin")
check_eq "probe, not in the group: no evidence, the reader is not executable" "false:not_executable" \
	"$(jq -r '"\(.evidence.possible):\(.reader.found)"' <<<"$p")"
check_contains "probe, not in the group: the remedy names the group" "$(jq -r '.evidence.remedies[0]' <<<"$p")" \
	"add yourself to it (sudo adduser $UB $G)"
usermod -aG "$G" "$UA"; usermod -aG "$G" "$UB"
p=$(probe_as "$UA" "$S/nocap")
check_eq "probe, a reader without capabilities: no evidence, it cannot read" "false:answered:false" \
	"$(jq -r '"\(.evidence.possible):\(.reader.found):\(.reader.can_read)"' <<<"$p")"
check_contains "probe, a reader without capabilities: the remedy is its setcap" \
	"$(jq -r '.evidence.remedies[0]' <<<"$p")" "sudo setcap cap_audit_read,cap_audit_control+ep $S/nocap/harkaq-audit"
p=$(probe_as "$UA" "$S/bin")
check_eq "probe, in the group, capabilities in place: evidence, this user's records only" \
	"true:true:true:$UIDA:true:[]" \
	"$(jq -c -r '"\(.evidence.possible):\(.reader.can_read):\(.reader.can_control):\(.reader.caller_uid):\(.reader.filtered):\(.evidence.remedies)"' <<<"$p")"
check_eq "probe, in the group: reader_privileges are the reader's, not the probe's own" "true:true" \
	"$(jq -r '"\(.reader_privileges.cap_audit_read):\(.reader_privileges.cap_audit_control)"' <<<"$p")"
p=$(HARKAQ_LIBEXEC=$S/bin "$HARKAQ" probe --json)
check_eq "probe, root: evidence, every record" "true:false" \
	"$(jq -r '"\(.evidence.possible):\(.reader.filtered)"' <<<"$p")"

if [ "$ORIG_ENABLED" = 2 ]; then
	skip "readers of two users" "audit is locked (enabled=2): settings could not be restored"
	finish; exit
fi

# ---- 2. two users at once ----
# start_reader NAME USER|- ARGS...: as in audit_reader.sh, a reader whose stdin this script
# holds open (R_FD); sets R_PID, R_OUT.
HELD_FDS=()
start_reader() {
	local name=$1 user=$2; shift 2
	local run=()
	[ "$user" != - ] && run=(setpriv --reuid="$user" --regid="$user" --init-groups --)
	R_OUT=$S/$name.out
	mkfifo "$S/$name.in"
	(
		for fd in "${HELD_FDS[@]}"; do eval "exec $fd>&-"; done
		exec "${run[@]}" "$@"
	) <"$S/$name.in" >"$R_OUT" 2>"$S/$name.err" &
	R_PID=$!
	exec {R_FD}>"$S/$name.in"
	HELD_FDS+=("$R_FD")
}
wait_line() { # FILE JQ-FILTER [TENTHS]
	local i
	for ((i = 0; i < ${3:-50}; i++)); do
		if [ -n "$(jq -c "select($2)" "$1" 2>/dev/null)" ]; then return 0; fi
		sleep 0.1
	done
	return 1
}

start_reader root - "$HARKAQ_AUDIT" --backlog-floor 0
ROOT_PID=$R_PID ROOT_OUT=$R_OUT ROOT_FD=$R_FD
wait_line "$ROOT_OUT" '.event=="ready"' || { not_ok "root's reader is ready" "$(cat "$S/root.err")"; finish; exit; }

# A domain of user A whose first denial comes before A's reader exists: its later denial must
# not be handed over (the reader never saw it allocated).
for u in a b; do for i in 1 2 3 4 5 6 7; do
	echo "$u$i" >"$S/$u/secret-$u$i"; chmod 600 "$S/$u/secret-$u$i"
done; done
chown -R "$UA:" "$S/a"; chown -R "$UB:" "$S/b"
as "$UA" "$LL_DENY" "$S/a/secret-a7" "$S/go" >"$S/early.out" 2>&1 &
EARLY_PID=$!
wait_line "$ROOT_OUT" ".event==\"record\" and .type==1424 and (.text|contains(\"status=allocated\")) and (.text|contains(\"uid=$UIDA \"))" 50 ||
	not_ok "the early domain's first denial reached root's reader"

start_reader a "$UA" "$READER" --backlog-floor 0
A_PID=$R_PID A_OUT=$R_OUT A_FD=$R_FD
start_reader b "$UB" "$READER" --backlog-floor 0
B_PID=$R_PID B_OUT=$R_OUT B_FD=$R_FD
for r in "$A_OUT" "$B_OUT"; do
	wait_line "$r" '.event=="ready"' || { not_ok "a user's reader is ready" "$(cat "$r" "$S"/[ab].err)"; finish; exit; }
done
touch "$S/go"
# Five denials each, at the same time, and one each from inside a user namespace whose root
# is the user (the build's own layout: the records name the real uid all the same).
pids=()
for i in 1 2 3 4 5; do
	as "$UA" "$LL_DENY" "$S/a/secret-a$i" >/dev/null 2>&1 & pids+=($!)
	as "$UB" "$LL_DENY" "$S/b/secret-b$i" >/dev/null 2>&1 & pids+=($!)
done
as "$UA" unshare -Ur "$LL_DENY" "$S/a/secret-a6" >/dev/null 2>&1 & pids+=($!)
as "$UB" unshare -Ur "$LL_DENY" "$S/b/secret-b6" >/dev/null 2>&1 & pids+=($!)
denied=0
for p in "${pids[@]}"; do wait "$p" && denied=$((denied + 1)); done
wait "$EARLY_PID" && denied=$((denied + 1))
check_eq "every ll_deny was denied by Landlock (EACCES)" 13 "$denied"
check_contains "the early domain was denied again after the readers started" "$(cat "$S/early.out")" "again=13"

# Root's reader: the two users' domains (exe in this test's directory, so no neighbour's).
domains_of() { # OUT UID: the domains allocated by UID, by ll_deny of this test
	jq -r 'select(.event=="record" and .type==1424) | .text' "$1" |
		grep -F "exe=\"$LL_DENY\"" | sed -n "s/^domain=\\([0-9a-f]*\\) status=allocated .* uid=$2 .*/\\1/p" | sort -u
}
wait_dealloc() { # OUT DOMAIN...
	local d
	for d in "${@:2}"; do
		wait_line "$1" ".event==\"record\" and .type==1424 and (.text|startswith(\"domain=$d status=deallocated\"))" 50 ||
			return 1
	done
}
DA=$(domains_of "$ROOT_OUT" "$UIDA")
DB=$(domains_of "$ROOT_OUT" "$UIDB")
check_eq "root's reader: user A's domains (five, one in a user namespace, the early one)" 7 "$(wc -w <<<"$DA")"
check_eq "root's reader: user B's domains (the other user's records exist)" 6 "$(wc -w <<<"$DB")"
wait_dealloc "$ROOT_OUT" $DA $DB || not_ok "root's reader: every domain's deallocation" "$(tail -3 "$ROOT_OUT")"
EARLY=$(jq -r 'select(.event=="record" and .type==1423) | .text' "$ROOT_OUT" |
	grep -F "/secret-a7\"" | sed -n 's/^domain=\([0-9a-f]*\) .*/\1/p' | sort -u)
check_eq "root's reader: the early domain, denied twice, counted twice" \
	"2 records, denials=2" \
	"$(jq -r 'select(.event=="record" and .type==1423) | .text' "$ROOT_OUT" | grep -c "^domain=$EARLY ") records, $(
		jq -r 'select(.event=="record" and .type==1424) | .text' "$ROOT_OUT" | sed -n "s/^domain=$EARLY status=deallocated //p")"

# Each user's reader: exactly its own domains, whole.
DA_LATE=$(grep -vx "$EARLY" <<<"$DA")
wait_dealloc "$A_OUT" $DA_LATE || not_ok "A's reader: its domains' deallocations" "$(tail -3 "$A_OUT")"
wait_dealloc "$B_OUT" $DB || not_ok "B's reader: its domains' deallocations" "$(tail -3 "$B_OUT")"
for who in A B; do
	if [ $who = A ]; then out=$A_OUT mine=$DA_LATE theirs=$DB uid=$UIDA other=b
	else out=$B_OUT mine=$DB theirs=$DA uid=$UIDB other=a; fi
	ready=$(head -1 "$out")
	check_eq "$who's reader: ready, filtered, for its own uid, with CAP_AUDIT_READ only" \
		"ready:true:$uid:$uid:[\"cap_audit_read\"]" \
		"$(jq -c -r '"\(.event):\(.filtered):\(.caller_uid):\(.privileges.uid):\(.privileges.capabilities)"' <<<"$ready")"
	got=$(jq -r 'select(.event=="record" and (.type==1423 or .type==1424)) | .text' "$out" |
		sed -n 's/^domain=\([0-9a-f]*\) .*/\1/p' | sort -u)
	check_eq "$who's reader: the domains handed over are exactly its user's" "$(sort <<<"$mine")" "$got"
	leaked=""
	for d in $theirs; do grep -q "domain=$d " "$out" && leaked+=" $d"; done
	check_eq "$who's reader: no record of the other user's domains" "" "$leaked"
	check_eq "$who's reader: no path of the other user's" "" "$(grep -o "secret-$other[0-9]" "$out" | sort -u | tr '\n' ' ')"
	# The count check keeps its meaning: every ACCESS record the kernel counted is here.
	bad=""
	for d in $mine; do
		n=$(jq -r 'select(.event=="record" and .type==1423) | .text' "$out" | grep -c "^domain=$d ")
		k=$(jq -r 'select(.event=="record" and .type==1424) | .text' "$out" | sed -n "s/^domain=$d status=deallocated denials=//p")
		r=$(jq -r 'select(.event=="record" and .type==1423) | .text' "$ROOT_OUT" | grep -c "^domain=$d ")
		[ "$n:$k" = "1:1" ] && [ "$r" = 1 ] || bad+=" $d(records $n, denials=$k, root's $r)"
	done
	check_eq "$who's reader: each domain's records equal its denials=N, as root's reader has them" "" "$bad"
	serials=$(jq -r 'select(.event=="record" and .type==1423) | .serial' "$out" | sort -u)
	sys=$(jq -r 'select(.event=="record" and .type==1300) | .serial' "$out" | sort -u)
	check_eq "$who's reader: the SYSCALL record of each of its events, and of no other" "$serials" "$sys"
	check_eq "$who's reader: its allocated records" "$(wc -w <<<"$mine")" \
		"$(jq -r 'select(.event=="record" and .type==1424) | .text' "$out" | grep -c "status=allocated .* uid=$uid ")"
done
# The namespace case: the records name the real uid, and the user's reader has them.
for who in A B; do
	[ $who = A ] && out=$A_OUT f=secret-a6 || out=$B_OUT f=secret-b6
	check_eq "$who's reader: the denial made inside its user namespace" 1 \
		"$(jq -r 'select(.event=="record" and .type==1423) | .text' "$out" | grep -c "/$f\"")"
done
check_eq "A's reader: nothing of the domain allocated before it started" "" \
	"$(grep "domain=$EARLY " "$A_OUT")"

exec {A_FD}>&- {B_FD}>&- {ROOT_FD}>&-
for p in "$A_PID" "$B_PID" "$ROOT_PID"; do wait "$p"; done
for who in A B; do
	[ $who = A ] && out=$A_OUT || out=$B_OUT
	end=$(tail -1 "$out")
	check_eq "$who's reader: end, withheld the other's records, none lost to its bounds" "end:true:0:0" \
		"$(jq -r '"\(.event):\(.withheld > 0):\(.evicted):\(.untracked)"' <<<"$end")"
done
check_eq "root's reader: end, withholds nothing" "end:0" "$(tail -1 "$ROOT_OUT" | jq -r '"\(.event):\(.withheld)"')"

# ---- 3. what a hostile caller can try ----
out=$(as "$UA" "$READER" --all </dev/null 2>/dev/null); rc=$?
check_eq "--all as a user: refused (77)" 77 "$rc"
check_contains "--all as a user: says only root may" "$(jq -r .message <<<"$out")" "only root may ask for it"
out=$("$HARKAQ_AUDIT" --all --backlog-floor 0 </dev/null 2>/dev/null); rc=$?
check_eq "--all as root (the control): ready, then end" "0:ready:end" "$rc:$(head -1 <<<"$out" | jq -r .event):$(tail -1 <<<"$out" | jq -r .event)"
out=$(as "$UA" "$READER" --backlog-floor 4000000000 </dev/null 2>/dev/null); rc=$?
check_eq "a huge backlog floor as a user: refused (77)" "77" "$rc"
check_eq "... and the kernel's backlog_limit did not move" "$ORIG_BACKLOG" \
	"$("$AUDIT_SET" | sed -n 's/.*\bbacklog_limit=\([0-9]*\).*/\1/p')"

# argv: too many, too long; the control is a valid call.
many=(); for i in $(seq 1 100); do many+=(--no-enable); done
out=$(as "$UA" "$READER" "${many[@]}" </dev/null 2>/dev/null); rc=$?
check_eq "100 arguments: a usage error (64)" 64 "$rc"
check_contains "100 arguments: says how many are taken" "$out" "at most 15 are taken"
long=$(head -c 100000 /dev/zero | tr '\0' 9)
out=$(as "$UA" "$READER" --rcvbuf "$long" </dev/null 2>/dev/null); rc=$?
check_eq "a 100 kB argument: a usage error (64)" 64 "$rc"
check_contains "a 100 kB argument: says it is too long" "$out" "is longer than 64 bytes"
out=$(as "$UA" "$READER" --status </dev/null 2>/dev/null); rc=$?
check_eq "the control: --status as the user works" "0:status:true" "$rc:$(jq -r '"\(.event):\(.evidence)"' <<<"$out")"

# LD_PRELOAD: a library that leaves a mark when it is loaded.  The control: the copy without
# capabilities loads it; the reader with them does not (AT_SECURE).
cat >"$S/mark.c" <<EOF
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	int fd = open("$S/a/preloaded", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) { write(fd, "x", 1); close(fd); }
}
EOF
if cc -shared -fPIC -o "$S/mark.so" "$S/mark.c" 2>"$S/cc.err"; then
	chmod 755 "$S/mark.so"
	as "$UA" env LD_PRELOAD="$S/mark.so" "$S/nocap/harkaq-audit" --status >/dev/null 2>&1
	check "LD_PRELOAD control: the copy without capabilities loads the library" test -e "$S/a/preloaded"
	rm -f "$S/a/preloaded"
	out=$(as "$UA" env LD_PRELOAD="$S/mark.so" LD_LIBRARY_PATH="$S" "$READER" --status 2>/dev/null)
	check_eq "LD_PRELOAD: the reader does not load it" "no" "$([ -e "$S/a/preloaded" ] && echo yes || echo no)"
	check_eq "LD_PRELOAD: the reader still answers" "true" "$(jq -r .evidence <<<"$out")"
else
	not_ok "build the preload library" "$(cat "$S/cc.err")"
fi

# Inherited descriptors, the environment, memory: a reader started with open files beyond
# stderr (one writable) and a hostile environment keeps none of the files, writes nothing, and
# its user cannot read its memory or environment.
: >"$S/a/inherited"; chown "$UA:" "$S/a/inherited"
start_reader fds "$UA" bash -c "exec 5>>'$S/a/inherited' 7<'$S/a/inherited' 9<'$S'
	exec env -i LD_DEBUG=all MALLOC_CHECK_=3 TMPDIR=/nonexistent HOME=/nonexistent '$READER' --backlog-floor 0"
FDS_PID=$R_PID FDS_FD=$R_FD
wait_line "$R_OUT" '.event=="ready"' || not_ok "the reader with inherited descriptors is ready" "$(cat "$S/fds.err")"
links=$(for f in /proc/"$FDS_PID"/fd/*; do readlink "$f"; done)
check_eq "inherited descriptors: none is kept open" "" "$(grep -xF -e "$S/a/inherited" -e "$S" <<<"$links")"
status=$(cat "/proc/$FDS_PID/status")
check_contains "the user's reader: CAP_AUDIT_READ only" "$status" "CapEff:	0000002000000000"
check_contains "the user's reader: no_new_privs" "$status" "NoNewPrivs:	1"
check_contains "the user's reader: umask 077" "$status" "Umask:	0077"
check_eq "the user cannot read its reader's environment (not dumpable)" "denied" \
	"$(as "$UA" cat "/proc/$FDS_PID/environ" >/dev/null 2>&1 && echo readable || echo denied)"
# The control, started the same way: a process of the user keeps the descriptors, and the
# user reads its environment.
setpriv --reuid="$UA" --regid="$UA" --init-groups -- bash -c \
	"exec 5>>'$S/a/inherited' 7<'$S/a/inherited' 9<'$S'; exec sleep 30" </dev/null >/dev/null 2>&1 &
SLEEP_PID=$!
for i in $(seq 50); do [ "$(readlink "/proc/$SLEEP_PID/exe")" = "$(command -v sleep)" ] && break; sleep 0.1; done
check_eq "the control: the same start keeps them (5, 7, 9) in another program" 3 \
	"$(for f in /proc/"$SLEEP_PID"/fd/*; do readlink "$f"; done | grep -cxF -e "$S/a/inherited" -e "$S" | tr -d ' ')"
check_eq "the control: the user reads its own process's environment" "readable" \
	"$(as "$UA" cat "/proc/$SLEEP_PID/environ" >/dev/null 2>&1 && echo readable || echo denied)"
kill "$SLEEP_PID" 2>/dev/null
exec {FDS_FD}>&-
wait "$FDS_PID"
check_eq "the reader exits cleanly" "end" "$(tail -1 "$S/fds.out" | jq -r .event)"
check_eq "nothing was written to the inherited file" 0 "$(stat -c %s "$S/a/inherited")"
check_eq "nothing was written to stderr" "" "$(cat "$S/fds.err")"

cleanup
trap - EXIT
check_eq "audit settings restored exactly" \
	"enabled=$ORIG_ENABLED backlog_limit=$ORIG_BACKLOG" \
	"$("$AUDIT_SET" | grep -o 'enabled=[0-9]*' | head -1) $("$AUDIT_SET" | grep -o 'backlog_limit=[0-9]*')"
finish
