/* Debian source packages (core/debian/dsc.h): the .dsc, its armour and checksums, and source relations
 * reduced for an architecture and build profiles.  Every refusal has a sibling input, differing
 * only in the defect, that is accepted. */
#include "core/debian/dsc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"
#include "harness.h"

#define SHA_A "2f6b1a43e8e1e4f3ad43f4bcc1a65a8d2e6d2bbd0d8d5c4b8d5bd6a3a3d0a1b2"
#define SHA_B "aa6b1a43e8e1e4f3ad43f4bcc1a65a8d2e6d2bbd0d8d5c4b8d5bd6a3a3d0a1b2"
#define MD5_A "0123456789abcdef0123456789abcdef"
#define MD5_B "fedcba9876543210fedcba9876543210"

static const struct hk_deb_arch amd64 = { "amd64", "base", "gnu", "linux", "amd64" };

/* A .dsc with two files; `extra` is inserted after the Version line. */
static char *dsc_text(const char *extra)
{
	return hk_xasprintf("Format: 3.0 (quilt)\n"
			    "Source: hello\n"
			    "Binary: hello\n"
			    "Architecture: any\n"
			    "Version: 2.10-3\n"
			    "%s"
			    "Build-Depends: debhelper-compat (= 13), libfoo-dev [!hurd-any] <!nocheck>\n"
			    "Checksums-Sha256:\n"
			    " " SHA_A " 725946 hello_2.10.orig.tar.gz\n"
			    " " SHA_B " 12688 hello_2.10-3.debian.tar.xz\n"
			    "Files:\n"
			    " " MD5_A " 725946 hello_2.10.orig.tar.gz\n"
			    " " MD5_B " 12688 hello_2.10-3.debian.tar.xz\n",
			    extra);
}

static int parse(const char *text, struct hk_dsc *d, struct hk_error *err)
{
	return hk_dsc_parse(text, strlen(text), "hello.dsc", d, err);
}

TEST(a_plain_dsc_parses_with_its_files_and_relations)
{
	hk_autofree char *t = dsc_text("");
	struct hk_dsc d;
	struct hk_error err = { 0 };
	REQUIRE(parse(t, &d, &err) == 0);
	CHECK_STR_EQ("hello", d.source);
	CHECK_STR_EQ("2.10-3", d.version);
	CHECK_STR_EQ("3.0 (quilt)", d.format);
	CHECK(!d.signed_);
	REQUIRE(d.n_files == 2);
	CHECK_STR_EQ("hello_2.10.orig.tar.gz", d.files[0].name);
	CHECK_EQ_INT(725946, d.files[0].size);
	CHECK_STR_EQ(SHA_A, d.files[0].sha256);
	CHECK_STR_EQ("debhelper-compat (= 13), libfoo-dev [!hurd-any] <!nocheck>",
		     d.relations[HK_DSC_BUILD_DEPENDS]);
	CHECK_EQ_INT(6, d.relation_line[HK_DSC_BUILD_DEPENDS]);
	CHECK(d.relations[HK_DSC_BUILD_DEPENDS_INDEP] == NULL);
	hk_dsc_free(&d);
}

TEST(a_clear_signed_dsc_parses_and_keeps_line_numbers)
{
	hk_autofree char *body = dsc_text("- Dash-Escaped: yes\n");
	hk_autofree char *t = hk_xasprintf("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n%s"
					   "-----BEGIN PGP SIGNATURE-----\n\niQIzBAEBCgAd\n=abcd\n"
					   "-----END PGP SIGNATURE-----\n", body);
	struct hk_dsc d;
	struct hk_error err = { 0 };
	REQUIRE(parse(t, &d, &err) == 0);
	CHECK(d.signed_);
	CHECK_STR_EQ("hello", d.source);
	CHECK_EQ_INT(3 + 7, d.relation_line[HK_DSC_BUILD_DEPENDS]);
	hk_dsc_free(&d);
	/* The same without its signature block is refused. */
	hk_autofree char *cut = hk_xasprintf("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n%s",
					     body);
	CHECK(parse(cut, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "hello.dsc:1: the clear-signed message has no complete signature");
}

TEST(a_missing_required_field_is_named)
{
	hk_autofree char *t = dsc_text("");
	char *v = strstr(t, "Version: 2.10-3\n");
	memcpy(v, "Xersion", 7);
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "hello.dsc: field Version: missing");
	CHECK(d.source == NULL);
}

TEST(a_bad_checksum_line_names_its_line_and_field)
{
	hk_autofree char *t = dsc_text("");
	/* A 63-digit SHA-256 on the first entry (line 8). */
	char *sha = strstr(t, SHA_A);
	sha[63] = ' ';
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "hello.dsc:8: Checksums-Sha256: expected \"HASH SIZE NAME\" with "
				"a 64-digit");
}

TEST(a_file_name_with_a_directory_is_refused)
{
	hk_autofree char *good = dsc_text("");
	hk_autofree char *t = hk_xstrdup(good);
	char *name = strstr(t, "hello_2.10-3.debian.tar.xz");
	memcpy(name, "../", 3);
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "Checksums-Sha256: '../lo_2.10-3.debian.tar.xz' is not a plain "
				"file name");
	REQUIRE(parse(good, &d, &err) == 0);
	hk_dsc_free(&d);
}

TEST(files_and_checksums_must_agree)
{
	hk_autofree char *t = dsc_text("");
	/* The second Files entry's size differs from Checksums-Sha256's. */
	char *f = strstr(t, MD5_B " 12688");
	memcpy(f + 33, "12689", 5);
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "hello.dsc:12: Files: hello_2.10-3.debian.tar.xz is 12689 bytes "
				"here but 12688 in Checksums-Sha256 (line 9)");
}

TEST(a_malformed_relation_names_the_field_and_line)
{
	hk_autofree char *t = dsc_text("Build-Depends-Indep: python3 [amd64 !i386]\n");
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "hello.dsc:6: Build-Depends-Indep: 'python3 [amd64 !i386]': an "
				"architecture list");
	hk_autofree char *ok = dsc_text("Build-Depends-Indep: python3 [amd64 i386]\n");
	REQUIRE(parse(ok, &d, &err) == 0);
	hk_dsc_free(&d);
}

TEST(two_stanzas_are_not_a_dsc)
{
	hk_autofree char *one = dsc_text("");
	hk_autofree char *t = hk_xasprintf("%s\nSource: other\n", one);
	struct hk_dsc d;
	struct hk_error err = { 0 };
	CHECK(parse(t, &d, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "found 2");
}

TEST(architecture_wildcards_match_as_dpkg_matches_them)
{
	CHECK(hk_deb_arch_matches(&amd64, "amd64"));
	CHECK(hk_deb_arch_matches(&amd64, "any"));
	CHECK(hk_deb_arch_matches(&amd64, "linux-any"));
	CHECK(hk_deb_arch_matches(&amd64, "any-amd64"));
	CHECK(hk_deb_arch_matches(&amd64, "gnu-linux-any"));
	CHECK(hk_deb_arch_matches(&amd64, "base-gnu-linux-any"));
	/* Not a wildcard and not an architecture: dpkg matches nothing. */
	CHECK(!hk_deb_arch_matches(&amd64, "base-gnu-linux-amd64"));
	CHECK(!hk_deb_arch_matches(&amd64, "i386"));
	CHECK(!hk_deb_arch_matches(&amd64, "any-i386"));
	CHECK(!hk_deb_arch_matches(&amd64, "hurd-any"));
	CHECK(!hk_deb_arch_matches(&amd64, "kfreebsd-any"));
	CHECK(!hk_deb_arch_matches(&amd64, "x32"));
}

static char *reduced(const char *text, const char *const *profiles, size_t n)
{
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	struct hk_error err = { 0 };
	if (hk_dsc_relations_reduce(text, "Build-Depends", &amd64, profiles, n, &g, &ng, &err) < 0)
		return hk_xasprintf("error: %s", err.msg);
	struct hk_buf b = HK_BUF_INIT;
	hk_deb_relations_text(g, ng, &b);
	hk_deb_relations_free(g, ng);
	return hk_buf_steal(&b);
}

TEST(relations_are_reduced_for_the_architecture_and_profiles)
{
	static const char *const nocheck[] = { "nocheck" };
	hk_autofree char *a = reduced("debhelper-compat (= 13), libasound2-dev [linux-any], "
				      "libhurd-dev [hurd-any], libfoo-dev [!amd64] | libbar-dev, "
				      "python3:any <!nocheck>, check <!nocheck> <stage1>, ",
				      nocheck, 1);
	/* check: neither <!nocheck> nor <stage1> holds with nocheck active. */
	CHECK_STR_EQ("debhelper-compat (= 13), libasound2-dev, libbar-dev", a);
	hk_autofree char *b = reduced("python3:any <!nocheck>, check <!nocheck> <stage1>", NULL, 0);
	CHECK_STR_EQ("python3:any, check", b);
	hk_autofree char *c = reduced("x <a b>, y <a> <b>", (const char *const[]){ "b" }, 1);
	CHECK_STR_EQ("y", c);
}

TEST(malformed_relations_are_errors_whatever_the_reduction)
{
	hk_autofree char *a = reduced("foo (>= 1", NULL, 0);
	CHECK_CONTAINS(a, "error: Build-Depends: cannot parse the relation in 'foo (>= 1'");
	hk_autofree char *b = reduced("foo [i386] bar", NULL, 0);
	CHECK_CONTAINS(b, "error: Build-Depends: 'foo [i386] bar': after the relation");
	hk_autofree char *c = reduced("foo <!>", NULL, 0);
	CHECK_CONTAINS(c, "error: Build-Depends: 'foo <!>': a build profile restriction");
	/* An alternative dropped by its restriction is still checked. */
	hk_autofree char *d = reduced("foo [i386] (>= 1)", NULL, 0);
	CHECK_CONTAINS(d, "error:");
	hk_autofree char *e = reduced("foo (>= 1) [i386]", NULL, 0);
	CHECK_STR_EQ("", e);
}

TEST(the_changelog_date_is_the_first_trailers)
{
	/* Values from dpkg-parsechangelog -STimestamp on the same text. */
	static const char two[] =
		"sl (5.02-1) unstable; urgency=medium\n\n  * New upstream release.\n\n"
		" -- Hiroyuki Yamamoto <yama1066@gmail.com>  Mon, 26 Dec 2022 01:30:00 +0900\n\n"
		"sl (3.03-17) unstable; urgency=low\n\n  * Older.\n\n"
		" -- Someone Else <a@b.org>  Tue, 03 Jan 2012 10:00:00 +0000\n";
	long long t = 0;
	CHECK_EQ_INT(0, hk_changelog_timestamp(two, strlen(two), &t));
	CHECK(t == 1671985800LL);
	/* No day name, one space, a negative zone. */
	static const char west[] = "x (1) u; urgency=low\n\n  * a\n\n"
				   " -- A <a@b> 5 Jan 2020 12:00:00 -0130\n";
	CHECK_EQ_INT(0, hk_changelog_timestamp(west, strlen(west), &t));
	CHECK(t == 1578231000LL);
	/* Forms it does not answer for: the caller asks dpkg-parsechangelog instead. */
	static const char *const refused[] = {
		"x (1) u; urgency=low\n\n -- A <a@b>  Mon, 26 Dec 2022 01:30:00 CET\n",
		"x (1) u; urgency=low\n\n -- A <a@b>  Mon, 31 Feb 2022 01:30:00 +0000\n",
		"x (1) u; urgency=low\n\n -- A <a@b>  Mon, 26 Dez 2022 01:30:00 +0000\n",
		"x (1) u; urgency=low\n\n -- A <a@b>  Mon, 26 Dec 2022 01:30:00 +100\n",
		"x (1) u; urgency=low\n\n -- A <a@b>  Mon, 26 Dec 2022 01:30:00 +0000 x\n",
		"x (1) u; urgency=low\n\n  * no trailer\n",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(refused); i++)
		CHECK_EQ_INT(-1, hk_changelog_timestamp(refused[i], strlen(refused[i]), &t));
}
