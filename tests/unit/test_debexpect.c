/* The Debian toolchain's expectations and a package's own (core/debian/debexpect.h), and how a
 * policy takes them (core/policy/derive.h).  Every refusal has a sibling input, differing only in the
 * defect, that is accepted. */
#include "core/debian/debexpect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy/derive.h"
#include "core/policy/policy.h"
#include "core/basic/util.h"
#include "harness.h"

static int parse(const char *text, struct hk_expect_set *s, struct hk_error *err)
{
	return hk_deb_expect_parse(text, strlen(text), "debian/harkaq-expect", NULL, s, err);
}

/* The message of a refused text, which must leave the set as it was. */
static char *refusal(const char *text)
{
	struct hk_expect_set s = HK_EXPECT_SET_INIT;
	struct hk_error err = { 0 };
	if (parse(text, &s, &err) == 0 || s.n != 0) {
		hk_expect_set_free(&s);
		return hk_xstrdup("(accepted)");
	}
	return hk_xstrdup(err.msg);
}

TEST(the_builtin_set_parses_and_names_its_version)
{
	struct hk_expect_set s = HK_EXPECT_SET_INIT;
	hk_deb_expect_builtin(&s);
	REQUIRE(s.n >= 2);
	for (size_t i = 0; i < s.n; i++) {
		CHECK_STR_EQ(HK_DEB_EXPECT_VERSION, s.e[i].source);
		CHECK(*s.e[i].tool && *s.e[i].reason);
	}
	/* What the corpus measured on every phase (docs/debian-corpus.md). */
	const struct hk_expect_entry *g =
		hk_expect_match(&s, "/usr/lib/x86_64-linux-gnu/perl5/5.36/Locale/gettext.pm");
	REQUIRE(g != NULL);
	CHECK_STR_EQ("perl(Dpkg::Gettext)", g->tool);
	REQUIRE(hk_expect_match(&s, "/usr/share/zoneinfo/Etc/UTC") != NULL);
	/* Control: neighbours of those paths are not expected. */
	CHECK(hk_expect_match(&s, "/usr/share/zoneinfo/Europe/Paris") == NULL);
	CHECK(hk_expect_match(&s, "/usr/lib/x86_64-linux-gnu/perl5/5.36/Locale/other.pm") == NULL);
	CHECK(hk_expect_match(&s, "/usr/include/curses.h") == NULL);
	hk_expect_set_free(&s);
}

TEST(a_package_file_gives_entries_with_their_line)
{
	struct hk_expect_set s = HK_EXPECT_SET_INIT;
	struct hk_error err = { 0 };
	REQUIRE(parse("# ours\n\n/usr/include/curses.h\tcc1   configure's optional check, "
		      "off on the buildds  \n/usr/share/foo/*.conf foo reads them all\n",
		      &s, &err) == 0);
	REQUIRE(s.n == 2);
	CHECK_STR_EQ("/usr/include/curses.h", s.e[0].pattern);
	CHECK_STR_EQ("cc1", s.e[0].tool);
	CHECK_STR_EQ("configure's optional check, off on the buildds", s.e[0].reason);
	CHECK_STR_EQ("debian/harkaq-expect:3", s.e[0].source);
	CHECK_STR_EQ("debian/harkaq-expect:4", s.e[1].source);
	hk_autofree char *note = hk_expect_note(&s.e[0]);
	CHECK_STR_EQ("debian/harkaq-expect:3: cc1: configure's optional check, off on the buildds",
		     note);
	/* '*' stays within one component. */
	CHECK(hk_expect_match(&s, "/usr/share/foo/a.conf") == &s.e[1]);
	CHECK(hk_expect_match(&s, "/usr/share/foo/sub/a.conf") == NULL);
	CHECK(hk_expect_match(&s, "/usr/share/foo/.hidden.conf") == NULL);
	CHECK(hk_expect_is_glob(s.e[1].pattern));
	CHECK(!hk_expect_is_glob(s.e[0].pattern));
	/* Appending to a set keeps what it held. */
	REQUIRE(parse("/etc/foo.conf foo its defaults\n", &s, &err) == 0);
	CHECK(s.n == 3);
	CHECK_STR_EQ("debian/harkaq-expect:1", s.e[2].source);
	hk_expect_set_free(&s);
}

TEST(a_malformed_line_is_refused_at_its_line_and_column)
{
	struct {
		const char *text, *want;
	} bad[] = {
		{ "usr/include/x.h cc1 why\n", "debian/harkaq-expect:1:1: pattern 'usr/include/x.h': "
					       "not an absolute path" },
		{ "# c\n  /usr/include/../x.h cc1 why\n", "debian/harkaq-expect:2:16: pattern" },
		{ "/usr//x.h cc1 why\n", "debian/harkaq-expect:1:6: pattern" },
		{ "/usr/include/ cc1 why\n", "debian/harkaq-expect:1:13: pattern '/usr/include/': "
					     "ends with '/'" },
		{ "/ cc1 why\n", "debian/harkaq-expect:1:1:" },
		{ "/*/x.h cc1 why\n", "debian/harkaq-expect:1:2: pattern '/*/x.h': a wildcard in the "
				      "first component" },
		{ "/usr/[ab].h cc1 why\n", "debian/harkaq-expect:1:6: pattern '/usr/[ab].h': only "
					   "'*' and '?'" },
		{ "/usr/x.h\n", "debian/harkaq-expect:1:9: expected the tool and the reason" },
		{ "/usr/x.h cc1\n", "debian/harkaq-expect:1:13: expected the reason" },
		{ "/usr/x.h cc1 why\r\n", "debian/harkaq-expect:1:17: a carriage return" },
		{ "/usr/x.h cc1 why\n/usr/y.h cc1 why\n/usr/x.h cc1 again\n",
		  "debian/harkaq-expect:3:1: pattern '/usr/x.h' is already expected on line 1" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		hk_autofree char *msg = refusal(bad[i].text);
		CHECK_CONTAINS(msg, bad[i].want);
	}
	/* Siblings without the defect are accepted. */
	const char *good[] = { "/usr/include/x.h cc1 why\n", "  /usr/include/x.h cc1 why\n",
			       "/usr/x.h cc1 why\n", "/usr/include/* cc1 why\n",
			       "/usr/*/x.h cc1 why\n", "/usr/?.h cc1 why\n", "/usr/x.h cc1 a b c",
			       "/usr/x.h cc1 why\n/usr/y.h cc1 why\n" };
	for (size_t i = 0; i < HK_ARRAY_LEN(good); i++) {
		hk_autofree char *msg = refusal(good[i]);
		CHECK_STR_EQ("(accepted)", msg);
	}
	/* NUL bytes and oversize files are refused whole. */
	struct hk_expect_set s = HK_EXPECT_SET_INIT;
	struct hk_error err = { 0 };
	CHECK(hk_deb_expect_parse("/usr/x.h cc1 w\0y\n", 17, "f", NULL, &s, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "f: a NUL byte");
	CHECK(s.n == 0);
}

/* A path the build declared is granted, never denied: the toolchain's expectation of it is
 * dropped, where a recipe's expect of it would be an error. */
TEST(expectations_are_added_only_where_the_policy_does_not_grant)
{
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err = { 0 };
	hk_policy_add_grant(&p, HK_GRANT_RO, "/usr/share/zoneinfo/Etc/UTC");
	hk_policy_add_grant(&p, HK_GRANT_RW, "/tmp");
	REQUIRE(hk_policy_finish(&p, &err) == 0);
	const char *paths[] = { "/usr/share/zoneinfo/Etc/UTC", "/tmp/x",
				"/usr/lib/x86_64-linux-gnu/perl5/5.36/Locale/gettext.pm" };
	size_t added = 99;
	REQUIRE(hk_derive_add_ungranted_expects(&p, paths, 3, &added, &err) == 0);
	CHECK_EQ_INT(1, (int)added);
	CHECK(hk_policy_expects(&p, paths[2]));
	CHECK(!hk_policy_expects(&p, paths[0]));
	CHECK(!hk_policy_expects(&p, paths[1]));
	/* The control: the same granted path as a plain expectation is the policy's error. */
	hk_policy_add_expect(&p, "/usr/share/zoneinfo/Etc/UTC");
	CHECK(hk_policy_finish(&p, &err) < 0);
	CHECK_CONTAINS(err.msg, "is both expected and granted");
	hk_policy_free(&p);
}
