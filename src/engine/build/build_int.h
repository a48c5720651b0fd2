/* What the two halves of a build share (engine/build/build.h): build_prepare.c makes ready
 * everything a phase needs (the inputs, the plan, the work directory, the merged view and the
 * closure's verification, the policy files, the source); build_run.c runs the phases, stages
 * and seals the output, gives the verdicts and drives the whole (hk_build_run).  build_run.c
 * calls build_prepare.c, never the other way round.  Internal to those two files. */
#ifndef HK_ENGINE_BUILD_INT_H
#define HK_ENGINE_BUILD_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/build/build.h"
#include "engine/cage/cage.h"
#include "engine/cage/reads.h"
#include "engine/cage/sandbox.h"
#include "core/basic/inos.h"

/* Everything one build holds while it runs; released at the end of hk_build_run (build_run.c). */
struct build {
	const struct hk_build_opts *bo;
	struct hk_build_result *br;
	struct hk_error *err;
	struct hk_recipe *r;
	uid_t uid;
	gid_t gid;
	long long t_build;
	char *exec_path;            /* harkaq-exec on the host (caged builds) */
	char *src, *out, *stage, *policy_path, *collapse_path;
	char **env;
	struct hk_sandbox sb;
	struct hk_sandbox_plan plan;
	bool work_made, view_mounted;
	struct hk_reads reads;      /* bo->observe_opens: the opens of the phases */
	struct hk_inos inos;        /* the verified trees' files, for the watch of the opens */
	/* the install output staged in the store (stage_output), until stored or removed */
	char *staged;
	struct hk_dep_group *out_groups;   /* its runtime deps, as an artifact spec wants them */
	char *out_source;
	/* phases whose evidence is still coming (defer_evidence) */
	struct hk_cage_result *pending[HK_PHASE_COUNT];
	size_t n_pending;
	/* the first phase's audit reader, started while the build sets up (NULL once a phase
	 * took it over) */
	struct hk_cage_reader *reader_ahead;
	/* The phase that was not run for want of a canary nonce (refuse_without_nonce): the
	 * phases after it are not run either, and nothing is staged. */
	const char *not_run_phase;
	/* The child unmounting the merged view and removing the work directory (start_release),
	 * until joined (finish_release); and when it started. */
	pid_t release_pid;
	long long t_release;
};


/* ---- the steps' discipline (build_prepare.c) ---- */

/* A step that stopped the build at `stage`, with the error in b->err of class `cls`; returns
 * -errno. */
HK_MUST_CHECK int build_stop_at(struct build *b, enum hk_build_stage stage, enum hk_error_class cls);
/* A signal stopped the build (hk_interrupted()): says so in b->err and in the result;
 * returns -errno. */
HK_MUST_CHECK int build_stop_interrupted(struct build *b);
/* Records how long step `s` took since `t0` (hk_build_result.ms_steps). */
void build_step_done(struct build *b, enum hk_build_step s, long long t0);
/* What a hk_reach_check* call returned (0, > 0: a path unreachable, < 0: no answer), as the
 * build's stop; 0 to go on. */
HK_MUST_CHECK int build_reach_stop(struct build *b, int rc);

/* ---- the preparation, in the order hk_build_run takes it (build_prepare.c) ---- */

/* Each returns 0 to go on, or the -errno that stops the build (b->err and the result's
 * failed_stage say why and where). */
HK_MUST_CHECK int build_open_inputs(struct build *b);
HK_MUST_CHECK int build_name_work(struct build *b);
HK_MUST_CHECK int build_plan_sandbox(struct build *b);
HK_MUST_CHECK int build_make_work(struct build *b);
HK_MUST_CHECK int build_mount_view_and_verify(struct build *b);
HK_MUST_CHECK int build_source_ready(struct build *b);
HK_MUST_CHECK int build_write_policy_files(struct build *b);
void build_print_plan(const struct build *b);
HK_MUST_CHECK int build_place_source(struct build *b);

#endif
