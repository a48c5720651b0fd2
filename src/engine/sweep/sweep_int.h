/* What one sweep's parts share (engine/sweep/sweep.h): sweep_run.c schedules the items (the
 * catalogue, the workspace, resuming, --jobs at a time); sweep_item.c runs one item (its
 * pre-flight, its child process, the reading of what it wrote); sweep_classify.c classifies
 * the debt paths, for a sweep and a merge alike.  sweep_run.c calls sweep_item.c, which calls
 * sweep_classify.c; never the other way round.  Internal to the sweep's files. */
#ifndef HK_ENGINE_SWEEP_INT_H
#define HK_ENGINE_SWEEP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/sweep/sweep.h"
#include "core/policy/recipe.h"
#include "core/store/store.h"
#include "core/sweep/sweep.h"

/* One item being built: its child process and its files. */
struct sweep_job {
	size_t item;             /* index into the doc's items */
	pid_t pid;               /* also its process group: each build leads its own */
	long long t0;
	char *result_path, *log_path, *abs_recipe, *base_root;
	bool deb;                /* a Debian source package (sweep_deb.c) */
	/* A Debian item's own directory: its build's work directories and TMPDIR, removed
	 * however the build ended. */
	char *workdir;
	char *record;            /* where its resume record goes (--out), or NULL */
	long long term_at;       /* when the item's limit ran out and SIGTERM was sent; 0 */
	bool killed;             /* ... and SIGKILL, when it did not stop in time */
};

/* ---- one item (sweep_item.c) ---- */

/* Pre-flight in the sweep itself, so that the most common reasons (a recipe that does not
 * parse, a dep the store lacks) are stated exactly and cost no build: the recipe loaded into
 * `r` (the caller frees it), true; or the item failed with its reason, false. */
bool sweep_job_preflight(struct hk_sweep_item *it, struct hk_store *store, const char *store_dir,
			 struct hk_recipe *r);
/* The item's file name under logs/ and builds/: its position and its key, made safe. */
char *sweep_file_slug(size_t pos, const char *key);
/* A reason as every machine reads it (sweep_item.c says how).  Malloc'd. */
char *sweep_clean_reason(const char *msg, const char *out_dir, const char *abs_recipe,
			 const char *key);
/* Forks the child of a recipe's item (`harkaq build --result-out`, jb->t0 set) or of a Debian
 * item (sweep_deb_child): its pid, or -errno with err set. */
pid_t sweep_job_spawn_build(struct sweep_job *jb, const char *self, const struct sweep_opts *o,
			    const char *store_dir, const char *key, struct hk_error *err);
pid_t sweep_job_spawn_deb(const struct sweep_job *jb, const struct sweep_deb_job *dj,
			  struct hk_error *err);
/* The item of a build that ended with wait status `status`: its time, its exit status and
 * what it measured, its reason said as sweep_clean_reason says it (`out_dir`: the sweep's). */
void sweep_job_finish(const struct sweep_job *jb, int status, const char *out_dir,
		      struct hk_sweep_item *it);
/* Removes a Debian item's own directory, however its build ended. */
void sweep_job_remove_workdir(const struct sweep_job *jb);
void sweep_job_free(struct sweep_job *jb);

/* ---- the classification's helpers (sweep_classify.c) ---- */

/* The tree a recipe's base is: a pinned base's in the store, a root: directory, or "/".
 * Malloc'd. */
char *sweep_base_root_of(struct hk_store *store, const struct hk_recipe *r);
/* Before any build seals anything into the store: the suggester of every base the recipes
 * name, so that builds of this sweep cannot change a classification. */
void sweep_prime_bases(struct sweep_classifier *c, const struct hk_sweep_doc *d);

#endif
