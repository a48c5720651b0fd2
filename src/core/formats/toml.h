/* A strict parser for the subset of TOML 1.0 that harkaq recipes use (docs/recipe-format.md).
 *
 * Subset, not dialect: every document this parser accepts is valid TOML 1.0 and means the same
 * thing to any TOML 1.0 parser.  What it leaves out (inline tables, arrays of tables, dotted
 * keys, floats, dates and times, non-decimal integers) is rejected with a message saying it is
 * not supported in harkaq recipes, never misread.
 *
 * Every error is "FILE:LINE:COL: what was found, and what was expected".  Lines and columns
 * are 1-based; a column counts characters (Unicode code points, a tab counts as one), so it
 * matches what an editor shows.  Every key and value in the tree carries its position, so the
 * recipe layer can report its own errors on the right spot.
 *
 * Ownership: hk_toml_parse() returns a tree the caller owns and frees with hk_toml_free();
 * every string and sub-object inside belongs to the tree.
 */
#ifndef HK_TOML_H
#define HK_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"

enum hk_toml_kind {
	HK_TOML_STRING,
	HK_TOML_INTEGER,
	HK_TOML_BOOL,
	HK_TOML_ARRAY,
	HK_TOML_TABLE,
};

struct hk_toml_table;

struct hk_toml_value {
	enum hk_toml_kind kind;
	/* Where the value starts.  For a table: the first character of its name in the [header]
	 * that defined it, or, for a table only implied by a header (a in [a.b]), in the first
	 * header that implied it; the root table has no position. */
	unsigned line, col;
	/* The value's bytes in the text: [start, end), its quotes and brackets included.  For a
	 * table, both 0: a table's own place is its [header] (hk_toml_table). */
	size_t start, end;
	/* HK_TOML_STRING: valid UTF-8, NUL-terminated, never containing NUL (\u0000 is
	 * rejected: a C string could not carry it). */
	char *string;
	size_t string_len;
	int64_t integer;                /* HK_TOML_INTEGER */
	bool boolean;                   /* HK_TOML_BOOL */
	struct hk_toml_value *items;    /* HK_TOML_ARRAY, n_items elements (may be mixed types) */
	size_t n_items;
	struct hk_toml_table *table;    /* HK_TOML_TABLE */
};

struct hk_toml_entry {
	char *key;                      /* decoded key (a quoted key is unescaped) */
	unsigned line, col;             /* where the key starts */
	/* For `key = value`: the byte offset of the key, and of what follows its line (past the
	 * value, a comment and the newline; the text's length at its end).  An editor inserts a
	 * line before or after an entry there (core/policy/recipe_edit.h).  For a table made by a
	 * [header], both 0. */
	size_t key_start, line_end;
	struct hk_toml_value value;
};

struct hk_toml_table {
	struct hk_toml_entry *entries;  /* in the order they first appear in the document */
	size_t n_entries, cap_entries;
	/* Whether a [header] named this table.  A table created only as the parent of another
	 * ("a" in [a.b]) may still be given its own [a] header once, as TOML allows. */
	bool defined;
	/* The [header] line that defined it, as byte offsets: where the line starts, and what
	 * follows it (past a comment and the newline).  Both 0 for the root table and for a
	 * table no header defined. */
	size_t header_start, header_end;
};

/* Parses text (len bytes; it need not be NUL-terminated and must not contain NUL).
 * `filename` is used only in error messages.  On success *out is the root table. */
HK_MUST_CHECK int hk_toml_parse(const char *text, size_t len, const char *filename, struct hk_toml_table **out,
		  struct hk_error *err);

void hk_toml_free(struct hk_toml_table *root);

/* The entry for `key` in `t`, or NULL. */
const struct hk_toml_entry *hk_toml_find(const struct hk_toml_table *t, const char *key);

/* "string", "integer", "boolean", "array", "table": for error messages. */
const char *hk_toml_kind_name(enum hk_toml_kind kind);
/* The same with its article ("a string", "an integer", …), as in "must be a string, not
 * an array". */
const char *hk_toml_kind_article(enum hk_toml_kind kind);

#endif
