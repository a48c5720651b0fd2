/* harkaq-exec's command line (docs/cage.md): the options struct, its one serialiser and its
 * one parser.  harkaq builds the command line that starts the cage in three places (`harkaq
 * run` on the host, a build's sandbox, harkaq-exec's own re-exec for the canary probe) and
 * harkaq-exec reads it in one: both go through here, so the two sides cannot drift.
 *
 *   harkaq-exec --policy FILE [--canary PATH] [--status-fd N] [--force-abi N]
 *               [--require-landlock] [--collapse FILE] [--test-…] -- CMD [ARGS...]
 *   harkaq-exec --probe-canary PATH [--status-fd N] -- CMD [ARGS...]
 *
 * Pure: strings in, strings out.  The strings a parsed struct holds are borrowed from argv. */
#ifndef HK_CORE_EXEC_ARGS_H
#define HK_CORE_EXEC_ARGS_H

#include <stdbool.h>

#include "core/basic/error.h"
#include "core/basic/strv.h"

struct hk_exec_args {
	const char *policy_path;     /* required, but in probe mode */
	const char *canary_path;     /* NULL: no probe stage */
	const char *probe_canary;    /* probe mode: the cage's own re-exec inside the domain */
	int status_fd;               /* -1: no status channel */
	int force_abi;               /* -1: the kernel's ABI (--force-abi, fault injection) */
	bool require_landlock;
	const char *collapse_path;   /* NULL: one rule per grant (--collapse FILE) */
	bool test_withhold_log_flag; /* test only: omit LOG_NEW_EXEC_ON */
	bool test_break_seccomp;     /* test only: make the kernel refuse the filter */
	char **cmd;                  /* NULL-terminated, cmd[0] != NULL */
};

#define HK_EXEC_ARGS_INIT { .status_fd = -1, .force_abi = -1 }

/* Appends to `out` the command line that starts `exec_path` with `a`: the options in a fixed
 * order, "--", then a->cmd.  Only what differs from HK_EXEC_ARGS_INIT is written. */
void hk_exec_args_to_argv(const struct hk_exec_args *a, const char *exec_path,
			  struct hk_strv *out);

/* Parses argv[1..argc) (argv[0] is the program) into *out, HK_EXEC_ARGS_INIT first.  Returns
 * 0; 1 when --help/-h was asked (nothing else is checked); or -EINVAL (class usage) with the
 * sentence that says what is wrong: an unknown option or missing value, a number out of
 * range, no "--" and command, probe mode with other options, no --policy. */
HK_MUST_CHECK int hk_exec_args_parse(int argc, char **argv, struct hk_exec_args *out,
				     struct hk_error *err);

#endif
