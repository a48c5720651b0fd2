/* Unified diffs (core/formats/udiff.h): byte for byte what GNU diff -u writes with the same
 * labels, on an insertion, a deletion, a replacement, two hunks, a file's start and end, and a
 * last line without a newline; nothing for equal texts. */
#include "harness.h"

#include "core/basic/buf.h"
#include "core/formats/udiff.h"

static const char *diff(const char *a, const char *b)
{
	static struct hk_buf out = HK_BUF_INIT;
	hk_buf_reset(&out);
	hk_udiff("f", a, strlen(a), b, strlen(b), &out);
	return out.len ? hk_buf_str(&out) : "";
}

TEST(equal_texts_give_nothing)
{
	CHECK_STR_EQ("", diff("a\nb\n", "a\nb\n"));
	CHECK_STR_EQ("", diff("", ""));
}

/* diff -u --label a/f --label b/f A B, A = a..m, B = an X after d, l gone, n with no newline. */
TEST(two_hunks_and_a_last_line_without_newline)
{
	CHECK_STR_EQ("--- a/f\n+++ b/f\n"
		     "@@ -2,6 +2,7 @@\n b\n c\n d\n+X\n e\n f\n g\n"
		     "@@ -9,5 +10,5 @@\n i\n j\n k\n-l\n m\n+n\n\\ No newline at end of file\n",
		     diff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n",
			  "a\nb\nc\nd\nX\ne\nf\ng\nh\ni\nj\nk\nm\nn"));
}

TEST(the_start_of_a_file_and_an_empty_one)
{
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n+y\n x\n", diff("x\n", "y\nx\n"));
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", diff("", "x\n"));
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n", diff("x\n", ""));
}

TEST(a_replacement_deletes_before_it_inserts)
{
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", diff("a\nb\nc\n", "a\nB\nc\n"));
	/* A newline added at the end is a change of the last line. */
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n",
		     diff("x", "x\n"));
}

/* Changes six equal lines apart share a hunk; seven apart do not. */
TEST(nearby_changes_share_a_hunk)
{
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n-1\n+A\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+B\n",
		     diff("1\n2\n3\n4\n5\n6\n7\n8\n", "A\n2\n3\n4\n5\n6\n7\nB\n"));
	CHECK_STR_EQ("--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+A\n 2\n 3\n 4\n"
		     "@@ -6,4 +6,4 @@\n 6\n 7\n 8\n-9\n+B\n",
		     diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "A\n2\n3\n4\n5\n6\n7\n8\nB\n"));
}
