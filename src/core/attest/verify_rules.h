/* The rules `harkaq attest verify` checks a Statement by, as pure functions over the parsed
 * Statement (docs/attestations.md, "Verification"): where its subjects may point, which store
 * artifact it names, whether the evidence objects it embeds are the ones it claims.  The
 * engine reads the files and hashes them (engine/attest/verify.h). */
#ifndef HK_CORE_ATTEST_VERIFY_RULES_H
#define HK_CORE_ATTEST_VERIFY_RULES_H

#include <stdbool.h>

#include "core/basic/error.h"
#include "core/formats/json.h"

/* A subject name stays inside the tree it is checked against: a relative path of valid,
 * non-empty components ("usr/bin/hello"), no "." or "..", no leading or trailing '/', no
 * empty component, no NUL or control-free trickery beyond what a tree entry may hold
 * (hk_tree_valid_component). */
bool hk_attest_subject_name_ok(const char *name);

/* The store artifact a Statement names: the verdict's predicate.artifact.dirname, or the
 * provenance's byproduct "artifact" (uri harkaq:artifact:<dirname>); NULL when it names none.
 * Points into `st`. */
const char *hk_attest_statement_artifact(const struct hk_jval *st);

/* A verdict Statement embeds each phase's evidence object: each must be a valid one whose
 * canonical bytes hash to the evidenceId the Statement gives, so that a consumer can chain
 * it to STORE/.evidence.  -errno (class input) naming the phase. */
HK_MUST_CHECK int hk_attest_check_embedded_evidence(const struct hk_jval *st,
						    struct hk_error *err);

#endif
