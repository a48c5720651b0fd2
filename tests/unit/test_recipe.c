/* The recipe model: strict loading with FILE:LINE:COL errors (each paired with the corrected
 * recipe loading), the example recipes, recipe_dir, and the recipe hash. */
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_file.h"
#include "core/basic/util.h"

static struct hk_error err;

static const char *tests_dir(void)
{
	const char *d = getenv("HARKAQ_TESTS");
	return d && *d ? d : "tests";
}

/* A minimal valid recipe; the error tests append to it or replace a line of it. */
#define HEAD "name = \"zlib\"\nversion = \"1.2.13\"\n"
#define SRC "[source]\ndir = \"src\"\n"
#define PHASES "[phases]\ncompile = \"make\"\n"
#define MINIMAL HEAD SRC PHASES

static int parse(const char *text, struct hk_recipe *r)
{
	hk_error_clear(&err);
	return hk_recipe_parse(text, strlen(text), "r.toml", "/recipes/zlib", r, &err);
}

static void check_rejects(const char *bad, const char *where, const char *fragment,
			  const char *good, int line)
{
	struct hk_recipe r;
	int rc = parse(bad, &r);
	if (rc >= 0) {
		HK_FAIL_AT("(line %d) accepted:\n%s", line, bad);
		hk_recipe_free(&r);
	} else {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "r.toml:%s: ", where);
		if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
			HK_FAIL_AT("(line %d) expected position %s, got: %s", line, where, err.msg);
		if (!strstr(err.msg, fragment))
			HK_FAIL_AT("(line %d) message lacks \"%s\": %s", line, fragment, err.msg);
		CHECK_EQ_INT(-EINVAL, rc);
		/* On error the recipe is left empty. */
		CHECK(r.name == NULL && r.recipe_dir == NULL && r.n_build_deps == 0);
	}
	rc = parse(good, &r);
	if (rc < 0)
		HK_FAIL_AT("(line %d) the corrected recipe was rejected: %s", line, err.msg);
	else
		hk_recipe_free(&r);
}
#define REJECTS(bad, where, fragment, good) check_rejects(bad, where, fragment, good, __LINE__)

static char *data_path(const char *rel)
{
	return hk_xasprintf("%s/data/recipes/%s", tests_dir(), rel);
}

TEST(minimal_recipe_and_defaults)
{
	struct hk_recipe r;
	REQUIRE(parse(MINIMAL, &r) == 0);
	CHECK_STR_EQ("zlib", r.name);
	CHECK_STR_EQ("1.2.13", r.version);
	/* No base named: the pinned default, never this machine's own directories. */
	CHECK_STR_EQ("debian-12-essential", r.base);
	CHECK_EQ_INT(HK_BASE_STORE, r.base_kind);
	CHECK(r.base_root == NULL);
	CHECK_EQ_INT(HK_SOURCE_DIR, r.source.kind);
	CHECK_STR_EQ("src", r.source.spec);
	CHECK_STR_EQ("/recipes/zlib/src", r.source.path);
	CHECK_EQ_INT(4, r.source.pos.line);
	CHECK_EQ_INT(7, r.source.pos.col);
	CHECK_STR_EQ("/recipes/zlib", r.recipe_dir);
	CHECK(r.path == NULL);
	CHECK_EQ_INT(0, r.n_build_deps);
	CHECK_EQ_INT(0, r.n_runtime_deps);
	CHECK_EQ_INT(0, r.phases[HK_PHASE_CONFIGURE].n_commands);
	REQUIRE(r.phases[HK_PHASE_COMPILE].n_commands == 1);
	CHECK_STR_EQ("make", r.phases[HK_PHASE_COMPILE].commands[0]);
	CHECK_EQ_INT(0, r.phases[HK_PHASE_INSTALL].n_commands);
	CHECK_EQ_INT(0, r.n_env);
	CHECK_EQ_INT(0, r.n_expects);
	hk_recipe_free(&r);
	CHECK(r.name == NULL);
	CHECK_STR_EQ("configure", hk_phase_name(HK_PHASE_CONFIGURE));
	CHECK_STR_EQ("compile", hk_phase_name(HK_PHASE_COMPILE));
	CHECK_STR_EQ("install", hk_phase_name(HK_PHASE_INSTALL));
}

TEST(realistic_recipe_loads_with_all_fields)
{
	hk_autofree char *path = data_path("zlib-apt/recipe.toml");
	struct hk_recipe r;
	hk_error_clear(&err);
	int rc = hk_recipe_load(path, &r, &err);
	if (rc < 0)
		HK_FAIL_AT("%s", err.msg);
	REQUIRE(rc == 0);
	CHECK_STR_EQ("zlib", r.name);
	CHECK_STR_EQ("1.2.13", r.version);
	CHECK_STR_EQ("host", r.base);
	CHECK_EQ_INT(HK_BASE_HOST, r.base_kind);
	CHECK_EQ_INT(HK_SOURCE_APT, r.source.kind);
	CHECK_STR_EQ("zlib=1:1.2.13.dfsg-1", r.source.spec);
	CHECK_STR_EQ("zlib", r.source.apt_package);
	CHECK_STR_EQ("1:1.2.13.dfsg-1", r.source.apt_version);
	CHECK(r.source.path == NULL);
	REQUIRE(r.n_build_deps == 3);
	CHECK_STR_EQ("make", r.build_deps[0].spec);
	CHECK_STR_EQ("make", r.build_deps[0].name);
	CHECK_STR_EQ("binutils", r.build_deps[1].name);
	CHECK_STR_EQ("gcc-12", r.build_deps[2].name);
	CHECK_EQ_INT(13, r.build_deps[1].pos.line);
	CHECK_EQ_INT(3, r.build_deps[1].pos.col);
	CHECK_EQ_INT(0, r.n_runtime_deps);
	REQUIRE(r.phases[HK_PHASE_CONFIGURE].n_commands == 1);
	CHECK_STR_EQ("CHOST=x86_64-linux-gnu ./configure --prefix=/usr "
		     "--libdir=/usr/lib/x86_64-linux-gnu --shared",
		     r.phases[HK_PHASE_CONFIGURE].commands[0]);
	CHECK_EQ_INT(19, r.phases[HK_PHASE_CONFIGURE].pos.line);
	REQUIRE(r.phases[HK_PHASE_COMPILE].n_commands == 1);
	CHECK_STR_EQ("make -j2", r.phases[HK_PHASE_COMPILE].commands[0]);
	REQUIRE(r.phases[HK_PHASE_INSTALL].n_commands == 2);
	CHECK_STR_EQ("make install DESTDIR=/out", r.phases[HK_PHASE_INSTALL].commands[0]);
	CHECK_STR_EQ("rm -rf /out/usr/share/man", r.phases[HK_PHASE_INSTALL].commands[1]);
	REQUIRE(r.n_expects == 2);
	CHECK_STR_EQ("/usr/bin/gcc", r.expects[0]);
	CHECK_STR_EQ("/usr/lib/gcc/", r.expects[1]);
	CHECK_EQ_INT(32, r.expect_pos[1].line);
	/* env sorted by key, whatever the order in the file. */
	REQUIRE(r.n_env == 2);
	CHECK_STR_EQ("CC", r.env[0].key);
	CHECK_STR_EQ("gcc-12", r.env[0].value);
	CHECK_STR_EQ("CFLAGS", r.env[1].key);
	CHECK_STR_EQ("-O2 -g0", r.env[1].value);
	CHECK_EQ_INT(36, r.env[1].pos.line);
	/* recipe_dir: absolute, the file's real directory. */
	char real[PATH_MAX];
	REQUIRE(realpath(path, real) != NULL);
	CHECK_STR_EQ(real, r.path);
	*strrchr(real, '/') = '\0';
	CHECK_STR_EQ(real, r.recipe_dir);
	CHECK(r.recipe_dir[0] == '/');
	hk_recipe_free(&r);
}

TEST(example_recipes_load)
{
	struct hk_recipe r;
	hk_autofree char *hello = data_path("hello-dir/recipe.toml");
	hk_error_clear(&err);
	REQUIRE(hk_recipe_load(hello, &r, &err) == 0);
	CHECK_STR_EQ("hello", r.name);
	CHECK_EQ_INT(HK_SOURCE_DIR, r.source.kind);
	/* The source directory resolves next to the recipe, and is there. */
	hk_autofree char *src = hk_xasprintf("%s/src", r.recipe_dir);
	CHECK_STR_EQ(src, r.source.path);
	struct stat st;
	CHECK(stat(r.source.path, &st) == 0 && S_ISDIR(st.st_mode));
	hk_autofree char *c_file = hk_xasprintf("%s/hello.c", r.source.path);
	CHECK(access(c_file, R_OK) == 0);
	REQUIRE(r.phases[HK_PHASE_INSTALL].n_commands == 2);
	CHECK_STR_EQ("cp hello /out/usr/bin/hello", r.phases[HK_PHASE_INSTALL].commands[1]);
	hk_recipe_free(&r);

	hk_autofree char *tarball = data_path("hello-tarball/recipe.toml");
	REQUIRE(hk_recipe_load(tarball, &r, &err) == 0);
	CHECK_EQ_INT(HK_SOURCE_TARBALL, r.source.kind);
	CHECK_EQ_INT(HK_HASH_SHA256, r.source.hash_algo);
	CHECK_STR_EQ("fb1442f8182214f868d9f168e3c6293442136de8405770d4480fd1baaa90d798",
		     r.source.hash_hex);
	CHECK(stat(r.source.path, &st) == 0 && S_ISREG(st.st_mode));
	REQUIRE(r.phases[HK_PHASE_INSTALL].n_commands == 1);
	CHECK_STR_EQ("mkdir -p /out/usr/bin\ncp hello-1.0/hello /out/usr/bin/hello",
		     r.phases[HK_PHASE_INSTALL].commands[0]);
	CHECK_EQ_INT(3, r.n_build_deps);
	hk_recipe_free(&r);
}

/* The design's sweep lost the recipes with deps when it copied them elsewhere: relative
 * resolution must follow the recipe, not the working directory. */
TEST(recipe_dir_is_absolute_and_follows_the_real_file)
{
	char tmpl[] = "/tmp/harkaq-recipe-XXXXXX";
	REQUIRE(mkdtemp(tmpl) != NULL);
	char real_tmp[PATH_MAX];
	REQUIRE(realpath(tmpl, real_tmp) != NULL);
	hk_autofree char *sub = hk_xasprintf("%s/catalog", real_tmp);
	hk_autofree char *file = hk_xasprintf("%s/catalog/zlib.toml", real_tmp);
	hk_autofree char *other = hk_xasprintf("%s/elsewhere", real_tmp);
	hk_autofree char *link = hk_xasprintf("%s/elsewhere/zlib.toml", real_tmp);
	REQUIRE(mkdir(sub, 0755) == 0);
	REQUIRE(mkdir(other, 0755) == 0);
	FILE *f = fopen(file, "w");
	REQUIRE(f);
	fputs(HEAD "base = 'root:../roots/debian'\n" SRC PHASES, f);
	fclose(f);
	REQUIRE(symlink("../catalog/zlib.toml", link) == 0);

	char cwd[PATH_MAX];
	REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	/* Loaded by a relative path from another working directory. */
	REQUIRE(chdir(other) == 0);
	struct hk_recipe r;
	hk_error_clear(&err);
	int rc = hk_recipe_load("../catalog/zlib.toml", &r, &err);
	CHECK(chdir(cwd) == 0);
	REQUIRE(rc == 0);
	CHECK_STR_EQ(sub, r.recipe_dir);
	CHECK_STR_EQ(file, r.path);
	hk_autofree char *src = hk_xasprintf("%s/src", sub);
	CHECK_STR_EQ(src, r.source.path);
	hk_autofree char *root = hk_xasprintf("%s/roots/debian", real_tmp);
	CHECK_EQ_INT(HK_BASE_ROOT, r.base_kind);
	CHECK_STR_EQ(root, r.base_root);
	CHECK_STR_EQ("root:../roots/debian", r.base);
	char hash_direct[HK_B3_ID_LEN];
	hk_recipe_hash(&r, hash_direct);
	hk_recipe_free(&r);

	/* Through a symlink: the real file's directory, not the link's. */
	REQUIRE(hk_recipe_load(link, &r, &err) == 0);
	CHECK_STR_EQ(sub, r.recipe_dir);
	char hash_link[HK_B3_ID_LEN];
	hk_recipe_hash(&r, hash_link);
	hk_recipe_free(&r);
	/* The hash does not depend on where the recipe lies. */
	CHECK_STR_EQ(hash_direct, hash_link);

	/* A file that is not there names its path; a directory is refused. */
	hk_autofree char *missing = hk_xasprintf("%s/nope.toml", real_tmp);
	CHECK_EQ_INT(-ENOENT, hk_recipe_load(missing, &r, &err));
	CHECK_CONTAINS(err.msg, missing);
	CHECK_EQ_INT(-EINVAL, hk_recipe_load(sub, &r, &err));
	CHECK_CONTAINS(err.msg, "not a regular file");

	unlink(link);
	unlink(file);
	rmdir(other);
	rmdir(sub);
	rmdir(real_tmp);

	/* From memory: the directory given must be absolute. */
	CHECK(hk_recipe_parse(MINIMAL, strlen(MINIMAL), "r.toml", "relative/dir", &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "not absolute");
	CHECK(hk_recipe_parse(MINIMAL, strlen(MINIMAL), "r.toml", "/a/./b/../c/", &r, &err) == 0);
	CHECK_STR_EQ("/a/c", r.recipe_dir);
	hk_recipe_free(&r);
}

TEST(toml_errors_keep_their_position)
{
	REJECTS(HEAD SRC PHASES "install = \"make install\" \"again\"\n", "7:26",
		"expected the end of the line", MINIMAL);
	REJECTS(HEAD "name = \"again\"\n" SRC PHASES, "3:1", "duplicate key 'name'", MINIMAL);
	REJECTS(HEAD SRC PHASES "[source]\n", "7:2", "the table [source] is already defined at 3:2",
		MINIMAL);
	REJECTS(HEAD "[source]\ndir = \"src\n" PHASES, "4:7", "unterminated string", MINIMAL);
}

TEST(unknown_keys_and_tables)
{
	REJECTS(HEAD "descripton = 'x'\n" SRC PHASES, "3:1",
		"unknown key 'descripton' at the top level (allowed: name, version, base, [source], "
		"[deps], [phases], [expect], [env])", MINIMAL);
	REJECTS(HEAD "[sorce]\ndir = 'src'\n" PHASES, "3:2",
		"unknown table 'sorce' at the top level (allowed: name, version, base, [source], "
		"[deps], [phases], [expect], [env]); did you mean 'source'?", MINIMAL);
	REJECTS(HEAD "[source]\ndir = 'src'\nurl = 'x'\n" PHASES, "5:1",
		"unknown key 'url' in [source] (allowed: dir, tarball, sha256, b3, apt)", MINIMAL);
	REJECTS(MINIMAL "[deps]\nbuidl = ['make']\n", "8:1",
		"unknown key 'buidl' in [deps] (allowed: build, runtime); did you mean 'build'?",
		MINIMAL "[deps]\nbuild = ['make']\n");
	REJECTS(HEAD SRC PHASES "check = 'make check'\n", "7:1",
		"unknown key 'check' in [phases] (allowed: configure, compile, install)", MINIMAL);
	REJECTS(MINIMAL "[expect]\npath = ['/usr/bin/gcc']\n", "8:1",
		"unknown key 'path' in [expect] (allowed: paths); did you mean 'paths'?",
		MINIMAL "[expect]\npaths = ['/usr/bin/gcc']\n");
	REJECTS(MINIMAL "[phases.compile]\n", "7:9",
		"cannot define the table [phases.compile]: the key 'compile' is already a string "
		"(at 6:1)", MINIMAL);
	REJECTS(HEAD SRC "[phases.extra]\ncompile = 'make'\n", "5:9",
		"unknown table 'extra' in [phases]", MINIMAL);
}

TEST(wrong_types)
{
	REJECTS("name = 1\nversion = '1'\n" SRC PHASES, "1:8", "'name' must be a string, not an integer",
		MINIMAL);
	REJECTS(HEAD "source = 'src'\n" PHASES, "3:10",
		"'source' must be a table (a [source] header followed by its keys), not a string",
		MINIMAL);
	REJECTS(MINIMAL "[deps]\nbuild = 'make'\n", "8:9",
		"'build' in [deps] must be an array of dependencies", MINIMAL "[deps]\nbuild = ['make']\n");
	REJECTS(MINIMAL "[deps]\nbuild = ['make', 7]\n", "8:18",
		"each dependency in deps.build must be a string, not an integer",
		MINIMAL "[deps]\nbuild = ['make', '7']\n");
	REJECTS(HEAD SRC "[phases]\ncompile = true\n", "6:11",
		"phase 'compile' must be a command string or an array of command strings, not a boolean",
		MINIMAL);
	REJECTS(HEAD SRC "[phases]\ncompile = ['make', ['x']]\n", "6:20",
		"each command of phase 'compile' must be a string, not an array",
		HEAD SRC "[phases]\ncompile = ['make', 'x']\n");
	REJECTS(MINIMAL "[env]\nJOBS = 2\n", "8:8", "'JOBS' in [env] must be a string, not an integer",
		MINIMAL "[env]\nJOBS = '2'\n");
	REJECTS(MINIMAL "[expect]\npaths = '/usr/bin/gcc'\n", "8:9",
		"'paths' in [expect] must be an array of absolute paths",
		MINIMAL "[expect]\npaths = ['/usr/bin/gcc']\n");
	REJECTS(MINIMAL "[expect]\npaths = [1]\n", "8:10", "each path in expect.paths must be a string",
		MINIMAL "[expect]\npaths = []\n");
	REJECTS(HEAD "base = true\n" SRC PHASES, "3:8", "'base' must be a string", MINIMAL);
	REJECTS(HEAD "[source]\ndir = ['src']\n" PHASES, "4:7", "'dir' in [source] must be a string",
		MINIMAL);
}

TEST(required_keys)
{
	REJECTS("version = '1'\n" SRC PHASES, "1:1", "missing required key 'name'", MINIMAL);
	REJECTS("name = 'zlib'\n" SRC PHASES, "1:1", "missing required key 'version'", MINIMAL);
	REJECTS(HEAD PHASES, "1:1", "missing required table [source]", MINIMAL);
	REJECTS(HEAD SRC, "1:1", "missing required table [phases]", MINIMAL);
	REJECTS(HEAD SRC "\n[phases]\n", "6:2",
		"[phases] needs at least one of configure, compile or install", MINIMAL);
	REJECTS(HEAD "[source]\n" PHASES, "3:2", "[source] needs one of dir, tarball", MINIMAL);
}

TEST(names_and_versions)
{
	REJECTS("name = 'Zlib'\nversion = '1'\n" SRC PHASES, "1:8", "invalid name \"Zlib\"", MINIMAL);
	REJECTS("name = '.zlib'\nversion = '1'\n" SRC PHASES, "1:8", "invalid name", MINIMAL);
	REJECTS("name = 'z/lib'\nversion = '1'\n" SRC PHASES, "1:8", "store directory name", MINIMAL);
	REJECTS("name = ''\nversion = '1'\n" SRC PHASES, "1:8", "invalid name", MINIMAL);
	REJECTS("name = 'zlib'\nversion = '1 2'\n" SRC PHASES, "2:11", "invalid version \"1 2\"",
		MINIMAL);
	REJECTS("name = 'zlib'\nversion = '-1'\n" SRC PHASES, "2:11", "invalid version", MINIMAL);
	char long_name[HK_RECIPE_NAME_MAX + 2];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CHECK(!hk_recipe_name_valid(long_name));
	long_name[HK_RECIPE_NAME_MAX] = '\0';
	CHECK(hk_recipe_name_valid(long_name));
	CHECK(hk_recipe_name_valid("libstdc++"));
	CHECK(hk_recipe_name_valid("gcc-12"));
	CHECK(hk_recipe_name_valid("python3.11"));
	CHECK(!hk_recipe_name_valid("-x"));
	CHECK(!hk_recipe_name_valid("a b"));
	CHECK(hk_recipe_version_valid("1:1.2.13.dfsg-1"));
	CHECK(hk_recipe_version_valid("2.0~rc1"));
	CHECK(!hk_recipe_version_valid("1;rm"));
	CHECK(!hk_recipe_version_valid(""));
}

TEST(base_profiles)
{
	struct hk_recipe r;
	REQUIRE(parse(HEAD "base = 'root:/srv/roots/debian-12/'\n" SRC PHASES, &r) == 0);
	CHECK_EQ_INT(HK_BASE_ROOT, r.base_kind);
	CHECK_STR_EQ("/srv/roots/debian-12", r.base_root);
	CHECK_STR_EQ("root:/srv/roots/debian-12/", r.base);
	hk_recipe_free(&r);
	REQUIRE(parse(HEAD "base = 'root:roots/alpine'\n" SRC PHASES, &r) == 0);
	CHECK_STR_EQ("/recipes/zlib/roots/alpine", r.base_root);
	hk_recipe_free(&r);
	/* A base of the store, by name or id (resolved when the store is read). */
	REQUIRE(parse(HEAD "base = 'debian-12-buildd'\n" SRC PHASES, &r) == 0);
	CHECK_EQ_INT(HK_BASE_STORE, r.base_kind);
	CHECK_STR_EQ("debian-12-buildd", r.base);
	CHECK(r.base_root == NULL);
	hk_recipe_free(&r);
	REQUIRE(parse(HEAD "base = 'b3:e58099e1'\n" SRC PHASES, &r) == 0);
	CHECK_EQ_INT(HK_BASE_STORE, r.base_kind);
	CHECK_STR_EQ("b3:e58099e1", r.base);
	hk_recipe_free(&r);
	REQUIRE(parse(HEAD "base = 'host'\n" SRC PHASES, &r) == 0);
	CHECK_EQ_INT(HK_BASE_HOST, r.base_kind);
	hk_recipe_free(&r);
	REJECTS(HEAD "base = 'deb ian'\n" SRC PHASES, "3:8",
		"invalid base \"deb ian\": expected a base of the store by name",
		HEAD "base = 'debian'\n" SRC PHASES);
	REJECTS(HEAD "base = 'b3:e580'\n" SRC PHASES, "3:8", "invalid base \"b3:e580\"",
		HEAD "base = 'b3:e5809999'\n" SRC PHASES);
	REJECTS(HEAD "base = 'b3:E58099E1'\n" SRC PHASES, "3:8", "invalid base",
		HEAD "base = 'b3:e58099e1'\n" SRC PHASES);
	REJECTS(HEAD "base = 'root:'\n" SRC PHASES, "3:8", "invalid base",
		HEAD "base = 'root:/r'\n" SRC PHASES);
}

#define SHA "fb1442f8182214f868d9f168e3c6293442136de8405770d4480fd1baaa90d798"

TEST(source_kinds)
{
	struct hk_recipe r;
	REQUIRE(parse(HEAD "[source]\ntarball = '../dist/z.tar.gz'\nb3 = '" SHA "'\n" PHASES, &r) == 0);
	CHECK_EQ_INT(HK_SOURCE_TARBALL, r.source.kind);
	CHECK_EQ_INT(HK_HASH_B3, r.source.hash_algo);
	CHECK_STR_EQ("/recipes/dist/z.tar.gz", r.source.path);
	CHECK_STR_EQ("../dist/z.tar.gz", r.source.spec);
	hk_recipe_free(&r);

	const char *good_tarball = HEAD "[source]\ntarball = 'z.tar.gz'\nsha256 = '" SHA "'\n" PHASES;
	REJECTS(HEAD "[source]\ndir = 'src'\napt = 'zlib=1:1.2.13.dfsg-1'\n" PHASES, "5:1",
		"[source] takes exactly one of dir, tarball or apt: 'apt' conflicts with 'dir' at 4:1",
		MINIMAL);
	REJECTS(HEAD "[source]\ntarball = 'z.tar.gz'\n" PHASES, "4:1", "a tarball needs its hash",
		good_tarball);
	REJECTS(HEAD "[source]\ntarball = 'z.tar.gz'\nsha256 = '" SHA "'\nb3 = '" SHA "'\n" PHASES,
		"6:1", "one hash of the tarball, sha256 or b3, not both", good_tarball);
	REJECTS(HEAD "[source]\ntarball = 'z.tar.gz'\nsha256 = 'FB14'\n" PHASES, "5:10",
		"64 lowercase hexadecimal digits", good_tarball);
	REJECTS(HEAD "[source]\ntarball = 'z.tar.gz'\nb3 = 'b3:" SHA "'\n" PHASES, "5:6",
		"without the 'b3:' prefix", good_tarball);
	REJECTS(HEAD "[source]\ndir = 'src'\nsha256 = '" SHA "'\n" PHASES, "5:1",
		"is the hash of a tarball, but there is no tarball", MINIMAL);
	REJECTS(HEAD "[source]\ndir = '/usr/src/zlib'\n" PHASES, "4:7",
		"relative to the recipe's directory, not an absolute path", MINIMAL);
	REJECTS(HEAD "[source]\ndir = ''\n" PHASES, "4:7", "'dir' in [source] is empty", MINIMAL);
	REJECTS(HEAD "[source]\ntarball = '/tmp/z.tar.gz'\nsha256 = '" SHA "'\n" PHASES, "4:11",
		"not an absolute path", good_tarball);

	REQUIRE(parse(HEAD "[source]\napt = 'zlib=1:1.2.13.dfsg-1'\n" PHASES, &r) == 0);
	CHECK_STR_EQ("zlib", r.source.apt_package);
	CHECK_STR_EQ("1:1.2.13.dfsg-1", r.source.apt_version);
	hk_recipe_free(&r);
	const char *good_apt = HEAD "[source]\napt = 'zlib=1:1.2.13.dfsg-1'\n" PHASES;
	REJECTS(HEAD "[source]\napt = 'zlib'\n" PHASES, "4:7", "pinned Debian version", good_apt);
	REJECTS(HEAD "[source]\napt = 'zlib='\n" PHASES, "4:7", "invalid apt source", good_apt);
	REJECTS(HEAD "[source]\napt = 'Zlib=1.0'\n" PHASES, "4:7", "invalid apt source", good_apt);
	REJECTS(HEAD "[source]\napt = 'zlib=latest'\n" PHASES, "4:7", "invalid apt source", good_apt);
}

#define ZEROS "0000000000000000000000000000000000000000000000000000000000000000"

TEST(dependencies)
{
	struct hk_recipe r;
	REQUIRE(parse(MINIMAL "[deps]\nbuild = [\n  'make',\n  'gcc=12.2.0-14',\n"
			      "  'b3:" SHA "',\n]\nruntime = ['b3:" ZEROS "-zlib1g']\n",
		      &r) == 0);
	REQUIRE(r.n_build_deps == 3);
	CHECK_STR_EQ("make", r.build_deps[0].name);
	CHECK(r.build_deps[0].version == NULL && r.build_deps[0].b3 == NULL);
	CHECK_STR_EQ("gcc", r.build_deps[1].name);
	CHECK_STR_EQ("12.2.0-14", r.build_deps[1].version);
	CHECK(r.build_deps[2].name == NULL);
	CHECK_STR_EQ("b3:" SHA, r.build_deps[2].b3);
	CHECK_EQ_INT(11, r.build_deps[2].pos.line);
	REQUIRE(r.n_runtime_deps == 1);
	CHECK_STR_EQ("zlib1g", r.runtime_deps[0].name);
	CHECK_STR_EQ("b3:" ZEROS, r.runtime_deps[0].b3);
	hk_recipe_free(&r);

	const char *good = MINIMAL "[deps]\nbuild = ['make', 'binutils']\n";
	REJECTS(MINIMAL "[deps]\nbuild = ['make', 'binutils', 'make']\n", "8:30",
		"duplicate dependency \"make\" in deps.build: already declared as \"make\" at 8:10", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['make', 'make=4.3']\n", "8:18",
		"duplicate dependency \"make=4.3\"", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['b3:" SHA "-make', 'make']\n", "8:86",
		"already declared as \"b3:", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['make', '']\n", "8:18", "empty dependency in deps.build", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['b3:abc']\n", "8:10", "b3:<64 lowercase hex digits>", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['../make/recipe.toml']\n", "8:10",
		"expected an artifact NAME", good);
	REJECTS(MINIMAL "[deps]\nbuild = ['make =4.3']\n", "8:10", "invalid dependency", good);
	/* The same dep for building and at run time is legitimate. */
	REQUIRE(parse(MINIMAL "[deps]\nbuild = ['zlib1g']\nruntime = ['zlib1g']\n", &r) == 0);
	hk_recipe_free(&r);
}

TEST(phases_and_commands)
{
	struct hk_recipe r;
	REQUIRE(parse(HEAD SRC "[phases]\ninstall = 'make install'\nconfigure = ['./configure',"
			       " 'echo \"ok\"']\n", &r) == 0);
	/* Fixed order whatever the order in the file. */
	REQUIRE(r.phases[HK_PHASE_CONFIGURE].n_commands == 2);
	CHECK_STR_EQ("echo \"ok\"", r.phases[HK_PHASE_CONFIGURE].commands[1]);
	CHECK_EQ_INT(7, r.phases[HK_PHASE_CONFIGURE].pos.line);
	CHECK_EQ_INT(0, r.phases[HK_PHASE_COMPILE].n_commands);
	CHECK_EQ_INT(1, r.phases[HK_PHASE_INSTALL].n_commands);
	hk_recipe_free(&r);

	REJECTS(HEAD SRC "[phases]\ncompile = []\n", "6:11", "phase 'compile' has no commands", MINIMAL);
	REJECTS(HEAD SRC "[phases]\ncompile = '  '\n", "6:11", "empty command in phase 'compile'",
		MINIMAL);
	REJECTS(HEAD SRC "[phases]\ncompile = ['make', \"\"\"\n\n\"\"\"]\n", "6:20",
		"empty command in phase 'compile'", MINIMAL);
}

TEST(environment)
{
	struct hk_recipe r;
	REQUIRE(parse(MINIMAL "[env]\nZ_LAST = 'z'\n_private = ''\nA1 = 'x y'\n", &r) == 0);
	REQUIRE(r.n_env == 3);
	CHECK_STR_EQ("A1", r.env[0].key);
	CHECK_STR_EQ("x y", r.env[0].value);
	CHECK_STR_EQ("Z_LAST", r.env[1].key);
	CHECK_STR_EQ("_private", r.env[2].key);
	CHECK_STR_EQ("", r.env[2].value);
	hk_recipe_free(&r);

	const char *good = MINIMAL "[env]\nCFLAGS = '-O2'\n";
	REJECTS(MINIMAL "[env]\nCFLAGS = '-O2'\nPATH = '/opt/bin'\n", "9:1",
		"'PATH' in [env] is fixed by the sandbox", good);
	REJECTS(MINIMAL "[env]\nSOURCE_DATE_EPOCH = '0'\n", "8:1", "fixed by the sandbox", good);
	REJECTS(MINIMAL "[env]\nHARKAQ_NONCE = 'x'\n", "8:1", "HARKAQ_*", good);
	REJECTS(MINIMAL "[env]\n1X = 'x'\n", "8:1", "invalid environment variable name '1X'", good);
	REJECTS(MINIMAL "[env]\n\"A B\" = 'x'\n", "8:1", "expected a shell identifier", good);
	REJECTS(MINIMAL "[env]\nCC-X = 'x'\n", "8:1", "invalid environment variable name", good);
	CHECK(hk_recipe_env_is_reserved("LC_ALL"));
	CHECK(hk_recipe_env_is_reserved("TZ"));
	CHECK(hk_recipe_env_is_reserved("HOME"));
	CHECK(!hk_recipe_env_is_reserved("LANG"));
	CHECK(!hk_recipe_env_is_reserved("HARKAQ"));
}

TEST(expect_paths)
{
	struct hk_recipe r;
	REQUIRE(parse(MINIMAL "[expect]\npaths = ['/usr/lib/gcc/', '/usr/bin/c99']\n", &r) == 0);
	REQUIRE(r.n_expects == 2);
	CHECK_STR_EQ("/usr/lib/gcc/", r.expects[0]);
	CHECK_STR_EQ("/usr/bin/c99", r.expects[1]);
	hk_recipe_free(&r);

	const char *good = MINIMAL "[expect]\npaths = ['/usr/bin/gcc']\n";
	REJECTS(MINIMAL "[expect]\npaths = ['usr/bin/gcc']\n", "8:10", "must be absolute", good);
	REJECTS(MINIMAL "[expect]\npaths = ['/']\n", "8:10", "every denial", good);
	REJECTS(MINIMAL "[expect]\npaths = ['/usr//bin/gcc']\n", "8:10", "not normalised", good);
	REJECTS(MINIMAL "[expect]\npaths = ['/usr/./bin/gcc']\n", "8:10", "not normalised", good);
	REJECTS(MINIMAL "[expect]\npaths = ['/usr/lib/../bin/gcc']\n", "8:10", "not normalised", good);
	REJECTS(MINIMAL "[expect]\npaths = ['/usr/bin/gcc', \n  '/usr/bin/gcc']\n", "9:3",
		"duplicate expect path \"/usr/bin/gcc\" (already listed at 8:10)", good);
}

/* ---- the recipe hash ---- */

static void hash_of(const char *text, char out[HK_B3_ID_LEN], const char *dir)
{
	struct hk_recipe r;
	hk_error_clear(&err);
	if (hk_recipe_parse(text, strlen(text), "h.toml", dir, &r, &err) < 0) {
		HK_FAIL_AT("rejected: %s\n%s", err.msg, text);
		longjmp(hk_test_abort, 1);
	}
	hk_recipe_hash(&r, out);
	hk_recipe_free(&r);
}

#define BASE_RECIPE                                                                        \
	"name = 'zlib'\nversion = '1.2.13'\nbase = 'host'\n"                               \
	"[source]\ntarball = 'z.tar.gz'\nsha256 = '" SHA "'\n"                             \
	"[deps]\nbuild = ['make', 'binutils']\nruntime = ['libc6']\n"                      \
	"[phases]\nconfigure = './configure'\ncompile = ['make', 'make check']\n"          \
	"install = 'make install'\n"                                                       \
	"[expect]\npaths = ['/usr/bin/gcc', '/usr/lib/gcc/']\n"                            \
	"[env]\nCFLAGS = '-O2'\nCC = 'gcc'\n"

TEST(canonical_serialisation_is_the_documented_one)
{
	struct hk_recipe r;
	const char *text = BASE_RECIPE;
	REQUIRE(hk_recipe_parse(text, strlen(text), "h.toml", "/x", &r, &err) == 0);
	struct hk_buf b = HK_BUF_INIT;
	hk_recipe_canonical(&r, &b);
	CHECK_STR_EQ("harkaq-recipe-hash 1\n"
		     "name 4:zlib\n"
		     "version 6:1.2.13\n"
		     "base 4:host\n"
		     "source.tarball 8:z.tar.gz\n"
		     "source.sha256 64:" SHA "\n"
		     "deps.build 2\n"
		     "dep 4:make\n"
		     "dep 8:binutils\n"
		     "deps.runtime 1\n"
		     "dep 5:libc6\n"
		     "phase.configure 1\n"
		     "command 11:./configure\n"
		     "phase.compile 2\n"
		     "command 4:make\n"
		     "command 10:make check\n"
		     "phase.install 1\n"
		     "command 12:make install\n"
		     "env 2\n"
		     "key 2:CC\n"
		     "value 3:gcc\n"
		     "key 6:CFLAGS\n"
		     "value 3:-O2\n"
		     "expect 2\n"
		     "path 12:/usr/bin/gcc\n"
		     "path 13:/usr/lib/gcc/\n",
		     hk_buf_str(&b));
	char id[HK_B3_ID_LEN], direct[HK_B3_ID_LEN];
	hk_recipe_hash(&r, id);
	hk_b3_id(b.data, b.len, direct);
	CHECK_STR_EQ(direct, id);
	CHECK(strncmp(id, "b3:", 3) == 0 && strlen(id) == HK_B3_ID_LEN - 1);
	hk_buf_free(&b);
	hk_recipe_free(&r);
}

TEST(hash_is_stable_under_formatting)
{
	char base[HK_B3_ID_LEN], other[HK_B3_ID_LEN];
	hash_of(BASE_RECIPE, base, "/x");
	hash_of(BASE_RECIPE, other, "/x");
	CHECK_STR_EQ(base, other);
	/* Another directory: the hash is the same on any machine. */
	hash_of(BASE_RECIPE, other, "/somewhere/else");
	CHECK_STR_EQ(base, other);
	/* Same meaning, different text: comments, spacing, key and table order, quoting style,
	 * a one-command array for a string, env and expect order. */
	hash_of("# a comment\n"
		"version = \"1.2.13\"   # v\n"
		"name = \"zlib\"\n"
		"base = \"host\"\n"
		"[env]\nCC = \"gcc\"\nCFLAGS = \"-O2\"\n"
		"[expect]\npaths = [\n  '/usr/lib/gcc/',  # dir\n  \"/usr/bin/gcc\",\n]\n"
		"[phases]\ninstall = ['make install']\ncompile = [\"make\", '''make check''']\n"
		"configure = \"\"\"\n./configure\"\"\"\n"
		"[deps]\nruntime = [\"libc6\"]\nbuild = [ \"make\" , \"binutils\" ]\n"
		"[source]\nsha256 = \"" SHA "\"\ntarball = \"z.tar.gz\"\n",
		other, "/x");
	CHECK_STR_EQ(base, other);
	/* The default base written out or left implicit is the same recipe. */
	hash_of(MINIMAL, base, "/x");
	hash_of(HEAD "base = 'debian-12-essential'\n" SRC PHASES, other, "/x");
	CHECK_STR_EQ(base, other);
	/* ... and "host" is another one. */
	hash_of(HEAD "base = 'host'\n" SRC PHASES, other, "/x");
	CHECK(strcmp(base, other) != 0);
	/* An empty optional table is the same as none. */
	hash_of(MINIMAL "[deps]\n[env]\n[expect]\npaths = []\n", other, "/x");
	CHECK_STR_EQ(base, other);
}

/* `from` must occur exactly once in `s`. */
static char *replace_once(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at || strstr(at + 1, from)) {
		HK_FAIL_AT("'%s' must occur exactly once in the base recipe", from);
		longjmp(hk_test_abort, 1);
	}
	return hk_xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
}

TEST(hash_is_sensitive_to_every_field)
{
	static const char *const edits[][2] = {
		{ "name = 'zlib'", "name = 'zlib-ng'" },
		{ "version = '1.2.13'", "version = '1.2.14'" },
		{ "base = 'host'", "base = 'root:/roots/debian'" },
		{ "tarball = 'z.tar.gz'", "tarball = 'zlib.tar.gz'" },
		{ "sha256 = 'fb14", "sha256 = 'fb15" },
		{ "sha256 = '", "b3 = '" },                               /* same digits, other algo */
		{ "tarball = 'z.tar.gz'\nsha256 = '" SHA "'", "dir = 'z.tar.gz'" },  /* same spec */
		{ "build = ['make', 'binutils']", "build = ['binutils', 'make']" },  /* order */
		{ "build = ['make', 'binutils']", "build = ['make']" },
		{ "build = ['make', 'binutils']", "build = ['make', 'binutils', 'perl']" },
		{ "build = ['make', 'binutils']", "build = ['make=4.3', 'binutils']" },
		{ "build = ['make', 'binutils']\nruntime = ['libc6']",
		  "build = ['make', 'binutils', 'libc6']\nruntime = []" },  /* dep moved lists */
		{ "runtime = ['libc6']", "runtime = []" },
		{ "configure = './configure'", "configure = './configure --shared'" },
		{ "configure = './configure'\n", "" },                      /* phase removed */
		{ "compile = ['make', 'make check']", "compile = ['make make check']" },
		{ "compile = ['make', 'make check']", "compile = ['make check', 'make']" },
		{ "compile = ['make', 'make check']", "compile = ['make', 'make check', 'true']" },
		{ "configure = './configure'\ncompile = ['make', 'make check']",
		  "configure = ['./configure', 'make']\ncompile = 'make check'" },  /* moved */
		{ "install = 'make install'", "install = 'make install '" },
		{ "paths = ['/usr/bin/gcc', '/usr/lib/gcc/']", "paths = ['/usr/bin/gcc']" },
		{ "paths = ['/usr/bin/gcc', '/usr/lib/gcc/']",
		  "paths = ['/usr/bin/gcc', '/usr/lib/gcc']" },
		{ "CFLAGS = '-O2'", "CFLAGS = '-O3'" },
		{ "CFLAGS = '-O2'", "CXXFLAGS = '-O2'" },
		{ "CC = 'gcc'\n", "" },
		{ "CC = 'gcc'\n", "CC = 'gcc'\nLDFLAGS = ''\n" },
	};
	size_t n = HK_ARRAY_LEN(edits) + 1;
	char (*ids)[HK_B3_ID_LEN] = hk_xcalloc(n, sizeof(*ids));
	hash_of(BASE_RECIPE, ids[0], "/x");
	for (size_t i = 0; i + 1 < n; i++) {
		hk_autofree char *text = replace_once(BASE_RECIPE, edits[i][0], edits[i][1]);
		hash_of(text, ids[i + 1], "/x");
	}
	/* Every edit changes the hash, and no two edits collide. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(ids[i], ids[j]) == 0)
				HK_FAIL_AT("edits %zu and %zu give the same hash %s", i, j, ids[i]);
	free(ids);
}

/* A recipe built in memory is the recipe a file with the same values parses to: the same
 * identity (the canonical form and its hash), and a deep copy is the same again. */
TEST(a_recipe_built_in_memory_equals_the_parsed_one)
{
	static const char text[] =
		"name = \"hkcalc_debs\"\nversion = \"1.0\"\nbase = \"debian-12-buildd\"\n"
		"[source]\ndir = \"src\"\n"
		"[deps]\nbuild = [\"make=4.3-4.1\", \"bison\"]\n"
		"[phases]\ncompile = \"cd hkcalc-1.0 && make\"\n"
		"install = [\"make install\", \"mv x /out/\"]\n"
		"[env]\nZZ = \"1\"\nDEB_BUILD_OPTIONS = \"nocheck\"\n";
	struct hk_recipe parsed, built, copy;
	REQUIRE(hk_recipe_parse(text, sizeof(text) - 1, "recipe.toml", "/tmp/r", &parsed, &err) == 0);
	hk_recipe_init(&built, "/tmp/r");
	CHECK(hk_recipe_set_identity(&built, "hkcalc_debs", "1.0", &err) == 0);
	CHECK(hk_recipe_set_store_base(&built, "debian-12-buildd", &err) == 0);
	CHECK(hk_recipe_set_source_dir(&built, "src", &err) == 0);
	CHECK(hk_recipe_add_build_dep(&built, "make=4.3-4.1", &err) == 0);
	CHECK(hk_recipe_add_build_dep(&built, "bison", &err) == 0);
	CHECK(hk_recipe_add_command(&built, HK_PHASE_COMPILE, "cd hkcalc-1.0 && make", &err) == 0);
	CHECK(hk_recipe_add_command(&built, HK_PHASE_INSTALL, "make install", &err) == 0);
	CHECK(hk_recipe_add_command(&built, HK_PHASE_INSTALL, "mv x /out/", &err) == 0);
	CHECK(hk_recipe_set_env(&built, "ZZ", "1", &err) == 0);
	CHECK(hk_recipe_set_env(&built, "DEB_BUILD_OPTIONS", "nocheck", &err) == 0);
	CHECK(hk_recipe_check(&built, &err) == 0);
	char hp[HK_B3_ID_LEN], hb[HK_B3_ID_LEN], hc[HK_B3_ID_LEN];
	hk_recipe_hash(&parsed, hp);
	hk_recipe_hash(&built, hb);
	CHECK_STR_EQ(hp, hb);
	CHECK_STR_EQ(parsed.source.path, built.source.path);
	hk_recipe_copy(&built, &copy);
	hk_recipe_hash(&copy, hc);
	CHECK_STR_EQ(hb, hc);
	/* The control: one more dep is another recipe. */
	CHECK(hk_recipe_add_build_dep(&copy, "tzdata", &err) == 0);
	hk_recipe_hash(&copy, hc);
	CHECK(strcmp(hb, hc) != 0);
	hk_recipe_free(&parsed);
	hk_recipe_free(&built);
	hk_recipe_free(&copy);
}

TEST(a_recipe_built_in_memory_is_checked_as_a_file_is)
{
	struct hk_recipe r;
	hk_recipe_init(&r, "/tmp/r");
	CHECK(hk_recipe_check(&r, &err) < 0);                       /* nothing set yet */
	CHECK(hk_recipe_set_identity(&r, "bad name", "1", &err) < 0);
	CHECK(hk_recipe_set_identity(&r, "ok", "1.0", &err) == 0);
	CHECK(hk_recipe_set_source_dir(&r, "/abs", &err) < 0);
	CHECK(hk_recipe_set_source_dir(&r, "src", &err) == 0);
	CHECK(hk_recipe_add_build_dep(&r, "not a dep", &err) < 0);
	CHECK_CONTAINS(err.msg, "invalid dependency \"not a dep\"");
	CHECK(hk_recipe_add_build_dep(&r, "make=4.3", &err) == 0);
	CHECK_EQ_INT(-EEXIST, hk_recipe_add_build_dep(&r, "make", &err));
	CHECK(hk_recipe_set_env(&r, "PATH", "/x", &err) < 0);       /* fixed by the sandbox */
	CHECK(hk_recipe_set_env(&r, "1X", "y", &err) < 0);
	CHECK(hk_recipe_add_command(&r, HK_PHASE_COMPILE, "  ", &err) < 0);
	CHECK(hk_recipe_check(&r, &err) < 0);                       /* no phase yet */
	CHECK(hk_recipe_add_command(&r, HK_PHASE_COMPILE, "true", &err) == 0);
	CHECK(hk_recipe_check(&r, &err) == 0);
	hk_recipe_free(&r);
}
