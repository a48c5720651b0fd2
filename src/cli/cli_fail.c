/* What every verb does at its edge (commands.h): a failure printed and turned into its exit
 * status, and stdout kept for the verb's one answer. */
#include <stdio.h>
#include <unistd.h>

#include "cli/commands.h"

int cli_exit_as(struct hk_error *err, enum hk_error_class cls)
{
	if (cls != HK_ERROR_UNSET)
		hk_error_set_class(err, cls);
	return hk_exit_for_error(err);
}

int cli_fail(const char *who, struct hk_error *err, enum hk_error_class cls)
{
	fprintf(stderr, "%s: %s\n", who, err->msg);
	return cli_exit_as(err, cls);
}

FILE *cli_reserve_stdout(bool reserve)
{
	if (!reserve)
		return stdout;
	fflush(stdout);
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		return f;
	}
	if (fd >= 0)
		close(fd);
	return stdout;
}
