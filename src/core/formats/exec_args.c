/* harkaq-exec's command line (exec_args.h). */
#include "core/formats/exec_args.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push_int(struct hk_strv *out, const char *opt, int v)
{
	char text[16];
	snprintf(text, sizeof(text), "%d", v);
	hk_strv_push(out, opt);
	hk_strv_push(out, text);
}

static void push_opt(struct hk_strv *out, const char *opt, const char *value)
{
	if (!value)
		return;
	hk_strv_push(out, opt);
	hk_strv_push(out, value);
}

void hk_exec_args_to_argv(const struct hk_exec_args *a, const char *exec_path,
			  struct hk_strv *out)
{
	hk_strv_push(out, exec_path);
	push_opt(out, "--probe-canary", a->probe_canary);
	push_opt(out, "--policy", a->policy_path);
	if (a->status_fd >= 0)
		push_int(out, "--status-fd", a->status_fd);
	push_opt(out, "--collapse", a->collapse_path);
	push_opt(out, "--canary", a->canary_path);
	if (a->force_abi >= 0)
		push_int(out, "--force-abi", a->force_abi);
	if (a->require_landlock)
		hk_strv_push(out, "--require-landlock");
	if (a->test_withhold_log_flag)
		hk_strv_push(out, "--test-withhold-log-flag");
	if (a->test_break_seccomp)
		hk_strv_push(out, "--test-break-seccomp");
	hk_strv_push(out, "--");
	for (size_t i = 0; a->cmd && a->cmd[i]; i++)
		hk_strv_push(out, a->cmd[i]);
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

int hk_exec_args_parse(int argc, char **argv, struct hk_exec_args *out, struct hk_error *err)
{
	*out = (struct hk_exec_args)HK_EXEC_ARGS_INIT;
	const char *v;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return 1;
		if (strcmp(a, "--require-landlock") == 0) {
			out->require_landlock = true;
		} else if (strcmp(a, "--test-withhold-log-flag") == 0) {
			out->test_withhold_log_flag = true;
		} else if (strcmp(a, "--test-break-seccomp") == 0) {
			out->test_break_seccomp = true;
		} else if ((v = option_value(argc, argv, &i, "--policy"))) {
			out->policy_path = v;
		} else if ((v = option_value(argc, argv, &i, "--collapse"))) {
			out->collapse_path = v;
		} else if ((v = option_value(argc, argv, &i, "--canary"))) {
			out->canary_path = v;
		} else if ((v = option_value(argc, argv, &i, "--probe-canary"))) {
			out->probe_canary = v;
		} else if ((v = option_value(argc, argv, &i, "--status-fd"))) {
			if (parse_int(v, 0, INT_MAX, &out->status_fd) < 0)
				return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
						  "--status-fd wants a descriptor number, not '%s'", v);
		} else if ((v = option_value(argc, argv, &i, "--force-abi"))) {
			if (parse_int(v, 0, 1000, &out->force_abi) < 0)
				return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
						  "--force-abi wants an ABI number, not '%s'", v);
		} else {
			return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
					  "unknown option or missing value: '%s'", a);
		}
	}
	if (i > argc || i == argc || strcmp(argv[i - 1], "--") != 0)
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL, "no command: CMD goes after '--'");
	out->cmd = argv + i;
	if (out->probe_canary) {
		/* Probe mode is entered only by the cage's own re-exec; it has no other options. */
		if (out->policy_path || out->canary_path || out->force_abi >= 0 ||
		    out->require_landlock || out->collapse_path || out->test_withhold_log_flag ||
		    out->test_break_seccomp)
			return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
					  "--probe-canary takes only --status-fd");
		return 0;
	}
	if (!out->policy_path)
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL, "--policy FILE is required");
	return 0;
}
