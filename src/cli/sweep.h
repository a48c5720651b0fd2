/* harkaq sweep's own parts (docs/sweep.md):
 *
 *   cmd_sweep.c  the command: options, the outputs every sweep and merge write, the merge
 *   sweep_run.c  one sweep: finding the recipes, the store snapshot, the builds, their results,
 *                and the one classification of debt paths a sweep and a merge share
 */
#ifndef HK_CLI_SWEEP_H
#define HK_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/store.h"
#include "core/suggest.h"
#include "core/sweep.h"

struct sweep_opts {
	unsigned jobs;
	const char *store_opt;
	const char *out_dir;
	const char *shard;
	const char *html;
	const char *timeout;
	const char *profile;
	const char *user;
	bool json, quiet;
	bool list;               /* --list: the recipes found (this shard's), nothing built */
};

/* Runs the sweep over the recipes and directories named; returns the exit status. */
int sweep_run(char **args, size_t n_args, const struct sweep_opts *o);

/* Opens the store at `store_dir` and a diagnosis over it whose path index and symlink map are
 * loaded now: later additions to the store do not change its answers.  On failure the
 * caller still frees *out (sweep_classifier_free). */
struct sweep_classifier;
int sweep_open_classifier(const char *store_dir, struct sweep_classifier **out,
			  struct hk_error *err);
/* Its store (owned by the classifier), or NULL. */
struct hk_store *sweep_classifier_store(const struct sweep_classifier *c);
void sweep_classifier_free(struct sweep_classifier *c);
/* Classifies every debt path of `d` with that diagnosis (hk_sweep_classify), each recipe with
 * the base it stood on (a denied base file is named with the base's package); NULL: no
 * store, every path irreducible. */
void sweep_classify(struct hk_sweep_doc *d, struct sweep_classifier *c);

/* Writes the outputs every sweep and merge produce: --out's files, --html, stdout. */
int sweep_emit(const struct hk_sweep_doc *d, const struct sweep_opts *o, struct hk_error *err);
int sweep_mkdir_p(const char *path, struct hk_error *err);

#endif
