/* `harkaq declare RECIPE`: the closed loop of design.md §8, walked by harkaq — build, declare
 * what the diagnosis names, build again — until the recipe is Hermetic or nothing improves
 * (docs/diagnosis.md, "harkaq declare").  This is the loop's rule, over the facts of its
 * builds: pure, so every way it can end is a unit test (tests/unit/test_declare.c).
 *
 * After each build, in this order:
 *   1. a phase without evidence (NoEvidence, no verdict): stop, NO_EVIDENCE — nothing harkaq
 *      cannot vouch for is acted on, nor does it confirm the edit before it;
 *   2. a path the last edit declared a dep for is denied again: stop, REFUTED — the
 *      suggestion did not lead where it said; the edit is undone;
 *   3. every phase ran, exited 0 and is Hermetic: stop, HERMETIC;
 *   4. the same debt (the same set of paths, each in its class) as an earlier build: stop,
 *      NO_PROGRESS; the edit is undone;
 *   5. declarable debt whose suggestions the recipe does not declare yet: GO_ON, declaring
 *      them (each once, in the order the phases met them);
 *   6. declarable debt whose suggestions are all declared already: stop, NO_PROGRESS;
 *   7. irreducible debt (no artifact provides it): stop, IRREDUCIBLE, naming the paths;
 *   8. policy bugs only (harkaq's own fault, never the recipe's): stop, POLICY_BUG;
 *   9. no debt, a phase failed: stop, FAILED — the build fails for another reason.
 * The last edit stands (keep_edit) unless the loop stopped at 1, 2 or 4: the recipe is left as
 * the last edit a build did not refute.  It ends: each GO_ON declares at least one dep the
 * recipe did not have, and a store has finitely many. */
#ifndef HK_DECLARE_H
#define HK_DECLARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/strv.h"
#include "core/evidence/suggest.h"

/* One denied path of a build, expected ones aside: the report's entry (docs/diagnosis.md,
 * "One path, one entry"). */
struct hk_declare_debt {
	const char *path;            /* NULL: a denial without a path (a signal, a socket) */
	enum hk_diag_class cls;      /* HK_DIAG_DECLARABLE, _IRREDUCIBLE or _POLICY_BUG */
	const char *spec;            /* declarable: the spec its suggestion names */
	const char *phase;
};

struct hk_declare_build {
	bool no_evidence;            /* a phase that ran has no verdict, or NoEvidence */
	bool failed;                 /* a phase exited non-zero, or did not run */
	bool hermetic;               /* every phase ran, exited 0, and is Hermetic */
	const struct hk_declare_debt *debt;
	size_t n_debt;
};

/* A dep the loop declared, and the path whose suggestion named it. */
struct hk_declare_added {
	const char *spec;
	const char *path;
};

struct hk_declare_facts {
	const struct hk_declare_build *builds;   /* every build so far; the last is decided */
	size_t n_builds;
	const struct hk_declare_added *added;    /* what was declared before the last build */
	size_t n_added;
	const char *const *declared;             /* the recipe's build deps, as written */
	size_t n_declared;
};

enum hk_declare_next {
	HK_DECLARE_GO_ON = 0,
	HK_DECLARE_HERMETIC,
	HK_DECLARE_IRREDUCIBLE,
	HK_DECLARE_POLICY_BUG,
	HK_DECLARE_FAILED,
	HK_DECLARE_NO_EVIDENCE,
	HK_DECLARE_REFUTED,
	HK_DECLARE_NO_PROGRESS,
};

/* "go_on", "hermetic", "irreducible", "policy_bug", "failed", "no_evidence", "refuted",
 * "no_progress": the JSON's "stop". */
const char *hk_declare_next_name(enum hk_declare_next n);

struct hk_declare_decision {
	enum hk_declare_next next;
	bool keep_edit;              /* the edit before the last build stands */
	/* GO_ON: the specs to declare and the path each answers; IRREDUCIBLE: the paths nobody
	 * provides (specs empty); REFUTED: the spec and the path denied again. */
	struct hk_strv specs, paths;
	char *why;                   /* one sentence, for people */
};

void hk_declare_decide(const struct hk_declare_facts *f, struct hk_declare_decision *d);
void hk_declare_decision_free(struct hk_declare_decision *d);

#endif
