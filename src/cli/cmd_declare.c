/* harkaq declare RECIPE: the closed loop of design.md §8 walked by harkaq — build, declare what
 * the diagnosis names, build again — until Hermetic or until nothing improves
 * (engine/build/declare_loop.h; docs/diagnosis.md, "harkaq declare"). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/build/declare_loop.h"
#include "core/basic/file.h"
#include "core/root/baseroot.h"

static void declare_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq declare RECIPE [OPTIONS]\n"
		"\n"
		"Builds RECIPE under the cage, as harkaq build does, and declares what the build used\n"
		"undeclared that the store provides (each \"declare dep: X\" of the report): X is\n"
		"appended to the recipe's [deps] build, in its text, every other byte kept (comments,\n"
		"layout). Then builds again, and so on, until every phase is Hermetic or nothing\n"
		"improves: debt nobody provides (irreducible: named), the same debt twice, a declared\n"
		"dep that did not remove its denial (that edit is undone), a build without evidence,\n"
		"a failure without debt. The file is written only with an edit the next build\n"
		"confirmed, so it is left as the last edit no build refuted.\n"
		"\n"
		"Each build's report goes to stderr as harkaq build prints it; the chain goes to\n"
		"stdout: each build with its phases' evidence ids (harkaq explain ID), what was\n"
		"declared after it, why the loop stopped, and the diff of the recipe.\n"
		"\n"
		"options:\n"
		"  --dry-run          one build; print the edit its suggestions would make, write\n"
		"                     nothing\n"
		"  --json             the chain as JSON on stdout\n"
		"  --store DIR        the store (default: $HARKAQ_STORE, else the nearest store/ above\n"
		"                     the recipe)\n"
		"  --user USER        the unprivileged build user (default: nobody)\n"
		"  --profile NAME     base runtime profile (default: autotools)\n"
		"  --timeout SECONDS  per phase (default 3600)\n"
		"  --quiet            no progress and no build reports on stderr\n"
		"\n"
		"exit status: the last build's, as harkaq build gives it: 0 Hermetic; 1 Impure (the\n"
		"loop stopped on irreducible debt, policy bugs, no progress or a refuted suggestion);\n"
		"2 NoEvidence (run it again: it goes on from the recipe as left); 3 a phase failed\n"
		"without debt; 64 usage; 65 bad recipe, or the file changed while it ran (nothing\n"
		"written); 70 set-up error; 128+N a signal stopped it (the recipe as last confirmed).\n");
}

enum { OPT_STORE = 1000, OPT_USER, OPT_PROFILE, OPT_TIMEOUT, OPT_QUIET, OPT_JSON, OPT_DRY_RUN,
       OPT_HELP };

static const struct option declare_options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "user", required_argument, NULL, OPT_USER },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_declare(int argc, char **argv)
{
	struct hk_declare_opts o = {
		.build = { .cage = true, .user = "nobody", .profile = "autotools", .timeout_s = 3600 },
	};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", declare_options, NULL)) != -1) {
		switch (c) {
		case OPT_STORE: o.build.store_dir = optarg; break;
		case OPT_USER: o.build.user = optarg; break;
		case OPT_PROFILE: o.build.profile = optarg; break;
		case OPT_QUIET: o.build.quiet = true; break;
		case OPT_JSON: json = true; break;
		case OPT_DRY_RUN: o.dry_run = true; break;
		case OPT_TIMEOUT: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "harkaq declare: --timeout wants seconds, not '%s'\n",
					optarg);
				return HK_EXIT_USAGE;
			}
			o.build.timeout_s = (int)v;
			break;
		}
		case OPT_HELP:
		case 'h':
			declare_usage(stdout);
			return HK_EXIT_OK;
		default:
			declare_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "harkaq declare: give exactly one RECIPE (see 'harkaq declare --help')\n");
		return HK_EXIT_USAGE;
	}
	if (!hk_base_profile_find(o.build.profile)) {
		fprintf(stderr, "harkaq declare: unknown base profile '%s'\n", o.build.profile);
		return HK_EXIT_USAGE;
	}
	o.recipe_path = argv[optind];
	/* stdout carries the chain alone: the builds' own output goes to stderr. */
	FILE *out = cli_reserve_stdout(true);
	struct hk_declare_result r;
	struct hk_error err = { 0 };
	int rc = hk_declare_run(&o, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "harkaq declare: %s\n", err.msg);
		r.error = err.msg;
	}
	if (json) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_declare_result_json(&r, &j);
		hk_buf_putc(&b, '\n');
		fwrite(b.data, 1, b.len, out);
		hk_buf_free(&b);
	} else {
		hk_declare_report_human(&r, out);
	}
	if (fflush(out) != 0 && rc >= 0)
		rc = hk_fail_as(&err, HK_ERROR_ENVIRONMENT, EIO, "writing the chain to stdout");
	if (out != stdout)
		fclose(out);
	hk_declare_result_free(&r);
	return hk_exit_status(rc, &err);
}
