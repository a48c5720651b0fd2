/* fs-verity ioctls (design.md §12): see verity.h. */
#include "sys/verity.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fsverity.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/blake3.h"
#include "core/basic/util.h"

#define UNSUPPORTED_HINT "(ext4: mkfs -O verity, block size = page size)"

bool hk_verity_kernel_has_ext4(void)
{
	return access("/sys/fs/ext4/features/verity", F_OK) == 0;
}

/* "the filesystem of DIR does not support fs-verity (…)", plus the kernel's part when the
 * kernel is known to lack it: otherwise a user would reformat a filesystem in vain. */
static int fail_unsupported(struct hk_error *err, const char *dir)
{
	return hk_fail(err, EOPNOTSUPP, "the filesystem of %s does not support fs-verity " UNSUPPORTED_HINT
		       "%s", dir,
		       hk_verity_kernel_has_ext4()
			       ? ""
			       : "; besides, this kernel has no fs-verity for ext4 (built without "
				 "CONFIG_FS_VERITY: /sys/fs/ext4/features/verity is absent)");
}

static int enable_fd(int fd)
{
	struct fsverity_enable_arg arg;
	memset(&arg, 0, sizeof(arg));
	arg.version = 1;
	arg.hash_algorithm = FS_VERITY_HASH_ALG_SHA256;
	/* The page size: the only Merkle block size kernels before 6.3 accept, and the default
	 * of `fsverity enable`, so both tools agree on the digest. */
	long page = sysconf(_SC_PAGESIZE);
	arg.block_size = page > 0 ? (uint32_t)page : 4096;
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) < 0) {
		int e = errno;
		if (e == EEXIST)
			return 0;   /* already sealed: enabling is idempotent for us */
		return -(e == ENOTTY ? EOPNOTSUPP : e);
	}
	return 0;
}

int hk_verity_probe_dir(const char *dir, struct hk_error *err)
{
	char *path = hk_xasprintf("%s/.tmp-verity-XXXXXX", dir);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(path);
		return hk_fail_errno(err, e, "cannot create a probe file in %s", dir);
	}
	static const char body[] = "harkaq fs-verity probe\n";
	ssize_t w = write(fd, body, sizeof(body) - 1);
	int e = w == (ssize_t)(sizeof(body) - 1) ? 0 : (w < 0 ? errno : EIO);
	close(fd);
	int r = 0;
	if (e) {
		r = hk_fail_errno(err, e, "cannot write the probe file %s", path);
	} else {
		/* Read-only, and no descriptor open for writing: what FS_IOC_ENABLE_VERITY
		 * requires (ETXTBSY otherwise). */
		int rfd = open(path, O_RDONLY | O_CLOEXEC);
		if (rfd < 0) {
			r = hk_fail_errno(err, errno, "cannot open the probe file %s", path);
		} else {
			r = enable_fd(rfd);
			close(rfd);
			if (r == -EOPNOTSUPP)
				fail_unsupported(err, dir);
			else if (r < 0)
				hk_fail_errno(err, -r, "enabling fs-verity on the probe file %s", path);
		}
	}
	unlink(path);   /* a file with fs-verity can be unlinked like any other */
	free(path);
	return r;
}

int hk_verity_enable(const char *path, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", path);
	int r = enable_fd(fd);
	if (r == 0)
		return 0;
	switch (-r) {
	case EOPNOTSUPP:
		return hk_fail(err, EOPNOTSUPP, "%s: its filesystem does not support fs-verity "
			       UNSUPPORTED_HINT, path);
	case ETXTBSY:
		return hk_fail(err, ETXTBSY, "cannot seal %s: it is open for writing somewhere",
			       path);
	case EACCES:
	case EPERM:
		return hk_fail_errno(err, -r, "cannot seal %s (the kernel wants write permission "
				     "on the file: run as root)", path);
	default:
		return hk_fail_errno(err, -r, "enabling fs-verity on %s", path);
	}
}

int hk_verity_measure(const char *path, char out[HK_SEAL_DIGEST_MAX], struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", path);
	struct {
		struct fsverity_digest d;
		uint8_t buf[64];   /* SHA-512, the largest digest fs-verity has */
	} m;
	memset(&m, 0, sizeof(m));
	m.d.digest_size = sizeof(m.buf);
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &m) < 0) {
		int e = errno == ENOTTY ? EOPNOTSUPP : errno;
		if (e == ENODATA)
			return hk_fail(err, ENODATA, "%s has no fs-verity", path);
		if (e == EOPNOTSUPP)
			return hk_fail(err, EOPNOTSUPP, "%s: its filesystem does not support "
				       "fs-verity " UNSUPPORTED_HINT, path);
		return hk_fail_errno(err, e, "measuring the fs-verity digest of %s", path);
	}
	const char *alg;
	switch (m.d.digest_algorithm) {
	case FS_VERITY_HASH_ALG_SHA256: alg = "sha256"; break;
	case FS_VERITY_HASH_ALG_SHA512: alg = "sha512"; break;
	default:
		return hk_fail(err, EPROTO, "%s: fs-verity digest algorithm %u is unknown to harkaq",
			       path, m.d.digest_algorithm);
	}
	if (m.d.digest_size == 0 || m.d.digest_size > sizeof(m.buf))
		return hk_fail(err, EPROTO, "%s: fs-verity reported a digest of %u bytes", path,
			       m.d.digest_size);
	size_t n = (size_t)snprintf(out, HK_SEAL_DIGEST_MAX, "%s:", alg);
	hk_hex(m.d.digest, m.d.digest_size, out + n);
	return 0;
}

int hk_verity_flag(const char *path, bool *on, struct hk_error *err)
{
	struct statx stx;
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) < 0)
		return hk_fail_errno(err, errno, "statx %s", path);
	if (!(stx.stx_attributes_mask & STATX_ATTR_VERITY))
		return hk_fail(err, EOPNOTSUPP, "%s: its filesystem does not report fs-verity "
			       "(STATX_ATTR_VERITY)", path);
	*on = (stx.stx_attributes & STATX_ATTR_VERITY) != 0;
	return 0;
}

int hk_verity_seal_cb(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
		      struct hk_error *err)
{
	(void)ctx;
	int r = hk_verity_enable(path, err);
	return r < 0 ? r : hk_verity_measure(path, out, err);
}

int hk_verity_measure_cb(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
			 struct hk_error *err)
{
	(void)ctx;
	return hk_verity_measure(path, out, err);
}

int hk_verity_check_artifact(struct hk_store *s, const struct hk_artifact *a,
			     struct hk_error *err)
{
	if (a->sealed) {
		int r = hk_store_verify_seal(s, a, hk_verity_measure_cb, NULL, err);
		if (r < 0)
			return r;
	}
	int r = hk_store_verify_artifact(s, a, err);
	if (r == -EIO && a->sealed) {
		/* The re-hash read every page of every file, and the kernel checked each one
		 * against the file's Merkle tree: EIO on a sealed artifact whose digests still
		 * match its record is fs-verity refusing bytes changed underneath. */
		hk_wrap(err, "artifact %s %s was altered under the filesystem (fs-verity refused "
			     "to read it)", a->name, a->id);
		err->code = EBADMSG;
		return -EBADMSG;
	}
	return r;
}
