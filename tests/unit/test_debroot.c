/* A Debian root's package database read from its files (core/debian/debroot.h), on a fake merged-/usr
 * root made here, and the store view's trap paths (core/store/view.h).  Every "left out" has a
 * sibling in the same root that is kept. */
#include "core/debian/debroot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "core/store/view.h"
#include "harness.h"

static void sh(const char *cmd)
{
	if (system(cmd) != 0) {
		fprintf(stderr, "# command failed: %s\n", cmd);
		abort();
	}
}

/* A merged-/usr root: /bin -> usr/bin.  Packages:
 *   a  installed, ships /bin/tool (listed through the /bin link) and a doc file
 *   b  installed (Multi-Arch: b:amd64.list), depends on a; ships /usr/bin/run, the link
 *      /usr/lib/libb.so -> libb.so.1 (its own file) and /usr/lib/out -> /usr/bin/tool (a's)
 *   c  removed, config files left: not installed
 *   d  installed, provides virt
 *   e  installed, depends on virt | missing
 *   both a and b list /usr/share/common */
static char *make_root(void)
{
	char *root = hk_xstrdup("/tmp/hk-test-debroot.XXXXXX");
	if (!mkdtemp(root))
		abort();
	hk_autofree char *cmd = hk_xasprintf(
		"cd %s && mkdir -p usr/bin usr/lib usr/share/doc/a usr/share/common var/lib/dpkg/info && "
		"ln -s usr/bin bin && echo t > usr/bin/tool && echo r > usr/bin/run && "
		"echo l > usr/lib/libb.so.1 && ln -s libb.so.1 usr/lib/libb.so && "
		"ln -s /usr/bin/tool usr/lib/out && echo d > usr/share/doc/a/copyright && "
		"echo c > usr/share/common/x && "
		"printf '/.\\n/bin\\n/bin/tool\\n/usr/share/doc/a/copyright\\n/usr/share/common\\n"
		"/usr/share/gone\\n' > var/lib/dpkg/info/a.list && "
		"printf '/.\\n/usr/bin/run\\n/usr/lib/libb.so\\n/usr/lib/libb.so.1\\n/usr/lib/out\\n"
		"/usr/share/common\\n' > var/lib/dpkg/info/b:amd64.list && "
		"printf '/usr/bin/cfg\\n' > var/lib/dpkg/info/c.list",
		root);
	sh(cmd);
	hk_autofree char *status = hk_xasprintf("%s/var/lib/dpkg/status", root);
	FILE *f = fopen(status, "w");
	if (!f)
		abort();
	fputs("Package: a\nStatus: install ok installed\nVersion: 1.0\nArchitecture: all\n\n"
	      "Package: b\nStatus: install ok installed\nVersion: 2:3-4\nArchitecture: amd64\n"
	      "Multi-Arch: same\nDepends: a (>= 1)\n\n"
	      "Package: c\nStatus: deinstall ok config-files\nVersion: 9\nArchitecture: all\n\n"
	      "Package: d\nStatus: install ok installed\nVersion: 1\nArchitecture: all\n"
	      "Provides: virt\n\n"
	      "Package: e\nStatus: install ok installed\nVersion: 1\nArchitecture: all\n"
	      "Depends: virt | missing\n",
	      f);
	fclose(f);
	return root;
}

static void remove_root(char *root)
{
	hk_autofree char *cmd = hk_xasprintf("rm -rf %s", root);
	sh(cmd);
	free(root);
}

static struct hk_error err;

TEST(packages_are_the_installed_ones_sorted)
{
	char *root = make_root();
	struct hk_deb_pkglist l = { 0 };
	REQUIRE(hk_debroot_packages(root, &l, &err) == 0);
	REQUIRE(l.n == 4);
	CHECK_STR_EQ("a", l.items[0].name);
	CHECK_STR_EQ("b", l.items[1].name);
	CHECK_STR_EQ("2:3-4", l.items[1].version);
	CHECK_STR_EQ("amd64", l.items[1].arch);
	CHECK_STR_EQ("d", l.items[2].name);
	CHECK_STR_EQ("e", l.items[3].name);
	hk_deb_pkglist_free(&l);
	hk_autofree char *none = hk_xasprintf("%s/usr", root);
	CHECK_EQ_INT(-ENOENT, hk_debroot_packages(none, &l, &err));
	CHECK(strstr(err.msg, "var/lib/dpkg/status") != NULL);
	remove_root(root);
}

TEST(owners_are_canonical_paths_that_exist)
{
	char *root = make_root();
	struct hk_debroot_owners o = { 0 };
	REQUIRE(hk_debroot_owners_load(root, &o, &err) == 0);
	/* /bin/tool as dpkg lists it is /usr/bin/tool as the kernel reports it. */
	CHECK_STR_EQ("a", hk_debroot_owner(&o, "/usr/bin/tool"));
	CHECK(hk_debroot_owner(&o, "/bin/tool") == NULL);
	/* b:amd64.list is b's. */
	CHECK_STR_EQ("b", hk_debroot_owner(&o, "/usr/bin/run"));
	CHECK_STR_EQ("b", hk_debroot_owner(&o, "/usr/lib/libb.so"));
	/* Listed by two packages: both, sorted. */
	CHECK_STR_EQ("a, b", hk_debroot_owner(&o, "/usr/share/common"));
	/* Listed but absent from the root: nobody's here; its present sibling is a's. */
	CHECK(hk_debroot_owner(&o, "/usr/share/gone") == NULL);
	CHECK_STR_EQ("a", hk_debroot_owner(&o, "/usr/share/doc/a/copyright"));
	/* The items are sorted and unique (binary search relies on it). */
	for (size_t i = 1; i < o.n; i++)
		CHECK(strcmp(o.items[i - 1].path, o.items[i].path) < 0);
	hk_debroot_owners_free(&o);
	remove_root(root);
}

TEST(closure_follows_depends_and_provides)
{
	char *root = make_root();
	struct hk_strset s = HK_STRSET_INIT;
	const char *from_b[] = { "b" };
	REQUIRE(hk_debroot_closure(root, from_b, 1, &s, &err) == 0);
	hk_strset_sort(&s);
	REQUIRE(s.len == 2);
	CHECK_STR_EQ("a", s.items[0]);
	CHECK_STR_EQ("b", s.items[1]);
	hk_strset_free(&s);
	/* A virtual name reaches its provider; a name nobody answers to is skipped. */
	const char *from_e[] = { "e", "nosuch" };
	REQUIRE(hk_debroot_closure(root, from_e, 2, &s, &err) == 0);
	hk_strset_sort(&s);
	REQUIRE(s.len == 2);
	CHECK_STR_EQ("d", s.items[0]);
	CHECK_STR_EQ("e", s.items[1]);
	hk_strset_free(&s);
	/* A removed package is not reached. */
	const char *from_c[] = { "c" };
	REQUIRE(hk_debroot_closure(root, from_c, 1, &s, &err) == 0);
	CHECK_EQ_INT(0, s.len);
	hk_strset_free(&s);
	remove_root(root);
}

TEST(package_files_keep_links_that_stay_inside_the_set)
{
	char *root = make_root();
	struct hk_strset pkgs = HK_STRSET_INIT, files = HK_STRSET_INIT;
	hk_strset_add(&pkgs, "b");
	REQUIRE(hk_debroot_package_files(root, &pkgs, &files, &err) == 0);
	CHECK(hk_strset_contains(&files, "/usr/bin/run"));
	CHECK(hk_strset_contains(&files, "/usr/lib/libb.so.1"));
	/* Its own link to its own file is kept ... */
	CHECK(hk_strset_contains(&files, "/usr/lib/libb.so"));
	/* ... a link to a's file is not (a rule through it would grant a's file) ... */
	CHECK(!hk_strset_contains(&files, "/usr/lib/out"));
	/* ... nor directories. */
	CHECK(!hk_strset_contains(&files, "/usr/share/common"));
	CHECK_EQ_INT(3, files.len);
	hk_strset_free(&files);
	/* Control: with a in the set, the link to a's file is kept too. */
	hk_strset_add(&pkgs, "a");
	REQUIRE(hk_debroot_package_files(root, &pkgs, &files, &err) == 0);
	CHECK(hk_strset_contains(&files, "/usr/lib/out"));
	CHECK(hk_strset_contains(&files, "/usr/bin/tool"));
	hk_strset_free(&files);
	hk_strset_free(&pkgs);
	remove_root(root);
}

TEST(view_trap_paths_name_the_artifact_and_the_link)
{
	char *art = NULL, *link = NULL;
	static const char hex[] = "71b06f83501c402847583f9ac9852c7581883917c5f543a185702e4e6eb9b1a5";
	hk_autofree char *trap = hk_xasprintf(HK_VIEW_TRAP_DIR "/%s-zlib1g-dev/usr/lib/libz.so", hex);
	REQUIRE(hk_view_trap_parse(trap, &art, &link));
	hk_autofree char *want = hk_xasprintf("%s-zlib1g-dev", hex);
	CHECK_STR_EQ(want, art);
	CHECK_STR_EQ("/usr/lib/libz.so", link);
	free(art);
	free(link);
	CHECK(!hk_view_trap_parse("/usr/lib/libz.so", &art, &link));
	CHECK(!hk_view_trap_parse(HK_VIEW_TRAP_DIR "/short-name/usr/x", &art, &link));
	hk_autofree char *nolink = hk_xasprintf(HK_VIEW_TRAP_DIR "/%s-z/", hex);
	CHECK(!hk_view_trap_parse(nolink, &art, &link));
}
