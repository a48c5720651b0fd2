/* Build deps added to a recipe's text, every other byte kept (recipe_edit.h). */
#include "core/policy/recipe_edit.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/formats/toml.h"
#include "core/policy/recipe.h"
#include "core/basic/util.h"

/* The file's own line ending: CRLF when its first line ends so. */
static const char *newline_of(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	return nl && nl > text && nl[-1] == '\r' ? "\r\n" : "\n";
}

/* Where the line holding byte `at` starts. */
static size_t line_start(const char *text, size_t at)
{
	while (at > 0 && text[at - 1] != '\n')
		at--;
	return at;
}

/* Whether the line [start, …) holds only spaces and tabs before its end. */
static bool line_blank(const char *text, size_t len, size_t start)
{
	for (size_t i = start; i < len && text[i] != '\n'; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
			return false;
	return true;
}

/* Whether the line starting at `start` is a comment line (spaces, then '#'). */
static bool line_comment(const char *text, size_t len, size_t start)
{
	size_t i = start;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	return i < len && text[i] == '#';
}

/* The new item as TOML: quoted as `like` is (a 'literal string' when it is one), else a basic
 * string with the escapes TOML needs.  A dep spec never holds a quote or a control byte
 * (store names, versions, ids), so a literal string can always hold it. */
static void put_item(struct hk_buf *b, const char *spec, const char *like)
{
	if (like && like[0] == '\'' && !strchr(spec, '\'')) {
		hk_buf_printf(b, "'%s'", spec);
		return;
	}
	hk_buf_putc(b, '"');
	for (const char *c = spec; *c; c++) {
		if (*c == '"' || *c == '\\')
			hk_buf_putc(b, '\\');
		hk_buf_putc(b, *c);
	}
	hk_buf_putc(b, '"');
}

/* One splice: text[0, at) + ins + text[at, len) into out. */
static void splice(const char *text, size_t len, size_t at, const char *ins, size_t n,
		   struct hk_buf *out)
{
	hk_buf_append(out, text, at);
	hk_buf_append(out, ins, n);
	hk_buf_append(out, text + at, len - at);
}

/* `build = [...]` exists: the spec after its last item (recipe_edit.h). */
static void add_to_array(const char *text, size_t len, const struct hk_toml_value *arr,
			 const char *spec, const char *nl, struct hk_buf *out)
{
	struct hk_buf ins = HK_BUF_INIT;
	size_t at;
	if (arr->n_items == 0) {
		/* `[]` or `[ ]`: the item alone between the brackets.  An empty array spread over
		 * lines (a comment inside) gets a line of its own after the opening one. */
		size_t open = arr->start, close = arr->end - 1;
		bool flat = true;
		for (size_t i = open + 1; i < close; i++)
			if (text[i] != ' ' && text[i] != '\t')
				flat = false;
		if (flat) {
			put_item(&ins, spec, NULL);
			hk_buf_append(out, text, open + 1);
			hk_buf_append(out, ins.data, ins.len);
			hk_buf_append(out, text + close, len - close);
			hk_buf_free(&ins);
			return;
		}
		const char *eol = memchr(text + open, '\n', close - open);
		at = eol ? (size_t)(eol - text) + 1 : open + 1;
		size_t ind = line_start(text, open), w = 0;
		while (text[ind + w] == ' ' || text[ind + w] == '\t')
			w++;
		if (!eol)
			hk_buf_puts(&ins, nl);
		hk_buf_append(&ins, text + ind, w);
		hk_buf_puts(&ins, "  ");
		put_item(&ins, spec, NULL);
		hk_buf_printf(&ins, ",%s", nl);
		splice(text, len, at, ins.data, ins.len, out);
		hk_buf_free(&ins);
		return;
	}
	const struct hk_toml_value *first = &arr->items[0];
	const struct hk_toml_value *last = &arr->items[arr->n_items - 1];
	/* One item per line: every item after the first starts on a later line than the one
	 * before, the first on a later line than the bracket unless others follow it (an
	 * aligned list: `build = ["a",` then `"b"]` under it), and the last one starts its
	 * line. */
	bool per_line = arr->n_items >= 2 || first->line > arr->line;
	for (size_t i = 1; per_line && i < arr->n_items; i++)
		per_line = arr->items[i].line > arr->items[i - 1].line;
	size_t last_line = line_start(text, last->start);
	for (size_t i = last_line; per_line && i < last->start; i++)
		per_line = text[i] == ' ' || text[i] == '\t';
	/* What follows the last item on its line: a comma, a comment, the end of the line. */
	size_t i = last->end;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	bool comma = i < len && text[i] == ',';
	if (comma)
		i++;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (i < len && text[i] == '#')
		while (i < len && text[i] != '\n')
			i++;
	if (i < len && text[i] == '\r')
		i++;
	bool owns_line = i >= len || text[i] == '\n';
	if (per_line && owns_line && i < len) {
		/* A line of its own after the last item's line, indented as it is; the last item
		 * gains the comma the new one takes over when the list had none at its end. */
		size_t w = 0;
		while (text[last_line + w] == ' ' || text[last_line + w] == '\t')
			w++;
		hk_buf_append(&ins, text + last_line, w);
		put_item(&ins, spec, text + first->start);
		if (comma)
			hk_buf_putc(&ins, ',');
		hk_buf_puts(&ins, nl);
		if (comma) {
			splice(text, len, i + 1, ins.data, ins.len, out);
		} else {
			hk_buf_append(out, text, last->end);
			hk_buf_putc(out, ',');
			hk_buf_append(out, text + last->end, i + 1 - last->end);
			hk_buf_append(out, ins.data, ins.len);
			hk_buf_append(out, text + i + 1, len - (i + 1));
		}
		hk_buf_free(&ins);
		return;
	}
	if (per_line) {
		/* The closing bracket on the last item's line: the new item on a line of its own
		 * before it, the bracket staying where the list put it. */
		size_t w = 0;
		while (text[last_line + w] == ' ' || text[last_line + w] == '\t')
			w++;
		hk_buf_printf(&ins, ",%s", nl);
		hk_buf_append(&ins, text + last_line, w);
		put_item(&ins, spec, text + first->start);
		splice(text, len, last->end, ins.data, ins.len, out);
		hk_buf_free(&ins);
		return;
	}
	/* Inline: `, "X"` after the last item (before a trailing comma, which stays last). */
	hk_buf_puts(&ins, ", ");
	put_item(&ins, spec, text + first->start);
	splice(text, len, last->end, ins.data, ins.len, out);
	hk_buf_free(&ins);
}

/* No [deps]: the table before [phases] and the comments just above its header. */
static void add_table(const char *text, size_t len, const struct hk_toml_table *root,
		      const char *spec, const char *nl, struct hk_buf *out)
{
	const struct hk_toml_entry *phases = hk_toml_find(root, "phases");
	size_t at = len;
	if (phases && phases->value.kind == HK_TOML_TABLE && phases->value.table->defined) {
		at = phases->value.table->header_start;
		while (at > 0) {
			size_t prev = line_start(text, at - 1);
			if (!line_comment(text, len, prev))
				break;
			at = prev;
		}
	}
	struct hk_buf ins = HK_BUF_INIT;
	if (at > 0 && text[at - 1] != '\n')
		hk_buf_puts(&ins, nl);
	hk_buf_printf(&ins, "[deps]%sbuild = [", nl);
	put_item(&ins, spec, NULL);
	hk_buf_printf(&ins, "]%s", nl);
	/* Spaced as [phases] is from what stands before it. */
	if (at < len && at > 0 && line_blank(text, len, line_start(text, at - 1)))
		hk_buf_puts(&ins, nl);
	splice(text, len, at, ins.data, ins.len, out);
	hk_buf_free(&ins);
}

/* One spec added to `text`, into `out` (empty). */
static int add_one(const char *text, size_t len, const char *filename, const char *spec,
		   struct hk_buf *out, struct hk_error *err)
{
	struct hk_toml_table *root = NULL;
	int rc = hk_toml_parse(text, len, filename, &root, err);
	if (rc < 0)
		return rc;
	const char *nl = newline_of(text, len);
	const struct hk_toml_entry *deps = hk_toml_find(root, "deps");
	if (!deps) {
		add_table(text, len, root, spec, nl, out);
	} else if (deps->value.kind != HK_TOML_TABLE) {
		rc = hk_fail_at(err, EINVAL, filename, deps->line, deps->col,
				"deps must be a table ([deps])");
	} else {
		const struct hk_toml_entry *build = hk_toml_find(deps->value.table, "build");
		if (!build) {
			/* The line after the [deps] header. */
			size_t at = deps->value.table->header_end;
			struct hk_buf ins = HK_BUF_INIT;
			if (at > 0 && text[at - 1] != '\n')
				hk_buf_puts(&ins, nl);
			hk_buf_puts(&ins, "build = [");
			put_item(&ins, spec, NULL);
			hk_buf_printf(&ins, "]%s", nl);
			splice(text, len, at, ins.data, ins.len, out);
			hk_buf_free(&ins);
		} else if (build->value.kind != HK_TOML_ARRAY) {
			rc = hk_fail_at(err, EINVAL, filename, build->value.line, build->value.col,
					"deps.build must be an array");
		} else {
			add_to_array(text, len, &build->value, spec, nl, out);
		}
	}
	hk_toml_free(root);
	return rc;
}

/* The edit changed the build deps alone, as asked: `after` is `before` with `specs` appended
 * to its build deps, by the canonical serialisation of both. */
static int check_edit(const char *before, size_t blen, const char *after, size_t alen,
		      const char *filename, const char *const *specs, size_t n,
		      struct hk_error *err)
{
	struct hk_recipe a, b;
	int rc = hk_recipe_parse(before, blen, filename, "/", &a, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = hk_recipe_add_build_dep(&a, specs[i], err);
	if (rc < 0) {
		hk_recipe_free(&a);
		return hk_wrap(err, "%s: cannot declare %s", filename, n == 1 ? specs[0] : "them");
	}
	rc = hk_recipe_parse(after, alen, filename, "/", &b, err);
	if (rc < 0) {
		hk_recipe_free(&a);
		hk_error_set_class(err, HK_ERROR_INTERNAL);
		return hk_wrap(err, "%s: the edited recipe does not parse", filename);
	}
	struct hk_buf ca = HK_BUF_INIT, cb = HK_BUF_INIT;
	hk_recipe_canonical(&a, &ca);
	hk_recipe_canonical(&b, &cb);
	if (ca.len != cb.len || memcmp(ca.data, cb.data, ca.len) != 0)
		rc = hk_fail_as(err, HK_ERROR_INTERNAL, EINVAL,
				"%s: the edited recipe is not the recipe with its deps added "
				"(harkaq's edit is wrong; nothing is written)", filename);
	hk_buf_free(&ca);
	hk_buf_free(&cb);
	hk_recipe_free(&a);
	hk_recipe_free(&b);
	return rc;
}

int hk_recipe_edit_add_build_deps(const char *text, size_t len, const char *filename,
				  const char *const *specs, size_t n, struct hk_buf *out,
				  struct hk_error *err)
{
	struct hk_buf cur = HK_BUF_INIT, next = HK_BUF_INIT;
	hk_buf_append(&cur, text, len);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		hk_buf_reset(&next);
		rc = add_one(cur.data ? cur.data : "", cur.len, filename, specs[i], &next, err);
		if (rc == 0) {
			struct hk_buf t = cur;
			cur = next;
			next = t;
		}
	}
	if (rc == 0)
		rc = check_edit(text, len, cur.data ? cur.data : "", cur.len, filename, specs, n,
				err);
	if (rc == 0)
		hk_buf_append(out, cur.data ? cur.data : "", cur.len);
	hk_buf_free(&cur);
	hk_buf_free(&next);
	return rc;
}
