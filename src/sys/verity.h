/* fs-verity: sealed artifacts (design.md §12, docs/sealing.md).  The only file that calls the
 * fs-verity ioctls; the core (src/core/store/store.c) stores and compares the digests this file
 * measures, through the callbacks below, and never talks to the kernel itself.
 *
 * What a seal buys, measured in the design (§8 Q1-copy.fail): a file with fs-verity enabled
 * cannot be opened for writing, not even by root (EPERM, whatever its mode), and bytes changed
 * *under* the filesystem (on the block device) are refused at read time (EIO), because every
 * page read is checked against the file's SHA-256 Merkle tree.  Landlock's read-only rules do
 * not reach below the filesystem; fs-verity does.
 *
 * Errors: -EOPNOTSUPP means "this filesystem (or kernel) cannot seal" — ENOTTY, which a
 * filesystem without the ioctls (tmpfs) returns, is reported as EOPNOTSUPP so callers test one
 * code; -ENODATA means "this file has no fs-verity"; anything else is an ordinary I/O error.
 */
#ifndef HK_SYS_VERITY_H
#define HK_SYS_VERITY_H

#include <stdbool.h>

#include "core/basic/error.h"
#include "core/store/store.h"

/* Whether the running kernel has fs-verity for ext4 at all (CONFIG_FS_VERITY): ext4 lists the
 * "verity" feature in /sys/fs/ext4/features only then.  A hint for messages and test skips;
 * the authority is always the ioctl on the store's own filesystem (hk_verity_probe_dir). */
bool hk_verity_kernel_has_ext4(void);

/* Asks the filesystem holding `dir` whether it can seal: creates a small temporary file there
 * (".tmp-verity-XXXXXX"), enables fs-verity on it and removes it.  0 = it can; -EOPNOTSUPP with
 * the message "the filesystem of DIR does not support fs-verity (ext4: mkfs -O verity, block
 * size = page size)" (plus what is known of the kernel) when it cannot.  Nothing is left
 * behind either way. */
HK_MUST_CHECK int hk_verity_probe_dir(const char *dir, struct hk_error *err);

/* Enables fs-verity on the regular file `path` (SHA-256, Merkle block = page size, no salt:
 * the defaults of `fsverity enable`, so `fsverity measure` prints the same digest).  A file
 * that already has fs-verity is left as it is (0).  Needs the file not open for writing
 * anywhere (ETXTBSY) and write permission on it (root, or the owner with a writable mode:
 * the kernel checks MAY_WRITE even though the descriptor is read-only). */
HK_MUST_CHECK int hk_verity_enable(const char *path, struct hk_error *err);

/* The file's fs-verity digest as the kernel reports it now (FS_IOC_MEASURE_VERITY), written
 * "sha256:<hex>" into out.  -ENODATA if the file has no fs-verity. */
HK_MUST_CHECK int hk_verity_measure(const char *path, char out[HK_SEAL_DIGEST_MAX], struct hk_error *err);

/* statx(2)'s STATX_ATTR_VERITY for `path`: *on = whether the file has fs-verity.  -EOPNOTSUPP
 * if the filesystem does not report the attribute at all. */
HK_MUST_CHECK int hk_verity_flag(const char *path, bool *on, struct hk_error *err);

/* hk_seal_fn callbacks for the core (ctx unused): enable-then-measure, and measure only. */
HK_MUST_CHECK int hk_verity_seal_cb(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
		      struct hk_error *err);
HK_MUST_CHECK int hk_verity_measure_cb(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
			 struct hk_error *err);

/* THE check of an artifact, shared by `harkaq store verify` and `harkaq build` (every dep of
 * the closure, before any sandbox starts):
 *   1. if the artifact is sealed, every file's fs-verity digest as the kernel reports it now
 *      against the seal record (cheap: the kernel keeps the Merkle root, nothing is read);
 *   2. its BLAKE3 tree re-hashed from disk against its manifest and id (hk_store_verify_
 *      artifact) — which, for a sealed artifact, also makes the kernel check every page
 *      against the Merkle tree: an EIO there is fs-verity refusing bytes changed under the
 *      filesystem, and is reported as tampering (-EBADMSG), naming the file.
 * -EBADMSG when the artifact does not verify; other codes when it could not be checked. */
HK_MUST_CHECK int hk_verity_check_artifact(struct hk_store *s, const struct hk_artifact *a,
			     struct hk_error *err);

#endif
