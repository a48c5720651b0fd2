/* Linked into every unit test binary (it has no TEST of its own). */
#include "harness.h"

struct hk_test *hk_tests_head, **hk_tests_tail = &hk_tests_head;
int hk_test_failed_checks;
jmp_buf hk_test_abort;
char hk_test_skip_reason[256];

/* setjmp lives in its own frame so that a REQUIRE's longjmp clobbers nothing of main's. */
static void run_one(const struct hk_test *t)
{
	if (setjmp(hk_test_abort) == 0)
		t->fn();
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int n = 0, failed = 0, passed = 0, skipped = 0, i = 0;

	for (struct hk_test *t = hk_tests_head; t; t = t->next)
		if (!only || strcmp(only, t->name) == 0)
			n++;
	printf("1..%d\n", n);
	for (struct hk_test *t = hk_tests_head; t; t = t->next) {
		if (only && strcmp(only, t->name) != 0)
			continue;
		i++;
		hk_test_failed_checks = 0;
		hk_test_skip_reason[0] = '\0';
		run_one(t);
		if (hk_test_failed_checks) {
			printf("not ok %d - %s\n", i, t->name);
			failed++;
		} else if (hk_test_skip_reason[0]) {
			printf("ok %d - %s # SKIP %s\n", i, t->name, hk_test_skip_reason);
			skipped++;
		} else {
			printf("ok %d - %s\n", i, t->name);
			passed++;
		}
		fflush(stdout);
	}
	printf("# %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
