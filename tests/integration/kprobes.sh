#!/bin/bash
# The kernel-feature probes of lib.sh (docs/kernel-facts.md §13) can say "absent": each is run
# where the feature is taken away and must report it with a reason naming what is missing, and
# beside it, in the same run, where nothing is taken away and must report it present (this
# project's machines have every feature, so a probe that said "absent" here would skip a test
# that can run).  Taken away for real where the kernel allows it: a nested user namespace whose
# max_user_namespaces is 0, a /dev without loop devices; otherwise by tests/helpers/kfeature's
# seccomp filters, which answer with the errno a kernel without the feature gives.  And the
# product: a build or a run on such a "kernel" is refused before anything starts, with one
# sentence saying what the kernel lacks (exit 70), where the same build or run outside passes.
. "$(dirname "$0")/lib.sh"
LIB=$(cd "$(dirname "$0")" && pwd)/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip "kernel-feature probes" "needs root (mounts, loop devices, the build user)"
	finish; exit 0
fi
[ -x "$KFEATURE" ] || { not_ok "tests/helpers/kfeature is built" "missing $KFEATURE (run make)"; finish; exit 1; }

# probe_in PREFIX... -- PROBE [ARGS]: runs a probe of lib.sh under PREFIX (a command that
# restricts what it runs); prints "present" or "absent: WHY".
probe_in() {
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	"${pre[@]}" bash -c '. "$1"; shift; if "$@"; then echo present; else echo "absent: $HK_PROBE_WHY"; fi' \
		probe "$LIB" "$@" 2>&1
}
# both NAME PREFIX... -- PROBE...: present with nothing taken away; absent under PREFIX.
both() {
	local name=$1; shift
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	check_eq "$name: present here (control)" present "$(probe_in env -- "$@")"
	ABSENT=$(probe_in "${pre[@]}" -- "$@")
	check_contains "$name: absent where taken away" "$ABSENT" "absent: "
}

ORIG_MAXNS=$(cat /proc/sys/user/max_user_namespaces)

# ---- user namespaces, for real: max_user_namespaces 0 in a nested user namespace ------------
# The limit is per user namespace (kernel/ucount.c) and its owner may lower it: inside a
# namespace of its own, root sets it to 0, and no namespace can be made beneath.  The machine's
# own limit is not touched.
out=$(unshare --user --map-root-user bash -c '. "$1"; hk_probe_userns && echo present || echo "absent: $HK_PROBE_WHY"' p "$LIB" 2>&1)
check_eq "userns in a nested namespace with the default limit: present (control)" present "$out"
out=$(unshare --user --map-root-user bash -c 'echo 0 >/proc/sys/user/max_user_namespaces || exit 9
	. "$1"; hk_probe_userns && echo present || echo "absent: $HK_PROBE_WHY"' p "$LIB" 2>&1)
check_contains "userns with max_user_namespaces 0: absent" "$out" "absent: this kernel does not let this user create the namespaces bubblewrap needs"
check_contains "...the kernel's ENOSPC named" "$out" "No space left on device"
check_contains "...and where to look" "$out" "/proc/sys/user/max_user_namespaces"
check_eq "the machine's own limit is untouched" "$ORIG_MAXNS" "$(cat /proc/sys/user/max_user_namespaces)"

# ---- each probe, taken away by a filter ------------------------------------------------------
both "userns for the build user nobody" "$KFEATURE" without userns -- hk_probe_userns nobody
check_contains "...the reason names the user and the EPERM" "$ABSENT" "does not let nobody create the namespaces bubblewrap needs (unshare: unshare failed: Operation not permitted"
both "pid and network namespaces for root" "$KFEATURE" without netpid -- hk_probe_runns
check_contains "...the reason names the EINVAL" "$ABSENT" "absent: this kernel gives no pid or network namespace to root (unshare: unshare failed: Invalid argument)"
both "overlayfs" "$KFEATURE" without overlay -- hk_probe_overlay
check_contains "...the reason is the unknown filesystem type" "$ABSENT" "absent: this kernel has no overlayfs (mount: "
check_contains "..." "$ABSENT" "unknown filesystem type 'overlay'"
both "fanotify" "$KFEATURE" without fanotify -- hk_probe_fanotify /
check_eq "...the reason names the call and the ENOSYS" \
	"absent: this kernel has no fanotify filesystem marks: fanotify_init (Function not implemented)" "$ABSENT"
both "seccomp filters" "$KFEATURE" without seccomp -- hk_probe_seccomp
check_eq "...the reason names the call and the EINVAL" \
	"absent: this kernel has no seccomp filters: seccomp(SECCOMP_SET_MODE_FILTER) (Invalid argument)" "$ABSENT"
# Loop devices, for real: a mount namespace whose /dev is an empty tmpfs, as in a container
# given no loop devices.
both "loop devices" unshare --mount bash -c 'mount -t tmpfs tmpfs /dev && exec "$@"' dev -- hk_probe_loop
check_contains "...the reason is losetup's" "$ABSENT" "absent: this machine cannot attach a loop device (losetup: "

# ---- the product refuses, before anything starts, saying what is missing ---------------------
S=$(hk_scratch)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S/r/src" "$S/dep/usr/share/kprobe"
echo x >"$S/r/src/README"; echo y >"$S/dep/usr/share/kprobe/f"
cat >"$S/r/recipe.toml" <<'TOML'
name = "kprobe"
version = "1"
base = "host"

[source]
dir = "src"

[deps]
build = ["kprobe-dep"]

[phases]
compile = "/usr/bin/cat /usr/share/kprobe/f"
TOML
"$HARKAQ" store --store "$S/store" add "$S/dep" --name kprobe-dep --version 1 >/dev/null ||
	not_ok "a store with the dep"
build() { "$@" "$HARKAQ" build --quiet --store "$S/store" "$S/r/recipe.toml" 2>&1; }
out=$(build env); rc=$?
check_eq "a build with a merged view (control): exit 0" "0" "$rc"
out=$(build "$KFEATURE" without userns); rc=$?
check_eq "a build where the build user has no user namespace: exit 70" 70 "$rc"
check_eq "...one sentence naming the user, the namespaces, the errno and the setting" \
	"harkaq build: bubblewrap cannot make the build's sandbox here: the build user (uid $(id -u nobody)) cannot create the user, mount, pid, network, ipc and uts namespaces it needs: Operation not permitted (unprivileged user namespaces are turned off (sysctl kernel.unprivileged_userns_clone=0), or a security module or a seccomp filter forbids them); no build can run until it can" \
	"$out"
check_not_contains "...before bubblewrap ran" "$out" "bwrap"
out=$(build "$KFEATURE" without overlay); rc=$?
check_eq "a build on a kernel without overlayfs: exit 70" 70 "$rc"
check_contains "...saying the merged view needs overlayfs" "$out" "this kernel has no overlayfs: CONFIG_OVERLAY_FS): No such device"
work=$(grep -o '/var/tmp/harkaq-build-[0-9a-f]*' <<<"$out" | head -1)
check_contains "...naming the work directory's layers" "$work" /var/tmp/harkaq-build-
check "...which is gone" test ! -e "$work"
printf 'harkaq-policy 1\n' >"$S/policy"
out=$("$HARKAQ" run --quiet --policy "$S/policy" -- /bin/true 2>&1); rc=$?
check_eq "harkaq run (control): exit 0" 0 "$rc"
out=$("$KFEATURE" without netpid "$HARKAQ" run --quiet --policy "$S/policy" -- /bin/true 2>&1); rc=$?
check_eq "harkaq run on a kernel without pid or network namespaces: exit 70" 70 "$rc"
check_eq "...saying so, not asking for root" \
	"harkaq run: cannot put the command in its own pid and network namespaces: this kernel was built without one of them (CONFIG_PID_NS, CONFIG_NET_NS): Invalid argument" "$out"
finish
