/* A store carried as one verified bundle (core/store/bundle.h; docs/store.md, "Bundles"): what
 * `harkaq store export` and `harkaq store import` do (src/cli/cmd_store_bundle.c). */
#ifndef HK_ENGINE_STORE_BUNDLE_H
#define HK_ENGINE_STORE_BUNDLE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/store/bundle.h"
#include "core/basic/error.h"
#include "core/basic/strv.h"

/* What an export writes. */
struct hk_store_export {
	const char *store_dir;            /* the store, opened, never created */
	/* The artifacts whose runtime closure to write (as `store closure` resolves them), or
	 * every artifact with `all`. */
	const struct hk_strv *ids;
	bool all;
	/* The names a dep the store lacks may be left to: `base`, and, with `base_root`, every
	 * package installed in that root (hk_base_root_names). */
	const struct hk_strv *base;
	const char *base_root;
	/* The bundle's file (written beside it, then renamed: a reader never sees half a
	 * bundle under its name), or NULL for `out`. */
	const char *out_path;
	FILE *out;
};

/* Writes the bundle `x` describes; counts what it wrote into `st`.  Returns 0 or -errno: an
 * unknown ID or a dep nobody provides is the input's (ENOENT), a file that cannot be written
 * the environment's. */
HK_MUST_CHECK int hk_store_export(const struct hk_store_export *x, struct hk_bundle_stats *st,
				  struct hk_error *err);

/* Reads the bundle `in` (named `shown` in errors) into the store `store_dir`, created when it
 * is missing; `on_artifact` (may be NULL) is called for every artifact committed or found
 * present.  Returns 0 or -errno: a bundle that does not verify is EBADMSG. */
HK_MUST_CHECK int hk_store_import(const char *store_dir, FILE *in, const char *shown,
				  hk_bundle_artifact_fn on_artifact, void *ctx,
				  struct hk_bundle_stats *st, struct hk_error *err);

#endif
