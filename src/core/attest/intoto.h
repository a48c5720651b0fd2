/* in-toto Statements (v1) for a harkaq build: the SLSA provenance (v1) of its sealed artifact,
 * and harkaq's own verdict predicate.  The core writes and reads them as JSON; every digest is
 * computed by the caller (SHA-256 is the command line's, on libsodium), so the core stays
 * free of cryptography.  Exact fields, the URIs and the verdict predicate's schema:
 * docs/attestations.md.
 *
 *     { "_type": "https://in-toto.io/Statement/v1",
 *       "subject": [ { "name": "usr/bin/hello", "digest": { "sha256": "…", "blake3": "…" } } ],
 *       "predicateType": "https://slsa.dev/provenance/v1" | HK_INTOTO_VERDICT_TYPE,
 *       "predicate": { … } }
 */
#ifndef HK_INTOTO_H
#define HK_INTOTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"

#define HK_INTOTO_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define HK_INTOTO_SLSA_TYPE "https://slsa.dev/provenance/v1"
/* harkaq's URIs: URNs, since they name formats documented in docs/attestations.md rather than
 * a place on the web. */
#define HK_INTOTO_BUILD_TYPE "urn:harkaq:build-type:v1"
/* A Debian source package built by `harkaq build --dsc` (docs/attestations.md, "Debian
 * builds"): its externalParameters name the .dsc, not a recipe. */
#define HK_INTOTO_DSC_BUILD_TYPE "urn:harkaq:build-type:dsc:v1"
#define HK_INTOTO_VERDICT_TYPE "urn:harkaq:predicate:verdict:v1"
#define HK_INTOTO_BUILDER_ID "urn:harkaq:builder:harkaq-build"

/* A resource descriptor (in-toto v1): every member optional, but at least a name or a uri.
 * Digests are lowercase hex; an empty string leaves the algorithm out. */
struct hk_resource {
	const char *name;
	const char *uri;
	char sha256[65];
	char blake3[65];
	/* harkaq's tree hash (docs/store.md, "Tree hash") of a directory: digest key harkaqTree */
	char tree[65];
	const char *media_type;
	/* Raw JSON object of annotations (caller guarantees validity), or NULL. */
	const char *annotations_json;
	/* Bytes carried inline as "content" (base64), or NULL. */
	const void *content;
	size_t content_len;
};

/* What the build ran on.  On its own the recipe's `base` text ("host", "root:PATH") names a
 * directory whose content can change under the same name: only a content-addressed base id
 * pins it. */
struct hk_base_identity {
	const char *id;       /* "b3:…" for a pinned base; otherwise the recipe's text */
	const char *name;     /* human name ("host", "root:/srv/bookworm", "debian-12-…") */
	bool pinned;
};

struct hk_phase_evidence {
	const char *phase;          /* "configure", "compile", "install" */
	const char *evidence_id;    /* "b3:…" of the evidence object; NULL when none was stored */
	const char *evidence;       /* its canonical bytes (a harkaq.verdict.v1 object) */
	size_t evidence_len;
	char evidence_sha256[65];
};

struct hk_attest_input {
	const struct hk_resource *subjects;
	size_t n_subjects;
	/* NULL: HK_INTOTO_BUILD_TYPE, a recipe's build */
	const char *build_type;
	/* externalParameters as a raw JSON object (caller guarantees validity), or NULL for a
	 * recipe's: {"recipe": {name, version, hash, file}}.  When set, the recipe (then one
	 * harkaq wrote, as for a Debian build) goes to internalParameters instead. */
	const char *external_json;
	const char *recipe_name, *recipe_version, *recipe_hash;
	struct hk_resource recipe;          /* the recipe file, its bytes inline */
	/* internalParameters */
	const char *policy_id;
	struct hk_base_identity base;
	int abi, kernel_abi;
	const char *profile;
	bool caged;
	/* resolvedDependencies: the closure's store artifacts, then the source, then the
	 * source's own files (a .dsc's, with the digests it lists) */
	const struct hk_resource *deps;
	size_t n_deps;
	struct hk_resource source;
	const struct hk_resource *source_files;
	size_t n_source_files;
	/* runDetails */
	const char *harkaq_version;
	const char *kernel_release;
	const char *invocation_id;
	time_t started_on, finished_on;
	const char *artifact_id, *artifact_dirname;
	const struct hk_phase_evidence *phases;
	size_t n_phases;
	/* The verdict predicate's "debian" member, a raw JSON object (caller guarantees
	 * validity): what the Debian verdicts decide per phase and whether the Build-Depends
	 * were complete (docs/attestations.md).  NULL for a recipe's build: left out. */
	const char *debian_json;
};

/* The purl of a Debian package: pkg:deb/debian/NAME@VERSION?arch=ARCH, each part with the
 * purl specification's character encoding (a version's '+' is %2B; ':' stays).  NULL version
 * or arch leaves that part out.  Caller frees. */
char *hk_purl_deb(const char *name, const char *version, const char *arch);

/* "2026-12-02T18:46:19Z" (UTC) into out (21 bytes). */
void hk_rfc3339(time_t t, char out[21]);

/* Appends the Statement's compact JSON bytes (the DSSE payload). */
void hk_intoto_provenance(const struct hk_attest_input *in, struct hk_buf *out);
void hk_intoto_verdict(const struct hk_attest_input *in, struct hk_buf *out);

/* Parses and checks a Statement: _type, a non-empty subject list whose entries have a name
 * and a digest object of hex strings, a predicateType string and a predicate object.
 * Anything else is -EINVAL naming the member.  *out (hk_jval_free) on success. */
HK_MUST_CHECK int hk_intoto_parse(const void *bytes, size_t n, struct hk_jval **out, struct hk_error *err);

/* The first policy, "hermetic": the Statement is a harkaq verdict; it lists at least one
 * phase; every phase is Hermetic (so none is NoEvidence), agreeing with its embedded evidence
 * object; the base is pinned.  Returns the number of violations, each appended to `why` as one
 * line ending in '\n'.  A Statement of another predicate type is one violation. */
size_t hk_policy_hermetic(const struct hk_jval *statement, struct hk_buf *why);

/* "complete-build-depends", for a Debian build's verdict: the Statement is a harkaq verdict
 * with a "debian" member; its base is pinned; every phase it lists ran, exited 0 and is
 * Hermetic, agreeing with the phase's embedded evidence object; no missing Build-Depends,
 * probe or unattributed denial in any phase, none named from the build log; and the verdict
 * says "complete": true.  Each violation is one line naming the phase and the package (a
 * probe with its --decide-probes class when decided).  Returns their number. */
size_t hk_policy_complete_build_depends(const struct hk_jval *statement, struct hk_buf *why);

#endif
