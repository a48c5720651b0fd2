/* The diagnosis' source over a store and a base root on disk (engine/store/suggest_source.h). */
#include "engine/store/suggest_source.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/debian/debroot.h"
#include "core/basic/util.h"

struct disk_source {
	struct hk_store *store;          /* borrowed; NULL: no store */
	char *base_root;                 /* owned; NULL: no pinned base */
	bool base_loaded;
	struct hk_debroot_owners owners; /* the base's path -> packages */
	struct hk_deb_pkglist pkgs;      /* its installed packages, with their versions */
};

static int artifacts(void *ctx, const struct hk_artifact *const **arts, size_t *n,
		     struct hk_error *err)
{
	struct disk_source *d = ctx;
	return hk_store_list(d->store, arts, n, err);
}

static int files(void *ctx, const struct hk_artifact *a, struct hk_tree *out,
		 struct hk_error *err)
{
	struct disk_source *d = ctx;
	return hk_store_files(d->store, a, out, err);
}

static int providers(void *ctx, const char *path, const struct hk_artifact ***out, size_t *n,
		     struct hk_error *err)
{
	struct disk_source *d = ctx;
	return hk_store_providers(d->store, path, out, n, err);
}

static int find(void *ctx, const char *query, const struct hk_artifact **out,
		struct hk_error *err)
{
	struct disk_source *d = ctx;
	return hk_store_find(d->store, query, out, err);
}

/* The base's database, read once: a build asks about many paths, a sweep about thousands. */
static int load_base(struct disk_source *d, struct hk_error *err)
{
	if (d->base_loaded)
		return 0;
	int r = hk_debroot_owners_load(d->base_root, &d->owners, err);
	if (r == 0)
		r = hk_debroot_packages(d->base_root, &d->pkgs, err);
	if (r < 0) {
		hk_debroot_owners_free(&d->owners);
		hk_deb_pkglist_free(&d->pkgs);
		return r;
	}
	d->base_loaded = true;
	return 0;
}

static int base_owners(void *ctx, const char *path, const char **owners, struct hk_error *err)
{
	struct disk_source *d = ctx;
	*owners = NULL;
	int r = load_base(d, err);
	if (r < 0)
		return r;
	*owners = hk_debroot_owner(&d->owners, path);
	return 0;
}

static const char *base_version(void *ctx, const char *name)
{
	const struct disk_source *d = ctx;
	for (size_t i = 0; d->base_loaded && i < d->pkgs.n; i++)
		if (strcmp(d->pkgs.items[i].name, name) == 0)
			return d->pkgs.items[i].version;
	return "";
}

static bool base_ships(void *ctx, const char *path)
{
	const struct disk_source *d = ctx;
	hk_autofree char *p = hk_xasprintf("%s%s", d->base_root, path);
	struct stat st;
	return lstat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

static void release(void *ctx)
{
	struct disk_source *d = ctx;
	hk_debroot_owners_free(&d->owners);
	hk_deb_pkglist_free(&d->pkgs);
	free(d->base_root);
	free(d);
}

struct hk_suggest_source hk_suggest_source_disk(struct hk_store *store, const char *base_root)
{
	struct disk_source *d = hk_xcalloc(1, sizeof(*d));
	d->store = store;
	d->base_root = base_root ? hk_xstrdup(base_root) : NULL;
	struct hk_suggest_source src = { .ctx = d, .release = release };
	if (store) {
		src.artifacts = artifacts;
		src.files = files;
		src.providers = providers;
		src.find = find;
	}
	if (base_root) {
		src.base_owners = base_owners;
		src.base_version = base_version;
		src.base_ships = base_ships;
	}
	return src;
}
