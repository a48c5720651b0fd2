/* A verb's failure, printed and turned into its exit status (commands.h). */
#include <stdio.h>

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
