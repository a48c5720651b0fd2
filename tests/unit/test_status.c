/* The command line's one table (src/engine/common/status.c): outcomes and error classes to exit
 * statuses, and the classes errors carry (src/core/basic/error.c). */
#include "harness.h"

#include <errno.h>
#include <signal.h>

#include "core/basic/error.h"
#include "core/basic/util.h"
#include "engine/common/status.h"

TEST(outcomes_give_the_verdict_statuses)
{
	CHECK_EQ_INT(0, hk_exit_for_outcome(HK_OUTCOME_OK));
	CHECK_EQ_INT(1, hk_exit_for_outcome(HK_OUTCOME_IMPURE));
	CHECK_EQ_INT(2, hk_exit_for_outcome(HK_OUTCOME_NOEVIDENCE));
	CHECK_EQ_INT(3, hk_exit_for_outcome(HK_OUTCOME_COMMAND_FAILED));
	/* An outcome that is none of them is a bug, never a verdict. */
	CHECK_EQ_INT(70, hk_exit_for_outcome((enum hk_outcome)4));
	CHECK_EQ_INT(70, hk_exit_for_outcome((enum hk_outcome)-1));
}

TEST(the_worst_phase_decides_noevidence_impure_failed_hermetic)
{
	static const enum hk_outcome order[] = { HK_OUTCOME_OK, HK_OUTCOME_COMMAND_FAILED,
						 HK_OUTCOME_IMPURE, HK_OUTCOME_NOEVIDENCE };
	for (size_t i = 0; i < HK_ARRAY_LEN(order); i++)
		for (size_t k = 0; k < HK_ARRAY_LEN(order); k++) {
			enum hk_outcome want = order[i > k ? i : k];
			CHECK_EQ_INT(want, hk_outcome_worse(order[i], order[k]));
		}
	/* As statuses: a failed phase (3) beside an impure one (1) gives 1. */
	CHECK_EQ_INT(1, hk_exit_for_outcome(hk_outcome_worse(HK_OUTCOME_COMMAND_FAILED,
							     HK_OUTCOME_IMPURE)));
}

TEST(each_class_has_its_status)
{
	struct hk_error err = { 0 };
	hk_fail_as(&err, HK_ERROR_USAGE, ENOENT, "no user 'nobdy'");
	CHECK_EQ_INT(64, hk_exit_for_error(&err));
	hk_fail_as(&err, HK_ERROR_INPUT, EACCES, "the store is out of the build user's reach");
	CHECK_EQ_INT(65, hk_exit_for_error(&err));
	hk_fail_as(&err, HK_ERROR_ENVIRONMENT, EINVAL, "the kernel refused the filter");
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	hk_fail_as(&err, HK_ERROR_INTERNAL, EINVAL, "the derived policy opens the canary");
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	hk_fail_interrupted(&err, SIGINT, "interrupted by signal %d", SIGINT);
	CHECK_EQ_INT(130, hk_exit_for_error(&err));
	hk_fail_interrupted(&err, SIGTERM, "interrupted");
	CHECK_EQ_INT(143, hk_exit_for_error(&err));
	hk_fail_interrupted(&err, SIGHUP, "interrupted");
	CHECK_EQ_INT(129, hk_exit_for_error(&err));
	/* Whatever the class, a failure never reads as a verdict (0-3). */
	for (int c = HK_ERROR_UNSET; c <= HK_ERROR_INTERNAL; c++) {
		hk_fail(&err, EIO, "x");
		if (c != HK_ERROR_INTERRUPTED)
			hk_error_set_class(&err, (enum hk_error_class)c);
		else
			hk_fail_interrupted(&err, SIGINT, "x");
		CHECK(hk_exit_for_error(&err) >= 64);
		CHECK(hk_error_class_name((enum hk_error_class)c) != NULL);
	}
}

TEST(an_interruption_keeps_its_signal_in_range)
{
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINTR, hk_fail_interrupted(&err, SIGINT, "stopped"));
	CHECK_EQ_INT(EINTR, err.code);
	CHECK_EQ_INT(SIGINT, err.signal);
	CHECK_EQ_INT(HK_ERROR_INTERRUPTED, hk_error_class(&err));
	/* Not a signal number: something stopped the work, counted as SIGTERM. */
	hk_fail_interrupted(&err, 0, "stopped");
	CHECK_EQ_INT(SIGTERM, err.signal);
	CHECK_EQ_INT(143, hk_exit_for_error(&err));
	hk_fail_interrupted(&err, 100000, "stopped");
	CHECK_EQ_INT(143, hk_exit_for_error(&err));
}

TEST(unclassified_errors_are_classified_by_errno)
{
	static const int input[] = { EINVAL, EBADMSG, ENOENT, ENOTDIR, EEXIST, ELOOP };
	static const int environment[] = { EIO, EACCES, EPERM, ENOSPC, ENOMEM, EINTR, ENOSYS };
	struct hk_error err = { 0 };
	for (size_t i = 0; i < HK_ARRAY_LEN(input); i++) {
		hk_fail(&err, input[i], "x");
		CHECK_EQ_INT(HK_ERROR_UNSET, err.cls);
		CHECK_EQ_INT(HK_ERROR_INPUT, hk_error_class(&err));
		CHECK_EQ_INT(65, hk_exit_for_error(&err));
	}
	for (size_t i = 0; i < HK_ARRAY_LEN(environment); i++) {
		hk_fail_errno(&err, environment[i], "x");
		CHECK_EQ_INT(HK_ERROR_ENVIRONMENT, hk_error_class(&err));
		CHECK_EQ_INT(70, hk_exit_for_error(&err));
	}
	/* EINTR alone is no interruption: only a step that knows the signal says so. */
	hk_fail(&err, EINTR, "read");
	CHECK_EQ_INT(0, err.signal);
	CHECK(hk_error_class(&err) != HK_ERROR_INTERRUPTED);
}

TEST(a_position_in_a_file_is_bad_input)
{
	struct hk_error err = { 0 };
	hk_fail_at(&err, EIO, "policy.txt", 3, 5, "unknown keyword 'rox'");
	CHECK_STR_EQ("policy.txt:3:5: unknown keyword 'rox'", err.msg);
	CHECK_EQ_INT(HK_ERROR_INPUT, hk_error_class(&err));
	CHECK_EQ_INT(65, hk_exit_for_error(&err));
}

TEST(wrap_keeps_the_class_a_new_failure_resets_it)
{
	struct hk_error err = { 0 };
	hk_fail_as(&err, HK_ERROR_USAGE, ENOENT, "no user 'nobdy'");
	CHECK_EQ_INT(-ENOENT, hk_wrap(&err, "--user"));
	CHECK_STR_EQ("--user: no user 'nobdy'", err.msg);
	CHECK_EQ_INT(64, hk_exit_for_error(&err));
	hk_fail_interrupted(&err, SIGINT, "stopped");
	hk_wrap(&err, "fetching the source");
	CHECK_EQ_INT(130, hk_exit_for_error(&err));
	/* A struct copy carries all of it (build_run.c keeps a plan's error aside). */
	struct hk_error copy = err;
	CHECK_EQ_INT(130, hk_exit_for_error(&copy));
	/* A fresh failure on the same struct is unclassified again. */
	hk_fail(&err, EIO, "reading");
	CHECK_EQ_INT(HK_ERROR_UNSET, err.cls);
	CHECK_EQ_INT(0, err.signal);
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	hk_error_clear(&err);
	CHECK_EQ_INT(0, err.code);
	CHECK_EQ_INT(HK_ERROR_UNSET, err.cls);
}

TEST(the_step_that_knows_overrides_the_errno_but_not_a_signal)
{
	struct hk_error err = { 0 };
	/* EACCES reads as the environment's; the reach check knows it is the input's. */
	hk_fail(&err, EACCES, "/srv/store (mode 0700) stops nobody");
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	CHECK_EQ_INT(-EACCES, hk_error_set_class(&err, HK_ERROR_INPUT));
	CHECK_EQ_INT(65, hk_exit_for_error(&err));
	/* ENOENT reads as the input's; a recipe's source fetch that failed is the machine's. */
	hk_fail(&err, ENOENT, "apt-get source");
	hk_error_set_class(&err, HK_ERROR_ENVIRONMENT);
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	/* A step that failed because a signal stopped it stays interrupted. */
	hk_fail_interrupted(&err, SIGTERM, "stopped");
	hk_error_set_class(&err, HK_ERROR_ENVIRONMENT);
	CHECK_EQ_INT(143, hk_exit_for_error(&err));
	/* And no class makes an interruption without a signal. */
	hk_fail(&err, EIO, "x");
	hk_error_set_class(&err, HK_ERROR_INTERRUPTED);
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
}

TEST(a_failure_that_never_filled_err_is_internal)
{
	struct hk_error err = { 0 };
	CHECK_EQ_INT(HK_ERROR_INTERNAL, hk_error_class(&err));
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
	CHECK_EQ_INT(70, hk_exit_status(-EINVAL, &err));
	/* Wrapped, it gets a code and stays harkaq's own fault. */
	CHECK_EQ_INT(-EINVAL, hk_wrap(&err, "deriving the policy"));
	CHECK_EQ_INT(HK_ERROR_INTERNAL, hk_error_class(&err));
	CHECK_EQ_INT(70, hk_exit_for_error(&err));
}

TEST(exit_status_reads_an_outcome_or_a_failure)
{
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_exit_status(HK_OUTCOME_OK, &err));
	CHECK_EQ_INT(2, hk_exit_status(HK_OUTCOME_NOEVIDENCE, &err));
	/* An error left in err by a step that recovered does not change an outcome. */
	hk_fail(&err, EIO, "a warning the build went on after");
	CHECK_EQ_INT(1, hk_exit_status(HK_OUTCOME_IMPURE, &err));
	CHECK_EQ_INT(70, hk_exit_status(-EIO, &err));
	hk_fail_at(&err, EINVAL, "recipe.toml", 1, 1, "x");
	CHECK_EQ_INT(65, hk_exit_status(-EINVAL, &err));
}
