#include "sys/openwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

int hk_sys_fanotify_init(int *fd, struct hk_error *err)
{
	*fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE,
			    O_RDONLY | O_LARGEFILE | O_CLOEXEC | O_NOATIME);
	if (*fd < 0)
		return hk_fail_errno(err, errno, "fanotify_init");
	return 0;
}

int hk_sys_fanotify_watch_fs(int fd, const char *path, struct hk_error *err)
{
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_OPEN_EXEC,
			  AT_FDCWD, path) < 0)
		return hk_fail_errno(err, errno, "fanotify_mark of the filesystem of %s", path);
	return 0;
}

/* The ignore mark of hk_sys_fanotify_drain: best effort (a file it fails on is reported
 * again, which changes nothing but the cost). */
static void ignore_from_now(int fanfd, int fd, bool (*only_name)(void *ctx, uint64_t ino),
			    void *ctx)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (st.st_nlink != 1 && !(only_name && only_name(ctx, (uint64_t)st.st_ino)))
		return;
	(void)fanotify_mark(fanfd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
			    FAN_OPEN | FAN_OPEN_EXEC, fd, NULL);
}

int hk_sys_fanotify_drain(int fd, void (*fn)(void *ctx, const struct hk_fanotify_event *ev),
			  bool (*only_name)(void *ctx, uint64_t ino), void *ctx)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	int count = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN ? count : -errno;
		if (n == 0)
			return count;
		const struct fanotify_event_metadata *m = (const void *)buf;
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			if (m->vers != FANOTIFY_METADATA_VERSION)
				return -EPROTO;
			count++;
			struct hk_fanotify_event ev = { NULL, (m->mask & FAN_Q_OVERFLOW) != 0 };
			char link[64], path[PATH_MAX];
			if (m->fd >= 0) {
				snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
				ssize_t k = readlink(link, path, sizeof(path) - 1);
				if (k >= 0) {
					path[k] = '\0';
					ev.path = path;
				}
			}
			fn(ctx, &ev);
			if (m->fd >= 0) {
				if (ev.path)
					ignore_from_now(fd, m->fd, only_name, ctx);
				close(m->fd);
			}
		}
	}
}
