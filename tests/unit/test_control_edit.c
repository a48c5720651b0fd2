/* debian/control edited in its own layout (core/debian/control_edit.h), on control files as
 * maintainers write them: wrapped under the value (wrap-and-sort's default), one line, -ast,
 * with comments, with alternatives, with Build-Depends-Indep and -Arch, unsorted, in no layout
 * at all; items added, dropped, a field made; and what is refused. */
#include "harness.h"

#include <errno.h>

#include "core/basic/buf.h"
#include "core/debian/control_edit.h"

static struct hk_error err;
static struct hk_control_layout layout;

#define BIN "\nPackage: hkcalc\nArchitecture: any\nDepends: ${misc:Depends}, ${shlibs:Depends}\n" \
	    "Description: a calculator\n harkaq's test.\n"
#define HEAD "Source: hkcalc\nSection: misc\nPriority: optional\nMaintainer: A B <a@b.invalid>\n"
#define TAIL "Standards-Version: 4.6.2\nRules-Requires-Root: no\n"

static const char *edit_n(const char *text, const struct hk_control_change *ch, size_t n)
{
	static struct hk_buf out = HK_BUF_INIT;
	hk_buf_reset(&out);
	hk_error_clear(&err);
	if (hk_control_edit(text, strlen(text), "debian/control", ch, n, &out, &layout, &err) < 0)
		return NULL;
	return hk_buf_str(&out);
}

static const char *add(const char *text, const char *field, const char *item)
{
	const struct hk_control_change ch = { HK_CONTROL_ADD, field, item };
	const char *r = edit_n(text, &ch, 1);
	if (!r)
		HK_FAIL_AT("adding %s failed: %s", item, err.msg);
	return r;
}

static const char *drop(const char *text, const char *field, const char *item)
{
	const struct hk_control_change ch = { HK_CONTROL_DROP, field, item };
	const char *r = edit_n(text, &ch, 1);
	if (!r)
		HK_FAIL_AT("dropping %s failed: %s", item, err.msg);
	return r;
}

/* wrap-and-sort (no option) on a field past 79 columns: one item a line under the value. */
#define WRAPPED                                                                  \
	HEAD "Build-Depends: bison,\n"                                           \
	     "               debhelper-compat (= 13),\n"                         \
	     "               libssl-dev | libressl-dev,\n"                       \
	     "               zlib1g-dev\n" TAIL BIN

TEST(wrapped_under_the_value_gets_a_line_where_the_order_puts_it)
{
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               libncurses-dev,\n"
			  "               libssl-dev | libressl-dev,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     add(WRAPPED, "Build-Depends", "libncurses-dev"));
	CHECK_EQ_INT(HK_CONTROL_SORTED, layout.order);
	CHECK(!layout.wrap_always && !layout.short_indent && !layout.trailing_comma);
	/* Depends is one line, and fits: the file is wrap-and-sort's, without options. */
	CHECK(layout.wrap_and_sort);
	char opts[8];
	hk_control_layout_options(&layout, opts);
	CHECK_STR_EQ("", opts);
	/* Last: the item before it gains the comma; first: the field line is its. */
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               libssl-dev | libressl-dev,\n"
			  "               zlib1g-dev,\n"
			  "               zstd\n" TAIL BIN,
		     add(WRAPPED, "Build-Depends", "zstd"));
	CHECK_STR_EQ(HEAD "Build-Depends: autoconf,\n"
			  "               bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               libssl-dev | libressl-dev,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     add(WRAPPED, "Build-Depends", "autoconf"));
}

TEST(one_line_stays_one_line_until_past_79_columns)
{
	const char *one = HEAD "Build-Depends: bison, debhelper-compat (= 13)\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: bison, debhelper-compat (= 13), libncurses-dev\n" TAIL BIN,
		     add(one, "Build-Depends", "libncurses-dev"));
	CHECK(layout.wrap_and_sort);
	/* 13 + (2+5) + (2+23) + (2+14) + (2+23) = 86 > 79: wrapped as wrap-and-sort does. */
	const char *two = HEAD "Build-Depends: bison, debhelper-compat (= 13), libncurses-dev\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               libncurses-dev,\n"
			  "               libreadline-dev (>= 8)\n" TAIL BIN,
		     add(two, "Build-Depends", "libreadline-dev (>= 8)"));
}

/* wrap-and-sort -ast: every relation field wrapped, one space, a trailing comma. */
#define AST                                                                    \
	HEAD "Build-Depends:\n"                                                \
	     " bison,\n"                                                       \
	     " debhelper-compat (= 13),\n"                                     \
	     " zlib1g-dev,\n"                                                  \
	     "Build-Depends-Indep:\n"                                          \
	     " python3-sphinx,\n" TAIL                                         \
	     "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n ${shlibs:Depends},\n" \
	     "Description: a calculator\n harkaq's test.\n"

TEST(ast_layout_is_read_and_kept)
{
	const char *r = add(AST, "Build-Depends", "libncurses-dev");
	char opts[8];
	hk_control_layout_options(&layout, opts);
	CHECK_STR_EQ("-ast", opts);
	CHECK(layout.wrap_and_sort);
	CHECK_STR_EQ(HEAD "Build-Depends:\n"
			  " bison,\n"
			  " debhelper-compat (= 13),\n"
			  " libncurses-dev,\n"
			  " zlib1g-dev,\n"
			  "Build-Depends-Indep:\n"
			  " python3-sphinx,\n" TAIL
			  "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n"
			  " ${shlibs:Depends},\nDescription: a calculator\n harkaq's test.\n",
		     r);
	CHECK_STR_EQ(HEAD "Build-Depends:\n"
			  " bison,\n"
			  " debhelper-compat (= 13),\n"
			  " zlib1g-dev,\n"
			  "Build-Depends-Indep:\n"
			  " doxygen,\n"
			  " python3-sphinx,\n" TAIL
			  "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n"
			  " ${shlibs:Depends},\nDescription: a calculator\n harkaq's test.\n",
		     add(AST, "Build-Depends-Indep", "doxygen"));
}

TEST(a_new_field_takes_the_files_layout)
{
	/* No Build-Depends at all: after Maintainer, as the file lays its fields out. */
	CHECK_STR_EQ(HEAD "Build-Depends: libncurses-dev\n" TAIL BIN,
		     add(HEAD TAIL BIN, "Build-Depends", "libncurses-dev"));
	const char *ast = HEAD TAIL "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n"
			  "Description: a calculator\n harkaq's test.\n";
	CHECK_STR_EQ(HEAD "Build-Depends:\n libncurses-dev,\n" TAIL
			  "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n"
			  "Description: a calculator\n harkaq's test.\n",
		     add(ast, "Build-Depends", "libncurses-dev"));
	/* -Indep after Build-Depends. */
	CHECK_STR_EQ(HEAD "Build-Depends: bison\nBuild-Depends-Indep: doxygen\n" TAIL BIN,
		     add(HEAD "Build-Depends: bison\n" TAIL BIN, "Build-Depends-Indep", "doxygen"));
	/* -Arch between them. */
	CHECK_STR_EQ(HEAD "Build-Depends: bison\nBuild-Depends-Arch: libfoo-dev\n"
			  "Build-Depends-Indep: doxygen\n" TAIL BIN,
		     add(HEAD "Build-Depends: bison\nBuild-Depends-Indep: doxygen\n" TAIL BIN,
			 "Build-Depends-Arch", "libfoo-dev"));
}

TEST(comments_stay_above_their_item)
{
	const char *text = "# the source\n" HEAD "Build-Depends: bison,\n"
			   "# the manual\n"
			   "               texinfo,\n"
			   "               zlib1g-dev\n" TAIL BIN;
	CHECK_STR_EQ("# the source\n" HEAD "Build-Depends: bison,\n"
		     "               libncurses-dev,\n"
		     "# the manual\n"
		     "               texinfo,\n"
		     "               zlib1g-dev\n" TAIL BIN,
		     add(text, "Build-Depends", "libncurses-dev"));
	CHECK(layout.comments);
	/* Dropped, its comment goes above the next item: the maintainer's words are kept. */
	CHECK_STR_EQ("# the source\n" HEAD "Build-Depends: bison,\n"
		     "# the manual\n"
		     "               zlib1g-dev\n" TAIL BIN,
		     drop(text, "Build-Depends", "texinfo"));
}

TEST(alternatives_are_one_item_sorted_by_their_text)
{
	const char *text = HEAD "Build-Depends: gawk | mawk, zlib1g-dev\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: gawk | mawk, libpcre2-dev | libpcre3-dev, zlib1g-dev\n"
			  TAIL BIN,
		     add(text, "Build-Depends", "libpcre2-dev|libpcre3-dev"));
	/* An alternative of a group may be declared on its own: not the same item. */
	CHECK_STR_EQ(HEAD "Build-Depends: gawk | mawk, mawk, zlib1g-dev\n" TAIL BIN,
		     add(text, "Build-Depends", "mawk"));
	/* Dropped by its names, whatever it adds. */
	const char *r = drop(HEAD "Build-Depends: bison, libfoo-dev (>= 1) [linux-any] <!nocheck>, "
				  "zlib1g-dev\n" TAIL BIN, "Build-Depends", "libfoo-dev");
	CHECK_STR_EQ(HEAD "Build-Depends: bison, zlib1g-dev\n" TAIL BIN, r);
}

TEST(newer_devscripts_order_build_system_first)
{
	const char *text = HEAD "Build-Depends: debhelper-compat (= 13),\n"
			   "               dh-python,\n"
			   "               bison,\n"
			   "               python3-all,\n"
			   "               zlib1g-dev\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: debhelper-compat (= 13),\n"
			  "               dh-python,\n"
			  "               bison,\n"
			  "               flex,\n"
			  "               python3-all,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     add(text, "Build-Depends", "flex"));
	CHECK_EQ_INT(HK_CONTROL_SORTED_BUILD_FIRST, layout.order);
	CHECK_STR_EQ("sorted-build-system-first", hk_control_order_name(layout.order));
	CHECK_STR_EQ(HEAD "Build-Depends: debhelper-compat (= 13),\n"
			  "               dh-python,\n"
			  "               dh-sequence-sphinxdoc,\n"
			  "               bison,\n"
			  "               python3-all,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     add(text, "Build-Depends", "dh-sequence-sphinxdoc"));
	/* Newer wrap-and-sort's layout (2.23.4 would sort bison first). */
	CHECK(layout.wrap_and_sort);
}

TEST(unsorted_fields_get_the_item_after_their_last_package)
{
	const char *text = HEAD "Build-Depends: zlib1g-dev, bison, ${extra:Depends}\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: zlib1g-dev, bison, libncurses-dev, ${extra:Depends}\n"
			  TAIL BIN,
		     add(text, "Build-Depends", "libncurses-dev"));
	CHECK_EQ_INT(HK_CONTROL_UNSORTED, layout.order);
	CHECK(!layout.wrap_and_sort);
}

/* Two items a line, odd spacing: in no layout.  The smallest edit, nothing else touched. */
TEST(free_layout_gets_the_smallest_edit)
{
	const char *text = HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n"
			   "  libssl-dev, zlib1g-dev\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n"
			  "  libncurses-dev, libssl-dev, zlib1g-dev\n" TAIL BIN,
		     add(text, "Build-Depends", "libncurses-dev"));
	CHECK(layout.edited_free);
	CHECK_STR_EQ(HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n"
			  "  libssl-dev, zlib1g-dev, zstd\n" TAIL BIN,
		     add(text, "Build-Depends", "zstd"));
	CHECK_STR_EQ(HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n"
			  "  zlib1g-dev\n" TAIL BIN,
		     drop(text, "Build-Depends", "libssl-dev"));
	CHECK_STR_EQ(HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n"
			  "  libssl-dev\n" TAIL BIN,
		     drop(text, "Build-Depends", "zlib1g-dev"));
	/* A line left empty goes. */
	const char *lines = HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n  hello,\n"
			    "  zlib1g-dev\n" TAIL BIN;
	CHECK_STR_EQ(HEAD "Build-Depends: bison,  debhelper-compat (= 13),\n  zlib1g-dev\n" TAIL BIN,
		     drop(lines, "Build-Depends", "hello"));
}

TEST(drops_keep_the_layout)
{
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               libssl-dev | libressl-dev\n" TAIL BIN,
		     drop(WRAPPED, "Build-Depends", "zlib1g-dev"));
	CHECK_STR_EQ(HEAD "Build-Depends: debhelper-compat (= 13),\n"
			  "               libssl-dev | libressl-dev,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     drop(WRAPPED, "Build-Depends", "bison"));
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n"
			  "               debhelper-compat (= 13),\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     drop(WRAPPED, "Build-Depends", "libssl-dev | libressl-dev"));
	/* The only item: the field goes. */
	CHECK_STR_EQ(HEAD TAIL BIN, drop(HEAD "Build-Depends: hello\n" TAIL BIN, "Build-Depends",
					 "hello"));
	CHECK_STR_EQ(HEAD "Build-Depends:\n bison,\n zlib1g-dev,\nBuild-Depends-Indep:\n"
			  " python3-sphinx,\n" TAIL
			  "\nPackage: hkcalc\nArchitecture: any\nDepends:\n ${misc:Depends},\n"
			  " ${shlibs:Depends},\nDescription: a calculator\n harkaq's test.\n",
		     drop(AST, "Build-Depends", "debhelper-compat"));
}

TEST(several_changes_in_order)
{
	const struct hk_control_change ch[] = {
		{ HK_CONTROL_ADD, "Build-Depends", "libncurses-dev" },
		{ HK_CONTROL_DROP, "Build-Depends", "bison" },
	};
	const char *r = edit_n(WRAPPED, ch, 2);
	REQUIRE(r);
	CHECK_STR_EQ(HEAD "Build-Depends: debhelper-compat (= 13),\n"
			  "               libncurses-dev,\n"
			  "               libssl-dev | libressl-dev,\n"
			  "               zlib1g-dev\n" TAIL BIN,
		     r);
}

TEST(what_is_refused)
{
	const struct hk_control_change dup = { HK_CONTROL_ADD, "Build-Depends", "zlib1g-dev" };
	struct hk_buf out = HK_BUF_INIT;
	hk_buf_puts(&out, "kept");
	CHECK_EQ_INT(-EEXIST, hk_control_edit(WRAPPED, strlen(WRAPPED), "debian/control", &dup, 1,
					      &out, &layout, &err));
	CHECK_CONTAINS(err.msg, "Build-Depends names zlib1g-dev already");
	const struct hk_control_change none = { HK_CONTROL_DROP, "Build-Depends", "hello" };
	CHECK_EQ_INT(-ENOENT, hk_control_edit(WRAPPED, strlen(WRAPPED), "debian/control", &none, 1,
					      &out, &layout, &err));
	CHECK_CONTAINS(err.msg, "Build-Depends has no item hello to drop");
	CHECK_STR_EQ("kept", hk_buf_str(&out));
	const char *bad = "Source: x\nno colon here\n";
	CHECK_EQ_INT(-EINVAL, hk_control_edit(bad, strlen(bad), "debian/control", &dup, 1, &out,
					      &layout, &err));
	CHECK_CONTAINS(err.msg, "debian/control:2:1: ");
	CHECK_EQ_INT(-EINVAL, hk_control_edit("\n\n", 2, "debian/control", &dup, 1, &out, &layout,
					      &err));
	CHECK_STR_EQ("kept", hk_buf_str(&out));
	hk_buf_free(&out);
}

/* wrap-and-sort -a writes a field of one item on one line under long indentation: that field
 * says nothing of -a, the others do, and it is wrapped once it has two. */
TEST(one_item_fields_of_an_a_file)
{
	const char *text = HEAD "Build-Depends: bison,\n               zlib1g-dev\n"
			   "Build-Depends-Indep: python3-sphinx\n" TAIL;
	CHECK_STR_EQ(HEAD "Build-Depends: bison,\n               zlib1g-dev\n"
			  "Build-Depends-Indep: doxygen,\n                     python3-sphinx\n" TAIL,
		     add(text, "Build-Depends-Indep", "doxygen"));
	CHECK(layout.wrap_always);
	CHECK(layout.wrap_and_sort);
	/* The control: without -a (a one-line field of two items), it stays one line. */
	const char *plain = HEAD "Build-Depends: bison, zlib1g-dev\n"
			    "Build-Depends-Indep: python3-sphinx\n" TAIL;
	CHECK_STR_EQ(HEAD "Build-Depends: bison, zlib1g-dev\n"
			  "Build-Depends-Indep: doxygen, python3-sphinx\n" TAIL,
		     add(plain, "Build-Depends-Indep", "doxygen"));
	CHECK(!layout.wrap_always);
}
