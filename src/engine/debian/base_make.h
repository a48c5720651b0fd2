/* Pinned bases made and copied (docs/bases.md): what `harkaq store base create` and `base
 * import` do.  The rules and the provenance are core/debian/base_making.h's; here the tree is
 * made with mmdebstrap, normalised and added to the store, or copied from another store.
 *
 * Why mmdebstrap rather than unpacking the store's .debs: a Debian root is more than its
 * packages' files.  Maintainer scripts make /etc/passwd and /etc/group, the
 * update-alternatives links (awk → mawk), the dpkg database the diagnosis reads its owners
 * from, and ld.so.cache; Debian's own tool runs them as Debian does, unprivileged
 * (--mode=unshare), and with SOURCE_DATE_EPOCH fixed it makes the same tree from the same
 * archive state. */
#ifndef HK_ENGINE_BASE_MAKE_H
#define HK_ENGINE_BASE_MAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/debian/base_making.h"
#include "core/store/store.h"

/* What making or copying a base gave: the artifact (the store's), whether it was new, and
 * how many packages its dpkg database holds (0 for a copy: it is not read). */
struct hk_base_made {
	const struct hk_artifact *artifact;
	bool added;
	size_t n_packages;
};

/* Makes the base `m` describes (hk_base_making_check'ed here first) with mmdebstrap in a
 * temporary directory of the store, normalises it, adds it and points the tag m->name at it.
 * Progress goes to stderr.  On failure, interruption included (the process's interrupt
 * context, sys/interrupt.h, must be installed by the caller to stop cleanly), nothing is left
 * in the store; a tree that could not be removed is said on stderr. */
HK_MUST_CHECK int hk_base_make(struct hk_store *s, const struct hk_base_making *m,
			       struct hk_base_made *out, struct hk_error *err);

/* Copies the base `ref` (a name or an id) of the store at `from_dir` into `s`, with its
 * provenance as recorded, and tags it by its name.  The copy must have the same id (the same
 * tree, name, version and provenance): anything else is an input error. */
HK_MUST_CHECK int hk_base_import(struct hk_store *s, const char *from_dir, const char *ref,
				 struct hk_base_made *out, struct hk_error *err);

/* The store's bases as `base list` prints them (one line each: id, name, version, variant,
 * packages, tag), or with `json` an array of hk_base_list_entry_json objects; appended to
 * `out`. */
HK_MUST_CHECK int hk_base_list(struct hk_store *s, bool json, struct hk_buf *out,
			       struct hk_error *err);

/* One base as `base show` prints it: its fields, one a line, or with `json` its metadata as
 * stored. */
HK_MUST_CHECK int hk_base_show(const struct hk_artifact *a, bool json, struct hk_buf *out,
			       struct hk_error *err);

#endif
