/* harkaq sweep RECIPE…|DIR: measure a whole catalogue (design.md §11, docs/sweep.md).
 *
 * Every recipe is built by its own `harkaq build` child process (its own reader, its own
 * canaries: concurrent builds are told apart by Landlock domain, design.md §6), its result JSON
 * read back, each debt path classified against the store and the base root, and the whole
 * summarised by src/core/sweep.c.  No recipe is dropped: one that cannot be read, resolved,
 * fetched or built is an item with outcome "failed" and its reason.
 *
 * harkaq sweep merge RESULT…: the shards of a sweep run on several machines, combined. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/build.h"
#include "cli/commands.h"
#include "cli/proc.h"
#include "core/file.h"
#include "core/recipe.h"
#include "core/store.h"
#include "core/sweep.h"
#include "core/util.h"

#define RECIPE_FILE "recipe.toml"

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq sweep RECIPE...|DIR... [OPTIONS]\n"
		"       harkaq sweep merge RESULT... [--json] [--out DIR] [--html FILE]\n"
		"\n"
		"Builds every recipe under the cage (each in its own 'harkaq build' process) and\n"
		"measures the catalogue: per recipe and in total, Hermetic / only declarable debt /\n"
		"irreducible debt / no evidence / failed, the irreducible rate (target < 5 %%), the\n"
		"most frequent debt paths with the artifacts that provide them, and the base debt\n"
		"(what a policy of closure + whole base root would have hidden).  A DIR is searched\n"
		"for files named recipe.toml (not below a directory that has one: those are its\n"
		"sources).  No recipe is dropped: one that cannot be read, resolved, fetched or\n"
		"built is reported as failed, with its reason.\n"
		"\n"
		"options:\n"
		"  --jobs N           builds at a time (default 1)\n"
		"  --store DIR        the store every build uses (default: $HARKAQ_STORE, else the\n"
		"                     nearest store/ above the first recipe)\n"
		"  --out DIR          keep everything: DIR/result.json (with timings, logs, evidence\n"
		"                     ids), DIR/summary.json (the deterministic part), DIR/summary.txt,\n"
		"                     DIR/logs/ and DIR/builds/ (each build's log and result)\n"
		"  --shard I/N        only the I-th of N slices: recipes sorted by their path as named\n"
		"                     here, position p belongs to shard (p mod N) + 1\n"
		"  --json             the result JSON on stdout instead of the table\n"
		"  --html FILE        a self-contained HTML report\n"
		"  --timeout SECONDS  per phase, passed to harkaq build\n"
		"  --profile NAME     base runtime profile, passed to harkaq build\n"
		"  --user USER        build user, passed to harkaq build\n"
		"  --quiet            no progress line on stderr\n"
		"\n"
		"merge: RESULT is a result.json of 'harkaq sweep --shard I/N --out DIR' (or its DIR);\n"
		"every shard 1..N exactly once.  The merged summary.json is byte for byte the one a\n"
		"single-machine sweep of the whole catalogue writes.\n"
		"\n"
		"exit status: 0 the sweep completed (whatever the recipes' outcomes), 64 usage, 65 no\n"
		"recipe found or a bad result file, 70 environment error, 130 interrupted.\n");
}

/* ---- finding recipes ---- */

struct recipes {
	char **keys;
	size_t n, cap;
};

static void recipes_add(struct recipes *r, char *key)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->keys = hk_xrealloc(r->keys, r->cap * sizeof(char *));
	}
	r->keys[r->n++] = key;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks `dir` (named `shown`): a directory holding recipe.toml is a recipe and is not
 * descended (its subdirectories are its sources); hidden directories and stores (a
 * .harkaq-store marker) are skipped. */
static int walk(const char *dir, const char *shown, struct recipes *out, int depth,
		struct hk_error *err)
{
	if (depth > 32)
		return hk_fail(err, ELOOP, "%s: nested more than 32 directories deep", shown);
	hk_autofree char *rf = hk_xasprintf("%s/" RECIPE_FILE, dir);
	struct stat st;
	if (stat(rf, &st) == 0 && S_ISREG(st.st_mode)) {
		recipes_add(out, hk_xasprintf("%s%s" RECIPE_FILE, shown, *shown ? "/" : ""));
		return 0;
	}
	hk_autofree char *marker = hk_xasprintf("%s/.harkaq-store", dir);
	if (access(marker, F_OK) == 0)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return hk_fail_errno(err, errno, "reading the directory %s", shown);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = hk_xrealloc(names, cap * sizeof(char *));
		}
		names[n++] = hk_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		hk_autofree char *sub = hk_xasprintf("%s/%s", dir, names[i]);
		/* lstat: a symlinked directory could loop or leave the catalogue. */
		if (rc == 0 && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
			hk_autofree char *subshown =
				hk_xasprintf("%s%s%s", shown, *shown ? "/" : "", names[i]);
			rc = walk(sub, subshown, out, depth + 1, err);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int find_recipes(char **args, size_t n_args, struct recipes *out, struct hk_error *err)
{
	for (size_t i = 0; i < n_args; i++) {
		struct stat st;
		if (stat(args[i], &st) < 0)
			return hk_fail_errno(err, errno, "%s", args[i]);
		if (!S_ISDIR(st.st_mode)) {
			recipes_add(out, hk_xstrdup(args[i]));
			continue;
		}
		/* The directory as named, without trailing slashes ("." names nothing). */
		char *shown = hk_xstrdup(args[i]);
		size_t l = strlen(shown);
		while (l > 1 && shown[l - 1] == '/')
			shown[--l] = '\0';
		if (strcmp(shown, ".") == 0)
			shown[0] = '\0';
		size_t before = out->n;
		int rc = walk(args[i], shown, out, 0, err);
		free(shown);
		if (rc < 0)
			return rc;
		if (out->n == before)
			return hk_fail(err, ENOENT, "%s: no " RECIPE_FILE " in this directory or below",
				       args[i]);
	}
	return 0;
}

/* ---- classification ---- */

/* Paths the sandbox itself provides: whatever the host has there is not the base root's. */
static bool is_contract_path(const char *p)
{
	static const char *const prefixes[] = { "/proc", "/dev", "/sys", "/tmp", "/var/tmp", "/src",
						"/out", "/cache", "/.harkaq", "/run" };
	for (size_t i = 0; i < HK_ARRAY_LEN(prefixes); i++) {
		size_t l = strlen(prefixes[i]);
		if (strncmp(p, prefixes[i], l) == 0 && (p[l] == '\0' || p[l] == '/'))
			return true;
	}
	return false;
}

struct classify_ctx {
	struct hk_store *store;   /* snapshot: its path index was loaded before any build */
	const char *base_root;
};

/* The one place a debt path is classified (design.md §8): declarable when an artifact of the
 * store provides it, irreducible otherwise.  It asks the store handle opened before the
 * first build, whose path index is loaded once: builds of this sweep that seal new
 * artifacts do not change the answer, so the order and concurrency of the builds, and how
 * the catalogue is sharded, cannot change a classification. */
static void classify(void *vctx, const char *path, struct hk_sweep_class *out)
{
	const struct classify_ctx *c = vctx;
	memset(out, 0, sizeof(*out));
	if (c->store) {
		const struct hk_artifact **prov = NULL;
		size_t n = 0;
		struct hk_error e;
		if (hk_store_providers(c->store, path, &prov, &n, &e) == 0 && n > 0) {
			out->providers = hk_xcalloc(n, sizeof(char *));
			for (size_t i = 0; i < n; i++) {
				bool dup = false;
				for (size_t k = 0; k < out->n_providers; k++)
					dup |= strcmp(out->providers[k], prov[i]->name) == 0;
				if (!dup)
					out->providers[out->n_providers++] = hk_xstrdup(prov[i]->name);
			}
		}
		free(prov);
	}
	/* The base-debt measure: would `policy = closure + whole base root` have granted it? */
	if (!is_contract_path(path)) {
		const char *root = c->base_root ? c->base_root : "/";
		size_t rl = strlen(root);
		hk_autofree char *host = hk_xasprintf("%.*s%s", (int)(rl && root[rl - 1] == '/' ? rl - 1 : rl),
						      root, path);
		struct stat st;
		out->in_base = lstat(host, &st) == 0;
	}
}

/* ---- running the builds ---- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct sweep_opts {
	unsigned jobs;
	const char *store_opt;
	const char *out_dir;
	const char *shard;
	const char *html;
	const char *timeout;
	const char *profile;
	const char *user;
	bool json, quiet;
};

struct job {
	size_t item;             /* index into the doc's items */
	pid_t pid;
	long long t0;
	char *result_path, *log_path, *abs_recipe, *base_root;
};

static char *file_slug(size_t pos, const char *key)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_printf(&b, "%04zu-", pos);
	for (const char *p = key; *p && b.len < 100; p++)
		hk_buf_putc(&b, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					(*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'
				       ? *p
				       : '_');
	return hk_buf_steal(&b);
}

/* Replaces every occurrence of `from` in *s by `to`. */
static void replace_all(char **s, const char *from, const char *to)
{
	if (!from || !*from || !strstr(*s, from))
		return;
	struct hk_buf b = HK_BUF_INIT;
	const char *p = *s, *q;
	while ((q = strstr(p, from))) {
		hk_buf_append(&b, p, (size_t)(q - p));
		hk_buf_puts(&b, to);
		p = q + strlen(from);
	}
	hk_buf_puts(&b, p);
	free(*s);
	*s = hk_buf_steal(&b);
}

/* A reason must read the same on every machine (it is part of the summary): the recipe is
 * named as the sweep names it, and a build's random work directory is elided. */
static char *clean_reason(const char *msg, const char *abs_recipe, const char *key)
{
	char *s = hk_xstrdup(msg);
	replace_all(&s, abs_recipe, key);
	const char *tag = "/var/tmp/harkaq-build-";
	char *p = s;
	while ((p = strstr(p, tag))) {
		char *h = p + strlen(tag), *e = h;
		while ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f'))
			e++;
		if (e - h >= 8) {
			memmove(h + 3, e, strlen(e) + 1);
			memcpy(h, "\xe2\x80\xa6", 3);   /* … */
		}
		p = h;
	}
	return s;
}

/* The last "harkaq build: …" line of the log: the build's own statement of why it stopped
 * (the line announcing a failed phase is not one: the result JSON says that). */
static char *reason_from_log(const char *log)
{
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e;
	char *found = NULL;
	if (hk_file_read(log, &text, &e) == 0) {
		const char *p = hk_buf_str(&text);
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			static const char pre[] = "harkaq build: ";
			if (n > sizeof(pre) - 1 && strncmp(p, pre, sizeof(pre) - 1) == 0 &&
			    !(strstr(p, "failed; later phases were not run") &&
			      strstr(p, "failed; later phases were not run") < p + n)) {
				free(found);
				found = hk_xstrndup(p + sizeof(pre) - 1, n - (sizeof(pre) - 1));
			}
			p += n + (nl ? 1 : 0);
		}
	}
	hk_buf_free(&text);
	return found;
}

static void finish_job(struct job *jb, int status, struct hk_sweep_item *it, struct hk_store *store)
{
	it->ms = hk_now_ms() - jb->t0;
	it->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e = { 0 };
	struct hk_jval *v = NULL;
	bool have = access(jb->result_path, F_OK) == 0 &&
		    hk_file_read(jb->result_path, &text, &e) == 0 &&
		    hk_json_parse(text.data ? text.data : "", text.len, &v, &e) == 0;
	struct classify_ctx cc = { store, jb->base_root };
	if (have && hk_sweep_item_from_build(it, v, classify, &cc, &e) == 0) {
		if (it->reason) {
			char *r = clean_reason(it->reason, jb->abs_recipe, it->key);
			free(it->reason);
			it->reason = r;
		}
		/* A result written for a status >= 64 without an "error" member: say so. */
		if (it->exit_status >= HK_EXIT_USAGE && !it->fail_code) {
			char *why = reason_from_log(jb->log_path);
			char *r = why ? clean_reason(why, jb->abs_recipe, it->key)
				      : hk_xasprintf("harkaq build exited with status %d",
						     it->exit_status);
			hk_sweep_item_fail(it, NULL, hk_sweep_fail_code_for(r), r);
			free(r);
			free(why);
		}
	} else {
		char *why = reason_from_log(jb->log_path);
		char *r;
		if (why)
			r = clean_reason(why, jb->abs_recipe, it->key);
		else if (WIFSIGNALED(status))
			r = hk_xasprintf("harkaq build was killed by signal %d", WTERMSIG(status));
		else
			r = hk_xasprintf("harkaq build exited with status %d and left no result",
					 it->exit_status);
		hk_sweep_item_fail(it, NULL, why ? hk_sweep_fail_code_for(why) : HK_SWEEP_FAIL_SETUP, r);
		free(r);
		free(why);
	}
	hk_jval_free(v);
	hk_buf_free(&text);
}

/* Pre-flight in the sweep itself, so the most common reasons (a recipe that does not parse,
 * a dep the store lacks) are stated exactly and cost no build. */
static bool preflight(struct hk_sweep_item *it, struct hk_store *store, const char *store_dir,
		      struct hk_recipe *r)
{
	struct hk_error e = { 0 };
	if (hk_recipe_load(it->key, r, &e) < 0) {
		hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_RECIPE, e.msg);
		return false;
	}
	free(it->name);
	free(it->version);
	it->name = hk_xstrdup(r->name);
	it->version = hk_xstrdup(r->version);
	char hash[HK_B3_ID_LEN];
	hk_recipe_hash(r, hash);
	free(it->recipe_hash);
	it->recipe_hash = hk_xstrdup(hash);
	for (size_t i = 0; i < r->n_build_deps; i++) {
		const struct hk_recipe_dep *d = &r->build_deps[i];
		const struct hk_artifact *a;
		if (store && hk_store_find(store, d->spec, &a, &e) == 0)
			continue;
		char *msg;
		if (!store)
			msg = hk_xasprintf("%s:%u:%u: build dep '%s': there is no store (--store, "
					   "$HARKAQ_STORE or a store/ above the recipe)",
					   it->key, d->pos.line, d->pos.col, d->spec);
		else if (e.code == EEXIST)
			msg = hk_xasprintf("%s:%u:%u: build dep '%s' is ambiguous in the store",
					   it->key, d->pos.line, d->pos.col, d->spec);
		else
			msg = hk_xasprintf("%s:%u:%u: build dep '%s' is not in the store (import it "
					   "with 'harkaq store import-apt' or build its recipe first)",
					   it->key, d->pos.line, d->pos.col, d->spec);
		(void)store_dir;
		hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_DEPS, msg);
		free(msg);
		return false;
	}
	return true;
}

static bool tty_progress;

static void progress(const struct sweep_opts *o, size_t done, size_t total, const struct job *jobs,
		     size_t n_jobs, const struct hk_sweep_doc *d, long long t0, const char *finished)
{
	if (o->quiet)
		return;
	long long s = (hk_now_ms() - t0) / 1000;
	if (!tty_progress) {
		if (finished)
			fprintf(stderr, "[sweep] %zu/%zu %s (%lld:%02lld elapsed)\n", done, total,
				finished, s / 60, s % 60);
		return;
	}
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_printf(&b, "\r\033[K[sweep] %zu/%zu done · %zu running", done, total, n_jobs);
	for (size_t i = 0; i < n_jobs; i++) {
		const struct hk_sweep_item *it = &d->items[jobs[i].item];
		hk_buf_printf(&b, "%s%s", i ? ", " : ": ", it->name ? it->name : it->key);
		if (b.len > 110) {
			hk_buf_puts(&b, "…");
			break;
		}
	}
	hk_buf_printf(&b, " · %lld:%02lld", s / 60, s % 60);
	fputs(hk_buf_str(&b), stderr);
	fflush(stderr);
	hk_buf_free(&b);
}

static int mkdir_p(const char *path, struct hk_error *err)
{
	hk_autofree char *p = hk_xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "creating %s", p);
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "creating %s", p);
	return 0;
}

/* Writes the outputs every sweep and merge produce. */
static int emit(const struct hk_sweep_doc *d, const struct sweep_opts *o, struct hk_error *err)
{
	if (o->out_dir) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, true, &j);
		hk_buf_putc(&b, '\n');
		hk_autofree char *res = hk_xasprintf("%s/result.json", o->out_dir);
		int rc = hk_file_write_atomic(res, b.data, b.len, 0644, err);
		hk_buf_reset(&b);
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, false, &j);
		hk_buf_putc(&b, '\n');
		hk_autofree char *sum = hk_xasprintf("%s/summary.json", o->out_dir);
		if (rc == 0)
			rc = hk_file_write_atomic(sum, b.data, b.len, 0644, err);
		hk_buf_reset(&b);
		hk_sweep_table(d, &b);
		hk_autofree char *txt = hk_xasprintf("%s/summary.txt", o->out_dir);
		if (rc == 0)
			rc = hk_file_write_atomic(txt, b.data, b.len, 0644, err);
		hk_buf_free(&b);
		if (rc < 0)
			return rc;
	}
	if (o->html) {
		struct hk_buf b = HK_BUF_INIT;
		hk_sweep_html(d, &b);
		int rc = hk_file_write_atomic(o->html, b.data, b.len, 0644, err);
		hk_buf_free(&b);
		if (rc < 0)
			return rc;
	}
	struct hk_buf b = HK_BUF_INIT;
	if (o->json) {
		struct hk_json j;
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, true, &j);
		hk_buf_putc(&b, '\n');
	} else {
		hk_sweep_table(d, &b);
	}
	fwrite(b.data, 1, b.len, stdout);
	fflush(stdout);
	hk_buf_free(&b);
	return 0;
}

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return hk_xstrdup(buf);
}

static pid_t spawn_build(const char *self, const struct sweep_opts *o, const char *store_dir,
			 const struct job *jb, const char *key, struct hk_error *err)
{
	struct hk_argv a = { 0 };
	hk_argv_push(&a, self);
	hk_argv_push(&a, "build");
	if (store_dir) {
		hk_argv_push(&a, "--store");
		hk_argv_push(&a, store_dir);
	}
	hk_argv_push(&a, "--result-out");
	hk_argv_push(&a, jb->result_path);
	if (o->timeout) {
		hk_argv_push(&a, "--timeout");
		hk_argv_push(&a, o->timeout);
	}
	if (o->profile) {
		hk_argv_push(&a, "--profile");
		hk_argv_push(&a, o->profile);
	}
	if (o->user) {
		hk_argv_push(&a, "--user");
		hk_argv_push(&a, o->user);
	}
	hk_argv_push(&a, "--");
	hk_argv_push(&a, key);
	int logfd = open(jb->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		hk_argv_free(a.v);
		return hk_fail_errno(err, errno, "creating the log %s", jb->log_path);
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(logfd);
		hk_argv_free(a.v);
		return hk_fail_errno(err, e, "fork");
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		dup2(logfd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(self, a.v);
		fprintf(stderr, "harkaq build: could not run %s: %s\n", self, strerror(errno));
		_exit(127);
	}
	close(logfd);
	hk_argv_free(a.v);
	return pid;
}

static int run_sweep(char **args, size_t n_args, const struct sweep_opts *o)
{
	struct hk_error err = { 0 };
	struct recipes found = { 0 };
	if (find_recipes(args, n_args, &found, &err) < 0) {
		fprintf(stderr, "harkaq sweep: %s\n", err.msg);
		for (size_t i = 0; i < found.n; i++)
			free(found.keys[i]);
		free(found.keys);
		return HK_EXIT_DATAERR;
	}
	found.n = hk_sweep_sort_keys(found.keys, found.n);

	struct hk_sweep_doc d = { 0 };
	hk_sweep_catalogue_id((const char *const *)found.keys, found.n, d.catalogue_id);
	d.catalogue_size = found.n;
	d.jobs = o->jobs;
	if (o->shard && hk_sweep_parse_shard(o->shard, &d.shard_index, &d.shard_count, &err) < 0) {
		fprintf(stderr, "harkaq sweep: %s\n", err.msg);
		return HK_EXIT_USAGE;
	}
	d.items = hk_xcalloc(found.n + 1, sizeof(*d.items));
	size_t *positions = hk_xcalloc(found.n + 1, sizeof(size_t));
	for (size_t i = 0; i < found.n; i++) {
		if (hk_sweep_in_shard(i, d.shard_index, d.shard_count)) {
			positions[d.n_items] = i;
			d.items[d.n_items].exit_status = -1;
			d.items[d.n_items++].key = found.keys[i];
		} else {
			free(found.keys[i]);
		}
	}
	free(found.keys);

	/* One store for every build, resolved once. */
	char *store_dir = NULL;
	if (o->store_opt || (getenv("HARKAQ_STORE") && *getenv("HARKAQ_STORE"))) {
		store_dir = hk_xstrdup(hk_store_choose_dir(o->store_opt));
	} else {
		for (size_t i = 0; i < d.n_items && !store_dir; i++) {
			struct hk_recipe r;
			struct hk_error e;
			if (hk_recipe_load(d.items[i].key, &r, &e) == 0) {
				store_dir = hk_build_store_dir(&r, NULL);
				hk_recipe_free(&r);
			}
		}
	}
	struct hk_store *store = NULL;
	if (store_dir) {
		if (hk_store_open(store_dir, false, &store, &err) < 0) {
			fprintf(stderr, "harkaq sweep: %s\n", err.msg);
			free(store_dir);
			free(positions);
			hk_sweep_doc_free(&d);
			return HK_EXIT_DATAERR;
		}
		/* Load the path index now: the snapshot every classification uses. */
		const struct hk_artifact **p = NULL;
		size_t np = 0;
		if (hk_store_providers(store, "/", &p, &np, &err) < 0) {
			fprintf(stderr, "harkaq sweep: %s\n", err.msg);
			free(store_dir);
			free(positions);
			hk_store_close(store);
			hk_sweep_doc_free(&d);
			return HK_EXIT_DATAERR;
		}
		free(p);
		char *abs = realpath(store_dir, NULL);
		if (abs) {
			free(store_dir);
			store_dir = abs;
		}
	}
	d.store = store_dir ? hk_xstrdup(store_dir) : NULL;

	/* Where logs and build results go: --out, else a scratch directory removed at the end. */
	char *work = NULL;
	bool scratch = !o->out_dir;
	if (o->out_dir) {
		work = hk_xstrdup(o->out_dir);
	} else {
		work = hk_xstrdup("/var/tmp/harkaq-sweep-XXXXXX");
		if (!mkdtemp(work)) {
			fprintf(stderr, "harkaq sweep: creating a scratch directory: %s\n",
				strerror(errno));
			free(work);
			work = NULL;
		}
	}
	hk_autofree char *logs = work ? hk_xasprintf("%s/logs", work) : NULL;
	hk_autofree char *builds = work ? hk_xasprintf("%s/builds", work) : NULL;
	char *self = self_exe();
	if (!work || !self || mkdir_p(logs, &err) < 0 || mkdir_p(builds, &err) < 0) {
		if (work && self)
			fprintf(stderr, "harkaq sweep: %s\n", err.msg);
		else if (!self)
			fprintf(stderr, "harkaq sweep: cannot find its own executable\n");
		free(work);
		free(self);
		free(store_dir);
		free(positions);
		if (store)
			hk_store_close(store);
		hk_sweep_doc_free(&d);
		return HK_EXIT_SOFTWARE;
	}

	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	stop_signal = 0;
	tty_progress = isatty(2);

	long long t0 = hk_now_ms();
	if (!o->quiet)
		fprintf(stderr, "[sweep] %zu recipe(s)%s, %u at a time, store %s\n", d.n_items,
			d.shard_count ? " in this shard" : "", o->jobs, store_dir ? store_dir : "(none)");
	struct job *jobs = hk_xcalloc(o->jobs + 1, sizeof(*jobs));
	size_t n_jobs = 0, next = 0, done = 0;
	bool forwarded = false;
	while (next < d.n_items || n_jobs > 0) {
		if (stop_signal && !forwarded) {
			/* Each harkaq build stops cleanly on SIGTERM (its work directory removed,
			 * nothing half-sealed); recipes not started are reported, not dropped. */
			for (size_t i = 0; i < n_jobs; i++)
				kill(jobs[i].pid, SIGTERM);
			forwarded = true;
		}
		while (!stop_signal && n_jobs < o->jobs && next < d.n_items) {
			struct hk_sweep_item *it = &d.items[next];
			size_t pos = positions[next];
			next++;
			struct hk_recipe r;
			if (!preflight(it, store, store_dir, &r)) {
				done++;
				char *line = hk_xasprintf("%s: failed (%s)", it->name ? it->name : it->key,
							  it->fail_code);
				progress(o, done, d.n_items, jobs, n_jobs, &d, t0, line);
				free(line);
				continue;
			}
			struct job *jb = &jobs[n_jobs];
			memset(jb, 0, sizeof(*jb));
			jb->item = (size_t)(it - d.items);
			hk_autofree char *slug = file_slug(pos, it->key);
			jb->result_path = hk_xasprintf("%s/%s.json", builds, slug);
			jb->log_path = hk_xasprintf("%s/%s.log", logs, slug);
			jb->abs_recipe = r.path ? hk_xstrdup(r.path) : NULL;
			jb->base_root = hk_xstrdup(r.base_kind == HK_BASE_ROOT ? r.base_root : "/");
			hk_recipe_free(&r);
			unlink(jb->result_path);
			jb->t0 = hk_now_ms();
			jb->pid = spawn_build(self, o, store_dir, jb, it->key, &err);
			if (jb->pid < 0) {
				hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_SETUP, err.msg);
				free(jb->result_path);
				free(jb->log_path);
				free(jb->abs_recipe);
				free(jb->base_root);
				done++;
				continue;
			}
			if (!scratch) {
				free(it->log);
				it->log = hk_xstrdup(jb->log_path);
			}
			n_jobs++;
		}
		if (n_jobs == 0) {
			if (stop_signal)
				break;
			continue;
		}
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid <= 0) {
			progress(o, done, d.n_items, jobs, n_jobs, &d, t0, NULL);
			struct timespec ts = { 0, 200 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			continue;
		}
		for (size_t i = 0; i < n_jobs; i++) {
			if (jobs[i].pid != pid)
				continue;
			struct hk_sweep_item *it = &d.items[jobs[i].item];
			finish_job(&jobs[i], status, it, store);
			free(jobs[i].result_path);
			free(jobs[i].log_path);
			free(jobs[i].abs_recipe);
			free(jobs[i].base_root);
			jobs[i] = jobs[--n_jobs];
			done++;
			char *line = hk_xasprintf("%s: %s (%.1f s)", it->name ? it->name : it->key,
						  hk_sweep_outcome_label(it->outcome),
						  (double)it->ms / 1000.0);
			progress(o, done, d.n_items, jobs, n_jobs, &d, t0, line);
			free(line);
			break;
		}
	}
	if (tty_progress && !o->quiet)
		fputs("\r\033[K", stderr);
	/* Recipes an interruption kept from running are still counted. */
	for (size_t i = 0; i < d.n_items; i++)
		if (d.items[i].n_phases == 0 && !d.items[i].fail_code) {
			char *msg = hk_xasprintf("the sweep was interrupted (signal %d) before this "
						 "recipe was built", (int)stop_signal);
			hk_sweep_item_fail(&d.items[i], NULL, HK_SWEEP_FAIL_SETUP, msg);
			free(msg);
		}
	d.elapsed_ms = hk_now_ms() - t0;
	free(jobs);
	free(positions);
	free(self);
	if (store)
		hk_store_close(store);

	int code = emit(&d, o, &err) < 0 ? HK_EXIT_SOFTWARE : HK_EXIT_OK;
	if (code != HK_EXIT_OK)
		fprintf(stderr, "harkaq sweep: %s\n", err.msg);
	if (scratch) {
		struct hk_error ignored;
		hk_store_remove_tree(work, &ignored);
	} else if (!o->quiet) {
		fprintf(stderr, "[sweep] results, logs and build results in %s\n", work);
	}
	free(work);
	free(store_dir);
	hk_sweep_doc_free(&d);
	if (stop_signal)
		return 128 + (int)stop_signal;
	return code;
}

static int run_merge(char **args, size_t n_args, const struct sweep_opts *o)
{
	if (n_args == 0) {
		fprintf(stderr, "harkaq sweep merge: give the shards' result.json files\n");
		return HK_EXIT_USAGE;
	}
	struct hk_sweep_doc *parts = hk_xcalloc(n_args, sizeof(*parts));
	struct hk_error err = { 0 };
	int code = HK_EXIT_OK;
	size_t n = 0;
	for (; n < n_args; n++) {
		struct stat st;
		hk_autofree char *path = stat(args[n], &st) == 0 && S_ISDIR(st.st_mode)
						 ? hk_xasprintf("%s/result.json", args[n])
						 : hk_xstrdup(args[n]);
		struct hk_buf text = HK_BUF_INIT;
		int rc = hk_file_read(path, &text, &err);
		if (rc == 0)
			rc = hk_sweep_doc_parse(hk_buf_str(&text), text.len, path, &parts[n], &err);
		hk_buf_free(&text);
		if (rc < 0) {
			code = HK_EXIT_DATAERR;
			break;
		}
	}
	struct hk_sweep_doc merged = { 0 };
	if (code == HK_EXIT_OK && hk_sweep_merge(parts, n, &merged, &err) < 0)
		code = HK_EXIT_DATAERR;
	for (size_t i = 0; i < n; i++)
		hk_sweep_doc_free(&parts[i]);
	free(parts);
	if (code != HK_EXIT_OK) {
		fprintf(stderr, "harkaq sweep merge: %s\n", err.msg);
		return code;
	}
	merged.jobs = 0;
	if (o->out_dir && mkdir_p(o->out_dir, &err) < 0)
		code = HK_EXIT_SOFTWARE;
	else if (emit(&merged, o, &err) < 0)
		code = HK_EXIT_SOFTWARE;
	if (code != HK_EXIT_OK)
		fprintf(stderr, "harkaq sweep merge: %s\n", err.msg);
	hk_sweep_doc_free(&merged);
	return code;
}

enum { OPT_JOBS = 1000, OPT_STORE, OPT_OUT, OPT_SHARD, OPT_JSON, OPT_HTML, OPT_TIMEOUT,
       OPT_PROFILE, OPT_USER, OPT_QUIET, OPT_HELP };

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
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_sweep(int argc, char **argv)
{
	bool merge = argc > 1 && strcmp(argv[1], "merge") == 0;
	if (merge) {
		argc--;
		argv++;
	}
	const char *who = merge ? "harkaq sweep merge" : "harkaq sweep";
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
		case OPT_PROFILE: o.profile = optarg; break;
		case OPT_USER: o.user = optarg; break;
		case OPT_QUIET: o.quiet = true; break;
		case OPT_HELP:
		case 'h':
			sweep_usage(stdout);
			return HK_EXIT_OK;
		default:
			sweep_usage(stderr);
			return HK_EXIT_USAGE;
		}
	}
	if (merge && (o.shard || o.store_opt || o.jobs != 1 || o.timeout || o.profile || o.user)) {
		fprintf(stderr, "%s: only --json, --out and --html apply to a merge\n", who);
		return HK_EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: give %s (see 'harkaq sweep --help')\n", who,
			merge ? "the shards' results" : "recipes or directories of recipes");
		return HK_EXIT_USAGE;
	}
	if (o.out_dir && !merge) {
		struct hk_error err;
		if (mkdir_p(o.out_dir, &err) < 0) {
			fprintf(stderr, "%s: %s\n", who, err.msg);
			return HK_EXIT_SOFTWARE;
		}
	}
	return merge ? run_merge(argv + optind, (size_t)(argc - optind), &o)
		     : run_sweep(argv + optind, (size_t)(argc - optind), &o);
}
