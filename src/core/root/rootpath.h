/* Paths inside a root directory, resolved as the sandbox will resolve them (design.md §5,
 * docs/base-runtime.md "Never ldd, never the host's path resolution"): component by component
 * relative to a descriptor of the root, so an absolute symlink restarts at the root and ".."
 * never climbs above it, as inside a chroot.  The host's own path resolution is never used
 * for a path of the root. */
#ifndef HK_ROOTPATH_H
#define HK_ROOTPATH_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/basic/strset.h"

struct hk_root {
	int fd;            /* O_PATH descriptor of the root directory; owned */
	char *path;        /* as given, for messages; owned */
};

#define HK_ROOT_INIT { -1, NULL }

HK_MUST_CHECK int hk_root_open(const char *path, struct hk_root *root, struct hk_error *err);
void hk_root_close(struct hk_root *root);

struct hk_resolved {
	char *path;                   /* canonical absolute path inside the root; owned */
	mode_t mode;                  /* st_mode of the object reached */
	/* Symlinks met on the way, each at its canonical location (its own parent directories
	 * resolved).  A link whose chain ends at a non-directory is a "file link"
	 * (/usr/bin/sh -> dash, /usr/lib64/ld-linux-x86-64.so.2 -> /lib/…); every other link
	 * met leads to a directory (/bin -> usr/bin, /lib64 -> usr/lib64). */
	struct hk_strset file_links;
	struct hk_strset dir_links;
};

#define HK_RESOLVED_INIT { NULL, 0, HK_STRSET_INIT, HK_STRSET_INIT }

/* Resolves the absolute sandbox path `path` inside `root`, component by component with
 * fstatat/readlinkat/openat relative to the root's descriptor; ".." never climbs above the
 * root and an absolute link target restarts at the root, as inside a chroot.  At most 40
 * links (the kernel's limit) → -ELOOP.  A missing component → -ENOENT, a non-directory used as
 * one → -ENOTDIR; the message names the path and the root. */
HK_MUST_CHECK int hk_root_resolve(const struct hk_root *root, const char *path, struct hk_resolved *out,
		    struct hk_error *err);
void hk_resolved_free(struct hk_resolved *res);

/* Opens (read-only) the object at a canonical path returned by hk_root_resolve.  The kernel
 * refuses any symlink or escape on the way (openat2 RESOLVE_IN_ROOT|RESOLVE_NO_SYMLINKS), so a
 * root changed after resolution cannot redirect the read to a host file. */
HK_MUST_CHECK int hk_root_open_canonical(const struct hk_root *root, const char *canonical,
			   struct hk_error *err);

/* Resolves `path` wanting a regular file: 1 with *res filled (the caller's to free), 0 when
 * the path is absent or not a regular file (neither is an error: the loader and ldconfig skip
 * such paths too; err is cleared), or the failure. */
HK_MUST_CHECK int hk_root_resolve_regular(const struct hk_root *root, const char *path,
			    struct hk_resolved *res, struct hk_error *err);

/* Whether a failure of hk_root_resolve means the path is not there (ENOENT, ENOTDIR). */
static inline bool hk_root_absent(int r)
{
	return r == -ENOENT || r == -ENOTDIR;
}

/* Appends the content of the file at the canonical path (hk_root_open_canonical) to *out. */
HK_MUST_CHECK int hk_root_read(const struct hk_root *root, const char *canonical, struct hk_buf *out,
		 struct hk_error *err);

/* "dir/name" for a canonical directory ("/" gives "/name"); caller frees. */
char *hk_root_path_join(const char *dir, const char *name);
/* The directory of a canonical path ("/" for "/x"); caller frees. */
char *hk_root_path_dir(const char *canonical);

#endif
