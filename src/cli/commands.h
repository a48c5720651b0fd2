/* The harkaq command line: one verb per file (cmd_<verb>.c), dispatched by main.c.
 * Exit statuses: engine/common/status.h (documented in `harkaq --help` and the README); a verb turns
 * what the engine returned into one with hk_exit_status, or cli_fail, never by hand. */
#ifndef HK_CLI_COMMANDS_H
#define HK_CLI_COMMANDS_H

#include <stdio.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine/common/status.h"

struct hk_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);   /* argv[0] is the verb */
	/* The verb stops cleanly on SIGINT/TERM/HUP (it asks hk_interrupted() between steps):
	 * main installs the process's interrupt context for it (sys/interrupt.h).  Other verbs
	 * keep the default action: Ctrl-C ends them at once. */
	bool stops_cleanly;
};

/* A failure a verb stops on: "WHO: MESSAGE" on stderr, and its exit status by its class
 * (hk_exit_for_error).  `cls`, unless HK_ERROR_UNSET, is what the verb knows of the failure
 * (hk_error_set_class): a policy file it was given that cannot be read is bad input. */
int cli_fail(const char *who, struct hk_error *err, enum hk_error_class cls);
/* The same without the message, for a verb that prints its own. */
int cli_exit_as(struct hk_error *err, enum hk_error_class cls);

/* For a verb whose stdout carries one answer (a JSON object, a chain) and nothing else: what
 * the builds it runs write to their stdout (phases, apt-get, tar …) goes to stderr, like the
 * progress lines.  With `reserve`, returns a stream on the former stdout and points descriptor
 * 1 at stderr; without, stdout itself (cli_fail.c). */
FILE *cli_reserve_stdout(bool reserve);

/* Each verb, implemented in cmd_<verb>.c. */
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_evidence(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_declare(int argc, char **argv);
/* harkaq store base …: argv[0] is "base"; store_dir is --store or NULL (cmd_base.c). */
int cmd_store_base(const char *store_dir, int argc, char **argv);

/* The options `explain` and `evidence` take (--store DIR, --json, --help/-h), parsed from argv
 * with getopt_long: usage(stdout) on --help, usage(stderr) on an unknown option.  Returns -1
 * when the command goes on (optind is then its first operand), else the exit status to
 * return. */
int cli_evidence_options(int argc, char **argv, void (*usage)(FILE *), const char **store_opt,
			 bool *json);

#endif
