#include "engine/cage/verdict_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/common/status.h"
#include "sys/nsinit.h"
#include "core/basic/util.h"

void hk_verdict_from_run(const struct hk_verdict_out *vo, const struct hk_cage_result *res,
			 struct hk_verdict *v)
{
	struct hk_verdict_input in = { 0 };
	in.abi = res->abi < 0 ? 0 : res->abi;
	in.kernel_abi = res->real_abi < 0 ? in.abi : res->real_abi;
	if (res->cage_reported && res->cage.log_flag_withheld) {
		in.cage_incomplete = true;
		in.cage_incomplete_detail =
			"LOG_NEW_EXEC_ON was withheld (test switch): denials after execve are not logged";
	}
	in.audit_confirmed = res->audit_confirmed;
	in.reader_failed = res->reader_failed || !res->reader_ready;
	in.reader_error = res->reader_error;
	if (!vo->evidence_requested) {
		in.reader_failed = true;
		in.reader_error = "evidence collection was switched off (--no-evidence)";
	}
	in.canary_opened = res->canary_reported && res->canary == HK_CANARY_OPENED;
	in.timed_out = res->timed_out;
	in.lost_before = res->lost_before < 0 ? 0 : (uint64_t)res->lost_before;
	in.lost_after = res->lost_after < 0 ? in.lost_before : (uint64_t)res->lost_after;
	in.enobufs = (uint64_t)res->enobufs;
	in.evidence = vo->evidence_requested ? &res->evidence : NULL;
	in.policy = vo->policy;
	in.policy_id = vo->policy_id;
	in.recipe_hash = vo->recipe_hash;
	in.artifact_hash = vo->artifact_hash;
	in.phase = vo->phase;
	hk_verdict_compute(&in, v);
	v->collapsed_dirs = res->cage_reported ? (size_t)res->cage.beneath : 0;
	v->has_exit_code = res->started;
	v->exit_code = res->exit_code;
}

void hk_run_report_json(const struct hk_verdict *v, const struct hk_cage_result *res,
			const struct hk_runtime_report *rt, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "verdict");
	hk_verdict_json(v, j);
	hk_json_key(j, "command");
	hk_json_obj_begin(j);
	hk_json_key(j, "exit_code");
	hk_json_int(j, res->exit_code);
	hk_json_key(j, "signal");
	if (WIFSIGNALED(res->wait_status))
		hk_json_int(j, WTERMSIG(res->wait_status));
	else
		hk_json_null(j);
	hk_json_key(j, "timed_out");
	hk_json_bool(j, res->timed_out);
	hk_json_key(j, "leftovers_killed");
	hk_json_int(j, res->leftovers_killed);
	/* "empty": its own network namespace; "host": --share-net, nothing denied or recorded. */
	hk_json_key(j, "network");
	hk_json_str(j, (res->namespaces & HK_NS_NET) ? "empty" : "host");
	hk_json_obj_end(j);
	hk_json_key(j, "cage");
	if (res->cage_reported)
		hk_cage_report_json(&res->cage, j);
	else
		hk_json_null(j);
	hk_json_key(j, "canary_probe");
	if (res->canary_reported)
		hk_json_str(j, hk_canary_result_name(res->canary));
	else
		hk_json_null(j);
	hk_json_key(j, "audit");
	hk_json_obj_begin(j);
	hk_json_key(j, "before");
	if (res->have_audit_before)
		hk_audit_status_json(j, &res->audit_before);
	else
		hk_json_null(j);
	hk_json_key(j, "after");
	if (res->have_audit_after)
		hk_audit_status_json(j, &res->audit_after);
	else
		hk_json_null(j);
	/* What the reader changed at start-up; null when it never became ready. */
	hk_json_key(j, "changed");
	if (res->reader_ready)
		hk_audit_changes_json(j, res->audit_changed, res->n_audit_changed);
	else
		hk_json_null(j);
	hk_json_obj_end(j);
	if (rt && rt->program) {
		hk_json_key(j, "runtime");
		hk_json_obj_begin(j);
		hk_json_key(j, "program");
		hk_json_bytes(j, rt->program, strlen(rt->program));
		hk_json_key(j, "paths");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < rt->paths.len; i++)
			hk_json_bytes(j, rt->paths.items[i], strlen(rt->paths.items[i]));
		hk_json_arr_end(j);
		hk_json_obj_end(j);
	}
	hk_json_key(j, "timing_ms");
	hk_cage_timing_json(res, j);
	hk_json_obj_end(j);
}

enum hk_outcome hk_outcome_of(const struct hk_verdict *v, const struct hk_cage_result *res)
{
	if (v->state == HK_NOEVIDENCE)
		return HK_OUTCOME_NOEVIDENCE;
	if (v->state == HK_IMPURE)
		return HK_OUTCOME_IMPURE;
	return hk_cage_failed(res) ? HK_OUTCOME_COMMAND_FAILED : HK_OUTCOME_OK;
}

void hk_print_labelled(FILE *f, const char *label, const char *text)
{
	/* The label in a column of its own; continuation lines indented under the text. */
	bool first = true;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(f, "%-10s %.*s\n", first ? label : "", (int)n, p);
		first = false;
		p += n + (nl ? 1 : 0);
	}
}

int hk_verdict_emit(const struct hk_verdict_out *vo, const struct hk_cage_result *res,
		    const struct hk_runtime_report *rt, struct hk_error *err)
{
	const char *label = vo->label ? vo->label : "run";
	/* A protection that could not be installed: the command never ran (fail closed). */
	if (res->cage_error) {
		return hk_fail_as(err, HK_ERROR_ENVIRONMENT, EPERM,
				  "the cage refused to start the command (layer: %s): %s",
				  res->cage_error_layer ? res->cage_error_layer : "?", res->cage_error);
	}
	if (vo->evidence_requested && !res->cage_reported) {
		return hk_fail_as(err, HK_ERROR_ENVIRONMENT, EPERM,
				  "the cage never reported (harkaq-exec did not start or died before "
				  "installing its layers; exit status %d): no verdict",
				  res->exit_code);
	}
	if (res->canary_reported && res->canary == HK_CANARY_OPENED) {
		/* The user's own policy grants it (harkaq run): the input is wrong. */
		return hk_fail_as(err, HK_ERROR_INPUT, EPERM,
				  "the canary %s could be opened inside the cage: the policy grants "
				  "it, so the cage cannot testify; the command was not run",
				  res->evidence.canary_path ? res->evidence.canary_path : "?");
	}
	if (res->canary_reported && res->canary != HK_CANARY_DENIED) {
		return hk_fail_as(err, HK_ERROR_ENVIRONMENT, EIO,
				  "the canary probe failed (%s); the command was not run",
				  hk_canary_result_name(res->canary));
	}

	struct hk_verdict v;
	hk_verdict_from_run(vo, res, &v);
	if (!vo->quiet) {
		struct hk_buf s = HK_BUF_INIT;
		hk_verdict_summary(&v, &s);
		hk_print_labelled(stderr, label, hk_buf_str(&s));
		if (res->timed_out)
			fprintf(stderr, "%-10s note: the command was killed at its time limit\n", "");
		if (res->leftovers_killed)
			fprintf(stderr, "%-10s note: %d process(es) still running after the command "
					"exited were killed\n", "", res->leftovers_killed);
		if (res->exit_code != 0)
			fprintf(stderr, "%-10s note: the command exited with status %d\n", "",
				res->exit_code);
		hk_buf_free(&s);
	}
	if (vo->json || vo->verdict_out) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_run_report_json(&v, res, rt, &j);
		hk_buf_putc(&b, '\n');
		if (vo->json) {
			fwrite(b.data, 1, b.len, stdout);
			fflush(stdout);
		}
		if (vo->verdict_out) {
			FILE *f = fopen(vo->verdict_out, "w");
			if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0)
				fprintf(stderr, "harkaq %s: cannot write %s: %s\n", label,
					vo->verdict_out, strerror(errno));
		}
		hk_buf_free(&b);
	}
	enum hk_outcome outcome = hk_outcome_of(&v, res);
	hk_verdict_free(&v);
	return (int)outcome;
}
