/* The recipe editor (core/policy/recipe_edit.h): deps appended to [deps] build with every other
 * byte kept, on the layouts recipes are written in — a multi-line array with comments and a
 * trailing comma, one without it, an inline array, an empty one, [deps] without build, no
 * [deps] at all, literal strings, CRLF — and refused when the dep is declared already. */
#include "harness.h"

#include <errno.h>

#include "core/basic/buf.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_edit.h"

static struct hk_error err;

#define HEAD "name = \"zlib\"\nversion = \"1.2.13\"\n"
#define SRC "[source]\ndir = \"src\"\n"

/* Adds `specs` to `text`; returns the edited text (static buffer) or NULL with err set. */
static const char *edit(const char *text, const char *const *specs, size_t n)
{
	static struct hk_buf out = HK_BUF_INIT;
	hk_buf_reset(&out);
	hk_error_clear(&err);
	int rc = hk_recipe_edit_add_build_deps(text, strlen(text), "r.toml", specs, n, &out, &err);
	if (rc < 0)
		return NULL;
	return hk_buf_str(&out);
}

static const char *add1(const char *text, const char *spec)
{
	const char *const specs[] = { spec };
	const char *r = edit(text, specs, 1);
	if (!r)
		HK_FAIL_AT("editing failed: %s", err.msg);
	return r;
}

/* The catalogue's own layout (catalogue/zlib/recipe.toml): one item a line, comments after
 * items, a trailing comma, comments elsewhere in the file. */
TEST(multi_line_array_with_comments_gets_a_line_of_its_own)
{
	const char *before =
		"# zlib: the \"plain make\" shape\n"
		HEAD "\n" SRC "\n"
		"[deps]\n"
		"build = [\n"
		"  \"gcc-12\",     # the compiler\n"
		"  \"libc6-dev\",\n"
		"]\n"
		"\n"
		"[phases]\n"
		"# configure is zlib's own script\n"
		"compile = \"make -j2\"\n";
	const char *after =
		"# zlib: the \"plain make\" shape\n"
		HEAD "\n" SRC "\n"
		"[deps]\n"
		"build = [\n"
		"  \"gcc-12\",     # the compiler\n"
		"  \"libc6-dev\",\n"
		"  \"make\",\n"
		"]\n"
		"\n"
		"[phases]\n"
		"# configure is zlib's own script\n"
		"compile = \"make -j2\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
}

TEST(a_comment_on_the_last_line_stays_on_it)
{
	const char *before = HEAD SRC "[deps]\nbuild = [\n    \"gcc-12\",\n    \"coreutils\",  # tee\n]\n"
			     "[phases]\ncompile = \"make\"\n";
	const char *after = HEAD SRC "[deps]\nbuild = [\n    \"gcc-12\",\n    \"coreutils\",  # tee\n"
			    "    \"make\",\n]\n[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
}

TEST(multi_line_array_without_trailing_comma_keeps_none)
{
	const char *before = HEAD SRC "[deps]\nbuild = [\n\t\"gcc-12\",\n\t\"libc6-dev\"  # headers\n]\n"
			     "[phases]\ncompile = \"make\"\n";
	const char *after = HEAD SRC "[deps]\nbuild = [\n\t\"gcc-12\",\n\t\"libc6-dev\",  # headers\n"
			    "\t\"make\"\n]\n[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
}

TEST(aligned_array_with_the_bracket_on_the_last_line)
{
	const char *before = HEAD SRC "[deps]\nbuild = [\"gcc-12\",\n         \"libc6-dev\"]\n"
			     "[phases]\ncompile = \"make\"\n";
	const char *after = HEAD SRC "[deps]\nbuild = [\"gcc-12\",\n         \"libc6-dev\",\n"
			    "         \"make\"]\n[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
}

TEST(inline_array_gets_the_item_after_its_last)
{
	const char *before = HEAD SRC "[deps]\nbuild = [\"gcc-12\", \"libc6-dev\"]  # the toolchain\n"
			     "[phases]\ncompile = \"make\"\n";
	const char *after = HEAD SRC "[deps]\nbuild = [\"gcc-12\", \"libc6-dev\", \"make\"]  # the "
			    "toolchain\n[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
	/* A trailing comma stays last. */
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\"gcc-12\", \"make\",]\n[phases]\ncompile = \"make\"\n",
		     add1(HEAD SRC "[deps]\nbuild = [\"gcc-12\",]\n[phases]\ncompile = \"make\"\n",
			  "make"));
}

TEST(empty_arrays_flat_or_spread)
{
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\"make\"]\n[phases]\ncompile = \"make\"\n",
		     add1(HEAD SRC "[deps]\nbuild = []\n[phases]\ncompile = \"make\"\n", "make"));
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\"make\"]\n[phases]\ncompile = \"make\"\n",
		     add1(HEAD SRC "[deps]\nbuild = [ ]\n[phases]\ncompile = \"make\"\n", "make"));
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [  # none yet\n  \"make\",\n]\n[phases]\n"
			      "compile = \"make\"\n",
		     add1(HEAD SRC "[deps]\nbuild = [  # none yet\n]\n[phases]\ncompile = \"make\"\n",
			  "make"));
}

TEST(deps_without_build_gets_the_line_after_its_header)
{
	const char *before = HEAD SRC "[deps]  # what it needs\nruntime = [\"zlib1g\"]\n"
			     "[phases]\ncompile = \"make\"\n";
	const char *after = HEAD SRC "[deps]  # what it needs\nbuild = [\"make\"]\nruntime = "
			    "[\"zlib1g\"]\n[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
}

TEST(no_deps_table_goes_before_phases_and_its_comments)
{
	/* A blank line before [phases]: the new table is spaced the same. */
	const char *before = HEAD "\n" SRC "\n# how it is built\n[phases]\ncompile = \"make\"\n";
	const char *after = HEAD "\n" SRC "\n[deps]\nbuild = [\"make\"]\n\n# how it is built\n"
			    "[phases]\ncompile = \"make\"\n";
	CHECK_STR_EQ(after, add1(before, "make"));
	/* None: none added. */
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\"make\"]\n[phases]\ncompile = \"make\"\n",
		     add1(HEAD SRC "[phases]\ncompile = \"make\"\n", "make"));
	/* [phases] first in the file, [source] after it: before [phases] still. */
	CHECK_STR_EQ(HEAD "[deps]\nbuild = [\"make\"]\n[phases]\ncompile = \"make\"\n" SRC,
		     add1(HEAD "[phases]\ncompile = \"make\"\n" SRC, "make"));
}

TEST(literal_strings_are_answered_in_kind)
{
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = ['gcc-12', 'make']\n[phases]\ncompile = \"make\"\n",
		     add1(HEAD SRC "[deps]\nbuild = ['gcc-12']\n[phases]\ncompile = \"make\"\n",
			  "make"));
}

TEST(crlf_files_get_crlf_lines)
{
	const char *before = "name = \"zlib\"\r\nversion = \"1\"\r\n[source]\r\ndir = \"src\"\r\n"
			     "[deps]\r\nbuild = [\r\n  \"gcc-12\",\r\n  \"libc6-dev\",\r\n]\r\n"
			     "[phases]\r\ncompile = \"make\"\r\n";
	const char *after = "name = \"zlib\"\r\nversion = \"1\"\r\n[source]\r\ndir = \"src\"\r\n"
			    "[deps]\r\nbuild = [\r\n  \"gcc-12\",\r\n  \"libc6-dev\",\r\n  \"make\",\r\n]\r\n"
			    "[phases]\r\ncompile = \"make\"\r\n";
	CHECK_STR_EQ(after, add1(before, "make"));
	CHECK_STR_EQ("name = \"zlib\"\r\nversion = \"1\"\r\n[source]\r\ndir = \"src\"\r\n"
		     "[deps]\r\nbuild = [\"make\"]\r\n[phases]\r\ncompile = \"make\"\r\n",
		     add1("name = \"zlib\"\r\nversion = \"1\"\r\n[source]\r\ndir = \"src\"\r\n"
			  "[phases]\r\ncompile = \"make\"\r\n", "make"));
}

TEST(several_deps_in_order)
{
	const char *const specs[] = { "make", "binutils", "gcc=4:12.2.0-3" };
	const char *r = edit(HEAD SRC "[deps]\nbuild = [\n  \"gcc-12\",\n]\n[phases]\ncompile = \"make\"\n",
			     specs, 3);
	REQUIRE(r);
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\n  \"gcc-12\",\n  \"make\",\n  \"binutils\",\n"
			      "  \"gcc=4:12.2.0-3\",\n]\n[phases]\ncompile = \"make\"\n", r);
	/* From nothing: the table, then the others after its one item. */
	r = edit(HEAD SRC "[phases]\ncompile = \"make\"\n", specs, 2);
	REQUIRE(r);
	CHECK_STR_EQ(HEAD SRC "[deps]\nbuild = [\"make\", \"binutils\"]\n[phases]\ncompile = \"make\"\n",
		     r);
}

/* The result parses to the recipe with the deps appended: the order is the merge order. */
TEST(the_result_is_the_recipe_with_the_deps_appended)
{
	const char *text = add1(HEAD SRC "[deps]\nbuild = [\"gcc-12\", \"libc6-dev\"]\n[phases]\n"
				       "compile = \"make\"\n", "make");
	REQUIRE(text);
	struct hk_recipe r;
	REQUIRE(hk_recipe_parse(text, strlen(text), "r.toml", "/x", &r, &err) == 0);
	CHECK_EQ_INT(3, r.n_build_deps);
	CHECK_STR_EQ("gcc-12", r.build_deps[0].spec);
	CHECK_STR_EQ("make", r.build_deps[2].spec);
	hk_recipe_free(&r);
}

TEST(a_dep_declared_already_or_invalid_is_refused_and_nothing_made)
{
	const char *text = HEAD SRC "[deps]\nbuild = [\"gcc-12\", \"make=4.3-4.1\"]\n[phases]\n"
				    "compile = \"make\"\n";
	const char *const dup[] = { "make" };
	struct hk_buf out = HK_BUF_INIT;
	hk_buf_puts(&out, "kept");
	CHECK_EQ_INT(-EEXIST, hk_recipe_edit_add_build_deps(text, strlen(text), "r.toml", dup, 1,
							   &out, &err));
	CHECK_CONTAINS(err.msg, "r.toml: cannot declare make: duplicate dependency \"make\"");
	CHECK_STR_EQ("kept", hk_buf_str(&out));
	/* The control: another name is added. */
	const char *const other[] = { "binutils" };
	CHECK_EQ_INT(0, hk_recipe_edit_add_build_deps(text, strlen(text), "r.toml", other, 1,
						     &out, &err));
	CHECK_CONTAINS(hk_buf_str(&out), "\"make=4.3-4.1\", \"binutils\"]");
	const char *const bad[] = { "not a name" };
	CHECK_EQ_INT(-EINVAL, hk_recipe_edit_add_build_deps(text, strlen(text), "r.toml", bad, 1,
							   &out, &err));
	CHECK_CONTAINS(err.msg, "invalid dependency");
	hk_buf_free(&out);
}

TEST(a_malformed_recipe_is_refused_with_its_position)
{
	const char *text = HEAD SRC "[deps]\nbuild = [\"gcc-12\"\n[phases]\n";
	const char *const specs[] = { "make" };
	CHECK(edit(text, specs, 1) == NULL);
	CHECK_CONTAINS(err.msg, "r.toml:");
}
