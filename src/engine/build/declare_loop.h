/* `harkaq declare RECIPE` (docs/diagnosis.md, "harkaq declare"): the closed loop of design.md
 * §8 walked by harkaq.  The recipe is built under the cage; the deps the diagnosis names
 * ("declare dep: X") are appended to its [deps] build, in its text, every other byte kept
 * (core/policy/recipe_edit.h); it is built again; and so on until the loop's rule
 * (core/evidence/declare.h) stops it: Hermetic, irreducible debt, the same debt twice, a
 * suggestion that did not remove its denial, NoEvidence, a failure without debt.
 *
 * Each build is `harkaq build`'s (engine/build/build.h), from the edited text held in memory:
 * its report on stderr, its evidence objects in the store.  The file is written only with an
 * edit the next build confirmed (its denials gone, the build vouched for), so it is left as
 * the last edit no build refuted; with `dry_run` it is never written, and one build shows the
 * edit the first step would make.  The file must not change under the loop: it is read again
 * before each write, and a change stops the loop with nothing written. */
#ifndef HK_ENGINE_DECLARE_LOOP_H
#define HK_ENGINE_DECLARE_LOOP_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/build/build.h"
#include "core/basic/strv.h"
#include "core/evidence/declare.h"
#include "core/formats/json.h"

struct hk_declare_opts {
	/* The options of every build (store, user, profile, timeout, quiet …); its recipe and
	 * recipe_path are the loop's.  Must be caged. */
	struct hk_build_opts build;
	const char *recipe_path;
	bool dry_run;
};

/* One phase of one build, as the chain names it. */
struct hk_declare_phase {
	char *label;
	char *state;                     /* "Hermetic", "Impure", "NoEvidence", "no verdict" */
	bool failed;
	int exit_code;
	char evidence[HK_B3_ID_LEN];     /* "" when no object was stored */
};

/* One build of the loop and what followed it. */
struct hk_declare_step {
	int rc;                          /* hk_build_run's: its outcome, or -errno */
	char *error;                     /* rc < 0: why */
	char recipe_hash[HK_B3_ID_LEN];
	struct hk_declare_phase *phases;
	size_t n_phases;
	char artifact[HK_B3_ID_LEN];     /* "" when none was made */
	bool artifact_stored;
	struct hk_declare_debt *debt;    /* its strings are in `strings` */
	size_t n_debt;
	struct hk_strv strings;
	/* The rule's answer after it (core/evidence/declare.h); GO_ON: `added` is what the next
	 * build declares (and `added_paths` the path each answers). */
	struct hk_declare_decision decision;
};

enum hk_declare_stop_kind {
	HK_DECLARE_STOPPED_RULE = 0,     /* the rule stopped it (decision of the last step) */
	HK_DECLARE_STOPPED_DRY_RUN,      /* --dry-run: one build, the next edit shown */
	HK_DECLARE_STOPPED_ERROR,        /* a build or the edit could not be made: `error` */
};

struct hk_declare_result {
	char *recipe_path;               /* the file written: the real path */
	char *label;                     /* its name in the diff ("recipe.toml") */
	struct hk_declare_step *steps;
	size_t n_steps;
	enum hk_declare_stop_kind stopped;
	/* The deps declared and kept in the file (in order), and whether it was written. */
	struct hk_strv declared;
	bool written;
	/* The change of the file: from the text first read to the text left (dry run: to the
	 * edit the first step would make).  "" when none. */
	char *diff;
	const char *error;               /* set by the caller from err when the loop failed */
};

/* Runs the loop.  Returns the last build's outcome (engine/common/status.h: what `harkaq build`
 * of the recipe as left would give, but for a refuted or NoEvidence build, whose outcome it
 * is), or -errno with err saying why (the recipe unreadable or malformed, a build that could
 * not run, the file changed under the loop). */
HK_MUST_CHECK int hk_declare_run(const struct hk_declare_opts *o, struct hk_declare_result *r,
				 struct hk_error *err);
void hk_declare_result_free(struct hk_declare_result *r);

/* The chain for people: each build with its phases' evidence ids, what was declared after it,
 * why the loop stopped, and the diff of the file. */
void hk_declare_report_human(const struct hk_declare_result *r, FILE *f);
/* The same for programs (docs/diagnosis.md, "harkaq declare"). */
void hk_declare_result_json(const struct hk_declare_result *r, struct hk_json *j);

#endif
