/* The diagnosis (design.md §8) over a store and a base held in memory: no file is read, the
 * source below answers every question the diagnosis asks (core/evidence/suggest.h, struct
 * hk_suggest_source).  Declarable vs irreducible debt, symlink aliases, provider ranking,
 * policy bugs kept apart from debt, view traps, the base's packages — on verdicts computed
 * from audit records in the kernel's own text.  The source on disk is tested in
 * test_suggest_source.c. */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>

#include "core/evidence/evidence.h"
#include "core/policy/policy.h"
#include "core/store/store.h"
#include "core/evidence/suggest.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"
#include "core/store/view_trap.h"

#define CANARY "/.harkaq/canary-0b5e1f0a77c2d94b"
#define DOMAIN "2a5374efb"

/* ---- a store and a base in memory ---- */

#define MAX_ARTS 32

struct mem_source {
	struct hk_artifact arts[MAX_ARTS];
	char **entries[MAX_ARTS];   /* "f usr/bin/make", "l usr/bin/gmake make"; NULL-ended */
	const struct hk_artifact *list[MAX_ARTS];
	size_t n;
	/* The pinned base: {path, owners} and {package, version} pairs, and the non-directories
	 * of its tree; each NULL-terminated, or NULL for none. */
	const char *const (*owners)[2];
	const char *const (*versions)[2];
	const char *const *ships;
	int fail_providers;    /* non-zero: providers() fails with this -errno */
	unsigned released;     /* how many times release() ran */
};

static void mem_add(struct mem_source *m, const char *name, const char *version,
		    enum hk_artifact_origin origin, const char *const *entries)
{
	REQUIRE(m->n < MAX_ARTS);
	struct hk_artifact *a = &m->arts[m->n];
	memset(a, 0, sizeof(*a));
	hk_autofree char *identity = hk_xasprintf("%s=%s", name, version);
	hk_b3_id(identity, strlen(identity), a->id);
	a->dirname = hk_xasprintf("%s-%s", a->id + 3, name);
	a->name = hk_xstrdup(name);
	a->version = hk_xstrdup(version);
	a->origin = origin;
	/* Copied: the fixtures pass compound literals, which live only in their block. */
	size_t n = 0;
	while (entries[n])
		n++;
	m->entries[m->n] = hk_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		m->entries[m->n][i] = hk_xstrdup(entries[i]);
	m->list[m->n] = a;
	m->n++;
}

static void mem_free(struct mem_source *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->arts[i].dirname);
		free(m->arts[i].name);
		free(m->arts[i].version);
		for (char **e = m->entries[i]; *e; e++)
			free(*e);
		free(m->entries[i]);
	}
}

/* Entry `e` of an artifact: its kind, its path relative to the root and its link target. */
static char entry_split(const char *e, char *path, size_t size, const char **target)
{
	const char *rest = e + 2, *sp = strchr(rest, ' ');
	size_t n = sp ? (size_t)(sp - rest) : strlen(rest);
	REQUIRE(n < size);
	memcpy(path, rest, n);
	path[n] = '\0';
	*target = sp ? sp + 1 : NULL;
	return e[0];
}

static int mem_artifacts(void *ctx, const struct hk_artifact *const **arts, size_t *n,
			 struct hk_error *err)
{
	struct mem_source *m = ctx;
	(void)err;
	*arts = m->list;
	*n = m->n;
	return 0;
}

static int mem_files(void *ctx, const struct hk_artifact *a, struct hk_tree *out,
		     struct hk_error *err)
{
	struct mem_source *m = ctx;
	(void)err;
	const uint8_t none[HK_BLAKE3_OUT_LEN] = { 0 };
	size_t i = (size_t)(a - m->arts);
	for (char **e = m->entries[i]; *e; e++) {
		char path[256];
		const char *target;
		if (entry_split(*e, path, sizeof(path), &target) == 'f')
			hk_tree_add(out, path, HK_TREE_FILE, false, none, NULL, 0);
		else
			hk_tree_add(out, path, HK_TREE_SYMLINK, false, NULL, target, strlen(target));
	}
	return 0;
}

static int mem_providers(void *ctx, const char *path, const struct hk_artifact ***out,
			 size_t *n, struct hk_error *err)
{
	struct mem_source *m = ctx;
	*out = NULL;
	*n = 0;
	if (m->fail_providers)
		return hk_fail(err, m->fail_providers, "the path index cannot be read");
	*out = hk_xcalloc(m->n + 1, sizeof(**out));
	for (size_t i = 0; i < m->n; i++) {
		for (char **e = m->entries[i]; *e; e++) {
			char rel[256];
			const char *target;
			entry_split(*e, rel, sizeof(rel), &target);
			if (path[0] == '/' && strcmp(path + 1, rel) == 0) {
				(*out)[(*n)++] = &m->arts[i];
				break;
			}
		}
	}
	return 0;
}

/* A directory name, "b3:" and an id prefix, NAME=VERSION, or NAME (several: ambiguous). */
static int mem_find(void *ctx, const char *query, const struct hk_artifact **out,
		    struct hk_error *err)
{
	struct mem_source *m = ctx;
	const char *eq = strchr(query, '=');
	size_t found = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct hk_artifact *a = &m->arts[i];
		bool match;
		if (strcmp(a->dirname, query) == 0)
			match = true;
		else if (strncmp(query, "b3:", 3) == 0)
			match = strncmp(a->id, query, strlen(query)) == 0;
		else if (eq)
			match = strlen(a->name) == (size_t)(eq - query) &&
				strncmp(a->name, query, (size_t)(eq - query)) == 0 &&
				strcmp(a->version, eq + 1) == 0;
		else
			match = strcmp(a->name, query) == 0;
		if (match) {
			*out = a;
			found++;
		}
	}
	if (found == 1)
		return 0;
	return hk_fail(err, found ? EEXIST : ENOENT, "%s: %zu artifacts", query, found);
}

static int mem_base_owners(void *ctx, const char *path, const char **owners,
			   struct hk_error *err)
{
	struct mem_source *m = ctx;
	(void)err;
	*owners = NULL;
	for (size_t i = 0; m->owners && m->owners[i][0]; i++)
		if (strcmp(m->owners[i][0], path) == 0)
			*owners = m->owners[i][1];
	return 0;
}

static const char *mem_base_version(void *ctx, const char *name)
{
	struct mem_source *m = ctx;
	for (size_t i = 0; m->versions && m->versions[i][0]; i++)
		if (strcmp(m->versions[i][0], name) == 0)
			return m->versions[i][1];
	return "";
}

static bool mem_base_ships(void *ctx, const char *path)
{
	struct mem_source *m = ctx;
	for (size_t i = 0; m->ships && m->ships[i]; i++)
		if (strcmp(m->ships[i], path) == 0)
			return true;
	return false;
}

static void mem_release(void *ctx)
{
	struct mem_source *m = ctx;
	m->released++;
}

static struct hk_suggest_source source_of(struct mem_source *m)
{
	return (struct hk_suggest_source){
		.ctx = m,
		.artifacts = mem_artifacts,
		.files = mem_files,
		.providers = mem_providers,
		.find = mem_find,
		.base_owners = mem_base_owners,
		.base_version = mem_base_version,
		.base_ships = mem_base_ships,
	};
}

/* The store of the reference scenarios (docs/diagnosis.md). */
static void fill_store(struct mem_source *m)
{
	memset(m, 0, sizeof(*m));
	mem_add(m, "make", "4.3", HK_ORIGIN_OTHER,
		(const char *const[]){ "f usr/bin/make", "l usr/bin/gmake make", NULL });
	/* A second provider of the same file: listed after make (by name). */
	mem_add(m, "remake", "4.3", HK_ORIGIN_OTHER, (const char *const[]){ "f usr/bin/make", NULL });
	/* Debian's split of binutils: the real file in one package, the short name in another. */
	mem_add(m, "binutils-x86-64-linux-gnu", "2.40", HK_ORIGIN_OTHER,
		(const char *const[]){ "f usr/bin/x86_64-linux-gnu-ranlib", NULL });
	mem_add(m, "binutils", "2.40", HK_ORIGIN_OTHER,
		(const char *const[]){ "l usr/bin/ranlib x86_64-linux-gnu-ranlib", NULL });
	/* A chain across artifacts: /usr/bin/cc -> gcc -> gcc-12 -> x86_64-linux-gnu-gcc-12. */
	mem_add(m, "gcc-12", "12.2", HK_ORIGIN_OTHER, (const char *const[]){
		"f usr/bin/x86_64-linux-gnu-gcc-12", "l usr/bin/gcc-12 x86_64-linux-gnu-gcc-12",
		NULL });
	mem_add(m, "gcc", "12.2", HK_ORIGIN_OTHER,
		(const char *const[]){ "l usr/bin/gcc gcc-12", "l usr/bin/cc gcc", NULL });
	/* Only a link, through the merged-/usr compatibility path /lib. */
	mem_add(m, "libz-dev", "1.2", HK_ORIGIN_OTHER, (const char *const[]){
		"l usr/lib/x86_64-linux-gnu/libz.so /lib/x86_64-linux-gnu/libz.so.1", NULL });
	/* Two versions of one name: the suggestion must say which. */
	mem_add(m, "dup", "1", HK_ORIGIN_OTHER, (const char *const[]){ "f usr/share/dup/data", NULL });
	mem_add(m, "dup", "2", HK_ORIGIN_OTHER, (const char *const[]){ "f usr/share/dup/other", NULL });
}

static const struct hk_artifact *art_named(struct mem_source *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->arts[i].name, name) == 0)
			return &m->arts[i];
	HK_FAIL_AT("no artifact %s in the fixture", name);
	return NULL;
}

/* ---- verdicts from the kernel's records: suggest_fixture.h ---- */

#include "suggest_fixture.h"


/* Diagnoses `v` over `m` (NULL: no source at all). */
static void run_diag(struct mem_source *m, const struct hk_policy *p, const char *const *closure,
		     size_t n_closure, bool sandbox, const struct hk_verdict *v,
		     struct hk_diagnosis *d)
{
	const struct hk_suggest_source src = m ? source_of(m) : (struct hk_suggest_source){ 0 };
	struct hk_suggest_input in = { m ? &src : NULL, p, closure, n_closure, sandbox, NULL };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_error err = { 0 };
	if (hk_diagnose(s, v, d, &err) < 0)
		HK_FAIL_AT("diagnose: %s", err.msg);
	hk_suggester_free(s);
}

/* ---- tests ---- */

/* The same denial, three sources: the one that ships the path makes it declarable (the
 * positive control of the two that cannot). */
TEST(declarable_when_the_source_ships_the_path_irreducible_from_an_empty_source)
{
	const struct den ds[] = { { "fs.execute,fs.read_file", "/usr/bin/make", "/usr/bin/dash" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;

	struct mem_source m;
	fill_store(&m);
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 1);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	CHECK_STR_EQ("declare dep: make", d.items[0].line);
	hk_diagnosis_free(&d);
	mem_free(&m);

	struct mem_source empty;
	memset(&empty, 0, sizeof(empty));
	run_diag(&empty, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 1);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK(d.items[0].line == NULL);
	CHECK_CONTAINS(d.items[0].reason, "no artifact in the store provides /usr/bin/make");
	hk_diagnosis_free(&d);

	run_diag(NULL, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 1);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_EQ_INT(1, d.n_irreducible);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
}

TEST(declarable_vs_irreducible_with_the_exact_line)
{
	struct mem_source m;
	fill_store(&m);
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
	run_diag(&m, &p, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 3);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	CHECK_STR_EQ("declare dep: make", d.items[0].line);
	/* Both providers, best first: same kind (file), then by name. */
	REQUIRE(d.items[0].n_providers == 2);
	CHECK_STR_EQ("make", d.items[0].providers[0].name);
	CHECK_STR_EQ("remake", d.items[0].providers[1].name);
	CHECK_EQ_INT(HK_PROVIDES_FILE, d.items[0].providers[0].how);
	CHECK_STR_EQ("added", d.items[0].providers[0].origin);
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
	mem_free(&m);
}

TEST(a_symlink_alias_names_its_provider_after_the_file)
{
	struct mem_source m;
	fill_store(&m);
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
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	check_toolchain_diagnosis(&d);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

TEST(policy_bugs_are_kept_apart_from_debt)
{
	struct mem_source m;
	fill_store(&m);
	struct hk_policy p = HK_POLICY_INIT;
	parse_policy(POLICY, &p);
	const struct den ds[] = {
		{ "fs.read_file", "/dev/tty", "/usr/bin/cat" },                  /* contract */
		{ "fs.write_file", "/tmp/build/x.o", "/usr/bin/as" },            /* contract, rw */
		{ "fs.execute,fs.read_file", "/usr/bin/dash", "/usr/bin/make" }, /* granted ro */
		{ "fs.read_dir", "/usr/lib/x86_64-linux-gnu", "/usr/bin/ls" },   /* list / covers it */
		{ "fs.write_file", "/usr/bin/dash", "/usr/bin/sed" },            /* ro input written */
		{ "fs.read_file", "/usr/bin/make", "/usr/bin/dash" },            /* real debt */
	};
	struct hk_verdict v;
	verdict_of(ds, 6, &p, &v);
	struct hk_diagnosis d;
	run_diag(&m, &p, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 6);
	for (size_t i = 0; i < 4; i++) {
		CHECK_EQ_INT(HK_DIAG_POLICY_BUG, d.items[i].cls);
		CHECK(d.items[i].line == NULL);   /* never "declare dep" */
		CHECK_EQ_INT(0, d.items[i].n_providers);
	}
	CHECK_CONTAINS(d.items[0].reason, "contract surface");
	CHECK_CONTAINS(d.items[2].reason, "the grant did not take");
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[4].cls);
	CHECK_CONTAINS(d.items[4].reason, "read-only");
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[5].cls);   /* positive control */
	CHECK_EQ_INT(4, d.n_policy_bug);
	hk_diagnosis_free(&d);

	/* Outside harkaq's sandbox (harkaq run on the host) /tmp and /dev are the host's: not
	 * contract, so not a policy bug. */
	run_diag(&m, NULL, NULL, 0, false, &v, &d);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[1].cls);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	hk_policy_free(&p);
	mem_free(&m);
}

TEST(providers_already_declared_are_not_suggested)
{
	struct mem_source m;
	fill_store(&m);
	const struct den ds[] = { { "fs.read_file", "/usr/bin/make", "/usr/bin/dash" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;

	const char *one[] = { art_named(&m, "make")->dirname };
	run_diag(&m, NULL, one, 1, true, &v, &d);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	REQUIRE(d.items[0].n_providers == 1);
	CHECK_STR_EQ("declare dep: remake", d.items[0].line);
	hk_diagnosis_free(&d);

	const char *both[] = { one[0], art_named(&m, "remake")->dirname };
	run_diag(&m, NULL, both, 2, true, &v, &d);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_CONTAINS(d.items[0].reason, "already in the closure");
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

TEST(an_ambiguous_name_is_suggested_with_its_version)
{
	struct mem_source m;
	fill_store(&m);
	const struct den ds[] = { { "fs.read_file", "/usr/share/dup/data", "/usr/bin/cat" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	CHECK_STR_EQ("declare dep: dup=1", d.items[0].line);
	CHECK_STR_EQ("dup=1", d.items[0].providers[0].spec);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

TEST(who_tried_is_named_when_a_declared_dep_reaches_out)
{
	struct mem_source m;
	fill_store(&m);
	const struct den ds[] = {
		{ "fs.read_file", "/usr/lib/llvm-14/lib/LLVMgold.so", "/usr/bin/x86_64-linux-gnu-ranlib" },
		{ "fs.read_file", "/usr/lib/llvm-14/lib/LLVMgold.so", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	struct hk_diagnosis d;
	const char *closure[] = { art_named(&m, "binutils-x86-64-linux-gnu")->dirname };
	run_diag(&m, NULL, closure, 1, true, &v, &d);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_STR_EQ("binutils-x86-64-linux-gnu", d.items[0].exe_declared_by);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	/* Control: the base root's dash is nobody's declared artifact. */
	verdict_of(ds + 1, 1, NULL, &v);
	run_diag(&m, NULL, closure, 1, true, &v, &d);
	CHECK(d.items[0].exe_declared_by == NULL);
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

TEST(contract_surfaces_are_matched_by_component)
{
	CHECK(hk_contract_surface("/tmp"));
	CHECK(hk_contract_surface("/tmp/a"));
	CHECK(hk_contract_surface("/dev/tty"));
	CHECK(hk_contract_surface("/.harkaq/policy"));
	CHECK(!hk_contract_surface("/tmpx/a"));
	CHECK(!hk_contract_surface("/usr/src/linux"));
	CHECK(!hk_contract_surface("/devices"));
}

/* Providers are ranked by how they provide the path, then by origin — a Debian package,
 * imported or in the pinned base, before a tree added by hand, before a build's output —
 * then by name; a base artifact of the store is never one. */
TEST(providers_are_ranked_by_origin_and_a_base_is_never_one)
{
	struct mem_source m;
	memset(&m, 0, sizeof(m));
	mem_add(&m, "aaa-bzip2", "1", HK_ORIGIN_BUILD, (const char *const[]){
		"f usr/include/bzlib.h", "f usr/bin/x86_64-linux-gnu-strip", "f usr/bin/dd", NULL });
	mem_add(&m, "libbz2-dev", "1.0.8", HK_ORIGIN_DEB,
		(const char *const[]){ "f usr/include/bzlib.h", NULL });
	mem_add(&m, "bz-by-hand", "1", HK_ORIGIN_OTHER,
		(const char *const[]){ "f usr/include/bzlib.h", NULL });
	/* A Debian package that only links to the build's file: the file's provider comes first
	 * (declaring the link alone would not grant the file). */
	mem_add(&m, "binutils-strip", "2.40", HK_ORIGIN_DEB,
		(const char *const[]){ "l usr/bin/strip x86_64-linux-gnu-strip", NULL });
	/* A pinned base and a dpkg state in the store ship files too, and links to them. */
	mem_add(&m, "the-base", "1", HK_ORIGIN_BASE, (const char *const[]){
		"f usr/include/bzlib.h", "f usr/bin/from-the-base", "l usr/bin/b from-the-base", NULL });
	mem_add(&m, "a-state", "1", HK_ORIGIN_STATE,
		(const char *const[]){ "l usr/bin/yacc bison", NULL });
	/* The pinned base's coreutils ships /usr/bin/dd. */
	static const char *const owners[][2] = { { "/usr/bin/dd", "coreutils, busybox" }, { NULL, NULL } };
	static const char *const versions[][2] = { { "coreutils", "9.1-1" }, { NULL, NULL } };
	m.owners = owners;
	m.versions = versions;
	const struct den ds[] = {
		{ "fs.read_file", "/usr/include/bzlib.h", "/usr/lib/gcc/cc1" },
		{ "fs.execute,fs.read_file", "/usr/bin/x86_64-linux-gnu-strip", "/usr/bin/dash" },
		{ "fs.execute,fs.read_file", "/usr/bin/dd", "/usr/bin/dash" },
		{ "fs.execute,fs.read_file", "/usr/bin/from-the-base", "/usr/bin/dash" },
		{ "fs.execute,fs.read_file", "/usr/bin/bison", "/usr/bin/dash" },
	};
	struct hk_verdict v;
	verdict_of(ds, 5, NULL, &v);
	struct hk_diagnosis d;
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 5);
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
	/* The base's package, a Debian package too, before the build's output; the first of
	 * the packages that list the path, with its version. */
	const struct hk_diag_item *b = &d.items[2];
	REQUIRE(b->n_providers == 2);
	CHECK_STR_EQ("coreutils", b->providers[0].name);
	CHECK_STR_EQ("9.1-1", b->providers[0].version);
	CHECK_STR_EQ("base", b->providers[0].origin);
	CHECK(b->providers[0].id == NULL);
	CHECK_STR_EQ("aaa-bzip2", b->providers[1].name);
	CHECK_STR_EQ("declare dep: coreutils (/usr/bin/dd is in the base, from coreutils)", b->line);
	/* Shipped, or linked to, only by the base artifact and the dpkg state: nobody to declare. */
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[3].cls);
	CHECK_EQ_INT(0, d.items[3].n_providers);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[4].cls);
	CHECK_EQ_INT(0, d.items[4].n_providers);
	CHECK_STR_EQ("Debian package", hk_provider_origin_label("deb"));
	CHECK_STR_EQ("local build", hk_provider_origin_label("build"));
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

/* A file of the base no package lists (its maintainer scripts made it) is the base's: only
 * the base profile can grant it.  Control: a path the base does not hold stays "nobody
 * provides it". */
TEST(a_base_file_no_package_lists_is_the_base_profiles)
{
	struct mem_source m;
	memset(&m, 0, sizeof(m));
	static const char *const ships[] = { "/etc/alternatives/cc", NULL };
	m.ships = ships;
	const struct den ds[] = {
		{ "fs.read_file", "/etc/alternatives/cc", "/usr/bin/make" },
		{ "fs.read_file", "/etc/alternatives/c++", "/usr/bin/make" },
	};
	struct hk_verdict v;
	verdict_of(ds, 2, NULL, &v);
	struct hk_diagnosis d;
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 2);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[0].cls);
	CHECK_CONTAINS(d.items[0].reason, "made by its maintainer scripts");
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[1].cls);
	CHECK_CONTAINS(d.items[1].reason, "no artifact in the store provides");
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

/* A trap of the store view names the artifact whose symlink the build followed: declarable
 * when it is undeclared, a policy bug when it is declared (its own layer should have shown
 * the link), irreducible when the store no longer has it. */
TEST(a_view_trap_names_the_artifact_whose_link_was_followed)
{
	struct mem_source m;
	fill_store(&m);
	const struct hk_artifact *libz = art_named(&m, "libz-dev");
	hk_autofree char *trap = hk_xasprintf(HK_VIEW_TRAP_DIR "/%s/usr/lib/x86_64-linux-gnu/"
					      "libz.so", libz->dirname);
	hk_autofree char *gone = hk_xasprintf(HK_VIEW_TRAP_DIR "/%064d-gone/usr/lib/libgone.so", 0);
	const struct den ds[] = {
		{ "fs.read_file", trap, "/usr/bin/ld" },
		{ "fs.read_file", gone, "/usr/bin/ld" },
	};
	struct hk_verdict v;
	verdict_of(ds, 2, NULL, &v);
	struct hk_diagnosis d;
	run_diag(&m, NULL, NULL, 0, true, &v, &d);
	REQUIRE(d.n == 2);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	REQUIRE(d.items[0].n_providers == 1);
	CHECK_STR_EQ("libz-dev", d.items[0].providers[0].name);
	CHECK_EQ_INT(HK_PROVIDES_LINK, d.items[0].providers[0].how);
	CHECK_STR_EQ("/usr/lib/x86_64-linux-gnu/libz.so", d.items[0].providers[0].via);
	CHECK_STR_EQ("declare dep: libz-dev (the build followed its symlink "
		     "/usr/lib/x86_64-linux-gnu/libz.so)", d.items[0].line);
	CHECK_EQ_INT(HK_DIAG_IRREDUCIBLE, d.items[1].cls);
	CHECK_CONTAINS(d.items[1].reason, "no longer in the store");
	hk_diagnosis_free(&d);

	const char *closure[] = { libz->dirname };
	run_diag(&m, NULL, closure, 1, true, &v, &d);
	CHECK_EQ_INT(HK_DIAG_POLICY_BUG, d.items[0].cls);
	CHECK_CONTAINS(d.items[0].reason, "the view's trap");
	hk_diagnosis_free(&d);
	hk_verdict_free(&v);
	mem_free(&m);
}

/* A source that cannot answer fails the diagnosis with its message, and leaves nothing
 * behind: a store that cannot be read is never "nobody provides it". */
TEST(a_source_that_cannot_answer_fails_the_diagnosis)
{
	struct mem_source m;
	fill_store(&m);
	m.fail_providers = EIO;
	const struct den ds[] = { { "fs.read_file", "/usr/bin/make", "/usr/bin/dash" } };
	struct hk_verdict v;
	verdict_of(ds, 1, NULL, &v);
	const struct hk_suggest_source src = source_of(&m);
	struct hk_suggest_input in = { .source = &src, .sandbox_contract = true };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_diagnosis d;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EIO, hk_diagnose(s, &v, &d, &err));
	CHECK_CONTAINS(err.msg, "the path index cannot be read");
	CHECK_EQ_INT(0, d.n);
	CHECK(d.items == NULL);
	/* Control: the same source, answering, diagnoses. */
	m.fail_providers = 0;
	REQUIRE(hk_diagnose(s, &v, &d, &err) == 0);
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, d.items[0].cls);
	hk_diagnosis_free(&d);
	hk_suggester_free(s);
	hk_verdict_free(&v);
	mem_free(&m);
}

/* The suggester owns a source that has a release function, and only such a one. */
TEST(the_suggester_releases_a_source_it_owns)
{
	struct mem_source m;
	memset(&m, 0, sizeof(m));
	struct hk_suggest_source src = source_of(&m);
	struct hk_suggest_input in = { .source = &src };
	hk_suggester_free(hk_suggester_new(&in));
	CHECK_EQ_INT(0, m.released);          /* borrowed: not released */
	src.release = mem_release;
	hk_suggester_free(hk_suggester_new(&in));
	CHECK_EQ_INT(1, m.released);
}
