/* A tiny test harness: TAP output, one line per test, closing "N passed, N failed".
 *
 *     TEST(parses_header) { CHECK_EQ_INT(0, f()); }
 *
 * Checks record a failure and continue; REQUIRE stops the current test; SKIP("reason") stops it
 * as skipped.  Each TEST runs in
 * the same process, in definition order. */
#ifndef HK_TEST_HARNESS_H
#define HK_TEST_HARNESS_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hk_test {
	const char *name;
	void (*fn)(void);
	struct hk_test *next;
};

extern struct hk_test *hk_tests_head, **hk_tests_tail;
extern int hk_test_failed_checks;
extern jmp_buf hk_test_abort;
extern char hk_test_skip_reason[256];

#define TEST(name_)                                                                        \
	static void test_##name_(void);                                                    \
	static struct hk_test test_rec_##name_ = { #name_, test_##name_, NULL };           \
	__attribute__((constructor)) static void test_reg_##name_(void)                    \
	{                                                                                  \
		*hk_tests_tail = &test_rec_##name_;                                        \
		hk_tests_tail = &test_rec_##name_.next;                                    \
	}                                                                                  \
	static void test_##name_(void)

#define HK_FAIL_AT(...)                                                                    \
	do {                                                                               \
		fprintf(stderr, "#   %s:%d: ", __FILE__, __LINE__);                            \
		fprintf(stderr, __VA_ARGS__);                                              \
		fprintf(stderr, "\n");                                                     \
		hk_test_failed_checks++;                                                   \
	} while (0)

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond))                                                               \
			HK_FAIL_AT("CHECK(%s) failed", #cond);                             \
	} while (0)

#define REQUIRE(cond)                                                                      \
	do {                                                                               \
		if (!(cond)) {                                                             \
			HK_FAIL_AT("REQUIRE(%s) failed", #cond);                           \
			longjmp(hk_test_abort, 1);                                         \
		}                                                                          \
	} while (0)

/* Stops the current test and reports it skipped, with the reason (TAP "# SKIP reason").  Only
 * for a feature this machine truly lacks, probed and named in the reason: a skipped test is a
 * test that did not run, and tests/run lists every skip with its reason.  Checks already
 * failed still fail the test. */
#define SKIP(...)                                                                          \
	do {                                                                               \
		snprintf(hk_test_skip_reason, sizeof(hk_test_skip_reason), __VA_ARGS__);   \
		longjmp(hk_test_abort, 1);                                                 \
	} while (0)

#define CHECK_EQ_INT(expected, actual)                                                     \
	do {                                                                               \
		long long e_ = (long long)(expected), a_ = (long long)(actual);            \
		if (e_ != a_)                                                              \
			HK_FAIL_AT("%s == %s: expected %lld, got %lld", #expected, #actual,   \
				   e_, a_);                                                \
	} while (0)

#define CHECK_STR_EQ(expected, actual)                                                     \
	do {                                                                               \
		const char *e_ = (expected), *a_ = (actual);                               \
		if (!e_ || !a_ || strcmp(e_, a_) != 0)                                     \
			HK_FAIL_AT("%s == %s: expected \"%s\", got \"%s\"", #expected,        \
				   #actual, e_ ? e_ : "(null)", a_ ? a_ : "(null)");       \
	} while (0)

#define CHECK_CONTAINS(haystack, needle)                                                   \
	do {                                                                               \
		const char *h_ = (haystack), *n_ = (needle);                               \
		if (!h_ || !strstr(h_, n_))                                                \
			HK_FAIL_AT("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); \
	} while (0)

#endif
