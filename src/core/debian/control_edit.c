/* debian/control's relation fields edited in their own layout (control_edit.h). */
#include "core/debian/control_edit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/basic/strv.h"
#include "core/basic/util.h"

/* The relation fields wrap-and-sort wraps and sorts (devscripts 2.23.4, CONTROL_LIST_FIELDS). */
static const char *const list_fields[] = {
	"Breaks", "Build-Conflicts", "Build-Conflicts-Arch", "Build-Conflicts-Indep",
	"Build-Depends", "Build-Depends-Arch", "Build-Depends-Indep", "Built-Using", "Conflicts",
	"Depends", "Enhances", "Pre-Depends", "Provides", "Recommends", "Replaces", "Suggests",
	"Xb-Npp-MimeType",
};

/* wrap-and-sort's --max-line-length default. */
#define WAS_MAX_LINE 79

const char *hk_control_order_name(enum hk_control_order o)
{
	switch (o) {
	case HK_CONTROL_UNSORTED: return "unsorted";
	case HK_CONTROL_SORTED: return "sorted";
	case HK_CONTROL_SORTED_BUILD_FIRST: return "sorted-build-system-first";
	}
	return "?";
}

void hk_control_layout_options(const struct hk_control_layout *l, char out[8])
{
	size_t n = 0;
	if (l->wrap_always || l->short_indent || l->trailing_comma)
		out[n++] = '-';
	if (l->wrap_always)
		out[n++] = 'a';
	if (l->short_indent)
		out[n++] = 's';
	if (l->trailing_comma)
		out[n++] = 't';
	out[n] = '\0';
}

/* ---- reading: paragraphs, fields, items ---- */

struct item {
	size_t start, end;          /* its text in the file, blanks trimmed */
	char *text;                 /* that text, alternatives spaced as `a | b` */
	size_t comments_start, comments_end;   /* comment lines just above its line, or equal */
	size_t comma;               /* the comma after it, or SIZE_MAX */
};

enum field_shape { SHAPE_FREE = 0, SHAPE_ONE_LINE, SHAPE_LONG, SHAPE_SHORT };

struct field {
	char *name;                 /* as written */
	size_t start, end;          /* its lines, the last one's newline included */
	size_t value_start;         /* after the colon */
	struct item *items;
	size_t n_items;
	bool trailing_comma;
	bool comments;              /* comment lines inside it */
	char *indent;               /* the first continuation line's leading blanks, or "" */
	enum field_shape shape;
};

struct para {
	size_t start, end;          /* first field line; after its last line */
	struct field *fields;
	size_t n_fields;
};

struct control {
	const char *text;
	size_t len;
	struct para *paras;
	size_t n_paras;
	bool comments;
};

static size_t line_end(const char *t, size_t len, size_t at)
{
	const char *nl = memchr(t + at, '\n', len - at);
	return nl ? (size_t)(nl - t) + 1 : len;
}

static bool blank_line(const char *t, size_t s, size_t e)
{
	for (size_t i = s; i < e; i++)
		if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
			return false;
	return true;
}

static bool is_list_field(const char *name)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(list_fields); i++)
		if (strcasecmp(name, list_fields[i]) == 0)
			return true;
	return false;
}

/* "a|b  | c" -> "a | b | c": wrap-and-sort's own spacing of alternatives; other blanks kept
 * (runs of them, newlines included, as one space). */
static char *normalise(const char *t, size_t n)
{
	struct hk_buf b = HK_BUF_INIT;
	size_t i = 0;
	while (i < n) {
		size_t bar = i;
		while (bar < n && t[bar] != '|')
			bar++;
		size_t s = i, e = bar;
		while (s < e && strchr(" \t\n\r", t[s]))
			s++;
		while (e > s && strchr(" \t\n\r", t[e - 1]))
			e--;
		if (i)
			hk_buf_puts(&b, " | ");
		bool space = false;
		for (size_t k = s; k < e; k++) {
			if (strchr(" \t\n\r", t[k])) {
				space = true;
				continue;
			}
			if (space)
				hk_buf_putc(&b, ' ');
			space = false;
			hk_buf_putc(&b, t[k]);
		}
		i = bar + (bar < n);
		if (bar == n)
			break;
	}
	return b.data ? hk_buf_steal(&b) : hk_xstrdup("");
}

/* The package names of an item's alternatives, in order. */
static void item_names(const char *item, struct hk_strv *out)
{
	const char *p = item;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t(:[<|");
		if (n)
			hk_strv_push_owned(out, hk_xstrndup(p, n));
		const char *bar = strchr(p, '|');
		if (!bar)
			return;
		p = bar + 1;
	}
}

static bool same_names(const char *a, const char *b)
{
	hk_autostrv struct hk_strv na = HK_STRV_INIT, nb = HK_STRV_INIT;
	item_names(a, &na);
	item_names(b, &nb);
	if (na.n != nb.n)
		return false;
	for (size_t i = 0; i < na.n; i++)
		if (!hk_strv_has(&nb, na.v[i]))
			return false;
	return true;
}

/* The items of a field's value, which runs over [f->value_start, f->end) but for the comment
 * lines inside it. */
static void read_items(const char *t, struct field *f)
{
	size_t cap = 0;
	size_t comments_start = SIZE_MAX, comments_end = SIZE_MAX;
	size_t i = f->value_start;
	struct item cur = { .start = SIZE_MAX };
	bool at_line_start = false;
	while (i < f->end) {
		if (at_line_start && t[i] == '#') {
			size_t e = line_end(t, f->end, i);
			f->comments = true;
			if (comments_start == SIZE_MAX)
				comments_start = i;
			comments_end = e;
			i = e;
			continue;
		}
		at_line_start = false;
		char c = t[i];
		if (c == '\n') {
			at_line_start = true;
			i++;
			continue;
		}
		if (c == ',' || c == ' ' || c == '\t' || c == '\r') {
			if (c == ',' && cur.start != SIZE_MAX) {
				cur.comma = i;
				if (f->n_items == cap) {
					cap = cap ? cap * 2 : 8;
					f->items = hk_xrealloc(f->items, cap * sizeof(*f->items));
				}
				f->items[f->n_items++] = cur;
				cur = (struct item){ .start = SIZE_MAX };
			}
			i++;
			continue;
		}
		if (cur.start == SIZE_MAX) {
			cur.start = i;
			cur.comma = SIZE_MAX;
			if (comments_start != SIZE_MAX) {
				cur.comments_start = comments_start;
				cur.comments_end = comments_end;
			} else {
				cur.comments_start = cur.comments_end = 0;
			}
			comments_start = comments_end = SIZE_MAX;
		}
		cur.end = i + 1;
		i++;
	}
	if (cur.start != SIZE_MAX) {
		if (f->n_items == cap) {
			cap = cap ? cap * 2 : 8;
			f->items = hk_xrealloc(f->items, cap * sizeof(*f->items));
		}
		f->items[f->n_items++] = cur;
	}
	for (size_t k = 0; k < f->n_items; k++)
		f->items[k].text = normalise(t + f->items[k].start, f->items[k].end - f->items[k].start);
	/* A trailing comma: the last non-blank byte of the value (comments aside) is one. */
	f->trailing_comma = f->n_items > 0 && f->items[f->n_items - 1].comma != SIZE_MAX;
}

static void field_free(struct field *f)
{
	for (size_t i = 0; i < f->n_items; i++)
		free(f->items[i].text);
	free(f->items);
	free(f->name);
	free(f->indent);
}

static void control_free(struct control *c)
{
	for (size_t p = 0; p < c->n_paras; p++) {
		for (size_t i = 0; i < c->paras[p].n_fields; i++)
			field_free(&c->paras[p].fields[i]);
		free(c->paras[p].fields);
	}
	free(c->paras);
	memset(c, 0, sizeof(*c));
}

static int parse(const char *t, size_t len, const char *filename, struct control *c,
		 struct hk_error *err)
{
	memset(c, 0, sizeof(*c));
	c->text = t;
	c->len = len;
	struct para *p = NULL;
	struct field *f = NULL;
	unsigned lineno = 0;
	for (size_t i = 0; i < len;) {
		size_t e = line_end(t, len, i);
		lineno++;
		if (blank_line(t, i, e)) {
			p = NULL;
			f = NULL;
		} else if (t[i] == '#') {
			c->comments = true;
		} else if (t[i] == ' ' || t[i] == '\t') {
			if (!f) {
				control_free(c);
				return hk_fail_at(err, EINVAL, filename, lineno, 1,
						  "a continuation line outside any field");
			}
			f->end = e;
		} else {
			const char *colon = memchr(t + i, ':', e - i);
			if (!colon) {
				control_free(c);
				return hk_fail_at(err, EINVAL, filename, lineno, 1,
						  "expected \"Field: value\" (no colon on the line)");
			}
			if (!p) {
				c->paras = hk_xrealloc(c->paras, (c->n_paras + 1) * sizeof(*c->paras));
				p = &c->paras[c->n_paras++];
				memset(p, 0, sizeof(*p));
				p->start = i;
			}
			p->fields = hk_xrealloc(p->fields, (p->n_fields + 1) * sizeof(*p->fields));
			f = &p->fields[p->n_fields++];
			memset(f, 0, sizeof(*f));
			f->name = hk_xstrndup(t + i, (size_t)(colon - (t + i)));
			f->start = i;
			f->end = e;
			f->value_start = (size_t)(colon - t) + 1;
		}
		if (p && f)
			p->end = f->end;
		i = e;
	}
	for (size_t k = 0; k < c->n_paras; k++)
		for (size_t i = 0; i < c->paras[k].n_fields; i++)
			if (is_list_field(c->paras[k].fields[i].name))
				read_items(t, &c->paras[k].fields[i]);
	if (c->n_paras == 0) {
		control_free(c);
		return hk_fail(err, EINVAL, "%s: no paragraph (a source package's control file "
					    "starts with its Source paragraph)", filename);
	}
	return 0;
}

static struct field *find_field(struct para *p, const char *name)
{
	for (size_t i = 0; i < p->n_fields; i++)
		if (strcasecmp(p->fields[i].name, name) == 0)
			return &p->fields[i];
	return NULL;
}

/* ---- rendering and the layout a field is in ---- */

/* The items as rendered, each with the comment lines above it. */
struct out_item {
	const char *text;
	const char *comments;       /* "" or whole comment lines */
	size_t n_comments;
};

static size_t one_line_length(const char *name, const struct out_item *it, size_t n)
{
	/* wrap-and-sort's measure: the name, and each item with ", " before it. */
	size_t len = strlen(name);
	for (size_t i = 0; i < n; i++)
		len += 2 + strlen(it[i].text);
	return len;
}

static void render(const char *name, const struct out_item *it, size_t n, enum field_shape shape,
		   const char *indent, bool trailing, struct hk_buf *out)
{
	if (shape == SHAPE_ONE_LINE) {
		for (size_t i = 0; i < n; i++)
			hk_buf_append(out, it[i].comments, it[i].n_comments);
		hk_buf_printf(out, "%s:", name);
		for (size_t i = 0; i < n; i++)
			hk_buf_printf(out, "%s%s", i ? ", " : " ", it[i].text);
		hk_buf_puts(out, trailing && n ? ",\n" : "\n");
		return;
	}
	if (shape == SHAPE_SHORT) {
		hk_buf_printf(out, "%s:\n", name);
	} else if (n > 0) {
		hk_buf_append(out, it[0].comments, it[0].n_comments);
		hk_buf_printf(out, "%s: ", name);
	}
	for (size_t i = 0; i < n; i++) {
		if (shape == SHAPE_SHORT || i > 0) {
			hk_buf_append(out, it[i].comments, it[i].n_comments);
			hk_buf_puts(out, indent);
		}
		hk_buf_puts(out, it[i].text);
		hk_buf_puts(out, i + 1 < n || trailing ? ",\n" : "\n");
	}
}

static void field_out_items(const struct control *c, const struct field *f, struct out_item *it)
{
	for (size_t i = 0; i < f->n_items; i++) {
		const struct item *x = &f->items[i];
		it[i] = (struct out_item){ x->text, c->text + x->comments_start,
					   x->comments_end - x->comments_start };
	}
}

/* Whether rendering `f`'s items as `shape` gives back its bytes. */
static bool renders_as(const struct control *c, const struct field *f, enum field_shape shape,
		       const char *indent)
{
	struct out_item *it = hk_xcalloc(f->n_items + 1, sizeof(*it));
	field_out_items(c, f, it);
	struct hk_buf b = HK_BUF_INIT;
	render(f->name, it, f->n_items, shape, indent, f->trailing_comma, &b);
	bool same = b.len == f->end - f->start && memcmp(b.data, c->text + f->start, b.len) == 0;
	hk_buf_free(&b);
	free(it);
	return same;
}

/* The first continuation line's leading blanks (the field's indentation), or "". */
static char *continuation_indent(const struct control *c, const struct field *f)
{
	size_t e = line_end(c->text, f->end, f->start);
	while (e < f->end) {
		if (c->text[e] != '#') {
			size_t k = e;
			while (k < f->end && (c->text[k] == ' ' || c->text[k] == '\t'))
				k++;
			return hk_xstrndup(c->text + e, k - e);
		}
		e = line_end(c->text, f->end, e);
	}
	return hk_xstrdup("");
}

static void classify(const struct control *c, struct field *f)
{
	f->indent = continuation_indent(c, f);
	if (f->n_items == 0)
		f->shape = SHAPE_FREE;
	else if (!f->comments && renders_as(c, f, SHAPE_ONE_LINE, ""))
		f->shape = SHAPE_ONE_LINE;
	else if (*f->indent && renders_as(c, f, SHAPE_LONG, f->indent))
		f->shape = SHAPE_LONG;
	else if (*f->indent && renders_as(c, f, SHAPE_SHORT, f->indent))
		f->shape = SHAPE_SHORT;
	else
		f->shape = SHAPE_FREE;
}

/* ---- the order ---- */

static bool substvar(const char *item)
{
	return !((item[0] >= 'a' && item[0] <= 'z') || (item[0] >= '0' && item[0] <= '9'));
}

static bool build_system(const char *item)
{
	static const char *const names[] = { "debhelper", "debhelper-compat", "dpkg-dev",
					     "dpkg-build-api" };
	size_t n = strcspn(item, " \t(:[<|");
	for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
		if (strlen(names[i]) == n && strncmp(item, names[i], n) == 0)
			return true;
	return n > 3 && strncmp(item, "dh-", 3) == 0;
}

static int rank(const char *item, enum hk_control_order o)
{
	if (substvar(item))
		return 2;
	return o == HK_CONTROL_SORTED_BUILD_FIRST && build_system(item) ? 0 : 1;
}

static int cmp_items(const char *a, const char *b, enum hk_control_order o)
{
	int ra = rank(a, o), rb = rank(b, o);
	if (ra != rb)
		return ra - rb;
	return strcmp(a, b);
}

static bool sorted_by(const struct field *f, enum hk_control_order o)
{
	for (size_t i = 1; i < f->n_items; i++)
		if (cmp_items(f->items[i - 1].text, f->items[i].text, o) >= 0)
			return false;
	return true;
}

static enum hk_control_order order_of(const struct field *f)
{
	if (sorted_by(f, HK_CONTROL_SORTED))
		return HK_CONTROL_SORTED;
	if (sorted_by(f, HK_CONTROL_SORTED_BUILD_FIRST))
		return HK_CONTROL_SORTED_BUILD_FIRST;
	return HK_CONTROL_UNSORTED;
}

/* Where a new item goes: by the field's order, else after its last package name. */
static size_t insert_at(const struct field *f, const char *item, enum hk_control_order o)
{
	if (o == HK_CONTROL_UNSORTED) {
		size_t at = f->n_items;
		while (at > 0 && substvar(f->items[at - 1].text))
			at--;
		return at;
	}
	size_t at = 0;
	while (at < f->n_items && cmp_items(f->items[at].text, item, o) < 0)
		at++;
	return at;
}

/* ---- the file's layout ---- */

static void read_layout(struct control *c, struct hk_control_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->comments = c->comments;
	/* A field of one item reads the same one line or wrapped under its value (wrap-and-sort
	 * -a writes `Build-Depends-Indep: python3-sphinx` either way): it says nothing of -a. */
	size_t n = 0, wrapped = 0, shorts = 0, trailing = 0, either = 0;
	bool fixed = true;
	for (size_t p = 0; p < c->n_paras; p++) {
		for (size_t i = 0; i < c->paras[p].n_fields; i++) {
			struct field *f = &c->paras[p].fields[i];
			if (!is_list_field(f->name))
				continue;
			classify(c, f);
			n++;
			wrapped += f->shape == SHAPE_LONG || f->shape == SHAPE_SHORT;
			either += f->shape == SHAPE_ONE_LINE && f->n_items == 1;
			shorts += f->shape == SHAPE_SHORT;
			trailing += f->trailing_comma;
			if (f->shape == SHAPE_FREE || order_of(f) == HK_CONTROL_UNSORTED)
				fixed = false;
			for (size_t k = 0; k < f->n_items; k++) {
				const struct item *x = &f->items[k];
				if (x->end - x->start != strlen(x->text) ||
				    memcmp(c->text + x->start, x->text, x->end - x->start) != 0)
					fixed = false;   /* alternatives not spaced as `a | b` */
				for (size_t m = 0; m < k; m++)
					if (strcmp(f->items[m].text, x->text) == 0)
						fixed = false;   /* a duplicate */
			}
		}
	}
	l->wrap_always = wrapped > 0 && wrapped + either == n;
	l->short_indent = shorts > 0 && shorts == wrapped;
	l->trailing_comma = n > 0 && trailing == n;
	/* wrap-and-sort's own rule, field by field: wrapped exactly when -a or past 79 columns;
	 * indented as -s says; a trailing comma as -t says. */
	for (size_t p = 0; fixed && p < c->n_paras; p++) {
		for (size_t i = 0; fixed && i < c->paras[p].n_fields; i++) {
			const struct field *f = &c->paras[p].fields[i];
			if (!is_list_field(f->name))
				continue;
			struct out_item *it = hk_xcalloc(f->n_items + 1, sizeof(*it));
			field_out_items(c, f, it);
			bool wrap = l->wrap_always || one_line_length(f->name, it, f->n_items) > WAS_MAX_LINE;
			free(it);
			enum field_shape want = !wrap ? SHAPE_ONE_LINE
					       : l->short_indent ? SHAPE_SHORT : SHAPE_LONG;
			bool one_item_long = want == SHAPE_LONG && f->shape == SHAPE_ONE_LINE &&
					     f->n_items == 1;
			if ((f->shape != want && !one_item_long) ||
			    f->trailing_comma != l->trailing_comma)
				fixed = false;
			if (want == SHAPE_SHORT && strcmp(f->indent, " ") != 0)
				fixed = false;
			if (want == SHAPE_LONG && !one_item_long &&
			    strlen(f->indent) != strlen(f->name) + 2)
				fixed = false;
		}
	}
	l->wrap_and_sort = n > 0 && fixed;
}

/* ---- one change ---- */

/* The indentation a wrapped field of `name` takes in this file. */
static char *new_indent(const char *name, bool short_indent)
{
	if (short_indent)
		return hk_xstrdup(" ");
	size_t n = strlen(name) + 2;
	char *s = hk_xmalloc(n + 1);
	memset(s, ' ', n);
	s[n] = '\0';
	return s;
}

/* The field rendered anew with `it` (n items), in its own shape, or as the file's layout
 * wants when it was one line and no longer fits (or is new). */
static void render_field(const struct field *f, const char *name, const struct out_item *it,
			 size_t n, const struct hk_control_layout *l, struct hk_buf *out)
{
	enum field_shape shape = f ? f->shape : SHAPE_ONE_LINE;
	bool trailing = f ? f->trailing_comma : l->trailing_comma;
	if (shape == SHAPE_ONE_LINE &&
	    (l->wrap_always || one_line_length(name, it, n) > WAS_MAX_LINE))
		shape = l->short_indent ? SHAPE_SHORT : SHAPE_LONG;
	hk_autofree char *indent = shape == SHAPE_ONE_LINE ? hk_xstrdup("")
				   : f && *f->indent && f->shape != SHAPE_ONE_LINE
					   ? hk_xstrdup(f->indent)
					   : new_indent(name, shape == SHAPE_SHORT);
	render(name, it, n, shape, indent, trailing, out);
}

/* Where a new field goes in the source paragraph: after the fields a relation field follows
 * by convention (the Build-Depends after Maintainer and Uploaders, -Arch after Build-Depends,
 * -Indep after those), else at the paragraph's end. */
static size_t new_field_at(struct para *p, const char *name)
{
	static const char *const before_bd[] = { "Source", "Section", "Priority", "Maintainer",
						 "XSBC-Original-Maintainer", "Uploaders" };
	const char *const *after = before_bd;
	size_t n_after = HK_ARRAY_LEN(before_bd);
	static const char *const before_arch[] = { "Build-Depends" };
	static const char *const before_indep[] = { "Build-Depends", "Build-Depends-Arch" };
	if (strcasecmp(name, "Build-Depends-Arch") == 0) {
		after = before_arch;
		n_after = HK_ARRAY_LEN(before_arch);
	} else if (strcasecmp(name, "Build-Depends-Indep") == 0) {
		after = before_indep;
		n_after = HK_ARRAY_LEN(before_indep);
	}
	size_t at = 0;
	for (size_t i = 0; i < p->n_fields; i++)
		for (size_t k = 0; k < n_after; k++)
			if (strcasecmp(p->fields[i].name, after[k]) == 0)
				at = p->fields[i].end;
	if (at == 0 && strcasecmp(name, "Build-Depends") != 0)
		return new_field_at(p, "Build-Depends");
	return at ? at : p->end;
}

static int apply(const char *t, size_t len, const char *filename,
		 const struct hk_control_change *ch, struct hk_control_layout *layout, bool first,
		 struct hk_buf *out, struct hk_error *err)
{
	struct control c;
	int rc = parse(t, len, filename, &c, err);
	if (rc < 0)
		return rc;
	struct hk_control_layout l;
	read_layout(&c, &l);
	struct para *src = &c.paras[0];
	struct field *f = find_field(src, ch->field);
	hk_autofree char *item = normalise(ch->item, strlen(ch->item));
	if (first) {
		*layout = l;
		layout->order = f ? order_of(f) : HK_CONTROL_SORTED;
	}
	if (f && f->shape == SHAPE_FREE && layout)
		layout->edited_free = true;

	size_t n = f ? f->n_items : 0;
	const char *kept_comments = "";
	size_t n_kept_comments = 0;
	struct out_item *it = hk_xcalloc(n + 2, sizeof(*it));
	if (f)
		field_out_items(&c, f, it);
	size_t at;
	if (ch->op == HK_CONTROL_ADD) {
		for (size_t i = 0; i < n; i++)
			if (same_names(it[i].text, item)) {
				rc = hk_fail(err, EEXIST, "%s: %s names %s already (as %s)", filename,
					     ch->field, item, it[i].text);
				goto free_control;
			}
		at = f ? insert_at(f, item, order_of(f)) : 0;
		memmove(&it[at + 1], &it[at], (n - at) * sizeof(*it));
		it[at] = (struct out_item){ item, "", 0 };
		n++;
	} else {
		for (at = 0; at < n && !same_names(it[at].text, item); at++)
			;
		if (at == n) {
			rc = hk_fail(err, ENOENT, "%s: %s has no item %s to drop", filename, ch->field,
				     item);
			goto free_control;
		}
		/* The comments above the dropped item stay: above the next one, or after the
		 * field when it was the last. */
		if (at + 1 < n && it[at].n_comments && !it[at + 1].n_comments) {
			it[at + 1].comments = it[at].comments;
			it[at + 1].n_comments = it[at].n_comments;
		} else if (at + 1 == n) {
			kept_comments = it[at].comments;
			n_kept_comments = it[at].n_comments;
		}
		memmove(&it[at], &it[at + 1], (n - at - 1) * sizeof(*it));
		n--;
	}

	struct hk_buf field = HK_BUF_INIT;
	size_t from, to;
	if (!f) {
		from = to = new_field_at(src, ch->field);
		render_field(NULL, ch->field, it, n, &l, &field);
	} else if (f->shape != SHAPE_FREE) {
		from = f->start;
		to = f->end;
		if (n > 0)
			render_field(f, f->name, it, n, &l, &field);
		hk_buf_append(&field, kept_comments, n_kept_comments);
	} else if (n == 0) {
		from = f->start;
		to = f->end;
	} else if (ch->op == HK_CONTROL_ADD) {
		/* Free: the item written before the one it precedes, or after the last. */
		if (at + 1 < n) {
			from = to = f->items[at].start;
			hk_buf_printf(&field, "%s, ", item);
		} else {
			from = to = f->items[f->n_items - 1].end;
			hk_buf_printf(&field, ", %s", item);
		}
	} else {
		/* Free: the item cut out with the comma after it (the one before it when last),
		 * and its line when nothing else is left on it. */
		const struct item *x = &f->items[at];
		if (x->comma != SIZE_MAX) {
			from = x->start;
			to = x->comma + 1;
			while (to < f->end && (t[to] == ' ' || t[to] == '\t'))
				to++;
		} else {
			from = f->items[at - 1].comma;
			to = x->end;
		}
		size_t ls = from;
		while (ls > 0 && t[ls - 1] != '\n')
			ls--;
		size_t le = line_end(t, len, to);
		if (ls > f->start && blank_line(t, ls, from) && blank_line(t, to, le)) {
			from = ls;
			to = le;
		}
	}
	hk_buf_append(out, t, from);
	hk_buf_append(out, field.data ? field.data : "", field.len);
	hk_buf_append(out, t + to, len - to);
	hk_buf_free(&field);
free_control:
	free(it);
	control_free(&c);
	return rc;
}

/* The edited text's field holds what the change asked: the old items with one added or
 * without one, the rest of the file as it was outside the field. */
static int check(const char *before, size_t blen, const char *after, size_t alen,
		 const char *filename, const struct hk_control_change *ch, struct hk_error *err)
{
	struct control a, b;
	int rc = parse(before, blen, filename, &a, err);
	if (rc < 0)
		return rc;
	rc = parse(after, alen, filename, &b, err);
	if (rc < 0) {
		control_free(&a);
		hk_error_set_class(err, HK_ERROR_INTERNAL);
		return hk_wrap(err, "%s: the edited file does not parse", filename);
	}
	hk_autostrv struct hk_strv want = HK_STRV_INIT, got = HK_STRV_INIT;
	const struct field *fa = find_field(&a.paras[0], ch->field);
	const struct field *fb = find_field(&b.paras[0], ch->field);
	hk_autofree char *item = normalise(ch->item, strlen(ch->item));
	for (size_t i = 0; fa && i < fa->n_items; i++)
		if (ch->op == HK_CONTROL_ADD || !same_names(fa->items[i].text, item))
			hk_strv_push(&want, fa->items[i].text);
	if (ch->op == HK_CONTROL_ADD)
		hk_strv_push(&want, item);
	for (size_t i = 0; fb && i < fb->n_items; i++)
		hk_strv_push(&got, fb->items[i].text);
	hk_strv_sort_unique(&want);
	hk_strv_sort_unique(&got);
	bool ok = want.n == got.n && a.n_paras == b.n_paras;
	for (size_t i = 0; ok && i < want.n; i++)
		ok = strcmp(want.v[i], got.v[i]) == 0;
	for (size_t p = 0; ok && p < a.n_paras; p++)
		ok = a.paras[p].n_fields + (p == 0 && !fa) - (p == 0 && fa && !fb) ==
		     b.paras[p].n_fields;
	if (!ok)
		rc = hk_fail_as(err, HK_ERROR_INTERNAL, EINVAL,
				"%s: the edited %s is not the old one with %s %s (harkaq's edit is "
				"wrong; no patch is made)", filename, ch->field, item,
				ch->op == HK_CONTROL_ADD ? "added" : "dropped");
	control_free(&a);
	control_free(&b);
	return rc;
}

int hk_control_edit(const char *text, size_t len, const char *filename,
		    const struct hk_control_change *changes, size_t n, struct hk_buf *out,
		    struct hk_control_layout *layout, struct hk_error *err)
{
	struct hk_buf cur = HK_BUF_INIT, next = HK_BUF_INIT;
	hk_buf_append(&cur, text, len);
	memset(layout, 0, sizeof(*layout));
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		hk_buf_reset(&next);
		const char *t = cur.data ? cur.data : "";
		rc = apply(t, cur.len, filename, &changes[i], layout, i == 0, &next, err);
		if (rc == 0)
			rc = check(t, cur.len, next.data ? next.data : "", next.len, filename,
				   &changes[i], err);
		if (rc == 0) {
			struct hk_buf tmp = cur;
			cur = next;
			next = tmp;
		}
	}
	if (rc == 0 && n == 0) {
		struct control c;
		rc = parse(text, len, filename, &c, err);
		if (rc == 0) {
			read_layout(&c, layout);
			const struct field *bd = find_field(&c.paras[0], "Build-Depends");
			layout->order = bd ? order_of(bd) : HK_CONTROL_SORTED;
			control_free(&c);
		}
	}
	if (rc == 0)
		hk_buf_append(out, cur.data ? cur.data : "", cur.len);
	hk_buf_free(&cur);
	hk_buf_free(&next);
	return rc;
}
