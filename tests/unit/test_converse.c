/* Whether a declared package was used (src/core/debian/converse.c): its own files, or its dependency
 * closure's, against the opened paths. The tables are bookworm's as dpkg -L and dpkg -s show
 * them. */
#include "harness.h"

#include "core/debian/converse.h"
#include "core/basic/util.h"

static struct hk_strset set_of(const char *const *paths)
{
	struct hk_strset s = HK_STRSET_INIT;
	for (size_t i = 0; paths[i]; i++)
		hk_strset_add(&s, paths[i]);
	return s;
}

/* hk_dep_group holds mutable strings (the store's, owned): writable copies of the names. */
static char n_pkgconf[] = "pkgconf", n_bin[] = "pkgconf-bin", n_lib[] = "libpkgconf3",
	    n_libc[] = "libc6", n_nothere[] = "libnothere", n_virtual[] = "pkg-config-virtual",
	    n_meta[] = "meta";
static char *one_alt[][1] = { { n_pkgconf }, { n_bin }, { n_lib }, { n_libc } };
/* Depends of pkg-config, pkgconf, pkgconf-bin (Pre-Depends and Depends are one list). */
static struct hk_dep_group dep_pkgconf = { one_alt[0], 1 };
static struct hk_dep_group dep_bin = { one_alt[1], 1 };
static struct hk_dep_group deps_bin[] = { { one_alt[2], 1 }, { one_alt[3], 1 } };

/* The build's packages: pkg-config (transitional), pkgconf, pkgconf-bin, libpkgconf3, and
 * hello (declared, not used), and a package providing a virtual name. */
struct world {
	struct hk_strset f_pc, f_pkgconf, f_bin, f_lib, f_hello;
	struct hk_conv_pkg p[5];
};

static void world_init(struct world *w)
{
	static const char *const pc[] = { "/usr/share/doc/pkg-config/copyright",
					  "/usr/share/lintian/overrides/pkg-config", NULL };
	/* /usr/bin/pkg-config is a symlink (to pkgconf-bin's program): not a file of pkgconf. */
	static const char *const pkgconf[] = { "/usr/share/aclocal/pkg.m4",
					       "/usr/share/doc/pkgconf/copyright", NULL };
	static const char *const bin[] = { "/usr/bin/pkgconf", "/usr/share/doc/pkgconf-bin/copyright",
					   NULL };
	static const char *const lib[] = { "/usr/lib/x86_64-linux-gnu/libpkgconf.so.3.0.0", NULL };
	static const char *const hello[] = { "/usr/bin/hello", NULL };
	w->f_pc = set_of(pc);
	w->f_pkgconf = set_of(pkgconf);
	w->f_bin = set_of(bin);
	w->f_lib = set_of(lib);
	w->f_hello = set_of(hello);
	static const char *const prov_pkgconf[] = { "pkg-config-virtual" };
	w->p[0] = (struct hk_conv_pkg){ "pkg-config", &w->f_pc, &dep_pkgconf, 1, NULL, 0 };
	w->p[1] = (struct hk_conv_pkg){ "pkgconf", &w->f_pkgconf, &dep_bin, 1, prov_pkgconf, 1 };
	w->p[2] = (struct hk_conv_pkg){ "pkgconf-bin", &w->f_bin, deps_bin, 2, NULL, 0 };
	w->p[3] = (struct hk_conv_pkg){ "libpkgconf3", &w->f_lib, NULL, 0, NULL, 0 };
	w->p[4] = (struct hk_conv_pkg){ "hello", &w->f_hello, NULL, 0, NULL, 0 };
}

static void world_free(struct world *w)
{
	hk_strset_free(&w->f_pc);
	hk_strset_free(&w->f_pkgconf);
	hk_strset_free(&w->f_bin);
	hk_strset_free(&w->f_lib);
	hk_strset_free(&w->f_hello);
}

static const char *joined(const struct hk_strv *v, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < v->n; i++) {
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", i ? " " : "", v->v[i]);
	}
	return buf;
}

TEST(reach_follows_depends_nearest_first_within_the_table)
{
	struct world w;
	world_init(&w);
	size_t order[5], root = 0;
	/* libc6 is not in the table (the base's): not followed, not an error. */
	REQUIRE(hk_conv_reach(w.p, 5, &root, 1, order) == 3);
	CHECK_STR_EQ("pkgconf", w.p[order[0]].name);
	CHECK_STR_EQ("pkgconf-bin", w.p[order[1]].name);
	CHECK_STR_EQ("libpkgconf3", w.p[order[2]].name);
	size_t hello = 4;
	CHECK_EQ_INT(0, hk_conv_reach(w.p, 5, &hello, 1, order));
	world_free(&w);
}

TEST(a_transitional_package_is_used_through_its_dependency)
{
	struct world w;
	world_init(&w);
	/* What a build running pkg-config and aclocal opens: the program the symlink leads to,
	 * its library, and pkg.m4. */
	static const char *const op[] = { "/usr/bin/pkgconf",
					  "/usr/lib/x86_64-linux-gnu/libpkgconf.so.3.0.0",
					  "/usr/share/aclocal/pkg.m4", "/usr/bin/make", NULL };
	struct hk_strset opened = set_of(op);
	hk_autostrv struct hk_strv through = HK_STRV_INIT;
	char buf[256];
	size_t root = 0;
	hk_autostrv struct hk_strv paths = HK_STRV_INIT;
	CHECK_EQ_INT(HK_CONV_THROUGH, hk_conv_use(w.p, 5, &root, 1, &opened, &through, &paths));
	CHECK_STR_EQ("pkgconf pkgconf-bin libpkgconf3", joined(&through, buf, sizeof(buf)));
	/* With the file that shows each use. */
	CHECK_STR_EQ("/usr/share/aclocal/pkg.m4 /usr/bin/pkgconf "
		     "/usr/lib/x86_64-linux-gnu/libpkgconf.so.3.0.0",
		     joined(&paths, buf, sizeof(buf)));

	/* Only the program run (no aclocal): still through, two levels down. */
	hk_strv_free(&through);
	static const char *const op2[] = { "/usr/bin/pkgconf", NULL };
	struct hk_strset opened2 = set_of(op2);
	CHECK_EQ_INT(HK_CONV_THROUGH, hk_conv_use(w.p, 5, &root, 1, &opened2, &through, NULL));
	CHECK_STR_EQ("pkgconf-bin", joined(&through, buf, sizeof(buf)));

	/* The control, in the same world: hello, declared and unused, is none opened. */
	hk_strv_free(&through);
	size_t hello = 4;
	CHECK_EQ_INT(HK_CONV_NONE, hk_conv_use(w.p, 5, &hello, 1, &opened, &through, NULL));
	CHECK_EQ_INT(0, through.n);
	/* ...and opened when its program runs. */
	static const char *const op3[] = { "/usr/bin/hello", NULL };
	struct hk_strset opened3 = set_of(op3);
	CHECK_EQ_INT(HK_CONV_OPENED, hk_conv_use(w.p, 5, &hello, 1, &opened3, &through, NULL));
	CHECK_EQ_INT(0, through.n);
	hk_strset_free(&opened);
	hk_strset_free(&opened2);
	hk_strset_free(&opened3);
	world_free(&w);
}

TEST(nothing_opened_through_it_is_none_opened)
{
	struct world w;
	world_init(&w);
	/* The build opened files of other packages only: pkg-config is none opened, though its
	 * dependencies are in the table. */
	static const char *const op[] = { "/usr/bin/hello", "/usr/bin/make", NULL };
	struct hk_strset opened = set_of(op);
	hk_autostrv struct hk_strv through = HK_STRV_INIT;
	size_t root = 0;
	CHECK_EQ_INT(HK_CONV_NONE, hk_conv_use(w.p, 5, &root, 1, &opened, &through, NULL));
	CHECK_EQ_INT(0, through.n);
	/* Its own file opened (even one under /usr/share/doc) is a use of its own. */
	hk_strset_add(&opened, "/usr/share/lintian/overrides/pkg-config");
	CHECK_EQ_INT(HK_CONV_OPENED, hk_conv_use(w.p, 5, &root, 1, &opened, &through, NULL));
	hk_strset_free(&opened);
	world_free(&w);
}

TEST(a_dependency_on_a_virtual_name_goes_through_its_providers)
{
	struct world w;
	world_init(&w);
	/* A meta package depending on "pkg-config-virtual | libnothere": pkgconf provides the
	 * first alternative; the second is in no table. */
	char *alts[] = { n_nothere, n_virtual };
	struct hk_dep_group g = { alts, 2 };
	struct hk_conv_pkg p[6];
	memcpy(p, w.p, sizeof(w.p));
	struct hk_strset none = HK_STRSET_INIT;
	p[5] = (struct hk_conv_pkg){ "meta", &none, &g, 1, NULL, 0 };
	static const char *const op[] = { "/usr/share/aclocal/pkg.m4", NULL };
	struct hk_strset opened = set_of(op);
	hk_autostrv struct hk_strv through = HK_STRV_INIT;
	char buf[256];
	size_t root = 5;
	CHECK_EQ_INT(HK_CONV_THROUGH, hk_conv_use(p, 6, &root, 1, &opened, &through, NULL));
	CHECK_STR_EQ("pkgconf", joined(&through, buf, sizeof(buf)));
	/* A cycle (pkgconf-bin depending back on the meta package) ends. */
	struct hk_dep_group back = { (char *[]){ n_meta }, 1 };
	p[3].deps = &back;
	p[3].n_deps = 1;
	size_t order[6];
	CHECK_EQ_INT(3, hk_conv_reach(p, 6, &root, 1, order));
	hk_strset_free(&opened);
	world_free(&w);
}

TEST(several_roots_are_one_group)
{
	/* "pkg-config | hello" stands for both declared packages: one opened file is enough. */
	struct world w;
	world_init(&w);
	static const char *const op[] = { "/usr/bin/hello", NULL };
	struct hk_strset opened = set_of(op);
	hk_autostrv struct hk_strv through = HK_STRV_INIT;
	size_t roots[] = { 0, 4 };
	CHECK_EQ_INT(HK_CONV_OPENED, hk_conv_use(w.p, 5, roots, 2, &opened, &through, NULL));
	/* An empty table decides nothing was opened. */
	CHECK_EQ_INT(HK_CONV_NONE, hk_conv_use(w.p, 0, roots, 0, &opened, &through, NULL));
	hk_strset_free(&opened);
	world_free(&w);
}
