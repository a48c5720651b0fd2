/* Turning one caged run into its verdict, and the verdict into output and an outcome. */
#ifndef HK_ENGINE_VERDICT_OUT_H
#define HK_ENGINE_VERDICT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/cage/cage.h"
#include "engine/cage/runtime.h"
#include "engine/common/status.h"
#include "core/policy/policy.h"
#include "core/evidence/verdict.h"

struct hk_verdict_out {
	const struct hk_policy *policy;
	const char *policy_id;
	const char *recipe_hash;     /* optional */
	const char *artifact_hash;   /* optional */
	const char *phase;           /* optional */
	bool evidence_requested;     /* false: --no-evidence */
	bool json;                   /* JSON on stdout */
	const char *verdict_out;     /* JSON to this file */
	bool quiet;
	const char *label;           /* "run", "configure", … (human output) */
};

/* Computes the verdict of a finished run. */
void hk_verdict_from_run(const struct hk_verdict_out *vo, const struct hk_cage_result *res,
			 struct hk_verdict *v);

/* Writes {"verdict":…, "command":…, "cage":…, "audit":…, "timing_ms":…} */
void hk_run_report_json(const struct hk_verdict *v, const struct hk_cage_result *res,
			const struct hk_runtime_report *rt, struct hk_json *j);

/* Computes, prints (summary on stderr, JSON as asked) and returns the outcome (>= 0), or, when
 * the cage did not stand (it refused to start the command, never reported, or its canary probe
 * failed), -errno with err saying why: no verdict is printed then. */
HK_MUST_CHECK int hk_verdict_emit(const struct hk_verdict_out *vo, const struct hk_cage_result *res,
				  const struct hk_runtime_report *rt, struct hk_error *err);

/* Prints text under a label column: "label      line 1\n           line 2\n". */
void hk_print_labelled(FILE *f, const char *label, const char *text);

/* The outcome of a verdict and the command's own status (engine/common/status.h). */
enum hk_outcome hk_outcome_of(const struct hk_verdict *v, const struct hk_cage_result *res);

#endif
