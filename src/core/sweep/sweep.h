/* The sweep's pure part (design.md §11, docs/sweep.md): what one item's measurement is, how a
 * catalogue is cut into shards, how results are combined, summarised and rendered.
 *
 * The orchestrator (src/engine/sweep/sweep_run.c, sweep_item.c) runs the builds; everything that decides a number
 * lives here, so it is testable on any machine and identical on every machine: a summary
 * computed from the merged results of N shards is byte for byte the summary of one sweep.
 *
 *   harkaq build --result-out ──hk_sweep_item_from_build()─────────┐  (sweep_read.c: one
 *   harkaq.sweep.debian-build.v1 ──hk_sweep_item_from_debian_build()┤   decoder per format)
 *   a build that left no result ──hk_sweep_item_without_result()───┤
 *   an item that cannot even be built ──hk_sweep_item_fail()────────┤
 *   result JSON of shards ──hk_sweep_doc_parse(), merge()───────────┤
 *                                                                   │ hk_sweep_classify()
 *                                                                   │ against one store
 *                                                                   └─> hk_sweep_doc_json()
 *                                                                       hk_sweep_table()
 *                                                                       hk_sweep_html()
 *
 * sweep.c: items, outcome, shards, merge, summary; sweep_read.c: the builds' documents read
 * into items; sweep_json.c: the result document's codec; the table and the HTML are the
 * engine's (engine/sweep/sweep_render.h).
 */
#ifndef HK_SWEEP_H
#define HK_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/debian/dsc_rules.h"
#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/basic/strset.h"

/* What an item came out as.  Exactly one per item, so the counts add up to the number of
 * items: nothing is dropped. */
enum hk_sweep_outcome {
	HK_SWEEP_HERMETIC = 0,   /* every phase Hermetic and the build succeeded */
	HK_SWEEP_DECLARABLE,     /* debt, and the store provides every debt path */
	HK_SWEEP_IRREDUCIBLE,    /* debt, and at least one debt path nobody provides */
	HK_SWEEP_NOEVIDENCE,     /* some phase NoEvidence (or no verdict at all) */
	HK_SWEEP_FAILED,         /* not measured: bad recipe, deps, fetch, set-up, or a phase
	                          * failed without any debt to explain it */
	/* A Debian source package's classes beside hermetic, no_evidence and failed: the
	 * build's own class (core/debian/dsc_rules.h, hk_dsc_classify), mapped by
	 * hk_sweep_outcome_of_dsc, worst first: */
	HK_SWEEP_MISSING,        /* a need the build was denied: a missing Build-Depends */
	HK_SWEEP_INFLUENCE,      /* an undeclared package changes the .debs (--decide-probes) */
	HK_SWEEP_UNATTRIBUTED,   /* a denied path no package of the store or the base ships */
	HK_SWEEP_PROBES,         /* built; probes survived, not decided (or undecided) */
	HK_SWEEP_INERT_PROBES,   /* built; probes survived, each shown not to change the .debs */
	HK_SWEEP_FETCH_FAILED,   /* the source or the closure's .debs could not be fetched */
	/* Any item: the sweep's wall-clock limit per item ran out (--item-timeout); the build
	 * was stopped and nothing of it kept. */
	HK_SWEEP_TIMED_OUT,
	/* Any item: the sweep was interrupted (^C, SIGTERM) before it built the item, or while
	 * it did.  Not a result of the item (a run again builds it), so counted in no figure
	 * that measures the catalogue; a complete sweep has none.  Last, so that the other
	 * outcomes keep their place in the document. */
	HK_SWEEP_NOT_BUILT,
	HK_SWEEP_OUTCOME_COUNT
};

/* "hermetic", "declarable", "irreducible", "no_evidence", "failed", "missing_build_depends",
 * "influence", "unattributed", "probes_only", "inert_probes", "fetch_failed", "timed_out",
 * "not_built" */
const char *hk_sweep_outcome_name(enum hk_sweep_outcome o);
/* "Hermetic", "only declarable debt", "irreducible debt", "no evidence", "failed", …,
 * "not built (interrupted)" */
const char *hk_sweep_outcome_label(enum hk_sweep_outcome o);
/* The one mapping of a Debian build's class to the sweep's outcome. */
enum hk_sweep_outcome hk_sweep_outcome_of_dsc(enum hk_dsc_class c);

/* Why a recipe failed: stable codes (scripts match on them). */
#define HK_SWEEP_FAIL_RECIPE "recipe"   /* the recipe does not load (file:line:col) */
#define HK_SWEEP_FAIL_DEPS   "deps"     /* a declared dep is not in the store / no closure */
#define HK_SWEEP_FAIL_FETCH  "fetch"    /* the source could not be fetched or unpacked */
#define HK_SWEEP_FAIL_PHASE  "phase"    /* a phase exited non-zero, with no debt */
#define HK_SWEEP_FAIL_SETUP  "setup"    /* harkaq build stopped with a set-up error */
#define HK_SWEEP_FAIL_TIMEOUT "timeout" /* the item's wall-clock limit ran out */
#define HK_SWEEP_FAIL_CRASH  "crash"    /* the build's process died of a signal, no result */
#define HK_SWEEP_FAIL_INTERRUPTED "interrupted"   /* the sweep was stopped before or while
                                                   * the item was built */

/* How a debt path is classified (design.md §8): which artifacts of the store provide it (none:
 * irreducible).  The classification is made once, over the whole catalogue's items, against
 * one store index (hk_sweep_classify): by the sweep after its builds, and by `sweep merge`
 * against the complete store it is given, so that merged numbers never depend on which
 * worker, with which store, built what. */
struct hk_sweep_class {
	char **providers;        /* malloc'd artifact names, or NULL; taken over by the item */
	size_t n_providers;
};
typedef void (*hk_sweep_classify_fn)(void *ctx, const char *path, struct hk_sweep_class *out);

/* Whether the base root the recipe stood on holds `path` (then a policy of closure + whole
 * base root would have granted it: the base-debt measure).  Asked where the build ran: it is
 * a measurement of that machine's base root, like the denial itself. */
typedef bool (*hk_sweep_in_base_fn)(void *ctx, const char *path);

/* One distinct debt path of a recipe (over all its phases). */
struct hk_sweep_debt {
	char *path;              /* sandbox path; a denial without a path (a scope) is written
	                          * "[blockers]", e.g. "[scope.signal]" */
	bool irreducible;        /* no provider (set by hk_sweep_classify) */
	char **providers;        /* artifact names, sorted, deduplicated (hk_sweep_classify) */
	size_t n_providers;
	bool in_base;
	unsigned phases;         /* bit (1 << phase index in the recipe's phase list) */
	char *exe;               /* who tried, first denial seen; NULL when unknown */
	uint64_t records;        /* denial records of this path, all phases */
};

struct hk_sweep_phase {
	char *phase;             /* "configure", "compile", "install" */
	char *state;             /* "Hermetic", "Impure", "NoEvidence"; NULL: no verdict */
	char *reason;            /* NoEvidence: the primary reason code; else NULL */
	int exit_code;
	/* Paths, not denials: one path denied under two sets of rights counts once
	 * (docs/diagnosis.md, "One path, one entry"). */
	uint64_t debt;           /* debt paths of the phase */
	uint64_t expected;       /* expected paths */
	uint64_t policy_bug;     /* paths the diagnosis calls a harkaq policy bug */
	/* run-specific (not part of the deterministic summary) */
	int64_t ms;
	char *evidence;          /* id of the phase's stored evidence object, when the build
	                          * reports one; NULL otherwise */
};

/* A package a Debian build's report names (docs/debian-builds.md, "The report"): a missing
 * Build-Depends or a probe, with the first denial that named it. */
struct hk_sweep_finding {
	char *package, *version;
	char *phase;             /* the phase that was denied it ("build"), as the item's phases */
	char *path;              /* the first path denied; NULL for a need named from the log */
	char *exe;               /* who tried (run data), or NULL */
	uint64_t paths;          /* distinct paths of it denied */
	bool from_log;           /* named from the build log (a missing aclocal macro) */
	/* A probe's --decide-probes answer: what granting it did to the .debs. */
	bool decided;            /* false: no decision (not asked, or the probe was not tried) */
	enum hk_probe_class decision;
	char *why;               /* the rule that gave it (a sentence of core/debian/dsc_rules.c) */
	char **differences;      /* an influence's differing .deb members as the build listed
	                          * them (the first ones), n_listed of them */
	size_t n_listed;
	size_t n_differences;    /* all of them */
};

/* What a Debian source package's build said in Build-Depends terms. */
struct hk_sweep_deb {
	char *source;            /* the source package's name */
	char *dsc_sha256;        /* the .dsc built, or NULL when it was never read */
	/* The package's class as the build's report gives it (hk_dsc_classify): the item's
	 * outcome, through hk_sweep_outcome_of_dsc.  false: the report has none (the build did
	 * not run its phases, or left no report). */
	bool has_class;
	enum hk_dsc_class cls;
	struct hk_sweep_finding *missing, *probes;
	size_t n_missing, n_probes;
	size_t unattributed;     /* denied paths no package ships */
	char **unopened;         /* "Build-Depends: zlib1g-dev": used groups none of whose files
	                          * was opened, sorted */
	size_t n_unopened;
	bool converse;           /* the converse was computed (opens observed, build completed) */
	size_t closure;          /* packages apt resolved beyond the base */
	char *confirm;           /* --confirm's answer (hk_confirm_answer_name); NULL: none ran */
	bool decide_asked;       /* built with --decide-probes */
	char *decide_not_run;    /* ... and why no extra build ran, or NULL */
};

struct hk_sweep_item {
	char *key;               /* the recipe as the sweep names it: sort and shard key */
	char *name, *version;    /* NULL when the recipe could not be read */
	char *recipe_hash;
	char *policy_id;
	/* The base it stood on (docs/bases.md): a pinned base's id and name, or base_id NULL
	 * and base_name "host" / "root" — such a verdict measures the machine, and the summary
	 * counts those recipes apart. */
	char *base_id, *base_name;
	bool base_pinned;
	enum hk_sweep_outcome outcome;
	char *fail_code;         /* HK_SWEEP_FAIL_*; NULL when the build ran to the end */
	char *reason;            /* why it failed, or NULL */
	char *failed_phase;      /* a phase exited non-zero (also with debt), or NULL */
	struct hk_sweep_phase *phases;
	size_t n_phases;
	struct hk_sweep_debt *debts;   /* sorted by path */
	size_t n_debts;
	/* Denials on the sandbox's own contract surfaces (the diagnosis' "policy_bug"): harkaq's
	 * fault, not the recipe's, so not debt (the design's §4.10 "gap de política"). */
	char **policy_bugs;      /* distinct paths, sorted */
	size_t n_policy_bugs;
	/* A Debian source package (a NAME=VERSION pin or a .dsc): its report; NULL for a
	 * recipe. */
	struct hk_sweep_deb *deb;
	/* run-specific */
	char *artifact;
	int64_t ms;
	bool resumed;            /* taken from an earlier run's record, not built again */
	int stopped_by;          /* the signal that stopped the build (its result says so), or 0:
	                          * such a result is not the item's, and is never recorded */
	int exit_status;         /* of harkaq build; -1 when it did not run */
	char *log;               /* the build's log file, or NULL */
	/* A Debian item: how many of its closure's .debs this run downloaded (0: the store, or
	 * a bundle, had them all); known only from a Debian build's report. */
	bool closure_known;
	size_t closure_downloaded;
};

void hk_sweep_item_free(struct hk_sweep_item *it);
void hk_sweep_deb_free(struct hk_sweep_deb *d);

/* An item for a recipe that was not built, or whose build left no result: outcome failed
 * (not_built for the code "interrupted", timed_out for "timeout", …: hk_sweep_outcome_of). */
void hk_sweep_item_fail(struct hk_sweep_item *it, const char *key, const char *code,
			const char *reason);

/* How an item's build process ended when it left no result to read. */
struct hk_sweep_proc_end {
	bool signaled;           /* killed by a signal (then `code` is the signal) */
	int code;                /* its exit status, or the signal */
};
/* The item of a build that left no result (or an unreadable one, `why`, NULL when there was
 * none): failed, coded by how its process ended — killed by a signal, "crash"; exited,
 * "setup" — never by what it wrote in its log. */
void hk_sweep_item_without_result(struct hk_sweep_item *it, const struct hk_sweep_proc_end *end,
				  const char *why);

/* ---- the builds' documents (sweep_read.c): one decoder each, bytes in, the item out ---- */

/* Reads a `harkaq build --result-out` document into `it` (key set by the caller beforehand):
 * the raw measurement — per-phase verdicts with their evidence ids, every denial that is not
 * expected (path, phases, who tried, how often, whether the base root holds it), the failed
 * phase and, from the typed "failure", why it stopped — and an outcome as if no debt path had
 * a provider, until hk_sweep_classify.  Text that is not a build result is -EINVAL. */
HK_MUST_CHECK int hk_sweep_item_from_build(struct hk_sweep_item *it, const char *text,
					   size_t len, hk_sweep_in_base_fn in_base, void *ctx,
					   struct hk_error *err);

/* Reads a Debian item's document (harkaq.sweep.debian-build.v1, written by the sweep's child:
 * {"exit_status", "fetch": null | {"what", "reason"}, "report": the --json report of
 * `harkaq build --dsc`}) into `it`: the build's phases and failure as
 * hk_sweep_item_from_build reads them, no debt path (the report names packages instead), the
 * package's class, the missing Build-Depends, the probes with their --decide-probes answers,
 * --confirm's answer, the unopened Build-Depends and how the closure was got.  Sets it->deb.
 * Text that is not such a document is -EINVAL. */
HK_MUST_CHECK int hk_sweep_item_from_debian_build(struct hk_sweep_item *it, const char *text,
						  size_t len, struct hk_error *err);

/* Classifies every debt path of every item (paths that are not files, "[scope.signal]",
 * stay irreducible), replacing any earlier classification, and recomputes each outcome. */
void hk_sweep_classify(struct hk_sweep_item *items, size_t n, hk_sweep_classify_fn classify,
		       void *ctx);

/* The outcome from the item's phases, debts and failure, or a Debian item's class (the rules
 * in docs/sweep.md). */
enum hk_sweep_outcome hk_sweep_outcome_of(const struct hk_sweep_item *it);

/* ---- catalogue and shards ---- */

/* Sorts keys bytewise (strcmp) and removes duplicates; returns the new count. */
size_t hk_sweep_sort_keys(char **keys, size_t n);
/* "b3:…" of the sorted keys: the identity of the catalogue every shard must agree on. */
void hk_sweep_catalogue_id(const char *const *sorted_keys, size_t n, char out[HK_B3_ID_LEN]);
/* "I/N" with 1 <= I <= N <= 100000. */
HK_MUST_CHECK int hk_sweep_parse_shard(const char *text, unsigned *index, unsigned *count,
			 struct hk_error *err);
/* Shard I/N holds the recipes at positions p (0-based, in sorted key order) with
 * p % N == I - 1: round robin, so neighbours in the catalogue spread over the machines. */
bool hk_sweep_in_shard(size_t position, unsigned index, unsigned count);

/* ---- the result document ---- */

struct hk_sweep_doc {
	char catalogue_id[HK_B3_ID_LEN];
	size_t catalogue_size;   /* recipes in the whole catalogue (all shards) */
	unsigned shard_index, shard_count;   /* 0/0: the whole catalogue */
	/* The signal that stopped the sweep before every recipe was built (its unbuilt items
	 * are not_built, with that reason); 0 when it ran to the end.  A merge refuses such a
	 * result: its recipes are not a measurement of the catalogue. */
	int interrupted;
	struct hk_sweep_item *items;         /* sorted by key */
	size_t n_items;
	/* run-specific */
	unsigned jobs;
	int64_t elapsed_ms;
	char *store;
};

void hk_sweep_doc_free(struct hk_sweep_doc *d);
void hk_sweep_doc_sort(struct hk_sweep_doc *d);

/* The document as JSON.  with_run = false leaves out everything that depends on the run
 * (timings, logs, evidence ids, the store's path, jobs, artifacts): what remains is a
 * function of the catalogue, the store and the machine's kernel only, and is what
 * `sweep merge` must reproduce byte for byte. */
void hk_sweep_doc_json(const struct hk_sweep_doc *d, bool with_run, struct hk_json *j);
/* Reads back a document written with with_run = true (or false). */
HK_MUST_CHECK int hk_sweep_doc_parse(const char *text, size_t len, const char *filename,
		       struct hk_sweep_doc *out, struct hk_error *err);

/* Combines shard documents into the whole catalogue's: every shard 1..N exactly once, all
 * of the same catalogue, every recipe exactly once, none interrupted (an interrupted shard is
 * missing, and named so); otherwise an error naming what is missing or repeated.  The
 * classification is not the parts': the caller classifies the result (hk_sweep_classify).
 * The parts' items are moved into `out` (the parts are left empty). */
HK_MUST_CHECK int hk_sweep_merge(struct hk_sweep_doc *parts, size_t n_parts, struct hk_sweep_doc *out,
		   struct hk_error *err);

/* ---- summary ---- */

/* Wall time per item over the items that ran to their end (resumed ones with their first
 * run's time; not one the sweep's interruption cut short), or over the Debian items only: the
 * median and 95th percentile by nearest rank. */
struct hk_sweep_times {
	size_t n;
	int64_t total_ms, median_ms, p95_ms, max_ms;
};
void hk_sweep_item_times(const struct hk_sweep_doc *d, bool debian_only,
			 struct hk_sweep_times *t);

struct hk_sweep_path_count {
	const char *path;        /* points into an item */
	size_t recipes;          /* recipes whose debt includes the path */
	bool irreducible;
	bool in_base;
	const struct hk_sweep_debt *first;   /* providers come from here */
};

/* Every figure but `recipes` and the counts is over the items that were built: an item the
 * interruption of the sweep kept from building, or cut short, measured nothing (its counts
 * entry HK_SWEEP_NOT_BUILT says how many). */
struct hk_sweep_summary {
	size_t recipes;                  /* every item, built or not */
	size_t counts[HK_SWEEP_OUTCOME_COUNT];
	size_t built;                    /* recipes - counts[HK_SWEEP_NOT_BUILT]: what shares of
	                                  * the outcomes are taken over */
	size_t measured;                 /* hermetic + declarable + irreducible */
	size_t failed_builds;            /* recipes with a failed phase (any outcome but
	                                  * not_built) */
	/* base debt: the delta between policy = closure and policy = closure + base root */
	size_t base_recipes;             /* recipes that read >= 1 base-root path beyond closure */
	size_t base_paths_total;         /* sum over recipes of their distinct base paths */
	size_t base_paths_distinct;      /* distinct over the catalogue */
	size_t hidden_by_base;           /* recipes with debt whose every debt path is in the base
	                                  * root: under closure + base root they look Hermetic */
	size_t policy_bug_recipes;       /* recipes with >= 1 harkaq policy-bug denial */
	size_t unpinned;                 /* recipes built on an unpinned base (host, root:) */
	size_t unpinned_measured;        /* ... of them measured (in `measured` too) */
	struct hk_strset policy_bug_paths;    /* distinct, sorted */
	struct hk_sweep_path_count *paths;   /* every distinct debt path, most frequent first */
	size_t n_paths;
	/* Debian source packages: every package a report named (missing or probe), with the
	 * number of source packages that named it, most often first, then by name. */
	size_t debian;                   /* items that are Debian source packages */
	struct hk_sweep_named {
		const char *package;     /* points into an item */
		size_t sources;          /* source packages naming it (missing or probe) */
		size_t missing;          /* ... of them as a missing Build-Depends */
		size_t influences;       /* ... of them as a probe decided an influence */
	} *named;
	size_t n_named;
	size_t deb_counts[HK_SWEEP_OUTCOME_COUNT];   /* the Debian items' classes only */
	/* Every undeclared influence found: a probe --decide-probes showed changes the .debs,
	 * by package, then by the item it changed. */
	struct hk_sweep_influence {
		const struct hk_sweep_item *item;       /* the source package it changed */
		const struct hk_sweep_finding *probe;   /* the undeclared package, its decision */
	} *influences;
	size_t n_influences;
};

/* The target of the success metric (design.md §8): irreducible recipes < 5 % of those measured. */
#define HK_SWEEP_TARGET_PERCENT 5

void hk_sweep_summarise(const struct hk_sweep_item *items, size_t n, struct hk_sweep_summary *s);
void hk_sweep_summary_free(struct hk_sweep_summary *s);

#endif
