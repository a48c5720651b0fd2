/* The build engine behind `harkaq build` (and, later, the sweep): recipe → store closure →
 * derived policy → each phase in the sandbox under the cage → verdicts → sealed artifact. */
#ifndef HK_ENGINE_BUILD_H
#define HK_ENGINE_BUILD_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/cage/cage.h"
#include "engine/cage/sandbox.h"
#include "core/evidence/build_failure.h"
#include "core/policy/collapse.h"
#include "core/debian/debexpect.h"
#include "core/policy/derive.h"
#include "core/basic/inos.h"
#include "core/policy/recipe.h"
#include "core/store/store.h"
#include "core/evidence/suggest.h"
#include "core/evidence/verdict.h"
#include "core/store/view.h"

/* What became of a plan's kept part (docs/store.md, "Kept plans"). */
enum hk_plan_kept {
	HK_PLAN_KEPT_OFF = 0,     /* nothing is kept for this build (an unpinned base, a program
				   * without build ids) */
	HK_PLAN_KEPT_MISS,        /* none was kept: computed, then kept */
	HK_PLAN_KEPT_HIT,         /* read from the store, checked */
	HK_PLAN_KEPT_DAMAGED,     /* one was kept but failed its checks: computed anew, kept */
};
const char *hk_plan_kept_name(enum hk_plan_kept k);

struct hk_build_plan {
	struct hk_policy policy;         /* the derived policy (finished) */
	char policy_id[HK_B3_ID_LEN];
	struct hk_derive_report report;
	char **layers;                   /* dep artifact trees, highest priority first */
	size_t n_layers;
	char **closure_names;            /* artifact dirnames of the closure, deps first */
	size_t n_unmerged;               /* dep files outside the merged system directories */
	size_t n_closure;
	/* Packages of the base the closure needs (declared by name, or the runtime deps of store
	 * artifacts that the base satisfies): their files are granted from the base. */
	size_t n_base_packages;
	/* Directories the cage may install as one rule each (core/policy/collapse.h), and counts.
	 * Planned by hk_build_collapse, once the sandbox's store view is known. */
	struct hk_strset collapse;
	struct hk_collapse_stats collapse_stats;
	/* The base the sandbox stands on (core/store/base.h): its tree ("/" for the host), and what
	 * the evidence says of it (the view's id is filled in by the run). */
	char *base_root;
	struct hk_verdict_base base;
	/* Kept for hk_build_collapse: the closure's sandbox-visible entries. */
	struct hk_derive_entry *entries;
	size_t n_entries;
	char **entry_paths;
	struct hk_tree *trees;           /* the closure's manifests the entries point into */
	size_t n_trees;
	/* When hk_build_derive fails: HK_BUILD_STAGE_DEPS when a declared dep or the closure
	 * failed, else HK_BUILD_STAGE_NONE (another set-up step). */
	enum hk_build_stage fail_stage;
	/* The kept plan (engine/build/plan_cache.h): whether the policy and the collapse plan were
	 * read from the store or computed, and the derivation's key ("" when nothing is kept). */
	enum hk_plan_kept policy_kept, collapse_kept;
	char plan_key[HK_B3_ID_LEN];
	/* For a collapse plan computed after a kept policy: the closure's entries are read then
	 * (entries_read), from these (the store's artifacts; borrowed). */
	struct hk_store *store;
	const struct hk_artifact **closure;
	bool entries_read;
};


/* Resolves the recipe's base and deps in the store (relative names are the store's), computes
 * the closure and derives the policy for `sandbox`'s contract surfaces; the policy names the
 * base (its id when pinned).  `store` may be NULL for a recipe on an unpinned base without
 * build deps (its closure is empty).  Always derives: what `harkaq policy` prints. */
HK_MUST_CHECK int hk_build_derive(const struct hk_recipe *r, struct hk_store *store, const char *profile,
		    const struct hk_sandbox *sandbox, struct hk_build_plan *bp, struct hk_error *err);
/* The same plan, the policy read from the store when a build of the same inputs kept it
 * (bp->policy_kept says which), else derived and kept: a build's. */
HK_MUST_CHECK int hk_build_derive_kept(const struct hk_recipe *r, struct hk_store *store,
				       const char *profile, const struct hk_sandbox *sandbox,
				       struct hk_build_plan *bp, struct hk_error *err);
/* Whether `name` is a package (or a name one Provides) installed in the base tree `root`
 * (its dpkg database): a build dep the store lacks may name one (docs/bases.md). */
bool hk_build_base_has_package(const char *root, const char *name);
/* Plans the collapsed directories of bp's policy, given the store view the sandbox shows
 * (its tree and id; NULL: none); read from the store when the plan's derivation is kept and
 * a build with the same policy and view kept it (bp->collapse_kept says which). */
HK_MUST_CHECK int hk_build_collapse(struct hk_build_plan *bp, const char *view_root,
				    const char *view_id, struct hk_error *err);
void hk_build_plan_free(struct hk_build_plan *bp);
/* Expands the patterns of `set` (core/debian/debexpect.h) against each tree of `roots` (host
 * directories standing for the sandbox's /): the sandbox paths found, into `out`.  A pattern
 * without a wildcard is taken as it is. */
void hk_build_expand_expects(const struct hk_expect_set *set, const char *const *roots,
			     size_t n_roots, struct hk_strset *out);

/* The store a build of `r` uses: `store_opt`, else $HARKAQ_STORE, else the nearest store/
 * (with a store marker) from the recipe's directory up.  NULL when none of them gives one;
 * the caller decides (a recipe with deps cannot resolve them).  Malloc'd. */
char *hk_build_store_dir(const struct hk_recipe *r, const char *store_opt);

/* The sandbox a build of `r` runs in, as far as it decides the policy (the contract surfaces,
 * hk_sandbox_contract): `harkaq build` and `harkaq policy` both start from it, so the policy
 * printed is the policy a caged build enforces.  Work paths are left NULL for the caller. */
void hk_build_sandbox_init(struct hk_sandbox *sb, const struct hk_recipe *r, bool cage);

/* Where a build's work directory is made by default (HK_BUILD_WORK_PARENT/harkaq-build-<nonce>;
 * hk_build_opts.work_parent chooses another): the build user must be able to reach it, as every
 * path bubblewrap binds. */
#define HK_BUILD_WORK_PARENT "/var/tmp"

struct hk_build_opts {
	/* The recipe: a parsed or built one (copied by the engine), else the file at
	 * recipe_path. */
	const struct hk_recipe *recipe;
	const char *recipe_path;
	const char *store_dir;           /* NULL: $HARKAQ_STORE, else nearest store/ above */
	/* The store already open, instead of store_dir: the build holds it (hk_store_ref) and
	 * refreshes it (hk_store_refresh), seeing what a store opened now would. */
	struct hk_store *store;
	bool cage;
	const char *user;
	const char *profile;
	int timeout_s;
	bool keep;
	bool quiet;
	/* The absolute directory the work directories are made in (NULL: HK_BUILD_WORK_PARENT;
	 * a Debian build's front end: $TMPDIR, else /var/tmp): a sweep gives each item its own,
	 * which it removes however the build ended (docs/sweep.md). */
	const char *work_parent;
	bool no_evidence;                /* cage without the reader or canary: verdict NoEvidence */
	bool per_file_rules;             /* never hand the cage collapsed directories */
	bool verify_full;                /* re-hash the closure and base, stat caches ignored */
	/* What may enter the store: by default only the output of a build whose every phase is
	 * Hermetic (its id is computed and reported either way). */
	bool seal_impure;                /* also a build with a phase Impure or NoEvidence, or
					  * built --no-cage */
	bool no_seal;                    /* nothing, whatever the verdicts */
	const char *wrap;                /* benchmark only: "PROG ARGS…" (split on spaces) run
					  * around each phase's shell inside the sandbox */
	int force_abi;                   /* > 0: harkaq-exec --force-abi N (tests of old kernels;
					  * the verdict is then NoEvidence); 0: the kernel's ABI */
	/* A Debian build (engine/debian/build_dsc.h) sets these; NULL for a recipe's own build. */
	const char *source_date_epoch;   /* instead of the fixed HK_SOURCE_DATE_EPOCH */
	const char *const *phase_labels; /* HK_PHASE_COUNT names for the phases ("build" …) */
	const char *dpkg_db;             /* host directory bound read-only at /var/lib/dpkg */
	bool observe_opens;              /* record the files the phases opened (engine/cage/reads.h) */
	/* The recipe's [source] directory is the caller's own copy, used once: it is moved into
	 * the work directory (a rename, when on the same file system) instead of copied. */
	bool source_disposable;
	const char *const *view_hide;    /* artifact names the store view leaves out */
	size_t n_view_hide;
	const char *const *dpkg_db_files;   /* its files as sandbox paths, granted read-only */
	size_t n_dpkg_db_files;
	/* A host path (absent, on the work directory's file system) to which /out is moved once
	 * the phases are done, before the work directory is removed: the caller compares
	 * outputs (dsc_decide.c).  NULL: /out goes with the work directory. */
	const char *keep_out;
	/* The toolchain's expectations (core/debian/debexpect.h): each pattern is expanded against the
	 * base and the store view, and every path found that the policy does not grant is
	 * expected; the evidence names the entry of each expected denial.  Borrowed for the run. */
	const struct hk_expect_set *expect_set;
	/* The fixed environment of every phase, "KEY=VALUE" each, instead of the engine's own
	 * (PATH, HOME, SOURCE_DATE_EPOCH, LC_ALL, TZ: docs/recipe-format.md, "[env]"); the
	 * recipe's [env] follows it.  NULL: the engine's. */
	const char *const *fixed_env;
	size_t n_fixed_env;
	/* A source still being made when the build starts (a Debian build's unpacking runs
	 * beside the engine's set-up: engine/debian/build_dsc.c).  Called once, when the closure is
	 * mounted and verified, before the first step that needs what the source gives: the
	 * expansion of expect_set and the source's placing in /src, where fixed_env is read.
	 * Neither is read before it; the caller may fill them until it returns.  0, or -errno
	 * with err set and classified: the build stops there (HK_BUILD_STAGE_FETCH).  NULL: the
	 * source is ready. */
	int (*source_ready)(void *ctx, struct hk_error *err);
	void *source_ctx;
};

struct phase_result {
	enum hk_phase phase;
	const char *label;               /* its name in verdicts and reports (static or the opts') */
	bool ran;
	struct hk_cage_result res;
	struct hk_verdict verdict;
	bool has_verdict;
	long long ms;
	/* The phase's evidence object, kept as written (its diagnosis is computed once, and the
	 * --json result reuses it): canonical bytes, and its id when it was stored. */
	struct hk_buf evidence;
	char evidence_id[HK_B3_ID_LEN];
	/* The same diagnosis, typed (items[i] diagnoses verdict.denials[i]): what the engine's
	 * own readers (the Debian findings) use, never the bytes above. */
	struct hk_diagnosis diag;
	bool has_diag;
};

/* The engine's steps, each timed once (-1: not reached): where a build's wall time goes beside
 * its phases (bench/debian/pairs, "Where the time goes"). */
enum hk_build_step {
	HK_BUILD_T_OPEN,             /* the recipe, the build user, the store opened */
	HK_BUILD_T_DERIVE,           /* the closure and the policy (hk_build_derive) */
	HK_BUILD_T_VIEW,             /* the store view, found or made, and expectations */
	HK_BUILD_T_SANDBOX_PLAN,     /* collapse planning and the mount plan */
	HK_BUILD_T_MOUNT_VERIFY,     /* the merged view mounted, the closure verified */
	HK_BUILD_T_SOURCE_WAIT,      /* waiting for a source still being made (source_ready),
				      * then the expectations expanded */
	HK_BUILD_T_POLICY_FILES,     /* the policy written for the cage */
	HK_BUILD_T_BINDS,            /* what bubblewrap binds, checked as the build user */
	HK_BUILD_T_SOURCE,           /* the source copied into /src */
	HK_BUILD_T_READS_START,      /* fanotify's watch for the converse set */
	HK_BUILD_T_PHASES,           /* every phase (each one's parts: its timing_ms) */
	HK_BUILD_T_READS_STOP,       /* fanotify's watch stopped, what it saw kept */
	HK_BUILD_T_STAGE,            /* /out copied, normalised and hashed */
	HK_BUILD_T_RELEASE,          /* the merged view unmounted, the work directory removed */
	HK_BUILD_T_EVIDENCE_FINISH,  /* the last deallocation records awaited */
	HK_BUILD_T_VERDICTS,         /* verdicts, diagnosis and evidence objects */
	HK_BUILD_T_SEAL,             /* the output added to the store */
	HK_BUILD_T_COUNT
};

const char *hk_build_step_name(enum hk_build_step s);

struct hk_build_result {
	bool cage;
	bool recipe_loaded;
	struct hk_recipe recipe;
	char recipe_hash[HK_B3_ID_LEN];
	struct hk_store *store;
	bool plan_ok;
	struct hk_build_plan plan;
	struct phase_result phases[HK_PHASE_COUNT];
	size_t n_phases;
	long long ms_evidence_finish;    /* awaiting the phases' deferred deallocation records */
	long long ms_steps[HK_BUILD_T_COUNT];   /* enum hk_build_step; -1: not reached */
	long long ms_total;              /* hk_build_run, whole */
	const char *failed_phase;
	/* The artifact the install output makes, whether or not it entered the store (empty
	 * when a phase failed or the recipe installs nothing), and, once stored, its directory. */
	char artifact_id[HK_B3_ID_LEN];
	bool artifact_stored;
	char *artifact_dir;
	char *work;
	struct hk_view view;             /* the store view the sandbox showed (core/store/view.h) */
	size_t deps_sealed;              /* closure artifacts whose fs-verity seal was verified */
	int interrupted;                 /* the signal that stopped the build, or 0 */
	/* Where the build stopped on an error (hk_build_run < 0): the JSON result's "failure". */
	enum hk_build_stage failed_stage;
	int failed_signal;               /* the signal behind a stop, or 0 */
	const char *error;               /* why the build stopped on an error (err.msg of
					  * hk_build_run; set by the caller for the JSON result) */
	/* With bo->observe_opens: the sandbox paths the phases opened among those allowed
	 * (engine/cage/reads.h); `opened_note` says why they were not observed, `opened_incomplete`
	 * that the kernel dropped some. */
	struct hk_strset opened;
	bool opened_observed, opened_incomplete;
	uint64_t opened_events;          /* fanotify events read for `opened` */
	char *opened_note;
	/* The options' expectation set (borrowed: valid while the caller's set is), and how many
	 * paths of it the policy expects (those it does not grant). */
	const struct hk_expect_set *expect_set;
	size_t n_set_expects;
};

/* Runs the build (build_run.c).  Returns its outcome (enum hk_outcome, engine/common/status.h: the
 * worst phase's) when it gave verdicts, or -errno when it stopped before: err says why, of
 * which class (a signal: HK_ERROR_INTERRUPTED), and r->failed_stage where. */
HK_MUST_CHECK int hk_build_run(const struct hk_build_opts *o, struct hk_build_result *r, struct hk_error *err);
/* Checks the closure's artifacts and the pinned base before anything runs (build_verify.c);
 * counts the sealed deps into br, and the inode of each of their regular files into `inos`
 * (finished; incomplete when a tree was not stat'ed: --verify-full, an unpinned base).
 * Returns 0 or -errno, err saying which failed. */
HK_MUST_CHECK int hk_build_verify_inputs(const struct hk_build_opts *bo, const struct hk_recipe *r,
			   struct hk_store *store, struct hk_build_result *br,
			   struct hk_inos *inos, struct hk_error *err);

/* The result as JSON, and its release (build_result.c). */
void hk_build_result_json(const struct hk_build_result *r, struct hk_json *j);
void hk_build_result_free(struct hk_build_result *r);

/* Source preparation (source.c). */
HK_MUST_CHECK int hk_source_verify_tarball(const struct hk_recipe *r, struct hk_error *err);
/* A tarball that unpacked into one top directory: move its content up into `dir`. */
HK_MUST_CHECK int hk_source_flatten_single_dir(const char *dir, struct hk_error *err);
/* A Debian source package fetched as `apt-get source` fetches it, on the host: the one fetcher
 * of a recipe's `[source] apt`, `harkaq build --dsc NAME[=VERSION]` and a sweep's pins.  `spec`
 * is NAME or NAME=VERSION (hk_apt_source_spec_ok); into the existing directory `dir`, the .dsc
 * and its files only (download_only), or unpacked too.  A source package or version apt does
 * not know is ENOENT, bad input; any other failure (no deb-src entry, the mirror, the network)
 * EIO; both with apt's own words. */
HK_MUST_CHECK int hk_apt_source(const char *dir, const char *spec, bool download_only,
				struct hk_error *err);
/* The .dsc `apt-get source` left in `dir`: the one named NAME_…, else the only one. */
HK_MUST_CHECK int hk_apt_source_dsc(const char *dir, const char *name, char **out,
				    struct hk_error *err);
/* Whether `s` is what apt-get source takes and a directory can be named by: a Debian source
 * package name (Debian Policy §5.6.1), then "=VERSION" (a version without blanks or slashes),
 * which `need_version` requires. */
bool hk_apt_source_spec_ok(const char *s, bool need_version);
/* After `apt-get source` in `fetch`: copy the unpacked source tree into `dst`. */
HK_MUST_CHECK int hk_source_take_apt_dir(const char *fetch, const char *package, const char *dst,
			   struct hk_error *err);

#endif
