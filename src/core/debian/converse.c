/* Whether a declared package was used, through its own files or its dependencies' (converse.h). */
#include "core/debian/converse.h"

#include <string.h>

#include "core/basic/util.h"

static bool provides(const struct hk_conv_pkg *p, const char *name)
{
	for (size_t i = 0; i < p->n_provides; i++)
		if (strcmp(p->provides[i], name) == 0)
			return true;
	return false;
}

/* Marks and queues every package a dependency alternative `name` stands for: the one of that
 * name, else every one providing it (as apt and dpkg resolve a virtual name). */
static void reach_name(const struct hk_conv_pkg *pkgs, size_t n, const char *name, bool *seen,
		       size_t *queue, size_t *qn)
{
	bool real = false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(pkgs[i].name, name) == 0) {
			real = true;
			if (!seen[i]) {
				seen[i] = true;
				queue[(*qn)++] = i;
			}
		}
	for (size_t i = 0; !real && i < n; i++)
		if (!seen[i] && provides(&pkgs[i], name)) {
			seen[i] = true;
			queue[(*qn)++] = i;
		}
}

size_t hk_conv_reach(const struct hk_conv_pkg *pkgs, size_t n, const size_t *roots,
		     size_t n_roots, size_t *order)
{
	if (n == 0)
		return 0;
	bool *seen = hk_xcalloc(n, sizeof(bool));
	/* The queue holds the roots first, then what they reach: n entries at most, each
	 * package queued once. */
	size_t *queue = hk_xcalloc(n, sizeof(size_t));
	size_t qn = 0;
	for (size_t r = 0; r < n_roots; r++)
		if (roots[r] < n && !seen[roots[r]]) {
			seen[roots[r]] = true;
			queue[qn++] = roots[r];
		}
	size_t first = qn;
	for (size_t q = 0; q < qn; q++) {
		const struct hk_conv_pkg *p = &pkgs[queue[q]];
		for (size_t d = 0; d < p->n_deps; d++)
			for (size_t a = 0; a < p->deps[d].n_alts; a++)
				reach_name(pkgs, n, p->deps[d].alts[a], seen, queue, &qn);
	}
	size_t out = qn - first;
	memcpy(order, queue + first, out * sizeof(size_t));
	free(queue);
	free(seen);
	return out;
}

/* The first of `files` that was opened, or NULL. */
static const char *first_opened(const struct hk_strset *files, const struct hk_strset *opened)
{
	for (size_t i = 0; files && i < files->len; i++)
		if (hk_strset_contains(opened, files->items[i]))
			return files->items[i];
	return NULL;
}

enum hk_conv_use hk_conv_use(const struct hk_conv_pkg *pkgs, size_t n, const size_t *roots,
			     size_t n_roots, const struct hk_strset *opened,
			     struct hk_strv *through, struct hk_strv *paths)
{
	for (size_t r = 0; r < n_roots; r++)
		if (roots[r] < n && first_opened(pkgs[roots[r]].files, opened))
			return HK_CONV_OPENED;
	if (n == 0)
		return HK_CONV_NONE;
	size_t *order = hk_xcalloc(n, sizeof(size_t));
	size_t m = hk_conv_reach(pkgs, n, roots, n_roots, order);
	bool any = false;
	for (size_t i = 0; i < m; i++) {
		const char *path = first_opened(pkgs[order[i]].files, opened);
		if (!path)
			continue;
		hk_strv_push(through, pkgs[order[i]].name);
		if (paths)
			hk_strv_push(paths, path);
		any = true;
	}
	free(order);
	return any ? HK_CONV_THROUGH : HK_CONV_NONE;
}
