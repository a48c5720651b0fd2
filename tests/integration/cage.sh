#!/bin/bash
# harkaq-exec, the real static binary, end to end (design.md §3, §4; docs/cage.md).
#
# Filesystem cases run as nobody (uid 65534) in a 0755 scratch directory under /var/tmp with
# 0644 files, so DAC allows everything Landlock is asked to deny; every negative has its
# positive control in the same case (the granted sibling, the same probe outside the cage,
# the same policy without the scope, the run without the test flag).
. "$(dirname "$0")/lib.sh"

S=$(hk_scratch)
LISTENER=; VICTIM=
cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	[ -n "$VICTIM" ] && kill "$VICTIM" 2>/dev/null
	# Mounts a failed case may have left (innermost first), before anything is removed.
	umount "$S/ovl/pure/mnt" "$S/ovl" "$S/ro" 2>/dev/null
	rm -rf "$S"
}
trap cleanup EXIT

mkdir -m 755 "$S/bin"
cp "$HARKAQ_EXEC" "$HELPERS/cage_probe" "$HELPERS/cage_syscalls" "$HELPERS/cage_nolandlock" "$S/bin/"
chmod 755 "$S/bin"/*
X=$S/bin/harkaq-exec
P=$S/bin/cage_probe
SC=$S/bin/cage_syscalls
NL=$S/bin/cage_nolandlock
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# write_policy FILE LINE...: the header, the probe itself (ro), then the lines.
write_policy() {
	local f=$1; shift
	{ echo "harkaq-policy 1"; echo "ro $P"; printf '%s\n' "$@"; } >"$f"
}

# cage WHO ARGS...: runs harkaq-exec ARGS as WHO (nobody|root) with the status channel on fd 3;
# sets OUT, ERR, RC, STATUS (all JSON lines) and CAGE (the cage line).
# CAGE_WRAP, when set, is a command prefix for harkaq-exec (without_i386).
CAGE_WRAP=()
cage() {
	local who=$1; shift
	local runner=("${CAGE_WRAP[@]}")
	[ "$who" = nobody ] && runner+=("${NOBODY[@]}")
	OUT=$("${runner[@]}" "$X" --status-fd 3 "$@" 3>"$S/status" 2>"$S/stderr")
	RC=$?
	ERR=$(cat "$S/stderr")
	STATUS=$(cat "$S/status")
	CAGE=$(grep '"event":"cage"' <<<"$STATUS" || true)
}
field() { jq -c "$1" <<<"$CAGE" 2>/dev/null; }

# ---- files: ro, list, deep, rw ----

mkdir -m 755 "$S/d" "$S/lib" "$S/t" "$S/t/a" "$S/t/a/b" "$S/t/a/b/c"
echo declared >"$S/d/granted"; echo undeclared >"$S/d/ungranted"
echo a >"$S/lib/a.so"; echo b >"$S/lib/b.so"
echo top >"$S/t/a/top.h"; echo mid >"$S/t/a/b/mid.h"; echo deep >"$S/t/a/b/c/deep.h"
chmod 644 "$S"/d/* "$S"/lib/* "$S/t/a/top.h" "$S/t/a/b/mid.h" "$S/t/a/b/c/deep.h"

control=$("${NOBODY[@]}" "$P" read "$S/d/granted" read "$S/d/ungranted" read "$S/lib/a.so" read "$S/t/a/top.h")
check_eq "control: nobody reads every file without the cage" \
	"read $S/d/granted: ok declared
read $S/d/ungranted: ok undeclared
read $S/lib/a.so: ok a
read $S/t/a/top.h: ok top" "$control"

write_policy "$S/p.files" "ro $S/d/granted" "list $S/lib" "ro $S/t/a/b/c/deep.h"
cage nobody --policy "$S/p.files" -- "$P" read "$S/d/granted" read "$S/d/ungranted" \
	list "$S/lib" read "$S/lib/a.so" read "$S/t/a/b/c/deep.h" read "$S/t/a/top.h" \
	read "$S/t/a/b/mid.h" list "$S/t/a"
check_contains "ro: the granted file reads" "$OUT" "read $S/d/granted: ok declared"
check_contains "ro: its ungranted sibling is EACCES" "$OUT" "read $S/d/ungranted: EACCES"
check_contains "list: the directory lists" "$OUT" "list $S/lib: ok 2"
check_contains "list: its files do not open" "$OUT" "read $S/lib/a.so: EACCES"
check_contains "deep: the granted file deep in a tree reads" "$OUT" "read $S/t/a/b/c/deep.h: ok deep"
check_contains "deep: files beside its ancestors do not" "$OUT" "read $S/t/a/top.h: EACCES"
check_contains "deep: (second level too)" "$OUT" "read $S/t/a/b/mid.h: EACCES"
check_eq "deep (control): nobody reads the second-level file without the cage" \
	"read $S/t/a/b/mid.h: ok mid" "$("${NOBODY[@]}" "$P" read "$S/t/a/b/mid.h")"
check_contains "deep: ancestors list" "$OUT" "list $S/t/a: ok 2"
check_eq "files: the command's status passes through (1: some probes failed)" 1 "$RC"
check_eq "files: four rules (three grants and the probe's own ro)" 4 "$(field .rules)"
write_policy "$S/p.root" "list /" "ro $S/t/a/b/c/deep.h"
cage nobody --policy "$S/p.root" -- "$P" read "$S/t/a/b/c/deep.h" list "$S/t/a" read "$S/t/a/top.h"
check_eq "list /: the ancestors need no rule of their own, and still list; their files stay closed" \
	"0 read $S/t/a/b/c/deep.h: ok deep
list $S/t/a: ok 2
read $S/t/a/top.h: EACCES" "$(field .ancestors) $OUT"

mkdir -m 777 "$S/work" "$S/outside"
echo keep >"$S/outside/kept"; chmod 666 "$S/outside/kept"
control=$("${NOBODY[@]}" "$P" create "$S/outside/ctl" unlink "$S/outside/ctl")
check_eq "control: nobody may create and delete in outside/ without the cage" \
	"create $S/outside/ctl: ok
unlink $S/outside/ctl: ok" "$control"
write_policy "$S/p.rw" "rw $S/work"
cage nobody --policy "$S/p.rw" -- "$P" create "$S/work/a.o" rename "$S/work/a.o:$S/work/b.o" \
	mkdir "$S/work/sub" rename "$S/work/b.o:$S/work/sub/b.o" read "$S/work/sub/b.o" \
	unlink "$S/work/sub/b.o" rmdir "$S/work/sub" create "$S/work/c.o" \
	create "$S/outside/new" rename "$S/work/c.o:$S/outside/c.o" unlink "$S/outside/kept" \
	read "$S/outside/kept"
check_eq "rw: create, rename, mkdir, move, read, delete inside; nothing outside" \
	"create $S/work/a.o: ok
rename $S/work/a.o:$S/work/b.o: ok
mkdir $S/work/sub: ok
rename $S/work/b.o:$S/work/sub/b.o: ok
read $S/work/sub/b.o: ok x
unlink $S/work/sub/b.o: ok
rmdir $S/work/sub: ok
create $S/work/c.o: ok
create $S/outside/new: EACCES
rename $S/work/c.o:$S/outside/c.o: EACCES
unlink $S/outside/kept: EACCES
read $S/outside/kept: EACCES" "$OUT"
check_eq "rw: outside/ is untouched" "kept" "$(ls "$S/outside")"
check_eq "rw (control): nobody reads outside/kept without the cage" \
	"read $S/outside/kept: ok keep" "$("${NOBODY[@]}" "$P" read "$S/outside/kept")"

# ---- scopes ----

"${NOBODY[@]}" sleep 600 &
VICTIM=$!
write_policy "$S/p.sig" "scope signal"
write_policy "$S/p.nosig"
cage nobody --policy "$S/p.sig" -- "$P" kill "$VICTIM"
check_eq "signal scope: a signal to a process outside the domain is EPERM" "kill $VICTIM: EPERM" "$OUT"
check_eq "signal scope: reported" '["signal"]' "$(field .scopes)"
cage nobody --policy "$S/p.nosig" -- "$P" kill "$VICTIM"
check_eq "signal scope (control): the same signal without the scope is delivered" "kill $VICTIM: ok" "$OUT"
kill "$VICTIM"; VICTIM=

name=harkaq-it-$$
"${NOBODY[@]}" "$P" listen-abstract "$name" >"$S/listen.out" &
LISTENER=$!
for _ in $(seq 50); do grep -q listening "$S/listen.out" 2>/dev/null && break; sleep 0.1; done
write_policy "$S/p.unix" "scope abstract-unix-socket"
cage nobody --policy "$S/p.unix" -- "$P" connect-abstract "$name"
check_eq "abstract-unix scope: connecting to a socket created outside is EPERM" \
	"connect-abstract $name: EPERM" "$OUT"
cage nobody --policy "$S/p.nosig" -- "$P" connect-abstract "$name"
check_eq "abstract-unix scope (control): the same connect without the scope works" \
	"connect-abstract $name: ok" "$OUT"
kill "$LISTENER"; LISTENER=

# ---- seccomp ----

# seccomp_checks LABEL: the denylist from inside the cage against the same calls outside, as
# root (root gets the most answers other than EPERM outside, so the control tells apart), with
# harkaq-exec run through CAGE_WRAP.  Each entry point is checked where the kernel offers it
# (cage_syscalls writes "i386=absent" where int $0x80 is fatal); where it does not, the check
# is a stated skip, and the report must say the filter covers it but it is not reachable.
seccomp_checks() {
	local label=$1 simulated=${2:-} outside inside bad apart i386 reachable
	outside=$("${CAGE_WRAP[@]}" "$SC")
	write_policy "$S/p.sc" "ro $SC"
	cage root --policy "$S/p.sc" -- "$SC"
	inside=$OUT
	bad=$(grep -v '^getpid' <<<"$inside" | tr ' ' '\n' | grep '=' |
		grep -v -E '=(EPERM|-|absent)$' || true)
	check_eq "seccomp$label: every denylisted syscall is EPERM inside, on every entry point the kernel has" \
		"" "$bad"
	check_eq "seccomp$label: 28 syscalls checked inside" 28 "$(grep -vc '^getpid' <<<"$inside")"
	apart=$(grep -v '^getpid' <<<"$outside" | grep -vc 'native=EPERM')
	if [ "$apart" -ge 20 ]; then ok "seccomp$label (control): $apart of 28 answer otherwise than EPERM outside the cage"
	else not_ok "seccomp$label (control): only $apart syscalls told apart outside" "$outside"; fi
	check_eq "seccomp$label (control): i386 and x32 calls outside the list answer as without the filter" \
		"$(grep '^getpid' <<<"$outside")" "$(grep '^getpid' <<<"$inside")"
	if grep -q '^getpid i386=absent' <<<"$outside"; then
		i386=absent
		if [ -n "$simulated" ]; then
			ok "seccomp$label: int \$0x80 is fatal under the wrapper, as on such a kernel"
		else
			skip "seccomp$label: i386 calls are EPERM inside" \
				"this kernel has no i386 entry point (int \$0x80 is fatal): nothing to filter"
		fi
		check_eq "seccomp$label: no i386 call was made inside either" 28 \
			"$(grep -v '^getpid' <<<"$inside" | grep -c ' i386=absent ')"
	else
		i386=present
		[ -n "$simulated" ] && not_ok "seccomp$label: the wrapper took the i386 entry point away" \
			"int \$0x80 still answers under without_i386"
		check_eq "seccomp$label: i386 calls are EPERM inside (27 of 28: kexec_file_load has none)" 27 \
			"$(grep -v '^getpid' <<<"$inside" | grep -c ' i386=EPERM ')"
	fi
	# The report: the filter covers all three, and names those the kernel offers.
	reachable='"x86_64"'
	[ "$i386" = present ] && reachable+=',"x86"'
	grep -q '^getpid .* x32=ok$' <<<"$outside" && reachable+=',"x32"'
	check_eq "seccomp$label: reported (the filter's arches, and those reachable: i386 $i386)" \
		'{"installed":true,"syscalls":28,"arches":["x86_64","x86","x32"],"reachable":['"$reachable"']}' \
		"$(field .seccomp)"
}
seccomp_checks ""
# The same on a kernel without the i386 entry point (IA32 emulation off), as the wrapper makes
# one: this machine's has it, so without the wrapper the skip above would never be exercised.
CAGE_WRAP=("$HELPERS/without_i386")
seccomp_checks " (no i386 entry point)" simulated
CAGE_WRAP=()

# ---- syscall entry points: harkaq probe, and the kernel test's own skip ----

# What harkaq probe says of i386 against a call made here (cage_syscalls' getpid line).
probe_i386() { jq -r '.entry_points[] | select(.arch == "x86") | .state + ": " + .evidence'; }
direct=$(grep '^getpid' <<<"$("$SC")" | sed 's/.* i386=\([a-z]*\) .*/\1/')
case "$direct" in ok) want=present ;; absent) want=absent ;; *) want="unexpected: $direct" ;; esac
got=$("$HARKAQ" probe --json | probe_i386)
check_eq "probe: the i386 entry point as a direct call finds it ($want)" "$want" "${got%%:*}"
check_eq "probe: every entry point named, with its state" "x86_64 present|x86 $want|x32 $(
	grep -q '^getpid .* x32=ok$' <<<"$("$SC")" && echo present || echo absent)" \
	"$("$HARKAQ" probe --json | jq -r '[.entry_points[] | .arch + " " + .state] | join("|")')"
# Under the wrapper the entry point is gone either way: taken by the wrapper's filter (SIGSYS)
# where the kernel offers it, or already absent from the kernel itself (IA32 emulation off,
# SIGSEGV), whose own reason the probe then gives with or without the wrapper.
if [ "$want" = absent ]; then
	without_reason=${got#absent: }
else
	without_reason="int \$0x80 was killed by SIGSYS"
fi
check_eq "probe: without the i386 entry point, absent and why" \
	"absent: $without_reason" \
	"$("$HELPERS/without_i386" "$HARKAQ" probe --json | probe_i386)"
check_contains "probe: the text report names the entry points" "$("$HARKAQ" probe)" \
	"i386 (int \$0x80) $want"
# The kernel test's i386 check is a stated skip where the entry point is missing, and its
# native and x32 checks still run there.
KT=$B/tests/kernel/test_cage
check_contains "kernel test without i386: the i386 check is skipped with its reason" \
	"$("$HELPERS/without_i386" "$KT" seccomp_denylist_returns_eperm_on_i386 2>&1)" \
	"ok 1 - seccomp_denylist_returns_eperm_on_i386 # SKIP this kernel has no i386 entry point ($without_reason): nothing to filter"
check_eq "kernel test without i386: the native and x32 checks still run and pass" \
	"ok 1 - seccomp_denylist_returns_eperm_natively_and_on_x32" \
	"$("$HELPERS/without_i386" "$KT" seccomp_denylist_returns_eperm_natively_and_on_x32 2>/dev/null | grep '^ok')"
check_eq "kernel test without i386: the probe agrees with a direct call there too" \
	"ok 1 - entry_points_probe_agrees_with_a_direct_call" \
	"$("$HELPERS/without_i386" "$KT" entry_points_probe_agrees_with_a_direct_call 2>/dev/null | grep '^ok')"

mkdir -m 777 "$S/marks"
write_policy "$S/p.mark" "rw $S/marks"
cage nobody --policy "$S/p.mark" --test-break-seccomp -- "$P" create "$S/marks/broken"
check_eq "seccomp refused by the kernel: exit 123" 123 "$RC"
check_eq "seccomp refused: the command did not run (no marker)" "absent" \
	"$([ -e "$S/marks/broken" ] && echo present || echo absent)"
check_contains "seccomp refused: the message names the layer" "$ERR" \
	"harkaq-exec: seccomp: the command is not run: the kernel refused the seccomp filter"
check_contains "seccomp refused: error event" "$STATUS" '"event":"error","layer":"seccomp"'
cage nobody --policy "$S/p.mark" -- "$P" create "$S/marks/fine"
check_eq "seccomp (control): without the flag the command runs and leaves its marker" \
	"0 present" "$RC $([ -e "$S/marks/fine" ] && echo present || echo absent)"

# ---- a real compile under a big per-file policy ----

mkdir -m 777 "$S/cc"
printf '#include <stdio.h>\nint main(void) { puts("hello from the cage"); return 0; }\n' >"$S/cc/hello.c"
chmod 644 "$S/cc/hello.c"
compiler_files() {
	LC_ALL=C find /usr/lib/gcc /usr/bin /usr/lib/x86_64-linux-gnu /usr/include /etc/ld.so.cache \
		-type f 2>/dev/null | LC_ALL=C grep -E '^[!-~]+$' | grep -v '\\' | LC_ALL=C sort -u
}
compiler_files | sed 's/^/ro /' >"$S/cc.grants"
{ echo "harkaq-policy 1"; echo "rw $S/cc"; echo "rw /dev/null"; cat "$S/cc.grants"; } >"$S/p.cc"
n_cc=$(wc -l <"$S/cc.grants")
OUT=$(TMPDIR=$S/cc "${NOBODY[@]}" "$X" --status-fd 3 --policy "$S/p.cc" -- \
	/usr/bin/cc -o "$S/cc/hello" "$S/cc/hello.c" 3>"$S/status" 2>&1)
RC=$?
CAGE=$(grep '"event":"cage"' "$S/status")
check_eq "compile: cc builds hello.c under $n_cc per-file rules" 0 "$RC"
[ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | head -20 | sed 's/^/#   /'
check_eq "compile: every file got its own rule" "$((n_cc + 2))" "$(field .rules)"
cage nobody --policy "$S/p.cc" -- "$S/cc/hello"
check_eq "compile: the program built inside the cage runs inside it" "hello from the cage" "$OUT"
grep -v "^ro /usr/include/stdio.h\$" "$S/p.cc" >"$S/p.cc-nostdio"
OUT=$(TMPDIR=$S/cc "${NOBODY[@]}" "$X" --policy "$S/p.cc-nostdio" -- \
	/usr/bin/cc -o "$S/cc/hello2" "$S/cc/hello.c" 2>&1)
RC=$?
check_contains "compile (negative): without the stdio.h grant the compile fails on it" \
	"$RC $OUT" "stdio.h: Permission denied"

# ---- descriptors ----

control=$("${NOBODY[@]}" "$P" fd 5 5<"$S/d/ungranted")
check_eq "control: an inherited descriptor reads without the cage" "fd 5: ok undeclared" "$control"
cage nobody --policy "$S/p.files" -- "$P" fd 5 read "$S/d/granted" 5<"$S/d/ungranted"
check_eq "fds: the inherited descriptor is closed in the cage (EBADF) while stdout works" \
	"fd 5: EBADF
read $S/d/granted: ok declared" "$OUT"
n=$(field .closed_fds)
if [ "${n:-0}" -ge 1 ] 2>/dev/null; then ok "fds: closed_fds reported ($n)"; else not_ok "fds: closed_fds" "$CAGE"; fi

# ---- forced ABI, tiers, logging flag ----

cage nobody --policy "$S/p.files" --force-abi 3 -- "$P" read "$S/d/granted" read "$S/d/ungranted"
check_eq "force-abi 3: still enforces (granted reads, ungranted EACCES)" \
	"read $S/d/granted: ok declared
read $S/d/ungranted: EACCES" "$OUT"
check_eq "force-abi 3: reported" '[3,true,"enforce",[]]' "$(field '[.abi,.forced,.tier,.log_flags]')"
check_contains "force-abi 3: dropped rights listed" "$(field .dropped_fs)" '"ioctl_dev"'
check_contains "force-abi 3: said on stderr" "$ERR" "--force-abi 3: the cage behaves as Landlock ABI 3"
check_contains "force-abi 3: dropped rights said on stderr" "$ERR" \
	"Landlock ABI 3 does not know the filesystem rights ioctl_dev"

real=$(jq -r .real_abi <<<"$CAGE")
cage nobody --policy "$S/p.files" -- "$P" read "$S/d/granted"
check_eq "evidence tier at the kernel's ABI, with LOG_NEW_EXEC_ON" \
	"[$real,false,\"evidence\",[\"log_new_exec_on\"],false]" \
	"$(field '[.abi,.forced,.tier,.log_flags,.log_flag_withheld]')"
cage nobody --policy "$S/p.files" --test-withhold-log-flag -- "$P" read "$S/d/granted"
check_eq "withheld log flag: reported in the status" '[[],true]' "$(field '[.log_flags,.log_flag_withheld]')"
check_contains "withheld log flag: said on stderr" "$ERR" "LOG_NEW_EXEC_ON withheld"

cage nobody --policy "$S/p.files" --force-abi 2 -- "$P" read "$S/d/ungranted"
check_eq "tier none (ABI 2): runs without Landlock, seccomp still on" \
	'0 read '"$S"'/d/ungranted: ok undeclared ["none",true]' "$RC $OUT $(field '[.tier,.seccomp.installed]')"
check_contains "tier none: said on stderr" "$ERR" "tier none"
cage nobody --policy "$S/p.mark" --force-abi 2 --require-landlock -- "$P" create "$S/marks/none"
check_eq "--require-landlock without Landlock: exit 122, the command does not run" "122 absent" \
	"$RC $([ -e "$S/marks/none" ] && echo present || echo absent)"

# A kernel without Landlock, simulated by making landlock_create_ruleset fail (cage_nolandlock).
OUT=$("${NOBODY[@]}" "$NL" ENOSYS "$X" --status-fd 3 --policy "$S/p.files" --canary "$S/d/granted" -- \
	"$P" read "$S/d/ungranted" 3>"$S/status" 2>"$S/stderr"); RC=$?
ERR=$(cat "$S/stderr"); CAGE=$(grep '"event":"cage"' "$S/status" || true)
check_eq "no Landlock (ENOSYS): tier none, the command runs unrestricted, seccomp on" \
	"0 read $S/d/ungranted: ok undeclared [0,0,\"none\",true,\"skipped\"]" \
	"$RC $OUT $(field '[.abi,.real_abi,.tier,.seccomp.installed,.canary_probe]')"
check_contains "no Landlock (ENOSYS): says it is not built" "$ERR" \
	"Landlock is not built into this kernel"
check_contains "no Landlock: the canary probe is skipped, and said so" "$ERR" \
	"without Landlock the canary probe is skipped"
"${NOBODY[@]}" "$NL" EOPNOTSUPP "$X" --policy "$S/p.files" -- "$P" noop - >/dev/null 2>"$S/stderr"
check_contains "no Landlock (EOPNOTSUPP): says it is disabled at boot" "$(cat "$S/stderr")" \
	"disabled at boot"
"${NOBODY[@]}" "$NL" EOPNOTSUPP "$X" --policy "$S/p.mark" --require-landlock -- \
	"$P" create "$S/marks/nolandlock" >/dev/null 2>"$S/stderr"; RC=$?
check_eq "no Landlock + --require-landlock: exit 122, nothing runs" "122 absent" \
	"$RC $([ -e "$S/marks/nolandlock" ] && echo present || echo absent)"
check_contains "no Landlock + --require-landlock: message" "$(cat "$S/stderr")" \
	"harkaq-exec: landlock: Landlock is built into this kernel but disabled at boot"

# ---- missing paths ----

write_policy "$S/p.missing" "ro $S/d/granted" "ro $S/nope/never.h"
cage nobody --policy "$S/p.missing" -- "$P" read "$S/d/granted"
check_eq "missing path: the run continues" "read $S/d/granted: ok declared" "$OUT"
check_eq "missing path: listed in the status" "[\"$S/nope/never.h\"]" "$(field .missing)"
check_contains "missing path: said on stderr" "$ERR" "the policy grants ro $S/nope/never.h, which does not exist here"

# ---- the canary probe ----

echo canary >"$S/canary"; chmod 644 "$S/canary"
write_policy "$S/p.canary" "ro $X" "rw $S/marks"
cage nobody --policy "$S/p.canary" --canary "$S/canary" -- "$P" create "$S/marks/after-canary"
check_eq "canary: denied and the command runs" "0 present" \
	"$RC $([ -e "$S/marks/after-canary" ] && echo present || echo absent)"
check_contains "canary: denied with EACCES, reported" "$STATUS" \
	"{\"event\":\"canary\",\"result\":\"denied\",\"errno\":13,\"path\":\"$S/canary\"}"
check_eq "canary: probe stage after exec" '"after_exec"' "$(field .canary_probe)"

write_policy "$S/p.canary-granted" "ro $X" "rw $S/marks" "ro $S/canary"
cage nobody --policy "$S/p.canary-granted" --canary "$S/canary" -- "$P" create "$S/marks/granted-canary"
check_eq "canary granted by the policy: exit 124, the command does not run" "124 absent" \
	"$RC $([ -e "$S/marks/granted-canary" ] && echo present || echo absent)"
check_contains "canary granted: reported opened" "$STATUS" '"event":"canary","result":"opened"'

cage nobody --policy "$S/p.canary" --canary "$S/no-such-canary" -- "$P" create "$S/marks/lost-canary"
check_eq "canary missing: exit 124, the command does not run" "124 absent" \
	"$RC $([ -e "$S/marks/lost-canary" ] && echo present || echo absent)"
check_contains "canary missing: reported with its errno" "$STATUS" '"result":"error","errno":2'

write_policy "$S/p.noself" "rw $S/marks"
cage nobody --policy "$S/p.noself" --canary "$S/canary" -- "$P" create "$S/marks/noself"
check_eq "canary without a grant on harkaq-exec: exit 124, nothing runs" "124 absent" \
	"$RC $([ -e "$S/marks/noself" ] && echo present || echo absent)"
check_contains "canary without a grant on harkaq-exec: says what to grant" "$ERR" \
	"the policy must grant ro $X for the canary probe"

cage nobody --policy "$S/p.mark" -- "$P" create "$S/marks/nocanary"
check_contains "no --canary: said on stderr" "$ERR" "no --canary given: the canary probe is skipped"
check_eq "no --canary: said in the status" '"skipped"' "$(field .canary_probe)"

# ---- errors and exit codes ----

printf 'harkaq-policy 1\nrox /etc/hostname\n' >"$S/p.bad"
cage nobody --policy "$S/p.bad" -- "$P" create "$S/marks/badpolicy"
check_eq "bad policy: exit 121, the command does not run" "121 absent" \
	"$RC $([ -e "$S/marks/badpolicy" ] && echo present || echo absent)"
check_contains "bad policy: FILE:LINE: in the message" "$ERR" "harkaq-exec: policy: $S/p.bad:2:"
check_contains "bad policy: error event" "$STATUS" '"layer":"policy"'

cage nobody --policy "$S/p.mark" -- /nonexistent/harkaq-cmd
check_eq "command not found: 127" 127 "$RC"
check_contains "command not found: message" "$ERR" "/nonexistent/harkaq-cmd: command not found"
cage nobody --policy "$S/p.mark" -- "$SC"
check_eq "command not granted: 126" 126 "$RC"
check_contains "command not granted: message" "$ERR" "$SC: cannot execute: Permission denied"

help=$("$X" --help)
for code in 121 122 123 124 125 126 127; do
	check_contains "--help documents exit $code" "$help" "  $code  "
done

# ---- collapsed directories (--collapse): one rule beneath, the same files ----

# tree/: pure/ holds only granted files (two levels); mixed/ also holds an undeclared file.
# Read-only through a bind mount, as the sandbox's merged view is; a writable copy of pure/
# (rwpure/) must be declined.
mkdir -m 755 "$S/tree" "$S/tree/pure" "$S/tree/pure/sub" "$S/tree/mixed" "$S/ro" "$S/rwpure"
echo p1 >"$S/tree/pure/p1"; echo p2 >"$S/tree/pure/sub/p2"
echo m1 >"$S/tree/mixed/m1"; echo undeclared >"$S/tree/mixed/extra"
echo w1 >"$S/rwpure/w1"
chmod 644 "$S"/tree/pure/p1 "$S"/tree/pure/sub/p2 "$S"/tree/mixed/* "$S/rwpure/w1"
mount --bind "$S/tree" "$S/ro" && mount -o remount,bind,ro "$S/ro"
R=$S/ro
write_policy "$S/p.coll" "ro $R/pure/p1" "ro $R/pure/sub/p2" "ro $R/mixed/m1" "ro $S/rwpure/w1"
probe_coll=(read "$R/pure/p1" read "$R/pure/sub/p2" read "$R/mixed/m1" read "$R/mixed/extra"
	read "$S/rwpure/w1")
cage nobody --policy "$S/p.coll" -- "$P" "${probe_coll[@]}"
per_file=$OUT
check_eq "collapse (control): per file, the granted files read and the undeclared one is EACCES" \
	"read $R/pure/p1: ok p1
read $R/pure/sub/p2: ok p2
read $R/mixed/m1: ok m1
read $R/mixed/extra: EACCES
read $S/rwpure/w1: ok w1" "$per_file"
check_eq "collapse (control): no collapse without --collapse" 0 "$(field .beneath)"
{ echo "harkaq-policy 1"; echo "list $R/pure"; echo "list $S/rwpure"; } >"$S/collapse"
cage nobody --policy "$S/p.coll" --collapse "$S/collapse" -- "$P" "${probe_coll[@]}"
check_eq "collapse: every probe answers exactly as with per-file rules" "$per_file" "$OUT"
check_eq "collapse: one rule beneath pure/, standing for its two grants" "1 2" \
	"$(field .beneath) $(field .covered)"
check_eq "collapse: the writable directory is declined (its grant keeps its own rule)" 1 \
	"$(field .declined)"
check_eq "collapse: rules for the grants left (mixed/m1, rwpure/w1, the probe)" 3 "$(field .rules)"
{ echo "harkaq-policy 1"; echo "list $R/mixed"; } >"$S/collapse.bad"
cage nobody --policy "$S/p.coll" --collapse "$S/collapse.bad" -- "$P" read "$R/mixed/extra"
check_eq "collapse: a wrongly named directory is not checked by the cage: the planner must be right" \
	"read $R/mixed/extra: ok undeclared" "$OUT"
{ echo "harkaq-policy 1"; echo "ro $R/pure"; } >"$S/collapse.ro"
cage nobody --policy "$S/p.coll" --collapse "$S/collapse.ro" -- "$P" noop -
check_eq "collapse: a collapse file with anything but list lines is refused (121)" 121 "$RC"
check_contains "collapse: and the refusal names the line" "$ERR" "only 'list' lines"

# ---- TRUNCATE on read-only superblocks (docs/cage.md, "Read-only superblocks") ----

# An overlay without an upper layer, as the sandbox's merged views are: a read-only
# superblock.  Its `ro` file rules and its collapsed directory's rule also carry TRUNCATE,
# which the kernel refuses there before Landlock is asked; the ro bind of a writable
# filesystem above ($R) must not get it: the same inode is writable through $S/tree.
# (The body below is left unindented, to keep its history.)
if ! hk_probe_overlay; then
	skip "ro superblock: TRUNCATE on an overlay's read-only superblock" "$HK_PROBE_WHY"
else
mkdir -m 755 "$S/lo1" "$S/lo2" "$S/lo1/pure" "$S/lo1/pure/sub" "$S/lo1/pure/mnt" "$S/ovl"
echo f1 >"$S/lo1/f1"; echo p1 >"$S/lo1/pure/p1"; echo p2 >"$S/lo2/p2"
chmod 644 "$S/lo1/f1" "$S/lo1/pure/p1" "$S/lo2/p2"
mount -t overlay overlay -o "lowerdir=$S/lo1:$S/lo2" "$S/ovl"
chmod 666 "$S/tree/mixed/m1"
O=$S/ovl
write_policy "$S/p.rosb" "ro $O/f1" "ro $O/p2" "ro $O/pure/p1" "ro $R/mixed/m1"
echo "harkaq-policy 1" >"$S/collapse.none"
{ echo "harkaq-policy 1"; echo "list $O/pure"; } >"$S/collapse.rosb"
probe_rosb=(read "$O/f1" read "$O/pure/p1" read "$R/mixed/m1" truncate "$O/f1"
	truncate "$O/pure/p1" truncate "$S/tree/mixed/m1")
cage nobody --policy "$S/p.rosb" --collapse "$S/collapse.rosb" -- "$P" "${probe_rosb[@]}"
check_eq "ro superblock: reads as granted; truncation refused by the filesystem (EROFS), and on the writable path to the ro bind's inode by Landlock (EACCES)" \
	"read $O/f1: ok f1
read $O/pure/p1: ok p1
read $R/mixed/m1: ok m1
truncate $O/f1: EROFS
truncate $O/pure/p1: EROFS
truncate $S/tree/mixed/m1: EACCES" "$OUT"
check_eq "ro superblock: TRUNCATE on the two file rules and the collapsed directory's, not on the ro bind's" \
	"3 1" "$(field .ro_sb_truncate) $(field .beneath)"
check_eq "ro superblock (control): nobody truncates the writable file without the cage" \
	"truncate $S/tree/mixed/m1: ok" "$("${NOBODY[@]}" "$P" truncate "$S/tree/mixed/m1")"
echo m1 >"$S/tree/mixed/m1"
check_eq "ro superblock (control): even root cannot truncate on it: EROFS is the filesystem's" \
	"truncate $O/f1: EROFS" "$("$P" truncate "$O/f1")"
cage nobody --policy "$S/p.rosb" --collapse "$S/collapse.none" -- "$P" noop -
check_eq "ro superblock: without collapsing, the three file rules on it" 3 "$(field .ro_sb_truncate)"

# A writable filesystem mounted on the read-only one, beneath the collapsed directory: the
# directory's rule would cover its files, so it gets no TRUNCATE (the file rules still do).
mount -t tmpfs -o mode=755 tmpfs "$O/pure/mnt"
echo w >"$O/pure/mnt/w"; chmod 666 "$O/pure/mnt/w"
cage nobody --policy "$S/p.rosb" --collapse "$S/collapse.rosb" -- "$P" read "$O/pure/mnt/w" \
	truncate "$O/pure/mnt/w"
check_eq "mount on the ro superblock: its file reads beneath the collapsed rule, truncation is EACCES" \
	"read $O/pure/mnt/w: ok w
truncate $O/pure/mnt/w: EACCES" "$OUT"
check_eq "mount on the ro superblock: TRUNCATE on the two file rules only" 2 "$(field .ro_sb_truncate)"
check_eq "mount on the ro superblock (control): nobody truncates its file without the cage" \
	"truncate $O/pure/mnt/w: ok" "$("${NOBODY[@]}" "$P" truncate "$O/pure/mnt/w")"
umount "$O/pure/mnt"
umount "$S/ovl"
fi
umount "$S/ro"

# ---- cost: 100k per-file rules (kernel-facts.md §10) ----

{ echo "harkaq-policy 1"; echo "ro $P"
  LC_ALL=C find /usr /etc /var/lib -xdev -type f 2>/dev/null | LC_ALL=C grep -E '^[!-~]+$' |
	grep -v '\\' | LC_ALL=C sort -u | head -n 99999 | sed 's/^/ro /'; } >"$S/p.big"
n_big=$(($(wc -l <"$S/p.big") - 1))
best=
for _ in 1 2 3; do
	/usr/bin/time -o "$S/time" -f '%e %M' "$X" --status-fd 3 --policy "$S/p.big" -- "$P" noop - \
		3>"$S/status" >/dev/null 2>/dev/null
	t=$(tail -n 1 "$S/time")
	if [ -z "$best" ] || awk -v a="${t% *}" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then
		best=$t
	fi
done
CAGE=$(grep '"event":"cage"' "$S/status")
check_eq "cost: all $n_big rules installed" "$n_big" "$(field .rules)"
secs=${best% *}; kib=${best#* }
if [[ "$secs" =~ ^[0-9]+\.[0-9]+$ && "$kib" =~ ^[0-9]+$ ]]; then
	# The time is reported, never asserted (the machines are noisy): the < 1 s target is
	# checked by the benchmark, bench/rules.sh and bench/run.
	echo "# cost: $n_big rules, whole run in ${secs}s (best of 3; target < 1 s, see bench/)"
	if [ "$kib" -lt 65536 ]; then ok "cost: peak RSS ${kib} KiB (< 64 MiB)"
	else not_ok "cost: peak RSS ${kib} KiB (target < 64 MiB)"; fi
else
	not_ok "cost: could not measure the run" "time said: $best"
fi

finish
