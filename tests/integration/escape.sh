#!/bin/bash
# The standing escape suite (docs/escape-suite.md): escape attempts run inside the REAL
# sandbox — `harkaq build` of a recipe whose phase runs tests/helpers/esc_attempt (static,
# shipped in the recipe's source directory) as the unprivileged build user.
#
# Every attempt runs twice, in the same sandbox: under the cage, and with --no-cage (the
# positive control: the attempt works, or fails for a reason that is not the cage).  An
# attempt that Landlock stops must also appear in the build's verdict (--result-out), with
# its blockers and path (or target process).  Then the attempts that need a host-side
# counterpart (a host listener, a host process, root's capabilities, a second directory on
# one filesystem) run under `harkaq run` on the host, whose verdict is checked the same way.
. "$(dirname "$0")/lib.sh"
hk_require_runs; hk_require_builds

S=$(hk_scratch)
LISTENER=; VICTIM=; TCP_LISTENER=
cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	[ -n "$VICTIM" ] && kill "$VICTIM" 2>/dev/null
	[ -n "$TCP_LISTENER" ] && kill "$TCP_LISTENER" 2>/dev/null
	[ -e "$S/loop.lock" ] && touch "$S/loop.stop"
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$S"
}
trap cleanup EXIT
ESC=$HELPERS/esc_attempt
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# A store with one tiny declared artifact: the granted file the positive controls read.
mkdir -p "$S/tree/usr/share/esc"
echo declared >"$S/tree/usr/share/esc/declared.txt"
"$HARKAQ" store --store "$S/store" add "$S/tree" --name esc-tools --version 1 >/dev/null

# Host-side counterparts: a host process (its pid is handed to the build in /src), an
# abstract socket listener in the host's network namespace.
"${NOBODY[@]}" sleep 600 &
VICTIM=$!
ABS=harkaq-esc-$$
"${NOBODY[@]}" "$HELPERS/cage_probe" listen-abstract "$ABS" >"$S/listen.out" &
LISTENER=$!
for _ in $(seq 50); do grep -q listening "$S/listen.out" 2>/dev/null && break; sleep 0.1; done
check_contains "host listener (control): reachable on the host without the cage" \
	"$("${NOBODY[@]}" "$HELPERS/cage_probe" connect-abstract "$ABS")" "connect-abstract $ABS: ok"

mkdir -p "$S/r/src"
cp "$ESC" "$S/r/src/esc_attempt"
echo "$VICTIM" >"$S/r/src/hostpid"
# One attempt per ",": each names a distinct undeclared file, so each denial is attributable
# in the verdict by its path alone.
ATTEMPTS="ptrace-child , ptrace 1 , vm-read-child , io-uring , bpf , userfaultfd , add-key ,
 keyctl , perf , init-module , kexec-load , mount , umount2 , open-tree , fsopen , move-mount ,
 setns , bind-read /usr/include/signal.h , kill 1 0 , kill @/src/hostpid 0 ,
 connect-abstract $ABS , tiocsti , read /usr/share/esc/declared.txt ,
 read /usr/include/stdio.h , create /dev/harkaq-esc , create /harkaq-esc ,
 create /etc/harkaq-esc , create /usr/harkaq-esc , write /usr/share/esc/declared.txt ,
 create /tmp/esc-ok , create /var/tmp/esc-ok , create /src/esc-ok ,
 symlink-read /usr/include/stdlib.h /tmp/l , hardlink-read /usr/include/ctype.h /tmp/h ,
 hardlink-read /usr/include/ctype.h /src/h , read /proc/self/root/usr/include/string.h ,
 read /proc/1/root/usr/include/errno.h , opath-reopen /usr/include/fcntl.h ,
 handle /etc/shells , rename /usr/include/limits.h /tmp/s , rename /etc/shells /src/s ,
 ldso /lib64/ld-linux-x86-64.so.2 /usr/bin/id , memfd-copy /usr/bin/whoami ,
 nested-domain /usr/share/esc/declared.txt , nested-domain /usr/include/assert.h , nested-mute ,
 tiocsti-high , mkfifo /tmp/esc-fifo ,
 memfd-exec /src/esc_attempt read /usr/include/unistd.h"
# On this machine's own directories (base = "host"): the attempts name host files
# (/usr/include/…) that an essential base does not have; what is tested is the cage.
cat >"$S/r/recipe.toml" <<EOF
name = "escape"
version = "1"
base = "host"
[source]
dir = "src"
[deps]
build = ["esc-tools"]
[phases]
compile = "./esc_attempt $(tr '\n' ' ' <<<"$ATTEMPTS")"
EOF
chmod -R a+rX "$S"

# Both builds run with a terminal (script(1)) as their stdin, so that TIOCSTI has a target.
build() { # OUTFILE ARGS...
	local out=$1; shift
	script -qec "$(printf '%q ' "$HARKAQ" build --quiet --store "$S/store" "$@" "$S/r/recipe.toml") \
		>$(printf '%q' "$out") 2>$(printf '%q' "$out.err"); echo \$? >$(printf '%q' "$out.rc")" \
		/dev/null >/dev/null 2>&1 </dev/null
}
build "$S/caged" --result-out "$S/caged.json"
build "$S/open" --no-cage
IN=$(tr -d '\r' <"$S/caged"); CTL=$(tr -d '\r' <"$S/open")
check_eq "caged build: exit 1 (Impure: the Landlock denials are debt)" 1 "$(cat "$S/caged.rc")"
check_eq "control build (--no-cage): exit 0" 0 "$(cat "$S/open.rc")"
# One line per attempt, plus the line of the program run from the memfd.
n_att=$(( $(tr -cd ',' <<<"$ATTEMPTS" | wc -c) + 2 ))
check_eq "every attempt reported, caged ($n_att lines)" "$n_att" "$(grep -c ': ' <<<"$IN")"
check_eq "every attempt reported, control ($n_att lines)" "$n_att" "$(grep -c ': ' <<<"$CTL")"

# Denials of the caged build as "blockers target comm" lines.
DEN=$(jq -r '.phases[0].verdict.denials[] |
	"\(.blockers) \(.path // ("process " + (.ocomm // "?"))) \(.comm)"' "$S/caged.json" 2>&1)
check_eq "caged verdict: Impure, with evidence (canary seen)" "Impure true" \
	"$(jq -r '.phases[0].verdict | "\(.state) \(.canary.seen)"' "$S/caged.json")"
# The negatives on $DEN below (no record of signal.h, errno.h) need every record to have arrived.
check_eq "caged verdict: kernel denials == records received (nothing lost)" true \
	"$(jq -r '.phases[0].verdict.kernel | .denials != null and .denials == .records_received' "$S/caged.json")"

# attempt LABEL CAGED CONTROL [DENIAL]: the caged result, the control's, and the verdict line.
attempt() {
	local label=$1 caged=$2 control=$3 denial=${4:-}
	local gi gc
	gi=$(grep -F -m1 "$label: " <<<"$IN" | sed "s|^$label: ||; s| .*||")
	gc=$(grep -F -m1 "$label: " <<<"$CTL" | sed "s|^$label: ||; s| .*||")
	check_eq "$label: $caged in the cage, $control without" "$caged $control" "$gi $gc"
	if [ -n "$denial" ]; then
		check_contains "$label: in the verdict as '$denial'" "$DEN" "$denial"
	fi
}

# seccomp: EPERM; the control shows what the call does without the cage.
for a in ptrace-child "ptrace 1" vm-read-child io-uring userfaultfd add-key keyctl perf \
	mount open-tree fsopen move-mount setns "bind-read /usr/include/signal.h"; do
	attempt "$a" EPERM ok
done
attempt bpf EPERM EPERM              # also kernel.unprivileged_bpf_disabled=2
attempt init-module EPERM ENOSYS     # this kernel has no module loader
attempt kexec-load EPERM ENOSYS      # nor kexec
attempt umount2 EPERM EINVAL         # the control meets a locked mount
check_not_contains "bind-read: the alias was never read (no record of signal.h)" "$DEN" "signal.h"

# signals: bwrap's init is in the sandbox but outside the domain; host pids do not exist here.
attempt "kill 1 0" EPERM ok "scope.signal process bwrap esc_attempt"
attempt "kill @/src/hostpid 0" ESRCH ESRCH
check_eq "host victim still alive" 0 "$(kill -0 "$VICTIM" 2>/dev/null; echo $?)"
# abstract sockets are per network namespace: the host listener is not there, cage or not.
attempt "connect-abstract $ABS" ECONNREFUSED ECONNREFUSED
# seccomp; without it the build user (nobody) would be stopped by the new session all the same:
# the terminal on fd 0 is not its controlling terminal.  Root is not (below, under harkaq run).
attempt tiocsti EPERM EPERM
check_contains "tiocsti: fd 0 really was a terminal" "$(grep -F 'tiocsti:' <<<"$IN")" "isatty(0)=1"
ctl=$(script -qec "$(printf '%q ' "${NOBODY[@]}" "$ESC" tiocsti)" /dev/null </dev/null | tr -d '\r')
check_contains "tiocsti (control): on the host, in the terminal's own session, it injects" \
	"$ctl" "tiocsti: ok"

# files
attempt "read /usr/share/esc/declared.txt" ok ok
attempt "read /usr/include/stdio.h" EACCES ok "fs.read_file /usr/include/stdio.h esc_attempt"
attempt "create /dev/harkaq-esc" EACCES ok "fs.make_reg /dev esc_attempt"
attempt "create /harkaq-esc" EACCES ok "fs.make_reg / esc_attempt"
attempt "create /etc/harkaq-esc" EROFS EROFS
attempt "create /usr/harkaq-esc" EROFS EROFS
attempt "write /usr/share/esc/declared.txt" EROFS EROFS
for d in /tmp /var/tmp /src; do attempt "create $d/esc-ok" ok ok; done
attempt "symlink-read /usr/include/stdlib.h /tmp/l" EACCES ok "fs.read_file /usr/include/stdlib.h esc_attempt"
attempt "hardlink-read /usr/include/ctype.h /tmp/h" EXDEV EXDEV
attempt "hardlink-read /usr/include/ctype.h /src/h" EXDEV EXDEV
attempt "read /proc/self/root/usr/include/string.h" EACCES ok "fs.read_file /usr/include/string.h esc_attempt"
attempt "read /proc/1/root/usr/include/errno.h" EACCES ok "ptrace process bwrap esc_attempt"
check_not_contains "/proc/1/root: stopped at the process, errno.h never reached" "$DEN" "errno.h"
attempt "opath-reopen /usr/include/fcntl.h" EACCES ok "fs.read_file /usr/include/fcntl.h esc_attempt"
attempt "handle /etc/shells" EPERM EPERM
attempt "rename /usr/include/limits.h /tmp/s" EXDEV EXDEV
attempt "rename /etc/shells /src/s" EXDEV EXDEV
attempt "ldso /lib64/ld-linux-x86-64.so.2 /usr/bin/id" EACCES ok "fs.read_file /usr/bin/id ld-linux-x86-64"
attempt "memfd-copy /usr/bin/whoami" EACCES ok "fs.read_file /usr/bin/whoami esc_attempt"
attempt "read /usr/include/unistd.h" EACCES ok "fs.read_file /usr/include/unistd.h memfd:esc"
attempt "memfd-exec /src/esc_attempt" ok ok
attempt tiocsti-high EPERM EPERM
attempt "mkfifo /tmp/esc-fifo" ok ok
# A domain of the build's own: the kernel would charge its denials to it (its id in the record,
# or no record at all once muted), never to the phase's domain.  Refused, the read it was to
# hide is the phase's denial, and in the verdict.  The control makes its domain, which denies.
detail() { grep -F -m1 "$1: " <<<"$2" | sed "s|^$1: ||"; }
check_eq "nested-domain (declared file): refused in the cage, the file reads; the control's domain denies it" \
	"EPERM (abi 7, then read: ok) | ok (abi 7, then read: EACCES)" \
	"$(detail "nested-domain /usr/share/esc/declared.txt" "$IN") | $(detail "nested-domain /usr/share/esc/declared.txt" "$CTL")"
check_eq "nested-domain (undeclared file): refused, the read denied by the phase's domain" \
	"EPERM (abi 7, then read: EACCES) | ok (abi 7, then read: EACCES)" \
	"$(detail "nested-domain /usr/include/assert.h" "$IN") | $(detail "nested-domain /usr/include/assert.h" "$CTL")"
check_contains "nested-domain: the read is in the verdict" "$DEN" "fs.read_file /usr/include/assert.h esc_attempt"
attempt nested-mute EPERM ok
check_eq "nothing written outside: the store still has one artifact" 1 \
	"$("$HARKAQ" store --store "$S/store" list | grep -c .)"

# ---- under `harkaq run` on the host: what needs a host counterpart ----

mkdir -m 755 "$S/host" "$S/host/granted" "$S/host/other"
chmod 777 "$S/host/granted" "$S/host/other"
RUN_FLAGS=()
run() { # WHO POLICY-LINES... -- ATTEMPT ARGS   (harkaq run's extra options in RUN_FLAGS)
	local who=$1; shift
	local pol=$S/p.$RANDOM; { echo "harkaq-policy 1"; echo "ro $ESC"
		while [ "$1" != -- ]; do echo "$1"; shift; done; } >"$pol"; shift
	local u=(); [ "$who" = nobody ] && u=(--user nobody)
	RUN_OUT=$("$HARKAQ" run --quiet --policy "$pol" "${u[@]}" "${RUN_FLAGS[@]}" \
		--verdict-out "$S/run.json" -- "$ESC" "$@" 2>"$S/run.err" <"${RUN_IN:-/dev/null}")
	RUN_RC=$?
	RUN_DEN=$(jq -r '.verdict.denials[] | "\(.blockers) \(.path // ("process " + (.ocomm // "?")))"' \
		"$S/run.json" 2>&1)
}
line() { grep -F -m1 "$1: " <<<"$RUN_OUT"; }

# The run's own pid namespace: the command is pid 2, pid 1 the run's init (outside the domain);
# the host's processes do not exist there.
run root "scope signal" -- pid , kill 1 0 , kill "$VICTIM" 0
check_eq "run: the command is pid 2 of a pid namespace of its own" "pid: ok (pid 2)" "$(line pid)"
check_eq "run: a signal to the run's init, outside the domain, is EPERM (as root)" \
	"kill 1 0: EPERM (pid 1)" "$(line "kill 1 0")"
check_contains "run: ... and in the verdict (scope.signal, the init named)" "$RUN_DEN" "scope.signal process harkaq"
check_eq "run: a host process does not exist in the run's pid namespace" \
	"kill $VICTIM 0: ESRCH (pid $VICTIM)" "$(line "kill $VICTIM 0")"
check_eq "run: Impure (exit 1)" 1 "$RUN_RC"
run root -- kill 1 0
check_eq "run (control): without the scope the init is reached" "kill 1 0: ok (pid 1)" "$RUN_OUT"
check_eq "run (control): the host process exists on the host" "kill $VICTIM 0: ok (pid $VICTIM)" \
	"$("${NOBODY[@]}" "$ESC" kill "$VICTIM" 0)"

# The network: an empty namespace (loopback up), unless --share-net.  Abstract UNIX sockets
# belong to a network namespace, so the host's listener is not there; with --share-net it is,
# and the abstract-socket scope stands in the way.
"${NOBODY[@]}" /usr/bin/python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
while True: s.accept()[0].close()' >"$S/tcp.port" &
TCP_LISTENER=$!
for _ in $(seq 50); do [ -s "$S/tcp.port" ] && break; sleep 0.1; done
PORT=$(cat "$S/tcp.port")
check_eq "host TCP listener (control): reachable on the host without the cage" \
	"connect-tcp 127.0.0.1 $PORT: ok" "$("${NOBODY[@]}" "$ESC" connect-tcp 127.0.0.1 "$PORT")"
run nobody -- connect-tcp 127.0.0.1 "$PORT" , connect-abstract "$ABS"
check_eq "run: the host's TCP listener is not in the run's network namespace" \
	"connect-tcp 127.0.0.1 $PORT: ECONNREFUSED" "$(line "connect-tcp 127.0.0.1 $PORT")"
check_eq "run: nor its abstract UNIX listener" "connect-abstract $ABS: ECONNREFUSED" "$(line "connect-abstract $ABS")"
check_eq "run: the verdict says the network was the run's own" empty "$(jq -r .command.network "$S/run.json")"
RUN_FLAGS=(--share-net)
run nobody -- connect-tcp 127.0.0.1 "$PORT" , connect-abstract "$ABS"
check_eq "run --share-net (control): the host's listeners are reached" \
	"connect-tcp 127.0.0.1 $PORT: ok
connect-abstract $ABS: ok" "$RUN_OUT"
check_eq "run --share-net: the verdict says so" host "$(jq -r .command.network "$S/run.json")"
check_contains "run --share-net: said on stderr" "$(cat "$S/run.err")" "neither denied nor recorded"
run nobody "scope abstract-unix-socket" -- connect-abstract "$ABS"
check_eq "run --share-net: connecting to the host's abstract listener is EPERM with the scope" \
	"connect-abstract $ABS: EPERM" "$RUN_OUT"
check_contains "run --share-net: ... and in the verdict (scope.abstract_unix_socket)" "$RUN_DEN" "scope.abstract_unix_socket"
RUN_FLAGS=()
kill "$TCP_LISTENER"; TCP_LISTENER=

# Terminal injection as root: a new session does not stop it (CAP_SYS_ADMIN may TIOCSTI a
# terminal that is not its controlling one, dev.tty.legacy_tiocsti=1); the seccomp filter does,
# on the request's low 32 bits.  Both under script(1), a terminal on fd 0.
tty_run() { script -qec "$1" /dev/null </dev/null | tr -d '\r#'; }
printf 'harkaq-policy 1\nro %s\nrw /dev/tty\n' "$ESC" >"$S/p.tty"
ctl=$(tty_run "setsid -w $(printf '%q ' "$ESC") tiocsti , tiocsti-high")
check_eq "tiocsti as root (control): in a session of its own, not the terminal's, it injects" \
	"tiocsti: ok (isatty(0)=1, open /dev/tty: ENXIO)
tiocsti-high: ok" "$ctl"
got=$(tty_run "$(printf '%q ' "$HARKAQ" run --quiet --policy "$S/p.tty" --verdict-out "$S/tty.json" -- \
	"$ESC" tiocsti , tiocsti-high)")
check_eq "run as root: TIOCSTI is EPERM, upper bits set or not" "tiocsti: EPERM
tiocsti-high: EPERM" "$(sed 's/ (isatty.*//' <<<"$got")"
check_contains "run as root: fd 0 was a terminal" "$got" "isatty(0)=1"
check_seen "run as root, TIOCSTI refused" "$S/tty.json" '.verdict'

# The console: TIOCLINUX (its selection can be pasted into the console's input) and the keymap
# writes (what the user's keys type), on a virtual console as fd 0.  The control writes each
# entry back unchanged; a console without a keyboard answers ENODEV for the keycode table.
VT=/dev/tty1
if [ -c "$VT" ]; then
	VT_OPS=(tioclinux , kbsent , kbent , kbdiacr , kbdiacruc , keycode)
	ctl=$("$ESC" "${VT_OPS[@]}" <"$VT" | sed 's/ (written back unchanged)//')
	check_eq "console ioctls as root (control): the kernel answers each" \
		"tioclinux: ok|kbsent: ok|kbent: ok|kbdiacr: ok|kbdiacruc: ok|keycode: ENODEV" "$(paste -sd'|' <<<"$ctl")"
	RUN_IN=$VT run root -- "${VT_OPS[@]}"
	check_eq "run as root: each is EPERM on the console" \
		"tioclinux: EPERM|kbsent: EPERM|kbent: EPERM|kbdiacr: EPERM|kbdiacruc: EPERM|keycode: EPERM" \
		"$(paste -sd'|' <<<"$RUN_OUT")"
else
	not_ok "console ioctls" "$VT is not a character device: this machine has no virtual console"
fi

# Device nodes beneath an rw surface: not granted (so denied and recorded), even to root; the
# other kinds of node still are.  The control makes the kernel log's device and reads it.
check_contains "mknod as root (control): a character device 1:11 in a directory reads the kernel log" \
	"$("$ESC" mknod-read "$S/host/granted/kmsg" 1 11 , mknod-block "$S/host/granted/loop" 7 0)" \
	"mknod-read $S/host/granted/kmsg 1 11: ok (read "
run root "rw $S/host/granted" -- mknod-read "$S/host/granted/kmsg" 1 11 , \
	mknod-block "$S/host/granted/loop" 7 0 , mkfifo "$S/host/granted/fifo" , read /dev/kmsg
check_eq "run as root: no device node beneath rw; a FIFO is made; /dev/kmsg denied" \
	"mknod-read $S/host/granted/kmsg 1 11: EACCES (mknod)
mknod-block $S/host/granted/loop 7 0: EACCES (mknod)
mkfifo $S/host/granted/fifo: ok
read /dev/kmsg: EACCES" "$RUN_OUT"
check_contains "run as root: the character device in the verdict" "$RUN_DEN" "fs.make_char $S/host/granted"
check_contains "run as root: the block device in the verdict" "$RUN_DEN" "fs.make_block $S/host/granted"
check_contains "run as root: /dev/kmsg in the verdict" "$RUN_DEN" "fs.read_file /dev/kmsg"

# A domain of the command's own, as root: refused; the read it would have hidden is the run's.
mk() { rm -f "$S/host/other/f" "$S/host/granted/f"; echo undeclared >"$S/host/other/f"; chmod 666 "$S/host/other/f"; }
mk
check_eq "nested domain (control): made, it denies the read itself; muting works" \
	"nested-domain $S/host/other/f: ok (abi 7, then read: EACCES)
nested-mute: ok" "$("$ESC" nested-domain "$S/host/other/f" , nested-mute)"
run root -- nested-domain "$S/host/other/f" , nested-mute
check_eq "run as root: landlock_restrict_self refused, the ABI probe answered" \
	"nested-domain $S/host/other/f: EPERM (abi 7, then read: EACCES)
nested-mute: EPERM" "$RUN_OUT"
check_contains "run as root: the read is in the run's verdict" "$RUN_DEN" "fs.read_file $S/host/other/f"

# refer: moving an undeclared file (same filesystem, same mount) into a granted directory.
mk
run nobody "rw $S/host/granted" -- rename "$S/host/other/f" "$S/host/granted/f" , read "$S/host/granted/f"
check_eq "run: rename of an undeclared file into a granted directory is EACCES" \
	"rename $S/host/other/f $S/host/granted/f: EACCES
read $S/host/granted/f: ENOENT" "$RUN_OUT"
check_contains "run: ... and in the verdict (the undeclared side)" "$RUN_DEN" "$S/host/other"
check_contains "run: ... with the refer right among the blockers" "$RUN_DEN" "fs.refer"
mk
run nobody "rw $S/host/granted" "rw $S/host/other" -- rename "$S/host/other/f" "$S/host/granted/f"
check_eq "run (control): with both directories granted the rename works" \
	"rename $S/host/other/f $S/host/granted/f: ok" "$RUN_OUT"

# open_by_handle_at as root: the capability is there, only Landlock stands in the way.
mk
run root -- handle "$S/host/other/f" , read "$S/host/other/f"
check_eq "run as root: open_by_handle_at of an undeclared file is EACCES" \
	"handle $S/host/other/f: EACCES (open_by_handle_at; name_to_handle_at succeeded)
read $S/host/other/f: EACCES" "$RUN_OUT"
check_contains "run as root: ... and in the verdict" "$RUN_DEN" "fs.read_file $S/host/other/f"
run root "ro $S/host/other/f" -- handle "$S/host/other/f"
check_eq "run as root (control): granted, the handle opens" "handle $S/host/other/f: ok" "$RUN_OUT"

# Stated blind spots, measured (docs/verdict.md): a hard link to an undeclared file made
# beforehand beneath an rw surface, and stdin redirected from an undeclared file, read without
# a denial.  The control: the same file by its own path is denied.
mk
ln "$S/host/other/f" "$S/host/granted/hl"
RUN_IN=$S/host/other/f run nobody "rw $S/host/granted" -- read "$S/host/granted/hl" , read-stdin , read "$S/host/other/f"
check_eq "run: blind spots: the earlier hard link and stdin read; the path itself is denied" \
	"read $S/host/granted/hl: ok undeclared
read-stdin: ok undeclared
read $S/host/other/f: EACCES" "$RUN_OUT"
rm -f "$S/host/granted/hl"

# Outrunning the run: chains of processes that fork and exit at once, each a fresh orphan.
# A flock held by every process of the tree tells whether any is left (a /proc scan cannot:
# each lives microseconds).  The control: under a plain parent the chains outlive it.
: >"$S/loop.lock"; chmod 644 "$S/loop.lock"
LOOP=$HELPERS/fork_loop
"$LOOP" "$S/loop.lock" "$S/loop.stop" 100 4 >/dev/null
if flock -n -x "$S/loop.lock" true; then alive=no; else alive=yes; fi
touch "$S/loop.stop"
check_eq "fork loop (control): alive after its parent exited" yes "$alive"
check "fork loop (control): stops when told" flock -w 30 -x "$S/loop.lock" true
rm -f "$S/loop.stop"
printf 'harkaq-policy 1\nro %s\nro %s\n' "$LOOP" "$S/loop.lock" >"$S/p.loop"
left=""
for i in 1 2 3; do
	"$HARKAQ" run --quiet --policy "$S/p.loop" --verdict-out "$S/loop$i.json" -- \
		"$LOOP" "$S/loop.lock" "$S/loop.stop" 200 16 >"$S/loop$i.out" 2>&1
	flock -n -x "$S/loop.lock" true || left+=" run $i"
done
touch "$S/loop.stop"; flock -w 30 -x "$S/loop.lock" true
check_eq "run: nothing of the fork loop outlives harkaq run (3 runs, 16 chains each)" "" "$left"
check_eq "run: the fork loop did run under the cage" "generations>0" \
	"$(sed -n 's/^generations=[1-9][0-9]*$/generations>0/p' "$S/loop1.out")"
check_eq "run: what it left is reported as killed" true "$(jq '.command.leftovers_killed > 0' "$S/loop1.json")"
check_seen "run, fork loop: Hermetic" "$S/loop1.json" '.verdict'
# harkaq itself killed: the run's init dies with it, and the namespace with the init.
rm -f "$S/loop.stop"
"$HARKAQ" run --quiet --policy "$S/p.loop" -- "$LOOP" "$S/loop.lock" "$S/loop.stop" 60000 4 >/dev/null 2>&1 &
HP=$!
for _ in $(seq 100); do flock -n -x "$S/loop.lock" true || break; sleep 0.05; done
if flock -n -x "$S/loop.lock" true; then held=no; else held=yes; fi
kill -KILL "$HP"; wait "$HP" 2>/dev/null
if flock -w 10 -x "$S/loop.lock" true; then gone=yes; else gone=no; fi
touch "$S/loop.stop"; flock -w 30 -x "$S/loop.lock" true
check_eq "run killed with SIGKILL: the loop was running, then nothing of it survives harkaq" \
	"held=yes gone=yes" "held=$held gone=$gone"
# A SIGKILLed run cannot remove its canary directory (hk_canary_create makes it in /var/tmp,
# or the first of /tmp, /dev/shm, /run its policy does not grant): this run's is the one whose
# effective policy names this test's lock.  Counted, then removed.
left=$(grep -lF "$S/loop.lock" /var/tmp/harkaq-canary-*/policy /tmp/harkaq-canary-*/policy \
	/dev/shm/harkaq-canary-*/policy /run/harkaq-canary-*/policy 2>/dev/null)
check_eq "run killed with SIGKILL: it left its one canary directory behind" 1 "$(grep -c . <<<"$left")"
for p in $left; do rm -rf "$(dirname "$p")"; done
check_eq "...which the test removed" "" \
	"$(for p in $left; do [ -e "$(dirname "$p")" ] && echo "$p"; done)"

finish
