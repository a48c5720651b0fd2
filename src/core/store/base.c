#include "core/store/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/formats/json.h"
#include "core/basic/util.h"

#define TAG_DIR ".bases"

static char *tag_path(struct hk_store *s, const char *name)
{
	return hk_xasprintf("%s/" TAG_DIR "/%s", hk_store_dir(s), name);
}

/* The id a tag holds: "b3:<64 hex>" and a newline, nothing else. */
static int read_tag(const char *path, char id[HK_B3_ID_LEN], struct hk_error *err)
{
	struct hk_buf b = HK_BUF_INIT;
	int r = hk_file_read(path, &b, err);
	if (r < 0) {
		hk_buf_free(&b);
		return hk_wrap(err, "the base tag");
	}
	bool ok = b.len == HK_B3_ID_LEN && strncmp(b.data, "b3:", 3) == 0 &&
		  b.data[HK_B3_ID_LEN - 1] == '\n' && hk_is_lower_hex(b.data + 3, HK_B3_ID_LEN - 4);
	if (ok) {
		memcpy(id, b.data, HK_B3_ID_LEN - 1);
		id[HK_B3_ID_LEN - 1] = '\0';
	}
	hk_buf_free(&b);
	if (!ok)
		return hk_fail(err, EBADMSG, "the base tag %s does not hold one b3: id", path);
	return 0;
}

static int must_be_base(const struct hk_artifact *a, const char *ref, struct hk_error *err)
{
	if (a->origin == HK_ORIGIN_BASE)
		return 0;
	return hk_fail(err, EINVAL,
		       "'%s' is the artifact %s %s (%s), not a base: a base is made with "
		       "'harkaq store base create NAME'",
		       ref, a->name, a->version, hk_artifact_origin_name(a->origin));
}

static int not_found(struct hk_store *s, const char *ref, struct hk_error *err)
{
	return hk_fail(err, ENOENT,
		       "no base '%s' in the store %s: make it with 'harkaq store base create %s "
		       "--variant essential' (docs/bases.md), or name another with base = "
		       "\"NAME\" in the recipe ('harkaq store base list' shows the bases)",
		       ref, hk_store_dir(s), strncmp(ref, "b3:", 3) == 0 ? HK_BASE_DEFAULT : ref);
}

int hk_base_find(struct hk_store *s, const char *ref, const struct hk_artifact **out,
		 struct hk_error *err)
{
	if (strncmp(ref, "b3:", 3) == 0) {
		int r = hk_store_find(s, ref, out, err);
		if (r == -ENOENT)
			return not_found(s, ref, err);
		return r < 0 ? r : must_be_base(*out, ref, err);
	}
	if (!hk_artifact_name_valid(ref))
		return hk_fail(err, EINVAL, "'%s' is not a base name (a name is letters, digits, "
					    "'+', '.', '_' and '-')", ref);
	hk_autofree char *path = tag_path(s, ref);
	struct stat st;
	if (lstat(path, &st) == 0) {
		char id[HK_B3_ID_LEN];
		int r = read_tag(path, id, err);
		if (r < 0)
			return r;
		r = hk_store_find(s, id, out, err);
		if (r == -ENOENT)
			return hk_fail(err, ENOENT,
				       "the base tag %s names %s, which is not in the store (make "
				       "the base again with 'harkaq store base create %s')",
				       path, id, ref);
		if (r < 0)
			return r;
		if (strcmp((*out)->name, ref) != 0)
			return hk_fail(err, EBADMSG, "the base tag %s names %s, an artifact called "
						     "%s, not %s",
				       path, id, (*out)->name, ref);
		return must_be_base(*out, ref, err);
	}
	if (errno != ENOENT)
		return hk_fail_errno(err, errno, "cannot read the base tag %s", path);
	/* No tag: a base of that name imported from elsewhere is still found, if it is the
	 * only one. */
	const struct hk_artifact *const *all = NULL;
	size_t n = 0;
	int r = hk_store_list(s, &all, &n, err);
	if (r < 0)
		return r;
	const struct hk_artifact *found = NULL;
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i]->origin == HK_ORIGIN_BASE && strcmp(all[i]->name, ref) == 0) {
			found = all[i];
			count++;
		}
	if (count == 0)
		return not_found(s, ref, err);
	if (count > 1)
		return hk_fail(err, EEXIST,
			       "%zu bases are called '%s' in the store %s and none is tagged: name "
			       "one by id (base = \"b3:…\"; 'harkaq store base list' shows them)",
			       count, ref, hk_store_dir(s));
	*out = found;
	return 0;
}

int hk_base_tag_set(struct hk_store *s, const char *name, const struct hk_artifact *a,
		    struct hk_error *err)
{
	if (a->origin != HK_ORIGIN_BASE)
		return must_be_base(a, name, err);
	if (!hk_artifact_name_valid(name))
		return hk_fail(err, EINVAL, "'%s' is not a valid base name", name);
	hk_autofree char *dir = hk_xasprintf("%s/" TAG_DIR, hk_store_dir(s));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "cannot create %s", dir);
	hk_autofree char *path = tag_path(s, name);
	char line[HK_B3_ID_LEN + 1];
	int len = snprintf(line, sizeof(line), "%s\n", a->id);
	if (hk_file_write_atomic(path, line, (size_t)len, 0644, err) < 0)
		return hk_wrap(err, "the base tag");
	return 0;
}

static int cmp_tag(const void *a, const void *b)
{
	return strcmp(((const struct hk_base_tag *)a)->name, ((const struct hk_base_tag *)b)->name);
}

int hk_base_tags(struct hk_store *s, struct hk_base_tag **out, size_t *n, struct hk_error *err)
{
	*out = NULL;
	*n = 0;
	hk_autofree char *dir = hk_xasprintf("%s/" TAG_DIR, hk_store_dir(s));
	DIR *d = NULL;
	int r = hk_dir_open_existing(dir, &d, err);
	struct dirent *de;
	while (r == 0 && d && (r = hk_dir_next(d, dir, &de, err)) == 0 && de) {
		/* Temporary files of a tag being written start with '.'. */
		if (de->d_name[0] == '.' || !hk_artifact_name_valid(de->d_name))
			continue;
		hk_autofree char *path = tag_path(s, de->d_name);
		char id[HK_B3_ID_LEN];
		r = read_tag(path, id, err);
		if (r < 0)
			break;
		*out = hk_xrealloc(*out, (*n + 1) * sizeof(**out));
		struct hk_base_tag *t = &(*out)[(*n)++];
		t->name = hk_xstrdup(de->d_name);
		memcpy(t->id, id, HK_B3_ID_LEN);
	}
	if (d)
		closedir(d);
	if (r < 0) {
		hk_base_tags_free(*out, *n);
		*out = NULL;
		*n = 0;
		return r;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_tag);
	return 0;
}

void hk_base_tags_free(struct hk_base_tag *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

const char *hk_base_tag_of(const struct hk_base_tag *t, size_t n, const struct hk_artifact *a)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].id, a->id) == 0)
			return t[i].name;
	return NULL;
}
