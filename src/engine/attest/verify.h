/* `harkaq attest verify`: one DSSE envelope checked (docs/attestations.md, "Verification"): its
 * signature by a given key, its payload as an in-toto Statement, the evidence objects a
 * verdict Statement embeds, its subjects' digests against an artifact of the store or a
 * directory, and, when asked, a policy over a verdict Statement's claims.
 *
 * The rules are core/attest/verify_rules.h's and core/attest/intoto.h's; here files are read
 * and hashed.  What went wrong is an outcome the command line turns into its own statuses. */
#ifndef HK_ENGINE_ATTEST_VERIFY_H
#define HK_ENGINE_ATTEST_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"
#include "core/store/store.h"
#include "engine/common/sign.h"

/* What verifying one envelope found, worst first after OK. */
enum hk_attest_outcome {
	HK_ATTEST_OK = 0,
	HK_ATTEST_BAD_SIGNATURE,   /* a signature by the key does not verify: altered */
	HK_ATTEST_WRONG_KEY,       /* no signature in the envelope is by the key */
	HK_ATTEST_PAYLOAD_TYPE,    /* the payload is not an in-toto Statement */
	HK_ATTEST_SUBJECT,         /* a subject's digest does not match, or its artifact is absent */
	HK_ATTEST_POLICY,          /* the Statement's claims fail the policy asked for */
	HK_ATTEST_NO_ARTIFACT,     /* the Statement names no artifact and none was given */
};

/* The policies a verdict Statement can be held to. */
enum hk_attest_policy {
	HK_ATTEST_POLICY_NONE = 0,
	HK_ATTEST_POLICY_HERMETIC,
	HK_ATTEST_POLICY_COMPLETE_BUILD_DEPENDS,
};

/* "hermetic", "complete-build-depends"; false for any other name. */
bool hk_attest_policy_parse(const char *name, enum hk_attest_policy *out);

struct hk_attest_verify_opts {
	const struct hk_verify_key *key;
	struct hk_store *store;      /* the subjects' artifact is found here, unless `dir` */
	const char *artifact;        /* the artifact to check against (NULL: the one named) */
	const char *dir;             /* a directory to check the subjects against instead */
	enum hk_attest_policy policy;
};

struct hk_attest_verified {
	bool is_verdict;             /* the Statement is harkaq's verdict predicate */
	char *predicate_type;
	char *root;                  /* what the subjects were checked against */
	size_t n_subjects;           /* subjects whose digests matched */
	bool policy_checked;         /* a policy was asked and the Statement is a verdict */
};
void hk_attest_verified_free(struct hk_attest_verified *v);

/* Verifies the envelope at `path`.  Returns an outcome (>= 0; err holds the sentence for
 * anything but OK, naming the envelope), or -errno for what is neither: an envelope that
 * cannot be read (environment), that is not DSSE or whose Statement is malformed (input).
 * `out` is filled as far as the checks went; free it either way. */
HK_MUST_CHECK int hk_attest_verify(const struct hk_attest_verify_opts *o, const char *path,
				   struct hk_attest_verified *out, struct hk_error *err);

#endif
