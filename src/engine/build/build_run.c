/* The build engine (engine/build/build.h): from the recipe to verdicts and a sealed artifact, one named
 * step at a time — inputs, plan, work directory, merged view and closure verification, policy
 * files, source, each phase under the cage, seal, evidence and verdicts (design.md §9, §7). */
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
#include <sys/wait.h>
#include <unistd.h>

#include "engine/build/build.h"
#include "core/formats/exec_args.h"
#include "engine/cage/cage.h"
#include "engine/common/status.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "engine/cage/reads.h"
#include "engine/build/report.h"
#include "engine/cage/sandbox.h"
#include "engine/cage/verdict_out.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_file.h"
#include "core/store/store.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"
#include "sys/mountns.h"
#include "sys/interrupt.h"
#include "sys/userns.h"
#include "sys/verity.h"

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

/* How each phase's audit reader is started (also the first one, started ahead): it may switch
 * audit on, with its own default backlog floor. */
#define PHASE_READER_MAY_ENABLE true
#define PHASE_READER_BACKLOG_FLOOR (-1L)

/* ---- the engine, step by step ---- */

/* Everything one build holds while it runs; released by release_build(). */
struct build {
	const struct hk_build_opts *bo;
	struct hk_build_result *br;
	struct hk_error *err;
	struct hk_recipe *r;
	uid_t uid;
	gid_t gid;
	long long t_build;
	char *exec_path;            /* harkaq-exec on the host (caged builds) */
	char *src, *out, *stage, *policy_path, *collapse_path;
	char **env;
	struct hk_sandbox sb;
	struct hk_sandbox_plan plan;
	bool work_made, view_mounted;
	struct hk_reads reads;      /* bo->observe_opens: the opens of the phases */
	struct hk_inos inos;        /* the verified trees' files, for the watch of the opens */
	/* the install output staged in the store (stage_output), until stored or removed */
	char *staged;
	struct hk_dep_group *out_groups;   /* its runtime deps, as an artifact spec wants them */
	char *out_source;
	/* phases whose evidence is still coming (defer_evidence) */
	struct hk_cage_result *pending[HK_PHASE_COUNT];
	size_t n_pending;
	/* the first phase's audit reader, started while the build sets up (NULL once a phase
	 * took it over) */
	struct hk_cage_reader *reader_ahead;
	/* The phase that was not run for want of a canary nonce (refuse_without_nonce): the
	 * phases after it are not run either, and nothing is staged. */
	const char *not_run_phase;
	/* The child unmounting the merged view and removing the work directory (start_release),
	 * until joined (finish_release); and when it started. */
	pid_t release_pid;
	long long t_release;
};

/* A step that stopped the build at `stage`, with the error in b->err of class `cls` (what the
 * step knows of it); returns -errno. */
static int stop_at(struct build *b, enum hk_build_stage stage, enum hk_error_class cls)
{
	b->br->failed_stage = stage;
	return hk_error_set_class(b->err, cls);
}

/* The same, for an error whose class the failing step below set, or its errno says. */
static int stop_as_classified(struct build *b, enum hk_build_stage stage)
{
	b->br->failed_stage = stage;
	return -b->err->code;
}

/* A signal stopped the build (hk_interrupted()): says so in err and in the result. */
static int stop_interrupted(struct build *b)
{
	b->br->failed_signal = hk_interrupted() ? hk_interrupted() : SIGTERM;
	(void)interrupted(b->err);
	return stop_as_classified(b, HK_BUILD_STAGE_SETUP);
}

/* Records how long step `s` took since `t0` (hk_build_result.ms_steps). */
static void step_done(struct build *b, enum hk_build_step s, long long t0)
{
	b->br->ms_steps[s] = hk_now_ms() - t0;
}

/* The recipe, the build user and the store.  A store that must resolve deps must exist
 * (opening it must not create an empty one that then "lacks" every dep, nor a ./store
 * wherever harkaq happens to run). */
static int open_inputs(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (b->bo->recipe)
		hk_recipe_copy(b->bo->recipe, b->r);
	else if (hk_recipe_load(b->bo->recipe_path, b->r, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_RECIPE, HK_ERROR_INPUT);
	br->recipe_loaded = true;
	hk_recipe_hash(b->r, br->recipe_hash);
	if (hk_resolve_user(b->bo->user, &b->uid, &b->gid, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_USAGE);
	/* A kernel that forbids the build user its namespaces fails every sandbox: say so once,
	 * before anything is made, rather than have bubblewrap's first phase "never report". */
	if (hk_sys_sandbox_check(b->uid, b->gid, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);

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
		return stop_at(b, HK_BUILD_STAGE_DEPS, HK_ERROR_INPUT);
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
		return stop_at(b, HK_BUILD_STAGE_SETUP,
			       needs_store ? HK_ERROR_INPUT : HK_ERROR_ENVIRONMENT);
	if (b->bo->cage && hk_helper_path("harkaq-exec", &b->exec_path, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	return 0;
}

static const char *work_parent(const struct hk_build_opts *bo)
{
	return bo->work_parent ? bo->work_parent : HK_BUILD_WORK_PARENT;
}

/* The work directory's paths (nothing is created yet) and the sandbox that binds them. */
static int name_work(struct build *b)
{
	char nonce[33];
	if (hk_random_hex(nonce, 16, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
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
static int reach_stop(struct build *b, int rc)
{
	if (rc == 0)
		return 0;
	return stop_at(b, HK_BUILD_STAGE_SETUP, rc > 0 ? HK_ERROR_INPUT : HK_ERROR_ENVIRONMENT);
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
static int source_ready(struct build *b)
{
	const struct hk_build_opts *bo = b->bo;
	if (bo->source_ready && bo->source_ready(bo->source_ctx, b->err) < 0)
		return stop_as_classified(b, HK_BUILD_STAGE_FETCH);
	if (bo->expect_set && add_set_expects(b) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	return 0;
}

/* Derivation and the mount plan come before the work directory exists: a missing or
 * ambiguous dep, or a dep tree the sandbox cannot merge, is reported before anything is
 * created.  Derivation runs with or without the cage: the merged view is the same. */
static int plan_build(struct build *b)
{
	struct hk_build_result *br = b->br;
	long long t0 = hk_now_ms();
	if (hk_build_derive_kept(b->r, br->store, b->bo->profile, &b->sb, &br->plan, b->err) < 0) {
		enum hk_build_stage stage = br->plan.fail_stage ? br->plan.fail_stage
								 : HK_BUILD_STAGE_SETUP;
		hk_build_plan_free(&br->plan);
		return stop_as_classified(b, stage);
	}
	br->plan_ok = true;
	step_done(b, HK_BUILD_T_DERIVE, t0);
	t0 = hk_now_ms();
	/* bubblewrap runs as the build user: what it cannot reach would fail the first phase
	 * inside bubblewrap.  Asked before the store view is made, so that a refusal leaves the
	 * store as it was (docs/store.md, "What a build needs of the machine"). */
	int reach = reach_stop(b, hk_reach_check_build(b->bo->user, b->uid, b->gid,
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
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	if (!b->bo->quiet && br->view.made)
		fprintf(stderr, "[view] store view %s made: %zu artifact(s), %zu files linked, "
				"%zu symlink(s) trapped\n",
			br->view.id, br->view.n_artifacts, br->view.n_files, br->view.n_traps);
	br->plan.base.view = hk_xstrdup(br->view.id);
	step_done(b, HK_BUILD_T_VIEW, t0);
	t0 = hk_now_ms();
	b->sb.view_root = br->view.path;
	b->sb.view_links = b->bo->cage ? br->view.links : br->view.links_plain;
	if (hk_build_collapse(&br->plan, br->view.path, br->view.path ? br->view.id : NULL,
			      b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	if (hk_sandbox_plan(&b->sb, &b->plan, b->err) < 0) {
		/* A dep whose tree is gone or altered is named as such, before the plan's error. */
		struct hk_error plan_err = *b->err;
		if (hk_build_verify_inputs(b->bo, b->r, br->store, br, &b->inos, b->err) < 0)
			return stop_as_classified(b, HK_BUILD_STAGE_SETUP);
		/* The deps verify: a tree the sandbox cannot merge is in the input itself. */
		*b->err = plan_err;
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_INPUT);
	}
	step_done(b, HK_BUILD_T_SANDBOX_PLAN, t0);
	return 0;
}

/* The work directory: world-listable so the build user reaches its parts (DAC). */
static int make_work(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (mkdir(br->work, 0755) < 0) {
		hk_fail_errno(b->err, errno, "creating the work directory %s", br->work);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	b->work_made = true;
	if (mkdir(b->src, 0755) < 0 || mkdir(b->out, 0755) < 0 || mkdir(b->stage, 0755) < 0) {
		hk_fail_errno(b->err, errno, "creating the work directory %s", br->work);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	/* mkdtemp made it 0700: the build user must be able to enter it. */
	if (chmod(br->work, 0755) < 0) {
		hk_fail_errno(b->err, errno, "making the work directory %s reachable", br->work);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
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
static int mount_view_and_verify(struct build *b)
{
	if (hk_sys_unshare_mounts(b->err) < 0 || hk_sandbox_mount(&b->plan, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
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
	return rc < 0 ? stop_as_classified(b, HK_BUILD_STAGE_SETUP) : 0;
}

/* The policy file the cage loads and, unless --per-file-rules, the collapsed directories in
 * the policy format (`list` lines): how the cage installs the policy, not part of it (its id
 * is the policy's alone). */
static int write_policy_files(struct build *b)
{
	const struct hk_build_plan *plan = &b->br->plan;
	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(&plan->policy, &enc);
	int wr = hk_file_write_atomic(b->policy_path, enc.data, enc.len, 0644, b->err);
	hk_buf_free(&enc);
	if (wr < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
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
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	b->sb.collapse_host_path = b->collapse_path;
	return 0;
}

static void print_plan(const struct build *b)
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
static int place_source(struct build *b)
{
	if (prepare_source(b->r, b->br->work, b->src, b->bo->quiet, b->bo->source_disposable,
			   b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_FETCH, HK_ERROR_ENVIRONMENT);
	if (chown_tree(b->src, b->uid, b->gid, b->err) < 0 ||
	    chown_tree(b->out, b->uid, b->gid, b->err) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	b->env = build_env(b->r, b->bo);
	return 0;
}

/* The argv that runs one phase's commands in the sandbox (under the cage unless --no-cage). */
static int phase_argv(struct build *b, const struct hk_recipe_phase *rp, char ***argv)
{
	char *script = join_commands(rp);
	struct hk_argv inner = { 0 };
	if (b->bo->wrap) {
		char *w = hk_xstrdup(b->bo->wrap), *save = NULL;
		for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save))
			hk_argv_push(&inner, t);
		free(w);
	}
	hk_argv_push(&inner, "/bin/sh");
	hk_argv_push(&inner, "-ec");
	hk_argv_push(&inner, script);
	free(script);
	/* --force-abi: harkaq-exec pretends an older Landlock (fault injection). */
	struct hk_exec_args fault = HK_EXEC_ARGS_INIT;
	fault.force_abi = b->bo->force_abi > 0 ? b->bo->force_abi : -1;
	int rc = hk_sandbox_argv(&b->sb, &b->plan, b->bo->cage ? &fault : NULL, inner.v, argv,
				 b->err);
	hk_argv_free(inner.v);
	return rc;
}

/* Every path bubblewrap will bind, as the build user, before the source is fetched and before
 * any phase: read from the first phase's own command line.  The phases' command lines differ
 * only in their canary, a file harkaq writes (0644) in the work directory, which is checked. */
static int check_binds(struct build *b)
{
	int ph = 0;
	while (ph < HK_PHASE_COUNT && b->r->phases[ph].n_commands == 0)
		ph++;
	if (ph == HK_PHASE_COUNT)
		return 0;
	char **argv = NULL;
	if (phase_argv(b, &b->r->phases[ph], &argv) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	struct hk_reach_list binds = HK_REACH_LIST_INIT;
	hk_sandbox_argv_binds(argv, &binds);
	int rc = reach_stop(b, hk_reach_check("the build user", b->bo->user, b->uid, b->gid,
					      hk_store_dir(b->br->store), &binds, b->err));
	hk_reach_list_free(&binds);
	hk_argv_free(argv);
	return rc;
}

/* After a phase ran: whether the cage stood and the evidence can follow.  Returns 0, or the
 * -errno that stops the build. */
static int check_phase_cage(struct build *b, struct phase_result *pr, const char *pname)
{
	const struct hk_cage_result *res = &pr->res;
	if (res->cage_error) {
		hk_fail(b->err, EPERM, "%s: the cage refused to start the phase (layer %s): %s", pname,
			res->cage_error_layer ? res->cage_error_layer : "?", res->cage_error);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	if (b->bo->cage && !res->cage_reported) {
		hk_fail(b->err, EPERM, "%s: the cage never reported (harkaq-exec did not start; "
				       "exit status %d)", pname, res->exit_code);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	if (res->canary_reported && res->canary != HK_CANARY_DENIED) {
		hk_fail(b->err, EPERM, "%s: the canary probe said '%s': the derived policy grants "
				       "what it must not; the phase was not run",
			pname, hk_canary_result_name(res->canary));
		/* A canary the derived policy opens is harkaq's own fault, never the recipe's. */
		return stop_at(b, HK_BUILD_STAGE_SETUP, res->canary == HK_CANARY_OPENED
								? HK_ERROR_INTERNAL
								: HK_ERROR_ENVIRONMENT);
	}
	return 0;
}

/* A phase whose canary nonce could not be drawn (err says why): it is not run, its verdict is
 * given now — NoEvidence, no_canary_nonce — and the phases after it are not run either.  The
 * build goes on to its verdicts: the phases before it have theirs, and the exit status says
 * NoEvidence, the verdict of the phase it could not vouch for. */
static void refuse_without_nonce(struct build *b, struct phase_result *pr)
{
	const struct hk_verdict_input in = {
		.policy_id = b->br->plan.policy_id,
		.recipe_hash = b->br->recipe_hash,
		.phase = pr->label,
	};
	hk_verdict_no_canary_nonce(&in, b->err->msg, &pr->verdict);
	pr->has_verdict = true;
	b->not_run_phase = pr->label;
	if (!b->bo->quiet)
		fprintf(stderr, "[%s] not run: no canary nonce (%s)\n", pr->label, b->err->msg);
	hk_error_clear(b->err);
}

/* One phase in its own domain, with its own canary.  Returns 0 to go on (also when the phase
 * itself failed, br->failed_phase says so, or was not run for want of a canary nonce), or the
 * -errno that stops the build. */
static int run_phase(struct build *b, enum hk_phase ph)
{
	struct hk_build_result *br = b->br;
	const struct hk_build_opts *bo = b->bo;
	struct phase_result *pr = &br->phases[br->n_phases++];
	pr->phase = ph;
	pr->label = bo->phase_labels ? bo->phase_labels[ph] : hk_phase_name(ph);
	const char *pname = pr->label;

	/* No reader, no canary: nobody would look for its record. */
	bool evidence = bo->cage && !bo->no_evidence;
	/* Without an unpredictable nonce the build could know its canary's path in advance, and
	 * a canary it can predict proves nothing: no phase runs on a nonce that was not made. */
	char pnonce[33];
	if (evidence && hk_random_hex(pnonce, 16, b->err) < 0) {
		refuse_without_nonce(b, pr);
		return 0;
	}
	hk_autofree char *canary_host = evidence ? hk_xasprintf("%s/canary-%s", br->work, pnonce)
						 : NULL;
	hk_autofree char *canary_sb = evidence ? hk_xasprintf("/.harkaq/canary-%s", pnonce) : NULL;
	if (evidence) {
		static const char body[] = "harkaq canary\n";
		if (hk_file_write_atomic(canary_host, body, sizeof(body) - 1, 0644, b->err) < 0)
			return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	b->sb.canary_host_path = canary_host;
	b->sb.canary_sandbox_path = canary_sb;
	char **argv = NULL;
	if (phase_argv(b, &b->r->phases[ph], &argv) < 0)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	struct hk_cage_opts o = {
		.argv = argv,
		.status_fd = HK_SANDBOX_STATUS_FD,
		.canary_path = canary_sb,
		.evidence = evidence,
		.reader_may_enable = PHASE_READER_MAY_ENABLE,
		.backlog_floor = PHASE_READER_BACKLOG_FLOOR,
		.as_user = true,
		.uid = b->uid,
		.gid = b->gid,
		.timeout_s = bo->timeout_s,
		.envp = b->env,
		.quiet = bo->quiet,
		/* The phase's deallocation record is not awaited here: it comes ~40 ms after the
		 * phase's last process is reaped, and no phase needs the previous one's verdict.
		 * The next phases drain its reader and close its evidence when its records are in
		 * (engine/cage/cage.h); hk_cage_finish waits, after the last phase, for what is left. */
		.defer_evidence = evidence,
		.drain = b->pending,
		.n_drain = b->n_pending,
		.reader = b->reader_ahead,
	};
	b->reader_ahead = NULL; /* the run owns it now, whatever happens */
	if (!bo->quiet)
		fprintf(stderr, "[%s] running%s\n", pname, bo->cage ? " under the cage" : "");
	long long t0 = hk_now_ms();
	int rc = hk_cage_run(&o, &pr->res, b->err);
	if (pr->res.pending)
		b->pending[b->n_pending++] = &pr->res;
	pr->ms = hk_now_ms() - t0;
	pr->ran = true;
	hk_argv_free(argv);
	if (canary_host)
		unlink(canary_host);
	if (rc < 0 && b->err->code == EINTR && !hk_interrupted())
		hk_interrupt_note(pr->res.interrupted_by > 0 ? pr->res.interrupted_by : SIGTERM);
	if (hk_interrupted()) {
		if (!bo->quiet)
			fprintf(stderr, "[%s] stopped by signal %d after %.1f s\n", pname,
				hk_interrupted(), (double)pr->ms / 1000.0);
		br->interrupted = hk_interrupted();
		return stop_interrupted(b);
	}
	if (rc < 0 && !pr->res.started)
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	int stop = check_phase_cage(b, pr, pname);
	if (stop < 0)
		return stop;
	if (!bo->quiet && pr->res.timed_out)
		fprintf(stderr, "[%s] killed at the --timeout of %d s, with everything it started\n",
			pname, bo->timeout_s);
	if (!bo->quiet)
		fprintf(stderr, "[%s] exited %d after %.1f s\n", pname, pr->res.exit_code,
			(double)pr->ms / 1000.0);
	if (hk_cage_failed(&pr->res) || rc < 0)
		br->failed_phase = pname;
	return 0;
}

/* Starts recording the files the phases open (bo->observe_opens).  A watch that cannot be set
 * leaves the build as it is: only the report's converse is then not observed, and says why. */
static void watch_opens(struct build *b)
{
	struct hk_error werr;
	if (!b->bo->observe_opens || hk_reads_start(&b->reads, &b->plan, &b->inos, &werr) == 0)
		return;
	b->br->opened_note = hk_xstrdup(werr.msg);
}

/* Stops recording and keeps what was seen in the result. */
static void keep_opens(struct build *b)
{
	if (!b->reads.running)
		return;
	hk_reads_stop(&b->reads);
	struct hk_build_result *br = b->br;
	hk_strset_free(&br->opened);
	br->opened = b->reads.paths;
	b->reads.paths = (struct hk_strset)HK_STRSET_INIT;
	br->opened_observed = true;
	br->opened_incomplete = b->reads.overflow;
	br->opened_events = b->reads.events;
	hk_reads_free(&b->reads);
}

/* Every phase the recipe has, in order, until one fails. */
static int run_phases(struct build *b)
{
	for (int ph = 0; ph < HK_PHASE_COUNT && !b->br->failed_phase && !b->not_run_phase; ph++) {
		if (b->r->phases[ph].n_commands == 0)
			continue;
		if (hk_interrupted())
			return stop_interrupted(b);
		int rc = run_phase(b, (enum hk_phase)ph);
		if (rc < 0)
			return rc;
	}
	if (hk_interrupted())
		return stop_interrupted(b);
	return 0;
}

/* What /out is as an artifact: its name, version and runtime deps are the recipe's; its
 * provenance says a build made it (origin "build", core/store/store.h). */
static void output_spec(struct build *b, struct hk_artifact_spec *spec)
{
	const struct hk_recipe *r = b->r;
	if (!b->out_groups) {
		b->out_groups = hk_xcalloc(r->n_runtime_deps + 1, sizeof(*b->out_groups));
		for (size_t i = 0; i < r->n_runtime_deps; i++) {
			b->out_groups[i].alts = hk_xcalloc(1, sizeof(char *));
			b->out_groups[i].alts[0] = hk_xstrdup(r->runtime_deps[i].name
								  ? r->runtime_deps[i].name
								  : r->runtime_deps[i].spec);
			b->out_groups[i].n_alts = 1;
		}
		b->out_source = hk_xasprintf("{\"built_by\":\"harkaq build\",\"recipe_hash\":\"%s\"}",
					     b->br->recipe_hash);
	}
	*spec = (struct hk_artifact_spec){
		.name = r->name,
		.version = r->version,
		.deps = b->out_groups,
		.n_deps = r->n_runtime_deps,
		.source_json = b->out_source,
	};
}

/* Stages the install output in the store (copied, normalised, hashed: hk_store_stage) so that
 * its artifact id is known to the verdicts before they decide whether it may enter the store
 * (store_output).  The copy is made while the last phase's deallocation record is on its way,
 * and lets the work directory go before the verdicts. */
static int stage_output(struct build *b)
{
	const struct hk_recipe *r = b->r;
	struct hk_build_result *br = b->br;
	if (br->failed_phase || b->not_run_phase || r->phases[HK_PHASE_INSTALL].n_commands == 0)
		return 0;
	struct hk_artifact_spec spec;
	output_spec(b, &spec);
	if (hk_store_stage(br->store, b->out, &spec, &b->staged, br->artifact_id, b->err) < 0) {
		hk_wrap(b->err, "hashing /out");
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	return 0;
}

/* Why the staged output stays out of the store (a sentence), or NULL when it may enter: only
 * a build whose every phase is Hermetic is sealed, unless --seal-impure asks for any verdict;
 * --no-seal keeps every output out.  A store is where the diagnosis looks for providers: an
 * impure build's output would be suggested to the next build as a dep to declare. */
static char *why_not_stored(const struct build *b)
{
	const struct hk_build_result *br = b->br;
	if (b->bo->no_seal)
		return hk_xstrdup("--no-seal");
	if (b->bo->seal_impure)
		return NULL;
	if (!b->bo->cage)
		return hk_xstrdup("built without the cage, no verdict vouches for it (--seal-impure "
				  "stores it)");
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		if (!pr->has_verdict || pr->verdict.state != HK_HERMETIC)
			return hk_xasprintf("%s is %s (--seal-impure stores it)", pr->label,
					    pr->has_verdict ? hk_verdict_state_name(pr->verdict.state)
							    : "without a verdict");
	}
	return NULL;
}

/* Removes the staged output, if any (nothing of it stays in the store). */
static void discard_staged(struct build *b)
{
	if (!b->staged)
		return;
	/* Staged, it is no artifact of the store (it has no entry), but it takes room there. */
	struct hk_error rm;
	if (hk_store_remove_tree(b->staged, &rm) < 0)
		fprintf(stderr, "harkaq build: the staged output was left behind: %s\n", rm.msg);
	free(b->staged);
	b->staged = NULL;
}

/* Adds the staged output to the store, or removes it, as the verdicts allow (why_not_stored).
 * The add is all or nothing: signals wait until it is done (hk_store_add cleans its own
 * temporary directory on failure, but not if harkaq dies inside it). */
static int store_output(struct build *b)
{
	struct hk_build_result *br = b->br;
	if (!b->staged)
		return 0;
	hk_autofree char *why = hk_interrupted() ? hk_xstrdup("interrupted") : why_not_stored(b);
	if (why) {
		discard_staged(b);
		if (!b->bo->quiet)
			fprintf(stderr, "artifact   %s  not stored: %s\n", br->artifact_id, why);
		return 0;
	}
	struct hk_artifact_spec spec;
	output_spec(b, &spec);
	const struct hk_artifact *art = NULL;
	bool added = false;
	sigset_t block, saved;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &saved);
	int rc = hk_store_add(br->store, b->staged, &spec, HK_STORE_ADD_CONSUME, &art, &added,
			      b->err);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	free(b->staged);   /* consumed: moved into place, or removed by the add */
	b->staged = NULL;
	if (rc == 0 && strcmp(art->id, br->artifact_id) != 0)
		rc = hk_fail(b->err, EIO, "the staged output hashed to %s and was stored as %s",
			     br->artifact_id, art->id);
	if (rc < 0) {
		hk_wrap(b->err, "sealing /out into the store");
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	br->artifact_dir = hk_xstrdup(art->dirname);
	br->artifact_stored = true;
	if (!b->bo->quiet) {
		fprintf(stderr, "[seal] %s %s\n", art->id, added ? "(new)" : "(already in the store)");
		fprintf(stderr, "artifact   %s  %s\n", br->artifact_id, br->artifact_dir);
	}
	return 0;
}

/* store_output, timed. */
static int seal(struct build *b)
{
	long long t0 = hk_now_ms();
	int rc = store_output(b);
	step_done(b, HK_BUILD_T_SEAL, t0);
	return rc;
}

/* Unmounts the merged view and removes the work directory (unless --keep), once. */
static void release_work(struct build *b)
{
	if (b->view_mounted)
		hk_sandbox_unmount(&b->plan);
	b->view_mounted = false;
	if (b->bo->keep && b->work_made) {
		if (!b->bo->quiet)
			fprintf(stderr, "work directory kept: %s\n", b->br->work);
	} else if (b->work_made) {
		/* The build's result stands; the directory left behind is said. */
		struct hk_error rm;
		if (hk_store_remove_tree(b->br->work, &rm) < 0)
			fprintf(stderr, "harkaq build: work directory left behind: %s\n", rm.msg);
	}
	b->work_made = false;
}

/* The release (release_work) in a child, while this process awaits the last deallocation
 * records, gives the verdicts and seals: the unmount and the removal of a build tree (0.04-0.5
 * s) overlap them instead of preceding them.  The child shares the mount namespace the view
 * is mounted in; it is joined before hk_build_run returns (finish_release), so the build
 * leaves nothing behind, however it ends.  --keep, or a failed fork, releases here. */
static void start_release(struct build *b)
{
	b->t_release = hk_now_ms();
	pid_t pid = b->bo->keep ? -1 : fork();
	if (pid == 0) {
		/* Nothing of the build's but its paths: a copy of a descriptor to an audit reader
		 * would keep the reader from seeing its end, and the evidence would wait for this
		 * child. */
		close_range(3, ~0U, 0);
		release_work(b);
		_exit(0);
	}
	if (pid < 0) {
		release_work(b);
		step_done(b, HK_BUILD_T_RELEASE, b->t_release);
		return;
	}
	b->release_pid = pid;
	b->view_mounted = false;
	b->work_made = false;
	b->br->ms_steps[HK_BUILD_T_RELEASE] = hk_now_ms() - b->t_release;
}

/* Joins the release's child: the time waited for it is the release's on the build's path
 * (timings_ms.release, beside the fork). */
static void finish_release(struct build *b)
{
	if (b->release_pid <= 0)
		return;
	long long t0 = hk_now_ms();
	while (waitpid(b->release_pid, NULL, 0) < 0 && errno == EINTR)
		;
	b->release_pid = 0;
	b->br->ms_steps[HK_BUILD_T_RELEASE] += hk_now_ms() - t0;
}

/* The phases' evidence (their deallocation records, awaited together, bounded), then a
 * verdict per phase now that the artifact hash is known; returns the worst phase's outcome. */
static int give_verdicts(struct build *b)
{
	struct hk_build_result *br = b->br;
	const struct hk_build_opts *bo = b->bo;
	long long t_finish = hk_now_ms();
	hk_cage_finish(b->pending, b->n_pending);
	br->ms_evidence_finish = hk_now_ms() - t_finish;
	br->ms_steps[HK_BUILD_T_EVIDENCE_FINISH] = br->ms_evidence_finish;
	long long t_verdicts = hk_now_ms();

	enum hk_outcome outcome = HK_OUTCOME_OK;
	struct hk_suggester *sugg = bo->cage ? hk_report_build_suggester(br) : NULL;
	for (size_t i = 0; i < br->n_phases; i++) {
		struct phase_result *pr = &br->phases[i];
		const char *pname = pr->label;
		enum hk_outcome phase_outcome;
		if (bo->cage) {
			struct hk_verdict_out vo = {
				.policy = &br->plan.policy,
				.policy_id = br->plan.policy_id,
				.recipe_hash = br->recipe_hash,
				.artifact_hash = br->artifact_id[0] ? br->artifact_id : NULL,
				.phase = pname,
				.evidence_requested = !bo->no_evidence,
			};
			/* A phase not run for want of a canary nonce has its verdict already. */
			if (!pr->has_verdict)
				hk_verdict_from_run(&vo, &pr->res, &pr->verdict);
			hk_verdict_set_base(&pr->verdict, &br->plan.base);
			hk_verdict_set_deps_sealed(&pr->verdict,
						   hk_deps_sealed_word(br->deps_sealed,
								       br->plan.n_closure));
			pr->has_verdict = true;
			phase_outcome = hk_outcome_of(&pr->verdict, &pr->res);
			/* Diagnosis, evidence object (design.md §8, §10) and the report rendered from it. */
			hk_report_build_phase(sugg, br, pr, bo->quiet);
		} else {
			phase_outcome = hk_cage_failed(&pr->res) ? HK_OUTCOME_COMMAND_FAILED
								 : HK_OUTCOME_OK;
			if (!bo->quiet)
				fprintf(stderr, "%-10s no verdict (--no-cage)\n", pname);
		}
		outcome = hk_outcome_worse(outcome, phase_outcome);
	}
	hk_suggester_free(sugg);
	step_done(b, HK_BUILD_T_VERDICTS, t_verdicts);
	if (b->not_run_phase && !bo->quiet)
		fprintf(stderr, "harkaq build: phase %s was not run (no canary nonce), nor the phases "
				"after it\n", b->not_run_phase);
	if (br->failed_phase) {
		outcome = hk_outcome_worse(outcome, HK_OUTCOME_COMMAND_FAILED);
		if (!bo->quiet)
			fprintf(stderr, "harkaq build: phase %s failed; later phases were not run\n",
				br->failed_phase);
	}
	return outcome;
}

/* The steps up to the verdicts; returns 0 to go on to them, or the -errno that stops the
 * build. */
static int prepare_and_run(struct build *b)
{
	int rc;
	if ((rc = name_work(b)) || (rc = plan_build(b)))
		return rc;
	if (hk_interrupted())
		return stop_interrupted(b);
	long long t0 = hk_now_ms();
	if ((rc = make_work(b)) || (rc = mount_view_and_verify(b)))
		return rc;
	step_done(b, HK_BUILD_T_MOUNT_VERIFY, t0);
	t0 = hk_now_ms();
	if ((rc = source_ready(b)))
		return rc;
	step_done(b, HK_BUILD_T_SOURCE_WAIT, t0);
	t0 = hk_now_ms();
	if (b->bo->cage && (rc = write_policy_files(b)))
		return rc;
	step_done(b, HK_BUILD_T_POLICY_FILES, t0);
	t0 = hk_now_ms();
	if ((rc = check_binds(b)))
		return rc;
	step_done(b, HK_BUILD_T_BINDS, t0);
	print_plan(b);
	t0 = hk_now_ms();
	if ((rc = place_source(b)))
		return rc;
	step_done(b, HK_BUILD_T_SOURCE, t0);
	t0 = hk_now_ms();
	watch_opens(b);
	step_done(b, HK_BUILD_T_READS_START, t0);
	t0 = hk_now_ms();
	rc = run_phases(b);
	step_done(b, HK_BUILD_T_PHASES, t0);
	t0 = hk_now_ms();
	keep_opens(b);
	step_done(b, HK_BUILD_T_READS_STOP, t0);
	t0 = hk_now_ms();
	if (rc || (rc = stage_output(b)))
		return rc;
	step_done(b, HK_BUILD_T_STAGE, t0);
	if (b->bo->keep_out && rename(b->out, b->bo->keep_out) < 0) {
		hk_fail_errno(b->err, errno, "keeping /out as %s", b->bo->keep_out);
		return stop_at(b, HK_BUILD_STAGE_SETUP, HK_ERROR_ENVIRONMENT);
	}
	/* The work directory and the merged view are done with: removing them is real work that
	 * overlaps the kernel's delay before the last phase's deallocation record, the verdicts
	 * and the seal. */
	start_release(b);
	return 0;
}

int hk_build_run(const struct hk_build_opts *bo, struct hk_build_result *br, struct hk_error *err)
{
	memset(br, 0, sizeof(*br));
	br->cage = bo->cage;
	br->opened = (struct hk_strset)HK_STRSET_INIT;
	for (int s = 0; s < HK_BUILD_T_COUNT; s++)
		br->ms_steps[s] = -1;
	long long t_run = hk_now_ms();
	struct build b = { .bo = bo, .br = br, .err = err, .r = &br->recipe,
			   .reads = { .fd = -1, .stop = { -1, -1 } }, .inos = HK_INOS_INIT };
	int rc = open_inputs(&b);
	if (rc < 0) {
		free(b.exec_path);
		br->ms_total = hk_now_ms() - t_run;
		return rc;
	}
	step_done(&b, HK_BUILD_T_OPEN, t_run);
	/* The first phase's audit reader starts now and gets ready while the build plans, mounts,
	 * verifies and copies the source (~10 ms of start-up off the build's path).  It proves
	 * what a reader started by the phase proves: docs/audit-reader.md, "Started ahead". */
	if (bo->cage && !bo->no_evidence)
		b.reader_ahead = hk_cage_reader_start_ahead(PHASE_READER_MAY_ENABLE,
							    PHASE_READER_BACKLOG_FLOOR);
	rc = prepare_and_run(&b);
	hk_cage_reader_discard(b.reader_ahead); /* no phase ran to take it over */
	b.reader_ahead = NULL;
	/* An output whose entry into the store the verdicts do not decide (--seal-impure, as a
	 * Debian build's; --no-seal) is sealed while the last deallocation records are on their
	 * way; any other waits for the verdicts (why_not_stored). */
	bool seal_first = bo->seal_impure || bo->no_seal;
	int sealed = 0;
	if (rc == 0 && seal_first)
		sealed = seal(&b);
	if (rc == 0)
		rc = give_verdicts(&b);
	if (rc >= 0 && !seal_first)
		sealed = seal(&b);
	if (rc >= 0 && sealed < 0)
		rc = sealed;
	/* A signal that cut a step short (a source fetch killed by Ctrl-C…) is the reason the
	 * build stopped, whatever error that step then reported.  Once sealed, the artifact is
	 * whole (the seal runs with the signals blocked) and the result stands. */
	if (hk_interrupted() && !br->artifact_stored &&
	    !(rc < 0 && hk_error_class(err) == HK_ERROR_INTERRUPTED)) {
		rc = stop_interrupted(&b);
		br->interrupted = hk_interrupted();
	}
	finish_release(&b);
	if (!bo->quiet && rc >= 0)
		fprintf(stderr, "[done] %.1f s\n", (double)(hk_now_ms() - b.t_build) / 1000.0);
	release_work(&b);
	discard_staged(&b);
	if (b.out_groups)
		hk_dep_groups_free(b.out_groups, b.r->n_runtime_deps);
	free(b.out_source);
	hk_sandbox_plan_free(&b.plan);
	hk_inos_free(&b.inos);
	hk_argv_free(b.env);
	free(b.exec_path);
	free(b.src);
	free(b.out);
	free(b.stage);
	free(b.policy_path);
	free(b.collapse_path);
	br->ms_total = hk_now_ms() - t_run;
	return rc;
}
