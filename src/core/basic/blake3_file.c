#include "core/basic/blake3_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/basic/util.h"

/* Large reads: the store hashes whole artifacts, and one syscall per 256 KiB keeps the
 * syscall cost far below the hashing cost. */
#define FILE_READ_BLOCK (256 * 1024)

int hk_blake3_fd(int fd, uint8_t out[HK_BLAKE3_OUT_LEN])
{
	hk_autofree uint8_t *buf = hk_xmalloc(FILE_READ_BLOCK);
	struct hk_blake3 h;
	hk_blake3_init(&h);
	for (;;) {
		ssize_t n = read(fd, buf, FILE_READ_BLOCK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		hk_blake3_update(&h, buf, (size_t)n);
	}
	hk_blake3_finalize(&h, out, HK_BLAKE3_OUT_LEN);
	return 0;
}

int hk_blake3_file(const char *path, uint8_t out[HK_BLAKE3_OUT_LEN], struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s for hashing", path);
	int r = hk_blake3_fd(fd, out);
	if (r < 0)
		return hk_fail_errno(err, -r, "cannot read %s for hashing", path);
	return 0;
}
