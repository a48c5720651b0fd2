/* harkaq build RECIPE: every phase in bubblewrap, under the policy derived from the recipe's
 * declared closure, each phase in its own Landlock domain with its own canary and verdict;
 * the install output hashed, and sealed into the store when every phase is Hermetic
 * (design.md §9, §7).
 *
 *   cmd_build.c     the command: options, the JSON result on stdout or in a file
 *   build_plan.c    the plan: store, sandbox, derived policy
 *   build_prepare.c the engine's preparation, step by step (build_int.h)
 *   build_run.c     the phases, the seal and the verdicts; hk_build_run
 *   build_result.c  the result as JSON */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/attest/attest.h"
#include "engine/build/build.h"
#include "engine/debian/build_dsc.h"
#include "cli/commands.h"
#include "core/root/baseroot.h"
#include "core/basic/file.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

static void build_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq build RECIPE [OPTIONS]\n"
		"       harkaq build --dsc FILE.dsc|DIR|NAME[=VERSION] [--base NAME]\n"
		"                    [--build binary|any|all] [OPTIONS]\n"
		"\n"
		"Builds RECIPE in bubblewrap (no network, base root read-only, the declared deps\n"
		"merged over it, /src and /out the only writable surfaces), each phase under the\n"
		"Landlock policy derived from the declared closure, each with its own canary and\n"
		"verdict.  The install phase's /out is hashed as an artifact, and sealed into the\n"
		"store only when every phase is Hermetic: the store is where the diagnosis finds\n"
		"providers, and an impure build's output must not become one.\n"
		"\n"
		"options:\n"
		"  --store DIR        the store (default: $HARKAQ_STORE, else the nearest store/ above\n"
		"                     the recipe, else ./store)\n"
		"  --no-cage          the same sandbox without harkaq (no policy, no verdict): the\n"
		"                     artifact must come out identical to a Hermetic caged build\n"
		"  --user USER        the unprivileged build user (default: nobody)\n"
		"  --profile NAME     base runtime profile (default: autotools; see docs/base-runtime.md)\n"
		"  --json             the result as JSON on stdout\n"
		"  --result-out FILE  the result as JSON to FILE\n"
		"  --timeout SECONDS  per phase (default 3600)\n"
		"  --keep             keep the work directory (printed) for inspection\n"
		"  --quiet            no progress on stderr\n"
		"  --no-evidence      the cage without the reader and canary (enforcement only; the\n"
		"                     verdict is NoEvidence): what the evidence costs is the difference\n"
		"  --per-file-rules   install one Landlock rule per granted file even beneath a\n"
		"                     read-only directory whose whole content is granted (the same\n"
		"                     grants, installed slower; docs/cage.md, \"Collapsed directories\")\n"
		"  --verify-full      re-hash every artifact of the closure and the base before the\n"
		"                     build, even when its stat cache says nothing changed: the\n"
		"                     warm check trusts the filesystem's metadata, so bytes changed\n"
		"                     beneath the filesystem are caught only by this or by fs-verity\n"
		"                     (docs/bases.md, \"Verification, warm\")\n"
		"  --no-seal          keep the output out of the store (its id is still reported)\n"
		"  --seal-impure      seal the output even when a phase is Impure or NoEvidence, or\n"
		"                     the build ran --no-cage\n"
		"  --key FILE         sign the build's attestations (in-toto, DSSE) with this\n"
		"                     Ed25519 key (harkaq attest keygen; docs/attestations.md)\n"
		"  --force-abi N      tests only: the cage behaves as Landlock ABI N (harkaq-exec\n"
		"                     --force-abi); the verdict is then NoEvidence, never Hermetic\n"
		"\n"
		"Debian source packages (docs/debian-builds.md):\n"
		"  --dsc FILE.dsc     build this source package: its files checked against the .dsc,\n"
		"                     unpacked with dpkg-source -x, build-essential, fakeroot and its\n"
		"                     Build-Depends resolved by apt on the base and imported, then\n"
		"                     dpkg-buildpackage's clean, build and binary as three phases;\n"
		"                     the report names what was used in Build-Depends terms; the\n"
		"                     .debs enter the store whatever the verdicts, unless --no-seal\n"
		"  --dsc DIR          an unpacked source tree (with debian/control): made a source\n"
		"                     package with dpkg-source -b in the work directory first, and\n"
		"                     that .dsc built (its upstream tarballs taken from beside DIR)\n"
		"  --dsc NAME[=VERSION]\n"
		"                     a source package of the archive, fetched as 'apt-get source\n"
		"                     --download-only' fetches it (a deb-src entry is needed), and\n"
		"                     built; a path that exists is taken as a path\n"
		"  --base NAME|ID     the base (default " HK_DSC_DEFAULT_BASE ", made with 'harkaq\n"
		"                     store base create " HK_DSC_DEFAULT_BASE " --variant buildd')\n"
		"  --build WHAT       binary (-b, the default), any (-B) or all (-A)\n"
		"  --with-checks      run the test suites (default: DEB_BUILD_OPTIONS and\n"
		"                     DEB_BUILD_PROFILES nocheck)\n"
		"  --no-clean         skip the clean phase (dpkg-buildpackage -nc)\n"
		"  --jobs N           DEB_BUILD_OPTIONS parallel=N (default 1)\n"
		"  --see PKG[,PKG...] import these packages (with their dependencies) before the build,\n"
		"                     so the store view shows them: a build that uses one is then a\n"
		"                     named denial instead of a missing file\n"
		"  --confirm          when the build fails and names missing Build-Depends of the\n"
		"                     store, build again without them in the store view: success\n"
		"                     means they were not needs (a probe the view made fatal)\n"
		"  --decide-probes    when the build completes and probes survived (packages it was\n"
		"                     denied and went on without), build again with them granted\n"
		"                     and compare the .debs member by member: identical means\n"
		"                     inert, different an undeclared influence; a control build\n"
		"                     with nothing changed first (differing: undecided, not\n"
		"                     reproducible here). Rounds go on while new probes appear;\n"
		"                     nothing of these builds is sealed\n"
		"  --suggest-out DIR  where the change to make is written: SOURCE_VERSION.control.patch\n"
		"                     (patch -p1 in the unpacked source; debian/control's\n"
		"                     wrap-and-sort layout kept) and SOURCE_VERSION.bug.txt, a\n"
		"                     report ready to send (default: the directory of\n"
		"                     --result-out; without either, the report shows the patch and\n"
		"                     the JSON holds both)\n"
		"  --wrap 'PROG ARGS' benchmark only: run each phase's shell under PROG ARGS (split on\n"
		"                     spaces) inside the sandbox, e.g. 'strace -f -e trace=file -o\n"
		"                     /tmp/trace'; under the cage seccomp denies ptrace, so tracers\n"
		"                     want --no-cage\n"
		"\n"
		"exit status: 0 every phase Hermetic, 1 a phase Impure, 2 a phase NoEvidence, 3 a phase\n"
		"failed, 64 usage, 65 bad recipe (file:line:column), missing dep or a store the build\n"
		"user cannot reach (the directory and the chmod named), 70 set-up error.\n");
}


enum { OPT_STORE = 1000, OPT_NO_CAGE, OPT_USER, OPT_PROFILE, OPT_JSON, OPT_RESULT_OUT,
       OPT_TIMEOUT, OPT_KEEP, OPT_QUIET, OPT_NO_EVIDENCE, OPT_WRAP, OPT_FORCE_ABI, OPT_PER_FILE_RULES,
       OPT_KEY, OPT_VERIFY_FULL, OPT_NO_SEAL, OPT_SEAL_IMPURE, OPT_DSC, OPT_BASE, OPT_BUILD_WHAT,
       OPT_WITH_CHECKS, OPT_NO_CLEAN, OPT_JOBS, OPT_SEE, OPT_CONFIRM, OPT_DECIDE_PROBES,
       OPT_SUGGEST_OUT, OPT_HELP };

static const struct option build_options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "no-cage", no_argument, NULL, OPT_NO_CAGE },
	{ "user", required_argument, NULL, OPT_USER },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "result-out", required_argument, NULL, OPT_RESULT_OUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "no-evidence", no_argument, NULL, OPT_NO_EVIDENCE },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "force-abi", required_argument, NULL, OPT_FORCE_ABI },
	{ "per-file-rules", no_argument, NULL, OPT_PER_FILE_RULES },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "verify-full", no_argument, NULL, OPT_VERIFY_FULL },
	{ "no-seal", no_argument, NULL, OPT_NO_SEAL },
	{ "seal-impure", no_argument, NULL, OPT_SEAL_IMPURE },
	{ "dsc", required_argument, NULL, OPT_DSC },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "build", required_argument, NULL, OPT_BUILD_WHAT },
	{ "with-checks", no_argument, NULL, OPT_WITH_CHECKS },
	{ "no-clean", no_argument, NULL, OPT_NO_CLEAN },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "see", required_argument, NULL, OPT_SEE },
	{ "confirm", no_argument, NULL, OPT_CONFIRM },
	{ "decide-probes", no_argument, NULL, OPT_DECIDE_PROBES },
	{ "suggest-out", required_argument, NULL, OPT_SUGGEST_OUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Writes the JSON result in `b` to `json_out` (with --json) and to `result_out`.  Returns `rc`
 * (what the build returned), or -errno in err when the --json answer could not be written
 * and the build had not already stopped on an error. */
static int write_result(struct hk_buf *b, bool json, FILE *json_out, const char *result_out,
			int rc, struct hk_error *err)
{
	if (json && (fwrite(b->data, 1, b->len, json_out) != b->len || fflush(json_out) != 0)) {
		int e = errno ? errno : EIO;
		fprintf(stderr, "harkaq build: writing the JSON result: %s\n", strerror(e));
		if (rc >= 0)
			rc = hk_fail_as(err, HK_ERROR_ENVIRONMENT, e, "writing the JSON result");
	}
	if (result_out) {
		struct hk_error we;
		if (hk_file_write_atomic(result_out, b->data, b->len, 0644, &we) < 0)
			fprintf(stderr, "harkaq build: %s\n", we.msg);
	}
	return rc;
}

/* harkaq build --dsc: the key checked first, the Debian build, its report in Build-Depends
 * terms, its attestations. */
static int build_dsc(const struct hk_build_opts *bo, const struct hk_dsc_opts *o, bool json,
		     const char *result_out, const char *key)
{
	struct hk_error err = { 0 };
	struct hk_attest_ctx attest;
	if (hk_attest_begin(&attest, key, &err) < 0)
		return cli_fail("harkaq build", &err, HK_ERROR_UNSET);
	FILE *json_out = cli_reserve_stdout(json);
	struct hk_dsc_result r;
	int rc = hk_dsc_build_run(bo, o, &r, &err);
	if (rc >= 0) {
		int attested = hk_attest_dsc(&attest, bo, &r, &err);
		if (attested < 0)
			rc = attested;
	}
	hk_attest_end(&attest);
	if (rc < 0) {
		fprintf(stderr, "harkaq build: %s\n", err.msg);
		r.error = err.msg;
		if (r.built) {
			r.build.error = err.msg;
			if (r.build.failed_stage == HK_BUILD_STAGE_NONE)
				r.build.failed_stage = HK_BUILD_STAGE_SETUP;
		}
	}
	if (!bo->quiet)
		hk_dsc_report_human(&r, stderr);
	if (json || result_out) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_dsc_result_json(&r, &j);
		hk_buf_putc(&b, '\n');
		rc = write_result(&b, json, json_out, result_out, rc, &err);
		hk_buf_free(&b);
	}
	if (json_out != stdout)
		fclose(json_out);
	hk_dsc_result_free(&r);
	return hk_exit_status(rc, &err);
}

/* What the command line said, before it becomes hk_build_opts. */
struct build_cli {
	const char *store_opt, *user, *profile, *result_out, *wrap, *key;
	bool cage, json, keep, quiet, no_evidence, per_file_rules, verify_full, no_seal, seal_impure;
	long timeout, force_abi;
	struct hk_dsc_opts dsc;
	struct hk_strv see;
	bool dsc_only_option;       /* an option that only a --dsc build takes was given */
};

/* A number option in (0, max]; false (with the message) when it is not one. */
static bool number_option(const char *opt, const char *what, const char *arg, long max,
			  long *out)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v <= 0 || v > max) {
		fprintf(stderr, "harkaq build: %s wants %s, not '%s'\n", opt, what, arg);
		return false;
	}
	*out = v;
	return true;
}

/* The options a --dsc build takes (docs/debian-builds.md): true when `c` was one of them, with
 * *rc HK_EXIT_USAGE when its value is wrong. */
static bool dsc_option(int c, struct build_cli *o, int *rc)
{
	long jobs;
	switch (c) {
	case OPT_BASE: o->dsc.base = optarg; break;
	case OPT_WITH_CHECKS: o->dsc.with_checks = true; break;
	case OPT_NO_CLEAN: o->dsc.no_clean = true; break;
	case OPT_CONFIRM: o->dsc.confirm = true; break;
	case OPT_DECIDE_PROBES: o->dsc.decide_probes = true; break;
	case OPT_SUGGEST_OUT: o->dsc.suggest_out = optarg; break;
	case OPT_BUILD_WHAT:
		if (strcmp(optarg, "binary") == 0) {
			o->dsc.mode = HK_DSC_BUILD_BINARY;
		} else if (strcmp(optarg, "any") == 0) {
			o->dsc.mode = HK_DSC_BUILD_ANY;
		} else if (strcmp(optarg, "all") == 0) {
			o->dsc.mode = HK_DSC_BUILD_ALL;
		} else {
			fprintf(stderr, "harkaq build: --build wants binary, any or all (as "
					"dpkg-buildpackage's -b, -B, -A), not '%s'\n", optarg);
			*rc = HK_EXIT_USAGE;
		}
		break;
	case OPT_JOBS:
		if (number_option("--jobs", "a number", optarg, 1024, &jobs))
			o->dsc.jobs = (int)jobs;
		else
			*rc = HK_EXIT_USAGE;
		break;
	case OPT_SEE: {
		hk_autofree char *list = hk_xstrdup(optarg);
		for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
		     t = strtok_r(NULL, ",", &save))
			hk_strv_push(&o->see, t);
		break;
	}
	default:
		return false;
	}
	o->dsc_only_option = true;
	return true;
}

/* Reads the options into `o`.  Returns -1 to go on, or the exit status to return (--help, a
 * bad option or value). */
static int parse_build_options(int argc, char **argv, struct build_cli *o)
{
	int c, rc = -1;
	optind = 1;
	while (rc < 0 && (c = getopt_long(argc, argv, "h", build_options, NULL)) != -1) {
		if (dsc_option(c, o, &rc))
			continue;
		switch (c) {
		case OPT_STORE: o->store_opt = optarg; break;
		case OPT_NO_CAGE: o->cage = false; break;
		case OPT_USER: o->user = optarg; break;
		case OPT_PROFILE: o->profile = optarg; break;
		case OPT_JSON: o->json = true; break;
		case OPT_RESULT_OUT: o->result_out = optarg; break;
		case OPT_KEEP: o->keep = true; break;
		case OPT_QUIET: o->quiet = true; break;
		case OPT_NO_EVIDENCE: o->no_evidence = true; break;
		case OPT_WRAP: o->wrap = optarg; break;
		case OPT_PER_FILE_RULES: o->per_file_rules = true; break;
		case OPT_KEY: o->key = optarg; break;
		case OPT_VERIFY_FULL: o->verify_full = true; break;
		case OPT_NO_SEAL: o->no_seal = true; break;
		case OPT_SEAL_IMPURE: o->seal_impure = true; break;
		case OPT_DSC: o->dsc.dsc_path = optarg; break;
		case OPT_FORCE_ABI:
			if (!number_option("--force-abi", "an ABI number", optarg, 1000,
					   &o->force_abi))
				rc = HK_EXIT_USAGE;
			break;
		case OPT_TIMEOUT:
			if (!number_option("--timeout", "seconds", optarg, INT_MAX, &o->timeout))
				rc = HK_EXIT_USAGE;
			break;
		case OPT_HELP:
		case 'h':
			build_usage(stdout);
			rc = HK_EXIT_OK;
			break;
		default:
			build_usage(stderr);
			rc = HK_EXIT_USAGE;
		}
	}
	return rc;
}

/* The options that contradict each other or the operands.  Returns -1 when they agree, or
 * HK_EXIT_USAGE with the message printed. */
static int check_build_options(int argc, const struct build_cli *o)
{
	const char *msg = NULL;
	if (o->dsc.dsc_path && optind != argc)
		msg = "--dsc builds a source package, not a RECIPE (see 'harkaq build --help')";
	else if (!o->dsc.dsc_path && o->dsc_only_option)
		msg = "--base, --build, --with-checks, --no-clean, --jobs, --see, --confirm, "
		      "--decide-probes and --suggest-out are for --dsc builds (a recipe names its "
		      "own base)";
	else if (!o->dsc.dsc_path && optind != argc - 1)
		msg = "give exactly one RECIPE (see 'harkaq build --help')";
	else if (o->dsc.decide_probes && !o->cage)
		msg = "--decide-probes needs the cage: a probe is a denial the cage saw";
	else if (o->no_seal && o->seal_impure)
		msg = "--no-seal and --seal-impure contradict each other";
	if (msg) {
		fprintf(stderr, "harkaq build: %s\n", msg);
		return HK_EXIT_USAGE;
	}
	if (!hk_base_profile_find(o->profile)) {
		fprintf(stderr, "harkaq build: unknown base profile '%s' (known:", o->profile);
		for (const char *const *p = hk_base_profile_names(); *p; p++)
			fprintf(stderr, " %s", *p);
		fprintf(stderr, ")\n");
		return HK_EXIT_USAGE;
	}
	return -1;
}

/* A recipe's build: the key checked first, the build, its attestations, the result. */
static int build_recipe(const struct hk_build_opts *bo, const struct build_cli *o)
{
	struct hk_build_result br;
	struct hk_error err = { 0 };
	/* The attestations (engine/attest/attest.h): a key that cannot be used stops the build first. */
	struct hk_attest_ctx attest;
	if (hk_attest_begin(&attest, o->key, &err) < 0)
		return cli_fail("harkaq build", &err, HK_ERROR_UNSET);
	FILE *json_out = cli_reserve_stdout(o->json);
	int rc = hk_build_run(bo, &br, &err);
	if (rc >= 0) {
		int attested = hk_attest_build(&attest, bo, &br, &err);
		if (attested < 0)
			rc = attested;
	}
	hk_attest_end(&attest);
	if (rc < 0) {
		fprintf(stderr, "harkaq build: %s\n", err.msg);
		br.error = err.msg;
		if (br.failed_stage == HK_BUILD_STAGE_NONE)
			br.failed_stage = HK_BUILD_STAGE_SETUP;
	}
	/* --json answers on every path, failures included: a consumer reads one object, with
	 * "error" set when the build stopped before giving verdicts. */
	if (o->json || o->result_out) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_build_result_json(&br, &j);
		hk_buf_putc(&b, '\n');
		rc = write_result(&b, o->json, json_out, o->result_out, rc, &err);
		hk_buf_free(&b);
	}
	if (json_out != stdout)
		fclose(json_out);
	hk_build_result_free(&br);
	return hk_exit_status(rc, &err);
}

int cmd_build(int argc, char **argv)
{
	struct build_cli o = {
		.user = "nobody",
		.profile = "autotools",
		.cage = true,
		.timeout = 3600,
		.dsc = { .base = HK_DSC_DEFAULT_BASE, .jobs = 1 },
		.see = HK_STRV_INIT,
	};
	int rc = parse_build_options(argc, argv, &o);
	if (rc < 0)
		rc = check_build_options(argc, &o);
	if (rc >= 0) {
		hk_strv_free(&o.see);
		return rc;
	}
	struct hk_build_opts bo = {
		.recipe_path = o.dsc.dsc_path ? NULL : argv[optind],
		.store_dir = o.store_opt,
		.cage = o.cage,
		.no_evidence = o.no_evidence,
		.per_file_rules = o.per_file_rules,
		.verify_full = o.verify_full,
		.no_seal = o.no_seal,
		.seal_impure = o.seal_impure,
		.wrap = o.wrap,
		.force_abi = (int)o.force_abi,
		.user = o.user,
		.profile = o.profile,
		.timeout_s = (int)o.timeout,
		.keep = o.keep,
		.quiet = o.quiet,
	};
	if (o.dsc.dsc_path) {
		o.dsc.see = (const char *const *)o.see.v;
		o.dsc.n_see = o.see.n;
		/* The .debs are what a Debian build is for: they enter the store whatever the
		 * verdicts (which the result keeps beside their hashes), unless --no-seal.  Their
		 * artifact holds .deb files, not an installed tree, so no diagnosis ever offers it
		 * as the provider of a path a build read (docs/debian-builds.md, "The steps"). */
		bo.seal_impure = !o.no_seal;
		/* The change to make is written beside the result unless told where. */
		hk_autofree char *beside = NULL;
		if (!o.dsc.suggest_out && o.result_out) {
			const char *slash = strrchr(o.result_out, '/');
			beside = slash ? hk_xstrndup(o.result_out, slash == o.result_out
								   ? 1 : (size_t)(slash - o.result_out))
				       : hk_xstrdup(".");
			o.dsc.suggest_out = beside;
		}
		rc = build_dsc(&bo, &o.dsc, o.json, o.result_out, o.key);
	} else {
		rc = build_recipe(&bo, &o);
	}
	hk_strv_free(&o.see);
	return rc;
}
