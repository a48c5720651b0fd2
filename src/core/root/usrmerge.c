#include "core/root/usrmerge.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"

static const char *const merged_tops[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };

bool hk_root_is_merged_usr(const char *root)
{
	char *p = hk_xasprintf("%s%slib", root, root[strlen(root) - 1] == '/' ? "" : "/");
	char target[PATH_MAX];
	ssize_t n = readlink(p, target, sizeof(target) - 1);
	free(p);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "usr/lib") == 0 || strcmp(target, "/usr/lib") == 0;
}

static bool same_symlink(const char *a, const char *b)
{
	char ta[PATH_MAX], tb[PATH_MAX];
	ssize_t na = readlink(a, ta, sizeof(ta) - 1), nb = readlink(b, tb, sizeof(tb) - 1);
	return na >= 0 && nb >= 0 && na == nb && memcmp(ta, tb, (size_t)na) == 0;
}

/* Moves every entry of src into dst (which exists), recursively; removes src. */
static int merge_into(const char *src, const char *dst, const char *shown, struct hk_error *err)
{
	DIR *d = opendir(src);
	if (!d)
		return hk_fail_errno(err, errno, "%s", src);
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *s = hk_xasprintf("%s/%s", src, de->d_name);
		char *t = hk_xasprintf("%s/%s", dst, de->d_name);
		char *show = hk_xasprintf("%s/%s", shown, de->d_name);
		struct stat ss, ts;
		if (lstat(t, &ts) < 0) {
			if (rename(s, t) < 0)
				rc = hk_fail_errno(err, errno, "moving %s under /usr", show);
		} else if (lstat(s, &ss) == 0 && S_ISDIR(ss.st_mode) && S_ISDIR(ts.st_mode)) {
			rc = merge_into(s, t, show, err);
		} else if (S_ISLNK(ts.st_mode) && lstat(s, &ss) == 0 && S_ISLNK(ss.st_mode) &&
			   same_symlink(s, t)) {
			if (unlink(s) < 0)
				rc = hk_fail_errno(err, errno, "%s", s);
		} else {
			rc = hk_fail(err, EEXIST, "the package ships both %s and /usr%s: they would be "
						  "the same path on a merged-/usr system",
				     show, show);
		}
		free(s);
		free(t);
		free(show);
	}
	closedir(d);
	if (rc == 0 && rmdir(src) < 0)
		rc = hk_fail_errno(err, errno, "removing %s", src);
	return rc;
}

int hk_usrmerge_tree(const char *dir, struct hk_error *err)
{
	int moved = 0;
	for (size_t i = 0; i < HK_ARRAY_LEN(merged_tops); i++) {
		char *top = hk_xasprintf("%s/%s", dir, merged_tops[i]);
		struct stat st;
		if (lstat(top, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(top);
			continue;
		}
		char *usr = hk_xasprintf("%s/usr", dir);
		char *dst = hk_xasprintf("%s/usr/%s", dir, merged_tops[i]);
		char *shown = hk_xasprintf("/%s", merged_tops[i]);
		int rc = 0;
		if (mkdir(usr, 0755) < 0 && errno != EEXIST)
			rc = hk_fail_errno(err, errno, "creating %s", usr);
		struct stat ds;
		if (rc == 0 && lstat(dst, &ds) < 0) {
			if (rename(top, dst) < 0)
				rc = hk_fail_errno(err, errno, "moving %s under /usr", shown);
		} else if (rc == 0 && S_ISDIR(ds.st_mode)) {
			rc = merge_into(top, dst, shown, err);
		} else if (rc == 0) {
			rc = hk_fail(err, EEXIST, "the package ships /%s and a non-directory /usr/%s",
				     merged_tops[i], merged_tops[i]);
		}
		free(top);
		free(usr);
		free(dst);
		free(shown);
		if (rc < 0)
			return rc;
		moved++;
	}
	return moved;
}
