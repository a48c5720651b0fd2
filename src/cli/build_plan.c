/* The build's plan: which store, which sandbox, and the policy derived from the recipe's
 * declared closure (design.md §9).  `harkaq build` and `harkaq policy` both derive with it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build.h"
#include "core/baseroot.h"
#include "core/deb.h"
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
			bp->fail_stage = HK_BUILD_STAGE_DEPS;
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
	if (rc < 0) {
		bp->fail_stage = HK_BUILD_STAGE_DEPS;
		return hk_wrap(err, "%s: the closure of the declared deps", where);
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
			goto free_closure;
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
		goto free_closure;
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
		goto free_closure;
	}
	hk_policy_id(&bp->policy, bp->policy_id);
	rc = hk_collapse_plan(&bp->policy, entries, n, root, &bp->collapse, &bp->collapse_stats,
			      hk_sandbox_merges_path, err);
	if (rc < 0) {
		rc = hk_wrap(err, "%s", where);
		goto free_closure;
	}
	bp->n_closure = n_closure;
	bp->closure_names = hk_xcalloc(n_closure + 1, sizeof(char *));
	for (size_t i = 0; i < n_closure; i++)
		bp->closure_names[i] = hk_xstrdup(closure[i]->dirname);
	rc = 0;
free_closure:
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

