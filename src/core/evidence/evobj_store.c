/* Evidence objects in the store (core/evidence/evobj_store.h): the file system side of core/evidence/evobj.h. */
#include "core/evidence/evobj_store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"

char *hk_evobj_dir(const char *store_dir)
{
	return hk_xasprintf("%s/" HK_EVOBJ_DIR, store_dir);
}

int hk_evobj_write(const char *store_dir, const void *bytes, size_t n, char id[HK_B3_ID_LEN],
		   char **path, struct hk_error *err)
{
	hk_b3_id(bytes, n, id);
	hk_autofree char *dir = hk_evobj_dir(store_dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "cannot create the evidence directory %s", dir);
	char *final = hk_xasprintf("%s/%s.json", dir, id + 3);
	int r = hk_file_write_atomic(final, bytes, n, 0644, err);
	if (r < 0) {
		free(final);
		return hk_wrap(err, "cannot write the evidence object");
	}
	if (path)
		*path = final;
	else
		free(final);
	return 0;
}

int hk_evobj_read(const char *path, struct hk_buf *out, struct hk_error *err)
{
	int r = hk_file_read(path, out, err);
	if (r < 0)
		hk_wrap(err, "evidence object");
	return r;
}

/* "<64 hex>.json" -> true */
static bool object_name(const char *name)
{
	return strlen(name) == 64 + 5 && strcmp(name + 64, ".json") == 0 && hk_is_lower_hex(name, 64);
}

int hk_evobj_list(const char *store_dir, char ***ids, size_t *n, struct hk_error *err)
{
	*ids = NULL;
	*n = 0;
	hk_autofree char *dir = hk_evobj_dir(store_dir);
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return hk_fail_errno(err, errno, "cannot list %s", dir);
	}
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!object_name(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*ids = hk_xrealloc(*ids, cap * sizeof(**ids));
		}
		(*ids)[(*n)++] = hk_xasprintf("b3:%.64s", de->d_name);
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)   /* insertion sort: lists are short */
		for (size_t k = i; k > 0 && strcmp((*ids)[k - 1], (*ids)[k]) > 0; k--) {
			char *t = (*ids)[k];
			(*ids)[k] = (*ids)[k - 1];
			(*ids)[k - 1] = t;
		}
	return 0;
}

int hk_evobj_find(const char *store_dir, const char *query, char **path,
		  char id[HK_B3_ID_LEN], struct hk_error *err)
{
	*path = NULL;
	id[0] = '\0';
	size_t qlen = strlen(query);
	if (strchr(query, '/') || (qlen > 5 && strcmp(query + qlen - 5, ".json") == 0)) {
		struct stat st;
		if (stat(query, &st) < 0)
			return hk_fail_errno(err, errno, "evidence object %s", query);
		const char *base = strrchr(query, '/');
		base = base ? base + 1 : query;
		if (object_name(base))
			snprintf(id, HK_B3_ID_LEN, "b3:%.64s", base);
		*path = hk_xstrdup(query);
		return 0;
	}
	const char *hex = strncmp(query, "b3:", 3) == 0 ? query + 3 : query;
	size_t hlen = strlen(hex);
	if (hlen < 8 || hlen > 64 || !hk_is_lower_hex(hex, hlen))
		return hk_fail(err, EINVAL, "'%s' is neither a path nor an evidence id (b3:<hex>, "
			       "or at least 8 lowercase hex digits of one)", query);
	char **ids;
	size_t n;
	int r = hk_evobj_list(store_dir, &ids, &n, err);
	if (r < 0)
		return r;
	size_t found = 0, which = 0;
	struct hk_buf cands = HK_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(ids[i] + 3, hex, hlen) == 0) {
			hk_buf_printf(&cands, "%s%s", found ? ", " : "", ids[i]);
			which = i;
			found++;
		}
	}
	if (found == 1) {
		snprintf(id, HK_B3_ID_LEN, "%s", ids[which]);
		*path = hk_xasprintf("%s/" HK_EVOBJ_DIR "/%s.json", store_dir, ids[which] + 3);
	} else if (found == 0) {
		r = hk_fail(err, ENOENT, "no evidence object %s in %s/" HK_EVOBJ_DIR, query,
			    store_dir);
	} else {
		r = hk_fail(err, EEXIST, "'%s' is ambiguous: %s", query, hk_buf_str(&cands));
	}
	hk_buf_free(&cands);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return r;
}
