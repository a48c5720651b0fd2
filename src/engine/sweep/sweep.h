/* harkaq sweep's own parts (docs/sweep.md):
 *
 *   cmd_sweep.c    the command: options, and the exit status of what the engine returned
 *   sweep_run.c    one sweep's scheduling: finding the recipes, the store snapshot, the
 *                  workspace, resuming, --jobs builds at a time, and the outputs a sweep and
 *                  a merge write
 *   sweep_item.c   one item: its pre-flight, its child process (a Debian item's work in a
 *                  directory of its own under --out), what it wrote read back
 *   sweep_classify.c  the one classification of debt paths a sweep and a merge share
 *   sweep_merge.c  the merge of the shards of a sweep run on several machines
 *   sweep_deb.c    Debian source packages: the pin list, the fetch, the build of one package
 *
 * Errors (docs/design.md, "Errors"): the entry points, sweep_run and sweep_merge, return
 * HK_OUTCOME_OK or a negative errno with a classified struct hk_error, never an exit status.
 * The sweep's outcome is OK whatever its items' outcomes: those are its result, not its
 * failure.
 */
#ifndef HK_ENGINE_SWEEP_H
#define HK_ENGINE_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/buf.h"
#include "core/basic/strv.h"
#include "core/basic/error.h"
#include "core/store/store.h"
#include "core/evidence/suggest.h"
#include "core/sweep/sweep.h"
#include "engine/common/status.h"

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
	const char *dsc_list;    /* --dsc-list FILE: NAME=VERSION pins, one a line */
	const char *sources;     /* --sources DIR: where pins are fetched (default OUT/sources) */
	const char *base;        /* --base NAME: the base Debian items build on */
	const char *see;         /* --see PKG,…: passed to each Debian build */
	bool decide_probes;      /* --decide-probes: passed to each Debian build */
	bool confirm;            /* --confirm: passed to each Debian build */
	long item_timeout;       /* --item-timeout S: wall-clock limit per item; 0: none */
};

/* ---- Debian source packages (sweep_deb.c) ---- */

/* Reads a list of pins (bench/debian/corpus.txt's form: NAME=VERSION first on a line, '#'
 * comments) into `pins`; a line that is not one is an error naming FILE:LINE (bad input). */
HK_MUST_CHECK int sweep_read_dsc_list(const char *file, struct hk_strv *pins,
				      struct hk_error *err);
/* The source package's name: a pin's NAME, or a .dsc file's name up to its '_'. */
char *sweep_deb_source_name(const char *key, bool pin);

struct sweep_deb_job {
	const struct sweep_opts *o;
	const char *key;         /* a .dsc path, or NAME=VERSION when pin */
	bool pin;
	const char *sources;     /* the fetch cache */
	const char *store_dir;
	const char *result_path; /* where the child writes harkaq.sweep.debian-build.v1 */
	const char *workdir;     /* the item's own directory: its build's work directories */
};
/* The body of the child process of one Debian item, which stands for `harkaq build --dsc`:
 * fetch (a pin), then hk_dsc_build_run, then the result document at job->result_path, whose
 * exit_status is the one `harkaq build --dsc` would exit with (hk_exit_status); its log is
 * stderr, where it says what failed.  Returns the build's outcome, or a negative errno with
 * err classified (a fetch that failed is the environment's: the mirror, the network). */
HK_MUST_CHECK int sweep_deb_child(const struct sweep_deb_job *job, struct hk_error *err);

/* Runs the sweep over the recipes, .dsc files and directories named (and o->dsc_list's pins),
 * and writes its outputs.  Returns HK_OUTCOME_OK, or a negative errno with err classified:
 * usage (a bad --shard; Debian items without a store), input (a --dsc-list line, a path that
 * names no recipe, a store that does not open, an --out the build user cannot reach),
 * environment (its workspace could not be made, nor its outputs written), interrupted (the
 * signal that stopped it, after the result, with every item it stopped or kept from running,
 * was written).  It asks the process's interrupt context (sys/interrupt.h), which the caller
 * installs, whether to stop, and passes a stop on to the running builds. */
HK_MUST_CHECK int sweep_run(char **args, size_t n_args, const struct sweep_opts *o,
			    struct hk_error *err);

/* Merges the shards' results (`results`: result.json files, or the --out directories that
 * hold them), classifies every debt path against the store o->store_opt (or $HARKAQ_STORE),
 * and writes the outputs of o.  Returns HK_OUTCOME_OK, or a negative errno with err
 * classified: input (a result that does not read, shards that do not make the catalogue),
 * the store's own class when it does not open, environment (the outputs not written). */
HK_MUST_CHECK int sweep_merge(char **results, size_t n_results, const struct sweep_opts *o,
			      struct hk_error *err);

/* Opens the store at `store_dir` and a diagnosis over it whose path index and symlink map are
 * loaded now: later additions to the store do not change its answers.  On failure the
 * caller still frees *out (sweep_classifier_free). */
struct sweep_classifier;
HK_MUST_CHECK int sweep_open_classifier(const char *store_dir, struct sweep_classifier **out,
					struct hk_error *err);
/* Its store (owned by the classifier), or NULL. */
struct hk_store *sweep_classifier_store(const struct sweep_classifier *c);
void sweep_classifier_free(struct sweep_classifier *c);
/* Classifies every debt path of `d` with that diagnosis (hk_sweep_classify), each recipe with
 * the base it stood on (a denied base file is named with the base's package); NULL: no
 * store, every path irreducible. */
void sweep_classify(struct hk_sweep_doc *d, struct sweep_classifier *c);

/* Writes the outputs every sweep and merge produce: --out's files, --html, stdout. */
HK_MUST_CHECK int sweep_emit(const struct hk_sweep_doc *d, const struct sweep_opts *o,
			     struct hk_error *err);
HK_MUST_CHECK int sweep_mkdir_p(const char *path, struct hk_error *err);

#endif
