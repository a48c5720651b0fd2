/* JSON writer and strict reader: escaping, UTF-8, the reversible bytes form, nesting, exact
 * rejection positions, numbers, and write -> parse -> write stability. */
#include "harness.h"

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/basic/util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static struct hk_jval *parse_or_null(const char *text, size_t len, struct hk_error *err)
{
	struct hk_jval *v = NULL;
	int r = hk_json_parse(text, len, &v, err);
	if (r < 0) {
		if (v)
			HK_FAIL_AT("*out must stay NULL on error");
		return NULL;
	}
	return v;
}

static struct hk_jval *parse_str(const char *text)
{
	struct hk_error err = { 0 };
	struct hk_jval *v = parse_or_null(text, strlen(text), &err);
	if (!v)
		HK_FAIL_AT("parse of [%s] failed: %s", text, err.msg);
	return v;
}

/* The compact rendering of one string value written with hk_json_strn. */
static char *render_strn(const char *s, size_t n)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_strn(&j, s, n);
	return hk_buf_steal(&b);
}

TEST(escapes_every_control_character)
{
	for (int c = 0; c < 0x20; c++) {
		char in = (char)c;
		hk_autofree char *out = render_strn(&in, 1);
		char expected[16];
		switch (c) {
		case '\b': strcpy(expected, "\"\\b\""); break;
		case '\f': strcpy(expected, "\"\\f\""); break;
		case '\n': strcpy(expected, "\"\\n\""); break;
		case '\r': strcpy(expected, "\"\\r\""); break;
		case '\t': strcpy(expected, "\"\\t\""); break;
		default: snprintf(expected, sizeof(expected), "\"\\u%04x\"", c); break;
		}
		CHECK_STR_EQ(expected, out);
		/* And it reads back as the same single byte. */
		struct hk_jval *v = parse_str(out);
		REQUIRE(v);
		CHECK(v->type == HK_JSTR && v->len == 1 && (unsigned char)v->str[0] == c);
		hk_jval_free(v);
	}
	hk_autofree char *quote = render_strn("a\"b\\c/d\x7f", 8);
	CHECK_STR_EQ("\"a\\\"b\\\\c/d\x7f\"", quote);
	/* Positive control: plain printable text is written unchanged. */
	hk_autofree char *plain = render_strn("plain text 123", 14);
	CHECK_STR_EQ("\"plain text 123\"", plain);
	hk_autofree char *nul = render_strn("a\0b", 3);
	CHECK_STR_EQ("\"a\\u0000b\"", nul);
}

TEST(utf8_is_written_literally_and_read_from_escapes)
{
	/* 2-, 3- and 4-byte sequences: é, €, 😀 */
	const char *text = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
	hk_autofree char *out = render_strn(text, strlen(text));
	hk_autofree char *expected = hk_xasprintf("\"%s\"", text);
	CHECK_STR_EQ(expected, out);

	struct hk_jval *v = parse_str("\"\\u00e9 \\u20AC \\ud83d\\ude00\"");
	REQUIRE(v);
	CHECK(v->type == HK_JSTR);
	CHECK_EQ_INT(strlen(text), v->len);
	CHECK_STR_EQ(text, v->str);
	hk_jval_free(v);

	/* Literal UTF-8 in the input is kept as is. */
	v = parse_str(out);
	REQUIRE(v);
	CHECK_STR_EQ(text, v->str);
	hk_jval_free(v);

	/* U+0000 through an escape: kept, with the length telling. */
	v = parse_str("\"a\\u0000b\"");
	REQUIRE(v);
	CHECK_EQ_INT(3, v->len);
	CHECK(memcmp(v->str, "a\0b", 4) == 0);
	hk_jval_free(v);
}

TEST(invalid_utf8_in_text_becomes_replacement_character)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "a\xff" "b", "\"a\xef\xbf\xbd" "b\"" },                   /* never valid */
		{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },             /* overlong '/' */
		{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* surrogate */
		{ "\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "x\xe2\x82", "\"x\xef\xbf\xbd\xef\xbf\xbd\"" },            /* truncated */
		{ "\xc3\xa9", "\"\xc3\xa9\"" },                             /* control: valid */
		{ "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"" },              /* U+10FFFF valid */
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_str(&j, cases[i].in);
		CHECK_STR_EQ(cases[i].out, hk_buf_str(&b));
		/* Whatever went in, what came out is valid JSON. */
		struct hk_jval *v = parse_str(hk_buf_str(&b));
		CHECK(v && v->type == HK_JSTR);
		hk_jval_free(v);
		hk_buf_free(&b);
	}
	/* Keys get the same treatment. */
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "k\xff\"");
	hk_json_int(&j, 1);
	hk_json_obj_end(&j);
	CHECK_STR_EQ("{\"k\xef\xbf\xbd\\\"\":1}", hk_buf_str(&b));
	hk_buf_free(&b);
}

/* hk_json_text_as_read gives what a reader of hk_json_strn's output gets back: a renderer
 * working from the value prints what one working from the stored JSON prints. */
TEST(text_as_read_is_what_the_reader_gets_back)
{
	static const char *const texts[] = {
		"a\xff" "b", "\xc0\xaf", "\xed\xa0\x80", "x\xe2\x82", "caf\xc3\xa9",
		"tab\there \x1b[31m \"q\" \\", "", "\xf4\x8f\xbf\xbf\xf4\x90\x80\x80",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(texts); i++) {
		hk_autofree char *json = render_strn(texts[i], strlen(texts[i]));
		struct hk_jval *v = parse_str(json);
		struct hk_buf got = HK_BUF_INIT;
		hk_json_text_as_read(texts[i], strlen(texts[i]), &got);
		CHECK(v && v->type == HK_JSTR && got.len == v->len &&
		      memcmp(hk_buf_str(&got), v->str, v->len) == 0);
		hk_jval_free(v);
		hk_buf_free(&got);
	}
	/* Control: a text with a byte that is not UTF-8 does change. */
	struct hk_buf got = HK_BUF_INIT;
	hk_json_text_as_read("a\xff", 2, &got);
	CHECK_STR_EQ("a\xef\xbf\xbd", hk_buf_str(&got));
	hk_buf_free(&got);
}

TEST(bytes_form_round_trips_paths)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *json; /* expected rendering */
	} paths[] = {
		{ "/tmp/with space", 15, "\"/tmp/with space\"" },
		{ "/tmp/quo\"te", 11, "\"/tmp/quo\\\"te\"" },
		{ "/tmp/new\nline", 13, "\"/tmp/new\\nline\"" },
		{ "/tmp/\xff", 6, "{\"hex\":\"2f746d702fff\"}" },
		{ "/tmp/\xc3\xa9t\xc3\xa9", 10, "\"/tmp/\xc3\xa9t\xc3\xa9\"" },
		{ "/tmp/\xe9t\xe9", 8, "{\"hex\":\"2f746d702fe974e9\"}" }, /* "été" in Latin-1 */
		{ "a\0b", 3, "{\"hex\":\"610062\"}" },
		{ "", 0, "\"\"" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(paths); i++) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_obj_begin(&j);
		hk_json_key(&j, "path");
		hk_json_bytes(&j, paths[i].bytes, paths[i].len);
		hk_json_obj_end(&j);
		hk_autofree char *expected = hk_xasprintf("{\"path\":%s}", paths[i].json);
		CHECK_STR_EQ(expected, hk_buf_str(&b));

		struct hk_jval *v = parse_str(hk_buf_str(&b));
		REQUIRE(v);
		size_t len = 12345;
		hk_autofree char *back = hk_jval_bytes(hk_jobj_get(v, "path"), &len);
		CHECK(back != NULL);
		CHECK_EQ_INT(paths[i].len, len);
		CHECK(back && memcmp(back, paths[i].bytes, paths[i].len) == 0);
		CHECK(back && back[len] == '\0');
		hk_jval_free(v);
		hk_buf_free(&b);
	}
}

TEST(bytes_reader_accepts_only_the_canonical_form)
{
	static const char *rejected[] = {
		"{\"hex\":\"41\"}",        /* valid UTF-8: would have been the string "A" */
		"{\"hex\":\"FF\"}",        /* uppercase */
		"{\"hex\":\"fff\"}",       /* odd length */
		"{\"hex\":\"zz\"}",
		"{\"hex\":\"ff\",\"x\":1}", /* extra member */
		"{\"other\":\"ff\"}",
		"{\"hex\":255}",
		"\"a\\u0000b\"",           /* NUL: would have been hex */
		"12",
		"null",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(rejected); i++) {
		struct hk_jval *v = parse_str(rejected[i]);
		REQUIRE(v);
		size_t len = 0;
		char *bytes = hk_jval_bytes(v, &len);
		if (bytes)
			HK_FAIL_AT("hk_jval_bytes accepted %s", rejected[i]);
		free(bytes);
		hk_jval_free(v);
	}
	/* Positive controls. */
	struct hk_jval *v = parse_str("{\"hex\":\"ff00\"}");
	REQUIRE(v);
	size_t len = 0;
	hk_autofree char *bytes = hk_jval_bytes(v, &len);
	CHECK(bytes && len == 2 && (unsigned char)bytes[0] == 0xff && bytes[1] == 0);
	hk_jval_free(v);
	v = parse_str("\"A\"");
	REQUIRE(v);
	hk_autofree char *a = hk_jval_bytes(v, &len);
	CHECK(a && len == 1 && a[0] == 'A');
	hk_jval_free(v);
	CHECK(hk_jval_bytes(NULL, &len) == NULL);
}

static void write_sample(struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "name");
	hk_json_str(j, "zlib");
	hk_json_key(j, "n");
	hk_json_int(j, -42);
	hk_json_key(j, "big");
	hk_json_uint(j, UINT64_MAX);
	hk_json_key(j, "list");
	hk_json_arr_begin(j);
	hk_json_int(j, 1);
	hk_json_bool(j, true);
	hk_json_null(j);
	hk_json_arr_begin(j);
	hk_json_arr_end(j);
	hk_json_obj_begin(j);
	hk_json_obj_end(j);
	hk_json_arr_end(j);
	hk_json_key(j, "inner");
	hk_json_obj_begin(j);
	hk_json_key(j, "ok");
	hk_json_bool(j, false);
	hk_json_key(j, "raw");
	hk_json_raw(j, "[1,2]");
	hk_json_obj_end(j);
	hk_json_obj_end(j);
}

TEST(writer_handles_commas_nesting_and_indent)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	write_sample(&j);
	CHECK_STR_EQ("{\"name\":\"zlib\",\"n\":-42,\"big\":18446744073709551615,"
		     "\"list\":[1,true,null,[],{}],\"inner\":{\"ok\":false,\"raw\":[1,2]}}",
		     hk_buf_str(&b));
	CHECK_EQ_INT(0, j.depth);

	hk_buf_reset(&b);
	hk_json_init(&j, &b, 2);
	write_sample(&j);
	CHECK_STR_EQ("{\n"
		     "  \"name\": \"zlib\",\n"
		     "  \"n\": -42,\n"
		     "  \"big\": 18446744073709551615,\n"
		     "  \"list\": [\n"
		     "    1,\n"
		     "    true,\n"
		     "    null,\n"
		     "    [],\n"
		     "    {}\n"
		     "  ],\n"
		     "  \"inner\": {\n"
		     "    \"ok\": false,\n"
		     "    \"raw\": [1,2]\n"
		     "  }\n"
		     "}",
		     hk_buf_str(&b));

	/* Several top-level values: JSON Lines. */
	hk_buf_reset(&b);
	hk_json_init(&j, &b, 0);
	hk_json_int(&j, 1);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "a");
	hk_json_int(&j, 2);
	hk_json_obj_end(&j);
	hk_json_str(&j, "x");
	CHECK_STR_EQ("1\n{\"a\":2}\n\"x\"", hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(doubles_use_the_shortest_exact_form)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0.1, "0.1" }, { -0.5, "-0.5" }, { 3.0, "3" }, { 1e300, "1e+300" },
		{ 1.0 / 3.0, "0.3333333333333333" }, { 5e-324, "5e-324" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_double(&j, cases[i].v);
		CHECK_STR_EQ(cases[i].text, hk_buf_str(&b));
		struct hk_jval *v = parse_str(hk_buf_str(&b));
		CHECK(v && v->type == HK_JNUM && v->num == cases[i].v);
		hk_jval_free(v);
		hk_buf_free(&b);
	}
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_arr_begin(&j);
	hk_json_double(&j, NAN);
	hk_json_double(&j, INFINITY);
	hk_json_double(&j, 2.5);
	hk_json_arr_end(&j);
	CHECK_STR_EQ("[null,null,2.5]", hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(numbers_are_parsed_exactly)
{
	static const struct {
		const char *text;
		bool is_int;
		int64_t i;
		double num;
	} cases[] = {
		{ "0", true, 0, 0.0 },
		{ "-0", true, 0, -0.0 },
		{ "42", true, 42, 42.0 },
		{ "9007199254740993", true, 9007199254740993LL, 9007199254740992.0 },
		{ "-9223372036854775808", true, INT64_MIN, -9223372036854775808.0 },
		{ "9223372036854775807", true, INT64_MAX, 9223372036854775807.0 },
		{ "9223372036854775808", false, 0, 9223372036854775808.0 },
		{ "1e2", true, 100, 100.0 },
		{ "1E+2", true, 100, 100.0 },
		{ "-2.0", true, -2, -2.0 },
		{ "1.5", false, 0, 1.5 },
		{ "0.1e1", true, 1, 1.0 },
		{ "1e-400", true, 0, 0.0 }, /* underflow is zero, not an error */
		{ "1.25e-2", false, 0, 0.0125 },
	};
	for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
		struct hk_jval *v = parse_str(cases[c].text);
		REQUIRE(v);
		CHECK(v->type == HK_JNUM);
		if (v->is_int != cases[c].is_int || v->num != cases[c].num ||
		    (cases[c].is_int && v->i != cases[c].i))
			HK_FAIL_AT("%s: is_int %d i %" PRId64 " num %.17g", cases[c].text, v->is_int,
				   v->i, v->num);
		hk_jval_free(v);
	}
}

struct rejection {
	const char *text;
	size_t len; /* 0: strlen */
	const char *message;
};

TEST(reader_rejects_with_line_and_column)
{
	static const struct rejection cases[] = {
		{ "", 0, "JSON:1:1: expected a value, found end of input" },
		{ "  \n ", 0, "JSON:2:2: expected a value, found end of input" },
		{ "[1,]", 0, "JSON:1:3: trailing comma before ']'" },
		{ "{\"a\":1,}", 0, "JSON:1:7: trailing comma before '}'" },
		{ "{\n  \"a\": 1\n  \"b\": 2\n}", 0, "JSON:3:3: expected ',' or '}', found '\"'" },
		{ "[1 2]", 0, "JSON:1:4: expected ',' or ']', found '2'" },
		{ "// c\n1", 0, "JSON:1:1: comments are not allowed" },
		{ "[1,/* c */2]", 0, "JSON:1:4: comments are not allowed" },
		{ "01", 0, "JSON:1:1: leading zeros are not allowed" },
		{ "[-01]", 0, "JSON:1:3: leading zeros are not allowed" },
		{ "1.", 0, "JSON:1:3: expected a digit after '.', found end of input" },
		{ ".5", 0, "JSON:1:1: expected a value, found '.'" },
		{ "1e+", 0, "JSON:1:4: expected a digit in the exponent, found end of input" },
		{ "-x", 0, "JSON:1:2: expected a digit after '-', found 'x'" },
		{ "+1", 0, "JSON:1:1: expected a value, found '+'" },
		{ "[1e400]", 0, "JSON:1:2: number 1e400 is out of range" },
		{ "\"\\ud800\"", 0, "JSON:1:2: lone high surrogate \\uD800" },
		{ "\"ab\\ud800\\u0041\"", 0, "JSON:1:4: lone high surrogate \\uD800" },
		{ "\"\\udc00\"", 0, "JSON:1:2: lone low surrogate \\uDC00" },
		{ "\"a\tb\"", 0, "JSON:1:3: control character U+0009 in a string must be escaped" },
		{ "\"a\nb\"", 0, "JSON:1:3: control character U+000A in a string must be escaped" },
		{ "\"\xff\"", 0, "JSON:1:2: invalid UTF-8 (byte 0xff) in a string" },
		{ "\"\xc3\xa9\xc3\xa9\xff\"", 0, "JSON:1:4: invalid UTF-8 (byte 0xff)" },
		{ "\"\xed\xa0\x80\"", 0, "JSON:1:2: invalid UTF-8 (byte 0xed)" },
		{ "\"\xc0\xaf\"", 0, "JSON:1:2: invalid UTF-8 (byte 0xc0)" },
		{ "\"\xf4\x90\x80\x80\"", 0, "JSON:1:2: invalid UTF-8 (byte 0xf4)" },
		{ "\"\xe2\x82\"", 0, "JSON:1:2: invalid UTF-8 (byte 0xe2)" },
		{ "[\"abc", 0, "JSON:1:2: unterminated string" },
		{ "\"\\x\"", 0, "JSON:1:2: invalid escape: backslash followed by 'x'" },
		{ "\"\\u12g4\"", 0, "JSON:1:2: invalid \\u escape (expected 4 hex digits)" },
		{ "tru", 0, "JSON:1:1: invalid literal (expected true)" },
		{ "[nul]", 0, "JSON:1:2: invalid literal (expected null)" },
		{ "True", 0, "JSON:1:1: expected a value, found 'T'" },
		{ "1 2", 0, "JSON:1:3: unexpected '2' after the JSON value" },
		{ "truex", 0, "JSON:1:5: unexpected 'x' after the JSON value" },
		{ "{\"a\" 1}", 0, "JSON:1:6: expected ':' after the key, found '1'" },
		{ "{1:2}", 0, "JSON:1:2: expected a string key, found '1'" },
		{ "{\"a\":1,\"b\":2,\"a\":3}", 0, "JSON:1:14: duplicate key \"a\"" },
		{ "{\"a\\u0000\":1}", 0, "JSON:1:2: object key contains U+0000" },
		{ "\xef\xbb\xbf{}", 0, "JSON:1:1: expected a value, found byte 0xef" },
		{ "[1,\n\n   x]", 0, "JSON:3:4: expected a value, found 'x'" },
		{ "{\"\xc3\xa9t\xc3\xa9\": x}", 0, "JSON:1:9: expected a value, found 'x'" },
		{ "[", 0, "JSON:1:2: expected a value, found end of input" },
		{ "{", 0, "JSON:1:2: expected a string key, found end of input" },
		{ "[1", 0, "JSON:1:3: expected ',' or ']', found end of input" },
		{ "{\"a\":1", 0, "JSON:1:7: expected ',' or '}', found end of input" },
		{ "\0", 1, "JSON:1:1: expected a value, found byte 0x00" },
		{ "[1]\0", 4, "JSON:1:4: unexpected byte 0x00 after the JSON value" },
		{ "\v1", 0, "JSON:1:1: expected a value, found byte 0x0b" },
		{ "[1, ]", 0, "JSON:1:3: trailing comma before ']'" },
		{ "{\"a\":}", 0, "JSON:1:6: expected a value, found '}'" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		struct hk_error err = { 0 };
		struct hk_jval *v = (struct hk_jval *)1;
		int r = hk_json_parse(cases[i].text, len, &v, &err);
		if (r != -EINVAL || v != NULL || err.code != EINVAL) {
			HK_FAIL_AT("case %zu [%s]: expected rejection, got r=%d", i, cases[i].text, r);
			if (r == 0)
				hk_jval_free(v);
			continue;
		}
		if (strncmp(err.msg, cases[i].message, strlen(cases[i].message)) != 0)
			HK_FAIL_AT("case %zu: expected \"%s\", got \"%s\"", i, cases[i].message,
				   err.msg);
	}

	/* Positive controls: the near-misses of the cases above that are valid. */
	static const char *accepted[] = {
		"[1]", "{\"a\":1,\"b\":2}", "0", "-0", "[-0.1]", "1e+5", "1E-5",
		"\"\\ud83d\\ude00\"", "\"\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\"", " \t\r\n1 \t\r\n",
		"\"\xc3\xa9\xf4\x8f\xbf\xbf\"", "true", "false", "null", "{\"a\":1,\"A\":2}",
		"\"\x7f\"", "[[],{},\"\"]",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(accepted); i++) {
		struct hk_jval *v = parse_str(accepted[i]);
		CHECK(v != NULL);
		hk_jval_free(v);
	}
}

static char *nested_arrays(int depth)
{
	struct hk_buf b = HK_BUF_INIT;
	for (int i = 0; i < depth; i++)
		hk_buf_putc(&b, '[');
	for (int i = 0; i < depth; i++)
		hk_buf_putc(&b, ']');
	return hk_buf_steal(&b);
}

TEST(nesting_limit_is_64_levels)
{
	/* Exactly the limit: parsed, and written back identically. */
	hk_autofree char *ok = nested_arrays(HK_JSON_MAX_DEPTH);
	struct hk_jval *v = parse_str(ok);
	REQUIRE(v);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_value(&j, v);
	CHECK_STR_EQ(ok, hk_buf_str(&b));
	hk_buf_free(&b);
	hk_jval_free(v);

	/* One more: refused at the 65th bracket. */
	hk_autofree char *deep = nested_arrays(HK_JSON_MAX_DEPTH + 1);
	struct hk_error err = { 0 };
	CHECK(parse_or_null(deep, strlen(deep), &err) == NULL);
	CHECK_STR_EQ("JSON:1:65: nesting deeper than 64 levels", err.msg);

	/* Mixed objects and arrays count alike. */
	struct hk_buf mixed = HK_BUF_INIT;
	for (int i = 0; i < 40; i++)
		hk_buf_puts(&mixed, "{\"k\":[");
	CHECK(parse_or_null(hk_buf_str(&mixed), mixed.len, &err) == NULL);
	CHECK_CONTAINS(err.msg, "nesting deeper than 64 levels");
	hk_buf_free(&mixed);
}

/* Runs fn in a child; returns its wait status, with the child's stderr in msg. */
static int run_in_child(void (*fn)(void), char *msg, size_t msg_size)
{
	int pipefd[2];
	if (pipe(pipefd) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		fn();
		_exit(0);
	}
	close(pipefd[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < msg_size && (n = read(pipefd[0], msg + got, msg_size - 1 - got)) > 0)
		got += (size_t)n;
	msg[got] = '\0';
	close(pipefd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return status;
}

static struct hk_buf child_buf;
static struct hk_json child_writer;

static void correct_use(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	hk_json_obj_begin(&child_writer);
	hk_json_key(&child_writer, "a");
	hk_json_arr_begin(&child_writer);
	hk_json_arr_end(&child_writer);
	hk_json_obj_end(&child_writer);
}

static void key_in_array(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	hk_json_arr_begin(&child_writer);
	hk_json_key(&child_writer, "a");
}

static void value_without_key(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	hk_json_obj_begin(&child_writer);
	hk_json_int(&child_writer, 1);
}

static void mismatched_end(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	hk_json_obj_begin(&child_writer);
	hk_json_arr_end(&child_writer);
}

static void too_deep(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	for (int i = 0; i <= HK_JSON_MAX_DEPTH; i++)
		hk_json_arr_begin(&child_writer);
}

static void exactly_max_depth(void)
{
	hk_json_init(&child_writer, &child_buf, 0);
	for (int i = 0; i < HK_JSON_MAX_DEPTH; i++)
		hk_json_arr_begin(&child_writer);
	for (int i = 0; i < HK_JSON_MAX_DEPTH; i++)
		hk_json_arr_end(&child_writer);
}

TEST(writer_misuse_aborts)
{
	char msg[512];
	/* Positive controls: correct sequences exit normally. */
	int status = run_in_child(correct_use, msg, sizeof(msg));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	status = run_in_child(exactly_max_depth, msg, sizeof(msg));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	static const struct {
		void (*fn)(void);
		const char *message;
	} misuses[] = {
		{ key_in_array, "key outside an object" },
		{ value_without_key, "value inside an object without a key" },
		{ mismatched_end, "']' closes an object" },
		{ too_deep, "nesting deeper than HK_JSON_MAX_DEPTH" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(misuses); i++) {
		status = run_in_child(misuses[i].fn, msg, sizeof(msg));
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
		CHECK_CONTAINS(msg, misuses[i].message);
	}
}

TEST(object_lookup)
{
	struct hk_jval *v = parse_str("{\"b\":1,\"a\":[true],\"c\":\"x\"}");
	REQUIRE(v);
	CHECK_EQ_INT(3, v->len);
	CHECK_STR_EQ("b", v->keys[0]);
	CHECK_STR_EQ("a", v->keys[1]);
	const struct hk_jval *a = hk_jobj_get(v, "a");
	REQUIRE(a);
	CHECK(a->type == HK_JARR && a->len == 1 && a->items[0].type == HK_JBOOL && a->items[0].b);
	CHECK(hk_jobj_get(v, "missing") == NULL);
	CHECK(hk_jobj_get(a, "a") == NULL);
	CHECK(hk_jobj_get(NULL, "a") == NULL);
	hk_jval_free(v);
	hk_jval_free(NULL);
}

static char *write_value(const struct hk_jval *v, int indent)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, indent);
	hk_json_value(&j, v);
	return hk_buf_steal(&b);
}

TEST(write_parse_write_is_stable)
{
	/* A document built with the writer: every kind of value and escape. */
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "zeta");
	hk_json_str(&j, "tab\there \"q\" \\ \x01 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	hk_json_key(&j, "alpha");
	hk_json_bytes(&j, "/tmp/\xff\xfe", 7);
	hk_json_key(&j, "num");
	hk_json_arr_begin(&j);
	hk_json_int(&j, INT64_MIN);
	hk_json_int(&j, INT64_MAX);
	hk_json_double(&j, 0.1);
	hk_json_double(&j, -1.5e-300);
	hk_json_uint(&j, 18446744073709551615ULL);
	hk_json_arr_end(&j);
	hk_json_key(&j, "nested");
	hk_json_obj_begin(&j);
	hk_json_key(&j, "empty_obj");
	hk_json_obj_begin(&j);
	hk_json_obj_end(&j);
	hk_json_key(&j, "empty_arr");
	hk_json_arr_begin(&j);
	hk_json_arr_end(&j);
	hk_json_key(&j, "t");
	hk_json_bool(&j, true);
	hk_json_key(&j, "n");
	hk_json_null(&j);
	hk_json_obj_end(&j);
	hk_json_obj_end(&j);
	hk_autofree char *first = hk_buf_steal(&b);

	struct hk_jval *v = parse_str(first);
	REQUIRE(v);
	hk_autofree char *second = write_value(v, 0);
	/* uint64 max is beyond int64: it comes back as a double, the only expected change. */
	hk_autofree char *expected_second = hk_xstrdup(first);
	char *big = strstr(expected_second, "18446744073709551615");
	REQUIRE(big);
	hk_autofree char *fixed = hk_xasprintf("%.*s1.8446744073709552e+19%s",
					       (int)(big - expected_second), expected_second,
					       big + strlen("18446744073709551615"));
	CHECK_STR_EQ(fixed, second);
	/* From then on, a fixed point, compact and pretty alike. */
	struct hk_jval *v2 = parse_str(second);
	REQUIRE(v2);
	hk_autofree char *third = write_value(v2, 0);
	CHECK_STR_EQ(second, third);
	hk_autofree char *pretty = write_value(v2, 4);
	CHECK(strchr(pretty, '\n') != NULL);
	struct hk_jval *v3 = parse_str(pretty);
	REQUIRE(v3);
	hk_autofree char *from_pretty = write_value(v3, 0);
	CHECK_STR_EQ(second, from_pretty);
	hk_jval_free(v);
	hk_jval_free(v2);
	hk_jval_free(v3);

	/* Hand-written input: whitespace dropped, key order kept (not sorted). */
	struct hk_jval *h = parse_str(" { \"z\" : [ 1 , 2.50 , \"\\u0041\" ] ,\n\t\"a\" : { } } ");
	REQUIRE(h);
	hk_autofree char *out = write_value(h, 0);
	CHECK_STR_EQ("{\"z\":[1,2.5,\"A\"],\"a\":{}}", out);
	hk_jval_free(h);
}

TEST(value_nested_inside_a_writer)
{
	struct hk_jval *v = parse_str("{\"k\":[1,{\"x\":null}]}");
	REQUIRE(v);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_arr_begin(&j);
	hk_json_int(&j, 0);
	hk_json_value(&j, v);
	hk_json_value(&j, hk_jobj_get(v, "k"));
	hk_json_arr_end(&j);
	CHECK_STR_EQ("[0,{\"k\":[1,{\"x\":null}]},[1,{\"x\":null}]]", hk_buf_str(&b));
	hk_buf_free(&b);
	hk_jval_free(v);
}
