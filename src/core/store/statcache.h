/* Warm verification of store artifacts: what a build pays to know its closure and its base are
 * still the bytes their ids name, when nothing changed since the last full check.
 *
 * A full check (hk_store_verify_artifact) re-hashes every file: ~0.3 s for a 145 MiB base,
 * every build.  After a full check succeeds, the stat of every entry of the artifact (each
 * directory, file and link: device, inode, type, size, mtime and ctime in nanoseconds) is
 * written beside its manifest, STORE/.meta/<dirname>.stat.  A later check lstat()s every
 * entry of the manifest and compares; if everything matches, the tree is what was hashed.
 *
 * Why this catches tampering:
 *   - writing a file changes its ctime (and mtime); `touch -d` restoring the mtime sets the
 *     ctime to now: user space cannot set a ctime (only the clock, CAP_SYS_TIME, can);
 *   - adding, removing or renaming an entry changes its directory's mtime and ctime;
 *   - replacing a file by another (rename over it) changes the inode;
 *   - a copy of the store elsewhere has other devices and inodes: a full check first.
 * Any difference, a missing or malformed cache, falls back to the full re-hash, and a full
 * check that succeeds rewrites the cache.  The cache has the trust of the store's own files:
 * whoever can write it can write the store (root-owned, files 0444). */
#ifndef HK_STATCACHE_H
#define HK_STATCACHE_H

#include <stdbool.h>

#include "core/basic/error.h"
#include "core/basic/inos.h"
#include "core/store/store.h"

/* Verifies `a`: by its stat cache when it matches the tree on disk (*warm = true), else by
 * a full re-hash (`full`, normally hk_store_verify_artifact or a wrapper that also checks
 * fs-verity seals), after which the cache is written anew.  The inode of every regular file
 * of the tree, as the check stat'ed it, is added to `inos` (NULL: none), which is marked
 * incomplete when they could not be.  Errors are `full`'s. */
HK_MUST_CHECK int hk_statcache_verify(struct hk_store *s, const struct hk_artifact *a,
			int (*full)(struct hk_store *, const struct hk_artifact *, struct hk_error *),
			bool *warm, struct hk_inos *inos, struct hk_error *err);

/* Whether the cache of `a` matches the tree on disk now (no hashing). */
bool hk_statcache_matches(struct hk_store *s, const struct hk_artifact *a);

/* Writes the cache of `a` for the tree as it is now.  Only for a caller that has just seen
 * the cache match and then changed the inodes' metadata itself: the store view hard-links
 * every artifact's files, which sets their ctime (the link count changed), and would
 * otherwise send every build after it to a full re-hash. */
void hk_statcache_refresh(struct hk_store *s, const struct hk_artifact *a);

#endif
