# Shared helpers for integration tests (sourced).  Each test prints TAP lines.
#   ok "name"  /  not_ok "name" "why"  /  check "name" CMD...  /  skip "name" "reason"
#   check_eq "name" EXPECTED ACTUAL   /  check_contains "name" HAYSTACK NEEDLE
set -u
HK_TAP_N=0
HK_TAP_FAILED=0
B=${HARKAQ_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
HARKAQ=$B/harkaq
HARKAQ_EXEC=$B/harkaq-exec
HARKAQ_AUDIT=$B/harkaq-audit
HELPERS=$B/tests/helpers

ok() { HK_TAP_N=$((HK_TAP_N + 1)); echo "ok $HK_TAP_N - $1"; }
not_ok() {
	HK_TAP_N=$((HK_TAP_N + 1)); HK_TAP_FAILED=$((HK_TAP_FAILED + 1))
	echo "not ok $HK_TAP_N - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/#   /'
	return 0
}
skip() { HK_TAP_N=$((HK_TAP_N + 1)); echo "ok $HK_TAP_N - $1 # SKIP $2"; }
check() { local name=$1; shift; local out; if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "command failed: $* -> $out"; fi; }
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2
got:      $3"; fi
}
check_contains() {
	case "$2" in *"$3"*) ok "$1" ;; *) not_ok "$1" "expected to find: $3
in: $2" ;; esac
}
check_not_contains() {
	case "$2" in *"$3"*) not_ok "$1" "did not expect: $3
in: $2" ;; *) ok "$1" ;; esac
}
finish() { echo "1..$HK_TAP_N"; [ "$HK_TAP_FAILED" -eq 0 ]; }

# A scratch directory readable by the unprivileged build user (DAC must not be what blocks:
# what DAC blocks is invisible to Landlock, and a negative test would prove nothing).
hk_scratch() {
	local d
	d=$(mktemp -d /var/tmp/harkaq-it.XXXXXX)
	chmod 755 "$d"
	echo "$d"
}

# hk_private_bin: harkaq and its helpers copied into a directory of their own under /tmp, for
# a test that mounts another /var/tmp over the machine's: the tree, so build/, may live under
# /var/tmp, and would be hidden with it.  Prints the directory (the caller removes it); harkaq
# finds its helpers beside it there, as in build/.
hk_private_bin() {
	local d
	d=$(mktemp -d /tmp/harkaq-it-bin.XXXXXX) || return 1
	chmod 755 "$d" && cp "$HARKAQ" "$HARKAQ_EXEC" "$HARKAQ_AUDIT" "$d/" && echo "$d"
}

# check_seen NAME FILE [JQ]: the positive control for a Hermetic verdict (a broken reader and a
# hermetic build both show no denial): every Hermetic verdict selected by JQ (default: the
# phases of a build result) saw its canary, and the kernel's denial count arrived and equals
# the records received.  At least one Hermetic verdict must be selected.
check_seen() {
	local sel=${3:-'.phases[].verdict'} got
	got=$(jq -r "[$sel | select(. != null and .state == \"Hermetic\") |
		(.canary.seen == true and .kernel.denials != null and .kernel.denials == .kernel.records_received)]
		| if length == 0 then \"no Hermetic verdict\" else (all | tostring) end" "$2" 2>&1)
	check_eq "$1 (control: canary seen, kernel denials == records received)" true "$got"
}

# ---- Kernel features, probed (docs/kernel-facts.md §13) ------------------------------------
# Each hk_probe_* uses the feature for real, in a child that leaves nothing behind, and returns
# 0 when it works; otherwise 1, with HK_PROBE_WHY saying what this kernel lacks (a skip's
# reason).  None infers from uname.  tests/integration/kprobes.sh shows each one saying
# "absent" where the feature is taken away, and "present" beside it.
HK_PROBE_WHY=
KFEATURE=$HELPERS/kfeature

# hk_probe_userns [USER]: USER (default: the caller, as it is) creates the namespaces
# bubblewrap's --unshare-all asks for and mounts a tmpfs in them, as bubblewrap does.
hk_probe_userns() {
	local user=${1:-} out cmd
	cmd=(unshare --user --map-root-user --mount --pid --fork --net --ipc --uts -- mount -t tmpfs tmpfs /tmp)
	if [ -n "$user" ]; then
		id -u "$user" >/dev/null 2>&1 || { HK_PROBE_WHY="there is no user $user"; return 1; }
		cmd=(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups -- "${cmd[@]}")
	fi
	out=$("${cmd[@]}" 2>&1) && return 0
	HK_PROBE_WHY="this kernel does not let ${user:-this user} create the namespaces bubblewrap needs (${out//$'\n'/ }; see /proc/sys/user/max_user_namespaces, kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns)"
	return 1
}

# hk_probe_runns: root puts a command in new pid and network namespaces, as harkaq run does.
hk_probe_runns() {
	local out
	out=$(unshare --pid --fork --net -- true 2>&1) && return 0
	HK_PROBE_WHY="this kernel gives no pid or network namespace to root (${out//$'\n'/ })"
	return 1
}

# hk_probe_overlay: root mounts a read-only overlay of two lower directories in a mount
# namespace of its own, as harkaq mounts a merged view.
hk_probe_overlay() {
	local d out rc
	d=$(mktemp -d /tmp/harkaq-probe.XXXXXX) || { HK_PROBE_WHY="mktemp failed"; return 1; }
	mkdir "$d/lo1" "$d/lo2" "$d/m"
	out=$(unshare --mount -- mount -t overlay overlay -o "ro,lowerdir=$d/lo1:$d/lo2" "$d/m" 2>&1); rc=$?
	rm -rf "$d"
	[ "$rc" -eq 0 ] && return 0
	HK_PROBE_WHY="this kernel has no overlayfs (${out//$'\n'/ })"
	return 1
}

# hk_probe_loop: a loop device can be attached to a file (and is detached at once).
hk_probe_loop() {
	local f out
	f=$(mktemp /tmp/harkaq-probe.XXXXXX) || { HK_PROBE_WHY="mktemp failed"; return 1; }
	truncate -s 1M "$f"
	if out=$(losetup --find --show "$f" 2>&1); then
		losetup -d "$out"; rm -f "$f"; return 0
	fi
	rm -f "$f"
	HK_PROBE_WHY="this machine cannot attach a loop device (${out//$'\n'/ })"
	return 1
}

# hk_probe_fanotify PATH: harkaq's fanotify_init and a filesystem mark on PATH's filesystem.
hk_probe_fanotify() {
	local out
	out=$("$KFEATURE" probe fanotify "$1" 2>&1) && return 0
	HK_PROBE_WHY="this kernel has no fanotify filesystem marks: ${out#absent: }"
	return 1
}

# hk_probe_seccomp: a seccomp filter can be installed (in a child).
hk_probe_seccomp() {
	local out
	out=$("$KFEATURE" probe seccomp 2>&1) && return 0
	HK_PROBE_WHY="this kernel has no seccomp filters: ${out#absent: }"
	return 1
}

# hk_require_runs: what every `harkaq run` needs (its namespaces, seccomp for the cage).
hk_require_runs() {
	if hk_probe_runns && hk_probe_seccomp; then return 0; fi
	skip "$(basename "$0" .sh): every test here runs harkaq run" "$HK_PROBE_WHY"
	finish
	exit 0
}

# hk_require_builds: what every `harkaq build` needs (the build user's namespaces, overlayfs,
# seccomp for the cage); when one is missing, the whole suite is one stated skip.
hk_require_builds() {
	if hk_probe_userns nobody && hk_probe_overlay && hk_probe_seccomp; then return 0; fi
	skip "$(basename "$0" .sh): every test here runs harkaq build" "$HK_PROBE_WHY"
	finish
	exit 0
}
