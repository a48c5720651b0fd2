/* The converse of a missing Build-Depends (build_dsc.h): the used Build-Depends none of whose
 * files the build opened, from the opens fanotify saw (cli/reads.h). */
#include <string.h>

#include "cli/dsc_int.h"
#include "core/debroot.h"
#include "core/strset.h"
#include "core/strv.h"
#include "core/tree.h"
#include "core/util.h"

/* The sandbox paths of the files the declared package `name` ships: its closure artifact's,
 * or the base's own (core/debroot.h). */
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

static bool any_opened(const struct hk_strset *files, const struct hk_strset *opened)
{
	for (size_t i = 0; i < files->len; i++)
		if (hk_strset_contains(opened, files->items[i]))
			return true;
	return false;
}

/* Whether every phase ran and succeeded: a Build-Depends of a phase that never ran would read
 * as unread. */
bool dsc_completed(const struct hk_build_result *br)
{
	if (br->n_phases == 0 || br->failed_phase || !br->artifact_id[0])
		return false;
	for (size_t i = 0; i < br->n_phases; i++)
		if (br->phases[i].res.exit_code != 0)
			return false;
	return true;
}

/* The used Build-Depends groups none of whose declared packages had a file opened, each with
 * its packages' direct dependencies that had (a transitional package is read through them). */
int dsc_find_unread(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const struct hk_strset *opened = &r->build.opened;
	int rc = 0;
	for (size_t f = 0; rc == 0 && f < HK_DSC_BUILD_CONFLICTS; f++) {
		for (size_t g = 0; rc == 0 && g < b->n_groups[f]; g++) {
			hk_autostrv struct hk_strv pkgs = HK_STRV_INIT;
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				declared_for(b, b->groups[f][g].alts[k].name, &pkgs);
			hk_strv_sort_unique(&pkgs);
			if (pkgs.n == 0)
				continue;
			r->n_groups_checked++;
			struct hk_strset files = HK_STRSET_INIT;
			for (size_t k = 0; rc == 0 && k < pkgs.n; k++)
				rc = package_files(r, pkgs.v[k], &files, b->err);
			bool read = rc == 0 && any_opened(&files, opened);
			size_t content = 0;
			for (size_t k = 0; k < files.len; k++)
				content += strncmp(files.items[k], "/usr/share/doc/", 15) != 0;
			hk_strset_free(&files);
			if (rc < 0 || read)
				continue;
			/* A package of documentation only (transitional, a metapackage) is used
			 * through its dependencies: say which of them were opened. */
			struct hk_buf deps = HK_BUF_INIT;
			for (size_t k = 0; content == 0 && k < pkgs.n; k++) {
				const struct hk_artifact *a = NULL;
				hk_autofree char *spec = NULL;
				struct hk_error e;
				for (size_t i = 0; i < r->n_closure; i++)
					if (strcmp(r->closure[i].name, pkgs.v[k]) == 0)
						spec = hk_xstrdup(r->closure[i].id);
				if (!spec || hk_store_find(r->build.store, spec, &a, &e) < 0)
					continue;
				for (size_t d = 0; d < a->n_deps; d++) {
					struct hk_strset dfiles = HK_STRSET_INIT;
					struct hk_error ignored;
					const char *dep = a->deps[d].alts[0];
					if (package_files(r, dep, &dfiles, &ignored) == 0 &&
					    any_opened(&dfiles, opened))
						hk_buf_printf(&deps, "%s%s", deps.len ? ", " : "", dep);
					hk_strset_free(&dfiles);
				}
			}
			r->unread = hk_xrealloc(r->unread, (r->n_unread + 1) * sizeof(*r->unread));
			struct hk_dsc_unread *u = &r->unread[r->n_unread++];
			struct hk_buf gt = HK_BUF_INIT, pt = HK_BUF_INIT;
			hk_deb_relations_text(&b->groups[f][g], 1, &gt);
			for (size_t k = 0; k < pkgs.n; k++)
				hk_buf_printf(&pt, "%s%s", k ? ", " : "", pkgs.v[k]);
			u->field = hk_xstrdup(hk_dsc_field_name(f));
			u->group = hk_buf_steal(&gt);
			u->packages = hk_buf_steal(&pt);
			u->deps_opened = deps.len ? hk_buf_steal(&deps) : NULL;
			hk_buf_free(&deps);
		}
	}
	return rc;
}
