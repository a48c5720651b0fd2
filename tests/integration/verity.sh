#!/bin/bash
# Sealed artifacts (design.md §12, docs/sealing.md), on filesystems this test makes itself:
#   - an ext4 image with -O verity: `store seal` enables fs-verity and records the digests;
#     a sealed file cannot be written even by root (EPERM, even after chmod u+w); bytes changed
#     under the filesystem (dd onto the loop device) make reading fail with EIO, and `store
#     verify` and `harkaq build` refuse the artifact; a sealed file replaced by an unsealed
#     copy with the same bytes is caught by the seal, not by BLAKE3; verdicts say deps_sealed;
#   - tmpfs and an ext4 image without verity: `seal` says the filesystem cannot seal, exits
#     non-zero and records nothing; tampering underneath an unsealed artifact is caught by
#     `store verify` (and refused by `harkaq build`) through its BLAKE3 hash.
# The fs-verity half needs a kernel with CONFIG_FS_VERITY (Debian's has it); on a kernel
# without it those tests are skipped with that reason and every other test still runs.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "fs-verity sealing" "needs root (loop devices, mount)"
	finish
	exit 0
fi
for tool in mkfs.ext4 debugfs losetup lsattr; do
	command -v "$tool" >/dev/null || { not_ok "$tool is installed (e2fsprogs, util-linux)"; finish; exit 1; }
done

S=$(hk_scratch)
LOOPS=()
MOUNTS=()
cleanup() {
	local m l
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$S"
}
trap cleanup EXIT

PAGE=$(getconf PAGESIZE)
# mkimg NAME MKFS-OPTIONS… : a 64 MiB ext4 image, loop device in $LOOP, mounted on $S/NAME.
mkimg() {
	local name=$1; shift
	truncate -s 64M "$S/$name.img"
	mkfs.ext4 -q "$@" "$S/$name.img" || return 1
	LOOP=$(losetup --find --show "$S/$name.img") || return 1
	LOOPS+=("$LOOP")
	mkdir -p "$S/$name"
	mount "$LOOP" "$S/$name" || return 1
	MOUNTS+=("$S/$name")
	chmod 755 "$S/$name"
}
# tamper LOOP MNT PATH-IN-FS : replaces the first byte of the file's first block on the block
# device, with the filesystem unmounted (nothing cached above the device), then remounts.
tamper() {
	local loop=$1 mnt=$2 path=$3 blk
	umount "$mnt" || return 1
	blk=$(debugfs -R "bmap $path 0" "$loop" 2>/dev/null | tr -dc 0-9)
	[ -n "$blk" ] && [ "$blk" -gt 0 ] || { echo "no block for $path" >&2; mount "$loop" "$mnt"; return 1; }
	printf 'X' | dd of="$loop" bs=1 seek=$((blk * 4096)) conv=notrunc status=none || return 1
	sync
	mount "$loop" "$mnt"
}

# The artifact: a tree of several blocks (seq output, deterministic), a small executable and a
# symlink (symlinks have no fs-verity and are not sealed).
TREE=$S/tree
mkdir -p "$TREE/usr/share/hkdata" "$TREE/usr/bin"
seq 1 30000 >"$TREE/usr/share/hkdata/blob"
printf '#!/bin/sh\necho hkdata\n' >"$TREE/usr/bin/hkdata"
chmod 755 "$TREE/usr/bin/hkdata"
ln -s hkdata "$TREE/usr/bin/hkdata-link"
BLOB=usr/share/hkdata/blob

# A recipe that reads the dep (deps resolve in the store given with --store).
R=$S/recipe
mkdir -p "$R/src"
echo placeholder >"$R/src/README"
# base = "host": the suite also runs inside a QEMU guest (verity_guest.sh), whose own root is
# the base; what is tested is the seal of the dep.
cat >"$R/recipe.toml" <<'EOF'
name = "hkcopy"
version = "1"
base = "host"

[source]
dir = "src"

[deps]
build = ["hkdata"]

[phases]
compile = "/usr/bin/head -c 100 /usr/share/hkdata/blob > head.txt"
install = ["/usr/bin/mkdir -p /out/usr/share/hkcopy", "/usr/bin/cp head.txt /out/usr/share/hkcopy/"]
EOF

add_to() { "$HARKAQ" store --store "$1" add "$TREE" --name hkdata --version 1; }
dir_of() { awk '{print $2}' <<<"$1" | sed 's/^b3://; s/$/-hkdata/'; }

UNSUPPORTED="does not support fs-verity (ext4: mkfs -O verity, block size = page size)"

# ---- a filesystem that cannot seal: tmpfs ---------------------------------------------------
mkdir -p "$S/tmpfs"
mount -t tmpfs -o mode=755 tmpfs "$S/tmpfs" && MOUNTS+=("$S/tmpfs")
T=$S/tmpfs/store
add_to "$T" >/dev/null
out=$("$HARKAQ" store --store "$T" seal 2>&1); rc=$?
check_eq "seal on tmpfs exits 70" 70 "$rc"
check_contains "seal on tmpfs says the filesystem cannot seal" "$out" \
	"harkaq store: the filesystem of $T $UNSUPPORTED"
check_eq "seal on tmpfs records nothing" "" "$(ls "$T/.meta" | grep -v '\.json$\|\.files$')"
check_eq "seal on tmpfs leaves no probe file" "" "$(ls -A "$T" | grep tmp)"
out=$("$HARKAQ" store --store "$T" verify 2>&1)
check_contains "the tmpfs artifact still verifies, as unsealed" "$out" "ok b3:"
check_not_contains "…and is not called sealed" "$out" "sealed"

# ---- ext4 without verity: cannot seal; BLAKE3 catches tampering underneath ------------------
# Both ext4 halves stand on loop devices, which a container may not have.
if ! hk_probe_loop; then
	skip "ext4 images (without and with -O verity)" "$HK_PROBE_WHY"
	finish
	exit $?
fi
mkimg plain -b 4096 || { not_ok "ext4 image without verity" "mkfs/losetup/mount failed"; finish; exit 1; }
PLOOP=$LOOP
P=$S/plain/store
out=$(add_to "$P"); PDIR=$(dir_of "$out")
out=$("$HARKAQ" store --store "$P" seal hkdata 2>&1); rc=$?
check_eq "seal on ext4 without -O verity exits 70" 70 "$rc"
check_contains "…saying the filesystem cannot seal" "$out" "the filesystem of $P $UNSUPPORTED"
check_eq "…and records nothing" "" "$(ls "$P/.meta" | grep -v '\.json$\|\.files$')"

out=$("$HARKAQ" store --store "$P" verify 2>&1); rc=$?
check_eq "positive control: the intact unsealed artifact verifies" 0 "$rc"
out=$("$HARKAQ" build --store "$P" --no-cage --quiet "$R/recipe.toml" 2>&1); rc=$?
check_eq "positive control: a build using the intact dep runs (--no-cage)" 0 "$rc"
if tamper "$PLOOP" "$S/plain" "/store/$PDIR/$BLOB"; then
	check_eq "the bytes changed underneath are visible (no seal to refuse them)" \
		"X" "$(head -c 1 "$P/$PDIR/$BLOB")"
	out=$("$HARKAQ" store --store "$P" verify 2>&1); rc=$?
	check_eq "verify of the tampered unsealed artifact exits 65" 65 "$rc"
	check_contains "…naming the file and the BLAKE3 difference" "$out" \
		"artifact hkdata b3:${PDIR%-hkdata} was altered: /$BLOB: content differs"
	# A warm build trusts the filesystem's metadata (docs/bases.md): bytes changed beneath
	# the filesystem leave every stat unchanged, so the full check is asked for.
	out=$("$HARKAQ" build --store "$P" --no-cage --verify-full "$R/recipe.toml" 2>&1); rc=$?
	check_eq "build --verify-full with the tampered unsealed dep exits 65" 65 "$rc"
	check_contains "…refusing it, naming the dep and the file" "$out" \
		"refusing to build $R/recipe.toml: dep $PDIR does not verify: artifact hkdata"
	check_contains "…the file" "$out" "/$BLOB: content differs"
	check_not_contains "…before any sandbox started" "$out" "running"
else
	not_ok "tampering under the unsealed store" "debugfs/dd/mount failed"
fi

# ---- ext4 with verity ------------------------------------------------------------------------
if [ ! -e /sys/fs/ext4/features/verity ]; then
	out=$("$HARKAQ" build --store "$S/tmpfs/store" --quiet --result-out "$S/none.json" \
		"$R/recipe.toml" 2>&1)
	check_contains "a caged build with unsealed deps records deps_sealed none" \
		"$(cat "$S/none.json" 2>/dev/null)" '"deps_sealed":"none"'
	skip "fs-verity sealing on ext4 -O verity" \
		"this kernel has no fs-verity (built without CONFIG_FS_VERITY: /sys/fs/ext4/features/verity is absent)"
	finish
	exit $?
fi

mkimg sealed -O verity -b "$PAGE" || { not_ok "ext4 image with -O verity" "mkfs/losetup/mount failed"; finish; exit 1; }
VLOOP=$LOOP
V=$S/sealed/store
out=$(add_to "$V"); VDIR=$(dir_of "$out"); VID=$(awk '{print $2}' <<<"$out")
check_contains "lsattr: no verity flag before sealing (control)" "$(lsattr "$V/$VDIR/$BLOB")" "$BLOB"
check_not_contains "…" "$(lsattr "$V/$VDIR/$BLOB" | awk '{print $1}')" "V"

out=$("$HARKAQ" build --store "$V" --quiet --result-out "$S/unsealed.json" "$R/recipe.toml" 2>&1)
check_contains "a caged build with the unsealed dep records deps_sealed none" \
	"$(cat "$S/unsealed.json" 2>/dev/null)" '"deps_sealed":"none"'

out=$("$HARKAQ" store --store "$V" seal 2>&1); rc=$?
check_eq "seal on ext4 -O verity exits 0" 0 "$rc"
check_contains "…and says so" "$out" "sealed $VID hkdata 1"
check_contains "lsattr: the file has the verity flag (FS_VERITY_FL)" \
	"$(lsattr "$V/$VDIR/$BLOB" | awk '{print $1}')" "V"
REC=$V/.meta/$VDIR.verity
check "the seal record exists" test -f "$REC"
check_contains "the seal record itself has fs-verity" "$(lsattr "$REC" | awk '{print $1}')" "V"
check_eq "the seal record lists the two regular files (not the symlink)" 2 "$(grep -c '^sha256:' "$REC")"
check_eq "sealing does not change the id" "$VID" "$("$HARKAQ" store --store "$V" list | awk '$2 == "hkdata" {print $1}')"
if command -v fsverity >/dev/null; then
	check_eq "the recorded digest is the one fsverity(1) measures" \
		"$(fsverity measure "$V/$VDIR/$BLOB" | awk '{print $1}')" \
		"$(grep " $BLOB\$" "$REC" | awk '{print $1}')"
else
	skip "cross-check with fsverity(1)" "the fsverity package is not installed"
fi
out=$("$HARKAQ" store --store "$V" verify 2>&1); rc=$?
check_eq "verify of the sealed artifact exits 0" 0 "$rc"
check_contains "…with its digests matching" "$out" "ok $VID hkdata 1 (sealed: fs-verity digests match)"

# Writing: refused even to root, whatever the mode; a file beside it, unsealed, is writable.
F=$V/$VDIR/$BLOB
chmod u+w "$F"
err=$( { printf 'x' >>"$F"; } 2>&1 ); rc=$?
check_eq "appending to a sealed file as root fails" 1 "$rc"
check_contains "…with EPERM" "$err" "Operation not permitted"
err=$(dd if=/dev/zero of="$F" bs=1 count=1 conv=notrunc status=none 2>&1); rc=$?
check_contains "open(O_WRONLY) of a sealed file as root: EPERM" "$err" "Operation not permitted"
chmod 444 "$F"
echo unsealed >"$S/sealed/control"; chmod 444 "$S/sealed/control"
err=$( { printf 'x' >>"$S/sealed/control"; } 2>&1 ); rc=$?
check_eq "positive control: root appends to an unsealed 0444 file on the same filesystem" 0 "$rc"

out=$("$HARKAQ" build --store "$V" --quiet --result-out "$S/sealed.json" "$R/recipe.toml" 2>&1); rc=$?
J=$(cat "$S/sealed.json" 2>/dev/null)
check_contains "a caged build with the sealed dep records deps_sealed all (build result)" "$J" '"deps_sealed":"all"'
check_contains "…and in its verdicts" "$J" '"phase":"compile","deps_sealed":"all"'

# Replaced by an unsealed copy with the same bytes: BLAKE3 cannot tell, the seal does.
cp "$V/$VDIR/usr/bin/hkdata" "$S/hk.copy"
rm -f "$V/$VDIR/usr/bin/hkdata"
cp "$S/hk.copy" "$V/$VDIR/usr/bin/hkdata"; chmod 555 "$V/$VDIR/usr/bin/hkdata"
out=$("$HARKAQ" store --store "$V" verify 2>&1); rc=$?
check_eq "verify of a sealed artifact with a file replaced (same bytes) exits 65" 65 "$rc"
check_contains "…naming the file that lost its seal" "$out" \
	"artifact hkdata $VID was altered: /usr/bin/hkdata lost its fs-verity seal"
# Seal again (re-measures): the artifact verifies again, the control for the next test.
"$HARKAQ" store --store "$V" seal hkdata >/dev/null 2>&1
out=$("$HARKAQ" store --store "$V" verify 2>&1); rc=$?
check_eq "resealed, it verifies again" 0 "$rc"

# Bytes changed under the filesystem: the kernel refuses to read them.
check_eq "positive control: the sealed file reads before tampering" "1" "$(head -n 1 "$F")"
# A build now checks the resealed dep in full and records its stat cache: the next build is
# warm (nothing about the files changes when bytes change beneath the filesystem).
out=$("$HARKAQ" build --store "$V" --no-cage "$R/recipe.toml" 2>&1); rc=$?
check_eq "positive control: the resealed dep builds (0)" 0 "$rc"
if tamper "$VLOOP" "$S/sealed" "/store/$VDIR/$BLOB"; then
	err=$(cat "$F" 2>&1 >/dev/null); rc=$?
	check_eq "reading the tampered sealed file fails" 1 "$rc"
	check_contains "…with EIO" "$err" "Input/output error"
	out=$("$HARKAQ" store --store "$V" verify 2>&1); rc=$?
	check_eq "verify of the sealed artifact tampered underneath exits 65" 65 "$rc"
	check_contains "…saying fs-verity refused it, naming the file" "$out" \
		"artifact hkdata $VID was altered under the filesystem (fs-verity refused to read it): cannot verify artifact hkdata $VID: cannot read $F"
	# Warm, the build does not re-read the dep before it starts; fs-verity still refuses the
	# changed bytes to the phase that reads them.
	out=$("$HARKAQ" build --store "$V" --no-cage "$R/recipe.toml" 2>&1); rc=$?
	check_eq "a warm build of the tampered sealed dep: the phase reading it fails (3)" 3 "$rc"
	check_contains "…on fs-verity's EIO" "$out" "Input/output error"
	out=$("$HARKAQ" build --store "$V" --no-cage --verify-full "$R/recipe.toml" 2>&1); rc=$?
	check_eq "build --verify-full with the tampered sealed dep exits 65" 65 "$rc"
	check_contains "…refusing it, naming the dep and the file" "$out" \
		"refusing to build $R/recipe.toml: dep $VDIR does not verify: artifact hkdata $VID was altered under the filesystem"
	check_contains "…the file" "$out" "cannot read $F"
	check_not_contains "…before any sandbox started" "$out" "running"
else
	not_ok "tampering under the sealed store" "debugfs/dd/mount failed"
fi

finish
