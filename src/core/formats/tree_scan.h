/* Walking a directory into a tree: the file system side of core/formats/tree.h, whose in-memory tree
 * and hash these functions fill. */
#ifndef HK_TREE_SCAN_H
#define HK_TREE_SCAN_H

#include <stdint.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"
#include "core/formats/tree.h"

/* Walks the directory `dir` (which must be a directory; symlinks inside are recorded, never
 * followed), hashes every regular file and computes the tree hash.  Entries are left in
 * canonical order.  Fails, naming the path, on a special file, an unreadable file or
 * directory, or a path that is not valid in a tree.  On error *out is left empty. */
HK_MUST_CHECK int hk_tree_scan(const char *dir, struct hk_tree *out, struct hk_error *err);

/* Streams a file's content through BLAKE3.  `dirfd`/`name` as for openat(2) (AT_FDCWD and a
 * path work); symlinks are not followed.  `display` names the file in errors. */
HK_MUST_CHECK int hk_tree_hash_file(int dirfd, const char *name, const char *display,
		      uint8_t out[HK_BLAKE3_OUT_LEN], struct hk_error *err);

#endif
