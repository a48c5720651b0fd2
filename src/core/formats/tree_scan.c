/* Walking a directory into a tree (core/formats/tree_scan.h): the file system side of core/formats/tree.h. */
#include "core/formats/tree_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/blake3_file.h"
#include "core/basic/dir.h"
#include "core/basic/util.h"

int hk_tree_hash_file(int dirfd, const char *name, const char *display,
		      uint8_t out[HK_BLAKE3_OUT_LEN], struct hk_error *err)
{
	hk_autoclose int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", display);
	int r = hk_blake3_fd(fd, out);
	if (r < 0)
		return hk_fail_errno(err, -r, "cannot read %s", display);
	return 0;
}

static int read_link(int dirfd, const char *name, const char *display, struct hk_buf *out,
		     struct hk_error *err)
{
	/* st_size of a symlink is not reliable on every filesystem (procfs reports 0): grow. */
	size_t cap = 256;
	for (;;) {
		hk_autofree char *buf = hk_xmalloc(cap);
		ssize_t n = readlinkat(dirfd, name, buf, cap);
		if (n < 0)
			return hk_fail_errno(err, errno, "cannot read the symlink %s", display);
		if ((size_t)n < cap) {
			hk_buf_append(out, buf, (size_t)n);
			return 0;
		}
		cap *= 2;
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scans the directory open as `dfd`, whose path relative to the root is `rel` ("" = root) and
 * whose path for messages is `shown`.  Takes ownership of dfd. */
static int scan_dir(int dfd, const char *rel, const char *shown, struct hk_tree *t,
		    struct hk_error *err)
{
	DIR *d;
	int r = hk_dir_fdopen(dfd, shown, &d, err);
	if (r < 0)
		return r;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((r = hk_dir_next(d, shown, &de, err)) == 0 && de) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = hk_xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = hk_xstrdup(de->d_name);
	}
	/* Sorted only so that a failure names the same path every time; the canonical order is
	 * established by hk_tree_compute. */
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t k = 0; r == 0 && k < n; k++) {
		const char *name = names[k];
		hk_autofree char *child_rel =
			rel[0] ? hk_xasprintf("%s/%s", rel, name) : hk_xstrdup(name);
		hk_autofree char *child_shown = hk_xasprintf("%s/%s", shown, name);
		struct stat st;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = hk_fail_errno(err, errno, "cannot stat %s", child_shown);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			hk_tree_add(t, child_rel, HK_TREE_DIR, false, NULL, NULL, 0);
			int cfd = openat(dirfd(d), name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				r = hk_fail_errno(err, errno, "cannot open the directory %s",
						  child_shown);
				break;
			}
			r = scan_dir(cfd, child_rel, child_shown, t, err);
		} else if (S_ISREG(st.st_mode)) {
			uint8_t digest[HK_BLAKE3_OUT_LEN];
			r = hk_tree_hash_file(dirfd(d), name, child_shown, digest, err);
			if (r == 0)
				hk_tree_add(t, child_rel, HK_TREE_FILE, (st.st_mode & 0111) != 0,
					    digest, NULL, 0);
		} else if (S_ISLNK(st.st_mode)) {
			struct hk_buf target = HK_BUF_INIT;
			r = read_link(dirfd(d), name, child_shown, &target, err);
			if (r == 0)
				hk_tree_add(t, child_rel, HK_TREE_SYMLINK, false, NULL,
					    hk_buf_str(&target), target.len);
			hk_buf_free(&target);
		} else {
			r = hk_fail(err, EINVAL,
				    "%s is %s; an artifact may hold only regular files, directories "
				    "and symlinks", child_shown, hk_tree_special_kind(st.st_mode));
		}
	}
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	closedir(d);
	return r;
}

int hk_tree_scan(const char *dir, struct hk_tree *out, struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open the directory %s", dir);
	int r = scan_dir(fd, "", dir, &t, err);
	if (r == 0)
		r = hk_tree_compute(&t, err);
	if (r < 0) {
		hk_tree_free(&t);
		return r;
	}
	*out = t;
	return 0;
}
