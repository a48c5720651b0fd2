/* Store bundles (docs/store.md, "Bundles"): artifacts carried from one store to another that
 * shares no filesystem with it — a sweep's workers get their store this way (docs/sweep.md).
 *
 * A bundle is one byte stream, the same bytes for the same artifacts: for each artifact its
 * metadata (the text of STORE/.meta/<dirname>.json) and every entry of its tree in canonical
 * order, a regular file followed by its content.  It carries what an artifact IS — tree,
 * identity, provenance — and nothing a store derives or keeps for itself: no path index (the
 * importing store rebuilds it), no seal record (fs-verity is the importing machine's), no
 * evidence, no attestation, and none of a store's caches or views.  Times are not carried
 * (they are not identity): imported files get the import's time.
 *
 * Import trusts nothing of the stream.  Every file's content is hashed as it arrives and
 * compared with the hash its entry states; then the tree hash is recomputed from the entries
 * and the artifact id from the tree and the metadata's name, version, deps and provides, and
 * both must equal what the metadata claims — before the artifact is committed.  Importing is
 * idempotent: an artifact the store already has is still read and verified, and left as it
 * is.  Artifacts are committed one by one with hk_store_add, so a failure (a truncated or
 * altered bundle) leaves the artifacts before it complete and verified, and nothing of the
 * failing one.
 */
#ifndef HK_BUNDLE_H
#define HK_BUNDLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/basic/error.h"
#include "core/store/store.h"

struct hk_bundle_stats {
	size_t artifacts;
	size_t added;            /* import: artifacts the store did not have */
	size_t files;            /* regular files */
	uint64_t bytes;          /* regular files' content */
};

/* Writes the artifacts `arts` of `s` to `out` as a bundle, sorted by directory name whatever
 * the order given (duplicates written once).  Each file is hashed as it is read and compared
 * with the artifact's manifest: an artifact altered in the store is -EBADMSG naming the file,
 * never exported.  `stats` may be NULL. */
HK_MUST_CHECK int hk_bundle_write(struct hk_store *s, const struct hk_artifact *const *arts, size_t n,
		    FILE *out, struct hk_bundle_stats *stats, struct hk_error *err);

/* Called once per artifact read, in the bundle's order, after it is verified and committed
 * (or found present): `added` says which. */
typedef void (*hk_bundle_artifact_fn)(void *ctx, const struct hk_artifact *a, bool added);

/* Reads a bundle from `in` (named `shown` in errors, with the byte offset of the problem) into
 * `s`.  A malformed stream, a content or identity that does not verify, is -EBADMSG; an
 * artifact the store cannot take is hk_store_add's error.  `on_artifact` and `stats` may be
 * NULL. */
HK_MUST_CHECK int hk_bundle_read(struct hk_store *s, FILE *in, const char *shown, hk_bundle_artifact_fn on_artifact,
		   void *ctx, struct hk_bundle_stats *stats, struct hk_error *err);

#endif
