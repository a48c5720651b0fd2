/* hk_tree_differences (core/formats/tree.h): every difference between two trees, each a sentence,
 * the way --decide-probes lists what differs between two .debs' members. */
#include <string.h>

#include "core/formats/tree.h"
#include "harness.h"

static void file(struct hk_tree *t, const char *path, unsigned char byte, bool exec)
{
	uint8_t d[HK_BLAKE3_OUT_LEN];
	memset(d, byte, sizeof(d));
	hk_tree_add(t, path, HK_TREE_FILE, exec, d, NULL, 0);
}

/* Two trees: `a` as a first build's package would unpack, `b` with one file changed, one
 * added, one gone, one turned executable and a symlink retargeted. */
static void make_pair(struct hk_tree *a, struct hk_tree *b)
{
	const char *dirs[] = { "DEBIAN", "usr", "usr/bin", "usr/share" };
	for (size_t i = 0; i < 4; i++) {
		hk_tree_add(a, dirs[i], HK_TREE_DIR, false, NULL, NULL, 0);
		hk_tree_add(b, dirs[i], HK_TREE_DIR, false, NULL, NULL, 0);
	}
	file(a, "DEBIAN/control", 1, false);
	file(b, "DEBIAN/control", 1, false);
	file(a, "usr/bin/tool", 2, true);
	file(b, "usr/bin/tool", 3, true);         /* content */
	file(a, "usr/share/gone", 4, false);      /* only in a */
	file(b, "usr/share/new", 5, false);       /* only in b */
	file(a, "usr/share/mode", 6, false);
	file(b, "usr/share/mode", 6, true);       /* executable bit */
	hk_tree_add(a, "usr/share/link", HK_TREE_SYMLINK, false, NULL, "x", 1);
	hk_tree_add(b, "usr/share/link", HK_TREE_SYMLINK, false, NULL, "y", 1);
}

TEST(every_difference_is_listed_in_canonical_order)
{
	struct hk_tree a = HK_TREE_INIT, b = HK_TREE_INIT;
	struct hk_error err;
	make_pair(&a, &b);
	REQUIRE(hk_tree_compute(&a, &err) == 0);
	REQUIRE(hk_tree_compute(&b, &err) == 0);
	struct hk_strv out = HK_STRV_INIT;
	size_t n = hk_tree_differences(&a, &b, "first", "granted", 100, &out);
	CHECK_EQ_INT(5, n);
	REQUIRE(out.n == 5);
	CHECK_CONTAINS(out.v[0], "/usr/bin/tool: content differs (first b3:0202");
	CHECK_CONTAINS(out.v[1], "/usr/share/gone: a regular file in first, missing from granted");
	CHECK_CONTAINS(out.v[2], "/usr/share/link: symlink target differs (first 'x', granted 'y')");
	CHECK_CONTAINS(out.v[3], "/usr/share/mode: executable in granted, not executable in first");
	CHECK_CONTAINS(out.v[4], "/usr/share/new: a regular file in granted, absent from first");
	/* The control file, the same on both sides, is not listed. */
	for (size_t i = 0; i < out.n; i++)
		CHECK(strstr(out.v[i], "DEBIAN/control") == NULL);
	hk_strv_free(&out);
	hk_tree_free(&a);
	hk_tree_free(&b);
}

TEST(the_list_is_bounded_the_count_is_not)
{
	struct hk_tree a = HK_TREE_INIT, b = HK_TREE_INIT;
	struct hk_error err;
	make_pair(&a, &b);
	REQUIRE(hk_tree_compute(&a, &err) == 0);
	REQUIRE(hk_tree_compute(&b, &err) == 0);
	struct hk_strv out = HK_STRV_INIT;
	CHECK_EQ_INT(5, hk_tree_differences(&a, &b, "a", "b", 2, &out));
	CHECK_EQ_INT(2, out.n);
	CHECK_EQ_INT(5, hk_tree_differences(&a, &b, "a", "b", 0, NULL));
	/* The first difference is the list's first, as hk_tree_first_difference says it. */
	char *first = hk_tree_first_difference(&a, &b, "a", "b");
	CHECK_STR_EQ(out.v[0], first);
	free(first);
	hk_strv_free(&out);
	hk_tree_free(&a);
	hk_tree_free(&b);
}

TEST(equal_trees_have_no_difference)
{
	struct hk_tree a = HK_TREE_INIT, b = HK_TREE_INIT;
	struct hk_error err;
	make_pair(&a, &b);
	REQUIRE(hk_tree_compute(&a, &err) == 0);
	/* The control of the test itself: the same tree against itself. */
	struct hk_strv out = HK_STRV_INIT;
	CHECK_EQ_INT(0, hk_tree_differences(&a, &a, "a", "a", 10, &out));
	CHECK_EQ_INT(0, out.n);
	CHECK(hk_tree_first_difference(&a, &a, "a", "a") == NULL);
	hk_strv_free(&out);
	hk_tree_free(&a);
	hk_tree_free(&b);
}
