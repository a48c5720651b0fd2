/* Closure → policy (design.md §9 "Closure → policy"; D1: the policy is derived, never written).
 *
 *   every file of every artifact of the closure, store prefix stripped   → ro (one rule each)
 *   every symlink of the closure whose final target is in the closure    → ro link and target
 *   the base runtime (entry programs + their DT_NEEDED closure)          → ro
 *   the contract surfaces the sandbox reports                            → as the sandbox says
 *   the recipe's expectations                                            → expect
 *
 * Directories get no per-directory line: the tree's structure is contract, and the sandbox's
 * `list /` (READ_DIR on the root) covers every directory and ancestor (design.md §3.3).
 *
 * Pure: the caller gathers the closure from the store and the base runtime from the base
 * root; this module only decides. */
#ifndef HK_DERIVE_H
#define HK_DERIVE_H

#include <stddef.h>

#include "core/basic/error.h"
#include "core/policy/policy.h"
#include "core/basic/strset.h"

struct hk_derive_entry {
	const char *path;            /* sandbox path, absolute ("/usr/include/zlib.h") */
	const char *symlink_target;  /* NULL for a regular file; else the link's target bytes */
	const char *artifact;        /* which artifact provides it (for messages) */
};

struct hk_derive_input {
	const struct hk_derive_entry *closure;
	size_t n_closure;
	const struct hk_strset *base_runtime;   /* sandbox paths; may be NULL */
	const char *const *expects;             /* recipe's expect paths; may be NULL */
	size_t n_expects;
	unsigned scopes;                         /* HK_SCOPE_* */
};

struct hk_derive_report {
	size_t files, symlinks, base_runtime;
	/* Symlinks of the closure whose target lies outside it: not granted (granting the link
	 * would grant whatever the base root has there); listed so the report can say so. */
	struct hk_strset dangling;
};

/* Adds the derived grants and expectations to `p` (which may already hold the sandbox's
 * contract surfaces), then finishes it (sort, dedup, conflict check: an expected path that
 * the closure provides is an error naming both). */
HK_MUST_CHECK int hk_derive_policy(const struct hk_derive_input *in, struct hk_policy *p,
		     struct hk_derive_report *report, struct hk_error *err);
void hk_derive_report_free(struct hk_derive_report *r);

/* Adds to the finished policy `p` the expectations of `paths` that it does not grant, then
 * finishes it again: a toolchain's expectations (core/debian/debexpect.h) hold for whatever the
 * build left undeclared, and a path the build declared is granted, never denied, so expecting
 * it would say nothing (and a recipe's own expect of a granted path is an error).  *added
 * (may be NULL) counts the expectations kept. */
HK_MUST_CHECK int hk_derive_add_ungranted_expects(struct hk_policy *p, const char *const *paths, size_t n,
				    size_t *added, struct hk_error *err);

#endif
