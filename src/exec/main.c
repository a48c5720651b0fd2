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

static int parse_int(const char *s, int min, int max, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "--name VALUE" or "--name=VALUE"; advances *i past the value. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0' || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int main(int argc, char **argv)
{
	struct hk_exec_opts o = { .status_fd = -1, .force_abi = -1 };
	const char *probe_canary = NULL;
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (strcmp(a, "--require-landlock") == 0) {
			o.require_landlock = true;

		} else if (strcmp(a, "--test-withhold-log-flag") == 0) {
			o.test_withhold_log_flag = true;
		} else if (strcmp(a, "--test-break-seccomp") == 0) {
			o.test_break_seccomp = true;
		} else if ((v = option_value(argc, argv, &i, "--policy"))) {
			o.policy_path = v;
		} else if ((v = option_value(argc, argv, &i, "--collapse"))) {
			o.collapse_path = v;
		} else if ((v = option_value(argc, argv, &i, "--canary"))) {
			o.canary_path = v;
		} else if ((v = option_value(argc, argv, &i, "--probe-canary"))) {
			probe_canary = v;
		} else if ((v = option_value(argc, argv, &i, "--status-fd"))) {
			if (parse_int(v, 0, INT_MAX, &o.status_fd) < 0)
				return usage_error("--status-fd wants a descriptor number, not '%s'", v);
		} else if ((v = option_value(argc, argv, &i, "--force-abi"))) {
			if (parse_int(v, 0, 1000, &o.force_abi) < 0)
				return usage_error("--force-abi wants an ABI number, not '%s'", v);
		} else {
			return usage_error("unknown option or missing value: '%s'", a);
		}
	}
	if (i > argc || i == argc || strcmp(argv[i - 1], "--") != 0)
		return usage_error("%s", "no command: CMD goes after '--'");
	o.cmd = argv + i;

	if (probe_canary) {
		/* Probe mode is entered only by the cage's own re-exec; it has no other options. */
		if (o.policy_path || o.canary_path || o.force_abi >= 0 || o.require_landlock ||
		    o.collapse_path || o.test_withhold_log_flag || o.test_break_seccomp)
			return usage_error("%s", "--probe-canary takes only --status-fd");
		return hk_exec_probe(probe_canary, o.status_fd, o.cmd);
	}
	if (!o.policy_path)
		return usage_error("%s", "--policy FILE is required");
	return hk_exec_cage(&o);
}
