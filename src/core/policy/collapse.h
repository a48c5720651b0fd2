/* Which directories of a derived policy the cage may install as one rule each.
 *
 * A per-file policy grants `ro` to every file of the closure.  Inside the sandbox the
 * closure is merged with the base root into read-only system directories, so some
 * directories hold nothing but granted files: cmake's modules, the kernel headers, perl's
 * library.  For such a directory, one Landlock rule beneath it (read and execute) grants
 * exactly the same set of files as its per-file rules, at a fraction of the cost (the rules
 * are installed again in every phase: kernel-facts.md §10).  The policy is not changed — its
 * text and id stay per file — this is only how the cage installs it.
 *
 * A directory D qualifies when, in the merged view the sandbox will show:
 *   - every grant beneath D is `ro`, and names a file or symlink that exists there (a dep's
 *     entry, or a base root file for base-runtime grants);
 *   - every entry of every dep layer beneath D is granted (a symlink the derivation left
 *     ungranted, because its target is outside the closure, disqualifies D);
 *   - the base root's D, if any, holds only granted files and directories that qualify in
 *     turn (an undeclared base file beneath D disqualifies it: reading it must stay a
 *     logged denial);
 *   - so does the store view's D (core/store/view.h: every store artifact, visible but not
 *     granted), when the sandbox shows one;
 *   - D is not the root, and its top-level directory is not a symlink in the base root.
 * The dep layers are the store's verified trees (every build re-checks them against their
 * manifests, extra files included), so their content is read from the manifests; only the
 * base root (and the view) are read from disk, through struct hk_collapse_layers.  The result
 * is the top-most qualifying directories. */
#ifndef HK_CORE_COLLAPSE_H
#define HK_CORE_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/policy/derive.h"
#include "core/basic/error.h"
#include "core/policy/policy.h"
#include "core/basic/strset.h"

struct hk_collapse_stats {
	size_t dirs;          /* directories in the result */
	size_t covered;       /* ro grants beneath them */
	size_t base_dirs_read;
};

/* What a lower layer (the base root, the store view) holds, asked by the planner: the planner
 * reads no file itself (core/policy/collapse_disk.h asks the disk; a unit test, memory).  `path` is
 * the layer's own path, its root joined with the sandbox path ("/srv/base/usr/include"). */
enum hk_layer_type {
	HK_LAYER_DIR,
	HK_LAYER_FILE,       /* a regular file */
	HK_LAYER_OTHER,      /* a symlink (never followed), a special file */
};

struct hk_collapse_layers {
	void *ctx;
	/* The type of what lies at `path`: 0, or -errno when it cannot be told (-ENOENT and
	 * -ENOTDIR: nothing there). */
	int (*type)(void *ctx, const char *path, enum hk_layer_type *type);
	/* Calls each(arg, name, is_dir) for every entry of the directory `path` but "." and "..",
	 * until each returns false.  0, or -errno when the directory or an entry's type cannot
	 * be read. */
	int (*list)(void *ctx, const char *path,
		    bool (*each)(void *arg, const char *name, bool is_dir), void *arg);
};

/* Fills `out` (sorted) with the top-most qualifying directories of `policy` given the
 * sandbox-visible dep entries `entries` (as passed to hk_derive_policy), the base root
 * directory `base_root` ("/" for the host) and the store view's tree `view_root` (NULL when
 * the sandbox shows none), whose content `layers` tells.  `merged(path)` says whether the
 * sandbox shows path from the merged system directories (hk_sandbox_merges_path): nothing else
 * (/proc, /dev, /tmp…) is ever a candidate.  A layer that cannot be read beneath some
 * directory only disqualifies that directory.  Returns 0; -errno only on a bad argument. */
HK_MUST_CHECK int hk_collapse_plan_over(const struct hk_collapse_layers *layers,
					const struct hk_policy *policy,
					const struct hk_derive_entry *entries, size_t n_entries,
					const char *base_root, const char *view_root,
					struct hk_strset *out, struct hk_collapse_stats *stats,
					bool (*merged)(const char *path), struct hk_error *err);

#endif
