/* One item of a sweep (engine/sweep/sweep_int.h): its pre-flight, its child process (a
 * recipe's `harkaq build`, a Debian item's sweep_deb_child), and what it wrote, read back with
 * the one reader of its kind; a reason said the same on every machine. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/sweep/sweep_int.h"
#include "engine/build/build.h"
#include "engine/common/proc.h"
#include "engine/common/status.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/policy/recipe_file.h"
#include "core/store/store.h"

/* The base-debt measure: would `policy = closure + whole base root` have granted it?  Not
 * what the sandbox itself mounts there (its contract surfaces). */
static bool in_base_root(void *ctx, const char *path)
{
	const char *root = ctx ? ctx : "/";
	if (hk_contract_surface(path))
		return false;
	size_t rl = strlen(root);
	hk_autofree char *host = hk_xasprintf("%.*s%s", (int)(rl && root[rl - 1] == '/' ? rl - 1 : rl),
					      root, path);
	struct stat st;
	return lstat(host, &st) == 0;
}

char *sweep_file_slug(size_t pos, const char *key)
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

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Elides the random part of every "TAG<random>" in s: from `min` to `max` characters, of hex
 * digits only when `hex`. */
static void elide_nonces(char *s, const char *tag, size_t min, size_t max, bool hex)
{
	for (char *q = s; (q = strstr(q, tag));) {
		char *h = q + strlen(tag), *e = h;
		while (hex ? (*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') : is_alnum(*e))
			e++;
		if ((size_t)(e - h) >= min && (size_t)(e - h) <= max) {
			memmove(h + 3, e, strlen(e) + 1);
			memcpy(h, "\xe2\x80\xa6", 3);   /* … */
		}
		q = h;
	}
}

/* A reason must read the same on every machine (it is part of the summary): the recipe is
 * named as the sweep names it, the sweep's own directory as OUT, and a build's random work
 * directory is elided. */
char *sweep_clean_reason(const char *msg, const char *out_dir, const char *abs_recipe,
			  const char *key)
{
	char *s = hk_xstrdup(msg);
	replace_all(&s, abs_recipe, key);
	replace_all(&s, out_dir, "OUT");
	/* The Debian front end's (mkdtemp: six letters or digits) and the engine's (a hex
	 * nonce), wherever they were made. */
	elide_nonces(s, "/harkaq-dsc-", 6, 6, false);
	elide_nonces(s, "/harkaq-build-", 8, SIZE_MAX, true);
	return s;
}

/* Reads what the item's build wrote, with the one decoder of its kind; a build that left
 * nothing readable is said by how its process ended (hk_sweep_item_without_result). */
static void read_result(const struct sweep_job *jb, int status, struct hk_sweep_item *it)
{
	const struct hk_sweep_proc_end end = {
		.signaled = WIFSIGNALED(status),
		.code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
	};
	if (access(jb->result_path, F_OK) < 0) {
		hk_sweep_item_without_result(it, &end, NULL);
		return;
	}
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e = { 0 };
	int rc = hk_file_read(jb->result_path, &text, &e);
	if (rc == 0)
		rc = jb->deb ? hk_sweep_item_from_debian_build(it, text.data, text.len, &e)
			     : hk_sweep_item_from_build(it, text.data, text.len, in_base_root,
							jb->base_root, &e);
	hk_buf_free(&text);
	if (rc < 0) {
		hk_autofree char *why = hk_xasprintf("its result is unreadable: %s", e.msg);
		hk_sweep_item_without_result(it, &end, why);
	}
}

/* Pre-flight in the sweep itself, so the most common reasons (a recipe that does not parse,
 * a dep the store lacks) are stated exactly and cost no build. */
bool sweep_job_preflight(struct hk_sweep_item *it, struct hk_store *store, const char *store_dir,
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
		/* A package of the recipe's base may be declared by name, as the build allows. */
		if (store && e.code == ENOENT && d->name && !d->version && !d->b3) {
			hk_autofree char *root = sweep_base_root_of(store, r);
			if (hk_build_base_has_package(root, d->name))
				continue;
		}
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

/* What an item's child process runs once it stands on its own: `harkaq build` exec'd for a
 * recipe (exec_build), the Debian build itself for a Debian item (run_deb).  Returns the
 * child's exit status, which the sweep reads as a build's (finish_job). */
typedef int (*item_child_fn)(const void *ctx);

static int exec_build(const void *ctx)
{
	char *const *argv = ctx;
	execv(argv[0], argv);
	fprintf(stderr, "harkaq build: could not run %s: %s\n", argv[0], strerror(errno));
	/* As a shell says a command it could not run: no `harkaq build` ran to choose one. */
	return 127;
}

/* The child stands for `harkaq build --dsc` and exits as it would, through the one table. */
static int run_deb(const void *ctx)
{
	struct hk_error err = { 0 };
	int rc = sweep_deb_child(ctx, &err);
	return hk_exit_status(rc, &err);
}

/* Forks the child of one item: its own process group (the item's limit stops the build and
 * everything it started, and a terminal's ^C reaches the sweep only, which stops the builds
 * cleanly: run_builds), its log as stderr, nothing blocked (the sweep blocks SIGCHLD to wait
 * for it), the default stop signals, and TMPDIR its own directory when it has one. */
static pid_t spawn_item(const struct sweep_job *jb, item_child_fn run, const void *ctx,
			struct hk_error *err)
{
	int logfd = open(jb->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0)
		return hk_fail_errno(err, errno, "creating the log %s", jb->log_path);
	/* What the sweep buffered must not be written twice, by the child too. */
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(logfd);
		return hk_fail_errno(err, e, "fork");
	}
	if (pid == 0) {
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		dup2(logfd, 2);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (jb->workdir)
			setenv("TMPDIR", jb->workdir, 1);
		int code = run(ctx);
		fflush(NULL);
		_exit(code & 0xff);
	}
	setpgid(pid, pid);
	close(logfd);
	return pid;
}

/* `harkaq build --store S --result-out F [options] -- KEY`: a recipe's build. */
static char **build_argv(const char *self, const struct sweep_opts *o, const char *store_dir,
			 const struct sweep_job *jb, const char *key)
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
	return a.v;
}

pid_t sweep_job_spawn_build(struct sweep_job *jb, const char *self, const struct sweep_opts *o,
			    const char *store_dir, const char *key, struct hk_error *err)
{
	char **argv = build_argv(self, o, store_dir, jb, key);
	jb->t0 = hk_now_ms();
	pid_t pid = spawn_item(jb, exec_build, argv, err);
	hk_argv_free(argv);
	return pid;
}

pid_t sweep_job_spawn_deb(const struct sweep_job *jb, const struct sweep_deb_job *dj,
			  struct hk_error *err)
{
	return spawn_item(jb, run_deb, dj, err);
}

void sweep_job_free(struct sweep_job *jb)
{
	free(jb->result_path);
	free(jb->log_path);
	free(jb->abs_recipe);
	free(jb->base_root);
	free(jb->workdir);
	free(jb->record);
}

/* ---- the builds ---- */

/* Removes a Debian item's own directory, with every work directory its build made in it,
 * however the build ended.  Its processes were killed with their group (reap_job); one still
 * dying may write a file meanwhile, so the removal is tried again for a second. */
void sweep_job_remove_workdir(const struct sweep_job *jb)
{
	if (!jb->workdir)
		return;
	struct hk_error e = { 0 };
	for (int attempt = 0; attempt < 10; attempt++) {
		if (hk_store_remove_tree(jb->workdir, &e) == 0 || access(jb->workdir, F_OK) < 0)
			return;
		const struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "harkaq sweep: %s\n", e.msg);
}

/* The item of a build that ended: its time and status, then what it measured (read_result),
 * unless the sweep's limit ended it. */
void sweep_job_finish(const struct sweep_job *jb, int status, const char *out_dir,
		      struct hk_sweep_item *it)
{
	it->ms = hk_now_ms() - jb->t0;
	it->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (jb->term_at) {
		/* The sweep's limit, not the build, ended it: whatever the build wrote is not a
		 * measurement of the item. */
		unlink(jb->result_path);
		hk_autofree char *r = hk_xasprintf(
			"still running after the sweep's limit of %lld s per item (--item-timeout): "
			"stopped with SIGTERM%s; its processes are gone and its work removed",
			(jb->term_at - jb->t0) / 1000, jb->killed ? ", then SIGKILL" : "");
		hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_TIMEOUT, r);
		return;
	}
	read_result(jb, status, it);
	/* A result written for a status >= 64 without saying why (its "error" null). */
	if (it->exit_status >= HK_EXIT_USAGE && !it->fail_code) {
		hk_autofree char *r = hk_xasprintf("harkaq build%s exited with status %d without "
						   "saying why in its result",
						   jb->deb ? " --dsc" : "", it->exit_status);
		hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_SETUP, r);
	}
	if (it->reason) {
		char *r = sweep_clean_reason(it->reason, out_dir, jb->abs_recipe, it->key);
		free(it->reason);
		it->reason = r;
	}
}
