/* The string set (src/core/basic/strset.c): dedup on insertion, insertion order, sorting. */
#include "harness.h"

#include "core/basic/strset.h"
#include "core/basic/util.h"

TEST(dedup_and_insertion_order)
{
	struct hk_strset s = HK_STRSET_INIT;
	CHECK(s.sorted);
	CHECK(!hk_strset_contains(&s, "a"));   /* empty set, no index yet */
	CHECK(hk_strset_add(&s, "/usr/lib"));
	CHECK(hk_strset_add(&s, "/lib"));
	CHECK(!hk_strset_add(&s, "/usr/lib"));
	CHECK(!hk_strset_add_owned(&s, hk_xstrdup("/lib")));   /* freed, not leaked (ASan) */
	CHECK(hk_strset_add_owned(&s, hk_xstrdup("/opt")));
	REQUIRE(s.len == 3);
	CHECK_STR_EQ("/usr/lib", s.items[0]);
	CHECK_STR_EQ("/lib", s.items[1]);
	CHECK_STR_EQ("/opt", s.items[2]);
	CHECK(!s.sorted);
	CHECK(hk_strset_contains(&s, "/lib"));
	CHECK(!hk_strset_contains(&s, "/li"));
	CHECK(!hk_strset_contains(&s, ""));
	hk_strset_free(&s);
	CHECK_EQ_INT(0, s.len);
	CHECK(!hk_strset_contains(&s, "/lib"));
}

TEST(sort_keeps_lookup_working)
{
	struct hk_strset s = HK_STRSET_INIT;
	const char *in[] = { "b", "a", "c", "a/b", "a", "" };
	for (size_t i = 0; i < HK_ARRAY_LEN(in); i++)
		hk_strset_add(&s, in[i]);
	hk_strset_sort(&s);
	REQUIRE(s.len == 5);
	const char *want[] = { "", "a", "a/b", "b", "c" };
	for (size_t i = 0; i < 5; i++)
		CHECK_STR_EQ(want[i], s.items[i]);
	CHECK(s.sorted);
	for (size_t i = 0; i < 5; i++)
		CHECK(hk_strset_contains(&s, want[i]));
	/* Appending in order keeps it sorted; out of order clears the flag. */
	hk_strset_add(&s, "d");
	CHECK(s.sorted);
	hk_strset_add(&s, "0");
	CHECK(!s.sorted);
	hk_strset_sort(&s);
	CHECK_STR_EQ("0", s.items[1]);
	hk_strset_free(&s);
}

TEST(many_items)
{
	/* Exercises index growth: every item findable, duplicates refused, byte order. */
	struct hk_strset s = HK_STRSET_INIT, copy = HK_STRSET_INIT;
	for (int i = 0; i < 20000; i++) {
		hk_autofree char *p = hk_xasprintf("/usr/lib/f%05d", (i * 7919) % 20000);
		CHECK(hk_strset_add(&s, p));
	}
	CHECK_EQ_INT(20000, s.len);
	CHECK(!hk_strset_add(&s, "/usr/lib/f00042"));
	CHECK(!hk_strset_contains(&s, "/usr/lib/f20000"));
	hk_strset_sort(&s);
	for (size_t i = 1; i < s.len; i++)
		CHECK(strcmp(s.items[i - 1], s.items[i]) < 0);
	hk_strset_add_all(&copy, &s);
	CHECK_EQ_INT(s.len, copy.len);
	CHECK(hk_strset_contains(&copy, "/usr/lib/f19999"));
	hk_strset_free(&s);
	hk_strset_free(&copy);
}

TEST(find_gives_the_position)
{
	/* A parallel array keyed by position: the position found is the item's, for every
	 * item; a string not in the set, and the empty set, give (size_t)-1. */
	struct hk_strset s = HK_STRSET_INIT;
	CHECK(hk_strset_find(&s, "/usr") == (size_t)-1);
	for (int i = 0; i < 1000; i++) {
		hk_autofree char *p = hk_xasprintf("/usr/share/d%04d", (i * 31) % 1000);
		hk_strset_add(&s, p);
	}
	for (size_t i = 0; i < s.len; i++)
		CHECK(hk_strset_find(&s, s.items[i]) == i);
	CHECK(hk_strset_find(&s, "/usr/share/d1000") == (size_t)-1);
	CHECK(hk_strset_find(&s, "/usr/share") == (size_t)-1);
	hk_strset_free(&s);
}
