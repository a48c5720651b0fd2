/* harkaq explain EVIDENCE…: re-renders stored verdicts (evidence objects, design.md §10) as the
 * build printed them, or as the JSON report (docs/diagnosis.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/build/report.h"
#include "core/evidence/evobj.h"
#include "core/evidence/evobj_store.h"
#include "core/store/store.h"
#include "core/basic/util.h"

static void explain_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq explain [--store DIR] [--json] EVIDENCE...\n"
		"\n"
		"Re-renders stored verdicts: the per-phase report `harkaq build` printed (declarable\n"
		"and irreducible debt, policy bugs, expected denials), from the evidence object alone.\n"
		"EVIDENCE is an evidence id (b3:<hex>, or at least 8 hex digits of one) in the store's\n"
		".evidence directory, or the path of an object file.  The object is verified first\n"
		"(hash, kind, canonical form, each member's type and value): a changed object is\n"
		"refused.\n"
		"\n"
		"options:\n"
		"  --store DIR   the store (default: $HARKAQ_STORE, else ./store)\n"
		"  --json        one JSON report per object on stdout (JSON Lines)\n"
		"\n"
		"exit status: 0 rendered; 64 usage; 65 not found, ambiguous, or does not verify.\n");
}

int hk_explain_load(const char *store, const char *query, struct hk_evobj *ev,
		    char id[HK_B3_ID_LEN], struct hk_buf *bytes_out, struct hk_error *err)
{
	memset(ev, 0, sizeof(*ev));
	hk_autofree char *path = NULL;
	int r = hk_evobj_find(store, query, &path, id, err);
	if (r < 0)
		return r;
	struct hk_buf bytes = HK_BUF_INIT;
	r = hk_evobj_read(path, &bytes, err);
	if (r == 0) {
		/* An object named by something else than its hash is checked for form only; its
		 * id is then what its bytes hash to. */
		if (!id[0])
			hk_b3_id(bytes.data, bytes.len, id);
		struct hk_jval *parsed = NULL;
		r = hk_evobj_check(bytes.data, bytes.len, id, &parsed, err);
		if (r == 0)
			r = hk_evobj_decode(parsed, ev, err);
		hk_jval_free(parsed);
		if (r < 0)
			hk_wrap(err, "evidence object %s does not verify", path);
	}
	if (r == 0 && bytes_out)
		*bytes_out = bytes;
	else
		hk_buf_free(&bytes);
	return r;
}

enum { OPT_STORE = 1000, OPT_JSON, OPT_HELP };

int cli_evidence_options(int argc, char **argv, void (*usage)(FILE *), const char **store_opt,
			bool *json)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, OPT_STORE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE: *store_opt = optarg; break;
		case OPT_JSON: *json = true; break;
		case OPT_HELP:
		case 'h':
			usage(stdout);
			return HK_EXIT_OK;
		default:
			usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	return -1;
}

int cmd_explain(int argc, char **argv)
{
	const char *store_opt = NULL;
	bool json = false;
	int rc = cli_evidence_options(argc, argv, explain_usage, &store_opt, &json);
	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		fprintf(stderr, "harkaq explain: name at least one EVIDENCE (see 'harkaq explain "
				"--help')\n");
		return HK_EXIT_USAGE;
	}
	const char *store = hk_store_choose_dir(store_opt);
	int code = HK_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		struct hk_error err = { 0 };
		struct hk_evobj ev;
		char id[HK_B3_ID_LEN];
		if (hk_explain_load(store, argv[i], &ev, id, NULL, &err) < 0) {
			code = cli_fail("harkaq explain", &err, HK_ERROR_INPUT);
			continue;
		}
		struct hk_buf out = HK_BUF_INIT;
		if (json) {
			struct hk_json j;
			hk_json_init(&j, &out, 0);
			hk_report_json(&ev.verdict, &ev.diag, id, &j);
			hk_buf_putc(&out, '\n');
		} else {
			hk_report_human(&ev.verdict, &ev.diag, NULL, id, &out);
		}
		fwrite(out.data, 1, out.len, stdout);
		hk_buf_free(&out);
		hk_evobj_free(&ev);
	}
	return code;
}
