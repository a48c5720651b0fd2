/* Debian package metadata: deb822 control data, package relations, and the package sets of a
 * dpkg status file (deb.h). */
#include "core/debian/deb.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/basic/buf.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

static void stanza_add(struct hk_deb_stanza *st, char *name, char *value)
{
	st->fields = hk_xrealloc(st->fields, (st->n + 1) * sizeof(*st->fields));
	st->fields[st->n].name = name;
	st->fields[st->n].value = value;
	st->n++;
}

static char *trim_dup(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return hk_xstrndup(p, n);
}

int hk_deb_parse_control(const char *text, size_t len, const char *filename,
			 struct hk_deb_stanza **out, size_t *n, struct hk_error *err)
{
	struct hk_deb_stanza *v = NULL;
	size_t count = 0;
	bool in_stanza = false;
	unsigned line = 0;
	const char *p = text, *end = text + len;
	int r = 0;
	while (p < end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);
		bool blank = true;
		for (size_t i = 0; i < ll; i++)
			if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
				blank = false;
		if (blank) {
			in_stanza = false;
		} else if (p[0] == '#') {
			/* comment (allowed in deb822 files, not in dpkg-deb output) */
		} else if (p[0] == ' ' || p[0] == '\t') {
			if (!in_stanza || v[count - 1].n == 0) {
				r = hk_fail_at(err, EINVAL, filename, line, 0,
					       "continuation line outside a field");
				break;
			}
			struct hk_deb_field *f = &v[count - 1].fields[v[count - 1].n - 1];
			hk_autofree char *cont = trim_dup(p, ll);
			/* A lone "." stands for an empty line in multi-line fields. */
			char *joined = hk_xasprintf("%s\n%s", f->value,
						    strcmp(cont, ".") == 0 ? "" : cont);
			free(f->value);
			f->value = joined;
		} else {
			const char *colon = memchr(p, ':', ll);
			if (!colon || colon == p) {
				r = hk_fail_at(err, EINVAL, filename, line, 0,
					       "expected \"Field: value\"");
				break;
			}
			if (!in_stanza) {
				v = hk_xrealloc(v, (count + 1) * sizeof(*v));
				memset(&v[count], 0, sizeof(v[count]));
				count++;
				in_stanza = true;
			}
			stanza_add(&v[count - 1], hk_xstrndup(p, (size_t)(colon - p)),
				   trim_dup(colon + 1, (size_t)(le - colon - 1)));
		}
		p = nl ? nl + 1 : end;
	}
	if (r < 0) {
		hk_deb_stanzas_free(v, count);
		return r;
	}
	*out = v;
	*n = count;
	return 0;
}

const char *hk_deb_field(const struct hk_deb_stanza *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcasecmp(st->fields[i].name, name) == 0)
			return st->fields[i].value;
	return NULL;
}

static void stanza_fields_free(struct hk_deb_stanza *st)
{
	for (size_t k = 0; k < st->n; k++) {
		free(st->fields[k].name);
		free(st->fields[k].value);
	}
	free(st->fields);
}

void hk_deb_stanzas_free(struct hk_deb_stanza *st, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stanza_fields_free(&st[i]);
	free(st);
}

static void rel_free(struct hk_deb_rel *rel)
{
	free(rel->name);
	free(rel->arch);
	free(rel->op);
	free(rel->version);
	memset(rel, 0, sizeof(*rel));
}

void hk_deb_relations_free(struct hk_deb_rel_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < g[i].n; k++)
			rel_free(&g[i].alts[k]);
		free(g[i].alts);
	}
	free(g);
}

static bool rel_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool pkg_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.' || c == '_';
}

/* Parses one alternative "name[:arch] [(op version)]" from [p, end). */
static int parse_rel(const char *p, const char *end, const char *field, const char *text,
		     struct hk_deb_rel *rel, struct hk_error *err)
{
	memset(rel, 0, sizeof(*rel));
	while (p < end && rel_space(*p))
		p++;
	const char *s = p;
	while (p < end && pkg_char(*p))
		p++;
	if (p == s || !isalnum((unsigned char)*s))
		goto err_free_relation;
	rel->name = hk_xstrndup(s, (size_t)(p - s));
	if (p < end && *p == ':') {
		s = ++p;
		while (p < end && pkg_char(*p))
			p++;
		if (p == s)
			goto err_free_relation;
		rel->arch = hk_xstrndup(s, (size_t)(p - s));
	}
	while (p < end && rel_space(*p))
		p++;
	if (p < end && *p == '(') {
		p++;
		while (p < end && rel_space(*p))
			p++;
		s = p;
		while (p < end && (*p == '<' || *p == '>' || *p == '='))
			p++;
		size_t ol = (size_t)(p - s);
		static const char *const ops[] = { "<<", "<=", "=", ">=", ">>", "<", ">" };
		bool known = false;
		for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
			if (strlen(ops[i]) == ol && strncmp(ops[i], s, ol) == 0)
				known = true;
		if (!known)
			goto err_free_relation;
		rel->op = hk_xstrndup(s, ol);
		while (p < end && rel_space(*p))
			p++;
		s = p;
		while (p < end && *p != ')' && !rel_space(*p))
			p++;
		if (p == s)
			goto err_free_relation;
		rel->version = hk_xstrndup(s, (size_t)(p - s));
		while (p < end && rel_space(*p))
			p++;
		if (p >= end || *p != ')')
			goto err_free_relation;
		p++;
	}
	while (p < end && rel_space(*p))
		p++;
	if (p < end)
		goto err_free_relation;
	return 0;
err_free_relation:
	rel_free(rel);
	if (p < end && (*p == '[' || *p == '<'))
		return hk_fail(err, EINVAL,
			       "%s: '%s': architecture and profile restrictions belong to source "
			       "package relations, not to a binary package's", field, text);
	return hk_fail(err, EINVAL, "%s: cannot parse the relation in '%s'", field, text);
}

int hk_deb_parse_relations(const char *text, const char *field, struct hk_deb_rel_group **out,
			   size_t *n, struct hk_error *err)
{
	struct hk_deb_rel_group *g = NULL;
	size_t count = 0;
	const char *p = text, *end = text + strlen(text);
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *ge = comma ? comma : end;
		const char *q = p;
		while (q < ge && rel_space(*q))
			q++;
		if (q < ge) {
			hk_autofree char *group_text = trim_dup(p, (size_t)(ge - p));
			/* In the list from the start, so that a failure frees it with the rest. */
			g = hk_xrealloc(g, (count + 1) * sizeof(*g));
			struct hk_deb_rel_group *grp = &g[count++];
			*grp = (struct hk_deb_rel_group){ NULL, 0 };
			const char *a = p;
			for (;;) {
				const char *bar = memchr(a, '|', (size_t)(ge - a));
				const char *ae = bar ? bar : ge;
				size_t k = grp->n;
				grp->alts = hk_xrealloc(grp->alts, (k + 1) * sizeof(*grp->alts));
				int r = parse_rel(a, ae, field, group_text, &grp->alts[k], err);
				if (r < 0) {
					hk_deb_relations_free(g, count);
					return r;
				}
				grp->n++;
				if (!bar)
					break;
				a = bar + 1;
			}
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = g;
	*n = count;
	return 0;
}

/* The stanzas of a dpkg status file's text whose packages are installed. */
static int installed_stanzas(const char *text, size_t len, const char *status_path,
			     struct hk_deb_stanza **out, size_t *n, struct hk_error *err)
{
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	int r = hk_deb_parse_control(text, len, status_path, &st, &ns, err);
	if (r < 0)
		return r;
	size_t w = 0;
	for (size_t i = 0; i < ns; i++) {
		const char *pkg = hk_deb_field(&st[i], "Package");
		const char *status = hk_deb_field(&st[i], "Status");
		/* "want flag status": only the last word says whether the files are there. */
		const char *last = status ? strrchr(status, ' ') : NULL;
		if (pkg && last && strcmp(last + 1, "installed") == 0) {
			struct hk_deb_stanza keep = st[i];
			st[i] = st[w];
			st[w++] = keep;
		}
	}
	for (size_t i = w; i < ns; i++)
		stanza_fields_free(&st[i]);
	*out = st;
	*n = w;
	return 0;
}

/* Appends the names of every relation of field `field` of `st` to *names. */
static int relation_names(const struct hk_deb_stanza *st, const char *field,
			  const char *status_path, struct hk_strv *names, struct hk_error *err)
{
	const char *text = hk_deb_field(st, field);
	if (!text)
		return 0;
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	int r = hk_deb_parse_relations(text, field, &g, &ng, err);
	if (r < 0)
		return hk_wrap(err, "%s: package %s", status_path, hk_deb_field(st, "Package"));
	for (size_t k = 0; k < ng; k++)
		for (size_t j = 0; j < g[k].n; j++)
			hk_strv_push(names, g[k].alts[j].name);
	hk_deb_relations_free(g, ng);
	return 0;
}

/* The end both name lists share: on success the sorted, unique names are the caller's. */
static int hand_out_names(int r, struct hk_strv *v, char ***names, size_t *n)
{
	if (r < 0)
		return r;
	hk_strv_sort_unique(v);
	*n = v->n;
	*names = hk_strv_steal(v);
	return 0;
}

int hk_deb_installed_names_parse(const char *text, size_t len, const char *status_path,
				 char ***names, size_t *n, struct hk_error *err)
{
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	int r = installed_stanzas(text, len, status_path, &st, &ns, err);
	if (r < 0)
		return r;
	hk_autostrv struct hk_strv v = HK_STRV_INIT;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		hk_strv_push(&v, hk_deb_field(&st[i], "Package"));
		r = relation_names(&st[i], "Provides", status_path, &v, err);
	}
	hk_deb_stanzas_free(st, ns);
	return hand_out_names(r, &v, names, n);
}

int hk_deb_essential_closure_parse(const char *text, size_t len, const char *status_path,
				   char ***names, size_t *n, struct hk_error *err)
{
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	int r = installed_stanzas(text, len, status_path, &st, &ns, err);
	if (r < 0)
		return r;
	bool *reached = hk_xcalloc(ns ? ns : 1, sizeof(bool));
	size_t *queue = hk_xcalloc(ns ? ns : 1, sizeof(size_t));
	struct hk_strv *prov = hk_xcalloc(ns ? ns : 1, sizeof(*prov));   /* Provides of each */
	size_t qn = 0;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		r = relation_names(&st[i], "Provides", status_path, &prov[i], err);
		const char *ess = hk_deb_field(&st[i], "Essential");
		const char *prio = hk_deb_field(&st[i], "Priority");
		if ((ess && strcasecmp(ess, "yes") == 0) || (prio && strcmp(prio, "required") == 0)) {
			reached[i] = true;
			queue[qn++] = i;
		}
	}
	for (size_t q = 0; r == 0 && q < qn; q++) {
		hk_autostrv struct hk_strv deps = HK_STRV_INIT;
		const struct hk_deb_stanza *cur = &st[queue[q]];
		r = relation_names(cur, "Pre-Depends", status_path, &deps, err);
		if (r == 0)
			r = relation_names(cur, "Depends", status_path, &deps, err);
		/* Every installed package that is, or provides, a dependency's name.  Linear in the
		 * number of installed packages per name: a system has a few thousand at most and
		 * the pseudo-essential set is a few dozen. */
		for (size_t d = 0; r == 0 && d < deps.n; d++) {
			for (size_t i = 0; i < ns; i++) {
				if (reached[i])
					continue;
				if (strcmp(hk_deb_field(&st[i], "Package"), deps.v[d]) == 0 ||
				    hk_strv_has(&prov[i], deps.v[d])) {
					reached[i] = true;
					queue[qn++] = i;
				}
			}
		}
	}
	hk_autostrv struct hk_strv v = HK_STRV_INIT;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		if (!reached[i])
			continue;
		hk_strv_push(&v, hk_deb_field(&st[i], "Package"));
		for (size_t k = 0; k < prov[i].n; k++)
			hk_strv_push(&v, prov[i].v[k]);
	}
	for (size_t i = 0; i < ns; i++)
		hk_strv_free(&prov[i]);
	free(prov);
	free(reached);
	free(queue);
	hk_deb_stanzas_free(st, ns);
	return hand_out_names(r, &v, names, n);
}
