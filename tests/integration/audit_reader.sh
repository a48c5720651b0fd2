#!/bin/bash
# harkaq-audit end to end (design.md §6, docs/audit-reader.md): the real binary, a real Landlock
# denial, the JSON-lines protocol, the privilege drop seen from outside, and the audit settings
# put back exactly as they were found.
. "$(dirname "$0")/lib.sh"

AUDIT_SET=$HELPERS/audit_set
LL_DENY=$HELPERS/ll_deny

if [ "$(id -u)" -ne 0 ]; then
	skip "audit reader" "needs root (CAP_AUDIT_CONTROL, CAP_AUDIT_READ)"
	finish; exit
fi
for b in "$HARKAQ_AUDIT" "$AUDIT_SET" "$LL_DENY"; do
	if [ ! -x "$b" ]; then not_ok "binaries are built" "missing $b (run make)"; finish; exit; fi
done

S=$(hk_scratch)

# ---- the settings found, and their exact restoration ----
ORIG=$("$AUDIT_SET") || { not_ok "read audit settings" "$ORIG"; finish; exit; }
orig_field() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$ORIG"; }
ORIG_ENABLED=$(orig_field enabled)
ORIG_BACKLOG=$(orig_field backlog_limit)
restore() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done  # our readers still running
	if [ "$ORIG_ENABLED" != 2 ]; then
		"$AUDIT_SET" backlog_limit="$ORIG_BACKLOG" enabled="$ORIG_ENABLED" >/dev/null
	fi
	rm -rf "$S"
}
trap restore EXIT
now_field() { "$AUDIT_SET" | sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p"; }

# ---- helpers: a reader whose stdin this script holds open ----
# start_reader NAME ARGS...: sets R_PID, R_OUT, R_FD.  Each reader's stdin is a FIFO whose
# only writer is this script (R_FD); later children must not inherit it, or closing R_FD would
# not reach EOF.
HELD_FDS=()
start_reader() {
	local name=$1; shift
	R_OUT=$S/$name.out
	mkfifo "$S/$name.in"
	(
		for fd in "${HELD_FDS[@]}"; do eval "exec $fd>&-"; done
		exec "$HARKAQ_AUDIT" "$@"
	) <"$S/$name.in" >"$R_OUT" 2>"$S/$name.err" &
	R_PID=$!
	exec {R_FD}>"$S/$name.in"
	HELD_FDS+=("$R_FD")
}
# wait_line FILE JQ-FILTER [TENTHS]: waits until a line of FILE satisfies the filter.
wait_line() {
	local i
	for ((i = 0; i < ${3:-50}; i++)); do
		if [ -n "$(jq -c "select($2)" "$1" 2>/dev/null)" ]; then return 0; fi
		sleep 0.1
	done
	return 1
}
hex_upper() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n' | tr a-f A-F; }
# wait_exit PID [TENTHS]: waits for a background reader; sets R_RC.
wait_exit() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then wait "$1"; R_RC=$?; return 0; fi
		sleep 0.1
	done
	R_RC=timeout
	return 1
}

# ---- 1. --status agrees with an independent AUDIT_GET ----
st=$("$HARKAQ_AUDIT" --status)
check_eq "--status is one status line" "status" "$(jq -r .event <<<"$st")"
now=$("$AUDIT_SET")
for f in enabled failure backlog_limit backlog_wait_time; do
	check_eq "--status $f matches the independent AUDIT_GET" \
		"$(sed -n "s/.*\\b$f=\\([0-9]*\\).*/\\1/p" <<<"$now")" "$(jq -r ".audit.$f" <<<"$st")"
done

# ---- 2. the main protocol ----
if [ "$ORIG_ENABLED" = 2 ]; then
	skip "reader protocol" "audit is locked (enabled=2): settings cannot be changed or restored"
	finish; exit
fi
FLOOR=$((ORIG_BACKLOG + 4096))   # always above what is found, so the raise is exercised
start_reader main --backlog-floor "$FLOOR"
if ! wait_line "$R_OUT" '.event=="ready"'; then
	not_ok "reader announces ready" "$(cat "$R_OUT" "$S/main.err")"
	finish; exit
fi
MAIN_PID=$R_PID MAIN_OUT=$R_OUT MAIN_FD=$R_FD
ready=$(jq -c 'select(.event=="ready")' "$MAIN_OUT")
check_eq "ready is the first line" "ready" "$(head -1 "$MAIN_OUT" | jq -r .event)"
check_eq "ready: confirmed" "true" "$(jq -r .confirmed <<<"$ready")"
check_eq "ready: audit enabled" "1" "$(jq -r .audit.enabled <<<"$ready")"
check_eq "ready: backlog raised to the floor" "$FLOOR" "$(jq -r .audit.backlog_limit <<<"$ready")"
check_eq "ready: the raise is listed in changed" "$ORIG_BACKLOG->$FLOOR" \
	"$(jq -r '.changed[] | select(.field=="backlog_limit") | "\(.from)->\(.to)"' <<<"$ready")"
if [ "$ORIG_ENABLED" = 0 ]; then
	check_eq "ready: switching audit on is listed in changed" "0->1" \
		"$(jq -r '.changed[] | select(.field=="enabled") | "\(.from)->\(.to)"' <<<"$ready")"
else
	check_eq "ready: enabled was already on, so not listed" "" \
		"$(jq -r '.changed[] | select(.field=="enabled") | .field' <<<"$ready")"
fi
check_eq "the kernel really has the new backlog_limit" "$FLOOR" "$(now_field backlog_limit)"
rcvbuf=$(jq -r .rcvbuf <<<"$ready")
check "ready: rcvbuf is the large effective size" test "$rcvbuf" -ge $((32 * 1024 * 1024))
check_eq "ready: only cap_audit_read is kept" '["cap_audit_read"]' \
	"$(jq -c .privileges.capabilities <<<"$ready")"

# The drop, seen by the kernel rather than by the reader's own claim.
proc=$(cat "/proc/$MAIN_PID/status")
check_contains "reader: effective capabilities are CAP_AUDIT_READ only" "$proc" \
	"CapEff:	0000002000000000"
check_contains "reader: permitted capabilities are CAP_AUDIT_READ only" "$proc" \
	"CapPrm:	0000002000000000"
check_contains "reader: bounding set is CAP_AUDIT_READ only" "$proc" "CapBnd:	0000002000000000"
check_contains "reader: no_new_privs" "$proc" "NoNewPrivs:	1"
check_contains "reader: runs as nobody" "$proc" "Uid:	65534	65534	65534	65534"
sentinel=$(ps -o pid= --ppid "$MAIN_PID" | tr -d ' ')
if [ -n "$sentinel" ]; then
	sproc=$(cat "/proc/$sentinel/status")
	check_contains "status sentinel: only CAP_AUDIT_CONTROL" "$sproc" \
		"CapEff:	0000000040000000"
	check_contains "status sentinel: bounding set is CAP_AUDIT_CONTROL only" "$sproc" \
		"CapBnd:	0000000040000000"
	check_contains "status sentinel: runs as nobody" "$sproc" "Uid:	65534	65534	65534	65534"
else
	not_ok "the status sentinel is running"
fi

# A second reader in --all mode, the positive control for the filter below.
start_reader all --all --backlog-floor 0
ALL_PID=$R_PID ALL_OUT=$R_OUT ALL_FD=$R_FD
wait_line "$ALL_OUT" '.event=="ready"' || not_ok "--all reader announces ready" "$(cat "$ALL_OUT")"

# Two denials: a plain path (written quoted by the kernel) and one with a space (written hex).
PLAIN=$S/secret
SPACED="$S/secret file"
echo x >"$PLAIN"; echo y >"$SPACED"; chmod 644 "$PLAIN" "$SPACED"
out=$("$LL_DENY" "$PLAIN"); rc=$?
check_eq "ll_deny: the restricted open fails with EACCES (plain)" "0:13" \
	"$rc:$(sed -n 's/.*after=\([0-9]*\).*/\1/p' <<<"$out")"
out=$("$LL_DENY" "$SPACED"); rc=$?
check_eq "ll_deny: the restricted open fails with EACCES (spaced)" "0:13" \
	"$rc:$(sed -n 's/.*after=\([0-9]*\).*/\1/p' <<<"$out")"

records() { jq -r 'select(.event=="record" and .type==1423) | .text' "$1"; }
domain_of() { sed -n 's/^domain=\([0-9a-f]*\) .*/\1/p' | head -1; }
wait_line "$MAIN_OUT" ".event==\"record\" and .type==1423 and (.text|contains(\"path=\\\"$PLAIN\\\"\"))" ||
	true
D1=$(records "$MAIN_OUT" | grep -F "path=\"$PLAIN\" " | domain_of)
D2=$(records "$MAIN_OUT" | grep -F "path=$(hex_upper "$SPACED") " | domain_of)
check "record forwarded for the plain path" test -n "$D1"
check "record forwarded for the spaced path (hex-encoded by the kernel)" test -n "$D2"
check "the two denials are two domains" test "$D1" != "$D2"
for d in $D1 $D2; do
	wait_line "$MAIN_OUT" \
		".event==\"record\" and .type==1424 and (.text==\"domain=$d status=deallocated denials=1\")" 30 ||
		not_ok "deallocated denials=1 for domain $d" "$(tail -5 "$MAIN_OUT")"
done
check_eq "both deallocations arrived with denials=1" 2 \
	"$(jq -r 'select(.event=="record" and .type==1424) | .text' "$MAIN_OUT" |
		grep -cE "^domain=($D1|$D2) status=deallocated denials=1$")"
line=$(jq -c "select(.event==\"record\" and .type==1423 and (.text|startswith(\"domain=$D1 \")))" "$MAIN_OUT")
check "the record has serial and time" jq -e '(.serial|type)=="number" and (.time|test("^[0-9]+\\.[0-9]{3}$"))' <<<"$line"
serial=$(jq -r .serial <<<"$line")
check_contains "the SYSCALL record of the same event is forwarded" \
	"$(jq -r "select(.event==\"record\" and .type==1300 and .serial==$serial) | .text" "$MAIN_OUT")" \
	"exit=-13"
check_eq "the PROCTITLE record of the same event is forwarded" 1 \
	"$(jq -r "select(.event==\"record\" and .type==1327 and .serial==$serial) | .type" "$MAIN_OUT" | wc -l)"
# The filter: default mode forwards SYSCALL/PROCTITLE only for Landlock events and nothing else;
# --all (same events) also has the EOE record, which proves there was something to filter out.
ll_serials=$(jq -r 'select(.event=="record" and (.type==1423 or .type==1424)) | .serial' "$MAIN_OUT" | sort -u)
stray=$(jq -r 'select(.event=="record" and (.type==1300 or .type==1327)) | .serial' "$MAIN_OUT" |
	sort -u | grep -vxF "$ll_serials")
check_eq "no SYSCALL/PROCTITLE of a non-Landlock event is forwarded" "" "$stray"
check_eq "no other record type is forwarded by default" "" \
	"$(jq -r 'select(.event=="record" and ([.type]|inside([1423,1424,1300,1327])|not)) | .type' "$MAIN_OUT")"
wait_line "$ALL_OUT" ".event==\"record\" and .type==1320 and .serial==$serial" 20
check_eq "--all forwards the EOE record of the same event" 1 \
	"$(jq -r "select(.event==\"record\" and .type==1320 and .serial==$serial) | .type" "$ALL_OUT" | wc -l)"

# Stop by closing stdin: the end line, and a clean exit.
exec {MAIN_FD}>&-
wait_exit "$MAIN_PID"
check_eq "reader exits 0 when stdin closes" 0 "$R_RC"
end=$(tail -1 "$MAIN_OUT")
check_eq "the last line is end" "end" "$(jq -r .event <<<"$end")"
check_eq "end: reason" "stdin closed" "$(jq -r .reason <<<"$end")"
check_eq "end: final AUDIT_GET (through the sentinel)" "1:$FLOOR" \
	"$(jq -r '"\(.audit.enabled):\(.audit.backlog_limit)"' <<<"$end")"
check_eq "end: enobufs" 0 "$(jq -r .enobufs <<<"$end")"
check_eq "end: records_forwarded counts the record lines" \
	"$(jq -c 'select(.event=="record")' "$MAIN_OUT" | wc -l)" "$(jq -r .records_forwarded <<<"$end")"
check "every line is valid JSON" jq -e . "$MAIN_OUT"
check_eq "the sentinel is gone too" "" "$(ps -o pid= -p "${sentinel:-0}" 2>/dev/null | tr -d ' ')"

# ---- 3. SIGTERM stops cleanly ----
kill -TERM "$ALL_PID"
wait_exit "$ALL_PID"
check_eq "reader exits 0 on SIGTERM" 0 "$R_RC"
check_eq "end after SIGTERM" "end:SIGTERM" "$(tail -1 "$ALL_OUT" | jq -r '"\(.event):\(.reason)"')"
exec {ALL_FD}>&-

# ---- 4. audit off and --no-enable: ready says confirmed:false, nothing is switched on ----
"$AUDIT_SET" enabled=0 >/dev/null
off=$("$HARKAQ_AUDIT" --no-enable --backlog-floor 0 </dev/null); rc=$?
after=$(now_field enabled)
check_eq "--no-enable with audit off: exit 0" 0 "$rc"
ready=$(head -1 <<<"$off")
check_eq "--no-enable with audit off: confirmed is false" "false" "$(jq -r .confirmed <<<"$ready")"
check_eq "--no-enable with audit off: reports enabled=0" 0 "$(jq -r .audit.enabled <<<"$ready")"
check_contains "--no-enable with audit off: says why" "$(jq -r .reason <<<"$ready")" \
	"audit is off (enabled=0) and --no-enable forbids switching it on"
check_eq "--no-enable did not switch audit on" 0 "$after"
# A reader that cannot subscribe (no CAP_AUDIT_READ) fails before touching any setting.
if command -v setpriv >/dev/null; then
	nocap=$(setpriv --bounding-set -audit_read "$HARKAQ_AUDIT" --backlog-floor 0 </dev/null 2>/dev/null)
	rc=$?
	check_eq "without CAP_AUDIT_READ: exit 70" 70 "$rc"
	check_eq "without CAP_AUDIT_READ: the error line" \
		'{"event":"error","message":"cannot join the audit multicast group READLOG: CAP_AUDIT_READ is needed"}' \
		"$nocap"
	check_eq "without CAP_AUDIT_READ: audit was not switched on" 0 "$(now_field enabled)"
else
	skip "reader without CAP_AUDIT_READ" "setpriv (util-linux) is not installed"
fi
# Positive control: the same state without --no-enable is switched on and confirmed.
on=$("$HARKAQ_AUDIT" --backlog-floor 0 </dev/null)
ready=$(head -1 <<<"$on")
check_eq "without --no-enable: confirmed" "true" "$(jq -r .confirmed <<<"$ready")"
check_eq "without --no-enable: the change is listed" "0->1" \
	"$(jq -r '.changed[] | select(.field=="enabled") | "\(.from)->\(.to)"' <<<"$ready")"
check_eq "without --no-enable: the kernel has enabled=1" 1 "$(now_field enabled)"
"$AUDIT_SET" enabled="$ORIG_ENABLED" >/dev/null

# ---- 5. usage errors ----
bad=$("$HARKAQ_AUDIT" --backlog-floor lots 2>/dev/null </dev/null); rc=$?
check_eq "bad option value: exit 64" 64 "$rc"
check_eq "bad option value: the error line" \
	'{"event":"error","message":"--backlog-floor: '"'lots'"' is not a number from 0 to 4294967295"}' "$bad"

# ---- the machine as it was found ----
restore
trap - EXIT
check_eq "audit settings restored exactly" \
	"enabled=$ORIG_ENABLED backlog_limit=$ORIG_BACKLOG" \
	"enabled=$(now_field enabled) backlog_limit=$(now_field backlog_limit)"
finish
