/* hk_collapse_plan() (on disk) and hk_collapse_plan_over() (the planner alone, last test):
 * which directories the cage may install as one rule.  Every test that
 * expects a directory to stay per file has, in the same tree, a sibling that does collapse:
 * an empty result would otherwise pass them all. */
#include "core/policy/collapse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/policy/collapse_disk.h"
#include "core/basic/util.h"
#include "harness.h"

static char *make_base(void)
{
	char *dir = hk_xstrdup("/tmp/hk-test-collapse.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	return dir;
}

/* Runs a shell command in which every '@' stands for the base root. */
static void sh(const char *tmpl, const char *base)
{
	struct hk_buf b = HK_BUF_INIT;
	for (const char *c = tmpl; *c; c++) {
		if (*c == '@')
			hk_buf_puts(&b, base);
		else
			hk_buf_putc(&b, *c);
	}
	hk_autofree char *cmd = hk_buf_steal(&b);
	if (system(cmd) != 0) {
		fprintf(stderr, "# command failed: %s\n", cmd);
		abort();
	}
}

static bool merged_system(const char *path)
{
	return strncmp(path, "/usr/", 5) == 0 || strncmp(path, "/etc/", 5) == 0;
}

struct fixture {
	struct hk_policy p;
	struct hk_derive_entry e[64];
	size_t n;
	const char *view;    /* the store view's tree, or NULL */
};

static void dep_file(struct fixture *f, const char *path)
{
	f->e[f->n++] = (struct hk_derive_entry){ path, NULL, "dep" };
	hk_policy_add_grant(&f->p, HK_GRANT_RO, path);
}

static void plan(struct fixture *f, const char *base, struct hk_strset *out,
		 struct hk_collapse_stats *st)
{
	struct hk_error err;
	REQUIRE(hk_policy_finish(&f->p, &err) == 0);
	REQUIRE(hk_collapse_plan(&f->p, f->e, f->n, base, f->view, out, st, merged_system, &err) ==
		0);
}

TEST(dep_only_directory_collapses_at_its_top_and_mixed_parent_does_not)
{
	hk_autofree char *base = make_base();
	/* The base has /usr/share with an undeclared file: /usr/share stays per file. */
	sh("mkdir -p @/usr/share && echo undeclared > @/usr/share/README", base);
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/share/mod/a.cmake");
	dep_file(&f, "/usr/share/mod/b.cmake");
	dep_file(&f, "/usr/share/mod/sub/c.cmake");
	hk_policy_add_grant(&f.p, HK_GRANT_RW, "/tmp");
	hk_policy_add_grant(&f.p, HK_GRANT_LIST, "/");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK_EQ_INT(1, out.len);
	if (out.len == 1)
		CHECK_STR_EQ("/usr/share/mod", out.items[0]);
	CHECK_EQ_INT(3, st.covered);
	CHECK(!hk_strset_contains(&out, "/usr/share"));
	CHECK(!hk_strset_contains(&out, "/tmp"));
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(base_directory_collapses_only_when_all_its_files_are_granted)
{
	hk_autofree char *base = make_base();
	/* /usr/include/exact: the base holds the same names as the deps (the host has the
	 * package installed too).  /usr/include/mixed: the base adds stdio.h, undeclared. */
	sh("mkdir -p @/usr/include/exact @/usr/include/mixed && "
	   "touch @/usr/include/exact/x.h @/usr/include/mixed/stdio.h", base);
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/include/exact/x.h");
	dep_file(&f, "/usr/include/mixed/zlib.h");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK(hk_strset_contains(&out, "/usr/include/exact"));
	CHECK(!hk_strset_contains(&out, "/usr/include/mixed"));
	CHECK(!hk_strset_contains(&out, "/usr/include"));
	CHECK_EQ_INT(1, out.len);
	CHECK(st.base_dirs_read >= 1);
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(base_subdirectory_without_grants_disqualifies)
{
	hk_autofree char *base = make_base();
	sh("mkdir -p @/usr/lib/a/extra @/usr/lib/b && touch @/usr/lib/a/extra/f", base);
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/lib/a/one.so");
	dep_file(&f, "/usr/lib/b/two.so");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK(!hk_strset_contains(&out, "/usr/lib/a"));
	CHECK(hk_strset_contains(&out, "/usr/lib/b"));
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(ungranted_dep_entry_or_non_ro_grant_disqualifies)
{
	hk_autofree char *base = make_base();
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/lib/dang/libx.so.1");
	/* A symlink the derivation left ungranted (its target is outside the closure). */
	f.e[f.n++] = (struct hk_derive_entry){ "/usr/lib/dang/libx.so", "/opt/elsewhere", "dep" };
	dep_file(&f, "/usr/lib/rwdir/f");
	f.e[f.n++] = (struct hk_derive_entry){ "/usr/lib/rwdir/g", NULL, "dep" };
	hk_policy_add_grant(&f.p, HK_GRANT_RW, "/usr/lib/rwdir/g");
	dep_file(&f, "/usr/lib/clean/f");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK(!hk_strset_contains(&out, "/usr/lib/dang"));
	CHECK(!hk_strset_contains(&out, "/usr/lib/rwdir"));
	CHECK(hk_strset_contains(&out, "/usr/lib/clean"));
	CHECK_EQ_INT(1, out.len);
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(base_runtime_grants_must_be_regular_files_of_the_base)
{
	hk_autofree char *base = make_base();
	sh("mkdir -p @/etc/ok @/etc/link @/etc/missing && touch @/etc/ok/passwd", base);
	sh("ln -s /elsewhere/target @/etc/link/localtime", base);
	struct fixture f = { .p = HK_POLICY_INIT };
	hk_policy_add_grant(&f.p, HK_GRANT_RO, "/etc/ok/passwd");
	/* A base symlink: its per-file rule lands on its target, wherever that is. */
	hk_policy_add_grant(&f.p, HK_GRANT_RO, "/etc/link/localtime");
	/* A grant naming nothing: it must stay a rule, reported missing by the cage. */
	hk_policy_add_grant(&f.p, HK_GRANT_RO, "/etc/missing/nsswitch.conf");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK(hk_strset_contains(&out, "/etc/ok"));
	CHECK(!hk_strset_contains(&out, "/etc/link"));
	CHECK(!hk_strset_contains(&out, "/etc/missing"));
	CHECK(!hk_strset_contains(&out, "/etc"));
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(sibling_prefixes_and_unmerged_paths)
{
	hk_autofree char *base = make_base();
	sh("mkdir -p @/usr/share && touch @/usr/share/undeclared", base);
	struct fixture f = { .p = HK_POLICY_INIT };
	/* "x-y/" sorts before "x/" although "x" sorts before "x-y": both must be found. */
	dep_file(&f, "/usr/share/x/a");
	dep_file(&f, "/usr/share/x-y/b");
	dep_file(&f, "/usr/share/x.z/c");
	hk_policy_add_grant(&f.p, HK_GRANT_RO, "/dev/zero");
	hk_policy_add_grant(&f.p, HK_GRANT_RO, "/srv/data/file");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	CHECK(hk_strset_contains(&out, "/usr/share/x"));
	CHECK(hk_strset_contains(&out, "/usr/share/x-y"));
	CHECK(hk_strset_contains(&out, "/usr/share/x.z"));
	CHECK(!hk_strset_contains(&out, "/dev"));
	CHECK(!hk_strset_contains(&out, "/srv/data"));
	CHECK_EQ_INT(3, out.len);
	CHECK_EQ_INT(3, st.covered);
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
}

TEST(a_store_view_file_beneath_a_directory_keeps_it_per_file)
{
	/* The view shows every store artifact, granted or not (core/store/view.h): an undeclared
	 * header it adds to a directory must stay a logged denial, so that directory cannot be
	 * one rule.  Its sibling, which the view leaves alone, still collapses; and without the
	 * view the same policy collapses both (the control). */
	hk_autofree char *base = make_base();
	hk_autofree char *view = make_base();
	sh("mkdir -p @/usr/include/seen @/usr/include/alone && touch @/usr/include/seen/bzlib.h",
	   view);
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/include/seen/zlib.h");
	dep_file(&f, "/usr/include/alone/x.h");
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	plan(&f, base, &out, &st);
	/* Without the view both directories are whole: one rule at their top-most common
	 * ancestor covers both grants. */
	CHECK_EQ_INT(1, out.len);
	CHECK_EQ_INT(2, st.covered);
	hk_strset_free(&out);
	out = (struct hk_strset)HK_STRSET_INIT;
	f.view = view;
	plan(&f, base, &out, &st);
	CHECK(!hk_strset_contains(&out, "/usr/include"));
	CHECK(!hk_strset_contains(&out, "/usr/include/seen"));
	CHECK(hk_strset_contains(&out, "/usr/include/alone"));
	CHECK_EQ_INT(1, out.len);
	CHECK_EQ_INT(1, st.covered);
	hk_strset_free(&out);
	hk_policy_free(&f.p);
	sh("rm -rf @", base);
	sh("rm -rf @", view);
}

/* ---- the planner alone, over layers held in memory ---- */

/* A layer as a list of paths: "d /usr/include" a directory, "f …" a regular file, "l …" a
 * symlink, "e /x" a path whose type cannot be read (EACCES). */
static const char *const *mem_layer;

static int mem_type(void *ctx, const char *path, enum hk_layer_type *type)
{
	(void)ctx;
	for (const char *const *e = mem_layer; *e; e++) {
		if (strcmp(*e + 2, path) != 0)
			continue;
		if ((*e)[0] == 'e')
			return -EACCES;
		*type = (*e)[0] == 'd' ? HK_LAYER_DIR : (*e)[0] == 'f' ? HK_LAYER_FILE
								: HK_LAYER_OTHER;
		return 0;
	}
	return -ENOENT;
}

static int mem_list(void *ctx, const char *path,
		    bool (*each)(void *arg, const char *name, bool is_dir), void *arg)
{
	(void)ctx;
	size_t n = strlen(path);
	for (const char *const *e = mem_layer; *e; e++) {
		const char *p = *e + 2;
		if (strncmp(p, path, n) != 0 || p[n] != '/' || strchr(p + n + 1, '/'))
			continue;
		if ((*e)[0] == 'e')
			return -EACCES;
		if (!each(arg, p + n + 1, (*e)[0] == 'd'))
			break;
	}
	return 0;
}

static const struct hk_collapse_layers mem_layers = { NULL, mem_type, mem_list };

/* The same decisions as on disk, with no file read: a directory whose base part holds only
 * granted files collapses; one whose base part has an undeclared file, or cannot be read,
 * stays per file. */
TEST(the_planner_decides_over_layers_held_in_memory)
{
	static const char *const layer[] = {
		"d /base/usr", "d /base/usr/include",
		"d /base/usr/include/exact", "f /base/usr/include/exact/x.h",
		"d /base/usr/include/mixed", "f /base/usr/include/mixed/stdio.h",
		"e /base/usr/include/locked",
		NULL,
	};
	mem_layer = layer;
	struct fixture f = { .p = HK_POLICY_INIT };
	dep_file(&f, "/usr/include/exact/x.h");
	dep_file(&f, "/usr/include/mixed/zlib.h");
	dep_file(&f, "/usr/include/locked/l.h");
	dep_file(&f, "/usr/include/absent/a.h");
	struct hk_error err;
	REQUIRE(hk_policy_finish(&f.p, &err) == 0);
	struct hk_strset out = HK_STRSET_INIT;
	struct hk_collapse_stats st;
	REQUIRE(hk_collapse_plan_over(&mem_layers, &f.p, f.e, f.n, "/base", NULL, &out, &st,
				      merged_system, &err) == 0);
	CHECK(hk_strset_contains(&out, "/usr/include/exact"));
	CHECK(hk_strset_contains(&out, "/usr/include/absent"));   /* nothing of the base there */
	CHECK(!hk_strset_contains(&out, "/usr/include/mixed"));
	CHECK(!hk_strset_contains(&out, "/usr/include/locked"));
	CHECK(!hk_strset_contains(&out, "/usr/include"));
	CHECK_EQ_INT(2, out.len);
	CHECK_EQ_INT(2, st.covered);
	hk_strset_free(&out);
	hk_policy_free(&f.p);
}
