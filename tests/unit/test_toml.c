/* The TOML subset parser: what it accepts means what TOML 1.0 says; what it rejects is named
 * at the exact FILE:LINE:COL.  Every rejection is paired with the corrected text loading. */
#include "harness.h"

#include "core/formats/toml.h"

static struct hk_error err;

static struct hk_toml_table *parse(const char *text)
{
	struct hk_toml_table *root = NULL;
	hk_error_clear(&err);
	if (hk_toml_parse(text, strlen(text), "t.toml", &root, &err) < 0)
		return NULL;
	return root;
}

/* Parses `bad`, which must fail with a message starting "t.toml:LINE:COL: " and containing
 * `fragment`; then parses `good` (the corrected text), which must load. */
static void check_rejects(const char *bad, const char *where, const char *fragment,
			  const char *good, int line)
{
	struct hk_toml_table *root = NULL;
	hk_error_clear(&err);
	int r = hk_toml_parse(bad, strlen(bad), "t.toml", &root, &err);
	if (r >= 0 || root != NULL) {
		HK_FAIL_AT("(line %d) accepted: %s", line, bad);
		hk_toml_free(root);
	} else {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "t.toml:%s: ", where);
		if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
			HK_FAIL_AT("(line %d) expected position %s, got: %s", line, where, err.msg);
		if (!strstr(err.msg, fragment))
			HK_FAIL_AT("(line %d) message lacks \"%s\": %s", line, fragment, err.msg);
		CHECK_EQ_INT(-22, r);
	}
	hk_error_clear(&err);
	root = NULL;
	r = hk_toml_parse(good, strlen(good), "t.toml", &root, &err);
	if (r < 0 || !root)
		HK_FAIL_AT("(line %d) the corrected text was rejected: %s", line, err.msg);
	hk_toml_free(root);
}
#define REJECTS(bad, where, fragment, good) check_rejects(bad, where, fragment, good, __LINE__)

/* The value of `key`; a missing key fails and stops the current test. */
static const struct hk_toml_value *get(const struct hk_toml_table *t, const char *key)
{
	const struct hk_toml_entry *e = hk_toml_find(t, key);
	if (!e) {
		HK_FAIL_AT("key '%s' not found", key);
		longjmp(hk_test_abort, 1);
	}
	return &e->value;
}

static const char *str(const struct hk_toml_table *t, const char *key)
{
	const struct hk_toml_value *v = get(t, key);
	return v->kind == HK_TOML_STRING ? v->string : NULL;
}

TEST(tables_keys_and_positions)
{
	struct hk_toml_table *root = parse("# top\n"
					   "name = \"zlib\"   # trailing comment\n"
					   "\"quoted key\" = 'lit'\n"
					   "\n"
					   "  [source]\n"
					   "dir=\"src\"\n"
					   "[ phases . sub ]\n"
					   "x = true\n");
	REQUIRE(root);
	REQUIRE(root->n_entries == 4);
	CHECK_STR_EQ("name", root->entries[0].key);
	CHECK_STR_EQ("quoted key", root->entries[1].key);
	CHECK_STR_EQ("source", root->entries[2].key);
	CHECK_STR_EQ("phases", root->entries[3].key);
	CHECK_STR_EQ("zlib", str(root, "name"));
	CHECK_STR_EQ("lit", str(root, "quoted key"));
	const struct hk_toml_value *name = get(root, "name");
	CHECK_EQ_INT(2, name->line);
	CHECK_EQ_INT(8, name->col);
	CHECK_EQ_INT(2, root->entries[0].line);
	CHECK_EQ_INT(1, root->entries[0].col);

	const struct hk_toml_value *source = get(root, "source");
	REQUIRE(source && source->kind == HK_TOML_TABLE);
	CHECK_EQ_INT(5, source->line);
	CHECK_EQ_INT(4, source->col);
	CHECK(source->table->defined);
	CHECK_STR_EQ("src", str(source->table, "dir"));
	CHECK_EQ_INT(6, source->table->entries[0].line);

	const struct hk_toml_value *phases = get(root, "phases");
	REQUIRE(phases && phases->kind == HK_TOML_TABLE);
	CHECK(!phases->table->defined);   /* only implied by [phases.sub] */
	const struct hk_toml_value *sub = get(phases->table, "sub");
	REQUIRE(sub && sub->kind == HK_TOML_TABLE);
	CHECK_EQ_INT(7, sub->line);
	CHECK_EQ_INT(12, sub->col);
	const struct hk_toml_value *x = get(sub->table, "x");
	REQUIRE(x && x->kind == HK_TOML_BOOL);
	CHECK(x->boolean);
	CHECK(hk_toml_find(root, "dir") == NULL);
	hk_toml_free(root);
}

TEST(basic_string_escapes)
{
	struct hk_toml_table *root =
		parse("a = \"q\\\" b\\\\ n\\n t\\t r\\r b\\b f\\f\"\n"
		      "u = \"\\u00e9\\U0001F600\\u0001\"\n"
		      "raw = \"\xc3\xa9 tab\there\"\n");
	REQUIRE(root);
	CHECK_STR_EQ("q\" b\\ n\n t\t r\r b\b f\f", str(root, "a"));
	CHECK_STR_EQ("\xc3\xa9\xf0\x9f\x98\x80\x01", str(root, "u"));
	CHECK_STR_EQ("\xc3\xa9 tab\there", str(root, "raw"));
	CHECK_EQ_INT(strlen("\xc3\xa9\xf0\x9f\x98\x80\x01"), get(root, "u")->string_len);
	hk_toml_free(root);

	REJECTS("a = \"C:\\x\"\n", "1:8", "invalid escape", "a = \"C:\\\\x\"\n");
	REJECTS("a = \"\\e\"\n", "1:6", "invalid escape", "a = \"\\\\e\"\n");
	REJECTS("a = \"\\u12\"\n", "1:6", "exactly 4 hexadecimal digits", "a = \"\\u1234\"\n");
	REJECTS("a = \"\\U0011FFFF\"\n", "1:6", "not a Unicode scalar value",
		"a = \"\\U0010FFFF\"\n");
	REJECTS("a = \"\\uD800\"\n", "1:6", "not a Unicode scalar value", "a = \"\\uE000\"\n");
	REJECTS("a = \"x\\u0000\"\n", "1:7", "NUL", "a = \"x\\u0001\"\n");
	/* A line-ending backslash is only for multi-line strings. */
	REJECTS("a = \"x \\\n\"\n", "1:8", "invalid escape", "a = \"\"\"x \\\n\"\"\"\n");
}

TEST(literal_strings_take_no_escapes)
{
	struct hk_toml_table *root = parse("p = 'C:\\Users\\x \"q\"'\n"
					   "e = ''\n");
	REQUIRE(root);
	CHECK_STR_EQ("C:\\Users\\x \"q\"", str(root, "p"));
	CHECK_STR_EQ("", str(root, "e"));
	hk_toml_free(root);
	REJECTS("p = 'it's'\n", "1:9", "expected the end of the line", "p = \"it's\"\n");
}

TEST(raw_control_characters_and_bad_utf8)
{
	REJECTS("a = \"x\x01y\"\n", "1:7", "raw control character U+0001", "a = \"x\\u0001y\"\n");
	REJECTS("a = 'x\x1by'\n", "1:7", "U+001B", "a = 'xy'\n");
	REJECTS("# comment \x7f\n", "1:11", "U+007F", "# comment\n");
	/* A newline inside a single-line string: unterminated, reported at the opening quote. */
	REJECTS("a = 1\nb = \"x\ny\"\n", "2:5", "unterminated string", "a = 1\nb = \"x\\ny\"\n");
	/* Columns count characters: "é" is one column although it is two bytes. */
	REJECTS("a = \"\xc3\xa9\xc3\xa9\xff\"\n", "1:8", "invalid UTF-8: byte 0xFF",
		"a = \"\xc3\xa9\xc3\xa9\"\n");
	REJECTS("a = \"\xc0\xaf\"\n", "1:6", "cannot start a character", "a = \"/\"\n");
	REJECTS("a = \"\xe0\x80\xaf\"\n", "1:6", "an overlong form", "a = \"/\"\n");
	REJECTS("a = \"\xf4\x90\x80\x80\"\n", "1:6", "no Unicode scalar value",
		"a = \"\xf4\x8f\xbf\xbf\"\n");   /* past U+10FFFF; U+10FFFF itself is fine */
	REJECTS("a = \"\xed\xa0\x80\"\n", "1:6", "no Unicode scalar value", "a = \"x\"\n"); /* surrogate */
	REJECTS("a = \"\xe2\x82\"\n", "1:6", "continuation bytes", "a = \"\xe2\x82\xac\"\n");
	REJECTS("a = 'x'\n\xe2\x82", "2:1", "ends inside a character", "a = 'x'\n");
	REJECTS("a = 1\rb = 2\n", "1:6", "carriage return", "a = 1\r\nb = 2\r\n");
}

TEST(multi_line_basic_strings)
{
	struct hk_toml_table *root =
		parse("cmd = \"\"\"\n"
		      "./configure \\\n"
		      "    --prefix=/usr \\   \n"
		      "\n"
		      "    --shared\n"
		      "make \"all\" \"\"x\"\"\"\n"
		      "q = \"\"\"ends with quotes\"\"\"\"\"\n"
		      "nl = \"\"\"no trim here\n"
		      "  kept\"\"\"\n"
		      "crlf = \"\"\"\r\none\r\ntwo\"\"\"\n"
		      "esc = \"\"\"tab\\tand \\u00e9\"\"\"\n");
	REQUIRE(root);
	CHECK_STR_EQ("./configure --prefix=/usr --shared\nmake \"all\" \"\"x", str(root, "cmd"));
	CHECK_STR_EQ("ends with quotes\"\"", str(root, "q"));
	CHECK_STR_EQ("no trim here\n  kept", str(root, "nl"));
	CHECK_STR_EQ("one\ntwo", str(root, "crlf"));
	CHECK_STR_EQ("tab\tand \xc3\xa9", str(root, "esc"));
	/* Line numbers keep counting through the string. */
	const struct hk_toml_value *q = get(root, "q");
	CHECK_EQ_INT(7, q->line);
	hk_toml_free(root);

	REJECTS("a = 1\nb = \"\"\"\nnever closed\n\"\"\n", "2:5", "unterminated multi-line string",
		"a = 1\nb = \"\"\"\nclosed\n\"\"\"\n");
	/* Six quotes: five close the string (two of them content), the sixth is stray. */
	REJECTS("a = \"\"\"x\"\"\"\"\"\"\n", "1:14", "expected the end of the line",
		"a = \"\"\"x\"\"\"\"\"\n");
	REJECTS("a = \"\"\"x \\ y\"\"\"\n", "1:10", "line-ending backslash",
		"a = \"\"\"x \\\\ y\"\"\"\n");
	REJECTS("\"\"\"k\"\"\" = 1\n", "1:1", "cannot be a key", "\"k\" = 1\n");
}

TEST(multi_line_literal_strings)
{
	struct hk_toml_table *root = parse("re = '''\n"
					   "\\d+ 'one' ''two''\n"
					   "  no \\escapes\\n'''\n"
					   "tail = '''x'''''\n");
	REQUIRE(root);
	CHECK_STR_EQ("\\d+ 'one' ''two''\n  no \\escapes\\n", str(root, "re"));
	CHECK_STR_EQ("x''", str(root, "tail"));
	hk_toml_free(root);
	REJECTS("a = '''\nopen\n", "1:5", "no closing '''", "a = '''\nopen'''\n");
	REJECTS("a = 'open\n", "1:5", "unterminated literal string", "a = 'open'\n");
}

TEST(integers)
{
	struct hk_toml_table *root = parse("a = 0\nb = -0\nc = +42\nd = 9223372036854775807\n"
					   "e = -9223372036854775808\nf = 17 # c\n");
	REQUIRE(root);
	CHECK_EQ_INT(0, get(root, "a")->integer);
	CHECK_EQ_INT(HK_TOML_INTEGER, get(root, "a")->kind);
	CHECK_EQ_INT(0, get(root, "b")->integer);
	CHECK_EQ_INT(42, get(root, "c")->integer);
	CHECK(get(root, "d")->integer == INT64_MAX);
	CHECK(get(root, "e")->integer == INT64_MIN);
	CHECK_EQ_INT(17, get(root, "f")->integer);
	hk_toml_free(root);

	REJECTS("a = 007\n", "1:5", "leading zeros", "a = 7\n");
	REJECTS("a = 9223372036854775808\n", "1:5", "out of range", "a = 9223372036854775807\n");
	REJECTS("a = -9223372036854775809\n", "1:5", "out of range", "a = -9223372036854775808\n");
	REJECTS("a = 1_000\n", "1:5", "underscores", "a = 1000\n");
	REJECTS("a = 0x1f\n", "1:5", "hexadecimal", "a = 31\n");
	REJECTS("a = 1.5\n", "1:5", "floating-point numbers are not supported in harkaq recipes",
		"a = \"1.5\"\n");
	REJECTS("a = 1e3\n", "1:5", "floating-point", "a = 1000\n");
	REJECTS("a = -inf\n", "1:5", "floating-point", "a = -1\n");
	REJECTS("a = 12z\n", "1:5", "invalid integer", "a = 12\n");
}

TEST(booleans_and_bare_words)
{
	struct hk_toml_table *root = parse("t = true\nf = false\n");
	REQUIRE(root);
	CHECK(get(root, "t")->boolean);
	CHECK(!get(root, "f")->boolean);
	CHECK_EQ_INT(HK_TOML_BOOL, get(root, "f")->kind);
	hk_toml_free(root);
	REJECTS("t = True\n", "1:5", "strings must be quoted", "t = true\n");
	REJECTS("t = truex\n", "1:5", "found 'truex'", "t = true\n");
	REJECTS("name = zlib\n", "1:8", "strings must be quoted", "name = \"zlib\"\n");
	REJECTS("name =\n", "1:7", "found the end of the line", "name = ''\n");
	REJECTS("name = \"a\"\nv =", "2:4", "found the end of the file", "name = \"a\"\nv = 1");
}

TEST(arrays_over_lines)
{
	struct hk_toml_table *root = parse("build = [\n"
					   "  \"make\",   # the build tool\n"
					   "  # a whole-line comment\n"
					   "  'binutils',\n"
					   "\n"
					   "  \"gcc-12\", ]\n"
					   "empty = [ ]\n"
					   "nested = [[1, 2], [\"a\"], []]\n"
					   "mixed = [1, 'x', true]\n"
					   "after = 1\n");
	REQUIRE(root);
	const struct hk_toml_value *b = get(root, "build");
	REQUIRE(b && b->kind == HK_TOML_ARRAY);
	REQUIRE(b->n_items == 3);
	CHECK_STR_EQ("make", b->items[0].string);
	CHECK_STR_EQ("binutils", b->items[1].string);
	CHECK_STR_EQ("gcc-12", b->items[2].string);
	CHECK_EQ_INT(4, b->items[1].line);
	CHECK_EQ_INT(3, b->items[1].col);
	CHECK_EQ_INT(6, b->items[2].line);
	CHECK_EQ_INT(0, get(root, "empty")->n_items);
	const struct hk_toml_value *n = get(root, "nested");
	REQUIRE(n->n_items == 3);
	CHECK_EQ_INT(2, n->items[0].n_items);
	CHECK_EQ_INT(2, n->items[0].items[1].integer);
	CHECK_STR_EQ("a", n->items[1].items[0].string);
	CHECK_EQ_INT(0, n->items[2].n_items);
	const struct hk_toml_value *m = get(root, "mixed");
	CHECK_EQ_INT(HK_TOML_INTEGER, m->items[0].kind);
	CHECK_EQ_INT(HK_TOML_STRING, m->items[1].kind);
	CHECK_EQ_INT(HK_TOML_BOOL, m->items[2].kind);
	CHECK_EQ_INT(10, get(root, "after")->line);
	hk_toml_free(root);

	REJECTS("a = [\n  \"x\"\n  \"y\"\n]\n", "3:3", "expected ',' or ']' in the array opened at 1:5",
		"a = [\n  \"x\",\n  \"y\"\n]\n");
	REJECTS("a = 0\nb = [\"x\",\n", "2:5", "unterminated array", "a = 0\nb = [\"x\",\n]");
	REJECTS("a = [, 1]\n", "1:6", "found ','", "a = [1]\n");
	REJECTS("a = [1,,]\n", "1:8", "found ','", "a = [1,]\n");
}

TEST(duplicate_keys_and_table_redefinition)
{
	REJECTS("name = 'a'\nversion = '1'\nname = 'b'\n", "3:1",
		"duplicate key 'name' (already defined as a string at 1:1)",
		"name = 'a'\nversion = '1'\n");
	/* A quoted key is the same key as its bare spelling. */
	REJECTS("[t]\nk = 1\n\"k\" = 2\n", "3:1", "duplicate key 'k'", "[t]\nk = 1\n\"k2\" = 2\n");
	REJECTS("[deps]\nbuild = []\n[phases]\n[deps]\n", "4:2",
		"the table [deps] is already defined at 1:2", "[deps]\nbuild = []\n[phases]\n");
	REJECTS("a = 1\n[a]\n", "2:2", "the key 'a' is already an integer (at 1:1)", "b = 1\n[a]\n");
	REJECTS("[x]\na = 'v'\n[x.a]\n", "3:4", "cannot define the table [x.a]", "[x]\nb = 'v'\n[x.a]\n");
	REJECTS("[x.y]\n[x]\ny = 1\n", "3:1", "duplicate key 'y' (already defined as a table at 1:4)",
		"[x.y]\n[x]\nz = 1\n");
	/* Positive: [a.b] then [a] is valid TOML (a was only implied), once. */
	struct hk_toml_table *root = parse("[a.b]\nk = 1\n[a]\nj = 2\n");
	REQUIRE(root);
	const struct hk_toml_value *a = get(root, "a");
	REQUIRE(a && a->kind == HK_TOML_TABLE && a->table->defined);
	CHECK_EQ_INT(3, a->line);
	CHECK_EQ_INT(2, get(a->table, "j")->integer);
	CHECK_EQ_INT(1, get(get(a->table, "b")->table, "k")->integer);
	hk_toml_free(root);
	REJECTS("[a.b]\n[a]\n[a]\n", "3:2", "already defined at 2:2", "[a.b]\n[a]\n");
}

TEST(one_key_per_line)
{
	REJECTS("a = 1 b = 2\n", "1:7", "expected the end of the line after a value, found 'b'",
		"a = 1\nb = 2\n");
	REJECTS("a = \"x\" \"y\"\n", "1:9", "found '\"'", "a = \"x y\"\n");
	REJECTS("[t] k = 1\n", "1:5", "after a table header", "[t]\nk = 1\n");
	REJECTS("k 1\n", "1:3", "expected '=' after the key 'k', found '1'", "k = 1\n");
	REJECTS("= 1\n", "1:1", "expected a key", "k = 1\n");
	REJECTS("k = 1\n[t\nx = 2\n", "2:3", "expected '.' or ']' in the table header",
		"k = 1\n[t]\nx = 2\n");
	REJECTS("[]\n", "1:2", "expected a key", "[t]\n");
}

TEST(unsupported_features_say_so)
{
	REJECTS("a = { b = 1 }\n", "1:5", "inline tables ({ ... }) are not supported in harkaq recipes",
		"[a]\nb = 1\n");
	REJECTS("[[bin]]\nname = 'x'\n", "1:1", "arrays of tables ([[ ... ]]) are not supported",
		"[bin]\nname = 'x'\n");
	REJECTS("a.b = 1\n", "1:2", "dotted keys are not supported in harkaq recipes",
		"[a]\nb = 1\n");
	REJECTS("d = 1979-05-27\n", "1:5", "dates and times are not supported in harkaq recipes",
		"d = \"1979-05-27\"\n");
	REJECTS("t = 07:32:00\n", "1:5", "dates and times", "t = \"07:32:00\"\n");
}

TEST(crlf_and_positions_after_multiline_values)
{
	struct hk_toml_table *root = parse("a = [\r\n  1,\r\n  2\r\n]\r\nb = 'x'\r\n");
	REQUIRE(root);
	CHECK_EQ_INT(2, get(root, "a")->n_items);
	CHECK_EQ_INT(5, get(root, "b")->line);
	CHECK_EQ_INT(5, get(root, "b")->col);
	hk_toml_free(root);
	REJECTS("a = '''\nx\n'''\nb = 1 2\n", "4:7", "expected the end of the line",
		"a = '''\nx\n'''\nb = 12\n");
}

TEST(empty_and_comment_only_documents)
{
	struct hk_toml_table *root = parse("");
	REQUIRE(root);
	CHECK_EQ_INT(0, root->n_entries);
	hk_toml_free(root);
	root = parse("# only a comment");
	REQUIRE(root);
	CHECK_EQ_INT(0, root->n_entries);
	hk_toml_free(root);
	/* Text after the end is not silently ignored: the parser uses the given length only. */
	const char text[] = "a = 1\nb = ";
	struct hk_toml_table *t = NULL;
	CHECK(hk_toml_parse(text, 5, "t.toml", &t, &err) == 0);
	REQUIRE(t);
	CHECK_EQ_INT(1, t->n_entries);
	hk_toml_free(t);
	CHECK(hk_toml_parse(text, sizeof(text) - 1, "t.toml", &t, &err) < 0);
	CHECK(t == NULL);
	CHECK_CONTAINS(err.msg, "t.toml:2:5:");
}

/* Byte offsets, for an editor that splices the text (core/policy/recipe_edit.h): a value's
 * bytes, an entry's key and the end of its line, a table's header line. */
TEST(byte_offsets_of_values_entries_and_headers)
{
	const char *text = "a = 1\n  [deps]  # x\nbuild = [\n  \"b\",  # c\n]  # d\nrt = 'x'";
	struct hk_toml_table *root = parse(text);
	REQUIRE(root);
	const struct hk_toml_entry *deps = hk_toml_find(root, "deps");
	REQUIRE(deps && deps->value.kind == HK_TOML_TABLE);
	const struct hk_toml_table *t = deps->value.table;
	CHECK_EQ_INT(6, t->header_start);
	CHECK_EQ_INT(strchr(text, 'b') - text, t->header_end);
	const struct hk_toml_entry *b = hk_toml_find(t, "build");
	REQUIRE(b);
	CHECK_EQ_INT(t->header_end, b->key_start);
	size_t open = (size_t)(strchr(text, '[') - text);
	open = (size_t)(strchr(text + open + 1, '[') - text);
	CHECK_EQ_INT(open, b->value.start);
	CHECK_EQ_INT(strstr(text, "]  # d") - text + 1, b->value.end);
	CHECK_EQ_INT(strstr(text, "rt =") - text, b->line_end);
	REQUIRE(b->value.n_items == 1);
	CHECK_EQ_INT(strchr(text, '"') - text, b->value.items[0].start);
	CHECK_EQ_INT(strchr(text, '"') - text + 3, b->value.items[0].end);
	const struct hk_toml_entry *rt = hk_toml_find(t, "rt");
	REQUIRE(rt);
	/* The last line has no newline: its end is the text's. */
	CHECK_EQ_INT(strlen(text), rt->line_end);
	CHECK_EQ_INT(strlen(text), rt->value.end);
	CHECK_EQ_INT(0, root->header_start);
	hk_toml_free(root);
}
