#include "core/basic/buf_fd.h"

#include <errno.h>
#include <unistd.h>

int hk_buf_read_fd(struct hk_buf *b, int fd)
{
	for (;;) {
		/* Read straight into the buffer's free space, which grows by doubling: a large
		 * file costs few reads and no copy through a bounce buffer. */
		hk_buf_reserve(b, 4096);
		ssize_t n = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		b->len += (size_t)n;
		b->data[b->len] = '\0';
	}
}
