/* The change to make from a Debian build's findings (core/debian/dsc_change.h): which name a
 * missing package is declared by and why, the field it goes to, an influence declared with the
 * other choice named, an unopened group dropped, a change the file cannot take left out, and
 * the bug report's headers and evidence. */
#include "harness.h"

#include "core/debian/dsc_change.h"

static struct hk_error err;

#define CONTROL                                                                   \
	"Source: hkcalc\nSection: misc\nPriority: optional\n"                     \
	"Maintainer: harkaq tests <tests@harkaq.invalid>\n"                       \
	"Build-Depends: bison, hello\n"                                           \
	"Standards-Version: 4.6.2\n\n"                                            \
	"Package: hkcalc\nArchitecture: any\nDescription: a calculator\n test.\n"

static const char *const ncurses_provides[] = { "libncurses5-dev", "ncurses-dev" };
static const char *const ncurses_only[] = { "libncurses-dev" };
static const char *const diffs[] = {
	"hkcalc_1.0_amd64.deb: /usr/share/hkcalc/features: content differs (the first build "
	"b3:aa, the probes granted b3:bb)",
};
static const char *const evidence[] = { "clean b3:11", "build b3:22", "binary b3:33" };

/* The report's prose with its wrapping undone: every run of blanks and newlines one space. */
static const char *flat(const char *t)
{
	static char buf[16384];
	size_t n = 0;
	bool space = false;
	for (; *t && n + 2 < sizeof(buf); t++) {
		if (*t == ' ' || *t == '\n') {
			space = true;
			continue;
		}
		if (space && n)
			buf[n++] = ' ';
		space = false;
		buf[n++] = *t;
	}
	buf[n] = '\0';
	return buf;
}

static struct hk_dsc_change_facts facts(const struct hk_dsc_change_finding *x, size_t n)
{
	return (struct hk_dsc_change_facts){
		.source = "hkcalc", .version = "1.0", .mode = "binary",
		.base_name = "debian-12-buildd", .base_id = "b3:47c4",
		.reproduce = "  harkaq build --dsc hkcalc_1.0.dsc --see libncurses-dev --confirm\n",
		.control = CONTROL, .control_len = strlen(CONTROL),
		.findings = x, .n_findings = n,
		.evidence = evidence, .n_evidence = 3, .package_class = "missing",
	};
}

static struct hk_dsc_change_finding missing(void)
{
	return (struct hk_dsc_change_finding){
		.kind = HK_DSC_CHANGE_MISSING, .package = "libncurses-dev", .version = "6.4-4",
		.origin = "deb", .phase = "debian/rules build", .verb = "read",
		.path = "/usr/include/curses.h", .exe = "/usr/bin/cat", .comm = "cat", .n_paths = 1,
		.confirm = "still_fails", .file_providers = ncurses_only, .n_file_providers = 1,
		.provides = ncurses_provides, .n_provides = 2,
	};
}

TEST(a_confirmed_need_is_added_by_the_name_that_ships_the_file)
{
	struct hk_dsc_change_finding x = missing();
	struct hk_dsc_change_facts f = facts(&x, 1);
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	REQUIRE(s.n_changes == 1);
	CHECK_STR_EQ("Build-Depends", s.changes[0].field);
	CHECK_STR_EQ("libncurses-dev", s.changes[0].item);
	CHECK(s.changes[0].made);
	CHECK_CONTAINS(s.changes[0].why, "the virtual names it provides (libncurses5-dev, "
					 "ncurses-dev) would be satisfied by any package providing it");
	CHECK_STR_EQ("--- a/debian/control\n+++ b/debian/control\n@@ -2,7 +2,7 @@\n"
		     " Section: misc\n Priority: optional\n"
		     " Maintainer: harkaq tests <tests@harkaq.invalid>\n"
		     "-Build-Depends: bison, hello\n+Build-Depends: bison, hello, libncurses-dev\n"
		     " Standards-Version: 4.6.2\n \n Package: hkcalc\n",
		     s.patch);
	CHECK_STR_EQ("serious", s.severity);
	CHECK_STR_EQ("hkcalc: missing Build-Depends on libncurses-dev", s.subject);
	CHECK_CONTAINS(s.bug, "Subject: hkcalc: missing Build-Depends on libncurses-dev\n\n"
			      "Package: src:hkcalc\nVersion: 1.0\nSeverity: serious\n"
			      "Tags: patch ftbfs\nJustification: FTBFS\n");
	CHECK_CONTAINS(flat(s.bug), "/usr/include/curses.h (by /usr/bin/cat, comm cat)");
	CHECK_CONTAINS(s.bug, "harkaq build --dsc hkcalc_1.0.dsc --see libncurses-dev --confirm");
	CHECK_CONTAINS(s.bug, "The base: debian-12-buildd b3:47c4.");
	CHECK_CONTAINS(s.bug, "  build b3:22\n");
	CHECK_CONTAINS(s.bug, "+Build-Depends: bison, hello, libncurses-dev\n");
	/* Every prose line fits a mail. */
	for (const char *p = s.bug; *p;) {
		size_t n = strcspn(p, "\n");
		if (n > 72 && p[0] != '+' && p[0] != '-' && p[0] != ' ')
			HK_FAIL_AT("a line of %zu columns: %.*s", n, (int)n, p);
		p += n + (p[n] == '\n');
	}
	hk_dsc_suggestion_free(&s);
	/* The control: not confirmed, the report says how to, and the severity is lower. */
	x.confirm = NULL;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("important", s.severity);
	CHECK_CONTAINS(flat(s.bug), "`harkaq build --confirm` checks (it was not run)");
	CHECK_CONTAINS(s.bug, "Tags: patch\n");
	hk_dsc_suggestion_free(&s);
}

TEST(several_packages_shipping_the_file_become_alternatives)
{
	static const char *const two[] = { "libcurl4-openssl-dev", "libcurl4-gnutls-dev" };
	struct hk_dsc_change_finding x = missing();
	x.package = "libcurl4-openssl-dev";
	x.path = "/usr/include/x86_64-linux-gnu/curl/curl.h";
	x.file_providers = two;
	x.n_file_providers = 2;
	x.shared_virtual = "libcurl-dev";
	struct hk_dsc_change_facts f = facts(&x, 1);
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("libcurl4-openssl-dev | libcurl-dev", s.changes[0].item);
	CHECK_CONTAINS(s.changes[0].why, "as Policy §7.5 asks");
	hk_dsc_suggestion_free(&s);
	x.shared_virtual = NULL;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("libcurl4-openssl-dev | libcurl4-gnutls-dev", s.changes[0].item);
	hk_dsc_suggestion_free(&s);
}

TEST(an_alternative_apt_did_not_choose_is_declared_on_its_own)
{
	struct hk_dsc_change_finding x = missing();
	x.alternative_in = "Build-Depends: libncurses5-dev | libncurses-dev";
	struct hk_dsc_change_facts f = facts(&x, 1);
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("libncurses-dev", s.changes[0].item);
	CHECK_CONTAINS(s.changes[0].why, "buildds install the first alternative only");
	hk_dsc_suggestion_free(&s);
}

TEST(fields_by_target_and_build)
{
	struct hk_dsc_change_finding x = missing();
	struct hk_dsc_change_facts f = facts(&x, 1);
	f.mode = "all";
	f.has_indep = true;
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("Build-Depends-Indep", s.changes[0].field);
	CHECK(s.changes[0].made);
	CHECK_CONTAINS(s.patch, "+Build-Depends-Indep: libncurses-dev\n");
	hk_dsc_suggestion_free(&s);
	/* clean's needs are Build-Depends', whatever the build. */
	x.phase = "debian/rules clean";
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("Build-Depends", s.changes[0].field);
	hk_dsc_suggestion_free(&s);
}

TEST(an_influence_is_declared_and_the_other_choice_named)
{
	struct hk_dsc_change_finding x = missing();
	x.kind = HK_DSC_CHANGE_INFLUENCE;
	x.confirm = NULL;
	x.differences = diffs;
	x.n_differences = 1;
	struct hk_dsc_change_facts f = facts(&x, 1);
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK_STR_EQ("libncurses-dev", s.changes[0].item);
	CHECK_STR_EQ("normal", s.severity);
	CHECK_STR_EQ("hkcalc: undeclared build influence: libncurses-dev", s.subject);
	CHECK_CONTAINS(s.bug, "    hkcalc_1.0_amd64.deb: /usr/share/hkcalc/features: content "
			      "differs");
	CHECK_CONTAINS(flat(s.bug), "switch the feature off explicitly in debian/rules");
	CHECK_CONTAINS(flat(s.bug), "harkaq cannot know which option of the build guards this use");
	hk_dsc_suggestion_free(&s);
}

TEST(an_unopened_group_is_dropped_and_one_not_found_left_out)
{
	struct hk_dsc_change_finding x[2] = {
		{ .kind = HK_DSC_CHANGE_UNOPENED, .field = "Build-Depends", .group = "hello",
		  .group_packages = "hello" },
		{ .kind = HK_DSC_CHANGE_UNOPENED, .field = "Build-Depends", .group = "texinfo",
		  .group_packages = "texinfo" },
	};
	struct hk_dsc_change_facts f = facts(x, 2);
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	REQUIRE(s.n_changes == 2);
	CHECK(s.changes[0].made);
	CHECK(!s.changes[1].made);
	CHECK_CONTAINS(s.changes[1].why, "Build-Depends has no item texinfo to drop");
	CHECK_CONTAINS(s.patch, "-Build-Depends: bison, hello\n+Build-Depends: bison\n");
	CHECK_STR_EQ("minor", s.severity);
	CHECK_CONTAINS(flat(s.bug), "Not in the patch: dropping texinfo Build-Depends:");
	CHECK_CONTAINS(flat(s.bug), "a use by stat, access or a directory listing alone is not seen");
	hk_dsc_suggestion_free(&s);
}

TEST(no_control_file_no_patch_and_nothing_without_findings)
{
	struct hk_dsc_change_finding x = missing();
	struct hk_dsc_change_facts f = facts(&x, 1);
	f.control = NULL;
	struct hk_dsc_suggestion s;
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK(s.patch == NULL);
	CHECK_CONTAINS(s.not_made, "debian/control could not be read");
	CHECK_CONTAINS(flat(s.bug), "No patch: debian/control could not be read");
	CHECK_CONTAINS(s.bug, "Severity: serious\nTags: ftbfs\n");
	hk_dsc_suggestion_free(&s);
	f = facts(NULL, 0);
	REQUIRE(hk_dsc_suggest(&f, &s, &err) == 0);
	CHECK(s.bug == NULL && s.patch == NULL && s.n_changes == 0);
	hk_dsc_suggestion_free(&s);
}
