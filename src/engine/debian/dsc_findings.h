/* What a Debian build's evidence says in Build-Depends terms (engine/debian/build_dsc.h; docs/debian-
 * builds.md, "The report"), computed from each phase's evidence object: the findings that the
 * report renders and that --confirm and --decide-probes decide on.
 *
 * A package the diagnosis names (docs/diagnosis.md: the store artifact or the base package
 * that ships the denied path) is a NEED when the phase that was denied it failed, and a PROBE
 * the build survived when the phase went on: an influence on the result, not a need (a
 * configure check that found nothing may still have changed the binary).  A denied path no
 * package of the store or the base ships is unattributed: harkaq cannot name a package for it.
 * Analysis only, over typed results (each phase's verdict and diagnosis, never its evidence
 * object's bytes): nothing here writes for people or programs (dsc_report.c does). */
#ifndef HK_ENGINE_DSC_FINDINGS_H
#define HK_ENGINE_DSC_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/debian/dsc_common.h"
#include "core/formats/json.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"

struct dsc_finding {
	char *package, *version, *origin;
	char *phase, *path, *exe, *blockers, *how, *via;
	uint64_t count;              /* denials, every phase */
	struct hk_strset paths;      /* distinct paths denied */
	struct hk_strset failed_paths;   /* those denied in a phase that failed */
	bool need;                   /* a path of it was denied only in phases that failed */
	char *alternative_in;        /* the used Build-Depends group that lists it, or NULL */
};

struct dsc_loose {
	char *phase, *path, *exe, *class_, *reason;
};

/* A path denied and expected, with the entry that expects it (NULL: not the set's). */
struct dsc_expected {
	char *phase, *path, *exe;
	uint64_t count;
	const struct hk_expect_entry *entry;
};

struct dsc_findings {
	struct dsc_expected *x;
	size_t n_x;
	struct dsc_finding *f;
	size_t n;
	/* Paths denied in a phase that went on anyway: the build survived them. */
	struct hk_strset survived;
	struct dsc_loose *l;             /* unattributed and policy bugs */
	size_t n_l;
	uint64_t expected;
};

/* The denied rights as what the build did to the path: "executed", "read", "wrote", "used". */
const char *hk_dsc_verb(const char *blockers);

/* The findings of r's first build. */
void dsc_findings_of(const struct hk_dsc_result *r, struct dsc_findings *rep);
/* The findings of --confirm's last round (r->confirm). */
void dsc_confirm_findings(const struct hk_dsc_result *r, struct dsc_findings *rep);
void dsc_findings_free(struct dsc_findings *rep);
/* One phase's own findings, each need or probe as that phase alone says (the whole build's
 * findings decide across phases: dsc_findings_of). */
void dsc_phase_findings(const struct hk_dsc_result *r, const struct phase_result *pr,
			struct dsc_findings *rep);


/* The first phase of `br` that failed, or br->n_phases when none did. */
size_t dsc_first_failed_phase(const struct hk_build_result *br);
/* --confirm's answer, about the phase the first build failed in (docs/debian-builds.md): the
 * facts of r's builds, decided by core/debian/dsc_rules.h. */
enum hk_confirm_answer dsc_confirm_answer(const struct hk_dsc_result *r);

/* The missing Build-Depends the report names that are store artifacts (those --confirm can leave
 * out of the view), into `out`. */
void hk_dsc_store_needs(const struct hk_dsc_result *r, struct hk_strv *out);
/* The same for another build of r's package (a --confirm round's). */
void hk_dsc_store_needs_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
			   struct hk_strv *out);
/* Whether --confirm's last round failed again on other needs (another round may answer): in
 * the phase it answers about, or, that phase succeeding, in a later one. */
bool hk_dsc_confirm_goes_on(const struct hk_dsc_result *r);

/* The probes of `br`, a build of r's package (the first or another): the packages a phase that
 * went on was denied, by name, as NAME=VERSION a recipe can declare, and (when `paths` is not
 * NULL) each one's denied paths joined by newlines. */
void hk_dsc_probes_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
		      struct hk_strv *names, struct hk_strv *specs, struct hk_strv *paths);
/* Every path `br`'s phases were denied, expected ones aside. */
void hk_dsc_denied_paths(const struct hk_build_result *br, struct hk_strset *out);

/* Whether the build's resolved dependencies were complete: it ran caged, every phase ran,
 * exited 0 and is Hermetic, and the log named no missing macro.  The one rule the attestation
 * and its policy read (docs/attestations.md, "Debian builds"). */
bool hk_dsc_build_depends_complete(const struct hk_dsc_result *r);

/* The package's class, its worst finding (core/debian/dsc_rules.h: the facts gathered here). */
enum hk_dsc_class hk_dsc_package_class(const struct hk_dsc_result *r);

#endif
