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

S=$(hk_scratch)
LISTENER=; VICTIM=
cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	[ -n "$VICTIM" ] && kill "$VICTIM" 2>/dev/null
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
# the phase has a new session: the terminal on fd 0 is not its controlling terminal.
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
check_eq "nothing written outside: the store still has one artifact" 1 \
	"$("$HARKAQ" store --store "$S/store" list | grep -c .)"

# ---- under `harkaq run` on the host: what needs a host counterpart ----

mkdir -m 755 "$S/host" "$S/host/granted" "$S/host/other"
chmod 777 "$S/host/granted" "$S/host/other"
run() { # WHO POLICY-LINES... -- ATTEMPT ARGS
	local who=$1; shift
	local pol=$S/p.$RANDOM; { echo "harkaq-policy 1"; echo "ro $ESC"
		while [ "$1" != -- ]; do echo "$1"; shift; done; } >"$pol"; shift
	local u=(); [ "$who" = nobody ] && u=(--user nobody)
	RUN_OUT=$("$HARKAQ" run --quiet --policy "$pol" "${u[@]}" --verdict-out "$S/run.json" -- \
		"$ESC" "$@" 2>"$S/run.err")
	RUN_RC=$?
	RUN_DEN=$(jq -r '.verdict.denials[] | "\(.blockers) \(.path // ("process " + (.ocomm // "?")))"' \
		"$S/run.json" 2>&1)
}

run nobody "scope signal" "scope abstract-unix-socket" -- kill "$VICTIM" 0 , connect-abstract "$ABS"
check_eq "run: a signal to a host process outside the domain is EPERM" "kill $VICTIM 0: EPERM (pid $VICTIM)" \
	"$(grep '^kill' <<<"$RUN_OUT")"
check_contains "run: ... and in the verdict (scope.signal, the target named)" "$RUN_DEN" "scope.signal process sleep"
check_eq "run: connecting to the host's abstract listener is EPERM" "connect-abstract $ABS: EPERM" \
	"$(grep '^connect' <<<"$RUN_OUT")"
check_contains "run: ... and in the verdict (scope.abstract_unix_socket)" "$RUN_DEN" "scope.abstract_unix_socket"
check_eq "run: Impure (exit 1)" 1 "$RUN_RC"
run nobody -- kill "$VICTIM" 0 , connect-abstract "$ABS"
check_eq "run (control): without the scopes both reach the host" \
	"kill $VICTIM 0: ok (pid $VICTIM)
connect-abstract $ABS: ok" "$RUN_OUT"

# refer: moving an undeclared file (same filesystem, same mount) into a granted directory.
mk() { rm -f "$S/host/other/f" "$S/host/granted/f"; echo undeclared >"$S/host/other/f"; chmod 666 "$S/host/other/f"; }
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

finish
