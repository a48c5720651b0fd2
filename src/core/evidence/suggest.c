#include "core/evidence/suggest.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/debian/debexpect.h"
#include "core/policy/derive.h"
#include "core/formats/tree.h"
#include "core/basic/path.h"
#include "core/basic/util.h"
#include "core/store/view_trap.h"

/* A symlink chain longer than this is not followed back (the kernel's own limit is 40; real
 * packages chain two or three: /usr/bin/cc -> gcc -> gcc-12 -> x86_64-linux-gnu-gcc-12). */
#define ALIAS_MAX_HOPS 8

const char *hk_diag_class_name(enum hk_diag_class c)
{
	switch (c) {
	case HK_DIAG_EXPECTED:
		return "expected";
	case HK_DIAG_DECLARABLE:
		return "declarable";
	case HK_DIAG_IRREDUCIBLE:
		return "irreducible";
	case HK_DIAG_POLICY_BUG:
		return "policy_bug";
	}
	return "?";
}

const char *hk_provider_how_name(enum hk_provider_how h)
{
	switch (h) {
	case HK_PROVIDES_FILE:
		return "file";
	case HK_PROVIDES_LINK:
		return "link";
	case HK_PROVIDES_ALIAS:
		return "alias";
	}
	return "?";
}

const char *hk_provider_origin_label(const char *origin)
{
	static const char *const names[][2] = {
		{ "deb", "Debian package" },
		{ "base", "base package" },
		{ "added", "added by hand" },
		{ "build", "local build" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
		if (strcmp(origin, names[i][0]) == 0)
			return names[i][1];
	return origin;
}

/* ---- contract surfaces and granted rights ---- */

/* What harkaq's sandbox creates (sandbox.c: hk_sandbox_contract and the bubblewrap argv):
 * the sandbox decides these, never the recipe's deps (design.md §5). */
static const char *const contract_surfaces[] = {
	"/src", "/out", "/tmp", "/var/tmp", "/cache", "/dev", "/proc", "/.harkaq",
};

static bool beneath_or_equal(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool hk_contract_surface(const char *path)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(contract_surfaces); i++)
		if (beneath_or_equal(path, contract_surfaces[i]))
			return true;
	return false;
}

/* Rights, as the kernel names them in blockers=, that a grant gives (docs/cage.md). */
#define R_EXECUTE  (1u << 0)
#define R_READ     (1u << 1)
#define R_WRITE    (1u << 2)
#define R_TRUNCATE (1u << 3)
#define R_IOCTL    (1u << 4)
#define R_UNIX     (1u << 5)
#define R_READ_DIR (1u << 6)
#define R_OTHER    (1u << 7)   /* make_*, remove_*, refer, scopes, net: only rw gives them */
#define R_ALL      0xffu

static unsigned blocker_bits(const char *blockers)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{ "fs.execute", R_EXECUTE }, { "fs.read_file", R_READ }, { "fs.write_file", R_WRITE },
		{ "fs.truncate", R_TRUNCATE }, { "fs.ioctl_dev", R_IOCTL },
		{ "fs.resolve_unix", R_UNIX }, { "fs.read_dir", R_READ_DIR },
	};
	unsigned bits = 0;
	const char *p = blockers;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		unsigned bit = R_OTHER;
		for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
			if (strlen(names[i].name) == n && strncmp(p, names[i].name, n) == 0)
				bit = names[i].bit;
		bits |= bit;
		p += n + (comma ? 1 : 0);
	}
	return bits;
}

/* Rights the policy grants on `path`, and which grant gives them (for the message). */
static unsigned granted_rights(const struct hk_policy *p, const char *path, const char **how)
{
	unsigned bits = 0;
	*how = NULL;
	const struct hk_policy_grant *g = hk_policy_find_grant(p, path);
	if (g && g->kind == HK_GRANT_RO) {
		bits |= R_EXECUTE | R_READ | R_READ_DIR;
		*how = "ro";
	} else if (g && g->kind == HK_GRANT_RW) {
		bits = R_ALL;
		*how = "rw";
	} else if (g && g->kind == HK_GRANT_LIST) {
		bits |= R_READ_DIR;
		*how = "list";
	}
	/* Ancestors: rw beneath grants everything; any grant on an ancestor lets it be listed
	 * beneath (READ_DIR covers the subtree, kernel-facts.md §6). */
	char *buf = hk_xstrdup(path);
	for (char *slash = strrchr(buf, '/'); slash; slash = strrchr(buf, '/')) {
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		const struct hk_policy_grant *a = hk_policy_find_grant(p, buf);
		if (a && a->kind == HK_GRANT_RW) {
			bits = R_ALL;
			*how = "rw beneath";
		} else if (a) {
			bits |= R_READ_DIR;
			if (!*how)
				*how = "list beneath";
		}
		if (slash == buf)
			break;
	}
	free(buf);
	return bits;
}

/* ---- the store's symlinks, reversed ---- */

struct link_entry {
	char *link;                       /* sandbox path of the symlink */
	char *target;                     /* its target, absolute, folded, merged-/usr */
	const struct hk_artifact *art;
};

struct hk_suggester {
	struct hk_suggest_input in;       /* in.source points at src */
	struct hk_suggest_source src;     /* all NULL without a source */
	bool links_loaded;
	struct link_entry *by_target;     /* sorted by target */
	struct link_entry *by_link;       /* the same entries, sorted by (link, artifact id) */
	size_t n_links;
};

struct hk_suggester *hk_suggester_new(const struct hk_suggest_input *in)
{
	struct hk_suggester *s = hk_xcalloc(1, sizeof(*s));
	s->in = *in;
	if (in->source)
		s->src = *in->source;
	s->in.source = &s->src;
	return s;
}

void hk_suggester_free(struct hk_suggester *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_links; i++) {
		free(s->by_target[i].link);
		free(s->by_target[i].target);
	}
	free(s->by_target);
	free(s->by_link);
	if (s->src.release)
		s->src.release(s->src.ctx);
	free(s);
}

/* The store is laid out merged-/usr (usrmerge.h) and the kernel reports /usr paths, so a
 * target written through the top-level compatibility links (/lib/…, /bin/…) is folded under
 * /usr, as the base root's own /lib -> usr/lib would resolve it. */
static char *fold_usrmerge(char *path)
{
	static const char *const tops[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };
	for (size_t i = 0; i < HK_ARRAY_LEN(tops); i++) {
		if (beneath_or_equal(path, tops[i])) {
			char *out = hk_xasprintf("/usr%s", path);
			free(path);
			return out;
		}
	}
	return path;
}

static int cmp_by_target(const void *a, const void *b)
{
	const struct link_entry *x = a, *y = b;
	int c = strcmp(x->target, y->target);
	return c ? c : strcmp(x->link, y->link);
}

static int cmp_by_link(const void *a, const void *b)
{
	const struct link_entry *x = a, *y = b;
	int c = strcmp(x->link, y->link);
	return c ? c : strcmp(x->art->id, y->art->id);
}

static int load_links(struct hk_suggester *s, struct hk_error *err)
{
	if (s->links_loaded || !s->src.artifacts || !s->src.files)
		return 0;
	const struct hk_artifact *const *arts;
	size_t n_arts;
	int r = s->src.artifacts(s->src.ctx, &arts, &n_arts, err);
	if (r < 0)
		return r;
	size_t cap = 0;
	for (size_t i = 0; i < n_arts; i++) {
		/* A base (or a Debian build's dpkg state) is never a dep to declare: its own links
		 * name nothing declarable. */
		if (arts[i]->origin == HK_ORIGIN_BASE || arts[i]->origin == HK_ORIGIN_STATE)
			continue;
		struct hk_tree t = HK_TREE_INIT;
		r = s->src.files(s->src.ctx, arts[i], &t, err);
		if (r < 0) {
			hk_tree_free(&t);
			return hk_wrap(err, "reading the symlinks of artifact %s", arts[i]->dirname);
		}
		for (size_t k = 0; k < t.n; k++) {
			const struct hk_tree_entry *e = &t.entries[k];
			/* A target with NUL cannot be a path (and readlink never returns one). */
			if (e->type != HK_TREE_SYMLINK || strlen(e->target) != e->target_len)
				continue;
			if (s->n_links == cap) {
				cap = cap ? cap * 2 : 256;
				s->by_target = hk_xrealloc(s->by_target, cap * sizeof(*s->by_target));
			}
			struct link_entry *le = &s->by_target[s->n_links++];
			le->link = hk_xasprintf("/%s", e->path);
			le->target = fold_usrmerge(hk_path_join_normalise(le->link, e->target));
			le->art = arts[i];
		}
		hk_tree_free(&t);
	}
	if (s->n_links) {
		qsort(s->by_target, s->n_links, sizeof(*s->by_target), cmp_by_target);
		s->by_link = hk_xmalloc(s->n_links * sizeof(*s->by_link));
		memcpy(s->by_link, s->by_target, s->n_links * sizeof(*s->by_link));
		qsort(s->by_link, s->n_links, sizeof(*s->by_link), cmp_by_link);
	}
	s->links_loaded = true;
	return 0;
}

/* Whether artifact `a` ships `path` as a symlink. */
static bool is_link_of(const struct hk_suggester *s, const char *path, const struct hk_artifact *a)
{
	size_t lo = 0, hi = s->n_links;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->by_link[mid].link, path);
		if (c == 0)
			c = strcmp(s->by_link[mid].art->id, a->id);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* First entry whose target is `target` (or n_links). */
static size_t first_with_target(const struct hk_suggester *s, const char *target)
{
	size_t lo = 0, hi = s->n_links;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->by_target[mid].target, target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- providers ---- */

static bool in_closure(const struct hk_suggester *s, const struct hk_artifact *a)
{
	for (size_t i = 0; i < s->in.n_closure; i++)
		if (strcmp(s->in.closure[i], a->dirname) == 0)
			return true;
	return false;
}

/* The one artifact `query` names, or NULL (none, several, or no store to ask). */
static const struct hk_artifact *find_one(const struct hk_suggester *s, const char *query)
{
	struct hk_error e;
	const struct hk_artifact *found = NULL;
	if (!s->src.find || s->src.find(s->src.ctx, query, &found, &e) < 0)
		return NULL;
	return found;
}

/* The artifacts shipping `path` itself (none without a store to ask). */
static int providers_of(const struct hk_suggester *s, const char *path,
			const struct hk_artifact ***out, size_t *n, struct hk_error *err)
{
	*out = NULL;
	*n = 0;
	return s->src.providers ? s->src.providers(s->src.ctx, path, out, n, err) : 0;
}

/* What to write in [deps] for `a`: the shortest form the store resolves to exactly it. */
static char *dep_spec(const struct hk_suggester *s, const struct hk_artifact *a)
{
	if (find_one(s, a->name) == a)
		return hk_xstrdup(a->name);
	char *nv = hk_xasprintf("%s=%s", a->name, a->version);
	if (find_one(s, nv) == a)
		return nv;
	free(nv);
	return hk_xstrdup(a->id);
}

struct cand {
	const struct hk_artifact *art;
	enum hk_provider_how how;
	const char *via;      /* borrowed from the link map */
	unsigned hops;
};

/* Where a provider came from, ranked: a Debian package (imported, or a package of the pinned
 * base) before a tree added by hand before a local build's output — the order the store view
 * merges them in (core/store/view.h).  A build's output that happens to ship a Debian package's
 * file is the package's copy at best, and its own verdict may not have been Hermetic. */
static int origin_rank(const char *origin)
{
	static const char *const ranked[] = { "deb", "base", "added", "build" };
	static const int rank[] = { 0, 0, 1, 2 };
	for (size_t i = 0; i < HK_ARRAY_LEN(ranked); i++)
		if (strcmp(origin, ranked[i]) == 0)
			return rank[i];
	return 3;
}

/* Best first (suggest.h): how, origin, hops, then name, version and id for a stable order. */
static int cmp_provider(const void *a, const void *b)
{
	const struct hk_provider *x = a, *y = b;
	if (x->how != y->how)
		return x->how < y->how ? -1 : 1;
	int c = origin_rank(x->origin) - origin_rank(y->origin);
	if (c)
		return c;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c == 0)
		c = strcmp(x->version, y->version);
	return c ? c : strcmp(x->id ? x->id : "", y->id ? y->id : "");
}

/* Adds (art, how) unless the artifact is there already in an equal or better way (a better
 * how, or as an alias in fewer hops). */
static void add_cand(struct cand **cs, size_t *n, size_t *cap, const struct cand *c)
{
	for (size_t i = 0; i < *n; i++) {
		struct cand *have = &(*cs)[i];
		if (have->art != c->art)
			continue;
		if (c->how < have->how || (c->how == have->how && c->hops < have->hops))
			*have = *c;
		return;
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*cs = hk_xrealloc(*cs, *cap * sizeof(**cs));
	}
	(*cs)[(*n)++] = *c;
}

/* Every artifact providing `path`, in any way (unordered: diagnose_one ranks them). */
static int find_providers(struct hk_suggester *s, const char *path, struct cand **out,
			  size_t *n_out, struct hk_error *err)
{
	struct cand *cs = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	*n_out = 0;
	int r = load_links(s, err);
	if (r < 0)
		return r;
	const struct hk_artifact **direct = NULL;
	size_t n_direct = 0;
	r = providers_of(s, path, &direct, &n_direct, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_direct; i++) {
		/* A base (or a Debian build's dpkg state) is never a dep to declare (the store's
		 * path index leaves them out already). */
		if (direct[i]->origin == HK_ORIGIN_BASE || direct[i]->origin == HK_ORIGIN_STATE)
			continue;
		struct cand c = { direct[i],
				  is_link_of(s, path, direct[i]) ? HK_PROVIDES_LINK : HK_PROVIDES_FILE,
				  NULL, 0 };
		add_cand(&cs, &n, &cap, &c);
	}
	free(direct);

	/* Aliases: walk the symlinks backwards from the path, one hop per level. */
	const char **frontier = hk_xmalloc(sizeof(*frontier));
	size_t n_front = 1;
	frontier[0] = path;
	for (unsigned hop = 1; hop <= ALIAS_MAX_HOPS && n_front; hop++) {
		const char **next = NULL;
		size_t n_next = 0, cap_next = 0;
		for (size_t f = 0; f < n_front; f++) {
			for (size_t i = first_with_target(s, frontier[f]);
			     i < s->n_links && strcmp(s->by_target[i].target, frontier[f]) == 0; i++) {
				const struct link_entry *le = &s->by_target[i];
				if (strcmp(le->link, path) == 0)
					continue;   /* a loop back to the path itself */
				struct cand c = { le->art, HK_PROVIDES_ALIAS, le->link, hop };
				add_cand(&cs, &n, &cap, &c);
				bool seen = false;
				for (size_t k = 0; k < n_next && !seen; k++)
					seen = strcmp(next[k], le->link) == 0;
				if (!seen) {
					if (n_next == cap_next) {
						cap_next = cap_next ? cap_next * 2 : 8;
						next = hk_xrealloc(next, cap_next * sizeof(*next));
					}
					next[n_next++] = le->link;
				}
			}
		}
		free(frontier);
		frontier = next;
		n_front = n_next;
	}
	free(frontier);

	*out = cs;
	*n_out = n;
	return 0;
}

/* ---- the pinned base ---- */

/* The base package that ships `path` (the first, when several list it; malloc'd), or NULL. */
static int base_owner(struct hk_suggester *s, const char *path, char **pkg, struct hk_error *err)
{
	*pkg = NULL;
	if (!s->src.base_owners)
		return 0;
	const char *owners = NULL;
	if (s->src.base_owners(s->src.ctx, path, &owners, err) < 0)
		return hk_wrap(err, "the base's package database");
	/* "a, b": the path is listed by several packages; name the first. */
	if (owners)
		*pkg = hk_xstrndup(owners, strcspn(owners, ","));
	return 0;
}

static const char *base_version(const struct hk_suggester *s, const char *pkg)
{
	return s->src.base_version ? s->src.base_version(s->src.ctx, pkg) : "";
}

/* Whether the pinned base has a non-directory at `path` (a file its maintainer scripts made
 * has no owner in the database, yet it is the base's). */
static bool base_ships(const struct hk_suggester *s, const char *path)
{
	return s->src.base_ships && s->src.base_ships(s->src.ctx, path);
}

static bool has_provider_named(const struct hk_diag_item *it, const char *name)
{
	for (size_t i = 0; i < it->n_providers; i++)
		if (strcmp(it->providers[i].name, name) == 0)
			return true;
	return false;
}

/* A trap of the store view: the build followed an undeclared artifact's symlink. */
static void diagnose_trap(struct hk_suggester *s, const char *dirname, const char *link,
			  struct hk_diag_item *it)
{
	const struct hk_artifact *a = find_one(s, dirname);
	if (!a) {
		it->cls = HK_DIAG_IRREDUCIBLE;
		it->reason = hk_xasprintf("the build followed the symlink %s of an artifact no "
					  "longer in the store (%s)", link, dirname);
		return;
	}
	if (in_closure(s, a)) {
		it->cls = HK_DIAG_POLICY_BUG;
		it->reason = hk_xasprintf("the build reached the view's trap for %s, a symlink of "
					  "the declared %s: a declared dep's links must come from "
					  "its own layer, a harkaq bug", link, a->name);
		return;
	}
	it->providers = hk_xcalloc(1, sizeof(*it->providers));
	struct hk_provider *p = &it->providers[it->n_providers++];
	p->name = hk_xstrdup(a->name);
	p->version = hk_xstrdup(a->version);
	p->id = hk_xstrdup(a->id);
	p->how = HK_PROVIDES_LINK;
	p->via = hk_xstrdup(link);
	p->spec = dep_spec(s, a);
	p->origin = hk_artifact_origin_name(a->origin);
	it->cls = HK_DIAG_DECLARABLE;
	it->line = hk_xasprintf("declare dep: %s (the build followed its symlink %s)", p->spec,
				link);
}

/* ---- diagnosis ---- */

static char *human_path(const struct hk_denial *d)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_escape_human(d->path, d->path_len, &b);
	return hk_buf_steal(&b);
}

static int diagnose_one(struct hk_suggester *s, const struct hk_denial *d,
			struct hk_diag_item *it, struct hk_error *err)
{
	memset(it, 0, sizeof(*it));
	if (d->cls == HK_DENIAL_EXPECTED) {
		it->cls = HK_DIAG_EXPECTED;
		if (s->in.expect_set && d->has_path && !memchr(d->path, '\0', d->path_len)) {
			hk_autofree char *p = hk_xstrndup(d->path, d->path_len);
			const struct hk_expect_entry *e = hk_expect_match(s->in.expect_set, p);
			if (e)
				it->reason = hk_expect_note(e);
		}
		return 0;
	}
	if (!d->has_path || memchr(d->path, '\0', d->path_len) || d->path[0] != '/') {
		it->cls = HK_DIAG_IRREDUCIBLE;
		it->reason = hk_xstrdup("not a file (a signal or socket target): no artifact can "
					"provide it");
		return 0;
	}
	hk_autofree char *shown = human_path(d);
	char *trap_art = NULL, *trap_link = NULL;
	if (s->in.sandbox_contract && hk_view_trap_parse(d->path, &trap_art, &trap_link)) {
		diagnose_trap(s, trap_art, trap_link, it);
		free(trap_art);
		free(trap_link);
		return 0;
	}
	if (s->in.sandbox_contract && hk_contract_surface(d->path)) {
		it->cls = HK_DIAG_POLICY_BUG;
		it->reason = hk_xasprintf("%s is on a contract surface of the sandbox: the sandbox "
					  "decides it, not the recipe's deps, so this denial is a "
					  "harkaq bug, not debt", shown);
		return 0;
	}
	if (s->in.policy) {
		const char *how;
		unsigned granted = granted_rights(s->in.policy, d->path, &how);
		unsigned wanted = blocker_bits(d->blockers);
		if (how && (wanted & ~granted) == 0) {
			it->cls = HK_DIAG_POLICY_BUG;
			it->reason = hk_xasprintf("the policy grants %s (%s) yet the kernel denied "
						  "[%s]: the grant did not take, a harkaq bug, not "
						  "debt", shown, how, d->blockers);
			return 0;
		}
		if (how && strcmp(how, "ro") == 0) {
			/* A declared input, opened for more than reading: no dep can change that. */
			it->cls = HK_DIAG_IRREDUCIBLE;
			it->reason = hk_xasprintf("%s is a declared input, granted read-only, and the "
						  "build asked for [%s]: declared inputs are never "
						  "writable", shown, d->blockers);
			return 0;
		}
	}

	struct cand *cs = NULL;
	size_t n = 0;
	int r = find_providers(s, d->path, &cs, &n, err);
	if (r < 0)
		return r;
	size_t declared = 0;
	/* One slot more than the store's candidates: the base's package. */
	it->providers = hk_xcalloc(n + 2, sizeof(*it->providers));
	for (size_t i = 0; i < n; i++) {
		if (in_closure(s, cs[i].art)) {
			declared++;
			continue;
		}
		struct hk_provider *p = &it->providers[it->n_providers++];
		p->name = hk_xstrdup(cs[i].art->name);
		p->version = hk_xstrdup(cs[i].art->version);
		p->id = hk_xstrdup(cs[i].art->id);
		p->how = cs[i].how;
		p->via = cs[i].via ? hk_xstrdup(cs[i].via) : NULL;
		p->hops = cs[i].hops;
		p->spec = dep_spec(s, cs[i].art);
		p->origin = hk_artifact_origin_name(cs[i].art->origin);
	}
	free(cs);
	hk_autofree char *base_pkg = NULL;
	int rb = base_owner(s, d->path, &base_pkg, err);
	if (rb < 0)
		return rb;
	if (base_pkg && !has_provider_named(it, base_pkg)) {
		struct hk_provider *p = &it->providers[it->n_providers++];
		p->name = hk_xstrdup(base_pkg);
		p->version = hk_xstrdup(base_version(s, base_pkg));
		p->how = HK_PROVIDES_FILE;
		p->spec = hk_xstrdup(base_pkg);
		p->origin = "base";
	}
	if (it->n_providers > 1)
		qsort(it->providers, it->n_providers, sizeof(*it->providers), cmp_provider);
	if (it->n_providers) {
		it->cls = HK_DIAG_DECLARABLE;
		const struct hk_provider *best = &it->providers[0];
		if (strcmp(best->origin, "base") == 0)
			it->line = hk_xasprintf("declare dep: %s (%s is in the base, from %s)",
						best->spec, shown, best->name);
		else
			it->line = hk_xasprintf("declare dep: %s", best->spec);
	} else if (base_ships(s, d->path)) {
		it->cls = HK_DIAG_IRREDUCIBLE;
		it->reason = hk_xasprintf("%s is in the base, made by its maintainer scripts (no "
					  "package ships it): only the base profile can grant it",
					  shown);
	} else {
		it->cls = HK_DIAG_IRREDUCIBLE;
		it->reason = declared
			? hk_xasprintf("only artifacts already in the closure provide %s, and not as a "
				       "file the policy grants (a link whose target is missing?): "
				       "declaring more will not fix it", shown)
			: hk_xasprintf("no artifact in the store provides %s: write a recipe for it, "
				       "or classify it as expected if the build does not need it", shown);
	}
	return 0;
}

int hk_diagnose_path(struct hk_suggester *s, const char *path, const char *blockers,
		     struct hk_diag_item *out, struct hk_error *err)
{
	const struct hk_denial d = {
		.cls = HK_DENIAL_DEBT,
		.blockers = (char *)(uintptr_t)(blockers ? blockers : ""),
		.has_path = true,
		.path = (char *)(uintptr_t)path,
		.path_len = strlen(path),
	};
	int r = diagnose_one(s, &d, out, err);
	if (r < 0)
		hk_diag_item_free(out);
	return r;
}

/* Who tried: if the program is itself a file of a declared artifact, name that artifact. */
static int exe_declared_by(struct hk_suggester *s, const struct hk_denial *d, char **out,
			   struct hk_error *err)
{
	*out = NULL;
	if (!d->exe || memchr(d->exe, '\0', d->exe_len) || d->exe[0] != '/')
		return 0;
	const struct hk_artifact **arts = NULL;
	size_t n = 0;
	int r = providers_of(s, d->exe, &arts, &n, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && !*out; i++)
		if (in_closure(s, arts[i]))
			*out = hk_xstrdup(arts[i]->name);
	free(arts);
	return 0;
}

bool hk_diag_counted_before(const struct hk_diagnosis *d, const struct hk_verdict *v, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (d->items[k].cls == d->items[i].cls &&
		    hk_denial_same_path(&v->denials[k], &v->denials[i]))
			return true;
	return false;
}

int hk_diagnose(struct hk_suggester *s, const struct hk_verdict *v, struct hk_diagnosis *out,
		struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	out->items = hk_xcalloc(v->n_denials + 1, sizeof(*out->items));
	for (size_t i = 0; i < v->n_denials; i++) {
		struct hk_diag_item *it = &out->items[i];
		int r = diagnose_one(s, &v->denials[i], it, err);
		if (r == 0 && it->cls != HK_DIAG_EXPECTED)
			r = exe_declared_by(s, &v->denials[i], &it->exe_declared_by, err);
		out->n = i + 1;
		if (r < 0) {
			hk_diagnosis_free(out);
			return r;
		}
		/* The counts count paths: a second denial of a path in its class is not a second
		 * item to fix (docs/diagnosis.md, "One path, one entry"). */
		if (hk_diag_counted_before(out, v, i))
			continue;
		switch (it->cls) {
		case HK_DIAG_EXPECTED: out->n_expected++; break;
		case HK_DIAG_DECLARABLE: out->n_declarable++; break;
		case HK_DIAG_IRREDUCIBLE: out->n_irreducible++; break;
		case HK_DIAG_POLICY_BUG: out->n_policy_bug++; break;
		}
	}
	return 0;
}

void hk_diag_item_free(struct hk_diag_item *it)
{
	for (size_t k = 0; k < it->n_providers; k++) {
		struct hk_provider *p = &it->providers[k];
		free(p->name);
		free(p->version);
		free(p->id);
		free(p->via);
		free(p->spec);
	}
	free(it->providers);
	free(it->reason);
	free(it->line);
	free(it->exe_declared_by);
	memset(it, 0, sizeof(*it));
}

void hk_diagnosis_free(struct hk_diagnosis *d)
{
	for (size_t i = 0; i < d->n; i++)
		hk_diag_item_free(&d->items[i]);
	free(d->items);
	memset(d, 0, sizeof(*d));
}

void hk_providers_json(const struct hk_provider *ps, size_t n, struct hk_json *j)
{
	hk_json_arr_begin(j);
	for (size_t k = 0; k < n; k++) {
		const struct hk_provider *p = &ps[k];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "name", p->name);
		hk_json_kv_str(j, "version", p->version);
		hk_json_kv_str(j, "id", p->id);
		hk_json_kv_str(j, "how", hk_provider_how_name(p->how));
		hk_json_key(j, "via");
		if (p->via)
			hk_json_bytes(j, p->via, strlen(p->via));
		else
			hk_json_null(j);
		hk_json_kv_str(j, "spec", p->spec);
		hk_json_kv_str(j, "origin", p->origin);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

void hk_diagnosis_json(const struct hk_diagnosis *d, struct hk_json *j)
{
	hk_json_arr_begin(j);
	for (size_t i = 0; i < d->n; i++) {
		const struct hk_diag_item *it = &d->items[i];
		hk_json_obj_begin(j);
		hk_json_kv_uint(j, "denial", i);
		hk_json_kv_str(j, "class", hk_diag_class_name(it->cls));
		hk_json_kv_str(j, "reason", it->reason);
		hk_json_kv_str(j, "line", it->line);
		hk_json_kv_str(j, "exe_declared_by", it->exe_declared_by);
		hk_json_key(j, "providers");
		hk_providers_json(it->providers, it->n_providers, j);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}
