/* Strict TOML-subset parser (see toml.h and docs/recipe-format.md for the accepted subset).
 *
 * Two passes: a byte-level pass validates the whole text (UTF-8, no raw control characters,
 * CR only as part of CRLF) so the syntax pass can assume well-formed characters and only has
 * to decide structure.  TOML forbids raw control characters everywhere except tab, and newline
 * inside multi-line strings, so checking them once for the whole text is exactly TOML's rule. */
#include "core/formats/toml.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"

/* Arrays of arrays are legal TOML; the limit only keeps recursion bounded on hostile input. */
#define MAX_ARRAY_DEPTH 32

struct pos {
	unsigned line, col;
};

struct parser {
	const char *text;
	size_t len;
	size_t pos;          /* byte offset of the next character */
	unsigned line;       /* 1-based line of pos */
	size_t line_start;   /* byte offset where the current line starts */
	size_t col_at;       /* a byte offset on the current line whose column is col */
	unsigned col;
	const char *filename;
	struct hk_error *err;
};

/* ---- positions and errors ---- */

static unsigned column_of(const struct parser *p, size_t line_start, size_t at)
{
	/* Columns count code points: every byte that is not a UTF-8 continuation byte. */
	unsigned col = 1;
	for (size_t i = line_start; i < at; i++)
		if (((unsigned char)p->text[i] & 0xc0) != 0x80)
			col++;
	return col;
}

static struct pos here(struct parser *p)
{
	/* Counted from the last position asked for on this line, so a long line of many values
	 * (a huge one-line array) costs linear time, not quadratic. */
	if (p->col_at < p->line_start || p->col_at > p->pos) {
		p->col_at = p->line_start;
		p->col = 1;
	}
	p->col += column_of(p, p->col_at, p->pos) - 1;
	p->col_at = p->pos;
	struct pos r = { p->line, p->col };
	return r;
}

/* `at` is often a call (here(p)): evaluated once. */
#define fail_at(p, at, ...)                                                                   \
	__extension__({                                                                       \
		struct pos at_ = (at);                                                        \
		hk_fail_at((p)->err, EINVAL, (p)->filename, at_.line, at_.col, __VA_ARGS__); \
	})

static bool at_eof(const struct parser *p)
{
	return p->pos >= p->len;
}

static int peek(const struct parser *p)
{
	return at_eof(p) ? -1 : (unsigned char)p->text[p->pos];
}

static int peek_at(const struct parser *p, size_t ahead)
{
	return p->pos + ahead >= p->len ? -1 : (unsigned char)p->text[p->pos + ahead];
}

/* Decodes the (already validated) UTF-8 character at `at`. */
static uint32_t code_point_at(const struct parser *p, size_t at)
{
	const unsigned char *s = (const unsigned char *)p->text + at;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] < 0xe0)
		return ((uint32_t)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	if (s[0] < 0xf0)
		return ((uint32_t)(s[0] & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) |
	       ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
}

/* "the end of the file", "the end of the line", "'x'" or "U+00E9", for "found ...". */
static const char *describe_next(const struct parser *p, char buf[16])
{
	int c = peek(p);
	if (c < 0)
		return "the end of the file";
	if (c == '\n' || c == '\r')
		return "the end of the line";
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else if (c == ' ')
		snprintf(buf, 16, "a space");
	else if (c == '\t')
		snprintf(buf, 16, "a tab");
	else
		snprintf(buf, 16, "U+%04X", (unsigned)code_point_at(p, p->pos));
	return buf;
}

/* ---- pass 1: bytes ---- */

/* The position of byte i, computed only when it is reported. */
static struct pos byte_pos(const struct parser *p, unsigned line, size_t line_start, size_t i)
{
	struct pos r = { line, column_of(p, line_start, i) };
	return r;
}

static int validate_bytes(struct parser *p)
{
	const unsigned char *s = (const unsigned char *)p->text;
	size_t n = p->len;
	unsigned line = 1;
	size_t line_start = 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		if (c == '\n') {
			i++;
			line++;
			line_start = i;
			continue;
		}
		if (c == '\r') {
			if (i + 1 < n && s[i + 1] == '\n') {
				i++;
				continue;
			}
			return fail_at(p, byte_pos(p, line, line_start, i),
				       "a carriage return not followed by a newline (TOML allows "
				       "only LF or CRLF line endings)");
		}
		if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return fail_at(p, byte_pos(p, line, line_start, i),
				       "raw control character U+%04X is not allowed in TOML (inside a "
				       "basic string, write it as the escape \\u%04X)", c, c);
		/* Multi-byte UTF-8: reject overlong forms, surrogates and values past U+10FFFF. */
		size_t need;
		uint32_t min, cp;
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1; min = 0x80; cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2; min = 0x800; cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3; min = 0x10000; cp = c & 0x07;
		} else {
			return fail_at(p, byte_pos(p, line, line_start, i),
				       "invalid UTF-8: byte 0x%02X cannot start a character (recipes "
				       "must be UTF-8 text)", c);
		}
		for (size_t k = 1; k <= need; k++) {
			if (i + k >= n)
				return fail_at(p, byte_pos(p, line, line_start, i),
					       "invalid UTF-8: the file ends inside a character");
			if ((s[i + k] & 0xc0) != 0x80)
				return fail_at(p, byte_pos(p, line, line_start, i),
					       "invalid UTF-8: byte 0x%02X is not followed by the "
					       "continuation bytes it announces", c);
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return fail_at(p, byte_pos(p, line, line_start, i),
				       "invalid UTF-8: bytes starting with 0x%02X encode %s", c,
				       cp < min ? "an overlong form" : "no Unicode scalar value");
		i += need + 1;
	}
	return 0;
}

/* ---- pass 2: syntax ---- */

static void advance(struct parser *p, size_t n)
{
	p->pos += n;
}

/* Consumes "\n" or "\r\n" at pos; returns whether there was one. */
static bool eat_newline(struct parser *p)
{
	if (peek(p) == '\n') {
		advance(p, 1);
	} else if (peek(p) == '\r' && peek_at(p, 1) == '\n') {
		advance(p, 2);
	} else {
		return false;
	}
	p->line++;
	p->line_start = p->pos;
	return true;
}

static bool at_newline(const struct parser *p)
{
	return peek(p) == '\n' || (peek(p) == '\r' && peek_at(p, 1) == '\n');
}

static void skip_spaces(struct parser *p)
{
	while (peek(p) == ' ' || peek(p) == '\t')
		advance(p, 1);
}

static void skip_comment(struct parser *p)
{
	if (peek(p) != '#')
		return;
	/* Pass 1 already checked a comment's characters (TOML forbids controls there too). */
	while (!at_eof(p) && !at_newline(p))
		advance(p, 1);
}

/* Spaces, comments and newlines: between top-level lines and inside arrays. */
static void skip_blank(struct parser *p)
{
	for (;;) {
		skip_spaces(p);
		skip_comment(p);
		if (!eat_newline(p))
			return;
	}
}

static int expect_line_end(struct parser *p, const char *after)
{
	char buf[16];
	skip_spaces(p);
	skip_comment(p);
	if (at_eof(p) || eat_newline(p))
		return 0;
	return fail_at(p, here(p), "expected the end of the line after %s, found %s (one key = "
				   "value or [table] header per line)", after, describe_next(p, buf));
}

static bool is_bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static bool is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void put_utf8(struct hk_buf *b, uint32_t cp)
{
	char s[4];
	size_t n;
	if (cp < 0x80) {
		s[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		s[0] = (char)(0xc0 | (cp >> 6)); s[1] = (char)(0x80 | (cp & 0x3f)); n = 2;
	} else if (cp < 0x10000) {
		s[0] = (char)(0xe0 | (cp >> 12)); s[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
	} else {
		s[0] = (char)(0xf0 | (cp >> 18)); s[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); s[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
	}
	hk_buf_append(b, s, n);
}

/* At a backslash inside a basic string.  In a multi-line string a backslash that ends a line
 * removes itself, the newline and all whitespace and newlines that follow (TOML 1.0). */
static int parse_escape(struct parser *p, struct hk_buf *out, bool multiline)
{
	struct pos at = here(p);
	advance(p, 1);
	int c = peek(p);
	if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
		size_t save = p->pos;
		skip_spaces(p);
		if (!at_newline(p)) {
			p->pos = save;
			return fail_at(p, at, "invalid escape: a backslash followed by whitespace must "
					      "end the line (a line-ending backslash)");
		}
		for (;;) {
			skip_spaces(p);
			if (!eat_newline(p))
				break;
		}
		return 0;
	}
	const char *simple = NULL;
	switch (c) {
	case 'b': simple = "\b"; break;
	case 't': simple = "\t"; break;
	case 'n': simple = "\n"; break;
	case 'f': simple = "\f"; break;
	case 'r': simple = "\r"; break;
	case '"': simple = "\""; break;
	case '\\': simple = "\\"; break;
	case 'u':
	case 'U': {
		size_t digits = c == 'u' ? 4 : 8;
		uint64_t cp = 0;
		for (size_t k = 1; k <= digits; k++) {
			int h = peek_at(p, k);
			if (!is_hex(h))
				return fail_at(p, at, "invalid escape: \\%c must be followed by exactly "
						      "%zu hexadecimal digits", c, digits);
			cp = cp * 16 + (uint64_t)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return fail_at(p, at, "invalid escape: \\%c%.*s is not a Unicode scalar value",
				       c, (int)digits, p->text + p->pos + 1);
		if (cp == 0)
			return fail_at(p, at, "\\%c%.*s (NUL) is not supported in harkaq recipes: a "
					      "path, command or name cannot contain NUL",
				       c, (int)digits, p->text + p->pos + 1);
		put_utf8(out, (uint32_t)cp);
		advance(p, 1 + digits);
		return 0;
	}
	default: {
		char buf[16];
		return fail_at(p, at, "invalid escape: backslash followed by %s (TOML allows \\b \\t "
				      "\\n \\f \\r \\\" \\\\ \\uXXXX and \\UXXXXXXXX; write a backslash "
				      "as \\\\ or use a 'literal string')", describe_next(p, buf));
	}
	}
	hk_buf_puts(out, simple);
	advance(p, 1);
	return 0;
}

/* Counts the quote characters `q` starting at pos. */
static size_t quote_run(const struct parser *p, int q)
{
	size_t n = 0;
	while (peek_at(p, n) == q)
		n++;
	return n;
}

/* At the opening quote of a string ('"' or '\'', single or triple).  Decodes into out. */
static int parse_string(struct parser *p, struct hk_buf *out, bool allow_multiline)
{
	struct pos open = here(p);
	int q = peek(p);
	bool basic = q == '"';
	bool multiline = quote_run(p, q) >= 3;
	const char *kind = basic ? "string" : "literal string";

	if (multiline && !allow_multiline)
		return fail_at(p, open, "a multi-line string cannot be a key");
	if (!multiline) {
		advance(p, 1);
		for (;;) {
			int c = peek(p);
			if (c < 0 || c == '\n' || c == '\r')
				return fail_at(p, open, "unterminated %s: no closing %c before the end of "
							"the line (use %s for a string over several lines)",
					       kind, q, basic ? "\"\"\"...\"\"\"" : "'''...'''");
			if (c == q) {
				advance(p, 1);
				return 0;
			}
			if (basic && c == '\\') {
				int r = parse_escape(p, out, false);
				if (r < 0)
					return r;
				continue;
			}
			hk_buf_putc(out, (char)c);
			advance(p, 1);
		}
	}

	advance(p, 3);
	/* A newline right after the opening delimiter is not part of the string (TOML 1.0). */
	eat_newline(p);
	for (;;) {
		int c = peek(p);
		if (c < 0)
			return fail_at(p, open, "unterminated multi-line %s: no closing %c%c%c before "
						"the end of the file", kind, q, q, q);
		if (c == q) {
			/* Up to two quotes may sit right before the closing three: """a"""" is a". */
			size_t n = quote_run(p, q);
			if (n < 3) {
				hk_buf_append(out, p->text + p->pos, n);
				advance(p, n);
				continue;
			}
			if (n > 5)
				n = 5;   /* the rest follows the string and is a syntax error there */
			hk_buf_append(out, p->text + p->pos, n - 3);
			advance(p, n);
			return 0;
		}
		if (c == '\n' || c == '\r') {
			/* Newlines are kept as LF whatever the file's line endings. */
			eat_newline(p);
			hk_buf_putc(out, '\n');
			continue;
		}
		if (basic && c == '\\') {
			int r = parse_escape(p, out, true);
			if (r < 0)
				return r;
			continue;
		}
		hk_buf_putc(out, (char)c);
		advance(p, 1);
	}
}

static int parse_key(struct parser *p, char **key, struct pos *at)
{
	char buf[16];
	*at = here(p);
	int c = peek(p);
	if (c == '"' || c == '\'') {
		struct hk_buf b = HK_BUF_INIT;
		int r = parse_string(p, &b, false);
		if (r < 0) {
			hk_buf_free(&b);
			return r;
		}
		*key = hk_buf_steal(&b);
		return 0;
	}
	size_t start = p->pos;
	while (is_bare_key_char(peek(p)))
		advance(p, 1);
	if (p->pos == start)
		return fail_at(p, *at, "expected a key (letters, digits, '_' and '-', or a quoted "
				       "string), found %s", describe_next(p, buf));
	*key = hk_xstrndup(p->text + start, p->pos - start);
	return 0;
}

static void free_value(struct hk_toml_value *v);

static void free_table(struct hk_toml_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_entries; i++) {
		free(t->entries[i].key);
		free_value(&t->entries[i].value);
	}
	free(t->entries);
	free(t);
}

static void free_value(struct hk_toml_value *v)
{
	free(v->string);
	for (size_t i = 0; i < v->n_items; i++)
		free_value(&v->items[i]);
	free(v->items);
	free_table(v->table);
	memset(v, 0, sizeof(*v));
}

static bool is_delimiter(int c)
{
	return c < 0 || c == ' ' || c == '\t' || c == ',' || c == ']' || c == '#' || c == '\n' ||
	       c == '\r';
}

/* Numbers, booleans and the unsupported scalars they could be confused with. */
static int parse_bare_scalar(struct parser *p, struct hk_toml_value *v)
{
	struct pos at = here(p);
	size_t start = p->pos;
	/* Gather the whole token, including characters only dates and floats use, so the error
	 * can say what the token is rather than stopping at its first odd character. */
	while (!is_delimiter(peek(p)) && peek(p) != '=' && peek(p) != '{' && peek(p) != '[' &&
	       peek(p) != '"' && peek(p) != '\'' && peek(p) < 0x80)
		advance(p, 1);
	size_t n = p->pos - start;
	const char *tok = p->text + start;
	char buf[16];

	if (n == 0)
		return fail_at(p, at, "expected a value (a \"string\", an integer, true, false or an "
				      "[array]), found %s", describe_next(p, buf));
	if ((n == 4 && memcmp(tok, "true", 4) == 0) || (n == 5 && memcmp(tok, "false", 5) == 0)) {
		v->kind = HK_TOML_BOOL;
		v->boolean = n == 4;
		return 0;
	}
	const char *digits = tok;
	size_t nd = n;
	bool negative = false;
	if (*digits == '+' || *digits == '-') {
		negative = *digits == '-';
		digits++;
		nd--;
	}
	if ((nd == 3 && (memcmp(digits, "inf", 3) == 0 || memcmp(digits, "nan", 3) == 0)))
		return fail_at(p, at, "floating-point numbers are not supported in harkaq recipes");
	if (nd == 0 || !(digits[0] >= '0' && digits[0] <= '9'))
		return fail_at(p, at, "expected a value (a \"string\", an integer, true, false or an "
				      "[array]), found '%.*s' (strings must be quoted)", (int)n, tok);
	if (memchr(tok, ':', n))
		return fail_at(p, at, "dates and times are not supported in harkaq recipes (write "
				      "them as a \"string\")");
	size_t lead = 0;
	while (lead < nd && digits[lead] >= '0' && digits[lead] <= '9')
		lead++;
	if (lead < nd && digits[lead] == '-')
		return fail_at(p, at, "dates and times are not supported in harkaq recipes (write "
				      "them as a \"string\")");
	if (nd >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b'))
		return fail_at(p, at, "hexadecimal, octal and binary integers are not supported in "
				      "harkaq recipes; write the number in decimal");
	if (memchr(digits, '.', nd) || memchr(digits, 'e', nd) || memchr(digits, 'E', nd))
		return fail_at(p, at, "floating-point numbers are not supported in harkaq recipes");
	if (memchr(digits, '_', nd))
		return fail_at(p, at, "underscores in integers are not supported in harkaq recipes");
	if (lead != nd)
		return fail_at(p, at, "invalid integer '%.*s' (expected decimal digits with an "
				      "optional sign)", (int)n, tok);
	if (nd > 1 && digits[0] == '0')
		return fail_at(p, at, "invalid integer '%.*s': leading zeros are not allowed",
			       (int)n, tok);
	/* Accumulate negatively so INT64_MIN is representable. */
	int64_t value = 0;
	for (size_t i = 0; i < nd; i++) {
		int d = digits[i] - '0';
		if (value < (INT64_MIN + d) / 10)
			return fail_at(p, at, "integer '%.*s' is out of range (a 64-bit signed "
					      "integer)", (int)n, tok);
		value = value * 10 - d;
	}
	if (!negative) {
		if (value == INT64_MIN)
			return fail_at(p, at, "integer '%.*s' is out of range (a 64-bit signed "
					      "integer)", (int)n, tok);
		value = -value;
	}
	v->kind = HK_TOML_INTEGER;
	v->integer = value;
	return 0;
}

static int parse_value(struct parser *p, struct hk_toml_value *v, unsigned depth);

static int parse_array(struct parser *p, struct hk_toml_value *v, unsigned depth)
{
	struct pos open = here(p);
	size_t cap = 0;
	char buf[16];

	if (depth >= MAX_ARRAY_DEPTH)
		return fail_at(p, open, "arrays nested deeper than %d levels", MAX_ARRAY_DEPTH);
	v->kind = HK_TOML_ARRAY;
	advance(p, 1);
	for (;;) {
		skip_blank(p);
		if (at_eof(p))
			return fail_at(p, open, "unterminated array: no closing ']' before the end of "
						"the file");
		if (peek(p) == ']') {
			advance(p, 1);
			return 0;
		}
		if (v->n_items == cap) {
			cap = cap ? cap * 2 : 4;
			v->items = hk_xrealloc(v->items, cap * sizeof(*v->items));
		}
		struct hk_toml_value *item = &v->items[v->n_items];
		memset(item, 0, sizeof(*item));
		int r = parse_value(p, item, depth + 1);
		v->n_items++;   /* counted even on failure so free_value releases it */
		if (r < 0)
			return r;
		skip_blank(p);
		if (peek(p) == ',') {
			advance(p, 1);
			continue;
		}
		if (peek(p) == ']') {
			advance(p, 1);
			return 0;
		}
		if (at_eof(p))
			return fail_at(p, open, "unterminated array: no closing ']' before the end of "
						"the file");
		return fail_at(p, here(p), "expected ',' or ']' in the array opened at %u:%u, found %s",
			       open.line, open.col, describe_next(p, buf));
	}
}

static int parse_value_at(struct parser *p, struct hk_toml_value *v, unsigned depth);

/* A value, with where its bytes lie. */
static int parse_value(struct parser *p, struct hk_toml_value *v, unsigned depth)
{
	v->start = p->pos;
	int r = parse_value_at(p, v, depth);
	v->end = p->pos;
	return r;
}

static int parse_value_at(struct parser *p, struct hk_toml_value *v, unsigned depth)
{
	struct pos at = here(p);
	v->line = at.line;
	v->col = at.col;
	int c = peek(p);
	if (c == '"' || c == '\'') {
		struct hk_buf b = HK_BUF_INIT;
		int r = parse_string(p, &b, true);
		if (r < 0) {
			hk_buf_free(&b);
			return r;
		}
		v->kind = HK_TOML_STRING;
		v->string_len = b.len;
		v->string = hk_buf_steal(&b);
		return 0;
	}
	if (c == '[')
		return parse_array(p, v, depth);
	if (c == '{')
		return fail_at(p, at, "inline tables ({ ... }) are not supported in harkaq recipes; use "
				      "a [table] header");
	return parse_bare_scalar(p, v);
}

static struct hk_toml_entry *find_entry(const struct hk_toml_table *t, const char *key)
{
	for (size_t i = 0; i < t->n_entries; i++)
		if (strcmp(t->entries[i].key, key) == 0)
			return &t->entries[i];
	return NULL;
}

const struct hk_toml_entry *hk_toml_find(const struct hk_toml_table *t, const char *key)
{
	return find_entry(t, key);
}

/* Appends an entry, taking ownership of key; returns it (valid until the next append). */
static struct hk_toml_entry *add_entry(struct hk_toml_table *t, char *key, struct pos at)
{
	if (t->n_entries == t->cap_entries) {
		t->cap_entries = t->cap_entries ? t->cap_entries * 2 : 8;
		t->entries = hk_xrealloc(t->entries, t->cap_entries * sizeof(*t->entries));
	}
	struct hk_toml_entry *e = &t->entries[t->n_entries++];
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->line = at.line;
	e->col = at.col;
	return e;
}

static int parse_keyval(struct parser *p, struct hk_toml_table *t)
{
	char buf[16];
	hk_autofree char *key = NULL;
	struct pos at;
	size_t key_start = p->pos;
	int r = parse_key(p, &key, &at);
	if (r < 0)
		return r;
	skip_spaces(p);
	if (peek(p) == '.')
		return fail_at(p, here(p), "dotted keys are not supported in harkaq recipes; use a "
					   "[table] header");
	if (peek(p) != '=')
		return fail_at(p, here(p), "expected '=' after the key '%s', found %s", key,
			       describe_next(p, buf));
	const struct hk_toml_entry *old = find_entry(t, key);
	if (old)
		return fail_at(p, at, "duplicate key '%s' (already defined as %s at %u:%u)", key,
			       hk_toml_kind_article(old->value.kind), old->line, old->col);
	advance(p, 1);
	skip_spaces(p);
	struct hk_toml_value v;
	memset(&v, 0, sizeof(v));
	r = parse_value(p, &v, 0);
	if (r < 0) {
		free_value(&v);
		return r;
	}
	struct hk_toml_entry *e = add_entry(t, hk_steal_ptr(&key), at);
	e->value = v;
	e->key_start = key_start;
	r = expect_line_end(p, "a value");
	e->line_end = p->pos;
	return r;
}

struct header_part {
	char *key;
	struct pos at;
};

static void header_name(const struct header_part *parts, size_t n, struct hk_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			hk_buf_putc(out, '.');
		bool bare = parts[i].key[0] != '\0';
		for (const char *c = parts[i].key; *c; c++)
			if (!is_bare_key_char((unsigned char)*c))
				bare = false;
		if (bare)
			hk_buf_puts(out, parts[i].key);
		else
			hk_buf_printf(out, "\"%s\"", parts[i].key);
	}
}

static int define_table(struct parser *p, struct hk_toml_table *root, struct header_part *parts,
			size_t n, struct hk_toml_table **current)
{
	struct hk_buf name = HK_BUF_INIT;
	struct hk_toml_table *t = root;
	int r = 0;

	header_name(parts, n, &name);
	for (size_t i = 0; i < n; i++) {
		bool last = i + 1 == n;
		struct hk_toml_entry *e = find_entry(t, parts[i].key);
		if (!e) {
			e = add_entry(t, hk_steal_ptr(&parts[i].key), parts[i].at);
			e->value.kind = HK_TOML_TABLE;
			e->value.line = parts[i].at.line;
			e->value.col = parts[i].at.col;
			e->value.table = hk_xcalloc(1, sizeof(*e->value.table));
			e->value.table->defined = last;
		} else if (e->value.kind != HK_TOML_TABLE) {
			r = fail_at(p, parts[i].at, "cannot define the table [%s]: the key '%s' is "
						    "already %s (at %u:%u)", hk_buf_str(&name),
				    e->key, hk_toml_kind_article(e->value.kind), e->line, e->col);
			break;
		} else if (last) {
			if (e->value.table->defined) {
				r = fail_at(p, parts[i].at, "the table [%s] is already defined at "
							    "%u:%u", hk_buf_str(&name),
					    e->value.line, e->value.col);
				break;
			}
			e->value.table->defined = true;
			e->value.line = parts[i].at.line;
			e->value.col = parts[i].at.col;
		}
		t = e->value.table;
	}
	hk_buf_free(&name);
	if (r == 0)
		*current = t;
	return r;
}

static int parse_header(struct parser *p, struct hk_toml_table *root,
			struct hk_toml_table **current)
{
	char buf[16];
	struct header_part *parts = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (peek_at(p, 1) == '[')
		return fail_at(p, here(p), "arrays of tables ([[ ... ]]) are not supported in harkaq "
					   "recipes");
	size_t line_start = p->line_start;
	advance(p, 1);
	for (;;) {
		skip_spaces(p);
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			parts = hk_xrealloc(parts, cap * sizeof(*parts));
		}
		r = parse_key(p, &parts[n].key, &parts[n].at);
		if (r < 0)
			goto free_parts;
		n++;
		skip_spaces(p);
		if (peek(p) == '.') {
			advance(p, 1);
			continue;
		}
		if (peek(p) == ']') {
			advance(p, 1);
			break;
		}
		r = fail_at(p, here(p), "expected '.' or ']' in the table header, found %s",
			    describe_next(p, buf));
		goto free_parts;
	}
	r = define_table(p, root, parts, n, current);
	if (r == 0)
		r = expect_line_end(p, "a table header");
	if (r == 0) {
		(*current)->header_start = line_start;
		(*current)->header_end = p->pos;
	}
free_parts:
	for (size_t i = 0; i < n; i++)
		free(parts[i].key);
	free(parts);
	return r;
}

int hk_toml_parse(const char *text, size_t len, const char *filename, struct hk_toml_table **out,
		  struct hk_error *err)
{
	struct parser p = { .text = text, .len = len, .line = 1, .col = 1, .filename = filename,
			    .err = err };
	*out = NULL;
	int r = validate_bytes(&p);
	if (r < 0)
		return r;

	struct hk_toml_table *root = hk_xcalloc(1, sizeof(*root));
	root->defined = true;
	struct hk_toml_table *current = root;
	for (;;) {
		skip_blank(&p);
		if (at_eof(&p))
			break;
		if (peek(&p) == '[')
			r = parse_header(&p, root, &current);
		else
			r = parse_keyval(&p, current);
		if (r < 0) {
			free_table(root);
			return r;
		}
	}
	*out = root;
	return 0;
}

void hk_toml_free(struct hk_toml_table *root)
{
	free_table(root);
}

const char *hk_toml_kind_article(enum hk_toml_kind kind)
{
	switch (kind) {
	case HK_TOML_STRING: return "a string";
	case HK_TOML_INTEGER: return "an integer";
	case HK_TOML_BOOL: return "a boolean";
	case HK_TOML_ARRAY: return "an array";
	case HK_TOML_TABLE: return "a table";
	}
	return "a value";
}

const char *hk_toml_kind_name(enum hk_toml_kind kind)
{
	switch (kind) {
	case HK_TOML_STRING: return "string";
	case HK_TOML_INTEGER: return "integer";
	case HK_TOML_BOOL: return "boolean";
	case HK_TOML_ARRAY: return "array";
	case HK_TOML_TABLE: return "table";
	}
	return "value";
}
