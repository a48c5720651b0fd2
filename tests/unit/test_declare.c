/* The rule of harkaq declare's loop (core/evidence/declare.h): every way it goes on or stops,
 * each with the case beside it that goes the other way. */
#include "harness.h"

#include "core/evidence/declare.h"

#define DECL(p, s) { p, HK_DIAG_DECLARABLE, s, "compile" }
#define IRR(p) { p, HK_DIAG_IRREDUCIBLE, NULL, "compile" }
#define BUG(p) { p, HK_DIAG_POLICY_BUG, NULL, "compile" }

static struct hk_declare_decision d;

static enum hk_declare_next decide(const struct hk_declare_build *b, size_t n,
				   const struct hk_declare_added *added, size_t n_added,
				   const char *const *declared, size_t n_declared)
{
	hk_declare_decision_free(&d);
	struct hk_declare_facts f = { b, n, added, n_added, declared, n_declared };
	hk_declare_decide(&f, &d);
	return d.next;
}

/* The design's loop on zlib: make, then the ranlib binutils ships, then Hermetic. */
TEST(the_closed_loop_goes_on_then_ends_hermetic)
{
	const struct hk_declare_debt d1[] = { DECL("/usr/bin/make", "make"),
					      DECL("/usr/bin/make", "make") };
	const struct hk_declare_debt d2[] = {
		DECL("/usr/bin/x86_64-linux-gnu-ranlib", "binutils-x86-64-linux-gnu"),
		DECL("/usr/bin/x86_64-linux-gnu-ar", "binutils-x86-64-linux-gnu"),
	};
	struct hk_declare_build b[3] = {
		{ .debt = d1, .n_debt = 2 }, { .debt = d2, .n_debt = 2 }, { .hermetic = true },
	};
	const char *declared[] = { "gcc-12", "libc6-dev" };
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(b, 1, NULL, 0, declared, 2));
	CHECK_EQ_INT(1, d.specs.n);
	CHECK_STR_EQ("make", d.specs.v[0]);
	CHECK_STR_EQ("/usr/bin/make", d.paths.v[0]);
	CHECK(d.keep_edit);
	const struct hk_declare_added a1[] = { { "make", "/usr/bin/make" } };
	const char *declared2[] = { "gcc-12", "libc6-dev", "make" };
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(b, 2, a1, 1, declared2, 3));
	CHECK_EQ_INT(1, d.specs.n);
	CHECK_STR_EQ("binutils-x86-64-linux-gnu", d.specs.v[0]);
	const struct hk_declare_added a2[] = { { "binutils-x86-64-linux-gnu",
						 "/usr/bin/x86_64-linux-gnu-ranlib" } };
	CHECK_EQ_INT(HK_DECLARE_HERMETIC, decide(b, 3, a2, 1, declared2, 3));
	CHECK(d.keep_edit);
	CHECK_STR_EQ("hermetic", hk_declare_next_name(d.next));
}

TEST(no_evidence_stops_before_anything_and_confirms_nothing)
{
	const struct hk_declare_debt debt[] = { DECL("/usr/bin/make", "make") };
	struct hk_declare_build b = { .no_evidence = true, .debt = debt, .n_debt = 1 };
	CHECK_EQ_INT(HK_DECLARE_NO_EVIDENCE, decide(&b, 1, NULL, 0, NULL, 0));
	CHECK(!d.keep_edit);
	CHECK_EQ_INT(0, d.specs.n);
	b.no_evidence = false;
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(&b, 1, NULL, 0, NULL, 0));
}

TEST(a_suggestion_that_did_not_remove_its_denial_is_refuted_and_undone)
{
	const struct hk_declare_debt d1[] = { DECL("/usr/bin/ranlib", "binutils") };
	/* Declared, yet the path is denied again (a link whose target the closure lacks). */
	const struct hk_declare_debt d2[] = { IRR("/usr/lib/libfoo.so"), DECL("/usr/bin/ranlib", "x") };
	struct hk_declare_build b[2] = { { .debt = d1, .n_debt = 1 }, { .debt = d2, .n_debt = 2 } };
	const struct hk_declare_added a[] = { { "binutils", "/usr/bin/ranlib" } };
	const char *declared[] = { "binutils" };
	CHECK_EQ_INT(HK_DECLARE_REFUTED, decide(b, 2, a, 1, declared, 1));
	CHECK(!d.keep_edit);
	CHECK_STR_EQ("binutils", d.specs.v[0]);
	CHECK_STR_EQ("/usr/bin/ranlib", d.paths.v[0]);
	CHECK_CONTAINS(d.why, "declaring binutils did not remove the denial of /usr/bin/ranlib");
	/* The control: the path gone, the loop goes on to what is left. */
	const struct hk_declare_debt d3[] = { IRR("/usr/lib/libfoo.so") };
	b[1].debt = d3;
	b[1].n_debt = 1;
	CHECK_EQ_INT(HK_DECLARE_IRREDUCIBLE, decide(b, 2, a, 1, declared, 1));
	CHECK(d.keep_edit);
}

TEST(the_same_debt_twice_is_no_progress)
{
	const struct hk_declare_debt d1[] = { IRR("/etc/subuid"), DECL("/usr/bin/a", "a") };
	const struct hk_declare_debt d2[] = { IRR("/etc/subuid"), DECL("/usr/bin/b", "b") };
	struct hk_declare_build b[3] = { { .debt = d1, .n_debt = 2 }, { .debt = d2, .n_debt = 2 },
					 { .debt = d1, .n_debt = 2 } };
	CHECK_EQ_INT(HK_DECLARE_NO_PROGRESS, decide(b, 3, NULL, 0, NULL, 0));
	CHECK(!d.keep_edit);
	CHECK_CONTAINS(d.why, "build 3 has the debt build 1 had");
	/* Build 2 differs from build 1: it goes on. */
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(b, 2, NULL, 0, NULL, 0));
}

TEST(suggestions_already_declared_are_no_progress)
{
	const struct hk_declare_debt debt[] = { DECL("/usr/bin/make", "make=4.3-4.1") };
	struct hk_declare_build b = { .debt = debt, .n_debt = 1 };
	const char *declared[] = { "make" };
	CHECK_EQ_INT(HK_DECLARE_NO_PROGRESS, decide(&b, 1, NULL, 0, declared, 1));
	const char *other[] = { "maker" };
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(&b, 1, NULL, 0, other, 1));
	CHECK_STR_EQ("make=4.3-4.1", d.specs.v[0]);
}

TEST(each_spec_once_in_the_order_met)
{
	const struct hk_declare_debt debt[] = {
		DECL("/usr/include/stdio.h", "libc6-dev"), IRR("/etc/subuid"),
		DECL("/usr/bin/tee", "coreutils"), DECL("/usr/include/stdlib.h", "libc6-dev"),
		BUG("/.harkaq/policy"),
	};
	struct hk_declare_build b = { .failed = true, .debt = debt, .n_debt = 5 };
	CHECK_EQ_INT(HK_DECLARE_GO_ON, decide(&b, 1, NULL, 0, NULL, 0));
	CHECK_EQ_INT(2, d.specs.n);
	CHECK_STR_EQ("libc6-dev", d.specs.v[0]);
	CHECK_STR_EQ("coreutils", d.specs.v[1]);
	CHECK_CONTAINS(d.why, "3 declarable paths: declaring 2 deps");
}

TEST(irreducible_policy_bug_and_failed_stop_with_the_edit_kept)
{
	const struct hk_declare_debt irr[] = { IRR("/etc/subuid"), BUG("/.harkaq/policy"), IRR(NULL) };
	struct hk_declare_build b = { .debt = irr, .n_debt = 3 };
	CHECK_EQ_INT(HK_DECLARE_IRREDUCIBLE, decide(&b, 1, NULL, 0, NULL, 0));
	CHECK(d.keep_edit);
	CHECK_EQ_INT(2, d.paths.n);
	CHECK_STR_EQ("/etc/subuid", d.paths.v[0]);
	CHECK_STR_EQ("-", d.paths.v[1]);
	CHECK_CONTAINS(d.why, "nobody provides 2 paths");
	const struct hk_declare_debt bug[] = { BUG("/.harkaq/policy") };
	b.debt = bug;
	b.n_debt = 1;
	CHECK_EQ_INT(HK_DECLARE_POLICY_BUG, decide(&b, 1, NULL, 0, NULL, 0));
	struct hk_declare_build f = { .failed = true };
	CHECK_EQ_INT(HK_DECLARE_FAILED, decide(&f, 1, NULL, 0, NULL, 0));
	CHECK_CONTAINS(d.why, "a phase failed without debt");
	CHECK(d.keep_edit);
	hk_declare_decision_free(&d);
}
