/* Why a build stopped before giving its verdicts, as its result JSON says it (docs/sweep.md):
 *
 *   "failure": null | {"stage": "recipe"|"deps"|"fetch"|"setup", "signal": N|null}
 *
 * `harkaq build` writes it (the stage is set where the failing step runs, never guessed from
 * the message) and `harkaq sweep` reads it to code a failed recipe.  This is its one encoder
 * and its one decoder. */
#ifndef HK_CORE_BUILD_FAILURE_H
#define HK_CORE_BUILD_FAILURE_H

#include <stdbool.h>

#include "core/basic/error.h"
#include "core/formats/json.h"

enum hk_build_stage {
	HK_BUILD_STAGE_NONE = 0,    /* the build did not stop early */
	HK_BUILD_STAGE_RECIPE,      /* the recipe does not load (file:line:col) */
	HK_BUILD_STAGE_DEPS,        /* a declared dep is not in the store, or no closure */
	HK_BUILD_STAGE_FETCH,       /* the source could not be fetched or unpacked */
	HK_BUILD_STAGE_SETUP,       /* any other set-up step, or a signal stopped it */
};

struct hk_build_failure {
	enum hk_build_stage stage;
	int signal;                 /* the signal that stopped the build, 0 when none */
};

/* Whether a phase's command failed: it exited non-zero or was killed (exit_code 128+signal),
 * or was stopped at its time limit.  The one rule every report and decision uses: a phase
 * stopped at its limit failed even if the status it was given reads 0. */
bool hk_phase_failed(int exit_code, bool timed_out);

/* "recipe", "deps", "fetch", "setup" (NULL for HK_BUILD_STAGE_NONE). */
const char *hk_build_stage_name(enum hk_build_stage s);

/* Writes the member "failure" (null when the stage is NONE). */
void hk_build_failure_json(const struct hk_build_failure *f, struct hk_json *j);
/* Reads the member "failure" of a build result object.  A result without the member (or with
 * null) gives stage NONE.  -EINVAL when it is malformed (an unknown stage, a wrong type). */
HK_MUST_CHECK int hk_build_failure_decode(const struct hk_jval *result, struct hk_build_failure *f,
			    struct hk_error *err);

#endif
