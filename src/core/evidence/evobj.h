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
 *     STORE/.evidence/<hex>.json (core/evidence/evobj_store.h writes, finds and reads them).
 *
 * Readers decode an object with hk_evobj_decode (below), its one reader, and work from the
 * structs it fills.
 *
 * The verdict is behaviour, not identity: no evidence object is an input of a recipe hash or
 * an artifact id (design.md §10). */
#ifndef HK_EVOBJ_H
#define HK_EVOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/evidence/suggest.h"
#include "core/evidence/verdict.h"

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
	const struct hk_denial *den;      /* the first denial of the path (first-seen order);
					     borrowed from the verdict */
	const struct hk_diag_item *dia;   /* its diagnosis; borrowed from the diagnosis */
	char *blockers;                   /* owned: the rights of every merged denial (their union) */
	uint64_t count;                   /* their records, summed */
	size_t n_denials;                 /* how many denials were merged (>= 1) */
};

/* The entries of class `cls` of a verdict and its diagnosis (d->items[i] diagnoses
 * v->denials[i]), in the order of each path's first denial; denials without a path (a signal,
 * a socket) are never merged.  Returns how many; *out is the caller's (hk_evobj_entries_free)
 * and borrows from v and d, which must outlive it. */
size_t hk_evobj_entries(const struct hk_verdict *v, const struct hk_diagnosis *d,
			enum hk_diag_class cls, struct hk_evobj_entry **out);
void hk_evobj_entries_free(struct hk_evobj_entry *e, size_t n);

/* ---- decoding (src/core/evidence/evobj_decode.c) ----
 *
 * The one reader of an evidence object's members: every consumer of a stored object decodes
 * it into these structs and works from them, never by looking members up by name. */

/* A blind spot as an object names it (owned strings). */
struct hk_evobj_spot {
	char *code;
	char *text;
};

/* An evidence object, decoded.  What lives only in the object, beside the verdict's own
 * members, has its place in struct hk_verdict (exit_code: has_exit_code and exit_code; the
 * count of collapsed directories: collapsed_dirs, from the collapsed_directories blind spot)
 * or here (the blind spots, as the object lists them). */
struct hk_evobj {
	struct hk_verdict verdict;
	struct hk_diagnosis diag;          /* diag.n == verdict.n_denials */
	struct hk_evobj_spot *blind_spots;
	size_t n_blind_spots;
};

/* Decodes a parsed object that hk_evobj_check accepted.  Every member is read with its type
 * and its allowed values, nested objects must have exactly the writer's members in the
 * writer's order, and what the struct cannot hold is refused: hk_evobj_encode of the result
 * gives back the bytes of any object the running writer made.  Fields that are no member of
 * the object are left zero (count_complete, a provider's hops).  A failure is -EBADMSG with
 * a message naming the member ("member 'denials[2].count' …"); *out is then empty.  Free
 * with hk_evobj_free. */
HK_MUST_CHECK int hk_evobj_decode(const struct hk_jval *ev, struct hk_evobj *out,
				  struct hk_error *err);
/* hk_evobj_check (without an id) then hk_evobj_decode, from the object's bytes. */
HK_MUST_CHECK int hk_evobj_decode_bytes(const void *bytes, size_t n, struct hk_evobj *out,
					struct hk_error *err);
void hk_evobj_free(struct hk_evobj *o);

/* Checks an object: its BLAKE3 equals `expect_id` ("b3:<hex>"; NULL skips the check), it
 * parses, its kind is harkaq.verdict.v1, its members are the documented ones in the
 * documented order, `diagnosis` has one entry per denial, and it is canonical (re-encoding
 * the parsed value gives the same bytes).  On success *out (if non-NULL) is the parsed
 * object (hk_jval_free).  A failure is -EBADMSG with a message saying what is wrong. */
HK_MUST_CHECK int hk_evobj_check(const void *bytes, size_t n, const char *expect_id, struct hk_jval **out,
		   struct hk_error *err);

#endif
