/* Pinned bases made and copied (engine/debian/base_make.h). */
#include "engine/debian/base_make.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/formats/json.h"
#include "core/store/base.h"
#include "engine/common/proc.h"
#include "sys/interrupt.h"

/* Removes every entry of DIR (the directory itself stays). */
static int empty_dir(const char *dir, struct hk_error *err)
{
	DIR *d = NULL;
	int r = hk_dir_open_existing(dir, &d, err);
	struct dirent *de;
	while (r == 0 && d && (r = hk_dir_next(d, dir, &de, err)) == 0 && de) {
		hk_autofree char *p = hk_xasprintf("%s/%s", dir, de->d_name);
		r = hk_store_remove_tree(p, err);
	}
	if (d)
		closedir(d);
	return r;
}

static int remove_if_present(const char *root, const char *rel, struct hk_error *err)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", root, rel);
	struct stat st;
	if (lstat(p, &st) < 0)
		return errno == ENOENT ? 0 : hk_fail_errno(err, errno, "cannot inspect %s", p);
	return hk_store_remove_tree(p, err);
}

static int write_text(const char *path, const char *text, struct hk_error *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return hk_fail_errno(err, errno, "cannot write %s", path);
	bool ok = fputs(text, f) >= 0;
	if (fclose(f) != 0 || !ok)
		return hk_fail_errno(err, errno ? errno : EIO, "cannot write %s", path);
	return 0;
}

/* The tree leaves behind what the machine that made it put there (base_making.h). */
static int normalise_root(const char *root, const char *suite, struct hk_error *err)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < HK_BASE_N_EMPTIED; i++) {
		hk_autofree char *dir = hk_xasprintf("%s/%s", root, HK_BASE_EMPTIED[i]);
		r = empty_dir(dir, err);
	}
	for (size_t i = 0; r == 0 && i < HK_BASE_N_REMOVED; i++)
		r = remove_if_present(root, HK_BASE_REMOVED[i], err);
	if (r == 0) {
		hk_autofree char *p = hk_xasprintf("%s/" HK_BASE_SOURCES_LIST, root);
		hk_autofree char *line = hk_base_sources_list(suite);
		struct stat st;
		if (lstat(p, &st) == 0)
			r = write_text(p, line, err);
	}
	return r;
}

/* The base's version, from ROOT/etc/debian_version. */
static char *root_version(const char *root)
{
	hk_autofree char *p = hk_xasprintf("%s/etc/debian_version", root);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error ignored = { 0 };
	/* A root without the file is "unknown": the version is a label, not an identity. */
	if (hk_file_read(p, &text, &ignored) < 0)
		hk_buf_reset(&text);
	char *v = hk_base_version_from(hk_buf_str(&text));
	hk_buf_free(&text);
	return v;
}

/* mmdebstrap into `tmp` (an empty temporary directory of the store). */
static int run_mmdebstrap(const struct hk_base_making *m, const char *tmp, struct hk_error *err)
{
	struct hk_argv a = { 0 };
	hk_argv_push(&a, "mmdebstrap");
	hk_autofree char *variant = hk_xasprintf("--variant=%s", m->variant);
	hk_argv_push(&a, variant);
	/* Unprivileged and isolated from the host, as root too. */
	hk_argv_push(&a, "--mode=unshare");
	hk_argv_push(&a, "--format=directory");
	for (size_t i = 0; i < m->n_includes; i++) {
		hk_autofree char *inc = hk_xasprintf("--include=%s", m->includes[i]);
		hk_argv_push(&a, inc);
	}
	hk_argv_push(&a, m->suite);
	hk_argv_push(&a, tmp);
	hk_argv_push(&a, m->mirror);
	setenv("SOURCE_DATE_EPOCH", m->source_date_epoch, 1);
	int code = hk_spawn_wait(a.v, NULL, false, err);
	hk_argv_free(a.v);
	if (code < 0)   /* not started: mmdebstrap missing, most likely */
		return hk_wrap(err, "making the base %s (is mmdebstrap installed? './setup' "
				    "installs it)", m->name);
	if (hk_interrupted())
		return hk_fail_interrupted(err, hk_interrupted(), "interrupted by signal %d",
					   hk_interrupted());
	if (code != 0)
		return hk_fail_as(err, HK_ERROR_ENVIRONMENT, EIO,
				  "making the base %s: mmdebstrap exited with status %d (is "
				  "mmdebstrap installed? './setup' installs it; the mirror %s must be "
				  "reachable)", m->name, code, m->mirror);
	return 0;
}

int hk_base_make(struct hk_store *s, const struct hk_base_making *m, struct hk_base_made *out,
		 struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	int r = hk_base_making_check(m, err);
	if (r < 0)
		return r;
	char *tmp = NULL;
	r = hk_store_mktemp(s, &tmp, err);
	if (r < 0)
		return r;
	fprintf(stderr, "harkaq store base: making %s (%s, %s) with mmdebstrap…\n", m->name,
		m->variant, m->suite);
	r = run_mmdebstrap(m, tmp, err);
	if (r == 0)
		r = normalise_root(tmp, m->suite, err);
	struct hk_deb_pkglist pkgs = { 0 };
	if (r == 0)
		r = hk_debroot_packages(tmp, &pkgs, err);
	if (r == 0) {
		hk_autofree char *version = root_version(tmp);
		hk_autofree char *source = hk_base_provenance_json(m, "mmdebstrap", &pkgs);
		struct hk_artifact_spec spec = {
			.name = m->name, .version = version, .source_json = source,
		};
		fprintf(stderr, "harkaq store base: adding %s to the store (hashing)…\n", m->name);
		r = hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, &out->artifact, &out->added,
				 err);
		/* hk_store_add consumed or removed the temporary directory either way. */
		free(tmp);
		tmp = NULL;
	}
	if (r == 0)
		r = hk_base_tag_set(s, m->name, out->artifact, err);
	out->n_packages = pkgs.n;
	hk_deb_pkglist_free(&pkgs);
	if (tmp) {
		/* A base root left behind is hundreds of megabytes: said, beside the error that
		 * stopped the creation. */
		struct hk_error rm;
		struct stat st;
		if (lstat(tmp, &st) == 0 && hk_store_remove_tree(tmp, &rm) < 0)
			fprintf(stderr, "harkaq store base: left behind: %s\n", rm.msg);
		free(tmp);
	}
	return r;
}

int hk_base_import(struct hk_store *s, const char *from_dir, const char *ref,
		   struct hk_base_made *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_store *other = NULL;
	int r = hk_store_open(from_dir, false, &other, err);
	if (r < 0)
		return r;
	const struct hk_artifact *src = NULL;
	struct hk_jval *meta = NULL;
	r = hk_base_find(other, ref, &src, err);
	if (r == 0)
		r = hk_json_parse(src->meta_json, strlen(src->meta_json), &meta, err);
	if (r < 0)
		goto err_close_other;
	/* The provenance travels as it was recorded: the copy is the same base. */
	struct hk_buf source = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &source, 0);
	hk_json_value(&j, hk_jobj_get(meta, "source"));
	struct hk_artifact_spec spec = {
		.name = src->name, .version = src->version, .source_json = hk_buf_str(&source),
	};
	r = hk_store_add(s, src->path, &spec, 0, &out->artifact, &out->added, err);
	if (r == 0)
		r = hk_base_tag_set(s, out->artifact->name, out->artifact, err);
	/* Same tree, same name, version and provenance: a different id means the copy is not
	 * the base it was taken from. */
	if (r == 0 && strcmp(out->artifact->id, src->id) != 0)
		r = hk_fail_as(err, HK_ERROR_INPUT, EBADMSG, "the copy of %s has the id %s, not %s",
			       src->name, out->artifact->id, src->id);
	hk_buf_free(&source);
err_close_other:
	hk_jval_free(meta);
	hk_store_close(other);
	return r;
}

int hk_base_list(struct hk_store *s, bool json, struct hk_buf *out, struct hk_error *err)
{
	const struct hk_artifact *const *all = NULL;
	size_t n = 0;
	struct hk_base_tag *tags = NULL;
	size_t n_tags = 0;
	int r = hk_store_list(s, &all, &n, err);
	if (r == 0)
		r = hk_base_tags(s, &tags, &n_tags, err);
	struct hk_json j;
	hk_json_init(&j, out, 2);
	if (json)
		hk_json_arr_begin(&j);
	for (size_t i = 0; i < n && r == 0; i++) {
		struct hk_base_info info;
		if (all[i]->origin != HK_ORIGIN_BASE)
			continue;
		r = hk_base_info_read(all[i], &info, err);
		if (r < 0)
			break;
		const char *tag = hk_base_tag_of(tags, n_tags, all[i]);
		if (json)
			hk_base_list_entry_json(&j, all[i], tag, &info);
		else
			hk_buf_printf(out, "%s %s %s %s %zu packages%s%s\n", all[i]->id, all[i]->name,
				      all[i]->version, info.variant ? info.variant : "-",
				      info.n_packages, tag ? ", tagged " : "", tag ? tag : "");
		hk_base_info_free(&info);
	}
	if (json && r == 0) {
		hk_json_arr_end(&j);
		hk_buf_putc(out, '\n');
	}
	hk_base_tags_free(tags, n_tags);
	return r;
}

int hk_base_show(const struct hk_artifact *a, bool json, struct hk_buf *out, struct hk_error *err)
{
	if (json) {
		hk_buf_printf(out, "%s\n", a->meta_json);
		return 0;
	}
	struct hk_base_info info;
	int r = hk_base_info_read(a, &info, err);
	if (r < 0)
		return r;
	hk_buf_printf(out, "base      %s\nid        %s\nversion   %s\nvariant   %s\nsuite     %s\n"
		      "mirror    %s\npackages  %zu\nfiles     %zu\ntree      %s\n",
		      a->name, a->id, a->version, info.variant ? info.variant : "-",
		      info.suite ? info.suite : "-", info.mirror ? info.mirror : "-",
		      info.n_packages, a->file_count, a->path);
	hk_base_info_free(&info);
	return 0;
}
