/* A build's plan kept for the next build of the same closure (docs/store.md, "Kept plans"):
 * the policy derived from a closure and the directories the cage may collapse, each under a
 * key that covers every input it was computed from.
 *
 * Deriving a policy reads the base's package lists and ELF files and every manifest of the
 * closure (0.1-0.3 s for a Debian build's closure on debian-12-buildd), and planning the
 * collapsed directories reads the base root and the store view (0.1-0.2 s).  Both are pure
 * functions of inputs that are themselves named by ids — the base's id, the closure's artifact
 * ids, the store view's id — plus a few values (the profile, the sandbox's contract surfaces,
 * the recipe's expectations) and the code that computes them.  The same inputs give the same
 * answer, so a warm build reads the answer instead of computing it again.
 *
 * What is kept proves itself where it can: a kept policy is its canonical text with the id it
 * had when derived, and the text must parse (strictly) and hash to that id again; a kept
 * collapse plan carries the BLAKE3 of its own bytes.  Each names the key it was kept under,
 * so a record copied under another key is refused.  A record that fails any check is
 * "damaged": the caller derives anew and keeps the fresh answer.
 *
 * Pure: the caller gathers the inputs and reads or writes the files (engine/build/plan_cache.h). */
#ifndef HK_CORE_PLAN_RECORD_H
#define HK_CORE_PLAN_RECORD_H

#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/policy/collapse.h"
#include "core/policy/derive.h"
#include "core/basic/error.h"
#include "core/policy/policy.h"
#include "core/basic/strset.h"

/* Everything a derived policy depends on, once the closure is resolved. */
struct hk_plan_key_input {
	const char *code_id;             /* the deriving program's identity (engine/build/plan_cache.h) */
	const char *base_id;             /* the pinned base: its artifact id */
	const char *profile;             /* the base runtime profile */
	const char *const *closure;      /* the closure's artifact directory names, in order */
	size_t n_closure;
	const char *const *base_wanted;  /* base packages the closure reaches, by name */
	size_t n_base_wanted;
	const struct hk_policy *contract;   /* the sandbox's contract surfaces (finished) */
	const char *const *expects;      /* the recipe's expect paths */
	size_t n_expects;
	unsigned scopes;                 /* HK_SCOPE_* */
};

/* The key of a derivation: "b3:<hex>" of a length-prefixed serialisation of every field (so
 * no two different inputs serialise alike).  `base_wanted` is taken as a set (sorted here). */
void hk_plan_key(const struct hk_plan_key_input *in, char out[HK_B3_ID_LEN]);

/* The key of a collapse plan: the derivation's key, the derived policy (its id; the planner
 * reads its grants), the store view the sandbox shows (its id, or NULL for none) and the
 * planning program. */
void hk_plan_collapse_key(const char *code_id, const char *plan_key, const char *policy_id,
			  const char *view_id, char out[HK_B3_ID_LEN]);

/* A derivation's result, as a build's plan holds it (engine/build/build.h). */
struct hk_plan_record {
	struct hk_policy policy;         /* finished */
	char policy_id[HK_B3_ID_LEN];
	struct hk_derive_report report;
	size_t n_closure, n_base_packages, n_unmerged;
};

/* Appends the record kept under `key` to `out`.  The policy must be finished. */
void hk_plan_record_encode(const struct hk_plan_record *r, const char *key, struct hk_buf *out);
/* Reads a record kept under `key` into *out (overwritten; the caller's to free with
 * hk_plan_record_free on success, empty on error).  -EBADMSG, naming `filename` and the
 * line, when the text is malformed, names another key, or its policy does not hash to the
 * recorded id. */
HK_MUST_CHECK int hk_plan_record_decode(const char *text, size_t len, const char *key,
					const char *filename, struct hk_plan_record *out,
					struct hk_error *err);
void hk_plan_record_free(struct hk_plan_record *r);

/* A collapse plan's record: the directories (sorted) and the planner's counts. */
void hk_collapse_record_encode(const struct hk_strset *dirs, const struct hk_collapse_stats *stats,
			       const char *key, struct hk_buf *out);
/* Reads one into `dirs` (emptied first; sorted on success) and *stats.  -EBADMSG when the text
 * is malformed, names another key, or its checksum does not match its bytes. */
HK_MUST_CHECK int hk_collapse_record_decode(const char *text, size_t len, const char *key,
					    const char *filename, struct hk_strset *dirs,
					    struct hk_collapse_stats *stats, struct hk_error *err);

#endif
