/* fanotify: the files a Debian build opened among those the policy let it open (engine/reads.h).
 * Landlock reports what it denies, never what it allows; the converse of a missing
 * Build-Depends — a declared one none of whose files was opened — needs the allowed opens,
 * which fanotify reports per filesystem.  Each returns 0 (or the documented value) or -errno,
 * with a sentence in *err where one is taken. */
#ifndef HK_SYS_OPENWATCH_H
#define HK_SYS_OPENWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

/* fanotify_init for notification with descriptors, an unlimited queue (nothing is dropped
 * while the reader keeps up or not: CAP_SYS_ADMIN), non-blocking, close-on-exec.  *fd. */
HK_MUST_CHECK int hk_sys_fanotify_init(int *fd, struct hk_error *err);
/* Watches every open and every execution of a file on the filesystem holding `path` (a mount
 * point of harkaq's own: a merged view's overlay). */
HK_MUST_CHECK int hk_sys_fanotify_watch_fs(int fd, const char *path, struct hk_error *err);

/* One event: the path of the file opened (readlink of its descriptor, in this process's mount
 * namespace), or none when the kernel dropped events (`overflow`). */
struct hk_fanotify_event {
	const char *path;
	bool overflow;
};

/* Reads the events queued now, calls `fn` for each (closing its descriptor after), and returns
 * how many it read (0: none queued), or -errno. */
int hk_sys_fanotify_drain(int fd, void (*fn)(void *ctx, const struct hk_fanotify_event *ev),
			  void *ctx);

#endif
