/* The recipe (design.md §9): what to build, from what, with which declared inputs.  The file format
 * (a strict TOML subset, src/core/formats/toml.h) and every rule below are documented with examples in
 * docs/recipe-format.md.
 *
 *     name = "zlib"
 *     version = "1.2.13"
 *     base = "debian-12-essential"       # a pinned base of the store (the default), "b3:…",
 *                                        # or "host" / "root:/path/to/root" (unpinned)
 *     [source]
 *     dir = "src"                        # or tarball = "…" + sha256/b3 = "…", or apt = "p=v"
 *     [deps]
 *     build = ["make", "binutils"]       # NAME, NAME=VERSION, b3:<hex> or b3:<hex>-NAME
 *     runtime = []                       # recorded in the artifact the recipe produces
 *     [phases]
 *     configure = "./configure --prefix=/usr"
 *     compile = ["make -j2", "make check"]
 *     install = "make install DESTDIR=/out"
 *     [expect]
 *     paths = ["/usr/bin/gcc", "/usr/lib/gcc/"]
 *     [env]
 *     CFLAGS = "-O2"
 *
 * Loading is strict: an unknown key or table, a value of the wrong type, a missing required
 * key, an invalid name, path or dependency is an error "FILE:LINE:COL: …" at the offending
 * key or value, naming what is allowed.
 *
 * Ownership: every pointer inside a struct hk_recipe belongs to it; hk_recipe_free() releases
 * them all.  Positions (line, col) are 1-based, in the recipe file, for messages of the
 * layers above ("FILE:7:12: dependency 'cmake' is not in the store").
 */
#ifndef HK_RECIPE_H
#define HK_RECIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"

#define HK_RECIPE_NAME_MAX 128
#define HK_RECIPE_VERSION_MAX 128
/* Recipes are small text files; a bigger one is a mistake, not a recipe. */
#define HK_RECIPE_FILE_MAX (1024 * 1024)

/* The base of a recipe that names none: a pinned base of the store (core/store/base.h). */
#define HK_BASE_DEFAULT "debian-12-essential"

struct hk_recipe_pos {
	unsigned line, col;
};

enum hk_base_kind {
	HK_BASE_STORE,  /* a pinned base of the store, by name or id (core/store/base.h); the default */
	HK_BASE_HOST,   /* this machine's system directories (unpinned) */
	HK_BASE_ROOT,   /* a root filesystem directory, base_root (unpinned) */
};

enum hk_source_kind {
	HK_SOURCE_DIR,      /* a directory next to the recipe */
	HK_SOURCE_TARBALL,  /* a tarball next to the recipe, with its hash */
	HK_SOURCE_APT,      /* `apt-get source PACKAGE=VERSION`, fetched on the host */
};

enum hk_hash_algo {
	HK_HASH_SHA256,
	HK_HASH_B3,
};

/* Fixed execution order.  Each present phase runs in its own Landlock domain with its own
 * canary and gets its own verdict (design.md §7). */
enum hk_phase {
	HK_PHASE_CONFIGURE,
	HK_PHASE_COMPILE,
	HK_PHASE_INSTALL,
	HK_PHASE_COUNT,
};

struct hk_recipe_source {
	enum hk_source_kind kind;
	char *spec;                 /* the value as written: dir, tarball path, or "PKG=VERSION" */
	char *path;                 /* DIR, TARBALL: absolute (recipe_dir joined with spec, folded
	                             * lexically: "." and ".." removed); APT: NULL */
	enum hk_hash_algo hash_algo;   /* TARBALL */
	char *hash_hex;             /* TARBALL: 64 lowercase hex digits; else NULL */
	char *apt_package;          /* APT: Debian package name; else NULL */
	char *apt_version;          /* APT: the pinned Debian version; else NULL */
	struct hk_recipe_pos pos;   /* of the dir/tarball/apt value */
};

struct hk_recipe_dep {
	char *spec;                 /* as written */
	char *name;                 /* artifact name; NULL for a bare "b3:<hex>" */
	char *version;              /* the VERSION of "NAME=VERSION"; else NULL */
	char *b3;                   /* "b3:<64 hex>" when the dep names a hash; else NULL */
	struct hk_recipe_pos pos;
};

struct hk_recipe_phase {
	char **commands;            /* shell command lines, run in order; n_commands == 0 when
	                             * the phase is absent */
	size_t n_commands;
	struct hk_recipe_pos pos;   /* of the phase's value */
};

struct hk_recipe_env {
	char *key;                  /* a shell identifier, not one of the fixed variables */
	char *value;
	struct hk_recipe_pos pos;   /* of the key */
};

struct hk_recipe {
	char *path;                 /* the recipe file, absolute with symlinks resolved; NULL when
	                             * parsed from memory */
	char *recipe_dir;           /* absolute directory the recipe's relative paths (source,
	                             * base root) and dependencies resolve against: the directory
	                             * of the real file, so a recipe copied elsewhere with its
	                             * neighbours, or reached through a symlink, still resolves */
	char *name;
	char *version;
	char *base;                 /* as written; HK_BASE_DEFAULT when the key is absent */
	enum hk_base_kind base_kind;
	char *base_root;            /* HK_BASE_ROOT: absolute, folded; else NULL */
	struct hk_recipe_pos base_pos;   /* of the base value (1:1 when absent) */
	struct hk_recipe_source source;
	struct hk_recipe_dep *build_deps;     /* in the order written */
	size_t n_build_deps;
	struct hk_recipe_dep *runtime_deps;   /* in the order written */
	size_t n_runtime_deps;
	struct hk_recipe_phase phases[HK_PHASE_COUNT];   /* at least one present */
	struct hk_recipe_env *env;            /* sorted by key */
	size_t n_env;
	char **expects;             /* expect paths in the order written: absolute, folded;
	                             * a trailing '/' means "anything beneath" (policy format) */
	struct hk_recipe_pos *expect_pos;
	size_t n_expects;
};

/* Validates a recipe from text in memory (reading one from a file is core/policy/recipe_file.h).
 * `filename` is used in messages only; `recipe_dir` must be absolute (it is copied and becomes
 * out->recipe_dir); out->path is NULL. */
HK_MUST_CHECK int hk_recipe_parse(const char *text, size_t len, const char *filename, const char *recipe_dir,
		    struct hk_recipe *out, struct hk_error *err);

void hk_recipe_free(struct hk_recipe *r);

/* A recipe built in memory by a program (the Debian build's), checked by the same rules as a
 * file's, each error naming the value; no file and no TOML on the way.  hk_recipe_init gives
 * an empty recipe on the default base whose relative paths resolve against `recipe_dir`; the
 * setters fill it; hk_recipe_check says whether it can be built.  hk_recipe_free releases it. */
void hk_recipe_init(struct hk_recipe *r, const char *recipe_dir);
HK_MUST_CHECK int hk_recipe_set_identity(struct hk_recipe *r, const char *name, const char *version,
			   struct hk_error *err);
/* A pinned base of the store, by name or id. */
HK_MUST_CHECK int hk_recipe_set_store_base(struct hk_recipe *r, const char *base, struct hk_error *err);
/* [source] dir = DIR: relative to the recipe's directory. */
HK_MUST_CHECK int hk_recipe_set_source_dir(struct hk_recipe *r, const char *dir, struct hk_error *err);
/* One more of [deps] build (NAME, NAME=VERSION, b3:…): EEXIST when it names a dep again. */
HK_MUST_CHECK int hk_recipe_add_build_dep(struct hk_recipe *r, const char *spec, struct hk_error *err);
HK_MUST_CHECK int hk_recipe_add_command(struct hk_recipe *r, enum hk_phase phase, const char *command,
			  struct hk_error *err);
/* One variable of [env] (not one the sandbox fixes). */
HK_MUST_CHECK int hk_recipe_set_env(struct hk_recipe *r, const char *key, const char *value,
		      struct hk_error *err);
HK_MUST_CHECK int hk_recipe_check(const struct hk_recipe *r, struct hk_error *err);
/* A deep copy (dst is the caller's to free). */
void hk_recipe_copy(const struct hk_recipe *src, struct hk_recipe *dst);

/* The canonical serialisation of the recipe's identity inputs (exact bytes in
 * docs/recipe-format.md, "Recipe hash"): name, version, base, source spec and hash, deps as
 * written, phases, env, expect paths.  Never verdicts or evidence (design.md §10), and nothing
 * that depends on where the recipe lies (recipe_dir, path, resolved paths, positions), so the
 * same recipe has the same hash on any machine. */
void hk_recipe_canonical(const struct hk_recipe *r, struct hk_buf *out);

/* "b3:<hex>" of hk_recipe_canonical(). */
void hk_recipe_hash(const struct hk_recipe *r, char out[HK_B3_ID_LEN]);

/* "configure", "compile", "install". */
const char *hk_phase_name(enum hk_phase phase);

/* Environment variables the sandbox fixes for reproducibility, which [env] may not set:
 * SOURCE_DATE_EPOCH, LC_ALL, TZ, PATH, HOME, and every name starting with HARKAQ_. */
bool hk_recipe_env_is_reserved(const char *key);

/* The rules for names and versions, exposed for other inputs that name recipes. */
bool hk_recipe_name_valid(const char *name);
bool hk_recipe_version_valid(const char *version);

#endif
