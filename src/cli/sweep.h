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
 * caller still frees whatever *store and *sugg hold (hk_suggester_free, hk_store_close). */
int sweep_open_classifier(const char *store_dir, struct hk_store **store,
			  struct hk_suggester **sugg, struct hk_error *err);
/* Classifies every debt path of `d` with that diagnosis (hk_sweep_classify); NULL: no store,
 * every path irreducible. */
void sweep_classify(struct hk_sweep_doc *d, struct hk_suggester *sugg);

/* Writes the outputs every sweep and merge produce: --out's files, --html, stdout. */
int sweep_emit(const struct hk_sweep_doc *d, const struct sweep_opts *o, struct hk_error *err);
int sweep_mkdir_p(const char *path, struct hk_error *err);

#endif
