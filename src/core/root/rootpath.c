/* Paths inside a root directory (rootpath.h). */
#include "core/root/rootpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/basic/buf_fd.h"
#include "core/basic/util.h"

/* The kernel's limit on symlinks followed in one path walk (MAXSYMLINKS). */
#define MAX_LINKS 40

int hk_root_open(const char *path, struct hk_root *root, struct hk_error *err)
{
	*root = (struct hk_root)HK_ROOT_INIT;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "base root %s", path);
	root->fd = fd;
	root->path = hk_xstrdup(path);
	return 0;
}

void hk_root_close(struct hk_root *root)
{
	if (root->fd >= 0)
		close(root->fd);
	free(root->path);
	*root = (struct hk_root)HK_ROOT_INIT;
}

void hk_resolved_free(struct hk_resolved *res)
{
	free(res->path);
	hk_strset_free(&res->file_links);
	hk_strset_free(&res->dir_links);
	*res = (struct hk_resolved)HK_RESOLVED_INIT;
}

/* The directories walked so far: canonical path text plus one O_PATH descriptor per level, so
 * ".." returns to the real parent (as the kernel resolves it) without a lookup by name. */
struct walk {
	const struct hk_root *root;
	struct hk_buf canon;   /* "" for the root, else "/usr/bin" … */
	int *fds;
	size_t depth, cap;
};

static int walk_fd(const struct walk *w)
{
	return w->depth ? w->fds[w->depth - 1] : w->root->fd;
}

static void walk_push(struct walk *w, int fd, const char *name)
{
	if (w->depth == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->fds = hk_xrealloc(w->fds, w->cap * sizeof(*w->fds));
	}
	w->fds[w->depth++] = fd;
	hk_buf_putc(&w->canon, '/');
	hk_buf_puts(&w->canon, name);
}

static void walk_pop(struct walk *w)
{
	if (w->depth == 0)
		return;
	close(w->fds[--w->depth]);
	char *slash = strrchr(w->canon.data, '/');
	w->canon.len = (size_t)(slash - w->canon.data);
	w->canon.data[w->canon.len] = '\0';
}

static void walk_free(struct walk *w)
{
	while (w->depth)
		walk_pop(w);
	free(w->fds);
	hk_buf_free(&w->canon);
}

struct met_link {
	char *path;
	bool terminal;   /* met as the last component of the path still to resolve */
};

int hk_root_resolve(const struct hk_root *root, const char *path, struct hk_resolved *out,
		    struct hk_error *err)
{
	*out = (struct hk_resolved)HK_RESOLVED_INIT;
	if (path[0] != '/')
		return hk_fail(err, EINVAL, "%s: not an absolute path (inside root %s)", path,
			       root->path);

	struct walk w = { root, HK_BUF_INIT, NULL, 0, 0 };
	hk_buf_puts(&w.canon, "");
	struct met_link *links = NULL;
	size_t n_links = 0;
	char *remaining = hk_xstrdup(path);   /* what is left to resolve, always owned */
	char *target = hk_xmalloc(PATH_MAX + 1);
	struct stat st;
	int r = 0;
	bool final_is_dir = true;

	const char *p = remaining;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;   /* the path names the directory reached so far */
		const char *end = strchrnul(p, '/');
		hk_autofree char *comp = hk_xstrndup(p, (size_t)(end - p));
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = *rest == '\0';
		bool trailing_slash = last && *end == '/';

		if (strcmp(comp, ".") == 0) {
			p = end;
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			walk_pop(&w);
			p = end;
			continue;
		}
		if (fstatat(walk_fd(&w), comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = hk_fail_errno(err, errno, "%s inside root %s: %s%s%s", path, root->path,
					  w.canon.len ? w.canon.data : "", "/", comp);
			goto free_walk;
		}
		if (S_ISLNK(st.st_mode)) {
			if (n_links == MAX_LINKS) {
				r = hk_fail(err, ELOOP,
					    "%s inside root %s: more than %d symbolic links", path,
					    root->path, MAX_LINKS);
				goto free_walk;
			}
			ssize_t n = readlinkat(walk_fd(&w), comp, target, PATH_MAX + 1);
			if (n < 0 || n > PATH_MAX) {
				r = n < 0 ? hk_fail_errno(err, errno, "%s inside root %s: readlink %s/%s",
							  path, root->path, w.canon.data, comp)
					  : hk_fail(err, ENAMETOOLONG,
						    "%s inside root %s: link %s/%s is too long", path,
						    root->path, w.canon.data, comp);
				goto free_walk;
			}
			target[n] = '\0';
			links = hk_xrealloc(links, (n_links + 1) * sizeof(*links));
			links[n_links].path = hk_xasprintf("%s/%s", w.canon.data, comp);
			links[n_links].terminal = last && !trailing_slash;
			n_links++;
			/* An absolute target restarts at the ROOT, never at the host's "/". */
			if (target[0] == '/')
				while (w.depth)
					walk_pop(&w);
			char *next = hk_xasprintf("%s%s%s", target, *rest || trailing_slash ? "/" : "",
						  rest);
			free(remaining);
			remaining = next;
			p = remaining;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(walk_fd(&w), comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				r = hk_fail_errno(err, errno, "%s inside root %s: open %s/%s", path,
						  root->path, w.canon.data, comp);
				goto free_walk;
			}
			walk_push(&w, fd, comp);
			p = end;
			continue;
		}
		if (!last || trailing_slash) {
			r = hk_fail_errno(err, ENOTDIR, "%s inside root %s: %s/%s", path, root->path,
					  w.canon.data, comp);
			goto free_walk;
		}
		hk_buf_putc(&w.canon, '/');
		hk_buf_puts(&w.canon, comp);
		final_is_dir = false;
		break;
	}
	if (final_is_dir && fstat(walk_fd(&w), &st) < 0) {
		r = hk_fail_errno(err, errno, "%s inside root %s: fstat", path, root->path);
		goto free_walk;
	}
	out->path = hk_xstrdup(w.canon.len ? w.canon.data : "/");
	out->mode = st.st_mode;
	for (size_t i = 0; i < n_links; i++) {
		bool file_link = links[i].terminal && !S_ISDIR(st.st_mode);
		hk_strset_add(file_link ? &out->file_links : &out->dir_links, links[i].path);
	}
free_walk:
	for (size_t i = 0; i < n_links; i++)
		free(links[i].path);
	free(links);
	free(remaining);
	free(target);
	walk_free(&w);
	return r;
}

int hk_root_open_canonical(const struct hk_root *root, const char *canonical,
			   struct hk_error *err)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = canonical[1] ? canonical + 1 : ".";
	int fd = (int)syscall(SYS_openat2, root->fd, rel, &how, sizeof(how));
	/* Before Linux 5.6: the canonical path has no link by construction; O_NOFOLLOW still
	 * refuses one in the last component. */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(root->fd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "%s inside root %s: open", canonical, root->path);
	return fd;
}

int hk_root_resolve_regular(const struct hk_root *root, const char *path,
			    struct hk_resolved *res, struct hk_error *err)
{
	int r = hk_root_resolve(root, path, res, err);
	if (hk_root_absent(r)) {
		hk_error_clear(err);
		return 0;
	}
	if (r < 0)
		return r;
	if (!S_ISREG(res->mode)) {
		hk_resolved_free(res);
		return 0;
	}
	return 1;
}

int hk_root_read(const struct hk_root *root, const char *canonical, struct hk_buf *out,
		 struct hk_error *err)
{
	hk_autoclose int fd = hk_root_open_canonical(root, canonical, err);
	if (fd < 0)
		return fd;
	int r = hk_buf_read_fd(out, fd);
	if (r < 0)
		return hk_fail_errno(err, -r, "%s inside root %s: read", canonical, root->path);
	return 0;
}

char *hk_root_path_join(const char *dir, const char *name)
{
	return hk_xasprintf("%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
}

char *hk_root_path_dir(const char *canonical)
{
	const char *slash = strrchr(canonical, '/');
	if (!slash || slash == canonical)
		return hk_xstrdup("/");
	return hk_xstrndup(canonical, (size_t)(slash - canonical));
}
