/* Kept plans in the store (docs/store.md, "Kept plans"; the records: core/policy/plan_record.h):
 * STORE/.cache/plan/<key hex> holds a derived policy, STORE/.cache/collapse/<key hex> a
 * collapse plan.  Keeping them is an optimisation: a file that cannot be read or written only
 * costs the next build a derivation, and says so nowhere. */
#ifndef HK_ENGINE_PLAN_CACHE_H
#define HK_ENGINE_PLAN_CACHE_H

#include "core/basic/buf.h"
#include "core/store/store.h"

/* What a kept file is. */
#define HK_PLAN_CACHE_POLICY "plan"
#define HK_PLAN_CACHE_COLLAPSE "collapse"

/* The deriving program's identity: "b3:<hex>" over the GNU build ids of harkaq and of every
 * shared object loaded with it (the kernel's vDSO aside), in load order, so that another
 * harkaq, or another libc, derives anew.  NULL when an object has no build id: nothing is
 * kept then.  Computed once; static storage. */
const char *hk_plan_cache_code_id(void);

/* The identity of the code a run's builds use: hk_plan_cache_code_id's objects, and the GNU
 * build ids of the helper programs a build runs (harkaq-exec, harkaq-audit; one that is not
 * installed is named absent), "b3:<hex>" into `out`.  What a sweep's records are kept under:
 * another harkaq, another library, or a rebuilt cage is other code.  -ENOENT with err when an
 * object has no build id (linked without --build-id: nothing then tells this code from
 * another). */
HK_MUST_CHECK int hk_code_id_with_helpers(char out[HK_B3_ID_LEN], struct hk_error *err);

/* The kept file of `kind` under `key` ("b3:<hex>"), read into `out` (appended): 0, or -errno
 * (-ENOENT: none is kept).  *path (malloc'd, the caller's) names the file either way, for
 * messages. */
HK_MUST_CHECK int hk_plan_cache_read(struct hk_store *s, const char *kind, const char *key,
				     struct hk_buf *out, char **path);
/* Keeps `text` as the file of `kind` under `key`, atomically; a failure is ignored (the next
 * build derives again). */
void hk_plan_cache_write(struct hk_store *s, const char *kind, const char *key,
			 const struct hk_buf *text);

#endif
