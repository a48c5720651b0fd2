/* Evidence objects (design.md §10): one phase verdict, with its diagnosis and the blind spots a
 * verdict cannot see, serialised canonically, addressed by the BLAKE3 of its bytes, stored
 * next to the store's artifacts so other tools can chain it.  The form is specified in
 * docs/evidence-objects.md; in short:
 *
 *   - one JSON object, kind "harkaq.verdict.v1", members in a fixed order:
 *       the verdict's own, as hk_verdict_json_members writes them (kind state reasons abi
 *       kernel_abi policy_id recipe_hash artifact_hash phase deps_sealed canary kernel
 *       denials), then exit_code (the phase's exit status, or null), diagnosis, blind_spots
 *   - compact: no whitespace outside strings, no trailing newline;
 *   - numbers are integers only; byte strings (paths, exe, comm, dev) in the hk_json_bytes
 *     form; strings otherwise as the writer in json.h escapes them;
 *   - id = "b3:" + BLAKE3-256 hex of exactly those bytes; stored at
 *     STORE/.evidence/<hex>.json (core/evobj_store.h writes, finds and reads them).
 *
 * The verdict is behaviour, not identity: no evidence object is an input of a recipe hash or
 * an artifact id (design.md §10). */
#ifndef HK_EVOBJ_H
#define HK_EVOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/blake3.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/json.h"
#include "core/suggest.h"
#include "core/verdict.h"

#define HK_EVOBJ_KIND "harkaq.verdict.v1"
/* Directory inside the store: it moves with the store, and the store's loader ignores
 * dot-directories other than its own. */
#define HK_EVOBJ_DIR ".evidence"

/* What the kernel-backed verdict cannot see (design.md §13), carried in every object as data so
 * a consumer never has to know them from prose. */
struct hk_blind_spot {
	const char *code;
	const char *text;
};
extern const struct hk_blind_spot hk_blind_spots[];
extern const size_t hk_n_blind_spots;
/* One more, only in the objects of phases whose cage collapsed directories
 * (hk_verdict.collapsed_dirs > 0): its text says how many. */
extern const char hk_blind_spot_collapsed_code[];

/* Appends the canonical bytes of the evidence object to `out`.  `d` must be the diagnosis
 * of `v` (d->n == v->n_denials). */
void hk_evobj_encode(const struct hk_verdict *v, const struct hk_diagnosis *d,
		     struct hk_buf *out);

/* One entry of a report (docs/diagnosis.md, "One path, one entry"): the denials of one
 * diagnosis class on one path, merged.  The object keeps every denial the kernel reported —
 * one per (object, blockers) pair, each with its diagnosis — and a report groups them: a
 * program run without being declared is denied fs.execute,fs.read_file when executed and
 * fs.read_file when read, and is still one path to declare. */
struct hk_evobj_entry {
	const struct hk_jval *den;   /* the first denial of the path (first-seen order) */
	const struct hk_jval *dia;   /* its diagnosis */
	char *blockers;              /* owned: the rights of every merged denial (their union) */
	uint64_t count;              /* their records, summed */
	size_t n_denials;            /* how many denials were merged (>= 1) */
};

/* The entries of class `cls` ("expected", "declarable", "irreducible", "policy_bug") of a
 * checked evidence object, in the order of each path's first denial; denials without a path
 * (a signal, a socket) are never merged.  Returns how many; *out is the caller's
 * (hk_evobj_entries_free), and empty when the object has no denials or diagnosis. */
size_t hk_evobj_entries(const struct hk_jval *ev, const char *cls, struct hk_evobj_entry **out);
void hk_evobj_entries_free(struct hk_evobj_entry *e, size_t n);

/* Checks an object: its BLAKE3 equals `expect_id` ("b3:<hex>"; NULL skips the check), it
 * parses, its kind is harkaq.verdict.v1, its members are the documented ones in the
 * documented order, `diagnosis` has one entry per denial, and it is canonical (re-encoding
 * the parsed value gives the same bytes).  On success *out (if non-NULL) is the parsed
 * object (hk_jval_free).  A failure is -EBADMSG with a message saying what is wrong. */
HK_MUST_CHECK int hk_evobj_check(const void *bytes, size_t n, const char *expect_id, struct hk_jval **out,
		   struct hk_error *err);

#endif
