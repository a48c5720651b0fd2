/* harkaq-exec's command line (core/formats/exec_args.h): what the one serialiser writes, the
 * one parser reads back equal — every option, each alone and all together — and the parser's
 * refusals, each with its sentence. */
#include "harness.h"

#include <errno.h>

#include "core/formats/exec_args.h"
#include "core/basic/util.h"

static char cmd0[] = "/bin/sh", cmd1[] = "-ec", cmd2[] = "make -j2";
static char *cmd[] = { cmd0, cmd1, cmd2, NULL };

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool args_equal(const struct hk_exec_args *a, const struct hk_exec_args *b)
{
	if (!same_str(a->policy_path, b->policy_path) || !same_str(a->canary_path, b->canary_path) ||
	    !same_str(a->probe_canary, b->probe_canary) ||
	    !same_str(a->collapse_path, b->collapse_path) || a->status_fd != b->status_fd ||
	    a->force_abi != b->force_abi || a->require_landlock != b->require_landlock ||
	    a->test_withhold_log_flag != b->test_withhold_log_flag ||
	    a->test_break_seccomp != b->test_break_seccomp)
		return false;
	size_t i = 0;
	for (; a->cmd[i] && b->cmd[i]; i++)
		if (strcmp(a->cmd[i], b->cmd[i]) != 0)
			return false;
	return !a->cmd[i] && !b->cmd[i];
}

/* Serialises `in`, parses the result, and checks it is `in` again. */
static void round_trip(const struct hk_exec_args *in, const char *what)
{
	struct hk_strv argv = { 0 };
	hk_exec_args_to_argv(in, "/.harkaq/harkaq-exec", &argv);
	struct hk_exec_args out;
	struct hk_error err = { 0 };
	int r = hk_exec_args_parse((int)argv.n, argv.v, &out, &err);
	if (r != 0)
		HK_FAIL_AT("%s: parse gave %d: %s", what, r, err.msg);
	else if (!args_equal(in, &out))
		HK_FAIL_AT("%s: not equal after the round trip", what);
	hk_strv_free(&argv);
}

TEST(every_option_alone_and_all_together_survive_the_round_trip)
{
	struct hk_exec_args base = HK_EXEC_ARGS_INIT;
	base.policy_path = "/.harkaq/policy";
	base.cmd = cmd;
	round_trip(&base, "the policy alone");
	struct hk_exec_args a = base;
	a.canary_path = "/.harkaq/canary-0123abcd";
	round_trip(&a, "canary");
	a = base, a.status_fd = 3;
	round_trip(&a, "status fd");
	a = base, a.status_fd = 0;
	round_trip(&a, "status fd 0");
	a = base, a.force_abi = 4;
	round_trip(&a, "force abi");
	a = base, a.force_abi = 0;
	round_trip(&a, "force abi 0");
	a = base, a.require_landlock = true;
	round_trip(&a, "require landlock");
	a = base, a.collapse_path = "/.harkaq/collapse";
	round_trip(&a, "collapse");
	a = base, a.test_withhold_log_flag = true;
	round_trip(&a, "withhold");
	a = base, a.test_break_seccomp = true;
	round_trip(&a, "break seccomp");
	a = base;
	a.canary_path = "/c", a.status_fd = 7, a.force_abi = 6, a.require_landlock = true;
	a.collapse_path = "/k", a.test_withhold_log_flag = true, a.test_break_seccomp = true;
	round_trip(&a, "everything");
	struct hk_exec_args probe = HK_EXEC_ARGS_INIT;
	probe.probe_canary = "/.harkaq/canary-x", probe.status_fd = 3, probe.cmd = cmd;
	round_trip(&probe, "probe mode");
}

TEST(a_command_that_looks_like_an_option_stays_the_command)
{
	static char c0[] = "--policy", c1[] = "--", c2[] = "--help";
	char *tricky[] = { c0, c1, c2, NULL };
	struct hk_exec_args a = HK_EXEC_ARGS_INIT;
	a.policy_path = "/p", a.cmd = tricky;
	round_trip(&a, "a command made of option words");
}

TEST(the_serialiser_writes_only_what_differs_from_the_defaults)
{
	struct hk_exec_args a = HK_EXEC_ARGS_INIT;
	a.policy_path = "/p", a.cmd = cmd;
	struct hk_strv argv = { 0 };
	hk_exec_args_to_argv(&a, "x", &argv);
	REQUIRE(argv.n == 7);
	CHECK_STR_EQ("x", argv.v[0]);
	CHECK_STR_EQ("--policy", argv.v[1]);
	CHECK_STR_EQ("/p", argv.v[2]);
	CHECK_STR_EQ("--", argv.v[3]);
	CHECK_STR_EQ("make -j2", argv.v[6]);
	hk_strv_free(&argv);
}

TEST(the_parser_refuses_with_a_sentence_as_a_usage_error)
{
	static const struct {
		const char *words[8];
		const char *says;
	} bad[] = {
		{ { "x", "--policy", "/p", "/bin/true" }, "unknown option or missing value: '/bin/true'" },
		{ { "x", "--policy", "/p", "--" }, "no command" },
		{ { "x", "--policy", "/p" }, "no command" },
		{ { "x", "--", "/bin/true" }, "--policy FILE is required" },
		{ { "x", "--policy" }, "unknown option or missing value: '--policy'" },
		{ { "x", "--policy", "/p", "--status-fd", "-1", "--", "t" }, "descriptor number" },
		{ { "x", "--policy", "/p", "--force-abi", "7x", "--", "t" }, "ABI number" },
		{ { "x", "--policy", "/p", "--bogus", "--", "t" }, "unknown option" },
		{ { "x", "--probe-canary", "/c", "--policy", "/p", "--", "t" }, "takes only --status-fd" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		int argc = 0;
		while (argc < 8 && bad[i].words[argc])
			argc++;
		char *argv[9] = { 0 };
		for (int k = 0; k < argc; k++)
			argv[k] = (char *)(uintptr_t)bad[i].words[k];
		struct hk_exec_args out;
		struct hk_error err = { 0 };
		if (hk_exec_args_parse(argc, argv, &out, &err) != -EINVAL ||
		    err.cls != HK_ERROR_USAGE || !strstr(err.msg, bad[i].says))
			HK_FAIL_AT("case %zu: got '%s'", i, err.msg);
	}
}

TEST(help_is_answered_before_anything_is_checked)
{
	static char w0[] = "x", w1[] = "--bogus-but-later", w2[] = "--help";
	char *argv[] = { w0, w2, w1, NULL };
	struct hk_exec_args out;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(1, hk_exec_args_parse(3, argv, &out, &err));
}
