/* The build's plan: which store, which sandbox, and the policy derived from the recipe's
 * declared closure (design.md §9).  `harkaq build` and `harkaq policy` both derive with it. */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/build/build.h"
#include "engine/build/plan_cache.h"
#include "core/debian/base_making.h"
#include "core/store/base.h"
#include "core/root/baseroot.h"
#include "core/policy/collapse_disk.h"
#include "core/debian/deb.h"
#include "core/debian/deb_status.h"
#include "core/debian/debroot.h"
#include "core/policy/plan_record.h"
#include "core/basic/util.h"

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

static bool names_has(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Whether the base's package list has `name` at exactly `version` (a dep NAME=VERSION the
 * store lacks: a Debian build declares the base's packages so, core/debian/dsc.h). */
static bool base_has_version(const struct hk_deb_pkglist *pkgs, const char *name,
			     const char *version)
{
	for (size_t i = 0; i < pkgs->n; i++)
		if (strcmp(pkgs->items[i].name, name) == 0 &&
		    strcmp(pkgs->items[i].version, version) == 0)
			return true;
	return false;
}

/* The runtime deps of `a` that no store artifact satisfies but the base does (the names
 * hk_store_closure accepted from the base), into `out`. */
static void base_deps_of(struct hk_store *store, const struct hk_artifact *a,
			 char *const *base_names, size_t n_base, struct hk_strset *out)
{
	for (size_t g = 0; g < a->n_deps; g++) {
		const struct hk_dep_group *dg = &a->deps[g];
		bool in_store = false;
		for (size_t k = 0; k < dg->n_alts && !in_store; k++) {
			const struct hk_artifact *found;
			struct hk_error e;
			in_store = hk_store_find(store, dg->alts[k], &found, &e) != -ENOENT;
		}
		for (size_t k = 0; !in_store && k < dg->n_alts; k++)
			if (names_has(base_names, n_base, dg->alts[k]))
				hk_strset_add(out, dg->alts[k]);
	}
}

bool hk_build_base_has_package(const char *root, const char *name)
{
	hk_autofree char *status = hk_xasprintf("%s%svar/lib/dpkg/status", root,
						root[strlen(root) - 1] == '/' ? "" : "/");
	char **names = NULL;
	size_t n = 0;
	struct hk_error ignored;
	if (access(status, R_OK) != 0 || hk_deb_installed_names(status, &names, &n, &ignored) < 0)
		return false;
	bool has = names_has(names, n, name);
	names_free(names, n);
	return has;
}

/* The recipe's base: its tree, and what the policy and the evidence say of it. */
static int resolve_base(const struct hk_recipe *r, struct hk_store *store,
			struct hk_build_plan *bp, struct hk_error *err)
{
	const char *where = r->path ? r->path : "recipe";
	if (r->base_kind == HK_BASE_HOST || r->base_kind == HK_BASE_ROOT) {
		bool host = r->base_kind == HK_BASE_HOST;
		bp->base_root = hk_xstrdup(host ? "/" : r->base_root);
		bp->base.name = hk_xstrdup(host ? "host" : "root");
		hk_policy_set_base(&bp->policy, host ? "host" : "root");
		return 0;
	}
	if (!store) {
		bp->fail_stage = HK_BUILD_STAGE_DEPS;
		return hk_fail(err, ENOENT,
			       "%s:%u:%u: the base '%s' is a base of the store, and there is no "
			       "store (make one with 'harkaq store --store DIR base create %s', then "
			       "pass --store DIR or set $HARKAQ_STORE)",
			       where, r->base_pos.line, r->base_pos.col, r->base, r->base);
	}
	const struct hk_artifact *a = NULL;
	if (hk_base_find(store, r->base, &a, err) < 0) {
		bp->fail_stage = HK_BUILD_STAGE_DEPS;
		return hk_wrap(err, "%s:%u:%u: base", where, r->base_pos.line, r->base_pos.col);
	}
	struct hk_base_info info;
	if (hk_base_info_read(a, &info, err) < 0)
		return hk_wrap(err, "%s: base %s", where, r->base);
	bp->base_root = hk_xstrdup(a->path);
	bp->base.id = hk_xstrdup(a->id);
	bp->base.name = hk_xstrdup(a->name);
	bp->base.pinned = true;
	bp->base.packages = info.n_packages;
	hk_base_info_free(&info);
	hk_policy_set_base(&bp->policy, a->id);
	return 0;
}

/* The scopes every derived policy asks for (design.md §3.4). */
#define PLAN_SCOPES (HK_SCOPE_ABSTRACT_UNIX_SOCKET | HK_SCOPE_SIGNAL)

/* The closure being derived: what each step of hk_build_derive hands the next. */
struct derivation {
	const struct hk_recipe *r;
	struct hk_store *store;
	struct hk_build_plan *bp;
	struct hk_error *err;
	const char *where;                    /* the recipe, for messages */
	char **base_names;                    /* what the base's dpkg database installs */
	size_t n_base;
	struct hk_strset base_wanted;         /* base packages the closure reaches */
	const struct hk_artifact **closure;   /* store artifacts, deps first */
	size_t n_closure;
	struct hk_strset base_files;          /* the base packages' files, granted */
};

/* The names the base's dpkg database installs (its packages and what they Provide), when it
 * has one: they satisfy runtime deps (libc6 …) and may be declared by name. */
static void read_base_names(struct derivation *dv)
{
	const char *root = dv->bp->base_root;
	hk_autofree char *status = hk_xasprintf("%s%svar/lib/dpkg/status", root,
						root[strlen(root) - 1] == '/' ? "" : "/");
	struct hk_error ignored;
	if (dv->r->n_build_deps > 0 && access(status, R_OK) == 0 &&
	    hk_deb_installed_names(status, &dv->base_names, &dv->n_base, &ignored) < 0) {
		dv->base_names = NULL;
		dv->n_base = 0;
	}
}

/* Declared deps → store artifacts (or packages of the base), then their runtime closure. */
static int resolve_closure(struct derivation *dv)
{
	const struct hk_recipe *r = dv->r;
	const struct hk_artifact **roots = hk_xcalloc(r->n_build_deps + 1, sizeof(*roots));
	size_t n_roots = 0;
	int rc = 0;
	struct hk_deb_pkglist base_versions = { 0 };
	bool versions_read = false;
	struct hk_error ignored;
	for (size_t i = 0; i < r->n_build_deps && rc == 0; i++) {
		const struct hk_recipe_dep *d = &r->build_deps[i];
		rc = hk_store_find(dv->store, d->spec, &roots[n_roots], dv->err);
		if (rc == 0) {
			n_roots++;
		} else if (rc == -ENOENT && d->name && !d->version && !d->b3 &&
			   names_has(dv->base_names, dv->n_base, d->name)) {
			hk_strset_add(&dv->base_wanted, d->name);
			rc = 0;
		} else if (rc == -ENOENT && d->name && d->version && !d->b3 &&
			   (versions_read ||
			    (versions_read = hk_debroot_packages(dv->bp->base_root, &base_versions,
								 &ignored) == 0)) &&
			   base_has_version(&base_versions, d->name, d->version)) {
			hk_strset_add(&dv->base_wanted, d->name);
			rc = 0;
		} else {
			dv->bp->fail_stage = HK_BUILD_STAGE_DEPS;
			rc = hk_wrap(dv->err, "%s:%u:%u: build dep '%s' (store %s; import it with "
					      "'harkaq store import-apt NAME' or 'harkaq store add')",
				     dv->where, d->pos.line, d->pos.col, d->spec,
				     hk_store_dir(dv->store));
		}
	}
	/* No deps, empty closure: the same policy whether a store exists or not. */
	if (rc == 0 && n_roots > 0) {
		rc = hk_store_closure(dv->store, (const struct hk_artifact *const *)roots, n_roots,
				      (const char *const *)dv->base_names, dv->n_base, &dv->closure,
				      &dv->n_closure, dv->err);
		if (rc < 0) {
			dv->bp->fail_stage = HK_BUILD_STAGE_DEPS;
			hk_wrap(dv->err, "%s: the closure of the declared deps", dv->where);
		}
	}
	free(roots);
	hk_deb_pkglist_free(&base_versions);
	if (rc == 0) {
		/* The closure's runtime deps the base satisfies are granted too, file by file,
		 * from the base's own package lists: cc1 needs libz.so.1 whether zlib1g is a
		 * store artifact or a package of the base. */
		for (size_t i = 0; i < dv->n_closure; i++)
			base_deps_of(dv->store, dv->closure[i], dv->base_names, dv->n_base,
				     &dv->base_wanted);
	}
	return rc;
}

/* The files of the base packages the closure reaches (dv->base_wanted), granted. */
static int resolve_base_packages(struct derivation *dv)
{
	if (dv->base_wanted.len == 0)
		return 0;
	const char *root = dv->bp->base_root;
	struct hk_strset pkgs = HK_STRSET_INIT;
	int rc = hk_debroot_closure(root, (const char *const *)dv->base_wanted.items,
				    dv->base_wanted.len, &pkgs, dv->err);
	if (rc == 0)
		rc = hk_debroot_package_files(root, &pkgs, &dv->base_files, dv->err);
	dv->bp->n_base_packages = pkgs.len;
	hk_strset_free(&pkgs);
	if (rc < 0)
		return hk_wrap(dv->err, "%s: the base packages of the closure (base %s)", dv->where,
			       root);
	return 0;
}

/* The closure in the plan: its artifacts (kept for hk_build_collapse), their names, and the
 * layers the sandbox merges, highest priority first (a dependent over its deps: the closure
 * is deps-first). */
static void name_closure(struct derivation *dv)
{
	struct hk_build_plan *bp = dv->bp;
	size_t n = dv->n_closure;
	bp->store = dv->store;
	bp->closure = dv->closure;
	dv->closure = NULL;
	bp->n_closure = n;
	bp->closure_names = hk_xcalloc(n + 1, sizeof(char *));
	bp->layers = hk_xcalloc(n + 1, sizeof(char *));
	bp->n_layers = n;
	for (size_t i = 0; i < n; i++) {
		bp->closure_names[i] = hk_xstrdup(bp->closure[i]->dirname);
		bp->layers[n - 1 - i] = hk_xstrdup(bp->closure[i]->path);
	}
}

/* Every file and symlink of every artifact of the closure, as the sandbox sees it, into the
 * plan (entries point into the manifests' strings, which the plan keeps); *unmerged counts
 * the files the sandbox does not merge. */
static int read_entries(struct hk_build_plan *bp, size_t *unmerged, struct hk_error *err)
{
	size_t n_closure = bp->n_closure, cap = 1024;
	bp->entries_read = true;
	bp->entries = hk_xmalloc(cap * sizeof(*bp->entries));
	bp->entry_paths = hk_xcalloc(cap, sizeof(char *));
	bp->trees = hk_xcalloc(n_closure + 1, sizeof(*bp->trees));
	for (size_t i = 0; i < n_closure; i++) {
		const struct hk_artifact *a = bp->closure[i];
		bp->trees[i] = (struct hk_tree)HK_TREE_INIT;
		bp->n_trees = i + 1;
		if (hk_store_files(bp->store, a, &bp->trees[i], err) < 0)
			return hk_wrap(err, "artifact %s", a->dirname);
		for (size_t k = 0; k < bp->trees[i].n; k++) {
			const struct hk_tree_entry *e = &bp->trees[i].entries[k];
			if (e->type == HK_TREE_DIR)
				continue;
			/* Not merged into the sandbox (a dep's /var): nothing to grant. */
			if (!hk_sandbox_merges_path(e->path)) {
				(*unmerged)++;
				continue;
			}
			if (bp->n_entries == cap) {
				cap *= 2;
				bp->entries = hk_xrealloc(bp->entries, cap * sizeof(*bp->entries));
				bp->entry_paths = hk_xrealloc(bp->entry_paths, cap * sizeof(char *));
			}
			char *path = hk_xasprintf("/%s", e->path);
			bp->entry_paths[bp->n_entries] = path;
			bp->entries[bp->n_entries++] = (struct hk_derive_entry){
				.path = path,
				.symlink_target = e->type == HK_TREE_SYMLINK ? e->target : NULL,
				.artifact = a->dirname,
			};
		}
	}
	return 0;
}

/* The policy: the sandbox's contract, the closure's entries, the base runtime and the base
 * packages' files, the recipe's expectations; then its id. */
static int derive_policy(struct derivation *dv, const char *profile,
			 const struct hk_sandbox *sandbox)
{
	struct hk_build_plan *bp = dv->bp;
	const char *root = bp->base_root;
	struct hk_strset base = HK_STRSET_INIT;
	int rc = hk_base_runtime(root, profile, &base, dv->err);
	if (rc < 0) {
		hk_strset_free(&base);
		return hk_wrap(dv->err, "the base runtime (profile %s, root %s)", profile, root);
	}
	hk_strset_add_all(&base, &dv->base_files);
	hk_sandbox_contract(sandbox, &bp->policy);
	struct hk_derive_input in = {
		.closure = bp->entries,
		.n_closure = bp->n_entries,
		.base_runtime = &base,
		.expects = (const char *const *)dv->r->expects,
		.n_expects = dv->r->n_expects,
		.scopes = PLAN_SCOPES,
	};
	rc = hk_derive_policy(&in, &bp->policy, &bp->report, dv->err);
	hk_strset_free(&base);
	if (rc < 0)
		return hk_wrap(dv->err, "%s", dv->where);
	hk_policy_id(&bp->policy, bp->policy_id);
	return 0;
}

/* The key of this derivation (core/policy/plan_record.h), into bp->plan_key: every input of what
 * follows the closure's resolution.  Nothing is kept for an unpinned base (its tree has no
 * id), nor by a program without build ids. */
static void plan_key(struct derivation *dv, const char *profile, const struct hk_sandbox *sandbox)
{
	struct hk_build_plan *bp = dv->bp;
	const char *code = hk_plan_cache_code_id();
	if (!bp->base.pinned || !bp->base.id || !dv->store || !code)
		return;
	struct hk_policy contract = HK_POLICY_INIT;
	struct hk_error ignored;
	hk_sandbox_contract(sandbox, &contract);
	if (hk_policy_finish(&contract, &ignored) == 0) {
		struct hk_plan_key_input in = {
			.code_id = code,
			.base_id = bp->base.id,
			.profile = profile,
			.closure = (const char *const *)bp->closure_names,
			.n_closure = bp->n_closure,
			.base_wanted = (const char *const *)dv->base_wanted.items,
			.n_base_wanted = dv->base_wanted.len,
			.contract = &contract,
			.expects = (const char *const *)dv->r->expects,
			.n_expects = dv->r->n_expects,
			.scopes = PLAN_SCOPES,
		};
		hk_plan_key(&in, bp->plan_key);
	}
	hk_policy_free(&contract);
}

/* The kept derivation, when there is one that passes its checks: true, the plan filled. */
static bool read_kept_policy(struct hk_build_plan *bp)
{
	struct hk_buf text = HK_BUF_INIT;
	hk_autofree char *path = NULL;
	int rc = hk_plan_cache_read(bp->store, HK_PLAN_CACHE_POLICY, bp->plan_key, &text, &path);
	if (rc < 0) {
		hk_buf_free(&text);
		bp->policy_kept = HK_PLAN_KEPT_MISS;
		return false;
	}
	struct hk_plan_record rec;
	struct hk_error ignored;
	rc = hk_plan_record_decode(text.data, text.len, bp->plan_key, path, &rec, &ignored);
	hk_buf_free(&text);
	if (rc == 0 && (rec.n_closure != bp->n_closure || !rec.policy.base ||
			strcmp(rec.policy.base, bp->base.id) != 0)) {
		hk_plan_record_free(&rec);
		rc = -EBADMSG;
	}
	if (rc < 0) {
		bp->policy_kept = HK_PLAN_KEPT_DAMAGED;
		return false;
	}
	hk_policy_free(&bp->policy);
	bp->policy = rec.policy;
	memcpy(bp->policy_id, rec.policy_id, sizeof(bp->policy_id));
	hk_derive_report_free(&bp->report);
	bp->report = rec.report;
	bp->n_base_packages = rec.n_base_packages;
	bp->n_unmerged = rec.n_unmerged;
	bp->policy_kept = HK_PLAN_KEPT_HIT;
	return true;
}

/* Keeps the derivation just made under bp->plan_key. */
static void keep_policy(const struct hk_build_plan *bp)
{
	struct hk_plan_record rec = {
		.policy = bp->policy,
		.report = bp->report,
		.n_closure = bp->n_closure,
		.n_base_packages = bp->n_base_packages,
		.n_unmerged = bp->n_unmerged,
	};
	memcpy(rec.policy_id, bp->policy_id, sizeof(rec.policy_id));
	struct hk_buf text = HK_BUF_INIT;
	hk_plan_record_encode(&rec, bp->plan_key, &text);
	hk_plan_cache_write(bp->store, HK_PLAN_CACHE_POLICY, bp->plan_key, &text);
	hk_buf_free(&text);
}

static int derive(const struct hk_recipe *r, struct hk_store *store, const char *profile,
		  const struct hk_sandbox *sandbox, bool kept, struct hk_build_plan *bp,
		  struct hk_error *err)
{
	memset(bp, 0, sizeof(*bp));
	bp->policy = (struct hk_policy)HK_POLICY_INIT;
	bp->collapse = (struct hk_strset)HK_STRSET_INIT;
	bp->report.dangling = (struct hk_strset)HK_STRSET_INIT;
	struct derivation dv = {
		.r = r, .store = store, .bp = bp, .err = err,
		.where = r->path ? r->path : "recipe",
		.base_wanted = HK_STRSET_INIT, .base_files = HK_STRSET_INIT,
	};
	int rc = resolve_base(r, store, bp, err);
	if (rc < 0)
		return rc;
	read_base_names(&dv);
	rc = resolve_closure(&dv);
	if (rc == 0) {
		name_closure(&dv);
		if (kept)
			plan_key(&dv, profile, sandbox);
	}
	if (rc == 0 && (!bp->plan_key[0] || !read_kept_policy(bp))) {
		rc = resolve_base_packages(&dv);
		if (rc == 0)
			rc = read_entries(bp, &bp->n_unmerged, err);
		if (rc == 0)
			rc = derive_policy(&dv, profile, sandbox);
		if (rc == 0 && bp->plan_key[0])
			keep_policy(bp);
	}
	names_free(dv.base_names, dv.n_base);
	hk_strset_free(&dv.base_wanted);
	hk_strset_free(&dv.base_files);
	free(dv.closure);
	return rc;
}

int hk_build_derive(const struct hk_recipe *r, struct hk_store *store, const char *profile,
		    const struct hk_sandbox *sandbox, struct hk_build_plan *bp, struct hk_error *err)
{
	return derive(r, store, profile, sandbox, false, bp, err);
}

int hk_build_derive_kept(const struct hk_recipe *r, struct hk_store *store, const char *profile,
			 const struct hk_sandbox *sandbox, struct hk_build_plan *bp,
			 struct hk_error *err)
{
	return derive(r, store, profile, sandbox, true, bp, err);
}

const char *hk_plan_kept_name(enum hk_plan_kept k)
{
	switch (k) {
	case HK_PLAN_KEPT_OFF: return "off";
	case HK_PLAN_KEPT_MISS: return "miss";
	case HK_PLAN_KEPT_HIT: return "hit";
	case HK_PLAN_KEPT_DAMAGED: return "damaged";
	}
	return "?";
}

/* The kept collapse plan under `key`, when there is one that passes its checks. */
static bool read_kept_collapse(struct hk_build_plan *bp, const char *key)
{
	struct hk_buf text = HK_BUF_INIT;
	hk_autofree char *path = NULL;
	int rc = hk_plan_cache_read(bp->store, HK_PLAN_CACHE_COLLAPSE, key, &text, &path);
	if (rc < 0) {
		hk_buf_free(&text);
		bp->collapse_kept = HK_PLAN_KEPT_MISS;
		return false;
	}
	struct hk_error ignored;
	rc = hk_collapse_record_decode(text.data, text.len, key, path, &bp->collapse,
				       &bp->collapse_stats, &ignored);
	hk_buf_free(&text);
	bp->collapse_kept = rc == 0 ? HK_PLAN_KEPT_HIT : HK_PLAN_KEPT_DAMAGED;
	return rc == 0;
}

int hk_build_collapse(struct hk_build_plan *bp, const char *view_root, const char *view_id,
		      struct hk_error *err)
{
	hk_strset_free(&bp->collapse);
	bp->collapse = (struct hk_strset)HK_STRSET_INIT;
	char key[HK_B3_ID_LEN] = "";
	if (bp->plan_key[0]) {
		hk_plan_collapse_key(hk_plan_cache_code_id(), bp->plan_key, bp->policy_id, view_id,
				     key);
		if (read_kept_collapse(bp, key))
			return 0;
	}
	/* A kept policy left the closure's manifests unread: the planner needs them. */
	size_t unmerged = 0;
	if (!bp->entries_read) {
		int rc = read_entries(bp, &unmerged, err);
		if (rc < 0)
			return rc;
	}
	int rc = hk_collapse_plan(&bp->policy, bp->entries, bp->n_entries, bp->base_root, view_root,
				  &bp->collapse, &bp->collapse_stats, hk_sandbox_merges_path, err);
	if (rc == 0 && key[0]) {
		struct hk_buf text = HK_BUF_INIT;
		hk_collapse_record_encode(&bp->collapse, &bp->collapse_stats, key, &text);
		hk_plan_cache_write(bp->store, HK_PLAN_CACHE_COLLAPSE, key, &text);
		hk_buf_free(&text);
	}
	return rc;
}

void hk_build_plan_free(struct hk_build_plan *bp)
{
	hk_policy_free(&bp->policy);
	for (size_t i = 0; i < bp->n_trees; i++)
		hk_tree_free(&bp->trees[i]);
	free(bp->trees);
	for (size_t i = 0; i < bp->n_entries; i++)
		free(bp->entry_paths[i]);
	free(bp->entry_paths);
	free(bp->entries);
	free(bp->base_root);
	free(bp->base.id);
	free(bp->base.name);
	free(bp->base.view);
	hk_derive_report_free(&bp->report);
	for (size_t i = 0; i < bp->n_layers; i++)
		free(bp->layers[i]);
	free(bp->layers);
	for (size_t i = 0; i < bp->n_closure; i++)
		free(bp->closure_names[i]);
	free(bp->closure_names);
	hk_strset_free(&bp->collapse);
	free(bp->closure);
	memset(bp, 0, sizeof(*bp));
}


/* `s` with glob's special characters escaped: a root is a literal directory. */
static void glob_escape(const char *s, struct hk_buf *out)
{
	for (; *s; s++) {
		if (strchr("*?[\\", *s))
			hk_buf_putc(out, '\\');
		hk_buf_putc(out, *s);
	}
}

void hk_build_expand_expects(const struct hk_expect_set *set, const char *const *roots,
			     size_t n_roots, struct hk_strset *out)
{
	for (size_t i = 0; set && i < set->n; i++) {
		const char *pat = set->e[i].pattern;
		if (!hk_expect_is_glob(pat)) {
			hk_strset_add(out, pat);
			continue;
		}
		for (size_t k = 0; k < n_roots; k++) {
			const char *root = roots[k];
			size_t rl = strlen(root);
			while (rl > 0 && root[rl - 1] == '/')
				rl--;
			hk_autofree char *r = hk_xstrndup(root, rl);
			struct hk_buf g = HK_BUF_INIT;
			glob_escape(r, &g);
			hk_buf_puts(&g, pat);
			glob_t gl;
			if (glob(hk_buf_str(&g), 0, NULL, &gl) == 0) {
				for (size_t m = 0; m < gl.gl_pathc; m++)
					hk_strset_add(out, gl.gl_pathv[m] + rl);
			}
			globfree(&gl);
			hk_buf_free(&g);
		}
	}
	hk_strset_sort(out);
}
