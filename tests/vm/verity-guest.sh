#!/bin/bash
# Runs tests/integration/verity.sh inside a QEMU guest booting Debian 12's own kernel
# (linux-image-amd64 from bookworm: CONFIG_FS_VERITY=y), for hosts whose kernel has no fs-verity.
# Built only from Debian packages fetched with apt (docs/sealing.md, "Running it in a guest"):
#
#   - qemu-system-x86, qemu-utils, busybox-static: apt-get install -y, if missing;
#   - the kernel: the package linux-image-amd64 depends on (linux-image-6.1.0-N-amd64), fetched
#     with `apt-get download` and unpacked once into /var/tmp/harkaq-vm-cache/<package>_<version>;
#   - an initrd made per run: busybox-static + the modules needed to mount the host over 9p and
#     to run the test (virtio_pci, 9p, loop, ext4, overlay, crc32c, with their dependencies,
#     ordered from each module's depends=);
#   - the guest mounts the host's / read-only over 9p as its root (its userland is the host's:
#     bash, e2fsprogs, fsverity, build/harkaq), tmpfs on /tmp /var/tmp /run, the repository over
#     9p at its own path, and runs verity.sh as root; the test's TAP goes to a second serial port
#     (kernel messages stay on the first), then the guest powers off.
#
# Prints the guest's TAP lines (ok / not ok / # / 1..N) on stdout; diagnostics on stderr.
# Exit: 0 all passed; 1 a test failed; 2 the guest did not boot, did not finish in time, or a
# prerequisite is missing (the reason on stderr, and on stdout as "# guest: ..." lines).
#
# Environment: HARKAQ_VM_TIMEOUT (seconds for the guest, default 240), HARKAQ_VM_ACCEL (default
# tcg: KVM hangs at boot on the development machine), HARKAQ_VM_CACHE, HARKAQ_VM_KEEP=1 (keep the
# temporary directory and print its path).
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${HARKAQ_VM_CACHE:-/var/tmp/harkaq-vm-cache}
TIMEOUT=${HARKAQ_VM_TIMEOUT:-240}
ACCEL=${HARKAQ_VM_ACCEL:-tcg}
START=$SECONDS

fail() { echo "verity-guest: $*" >&2; echo "# guest: $*"; exit 2; }
log() { echo "verity-guest: $*" >&2; }

[ "$(id -u)" -eq 0 ] || fail "needs root (apt-get, and 9p passthrough of the host's root)"
case "$REPO" in *[[:space:]]*) fail "the repository path must not contain white space: $REPO" ;; esac
[ -x "$REPO/build/harkaq" ] || fail "$REPO/build/harkaq is not built (make)"

# ---- (1) packages ------------------------------------------------------------------------
apt_quiet() { DEBIAN_FRONTEND=noninteractive timeout 900 "$@" >>"$CACHE/apt.log" 2>&1; }
mkdir -p "$CACHE" || fail "cannot create $CACHE"
need=()
for p in qemu-system-x86 qemu-utils busybox-static; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	apt_quiet apt-get install -y --no-install-recommends "${need[@]}" ||
		{ apt_quiet apt-get update && apt_quiet apt-get install -y --no-install-recommends "${need[@]}"; } ||
		fail "apt-get install ${need[*]} failed (see $CACHE/apt.log)"
fi
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || fail "busybox-static is installed but $BUSYBOX is missing"
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 is missing"

# The kernel package linux-image-amd64 currently depends on, and its candidate version.
KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {print $2; exit}')
[ -n "$KPKG" ] || fail "apt-cache knows no linux-image-amd64 (apt-get update?)"
KVER=$(apt-cache policy "$KPKG" | awk '$1 == "Candidate:" {print $2}')
[ -n "$KVER" ] && [ "$KVER" != "(none)" ] || fail "no candidate version for $KPKG"
KREL=${KPKG#linux-image-}                    # 6.1.0-57-amd64: the modules directory
KDIR=$CACHE/${KPKG}_$KVER
if [ ! -f "$KDIR/.complete" ]; then
	log "fetching $KPKG $KVER with apt-get download"
	rm -rf "$KDIR"; mkdir -p "$KDIR/dl" && chown _apt "$KDIR/dl" 2>/dev/null
	(cd "$KDIR/dl" && apt_quiet apt-get download "$KPKG=$KVER") ||
		fail "apt-get download $KPKG=$KVER failed (see $CACHE/apt.log)"
	deb=$(ls "$KDIR"/dl/*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || fail "apt-get download left no .deb"
	dpkg-deb -x "$deb" "$KDIR/x" || fail "cannot unpack $deb"
	[ -f "$KDIR/x/boot/vmlinuz-$KREL" ] && [ -d "$KDIR/x/lib/modules/$KREL/kernel" ] ||
		fail "$deb has no boot/vmlinuz-$KREL or lib/modules/$KREL"
	grep -q '^CONFIG_FS_VERITY=y' "$KDIR/x/boot/config-$KREL" 2>/dev/null ||
		fail "$KPKG $KVER is not built with CONFIG_FS_VERITY=y"
	rm -rf "$KDIR/dl"                          # keep the unpacked tree only
	touch "$KDIR/.complete"
fi
VMLINUZ=$KDIR/x/boot/vmlinuz-$KREL
MODDIR=$KDIR/x/lib/modules/$KREL

# ---- (2) the initrd ------------------------------------------------------------------------
T=$(mktemp -d /tmp/harkaq-vm.XXXXXX) || fail "mktemp failed"
QPID=
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	if [ "${HARKAQ_VM_KEEP:-0}" = 1 ]; then log "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

declare -A MODPATH=() SEEN=()
while IFS= read -r f; do
	n=$(basename "$f" .ko); MODPATH[${n//-/_}]=$f
done < <(find "$MODDIR/kernel" -name '*.ko')
ORDER=()
# add NAME: its dependencies first (depends= of the module's .modinfo), then itself.
add() {
	local n=${1//-/_} d
	[ -n "${SEEN[$n]:-}" ] && return 0
	SEEN[$n]=1
	if [ -z "${MODPATH[$n]:-}" ]; then
		grep -q "/${1}.ko\$\|/${n}.ko\$" "$MODDIR/modules.builtin" 2>/dev/null && return 0
		echo "module $1 is neither in $KPKG nor built in" >&2; return 1
	fi
	for d in $(tr '\0' '\n' <"${MODPATH[$n]}" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add "$d" || return 1
	done
	ORDER+=("$n")
}
for m in virtio_pci virtio_blk 9pnet_virtio 9p loop ext4 overlay crc32c_generic crc32c_intel; do
	add "$m" || fail "cannot assemble the initrd's modules"
done

I=$T/initrd
mkdir -p "$I/bin" "$I/mods"
cp "$BUSYBOX" "$I/bin/busybox"
for n in "${ORDER[@]}"; do cp "${MODPATH[$n]}" "$I/mods/$n.ko"; done
printf '%s\n' "${ORDER[@]}" >"$I/modorder"

# What the guest runs once its root is the host's (via switch_root: harkaq's cage needs a real
# root mount, not the initramfs). TAP to ttyS1; the plan's exit code last.
cat >"$I/guest.sh" <<'EOF'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/shm /dev/pts; mount -t tmpfs tmpfs /dev/shm; mount -t devpts devpts /dev/pts
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mount -t securityfs none /sys/kernel/security 2>/dev/null
REPO=$(sed -n 's/.*harkaq_repo=\([^ ]*\).*/\1/p' /proc/cmdline)
exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null
{
	echo "# guest-kernel: $(uname -r)"
	if [ -e /sys/fs/ext4/features/verity ]; then echo "# guest-verity: yes"; else echo "# guest-verity: no"; fi
	cd "$REPO" && HARKAQ_BUILD=$REPO/build bash tests/integration/verity.sh 2>&1
	echo "GUEST-EXIT=$?"
} >&3
sync
echo o >/proc/sysrq-trigger
sleep 60
EOF
chmod 755 "$I/guest.sh"
cat >"$I/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /modorder); do insmod /mods/$m.ko || echo "insmod $m failed"; done
die() { echo "GUEST-INIT-FAILED: $*" >/dev/ttyS1; echo "GUEST-INIT-FAILED: $*"; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /newroot || die "9p mount of the host root failed"
for d in tmp var/tmp run; do mount -t tmpfs -o mode=1777 tmpfs /newroot/$d || die "tmpfs on /$d"; done
REPO=$(sed -n 's/.*harkaq_repo=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p /newroot$REPO 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose repo /newroot$REPO || die "9p mount of the repository failed"
cp /guest.sh /newroot/run/harkaq-guest.sh || die "cannot copy guest.sh"
umount /proc /sys /dev
exec switch_root /newroot /bin/bash /run/harkaq-guest.sh
EOF
chmod 755 "$I/init"
(cd "$I" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1 >"$T/initrd.gz") ||
	fail "cannot make the initrd"

# ---- (3) boot ------------------------------------------------------------------------------
log "booting $KPKG $KVER ($ACCEL, timeout ${TIMEOUT}s; modules: ${ORDER[*]})"
: >"$T/console.log"; : >"$T/tap.log"
timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 -accel "$ACCEL" -cpu max -m 4096 -smp 2 \
	-display none -monitor none -no-reboot -nodefaults \
	-serial "file:$T/console.log" -serial "file:$T/tap.log" \
	-kernel "$VMLINUZ" -initrd "$T/initrd.gz" \
	-append "console=ttyS0 loglevel=4 panic=-1 sysrq_always_enabled=1 harkaq_repo=$REPO" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap \
	-virtfs "local,path=$REPO,mount_tag=repo,security_model=passthrough,readonly=on,multidevs=remap" \
	>"$T/qemu.out" 2>&1 &
QPID=$!
wait "$QPID"; qrc=$?; QPID=

# ---- (4) report ----------------------------------------------------------------------------
tr -d '\r' <"$T/tap.log" >"$T/tap"
guest_tail() { echo "--- guest console (last 20 lines) ---" >&2; tail -n 20 "$T/console.log" | tr -d '\r' >&2; }
if grep -q '^GUEST-INIT-FAILED' "$T/tap"; then
	guest_tail; fail "guest init failed: $(sed -n 's/^GUEST-INIT-FAILED: //p' "$T/tap" | head -1)"
fi
grep -E '^(ok|not ok) [0-9]+|^#|^1\.\.[0-9]+' "$T/tap"
exitline=$(grep -a '^GUEST-EXIT=' "$T/tap" | tail -1)
if [ -z "$exitline" ]; then
	guest_tail; sed 's/^/qemu: /' "$T/qemu.out" >&2
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		fail "the guest did not finish within ${TIMEOUT}s"
	fi
	fail "the guest did not run the test to its end (qemu exit $qrc)"
fi
grep -q '^# guest-verity: yes' "$T/tap" || fail "the guest kernel has no fs-verity for ext4"
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T/tap" | tail -1)
n=$(grep -cE '^(ok|not ok) [0-9]+' "$T/tap")
nf=$(grep -cE '^not ok [0-9]+' "$T/tap")
log "guest finished in $((SECONDS - START)) s: $n tests, $nf failed, ${exitline}"
[ -n "$plan" ] && [ "$plan" -eq "$n" ] || fail "the guest's TAP plan (${plan:-none}) does not match the $n tests it ran"
[ "$nf" -eq 0 ] && [ "$exitline" = GUEST-EXIT=0 ] || exit 1
exit 0
