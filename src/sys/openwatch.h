/* fanotify: the files a Debian build opened among those the policy let it open (engine/cage/reads.h).
 * Landlock reports what it denies, never what it allows; the converse of a missing
 * Build-Depends — a declared one none of whose files was opened — needs the allowed opens,
 * which fanotify reports per filesystem.  Each returns 0 (or the documented value) or -errno,
 * with a sentence in *err where one is taken. */
#ifndef HK_SYS_OPENWATCH_H
#define HK_SYS_OPENWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/basic/error.h"

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
 * how many it read (0: none queued), or -errno.  A file reported is not reported again: its
 * inode gets an ignore mark (FAN_MARK_IGNORED_MASK, kept when the file is modified), so that
 * the thousands of opens of the same shell, library or Perl module cost one event, not an
 * event, a descriptor and a readlink each — unless the file has other links: a hard link may
 * be opened later under another name, which must still be reported.  Then `only_name` (NULL:
 * none) is asked with the file's inode number: true when the caller knows that no other name
 * of it can be opened on the watched filesystems, and the file is marked as one with a single
 * link is. */
HK_MUST_CHECK int hk_sys_fanotify_drain(int fd, void (*fn)(void *ctx, const struct hk_fanotify_event *ev),
			  bool (*only_name)(void *ctx, uint64_t ino), void *ctx);

#endif
