/* The store view: see view.h for what it is and why. */
#include "core/store/view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/root/rootpath.h"
#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/store/statcache.h"
#include "core/formats/tree.h"
#include "core/basic/path.h"
#include "core/basic/util.h"

#define VIEWS_DIR ".views"
/* Part of the snapshot id: a change in how views are made gives new views, never an old one
 * made the old way. */
#define VIEW_MAGIC "harkaq-view 4\n"
#define HEX_LEN 64

/* ---- the snapshot: which artifacts, in which order ---------------------------------------- */

static int cmp_merge_order(const void *a, const void *b)
{
	const struct hk_artifact *x = *(const struct hk_artifact *const *)a;
	const struct hk_artifact *y = *(const struct hk_artifact *const *)b;
	if (x->origin != y->origin)
		return (int)x->origin - (int)y->origin;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	c = strcmp(x->version, y->version);
	return c ? c : strcmp(x->id, y->id);
}

/* The artifacts the view merges, in merge order, and the dpkg states whose maintainer-made
 * links it shows (add_state_links), by id. */
struct snap {
	const struct hk_artifact **arts;
	size_t n;
	const struct hk_artifact **states;
	size_t n_states;
	const char *const *hide;        /* names left out (hk_view_ensure_hiding) */
	size_t n_hide;
};

static void snap_free(struct snap *sn)
{
	free(sn->arts);
	free(sn->states);
	memset(sn, 0, sizeof(*sn));
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp((*(const struct hk_artifact *const *)a)->id,
		      (*(const struct hk_artifact *const *)b)->id);
}

static bool hidden(const char *name, const char *const *hide, size_t n_hide)
{
	for (size_t i = 0; i < n_hide; i++)
		if (strcmp(hide[i], name) == 0)
			return true;
	return false;
}

/* A Debian build's sealed outputs (SOURCE_debs: a Debian package name has no '_') are .deb
 * files at the top of their tree, paths no build reads; shown, they would only make every
 * sealed package a new view for the next build. */
static bool is_debian_outputs(const struct hk_artifact *a)
{
	size_t n = strlen(a->name);
	return a->origin == HK_ORIGIN_BUILD && n > 5 && strcmp(a->name + n - 5, "_debs") == 0;
}

static int snapshot(struct hk_store *s, const char *const *hide, size_t n_hide, struct snap *sn,
		    char id[HK_B3_ID_LEN], struct hk_error *err)
{
	memset(sn, 0, sizeof(*sn));
	const struct hk_artifact *const *all = NULL;
	size_t n_all = 0;
	int r = hk_store_list(s, &all, &n_all, err);
	if (r < 0)
		return r;
	sn->arts = hk_xcalloc(n_all + 1, sizeof(*sn->arts));
	sn->states = hk_xcalloc(n_all + 1, sizeof(*sn->states));
	for (size_t i = 0; i < n_all; i++) {
		if (all[i]->origin == HK_ORIGIN_STATE)
			sn->states[sn->n_states++] = all[i];
		else if (all[i]->origin != HK_ORIGIN_BASE && !is_debian_outputs(all[i]) &&
			 !hidden(all[i]->name, hide, n_hide))
			sn->arts[sn->n++] = all[i];
	}
	qsort(sn->arts, sn->n, sizeof(*sn->arts), cmp_merge_order);
	qsort(sn->states, sn->n_states, sizeof(*sn->states), cmp_id);
	struct hk_buf text = HK_BUF_INIT;
	hk_buf_puts(&text, VIEW_MAGIC);
	for (size_t i = 0; i < sn->n; i++)
		hk_buf_printf(&text, "%s\n", sn->arts[i]->id);
	for (size_t i = 0; i < sn->n_states; i++)
		hk_buf_printf(&text, "state %s\n", sn->states[i]->id);
	hk_b3_id(text.data, text.len, id);
	hk_buf_free(&text);
	return 0;
}

/* ---- making the tree ---------------------------------------------------------------------- */

struct pending_link {
	const struct hk_artifact *a;
	char *path;       /* relative to the tree root */
	char *target;
};

struct builder {
	int treefd, linksfd, plainfd;
	const char *tree_shown;
	struct hk_view *view;
	struct pending_link *links;
	size_t n_links, cap_links;
};

/* mkdir -p of the parents of `rel` beneath dirfd. */
static int make_parents(int dirfd, const char *rel, const char *shown, struct hk_error *err)
{
	hk_autofree char *p = hk_xstrdup(rel);
	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdirat(dirfd, p, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "cannot create %s/%s", shown, p);
		*s = '/';
	}
	return 0;
}

/* Copies a file the store would not let us link (a filesystem without hard links across
 * owners): the view must still show it. */
static int copy_file(const char *from, int dirfd, const char *rel, struct hk_error *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return hk_fail_errno(err, errno, "cannot open %s", from);
	int out = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (out < 0) {
		int e = errno;
		close(in);
		return e == EEXIST ? 0 : hk_fail_errno(err, e, "cannot create %s in the view", rel);
	}
	char buf[1 << 16];
	ssize_t n;
	int r = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = hk_fail_errno(err, errno ? errno : EIO, "cannot write %s in the view", rel);
			break;
		}
	if (n < 0 && r == 0)
		r = hk_fail_errno(err, errno, "cannot read %s", from);
	/* Its mode as the store's, less the write bits (an executable stays one). */
	struct stat st;
	if (r == 0 && (fstat(in, &st) < 0 || fchmod(out, st.st_mode & 0555) < 0))
		r = hk_fail_errno(err, errno, "cannot give %s its mode in the view", rel);
	close(in);
	if (close(out) < 0 && r == 0)
		r = hk_fail_errno(err, errno, "cannot write %s in the view", rel);
	return r;
}

static int add_artifact(struct builder *b, struct hk_store *s, const struct hk_artifact *a,
			bool (*merged)(const char *path), struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int r = hk_store_files(s, a, &t, err);
	if (r < 0)
		return hk_wrap(err, "the view: artifact %s", a->dirname);
	b->view->n_artifacts++;
	struct hk_buf sandbox = HK_BUF_INIT;
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct hk_tree_entry *e = &t.entries[i];
		sandbox.len = 0;
		hk_buf_putc(&sandbox, '/');
		hk_buf_puts(&sandbox, e->path);
		if (!merged(hk_buf_str(&sandbox)) || hk_view_hides(hk_buf_str(&sandbox)))
			continue;
		/* The first artifact to claim a path keeps it; a path under something an earlier
		 * artifact made a file or link fails with ENOTDIR/ENOENT and is skipped too. */
		switch (e->type) {
		case HK_TREE_DIR:
			if (mkdirat(b->treefd, e->path, 0755) < 0 && errno != EEXIST &&
			    errno != ENOTDIR && errno != ENOENT)
				r = hk_fail_errno(err, errno, "cannot create %s/%s", b->tree_shown,
						  e->path);
			break;
		case HK_TREE_FILE: {
			hk_autofree char *from = hk_xasprintf("%s/%s", a->path, e->path);
			if (linkat(AT_FDCWD, from, b->treefd, e->path, 0) == 0) {
				b->view->n_files++;
			} else if (errno == EPERM || errno == EXDEV || errno == EMLINK) {
				r = copy_file(from, b->treefd, e->path, err);
				if (r == 0)
					b->view->n_files++;
			} else if (errno != EEXIST && errno != ENOTDIR && errno != ENOENT) {
				r = hk_fail_errno(err, errno, "cannot link %s into the view", from);
			}
			break;
		}
		case HK_TREE_SYMLINK:
			/* Made as it is now, so that later artifacts see the path taken; whether it
			 * becomes a trap is decided once every artifact is in (its target may come
			 * from any of them). */
			if (symlinkat(e->target, b->treefd, e->path) < 0) {
				if (errno != EEXIST && errno != ENOTDIR && errno != ENOENT)
					r = hk_fail_errno(err, errno, "cannot create %s/%s",
							  b->tree_shown, e->path);
				break;
			}
			if (b->n_links == b->cap_links) {
				b->cap_links = b->cap_links ? b->cap_links * 2 : 256;
				b->links = hk_xrealloc(b->links, b->cap_links * sizeof(*b->links));
			}
			b->links[b->n_links++] = (struct pending_link){
				.a = a, .path = hk_xstrdup(e->path), .target = hk_xstrdup(e->target),
			};
			break;
		}
	}
	hk_buf_free(&sandbox);
	hk_tree_free(&t);
	return r;
}

/* The links maintainer scripts made, as the dpkg states of Debian builds recorded them
 * (engine/debian/debstate.h): update-alternatives' /usr/bin/yacc -> /etc/alternatives/yacc ->
 * /usr/bin/bison.yacc.  No package ships them, so without this a build running `yacc` with
 * bison undeclared would get "command not found" and no denial.  Each becomes a pending link of
 * the view (a trap once settled) attributed to the artifact that ships the file the chain
 * ends at, followed through the state's own links (at most 8): following it names bison.  A
 * path the view already has, or a chain that ends at no file of a store artifact, is left. */
static int add_state_links(struct builder *b, struct hk_store *s,
			   const struct hk_artifact *const *states, size_t n_states,
			   const char *const *hide, size_t n_hide,
			   bool (*merged)(const char *path), struct hk_error *err)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < n_states; i++) {
		struct hk_tree t = HK_TREE_INIT;
		r = hk_store_files(s, states[i], &t, err);
		if (r < 0)
			return hk_wrap(err, "the view: dpkg state %s", states[i]->dirname);
		for (size_t k = 0; r == 0 && k < t.n; k++) {
			const struct hk_tree_entry *e = &t.entries[k];
			hk_autofree char *sp = hk_xasprintf("/%s", e->path);
			struct stat st;
			if (e->type != HK_TREE_SYMLINK || !merged(sp) || hk_view_hides(sp) ||
			    fstatat(b->treefd, e->path, &st, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			char *cur = hk_path_join_normalise(sp, e->target);
			for (int hop = 0; hop < 8; hop++) {
				const struct hk_tree_entry *next = NULL;
				for (size_t m = 0; m < t.n && !next; m++)
					if (t.entries[m].type == HK_TREE_SYMLINK &&
					    strcmp(t.entries[m].path, cur + 1) == 0)
						next = &t.entries[m];
				if (!next)
					break;
				char *joined = hk_path_join_normalise(cur, next->target);
				free(cur);
				cur = joined;
			}
			const struct hk_artifact **prov = NULL;
			size_t n_prov = 0;
			struct hk_error ignored;
			const struct hk_artifact *owner = NULL;
			if (hk_store_providers(s, cur, &prov, &n_prov, &ignored) == 0)
				for (size_t m = 0; m < n_prov; m++)
					if (prov[m]->origin != HK_ORIGIN_STATE &&
					    prov[m]->origin != HK_ORIGIN_BASE &&
					    !hidden(prov[m]->name, hide, n_hide) &&
					    (!owner || cmp_merge_order(&prov[m], &owner) < 0))
						owner = prov[m];
			free(prov);
			if (owner && make_parents(b->treefd, e->path, b->tree_shown, err) == 0 &&
			    symlinkat(cur, b->treefd, e->path) == 0) {
				if (b->n_links == b->cap_links) {
					b->cap_links = b->cap_links ? b->cap_links * 2 : 256;
					b->links = hk_xrealloc(b->links, b->cap_links * sizeof(*b->links));
				}
				b->links[b->n_links++] = (struct pending_link){
					.a = owner, .path = hk_xstrdup(e->path), .target = hk_xstrdup(cur),
				};
			}
			free(cur);
		}
		hk_tree_free(&t);
	}
	return r;
}

/* Whether the sandbox path `abs` is a directory inside `root` (symlinks followed inside it). */
static bool dir_in_root(const struct hk_root *root, const char *abs)
{
	if (root->fd < 0)
		return false;
	struct hk_resolved res = HK_RESOLVED_INIT;
	struct hk_error ignored;
	bool is_dir = hk_root_resolve(root, abs, &res, &ignored) == 0 && S_ISDIR(res.mode);
	hk_resolved_free(&res);
	return is_dir;
}

/* Replaces a pending link by a link to its trap, and makes the trap (an empty file) and its
 * plain twin (a link to the original target, absolute). */
static int trap_link(struct builder *b, const struct pending_link *l, struct hk_error *err)
{
	hk_autofree char *rel = hk_xasprintf("%s/%s", l->a->dirname, l->path);
	hk_autofree char *trap = hk_xasprintf(HK_VIEW_TRAP_DIR "/%s", rel);
	hk_autofree char *sandbox_path = hk_xasprintf("/%s", l->path);
	hk_autofree char *target = hk_path_join_normalise(sandbox_path, l->target);
	int r = make_parents(b->linksfd, rel, "the view's traps", err);
	if (r == 0)
		r = make_parents(b->plainfd, rel, "the view's links", err);
	if (r < 0)
		return r;
	/* Executable: a program run through the link must reach Landlock's execute check, and
	 * DAC refuses a file without an x bit before Landlock is asked (kernel-facts.md §6). */
	int fd = openat(b->linksfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0555);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot create the trap for %s", sandbox_path);
	close(fd);
	if (symlinkat(target, b->plainfd, rel) < 0)
		return hk_fail_errno(err, errno, "cannot create the plain link for %s", sandbox_path);
	if (unlinkat(b->treefd, l->path, 0) < 0 || symlinkat(trap, b->treefd, l->path) < 0)
		return hk_fail_errno(err, errno, "cannot replace %s/%s by its trap", b->tree_shown,
				     l->path);
	b->view->n_traps++;
	return 0;
}

static int settle_links(struct builder *b, const char *tree_path, const char *base_root,
			struct hk_error *err)
{
	struct hk_root view_root = HK_ROOT_INIT, base = HK_ROOT_INIT;
	struct hk_error ignored;
	int r = hk_root_open(tree_path, &view_root, err);
	if (r < 0)
		return r;
	if (base_root && hk_root_open(base_root, &base, &ignored) < 0)
		base.fd = -1;
	/* Decide every link before changing any: a trap is no longer a link to follow. */
	bool *keep = hk_xcalloc(b->n_links + 1, sizeof(bool));
	for (size_t i = 0; i < b->n_links; i++) {
		hk_autofree char *sp = hk_xasprintf("/%s", b->links[i].path);
		hk_autofree char *target = hk_path_join_normalise(sp, b->links[i].target);
		keep[i] = dir_in_root(&view_root, target) || dir_in_root(&base, target);
	}
	for (size_t i = 0; r == 0 && i < b->n_links; i++)
		if (!keep[i])
			r = trap_link(b, &b->links[i], err);
	free(keep);
	hk_root_close(&view_root);
	hk_root_close(&base);
	return r;
}

static int open_dir_at(int dirfd, const char *name, const char *shown, int *out,
		       struct hk_error *err)
{
	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "cannot create %s/%s", shown, name);
	*out = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*out < 0)
		return hk_fail_errno(err, errno, "cannot open %s/%s", shown, name);
	return 0;
}

/* Makes the view in a temporary directory of STORE/.views and renames it into place. */
static int make_view(struct hk_store *s, const char *views, const char *hex,
		     const struct snap *sn, const char *base_root,
		     bool (*merged)(const char *path), struct hk_view *v, struct hk_error *err)
{
	const struct hk_artifact *const *arts = sn->arts;
	size_t n = sn->n;
	hk_autofree char *tmp = hk_xasprintf("%s/.tmp-XXXXXX", views);
	if (!mkdtemp(tmp))
		return hk_fail_errno(err, errno, "cannot create a temporary view in %s", views);
	/* mkdtemp made it 0700; the build user must read the view. */
	int tmpfd = chmod(tmp, 0755) < 0 ? -1 : open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct builder b = { .treefd = -1, .linksfd = -1, .plainfd = -1, .view = v };
	hk_autofree char *tree_shown = hk_xasprintf("%s/tree", tmp);
	b.tree_shown = tree_shown;
	int r = tmpfd < 0 ? hk_fail_errno(err, errno, "cannot make %s readable and open it", tmp) : 0;
	if (r == 0)
		r = open_dir_at(tmpfd, "tree", tmp, &b.treefd, err);
	if (r == 0)
		r = open_dir_at(tmpfd, "links", tmp, &b.linksfd, err);
	if (r == 0)
		r = open_dir_at(tmpfd, "links-plain", tmp, &b.plainfd, err);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_artifact(&b, s, arts[i], merged, err);
	if (r == 0)
		r = add_state_links(&b, s, sn->states, sn->n_states, sn->hide, sn->n_hide, merged,
				    err);
	if (r == 0)
		r = settle_links(&b, tree_shown, base_root, err);
	if (r == 0) {
		/* What the view holds, for a person looking at it. */
		struct hk_buf list = HK_BUF_INIT;
		hk_buf_puts(&list, VIEW_MAGIC);
		for (size_t i = 0; i < n; i++)
			hk_buf_printf(&list, "%s %s\n", arts[i]->id, arts[i]->name);
		int fd = openat(tmpfd, "artifacts", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
		if (fd < 0 || write(fd, list.data, list.len) != (ssize_t)list.len)
			r = hk_fail_errno(err, errno ? errno : EIO, "cannot write %s/artifacts", tmp);
		if (fd >= 0)
			close(fd);
		hk_buf_free(&list);
	}
	for (size_t i = 0; i < b.n_links; i++) {
		free(b.links[i].path);
		free(b.links[i].target);
	}
	free(b.links);
	int fds[] = { b.treefd, b.linksfd, b.plainfd, tmpfd };
	for (size_t i = 0; i < HK_ARRAY_LEN(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	hk_autofree char *final = hk_xasprintf("%s/%s", views, hex);
	if (r == 0 && rename(tmp, final) < 0) {
		/* Another build made the same view meanwhile: theirs is as good as ours. */
		if (errno != EEXIST && errno != ENOTEMPTY)
			r = hk_fail_errno(err, errno, "cannot move the view into place at %s", final);
	} else if (r == 0) {
		v->made = true;
		return 0;
	}
	struct hk_error ignored;
	if (hk_store_remove_tree(tmp, &ignored) < 0) {
		/* r says why the view was not made; the half-made one is not a view (no id). */
	}
	return r;
}

/* Removes the views other than `keep_hex` that no build holds. */
static void prune_views(const char *views, const char *keep_hex)
{
	int fd = open(views, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = NULL;
	struct hk_error ignored;
	if (hk_dir_fdopen(fd, views, &d, &ignored) < 0)
		return;
	struct dirent *de;
	char **old = NULL;
	size_t n_old = 0;
	while (hk_dir_next(d, views, &de, &ignored) == 0 && de) {
		if (strlen(de->d_name) == HEX_LEN && strcmp(de->d_name, keep_hex) != 0) {
			old = hk_xrealloc(old, (n_old + 1) * sizeof(*old));
			old[n_old++] = hk_xstrdup(de->d_name);
		}
	}
	closedir(d);
	for (size_t i = 0; i < n_old; i++) {
		hk_autofree char *lock = hk_xasprintf("%s/%s.lock", views, old[i]);
		hk_autofree char *dir = hk_xasprintf("%s/%s", views, old[i]);
		int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) == 0) {
			/* An old view that stays is pruned again next time; its lock stays with it. */
			if (hk_store_remove_tree(dir, &ignored) == 0)
				unlink(lock);
		}
		if (lfd >= 0)
			close(lfd);
		free(old[i]);
	}
	free(old);
}

int hk_view_ensure(struct hk_store *s, const char *base_root, bool (*merged)(const char *path),
		   struct hk_view *out, struct hk_error *err)
{
	return hk_view_ensure_hiding(s, base_root, merged, NULL, 0, out, err);
}

int hk_view_ensure_hiding(struct hk_store *s, const char *base_root,
			  bool (*merged)(const char *path), const char *const *hide, size_t n_hide,
			  struct hk_view *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	out->lock_fd = -1;
	struct snap sn;
	int r = snapshot(s, hide, n_hide, &sn, out->id, err);
	if (r < 0)
		return r;
	sn.hide = hide;
	sn.n_hide = n_hide;
	const struct hk_artifact **arts = sn.arts;
	size_t n = sn.n;
	const char *hex = out->id + 3;
	hk_autofree char *views = hk_xasprintf("%s/" VIEWS_DIR, hk_store_dir(s));
	if (mkdir(views, 0755) < 0 && errno != EEXIST) {
		snap_free(&sn);
		return hk_fail_errno(err, errno, "cannot create %s", views);
	}
	hk_autofree char *lock = hk_xasprintf("%s/%s.lock", views, hex);
	out->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (out->lock_fd < 0 || flock(out->lock_fd, LOCK_SH) < 0) {
		r = hk_fail_errno(err, errno, "cannot lock %s", lock);
		snap_free(&sn);
		hk_view_release(out);
		return r;
	}
	out->path = hk_xasprintf("%s/%s/tree", views, hex);
	out->links = hk_xasprintf("%s/%s/links", views, hex);
	out->links_plain = hk_xasprintf("%s/%s/links-plain", views, hex);
	hk_autofree char *marker = hk_xasprintf("%s/%s/artifacts", views, hex);
	struct stat st;
	if (lstat(marker, &st) < 0) {
		/* Linking and unlinking the store's files sets their ctime: the artifacts whose
		 * stat cache matched before are recorded again after (core/store/statcache.h). */
		bool *warm = hk_xcalloc(n + 1, sizeof(bool));
		for (size_t i = 0; i < n; i++)
			warm[i] = hk_statcache_matches(s, arts[i]);
		r = make_view(s, views, hex, &sn, base_root, merged, out, err);
		if (r == 0)
			prune_views(views, hex);
		for (size_t i = 0; r == 0 && i < n; i++)
			if (warm[i])
				hk_statcache_refresh(s, arts[i]);
		free(warm);
	} else {
		out->n_artifacts = n;
	}
	snap_free(&sn);
	if (r < 0)
		hk_view_release(out);
	return r;
}

void hk_view_release(struct hk_view *v)
{
	if (v->lock_fd >= 0)
		close(v->lock_fd);
	free(v->path);
	free(v->links);
	free(v->links_plain);
	v->path = v->links = v->links_plain = NULL;
	v->lock_fd = -1;
}
