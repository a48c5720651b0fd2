/* The verdict of one run (design.md §7): Hermetic, Impure, or NoEvidence with its reasons.
 *
 *   canary seen, loss check passes, no debt denial (expected ones allowed)  ->  Hermetic
 *   canary seen, loss check passes, >= 1 debt denial                        ->  Impure
 *   anything that leaves the evidence unbacked                              ->  NoEvidence
 *
 * The loss check is the domain's own count (records received == denials=N); audit's global
 * lost counter and the reader's overruns withhold the verdict only when that count is not
 * complete (hk_verdict_count_complete).
 *
 * Any NoEvidence condition wins over the other two: evidence the kernel did not back is never
 * emitted.  Every condition that holds is kept as a reason, causes before symptoms (audit off
 * comes before "canary not seen"); the first is the primary reason.
 *
 * The orchestrator fills a struct hk_verdict_input after the run (and after waiting, bounded,
 * for the deallocated record), then:
 *
 *     struct hk_verdict v;
 *     hk_verdict_compute(&in, &v);
 *     hk_verdict_json(&v, &json);        // the evidence object (design.md §10)
 *     hk_verdict_summary(&v, &text);     // one short human text
 *     hk_verdict_free(&v);
 */
#ifndef HK_VERDICT_H
#define HK_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/evidence/evidence.h"
#include "core/formats/json.h"
#include "core/policy/policy.h"

enum hk_verdict_state {
	HK_HERMETIC = 0,
	HK_IMPURE = 1,
	HK_NOEVIDENCE = 2,
};

/* Why there is no evidence.  The names (hk_reason_code) are stable: they appear in stored
 * verdicts and scripts match on them.  Listed in the order a verdict reports them. */
enum hk_reason {
	HK_REASON_NO_LANDLOCK = 0,          /* no Landlock at all: the sandbox ran alone */
	HK_REASON_ABI_BELOW_7,              /* cage enforced, but the kernel cannot log denials */
	HK_REASON_FORCED_ABI,               /* the cage was told to pretend an older ABI */
	HK_REASON_CAGE_INCOMPLETE,          /* a protection was withheld (e.g. a test switch) */
	HK_REASON_AUDIT_NOT_CONFIRMED,      /* audit enabled=1 could not be confirmed */
	HK_REASON_READER_FAILED,            /* the reader died or reported an error */
	HK_REASON_CANARY_OPENED,            /* the canary was readable: the policy is wrong */
	HK_REASON_CANARY_AMBIGUOUS,         /* the canary was denied in two domains */
	HK_REASON_CANARY_NOT_SEEN,          /* no record of the canary reached the reader */
	HK_REASON_NO_DEALLOCATION,          /* the domain's denials=N never arrived */
	HK_REASON_RECORDS_LOST,             /* records received != denials=N */
	HK_REASON_KERNEL_LOST_COUNTER_ROSE, /* audit's global lost counter changed */
	HK_REASON_RECEIVE_OVERRUN,          /* the reader's socket overflowed (ENOBUFS) */
	HK_REASON_TIMED_OUT,                /* the phase was killed at its time limit */
	HK_REASON_NO_CANARY_NONCE,          /* no nonce for the canary: the phase was not run */
	HK_REASON_COUNT
};

/* "no_landlock", "abi_below_7", …  (NULL for a value out of range) */
const char *hk_reason_code(enum hk_reason r);
/* A general sentence for the reason (the verdict's own messages add the run's numbers). */
const char *hk_reason_description(enum hk_reason r);

/* "Hermetic", "Impure", "NoEvidence" */
const char *hk_verdict_state_name(enum hk_verdict_state s);

struct hk_verdict_input {
	/* Landlock ABI the cage applied, and the one the kernel reported; <= 0 = no Landlock.
	 * abi < kernel_abi means the cage was told to pretend an older ABI (a test setting). */
	int abi;
	int kernel_abi;
	/* The cage left a protection out (a test switch withheld LOG_NEW_EXEC_ON, …).
	 * cage_incomplete_detail says which (optional; not owned). */
	bool cage_incomplete;
	const char *cage_incomplete_detail;

	bool audit_confirmed;               /* AUDIT_GET read back enabled=1 */
	bool reader_failed;
	const char *reader_error;           /* optional sentence; not owned */

	/* The canary probe's open succeeded (the orchestrator aborts the build; kept so the
	 * verdict of the aborted run says why). */
	bool canary_opened;
	/* The run was killed at its time limit: what it would have done after is unknown. */
	bool timed_out;

	/* audit_status.lost read before the build started and after the records were drained. */
	uint64_t lost_before;
	uint64_t lost_after;
	uint64_t enobufs;                   /* recv() returned ENOBUFS this many times */

	/* The run's records; NULL if no reader ran (then another reason must explain why, or
	 * the verdict says reader_failed).  Not owned; only read during compute. */
	const struct hk_evidence *evidence;
	/* Classifies denials: expect lines make a denial "expected" (design.md §5).  NULL = no
	 * expectations.  Not owned; only read during compute. */
	const struct hk_policy *policy;

	/* Copied into the verdict; each optional (NULL is written as null). */
	const char *policy_id;              /* "b3:…" */
	const char *recipe_hash;
	const char *artifact_hash;
	const char *phase;                  /* "configure", "compile", … */
	/* Whether the deps the run used were sealed with fs-verity (design.md §12) and their seals
	 * verified before it started: "all", "some", "none" (hk_deps_sealed_word); NULL when the
	 * run had no deps (harkaq run, a build without deps). */
	const char *deps_sealed;
};

enum hk_denial_class {
	HK_DENIAL_EXPECTED = 0,
	HK_DENIAL_DEBT = 1,
};

const char *hk_denial_class_name(enum hk_denial_class c);   /* "expected", "debt" */

/* One distinct denial: the (object, blockers) pair, with how often it was recorded. */
struct hk_denial {
	enum hk_denial_class cls;
	char *blockers;          /* owned, as the kernel wrote them */
	bool has_path;
	char *path;              /* owned bytes (NUL-terminated), NULL when !has_path */
	size_t path_len;
	char *dev;               /* owned, NULL when absent */
	size_t dev_len;
	bool has_ino;
	uint64_t ino;
	bool has_opid;           /* signal/ptrace target */
	int64_t opid;
	char *ocomm;
	size_t ocomm_len;
	char *exe;               /* who tried, first occurrence; NULL when unknown */
	size_t exe_len;
	char *comm;
	size_t comm_len;
	uint64_t count;          /* records of this (object, blockers); >= 1 */
};

/* Whether two denials are of the same path (a report's one entry, docs/diagnosis.md: "One
 * path, one entry").  Denials without a path (a signal, a socket) are never the same. */
bool hk_denial_same_path(const struct hk_denial *a, const struct hk_denial *b);

struct hk_verdict_reason {
	enum hk_reason code;
	char *message;           /* owned: a sentence with this run's specifics */
};

/* The base a run stood on: a pinned base of the store (id and name), or an unpinned one
 * ("host": this machine's own directories; "root": a directory). */
struct hk_verdict_base {
	char *id;              /* owned: "b3:<hex>" for a pinned base; NULL when unpinned */
	char *name;            /* owned: the base's name, or "host" / "root"; NULL: not stated */
	bool pinned;
	size_t packages;       /* dpkg packages of a pinned base */
	char *view;            /* owned: the store view's snapshot id (core/store/view.h), or NULL */
};

struct hk_verdict {
	enum hk_verdict_state state;
	struct hk_verdict_reason *reasons;   /* NoEvidence: >= 1, the first is primary */
	size_t n_reasons;

	int abi, kernel_abi;
	char *policy_id, *recipe_hash, *artifact_hash, *phase;   /* owned or NULL */
	char *deps_sealed;                   /* owned or NULL: "all", "some", "none" */
	/* What the sandbox stood on and showed (docs/bases.md), so the evidence names what the
	 * verdict measured; none of it decides the state. */
	struct hk_verdict_base base;

	char *canary_path;                   /* owned, NULL if no evidence was collected */
	bool canary_seen;
	uint64_t domain;                     /* valid when canary_seen */

	bool dealloc_seen;
	uint64_t kernel_denials;             /* denials=N, valid when dealloc_seen */
	uint64_t records_received;           /* for the domain, the canary's included */
	uint64_t canary_records;
	uint64_t lost_before, lost_after, enobufs;
	/* hk_verdict_count_complete() of the run's evidence: when true, the global loss counters
	 * above may have moved without withholding the verdict (docs/verdict.md, "Loss"). */
	bool count_complete;

	/* Distinct denials of the run's domain, canary excluded, in first-seen order; the counts
	 * add up to records_received - canary_records.  Kept in every state: a NoEvidence
	 * verdict still shows what did arrive. */
	struct hk_denial *denials;
	size_t n_denials;
	size_t n_debt, n_expected;           /* distinct entries per class */

	/* Not a member of the verdict's JSON: directories the cage granted with one rule beneath
	 * each (docs/cage.md, "Collapsed directories"), for the evidence object's blind spot. */
	size_t collapsed_dirs;
	/* Not a member of the verdict's JSON either: how the run's command (a build phase's
	 * shell) exited, for the evidence object, so that a report shows a failed phase as
	 * failed on its own line (docs/diagnosis.md).  Set by the orchestrator. */
	bool has_exit_code;
	int exit_code;                       /* exit status, or 128 + signal */
};

/* Whether the run's domain accounted for itself: canary seen in one domain, deallocation
 * record in, records received == its denials=N.  Then no record of the domain was lost, and
 * loss elsewhere in the audit stream (audit's lost counter, the reader's socket overruns)
 * does not withhold the verdict. */
bool hk_verdict_count_complete(const struct hk_evidence *ev);

/* Applies the rules of design.md §7.  The verdict is self-contained (it copies what it needs). */
void hk_verdict_compute(const struct hk_verdict_input *in, struct hk_verdict *out);
/* The verdict of a phase that was not run because its canary's nonce could not be drawn (a
 * canary at a path the build could know in advance proves nothing): NoEvidence with
 * no_canary_nonce alone, `detail` saying why (the random source's error).  The run's identity
 * (ABI, policy, recipe, phase, …) comes from `in`; its evidence members are not read. */
void hk_verdict_no_canary_nonce(const struct hk_verdict_input *in, const char *detail,
				struct hk_verdict *out);
void hk_verdict_free(struct hk_verdict *v);

/* "all" (every dep sealed), "some", "none" — or NULL when there are no deps. */
const char *hk_deps_sealed_word(size_t sealed, size_t total);
/* Sets (or, with NULL, clears) the verdict's deps_sealed after it was computed, for the
 * orchestrator that learns it outside the run (harkaq build checks the deps' seals). */
void hk_verdict_set_deps_sealed(struct hk_verdict *v, const char *word);
/* Sets the verdict's base (a copy of every string), for the orchestrator that knows it. */
void hk_verdict_set_base(struct hk_verdict *v, const struct hk_verdict_base *base);

/* Whether the verdict carries this reason. */
bool hk_verdict_has_reason(const struct hk_verdict *v, enum hk_reason r);

/* The verdict as one JSON object (kind harkaq.verdict.v1), fields in a fixed order:
 *   kind, state, reasons [{code, message}], abi, kernel_abi, policy_id, recipe_hash,
 *   artifact_hash, phase, deps_sealed, base {id, name, pinned, packages, view},
 *   canary {path, seen, domain}, kernel {denials, records_received,
 *   canary_records, lost_before, lost_after, enobufs}, denials [{class, blockers, path, dev,
 *   ino, opid, ocomm, exe, comm, count}]
 * Paths, dev, exe, comm, ocomm go through hk_json_bytes(); absent values are null; domain is
 * the kernel's hex spelling. */
void hk_verdict_json(const struct hk_verdict *v, struct hk_json *j);
/* The same members without the enclosing braces, for a writer that extends the object (the
 * evidence object of src/core/evidence/evobj.h appends its diagnosis and blind spots). */
void hk_verdict_json_members(const struct hk_verdict *v, struct hk_json *j);
/* The "reasons" array alone, [{code, message}], as the verdict's JSON writes it. */
void hk_verdict_reasons_json(const struct hk_verdict *v, struct hk_json *j);

/* A short human text (lines end with '\n'), e.g.
 *   Hermetic  (canary seen, kernel counted 1 denial = 1 record; expected: none)
 *   Impure  debt (1): /etc/passwd [fs.read_file] by cat
 *   NoEvidence  canary not seen: the kernel's logging did not reach the reader (…)
 * Bytes that are not printable are written as \xHH. */
void hk_verdict_summary(const struct hk_verdict *v, struct hk_buf *out);

/* The escaping used by the summary: printable ASCII and valid, printable UTF-8 as is;
 * '\' as "\\"; control bytes, invalid UTF-8 and invisible/bidirectional format characters as
 * \xHH per byte.  Exposed for other human-facing output. */
void hk_escape_human(const void *p, size_t n, struct hk_buf *out);

#endif
