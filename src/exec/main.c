/* harkaq-exec: the command line.  The work is in cage.c (the layers) and launch.c (the probe
 * and the final execvp). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

static const char usage_text[] =
	"usage: harkaq-exec --policy FILE [--canary PATH] [--status-fd N] [--force-abi N]\n"
	"                   [--require-landlock] [--collapse FILE] -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD inside the cage: no_new_privs, Landlock (the policy's per-file rules, READ_DIR\n"
	"on every ancestor, ABI-6 scopes, LOG_NEW_EXEC_ON), a seccomp denylist returning EPERM,\n"
	"inherited descriptors closed; then, with --canary, re-executes itself inside the domain\n"
	"to open PATH and demand EACCES before executing CMD.  See docs/cage.md.\n"
	"\n"
	"  --policy FILE        the policy (docs/policy-format.md)\n"
	"  --canary PATH        a file the policy leaves out; the probe must be denied it\n"
	"  --status-fd N        JSON lines on descriptor N: the cage report, the canary, errors\n"
	"  --force-abi N        behave as Landlock ABI N (N <= the kernel's), to test downgrades\n"
	"  --require-landlock   refuse to run without Landlock ABI >= 3 instead of tier none\n"
	"  --collapse FILE      directories (one 'list PATH' line each, policy format) whose\n"
	"                       whole content is granted ro file by file: each is installed as\n"
	"                       one rule beneath it, if it is on a read-only mount and every\n"
	"                       grant beneath it is ro (harkaq build computes them)\n"
	"  --test-withhold-log-flag  test only: omit LOG_NEW_EXEC_ON (reported)\n"
	"  --test-break-seccomp      test only: make the kernel refuse the seccomp filter\n"
	"  --help               this text\n"
	"\n"
	"Exit status: CMD's own, once it runs; otherwise\n"
	"  121  the policy cannot be read or parsed (FILE:LINE:COL in the message)\n"
	"  122  Landlock: a rule or the domain was refused, or --require-landlock without it\n"
	"  123  seccomp: the filter could not be installed (the command is not run)\n"
	"  124  canary probe: the canary opened, failed otherwise than EACCES, or harkaq-exec\n"
	"       could not re-execute itself inside the domain\n"
	"  125  other set-up: command line, no_new_privs, descriptors, own path, status fd\n"
	"  126  the command cannot be executed\n"
	"  127  the command was not found\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "harkaq-exec: %s\n%s", msg, usage_text);
	return HK_EXEC_EXIT_SETUP;
}

int main(int argc, char **argv)
{
	struct hk_exec_args o;
	struct hk_error err = { 0 };
	int r = hk_exec_args_parse(argc, argv, &o, &err);
	if (r == 1) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (r < 0)
		return usage_error("%s", err.msg);
	if (o.probe_canary)
		return hk_exec_probe(o.probe_canary, o.status_fd, o.cmd);
	return hk_exec_cage(&o);
}
