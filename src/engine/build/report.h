/* Reports for people and for programs (design.md §8, docs/diagnosis.md), rendered from a
 * verdict and its diagnosis.  The build renders the structs it holds; `harkaq explain` the
 * structs it decoded from the stored evidence object (hk_evobj_decode) — the same bytes the
 * build stored — so it re-renders a stored verdict exactly as the build printed it.
 *
 *   configure  Hermetic    expected (2): /usr/bin/gcc, /usr/sbin/ldconfig   debt: none
 *   compile    Impure, failed (exit 2)
 *                          declarable (1): /usr/bin/make → declare dep: make [Debian package]  (by /usr/bin/dash, x2)
 *                          irreducible (1): /usr/lib/x86_64-linux-gnu/libfoo.so.1  (by cc1)
 *              evidence b3:1f2e…  (harkaq explain b3:1f2e3d4c)
 *
 * In every function below, `d` is the diagnosis of `v` (d->items[i] diagnoses v->denials[i]). */
#ifndef HK_ENGINE_REPORT_H
#define HK_ENGINE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/build/build.h"
#include "core/basic/buf.h"
#include "core/evidence/evobj.h"
#include "core/formats/json.h"
#include "core/evidence/suggest.h"
#include "core/evidence/verdict.h"

/* One phase's human lines ('\n'-terminated).  `label` is the first column (the verdict's
 * phase when NULL); `evidence_id` ("b3:…", or NULL) is named on the last line. */
void hk_report_human(const struct hk_verdict *v, const struct hk_diagnosis *d, const char *label,
		     const char *evidence_id, struct hk_buf *out);

/* The phase's state for people: the verdict's state, with ", failed (exit N)" when the
 * phase's command exited non-zero ("Hermetic, failed (exit 1)"). */
void hk_report_state(const struct hk_verdict *v, struct hk_buf *out);

/* One phase as JSON:
 *   {"phase","state","failed","exit_code","reasons":[{code,message}],"expected":[{path,blockers,count,exe}],
 *    "declarable":[{path,blockers,count,exe,exe_declared_by,providers:[…],line}],
 *    "irreducible":[{path,blockers,count,exe,exe_declared_by,reason}],
 *    "policy_bug":[{path,blockers,count,exe,exe_declared_by,reason}],"evidence"} */
void hk_report_json(const struct hk_verdict *v, const struct hk_diagnosis *d,
		    const char *evidence_id, struct hk_json *j);

/* Finds (hk_evobj_find), reads, verifies (hk_evobj_check) and decodes (hk_evobj_decode) one
 * stored object: what `harkaq explain` and `harkaq evidence` share.  *ev is the caller's
 * (hk_evobj_free), empty on failure; `bytes` (if non-NULL) receives the object's exact bytes. */
HK_MUST_CHECK int hk_explain_load(const char *store, const char *query, struct hk_evobj *ev,
				  char id[HK_B3_ID_LEN], struct hk_buf *bytes, struct hk_error *err);

/* For a build: a suggester over the build's store, policy and closure (free with
 * hk_suggester_free), and the evidence object bytes of one phase that has a verdict. */
struct hk_suggester *hk_report_build_suggester(const struct hk_build_result *br);
HK_MUST_CHECK int hk_report_phase_evidence(struct hk_suggester *s, struct phase_result *pr,
			     struct hk_buf *bytes, struct hk_error *err);

/* What `harkaq build` does for each phase that has a verdict: diagnoses it, writes its
 * evidence object into the store (STORE/.evidence) and, unless quiet, prints the report on
 * stderr.  A failure to write is reported on stderr and leaves the phase without evidence
 * object; the verdict stands. */
void hk_report_build_phase(struct hk_suggester *s, const struct hk_build_result *br,
			   struct phase_result *pr, bool quiet);
/* The phase's report object (hk_report_json) for the build's --json result, from the verdict
 * and diagnosis hk_report_build_phase kept in pr, or null when the phase has no diagnosis.
 * "evidence" names the object only if it was stored. */
void hk_report_build_phase_json(const struct phase_result *pr, struct hk_json *j);

#endif
