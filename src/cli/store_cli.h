/* What the `harkaq store` subcommands share (cmd_store.c, cmd_base.c): one way to read an
 * option, to refuse a usage, and to turn an error into an exit status. */
#ifndef HK_CLI_STORE_CLI_H
#define HK_CLI_STORE_CLI_H

#include <stdbool.h>

#include "core/basic/error.h"

/* "harkaq store: MESSAGE (see 'harkaq store --help')" on stderr; returns HK_EXIT_USAGE. */
int store_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "harkaq store: ERR" on stderr; returns the exit status of err's class (hk_exit_for_error). */
int store_fail_exit(const struct hk_error *err);
/* harkaq store export / import (cmd_store_bundle.c): argv[0] is "export" or "import"; returns
 * the exit status. */
int store_bundle_cmd(const char *store_dir, int argc, char **argv);
/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: true, *value the value (NULL when it is
 * missing), *i advanced past it.  False for any other argument. */
bool store_take_value(int argc, char **argv, int *i, const char *opt, const char **value);
/* "--help" or "-h". */
bool store_is_help(const char *a);

#endif
