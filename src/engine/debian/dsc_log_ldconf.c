/* Build-Depends named from the build's log: the store packages whose /etc/ld.so.conf.d file
 * names the directory of a library the log says was not found (core/debian/dsc_ldconf.h;
 * docs/debian-builds.md, "What a build can name").  The store view leaves that directory out,
 * so such a use leaves no denial: the log is the only witness, and the report says so. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/debian/dsc_int.h"
#include "core/store/base.h"
#include "core/basic/dir.h"
#include "core/debian/dsc_ldconf.h"
#include "core/basic/file.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

#define CONF_DIR "etc/ld.so.conf.d/"

/* Whether `p` (relative to a tree's root) is a configuration file ld.so.conf includes. */
static bool conf_file(const char *p)
{
	size_t n = strlen(p), k = strlen(CONF_DIR);
	return strncmp(p, CONF_DIR, k) == 0 && !strchr(p + k, '/') && n > k + 5 &&
	       strcmp(p + n - 5, ".conf") == 0;
}

/* The directories the configuration files `rels` of the tree at `root` name, with the file
 * naming each (parallel vectors). */
static int conf_dirs(const char *root, const struct hk_strv *rels, struct hk_strv *dirs,
		     struct hk_strv *files, struct hk_error *err)
{
	for (size_t i = 0; i < rels->n; i++) {
		hk_autofree char *host = hk_xasprintf("%s/%s", root, rels->v[i]);
		struct hk_buf text = HK_BUF_INIT;
		int rc = hk_file_read(host, &text, err);
		hk_autostrv struct hk_strv named = HK_STRV_INIT;
		if (rc == 0)
			hk_ldconf_dirs(text.data, text.len, &named);
		hk_buf_free(&text);
		if (rc < 0)
			return rc;
		for (size_t d = 0; d < named.n; d++) {
			hk_strv_push(dirs, named.v[d]);
			hk_strv_push_owned(files, hk_xasprintf("/%s", rels->v[i]));
		}
	}
	return 0;
}

static int artifact_conf_dirs(struct hk_store *s, const struct hk_artifact *a,
			      struct hk_strv *dirs, struct hk_strv *files, struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int rc = hk_store_files(s, a, &t, err);
	hk_autostrv struct hk_strv rels = HK_STRV_INIT;
	for (size_t e = 0; rc == 0 && e < t.n; e++)
		if (t.entries[e].type == HK_TREE_FILE && conf_file(t.entries[e].path))
			hk_strv_push(&rels, t.entries[e].path);
	hk_tree_free(&t);
	return rc < 0 ? rc : conf_dirs(a->path, &rels, dirs, files, err);
}

/* The base's own configuration, read from its tree. */
static int base_conf_dirs(const char *root, struct hk_strv *dirs, struct hk_error *err)
{
	hk_autofree char *d = hk_xasprintf("%s/" CONF_DIR, root);
	DIR *dir = NULL;
	struct dirent *de;
	hk_autostrv struct hk_strv rels = HK_STRV_INIT;
	int rc = hk_dir_open_existing(d, &dir, err);
	while (rc == 0 && dir && (rc = hk_dir_next(dir, d, &de, err)) == 0 && de) {
		hk_autofree char *rel = hk_xasprintf(CONF_DIR "%s", de->d_name);
		if (conf_file(rel))
			hk_strv_push(&rels, rel);
	}
	if (dir)
		closedir(dir);
	hk_autostrv struct hk_strv files = HK_STRV_INIT;
	return rc < 0 ? rc : conf_dirs(root, &rels, dirs, &files, err);
}

/* Whether some tree of the sandbox's world — a store artifact or the base — has the file
 * DIR/LIB: the library the log missed is where the configuration file would have sent the
 * tool. */
static bool somewhere(const struct hk_artifact *const *all, size_t n_all, const char *base,
		      const char *dir, const char *lib)
{
	struct stat st;
	hk_autofree char *in_base = hk_xasprintf("%s%s/%s", base, dir, lib);
	if (lstat(in_base, &st) == 0)
		return true;
	for (size_t i = 0; i < n_all; i++) {
		hk_autofree char *p = hk_xasprintf("%s%s/%s", all[i]->path, dir, lib);
		if (lstat(p, &st) == 0)
			return true;
	}
	return false;
}

int dsc_find_library_needs(struct dsc_build *b, const struct dsc_log *log)
{
	struct hk_dsc_result *r = b->r;
	hk_autostrv struct hk_strv missed = HK_STRV_INIT;
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	hk_ldconf_log_misses(log->text.data, log->text.len, &missed, &lines);
	if (missed.n == 0)
		return 0;
	struct hk_store *s = r->build.store;
	const struct hk_artifact *const *all;
	size_t n_all;
	const struct hk_artifact *base;
	if (hk_store_list(s, &all, &n_all, b->err) < 0 ||
	    hk_base_find(s, r->base_id, &base, b->err) < 0)
		return -b->err->code;
	/* The directories the build's tools searched: the default ones, and those the base's
	 * and the closure's own files name (granted, so read).  A library missing there is not
	 * a package's that was left out of the view. */
	hk_autostrv struct hk_strv searched = HK_STRV_INIT;
	hk_autostrv struct hk_strv ignored = HK_STRV_INIT;
	static const char *const defaults[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64" };
	for (size_t i = 0; i < HK_ARRAY_LEN(defaults); i++)
		hk_strv_push(&searched, defaults[i]);
	int rc = base_conf_dirs(base->path, &searched, b->err);
	for (size_t i = 0; rc == 0 && i < r->n_closure; i++) {
		const struct hk_artifact *a;
		rc = hk_store_find(s, r->closure[i].id, &a, b->err) < 0
			     ? -b->err->code
			     : artifact_conf_dirs(s, a, &searched, &ignored, b->err);
	}
	for (size_t i = 0; rc == 0 && i < n_all; i++) {
		const struct hk_artifact *a = all[i];
		if (a->origin != HK_ORIGIN_DEB || dsc_closure_has(r, a->name))
			continue;
		hk_autostrv struct hk_strv dirs = HK_STRV_INIT;
		hk_autostrv struct hk_strv files = HK_STRV_INIT;
		rc = artifact_conf_dirs(s, a, &dirs, &files, b->err);
		for (size_t d = 0; rc == 0 && d < dirs.n; d++) {
			if (hk_strv_has(&searched, dirs.v[d]))
				continue;
			for (size_t m = 0; m < missed.n; m++) {
				if (!somewhere(all, n_all, base->path, dirs.v[d], missed.v[m]))
					continue;
				if (dsc_log_need_named(r, a->name, HK_DSC_LOG_LIBRARY, missed.v[m]))
					continue;
				dsc_log_need_add(r, a, HK_DSC_LOG_LIBRARY, missed.v[m], files.v[d],
						 dirs.v[d], lines.v[m]);
			}
		}
	}
	return rc;
}
