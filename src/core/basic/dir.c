#include "core/basic/dir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/basic/error.h"

int hk_dir_fdopen(int fd, const char *shown, DIR **out, struct hk_error *err)
{
	*out = fdopendir(fd);
	if (!*out) {
		int e = errno;
		close(fd);
		return hk_fail_errno(err, e, "cannot list %s", shown);
	}
	return 0;
}

int hk_dir_open_existing(const char *path, DIR **out, struct hk_error *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : hk_fail_errno(err, errno, "cannot open %s", path);
	return hk_dir_fdopen(fd, path, out, err);
}

int hk_dir_next(DIR *d, const char *shown, struct dirent **de, struct hk_error *err)
{
	for (;;) {
		errno = 0;
		*de = readdir(d);
		if (!*de)
			return errno ? hk_fail_errno(err, errno, "cannot list %s", shown) : 0;
		const char *name = (*de)->d_name;
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
			return 0;
	}
}
