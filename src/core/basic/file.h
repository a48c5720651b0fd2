/* Whole-file reads and writes with every failure reported, and the one way harkaq replaces a
 * file: write a temporary file beside it, then rename(2) it over the old one, so a reader sees
 * the old content or the new, never a part.  Without HK_FILE_SYNC a write is atomic for
 * readers and for the failures harkaq sees, not durable across a power loss (docs/store.md). */
#ifndef HK_FILE_H
#define HK_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* Writes all n bytes to fd, retrying short writes and EINTR.  Returns 0 or -errno (err is not
 * touched: the caller names the file). */
HK_MUST_CHECK int hk_write_all(int fd, const void *p, size_t n);

/* Appends the content of the file at `path` to *out.  Errors: "cannot open PATH: …" (with
 * err->code ENOENT when it does not exist) or "cannot read PATH: …". */
HK_MUST_CHECK int hk_file_read(const char *path, struct hk_buf *out, struct hk_error *err);

/* hk_file_write_temp: fsync(2) the file before closing it, for a record that must survive a
 * crash once renamed into place (an attestation). */
#define HK_FILE_SYNC (1u << 0)

/* Writes `data` to a new temporary file in `dir`, named ".tmp-XXXXXX", with exactly `mode`
 * (whatever the umask), closed, and returns its path in *tmp_path (the caller's to free).  The
 * caller renames it into place or unlinks it: for a commit that renames several files in a
 * chosen order, or that acts on the closed file before it becomes visible.  On failure nothing
 * is left behind. */
HK_MUST_CHECK int hk_file_write_temp(const char *dir, const void *data, size_t n, mode_t mode, unsigned flags,
		       char **tmp_path, struct hk_error *err);

/* Replaces (or creates) `path` with `data`: hk_file_write_temp in the directory of `path`,
 * then rename(2) over it.  On failure `path` is unchanged and no temporary file is left. */
HK_MUST_CHECK int hk_file_write_atomic(const char *path, const void *data, size_t n, mode_t mode,
			 struct hk_error *err);

/* mkdir -p: `path` and every missing parent, 0755.  An existing directory is fine; err names
 * the directory that could not be made. */
HK_MUST_CHECK int hk_mkdir_p(const char *path, struct hk_error *err);

#endif
