/* Recipe model on top of the TOML subset: validation, resolution of relative paths against
 * the recipe's own directory, and the canonical identity serialisation (docs/recipe-format.md). */
#include "core/policy/recipe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/formats/toml.h"
#include "core/formats/store_names.h"
#include "core/basic/util.h"

struct loader {
	const char *filename;
	struct hk_error *err;
};

#define fail_at(l, line, col, ...) hk_fail_at((l)->err, EINVAL, (l)->filename, line, col, __VA_ARGS__)

static struct hk_recipe_pos pos_of(const struct hk_toml_value *v)
{
	struct hk_recipe_pos p = { v->line, v->col };
	return p;
}

/* ---- character sets ---- */

static bool is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(int c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool is_hex_lower(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool all_chars(const char *s, size_t n, bool (*ok)(int c))
{
	for (size_t i = 0; i < n; i++)
		if (!ok((unsigned char)s[i]))
			return false;
	return true;
}

static bool name_char(int c)
{
	return is_lower_alnum(c) || c == '+' || c == '.' || c == '_' || c == '-';
}

/* A recipe name becomes one path component of the store ("<hex>-<name>") and appears
 * unquoted in messages and command lines: lowercase so two names never collide on a
 * case-insensitive file system, no '/' so it is one component, and no leading '.', '-' or
 * '+' so it is never a hidden file or an option.  '+' is for names like "libstdc++". */
bool hk_recipe_name_valid(const char *name)
{
	size_t n = strlen(name);
	return n > 0 && n <= HK_RECIPE_NAME_MAX && is_lower_alnum((unsigned char)name[0]) &&
	       all_chars(name, n, name_char);
}

static bool version_char(int c)
{
	return is_alnum(c) || c == '.' || c == '+' || c == '~' || c == ':' || c == '_' || c == '-';
}

/* Versions as upstreams and Debian write them ("1.2.13", "1:1.2.13.dfsg-1", "2.0~rc1"): no
 * whitespace, '/', quotes or shell metacharacters, starting with a letter or digit. */
bool hk_recipe_version_valid(const char *version)
{
	size_t n = strlen(version);
	return n > 0 && n <= HK_RECIPE_VERSION_MAX && is_alnum((unsigned char)version[0]) &&
	       all_chars(version, n, version_char);
}

/* Artifact names as the store accepts them ([A-Za-z0-9][A-Za-z0-9+._-]*): imported packages
 * keep their upstream spelling, so a dependency may name an artifact with capitals. */
static bool artifact_name_char(int c)
{
	return is_alnum(c) || c == '+' || c == '.' || c == '_' || c == '-';
}

static bool artifact_name_valid(const char *s, size_t n)
{
	return n > 0 && n <= HK_RECIPE_NAME_MAX && is_alnum((unsigned char)s[0]) &&
	       all_chars(s, n, artifact_name_char);
}

static bool env_char(int c)
{
	return is_alnum(c) || c == '_';
}

bool hk_recipe_env_is_reserved(const char *key)
{
	/* The sandbox sets these to fixed values (design.md §9: a fixed minimal environment) so that
	 * two builds of one recipe see the same environment; a recipe overriding them would
	 * make the artifact depend on the recipe's choice of clock, locale or search path
	 * behind the sandbox's back.  A phase may still `export` inside its own command. */
	static const char *const fixed[] = { "SOURCE_DATE_EPOCH", "LC_ALL", "TZ", "PATH", "HOME" };
	for (size_t i = 0; i < HK_ARRAY_LEN(fixed); i++)
		if (strcmp(key, fixed[i]) == 0)
			return true;
	return strncmp(key, "HARKAQ_", 7) == 0;
}

const char *hk_phase_name(enum hk_phase phase)
{
	switch (phase) {
	case HK_PHASE_CONFIGURE: return "configure";
	case HK_PHASE_COMPILE: return "compile";
	case HK_PHASE_INSTALL: return "install";
	case HK_PHASE_COUNT: break;
	}
	return "?";
}

/* ---- paths ---- */

/* Joins `rel` to the absolute `dir` (or takes `rel` if absolute) and folds "", "." and ".."
 * components lexically.  Lexical folding is sound for the recipe directory itself (it comes
 * from realpath); a symlink inside `rel` is the recipe author's to avoid. */
static char *fold_path(const char *dir, const char *rel)
{
	struct hk_buf out = HK_BUF_INIT;
	const char *parts[2] = { rel[0] == '/' ? "" : dir, rel };
	for (size_t k = 0; k < 2; k++) {
		const char *s = parts[k];
		while (*s) {
			while (*s == '/')
				s++;
			const char *end = strchrnul(s, '/');
			size_t n = (size_t)(end - s);
			if (n == 2 && s[0] == '.' && s[1] == '.') {
				char *slash = out.len ? memrchr(out.data, '/', out.len) : NULL;
				out.len = slash ? (size_t)(slash - out.data) : 0;
				if (out.data)
					out.data[out.len] = '\0';
			} else if (n > 0 && !(n == 1 && s[0] == '.')) {
				hk_buf_putc(&out, '/');
				hk_buf_append(&out, s, n);
			}
			s = end;
		}
	}
	if (out.len == 0)
		hk_buf_putc(&out, '/');
	return hk_buf_steal(&out);
}

/* Whether `path` is absolute and already normalised: no empty, "." or ".." component.  A
 * trailing '/' is allowed (the policy's "anything beneath" form of expect). */
static bool path_is_normalised(const char *path)
{
	if (path[0] != '/')
		return false;
	const char *s = path + 1;
	while (*s) {
		const char *end = strchrnul(s, '/');
		size_t n = (size_t)(end - s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (*end == '\0')
			break;
		s = end + 1;
	}
	return true;
}

/* ---- table walking ---- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	size_t row[33];
	if (na > 32 || nb > 32)
		return 99;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

struct table_rules {
	const char *where;              /* "at the top level", "in [source]" */
	const char *const *allowed;     /* NULL-terminated */
	const char *allowed_text;       /* "name, version, base, [source], …" */
	bool any_key;                   /* [env]: keys are free (checked by the caller) */
};

static int check_known_keys(struct loader *l, const struct hk_toml_table *t,
			    const struct table_rules *rules)
{
	if (rules->any_key)
		return 0;
	for (size_t i = 0; i < t->n_entries; i++) {
		const struct hk_toml_entry *e = &t->entries[i];
		const char *suggestion = NULL;
		bool known = false;
		for (const char *const *a = rules->allowed; *a; a++) {
			if (strcmp(*a, e->key) == 0)
				known = true;
			else if (!suggestion && edit_distance(*a, e->key) <= 2)
				suggestion = *a;
		}
		if (known)
			continue;
		char hint[160] = "";
		if (suggestion)
			snprintf(hint, sizeof(hint), "; did you mean '%s'?", suggestion);
		bool table = e->value.kind == HK_TOML_TABLE;
		return fail_at(l, e->line, e->col, "unknown %s '%s' %s (allowed: %s)%s",
			       table ? "table" : "key", e->key, rules->where, rules->allowed_text,
			       hint);
	}
	return 0;
}

static int want_kind(struct loader *l, const struct hk_toml_entry *e, const char *where,
		     enum hk_toml_kind kind, const char *expected)
{
	if (e->value.kind == kind)
		return 0;
	return fail_at(l, e->value.line, e->value.col, "'%s'%s%s must be %s, not %s", e->key,
		       where[0] ? " " : "", where, expected, hk_toml_kind_article(e->value.kind));
}

/* The string value of an optional key (NULL if absent). */
static int opt_string(struct loader *l, const struct hk_toml_table *t, const char *key,
		      const char *where, const struct hk_toml_entry **out)
{
	*out = hk_toml_find(t, key);
	if (!*out)
		return 0;
	return want_kind(l, *out, where, HK_TOML_STRING, "a string");
}

static int opt_table(struct loader *l, const struct hk_toml_table *root, const char *key,
		     const struct hk_toml_entry **out)
{
	*out = hk_toml_find(root, key);
	if (!*out || (*out)->value.kind == HK_TOML_TABLE)
		return 0;
	return fail_at(l, (*out)->value.line, (*out)->value.col,
		       "'%s' must be a table (a [%s] header followed by its keys), not %s",
		       (*out)->key, (*out)->key, hk_toml_kind_article((*out)->value.kind));
}

/* ---- sections ---- */

static int load_name_version(struct loader *l, const struct hk_toml_table *root,
			     struct hk_recipe *r)
{
	const struct hk_toml_entry *e;
	int rc = opt_string(l, root, "name", "", &e);
	if (rc < 0)
		return rc;
	if (!e)
		return fail_at(l, 1, 1, "missing required key 'name' (the recipe's name, e.g. "
					"name = \"zlib\")");
	if (!hk_recipe_name_valid(e->value.string))
		return fail_at(l, e->value.line, e->value.col,
			       "invalid name \"%s\": a name is 1 to %d characters of a-z, 0-9, '+', "
			       "'.', '_' and '-', starting with a letter or digit (it becomes a "
			       "store directory name)", e->value.string, HK_RECIPE_NAME_MAX);
	r->name = hk_xstrdup(e->value.string);

	rc = opt_string(l, root, "version", "", &e);
	if (rc < 0)
		return rc;
	if (!e)
		return fail_at(l, 1, 1, "missing required key 'version' (e.g. version = "
					"\"1.2.13\")");
	if (!hk_recipe_version_valid(e->value.string))
		return fail_at(l, e->value.line, e->value.col,
			       "invalid version \"%s\": a version is 1 to %d characters of "
			       "A-Z, a-z, 0-9, '.', '+', '~', ':', '_' and '-', starting with a "
			       "letter or digit", e->value.string, HK_RECIPE_VERSION_MAX);
	r->version = hk_xstrdup(e->value.string);
	return 0;
}

/* "b3:" and at least 8 lowercase hex digits (an id or a prefix of one, as the store finds). */
static bool b3_ref_valid(const char *s)
{
	if (strncmp(s, "b3:", 3) != 0)
		return false;
	size_t n = 0;
	for (s += 3; *s; s++, n++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return n >= 8 && n <= 64;
}

static int load_base(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	const struct hk_toml_entry *e;
	int rc = opt_string(l, root, "base", "", &e);
	if (rc < 0)
		return rc;
	r->base_pos.line = e ? e->value.line : 1;
	r->base_pos.col = e ? e->value.col : 1;
	/* No base named: the pinned default, never this machine's own directories. */
	const char *base = e ? e->value.string : HK_BASE_DEFAULT;
	if (strcmp(base, "host") == 0) {
		r->base_kind = HK_BASE_HOST;
	} else if (strncmp(base, "root:", 5) == 0 && base[5] != '\0') {
		r->base_kind = HK_BASE_ROOT;
		r->base_root = fold_path(r->recipe_dir, base + 5);
	} else if (b3_ref_valid(base) || (strncmp(base, "b3:", 3) != 0 &&
					    strncmp(base, "root:", 5) != 0 &&
					    hk_artifact_name_valid(base))) {
		r->base_kind = HK_BASE_STORE;
	} else {
		return fail_at(l, r->base_pos.line, r->base_pos.col,
			       "invalid base \"%s\": expected a base of the store by name (e.g. "
			       "\"" HK_BASE_DEFAULT "\") or id (\"b3:\" and 8 to 64 hex digits), "
			       "\"host\" (this machine's system directories, unpinned) or "
			       "\"root:PATH\" (a root file system directory, unpinned; a relative "
			       "PATH is relative to the recipe's directory)", base);
	}
	r->base = hk_xstrdup(base);
	return 0;
}

static const char *const source_keys[] = { "dir", "tarball", "sha256", "b3", "apt", NULL };

static int relative_spec(struct loader *l, const struct hk_toml_entry *e, const char *what)
{
	const char *s = e->value.string;
	if (s[0] == '\0')
		return fail_at(l, e->value.line, e->value.col, "'%s' in [source] is empty", e->key);
	if (s[0] == '/')
		return fail_at(l, e->value.line, e->value.col,
			       "'%s' in [source] must be a %s relative to the recipe's directory, "
			       "not an absolute path (so the recipe and its sources move together)",
			       e->key, what);
	return 0;
}

static int valid_hash_hex(struct loader *l, const struct hk_toml_entry *e)
{
	const char *s = e->value.string;
	if (strlen(s) == 64 && all_chars(s, 64, is_hex_lower))
		return 0;
	return fail_at(l, e->value.line, e->value.col,
		       "'%s' in [source] must be 64 lowercase hexadecimal digits%s", e->key,
		       strncmp(s, "b3:", 3) == 0 ? " (write them without the 'b3:' prefix)" : "");
}

static bool deb_name_char(int c)
{
	return is_lower_alnum(c) || c == '+' || c == '.' || c == '-';
}

static bool deb_version_char(int c)
{
	return is_alnum(c) || c == '.' || c == '+' || c == '~' || c == ':' || c == '-';
}

static int load_source(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	static const struct table_rules rules = { "in [source]", source_keys,
						  "dir, tarball, sha256, b3, apt", false };
	const struct hk_toml_entry *table;
	int rc = opt_table(l, root, "source", &table);
	if (rc < 0)
		return rc;
	if (!table)
		return fail_at(l, 1, 1, "missing required table [source] (one of dir = \"…\", "
					"tarball = \"…\" with sha256 or b3, or apt = \"PKG=VERSION\")");
	const struct hk_toml_table *t = table->value.table;
	if ((rc = check_known_keys(l, t, &rules)) < 0)
		return rc;

	const struct hk_toml_entry *dir, *tarball, *sha256, *b3, *apt;
	if ((rc = opt_string(l, t, "dir", "in [source]", &dir)) < 0 ||
	    (rc = opt_string(l, t, "tarball", "in [source]", &tarball)) < 0 ||
	    (rc = opt_string(l, t, "sha256", "in [source]", &sha256)) < 0 ||
	    (rc = opt_string(l, t, "b3", "in [source]", &b3)) < 0 ||
	    (rc = opt_string(l, t, "apt", "in [source]", &apt)) < 0)
		return rc;

	/* Exactly one kind of source: report the second one written, naming the first. */
	const struct hk_toml_entry *kinds[3] = { NULL, NULL, NULL };
	size_t n_kinds = 0;
	for (size_t i = 0; i < t->n_entries; i++) {
		const struct hk_toml_entry *e = &t->entries[i];
		if (e == dir || e == tarball || e == apt)
			kinds[n_kinds++] = e;
	}
	if (n_kinds == 0)
		return fail_at(l, table->value.line, table->value.col,
			       "[source] needs one of dir, tarball (with sha256 or b3) or apt");
	if (n_kinds > 1)
		return fail_at(l, kinds[1]->line, kinds[1]->col,
			       "[source] takes exactly one of dir, tarball or apt: '%s' conflicts "
			       "with '%s' at %u:%u", kinds[1]->key, kinds[0]->key, kinds[0]->line,
			       kinds[0]->col);
	if (!tarball && (sha256 || b3)) {
		const struct hk_toml_entry *h = sha256 ? sha256 : b3;
		return fail_at(l, h->line, h->col, "'%s' in [source] is the hash of a tarball, "
						   "but there is no tarball", h->key);
	}

	struct hk_recipe_source *s = &r->source;
	const struct hk_toml_entry *chosen = kinds[0];
	s->pos = pos_of(&chosen->value);
	if (dir) {
		if ((rc = relative_spec(l, dir, "directory")) < 0)
			return rc;
		s->kind = HK_SOURCE_DIR;
		s->path = fold_path(r->recipe_dir, dir->value.string);
	} else if (tarball) {
		if ((rc = relative_spec(l, tarball, "file")) < 0)
			return rc;
		if (!sha256 && !b3)
			return fail_at(l, tarball->line, tarball->col,
				       "a tarball needs its hash: add sha256 = \"…\" or b3 = \"…\" "
				       "to [source]");
		if (sha256 && b3) {
			const struct hk_toml_entry *second = sha256->line > b3->line ||
				(sha256->line == b3->line && sha256->col > b3->col) ? sha256 : b3;
			return fail_at(l, second->line, second->col,
				       "[source] takes one hash of the tarball, sha256 or b3, not both");
		}
		const struct hk_toml_entry *h = sha256 ? sha256 : b3;
		if ((rc = valid_hash_hex(l, h)) < 0)
			return rc;
		s->kind = HK_SOURCE_TARBALL;
		s->path = fold_path(r->recipe_dir, tarball->value.string);
		s->hash_algo = sha256 ? HK_HASH_SHA256 : HK_HASH_B3;
		s->hash_hex = hk_xstrdup(h->value.string);
	} else {
		const char *v = apt->value.string;
		const char *eq = strchr(v, '=');
		size_t np = eq ? (size_t)(eq - v) : 0;
		/* Debian policy: package names are [a-z0-9][a-z0-9+.-]+; versions start with a
		 * digit (after an optional "EPOCH:").  The version is mandatory: an unpinned
		 * `apt-get source` fetches whatever the mirror has today. */
		bool ok = eq && np >= 2 && is_lower_alnum((unsigned char)v[0]) &&
			  all_chars(v, np, deb_name_char) && eq[1] >= '0' && eq[1] <= '9' &&
			  all_chars(eq + 1, strlen(eq + 1), deb_version_char);
		if (!ok)
			return fail_at(l, apt->value.line, apt->value.col,
				       "invalid apt source \"%s\": expected PACKAGE=VERSION with a "
				       "pinned Debian version, e.g. \"zlib=1:1.2.13.dfsg-1\"", v);
		s->kind = HK_SOURCE_APT;
		s->apt_package = hk_xstrndup(v, np);
		s->apt_version = hk_xstrdup(eq + 1);
	}
	s->spec = hk_xstrdup(chosen->value.string);
	return 0;
}

static void free_dep(struct hk_recipe_dep *d)
{
	free(d->spec);
	free(d->name);
	free(d->version);
	free(d->b3);
}

/* Splits a dependency spec into d (its strings allocated), or says what is wrong with it
 * (then d is left empty): one rule for the parser and for recipes built in memory. */
static const char *dep_split(const char *s, struct hk_recipe_dep *d)
{
	size_t n = strlen(s);
	if (n == 0)
		return "an empty dependency";
	if (strncmp(s, "b3:", 3) == 0) {
		const char *hex = s + 3;
		size_t nh = strspn(hex, "0123456789abcdef");
		const char *rest = hex + nh;
		if (nh != 64 || (*rest != '\0' && !(*rest == '-' &&
						    artifact_name_valid(rest + 1, strlen(rest + 1)))))
			return "a hash dependency is b3:<64 lowercase hex digits>, optionally "
			       "followed by -NAME";
		d->b3 = hk_xstrndup(s, 3 + 64);
		if (*rest)
			d->name = hk_xstrdup(rest + 1);
	} else {
		const char *eq = strchr(s, '=');
		size_t nn = eq ? (size_t)(eq - s) : n;
		if (!artifact_name_valid(s, nn) || (eq && !hk_recipe_version_valid(eq + 1)))
			return "expected an artifact NAME (A-Z, a-z, 0-9, '+', '.', '_', '-'), "
			       "NAME=VERSION, b3:<hex> or b3:<hex>-NAME";
		d->name = hk_xstrndup(s, nn);
		if (eq)
			d->version = hk_xstrdup(eq + 1);
	}
	d->spec = hk_xstrdup(s);
	return NULL;
}

static int parse_dep(struct loader *l, const struct hk_toml_value *v, const char *list,
		     struct hk_recipe_dep *d)
{
	const char *s = v->string;
	d->pos = pos_of(v);
	if (!*s)
		return fail_at(l, v->line, v->col, "empty dependency in %s", list);
	const char *why = dep_split(s, d);
	if (why)
		return fail_at(l, v->line, v->col, "invalid dependency \"%s\" in %s: %s", s, list,
			       why);
	return 0;
}

/* Whether two deps name the same artifact (a recipe declares each once). */
static bool dep_same(const struct hk_recipe_dep *o, const struct hk_recipe_dep *d)
{
	return strcmp(o->spec, d->spec) == 0 || (o->name && d->name && strcmp(o->name, d->name) == 0) ||
	       (o->b3 && d->b3 && strcmp(o->b3, d->b3) == 0);
}

static int load_dep_list(struct loader *l, const struct hk_toml_table *t, const char *key,
			 struct hk_recipe_dep **out, size_t *n_out)
{
	char list[32];
	snprintf(list, sizeof(list), "deps.%s", key);
	const struct hk_toml_entry *e = hk_toml_find(t, key);
	if (!e)
		return 0;
	int rc = want_kind(l, e, "in [deps]", HK_TOML_ARRAY,
			   "an array of dependencies, e.g. [\"make\", \"binutils\"]");
	if (rc < 0)
		return rc;
	const struct hk_toml_value *a = &e->value;
	*out = hk_xcalloc(a->n_items ? a->n_items : 1, sizeof(**out));
	for (size_t i = 0; i < a->n_items; i++) {
		const struct hk_toml_value *v = &a->items[i];
		if (v->kind != HK_TOML_STRING)
			return fail_at(l, v->line, v->col, "each dependency in %s must be a string, "
							   "not %s",
				       list, hk_toml_kind_article(v->kind));
		struct hk_recipe_dep *d = &(*out)[*n_out];
		rc = parse_dep(l, v, list, d);
		(*n_out)++;   /* counted even on failure so hk_recipe_free releases it */
		if (rc < 0)
			return rc;
		for (size_t j = 0; j + 1 < *n_out; j++) {
			const struct hk_recipe_dep *o = &(*out)[j];
			if (dep_same(o, d))
				return fail_at(l, v->line, v->col,
					       "duplicate dependency \"%s\" in %s: already declared "
					       "as \"%s\" at %u:%u", d->spec, list, o->spec,
					       o->pos.line, o->pos.col);
		}
	}
	return 0;
}

static int load_deps(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	static const char *const keys[] = { "build", "runtime", NULL };
	static const struct table_rules rules = { "in [deps]", keys, "build, runtime", false };
	const struct hk_toml_entry *table;
	int rc = opt_table(l, root, "deps", &table);
	if (rc < 0 || !table)
		return rc;
	const struct hk_toml_table *t = table->value.table;
	if ((rc = check_known_keys(l, t, &rules)) < 0)
		return rc;
	if ((rc = load_dep_list(l, t, "build", &r->build_deps, &r->n_build_deps)) < 0)
		return rc;
	return load_dep_list(l, t, "runtime", &r->runtime_deps, &r->n_runtime_deps);
}

static bool is_blank(const char *s)
{
	return s[strspn(s, " \t\n")] == '\0';
}

static int load_phases(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	static const char *const keys[] = { "configure", "compile", "install", NULL };
	static const struct table_rules rules = { "in [phases]", keys,
						  "configure, compile, install", false };
	const struct hk_toml_entry *table;
	int rc = opt_table(l, root, "phases", &table);
	if (rc < 0)
		return rc;
	if (!table)
		return fail_at(l, 1, 1, "missing required table [phases] (at least one of "
					"configure, compile or install)");
	const struct hk_toml_table *t = table->value.table;
	if ((rc = check_known_keys(l, t, &rules)) < 0)
		return rc;

	bool any = false;
	for (int p = 0; p < HK_PHASE_COUNT; p++) {
		const struct hk_toml_entry *e = hk_toml_find(t, hk_phase_name(p));
		if (!e)
			continue;
		struct hk_recipe_phase *ph = &r->phases[p];
		const struct hk_toml_value *v = &e->value;
		ph->pos = pos_of(v);
		/* A string is one command; an array is several, run in order. */
		const struct hk_toml_value *items = v;
		size_t n = 1;
		if (v->kind == HK_TOML_ARRAY) {
			items = v->items;
			n = v->n_items;
			if (n == 0)
				return fail_at(l, v->line, v->col,
					       "phase '%s' has no commands (remove the key to skip the "
					       "phase)", e->key);
		} else if (v->kind != HK_TOML_STRING) {
			return fail_at(l, v->line, v->col, "phase '%s' must be a command string or "
							   "an array of command strings, not %s",
				       e->key, hk_toml_kind_article(v->kind));
		}
		ph->commands = hk_xcalloc(n, sizeof(*ph->commands));
		for (size_t i = 0; i < n; i++) {
			const struct hk_toml_value *c = &items[i];
			if (c->kind != HK_TOML_STRING)
				return fail_at(l, c->line, c->col, "each command of phase '%s' must "
								   "be a string, not %s", e->key,
					       hk_toml_kind_article(c->kind));
			if (is_blank(c->string))
				return fail_at(l, c->line, c->col, "empty command in phase '%s' "
								   "(remove it, or the key to skip "
								   "the phase)", e->key);
			ph->commands[i] = hk_xstrdup(c->string);
			ph->n_commands++;
		}
		any = true;
	}
	if (!any)
		return fail_at(l, table->value.line, table->value.col,
			       "[phases] needs at least one of configure, compile or install");
	return 0;
}

static bool env_key_valid(const char *k)
{
	bool first_ok = k[0] == '_' || (k[0] >= 'A' && k[0] <= 'Z') || (k[0] >= 'a' && k[0] <= 'z');
	return first_ok && all_chars(k, strlen(k), env_char);
}

static int compare_env(const void *a, const void *b)
{
	return strcmp(((const struct hk_recipe_env *)a)->key, ((const struct hk_recipe_env *)b)->key);
}

static int load_env(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	const struct hk_toml_entry *table;
	int rc = opt_table(l, root, "env", &table);
	if (rc < 0 || !table)
		return rc;
	const struct hk_toml_table *t = table->value.table;
	r->env = hk_xcalloc(t->n_entries ? t->n_entries : 1, sizeof(*r->env));
	for (size_t i = 0; i < t->n_entries; i++) {
		const struct hk_toml_entry *e = &t->entries[i];
		const char *k = e->key;
		if (!env_key_valid(k))
			return fail_at(l, e->line, e->col,
				       "invalid environment variable name '%s' in [env]: expected a "
				       "shell identifier (A-Z, a-z, 0-9 and '_', not starting with "
				       "a digit)", k);
		if (hk_recipe_env_is_reserved(k))
			return fail_at(l, e->line, e->col,
				       "'%s' in [env] is fixed by the sandbox for reproducible builds "
				       "(SOURCE_DATE_EPOCH, LC_ALL, TZ, PATH, HOME and HARKAQ_* cannot "
				       "be set by a recipe; a phase command may export its own)", k);
		if ((rc = want_kind(l, e, "in [env]", HK_TOML_STRING, "a string")) < 0)
			return rc;
		struct hk_recipe_env *v = &r->env[r->n_env++];
		v->key = hk_xstrdup(k);
		v->value = hk_xstrdup(e->value.string);
		v->pos.line = e->line;
		v->pos.col = e->col;
	}
	qsort(r->env, r->n_env, sizeof(*r->env), compare_env);
	return 0;
}

static int load_expect(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	static const char *const keys[] = { "paths", NULL };
	static const struct table_rules rules = { "in [expect]", keys, "paths", false };
	const struct hk_toml_entry *table;
	int rc = opt_table(l, root, "expect", &table);
	if (rc < 0 || !table)
		return rc;
	const struct hk_toml_table *t = table->value.table;
	if ((rc = check_known_keys(l, t, &rules)) < 0)
		return rc;
	const struct hk_toml_entry *e = hk_toml_find(t, "paths");
	if (!e)
		return 0;
	if ((rc = want_kind(l, e, "in [expect]", HK_TOML_ARRAY,
			    "an array of absolute paths")) < 0)
		return rc;
	const struct hk_toml_value *a = &e->value;
	r->expects = hk_xcalloc(a->n_items ? a->n_items : 1, sizeof(*r->expects));
	r->expect_pos = hk_xcalloc(a->n_items ? a->n_items : 1, sizeof(*r->expect_pos));
	for (size_t i = 0; i < a->n_items; i++) {
		const struct hk_toml_value *v = &a->items[i];
		if (v->kind != HK_TOML_STRING)
			return fail_at(l, v->line, v->col, "each path in expect.paths must be a "
							   "string, not %s",
				       hk_toml_kind_article(v->kind));
		const char *p = v->string;
		if (p[0] != '/')
			return fail_at(l, v->line, v->col, "expect path \"%s\" must be absolute (a "
							   "path as the build sees it in the sandbox)", p);
		if (strcmp(p, "/") == 0)
			return fail_at(l, v->line, v->col, "expect path \"/\" would classify every "
							   "denial as expected; name the paths");
		if (!path_is_normalised(p))
			return fail_at(l, v->line, v->col, "expect path \"%s\" is not normalised "
							   "(no empty, '.' or '..' components)", p);
		for (size_t j = 0; j < r->n_expects; j++)
			if (strcmp(r->expects[j], p) == 0)
				return fail_at(l, v->line, v->col, "duplicate expect path \"%s\" "
								   "(already listed at %u:%u)", p,
					       r->expect_pos[j].line, r->expect_pos[j].col);
		r->expects[r->n_expects] = hk_xstrdup(p);
		r->expect_pos[r->n_expects] = pos_of(v);
		r->n_expects++;
	}
	return 0;
}

static int load_tree(struct loader *l, const struct hk_toml_table *root, struct hk_recipe *r)
{
	static const char *const keys[] = { "name", "version", "base", "source", "deps",
					    "phases", "expect", "env", NULL };
	static const struct table_rules rules = {
		"at the top level", keys,
		"name, version, base, [source], [deps], [phases], [expect], [env]", false
	};
	int rc;
	if ((rc = check_known_keys(l, root, &rules)) < 0 ||
	    (rc = load_name_version(l, root, r)) < 0 ||
	    (rc = load_base(l, root, r)) < 0 ||
	    (rc = load_source(l, root, r)) < 0 ||
	    (rc = load_deps(l, root, r)) < 0 ||
	    (rc = load_phases(l, root, r)) < 0 ||
	    (rc = load_expect(l, root, r)) < 0 ||
	    (rc = load_env(l, root, r)) < 0)
		return rc;
	return 0;
}

int hk_recipe_parse(const char *text, size_t len, const char *filename, const char *recipe_dir,
		    struct hk_recipe *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!recipe_dir || recipe_dir[0] != '/')
		return hk_fail(err, EINVAL, "%s: the recipe directory '%s' is not absolute", filename,
			       recipe_dir ? recipe_dir : "(null)");
	struct hk_toml_table *root = NULL;
	int rc = hk_toml_parse(text, len, filename, &root, err);
	if (rc < 0)
		return rc;
	struct loader l = { filename, err };
	out->recipe_dir = fold_path("/", recipe_dir);
	rc = load_tree(&l, root, out);
	hk_toml_free(root);
	if (rc < 0)
		hk_recipe_free(out);
	return rc;
}

void hk_recipe_free(struct hk_recipe *r)
{
	free(r->path);
	free(r->recipe_dir);
	free(r->name);
	free(r->version);
	free(r->base);
	free(r->base_root);
	free(r->source.spec);
	free(r->source.path);
	free(r->source.hash_hex);
	free(r->source.apt_package);
	free(r->source.apt_version);
	for (size_t i = 0; i < r->n_build_deps; i++)
		free_dep(&r->build_deps[i]);
	free(r->build_deps);
	for (size_t i = 0; i < r->n_runtime_deps; i++)
		free_dep(&r->runtime_deps[i]);
	free(r->runtime_deps);
	for (int p = 0; p < HK_PHASE_COUNT; p++) {
		for (size_t i = 0; i < r->phases[p].n_commands; i++)
			free(r->phases[p].commands[i]);
		free(r->phases[p].commands);
	}
	for (size_t i = 0; i < r->n_env; i++) {
		free(r->env[i].key);
		free(r->env[i].value);
	}
	free(r->env);
	for (size_t i = 0; i < r->n_expects; i++)
		free(r->expects[i]);
	free(r->expects);
	free(r->expect_pos);
	memset(r, 0, sizeof(*r));
}

/* ---- identity ---- */

/* "TAG LEN:BYTES\n": the length prefix makes the serialisation injective whatever the bytes
 * (a command may contain newlines, spaces or anything a tag could look like). */
static void put_field(struct hk_buf *b, const char *tag, const char *value)
{
	hk_buf_printf(b, "%s %zu:", tag, strlen(value));
	hk_buf_puts(b, value);
	hk_buf_putc(b, '\n');
}

static void put_deps(struct hk_buf *b, const char *tag, const struct hk_recipe_dep *d, size_t n)
{
	/* In the order written: the order deps are merged into the sandbox may decide which of
	 * two artifacts providing one path wins, so it is part of what the recipe means. */
	hk_buf_printf(b, "%s %zu\n", tag, n);
	for (size_t i = 0; i < n; i++)
		put_field(b, "dep", d[i].spec);
}

static int compare_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hk_recipe_canonical(const struct hk_recipe *r, struct hk_buf *out)
{
	hk_buf_puts(out, "harkaq-recipe-hash 1\n");
	put_field(out, "name", r->name);
	put_field(out, "version", r->version);
	put_field(out, "base", r->base);
	const struct hk_recipe_source *s = &r->source;
	switch (s->kind) {
	case HK_SOURCE_DIR:
		put_field(out, "source.dir", s->spec);
		break;
	case HK_SOURCE_TARBALL:
		put_field(out, "source.tarball", s->spec);
		put_field(out, s->hash_algo == HK_HASH_SHA256 ? "source.sha256" : "source.b3",
			  s->hash_hex);
		break;
	case HK_SOURCE_APT:
		put_field(out, "source.apt", s->spec);
		break;
	}
	put_deps(out, "deps.build", r->build_deps, r->n_build_deps);
	put_deps(out, "deps.runtime", r->runtime_deps, r->n_runtime_deps);
	for (int p = 0; p < HK_PHASE_COUNT; p++) {
		const struct hk_recipe_phase *ph = &r->phases[p];
		hk_buf_printf(out, "phase.%s %zu\n", hk_phase_name(p), ph->n_commands);
		for (size_t i = 0; i < ph->n_commands; i++)
			put_field(out, "command", ph->commands[i]);
	}
	/* env is already sorted by key: a map, its order in the file means nothing. */
	hk_buf_printf(out, "env %zu\n", r->n_env);
	for (size_t i = 0; i < r->n_env; i++) {
		put_field(out, "key", r->env[i].key);
		put_field(out, "value", r->env[i].value);
	}
	/* Expectations are a set (the policy sorts them too). */
	char **sorted = hk_xcalloc(r->n_expects ? r->n_expects : 1, sizeof(*sorted));
	if (r->n_expects)
		memcpy(sorted, r->expects, r->n_expects * sizeof(*sorted));
	qsort(sorted, r->n_expects, sizeof(*sorted), compare_str_ptr);
	hk_buf_printf(out, "expect %zu\n", r->n_expects);
	for (size_t i = 0; i < r->n_expects; i++)
		put_field(out, "path", sorted[i]);
	free(sorted);
}

void hk_recipe_hash(const struct hk_recipe *r, char out[HK_B3_ID_LEN])
{
	struct hk_buf b = HK_BUF_INIT;
	hk_recipe_canonical(r, &b);
	hk_b3_id(hk_buf_str(&b), b.len, out);
	hk_buf_free(&b);
}

/* ---- recipes built in memory ------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
	return s ? hk_xstrdup(s) : NULL;
}

void hk_recipe_init(struct hk_recipe *r, const char *recipe_dir)
{
	memset(r, 0, sizeof(*r));
	r->recipe_dir = hk_xstrdup(recipe_dir);
	r->base = hk_xstrdup(HK_BASE_DEFAULT);
	r->base_kind = HK_BASE_STORE;
	r->base_pos = (struct hk_recipe_pos){ 1, 1 };
}

int hk_recipe_set_identity(struct hk_recipe *r, const char *name, const char *version,
			   struct hk_error *err)
{
	if (!hk_recipe_name_valid(name))
		return hk_fail(err, EINVAL, "invalid recipe name \"%s\"", name);
	if (!hk_recipe_version_valid(version))
		return hk_fail(err, EINVAL, "invalid recipe version \"%s\"", version);
	free(r->name);
	free(r->version);
	r->name = hk_xstrdup(name);
	r->version = hk_xstrdup(version);
	return 0;
}

int hk_recipe_set_store_base(struct hk_recipe *r, const char *base, struct hk_error *err)
{
	if (!b3_ref_valid(base) && (strncmp(base, "b3:", 3) == 0 || !hk_artifact_name_valid(base)))
		return hk_fail(err, EINVAL, "invalid base \"%s\": expected a base of the store by "
				       "name or id", base);
	free(r->base);
	r->base = hk_xstrdup(base);
	r->base_kind = HK_BASE_STORE;
	return 0;
}

int hk_recipe_set_source_dir(struct hk_recipe *r, const char *dir, struct hk_error *err)
{
	if (!*dir || dir[0] == '/')
		return hk_fail(err, EINVAL, "a recipe's source dir \"%s\" must be a non-empty path "
				       "relative to its directory", dir);
	free(r->source.spec);
	free(r->source.path);
	r->source.kind = HK_SOURCE_DIR;
	r->source.spec = hk_xstrdup(dir);
	r->source.path = fold_path(r->recipe_dir, dir);
	return 0;
}

int hk_recipe_add_build_dep(struct hk_recipe *r, const char *spec, struct hk_error *err)
{
	struct hk_recipe_dep d;
	memset(&d, 0, sizeof(d));
	const char *why = dep_split(spec, &d);
	if (why)
		return hk_fail(err, EINVAL, "invalid dependency \"%s\": %s", spec, why);
	for (size_t i = 0; i < r->n_build_deps; i++)
		if (dep_same(&r->build_deps[i], &d)) {
			int rc = hk_fail(err, EEXIST, "duplicate dependency \"%s\": already declared "
					 "as \"%s\"", spec, r->build_deps[i].spec);
			free_dep(&d);
			return rc;
		}
	r->build_deps = hk_xrealloc(r->build_deps, (r->n_build_deps + 1) * sizeof(*r->build_deps));
	r->build_deps[r->n_build_deps++] = d;
	return 0;
}

int hk_recipe_add_command(struct hk_recipe *r, enum hk_phase phase, const char *command,
			  struct hk_error *err)
{
	if ((int)phase < 0 || phase >= HK_PHASE_COUNT)
		return hk_fail(err, EINVAL, "no such phase");
	if (is_blank(command))
		return hk_fail(err, EINVAL, "an empty command in phase '%s'", hk_phase_name(phase));
	struct hk_recipe_phase *ph = &r->phases[phase];
	ph->commands = hk_xrealloc(ph->commands, (ph->n_commands + 1) * sizeof(*ph->commands));
	ph->commands[ph->n_commands++] = hk_xstrdup(command);
	return 0;
}

int hk_recipe_set_env(struct hk_recipe *r, const char *key, const char *value,
		      struct hk_error *err)
{
	if (!env_key_valid(key))
		return hk_fail(err, EINVAL, "invalid environment variable name '%s'", key);
	if (hk_recipe_env_is_reserved(key))
		return hk_fail(err, EINVAL, "'%s' is fixed by the sandbox; a recipe cannot set it",
			       key);
	for (size_t i = 0; i < r->n_env; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return hk_fail(err, EEXIST, "'%s' set twice in the environment", key);
	r->env = hk_xrealloc(r->env, (r->n_env + 1) * sizeof(*r->env));
	r->env[r->n_env++] = (struct hk_recipe_env){ hk_xstrdup(key), hk_xstrdup(value), { 0, 0 } };
	qsort(r->env, r->n_env, sizeof(*r->env), compare_env);
	return 0;
}

int hk_recipe_check(const struct hk_recipe *r, struct hk_error *err)
{
	if (!r->name || !r->version)
		return hk_fail(err, EINVAL, "a recipe needs a name and a version");
	if (!r->source.spec)
		return hk_fail(err, EINVAL, "recipe %s: no source", r->name);
	for (int p = 0; p < HK_PHASE_COUNT; p++)
		if (r->phases[p].n_commands)
			return 0;
	return hk_fail(err, EINVAL, "recipe %s: no phase has a command", r->name);
}

static void copy_deps(const struct hk_recipe_dep *src, size_t n, struct hk_recipe_dep **dst)
{
	*dst = hk_xcalloc(n ? n : 1, sizeof(**dst));
	for (size_t i = 0; i < n; i++)
		(*dst)[i] = (struct hk_recipe_dep){ dup_or_null(src[i].spec), dup_or_null(src[i].name),
						    dup_or_null(src[i].version),
						    dup_or_null(src[i].b3), src[i].pos };
}

void hk_recipe_copy(const struct hk_recipe *src, struct hk_recipe *dst)
{
	memset(dst, 0, sizeof(*dst));
	dst->path = dup_or_null(src->path);
	dst->recipe_dir = dup_or_null(src->recipe_dir);
	dst->name = dup_or_null(src->name);
	dst->version = dup_or_null(src->version);
	dst->base = dup_or_null(src->base);
	dst->base_kind = src->base_kind;
	dst->base_root = dup_or_null(src->base_root);
	dst->base_pos = src->base_pos;
	dst->source = src->source;
	dst->source.spec = dup_or_null(src->source.spec);
	dst->source.path = dup_or_null(src->source.path);
	dst->source.hash_hex = dup_or_null(src->source.hash_hex);
	dst->source.apt_package = dup_or_null(src->source.apt_package);
	dst->source.apt_version = dup_or_null(src->source.apt_version);
	copy_deps(src->build_deps, src->n_build_deps, &dst->build_deps);
	dst->n_build_deps = src->n_build_deps;
	copy_deps(src->runtime_deps, src->n_runtime_deps, &dst->runtime_deps);
	dst->n_runtime_deps = src->n_runtime_deps;
	for (int p = 0; p < HK_PHASE_COUNT; p++) {
		const struct hk_recipe_phase *sp = &src->phases[p];
		struct hk_recipe_phase *dp = &dst->phases[p];
		dp->pos = sp->pos;
		if (!sp->n_commands)
			continue;
		dp->commands = hk_xcalloc(sp->n_commands, sizeof(*dp->commands));
		for (size_t i = 0; i < sp->n_commands; i++)
			dp->commands[i] = hk_xstrdup(sp->commands[i]);
		dp->n_commands = sp->n_commands;
	}
	dst->env = hk_xcalloc(src->n_env ? src->n_env : 1, sizeof(*dst->env));
	for (size_t i = 0; i < src->n_env; i++)
		dst->env[i] = (struct hk_recipe_env){ hk_xstrdup(src->env[i].key),
						      hk_xstrdup(src->env[i].value), src->env[i].pos };
	dst->n_env = src->n_env;
	if (src->n_expects) {
		dst->expects = hk_xcalloc(src->n_expects, sizeof(*dst->expects));
		dst->expect_pos = hk_xcalloc(src->n_expects, sizeof(*dst->expect_pos));
		for (size_t i = 0; i < src->n_expects; i++) {
			dst->expects[i] = hk_xstrdup(src->expects[i]);
			dst->expect_pos[i] = src->expect_pos[i];
		}
	}
	dst->n_expects = src->n_expects;
}
