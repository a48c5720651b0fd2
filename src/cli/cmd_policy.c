/* harkaq policy RECIPE: the policy a caged `harkaq build` of RECIPE would enforce, in its
 * canonical encoding, and its PolicyId (design.md §9).  It runs the build's own derivation
 * (hk_build_derive over hk_build_sandbox_init's contract), so what it prints is not a model of
 * the build's policy but the same bytes: the id matches the "[plan]" line and the verdict's
 * policy_id.  Nothing is created: no work directory, no sandbox, no store. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/build/build.h"
#include "cli/commands.h"
#include "core/root/baseroot.h"
#include "core/formats/json.h"
#include "core/policy/recipe_file.h"
#include "core/basic/util.h"

static void policy_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq policy RECIPE [--store DIR] [--profile NAME] [--json]\n"
		"\n"
		"Prints the policy derived from RECIPE's declared closure (canonical encoding,\n"
		"docs/policy-format.md) followed by its id, '# policy-id b3:...' — exactly the\n"
		"policy a caged 'harkaq build RECIPE' enforces.  Same recipe, same store content:\n"
		"same bytes and same id, on any machine; a change of any dep changes the id.\n"
		"\n"
		"options:\n"
		"  --store DIR     the store (default: $HARKAQ_STORE, else the nearest store/ above\n"
		"                  the recipe)\n"
		"  --profile NAME  base runtime profile (default: autotools)\n"
		"  --json          {\"policy_id\", \"policy\" (the canonical text), \"closure\", counts}\n"
		"\n"
		"exit status: 0 printed, 64 usage, 65 bad recipe (file:line:column) or missing dep,\n"
		"70 environment error.\n");
}

enum { OPT_STORE = 1000, OPT_PROFILE, OPT_JSON, OPT_HELP };

static const struct option policy_options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_policy(int argc, char **argv)
{
	const char *store_opt = NULL, *profile = "autotools";
	bool json = false;
	int c;
	optind = 1;
	/* Options before or after the recipe (permuting getopt): `harkaq policy RECIPE --json`. */
	while ((c = getopt_long(argc, argv, "h", policy_options, NULL)) != -1) {
		switch (c) {
		case OPT_STORE: store_opt = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_HELP:
		case 'h':
			policy_usage(stdout);
			return HK_EXIT_OK;
		default:
			policy_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "harkaq policy: give exactly one RECIPE (see 'harkaq policy --help')\n");
		return HK_EXIT_USAGE;
	}
	if (!hk_base_profile_find(profile)) {
		fprintf(stderr, "harkaq policy: unknown base profile '%s' (known:", profile);
		for (const char *const *p = hk_base_profile_names(); *p; p++)
			fprintf(stderr, " %s", *p);
		fprintf(stderr, ")\n");
		return HK_EXIT_USAGE;
	}

	struct hk_error err = { 0 };
	struct hk_recipe r;
	if (hk_recipe_load(argv[optind], &r, &err) < 0)
		return cli_fail("harkaq policy", &err, HK_ERROR_INPUT);
	int rc = 0;
	struct hk_store *store = NULL;
	struct hk_build_plan plan;
	bool planned = false;
	hk_autofree char *store_dir = hk_build_store_dir(&r, store_opt);
	if (store_dir) {
		/* Never created here: printing a policy must not leave a store behind. */
		/* The store the recipe names (or --store): one that cannot be opened is bad input. */
		if ((rc = hk_store_open(store_dir, false, &store, &err)) < 0) {
			hk_error_set_class(&err, HK_ERROR_INPUT);
			goto free_plan;
		}
	} else if (r.n_build_deps > 0) {
		rc = hk_fail_as(&err, HK_ERROR_INPUT, ENOENT,
				"%s: the recipe has build deps but no store: none beside or above "
				"%s (a directory store/), and neither --store nor $HARKAQ_STORE was "
				"given",
				r.path, r.recipe_dir);
		goto free_plan;
	}
	/* The contract of a caged build (harkaq-exec is granted, no /cache): the policy that a
	 * build enforces is only ever the caged one. */
	struct hk_sandbox sb;
	hk_build_sandbox_init(&sb, &r, true);
	if ((rc = hk_build_derive(&r, store, profile, &sb, &plan, &err)) < 0)
		goto free_plan;
	planned = true;

	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(&plan.policy, &enc);
	if (json) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_obj_begin(&j);
		hk_json_kv_bytes(&j, "recipe", r.path, strlen(r.path));
		hk_json_kv_str(&j, "profile", profile);
		hk_json_kv_str(&j, "policy_id", plan.policy_id);
		hk_json_key(&j, "closure");
		hk_json_arr_begin(&j);
		for (size_t i = 0; i < plan.n_closure; i++)
			hk_json_str(&j, plan.closure_names[i]);
		hk_json_arr_end(&j);
		hk_json_kv_uint(&j, "files", plan.report.files);
		hk_json_kv_uint(&j, "symlinks", plan.report.symlinks);
		hk_json_kv_uint(&j, "base_runtime", plan.report.base_runtime);
		hk_json_kv_uint(&j, "grants", plan.policy.n_grants);
		hk_json_kv_bytes(&j, "policy", enc.data, enc.len);
		hk_json_obj_end(&j);
		hk_buf_putc(&b, '\n');
		fwrite(b.data, 1, b.len, stdout);
		hk_buf_free(&b);
	} else {
		/* The canonical text, then the id as a comment line: the output is itself a
		 * policy file that parses to the same policy (comments are ignored). */
		fwrite(enc.data, 1, enc.len, stdout);
		printf("# policy-id %s\n", plan.policy_id);
	}
	hk_buf_free(&enc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hk_fail_errno(&err, errno, "writing the policy to stdout");
		rc = hk_error_set_class(&err, HK_ERROR_ENVIRONMENT);
	}
free_plan:
	if (planned)
		hk_build_plan_free(&plan);
	if (store)
		hk_store_close(store);
	hk_recipe_free(&r);
	return rc < 0 ? cli_fail("harkaq policy", &err, HK_ERROR_UNSET) : HK_EXIT_OK;
}
