#include "core/basic/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf_fd.h"
#include "core/basic/util.h"

int hk_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int hk_file_read(const char *path, struct hk_buf *out, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", path);
	int r = hk_buf_read_fd(out, fd);
	if (r < 0)
		return hk_fail_errno(err, -r, "cannot read %s", path);
	return 0;
}

int hk_file_write_temp(const char *dir, const void *data, size_t n, mode_t mode, unsigned flags,
		       char **tmp_path, struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/.tmp-XXXXXX", dir);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot create a temporary file in %s", dir);
	int r = hk_write_all(fd, data, n);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && (flags & HK_FILE_SYNC) && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(path);
		return hk_fail_errno(err, -r, "cannot write %s", path);
	}
	*tmp_path = hk_steal_ptr(&path);
	return 0;
}

int hk_file_write_atomic(const char *path, const void *data, size_t n, mode_t mode,
			 struct hk_error *err)
{
	const char *slash = strrchr(path, '/');
	hk_autofree char *dir = !slash ? hk_xstrdup(".")
			       : slash == path ? hk_xstrdup("/")
					       : hk_xstrndup(path, (size_t)(slash - path));
	hk_autofree char *tmp = NULL;
	int r = hk_file_write_temp(dir, data, n, mode, 0, &tmp, err);
	if (r < 0)
		return r;
	if (rename(tmp, path) < 0) {
		r = hk_fail_errno(err, errno, "cannot write %s", path);
		unlink(tmp);
	}
	return r;
}

int hk_mkdir_p(const char *path, struct hk_error *err)
{
	hk_autofree char *p = hk_xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "creating %s", p);
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "creating %s", p);
	return 0;
}
