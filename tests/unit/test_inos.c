/* Inode numbers counted (src/core/basic/inos.c): how many names each inode has among some trees. */
#include "harness.h"

#include "core/basic/inos.h"

TEST(counts_every_name_of_an_inode)
{
	struct hk_inos s = HK_INOS_INIT;
	CHECK_EQ_INT(0, (long long)hk_inos_count(&s, 7));   /* empty: no array yet */
	/* Out of order, one inode three times, one twice, the rest once; past the first
	 * growth. */
	for (uint64_t i = 3000; i > 0; i--)
		hk_inos_add(&s, i * 2);
	hk_inos_add(&s, 42);
	hk_inos_add(&s, 42);
	hk_inos_add(&s, UINT64_MAX);
	hk_inos_add(&s, 6000);
	hk_inos_finish(&s);
	CHECK_EQ_INT(3, (long long)hk_inos_count(&s, 42));
	CHECK_EQ_INT(2, (long long)hk_inos_count(&s, 6000));   /* the last of the run */
	CHECK_EQ_INT(1, (long long)hk_inos_count(&s, 2));      /* the first */
	CHECK_EQ_INT(1, (long long)hk_inos_count(&s, 4242));
	CHECK_EQ_INT(1, (long long)hk_inos_count(&s, UINT64_MAX));
	CHECK_EQ_INT(0, (long long)hk_inos_count(&s, 43));     /* between two */
	CHECK_EQ_INT(0, (long long)hk_inos_count(&s, 1));      /* below all */
	CHECK_EQ_INT(0, (long long)hk_inos_count(&s, 6002));   /* above the run's end */
	CHECK(!s.incomplete);
	hk_inos_free(&s);
	CHECK_EQ_INT(0, (long long)hk_inos_count(&s, 42));
}
