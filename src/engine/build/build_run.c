/* The build engine (engine/build/build.h): from the recipe to verdicts and a sealed artifact.
 * build_prepare.c makes everything ready (engine/build/build_int.h); here each phase runs
 * under the cage, the output is staged and sealed, and the verdicts are given (design.md §9,
 * §7); hk_build_run drives the whole, one named step at a time. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/build/build_int.h"
#include "core/formats/exec_args.h"
#include "engine/cage/cage.h"
#include "engine/common/status.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "engine/cage/reads.h"
#include "engine/build/report.h"
#include "engine/cage/sandbox.h"
#include "engine/cage/verdict_out.h"
#include "core/policy/recipe.h"
#include "core/store/store.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"
#include "sys/interrupt.h"

static char *join_commands(const struct hk_recipe_phase *ph)
{
	struct hk_buf b = HK_BUF_INIT;
	for (size_t i = 0; i < ph->n_commands; i++) {
		hk_buf_puts(&b, ph->commands[i]);
		hk_buf_putc(&b, '\n');
	}
	return hk_buf_steal(&b);
}


/* How each phase's audit reader is started (also the first one, started ahead): it may switch
 * audit on, with its own default backlog floor. */
#define PHASE_READER_MAY_ENABLE true
#define PHASE_READER_BACKLOG_FLOOR (-1L)


/* The argv that runs one phase's commands in the sandbox (under the cage unless --no-cage). */
static int phase_argv(struct build *b, const struct hk_recipe_phase *rp, char ***argv)
{
	char *script = join_commands(rp);
	struct hk_argv inner = { 0 };
	if (b->bo->wrap) {
		char *w = hk_xstrdup(b->bo->wrap), *save = NULL;
		for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save))
			hk_argv_push(&inner, t);
		free(w);
	}
	hk_argv_push(&inner, "/bin/sh");
	hk_argv_push(&inner, "-ec");
	hk_argv_push(&inner, script);
	free(script);
	/* --force-abi: harkaq-exec pretends an older Landlock (fault injection). */
	struct hk_exec_args fault = HK_EXEC_ARGS_INIT;
	fault.force_abi = b->bo->force_abi > 0 ? b->bo->force_abi : -1;
	int rc = hk_sandbox_argv(&b->sb, &b->plan, b->bo->cage ? &fault : NULL, inner.v, argv,
				 b->err);
	hk_argv_free(inner.v);
	return rc;
}

/* Every path bubblewrap will bind, as the build user, before the source is fetched and before
 * any phase: read from the first phase's own command line.  The phases' command lines differ
 * only in their canary, a file harkaq writes (0644) in the work directory, which is checked. */
static int check_binds(struct build *b)
{
	int ph = 0;
	while (ph < HK_PHASE_COUNT && b->r->phases[ph].n_commands == 0)
		ph++;
	if (ph == HK_PHASE_COUNT)
		return 0;
	char **argv = NULL;
	if (phase_argv(b, &b->r->phases[ph], &argv) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	struct hk_reach_list binds = HK_REACH_LIST_INIT;
	hk_sandbox_argv_binds(argv, &binds);
	int rc = build_reach_stop(b, hk_reach_check("the build user", b->bo->user, b->uid, b->gid,
					      hk_store_dir(b->br->store), &binds, b->err));
	hk_reach_list_free(&binds);
	hk_argv_free(argv);
	return rc;
}

/* After a phase ran: whether the cage stood and the evidence can follow.  Returns 0, or the
 * -errno that stops the build. */
static int check_phase_cage(struct build *b, struct phase_result *pr, const char *pname)
{
	const struct hk_cage_result *res = &pr->res;
	if (res->cage_error) {
		hk_fail(b->err, EPERM, "%s: the cage refused to start the phase (layer %s): %s", pname,
			res->cage_error_layer ? res->cage_error_layer : "?", res->cage_error);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	if (b->bo->cage && !res->cage_reported) {
		hk_fail(b->err, EPERM, "%s: the cage never reported (harkaq-exec did not start; "
				       "exit status %d)", pname, res->exit_code);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	if (res->canary_reported && res->canary != HK_CANARY_DENIED) {
		hk_fail(b->err, EPERM, "%s: the canary probe said '%s': the derived policy grants "
				       "what it must not; the phase was not run",
			pname, hk_canary_result_name(res->canary));
		/* A canary the derived policy opens is harkaq's own fault, never the recipe's. */
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, res->canary == HK_CANARY_OPENED
								? HK_ERROR_INTERNAL
								: HK_ERROR_ENVIRONMENT);
	}
	return 0;
}

/* A phase whose canary nonce could not be drawn (err says why): it is not run, its verdict is
 * given now — NoEvidence, no_canary_nonce — and the phases after it are not run either.  The
 * build goes on to its verdicts: the phases before it have theirs, and the exit status says
 * NoEvidence, the verdict of the phase it could not vouch for. */
static void refuse_without_nonce(struct build *b, struct phase_result *pr)
{
	const struct hk_verdict_input in = {
		.policy_id = b->br->plan.policy_id,
		.recipe_hash = b->br->recipe_hash,
		.phase = pr->label,
	};
	hk_verdict_no_canary_nonce(&in, b->err->msg, &pr->verdict);
	pr->has_verdict = true;
	b->not_run_phase = pr->label;
	if (!b->bo->quiet)
		fprintf(stderr, "[%s] not run: no canary nonce (%s)\n", pr->label, b->err->msg);
	hk_error_clear(b->err);
}

/* One phase in its own domain, with its own canary.  Returns 0 to go on (also when the phase
 * itself failed, br->failed_phase says so, or was not run for want of a canary nonce), or the
 * -errno that stops the build. */
static int run_phase(struct build *b, enum hk_phase ph)
{
	struct hk_build_result *br = b->br;
	const struct hk_build_opts *bo = b->bo;
	struct phase_result *pr = &br->phases[br->n_phases++];
	pr->phase = ph;
	pr->label = bo->phase_labels ? bo->phase_labels[ph] : hk_phase_name(ph);
	const char *pname = pr->label;

	/* No reader, no canary: nobody would look for its record. */
	bool evidence = bo->cage && !bo->no_evidence;
	/* Without an unpredictable nonce the build could know its canary's path in advance, and
	 * a canary it can predict proves nothing: no phase runs on a nonce that was not made. */
	char pnonce[33];
	if (evidence && hk_random_hex(pnonce, 16, b->err) < 0) {
		refuse_without_nonce(b, pr);
		return 0;
	}
	hk_autofree char *canary_host = evidence ? hk_xasprintf("%s/canary-%s", br->work, pnonce)
						 : NULL;
	hk_autofree char *canary_sb = evidence ? hk_xasprintf("/.harkaq/canary-%s", pnonce) : NULL;
	if (evidence) {
		static const char body[] = "harkaq canary\n";
		if (hk_file_write_atomic(canary_host, body, sizeof(body) - 1, 0644, b->err) < 0)
			return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	b->sb.canary_host_path = canary_host;
	b->sb.canary_sandbox_path = canary_sb;
	char **argv = NULL;
	if (phase_argv(b, &b->r->phases[ph], &argv) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	struct hk_cage_opts o = {
		.argv = argv,
		.status_fd = HK_SANDBOX_STATUS_FD,
		.canary_path = canary_sb,
		.evidence = evidence,
		.reader_may_enable = PHASE_READER_MAY_ENABLE,
		.backlog_floor = PHASE_READER_BACKLOG_FLOOR,
		.as_user = true,
		.uid = b->uid,
		.gid = b->gid,
		.timeout_s = bo->timeout_s,
		.envp = b->env,
		.quiet = bo->quiet,
		/* The phase's deallocation record is not awaited here: it comes ~40 ms after the
		 * phase's last process is reaped, and no phase needs the previous one's verdict.
		 * The next phases drain its reader and close its evidence when its records are in
		 * (engine/cage/cage.h); hk_cage_finish waits, after the last phase, for what is left. */
		.defer_evidence = evidence,
		.drain = b->pending,
		.n_drain = b->n_pending,
		.reader = b->reader_ahead,
	};
	b->reader_ahead = NULL; /* the run owns it now, whatever happens */
	if (!bo->quiet)
		fprintf(stderr, "[%s] running%s\n", pname, bo->cage ? " under the cage" : "");
	long long t0 = hk_now_ms();
	int rc = hk_cage_run(&o, &pr->res, b->err);
	if (pr->res.pending)
		b->pending[b->n_pending++] = &pr->res;
	pr->ms = hk_now_ms() - t0;
	pr->ran = true;
	hk_argv_free(argv);
	if (canary_host)
		unlink(canary_host);
	if (rc < 0 && b->err->code == EINTR && !hk_interrupted())
		hk_interrupt_note(pr->res.interrupted_by > 0 ? pr->res.interrupted_by : SIGTERM);
	if (hk_interrupted()) {
		if (!bo->quiet)
			fprintf(stderr, "[%s] stopped by signal %d after %.1f s\n", pname,
				hk_interrupted(), (double)pr->ms / 1000.0);
		br->interrupted = hk_interrupted();
		return build_stop_interrupted(b);
	}
	if (rc < 0 && !pr->res.started)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	int stop = check_phase_cage(b, pr, pname);
	if (stop < 0)
		return stop;
	if (!bo->quiet && pr->res.timed_out)
		fprintf(stderr, "[%s] killed at the --timeout of %d s, with everything it started\n",
			pname, bo->timeout_s);
	if (!bo->quiet)
		fprintf(stderr, "[%s] exited %d after %.1f s\n", pname, pr->res.exit_code,
			(double)pr->ms / 1000.0);
	if (hk_cage_failed(&pr->res) || rc < 0)
		br->failed_phase = pname;
	return 0;
}

/* Starts recording the files the phases open (bo->observe_opens).  A watch that cannot be set
 * leaves the build as it is: only the report's converse is then not observed, and says why. */
static void watch_opens(struct build *b)
{
	struct hk_error werr;
	if (!b->bo->observe_opens || hk_reads_start(&b->reads, &b->plan, &b->inos, &werr) == 0)
		return;
	b->br->opened_note = hk_xstrdup(werr.msg);
}

/* Stops recording and keeps what was seen in the result. */
static void keep_opens(struct build *b)
{
	if (!b->reads.running)
		return;
	hk_reads_stop(&b->reads);
	struct hk_build_result *br = b->br;
	hk_strset_free(&br->opened);
	br->opened = b->reads.paths;
	b->reads.paths = (struct hk_strset)HK_STRSET_INIT;
	br->opened_observed = true;
	br->opened_incomplete = b->reads.overflow;
	br->opened_events = b->reads.events;
	hk_reads_free(&b->reads);
}

/* Every phase the recipe has, in order, until one fails. */
static int run_phases(struct build *b)
{
	for (int ph = 0; ph < HK_PHASE_COUNT && !b->br->failed_phase && !b->not_run_phase; ph++) {
		if (b->r->phases[ph].n_commands == 0)
			continue;
		if (hk_interrupted())
			return build_stop_interrupted(b);
		int rc = run_phase(b, (enum hk_phase)ph);
		if (rc < 0)
			return rc;
	}
	if (hk_interrupted())
		return build_stop_interrupted(b);
	return 0;
}

/* What /out is as an artifact: its name, version and runtime deps are the recipe's; its
 * provenance says a build made it (origin "build", core/store/store.h). */
static void output_spec(struct build *b, struct hk_artifact_spec *spec)
{
	const struct hk_recipe *r = b->r;
	if (!b->out_groups) {
		b->out_groups = hk_xcalloc(r->n_runtime_deps + 1, sizeof(*b->out_groups));
		for (size_t i = 0; i < r->n_runtime_deps; i++) {
			b->out_groups[i].alts = hk_xcalloc(1, sizeof(char *));
			b->out_groups[i].alts[0] = hk_xstrdup(r->runtime_deps[i].name
								  ? r->runtime_deps[i].name
								  : r->runtime_deps[i].spec);
			b->out_groups[i].n_alts = 1;
		}
		b->out_source = hk_xasprintf("{\"built_by\":\"harkaq build\",\"recipe_hash\":\"%s\"}",
					     b->br->recipe_hash);
	}
	*spec = (struct hk_artifact_spec){
		.name = r->name,
		.version = r->version,
		.deps = b->out_groups,
		.n_deps = r->n_runtime_deps,
		.source_json = b->out_source,
	};
}

/* Stages the install output in the store (copied, normalised, hashed: hk_store_stage) so that
 * its artifact id is known to the verdicts before they decide whether it may enter the store
 * (store_output).  The copy is made while the last phase's deallocation record is on its way,
 * and lets the work directory go before the verdicts. */
static int stage_output(struct build *b)
{
	const struct hk_recipe *r = b->r;
	struct hk_build_result *br = b->br;
	if (br->failed_phase || b->not_run_phase || r->phases[HK_PHASE_INSTALL].n_commands == 0)
		return 0;
	struct hk_artifact_spec spec;
	output_spec(b, &spec);
	if (hk_store_stage(br->store, b->out, &spec, &b->staged, br->artifact_id, b->err) < 0) {
		hk_wrap(b->err, "hashing /out");
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	return 0;
}

/* Why the staged output stays out of the store (a sentence), or NULL when it may enter: only
 * a build whose every phase is Hermetic is sealed, unless --seal-impure asks for any verdict;
 * --no-seal keeps every output out.  A store is where the diagnosis looks for providers: an
 * impure build's output would be suggested to the next build as a dep to declare. */
static char *why_not_stored(const struct build *b)
{
	const struct hk_build_result *br = b->br;
	if (b->bo->no_seal)
		return hk_xstrdup("--no-seal");
	if (b->bo->seal_impure)
		return NULL;
	if (!b->bo->cage)
		return hk_xstrdup("built without the cage, no verdict vouches for it (--seal-impure "
				  "stores it)");
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		if (!pr->has_verdict || pr->verdict.state != HK_HERMETIC)
			return hk_xasprintf("%s is %s (--seal-impure stores it)", pr->label,
					    pr->has_verdict ? hk_verdict_state_name(pr->verdict.state)
							    : "without a verdict");
	}
	return NULL;
}

/* Removes the staged output, if any (nothing of it stays in the store). */
static void discard_staged(struct build *b)
{
	if (!b->staged)
		return;
	/* Staged, it is no artifact of the store (it has no entry), but it takes room there. */
	struct hk_error rm;
	if (hk_store_remove_tree(b->staged, &rm) < 0)
		fprintf(stderr, "harkaq build: the staged output was left behind: %s\n", rm.msg);
	free(b->staged);
	b->staged = NULL;
}

/* Adds the staged output to the store, or removes it, as the verdicts allow (why_not_stored).
 * The add is all or nothing: signals wait until it is done (hk_store_add cleans its own
 * temporary directory on failure, but not if harkaq dies inside it). */
static int store_output(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (!b->staged)
		return 0;
	hk_autofree char *why = hk_interrupted() ? hk_xstrdup("interrupted") : why_not_stored(b);
	if (why) {
		discard_staged(b);
		if (!b->bo->quiet)
			fprintf(stderr, "artifact   %s  not stored: %s\n", br->artifact_id, why);
		return 0;
	}
	struct hk_artifact_spec spec;
	output_spec(b, &spec);
	const struct hk_artifact *art = NULL;
	bool added = false;
	sigset_t block, saved;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &saved);
	int rc = hk_store_add(br->store, b->staged, &spec, HK_STORE_ADD_CONSUME, &art, &added,
			      b->err);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	free(b->staged);   /* consumed: moved into place, or removed by the add */
	b->staged = NULL;
	if (rc == 0 && strcmp(art->id, br->artifact_id) != 0)
		rc = hk_fail(b->err, EIO, "the staged output hashed to %s and was stored as %s",
			     br->artifact_id, art->id);
	if (rc < 0) {
		hk_wrap(b->err, "sealing /out into the store");
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	br->artifact_dir = hk_xstrdup(art->dirname);
	br->artifact_stored = true;
	if (!b->bo->quiet) {
		fprintf(stderr, "[seal] %s %s\n", art->id, added ? "(new)" : "(already in the store)");
		fprintf(stderr, "artifact   %s  %s\n", br->artifact_id, br->artifact_dir);
	}
	return 0;
}

/* store_output, timed. */
static int seal(struct build *b)
{
	long long t0 = hk_now_ms();
	int rc = store_output(b);
	build_step_done(b, HK_BUILD_T_SEAL, t0);
	return rc;
}

/* Unmounts the merged view and removes the work directory (unless --keep), once. */
static void release_work(struct build *b)
{
	if (b->view_mounted)
		hk_sandbox_unmount(&b->plan);
	b->view_mounted = false;
	if (b->bo->keep && b->work_made) {
		if (!b->bo->quiet)
			fprintf(stderr, "work directory kept: %s\n", b->br->work);
	} else if (b->work_made) {
		/* The build's result stands; the directory left behind is said. */
		struct hk_error rm;
		if (hk_store_remove_tree(b->br->work, &rm) < 0)
			fprintf(stderr, "harkaq build: work directory left behind: %s\n", rm.msg);
	}
	b->work_made = false;
}

/* The release (release_work) in a child, while this process awaits the last deallocation
 * records, gives the verdicts and seals: the unmount and the removal of a build tree (0.04-0.5
 * s) overlap them instead of preceding them.  The child shares the mount namespace the view
 * is mounted in; it is joined before hk_build_run returns (finish_release), so the build
 * leaves nothing behind, however it ends.  --keep, or a failed fork, releases here. */
static void start_release(struct build *b)
{
	b->t_release = hk_now_ms();
	pid_t pid = b->bo->keep ? -1 : fork();
	if (pid == 0) {
		/* Nothing of the build's but its paths: a copy of a descriptor to an audit reader
		 * would keep the reader from seeing its end, and the evidence would wait for this
		 * child. */
		close_range(3, ~0U, 0);
		release_work(b);
		_exit(0);
	}
	if (pid < 0) {
		release_work(b);
		build_step_done(b, HK_BUILD_T_RELEASE, b->t_release);
		return;
	}
	b->release_pid = pid;
	b->view_mounted = false;
	b->work_made = false;
	b->br->ms_steps[HK_BUILD_T_RELEASE] = hk_now_ms() - b->t_release;
}

/* Joins the release's child: the time waited for it is the release's on the build's path
 * (timings_ms.release, beside the fork). */
static void finish_release(struct build *b)
{
	if (b->release_pid <= 0)
		return;
	long long t0 = hk_now_ms();
	while (waitpid(b->release_pid, NULL, 0) < 0 && errno == EINTR)
		;
	b->release_pid = 0;
	b->br->ms_steps[HK_BUILD_T_RELEASE] += hk_now_ms() - t0;
}

/* The phases' evidence (their deallocation records, awaited together, bounded), then a
 * verdict per phase now that the artifact hash is known; returns the worst phase's outcome. */
static int give_verdicts(struct build *b)
{
	struct hk_build_result *br = b->br;
	const struct hk_build_opts *bo = b->bo;
	long long t_finish = hk_now_ms();
	hk_cage_finish(b->pending, b->n_pending);
	br->ms_evidence_finish = hk_now_ms() - t_finish;
	br->ms_steps[HK_BUILD_T_EVIDENCE_FINISH] = br->ms_evidence_finish;
	long long t_verdicts = hk_now_ms();

	enum hk_outcome outcome = HK_OUTCOME_OK;
	struct hk_suggester *sugg = bo->cage ? hk_report_build_suggester(br) : NULL;
	for (size_t i = 0; i < br->n_phases; i++) {
		struct phase_result *pr = &br->phases[i];
		const char *pname = pr->label;
		enum hk_outcome phase_outcome;
		if (bo->cage) {
			struct hk_verdict_out vo = {
				.policy = &br->plan.policy,
				.policy_id = br->plan.policy_id,
				.recipe_hash = br->recipe_hash,
				.artifact_hash = br->artifact_id[0] ? br->artifact_id : NULL,
				.phase = pname,
				.evidence_requested = !bo->no_evidence,
			};
			/* A phase not run for want of a canary nonce has its verdict already. */
			if (!pr->has_verdict)
				hk_verdict_from_run(&vo, &pr->res, &pr->verdict);
			hk_verdict_set_base(&pr->verdict, &br->plan.base);
			hk_verdict_set_deps_sealed(&pr->verdict,
						   hk_deps_sealed_word(br->deps_sealed,
								       br->plan.n_closure));
			pr->has_verdict = true;
			phase_outcome = hk_outcome_of(&pr->verdict, &pr->res);
			/* Diagnosis, evidence object (design.md §8, §10) and the report rendered from it. */
			hk_report_build_phase(sugg, br, pr, bo->quiet);
		} else {
			phase_outcome = hk_cage_failed(&pr->res) ? HK_OUTCOME_COMMAND_FAILED
								 : HK_OUTCOME_OK;
			if (!bo->quiet)
				fprintf(stderr, "%-10s no verdict (--no-cage)\n", pname);
		}
		outcome = hk_outcome_worse(outcome, phase_outcome);
	}
	hk_suggester_free(sugg);
	build_step_done(b, HK_BUILD_T_VERDICTS, t_verdicts);
	if (b->not_run_phase && !bo->quiet)
		fprintf(stderr, "harkaq build: phase %s was not run (no canary nonce), nor the phases "
				"after it\n", b->not_run_phase);
	if (br->failed_phase) {
		outcome = hk_outcome_worse(outcome, HK_OUTCOME_COMMAND_FAILED);
		if (!bo->quiet)
			fprintf(stderr, "harkaq build: phase %s failed; later phases were not run\n",
				br->failed_phase);
	}
	return outcome;
}

/* The steps up to the verdicts; returns 0 to go on to them, or the -errno that stops the
 * build. */
static int prepare_and_run(struct build *b)
{
	int rc;
	if ((rc = build_name_work(b)) || (rc = build_plan_sandbox(b)))
		return rc;
	if (hk_interrupted())
		return build_stop_interrupted(b);
	long long t0 = hk_now_ms();
	if ((rc = build_make_work(b)) || (rc = build_mount_view_and_verify(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_MOUNT_VERIFY, t0);
	t0 = hk_now_ms();
	if ((rc = build_source_ready(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_SOURCE_WAIT, t0);
	t0 = hk_now_ms();
	if (b->bo->cage && (rc = build_write_policy_files(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_POLICY_FILES, t0);
	t0 = hk_now_ms();
	if ((rc = check_binds(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_BINDS, t0);
	build_print_plan(b);
	t0 = hk_now_ms();
	if ((rc = build_place_source(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_SOURCE, t0);
	t0 = hk_now_ms();
	watch_opens(b);
	build_step_done(b, HK_BUILD_T_READS_START, t0);
	t0 = hk_now_ms();
	rc = run_phases(b);
	build_step_done(b, HK_BUILD_T_PHASES, t0);
	t0 = hk_now_ms();
	keep_opens(b);
	build_step_done(b, HK_BUILD_T_READS_STOP, t0);
	t0 = hk_now_ms();
	if (rc || (rc = stage_output(b)))
		return rc;
	build_step_done(b, HK_BUILD_T_STAGE, t0);
	if (b->bo->keep_out && rename(b->out, b->bo->keep_out) < 0) {
		hk_fail_errno(b->err, errno, "keeping /out as %s", b->bo->keep_out);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	/* The work directory and the merged view are done with: removing them is real work that
	 * overlaps the kernel's delay before the last phase's deallocation record, the verdicts
	 * and the seal. */
	start_release(b);
	return 0;
}

int hk_build_run(const struct hk_build_opts *bo, struct hk_build_result *br, struct hk_error *err)
{
	memset(br, 0, sizeof(*br));
	br->cage = bo->cage;
	br->opened = (struct hk_strset)HK_STRSET_INIT;
	for (int s = 0; s < HK_BUILD_T_COUNT; s++)
		br->ms_steps[s] = -1;
	long long t_run = hk_now_ms();
	struct build b = { .bo = bo, .br = br, .err = err, .r = &br->recipe,
			   .reads = { .fd = -1, .stop = { -1, -1 } }, .inos = HK_INOS_INIT };
	int rc = build_open_inputs(&b);
	if (rc < 0) {
		free(b.exec_path);
		br->ms_total = hk_now_ms() - t_run;
		return rc;
	}
	build_step_done(&b, HK_BUILD_T_OPEN, t_run);
	/* The first phase's audit reader starts now and gets ready while the build plans, mounts,
	 * verifies and copies the source (~10 ms of start-up off the build's path).  It proves
	 * what a reader started by the phase proves: docs/audit-reader.md, "Started ahead". */
	if (bo->cage && !bo->no_evidence)
		b.reader_ahead = hk_cage_reader_start_ahead(PHASE_READER_MAY_ENABLE,
							    PHASE_READER_BACKLOG_FLOOR);
	rc = prepare_and_run(&b);
	hk_cage_reader_discard(b.reader_ahead); /* no phase ran to take it over */
	b.reader_ahead = NULL;
	/* An output whose entry into the store the verdicts do not decide (--seal-impure, as a
	 * Debian build's; --no-seal) is sealed while the last deallocation records are on their
	 * way; any other waits for the verdicts (why_not_stored). */
	bool seal_first = bo->seal_impure || bo->no_seal;
	int sealed = 0;
	if (rc == 0 && seal_first)
		sealed = seal(&b);
	if (rc == 0)
		rc = give_verdicts(&b);
	if (rc >= 0 && !seal_first)
		sealed = seal(&b);
	if (rc >= 0 && sealed < 0)
		rc = sealed;
	/* A signal that cut a step short (a source fetch killed by Ctrl-C…) is the reason the
	 * build stopped, whatever error that step then reported.  Once sealed, the artifact is
	 * whole (the seal runs with the signals blocked) and the result stands. */
	if (hk_interrupted() && !br->artifact_stored &&
	    !(rc < 0 && hk_error_class(err) == HK_ERROR_INTERRUPTED)) {
		rc = build_stop_interrupted(&b);
		br->interrupted = hk_interrupted();
	}
	finish_release(&b);
	if (!bo->quiet && rc >= 0)
		fprintf(stderr, "[done] %.1f s\n", (double)(hk_now_ms() - b.t_build) / 1000.0);
	release_work(&b);
	discard_staged(&b);
	if (b.out_groups)
		hk_dep_groups_free(b.out_groups, b.r->n_runtime_deps);
	free(b.out_source);
	hk_sandbox_plan_free(&b.plan);
	hk_inos_free(&b.inos);
	hk_argv_free(b.env);
	free(b.exec_path);
	free(b.src);
	free(b.out);
	free(b.stage);
	free(b.policy_path);
	free(b.collapse_path);
	br->ms_total = hk_now_ms() - t_run;
	return rc;
}
