/* Debian source packages: the .dsc and source package relations (dsc.h). */
#include "core/debian/dsc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/basic/strv.h"
#include "core/basic/util.h"

static const char *const field_names[HK_DSC_FIELD_COUNT] = {
	"Build-Depends",     "Build-Depends-Arch",     "Build-Depends-Indep",
	"Build-Conflicts",   "Build-Conflicts-Arch",   "Build-Conflicts-Indep",
};

const char *hk_dsc_field_name(enum hk_dsc_field f)
{
	return (unsigned)f < HK_DSC_FIELD_COUNT ? field_names[f] : "?";
}

/* ---- architectures ------------------------------------------------------------------------ */

bool hk_deb_arch_matches(const struct hk_deb_arch *host, const char *token)
{
	if (strcmp(token, "any") == 0 || strcmp(token, host->arch) == 0)
		return true;
	/* A wildcard has an "any" part; its tuple is padded on the left with "any" (dpkg's
	 * debwildcard_to_debtuple).  Any other name is a real architecture, and two different
	 * architectures never share a tuple: only the host's own name matches. */
	char *parts[4] = { NULL };
	size_t n = 0;
	bool wildcard = false;
	hk_autofree char *copy = hk_xstrdup(token);
	for (char *p = copy, *save = NULL, *t; n < 4 && (t = strtok_r(p, "-", &save)); p = NULL) {
		parts[n++] = t;
		wildcard |= strcmp(t, "any") == 0;
	}
	if (!wildcard)
		return false;
	const char *tuple[4] = { "any", "any", "any", "any" };
	for (size_t i = 0; i < n; i++)
		tuple[4 - n + i] = parts[i];
	const char *real[4] = { host->abi, host->libc, host->os, host->cpu };
	for (size_t i = 0; i < 4; i++)
		if (strcmp(tuple[i], "any") != 0 && strcmp(tuple[i], real[i]) != 0)
			return false;
	return true;
}

/* ---- source relations --------------------------------------------------------------------- */

/* One alternative with its restrictions. */
struct src_alt {
	struct hk_deb_rel rel;
	struct hk_strv arches;       /* without their '!' */
	bool arches_negated;
	struct hk_strv *profiles;    /* groups of terms ("nocheck", "!stage1") */
	size_t n_profiles;
};

static void src_alt_free(struct src_alt *a)
{
	free(a->rel.name);
	free(a->rel.arch);
	free(a->rel.op);
	free(a->rel.version);
	hk_strv_free(&a->arches);
	for (size_t i = 0; i < a->n_profiles; i++)
		hk_strv_free(&a->profiles[i]);
	free(a->profiles);
	memset(a, 0, sizeof(*a));
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool restriction_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '+' || c == '.' || c == '_' || c == '!';
}

/* The terms between `open` (just past '[' or '<') and its closing bracket, blank-separated,
 * into `terms`; returns the position past the bracket, or NULL if malformed. */
static const char *bracket_terms(const char *p, const char *end, char close, struct hk_strv *terms)
{
	for (;;) {
		while (p < end && blank(*p))
			p++;
		if (p < end && *p == close)
			return terms->n ? p + 1 : NULL;
		const char *s = p;
		while (p < end && restriction_char(*p))
			p++;
		if (p == s || (p < end && !blank(*p) && *p != close))
			return NULL;
		/* '!' only at the start of a term, and never alone. */
		if (memchr(s + 1, '!', (size_t)(p - s - 1)) || (*s == '!' && p - s == 1))
			return NULL;
		hk_strv_push_owned(terms, hk_xstrndup(s, (size_t)(p - s)));
	}
}

/* Parses one alternative "rel [arches] <profiles>…" from [p, end). */
static int parse_src_alt(const char *p, const char *end, const char *field, const char *group_text,
			 struct src_alt *a, struct hk_error *err)
{
	memset(a, 0, sizeof(*a));
	/* The binary relation ends at the first '[' or '<' outside its "(op version)". */
	const char *q = p;
	int depth = 0;
	while (q < end && (depth > 0 || (*q != '[' && *q != '<'))) {
		depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
		q++;
	}
	hk_autofree char *rel_text = hk_xstrndup(p, (size_t)(q - p));
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	struct hk_error e;
	if (hk_deb_parse_relations(rel_text, field, &g, &ng, &e) < 0 || ng != 1 || g[0].n != 1) {
		hk_deb_relations_free(g, ng);
		return hk_fail(err, EINVAL, "%s: cannot parse the relation in '%s'", field, group_text);
	}
	a->rel = g[0].alts[0];
	free(g[0].alts);
	free(g);
	bool seen_profiles = false;
	while (q < end) {
		if (blank(*q)) {
			q++;
			continue;
		}
		if (*q == '[' && !seen_profiles && a->arches.n == 0) {
			q = bracket_terms(q + 1, end, ']', &a->arches);
			size_t neg = 0;
			for (size_t i = 0; q && i < a->arches.n; i++)
				neg += a->arches.v[i][0] == '!';
			if (!q || (neg != 0 && neg != a->arches.n)) {
				src_alt_free(a);
				return hk_fail(err, EINVAL,
					       "%s: '%s': an architecture list is '[name …]' or "
					       "'[!name …]', never both kinds of name", field, group_text);
			}
			a->arches_negated = neg != 0;
			for (size_t i = 0; neg && i < a->arches.n; i++)
				memmove(a->arches.v[i], a->arches.v[i] + 1, strlen(a->arches.v[i]));
		} else if (*q == '<') {
			seen_profiles = true;
			a->profiles = hk_xrealloc(a->profiles, (a->n_profiles + 1) * sizeof(*a->profiles));
			a->profiles[a->n_profiles] = (struct hk_strv)HK_STRV_INIT;
			q = bracket_terms(q + 1, end, '>', &a->profiles[a->n_profiles++]);
			if (!q) {
				src_alt_free(a);
				return hk_fail(err, EINVAL, "%s: '%s': a build profile restriction is "
					       "'<term …>', each term a profile name or '!' and one",
					       field, group_text);
			}
		} else {
			src_alt_free(a);
			return hk_fail(err, EINVAL, "%s: '%s': after the relation only an architecture "
				       "list [...] and profile restrictions <...> may follow", field,
				       group_text);
		}
	}
	return 0;
}

static bool profiles_hold(const struct src_alt *a, const char *const *active, size_t n_active)
{
	if (a->n_profiles == 0)
		return true;
	for (size_t g = 0; g < a->n_profiles; g++) {
		bool all = true;
		for (size_t t = 0; t < a->profiles[g].n && all; t++) {
			const char *term = a->profiles[g].v[t];
			bool neg = term[0] == '!';
			bool on = false;
			for (size_t k = 0; k < n_active; k++)
				on |= strcmp(active[k], term + neg) == 0;
			all = neg ? !on : on;
		}
		if (all)
			return true;
	}
	return false;
}

static bool arches_hold(const struct src_alt *a, const struct hk_deb_arch *host)
{
	if (a->arches.n == 0)
		return true;
	bool any = false;
	for (size_t i = 0; i < a->arches.n; i++)
		any |= hk_deb_arch_matches(host, a->arches.v[i]);
	return a->arches_negated ? !any : any;
}

int hk_dsc_relations_reduce(const char *text, const char *field, const struct hk_deb_arch *host,
			    const char *const *profiles, size_t n_profiles,
			    struct hk_deb_rel_group **out, size_t *n, struct hk_error *err)
{
	struct hk_deb_rel_group *g = NULL;
	size_t count = 0;
	const char *p = text, *end = text + strlen(text);
	int r = 0;
	while (r == 0 && p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *ge = comma ? comma : end;
		const char *s = p;
		while (s < ge && blank(*s))
			s++;
		if (s < ge) {
			hk_autofree char *group_text = hk_xstrndup(s, (size_t)(ge - s));
			while (group_text[0] && blank(group_text[strlen(group_text) - 1]))
				group_text[strlen(group_text) - 1] = '\0';
			struct hk_deb_rel_group kept = { NULL, 0 };
			for (const char *a = p; r == 0;) {
				const char *bar = memchr(a, '|', (size_t)(ge - a));
				const char *ae = bar ? bar : ge;
				struct src_alt alt;
				r = parse_src_alt(a, ae, field, group_text, &alt, err);
				if (r < 0)
					break;
				if (host && arches_hold(&alt, host) &&
				    profiles_hold(&alt, profiles, n_profiles)) {
					kept.alts = hk_xrealloc(kept.alts, (kept.n + 1) * sizeof(*kept.alts));
					kept.alts[kept.n++] = alt.rel;
					memset(&alt.rel, 0, sizeof(alt.rel));
				}
				src_alt_free(&alt);
				if (!bar)
					break;
				a = bar + 1;
			}
			if (kept.n) {
				g = hk_xrealloc(g, (count + 1) * sizeof(*g));
				g[count++] = kept;
			} else {
				free(kept.alts);
			}
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (r < 0) {
		hk_deb_relations_free(g, count);
		return r;
	}
	*out = g;
	*n = count;
	return 0;
}

void hk_deb_relations_text(const struct hk_deb_rel_group *g, size_t n, struct hk_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			hk_buf_puts(out, ", ");
		for (size_t k = 0; k < g[i].n; k++) {
			const struct hk_deb_rel *r = &g[i].alts[k];
			if (k)
				hk_buf_puts(out, " | ");
			hk_buf_puts(out, r->name);
			if (r->arch)
				hk_buf_printf(out, ":%s", r->arch);
			if (r->op)
				hk_buf_printf(out, " (%s %s)", r->op, r->version);
		}
	}
}

/* ---- the .dsc ----------------------------------------------------------------------------- */

#define PGP_BEGIN_MESSAGE "-----BEGIN PGP SIGNED MESSAGE-----"
#define PGP_BEGIN_SIGNATURE "-----BEGIN PGP SIGNATURE-----"
#define PGP_END_SIGNATURE "-----END PGP SIGNATURE-----"

static bool line_is(const char *p, size_t n, const char *s)
{
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* The stanza of a possibly clear-signed .dsc, with the same line numbers as the file: the
 * armour's lines become empty lines, dash-escaped lines ("- …") lose their "- ", and the
 * signature block is cut off (RFC 4880 §7). */
static int dearmor(const char *text, size_t len, const char *filename, struct hk_buf *out,
		   bool *is_signed, struct hk_error *err)
{
	enum { BEFORE, HEADERS, BODY, SIGNATURE, DONE } state = BEFORE;
	unsigned line = 0, body_line = 0;
	*is_signed = false;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)((nl ? nl : end) - p);
		line++;
		switch (state) {
		case BEFORE:
			if (line_is(p, ll, PGP_BEGIN_MESSAGE)) {
				state = HEADERS;
				*is_signed = true;
				body_line = line;
				break;
			}
			if (ll && !line_is(p, ll, "")) {
				/* Not signed: the whole text is the stanza. */
				hk_buf_append(out, text, len);
				return 0;
			}
			break;
		case HEADERS:
			if (line_is(p, ll, ""))
				state = BODY;
			break;
		case BODY:
			if (line_is(p, ll, PGP_BEGIN_SIGNATURE)) {
				state = SIGNATURE;
				break;
			}
			if (ll >= 2 && p[0] == '-' && p[1] == ' ')
				hk_buf_append(out, p + 2, ll - 2);
			else if (ll && p[0] == '-')
				return hk_fail_at(err, EINVAL, filename, line, 0,
						  "a line of the signed message starts with '-' "
						  "without being dash-escaped ('- ')");
			else
				hk_buf_append(out, p, ll);
			break;
		case SIGNATURE:
			if (line_is(p, ll, PGP_END_SIGNATURE))
				state = DONE;
			break;
		case DONE:
			break;
		}
		if (state != SIGNATURE && state != DONE)
			hk_buf_putc(out, '\n');
		p = nl ? nl + 1 : end;
	}
	if (state == BEFORE)
		return 0;   /* empty or blank: the stanza check below says so */
	if (state != DONE)
		return hk_fail_at(err, EINVAL, filename, body_line, 0,
				  "the clear-signed message has no complete signature block (%s "
				  "… %s)", PGP_BEGIN_SIGNATURE, PGP_END_SIGNATURE);
	return 0;
}

/* The line where field `name` starts in `text`, or 0. */
static unsigned field_line(const char *text, const char *name)
{
	size_t n = strlen(name);
	unsigned line = 1;
	for (const char *p = text; *p; line++) {
		if (strncasecmp(p, name, n) == 0 && p[n] == ':')
			return line;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Debian source package names: lowercase letters, digits, '+', '-', '.'; at least two
 * characters, starting with a letter or digit (Debian Policy §5.6.1). */
static bool source_name_valid(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || n > 128 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '+' ||
		      s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

/* Debian versions: [epoch:]upstream[-revision], alphanumerics and . + ~ - : (Policy §5.6.12). */
static bool version_valid(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr(".+~-:", s[i])))
			return false;
	const char *colon = strchr(s, ':');
	if (colon)
		for (const char *p = s; p < colon; p++)
			if (!isdigit((unsigned char)*p))
				return false;
	return true;
}

/* A file name the .dsc may name: it is opened next to the .dsc, so no directory part. */
static bool file_name_valid(const char *s)
{
	if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strlen(s) > 255)
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("+-._~:", *p)))
			return false;
	return true;
}

/* The entries of a checksum field: one "HASH SIZE NAME" per continuation line. */
struct sum_entry {
	char *hash, *name;
	uint64_t size;
	unsigned line;
};

static void sum_entries_free(struct sum_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].hash);
		free(e[i].name);
	}
	free(e);
}

static int parse_sums(const char *value, const char *field, size_t hash_len, const char *filename,
		      unsigned first_line, struct sum_entry **out, size_t *n, struct hk_error *err)
{
	struct sum_entry *v = NULL;
	size_t count = 0;
	unsigned line = first_line;
	for (const char *p = value; p;) {
		const char *nl = strchr(p, '\n');
		hk_autofree char *ln = nl ? hk_xstrndup(p, (size_t)(nl - p)) : hk_xstrdup(p);
		p = nl ? nl + 1 : NULL;
		char *save = NULL;
		char *h = strtok_r(ln, " \t", &save);
		if (!h) {
			line++;
			continue;
		}
		char *sz = strtok_r(NULL, " \t", &save);
		char *name = sz ? strtok_r(NULL, " \t", &save) : NULL;
		char *extra = name ? strtok_r(NULL, " \t", &save) : NULL;
		bool hex_ok = strlen(h) == hash_len;
		for (const char *c = h; hex_ok && *c; c++)
			hex_ok = isxdigit((unsigned char)*c);
		char *endp = NULL;
		unsigned long long size = sz ? strtoull(sz, &endp, 10) : 0;
		bool size_ok = sz && isdigit((unsigned char)sz[0]) && *endp == '\0';
		if (!hex_ok || !size_ok || !name || extra) {
			sum_entries_free(v, count);
			return hk_fail_at(err, EINVAL, filename, line, 0,
					  "%s: expected \"HASH SIZE NAME\" with a %zu-digit hexadecimal "
					  "hash, a decimal size and a file name", field, hash_len);
		}
		if (!file_name_valid(name)) {
			sum_entries_free(v, count);
			return hk_fail_at(err, EINVAL, filename, line, 0,
					  "%s: '%s' is not a plain file name (the files of a .dsc lie "
					  "next to it: no '/', no '..')", field, name);
		}
		for (size_t i = 0; i < count; i++)
			if (strcmp(v[i].name, name) == 0) {
				int rc = hk_fail_at(err, EINVAL, filename, line, 0,
						    "%s: %s is listed twice (first at line %u)", field,
						    name, v[i].line);
				sum_entries_free(v, count);
				return rc;
			}
		v = hk_xrealloc(v, (count + 1) * sizeof(*v));
		v[count].hash = hk_xstrdup(h);
		for (char *c = v[count].hash; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		v[count].name = hk_xstrdup(name);
		v[count].size = size;
		v[count].line = line;
		count++;
		line++;
	}
	*out = v;
	*n = count;
	return 0;
}

void hk_dsc_free(struct hk_dsc *d)
{
	free(d->source);
	free(d->version);
	free(d->format);
	free(d->architecture);
	free(d->binary);
	for (size_t i = 0; i < HK_DSC_FIELD_COUNT; i++)
		free(d->relations[i]);
	for (size_t i = 0; i < d->n_files; i++)
		free(d->files[i].name);
	free(d->files);
	memset(d, 0, sizeof(*d));
}

/* The files: Checksums-Sha256, each also in Files with the same size, and nothing more. */
static int take_files(const struct hk_deb_stanza *st, const char *text, const char *filename,
		      struct hk_dsc *d, struct hk_error *err)
{
	const char *sha = hk_deb_field(st, "Checksums-Sha256");
	const char *md5 = hk_deb_field(st, "Files");
	unsigned sha_line = field_line(text, "Checksums-Sha256");
	unsigned md5_line = field_line(text, "Files");
	struct sum_entry *s = NULL, *m = NULL;
	size_t ns = 0, nm = 0;
	int r = parse_sums(sha, "Checksums-Sha256", 64, filename, sha_line, &s, &ns, err);
	if (r == 0)
		r = parse_sums(md5, "Files", 32, filename, md5_line, &m, &nm, err);
	if (r == 0 && ns == 0)
		r = hk_fail_at(err, EINVAL, filename, sha_line, 0,
			       "Checksums-Sha256: lists no file (a source package has at least one)");
	for (size_t i = 0; r == 0 && i < nm; i++) {
		size_t k = 0;
		while (k < ns && strcmp(s[k].name, m[i].name) != 0)
			k++;
		if (k == ns)
			r = hk_fail_at(err, EINVAL, filename, m[i].line, 0,
				       "Files: %s has no entry in Checksums-Sha256 (harkaq checks "
				       "every file by its SHA-256)", m[i].name);
		else if (s[k].size != m[i].size)
			r = hk_fail_at(err, EINVAL, filename, m[i].line, 0,
				       "Files: %s is %llu bytes here but %llu in Checksums-Sha256 "
				       "(line %u)", m[i].name, (unsigned long long)m[i].size,
				       (unsigned long long)s[k].size, s[k].line);
	}
	for (size_t k = 0; r == 0 && k < ns; k++) {
		size_t i = 0;
		while (i < nm && strcmp(s[k].name, m[i].name) != 0)
			i++;
		if (i == nm)
			r = hk_fail_at(err, EINVAL, filename, s[k].line, 0,
				       "Checksums-Sha256: %s is not listed in Files", s[k].name);
	}
	if (r == 0) {
		d->files = hk_xcalloc(ns, sizeof(*d->files));
		for (size_t k = 0; k < ns; k++) {
			d->files[k].name = hk_steal_ptr(&s[k].name);
			d->files[k].size = s[k].size;
			memcpy(d->files[k].sha256, s[k].hash, 65);
		}
		d->n_files = ns;
	}
	sum_entries_free(s, ns);
	sum_entries_free(m, nm);
	return r;
}

int hk_dsc_parse(const char *text, size_t len, const char *filename, struct hk_dsc *out,
		 struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (memchr(text, '\0', len))
		return hk_fail(err, EINVAL, "%s: contains a NUL byte: not a .dsc control file",
			       filename);
	struct hk_buf clean = HK_BUF_INIT;
	struct hk_deb_stanza *st = NULL;
	size_t n = 0;
	int r = dearmor(text, len, filename, &clean, &out->signed_, err);
	if (r == 0)
		r = hk_deb_parse_control(hk_buf_str(&clean), clean.len, filename, &st, &n, err);
	if (r == 0 && n != 1)
		r = hk_fail(err, EINVAL, "%s: a .dsc is one stanza of \"Field: value\" lines; "
			    "found %zu", filename, n);
	const char *ctext = hk_buf_str(&clean);
	static const char *const required[] = { "Format", "Source", "Version", "Checksums-Sha256",
						"Files" };
	for (size_t i = 0; r == 0 && i < HK_ARRAY_LEN(required); i++) {
		const char *v = hk_deb_field(&st[0], required[i]);
		if (!v || !*v)
			r = hk_fail(err, EINVAL, "%s: field %s: missing (a .dsc names its Format, "
				    "Source, Version, Files and Checksums-Sha256)",
				    filename, required[i]);
	}
	if (r == 0) {
		out->source = hk_xstrdup(hk_deb_field(&st[0], "Source"));
		out->version = hk_xstrdup(hk_deb_field(&st[0], "Version"));
		out->format = hk_xstrdup(hk_deb_field(&st[0], "Format"));
		const char *a = hk_deb_field(&st[0], "Architecture");
		const char *b = hk_deb_field(&st[0], "Binary");
		out->architecture = a ? hk_xstrdup(a) : NULL;
		out->binary = b ? hk_xstrdup(b) : NULL;
		if (!source_name_valid(out->source))
			r = hk_fail_at(err, EINVAL, filename, field_line(ctext, "Source"), 0,
				       "Source: '%s' is not a Debian source package name (lowercase "
				       "letters, digits, '+', '-', '.'; two characters at least)",
				       out->source);
		else if (!version_valid(out->version))
			r = hk_fail_at(err, EINVAL, filename, field_line(ctext, "Version"), 0,
				       "Version: '%s' is not a Debian version ([epoch:]upstream"
				       "[-revision] of letters, digits and . + ~ - :)", out->version);
	}
	if (r == 0)
		r = take_files(&st[0], ctext, filename, out, err);
	for (size_t f = 0; r == 0 && f < HK_DSC_FIELD_COUNT; f++) {
		const char *v = hk_deb_field(&st[0], field_names[f]);
		if (!v)
			continue;
		out->relations[f] = hk_xstrdup(v);
		out->relation_line[f] = field_line(ctext, field_names[f]);
		/* Syntax is checked for every alternative, whatever the build it is for. */
		struct hk_deb_rel_group *g = NULL;
		size_t ng = 0;
		r = hk_dsc_relations_reduce(v, field_names[f], NULL, NULL, 0, &g, &ng, err);
		hk_deb_relations_free(g, ng);
		if (r < 0) {
			char msg[HK_ERROR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			r = hk_fail_at(err, EINVAL, filename, out->relation_line[f], 0, "%s", msg);
		}
	}
	hk_deb_stanzas_free(st, n);
	hk_buf_free(&clean);
	if (r < 0)
		hk_dsc_free(out);
	return r;
}

/* ---- debian/changelog -------------------------------------------------------------------- */

/* "DD MON YYYY HH:MM:SS +ZZZZ" (the day name already skipped): the strict RFC 5322 form
 * debian-policy 4.4 asks of a trailer, month names in English whatever the locale. */
static int parse_trailer_date(const char *p, long long *out)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int day, year, hh, mm, ss, n = 0;
	char mon[4], sign;
	unsigned zone;
	if (sscanf(p, "%2d %3s %4d %2d:%2d:%2d %c%4u%n", &day, mon, &year, &hh, &mm, &ss, &sign,
		   &zone, &n) != 8 || n == 0)
		return -1;
	for (const char *t = p + n; *t && *t != '\n'; t++)
		if (*t != ' ' && *t != '\t')
			return -1;
	/* The zone must be four digits exactly ("+0100"), as must the year. */
	const char *z = p + n - 4;
	if ((sign != '+' && sign != '-') || !isdigit((unsigned char)z[0]) || z[-1] != sign)
		return -1;
	int month = -1;
	for (int i = 0; i < 12; i++)
		if (strcmp(mon, months[i]) == 0)
			month = i;
	if (month < 0 || day < 1 || day > 31 || year < 1970 || hh > 23 || mm > 59 || ss > 60)
		return -1;
	struct tm tm = { .tm_year = year - 1900, .tm_mon = month, .tm_mday = day, .tm_hour = hh,
			 .tm_min = mm, .tm_sec = ss };
	time_t t = timegm(&tm);
	/* timegm normalises an impossible date (31 Feb): such a trailer is not this form. */
	if (t == (time_t)-1 || tm.tm_mday != day || tm.tm_mon != month)
		return -1;
	long long off = (long long)(zone / 100) * 3600 + (long long)(zone % 100) * 60;
	if (zone % 100 > 59)
		return -1;
	*out = (long long)t - (sign == '+' ? off : -off);
	return 0;
}

int hk_changelog_timestamp(const char *text, size_t len, long long *out)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (eol - p > 4 && memcmp(p, " -- ", 4) == 0) {
			/* NAME <EMAIL>, then one or two spaces, then the date. */
			const char *gt = memchr(p, '>', (size_t)(eol - p));
			if (!gt || gt + 1 >= eol || gt[1] != ' ')
				return -1;
			hk_autofree char *date = hk_xstrndup(gt + 1, (size_t)(eol - gt - 1));
			const char *d = date;
			while (*d == ' ')
				d++;
			if (d - date > 2)
				return -1;
			/* An optional day name: "Mon, ". */
			if (isalpha((unsigned char)d[0])) {
				if (!isalpha((unsigned char)d[1]) || !isalpha((unsigned char)d[2]) ||
				    d[3] != ',' || d[4] != ' ')
					return -1;
				d += 5;
			}
			return parse_trailer_date(d, out);
		}
		p = eol + 1;
	}
	return -1;
}
