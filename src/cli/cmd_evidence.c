/* harkaq evidence verify|list|show: the evidence objects next to the store (design.md §10,
 * docs/evidence-objects.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/build/report.h"
#include "core/evidence/evobj.h"
#include "core/evidence/evobj_store.h"
#include "core/store/store.h"
#include "core/basic/util.h"

static void evidence_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq evidence [--store DIR] SUBCOMMAND [ARGS...]\n"
		"\n"
		"Evidence objects: each phase verdict of `harkaq build`, with its diagnosis and its\n"
		"blind spots, stored canonically as STORE/.evidence/<blake3-hex>.json (kind\n"
		"harkaq.verdict.v1; format: docs/evidence-objects.md).\n"
		"\n"
		"subcommands:\n"
		"  verify EVIDENCE...  re-hash each object and check it parses, is canonical, is of\n"
		"                      kind harkaq.verdict.v1 and its members decode (EVIDENCE: b3:<hex>,\n"
		"                      8+ hex digits, or a path)\n"
		"  list [--json]       every object: id, phase, state (and 'failed (exit N)' for a\n"
		"                      phase that failed), recipe hash, artifact\n"
		"  show EVIDENCE       the object's exact bytes (after verifying it)\n"
		"\n"
		"exit status: 0 success; 64 usage; 65 an object is missing or does not verify.\n");
}

static int do_verify(const char *store, int argc, char **argv)
{
	int code = HK_EXIT_OK;
	for (int i = 0; i < argc; i++) {
		struct hk_error err = { 0 };
		struct hk_evobj ev;
		char id[HK_B3_ID_LEN];
		if (hk_explain_load(store, argv[i], &ev, id, NULL, &err) < 0) {
			printf("FAILED %s: %s\n", argv[i], err.msg);
			/* An object that is missing or does not verify is the input's. */
			code = cli_exit_as(&err, HK_ERROR_INPUT);
			continue;
		}
		const char *phase = ev.verdict.phase;
		printf("ok %s %s %s\n", id, phase ? phase : "-", hk_verdict_state_name(ev.verdict.state));
		hk_evobj_free(&ev);
	}
	return code;
}

static void kv_str_or_null(struct hk_json *j, const char *key, const char *s)
{
	hk_json_key(j, key);
	if (s)
		hk_json_str(j, s);
	else
		hk_json_null(j);
}

static int do_list(const char *store, bool json)
{
	char **ids;
	size_t n;
	struct hk_error err = { 0 };
	if (hk_evobj_list(store, &ids, &n, &err) < 0)
		return cli_fail("harkaq evidence", &err, HK_ERROR_ENVIRONMENT);
	int code = HK_EXIT_OK;
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 0);
	if (json)
		hk_json_arr_begin(&j);
	for (size_t i = 0; i < n; i++) {
		struct hk_evobj ev;
		char id[HK_B3_ID_LEN];
		bool verified = hk_explain_load(store, ids[i], &ev, id, NULL, &err) == 0;
		if (!verified)
			code = cli_fail("harkaq evidence", &err, HK_ERROR_INPUT);
		/* An object that does not verify says nothing: listed, with nothing read from it. */
		const struct hk_verdict *v = verified ? &ev.verdict : NULL;
		const char *phase = v ? v->phase : NULL, *recipe = v ? v->recipe_hash : NULL;
		const char *art = v ? v->artifact_hash : NULL;
		if (json) {
			hk_json_obj_begin(&j);
			hk_json_kv_str(&j, "id", ids[i]);
			hk_json_kv_bool(&j, "verified", verified);
			kv_str_or_null(&j, "phase", phase);
			kv_str_or_null(&j, "state", v ? hk_verdict_state_name(v->state) : NULL);
			kv_str_or_null(&j, "recipe_hash", recipe);
			kv_str_or_null(&j, "artifact_hash", art);
			hk_json_key(&j, "exit_code");
			if (v && v->has_exit_code)
				hk_json_int(&j, v->exit_code);
			else
				hk_json_null(&j);
			hk_json_obj_end(&j);
		} else {
			/* A failed phase says so next to its state (engine/build/report.h). */
			struct hk_buf st = HK_BUF_INIT;
			if (v)
				hk_report_state(v, &st);
			else
				hk_buf_puts(&st, "UNVERIFIED");
			hk_buf_printf(&out, "%s %-10s %-11s recipe %.19s artifact %.19s\n", ids[i],
				      phase ? phase : "-", hk_buf_str(&st), recipe ? recipe : "-",
				      art ? art : "-");
			hk_buf_free(&st);
		}
		hk_evobj_free(&ev);
		free(ids[i]);
	}
	free(ids);
	if (json) {
		hk_json_arr_end(&j);
		hk_buf_putc(&out, '\n');
	}
	fwrite(out.data, 1, out.len, stdout);
	hk_buf_free(&out);
	return code;
}

static int do_show(const char *store, const char *query)
{
	struct hk_error err = { 0 };
	struct hk_evobj ev;
	char id[HK_B3_ID_LEN];
	struct hk_buf bytes = HK_BUF_INIT;
	if (hk_explain_load(store, query, &ev, id, &bytes, &err) < 0)
		return cli_fail("harkaq evidence", &err, HK_ERROR_INPUT);
	hk_evobj_free(&ev);
	/* The bytes that verified, exactly. */
	fwrite(bytes.data, 1, bytes.len, stdout);
	hk_buf_free(&bytes);
	return HK_EXIT_OK;
}

int cmd_evidence(int argc, char **argv)
{
	const char *store_opt = NULL;
	bool json = false;
	int rc = cli_evidence_options(argc, argv, evidence_usage, &store_opt, &json);
	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		evidence_usage(stderr);
		return HK_EXIT_USAGE;
	}
	const char *store = hk_store_choose_dir(store_opt);
	const char *sub = argv[optind];
	int rest = argc - optind - 1;
	char **args = argv + optind + 1;
	if (strcmp(sub, "verify") == 0 && rest >= 1)
		return do_verify(store, rest, args);
	if (strcmp(sub, "list") == 0 && rest == 0)
		return do_list(store, json);
	if (strcmp(sub, "show") == 0 && rest == 1)
		return do_show(store, args[0]);
	fprintf(stderr, "harkaq evidence: '%s' needs other arguments (see 'harkaq evidence "
			"--help')\n", sub);
	return HK_EXIT_USAGE;
}
