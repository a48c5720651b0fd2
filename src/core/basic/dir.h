/* Reading a directory with every failure reported: readdir() returns NULL both at the end and
 * on an error, told apart only by errno, and a listing cut short by an error must fail (a
 * store tree or a manifest missing entries would still look complete). */
#ifndef HK_DIR_H
#define HK_DIR_H

#include <dirent.h>

#include "core/basic/error.h"

/* Opens the directory open as fd as a stream.  Takes ownership of fd: it belongs to *out on
 * success and is closed on failure.  Returns 0, or -errno with err "cannot list SHOWN: …". */
HK_MUST_CHECK int hk_dir_fdopen(int fd, const char *shown, DIR **out, struct hk_error *err);

/* Opens the directory at `path`, or leaves *out NULL when there is none (ENOENT): a directory
 * made on first use, such as a store's tags, is empty until then.  Returns 0, or -errno with
 * err "cannot open PATH: …" / "cannot list PATH: …". */
HK_MUST_CHECK int hk_dir_open_existing(const char *path, DIR **out, struct hk_error *err);

/* The next entry other than "." and ".." in *de, NULL at the end of the directory.  Returns 0,
 * or -errno with err "cannot list SHOWN: …".  The loop reads
 *     while ((r = hk_dir_next(d, shown, &de, err)) == 0 && de) { … }
 * so that r is 0 inside the body and 0 or the failure after it. */
HK_MUST_CHECK int hk_dir_next(DIR *d, const char *shown, struct dirent **de, struct hk_error *err);

#endif
