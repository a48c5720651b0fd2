/* harkaq run --policy FILE [options] -- CMD [ARGS...]
 *
 * Runs a command under the cage on the host (no sandbox), reads the kernel's evidence and
 * ends with a verdict.  The simplest way to use and test the cage. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/cage/cage.h"
#include "cli/commands.h"
#include "core/formats/exec_args.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "engine/cage/runtime.h"
#include "engine/cage/verdict_out.h"
#include "sys/nsinit.h"
#include "core/formats/abi_tier.h"
#include "core/policy/policy.h"
#include "core/policy/policy_file.h"
#include "core/basic/util.h"
#include "sys/landlock.h"

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq run --policy FILE [OPTIONS] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD under the cage (Landlock per-file policy + seccomp denylist) directly on the\n"
		"host, collects the kernel's Landlock audit records, and ends with a verdict:\n"
		"Hermetic, Impure {denials} or NoEvidence {reason}.\n"
		"\n"
		"The effective policy is FILE plus what the run itself needs: harkaq-exec (for the\n"
		"canary probe) and, unless --no-runtime, CMD's program and its shared-library closure\n"
		"(read from ELF DT_NEEDED, like a derived base runtime).\n"
		"\n"
		"CMD runs in a pid namespace of its own (nothing it starts outlives the run) and an\n"
		"empty network namespace (loopback only); both need root.\n"
		"\n"
		"options:\n"
		"  --policy FILE          the policy (see docs/policy-format.md)\n"
		"  --user USER            run CMD as USER (name or uid); how builds really run\n"
		"  --no-runtime           do not add CMD's program and libraries to the policy\n"
		"  --json                 print the verdict as JSON on stdout (after CMD's output)\n"
		"  --verdict-out FILE     write the verdict as JSON to FILE\n"
		"  --quiet                no human summary on stderr\n"
		"  --no-evidence          enforcement only: no reader, no canary (verdict NoEvidence)\n"
		"  --require-evidence     refuse to run CMD when evidence cannot be established\n"
		"  --no-enable-audit      do not switch audit on if it is off (then: NoEvidence)\n"
		"  --backlog-floor N      raise the audit backlog_limit to at least N (default 8192)\n"
		"  --timeout SECONDS      kill CMD (and all it started) after SECONDS\n"
		"  --share-net            let CMD use the host's network (not denied, not recorded)\n"
		"  --force-abi N          make the cage behave as Landlock ABI N (tests of old kernels)\n"
		"  --test-withhold-log-flag, --test-break-seccomp\n"
		"                         fault injection for tests (never Hermetic)\n"
		"\n"
		"exit status: 0 Hermetic, 1 Impure, 2 NoEvidence, 3 CMD failed (verdict Hermetic),\n"
		"64 usage, 65 bad policy (or, with --user, a path that user cannot reach), 70 a\n"
		"protection could not be installed or set-up failed.\n");
}

enum {
	OPT_POLICY = 1000, OPT_USER, OPT_NO_RUNTIME, OPT_JSON, OPT_VERDICT_OUT, OPT_QUIET,
	OPT_NO_EVIDENCE, OPT_REQUIRE_EVIDENCE, OPT_NO_ENABLE, OPT_BACKLOG, OPT_TIMEOUT,
	OPT_FORCE_ABI, OPT_WITHHOLD, OPT_BREAK_SECCOMP, OPT_SHARE_NET, OPT_HELP,
};

static const struct option run_options[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "user", required_argument, NULL, OPT_USER },
	{ "no-runtime", no_argument, NULL, OPT_NO_RUNTIME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verdict-out", required_argument, NULL, OPT_VERDICT_OUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "no-evidence", no_argument, NULL, OPT_NO_EVIDENCE },
	{ "require-evidence", no_argument, NULL, OPT_REQUIRE_EVIDENCE },
	{ "no-enable-audit", no_argument, NULL, OPT_NO_ENABLE },
	{ "backlog-floor", required_argument, NULL, OPT_BACKLOG },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "force-abi", required_argument, NULL, OPT_FORCE_ABI },
	{ "test-withhold-log-flag", no_argument, NULL, OPT_WITHHOLD },
	{ "test-break-seccomp", no_argument, NULL, OPT_BREAK_SECCOMP },
	{ "share-net", no_argument, NULL, OPT_SHARE_NET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The options of one `harkaq run`. */
struct run_opts {
	const char *policy_file, *user, *verdict_out;
	bool runtime, json, quiet, evidence, require_evidence;
	bool may_enable, withhold, break_seccomp, share_net;
	long backlog_floor, timeout, force_abi;
	char **cmd;                 /* the command, after the options */
};

/* Parses argv into *ro.  Returns -1 when the run goes on, else the exit status. */
static int parse_run_options(int argc, char **argv, struct run_opts *ro)
{
	*ro = (struct run_opts){ .runtime = true, .evidence = true, .may_enable = true,
				 .backlog_floor = -1 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_POLICY: ro->policy_file = optarg; break;
		case OPT_USER: ro->user = optarg; break;
		case OPT_NO_RUNTIME: ro->runtime = false; break;
		case OPT_JSON: ro->json = true; break;
		case OPT_VERDICT_OUT: ro->verdict_out = optarg; break;
		case OPT_QUIET: ro->quiet = true; break;
		case OPT_NO_EVIDENCE: ro->evidence = false; break;
		case OPT_REQUIRE_EVIDENCE: ro->require_evidence = true; break;
		case OPT_NO_ENABLE: ro->may_enable = false; break;
		case OPT_WITHHOLD: ro->withhold = true; break;
		case OPT_BREAK_SECCOMP: ro->break_seccomp = true; break;
		case OPT_SHARE_NET: ro->share_net = true; break;
		case OPT_BACKLOG:
			if (parse_long(optarg, 0, 1L << 30, &ro->backlog_floor) < 0) {
				fprintf(stderr, "harkaq run: --backlog-floor wants a number, not '%s'\n", optarg);
				return HK_EXIT_USAGE;
			}
			break;
		case OPT_TIMEOUT:
			if (parse_long(optarg, 1, 86400 * 7, &ro->timeout) < 0) {
				fprintf(stderr, "harkaq run: --timeout wants seconds (1..604800), not '%s'\n",
					optarg);
				return HK_EXIT_USAGE;
			}
			break;
		case OPT_FORCE_ABI:
			if (parse_long(optarg, 1, 64, &ro->force_abi) < 0) {
				fprintf(stderr, "harkaq run: --force-abi wants an ABI number, not '%s'\n", optarg);
				return HK_EXIT_USAGE;
			}
			break;
		case OPT_HELP:
		case 'h':
			run_usage(stdout);
			return HK_EXIT_OK;
		default:
			run_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (!ro->policy_file) {
		fprintf(stderr, "harkaq run: --policy FILE is required (see 'harkaq run --help')\n");
		return HK_EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "harkaq run: no command given (write it after '--')\n");
		return HK_EXIT_USAGE;
	}
	ro->cmd = argv + optind;
	return -1;
}

/* The effective policy: the user's (loaded), plus what the run itself needs (harkaq-exec, and
 * the command's runtime unless --no-runtime), finished.  Returns 0, or -errno with err, of
 * class input: the command and the policy are what the user gave. */
static int effective_policy(const struct run_opts *ro, const char *exec_path,
			    struct hk_policy *policy, struct hk_runtime_report *rt,
			    struct hk_error *err)
{
	hk_policy_add_grant(policy, HK_GRANT_RO, exec_path);
	if (ro->runtime && hk_runtime_for_command(ro->cmd[0], policy, rt, err) < 0)
		return hk_error_set_class(err, HK_ERROR_INPUT);
	if (hk_policy_finish(policy, err) < 0) {
		hk_wrap(err, "effective policy");
		return hk_error_set_class(err, HK_ERROR_INPUT);
	}
	return 0;
}

/* The effective policy file, next to the canary (harkaq-exec reads it before it restricts
 * itself, so it needs no grant; DAC: readable by the build user).  Returns 0 or -errno. */
static int write_effective_policy(const struct hk_policy *policy, const char *eff_path,
				  struct hk_error *err)
{
	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(policy, &enc);
	FILE *f = fopen(eff_path, "w");
	bool ok = f && fwrite(enc.data, 1, enc.len, f) == enc.len;
	if (f && fclose(f) != 0)
		ok = false;
	hk_buf_free(&enc);
	/* The command may run as another user: harkaq-exec reads the policy as that user. */
	if (ok && chmod(eff_path, 0644) < 0)
		ok = false;
	if (ok)
		return 0;
	int e = errno ? errno : EIO;
	unlink(eff_path);
	return hk_fail_as(err, HK_ERROR_ENVIRONMENT, e, "cannot write the effective policy %s: %s",
			  eff_path, strerror(e));
}

/* harkaq-exec --policy EFF --canary C --status-fd 3 [test switches] -- CMD… */
static char **exec_argv(const struct run_opts *ro, const char *exec_path, const char *eff_path,
			const char *canary)
{
	struct hk_exec_args xa = HK_EXEC_ARGS_INIT;
	xa.policy_path = eff_path;
	xa.status_fd = 3;
	xa.canary_path = ro->evidence ? canary : NULL;
	xa.force_abi = ro->force_abi ? (int)ro->force_abi : -1;
	xa.test_withhold_log_flag = ro->withhold;
	xa.test_break_seccomp = ro->break_seccomp;
	xa.cmd = ro->cmd;
	struct hk_strv argv = { 0 };
	hk_exec_args_to_argv(&xa, exec_path, &argv);
	return argv.v;
}

/* Runs the command under the cage (refusing first when evidence is required and the tier
 * cannot give it) and turns the run into its verdict and exit status. */
static int run_caged(const struct run_opts *ro, const struct hk_cage_opts *o,
		     const struct hk_policy *policy, const char *policy_id,
		     const struct hk_runtime_report *rt)
{
	struct hk_error err = { 0 };
	struct hk_cage_result res;
	int rc;
	int effective_abi = ro->force_abi ? (int)ro->force_abi : hk_landlock_probe()->abi;
	if (ro->require_evidence && ro->evidence &&
	    hk_tier_of_abi(effective_abi) != HK_TIER_EVIDENCE) {
		memset(&res, 0, sizeof(res));
		hk_evidence_init(&res.evidence, o->canary_path);
		rc = hk_fail(&err, EPERM, "evidence was required, but Landlock ABI %d cannot report "
					  "denials (%d is needed); the command was not run", effective_abi,
			     HK_ABI_EVIDENCE);
	} else {
		rc = hk_cage_run(o, &res, &err);
	}
	int exit_code;
	if (rc < 0 && !res.started) {
		/* --require-evidence asked whether evidence can be had: a run refused for want of
		 * it answers NoEvidence.  Otherwise the command could not be started at all. */
		if (ro->require_evidence) {
			fprintf(stderr, "harkaq run: %s\n", err.msg);
			exit_code = hk_exit_for_outcome(HK_OUTCOME_NOEVIDENCE);
		} else {
			exit_code = cli_fail("harkaq run", &err, HK_ERROR_ENVIRONMENT);
		}
	} else {
		struct hk_verdict_out vo = {
			.policy = policy,
			.policy_id = policy_id,
			.evidence_requested = ro->evidence,
			.json = ro->json,
			.verdict_out = ro->verdict_out,
			.quiet = ro->quiet,
			.label = "run",
		};
		struct hk_error verdict_err = { 0 };
		int outcome = hk_verdict_emit(&vo, &res, rt, &verdict_err);
		if (outcome < 0)
			fprintf(stderr, "harkaq run: %s\n", verdict_err.msg);
		/* The run failed after it started (its evidence could not be finished): a verdict
		 * that read Hermetic is not one. */
		if (rc < 0) {
			fprintf(stderr, "harkaq run: %s\n", err.msg);
			if (outcome == HK_OUTCOME_OK)
				outcome = HK_OUTCOME_NOEVIDENCE;
		}
		exit_code = hk_exit_status(outcome, &verdict_err);
	}
	hk_cage_result_free(&res);
	return exit_code;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts ro;
	int code = parse_run_options(argc, argv, &ro);
	if (code >= 0)
		return code;

	struct hk_error err = { 0 };
	hk_autofree char *exec_path = NULL;
	uid_t uid = 0;
	gid_t gid = 0;
	struct hk_policy policy = HK_POLICY_INIT;
	struct hk_runtime_report rt = { 0 };
	char *canary = NULL, *canary_dir = NULL;
	hk_autofree char *eff_path = NULL;
	if (hk_policy_load(ro.policy_file, &policy, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_INPUT);
		goto err_free_policy;
	}
	if (hk_helper_path("harkaq-exec", &exec_path, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_ENVIRONMENT);
		goto err_free_policy;
	}
	if (ro.user && hk_resolve_user(ro.user, &uid, &gid, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_USAGE);
		goto err_free_policy;
	}
	if (effective_policy(&ro, exec_path, &policy, &rt, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_UNSET);
		goto err_free_policy;
	}
	char policy_id[HK_B3_ID_LEN];
	hk_policy_id(&policy, policy_id);
	if (hk_canary_create(&policy, &canary, &canary_dir, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_ENVIRONMENT);
		goto err_free_policy;
	}
	eff_path = hk_xasprintf("%s/policy", canary_dir);
	if (write_effective_policy(&policy, eff_path, &err) < 0) {
		code = cli_fail("harkaq run", &err, HK_ERROR_UNSET);
		goto err_remove_canary;
	}

	/* --user: harkaq-exec, the policy and the canary are opened as that user, and what it
	 * cannot reach would fail inside the cage's start (or hide the canary: NoEvidence). */
	if (ro.user && (geteuid() == 0 || uid == geteuid())) {
		struct hk_reach_list l = HK_REACH_LIST_INIT;
		hk_reach_add(&l, exec_path, "harkaq-exec", X_OK, HK_REACH_HINT_EXEC);
		hk_reach_add(&l, eff_path, "the effective policy", R_OK, NULL);
		hk_reach_add(&l, canary, "the canary", R_OK, NULL);
		int rc = hk_reach_check("the user", ro.user, uid, gid, NULL, &l, &err);
		hk_reach_list_free(&l);
		if (rc != 0) {
			/* Bad input, as for a build (engine/common/reach.h); a check that could not be made is
			 * the environment's. */
			code = cli_fail("harkaq run", &err,
					rc > 0 ? HK_ERROR_INPUT : HK_ERROR_ENVIRONMENT);
			unlink(eff_path);
			goto err_remove_canary;
		}
	}
	char **xargv = exec_argv(&ro, exec_path, eff_path, canary);
	struct hk_cage_opts o = {
		.argv = xargv,
		.status_fd = 3,
		.canary_path = canary,
		.evidence = ro.evidence,
		.reader_may_enable = ro.may_enable,
		.backlog_floor = ro.backlog_floor,
		.as_user = ro.user != NULL,
		.uid = uid,
		.gid = gid,
		.timeout_s = (int)ro.timeout,
		/* Builds get both from bubblewrap.  The pid namespace is not optional: nothing the
		 * command starts may outlive its verdict (sys/nsinit.h). */
		.namespaces = HK_NS_PID | (ro.share_net ? 0 : HK_NS_NET),
		.quiet = ro.quiet,
		.require_evidence = ro.require_evidence,
	};
	/* A downgrade is said even under --quiet (the verdict JSON says it too). */
	if (ro.share_net)
		fprintf(stderr, "harkaq run: --share-net: the command uses the host's network; its "
				"connections are neither denied nor recorded\n");
	if (ro.evidence && geteuid() != 0 && !ro.quiet)
		fprintf(stderr, "harkaq run: not running as root: the audit reader may lack "
				"CAP_AUDIT_READ/CAP_AUDIT_CONTROL (the verdict will say NoEvidence)\n");
	code = run_caged(&ro, &o, &policy, policy_id, &rt);
	hk_argv_free(xargv);
	unlink(eff_path);
err_remove_canary:
	hk_canary_remove(canary, canary_dir);
	free(canary);
	free(canary_dir);
err_free_policy:
	hk_policy_free(&policy);
	hk_runtime_report_free(&rt);
	return code;
}
