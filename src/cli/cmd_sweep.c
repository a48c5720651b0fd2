/* harkaq sweep RECIPE…|DIR: measure a whole catalogue (design.md §11, docs/sweep.md).
 *
 * Every recipe is built by its own `harkaq build` child process (its own reader, its own
 * canaries: concurrent builds are told apart by Landlock domain, design.md §6), its result JSON
 * read back, each debt path classified against the store and the base root, and the whole
 * summarised by src/core/sweep/sweep.c.  No recipe is dropped: one that cannot be read, resolved,
 * fetched or built is an item with outcome "failed" and its reason.
 *
 * harkaq sweep merge RESULT…: the shards of a sweep run on several machines, combined.
 *
 * The work is the engine's (engine/sweep/sweep.h): this file reads argv and turns what the engine
 * returned into the exit status. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/sweep/sweep.h"

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq sweep RECIPE...|FILE.dsc...|DIR... [--dsc-list FILE] [OPTIONS]\n"
		"       harkaq sweep merge RESULT... --store DIR [--json] [--out DIR] [--html FILE]\n"
		"\n"
		"Builds every recipe under the cage (each in its own 'harkaq build' process) and\n"
		"measures the catalogue: per recipe and in total, Hermetic / only declarable debt /\n"
		"irreducible debt / no evidence / failed, the irreducible rate (target < 5 %%), the\n"
		"most frequent debt paths with the artifacts that provide them, and the base debt\n"
		"(what a policy of closure + whole base root would have hidden).  A DIR is searched\n"
		"for files named recipe.toml (not below a directory that has one: those are its\n"
		"sources) and for .dsc files.  No recipe is dropped: one that cannot be read,\n"
		"resolved, fetched or built is reported as failed, with its reason.\n"
		"\n"
		"Debian source packages (a FILE.dsc, the .dsc files of a DIR, or the NAME=VERSION\n"
		"pins of --dsc-list) are built each as 'harkaq build --dsc' builds it, in a\n"
		"directory of its own under OUT/work (removed however the build ends), and classed\n"
		"by the class its report gives: hermetic / missing Build-Depends / undeclared\n"
		"influence / unattributed / probes only / inert probes only / failed / no evidence;\n"
		"or fetch failed (apt-get source or the closure's .debs, before any cage) or timed\n"
		"out.\n"
		"\n"
		"options:\n"
		"  --jobs N           builds at a time (default 1)\n"
		"  --store DIR        the store every build uses (default: $HARKAQ_STORE, else the\n"
		"                     nearest store/ above the first recipe)\n"
		"  --out DIR          keep everything: DIR/result.json (with timings, logs, evidence\n"
		"                     ids), DIR/summary.json (the deterministic part), DIR/summary.txt,\n"
		"                     DIR/logs/ and DIR/builds/ (each build's log and result); a\n"
		"                     relative DIR is taken from the current directory\n"
		"  --shard I/N        only the I-th of N slices: recipes sorted by their path as named\n"
		"                     here, position p belongs to shard (p mod N) + 1\n"
		"  --json             the result JSON on stdout instead of the table\n"
		"  --html FILE        a self-contained HTML report\n"
		"  --timeout SECONDS  per phase, passed to harkaq build\n"
		"  --item-timeout S   wall-clock limit per item: then the build is stopped (SIGTERM,\n"
		"                     SIGKILL to its process group 30 s later), nothing of it kept,\n"
		"                     and the item is 'timed out'\n"
		"  --dsc-list FILE    Debian source packages: NAME=VERSION first on each line ('#'\n"
		"                     comments), fetched with apt-get source --download-only\n"
		"  --sources DIR      where pins are fetched, and kept (default OUT/sources)\n"
		"  --base NAME        the base of the Debian builds (default debian-12-buildd)\n"
		"  --see PKG[,PKG...] passed to each Debian build (harkaq build --see)\n"
		"  --decide-probes    passed to each Debian build: each probe decided inert,\n"
		"                     influence or undecided by building again (harkaq build\n"
		"                     --decide-probes)\n"
		"  --confirm          passed to each Debian build (harkaq build --confirm)\n"
		"  --profile NAME     base runtime profile, passed to harkaq build\n"
		"  --user USER        build user, passed to harkaq build\n"
		"  --quiet            no progress line on stderr\n"
		"  --list             only list the recipes found (this shard's, with --shard), one\n"
		"                     key a line, and the catalogue's id and size on stderr\n"
		"\n"
		"resuming: with --out, each finished item is recorded in OUT/done/, keyed by the\n"
		"item (its key and content: the recipe's hash, the .dsc's SHA-256, or the pin), the\n"
		"code's identity (the GNU build ids of harkaq, its libraries and its helpers\n"
		"harkaq-exec and harkaq-audit), the id of the base it\n"
		"builds on, and the options that change its build: --timeout, --profile, --user,\n"
		"--item-timeout, and for a Debian item --base, --see, --decide-probes and\n"
		"--confirm (an item done without --decide-probes is built again with it).  The same\n"
		"command run again after an interruption (^C, SIGTERM) takes those items from their\n"
		"records and builds only the others.  Items whose fetch failed, whose build process\n"
		"died, or that the interruption stopped are built again.  An interrupted sweep's\n"
		"result counts the items it kept from building or cut short as 'not built\n"
		"(interrupted)', apart: the shares and the irreducible rate are of the items built.\n"
		"Progress (done/total, rate, time left, the running items) goes to stderr.\n"
		"\n"
		"merge: RESULT is a result.json of 'harkaq sweep --shard I/N --out DIR' (or its DIR);\n"
		"every shard 1..N exactly once, none interrupted.  Shards record what the kernel\n"
		"denied; the merge classifies every debt path once, against the complete store\n"
		"given by --store (or $HARKAQ_STORE), whatever each worker's store held.  The merged\n"
		"summary.json is byte for byte the one a single-machine sweep of the whole catalogue\n"
		"against that store writes.\n"
		"\n"
		"exit status: 0 the sweep completed (whatever the recipes' outcomes), 64 usage, 65 no\n"
		"recipe found, a bad result file, or an --out whose work directory the build user\n"
		"cannot reach, 70 environment error, 128+N interrupted by signal N (130: ^C), its\n"
		"result written.\n");
}

enum { OPT_JOBS = 1000, OPT_STORE, OPT_OUT, OPT_SHARD, OPT_JSON, OPT_HTML, OPT_TIMEOUT,
       OPT_PROFILE, OPT_USER, OPT_QUIET, OPT_LIST, OPT_HELP, OPT_DSC_LIST, OPT_SOURCES,
       OPT_BASE, OPT_SEE, OPT_ITEM_TIMEOUT, OPT_DECIDE_PROBES, OPT_CONFIRM };

static const struct option sweep_options[] = {
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "user", required_argument, NULL, OPT_USER },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "dsc-list", required_argument, NULL, OPT_DSC_LIST },
	{ "sources", required_argument, NULL, OPT_SOURCES },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "see", required_argument, NULL, OPT_SEE },
	{ "item-timeout", required_argument, NULL, OPT_ITEM_TIMEOUT },
	{ "decide-probes", no_argument, NULL, OPT_DECIDE_PROBES },
	{ "confirm", no_argument, NULL, OPT_CONFIRM },
	{ NULL, 0, NULL, 0 },
};

int cmd_sweep(int argc, char **argv)
{
	/* "merge" is the first operand, wherever the options are (`harkaq sweep --json merge
	 * DIR`): options are read first, in any order (permuting getopt). */
	bool merge = false;
	const char *who = "harkaq sweep";
	struct sweep_opts o = { .jobs = 1 };
	int c;
	optind = 1;
	/* Options may follow the recipes (permuting getopt): `harkaq sweep catalogue --jobs 2`. */
	while ((c = getopt_long(argc, argv, "h", sweep_options, NULL)) != -1) {
		switch (c) {
		case OPT_JOBS: {
			char *end;
			long j = strtol(optarg, &end, 10);
			if (*end || j < 1 || j > 256) {
				fprintf(stderr, "%s: --jobs wants a number from 1 to 256, not '%s'\n",
					who, optarg);
				return HK_EXIT_USAGE;
			}
			o.jobs = (unsigned)j;
			break;
		}
		case OPT_STORE: o.store_opt = optarg; break;
		case OPT_OUT: o.out_dir = optarg; break;
		case OPT_SHARD: o.shard = optarg; break;
		case OPT_JSON: o.json = true; break;
		case OPT_HTML: o.html = optarg; break;
		case OPT_TIMEOUT: {
			char *end;
			long t = strtol(optarg, &end, 10);
			if (*end || t <= 0) {
				fprintf(stderr, "%s: --timeout wants seconds, not '%s'\n", who, optarg);
				return HK_EXIT_USAGE;
			}
			o.timeout = optarg;
			break;
		}
		case OPT_ITEM_TIMEOUT: {
			char *end;
			long t = strtol(optarg, &end, 10);
			if (*end || end == optarg || t <= 0) {
				fprintf(stderr, "%s: --item-timeout wants seconds, not '%s'\n", who,
					optarg);
				return HK_EXIT_USAGE;
			}
			o.item_timeout = t;
			break;
		}
		case OPT_DSC_LIST: o.dsc_list = optarg; break;
		case OPT_SOURCES: o.sources = optarg; break;
		case OPT_BASE: o.base = optarg; break;
		case OPT_SEE: o.see = optarg; break;
		case OPT_DECIDE_PROBES: o.decide_probes = true; break;
		case OPT_CONFIRM: o.confirm = true; break;
		case OPT_PROFILE: o.profile = optarg; break;
		case OPT_USER: o.user = optarg; break;
		case OPT_QUIET: o.quiet = true; break;
		case OPT_LIST: o.list = true; break;
		case OPT_HELP:
		case 'h':
			sweep_usage(stdout);
			return HK_EXIT_OK;
		default:
			sweep_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (optind < argc && strcmp(argv[optind], "merge") == 0) {
		merge = true;
		who = "harkaq sweep merge";
		optind++;
	}
	if (merge && (o.shard || o.jobs != 1 || o.timeout || o.profile || o.user || o.list ||
		      o.dsc_list || o.sources || o.base || o.see || o.item_timeout ||
		      o.decide_probes || o.confirm)) {
		fprintf(stderr, "%s: only --store, --json, --out and --html apply to a merge\n", who);
		return HK_EXIT_USAGE;
	}
	/* Never a default store for a merge: classifying against whatever ./store holds would
	 * make the merged numbers depend on where the merge ran. */
	if (merge && !o.store_opt && !(getenv("HARKAQ_STORE") && *getenv("HARKAQ_STORE"))) {
		fprintf(stderr, "%s: give the complete store with --store DIR (or $HARKAQ_STORE): "
				"the merge classifies every debt path against it\n", who);
		return HK_EXIT_USAGE;
	}
	if (optind >= argc && !(o.dsc_list && !merge)) {
		fprintf(stderr, "%s: give %s (see 'harkaq sweep --help')\n", who,
			merge ? "the shards' results"
			      : "recipes, .dsc files, directories of them, or --dsc-list FILE");
		return HK_EXIT_USAGE;
	}
	/* What the engine returned, through the one table (engine/common/status.h): the sweep's outcome
	 * is OK whatever its items' (they are its result), a failure its class's status. */
	struct hk_error err = { 0 };
	char **operands = argv + optind;
	size_t n_operands = (size_t)(argc - optind);
	int rc = merge ? sweep_merge(operands, n_operands, &o, &err)
		       : sweep_run(operands, n_operands, &o, &err);
	if (rc < 0)
		return cli_fail(who, &err, HK_ERROR_UNSET);
	return hk_exit_status(rc, &err);
}
