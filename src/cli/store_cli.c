/* What the `harkaq store` subcommands share (store_cli.h). */
#include "cli/store_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

int store_usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "harkaq store: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'harkaq store --help')\n");
	return HK_EXIT_USAGE;
}

int store_fail_exit(const struct hk_error *err)
{
	fprintf(stderr, "harkaq store: %s\n", err->msg);
	return hk_exit_for_error(err);
}

bool store_take_value(int argc, char **argv, int *i, const char *opt, const char **value)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n) != 0)
		return false;
	if (argv[*i][n] == '=') {
		*value = argv[*i] + n + 1;
		return true;
	}
	if (argv[*i][n] != '\0')
		return false;
	if (*i + 1 >= argc) {
		*value = NULL;
		return true;
	}
	*value = argv[++*i];
	return true;
}

bool store_is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}
