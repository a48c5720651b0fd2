/* The diagnosis' source on disk (engine/store/suggest_source.h): what it answers from a real store
 * built in a temporary directory (its path index, manifests and look-ups) and from a base
 * root's dpkg database, and the diagnosis (design.md §8) end to end over it — declarable vs
 * irreducible debt, symlink aliases read from manifests, provider ranking, policy bugs kept
 * apart from debt — on verdicts computed from audit records in the kernel's own text.  The
 * diagnosis' own rules are tested without a disk in test_suggest.c. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/evidence/evidence.h"
#include "core/policy/policy.h"
#include "core/store/store.h"
#include "core/evidence/suggest.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"
#include "engine/store/suggest_source.h"

#define CANARY "/.harkaq/canary-0b5e1f0a77c2d94b"
#define DOMAIN "2a5374efb"

/* ---- fixtures ---- */

static char *scratch(void)
{
	char *d = hk_xstrdup("/tmp/hk-test-suggest.XXXXXX");
	REQUIRE(mkdtemp(d) != NULL);
	return d;
}

static void mkparents(const char *path)
{
	char *p = hk_xstrdup(path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
}

/* "f usr/bin/make" = a file, "l usr/bin/gmake make" = a symlink.  `source` is the provenance
 * (it decides the origin: {"type":"deb"}, {"built_by":…}); NULL: added by hand. */
static void add_artifact_from(struct hk_store *st, const char *name, const char *version,
			      const char *source, const char *const *entries)
{
	char *dir = scratch();
	for (const char *const *e = entries; *e; e++) {
		char kind = (*e)[0];
		char *rest = hk_xstrdup(*e + 2);
		char *sp = strchr(rest, ' ');
		if (sp)
			*sp = '\0';
		char *path = hk_xasprintf("%s/%s", dir, rest);
		mkparents(path);
		if (kind == 'f') {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			REQUIRE(fd >= 0);
			REQUIRE(write(fd, name, strlen(name)) == (ssize_t)strlen(name));
			close(fd);
		} else {
			REQUIRE(sp != NULL);
			REQUIRE(symlink(sp + 1, path) == 0);
		}
		free(path);
		free(rest);
	}
	struct hk_artifact_spec spec = { .name = name, .version = version, .source_json = source };
	struct hk_error err = { 0 };
	const struct hk_artifact *a = NULL;
	if (hk_store_add(st, dir, &spec, 0, &a, NULL, &err) < 0)
		HK_FAIL_AT("adding %s: %s", name, err.msg);
	struct hk_error rm;
	CHECK_EQ_INT(0, hk_store_remove_tree(dir, &rm));
	free(dir);
}

static void add_artifact(struct hk_store *st, const char *name, const char *version,
			 const char *const *entries)
{
	add_artifact_from(st, name, version, NULL, entries);
}

static struct hk_store *make_store(char **dir_out)
{
	char *dir = scratch();
	char *sdir = hk_xasprintf("%s/store", dir);
	struct hk_store *st = NULL;
	struct hk_error err = { 0 };
	if (hk_store_open(sdir, true, &st, &err) < 0)
		HK_FAIL_AT("store: %s", err.msg);
	REQUIRE(st != NULL);
	add_artifact(st, "make", "4.3", (const char *const[]){ "f usr/bin/make",
		"l usr/bin/gmake make", NULL });
	/* A second provider of the same file: listed after make (by name). */
	add_artifact(st, "remake", "4.3", (const char *const[]){ "f usr/bin/make", NULL });
	/* Debian's split of binutils: the real file in one package, the short name in another. */
	add_artifact(st, "binutils-x86-64-linux-gnu", "2.40",
		     (const char *const[]){ "f usr/bin/x86_64-linux-gnu-ranlib", NULL });
	add_artifact(st, "binutils", "2.40", (const char *const[]){
		"l usr/bin/ranlib x86_64-linux-gnu-ranlib", NULL });
	/* A chain across artifacts: /usr/bin/cc -> gcc -> gcc-12 -> x86_64-linux-gnu-gcc-12. */
	add_artifact(st, "gcc-12", "12.2", (const char *const[]){
		"f usr/bin/x86_64-linux-gnu-gcc-12", "l usr/bin/gcc-12 x86_64-linux-gnu-gcc-12",
		NULL });
	add_artifact(st, "gcc", "12.2", (const char *const[]){ "l usr/bin/gcc gcc-12",
		"l usr/bin/cc gcc", NULL });
	/* Only a link, through the merged-/usr compatibility path /lib. */
	add_artifact(st, "libz-dev", "1.2", (const char *const[]){
		"l usr/lib/x86_64-linux-gnu/libz.so /lib/x86_64-linux-gnu/libz.so.1", NULL });
	/* Two versions of one name: the suggestion must say which. */
	add_artifact(st, "dup", "1", (const char *const[]){ "f usr/share/dup/data", NULL });
	add_artifact(st, "dup", "2", (const char *const[]){ "f usr/share/dup/other", NULL });
	free(sdir);
	*dir_out = dir;
	return st;
}

#include "suggest_fixture.h"


static void cleanup(struct hk_store *st, char *dir)
{
	hk_store_close(st);
	struct hk_error rm;
	CHECK_EQ_INT(0, hk_store_remove_tree(dir, &rm));
	free(dir);
}

static int run_diag(struct hk_store *st, const struct hk_policy *p, const char *const *closure,
		    size_t n_closure, bool sandbox, const struct hk_verdict *v,
		    struct hk_diagnosis *d)
{
	const struct hk_suggest_source src = hk_suggest_source_disk(st, NULL);
	struct hk_suggest_input in = { &src, p, closure, n_closure, sandbox, NULL };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_error err = { 0 };
	int r = hk_diagnose(s, v, d, &err);
	if (r < 0)
		HK_FAIL_AT("diagnose: %s", err.msg);
	hk_suggester_free(s);
	return r;
}

/* ---- tests ---- */

TEST(declarable_vs_irreducible_with_the_exact_line)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	struct hk_policy p = HK_POLICY_INIT;
	parse_policy(POLICY, &p);
	const struct den ds[] = {
		{ "fs.execute,fs.read_file", "/usr/bin/make", "/usr/bin/dash" },
		{ "fs.read_file", "/usr/lib/x86_64-linux-gnu/libfoo.so.1", "/usr/bin/ld" },
		{ "fs.execute", "/usr/bin/c99", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 3, &p, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	struct hk_diagnosis d;
	REQUIRE(run_diag(st, &p, NULL, 0, true, &v, &d) == 0);
	REQUIRE(d.n == 3);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	CHECK_STR_EQ("declare dep: make", d.items[0].line);
	/* Both providers, best first: same kind (file), then by name. */
	REQUIRE(d.items[0].n_providers == 2);
	CHECK_STR_EQ("make", d.items[0].providers[0].name);
	CHECK_STR_EQ("remake", d.items[0].providers[1].name);
	CHECK_EQ_INT(HK_PROVIDES_FILE, d.items[0].providers[0].how);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[1].cls);
	CHECK(d.items[1].line == NULL);
	CHECK_CONTAINS(d.items[1].reason, "no artifact in the store provides");
	CHECK_EQ_INT(HK_DIAG_EXPECTED, d.items[2].cls);
	CHECK_EQ_INT(1, d.n_declarable);
	CHECK_EQ_INT(1, d.n_irreducible);
	CHECK_EQ_INT(1, d.n_expected);
	CHECK_EQ_INT(0, d.n_policy_bug);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	hk_policy_free(&p);
	cleanup(st, dir);
}

TEST(a_symlink_alias_names_its_provider_after_the_file)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	const struct den ds[] = {
		/* The kernel reports the target; binutils only ships the short name. */
		{ "fs.execute,fs.read_file", "/usr/bin/x86_64-linux-gnu-ranlib", "/usr/bin/make" },
		/* gcc ships /usr/bin/gcc -> gcc-12, whose target is gcc-12's file: two hops. */
		{ "fs.execute,fs.read_file", "/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/bin/make" },
		/* Provided only by a link written through /lib (merged /usr). */
		{ "fs.read_file", "/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/bin/ld" },
		/* A path shipped as a link by its provider. */
		{ "fs.execute", "/usr/bin/gmake", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 4, NULL, &v);
	struct hk_diagnosis d;
	REQUIRE(run_diag(st, NULL, NULL, 0, true, &v, &d) == 0);
	check_toolchain_diagnosis(&d);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	cleanup(st, dir);
}

TEST(providers_already_declared_are_not_suggested)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	const struct hk_artifact *make = NULL, *remake = NULL;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_find(st, "make", &make, &err) == 0);
	REQUIRE(hk_store_find(st, "remake", &remake, &err) == 0);
	const struct den ds[] = { { "fs.read_file", "/usr/bin/make", "/usr/bin/dash" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;

	const char *one[] = { make->dirname };
	REQUIRE(run_diag(st, NULL, one, 1, true, &v, &d) == 0);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	REQUIRE(d.items[0].n_providers == 1);
	CHECK_STR_EQ("declare dep: remake", d.items[0].line);
	hk_diagnosis_free(&d);

	const char *both[] = { make->dirname, remake->dirname };
	REQUIRE(run_diag(st, NULL, both, 2, true, &v, &d) == 0);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_CONTAINS(d.items[0].reason, "already in the closure");
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	cleanup(st, dir);
}

TEST(an_ambiguous_name_is_suggested_with_its_version)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	const struct den ds[] = { { "fs.read_file", "/usr/share/dup/data", "/usr/bin/cat" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;
	REQUIRE(run_diag(st, NULL, NULL, 0, true, &v, &d) == 0);
	CHECK_STR_EQ("declare dep: dup=1", d.items[0].line);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	cleanup(st, dir);
}

TEST(who_tried_is_named_when_a_declared_dep_reaches_out)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	const struct hk_artifact *bx = NULL;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_find(st, "binutils-x86-64-linux-gnu", &bx, &err) == 0);
	const struct den ds[] = {
		{ "fs.read_file", "/usr/lib/llvm-14/lib/LLVMgold.so", "/usr/bin/x86_64-linux-gnu-ranlib" },
		{ "fs.read_file", "/usr/lib/llvm-14/lib/LLVMgold.so", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;
	const char *closure[] = { bx->dirname };
	REQUIRE(run_diag(st, NULL, closure, 1, true, &v, &d) == 0);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_STR_EQ("binutils-x86-64-linux-gnu", d.items[0].exe_declared_by);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	/* Control: the base root's dash is nobody's declared artifact. */
	verdict_of(ds + 1, 1, NULL, &v);
	REQUIRE(run_diag(st, NULL, closure, 1, true, &v, &d) == 0);
	CHECK(d.items[0].exe_declared_by == NULL);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	cleanup(st, dir);
}

/* A local build's output that carries a Debian package's file is never suggested over the
 * package, whatever their names (the build's is named to sort first): providers are ranked
 * by how they provide the path, then by origin — a Debian package, imported or in the pinned
 * base, before a tree added by hand, before a build's output — then by name. */
TEST(a_debian_package_ranks_before_a_local_build_of_the_same_file)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	static const char deb[] = "{\"type\":\"deb\"}";
	static const char built[] = "{\"built_by\":\"harkaq build\",\"recipe_hash\":\"b3:00\"}";
	add_artifact_from(st, "aaa-bzip2", "1", built, (const char *const[]){
		"f usr/include/bzlib.h", "f usr/bin/x86_64-linux-gnu-strip", "f usr/bin/dd", NULL });
	add_artifact_from(st, "libbz2-dev", "1.0.8", deb,
			  (const char *const[]){ "f usr/include/bzlib.h", NULL });
	add_artifact(st, "bz-by-hand", "1", (const char *const[]){ "f usr/include/bzlib.h", NULL });
	/* A Debian package that only links to the build's file: the file's provider comes
	 * first (declaring the link alone would not grant the file). */
	add_artifact_from(st, "binutils-strip", "2.40", deb, (const char *const[]){
		"l usr/bin/strip x86_64-linux-gnu-strip", NULL });
	/* A base root whose coreutils ships /usr/bin/dd (a file the database lists and the root
	 * holds). */
	char *base = hk_xasprintf("%s/base", dir);
	char *info = hk_xasprintf("%s/var/lib/dpkg/info/", base);
	char *dd = hk_xasprintf("%s/usr/bin/dd", base);
	mkparents(info);
	mkparents(dd);
	char *list = hk_xasprintf("%scoreutils.list", info), *status = hk_xasprintf(
		"%s/var/lib/dpkg/status", base);
	FILE *f = fopen(dd, "w");
	REQUIRE(f != NULL);
	fclose(f);
	f = fopen(list, "w");
	REQUIRE(f != NULL);
	fputs("/.\n/usr/bin/dd\n", f);
	fclose(f);
	f = fopen(status, "w");
	REQUIRE(f != NULL);
	fputs("Package: coreutils\nStatus: install ok installed\nVersion: 9.1-1\n"
	      "Architecture: amd64\n", f);
	fclose(f);
	const struct den ds[] = {
		{ "fs.read_file", "/usr/include/bzlib.h", "/usr/lib/gcc/cc1" },
		{ "fs.execute,fs.read_file", "/usr/bin/x86_64-linux-gnu-strip", "/usr/bin/dash" },
		{ "fs.execute,fs.read_file", "/usr/bin/dd", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 3, NULL, &v);
	const struct hk_suggest_source src = hk_suggest_source_disk(st, base);
	struct hk_suggest_input in = { .source = &src, .sandbox_contract = true };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_diagnosis d;
	struct hk_error err = { 0 };
	REQUIRE(hk_diagnose(s, &v, &d, &err) == 0);
	REQUIRE(d.n == 3);
	const struct hk_diag_item *h = &d.items[0];
	REQUIRE(h->n_providers == 3);
	CHECK_STR_EQ("libbz2-dev", h->providers[0].name);
	CHECK_STR_EQ("deb", h->providers[0].origin);
	CHECK_STR_EQ("bz-by-hand", h->providers[1].name);
	CHECK_STR_EQ("added", h->providers[1].origin);
	CHECK_STR_EQ("aaa-bzip2", h->providers[2].name);
	CHECK_STR_EQ("build", h->providers[2].origin);
	CHECK_STR_EQ("declare dep: libbz2-dev", h->line);
	const struct hk_diag_item *x = &d.items[1];
	REQUIRE(x->n_providers == 2);
	CHECK_STR_EQ("aaa-bzip2", x->providers[0].name);
	CHECK_EQ_INT(HK_PROVIDES_FILE, x->providers[0].how);
	CHECK_STR_EQ("binutils-strip", x->providers[1].name);
	CHECK_EQ_INT(HK_PROVIDES_ALIAS, x->providers[1].how);
	/* The base's package, a Debian package too, before the build's output. */
	const struct hk_diag_item *b = &d.items[2];
	REQUIRE(b->n_providers == 2);
	CHECK_STR_EQ("coreutils", b->providers[0].name);
	CHECK_STR_EQ("base", b->providers[0].origin);
	CHECK_STR_EQ("aaa-bzip2", b->providers[1].name);
	CHECK_STR_EQ("Debian package", hk_provider_origin_label("deb"));
	CHECK_STR_EQ("local build", hk_provider_origin_label("build"));
	hk_diagnosis_free(&d);
	hk_suggester_free(s);
	hk_verdict_free(&v);
	free(list);
	free(status);
	free(info);
	free(dd);
	free(base);
	cleanup(st, dir);
}

/* The source's own answers, one question at a time: the store's path index (a base in the
 * store is never a provider, though the store holds it), its look-ups by name, its manifests'
 * symlinks, and the base root's dpkg database and tree. */
TEST(the_disk_source_answers_from_the_index_the_manifests_and_the_base)
{
	char *dir;
	struct hk_store *st = make_store(&dir);
	add_artifact_from(st, "pinned", "1", "{\"type\":\"base\"}",
			  (const char *const[]){ "f usr/bin/only-in-the-base", NULL });
	char *base = hk_xasprintf("%s/base", dir);
	char *dd = hk_xasprintf("%s/usr/bin/dd", base), *made = hk_xasprintf("%s/etc/made", base);
	char *list = hk_xasprintf("%s/var/lib/dpkg/info/coreutils.list", base);
	char *status = hk_xasprintf("%s/var/lib/dpkg/status", base);
	const char *const files[][2] = {
		{ dd, "" }, { made, "" }, { list, "/.\n/usr/bin/dd\n" },
		{ status, "Package: coreutils\nStatus: install ok installed\nVersion: 9.1-1\n"
			  "Architecture: amd64\n" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(files); i++) {
		mkparents(files[i][0]);
		FILE *f = fopen(files[i][0], "w");
		REQUIRE(f != NULL);
		fputs(files[i][1], f);
		fclose(f);
	}
	struct hk_suggest_source src = hk_suggest_source_disk(st, base);
	struct hk_error err = { 0 };

	const struct hk_artifact **arts = NULL;
	size_t n = 0;
	REQUIRE(src.providers(src.ctx, "/usr/bin/make", &arts, &n, &err) == 0);
	REQUIRE(n == 2);   /* in the index's order: by directory name */
	CHECK((strcmp(arts[0]->name, "make") == 0 && strcmp(arts[1]->name, "remake") == 0) ||
	      (strcmp(arts[0]->name, "remake") == 0 && strcmp(arts[1]->name, "make") == 0));
	free(arts);
	REQUIRE(src.providers(src.ctx, "/usr/bin/only-in-the-base", &arts, &n, &err) == 0);
	CHECK_EQ_INT(0, n);
	free(arts);
	const struct hk_artifact *a = NULL;
	REQUIRE(src.find(src.ctx, "pinned", &a, &err) == 0);   /* control: the store holds it */
	CHECK_EQ_INT(HK_ORIGIN_BASE, a->origin);
	CHECK(src.find(src.ctx, "dup", &a, &err) < 0);          /* two versions: ambiguous */
	REQUIRE(src.find(src.ctx, "dup=2", &a, &err) == 0);
	CHECK_STR_EQ("2", a->version);

	REQUIRE(src.find(src.ctx, "binutils", &a, &err) == 0);
	struct hk_tree t = HK_TREE_INIT;
	REQUIRE(src.files(src.ctx, a, &t, &err) == 0);
	bool link_seen = false;
	for (size_t i = 0; i < t.n; i++)
		link_seen |= t.entries[i].type == HK_TREE_SYMLINK &&
			     strcmp(t.entries[i].path, "usr/bin/ranlib") == 0 &&
			     strcmp(t.entries[i].target, "x86_64-linux-gnu-ranlib") == 0;
	CHECK(link_seen);
	hk_tree_free(&t);

	const char *owners = NULL;
	REQUIRE(src.base_owners(src.ctx, "/usr/bin/dd", &owners, &err) == 0);
	CHECK_STR_EQ("coreutils", owners);
	CHECK_STR_EQ("9.1-1", src.base_version(src.ctx, "coreutils"));
	CHECK_STR_EQ("", src.base_version(src.ctx, "no-such-package"));
	REQUIRE(src.base_owners(src.ctx, "/etc/made", &owners, &err) == 0);
	CHECK(owners == NULL);                                   /* no package lists it ... */
	CHECK(src.base_ships(src.ctx, "/etc/made"));              /* ... yet the base has it */
	CHECK(!src.base_ships(src.ctx, "/usr/bin"));              /* a directory is not shipped */
	CHECK(!src.base_ships(src.ctx, "/usr/bin/absent"));
	src.release(src.ctx);

	/* Without a store or a base, those questions have no answer at all. */
	struct hk_suggest_source none = hk_suggest_source_disk(NULL, NULL);
	CHECK(none.providers == NULL && none.find == NULL && none.files == NULL &&
	      none.artifacts == NULL);
	CHECK(none.base_owners == NULL && none.base_ships == NULL);
	none.release(none.ctx);
	free(dd);
	free(made);
	free(list);
	free(status);
	free(base);
	cleanup(st, dir);
}
