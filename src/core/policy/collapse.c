/* hk_collapse_plan_over(): see collapse.h for what qualifies and why.  The lower layers are
 * asked through struct hk_collapse_layers: nothing here reads the disk. */
#include "core/policy/collapse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"

struct planner {
	const struct hk_policy_grant **g;  /* grants, sorted by path */
	size_t ng;
	bool *g_present;                   /* g[i] names an existing non-directory, no link
					    * out of the closure */
	const char **v;                    /* dep entry paths, sorted */
	size_t nv;
	size_t *v_ungranted;               /* prefix sums: ungranted entries in v[0..i) */
	const char *base;                  /* base root without its trailing '/' ("" for /) */
	const char *view;                  /* the store view's tree (core/store/view.h), or NULL */
	const struct hk_collapse_layers *layers;
	bool (*merged)(const char *path);
	struct hk_strset *out;
	struct hk_collapse_stats *stats;
};

struct group {
	size_t lo, hi;        /* g[lo..hi) lie beneath the child directory */
	const char *name;     /* inside g[lo]->path */
	size_t name_len;
	bool whole;
};

static size_t lower_bound(const char *const *v, size_t n, const char *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool grant_exact(const struct planner *pl, size_t lo, size_t hi, const char *path)
{
	size_t k = lo + hk_grants_lower_bound(pl->g + lo, hi - lo, path);
	return k < hi && strcmp(pl->g[k]->path, path) == 0;
}

/* Whether the dep layers put an ungranted entry beneath dir (its prefix "dir/"). */
static bool deps_have_ungranted(const struct planner *pl, const char *dir, size_t dlen)
{
	char *key = hk_xmalloc(dlen + 2);
	memcpy(key, dir, dlen);
	key[dlen] = '/';
	key[dlen + 1] = '\0';
	size_t lo = lower_bound(pl->v, pl->nv, key);
	key[dlen] = '/' + 1;
	size_t hi = lower_bound(pl->v, pl->nv, key);
	free(key);
	return pl->v_ungranted[hi] - pl->v_ungranted[lo] > 0;
}

/* One directory of a lower layer, entry by entry (layer_part_is_granted). */
struct layer_walk {
	struct planner *pl;
	const char *dir;
	size_t dlen, lo, hi;
	const struct group *groups;
	size_t n_groups;
	struct hk_buf child;
	bool ok;
};

/* Whether one entry of the directory may lie beneath a single rule: a subdirectory that is a
 * qualifying child, or a granted non-directory. */
static bool layer_entry(void *arg, const char *name, bool is_dir)
{
	struct layer_walk *w = arg;
	size_t nl = strlen(name);
	if (is_dir) {
		const struct group *g = NULL;
		for (size_t k = 0; k < w->n_groups && !g; k++)
			if (w->groups[k].name_len == nl && memcmp(w->groups[k].name, name, nl) == 0)
				g = &w->groups[k];
		w->ok = g && g->whole;
	} else {
		w->child.len = 0;
		hk_buf_append(&w->child, w->dir, w->dlen);
		hk_buf_putc(&w->child, '/');
		hk_buf_append(&w->child, name, nl);
		w->ok = grant_exact(w->pl, w->lo, w->hi, hk_buf_str(&w->child));
	}
	return w->ok;
}

/* A lower layer's part of dir (the base root's, or the store view's): only granted
 * non-directories, and subdirectories that are qualifying children.  Absent is fine (nothing
 * of that layer shows there); what cannot be read disqualifies dir. */
static bool layer_part_is_granted(struct planner *pl, const char *layer, const char *dir,
				  size_t dlen, size_t lo, size_t hi, const struct group *groups,
				  size_t n_groups)
{
	hk_autofree char *bpath = hk_xasprintf("%s%.*s", layer, (int)dlen, dir);
	enum hk_layer_type type;
	int r = pl->layers->type(pl->layers->ctx, bpath, &type);
	if (r < 0)
		return r == -ENOENT || r == -ENOTDIR;
	if (type != HK_LAYER_DIR)
		return false;
	pl->stats->base_dirs_read++;
	struct layer_walk w = { pl, dir, dlen, lo, hi, groups, n_groups, HK_BUF_INIT, true };
	r = pl->layers->list(pl->layers->ctx, bpath, layer_entry, &w);
	hk_buf_free(&w.child);
	return r == 0 && w.ok;
}

/* Decides for the directory g[lo]->path[0..dlen) (dlen 0: the root, never collapsed itself)
 * whose grants are g[lo..hi), all beneath it.  Children are decided first: a directory with
 * a child that does not qualify cannot qualify, and its base part is not even read. */
static bool plan_dir(struct planner *pl, size_t dlen, size_t lo, size_t hi)
{
	struct group *groups = NULL;
	size_t n_groups = 0, cap = 0;
	bool direct_ok = true, children_whole = true;
	for (size_t i = lo; i < hi;) {
		const char *p = pl->g[i]->path;
		const char *name = p + dlen + 1;
		const char *slash = strchr(name, '/');
		if (!slash) {
			if (pl->g[i]->kind != HK_GRANT_RO || !pl->g_present[i])
				direct_ok = false;
			i++;
			continue;
		}
		size_t clen = (size_t)(slash - p);
		size_t j = i + 1;
		while (j < hi && strncmp(pl->g[j]->path, p, clen + 1) == 0)
			j++;
		bool whole;
		if (dlen == 0 && !pl->merged(p)) {
			whole = false; /* not a merged system directory: /proc, /dev, /tmp… */
		} else {
			whole = plan_dir(pl, clen, i, j);
		}
		if (n_groups == cap) {
			cap = cap ? cap * 2 : 8;
			groups = hk_xrealloc(groups, cap * sizeof(*groups));
		}
		groups[n_groups++] = (struct group){ i, j, name, clen - dlen - 1, whole };
		if (!whole)
			children_whole = false;
		i = j;
	}
	const char *dir = pl->g[lo]->path;
	bool whole = dlen > 0 && direct_ok && children_whole &&
		     !deps_have_ungranted(pl, dir, dlen) &&
		     layer_part_is_granted(pl, pl->base, dir, dlen, lo, hi, groups, n_groups) &&
		     (!pl->view ||
		      layer_part_is_granted(pl, pl->view, dir, dlen, lo, hi, groups, n_groups));
	if (!whole) {
		/* This directory keeps per-file rules; its qualifying children are the result. */
		for (size_t k = 0; k < n_groups; k++) {
			if (!groups[k].whole)
				continue;
			hk_strset_add_owned(pl->out, hk_xstrndup(pl->g[groups[k].lo]->path,
								   dlen + 1 + groups[k].name_len));
			pl->stats->covered += groups[k].hi - groups[k].lo;
		}
	}
	free(groups);
	return whole;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int hk_collapse_plan_over(const struct hk_collapse_layers *layers,
			  const struct hk_policy *policy, const struct hk_derive_entry *entries,
			  size_t n_entries, const char *base_root, const char *view_root,
			  struct hk_strset *out, struct hk_collapse_stats *stats,
			  bool (*merged)(const char *path), struct hk_error *err)
{
	memset(stats, 0, sizeof(*stats));
	if (!base_root || base_root[0] != '/')
		return hk_fail(err, EINVAL, "the base root must be an absolute path");
	struct planner pl = { .out = out, .stats = stats, .merged = merged, .layers = layers };
	size_t blen = strlen(base_root);
	while (blen > 0 && base_root[blen - 1] == '/')
		blen--;
	char *base = hk_xstrndup(base_root, blen);
	pl.base = base;
	pl.view = view_root;

	pl.ng = policy->n_grants;
	pl.g = hk_policy_grants_by_path(policy);

	pl.nv = n_entries;
	pl.v = hk_xcalloc(pl.nv + 1, sizeof(*pl.v));
	for (size_t i = 0; i < pl.nv; i++)
		pl.v[i] = entries[i].path;
	qsort(pl.v, pl.nv, sizeof(*pl.v), cmp_str_ptr);

	/* A dep entry is granted when the policy has an ro grant of exactly its path. */
	pl.v_ungranted = hk_xcalloc(pl.nv + 1, sizeof(*pl.v_ungranted));
	for (size_t i = 0; i < pl.nv; i++) {
		bool granted = false;
		const struct hk_policy_grant *gr = hk_policy_find_grant(policy, pl.v[i]);
		if (gr && gr->kind == HK_GRANT_RO)
			granted = true;
		pl.v_ungranted[i + 1] = pl.v_ungranted[i] + (granted ? 0 : 1);
	}
	/* A grant is present when a dep provides it (the derivation grants a dep's symlink
	 * only if its target is a closure file, itself granted), or when the base root has a
	 * regular file there (a base symlink's target may lie outside every grant, where its
	 * per-file rule, which lands on the target, would reach). */
	pl.g_present = hk_xcalloc(pl.ng + 1, sizeof(*pl.g_present));
	for (size_t i = 0; i < pl.ng; i++) {
		const char *p = pl.g[i]->path;
		size_t k = lower_bound(pl.v, pl.nv, p);
		if (k < pl.nv && strcmp(pl.v[k], p) == 0) {
			pl.g_present[i] = true;
			continue;
		}
		if (pl.g[i]->kind != HK_GRANT_RO || !merged(p))
			continue;
		hk_autofree char *bp = hk_xasprintf("%s%s", base, p);
		enum hk_layer_type type;
		pl.g_present[i] = layers->type(layers->ctx, bp, &type) == 0 &&
				  type == HK_LAYER_FILE;
	}

	if (pl.ng > 0 && pl.g[0]->path[0] == '/')
		plan_dir(&pl, 0, 0, pl.ng);
	hk_strset_sort(out);
	stats->dirs = out->len;

	free(pl.g_present);
	free(pl.v_ungranted);
	free(pl.v);
	free(pl.g);
	free(base);
	return 0;
}
