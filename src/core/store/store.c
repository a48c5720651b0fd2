/* The content-addressed store: opening it, loading artifacts, finding them, their runtime
 * closure and verification.  Layout and formats in docs/store.md; what the other store
 * files do is listed in store_int.h. */
#include "core/store/store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
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
#include "core/store/store_int.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"

/* ---------------------------------------------------------------------------------------- */
/* opening, artifacts                                                                       */

const char *hk_store_choose_dir(const char *option)
{
	if (option)
		return option;
	const char *env = getenv("HARKAQ_STORE");
	if (env && env[0])
		return env;
	return "./store";
}

const char *hk_store_dir(const struct hk_store *s)
{
	return s->root;
}

void store_artifact_free(struct hk_artifact *a)
{
	if (!a)
		return;
	free(a->dirname);
	free(a->path);
	free(a->meta_path);
	free(a->name);
	free(a->version);
	hk_dep_groups_free(a->deps, a->n_deps);
	for (size_t i = 0; i < a->n_provides; i++)
		free(a->provides[i]);
	free(a->provides);
	free(a->meta_json);
	free(a);
}

/* The handle owns its index fields (store_index.c fills them): dropped here, reloaded on the
 * next look-up. */
void store_index_unload(struct hk_store *s)
{
	free(s->index_text);
	free(s->index);
	s->index_text = NULL;
	s->index = NULL;
	s->n_index = 0;
}

struct hk_store *hk_store_ref(struct hk_store *s)
{
	s->refs++;
	return s;
}

void hk_store_close(struct hk_store *s)
{
	if (!s || --s->refs > 0)
		return;
	for (size_t i = 0; i < s->n_arts; i++)
		store_artifact_free(s->arts[i]);
	free(s->arts);
	store_index_unload(s);
	free(s->root);
	free(s);
}

int store_ensure_dir(const char *path, struct hk_error *err)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "cannot create %s", path);
	return 0;
}

int hk_store_open(const char *dir, bool create, struct hk_store **out, struct hk_error *err)
{
	struct stat st;
	if (stat(dir, &st) < 0) {
		if (errno == ENOENT && !create)
			return hk_fail(err, ENOENT, "the store %s does not exist (give --store DIR "
				       "or set HARKAQ_STORE; 'harkaq store add' and 'import-deb' "
				       "create it)", dir);
		if (errno != ENOENT)
			return hk_fail_errno(err, errno, "store %s", dir);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "cannot create the store %s", dir);
	} else if (!S_ISDIR(st.st_mode)) {
		return hk_fail(err, ENOTDIR, "store %s is not a directory", dir);
	}
	hk_autofree char *root = realpath(dir, NULL);
	if (!root)
		return hk_fail_errno(err, errno, "store %s", dir);
	hk_autofree char *marker = hk_xasprintf("%s/" STORE_MARKER, root);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e2;
	if (hk_file_read(marker, &text, &e2) < 0) {
		hk_buf_free(&text);
		if (e2.code != ENOENT)
			return hk_fail(err, e2.code, "%s", e2.msg);
		if (!create)
			return hk_fail(err, ENOENT,
				       "%s is not a harkaq store (no %s; create one with 'harkaq "
				       "store add' or 'harkaq store import-deb')", root, STORE_MARKER);
		/* Only an empty directory becomes a store: never adopt a directory that holds
		 * something else. */
		DIR *d = opendir(root);
		if (!d)
			return hk_fail_errno(err, errno, "cannot list %s", root);
		struct dirent *de;
		bool empty = true;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				empty = false;
		closedir(d);
		if (!empty)
			return hk_fail(err, EEXIST,
				       "%s is not empty and not a harkaq store (no %s); refusing to "
				       "turn it into one", root, STORE_MARKER);
		int r = hk_file_write_atomic(marker, STORE_MARKER_TEXT, strlen(STORE_MARKER_TEXT),
					     0644, err);
		if (r < 0)
			return r;
	} else {
		bool ok = strcmp(hk_buf_str(&text), STORE_MARKER_TEXT) == 0;
		hk_buf_free(&text);
		if (!ok)
			return hk_fail(err, EINVAL,
				       "%s: not a store of a format this harkaq knows (expected "
				       "\"harkaq-store 1\")", marker);
	}
	hk_autofree char *meta = hk_xasprintf("%s/" META_DIR, root);
	hk_autofree char *index = hk_xasprintf("%s/" INDEX_DIR, root);
	if (create) {
		int r = store_ensure_dir(meta, err);
		if (r == 0)
			r = store_ensure_dir(index, err);
		if (r < 0)
			return r;
	}
	struct hk_store *s = hk_xcalloc(1, sizeof(*s));
	s->root = hk_steal_ptr(&root);
	s->refs = 1;
	*out = s;
	return 0;
}

static int artifact_cmp(const void *a, const void *b)
{
	const struct hk_artifact *x = *(const struct hk_artifact *const *)a;
	const struct hk_artifact *y = *(const struct hk_artifact *const *)b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->version, y->version);
	if (!c)
		c = strcmp(x->id, y->id);
	return c;
}

static void sort_artifacts(struct hk_store *s)
{
	if (s->n_arts)
		qsort(s->arts, s->n_arts, sizeof(*s->arts), artifact_cmp);
	/* Written only where it moved: after a fork (a build's phases) every artifact's page is
	 * shared until written, and a seal's add would fault on a thousand of them. */
	for (size_t i = 0; i < s->n_arts; i++)
		if (s->arts[i]->index_ != i)
			s->arts[i]->index_ = i;
}

static const char *jstr(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR && strlen(v->str) == v->len ? v->str : NULL;
}

/* Where an artifact came from, read from its provenance ("source"): a Debian package's
 * import writes "type": "deb", a pinned base "type": "base", a Debian build's dpkg state
 * "type": "dpkg-state", a sealed build output
 * "built_by". */
static enum hk_artifact_origin origin_of(const struct hk_jval *source)
{
	if (!source || source->type != HK_JOBJ)
		return HK_ORIGIN_OTHER;
	const char *type = jstr(source, "type");
	if (type && strcmp(type, "deb") == 0)
		return HK_ORIGIN_DEB;
	if (type && strcmp(type, "base") == 0)
		return HK_ORIGIN_BASE;
	if (type && strcmp(type, "dpkg-state") == 0)
		return HK_ORIGIN_STATE;
	if (jstr(source, "built_by"))
		return HK_ORIGIN_BUILD;
	return HK_ORIGIN_OTHER;
}

enum hk_artifact_origin store_origin_of_json(const char *source_json)
{
	struct hk_jval *v = NULL;
	struct hk_error ignored;
	if (!source_json || hk_json_parse(source_json, strlen(source_json), &v, &ignored) < 0)
		return HK_ORIGIN_OTHER;
	enum hk_artifact_origin o = origin_of(v);
	hk_jval_free(v);
	return o;
}

/* Parses and checks one metadata file.  `dirname` is its expected directory name (from the
 * file name).  The recorded identity must hash to the directory name, so metadata cannot be
 * edited without the store noticing. */
static int load_meta(const char *root, const char *dirname, struct hk_artifact **out,
		     struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" META_DIR "/%s.json", root, dirname);
	struct hk_buf text = HK_BUF_INIT;
	int r = hk_file_read(path, &text, err);
	if (r < 0) {
		hk_buf_free(&text);
		return r;
	}
	struct hk_jval *v = NULL;
	r = hk_json_parse(hk_buf_str(&text), text.len, &v, err);
	if (r < 0) {
		hk_buf_free(&text);
		return hk_wrap(err, "%s", path);
	}
	struct hk_artifact *a = hk_xcalloc(1, sizeof(*a));
	a->meta_json = hk_buf_steal(&text);
	const char *why = NULL;
	const char *kind = jstr(v, "kind"), *id = jstr(v, "id"), *name = jstr(v, "name");
	const char *version = jstr(v, "version"), *tree = jstr(v, "tree");
	const struct hk_jval *deps = hk_jobj_get(v, "deps");
	const struct hk_jval *provides = hk_jobj_get(v, "provides");
	const struct hk_jval *files = hk_jobj_get(v, "files");
	if (v->type != HK_JOBJ)
		why = "not a JSON object";
	else if (!kind || strcmp(kind, META_KIND) != 0)
		why = "\"kind\" is not \"" META_KIND "\"";
	else if (!id || strlen(id) != 3 + HEX_LEN || strncmp(id, "b3:", 3) ||
		 !hk_is_lower_hex(id + 3, HEX_LEN))
		why = "\"id\" is not a b3: id";
	else if (!name || !hk_artifact_name_valid(name))
		why = "\"name\" is missing or not a valid artifact name";
	else if (!version || !hk_artifact_version_valid(version))
		why = "\"version\" is missing or not valid";
	else if (!tree || strlen(tree) != 3 + HEX_LEN || strncmp(tree, "b3:", 3) ||
		 !hk_is_lower_hex(tree + 3, HEX_LEN))
		why = "\"tree\" is not a b3: id";
	else if (!deps || deps->type != HK_JARR)
		why = "\"deps\" is not an array";
	else if (!provides || provides->type != HK_JARR)
		why = "\"provides\" is not an array";
	else if (!files || files->type != HK_JNUM || !files->is_int || files->i < 0)
		why = "\"files\" is not a count";
	if (!why) {
		a->name = hk_xstrdup(name);
		a->version = hk_xstrdup(version);
		memcpy(a->id, id, HK_B3_ID_LEN);
		memcpy(a->tree_id, tree, HK_B3_ID_LEN);
		a->file_count = (size_t)files->i;
		a->deps = hk_xcalloc(deps->len ? deps->len : 1, sizeof(*a->deps));
		for (size_t i = 0; !why && i < deps->len; i++) {
			const struct hk_jval *g = &deps->items[i];
			if (g->type != HK_JARR || g->len == 0) {
				why = "a \"deps\" group is not a non-empty array";
				break;
			}
			struct hk_dep_group *dg = &a->deps[a->n_deps++];
			dg->alts = hk_xcalloc(g->len, sizeof(char *));
			for (size_t k = 0; k < g->len; k++) {
				const struct hk_jval *alt = &g->items[k];
				if (alt->type != HK_JSTR || !hk_artifact_name_valid(alt->str)) {
					why = "a \"deps\" name is not a valid artifact name";
					break;
				}
				dg->alts[dg->n_alts++] = hk_xstrdup(alt->str);
			}
		}
		a->provides = hk_xcalloc(provides->len ? provides->len : 1, sizeof(char *));
		for (size_t i = 0; !why && i < provides->len; i++) {
			const struct hk_jval *p = &provides->items[i];
			if (p->type != HK_JSTR || !hk_artifact_name_valid(p->str)) {
				why = "a \"provides\" name is not a valid artifact name";
				break;
			}
			a->provides[a->n_provides++] = hk_xstrdup(p->str);
		}
	}
	if (!why)
		a->origin = origin_of(hk_jobj_get(v, "source"));
	hk_jval_free(v);
	char expect_dir[HEX_LEN + 2 + NAME_MAX_LEN + 1];
	if (!why) {
		snprintf(expect_dir, sizeof(expect_dir), "%s-%s", a->id + 3, a->name);
		if (strcmp(expect_dir, dirname) != 0)
			why = "its id and name do not match its file name";
	}
	uint8_t root_hash[HK_BLAKE3_OUT_LEN];
	/* Validated as lowercase hex above; decoded with its result checked all the same. */
	if (!why && hk_unhex(a->tree_id + 3, HK_BLAKE3_OUT_LEN, root_hash) < 0)
		why = "its tree id is not a digest";
	if (!why) {
		/* Recompute the identity from the recorded fields: metadata edited by hand (a dep
		 * removed, a version changed) no longer hashes to its directory name. */
		bool canonical = true;
		for (size_t i = 1; canonical && i < a->n_deps; i++)
			canonical = hk_dep_group_cmp(&a->deps[i - 1], &a->deps[i]) < 0;
		for (size_t i = 1; canonical && i < a->n_provides; i++)
			canonical = strcmp(a->provides[i - 1], a->provides[i]) < 0;
		char computed[HK_B3_ID_LEN];
		hk_artifact_compute_id(a->name, a->version, a->deps, a->n_deps,
				       (const char *const *)a->provides, a->n_provides, root_hash,
				       computed);
		if (!canonical)
			why = "\"deps\" or \"provides\" is not in canonical order";
		else if (strcmp(computed, a->id) != 0)
			why = "the recorded identity (name, version, deps, provides, tree) does not "
			      "hash to its id: the metadata was altered";
	}
	if (why) {
		store_artifact_free(a);
		return hk_fail(err, EBADMSG, "%s: %s", path, why);
	}
	a->dirname = hk_xstrdup(dirname);
	a->path = hk_xasprintf("%s/%s", root, dirname);
	a->meta_path = hk_steal_ptr(&path);
	*out = a;
	return 0;
}

static void append_artifact(struct hk_store *s, struct hk_artifact *a)
{
	if (s->n_arts == s->cap_arts) {
		s->cap_arts = s->cap_arts ? 2 * s->cap_arts : 16;
		s->arts = hk_xrealloc(s->arts, s->cap_arts * sizeof(*s->arts));
	}
	s->arts[s->n_arts++] = a;
}

void store_add_artifact(struct hk_store *s, struct hk_artifact *a)
{
	append_artifact(s, a);
	sort_artifacts(s);
}

/* Whether name ends in suffix; then *stem_len is the length before it. */
static bool has_suffix(const char *name, const char *suffix, size_t *stem_len)
{
	size_t len = strlen(name), n = strlen(suffix);
	if (len <= n || strcmp(name + len - n, suffix) != 0)
		return false;
	*stem_len = len - n;
	return true;
}

int store_load_new(struct hk_store *s, struct hk_error *err)
{
	hk_autofree char *meta = hk_xasprintf("%s/" META_DIR, s->root);
	DIR *d = opendir(meta);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return hk_fail_errno(err, errno, "cannot list %s", meta);
	}
	/* One listing gives both what is new and what is sealed: no look-up per artifact. */
	struct hk_strset known = HK_STRSET_INIT, sealed = HK_STRSET_INIT;
	for (size_t i = 0; i < s->n_arts; i++)
		hk_strset_add(&known, s->arts[i]->dirname);
	hk_autostrv struct hk_strv names = HK_STRV_INIT;
	int r;
	struct dirent *de;
	while ((r = hk_dir_next(d, meta, &de, err)) == 0 && de) {
		size_t stem;
		if (de->d_name[0] == '.')
			continue;
		if (has_suffix(de->d_name, SEAL_SUFFIX, &stem)) {
			hk_strset_add_owned(&sealed, hk_xstrndup(de->d_name, stem));
		} else if (has_suffix(de->d_name, ".json", &stem)) {
			char *dirname = hk_xstrndup(de->d_name, stem);
			if (hk_strset_contains(&known, dirname))
				free(dirname);
			else
				hk_strv_push_owned(&names, dirname);
		}
	}
	closedir(d);
	hk_strset_free(&known);
	/* Sorted so that a damaged store reports the same file every time. */
	hk_strv_sort_unique(&names);
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		struct hk_artifact *a = NULL;
		r = load_meta(s->root, names.v[i], &a, err);
		if (r == 0)
			append_artifact(s, a);
	}
	/* Written only where it changed: a process that forked (a build's helpers) shares its
	 * pages until they are written, and writing a thousand artifacts copies a thousand
	 * pages. */
	for (size_t i = 0; i < s->n_arts; i++) {
		bool now = hk_strset_contains(&sealed, s->arts[i]->dirname);
		if (s->arts[i]->sealed != now)
			s->arts[i]->sealed = now;
	}
	hk_strset_free(&sealed);
	if (names.n > 0)
		sort_artifacts(s);
	return r;
}

int hk_store_refresh(struct hk_store *s, struct hk_error *err)
{
	return s->loaded ? store_load_new(s, err) : 0;
}

int store_ensure_loaded(struct hk_store *s, struct hk_error *err)
{
	if (s->loaded)
		return 0;
	int r = store_load_new(s, err);
	if (r < 0) {
		for (size_t i = 0; i < s->n_arts; i++)
			store_artifact_free(s->arts[i]);
		s->n_arts = 0;
		return r;
	}
	s->loaded = true;
	return 0;
}

int hk_store_list(struct hk_store *s, const struct hk_artifact *const **out, size_t *n,
		  struct hk_error *err)
{
	int r = store_ensure_loaded(s, err);
	if (r < 0)
		return r;
	*out = (const struct hk_artifact *const *)s->arts;
	*n = s->n_arts;
	return 0;
}

const struct hk_artifact *store_find_dirname(const struct hk_store *s, const char *dir,
					     size_t n)
{
	for (size_t i = 0; i < s->n_arts; i++)
		if (strlen(s->arts[i]->dirname) == n && memcmp(s->arts[i]->dirname, dir, n) == 0)
			return s->arts[i];
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* finding, closure, verification                                                           */

static void candidates_msg(struct hk_buf *b, const struct hk_artifact *const *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hk_buf_printf(b, "%s%.14s… %s %s", i ? ", " : "", c[i]->id, c[i]->name,
			      c[i]->version);
}

static int pick_one(struct hk_store *s, const char *query, const struct hk_artifact **m,
		    size_t n, const struct hk_artifact **out, struct hk_error *err)
{
	if (n == 1) {
		*out = m[0];
		return 0;
	}
	struct hk_buf b = HK_BUF_INIT;
	candidates_msg(&b, m, n);
	hk_fail(err, EEXIST, "'%s' is ambiguous in the store %s: %s (use an id prefix or "
		"NAME=VERSION)", query, s->root, hk_buf_str(&b));
	hk_buf_free(&b);
	return -EEXIST;
}

/* Artifacts named `name` (or, if none, providing it); returns the count, matches in *m. */
static size_t match_name(struct hk_store *s, const char *name, const char *version,
			 const struct hk_artifact ***m)
{
	size_t n = 0;
	*m = hk_xcalloc(s->n_arts ? s->n_arts : 1, sizeof(**m));
	for (size_t i = 0; i < s->n_arts; i++)
		if (strcmp(s->arts[i]->name, name) == 0 &&
		    (!version || strcmp(s->arts[i]->version, version) == 0))
			(*m)[n++] = s->arts[i];
	if (n || version)
		return n;
	for (size_t i = 0; i < s->n_arts; i++)
		for (size_t k = 0; k < s->arts[i]->n_provides; k++)
			if (strcmp(s->arts[i]->provides[k], name) == 0) {
				(*m)[n++] = s->arts[i];
				break;
			}
	return n;
}

int hk_store_find(struct hk_store *s, const char *query, const struct hk_artifact **out,
		  struct hk_error *err)
{
	int r = store_ensure_loaded(s, err);
	if (r < 0)
		return r;
	const struct hk_artifact *a = store_find_dirname(s, query, strlen(query));
	if (a) {
		*out = a;
		return 0;
	}
	hk_autofree const struct hk_artifact **m = NULL;
	size_t n = 0;
	const char *hex = NULL;
	if (strncmp(query, "b3:", 3) == 0) {
		hex = query + 3;
		if (!hex[0] || strlen(hex) > HEX_LEN || !hk_is_lower_hex(hex, strlen(hex)))
			return hk_fail(err, EINVAL, "'%s' is not an id or id prefix (b3: and lowercase "
				       "hex digits)", query);
	} else {
		const char *eq = strchr(query, '=');
		hk_autofree char *name = eq ? hk_xstrndup(query, (size_t)(eq - query))
					    : hk_xstrdup(query);
		n = match_name(s, name, eq ? eq + 1 : NULL, &m);
		if (n)
			return pick_one(s, query, m, n, out, err);
		size_t len = strlen(query);
		if (!eq && len >= 8 && len <= HEX_LEN && hk_is_lower_hex(query, len))
			hex = query;
	}
	if (hex) {
		free(m);
		m = hk_xcalloc(s->n_arts ? s->n_arts : 1, sizeof(*m));
		n = 0;
		for (size_t i = 0; i < s->n_arts; i++)
			if (strncmp(s->arts[i]->id + 3, hex, strlen(hex)) == 0)
				m[n++] = s->arts[i];
		if (n)
			return pick_one(s, query, m, n, out, err);
	}
	return hk_fail(err, ENOENT, "no artifact '%s' in the store %s (see 'harkaq store list')",
		       query, s->root);
}

static bool in_base(const char *name, const char *const *base, size_t n_base)
{
	for (size_t i = 0; i < n_base; i++)
		if (strcmp(base[i], name) == 0)
			return true;
	return false;
}

struct closure_walk {
	struct hk_store *s;
	const char *const *base;
	size_t n_base;
	unsigned char *state;                 /* per artifact: 0 new, 1 on the path, 2 done */
	const struct hk_artifact **out;
	size_t n_out;
	struct hk_error *err;
};

static int closure_visit(struct closure_walk *w, const struct hk_artifact *a)
{
	if (w->state[a->index_] == 2)
		return 0;
	/* A runtime closure is a set: Debian's Depends may form cycles (libc6 and libgcc-s1
	 * depend on each other), which are legal for runtime dependencies.  An artifact on the
	 * current path is already being collected. */
	if (w->state[a->index_] == 1)
		return 0;
	w->state[a->index_] = 1;
	for (size_t i = 0; i < a->n_deps; i++) {
		const struct hk_dep_group *g = &a->deps[i];
		const struct hk_artifact *dep = NULL;
		for (size_t k = 0; k < g->n_alts && !dep; k++) {
			hk_autofree const struct hk_artifact **m = NULL;
			size_t n = match_name(w->s, g->alts[k], NULL, &m);
			if (n > 1) {
				pick_one(w->s, g->alts[k], m, n, &dep, w->err);
				return hk_wrap(w->err, "resolving the dependencies of %s %s",
					       a->name, a->version);
			}
			if (n == 1)
				dep = m[0];
		}
		if (!dep) {
			/* The store first: what the store has is granted file by file.  Only what
			 * it lacks may come from the base root (and if the build then reads it
			 * without a grant, the kernel reports it as debt). */
			bool base = false;
			for (size_t k = 0; k < g->n_alts && !base; k++)
				base = in_base(g->alts[k], w->base, w->n_base);
			if (base)
				continue;
			hk_autofree char *gs = hk_dep_group_str(g);
			return hk_fail(w->err, ENOENT,
				       "%s %s depends on '%s', which is neither in the store %s nor "
				       "provided by the base root (import it, e.g. 'harkaq store "
				       "import-apt %s')", a->name, a->version, gs, w->s->root,
				       g->alts[0]);
		}
		int r = closure_visit(w, dep);
		if (r < 0)
			return r;
	}
	w->state[a->index_] = 2;
	w->out[w->n_out++] = a;
	return 0;
}

int hk_store_closure(struct hk_store *s, const struct hk_artifact *const *roots,
		     size_t n_roots, const char *const *base, size_t n_base,
		     const struct hk_artifact ***out, size_t *n_out, struct hk_error *err)
{
	*out = NULL;
	*n_out = 0;
	int r = store_ensure_loaded(s, err);
	if (r < 0)
		return r;
	size_t n = s->n_arts ? s->n_arts : 1;
	struct closure_walk w = {
		.s = s, .base = base, .n_base = n_base, .err = err,
		.state = hk_xcalloc(n, 1),
		.out = hk_xcalloc(n, sizeof(*w.out)),
	};
	for (size_t i = 0; r == 0 && i < n_roots; i++) {
		if (roots[i]->index_ >= s->n_arts || s->arts[roots[i]->index_] != roots[i]) {
			r = hk_fail(err, EINVAL, "%s is not an artifact of the store %s",
				    roots[i]->name, s->root);
			break;
		}
		r = closure_visit(&w, roots[i]);
	}
	free(w.state);
	if (r < 0) {
		free(w.out);
		return r;
	}
	*out = w.out;
	*n_out = w.n_out;
	return 0;
}

int hk_store_verify_artifact(struct hk_store *s, const struct hk_artifact *a,
			     struct hk_error *err)
{
	struct hk_tree recorded = HK_TREE_INIT, disk = HK_TREE_INIT;
	int r = hk_store_files(s, a, &recorded, err);
	if (r < 0)
		return hk_wrap(err, "artifact %s %s", a->name, a->id);
	r = hk_tree_scan(a->path, &disk, err);
	if (r < 0) {
		hk_tree_free(&recorded);
		/* A special file now in the tree (EINVAL) or the tree gone (ENOENT) is tampering;
		 * anything else (EACCES, EIO) says nothing about the content. */
		if (err->code != EINVAL && err->code != ENOENT)
			return hk_wrap(err, "cannot verify artifact %s %s", a->name, a->id);
		hk_wrap(err, "artifact %s %s was altered", a->name, a->id);
		err->code = EBADMSG;
		return -EBADMSG;
	}
	char *diff = hk_tree_first_difference(&recorded, &disk, "the manifest", "the store");
	if (!diff && memcmp(recorded.root, disk.root, sizeof(disk.root)) != 0)
		diff = hk_xstrdup("the tree hash differs");   /* unreachable if both computed */
	hk_tree_free(&recorded);
	hk_tree_free(&disk);
	if (diff) {
		r = hk_fail(err, EBADMSG, "artifact %s %s was altered: %s", a->name, a->id, diff);
		free(diff);
		return r;
	}
	return 0;
}

/* The manifest is read here, where the store is (store_manifest.c knows its format). */
int hk_store_files(struct hk_store *s, const struct hk_artifact *a, struct hk_tree *out,
		   struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" META_DIR "/%s.files", s->root, a->dirname);
	struct hk_buf text = HK_BUF_INIT;
	int r = hk_file_read(path, &text, err);
	if (r == 0)
		r = store_manifest_decode(hk_buf_str(&text), text.len, path, out, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	char id[HK_B3_ID_LEN];
	hk_tree_id(out, id);
	if (strcmp(id, a->tree_id) != 0) {
		hk_tree_free(out);
		return hk_fail(err, EBADMSG,
			       "%s: the manifest hashes to %s, not to the artifact's tree %s: the "
			       "manifest was altered", path, id, a->tree_id);
	}
	return 0;
}
