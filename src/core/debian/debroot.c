#include "core/debian/debroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf_fd.h"
#include "core/debian/deb.h"
#include "core/root/rootpath.h"
#include "core/basic/strset.h"
#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/store/store.h"
#include "core/basic/util.h"

static char *root_join(const char *root, const char *rel)
{
	size_t n = strlen(root);
	return hk_xasprintf("%s%s%s", root, n && root[n - 1] == '/' ? "" : "/", rel);
}

/* The whole of a small text file of the database. */
static int slurp(int dirfd, const char *name, const char *shown, struct hk_buf *out,
		 struct hk_error *err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", shown);
	int r = hk_buf_read_fd(out, fd);
	close(fd);
	if (r < 0)
		return hk_fail_errno(err, -r, "cannot read %s", shown);
	return 0;
}

static int cmp_pkg(const void *a, const void *b)
{
	const struct hk_deb_pkg *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->arch, y->arch);
}

int hk_debroot_packages(const char *root, struct hk_deb_pkglist *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	hk_autofree char *status = root_join(root, "var/lib/dpkg/status");
	struct hk_buf text = HK_BUF_INIT;
	int r = slurp(AT_FDCWD, status, status, &text, err);
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	if (r == 0)
		r = hk_deb_parse_control(hk_buf_str(&text), text.len, status, &st, &ns, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ns; i++) {
		const char *name = hk_deb_field(&st[i], "Package");
		const char *state = hk_deb_field(&st[i], "Status");
		/* "want flag status": only the last word says whether the files are there. */
		const char *last = state ? strrchr(state, ' ') : NULL;
		if (!name || !last || strcmp(last + 1, "installed") != 0)
			continue;
		const char *version = hk_deb_field(&st[i], "Version");
		const char *arch = hk_deb_field(&st[i], "Architecture");
		out->items = hk_xrealloc(out->items, (out->n + 1) * sizeof(*out->items));
		out->items[out->n++] = (struct hk_deb_pkg){
			.name = hk_xstrdup(name),
			.version = hk_xstrdup(version ? version : ""),
			.arch = hk_xstrdup(arch ? arch : ""),
		};
	}
	hk_deb_stanzas_free(st, ns);
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_pkg);
	return 0;
}

void hk_deb_pkglist_free(struct hk_deb_pkglist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].version);
		free(l->items[i].arch);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* ---- owners --------------------------------------------------------------------------- */

struct owners_builder {
	struct hk_deb_owner *items;
	size_t n, cap;
	const struct hk_root *root;
	/* .list files are grouped by directory: the last directory resolved is reused. */
	char *last_dir;        /* as listed */
	char *last_canonical;  /* its canonical path, or NULL when it does not resolve */
	/* Every directory resolved so far (as listed), its canonical path beside it at the same
	 * position (NULL: it does not resolve).  Packages list the same directories over and
	 * over (/usr/share/doc, the locales): the base's 8,000 changes of directory resolve
	 * ~1,500 distinct ones, each walked component by component in the root otherwise. */
	struct hk_strset dirs;
	char **canonical;
};

static void add_owner(struct owners_builder *b, char *path, mode_t mode, const char *pkg)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->items = hk_xrealloc(b->items, b->cap * sizeof(*b->items));
	}
	b->items[b->n++] = (struct hk_deb_owner){ .path = path, .mode = mode,
						   .packages = hk_xstrdup(pkg) };
}

/* The canonical form of the listed path `p`, or NULL when its directory is not in the root. */
static char *canonical_listed(struct owners_builder *b, const char *p)
{
	const char *slash = strrchr(p, '/');
	hk_autofree char *dir = hk_xstrndup(p, (size_t)(slash - p));
	if (!b->last_dir || strcmp(b->last_dir, dir) != 0) {
		free(b->last_dir);
		free(b->last_canonical);
		b->last_dir = hk_steal_ptr(&dir);
		b->last_canonical = NULL;
		size_t at = hk_strset_find(&b->dirs, b->last_dir);
		if (at != (size_t)-1) {
			b->last_canonical = b->canonical[at] ? hk_xstrdup(b->canonical[at]) : NULL;
		} else {
			struct hk_resolved res = HK_RESOLVED_INIT;
			struct hk_error ignored;
			if (b->last_dir[0] == '\0')
				b->last_canonical = hk_xstrdup("");
			else if (hk_root_resolve(b->root, b->last_dir, &res, &ignored) == 0 &&
				 S_ISDIR(res.mode))
				b->last_canonical = strcmp(res.path, "/") == 0
							    ? hk_xstrdup("")
							    : hk_steal_ptr(&res.path);
			hk_resolved_free(&res);
			hk_strset_add(&b->dirs, b->last_dir);
			b->canonical = hk_xrealloc(b->canonical,
						   b->dirs.len * sizeof(*b->canonical));
			b->canonical[b->dirs.len - 1] =
				b->last_canonical ? hk_xstrdup(b->last_canonical) : NULL;
		}
	}
	if (!b->last_canonical)
		return NULL;
	return hk_xasprintf("%s/%s", b->last_canonical, slash + 1);
}

static int add_list_file(struct owners_builder *b, int infofd, const char *file,
			 const char *shown_dir, struct hk_error *err)
{
	/* PACKAGE.list or PACKAGE:ARCH.list (Multi-Arch: same). */
	hk_autofree char *pkg = hk_xstrndup(file, strlen(file) - strlen(".list"));
	char *colon = strchr(pkg, ':');
	if (colon)
		*colon = '\0';
	hk_autofree char *shown = hk_xasprintf("%s/%s", shown_dir, file);
	struct hk_buf text = HK_BUF_INIT;
	int r = slurp(infofd, file, shown, &text, err);
	if (r < 0) {
		hk_buf_free(&text);
		return r;
	}
	char *s = text.data;
	char *end = s + text.len;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len > 1 && s[0] == '/') {
			s[len] = '\0';
			char *c = canonical_listed(b, s);
			if (c) {
				/* Only what is really there: a path listed but absent (a removed
				 * conffile) is nobody's file in this root. */
				struct stat st;
				if (fstatat(b->root->fd, c + 1, &st, AT_SYMLINK_NOFOLLOW) == 0)
					add_owner(b, c, st.st_mode, pkg);
				else
					free(c);
			}
		}
		s += len + 1;
	}
	hk_buf_free(&text);
	return 0;
}

static int cmp_owner(const void *a, const void *b)
{
	const struct hk_deb_owner *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->packages, y->packages);
}

/* Sorted by path; several packages listing one path are joined "a, b" (sorted, unique). */
static void merge_duplicates(struct owners_builder *b)
{
	if (b->n > 1)
		qsort(b->items, b->n, sizeof(*b->items), cmp_owner);
	size_t w = 0;
	for (size_t i = 0; i < b->n;) {
		size_t j = i + 1;
		while (j < b->n && strcmp(b->items[j].path, b->items[i].path) == 0)
			j++;
		struct hk_deb_owner keep = b->items[i];
		for (size_t k = i + 1; k < j; k++) {
			/* The group is sorted by package: a package listed twice is adjacent. */
			if (strcmp(b->items[k].packages, b->items[k - 1].packages) != 0) {
				char *joined = hk_xasprintf("%s, %s", keep.packages,
							    b->items[k].packages);
				free(keep.packages);
				keep.packages = joined;
			}
		}
		for (size_t k = i + 1; k < j; k++) {
			free(b->items[k].path);
			free(b->items[k].packages);
		}
		b->items[w++] = keep;
		i = j;
	}
	b->n = w;
}

int hk_debroot_owners_load(const char *root, struct hk_debroot_owners *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_root r = HK_ROOT_INIT;
	int rc = hk_root_open(root, &r, err);
	if (rc < 0)
		return rc;
	hk_autofree char *shown_dir = root_join(root, "var/lib/dpkg/info");
	int infofd = openat(r.fd, "var/lib/dpkg/info", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (infofd < 0) {
		rc = hk_fail_errno(err, errno, "cannot open %s (not a Debian root?)", shown_dir);
		hk_root_close(&r);
		return rc;
	}
	int listfd = dup(infofd);
	DIR *d = NULL;
	rc = listfd < 0 ? hk_fail_errno(err, errno, "dup") : hk_dir_fdopen(listfd, shown_dir, &d, err);
	struct owners_builder b = { .root = &r };
	struct dirent *de;
	/* Sorted file names: the same root gives the same table, whatever readdir's order. */
	char **names = NULL;
	size_t n_names = 0;
	while (rc == 0 && (rc = hk_dir_next(d, shown_dir, &de, err)) == 0 && de) {
		size_t len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".list") == 0) {
			names = hk_xrealloc(names, (n_names + 1) * sizeof(*names));
			names[n_names++] = hk_xstrdup(de->d_name);
		}
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n_names; i++) {
		if (rc == 0)
			rc = add_list_file(&b, infofd, names[i], shown_dir, err);
		free(names[i]);
	}
	free(names);
	close(infofd);
	hk_root_close(&r);
	free(b.last_dir);
	free(b.last_canonical);
	for (size_t i = 0; i < b.dirs.len; i++)
		free(b.canonical[i]);
	free(b.canonical);
	hk_strset_free(&b.dirs);
	if (rc < 0) {
		out->items = b.items;
		out->n = b.n;
		hk_debroot_owners_free(out);
		return rc;
	}
	merge_duplicates(&b);
	out->items = b.items;
	out->n = b.n;
	return 0;
}

const char *hk_debroot_owner(const struct hk_debroot_owners *o, const char *path)
{
	size_t lo = 0, hi = o->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(o->items[mid].path, path);
		if (c == 0)
			return o->items[mid].packages;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void hk_debroot_owners_free(struct hk_debroot_owners *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->items[i].path);
		free(o->items[i].packages);
	}
	free(o->items);
	memset(o, 0, sizeof(*o));
}

/* ---- closures inside the base --------------------------------------------------------- */

struct db_pkg {
	const char *name;
	struct hk_deb_rel_group *deps;   /* Pre-Depends then Depends */
	size_t n_deps;
	char **provides;
	size_t n_provides;
};

static void append_relations(struct db_pkg *p, const struct hk_deb_stanza *st, const char *field,
			     int *rc, const char *status, struct hk_error *err)
{
	const char *text = hk_deb_field(st, field);
	if (!text || *rc < 0)
		return;
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	if (hk_deb_parse_relations(text, field, &g, &ng, err) < 0) {
		*rc = hk_wrap(err, "%s: package %s", status, p->name);
		return;
	}
	if (strcmp(field, "Provides") == 0) {
		for (size_t i = 0; i < ng; i++)
			for (size_t k = 0; k < g[i].n; k++) {
				p->provides = hk_xrealloc(p->provides,
							  (p->n_provides + 1) * sizeof(char *));
				p->provides[p->n_provides++] = hk_xstrdup(g[i].alts[k].name);
			}
		hk_deb_relations_free(g, ng);
		return;
	}
	p->deps = hk_xrealloc(p->deps, (p->n_deps + ng + 1) * sizeof(*p->deps));
	memcpy(p->deps + p->n_deps, g, ng * sizeof(*g));
	p->n_deps += ng;
	free(g);
}

static bool pkg_answers(const struct db_pkg *p, const char *name)
{
	if (strcmp(p->name, name) == 0)
		return true;
	for (size_t k = 0; k < p->n_provides; k++)
		if (strcmp(p->provides[k], name) == 0)
			return true;
	return false;
}

int hk_debroot_closure(const char *root, const char *const *names, size_t n,
		       struct hk_strset *out, struct hk_error *err)
{
	hk_autofree char *status = root_join(root, "var/lib/dpkg/status");
	struct hk_buf text = HK_BUF_INIT;
	int rc = slurp(AT_FDCWD, status, status, &text, err);
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	if (rc == 0)
		rc = hk_deb_parse_control(hk_buf_str(&text), text.len, status, &st, &ns, err);
	hk_buf_free(&text);
	if (rc < 0)
		return rc;
	struct db_pkg *pk = hk_xcalloc(ns + 1, sizeof(*pk));
	size_t np = 0;
	for (size_t i = 0; i < ns && rc == 0; i++) {
		const char *name = hk_deb_field(&st[i], "Package");
		const char *state = hk_deb_field(&st[i], "Status");
		const char *last = state ? strrchr(state, ' ') : NULL;
		if (!name || !last || strcmp(last + 1, "installed") != 0)
			continue;
		struct db_pkg *p = &pk[np++];
		p->name = name;
		append_relations(p, &st[i], "Pre-Depends", &rc, status, err);
		append_relations(p, &st[i], "Depends", &rc, status, err);
		append_relations(p, &st[i], "Provides", &rc, status, err);
	}
	bool *reached = hk_xcalloc(np + 1, sizeof(bool));
	size_t *queue = hk_xcalloc(np + 1, sizeof(size_t));
	size_t qn = 0;
	/* Linear in the installed packages per name: a base holds a few hundred at most. */
	for (size_t k = 0; rc == 0 && k < n; k++)
		for (size_t i = 0; i < np; i++)
			if (!reached[i] && pkg_answers(&pk[i], names[k])) {
				reached[i] = true;
				queue[qn++] = i;
			}
	for (size_t q = 0; rc == 0 && q < qn; q++) {
		const struct db_pkg *cur = &pk[queue[q]];
		for (size_t g = 0; g < cur->n_deps; g++)
			for (size_t a = 0; a < cur->deps[g].n; a++)
				for (size_t i = 0; i < np; i++)
					if (!reached[i] &&
					    pkg_answers(&pk[i], cur->deps[g].alts[a].name)) {
						reached[i] = true;
						queue[qn++] = i;
					}
	}
	for (size_t q = 0; rc == 0 && q < qn; q++)
		hk_strset_add(out, pk[queue[q]].name);
	for (size_t i = 0; i < np; i++) {
		hk_deb_relations_free(pk[i].deps, pk[i].n_deps);
		for (size_t k = 0; k < pk[i].n_provides; k++)
			free(pk[i].provides[k]);
		free(pk[i].provides);
	}
	free(pk);
	free(reached);
	free(queue);
	hk_deb_stanzas_free(st, ns);
	return rc;
}

/* Whether one of the ", "-separated package names of `owners` is in `pkgs`. */
static bool owned_by_any(const char *owners, const struct hk_strset *pkgs)
{
	for (const char *p = owners; *p;) {
		size_t len = strcspn(p, ",");
		hk_autofree char *one = hk_xstrndup(p, len);
		if (hk_strset_contains(pkgs, one))
			return true;
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

int hk_debroot_package_files(const char *root, const struct hk_strset *pkgs,
			     struct hk_strset *out, struct hk_error *err)
{
	if (pkgs->len == 0)
		return 0;
	struct hk_debroot_owners o = { 0 };
	int rc = hk_debroot_owners_load(root, &o, err);
	if (rc < 0)
		return rc;
	struct hk_strset files = HK_STRSET_INIT;
	for (size_t i = 0; i < o.n; i++)
		if (S_ISREG(o.items[i].mode) && owned_by_any(o.items[i].packages, pkgs))
			hk_strset_add(&files, o.items[i].path);
	struct hk_root r = HK_ROOT_INIT;
	rc = hk_root_open(root, &r, err);
	for (size_t i = 0; rc == 0 && i < o.n; i++) {
		if (!S_ISLNK(o.items[i].mode) || !owned_by_any(o.items[i].packages, pkgs))
			continue;
		struct hk_resolved res = HK_RESOLVED_INIT;
		struct hk_error ignored;
		if (hk_root_resolve(&r, o.items[i].path, &res, &ignored) == 0 &&
		    hk_strset_contains(&files, res.path))
			hk_strset_add(out, o.items[i].path);
		hk_resolved_free(&res);
	}
	hk_root_close(&r);
	hk_strset_add_all(out, &files);
	hk_strset_free(&files);
	hk_debroot_owners_free(&o);
	return rc;
}
