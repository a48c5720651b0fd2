#include "core/policy/derive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/path.h"
#include "core/basic/util.h"

struct link_map {
	const struct hk_derive_entry **links;  /* sorted by path */
	size_t n;
};

static int cmp_entry_ptr(const void *a, const void *b)
{
	const struct hk_derive_entry *x = *(const struct hk_derive_entry *const *)a;
	const struct hk_derive_entry *y = *(const struct hk_derive_entry *const *)b;
	return strcmp(x->path, y->path);
}

static const struct hk_derive_entry *find_link(const struct link_map *m, const char *path)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m->links[mid]->path, path);
		if (c == 0)
			return m->links[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int hk_derive_policy(const struct hk_derive_input *in, struct hk_policy *p,
		     struct hk_derive_report *report, struct hk_error *err)
{
	memset(report, 0, sizeof(*report));
	report->dangling = (struct hk_strset)HK_STRSET_INIT;

	struct hk_strset files = HK_STRSET_INIT;
	struct link_map links = { hk_xcalloc(in->n_closure, sizeof(*links.links)), 0 };
	for (size_t i = 0; i < in->n_closure; i++) {
		const struct hk_derive_entry *e = &in->closure[i];
		if (e->path[0] != '/') {
			hk_strset_free(&files);
			free(links.links);
			return hk_fail(err, EINVAL, "artifact %s: path '%s' is not absolute",
				       e->artifact ? e->artifact : "?", e->path);
		}
		if (e->symlink_target)
			links.links[links.n++] = e;
		else
			hk_strset_add(&files, e->path);
	}
	qsort(links.links, links.n, sizeof(*links.links), cmp_entry_ptr);

	for (size_t i = 0; i < files.len; i++)
		hk_policy_add_grant(p, HK_GRANT_RO, files.items[i]);
	report->files = files.len;

	/* A symlink is granted with its final target when the closure provides that target.
	 * The kernel reports the target of an access, but builds open the short name: both
	 * appear (design.md §5).  Links are followed through other links of the closure. */
	for (size_t i = 0; i < links.n; i++) {
		const struct hk_derive_entry *l = links.links[i];
		char *cur = hk_path_join_normalise(l->path, l->symlink_target);
		int hops = 0;
		const struct hk_derive_entry *next;
		while ((next = find_link(&links, cur)) && hops < 40) {
			char *n2 = hk_path_join_normalise(next->path, next->symlink_target);
			free(cur);
			cur = n2;
			hops++;
		}
		if (hops < 40 && hk_strset_contains(&files, cur)) {
			hk_policy_add_grant(p, HK_GRANT_RO, l->path);
			report->symlinks++;
		} else {
			hk_strset_add(&report->dangling, l->path);
		}
		free(cur);
	}
	if (in->base_runtime) {
		for (size_t i = 0; i < in->base_runtime->len; i++)
			hk_policy_add_grant(p, HK_GRANT_RO, in->base_runtime->items[i]);
		report->base_runtime = in->base_runtime->len;
	}
	for (size_t i = 0; i < in->n_expects; i++)
		hk_policy_add_expect(p, in->expects[i]);
	p->scopes |= in->scopes;
	hk_strset_free(&files);
	free(links.links);
	hk_strset_sort(&report->dangling);
	int r = hk_policy_finish(p, err);
	if (r < 0)
		return hk_wrap(err, "deriving the policy");
	return 0;
}

void hk_derive_report_free(struct hk_derive_report *r)
{
	hk_strset_free(&r->dangling);
}

int hk_derive_add_ungranted_expects(struct hk_policy *p, const char *const *paths, size_t n,
				    size_t *added, struct hk_error *err)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (hk_policy_find_grant(p, paths[i]) || hk_policy_grants_read(p, paths[i]))
			continue;
		hk_policy_add_expect(p, paths[i]);
		kept++;
	}
	if (added)
		*added = kept;
	int r = hk_policy_finish(p, err);
	return r < 0 ? hk_wrap(err, "adding the toolchain's expectations") : 0;
}
