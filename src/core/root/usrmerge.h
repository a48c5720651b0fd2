/* Laying an unpacked package out as a merged-/usr sandbox sees it.
 *
 * Debian 12 is merged-/usr: /bin, /sbin, /lib, /lib64 … are symlinks into /usr, yet many of
 * its packages still ship files under /lib or /bin (zlib1g's /lib/x86_64-linux-gnu/libz.so.1).
 * A store artifact is its tree *as it appears in the sandbox* (design.md §9), and the kernel
 * reports the resolved path (/usr/lib/…), so such files are moved under usr/ at import. */
#ifndef HK_USRMERGE_H
#define HK_USRMERGE_H

#include <stdbool.h>

#include "core/basic/error.h"

/* Whether the root directory `root` is merged-/usr (its /lib is a symlink to usr/lib). */
bool hk_root_is_merged_usr(const char *root);

/* Moves DIR/{bin,sbin,lib,lib32,lib64,libx32}/… to DIR/usr/<same>/…, merging directories.
 * Two different objects at one path (/bin/x and /usr/bin/x) are an error naming it (Debian
 * forbids them on a merged system); identical symlinks are merged.  Returns the number of
 * top-level directories moved. */
HK_MUST_CHECK int hk_usrmerge_tree(const char *dir, struct hk_error *err);

#endif
