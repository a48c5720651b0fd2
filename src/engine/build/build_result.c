/* A build's result: the JSON `harkaq build --json` prints and the sweep reads (docs/sweep.md),
 * and its release. */
#include <stdlib.h>
#include <string.h>

#include "engine/build/build.h"
#include "engine/build/report.h"
#include "core/basic/util.h"

const char *hk_build_step_name(enum hk_build_step s)
{
	static const char *const names[HK_BUILD_T_COUNT] = {
		[HK_BUILD_T_OPEN] = "open",
		[HK_BUILD_T_DERIVE] = "derive",
		[HK_BUILD_T_VIEW] = "store_view",
		[HK_BUILD_T_SANDBOX_PLAN] = "sandbox_plan",
		[HK_BUILD_T_MOUNT_VERIFY] = "mount_verify",
		[HK_BUILD_T_SOURCE_WAIT] = "source_wait",
		[HK_BUILD_T_POLICY_FILES] = "policy_files",
		[HK_BUILD_T_BINDS] = "binds",
		[HK_BUILD_T_SOURCE] = "source",
		[HK_BUILD_T_READS_START] = "converse_start",
		[HK_BUILD_T_PHASES] = "phases",
		[HK_BUILD_T_READS_STOP] = "converse_stop",
		[HK_BUILD_T_STAGE] = "stage",
		[HK_BUILD_T_RELEASE] = "release",
		[HK_BUILD_T_EVIDENCE_FINISH] = "evidence_finish",
		[HK_BUILD_T_VERDICTS] = "verdicts",
		[HK_BUILD_T_SEAL] = "seal",
	};
	return (unsigned)s < HK_BUILD_T_COUNT ? names[s] : "?";
}

void hk_build_result_json(const struct hk_build_result *br, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "recipe");
	if (br->recipe_loaded) {
		hk_json_obj_begin(j);
		hk_json_key(j, "name");
		hk_json_str(j, br->recipe.name);
		hk_json_key(j, "version");
		hk_json_str(j, br->recipe.version);
		hk_json_key(j, "path");
		if (br->recipe.path)
			hk_json_bytes(j, br->recipe.path, strlen(br->recipe.path));
		else
			hk_json_null(j);
		hk_json_key(j, "hash");
		hk_json_str(j, br->recipe_hash);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j); /* it did not load: "error" says why */
	}
	hk_json_key(j, "caged");
	hk_json_bool(j, br->cage);
	hk_json_key(j, "policy_id");
	if (br->plan_ok)
		hk_json_str(j, br->plan.policy_id);
	else
		hk_json_null(j);
	hk_json_key(j, "closure");
	hk_json_arr_begin(j);
	for (size_t i = 0; br->plan_ok && i < br->plan.n_closure; i++)
		hk_json_str(j, br->plan.closure_names[i]);
	hk_json_arr_end(j);
	hk_json_key(j, "deps_sealed");
	const char *sealed_word =
		br->plan_ok ? hk_deps_sealed_word(br->deps_sealed, br->plan.n_closure) : NULL;
	if (sealed_word)
		hk_json_str(j, sealed_word);
	else
		hk_json_null(j);
	/* The base the build stood on (docs/bases.md), whether or not a phase ran. */
	hk_json_key(j, "base");
	if (br->plan_ok) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "id", br->plan.base.id);
		hk_json_kv_str(j, "name", br->plan.base.name);
		hk_json_kv_bool(j, "pinned", br->plan.base.pinned);
		hk_json_kv_uint(j, "packages", br->plan.base.packages);
		hk_json_kv_str(j, "view", br->plan.base.view);
		hk_json_kv_uint(j, "base_packages_granted", br->plan.n_base_packages);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	/* Whether the policy and the collapse plan were kept from an earlier build of the same
	 * inputs (docs/store.md, "Kept plans"). */
	hk_json_key(j, "kept_plan");
	if (br->plan_ok) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "policy", hk_plan_kept_name(br->plan.policy_kept));
		hk_json_kv_str(j, "collapse", hk_plan_kept_name(br->plan.collapse_kept));
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	/* The wait, after the last phase and the staging of its output, for the deallocation
	 * records still outstanding (each phase's part is its timing_ms.dealloc_wait; bench/run
	 * adds this to the phases). */
	hk_json_key(j, "evidence_finish_ms");
	hk_json_int(j, br->ms_evidence_finish);
	/* Where the whole build's time went, step by step (null: not reached). */
	hk_json_key(j, "timings_ms");
	hk_json_obj_begin(j);
	for (int s = 0; s < HK_BUILD_T_COUNT; s++) {
		hk_json_key(j, hk_build_step_name((enum hk_build_step)s));
		if (br->ms_steps[s] >= 0)
			hk_json_int(j, br->ms_steps[s]);
		else
			hk_json_null(j);
	}
	hk_json_key(j, "total");
	hk_json_int(j, br->ms_total);
	hk_json_obj_end(j);
	/* fanotify's watch for the converse (cli/reads.h): events read, distinct paths kept. */
	hk_json_key(j, "opens_observed");
	if (br->opened_observed) {
		hk_json_obj_begin(j);
		hk_json_kv_uint(j, "events", br->opened_events);
		hk_json_kv_uint(j, "paths", br->opened.len);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	hk_json_key(j, "phases");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		hk_json_obj_begin(j);
		hk_json_key(j, "phase");
		hk_json_str(j, pr->label);
		hk_json_key(j, "exit_code");
		hk_json_int(j, pr->res.exit_code);
		/* A phase killed at --timeout, and processes still alive when its shell exited
		 * (killed too): the verdict covers only what ran, so say it was cut short. */
		hk_json_key(j, "timed_out");
		hk_json_bool(j, pr->res.timed_out);
		hk_json_key(j, "leftovers_killed");
		hk_json_int(j, pr->res.leftovers_killed);
		hk_json_key(j, "ms");
		hk_json_int(j, pr->ms);
		/* What the evidence channel adds to the phase (bench/run reads it). */
		hk_json_key(j, "timing_ms");
		hk_cage_timing_json(&pr->res, j);
		/* How the cage installed the policy: rules per grant, collapsed directories. */
		hk_json_key(j, "rules");
		if (pr->res.cage_reported) {
			const struct hk_cage_report *c = &pr->res.cage;
			const struct {
				const char *key;
				uint64_t value;
			} counts[] = {
				{ "rules", c->rules },       { "ancestors", c->ancestors },
				{ "beneath", c->beneath },   { "covered", c->covered },
				{ "declined", c->declined }, { "ro_sb_truncate", c->ro_sb_truncate },
				{ "installers", c->installers },
			};
			hk_json_obj_begin(j);
			for (size_t k = 0; k < HK_ARRAY_LEN(counts); k++) {
				hk_json_key(j, counts[k].key);
				hk_json_uint(j, counts[k].value);
			}
			hk_json_obj_end(j);
		} else {
			hk_json_null(j);
		}
		/* The entry points the filter covers, and those the kernel offered this phase:
		 * "installed for i386" and "i386 reachable" are different facts. */
		hk_json_key(j, "seccomp");
		if (pr->res.cage_reported) {
			const struct hk_cage_report *c = &pr->res.cage;
			hk_json_obj_begin(j);
			hk_json_key(j, "arches");
			hk_json_arr_begin(j);
			for (size_t k = 0; k < c->seccomp_arches.n; k++)
				hk_json_str(j, c->seccomp_arches.v[k]);
			hk_json_arr_end(j);
			hk_json_key(j, "reachable");
			hk_json_arr_begin(j);
			for (size_t k = 0; k < c->seccomp_reachable.n; k++)
				hk_json_str(j, c->seccomp_reachable.v[k]);
			hk_json_arr_end(j);
			hk_json_obj_end(j);
		} else {
			hk_json_null(j);
		}
		hk_json_key(j, "verdict");
		if (pr->has_verdict)
			hk_verdict_json(&pr->verdict, j);
		else
			hk_json_null(j);
		/* The diagnosis, as docs/diagnosis.md describes it, and the evidence object's id. */
		hk_json_key(j, "report");
		hk_report_build_phase_json(pr, j);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "failed_phase");
	if (br->failed_phase)
		hk_json_str(j, br->failed_phase);
	else
		hk_json_null(j);
	hk_json_key(j, "artifact");
	if (br->artifact_id[0])
		hk_json_str(j, br->artifact_id);
	else
		hk_json_null(j);
	/* Whether that artifact entered the store (only Hermetic builds do by default). */
	hk_json_kv_bool(j, "artifact_stored", br->artifact_stored);
	hk_json_key(j, "interrupted_by_signal");
	if (br->interrupted)
		hk_json_int(j, br->interrupted);
	else
		hk_json_null(j);
	/* Where it stopped, typed, for the sweep (core/evidence/build_failure.h). */
	const struct hk_build_failure failure = { br->failed_stage, br->failed_signal };
	hk_build_failure_json(&failure, j);
	hk_json_key(j, "error");
	if (br->error)
		hk_json_bytes(j, br->error, strlen(br->error));
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

void hk_build_result_free(struct hk_build_result *br)
{
	hk_strset_free(&br->opened);
	free(br->opened_note);
	for (size_t i = 0; i < br->n_phases; i++) {
		if (br->phases[i].has_verdict)
			hk_verdict_free(&br->phases[i].verdict);
		if (br->phases[i].ran)
			hk_cage_result_free(&br->phases[i].res);
		hk_buf_free(&br->phases[i].evidence);
		if (br->phases[i].has_diag)
			hk_diagnosis_free(&br->phases[i].diag);
	}
	if (br->plan_ok)
		hk_build_plan_free(&br->plan);
	if (br->view.path)
		hk_view_release(&br->view);
	if (br->recipe_loaded)
		hk_recipe_free(&br->recipe);
	if (br->store)
		hk_store_close(br->store);
	free(br->work);
	free(br->artifact_dir);
	memset(br, 0, sizeof(*br));
}
