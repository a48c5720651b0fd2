/* The exit statuses of outcomes and failure classes (status.h): the command line's one table. */
#include "engine/common/status.h"

#include <signal.h>

enum hk_outcome hk_outcome_worse(enum hk_outcome a, enum hk_outcome b)
{
	return a > b ? a : b;
}

int hk_exit_for_outcome(enum hk_outcome o)
{
	static const int exit_of_outcome[] = {
		[HK_OUTCOME_OK] = HK_EXIT_HERMETIC,
		[HK_OUTCOME_COMMAND_FAILED] = HK_EXIT_COMMAND_FAILED,
		[HK_OUTCOME_IMPURE] = HK_EXIT_IMPURE,
		[HK_OUTCOME_NOEVIDENCE] = HK_EXIT_NOEVIDENCE,
	};
	/* An outcome out of range is harkaq's bug: never reported as a verdict. */
	if ((unsigned)o >= sizeof(exit_of_outcome) / sizeof(exit_of_outcome[0]))
		return HK_EXIT_SOFTWARE;
	return exit_of_outcome[o];
}

int hk_exit_for_error(const struct hk_error *err)
{
	static const int exit_of_class[] = {
		[HK_ERROR_USAGE] = HK_EXIT_USAGE,
		[HK_ERROR_INPUT] = HK_EXIT_DATAERR,
		[HK_ERROR_ENVIRONMENT] = HK_EXIT_SOFTWARE,
		[HK_ERROR_INTERNAL] = HK_EXIT_SOFTWARE,
	};
	enum hk_error_class cls = hk_error_class(err);
	if (cls == HK_ERROR_INTERRUPTED)
		/* As a shell reports a process a signal ended; hk_fail_interrupted keeps the
		 * signal in range. */
		return HK_EXIT_SIGNAL_BASE + (err->signal > 0 && err->signal < NSIG ? err->signal
										       : SIGTERM);
	if ((unsigned)cls >= sizeof(exit_of_class) / sizeof(exit_of_class[0]) ||
	    exit_of_class[cls] == 0)
		return HK_EXIT_SOFTWARE;
	return exit_of_class[cls];
}

int hk_exit_status(int rc, const struct hk_error *err)
{
	return rc < 0 ? hk_exit_for_error(err) : hk_exit_for_outcome((enum hk_outcome)rc);
}
