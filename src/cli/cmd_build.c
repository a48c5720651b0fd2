/* harkaq build RECIPE: every phase in bubblewrap, under the policy derived from the recipe's
 * declared closure, each phase in its own Landlock domain with its own canary and verdict;
 * the install output sealed into the store (design.md §9, §7). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/attest.h"
#include "cli/build.h"
#include "cli/cage.h"
#include "cli/commands.h"
#include "cli/proc.h"
#include "cli/report.h"
#include "cli/sandbox.h"
#include "cli/verdict_out.h"
#include "core/baseroot.h"
#include "core/deb.h"
#include "core/derive.h"
#include "core/file.h"
#include "core/recipe.h"
#include "core/store.h"
#include "core/util.h"
#include "core/verdict.h"
#include "sys/verity.h"

/* SOURCE_DATE_EPOCH for every build: fixed, so that a build's bytes do not depend on when it
 * ran (2023-11-14T22:13:20Z). */
#define HK_SOURCE_DATE_EPOCH "1700000000"

static void build_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq build RECIPE [OPTIONS]\n"
		"\n"
		"Builds RECIPE in bubblewrap (no network, base root read-only, the declared deps\n"
		"merged over it, /src and /out the only writable surfaces), each phase under the\n"
		"Landlock policy derived from the declared closure, each with its own canary and\n"
		"verdict.  The install phase's /out is sealed into the store as an artifact.\n"
		"\n"
		"options:\n"
		"  --store DIR        the store (default: $HARKAQ_STORE, else the nearest store/ above\n"
		"                     the recipe, else ./store)\n"
		"  --no-cage          the same sandbox without harkaq (no policy, no verdict): the\n"
		"                     artifact must come out identical to a Hermetic caged build\n"
		"  --user USER        the unprivileged build user (default: nobody)\n"
		"  --profile NAME     base runtime profile (default: autotools; see docs/base-runtime.md)\n"
		"  --json             the result as JSON on stdout\n"
		"  --result-out FILE  the result as JSON to FILE\n"
		"  --timeout SECONDS  per phase (default 3600)\n"
		"  --keep             keep the work directory (printed) for inspection\n"
		"  --quiet            no progress on stderr\n"
		"  --no-evidence      the cage without the reader and canary (enforcement only; the\n"
		"                     verdict is NoEvidence): what the evidence costs is the difference\n"
		"  --per-file-rules   install one Landlock rule per granted file even beneath a\n"
		"                     read-only directory whose whole content is granted (the same\n"
		"                     grants, installed slower; docs/cage.md, \"Collapsed directories\")\n"
		"  --key FILE         sign the build's attestations (in-toto, DSSE) with this\n"
		"                     Ed25519 key (harkaq attest keygen; docs/attestations.md)\n"
		"  --force-abi N      tests only: the cage behaves as Landlock ABI N (harkaq-exec\n"
		"                     --force-abi); the verdict is then NoEvidence, never Hermetic\n"
		"  --wrap 'PROG ARGS' benchmark only: run each phase's shell under PROG ARGS (split on\n"
		"                     spaces) inside the sandbox, e.g. 'strace -f -e trace=file -o\n"
		"                     /tmp/trace'; under the cage seccomp denies ptrace, so tracers\n"
		"                     want --no-cage\n"
		"\n"
		"exit status: 0 every phase Hermetic, 1 a phase Impure, 2 a phase NoEvidence, 3 a phase\n"
		"failed, 64 usage, 65 bad recipe (file:line:column) or missing dep, 70 set-up error.\n");
}


/* SIGINT, SIGTERM and SIGHUP stop the build cleanly instead of killing harkaq where it
 * stands: a harkaq killed mid-build would leave its work directory behind and, mid-seal, a
 * half-made store entry.  During a phase hk_cage_run owns these signals (it forwards them to
 * the sandbox, then finishes the evidence and returns EINTR); outside a phase they only set
 * this flag, which the build checks between steps.  The phase's processes and its overlay
 * mounts need no handling of their own: bubblewrap runs with --die-with-parent in its own pid
 * namespace, and the merged view is mounted only in the phase's private mount namespace, so
 * both vanish with the phase's last process. */
static volatile sig_atomic_t interrupted_by;

static void note_signal(int sig)
{
	interrupted_by = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = note_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int interrupted(struct hk_error *err)
{
	int sig = interrupted_by ? (int)interrupted_by : SIGTERM;
	hk_fail(err, EINTR, "interrupted by signal %d (%s): the build was stopped, its processes "
			    "killed and its work directory removed; nothing was sealed",
		sig, strsignal(sig));
	return 128 + sig;
}

/* The nearest directory named store/ holding a store marker, from the recipe's directory up. */
static char *find_store_above(const char *dir)
{
	char *cur = hk_xstrdup(dir);
	for (;;) {
		char *cand = hk_xasprintf("%s%sstore", cur, strcmp(cur, "/") == 0 ? "" : "/");
		struct hk_store *s = NULL;
		struct hk_error e;
		if (hk_store_open(cand, false, &s, &e) == 0) {
			hk_store_close(s);
			free(cur);
			return cand;
		}
		free(cand);
		char *slash = strrchr(cur, '/');
		if (!slash || slash == cur) {
			if (strcmp(cur, "/") == 0)
				break;
			cur[1] = '\0';
			continue;
		}
		*slash = '\0';
	}
	free(cur);
	return NULL;
}

char *hk_build_store_dir(const struct hk_recipe *r, const char *store_opt)
{
	if (store_opt || (getenv("HARKAQ_STORE") && *getenv("HARKAQ_STORE")))
		return hk_xstrdup(hk_store_choose_dir(store_opt));
	return find_store_above(r->recipe_dir);
}

void hk_build_sandbox_init(struct hk_sandbox *sb, const struct hk_recipe *r, bool cage)
{
	memset(sb, 0, sizeof(*sb));
	sb->base_root = r->base_kind == HK_BASE_ROOT ? r->base_root : "/";
	sb->cage = cage;
}

static int copy_tree(const char *from, const char *to, struct hk_error *err)
{
	char *src = hk_xasprintf("%s/.", from);
	int r = hk_spawnl(NULL, false, err, "cp", "-a", "--no-preserve=ownership", src, to, NULL);
	free(src);
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

static int chown_tree(const char *dir, uid_t uid, gid_t gid, struct hk_error *err)
{
	char *owner = hk_xasprintf("%u:%u", (unsigned)uid, (unsigned)gid);
	int r = hk_spawnl(NULL, false, err, "chown", "-R", owner, dir, NULL);
	free(owner);
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

/* Puts the recipe's source into work/src. */
static int prepare_source(const struct hk_recipe *r, const char *work, const char *src,
			  bool quiet, struct hk_error *err)
{
	switch (r->source.kind) {
	case HK_SOURCE_DIR: {
		struct stat st;
		if (stat(r->source.path, &st) < 0 || !S_ISDIR(st.st_mode))
			return hk_fail(err, ENOENT, "%s:%u:%u: source directory %s does not exist",
				       r->path ? r->path : "recipe", r->source.pos.line,
				       r->source.pos.col, r->source.path);
		return copy_tree(r->source.path, src, err);
	}
	case HK_SOURCE_TARBALL: {
		int rc = hk_source_verify_tarball(r, err);
		if (rc < 0)
			return rc;
		rc = hk_spawnl(NULL, quiet, err, "tar", "-xf", r->source.path, "-C", src,
			       "--no-same-owner", NULL);
		if (rc != 0)
			return rc < 0 ? rc : -EIO;
		return hk_source_flatten_single_dir(src, err);
	}
	case HK_SOURCE_APT: {
		char *fetch = hk_xasprintf("%s/fetch", work);
		if (mkdir(fetch, 0755) < 0) {
			int e = errno;
			free(fetch);
			return hk_fail_errno(err, e, "creating %s/fetch", work);
		}
		char *pin = hk_xasprintf("%s=%s", r->source.apt_package, r->source.apt_version);
		if (!quiet)
			fprintf(stderr, "[source] apt-get source %s\n", pin);
		int rc = hk_spawnl(fetch, true, err, "apt-get", "source", "-qq", pin, NULL);
		free(pin);
		if (rc != 0) {
			free(fetch);
			return hk_wrap(err, "fetching the source on the host (is there a deb-src entry? "
					    "run ./setup)");
		}
		int r2 = hk_source_take_apt_dir(fetch, r->source.apt_package, src, err);
		free(fetch);
		return r2;
	}
	}
	return hk_fail(err, EINVAL, "unknown source kind");
}

static char *join_commands(const struct hk_recipe_phase *ph)
{
	struct hk_buf b = HK_BUF_INIT;
	for (size_t i = 0; i < ph->n_commands; i++) {
		hk_buf_puts(&b, ph->commands[i]);
		hk_buf_putc(&b, '\n');
	}
	return hk_buf_steal(&b);
}

int hk_build_derive(const struct hk_recipe *r, struct hk_store *store, const char *profile,
		    const struct hk_sandbox *sandbox, struct hk_build_plan *bp, struct hk_error *err)
{
	memset(bp, 0, sizeof(*bp));
	bp->policy = (struct hk_policy)HK_POLICY_INIT;
	bp->collapse = (struct hk_strset)HK_STRSET_INIT;
	const char *where = r->path ? r->path : "recipe";

	/* Declared deps → store artifacts. */
	const struct hk_artifact **roots = hk_xcalloc(r->n_build_deps + 1, sizeof(*roots));
	for (size_t i = 0; i < r->n_build_deps; i++) {
		const struct hk_recipe_dep *d = &r->build_deps[i];
		if (hk_store_find(store, d->spec, &roots[i], err) < 0) {
			int rc = hk_wrap(err, "%s:%u:%u: build dep '%s' (store %s; import it with "
					      "'harkaq store import-apt NAME' or 'harkaq store add')",
					 where, d->pos.line, d->pos.col, d->spec, hk_store_dir(store));
			free(roots);
			return rc;
		}
	}
	/* The base root's own packages satisfy runtime deps (libc6 …): it provides them. */
	char **base_names = NULL;
	size_t n_base = 0;
	const char *root = r->base_kind == HK_BASE_ROOT ? r->base_root : "/";
	char *status = hk_xasprintf("%s%svar/lib/dpkg/status", root,
				    root[strlen(root) - 1] == '/' ? "" : "/");
	struct hk_error ignored;
	if (r->n_build_deps > 0 && access(status, R_OK) == 0 &&
	    hk_deb_installed_names(status, &base_names, &n_base, &ignored) < 0) {
		base_names = NULL;
		n_base = 0;
	}
	free(status);
	const struct hk_artifact **closure = NULL;
	size_t n_closure = 0;
	/* No deps, empty closure: the same policy whether a store exists or not. */
	int rc = r->n_build_deps == 0
			 ? 0
			 : hk_store_closure(store, (const struct hk_artifact *const *)roots,
					    r->n_build_deps, (const char *const *)base_names, n_base,
					    &closure, &n_closure, err);
	free(roots);
	for (size_t i = 0; i < n_base; i++)
		free(base_names[i]);
	free(base_names);
	if (rc < 0)
		return hk_wrap(err, "%s: the closure of the declared deps", where);

	/* Every file and symlink of every artifact, as the sandbox sees it. */
	size_t cap = 1024, n = 0;
	struct hk_derive_entry *entries = hk_xmalloc(cap * sizeof(*entries));
	struct hk_tree *trees = hk_xcalloc(n_closure + 1, sizeof(*trees));
	char **paths = NULL;
	size_t n_paths = 0, cap_paths = 0;
	bp->layers = hk_xcalloc(n_closure + 1, sizeof(char *));
	for (size_t i = 0; i < n_closure; i++) {
		trees[i] = (struct hk_tree)HK_TREE_INIT;
		rc = hk_store_files(store, closure[i], &trees[i], err);
		if (rc < 0) {
			rc = hk_wrap(err, "artifact %s", closure[i]->dirname);
			goto out;
		}
		/* Highest priority first: a dependent over its deps (closure is deps-first). */
		bp->layers[n_closure - 1 - i] = hk_xstrdup(closure[i]->path);
		for (size_t k = 0; k < trees[i].n; k++) {
			const struct hk_tree_entry *e = &trees[i].entries[k];
			if (e->type == HK_TREE_DIR)
				continue;
			/* Not merged into the sandbox (a dep's /var): nothing to grant. */
			if (!hk_sandbox_merges_path(e->path)) {
				bp->n_unmerged++;
				continue;
			}
			if (n_paths == cap_paths) {
				cap_paths = cap_paths ? cap_paths * 2 : 1024;
				paths = hk_xrealloc(paths, cap_paths * sizeof(char *));
			}
			paths[n_paths] = hk_xasprintf("/%s", e->path);
			if (n == cap) {
				cap *= 2;
				entries = hk_xrealloc(entries, cap * sizeof(*entries));
			}
			entries[n].path = paths[n_paths];
			entries[n].symlink_target = e->type == HK_TREE_SYMLINK ? e->target : NULL;
			entries[n].artifact = closure[i]->dirname;
			n++;
			n_paths++;
		}
	}
	bp->n_layers = n_closure;

	struct hk_strset base = HK_STRSET_INIT;
	rc = hk_base_runtime(root, profile, &base, err);
	if (rc < 0) {
		hk_strset_free(&base);
		rc = hk_wrap(err, "the base runtime (profile %s, root %s)", profile, root);
		goto out;
	}
	hk_sandbox_contract(sandbox, &bp->policy);
	struct hk_derive_input in = {
		.closure = entries,
		.n_closure = n,
		.base_runtime = &base,
		.expects = (const char *const *)r->expects,
		.n_expects = r->n_expects,
		.scopes = HK_SCOPE_ABSTRACT_UNIX_SOCKET | HK_SCOPE_SIGNAL,
	};
	rc = hk_derive_policy(&in, &bp->policy, &bp->report, err);
	hk_strset_free(&base);
	if (rc < 0) {
		rc = hk_wrap(err, "%s", where);
		goto out;
	}
	hk_policy_id(&bp->policy, bp->policy_id);
	rc = hk_collapse_plan(&bp->policy, entries, n, root, &bp->collapse, &bp->collapse_stats,
			      hk_sandbox_merges_path, err);
	if (rc < 0) {
		rc = hk_wrap(err, "%s", where);
		goto out;
	}
	bp->n_closure = n_closure;
	bp->closure_names = hk_xcalloc(n_closure + 1, sizeof(char *));
	for (size_t i = 0; i < n_closure; i++)
		bp->closure_names[i] = hk_xstrdup(closure[i]->dirname);
	rc = 0;
out:
	for (size_t i = 0; i < n_closure; i++)
		hk_tree_free(&trees[i]);
	free(trees);
	for (size_t i = 0; i < n_paths; i++)
		free(paths[i]);
	free(paths);
	free(entries);
	free(closure);
	return rc;
}

void hk_build_plan_free(struct hk_build_plan *bp)
{
	hk_policy_free(&bp->policy);
	hk_derive_report_free(&bp->report);
	for (size_t i = 0; i < bp->n_layers; i++)
		free(bp->layers[i]);
	free(bp->layers);
	for (size_t i = 0; i < bp->n_closure; i++)
		free(bp->closure_names[i]);
	free(bp->closure_names);
	hk_strset_free(&bp->collapse);
	memset(bp, 0, sizeof(*bp));
}

static char **build_env(const struct hk_recipe *r)
{
	struct hk_argv a = { 0 };
	hk_argv_push(&a, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
	hk_argv_push(&a, "HOME=/tmp");
	hk_argv_push(&a, "SOURCE_DATE_EPOCH=" HK_SOURCE_DATE_EPOCH);
	hk_argv_push(&a, "LC_ALL=C");
	hk_argv_push(&a, "TZ=UTC");
	for (size_t i = 0; i < r->n_env; i++) {
		char *kv = hk_xasprintf("%s=%s", r->env[i].key, r->env[i].value);
		hk_argv_push(&a, kv);
		free(kv);
	}
	return a.v;
}

enum { OPT_STORE = 1000, OPT_NO_CAGE, OPT_USER, OPT_PROFILE, OPT_JSON, OPT_RESULT_OUT,
       OPT_TIMEOUT, OPT_KEEP, OPT_QUIET, OPT_NO_EVIDENCE, OPT_WRAP, OPT_FORCE_ABI, OPT_PER_FILE_RULES,
       OPT_KEY, OPT_HELP };

static const struct option build_options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "no-cage", no_argument, NULL, OPT_NO_CAGE },
	{ "user", required_argument, NULL, OPT_USER },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "result-out", required_argument, NULL, OPT_RESULT_OUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "no-evidence", no_argument, NULL, OPT_NO_EVIDENCE },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "force-abi", required_argument, NULL, OPT_FORCE_ABI },
	{ "per-file-rules", no_argument, NULL, OPT_PER_FILE_RULES },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int worse(int a, int b)
{
	/* NoEvidence > Impure > failed > Hermetic: the exit status reports the worst phase. */
	static const int rank[] = { [HK_EXIT_HERMETIC] = 0, [HK_EXIT_COMMAND_FAILED] = 1,
				    [HK_EXIT_IMPURE] = 2, [HK_EXIT_NOEVIDENCE] = 3 };
	if (a > HK_EXIT_COMMAND_FAILED || b > HK_EXIT_COMMAND_FAILED)
		return a > b ? a : b;
	return rank[a] >= rank[b] ? a : b;
}

int cmd_build(int argc, char **argv)
{
	const char *store_opt = NULL, *user = "nobody", *profile = "autotools", *result_out = NULL;
	bool cage = true, json = false, keep = false, quiet = false, no_evidence = false;
	bool per_file_rules = false;
	const char *wrap = NULL, *key = NULL;
	long timeout = 3600, force_abi = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", build_options, NULL)) != -1) {
		switch (c) {
		case OPT_STORE: store_opt = optarg; break;
		case OPT_NO_CAGE: cage = false; break;
		case OPT_USER: user = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_RESULT_OUT: result_out = optarg; break;
		case OPT_KEEP: keep = true; break;
		case OPT_QUIET: quiet = true; break;
		case OPT_NO_EVIDENCE: no_evidence = true; break;
		case OPT_WRAP: wrap = optarg; break;
		case OPT_PER_FILE_RULES: per_file_rules = true; break;
		case OPT_KEY: key = optarg; break;
		case OPT_FORCE_ABI: {
			char *end;
			force_abi = strtol(optarg, &end, 10);
			if (*end || end == optarg || force_abi <= 0 || force_abi > 1000) {
				fprintf(stderr, "harkaq build: --force-abi wants an ABI number, not '%s'\n",
					optarg);
				return HK_EXIT_USAGE;
			}
			break;
		}
		case OPT_TIMEOUT: {
			char *end;
			timeout = strtol(optarg, &end, 10);
			if (*end || timeout <= 0) {
				fprintf(stderr, "harkaq build: --timeout wants seconds, not '%s'\n", optarg);
				return HK_EXIT_USAGE;
			}
			break;
		}
		case OPT_HELP:
		case 'h':
			build_usage(stdout);
			return HK_EXIT_OK;
		default:
			build_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "harkaq build: give exactly one RECIPE (see 'harkaq build --help')\n");
		return HK_EXIT_USAGE;
	}
	if (!hk_base_profile_find(profile)) {
		fprintf(stderr, "harkaq build: unknown base profile '%s' (known:", profile);
		for (const char *const *p = hk_base_profile_names(); *p; p++)
			fprintf(stderr, " %s", *p);
		fprintf(stderr, ")\n");
		return HK_EXIT_USAGE;
	}
	struct hk_build_opts bo = {
		.recipe_path = argv[optind],
		.store_dir = store_opt,
		.cage = cage,
		.no_evidence = no_evidence,
		.per_file_rules = per_file_rules,
		.wrap = wrap,
		.force_abi = (int)force_abi,
		.user = user,
		.profile = profile,
		.timeout_s = (int)timeout,
		.keep = keep,
		.quiet = quiet,
	};
	struct hk_build_result br;
	struct hk_error err = { 0 };
	/* The attestations (cli/attest.h): a key that cannot be used stops the build first. */
	struct hk_attest_ctx attest;
	int code = hk_attest_begin(&attest, key, &err);
	if (code != 0) {
		fprintf(stderr, "harkaq build: %s\n", err.msg);
		return code;
	}
	/* With --json, stdout carries one JSON object and nothing else: what the phases (and
	 * apt-get, tar …) write to their stdout goes to stderr, like the progress lines. */
	FILE *json_out = stdout;
	if (json) {
		fflush(stdout);
		int fd = dup(STDOUT_FILENO);
		if (fd >= 0 && (json_out = fdopen(fd, "w")) != NULL) {
			dup2(STDERR_FILENO, STDOUT_FILENO);
		} else {
			if (fd >= 0)
				close(fd);
			json_out = stdout;
		}
	}
	code = hk_build_run(&bo, &br, &err);
	if (code < HK_EXIT_USAGE && hk_attest_build(&attest, &bo, &br, &err) != 0)
		code = HK_EXIT_SOFTWARE;
	hk_attest_end(&attest);
	if (code >= HK_EXIT_USAGE) {
		fprintf(stderr, "harkaq build: %s\n", err.msg);
		br.error = err.msg;
	}
	/* --json answers on every path, failures included: a consumer reads one object, with
	 * "error" set when the build stopped before giving verdicts. */
	if (json || result_out) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_build_result_json(&br, &j);
		hk_buf_putc(&b, '\n');
		if (json && (fwrite(b.data, 1, b.len, json_out) != b.len || fflush(json_out) != 0)) {
			fprintf(stderr, "harkaq build: writing the JSON result: %s\n", strerror(errno));
			if (code < HK_EXIT_USAGE)
				code = HK_EXIT_SOFTWARE;
		}
		if (result_out) {
			struct hk_error we;
			if (hk_file_write_atomic(result_out, b.data, b.len, 0644, &we) < 0)
				fprintf(stderr, "harkaq build: %s\n", we.msg);
		}
		hk_buf_free(&b);
	}
	if (json_out != stdout)
		fclose(json_out);
	hk_build_result_free(&br);
	return code;
}

/* Every dep of the closure is checked before any sandbox starts, with the check of
 * `harkaq store verify` (hk_verity_check_artifact): its BLAKE3 tree against its manifest and,
 * if sealed, its fs-verity digests — so a dep changed on disk, or under the filesystem, is
 * refused before anything runs, naming the artifact and the file.  Returns 0 or an exit code. */
static int verify_closure(const struct hk_build_opts *bo, const struct hk_recipe *r,
			  struct hk_store *store, struct hk_build_result *br, struct hk_error *err)
{
	long long t_verify = hk_now_ms();
	for (size_t i = 0; i < br->plan.n_closure; i++) {
		const struct hk_artifact *dep = NULL;
		if (hk_store_find(store, br->plan.closure_names[i], &dep, err) < 0 ||
		    hk_verity_check_artifact(store, dep, err) < 0) {
			hk_wrap(err, "refusing to build %s: dep %s does not verify",
				r->path ? r->path : r->name, br->plan.closure_names[i]);
			return err->code == EBADMSG ? HK_EXIT_DATAERR : HK_EXIT_SOFTWARE;
		}
		br->deps_sealed += dep->sealed;
	}
	if (!bo->quiet && br->plan.n_closure)
		fprintf(stderr, "[deps] %zu dep artifact(s) verified (%zu sealed with fs-verity) in "
				"%.1f s\n", br->plan.n_closure, br->deps_sealed,
			(double)(hk_now_ms() - t_verify) / 1000.0);
	return 0;
}

/* Looks up every granted path of the merged views once, in a child, while the parent verifies
 * the closure: an overlay of a hundred layers is slow to look up cold (each name is searched
 * in every layer), and the first phase's cage would otherwise pay it inside its rule set-up
 * (~45 ms for cjson's closure, against ~12 ms warm).  The uncaged build gains as well: it is
 * a property of the sandbox, not of the cage.  Returns the child's pid, or -1. */
static pid_t warm_merged_view(const struct hk_sandbox_plan *plan, const struct hk_policy *p)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	for (size_t i = 0; i < p->n_grants; i++) {
		const char *path = p->grants[i].path;
		if (path[0] != '/')
			continue;
		size_t n = strcspn(path + 1, "/");
		for (size_t k = 0; k < plan->n_tops; k++) {
			const struct hk_top *t = &plan->tops[k];
			if (t->kind != HK_TOP_OVERLAY || strlen(t->name) != n ||
			    memcmp(t->name, path + 1, n) != 0)
				continue;
			char buf[PATH_MAX];
			struct stat st;
			if (snprintf(buf, sizeof(buf), "%s%s", t->merged, path + 1 + n) <
			    (int)sizeof(buf))
				(void)lstat(buf, &st);
		}
	}
	_exit(0);
}

/* Unmounts the merged view and removes the work directory (unless --keep), once. */
static void release_work(const struct hk_build_result *br, const struct hk_build_opts *bo,
			 struct hk_sandbox_plan *plan, bool *view_mounted, bool *work_made)
{
	if (*view_mounted)
		hk_sandbox_unmount(plan);
	*view_mounted = false;
	if (bo->keep && *work_made) {
		if (!bo->quiet)
			fprintf(stderr, "work directory kept: %s\n", br->work);
	} else if (*work_made) {
		struct hk_error ignored;
		hk_store_remove_tree(br->work, &ignored);
	}
	*work_made = false;
}

int hk_build_run(const struct hk_build_opts *bo, struct hk_build_result *br, struct hk_error *err)
{
	memset(br, 0, sizeof(*br));
	br->cage = bo->cage;
	int code = HK_EXIT_HERMETIC;
	struct hk_recipe *r = &br->recipe;
	if (hk_recipe_load(bo->recipe_path, r, err) < 0)
		return HK_EXIT_DATAERR;
	br->recipe_loaded = true;
	hk_recipe_hash(r, br->recipe_hash);

	uid_t uid;
	gid_t gid;
	if (hk_resolve_user(bo->user, &uid, &gid, err) < 0)
		return HK_EXIT_USAGE;

	interrupted_by = 0;
	catch_signals();
	long long t_build = hk_now_ms();

	/* A store that must resolve deps must exist (opening it must not create an empty one
	 * that then "lacks" every dep, nor a ./store wherever harkaq happens to run). */
	char *store_dir = hk_build_store_dir(r, bo->store_dir);
	if (!store_dir && r->n_build_deps > 0) {
		hk_fail(err, ENOENT, "%s: the recipe has build deps but no store: none beside or "
				     "above %s (a directory store/), and neither --store nor "
				     "$HARKAQ_STORE was given",
			r->path ? r->path : "recipe", r->recipe_dir);
		return HK_EXIT_DATAERR;
	}
	if (!store_dir)
		store_dir = hk_xstrdup("./store");
	struct hk_store *store = NULL;
	if (hk_store_open(store_dir, r->n_build_deps == 0, &store, err) < 0) {
		free(store_dir);
		return r->n_build_deps > 0 ? HK_EXIT_DATAERR : HK_EXIT_SOFTWARE;
	}
	free(store_dir);
	br->store = store;

	hk_autofree char *exec_path = NULL;
	if (bo->cage && hk_helper_path("harkaq-exec", &exec_path, err) < 0)
		return HK_EXIT_SOFTWARE;

	/* The work directory: world-listable so the build user reaches its parts (DAC). */
	char nonce[33];
	if (hk_random_hex(nonce, 16, err) < 0)
		return HK_EXIT_SOFTWARE;
	br->work = hk_xasprintf("/var/tmp/harkaq-build-%s", nonce);
	char *src = hk_xasprintf("%s/src", br->work);
	char *out = hk_xasprintf("%s/out", br->work);
	char *stage = hk_xasprintf("%s/stage", br->work);
	char *policy_path = hk_xasprintf("%s/policy", br->work);
	char *collapse_path = hk_xasprintf("%s/collapse", br->work);
	char **env = NULL;
	struct hk_sandbox_plan plan = { 0 };
	bool work_made = false, view_mounted = false;

	struct hk_sandbox sb;
	hk_build_sandbox_init(&sb, r, bo->cage);
	sb.src_dir = src;
	sb.out_dir = out;
	sb.stage_dir = stage;
	sb.exec_host_path = exec_path;
	sb.policy_host_path = policy_path;
	/* Derivation and the mount plan come before the work directory exists: a missing or
	 * ambiguous dep, or a dep tree the sandbox cannot merge, is reported before anything is
	 * created.  Derivation runs with or without the cage: the merged view is the same. */
	if (hk_build_derive(r, store, bo->profile, &sb, &br->plan, err) < 0) {
		code = err->code == ENOENT || err->code == EINVAL || err->code == ELOOP ||
				       err->code == EEXIST
			       ? HK_EXIT_DATAERR
			       : HK_EXIT_SOFTWARE;
		goto done;
	}
	br->plan_ok = true;
	sb.layers = (const char *const *)br->plan.layers;
	sb.n_layers = br->plan.n_layers;
	if (hk_sandbox_plan(&sb, &plan, err) < 0) {
		/* A dep whose tree is gone or altered is named as such, before the plan's error. */
		struct hk_error plan_err = *err;
		code = verify_closure(bo, r, store, br, err);
		if (code == 0) {
			*err = plan_err;
			code = HK_EXIT_DATAERR;
		}
		goto done;
	}
	if (interrupted_by) {
		code = interrupted(err);
		goto done;
	}
	if (mkdir(br->work, 0755) < 0) {
		code = HK_EXIT_SOFTWARE;
		hk_fail_errno(err, errno, "creating the work directory %s", br->work);
		goto done;
	}
	work_made = true;
	if (mkdir(src, 0755) < 0 || mkdir(out, 0755) < 0 || mkdir(stage, 0755) < 0) {
		code = HK_EXIT_SOFTWARE;
		hk_fail_errno(err, errno, "creating the work directory %s", br->work);
		goto done;
	}
	chmod(br->work, 0755);
	if (!bo->quiet)
		fprintf(stderr, "[work] %s\n", br->work);

	/* The merged view is mounted once for the whole build, in a mount namespace of harkaq's
	 * own (nothing reaches the host's, even if harkaq is killed); every phase's sandbox binds
	 * it.  Mounted per phase, each phase paid for a cold overlay: every name looked up in
	 * every layer again, which made the cage's rules cost twice as much and the uncaged
	 * phases ~50 ms more each. */
	if (unshare(CLONE_NEWNS) < 0) {
		code = HK_EXIT_SOFTWARE;
		hk_fail_errno(err, errno, "unshare(CLONE_NEWNS) for the merged view");
		goto done;
	}
	if (hk_sandbox_mount(&plan, err) < 0) {
		code = HK_EXIT_SOFTWARE;
		goto done;
	}
	view_mounted = true;
	/* The closure is verified while a child warms the merged view up. */
	pid_t warm_pid = warm_merged_view(&plan, &br->plan.policy);
	code = verify_closure(bo, r, store, br, err);
	if (warm_pid > 0) {
		if (code != 0)
			kill(warm_pid, SIGKILL);
		waitpid(warm_pid, NULL, 0); /* before any phase: it must not count as a leftover */
	}
	if (code != 0)
		goto done;

	if (bo->cage) {
		struct hk_buf enc = HK_BUF_INIT;
		hk_policy_encode(&br->plan.policy, &enc);
		int wr = hk_file_write_atomic(policy_path, enc.data, enc.len, 0644, err);
		hk_buf_free(&enc);
		if (wr < 0) {
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		/* The collapsed directories, in the policy format (`list` lines): how the cage
		 * installs the policy, not part of it (its id is the policy's alone). */
		if (!bo->per_file_rules && br->plan.collapse.len > 0) {
			struct hk_policy hints = HK_POLICY_INIT;
			for (size_t i = 0; i < br->plan.collapse.len; i++)
				hk_policy_add_grant(&hints, HK_GRANT_LIST, br->plan.collapse.items[i]);
			wr = hk_policy_finish(&hints, err);
			if (wr == 0) {
				hk_policy_encode(&hints, &enc);
				wr = hk_file_write_atomic(collapse_path, enc.data, enc.len, 0644, err);
				hk_buf_free(&enc);
			}
			hk_policy_free(&hints);
			if (wr < 0) {
				code = HK_EXIT_SOFTWARE;
				goto done;
			}
			sb.collapse_host_path = collapse_path;
		}
	}
	if (!bo->quiet)
		fprintf(stderr, "[plan] %s %s: %zu dep artifact(s) in the closure; policy %s "
				"(%zu files, %zu symlinks, %zu base runtime paths)%s\n",
			r->name, r->version, br->plan.n_closure, br->plan.policy_id,
			br->plan.report.files, br->plan.report.symlinks, br->plan.report.base_runtime,
			bo->cage ? "" : " — not enforced (--no-cage)");

	if (prepare_source(r, br->work, src, bo->quiet, err) < 0 ||
	    chown_tree(src, uid, gid, err) < 0 || chown_tree(out, uid, gid, err) < 0) {
		code = HK_EXIT_SOFTWARE;
		goto done;
	}
	env = build_env(r);

	struct hk_cage_result *pending[HK_PHASE_COUNT];
	size_t n_pending = 0;
	for (int ph = 0; ph < HK_PHASE_COUNT; ph++) {
		const struct hk_recipe_phase *rp = &r->phases[ph];
		if (rp->n_commands == 0)
			continue;
		if (interrupted_by) {
			code = interrupted(err);
			goto done;
		}
		struct phase_result *pr = &br->phases[br->n_phases++];
		pr->phase = (enum hk_phase)ph;
		const char *pname = hk_phase_name((enum hk_phase)ph);

		char pnonce[33];
		hk_random_hex(pnonce, 16, err);
		char *canary_host = hk_xasprintf("%s/canary-%s", br->work, pnonce);
		char *canary_sb = hk_xasprintf("/.harkaq/canary-%s", pnonce);
		/* No reader, no canary: nobody would look for its record. */
		bool evidence = bo->cage && !bo->no_evidence;
		if (evidence) {
			static const char body[] = "harkaq canary\n";
			if (hk_file_write_atomic(canary_host, body, sizeof(body) - 1, 0644, err) < 0) {
				free(canary_host);
				free(canary_sb);
				code = HK_EXIT_SOFTWARE;
				goto done;
			}
		}
		sb.canary_host_path = evidence ? canary_host : NULL;
		sb.canary_sandbox_path = evidence ? canary_sb : NULL;
		char *script = join_commands(rp);
		struct hk_argv inner = { 0 };
		if (bo->wrap) {
			char *w = hk_xstrdup(bo->wrap), *save = NULL;
			for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save))
				hk_argv_push(&inner, t);
			free(w);
		}
		hk_argv_push(&inner, "/bin/sh");
		hk_argv_push(&inner, "-ec");
		hk_argv_push(&inner, script);
		char **argv = NULL;
		/* --force-abi: harkaq-exec pretends an older Landlock (fault injection). */
		char abi_opt[] = "--force-abi", abi_arg[16];
		snprintf(abi_arg, sizeof(abi_arg), "%d", bo->force_abi);
		char *const force_args[] = { abi_opt, abi_arg, NULL };
		int arc = hk_sandbox_argv(&sb, &plan, bo->cage && bo->force_abi > 0 ? force_args : NULL,
					  inner.v, &argv, err);
		hk_argv_free(inner.v);
		if (arc < 0) {
			free(script);
			free(canary_host);
			free(canary_sb);
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		struct hk_cage_opts o = {
			.argv = argv,
			.status_fd = HK_SANDBOX_STATUS_FD,
			.canary_path = evidence ? canary_sb : NULL,
			.evidence = evidence,
			.reader_may_enable = true,
			.backlog_floor = -1,
			.as_user = true,
			.uid = uid,
			.gid = gid,
			.timeout_s = bo->timeout_s,
			.envp = env,
			.quiet = bo->quiet,
			/* The phase's deallocation record is awaited after the last phase (and the
			 * seal), while the next phases run: it comes ~40 ms after the phase's last
			 * process is reaped, and no phase needs the previous one's verdict. */
			.defer_evidence = evidence,
			.drain = pending,
			.n_drain = n_pending,
		};
		if (!bo->quiet)
			fprintf(stderr, "[%s] running%s\n", pname, bo->cage ? " under the cage" : "");
		long long t0 = hk_now_ms();
		int rc = hk_cage_run(&o, &pr->res, err);
		if (pr->res.pending)
			pending[n_pending++] = &pr->res;
		/* hk_cage_run left its forwarding handler installed; take the signals back. */
		catch_signals();
		pr->ms = hk_now_ms() - t0;
		pr->ran = true;
		hk_argv_free(argv);
		free(script);
		unlink(canary_host);
		free(canary_host);
		free(canary_sb);
		if (rc < 0 && err->code == EINTR && !interrupted_by) {
			int sig = 0;
			if (sscanf(err->msg, "interrupted by signal %d", &sig) != 1 || sig <= 0)
				sig = SIGTERM;
			interrupted_by = sig;
		}
		if (interrupted_by) {
			if (!bo->quiet)
				fprintf(stderr, "[%s] stopped by signal %d after %.1f s\n", pname,
					(int)interrupted_by, (double)pr->ms / 1000.0);
			code = interrupted(err);
			br->interrupted = (int)interrupted_by;
			goto done;
		}
		if (rc < 0 && !pr->res.started) {
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		if (pr->res.cage_error) {
			hk_fail(err, EPERM, "%s: the cage refused to start the phase (layer %s): %s",
				pname, pr->res.cage_error_layer ? pr->res.cage_error_layer : "?",
				pr->res.cage_error);
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		if (bo->cage && !pr->res.cage_status) {
			hk_fail(err, EPERM, "%s: the cage never reported (harkaq-exec did not start; "
					    "exit status %d)", pname, pr->res.exit_code);
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		if (pr->res.canary_result && strcmp(pr->res.canary_result, "denied") != 0) {
			hk_fail(err, EPERM, "%s: the canary probe said '%s': the derived policy grants "
					    "what it must not; the phase was not run",
				pname, pr->res.canary_result);
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		if (!bo->quiet && pr->res.timed_out)
			fprintf(stderr, "[%s] killed at the --timeout of %d s, with everything it "
					"started\n", pname, bo->timeout_s);
		if (!bo->quiet)
			fprintf(stderr, "[%s] exited %d after %.1f s\n", pname, pr->res.exit_code,
				(double)pr->ms / 1000.0);
		if (pr->res.exit_code != 0 || rc < 0) {
			br->failed_phase = pname;
			break;
		}
	}

	if (interrupted_by) {
		code = interrupted(err);
		goto done;
	}
	/* Seal the install output. */
	if (!br->failed_phase && r->phases[HK_PHASE_INSTALL].n_commands > 0) {
		struct hk_dep_group *groups = hk_xcalloc(r->n_runtime_deps + 1, sizeof(*groups));
		for (size_t i = 0; i < r->n_runtime_deps; i++) {
			groups[i].alts = hk_xcalloc(1, sizeof(char *));
			groups[i].alts[0] = hk_xstrdup(r->runtime_deps[i].name ? r->runtime_deps[i].name
									       : r->runtime_deps[i].spec);
			groups[i].n_alts = 1;
		}
		char *source_json = hk_xasprintf("{\"built_by\":\"harkaq build\",\"recipe_hash\":\"%s\"}",
						 br->recipe_hash);
		struct hk_artifact_spec spec = {
			.name = r->name,
			.version = r->version,
			.deps = groups,
			.n_deps = r->n_runtime_deps,
			.source_json = source_json,
		};
		const struct hk_artifact *art = NULL;
		bool added = false;
		/* The seal is all or nothing: signals wait until it is done (hk_store_add cleans
		 * its own temporary directory on failure, but not if harkaq dies inside it). */
		sigset_t block, saved;
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigprocmask(SIG_BLOCK, &block, &saved);
		int rc = hk_store_add(store, out, &spec, 0, &art, &added, err);
		sigprocmask(SIG_SETMASK, &saved, NULL);
		hk_dep_groups_free(groups, r->n_runtime_deps);
		free(source_json);
		if (rc < 0) {
			hk_wrap(err, "sealing /out into the store");
			code = HK_EXIT_SOFTWARE;
			goto done;
		}
		snprintf(br->artifact_id, sizeof(br->artifact_id), "%s", art->id);
		br->artifact_dir = hk_xstrdup(art->dirname);
		if (!bo->quiet)
			fprintf(stderr, "[seal] %s %s\n", art->id, added ? "(new)" : "(already in the store)");
	}

	/* The work directory and the merged view are done with: removing them is real work that
	 * overlaps the kernel's delay before the last phase's deallocation record. */
	release_work(br, bo, &plan, &view_mounted, &work_made);
	/* The phases' evidence: their deallocation records, awaited together (bounded). */
	long long t_finish = hk_now_ms();
	hk_cage_finish(pending, n_pending);
	br->ms_evidence_finish = hk_now_ms() - t_finish;

	/* Verdicts, now that the artifact hash is known. */
	struct hk_suggester *sugg = bo->cage ? hk_report_build_suggester(br) : NULL;
	for (size_t i = 0; i < br->n_phases; i++) {
		struct phase_result *pr = &br->phases[i];
		const char *pname = hk_phase_name(pr->phase);
		int pcode;
		if (bo->cage) {
			struct hk_verdict_out vo = {
				.policy = &br->plan.policy,
				.policy_id = br->plan.policy_id,
				.recipe_hash = br->recipe_hash,
				.artifact_hash = br->artifact_id[0] ? br->artifact_id : NULL,
				.phase = pname,
				.evidence_requested = !bo->no_evidence,
			};
			hk_verdict_from_run(&vo, &pr->res, &pr->verdict);
			hk_verdict_set_deps_sealed(&pr->verdict,
						   hk_deps_sealed_word(br->deps_sealed,
								       br->plan.n_closure));
			pr->has_verdict = true;
			pcode = hk_exit_for(&pr->verdict, &pr->res);
			/* Diagnosis, evidence object (design.md §8, §10) and the report rendered from it. */
			hk_report_build_phase(sugg, br, pr, bo->quiet);
		} else {
			pcode = pr->res.exit_code != 0 ? HK_EXIT_COMMAND_FAILED : HK_EXIT_HERMETIC;
			if (!bo->quiet)
				fprintf(stderr, "%-10s no verdict (--no-cage)\n", pname);
		}
		code = worse(code, pcode);
	}
	hk_suggester_free(sugg);
	if (br->failed_phase) {
		code = worse(code, HK_EXIT_COMMAND_FAILED);
		if (!bo->quiet)
			fprintf(stderr, "harkaq build: phase %s failed; later phases were not run\n",
				br->failed_phase);
	}
	if (!bo->quiet && br->artifact_id[0])
		fprintf(stderr, "artifact   %s  %s\n", br->artifact_id, br->artifact_dir);

done:
	/* A signal that cut a step short (a source fetch killed by Ctrl-C…) is the reason the
	 * build stopped, whatever error that step then reported.  Once sealed, the artifact is
	 * whole (the seal runs with the signals blocked) and the result stands. */
	if (interrupted_by && !br->artifact_id[0] && code < 128) {
		code = interrupted(err);
		br->interrupted = (int)interrupted_by;
	}
	if (!bo->quiet && code < HK_EXIT_USAGE)
		fprintf(stderr, "[done] %.1f s\n", (double)(hk_now_ms() - t_build) / 1000.0);
	release_work(br, bo, &plan, &view_mounted, &work_made);
	hk_sandbox_plan_free(&plan);
	hk_argv_free(env);
	free(src);
	free(out);
	free(stage);
	free(policy_path);
	free(collapse_path);
	return code;
}

void hk_build_result_json(const struct hk_build_result *br, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "recipe");
	if (br->recipe_loaded) {
		hk_json_obj_begin(j);
		hk_json_key(j, "name");
		hk_json_str(j, br->recipe.name);
		hk_json_key(j, "version");
		hk_json_str(j, br->recipe.version);
		hk_json_key(j, "path");
		if (br->recipe.path)
			hk_json_bytes(j, br->recipe.path, strlen(br->recipe.path));
		else
			hk_json_null(j);
		hk_json_key(j, "hash");
		hk_json_str(j, br->recipe_hash);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j); /* it did not load: "error" says why */
	}
	hk_json_key(j, "caged");
	hk_json_bool(j, br->cage);
	hk_json_key(j, "policy_id");
	if (br->plan_ok)
		hk_json_str(j, br->plan.policy_id);
	else
		hk_json_null(j);
	hk_json_key(j, "closure");
	hk_json_arr_begin(j);
	for (size_t i = 0; br->plan_ok && i < br->plan.n_closure; i++)
		hk_json_str(j, br->plan.closure_names[i]);
	hk_json_arr_end(j);
	hk_json_key(j, "deps_sealed");
	const char *sealed_word =
		br->plan_ok ? hk_deps_sealed_word(br->deps_sealed, br->plan.n_closure) : NULL;
	if (sealed_word)
		hk_json_str(j, sealed_word);
	else
		hk_json_null(j);
	/* The wait, after the last phase and the seal, for the phases' deallocation records
	 * (each phase's part is its timing_ms.dealloc_wait; bench/run adds this to the phases). */
	hk_json_key(j, "evidence_finish_ms");
	hk_json_int(j, br->ms_evidence_finish);
	hk_json_key(j, "phases");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		hk_json_obj_begin(j);
		hk_json_key(j, "phase");
		hk_json_str(j, hk_phase_name(pr->phase));
		hk_json_key(j, "exit_code");
		hk_json_int(j, pr->res.exit_code);
		/* A phase killed at --timeout, and processes still alive when its shell exited
		 * (killed too): the verdict covers only what ran, so say it was cut short. */
		hk_json_key(j, "timed_out");
		hk_json_bool(j, pr->res.timed_out);
		hk_json_key(j, "leftovers_killed");
		hk_json_int(j, pr->res.leftovers_killed);
		hk_json_key(j, "ms");
		hk_json_int(j, pr->ms);
		/* What the evidence channel adds to the phase (bench/run reads it). */
		hk_json_key(j, "timing_ms");
		hk_cage_timing_json(&pr->res, j);
		/* How the cage installed the policy: rules per grant, collapsed directories. */
		hk_json_key(j, "rules");
		if (pr->res.cage_status) {
			static const char *const keys[] = { "rules", "ancestors", "beneath", "covered",
							    "declined", "ro_sb_truncate",
							    "installers" };
			hk_json_obj_begin(j);
			for (size_t k = 0; k < HK_ARRAY_LEN(keys); k++) {
				hk_json_key(j, keys[k]);
				hk_json_int(j, hk_jobj_int(pr->res.cage_status, keys[k], 0));
			}
			hk_json_obj_end(j);
		} else {
			hk_json_null(j);
		}
		hk_json_key(j, "verdict");
		if (pr->has_verdict)
			hk_verdict_json(&pr->verdict, j);
		else
			hk_json_null(j);
		/* The diagnosis, as docs/diagnosis.md describes it, and the evidence object's id. */
		hk_json_key(j, "report");
		hk_report_build_phase_json(pr, j);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "failed_phase");
	if (br->failed_phase)
		hk_json_str(j, br->failed_phase);
	else
		hk_json_null(j);
	hk_json_key(j, "artifact");
	if (br->artifact_id[0])
		hk_json_str(j, br->artifact_id);
	else
		hk_json_null(j);
	hk_json_key(j, "interrupted_by_signal");
	if (br->interrupted)
		hk_json_int(j, br->interrupted);
	else
		hk_json_null(j);
	hk_json_key(j, "error");
	if (br->error)
		hk_json_bytes(j, br->error, strlen(br->error));
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

void hk_build_result_free(struct hk_build_result *br)
{
	for (size_t i = 0; i < br->n_phases; i++) {
		if (br->phases[i].has_verdict)
			hk_verdict_free(&br->phases[i].verdict);
		if (br->phases[i].ran)
			hk_cage_result_free(&br->phases[i].res);
		hk_buf_free(&br->phases[i].evidence);
	}
	if (br->plan_ok)
		hk_build_plan_free(&br->plan);
	if (br->recipe_loaded)
		hk_recipe_free(&br->recipe);
	if (br->store)
		hk_store_close(br->store);
	free(br->work);
	free(br->artifact_dir);
	memset(br, 0, sizeof(*br));
}
