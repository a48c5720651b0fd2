/* A Debian source package as a build (docs/debian-builds.md): `harkaq build --dsc FILE.dsc`.
 *
 *   1. the .dsc is parsed and every file it lists checked against its SHA-256 and size
 *      (core/debian/dsc.h), then unpacked on the host with dpkg-source -x;
 *   2. the closure: build-essential, fakeroot (as sbuild installs them) and the Build-Depends
 *      (+ -Arch / -Indep for the chosen build), reduced for the architecture and build
 *      profiles, resolved by apt itself against the pinned base's package database
 *      (apt-get satisfy -s, no root needed), imported into the store;
 *   3. the dpkg state (engine/debian/debstate.h): the closure installed once with dpkg over the base;
 *      its package database is the sandbox's /var/lib/dpkg, so it says base + closure;
 *   4. a recipe is made from all that in memory (core/policy/recipe.h) and given to the build engine
 *      as a struct (engine/build/build.h): three
 *      phases, each in its own Landlock domain with its canary and verdict — clean, build
 *      and binary, each run by dpkg-buildpackage as nobody (Rules-Requires-Root honoured:
 *      fakeroot only for the targets that need it; DEB_BUILD_OPTIONS, DEB_BUILD_PROFILES and
 *      SOURCE_DATE_EPOCH fixed); the .debs, .buildinfo and .changes are sealed as one artifact;
 *   5. the report in Build-Depends terms (dsc_report.c), with the converse: the used
 *      Build-Depends none of whose files the build opened (dsc_converse.c, engine/cage/reads.h).
 *
 * build_dsc.c drives the steps; dsc_closure.c holds steps 2 and 3 (dsc_int.h).
 *
 * Everything declared is base packages and store artifacts, so the policy is derived as for
 * any recipe; what the build used beyond them is a denial the diagnosis names by package. */
#ifndef HK_ENGINE_BUILD_DSC_H
#define HK_ENGINE_BUILD_DSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/build/build.h"
#include "engine/debian/dsc_common.h"
#include "engine/debian/dsc_findings.h"
#include "core/debian/debexpect.h"
#include "core/debian/dsc.h"
#include "core/formats/json.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"

/* Runs the whole Debian build.  `bo` gives the engine's options (its recipe and recipe_path
 * are replaced).  Returns the build's outcome (hk_build_run's), or -errno with err saying why
 * and of which class (engine/common/status.h): a step before the build, the build's own set-up, or
 * what the front end does after it. */
HK_MUST_CHECK int hk_dsc_build_run(const struct hk_build_opts *bo, const struct hk_dsc_opts *o,
		     struct hk_dsc_result *r, struct hk_error *err);
void hk_dsc_result_free(struct hk_dsc_result *r);

/* The report in Build-Depends terms (dsc_report.c), for people (on `f`) and for programs. */
void hk_dsc_report_human(const struct hk_dsc_result *r, FILE *f);
void hk_dsc_result_json(const struct hk_dsc_result *r, struct hk_json *j);

/* What the Debian verdicts decide, per phase, as the verdict Statement's "debian" member
 * (docs/attestations.md): state, exit code, expected denials, missing Build-Depends, probes
 * (with their --decide-probes class), unattributed denials; whether the build completed and
 * its Build-Depends were complete; `expected_set` names the expectation set the verdicts were
 * given against (NULL: none, written null). */
void hk_dsc_verdict_json(const struct hk_dsc_result *r, const char *expected_set,
			 struct hk_json *j);



#endif
