/* The converse of a missing Build-Depends (build_dsc.h): the used Build-Depends none of whose
 * files the build opened, from the opens fanotify saw (engine/cage/reads.h). */
#include <string.h>

#include "engine/debian/dsc_int.h"
#include "core/debian/converse.h"
#include "core/debian/debroot.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

/* The sandbox paths of the files the declared package `name` ships: its closure artifact's,
 * or the base's own (core/debian/debroot.h). */
static int package_files(const struct hk_dsc_result *r, const char *name, struct hk_strset *out,
			 struct hk_error *err)
{
	for (size_t i = 0; i < r->n_closure; i++) {
		if (strcmp(r->closure[i].name, name) != 0)
			continue;
		const struct hk_artifact *a;
		if (hk_store_find(r->build.store, r->closure[i].id, &a, err) < 0)
			return -err->code;
		struct hk_tree t = HK_TREE_INIT;
		int rc = hk_store_files(r->build.store, a, &t, err);
		for (size_t k = 0; rc == 0 && k < t.n; k++)
			if (t.entries[k].type == HK_TREE_FILE)
				hk_strset_add_owned(out, hk_xasprintf("/%s", t.entries[k].path));
		hk_tree_free(&t);
		return rc;
	}
	struct hk_strset one = HK_STRSET_INIT;
	hk_strset_add(&one, name);
	int rc = hk_debroot_package_files(r->build.plan.base_root, &one, out, err);
	hk_strset_free(&one);
	return rc;
}

/* The declared packages an alternative `name` stands for: the closure's or the base's package
 * of that name, else those providing it. */
static void declared_for(struct dsc_build *b, const char *name, struct hk_strv *out)
{
	const struct hk_dsc_result *r = b->r;
	for (size_t i = 0; i < r->n_closure; i++)
		if (strcmp(r->closure[i].name, name) == 0) {
			hk_strv_push(out, name);
			return;
		}
	bool virtual_;
	const struct hk_deb_stanza *st = dsc_base_pkg(b, name, &virtual_);
	if (st && !virtual_) {
		hk_strv_push(out, name);
		return;
	}
	for (size_t i = 0; i < r->n_closure; i++) {
		const struct hk_artifact *a;
		struct hk_error e;
		if (hk_store_find(r->build.store, r->closure[i].id, &a, &e) < 0)
			continue;
		for (size_t k = 0; k < a->n_provides; k++)
			if (strcmp(a->provides[k], name) == 0)
				hk_strv_push(out, r->closure[i].name);
	}
	if (out->n == 0 && st)
		hk_strv_push(out, hk_deb_field(st, "Package"));
}


/* The packages the converse looks through (core/debian/converse.h): the closure apt added to the base
 * for this build, then the base's declared packages a group stands for.  Each package's files
 * are loaded once, when a decision needs them. */
struct conv_table {
	struct hk_conv_pkg *p;
	struct hk_strset *files;
	bool *loaded;
	size_t n, cap;
	struct hk_strv names;       /* the base packages' names, which the table borrows */
};

static size_t table_add(struct conv_table *t, const char *name, const struct hk_artifact *a)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->p = hk_xrealloc(t->p, t->cap * sizeof(*t->p));
		t->files = hk_xrealloc(t->files, t->cap * sizeof(*t->files));
		t->loaded = hk_xrealloc(t->loaded, t->cap * sizeof(*t->loaded));
	}
	t->p[t->n] = (struct hk_conv_pkg){ .name = name };
	if (a) {
		t->p[t->n].deps = a->deps;
		t->p[t->n].n_deps = a->n_deps;
		t->p[t->n].provides = (const char *const *)a->provides;
		t->p[t->n].n_provides = a->n_provides;
	}
	t->files[t->n] = (struct hk_strset)HK_STRSET_INIT;
	t->loaded[t->n] = false;
	return t->n++;
}

static void table_free(struct conv_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		hk_strset_free(&t->files[i]);
	hk_strv_free(&t->names);
	free(t->p);
	free(t->files);
	free(t->loaded);
}

/* The closure's packages, with their Depends, Pre-Depends and Provides as the store recorded
 * them from the .debs. */
static int table_init(const struct hk_dsc_result *r, struct conv_table *t, struct hk_error *err)
{
	for (size_t i = 0; i < r->n_closure; i++) {
		const struct hk_artifact *a;
		if (hk_store_find(r->build.store, r->closure[i].id, &a, err) < 0)
			return -err->code;
		table_add(t, r->closure[i].name, a);
	}
	return 0;
}

static size_t table_index(struct conv_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->p[i].name, name) == 0)
			return i;
	/* A base package: its dependencies are the base's, outside what this build added.  It
	 * stays in the table for its own group only (table_truncate): reachable from another
	 * group's packages, perl or libc6 would make every one look used. */
	hk_strv_push(&t->names, name);
	return table_add(t, t->names.v[t->names.n - 1], NULL);
}

static void table_truncate(struct conv_table *t, size_t n)
{
	for (size_t i = n; i < t->n; i++)
		hk_strset_free(&t->files[i]);
	t->n = n;
}

static int table_load(const struct hk_dsc_result *r, struct conv_table *t, size_t i,
		      struct hk_error *err)
{
	if (t->loaded[i])
		return 0;
	int rc = package_files(r, t->p[i].name, &t->files[i], err);
	if (rc == 0)
		t->loaded[i] = true;
	return rc;
}

/* Every used Build-Depends group whose declared packages had no file of their own opened:
 * none opened, or used through their dependency closure (core/debian/converse.h). */
int dsc_find_unread(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const struct hk_strset *opened = &r->build.opened;
	struct conv_table t = { .names = HK_STRV_INIT };
	int rc = table_init(r, &t, b->err);
	size_t n_closure = t.n;
	for (size_t f = 0; rc == 0 && f < HK_DSC_BUILD_CONFLICTS; f++) {
		for (size_t g = 0; rc == 0 && g < b->n_groups[f]; g++) {
			hk_autostrv struct hk_strv pkgs = HK_STRV_INIT;
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				declared_for(b, b->groups[f][g].alts[k].name, &pkgs);
			hk_strv_sort_unique(&pkgs);
			if (pkgs.n == 0)
				continue;
			r->n_groups_checked++;
			size_t *roots = hk_xcalloc(pkgs.n, sizeof(size_t));
			for (size_t k = 0; k < pkgs.n; k++)
				roots[k] = table_index(&t, pkgs.v[k]);
			/* The table is complete for this group: its files may now be loaded and
			 * pointed at. */
			for (size_t k = 0; rc == 0 && k < pkgs.n; k++)
				rc = table_load(r, &t, roots[k], b->err);
			size_t *order = hk_xcalloc(t.n, sizeof(size_t));
			size_t m = rc == 0 ? hk_conv_reach(t.p, t.n, roots, pkgs.n, order) : 0;
			for (size_t k = 0; rc == 0 && k < m; k++)
				rc = table_load(r, &t, order[k], b->err);
			free(order);
			for (size_t i = 0; i < t.n; i++)
				t.p[i].files = t.loaded[i] ? &t.files[i] : NULL;
			hk_autostrv struct hk_strv through = HK_STRV_INIT;
			hk_autostrv struct hk_strv paths = HK_STRV_INIT;
			enum hk_conv_use use = rc == 0 ? hk_conv_use(t.p, t.n, roots, pkgs.n, opened,
								      &through, &paths)
						       : HK_CONV_OPENED;
			free(roots);
			table_truncate(&t, n_closure);
			if (use == HK_CONV_OPENED)
				continue;
			r->unread = hk_xrealloc(r->unread, (r->n_unread + 1) * sizeof(*r->unread));
			struct hk_dsc_unread *u = &r->unread[r->n_unread++];
			struct hk_buf gt = HK_BUF_INIT, pt = HK_BUF_INIT;
			hk_deb_relations_text(&b->groups[f][g], 1, &gt);
			for (size_t k = 0; k < pkgs.n; k++)
				hk_buf_printf(&pt, "%s%s", k ? ", " : "", pkgs.v[k]);
			u->field = hk_xstrdup(hk_dsc_field_name(f));
			u->group = hk_buf_steal(&gt);
			u->packages = hk_buf_steal(&pt);
			u->n_through = through.n;
			u->through = use == HK_CONV_THROUGH ? hk_strv_steal(&through) : NULL;
			u->through_paths = use == HK_CONV_THROUGH ? hk_strv_steal(&paths) : NULL;
		}
	}
	table_free(&t);
	return rc;
}
