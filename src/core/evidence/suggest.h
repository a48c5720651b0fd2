/* Diagnosis (design.md §8): every denial of a verdict gets one of four classes.
 *
 *   expected     the recipe's [expect] lines classify it (verdict.c decided it)
 *   declarable   the store provides the path: one line in [deps] fixes it
 *                    /usr/bin/make  → declare dep: make
 *   irreducible  nobody in the store provides it: write a recipe, or classify it as a probe
 *   policy_bug   harkaq's own fault, not the recipe's: a denial on a contract surface of the
 *                sandbox (/src /out /tmp /var/tmp /cache /dev/… /proc /.harkaq), or of an
 *                access the policy grants (a base-runtime or closure file: the grant did not
 *                take).  Never suggests "declare dep".
 *
 * The store's path index answers "who provides PATH" because the path of a file inside an
 * artifact IS its path in the sandbox.  The kernel reports symlink TARGETS (kernel-facts.md §6),
 * so aliases count too: an artifact shipping a symlink whose target (followed through the
 * store's other symlinks) is the denied path provides it.  Providers are ranked "best first":
 *
 *   1. how:  "file" (ships the path as a regular file)  before  "link" (ships the path itself
 *            as a symlink)  before  "alias" (ships another path that is a symlink to it);
 *   2. origin: a Debian package (imported, or a package of the pinned base) before a tree
 *            added by hand before a local build's output, so a build's output that happens to
 *            carry a package's file is never suggested over the package;
 *   3. for aliases, fewer symlink hops first;
 *   4. then by artifact name, version and id (byte order), so the order is stable.
 *
 * Providers that are already in the build's closure are not suggested (declaring them again
 * changes nothing); if only those remain, the debt is irreducible with a reason saying so.
 *
 * Two kinds of denied path are answered without the path index:
 *   - a trap of the store view (core/store/view.h, /.harkaq/links/<artifact>/<link>): the build
 *     followed an undeclared artifact's symlink; that artifact is the provider ("link", via
 *     the link's own path);
 *   - a file of the pinned base that no store artifact provides: the base package that ships
 *     it is named (origin "base"), so a file of the base is never "nobody provides it".
 *
 * The store and the base are asked through a struct hk_suggest_source (below): nothing here
 * reads a file.
 *
 * Ownership: every string of a diagnosis is owned by it; hk_diagnosis_free releases them. */
#ifndef HK_SUGGEST_H
#define HK_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/policy/policy.h"
#include "core/store/store.h"
#include "core/formats/tree.h"
#include "core/evidence/verdict.h"

struct hk_expect_set;

enum hk_diag_class {
	HK_DIAG_EXPECTED = 0,
	HK_DIAG_DECLARABLE,
	HK_DIAG_IRREDUCIBLE,
	HK_DIAG_POLICY_BUG,
};

/* "expected", "declarable", "irreducible", "policy_bug" */
const char *hk_diag_class_name(enum hk_diag_class c);

enum hk_provider_how {
	HK_PROVIDES_FILE = 0,    /* a regular file at the denied path */
	HK_PROVIDES_LINK = 1,    /* a symlink at the denied path */
	HK_PROVIDES_ALIAS = 2,   /* a symlink elsewhere whose target chain ends at the path */
};

/* "file", "link", "alias" */
const char *hk_provider_how_name(enum hk_provider_how h);

/* Where a provider came from, for people (its "origin": "deb", "base", "added", "build"):
 * "Debian package", "base package", "added by hand", "local build"; the origin itself for
 * any other value. */
const char *hk_provider_origin_label(const char *origin);

struct hk_provider {
	char *name, *version, *id;   /* the artifact ("b3:…" id) */
	enum hk_provider_how how;
	char *via;                   /* alias: the symlink's sandbox path; else NULL */
	unsigned hops;               /* alias: symlinks between `via` and the path (>= 1) */
	char *spec;                  /* what to write in [deps]: "make", or "make=4.3-4.1" when
					the name alone is ambiguous in the store, or the id */
	/* Where the provider came from: "deb", "added", "build" (a store artifact of that
	 * origin, core/store/store.h), or "base": a package of the pinned base that ships the path
	 * and is not in the store (id NULL; import it to declare it). */
	const char *origin;          /* static string */
};

struct hk_diag_item {
	enum hk_diag_class cls;
	char *reason;                /* irreducible / policy_bug: why (a sentence); expected: the
				      * expectation set's note when one matched; else NULL */
	struct hk_provider *providers;   /* declarable: best first; else empty */
	size_t n_providers;
	char *line;                  /* declarable: "declare dep: make"; else NULL */
	/* Who tried, when the program itself comes from a declared artifact (design.md §6: a dep's
	 * own binary reaching into the base root): that artifact's name; else NULL. */
	char *exe_declared_by;
};

/* One item per denial of the verdict, same order (items[i] diagnoses v->denials[i]). */
struct hk_diagnosis {
	struct hk_diag_item *items;
	size_t n;
	/* Paths per class: two denials of one path (different rights) count once. */
	size_t n_expected, n_declarable, n_irreducible, n_policy_bug;
};

/* What the diagnosis asks of the store and of the pinned base, as an interface: the diagnosis
 * itself reads no file (design.md §2), so it is decided the same over a store on disk
 * (engine/store/suggest_source.h) and over an index held in memory (tests/unit/test_suggest.c).
 *
 * A NULL member is a question without an answer: no store (nothing provides anything, no
 * artifact is found), or no pinned base (no base package ships anything).  The artifacts the
 * source hands out are its own and stay valid while the source lives; arrays returned are
 * the caller's to free() (not the artifacts in them).  Every member returns 0, or -errno with
 * err naming what could not be read. */
struct hk_suggest_source {
	void *ctx;
	/* Every artifact of the store, in the store's order (the source's array). */
	int (*artifacts)(void *ctx, const struct hk_artifact *const **arts, size_t *n,
			 struct hk_error *err);
	/* The entries artifact `a` ships, as its manifest records them (hk_store_files): the
	 * diagnosis reads its symlinks.  *out is the caller's (hk_tree_free). */
	int (*files)(void *ctx, const struct hk_artifact *a, struct hk_tree *out,
		     struct hk_error *err);
	/* The artifacts that ship the sandbox path `path` itself, as a file or a symlink, never
	 * as a directory (the store's path index, hk_store_providers); *out may be empty. */
	int (*providers)(void *ctx, const char *path, const struct hk_artifact ***out, size_t *n,
			 struct hk_error *err);
	/* The one artifact a [deps] line `query` names ("NAME", "NAME=VERSION", an id or a
	 * directory name, resolved as hk_store_find resolves it): 0 and *out, or < 0 when no
	 * artifact or several answer it. */
	int (*find)(void *ctx, const char *query, const struct hk_artifact **out,
		    struct hk_error *err);
	/* The pinned base's packages whose dpkg database lists `path`: "coreutils", or "a, b"
	 * when several do; *owners NULL when none does.  Borrowed from the source. */
	int (*base_owners)(void *ctx, const char *path, const char **owners, struct hk_error *err);
	/* The installed version of the base's package `name` ("" when the database has none). */
	const char *(*base_version)(void *ctx, const char *name);
	/* Whether the pinned base holds something other than a directory at `path` (a file its
	 * maintainer scripts made is its own, though no package lists it). */
	bool (*base_ships)(void *ctx, const char *path);
	/* Releases ctx.  Set: the suggester the source is given to owns it, and
	 * hk_suggester_free calls it; NULL: ctx is borrowed and must outlive the suggester. */
	void (*release)(void *ctx);
};

struct hk_suggest_input {
	/* The store and the pinned base (copied by hk_suggester_new); NULL: nothing is
	 * declarable and no base package is named. */
	const struct hk_suggest_source *source;
	const struct hk_policy *policy;   /* the policy the cage ran (finished); may be NULL */
	const char *const *closure;       /* artifact dirnames already in the build's closure */
	size_t n_closure;
	/* The denials come from harkaq's sandbox, whose contract surfaces (/src, /tmp, /dev, …)
	 * are harkaq's to grant.  False for `harkaq run` on the host, where /tmp is the host's. */
	bool sandbox_contract;
	/* The expectation set the build ran with (core/debian/debexpect.h), or NULL: an expected denial
	 * matching one of its entries gets that entry's note as its reason, so the evidence says
	 * which set, which tool and why. */
	const struct hk_expect_set *expect_set;
};

/* Holds the store's reverse symlink map, built on first need and reused across phases.
 * Borrows everything in `in` but the source, which it copies (and owns when the source has a
 * release function). */
struct hk_suggester;

struct hk_suggester *hk_suggester_new(const struct hk_suggest_input *in);
void hk_suggester_free(struct hk_suggester *s);

/* Diagnoses every denial of `v`.  Fails only if the source cannot answer (the message names
 * the artifact); *out is then empty. */
HK_MUST_CHECK int hk_diagnose(struct hk_suggester *s, const struct hk_verdict *v, struct hk_diagnosis *out,
		struct hk_error *err);
void hk_diagnosis_free(struct hk_diagnosis *d);

/* Whether item i's path was already counted in its class by an earlier item: the diagnosis'
 * counts count paths (docs/diagnosis.md, "One path, one entry").  `v` is the verdict whose
 * denials the items are, in the same order. */
bool hk_diag_counted_before(const struct hk_diagnosis *d, const struct hk_verdict *v, size_t i);

/* Diagnoses one debt path as if it were a denial of `blockers` (the rights the kernel named;
 * "" when unknown): the classification the build's report gives, for callers that hold a path
 * rather than a verdict (the sweep, docs/sweep.md).  On failure *out is empty. */
HK_MUST_CHECK int hk_diagnose_path(struct hk_suggester *s, const char *path, const char *blockers,
		     struct hk_diag_item *out, struct hk_error *err);
void hk_diag_item_free(struct hk_diag_item *it);

/* Whether `path` lies on one of the sandbox's contract surfaces (exact or beneath). */
bool hk_contract_surface(const char *path);

/* The diagnosis as a JSON array, one object per denial, in order:
 *   {"denial":I,"class":C,"reason":S|null,"line":S|null,"exe_declared_by":S|null,
 *    "providers":[{"name","version","id","how","via","spec","origin"}]}
 * (the form the evidence object carries, docs/evidence-objects.md). */
void hk_diagnosis_json(const struct hk_diagnosis *d, struct hk_json *j);
/* The "providers" array of one item, as hk_diagnosis_json writes it (a report that copies the
 * providers writes them with this, so the two never differ). */
void hk_providers_json(const struct hk_provider *ps, size_t n, struct hk_json *j);

#endif
