/* A build's preparation (engine/build/build_int.h): everything a phase needs, made ready one
 * named step at a time — the recipe, the build user and the store; the plan (closure, policy,
 * store view, collapse, mount plan); the work directory; the merged view, mounted while the
 * closure is verified; the policy files; the source in /src and the phases' environment
 * (design.md §9).  The phases themselves are build_run.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/build/build_int.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_file.h"
#include "core/store/store.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "sys/mountns.h"
#include "sys/interrupt.h"
#include "sys/userns.h"

/* SOURCE_DATE_EPOCH for every build: fixed, so that a build's bytes do not depend on when it
 * ran (2023-11-14T22:13:20Z). */
#define HK_SOURCE_DATE_EPOCH "1700000000"

/* SIGINT, SIGTERM and SIGHUP stop the build cleanly instead of killing harkaq where it
 * stands: a harkaq killed mid-build would leave its work directory behind and, mid-seal, a
 * half-made store entry.  main() catches them for the whole process (sys/interrupt.h); the
 * build asks hk_interrupted() between steps, and during a phase the cage names its command's
 * group as the signals' forward target, then finishes the evidence and returns EINTR.  The
 * phase's processes and its overlay mounts need no handling of their own: bubblewrap runs
 * with --die-with-parent in its own pid namespace, and the merged view is mounted only in the
 * phase's private mount namespace, so both vanish with the phase's last process. */

static int interrupted(struct hk_error *err)
{
	int sig = hk_interrupted() ? hk_interrupted() : SIGTERM;
	return hk_fail_interrupted(err, sig, "interrupted by signal %d (%s): the build was stopped, "
					     "its processes killed and its work directory removed; "
					     "nothing was sealed",
				   sig, strsignal(sig));
}

static int copy_tree(const char *from, const char *to, struct hk_error *err)
{
	char *src = hk_xasprintf("%s/.", from);
	int r = hk_spawnl(NULL, false, err, "cp", "-a", "--no-preserve=ownership", src, to, NULL);
	free(src);
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

/* The directory open as `dfd` and everything beneath it, owned by uid:gid; a symlink itself,
 * never what it points to (chown -R's default).  `shown` names the directory in errors. */
static int chown_beneath(int dfd, const char *shown, uid_t uid, gid_t gid, struct hk_error *err)
{
	if (fchown(dfd, uid, gid) < 0) {
		int e = errno;
		close(dfd);
		return hk_fail_errno(err, e, "cannot give %s to the build user", shown);
	}
	DIR *d = NULL;
	struct dirent *de;
	int r = hk_dir_fdopen(dfd, shown, &d, err);
	while (r == 0 && (r = hk_dir_next(d, shown, &de, err)) == 0 && de) {
		hk_autofree char *child = hk_xasprintf("%s/%s", shown, de->d_name);
		int cfd = openat(dirfd(d), de->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0)
			r = chown_beneath(cfd, child, uid, gid, err);
		else if (errno != ENOTDIR && errno != ELOOP)
			r = hk_fail_errno(err, errno, "cannot open %s", child);
		else if (fchownat(dirfd(d), de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			r = hk_fail_errno(err, errno, "cannot give %s to the build user", child);
	}
	if (d)
		closedir(d);
	return r;
}

/* The tree at `dir`, owned by the build user: done here rather than by chown -R, whose two
 * runs cost a build 10-40 ms of process start-up. */
static int chown_tree(const char *dir, uid_t uid, gid_t gid, struct hk_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", dir);
	return chown_beneath(fd, dir, uid, gid, err);
}

/* Puts the recipe's source into work/src: a disposable source directory is moved there (src
 * is still empty, so the rename replaces it), which spares copying a whole tree; across file
 * systems (EXDEV) it is copied as any other. */
static int prepare_source(const struct hk_recipe *r, const char *work, const char *src,
			  bool quiet, bool disposable, struct hk_error *err)
{
	switch (r->source.kind) {
	case HK_SOURCE_DIR: {
		struct stat st;
		if (stat(r->source.path, &st) < 0 || !S_ISDIR(st.st_mode))
			return hk_fail(err, ENOENT, "%s:%u:%u: source directory %s does not exist",
				       r->path ? r->path : "recipe", r->source.pos.line,
				       r->source.pos.col, r->source.path);
		if (disposable && rename(r->source.path, src) == 0)
			return 0;
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
		int rc = hk_apt_source(fetch, pin, false, err);
		free(pin);
		if (rc != 0) {
			free(fetch);
			return hk_wrap(err, "fetching the source on the host");
		}
		int r2 = hk_source_take_apt_dir(fetch, r->source.apt_package, src, err);
		free(fetch);
		return r2;
	}
	}
	return hk_fail(err, EINVAL, "unknown source kind");
}

/* The engine's fixed environment of a recipe's phases (docs/recipe-format.md, "[env]"). */
static void engine_env(struct hk_argv *a, const char *source_date_epoch)
{
	hk_argv_push(a, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
	hk_argv_push(a, "HOME=/tmp");
	hk_autofree char *sde = hk_xasprintf("SOURCE_DATE_EPOCH=%s",
					     source_date_epoch ? source_date_epoch
							       : HK_SOURCE_DATE_EPOCH);
	hk_argv_push(a, sde);
	hk_argv_push(a, "LC_ALL=C");
	hk_argv_push(a, "TZ=UTC");
}

static char **build_env(const struct hk_recipe *r, const struct hk_build_opts *bo)
{
	struct hk_argv a = { 0 };
	/* A Debian build brings the environment Debian's builds have (engine/debian/build_dsc.c). */
	if (bo->fixed_env) {
		for (size_t i = 0; i < bo->n_fixed_env; i++)
			hk_argv_push(&a, bo->fixed_env[i]);
	} else {
		engine_env(&a, bo->source_date_epoch);
	}
	for (size_t i = 0; i < r->n_env; i++) {
		char *kv = hk_xasprintf("%s=%s", r->env[i].key, r->env[i].value);
		hk_argv_push(&a, kv);
		free(kv);
	}
	return a.v;
}

/* Looks up every granted path of the merged views once, in a thread, while the main thread
 * verifies the closure: an overlay of a hundred layers is slow to look up cold (each name is
 * searched in every layer), and the first phase's cage would otherwise pay it inside its rule
 * set-up (~45 ms for cjson's closure, against ~12 ms warm).  The uncaged build gains as well:
 * it is a property of the sandbox, not of the cage.  A thread, not a child: a child forked
 * from the build shares its pages copy-on-write, and the verification writing its heap
 * meanwhile copied them page by page.  The thread only reads the plan and the policy, which
 * nothing changes until it is joined; `stop` ends it early (the verification failed). */
struct view_warmer {
	const struct hk_sandbox_plan *plan;
	const struct hk_policy *policy;
	atomic_bool stop;
	pthread_t thread;
	bool running;
};

static void *warm_merged_view(void *arg)
{
	struct view_warmer *w = arg;
	const struct hk_policy *p = w->policy;
	for (size_t i = 0; i < p->n_grants && !atomic_load(&w->stop); i++) {
		const char *path = p->grants[i].path;
		if (path[0] != '/')
			continue;
		size_t n = strcspn(path + 1, "/");
		for (size_t k = 0; k < w->plan->n_tops; k++) {
			const struct hk_top *t = &w->plan->tops[k];
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
	return NULL;
}

/* A step that stopped the build at `stage`, with the error in b->err of class `cls` (what the
 * step knows of it); returns -errno. */
int build_stop_at(struct build *b, enum hk_build_stage stage, enum hk_error_class cls)
{
	b->br->failed_stage = stage;
	return hk_error_set_class(b->err, cls);
}

/* The same, for an error whose class the failing step below set, or its errno says. */
static int build_stop_as_classified(struct build *b, enum hk_build_stage stage)
{
	b->br->failed_stage = stage;
	return -b->err->code;
}

/* A signal stopped the build (hk_interrupted()): says so in err and in the result. */
int build_stop_interrupted(struct build *b)
{
	b->br->failed_signal = hk_interrupted() ? hk_interrupted() : SIGTERM;
	(void)interrupted(b->err);
	return build_stop_as_classified(b, HK_BUILD_STAGE_SETUP);
}

/* Records how long step `s` took since `t0` (hk_build_result.ms_steps). */
void build_step_done(struct build *b, enum hk_build_step s, long long t0)
{
	b->br->ms_steps[s] = hk_now_ms() - t0;
}

/* The recipe, the build user and the store.  A store that must resolve deps must exist
 * (opening it must not create an empty one that then "lacks" every dep, nor a ./store
 * wherever harkaq happens to run). */
int build_open_inputs(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (b->bo->recipe)
		hk_recipe_copy(b->bo->recipe, b->r);
	else if (hk_recipe_load(b->bo->recipe_path, b->r, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_RECIPE, HK_ERROR_INPUT);
	br->recipe_loaded = true;
	hk_recipe_hash(b->r, br->recipe_hash);
	if (hk_resolve_user(b->bo->user, &b->uid, &b->gid, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_USAGE);
	/* A kernel that forbids the build user its namespaces fails every sandbox: say so once,
	 * before anything is made, rather than have bubblewrap's first phase "never report". */
	if (hk_sys_sandbox_check(b->uid, b->gid, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);

	b->t_build = hk_now_ms();

	const struct hk_recipe *r = b->r;
	bool needs_store = r->n_build_deps > 0 || r->base_kind == HK_BASE_STORE;
	char *store_dir = hk_build_store_dir(r, b->bo->store_dir);
	if (!store_dir && needs_store) {
		if (r->n_build_deps > 0)
			hk_fail(b->err, ENOENT, "%s: the recipe has build deps but no store: none "
						"beside or above %s (a directory store/), and neither "
						"--store nor $HARKAQ_STORE was given",
				r->path ? r->path : "recipe", r->recipe_dir);
		else
			hk_fail(b->err, ENOENT, "%s: the recipe stands on the base '%s', and there is "
						"no store: none beside or above %s (a directory "
						"store/), and neither --store nor $HARKAQ_STORE was given "
						"(make one with 'harkaq store --store DIR base create %s')",
				r->path ? r->path : "recipe", r->base, r->recipe_dir, r->base);
		return build_stop_at(b, HK_BUILD_STAGE_DEPS, HK_ERROR_INPUT);
	}
	if (!store_dir)
		store_dir = hk_xstrdup("./store");
	int rc;
	if (b->bo->store) {
		br->store = hk_store_ref(b->bo->store);
		rc = hk_store_refresh(br->store, b->err);
	} else {
		rc = hk_store_open(store_dir, !needs_store, &br->store, b->err);
	}
	free(store_dir);
	if (rc < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP,
			       needs_store ? HK_ERROR_INPUT : HK_ERROR_ENVIRONMENT);
	if (b->bo->cage && hk_helper_path("harkaq-exec", &b->exec_path, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	return 0;
}

static const char *work_parent(const struct hk_build_opts *bo)
{
	return bo->work_parent ? bo->work_parent : HK_BUILD_WORK_PARENT;
}

/* The work directory's paths (nothing is created yet) and the sandbox that binds them. */
int build_name_work(struct build *b)
{
	char nonce[33];
	if (hk_random_hex(nonce, 16, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	struct hk_build_result *br = b->br;
	br->work = hk_xasprintf("%s/harkaq-build-%s", work_parent(b->bo), nonce);
	b->src = hk_xasprintf("%s/src", br->work);
	b->out = hk_xasprintf("%s/out", br->work);
	b->stage = hk_xasprintf("%s/stage", br->work);
	b->policy_path = hk_xasprintf("%s/policy", br->work);
	b->collapse_path = hk_xasprintf("%s/collapse", br->work);
	hk_build_sandbox_init(&b->sb, b->r, b->bo->cage);
	b->sb.src_dir = b->src;
	b->sb.out_dir = b->out;
	b->sb.stage_dir = b->stage;
	b->sb.exec_host_path = b->exec_path;
	b->sb.policy_host_path = b->policy_path;
	b->sb.dpkg_db = b->bo->dpkg_db;
	b->sb.dpkg_db_files = b->bo->dpkg_db_files;
	b->sb.n_dpkg_db_files = b->bo->n_dpkg_db_files;
	return 0;
}

/* What a hk_reach_check* call found, as the build's error: a path the build user cannot
 * reach is bad input (the store, base or installation the caller chose, fixed by a chmod or
 * another --store, as a store that does not exist is); a check that could not be made is the
 * environment's.  Returns 0 or -errno. */
int build_reach_stop(struct build *b, int rc)
{
	if (rc == 0)
		return 0;
	return build_stop_at(b, HK_BUILD_STAGE_SETUP, rc > 0 ? HK_ERROR_INPUT : HK_ERROR_ENVIRONMENT);
}

/* The options' expectation set (core/debian/debexpect.h): its patterns expanded against what the
 * sandbox shows beyond the closure — the base and the store view — and every path found that
 * the policy does not grant is expected.  The closure's own files are granted, so they are
 * never looked for.  The policy changes, so its id is taken again. */
static int add_set_expects(struct build *b)
{
	struct hk_build_result *br = b->br;
	const char *roots[2] = { br->plan.base_root, br->view.path };
	struct hk_strset paths = HK_STRSET_INIT;
	hk_build_expand_expects(b->bo->expect_set, roots, br->view.path ? 2 : 1, &paths);
	int rc = hk_derive_add_ungranted_expects(&br->plan.policy,
						 (const char *const *)paths.items, paths.len,
						 &br->n_set_expects, b->err);
	hk_strset_free(&paths);
	if (rc == 0)
		hk_policy_id(&br->plan.policy, br->plan.policy_id);
	br->expect_set = b->bo->expect_set;
	return rc;
}

/* The source, when the caller was still making it (bo->source_ready), then the expectations
 * it brings.  The expectations add only expect lines, which neither the collapse plan nor the
 * merged view's warm-up reads: the policy is complete before its files are written. */
int build_source_ready(struct build *b)
{
	const struct hk_build_opts *bo = b->bo;
	if (bo->source_ready && bo->source_ready(bo->source_ctx, b->err) < 0)
		return build_stop_as_classified(b, HK_BUILD_STAGE_FETCH);
	if (bo->expect_set && add_set_expects(b) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	return 0;
}

/* Derivation and the mount plan come before the work directory exists: a missing or
 * ambiguous dep, or a dep tree the sandbox cannot merge, is reported before anything is
 * created.  Derivation runs with or without the cage: the merged view is the same. */
int build_plan_sandbox(struct build *b)
{
	struct hk_build_result *br = b->br;
	long long t0 = hk_now_ms();
	if (hk_build_derive_kept(b->r, br->store, b->bo->profile, &b->sb, &br->plan, b->err) < 0) {
		enum hk_build_stage stage = br->plan.fail_stage ? br->plan.fail_stage
								 : HK_BUILD_STAGE_SETUP;
		hk_build_plan_free(&br->plan);
		return build_stop_as_classified(b, stage);
	}
	br->plan_ok = true;
	build_step_done(b, HK_BUILD_T_DERIVE, t0);
	t0 = hk_now_ms();
	/* bubblewrap runs as the build user: what it cannot reach would fail the first phase
	 * inside bubblewrap.  Asked before the store view is made, so that a refusal leaves the
	 * store as it was (docs/store.md, "What a build needs of the machine"). */
	int reach = build_reach_stop(b, hk_reach_check_build(b->bo->user, b->uid, b->gid,
						       hk_store_dir(br->store), br->plan.base_root,
						       b->exec_path, b->bo->dpkg_db,
						       work_parent(b->bo), b->err));
	if (reach)
		return reach;
	b->sb.base_root = br->plan.base_root;
	b->sb.layers = (const char *const *)br->plan.layers;
	b->sb.n_layers = br->plan.n_layers;
	/* What the build may see beyond its closure: every artifact of the store, read-only and
	 * not granted, so that using one is a named denial (core/store/view.h). */
	if (hk_view_ensure_hiding(br->store, br->plan.base_root, hk_sandbox_merges_path,
				  b->bo->view_hide, b->bo->n_view_hide, &br->view, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	if (!b->bo->quiet && br->view.made)
		fprintf(stderr, "[view] store view %s made: %zu artifact(s), %zu files linked, "
				"%zu symlink(s) trapped\n",
			br->view.id, br->view.n_artifacts, br->view.n_files, br->view.n_traps);
	br->plan.base.view = hk_xstrdup(br->view.id);
	build_step_done(b, HK_BUILD_T_VIEW, t0);
	t0 = hk_now_ms();
	b->sb.view_root = br->view.path;
	b->sb.view_links = b->bo->cage ? br->view.links : br->view.links_plain;
	if (hk_build_collapse(&br->plan, br->view.path, br->view.path ? br->view.id : NULL,
			      b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	if (hk_sandbox_plan(&b->sb, &b->plan, b->err) < 0) {
		/* A dep whose tree is gone or altered is named as such, before the plan's error. */
		struct hk_error plan_err = *b->err;
		if (hk_build_verify_inputs(b->bo, b->r, br->store, br, &b->inos, b->err) < 0)
			return build_stop_as_classified(b, HK_BUILD_STAGE_SETUP);
		/* The deps verify: a tree the sandbox cannot merge is in the input itself. */
		*b->err = plan_err;
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_INPUT);
	}
	build_step_done(b, HK_BUILD_T_SANDBOX_PLAN, t0);
	return 0;
}

/* The work directory: world-listable so the build user reaches its parts (DAC). */
int build_make_work(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (mkdir(br->work, 0755) < 0) {
		hk_fail_errno(b->err, errno, "creating the work directory %s", br->work);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	b->work_made = true;
	if (mkdir(b->src, 0755) < 0 || mkdir(b->out, 0755) < 0 || mkdir(b->stage, 0755) < 0) {
		hk_fail_errno(b->err, errno, "creating the work directory %s", br->work);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	/* mkdtemp made it 0700: the build user must be able to enter it. */
	if (chmod(br->work, 0755) < 0) {
		hk_fail_errno(b->err, errno, "making the work directory %s reachable", br->work);
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	if (!b->bo->quiet)
		fprintf(stderr, "[work] %s\n", br->work);
	return 0;
}

/* The merged view is mounted once for the whole build, in a mount namespace of harkaq's own
 * (nothing reaches the host's, even if harkaq is killed); every phase's sandbox binds it.
 * Mounted per phase, each phase paid for a cold overlay: every name looked up in every layer
 * again, which made the cage's rules cost twice as much and the uncaged phases ~50 ms more
 * each.  The closure is verified while a child warms the view up. */
int build_mount_view_and_verify(struct build *b)
{
	if (hk_sys_unshare_mounts(b->err) < 0 || hk_sandbox_mount(&b->plan, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	b->view_mounted = true;
	struct view_warmer w = { .plan = &b->plan, .policy = &b->br->plan.policy };
	/* Signals stay the main thread's (the interrupt context). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	w.running = pthread_create(&w.thread, NULL, warm_merged_view, &w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int rc = hk_build_verify_inputs(b->bo, b->r, b->br->store, b->br, &b->inos,
					 b->err);
	if (w.running) {
		if (rc < 0)
			atomic_store(&w.stop, true);
		pthread_join(w.thread, NULL);
	}
	return rc < 0 ? build_stop_as_classified(b, HK_BUILD_STAGE_SETUP) : 0;
}

/* The policy file the cage loads and, unless --per-file-rules, the collapsed directories in
 * the policy format (`list` lines): how the cage installs the policy, not part of it (its id
 * is the policy's alone). */
int build_write_policy_files(struct build *b)
{
	const struct hk_build_plan *plan = &b->br->plan;
	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(&plan->policy, &enc);
	int wr = hk_file_write_atomic(b->policy_path, enc.data, enc.len, 0644, b->err);
	hk_buf_free(&enc);
	if (wr < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	if (b->bo->per_file_rules || plan->collapse.len == 0)
		return 0;
	struct hk_policy hints = HK_POLICY_INIT;
	for (size_t i = 0; i < plan->collapse.len; i++)
		hk_policy_add_grant(&hints, HK_GRANT_LIST, plan->collapse.items[i]);
	wr = hk_policy_finish(&hints, b->err);
	if (wr == 0) {
		hk_policy_encode(&hints, &enc);
		wr = hk_file_write_atomic(b->collapse_path, enc.data, enc.len, 0644, b->err);
		hk_buf_free(&enc);
	}
	hk_policy_free(&hints);
	if (wr < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	b->sb.collapse_host_path = b->collapse_path;
	return 0;
}

void build_print_plan(const struct build *b)
{
	const struct hk_build_plan *p = &b->br->plan;
	if (b->bo->quiet)
		return;
	fprintf(stderr, "[plan] %s %s: %zu dep artifact(s) in the closure; policy %s "
			"(%zu files, %zu symlinks, %zu base runtime paths)%s\n",
		b->r->name, b->r->version, p->n_closure, p->policy_id, p->report.files,
		p->report.symlinks, p->report.base_runtime,
		b->bo->cage ? "" : " — not enforced (--no-cage)");
	if (p->base.pinned)
		fprintf(stderr, "[base] %s %s (%zu packages; %zu of them in the closure, granted "
				"from the base's package lists)\n",
			p->base.name, p->base.id, p->base.packages, p->n_base_packages);
	else
		fprintf(stderr, "[base] %s: unpinned (this machine's own directories or a "
				"directory): the verdict measures the machine, not the recipe\n",
			b->r->base);
}

/* The source in /src, owned (with /out) by the build user. */
int build_place_source(struct build *b)
{
	if (prepare_source(b->r, b->br->work, b->src, b->bo->quiet, b->bo->source_disposable,
			   b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_FETCH, HK_ERROR_ENVIRONMENT);
	if (chown_tree(b->src, b->uid, b->gid, b->err) < 0 ||
	    chown_tree(b->out, b->uid, b->gid, b->err) < 0)
		return build_stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	b->env = build_env(b->r, b->bo);
	return 0;
}
