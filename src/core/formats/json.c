/* JSON writer and strict RFC 8259 reader.  The rules both follow are written down once, in
 * json.h. */
#include "core/formats/json.h"
#include "core/basic/die.h"
#include "core/basic/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ---- */

/* Length (2..4) of the valid multi-byte sequence at p, or 0.  Strict, per RFC 3629: no
 * overlong forms, no surrogates (U+D800..DFFF), nothing above U+10FFFF. */
static size_t utf8_seq_len(const uint8_t *p, size_t avail)
{
	uint8_t c = p[0];
	size_t n;
	uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the second byte */

	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0; /* below: overlong */
		else if (c == 0xED)
			hi = 0x9F; /* above: surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90; /* below: overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* above: beyond U+10FFFF */
	} else {
		return 0;
	}
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

static bool utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = utf8_seq_len(p + i, n - i);
		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

static size_t utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* ---- writer ---- */

static const char HEX_DIGITS[] = "0123456789abcdef";

/* A misuse of the writer is a bug in the caller, not a condition to report: continuing would
 * emit invalid JSON that some later reader trusts. */
__attribute__((noreturn)) static void writer_misuse(const char *what)
{
	hk_die("JSON writer misuse: ", what);
}

void hk_json_init(struct hk_json *j, struct hk_buf *out, int indent)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->indent = indent > 0 ? indent : 0;
}

static void newline_indent(struct hk_json *j)
{
	if (j->indent == 0)
		return;
	hk_buf_putc(j->out, '\n');
	for (int i = 0; i < j->depth * j->indent; i++)
		hk_buf_putc(j->out, ' ');
}

/* Separator and indentation before any value (scalar or container). */
static void before_value(struct hk_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->in_object[j->depth])
		writer_misuse("value inside an object without a key");
	if (j->need_comma[j->depth])
		hk_buf_putc(j->out, j->depth == 0 ? '\n' : ',');
	if (j->depth > 0)
		newline_indent(j);
	j->need_comma[j->depth] = true;
}

static void write_string(struct hk_buf *out, const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0;

	hk_buf_putc(out, '"');
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run > i) {
			hk_buf_append(out, p + i, run - i);
			i = run;
			continue;
		}
		uint8_t c = p[i];
		if (c >= 0x80) {
			size_t len = utf8_seq_len(p + i, n - i);
			if (len == 0) {
				hk_buf_append(out, "\xEF\xBF\xBD", 3); /* U+FFFD, one per bad byte */
				i++;
			} else {
				hk_buf_append(out, p + i, len);
				i += len;
			}
			continue;
		}
		switch (c) {
		case '"': hk_buf_append(out, "\\\"", 2); break;
		case '\\': hk_buf_append(out, "\\\\", 2); break;
		case '\b': hk_buf_append(out, "\\b", 2); break;
		case '\f': hk_buf_append(out, "\\f", 2); break;
		case '\n': hk_buf_append(out, "\\n", 2); break;
		case '\r': hk_buf_append(out, "\\r", 2); break;
		case '\t': hk_buf_append(out, "\\t", 2); break;
		default: {
			char esc[6] = { '\\', 'u', '0', '0', HEX_DIGITS[c >> 4], HEX_DIGITS[c & 0xF] };
			hk_buf_append(out, esc, sizeof(esc));
		}
		}
		i++;
	}
	hk_buf_putc(out, '"');
}

static void container_begin(struct hk_json *j, bool object)
{
	before_value(j);
	if (j->depth >= HK_JSON_MAX_DEPTH)
		writer_misuse("nesting deeper than HK_JSON_MAX_DEPTH (64)");
	hk_buf_putc(j->out, object ? '{' : '[');
	j->depth++;
	j->need_comma[j->depth] = false;
	j->in_object[j->depth] = object;
}

static void container_end(struct hk_json *j, bool object)
{
	if (j->depth == 0)
		writer_misuse(object ? "'}' with no open object" : "']' with no open array");
	if (j->in_object[j->depth] != object)
		writer_misuse(object ? "'}' closes an array" : "']' closes an object");
	if (j->after_key)
		writer_misuse("object ends after a key without its value");
	bool had_items = j->need_comma[j->depth];
	j->depth--;
	if (had_items)
		newline_indent(j);
	hk_buf_putc(j->out, object ? '}' : ']');
}

void hk_json_obj_begin(struct hk_json *j)
{
	container_begin(j, true);
}

void hk_json_obj_end(struct hk_json *j)
{
	container_end(j, true);
}

void hk_json_arr_begin(struct hk_json *j)
{
	container_begin(j, false);
}

void hk_json_arr_end(struct hk_json *j)
{
	container_end(j, false);
}

void hk_json_key(struct hk_json *j, const char *key)
{
	if (j->depth == 0 || !j->in_object[j->depth])
		writer_misuse("key outside an object");
	if (j->after_key)
		writer_misuse("two keys in a row");
	if (j->need_comma[j->depth])
		hk_buf_putc(j->out, ',');
	newline_indent(j);
	write_string(j->out, key, strlen(key));
	hk_buf_putc(j->out, ':');
	if (j->indent)
		hk_buf_putc(j->out, ' ');
	j->need_comma[j->depth] = true;
	j->after_key = true;
}

void hk_json_str(struct hk_json *j, const char *s)
{
	hk_json_strn(j, s, strlen(s));
}

void hk_json_strn(struct hk_json *j, const char *s, size_t n)
{
	before_value(j);
	write_string(j->out, s, n);
}

void hk_json_int(struct hk_json *j, int64_t v)
{
	before_value(j);
	hk_buf_printf(j->out, "%" PRId64, v);
}

void hk_json_uint(struct hk_json *j, uint64_t v)
{
	before_value(j);
	hk_buf_printf(j->out, "%" PRIu64, v);
}

void hk_json_bool(struct hk_json *j, bool v)
{
	before_value(j);
	hk_buf_puts(j->out, v ? "true" : "false");
}

void hk_json_null(struct hk_json *j)
{
	before_value(j);
	hk_buf_puts(j->out, "null");
}

void hk_json_kv_str(struct hk_json *j, const char *key, const char *s)
{
	hk_json_key(j, key);
	if (s)
		hk_json_str(j, s);
	else
		hk_json_null(j);
}

void hk_json_kv_bytes(struct hk_json *j, const char *key, const void *p, size_t n)
{
	hk_json_key(j, key);
	hk_json_bytes(j, p, n);
}

void hk_json_kv_int(struct hk_json *j, const char *key, int64_t v)
{
	hk_json_key(j, key);
	hk_json_int(j, v);
}

void hk_json_kv_uint(struct hk_json *j, const char *key, uint64_t v)
{
	hk_json_key(j, key);
	hk_json_uint(j, v);
}

void hk_json_kv_bool(struct hk_json *j, const char *key, bool v)
{
	hk_json_key(j, key);
	hk_json_bool(j, v);
}

/* harkaq never calls setlocale(), so printf and strtod use '.' as the decimal point. */
void hk_json_double(struct hk_json *j, double v)
{
	if (!isfinite(v)) {
		hk_json_null(j);
		return;
	}
	char text[40];
	for (int precision = 1; precision <= 17; precision++) {
		snprintf(text, sizeof(text), "%.*g", precision, v);
		if (strtod(text, NULL) == v)
			break;
	}
	before_value(j);
	hk_buf_puts(j->out, text);
}

void hk_json_bytes(struct hk_json *j, const void *p, size_t n)
{
	const uint8_t *bytes = p;
	if (n == 0 || (!memchr(bytes, '\0', n) && utf8_valid(bytes, n))) {
		hk_json_strn(j, p, n);
		return;
	}
	hk_json_obj_begin(j);
	hk_json_key(j, "hex");
	before_value(j);
	hk_buf_putc(j->out, '"');
	for (size_t i = 0; i < n; i++) {
		char pair[2] = { HEX_DIGITS[bytes[i] >> 4], HEX_DIGITS[bytes[i] & 0xF] };
		hk_buf_append(j->out, pair, 2);
	}
	hk_buf_putc(j->out, '"');
	hk_json_obj_end(j);
}

void hk_json_text_as_read(const char *s, size_t n, struct hk_buf *out)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0;
	while (i < n) {
		size_t len = p[i] < 0x80 ? 1 : utf8_seq_len(p + i, n - i);
		if (len == 0) {
			hk_buf_append(out, "\xEF\xBF\xBD", 3); /* as write_string: U+FFFD per bad byte */
			i++;
		} else {
			hk_buf_append(out, p + i, len);
			i += len;
		}
	}
}

void hk_json_raw(struct hk_json *j, const char *json)
{
	before_value(j);
	hk_buf_puts(j->out, json);
}

void hk_json_value(struct hk_json *j, const struct hk_jval *v)
{
	switch (v->type) {
	case HK_JNULL:
		hk_json_null(j);
		break;
	case HK_JBOOL:
		hk_json_bool(j, v->b);
		break;
	case HK_JNUM:
		if (v->is_int)
			hk_json_int(j, v->i);
		else
			hk_json_double(j, v->num);
		break;
	case HK_JSTR:
		hk_json_strn(j, v->str, v->len);
		break;
	case HK_JARR:
		hk_json_arr_begin(j);
		for (size_t i = 0; i < v->len; i++)
			hk_json_value(j, &v->items[i]);
		hk_json_arr_end(j);
		break;
	case HK_JOBJ:
		hk_json_obj_begin(j);
		for (size_t i = 0; i < v->len; i++) {
			hk_json_key(j, v->keys[i]);
			hk_json_value(j, &v->items[i]);
		}
		hk_json_obj_end(j);
		break;
	}
}

/* ---- reader ---- */

struct parser {
	const uint8_t *start, *p, *end;
	struct hk_error *err;
	int depth;
};

__attribute__((format(printf, 3, 4)))
static int parse_error(struct parser *ps, const uint8_t *at, const char *fmt, ...)
{
	int line = 1, column = 1;
	for (const uint8_t *q = ps->start; q < at; q++) {
		if (*q == '\n') {
			line++;
			column = 1;
		} else if ((*q & 0xC0) != 0x80) {
			column++; /* continuation bytes do not start a character */
		}
	}
	char what[HK_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return hk_fail(ps->err, EINVAL, "JSON:%d:%d: %s", line, column, what);
}

/* "'x'", "byte 0xff" or "end of input", for messages. */
static const char *describe(const struct parser *ps, const uint8_t *at, char buf[16])
{
	if (at >= ps->end)
		return "end of input";
	if (*at >= 0x21 && *at < 0x7F)
		snprintf(buf, 16, "'%c'", *at);
	else if (*at == ' ')
		snprintf(buf, 16, "a space");
	else
		snprintf(buf, 16, "byte 0x%02x", *at);
	return buf;
}

static int expected(struct parser *ps, const char *what)
{
	char buf[16];
	return parse_error(ps, ps->p, "expected %s, found %s", what, describe(ps, ps->p, buf));
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool is_digit(const struct parser *ps, const uint8_t *at)
{
	return at < ps->end && *at >= '0' && *at <= '9';
}

static int hex4(const struct parser *ps, const uint8_t *at, uint32_t *out)
{
	uint32_t v = 0;
	if (ps->end - at < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		uint8_t c = at[i];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (uint32_t)(c - 'A' + 10);
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Parses the string at ps->p (a '"'); on success the decoded bytes are in out. */
static int parse_string_into(struct parser *ps, struct hk_buf *out)
{
	const uint8_t *open = ps->p;
	ps->p++;
	for (;;) {
		const uint8_t *run = ps->p;
		while (ps->p < ps->end && *ps->p >= 0x20 && *ps->p < 0x80 && *ps->p != '"' &&
		       *ps->p != '\\')
			ps->p++;
		if (ps->p > run)
			hk_buf_append(out, run, (size_t)(ps->p - run));
		if (ps->p >= ps->end)
			return parse_error(ps, open, "unterminated string");
		uint8_t c = *ps->p;
		if (c == '"') {
			ps->p++;
			return 0;
		}
		if (c < 0x20)
			return parse_error(ps, ps->p,
					   "control character U+%04X in a string must be escaped",
					   c);
		if (c >= 0x80) {
			size_t len = utf8_seq_len(ps->p, (size_t)(ps->end - ps->p));
			if (len == 0)
				return parse_error(ps, ps->p, "invalid UTF-8 (byte 0x%02x) in a string",
						   c);
			hk_buf_append(out, ps->p, len);
			ps->p += len;
			continue;
		}
		/* c == '\\' */
		const uint8_t *esc = ps->p;
		if (ps->p + 1 >= ps->end)
			return parse_error(ps, open, "unterminated string");
		uint8_t e = ps->p[1];
		ps->p += 2;
		switch (e) {
		case '"': hk_buf_putc(out, '"'); continue;
		case '\\': hk_buf_putc(out, '\\'); continue;
		case '/': hk_buf_putc(out, '/'); continue;
		case 'b': hk_buf_putc(out, '\b'); continue;
		case 'f': hk_buf_putc(out, '\f'); continue;
		case 'n': hk_buf_putc(out, '\n'); continue;
		case 'r': hk_buf_putc(out, '\r'); continue;
		case 't': hk_buf_putc(out, '\t'); continue;
		case 'u': break;
		default: {
			char buf[16];
			return parse_error(ps, esc, "invalid escape: backslash followed by %s",
					   describe(ps, esc + 1, buf));
		}
		}
		uint32_t cp;
		if (hex4(ps, ps->p, &cp) < 0)
			return parse_error(ps, esc, "invalid \\u escape (expected 4 hex digits)");
		ps->p += 4;
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return parse_error(ps, esc, "lone low surrogate \\u%04X", cp);
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			uint32_t low;
			if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
			    hex4(ps, ps->p + 2, &low) < 0 || low < 0xDC00 || low > 0xDFFF)
				return parse_error(ps, esc,
						   "lone high surrogate \\u%04X (not followed by a "
						   "low surrogate escape)",
						   cp);
			ps->p += 6;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
		}
		char utf8[4];
		hk_buf_append(out, utf8, utf8_encode(cp, utf8));
	}
}

static int parse_value(struct parser *ps, struct hk_jval *v);

static int parse_string(struct parser *ps, struct hk_jval *v)
{
	struct hk_buf b = HK_BUF_INIT;
	int r = parse_string_into(ps, &b);
	if (r < 0) {
		hk_buf_free(&b);
		return r;
	}
	v->type = HK_JSTR;
	v->len = b.len;
	v->str = hk_buf_steal(&b);
	return 0;
}

static int parse_number(struct parser *ps, struct hk_jval *v)
{
	const uint8_t *begin = ps->p;
	bool integer_form = true;

	if (*ps->p == '-')
		ps->p++;
	if (!is_digit(ps, ps->p))
		return expected(ps, "a digit after '-'");
	if (*ps->p == '0') {
		ps->p++;
		if (is_digit(ps, ps->p))
			return parse_error(ps, ps->p - 1, "leading zeros are not allowed");
	} else {
		while (is_digit(ps, ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		integer_form = false;
		ps->p++;
		if (!is_digit(ps, ps->p))
			return expected(ps, "a digit after '.'");
		while (is_digit(ps, ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		integer_form = false;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!is_digit(ps, ps->p))
			return expected(ps, "a digit in the exponent");
		while (is_digit(ps, ps->p))
			ps->p++;
	}

	/* strtod needs a NUL-terminated copy: the input is not NUL-terminated. */
	hk_autofree char *text = hk_xstrndup((const char *)begin, (size_t)(ps->p - begin));
	errno = 0;
	double num = strtod(text, NULL);
	if (isinf(num)) {
		size_t n = (size_t)(ps->p - begin);
		return parse_error(ps, begin, "number %.*s%s is out of range", n > 40 ? 40 : (int)n,
				   text, n > 40 ? "..." : "");
	}
	v->type = HK_JNUM;
	v->num = num;
	if (integer_form) {
		/* Exact, even beyond the 53 bits a double holds (inode numbers, sizes). */
		errno = 0;
		long long i = strtoll(text, NULL, 10);
		if (errno == 0) {
			v->i = i;
			v->is_int = true;
		}
	} else if (num >= -9223372036854775808.0 && num < 9223372036854775808.0 &&
		   (double)(int64_t)num == num) {
		/* The range test comes first: converting an out-of-range double is undefined. */
		v->i = (int64_t)num;
		v->is_int = true;
	}
	return 0;
}

static int parse_literal(struct parser *ps, struct hk_jval *v, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return parse_error(ps, ps->p, "invalid literal (expected %s)", word);
	ps->p += n;
	if (word[0] == 'n') {
		v->type = HK_JNULL;
	} else {
		v->type = HK_JBOOL;
		v->b = word[0] == 't';
	}
	return 0;
}

/* Adds a zeroed slot to an array or object under construction; v->len counts it at once, so
 * a failure while filling it still leaves v freeable by hk_jval_free(). */
static struct hk_jval *add_slot(struct hk_jval *v, size_t *cap, char *key)
{
	if (v->len == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		v->items = hk_xrealloc(v->items, *cap * sizeof(*v->items));
		if (v->type == HK_JOBJ)
			v->keys = hk_xrealloc(v->keys, *cap * sizeof(*v->keys));
	}
	struct hk_jval *slot = &v->items[v->len];
	memset(slot, 0, sizeof(*slot));
	if (v->type == HK_JOBJ)
		v->keys[v->len] = key;
	v->len++;
	return slot;
}

static int enter(struct parser *ps)
{
	if (ps->depth >= HK_JSON_MAX_DEPTH)
		return parse_error(ps, ps->p, "nesting deeper than %d levels", HK_JSON_MAX_DEPTH);
	ps->depth++;
	return 0;
}

static int parse_array(struct parser *ps, struct hk_jval *v)
{
	int r = enter(ps);
	if (r < 0)
		return r;
	v->type = HK_JARR;
	size_t cap = 0;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		r = parse_value(ps, add_slot(v, &cap, NULL));
		if (r < 0)
			return r;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			break;
		}
		if (ps->p >= ps->end || *ps->p != ',')
			return expected(ps, "',' or ']'");
		const uint8_t *comma = ps->p;
		ps->p++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ']')
			return parse_error(ps, comma, "trailing comma before ']'");
	}
	ps->depth--;
	return 0;
}

struct key_order {
	char **keys;
};

static int compare_key_index(const void *a, const void *b, void *ctx)
{
	const struct key_order *order = ctx;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	int c = strcmp(order->keys[ia], order->keys[ib]);
	if (c != 0)
		return c;
	return ia < ib ? -1 : ia > ib;
}

/* Duplicate keys, found by sorting indices (objects can be large: a store index); reports the
 * earliest second occurrence, at its position in the input. */
static int check_duplicate_keys(struct parser *ps, const struct hk_jval *v,
				const size_t *key_offsets)
{
	if (v->len < 2)
		return 0;
	hk_autofree size_t *order = hk_xmalloc(v->len * sizeof(*order));
	for (size_t i = 0; i < v->len; i++)
		order[i] = i;
	struct key_order ctx = { v->keys };
	qsort_r(order, v->len, sizeof(*order), compare_key_index, &ctx);
	size_t dup = SIZE_MAX;
	for (size_t i = 1; i < v->len; i++)
		if (strcmp(v->keys[order[i - 1]], v->keys[order[i]]) == 0 && order[i] < dup)
			dup = order[i];
	if (dup == SIZE_MAX)
		return 0;
	return parse_error(ps, ps->start + key_offsets[dup], "duplicate key \"%s\"", v->keys[dup]);
}

static int parse_object(struct parser *ps, struct hk_jval *v)
{
	int r = enter(ps);
	if (r < 0)
		return r;
	v->type = HK_JOBJ;
	size_t cap = 0, offsets_cap = 0;
	hk_autofree size_t *key_offsets = NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		if (ps->p >= ps->end || *ps->p != '"')
			return expected(ps, "a string key");
		const uint8_t *key_at = ps->p;
		struct hk_buf key = HK_BUF_INIT;
		r = parse_string_into(ps, &key);
		if (r < 0) {
			hk_buf_free(&key);
			return r;
		}
		if (memchr(hk_buf_str(&key), '\0', key.len)) {
			hk_buf_free(&key);
			return parse_error(ps, key_at, "object key contains U+0000");
		}
		if (v->len == offsets_cap) {
			offsets_cap = offsets_cap ? offsets_cap * 2 : 4;
			key_offsets = hk_xrealloc(key_offsets, offsets_cap * sizeof(*key_offsets));
		}
		key_offsets[v->len] = (size_t)(key_at - ps->start);
		struct hk_jval *slot = add_slot(v, &cap, hk_buf_steal(&key));
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':')
			return expected(ps, "':' after the key");
		ps->p++;
		r = parse_value(ps, slot);
		if (r < 0)
			return r;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			break;
		}
		if (ps->p >= ps->end || *ps->p != ',')
			return expected(ps, "',' or '}'");
		const uint8_t *comma = ps->p;
		ps->p++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == '}')
			return parse_error(ps, comma, "trailing comma before '}'");
	}
	ps->depth--;
	return check_duplicate_keys(ps, v, key_offsets);
}

static int parse_value(struct parser *ps, struct hk_jval *v)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return expected(ps, "a value");
	switch (*ps->p) {
	case '{':
		return parse_object(ps, v);
	case '[':
		return parse_array(ps, v);
	case '"':
		return parse_string(ps, v);
	case 't':
		return parse_literal(ps, v, "true");
	case 'f':
		return parse_literal(ps, v, "false");
	case 'n':
		return parse_literal(ps, v, "null");
	case '/':
		return parse_error(ps, ps->p, "comments are not allowed");
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, v);
		return expected(ps, "a value");
	}
}

int hk_json_parse(const char *text, size_t len, struct hk_jval **out, struct hk_error *err)
{
	struct parser ps = {
		.start = (const uint8_t *)text,
		.p = (const uint8_t *)text,
		.end = (const uint8_t *)text + len,
		.err = err,
	};
	struct hk_jval *v = hk_xcalloc(1, sizeof(*v));
	*out = NULL;
	int r = parse_value(&ps, v);
	if (r == 0) {
		skip_ws(&ps);
		if (ps.p < ps.end) {
			char buf[16];
			r = parse_error(&ps, ps.p, "unexpected %s after the JSON value",
					describe(&ps, ps.p, buf));
		}
	}
	if (r < 0) {
		hk_jval_free(v);
		return r;
	}
	*out = v;
	return 0;
}

static void jval_clear(struct hk_jval *v)
{
	if (v->type == HK_JSTR)
		free(v->str);
	if (v->type == HK_JARR || v->type == HK_JOBJ) {
		for (size_t i = 0; i < v->len; i++) {
			jval_clear(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
}

void hk_jval_free(struct hk_jval *v)
{
	if (!v)
		return;
	jval_clear(v);
	free(v);
}

const struct hk_jval *hk_jobj_get(const struct hk_jval *obj, const char *key)
{
	if (!obj || obj->type != HK_JOBJ)
		return NULL;
	for (size_t i = 0; i < obj->len; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

const char *hk_jobj_str(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR ? v->str : NULL;
}

int64_t hk_jobj_int(const struct hk_jval *obj, const char *key, int64_t dflt)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type != HK_JNUM)
		return dflt;
	return v->is_int ? v->i : (int64_t)v->num;
}

bool hk_jobj_bool(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JBOOL && v->b;
}

static void jval_copy_into(struct hk_jval *dst, const struct hk_jval *src)
{
	*dst = *src;
	dst->str = NULL;
	dst->items = NULL;
	dst->keys = NULL;
	if (src->type == HK_JSTR) {
		dst->str = hk_xmemdupz(src->str, src->len);
	} else if (src->type == HK_JARR || src->type == HK_JOBJ) {
		if (src->len == 0)
			return;
		dst->items = hk_xcalloc(src->len, sizeof(*dst->items));
		if (src->type == HK_JOBJ)
			dst->keys = hk_xcalloc(src->len, sizeof(*dst->keys));
		for (size_t i = 0; i < src->len; i++) {
			jval_copy_into(&dst->items[i], &src->items[i]);
			if (dst->keys)
				dst->keys[i] = hk_xstrdup(src->keys[i]);
		}
	}
}

struct hk_jval *hk_jval_copy(const struct hk_jval *v)
{
	if (!v)
		return NULL;
	struct hk_jval *c = hk_xmalloc(sizeof(*c));
	jval_copy_into(c, v);
	return c;
}

static int hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

char *hk_jval_bytes(const struct hk_jval *v, size_t *len)
{
	if (!v)
		return NULL;
	if (v->type == HK_JSTR) {
		if (memchr(v->str, '\0', v->len))
			return NULL;
		*len = v->len;
		return hk_xstrndup(v->str, v->len);
	}
	if (v->type != HK_JOBJ || v->len != 1 || strcmp(v->keys[0], "hex") != 0)
		return NULL;
	const struct hk_jval *hex = &v->items[0];
	if (hex->type != HK_JSTR || hex->len % 2 != 0)
		return NULL;
	size_t n = hex->len / 2;
	char *bytes = hk_xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit_value(hex->str[2 * i]), lo = hex_digit_value(hex->str[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(bytes);
			return NULL;
		}
		bytes[i] = (char)(hi << 4 | lo);
	}
	bytes[n] = '\0';
	/* Bytes that hk_json_bytes() would have written as a plain string are not canonical. */
	if (!memchr(bytes, '\0', n) && utf8_valid((const uint8_t *)bytes, n)) {
		free(bytes);
		return NULL;
	}
	*len = n;
	return bytes;
}
