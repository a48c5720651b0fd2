/* The build's plan: which store, which sandbox, and the policy derived from the recipe's
 * declared closure (design.md §9).  `harkaq build` and `harkaq policy` both derive with it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build.h"
#include "core/base.h"
#include "core/baseroot.h"
#include "core/deb.h"
#include "core/debroot.h"
#include "core/util.h"

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
 * store lacks: a Debian build declares the base's packages so, core/dsc.h). */
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

int hk_build_derive(const struct hk_recipe *r, struct hk_store *store, const char *profile,
		    const struct hk_sandbox *sandbox, struct hk_build_plan *bp, struct hk_error *err)
{
	memset(bp, 0, sizeof(*bp));
	bp->policy = (struct hk_policy)HK_POLICY_INIT;
	bp->collapse = (struct hk_strset)HK_STRSET_INIT;
	const char *where = r->path ? r->path : "recipe";
	int brc = resolve_base(r, store, bp, err);
	if (brc < 0)
		return brc;

	/* The base root's own packages (its dpkg database, when it has one) satisfy runtime
	 * deps (libc6 …) and may be declared by name: the base ships them. */
	char **base_names = NULL;
	size_t n_base = 0;
	const char *root = bp->base_root;
	char *status = hk_xasprintf("%s%svar/lib/dpkg/status", root,
				    root[strlen(root) - 1] == '/' ? "" : "/");
	struct hk_error ignored;
	if (r->n_build_deps > 0 && access(status, R_OK) == 0 &&
	    hk_deb_installed_names(status, &base_names, &n_base, &ignored) < 0) {
		base_names = NULL;
		n_base = 0;
	}
	free(status);
	struct hk_strset base_wanted = HK_STRSET_INIT;
	struct hk_deb_pkglist base_pkgs_versions = { 0 };
	bool versions_read = false;

	/* Declared deps → store artifacts, or packages of the base. */
	const struct hk_artifact **roots = hk_xcalloc(r->n_build_deps + 1, sizeof(*roots));
	size_t n_roots = 0;
	int rc = 0;
	for (size_t i = 0; i < r->n_build_deps && rc == 0; i++) {
		const struct hk_recipe_dep *d = &r->build_deps[i];
		rc = hk_store_find(store, d->spec, &roots[n_roots], err);
		if (rc == 0) {
			n_roots++;
		} else if (rc == -ENOENT && d->name && !d->version && !d->b3 &&
			   names_has(base_names, n_base, d->name)) {
			hk_strset_add(&base_wanted, d->name);
			rc = 0;
		} else if (rc == -ENOENT && d->name && d->version && !d->b3 &&
			   (versions_read ||
			    (versions_read = hk_debroot_packages(root, &base_pkgs_versions,
								 &ignored) == 0)) &&
			   base_has_version(&base_pkgs_versions, d->name, d->version)) {
			hk_strset_add(&base_wanted, d->name);
			rc = 0;
		} else {
			bp->fail_stage = HK_BUILD_STAGE_DEPS;
			rc = hk_wrap(err, "%s:%u:%u: build dep '%s' (store %s; import it with "
					  "'harkaq store import-apt NAME' or 'harkaq store add')",
				     where, d->pos.line, d->pos.col, d->spec, hk_store_dir(store));
		}
	}
	const struct hk_artifact **closure = NULL;
	size_t n_closure = 0;
	bool closure_failed = false;
	/* No deps, empty closure: the same policy whether a store exists or not. */
	if (rc == 0 && n_roots > 0) {
		rc = hk_store_closure(store, (const struct hk_artifact *const *)roots, n_roots,
				      (const char *const *)base_names, n_base, &closure, &n_closure,
				      err);
		closure_failed = rc < 0;
	}
	free(roots);
	hk_deb_pkglist_free(&base_pkgs_versions);
	if (rc < 0) {
		if (closure_failed) {
			bp->fail_stage = HK_BUILD_STAGE_DEPS;
			hk_wrap(err, "%s: the closure of the declared deps", where);
		}
		names_free(base_names, n_base);
		hk_strset_free(&base_wanted);
		return rc;
	}
	/* The closure's runtime deps the base satisfies are granted too, file by file, from the
	 * base's own package lists: cc1 needs libz.so.1 whether zlib1g is a store artifact or a
	 * package of the base. */
	for (size_t i = 0; i < n_closure; i++)
		base_deps_of(store, closure[i], base_names, n_base, &base_wanted);
	names_free(base_names, n_base);
	struct hk_strset base_pkgs = HK_STRSET_INIT, base_files = HK_STRSET_INIT;
	if (base_wanted.len > 0) {
		rc = hk_debroot_closure(root, (const char *const *)base_wanted.items, base_wanted.len,
					&base_pkgs, err);
		if (rc == 0)
			rc = hk_debroot_package_files(root, &base_pkgs, &base_files, err);
	}
	bp->n_base_packages = base_pkgs.len;
	hk_strset_free(&base_wanted);
	hk_strset_free(&base_pkgs);
	if (rc < 0) {
		hk_strset_free(&base_files);
		free(closure);
		return hk_wrap(err, "%s: the base packages of the closure (base %s)", where, root);
	}

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
	hk_strset_add_all(&base, &base_files);
	hk_strset_free(&base_files);
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
	bp->n_closure = n_closure;
	bp->closure_names = hk_xcalloc(n_closure + 1, sizeof(char *));
	for (size_t i = 0; i < n_closure; i++)
		bp->closure_names[i] = hk_xstrdup(closure[i]->dirname);
	/* The entries point into the trees' strings (symlink targets): kept for the collapse
	 * plan, which comes once the store view is known. */
	bp->entries = entries;
	bp->n_entries = n;
	bp->entry_paths = paths;
	entries = NULL;
	paths = NULL;
	n_paths = 0;
	bp->trees = trees;
	bp->n_trees = n_closure;
	trees = NULL;
	rc = 0;
out:
	for (size_t i = 0; trees && i < n_closure; i++)
		hk_tree_free(&trees[i]);
	free(trees);
	for (size_t i = 0; i < n_paths; i++)
		free(paths[i]);
	free(paths);
	free(entries);
	free(closure);
	return rc;
}

int hk_build_collapse(struct hk_build_plan *bp, const char *view_root, struct hk_error *err)
{
	hk_strset_free(&bp->collapse);
	bp->collapse = (struct hk_strset)HK_STRSET_INIT;
	return hk_collapse_plan(&bp->policy, bp->entries, bp->n_entries, bp->base_root, view_root,
				&bp->collapse, &bp->collapse_stats, hk_sandbox_merges_path, err);
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
	memset(bp, 0, sizeof(*bp));
}

