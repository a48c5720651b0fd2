/* A store carried to machines that share no filesystem with it, as one verified bundle
 * (store_bundle.h; docs/store.md, "Bundles"; a sweep's workers, docs/sweep.md). */
#include "engine/store/store_bundle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/store/store_import.h"
#include "core/store/store.h"
#include "core/basic/util.h"

/* What export writes: the closure of the named artifacts, or every artifact. */
static int export_set(struct hk_store *s, const struct hk_strv *ids, bool all,
		      const struct hk_strv *base, const struct hk_artifact ***out, size_t *n,
		      struct hk_error *err)
{
	if (all) {
		const struct hk_artifact *const *list;
		int r = hk_store_list(s, &list, n, err);
		if (r < 0)
			return r;
		*out = hk_xcalloc(*n + 1, sizeof(**out));
		memcpy(*out, list, *n * sizeof(**out));
		return 0;
	}
	const struct hk_artifact **roots = hk_xcalloc(ids->n + 1, sizeof(*roots));
	int r = 0;
	for (size_t i = 0; r == 0 && i < ids->n; i++)
		r = hk_store_find(s, ids->v[i], &roots[i], err);
	if (r == 0)
		r = hk_store_closure(s, roots, ids->n, (const char *const *)base->v, base->n, out, n,
				     err);
	free(roots);
	return r;
}

static int write_bundle(struct hk_store *s, const struct hk_artifact **arts, size_t n,
			const char *out_path, FILE *out, struct hk_bundle_stats *st,
			struct hk_error *err)
{
	if (!out_path)
		return hk_bundle_write(s, (const struct hk_artifact *const *)arts, n, out, st, err);
	hk_autofree char *tmp = hk_xasprintf("%s.tmp-XXXXXX", out_path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return hk_fail_errno(err, errno, "creating %s", tmp);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return hk_fail_errno(err, e, "opening %s", tmp);
	}
	int r = hk_bundle_write(s, (const struct hk_artifact *const *)arts, n, f, st, err);
	if (fclose(f) != 0 && r == 0)
		r = hk_fail_errno(err, errno, "writing %s", tmp);
	if (r == 0 && chmod(tmp, 0644) < 0)
		r = hk_fail_errno(err, errno, "chmod %s", tmp);
	if (r == 0 && rename(tmp, out_path) < 0)
		r = hk_fail_errno(err, errno, "renaming %s to %s", tmp, out_path);
	if (r < 0)
		unlink(tmp);
	return r;
}

int hk_store_export(const struct hk_store_export *x, struct hk_bundle_stats *st,
		    struct hk_error *err)
{
	hk_autostrv struct hk_strv base = HK_STRV_INIT;
	for (size_t i = 0; x->base && i < x->base->n; i++)
		hk_strv_push(&base, x->base->v[i]);
	if (x->base_root && hk_base_root_names(x->base_root, &base, err) < 0)
		return -err->code;
	struct hk_store *s = NULL;
	if (hk_store_open(x->store_dir, false, &s, err) < 0)
		return -err->code;
	const struct hk_artifact **arts = NULL;
	size_t n = 0;
	int r = export_set(s, x->ids, x->all, &base, &arts, &n, err);
	if (r == 0)
		r = write_bundle(s, arts, n, x->out_path, x->out, st, err);
	free(arts);
	hk_store_close(s);
	return r;
}

int hk_store_import(const char *store_dir, FILE *in, const char *shown,
		    hk_bundle_artifact_fn on_artifact, void *ctx, struct hk_bundle_stats *st,
		    struct hk_error *err)
{
	struct hk_store *s = NULL;
	int r = hk_store_open(store_dir, true, &s, err);
	if (r == 0)
		r = hk_bundle_read(s, in, shown, on_artifact, ctx, st, err);
	if (s)
		hk_store_close(s);
	return r;
}
