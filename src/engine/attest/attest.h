/* The attestations of a build (docs/attestations.md): after `harkaq build` sealed an artifact,
 * an in-toto Statement with SLSA provenance and one with harkaq's verdict predicate, each in a
 * DSSE envelope, signed with the build's --key when one was given, written next to the store:
 *
 *     STORE/.attestations/<artifact dirname>/provenance.dsse.json
 *     STORE/.attestations/<artifact dirname>/verdict.dsse.json
 */
#ifndef HK_ENGINE_ATTEST_H
#define HK_ENGINE_ATTEST_H

#include <stdbool.h>
#include <time.h>

#include "engine/build/build.h"
#include "engine/debian/build_dsc.h"
#include "engine/common/sign.h"
#include "core/attest/intoto.h"

#define HK_ATTEST_DIR ".attestations"

struct hk_attest_ctx {
	bool have_key;
	struct hk_sign_key key;
	time_t started_on;
};

/* Before the build: loads --key (NULL: the envelopes stay unsigned) and notes the start time,
 * so that a key that cannot be used stops the build before anything runs.  Returns 0, or
 * -errno: a key that is refused or unreadable is HK_ERROR_INPUT. */
HK_MUST_CHECK int hk_attest_begin(struct hk_attest_ctx *ctx, const char *key_path, struct hk_error *err);

/* After the build: writes both envelopes for the sealed artifact of `br` (nothing when the
 * build sealed none).  Returns 0 or -errno, HK_ERROR_ENVIRONMENT (err says why; what was
 * half-written is removed). */
HK_MUST_CHECK int hk_attest_build(struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
		    const struct hk_build_result *br, struct hk_error *err);
/* After a Debian build (harkaq build --dsc): both envelopes for its sealed outputs — the
 * .debs, .udebs, .buildinfo and .changes as subjects; the closure's .debs, the dpkg state, the
 * base and the .dsc's files as resolved dependencies; what the Debian verdicts decide in the
 * verdict predicate's "debian" member (docs/attestations.md, "Debian builds").  Nothing when
 * the outputs were not stored.  Returns 0 or -errno, HK_ERROR_ENVIRONMENT (err says why). */
HK_MUST_CHECK int hk_attest_dsc(struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
		  const struct hk_dsc_result *r, struct hk_error *err);
void hk_attest_end(struct hk_attest_ctx *ctx);

/* The base a build ran on, as its attestations name it: the one place that decides whether
 * the base is pinned (only a content-addressed base id is). */
struct hk_base_identity hk_attest_base_of(const struct hk_build_result *br);

/* Signs `payload` as a DSSE envelope of HK_DSSE_INTOTO_TYPE with `key` (NULL: unsigned) and
 * appends its JSON to out. */
void hk_attest_envelope(const struct hk_sign_key *key, const void *payload, size_t n,
			struct hk_buf *out);

#endif
