/* harkaq: the orchestrator.  Thin dispatch; each verb lives in its own file. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/common/version.h"
#include "sys/interrupt.h"

static const struct hk_command commands[] = {
	{ "run", "run a command under the cage and give a verdict", cmd_run, true },
	{ "probe", "print what this machine can do (Landlock ABI, audit, bubblewrap)", cmd_probe },
	{ "build", "build a recipe in bubblewrap, a verdict per phase, the artifact sealed", cmd_build, true },
	{ "policy", "print the policy derived from a recipe's declared closure, and its id", cmd_policy },
	{ "store", "the content-addressed store: add, import Debian packages, which, verify", cmd_store },
	{ "declare", "build a recipe, declare what it used undeclared, again until Hermetic", cmd_declare, true },
	{ "explain", "re-render a stored verdict: declarable and irreducible debt, policy bugs", cmd_explain },
	{ "evidence", "evidence objects next to the store: verify, list, show", cmd_evidence },
	{ "attest", "sign and verify a build's attestations (in-toto, SLSA provenance, DSSE)", cmd_attest },
	{ "sweep", "build a whole catalogue and measure its debt; merge the shards of many machines", cmd_sweep, true },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq COMMAND [ARGS...]\n"
		"\n"
		"harkaq runs a build under a Landlock policy derived from its declared dependencies\n"
		"and gives a kernel-attested verdict: Hermetic, Impure {denials} or NoEvidence {reason}.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"exit status:\n"
		"  0   Hermetic (or success, for commands without a verdict)\n"
		"  1   Impure: something outside the declared closure was used\n"
		"  2   NoEvidence: harkaq cannot vouch for the run (reason printed)\n"
		"  3   the caged command itself failed\n"
		"  64  usage error    65  bad input (file:line:column named)\n"
		"  70  environment or internal error (e.g. a protection could not be installed)\n"
		"  128+N  a signal N stopped build, sweep or store base create (they stop cleanly)\n"
		"\n"
		"Run 'harkaq COMMAND --help' for a command's options, 'harkaq --version' for the\n"
		"version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return HK_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return HK_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("harkaq %s\n", HK_VERSION);
		return HK_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		if (commands[i].stops_cleanly)
			hk_interrupt_install();
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "harkaq: unknown command '%s' (see 'harkaq --help')\n", argv[1]);
	return HK_EXIT_USAGE;
}
