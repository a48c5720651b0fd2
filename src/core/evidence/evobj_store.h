/* Evidence objects in the store: STORE/.evidence/<hex>.json, written atomically, found by id
 * or prefix, read back.  The file system side of core/evidence/evobj.h, which encodes and checks the
 * objects' bytes. */
#ifndef HK_EVOBJ_STORE_H
#define HK_EVOBJ_STORE_H

#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/evidence/evobj.h"

/* STORE/.evidence (caller frees). */
char *hk_evobj_dir(const char *store_dir);

/* Writes the bytes as STORE/.evidence/<hex>.json atomically (a temporary file in the same
 * directory, then rename); the directory is created if missing.  Writing an object that is
 * already there is harmless (same name, same bytes).  id receives "b3:<hex>"; *path (if
 * non-NULL) the file's path, owned by the caller. */
HK_MUST_CHECK int hk_evobj_write(const char *store_dir, const void *bytes, size_t n, char id[HK_B3_ID_LEN],
		   char **path, struct hk_error *err);

/* Finds an object: `query` is a file path (anything containing '/' or ending in .json), or
 * "b3:<hex>", or a hex prefix of at least 8 digits (with or without "b3:") of an object in
 * STORE/.evidence.  *path and *id ("b3:<hex>" from the file name; empty if the file name is
 * not one) are the caller's.  No match is -ENOENT, several -EEXIST listing them. */
HK_MUST_CHECK int hk_evobj_find(const char *store_dir, const char *query, char **path,
		  char id[HK_B3_ID_LEN], struct hk_error *err);

/* Reads a whole evidence object file into `out` (hk_file_read, its errors prefixed "evidence
 * object"). */
HK_MUST_CHECK int hk_evobj_read(const char *path, struct hk_buf *out, struct hk_error *err);

/* Ids ("b3:<hex>") of every object in STORE/.evidence, sorted; none if the directory does not
 * exist.  Caller frees each and the array. */
HK_MUST_CHECK int hk_evobj_list(const char *store_dir, char ***ids, size_t *n, struct hk_error *err);

#endif
