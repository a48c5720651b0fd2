/* A Debian source package as a build (docs/debian-builds.md): `harkaq build --dsc FILE.dsc`.
 *
 *   1. the .dsc is parsed and every file it lists checked against its SHA-256 and size
 *      (core/dsc.h), then unpacked on the host with dpkg-source -x;
 *   2. the closure: build-essential, fakeroot (as sbuild installs them) and the Build-Depends
 *      (+ -Arch / -Indep for the chosen build), reduced for the architecture and build
 *      profiles, resolved by apt itself against the pinned base's package database
 *      (apt-get satisfy -s, no root needed), imported into the store;
 *   3. the dpkg state (cli/debstate.h): the closure installed once with dpkg over the base;
 *      its package database is the sandbox's /var/lib/dpkg, so it says base + closure;
 *   4. a recipe is written from all that and run by the build engine (cli/build.h): three
 *      phases, each in its own Landlock domain with its canary and verdict — clean, build
 *      and binary, each run by dpkg-buildpackage as nobody (Rules-Requires-Root honoured:
 *      fakeroot only for the targets that need it; DEB_BUILD_OPTIONS, DEB_BUILD_PROFILES and
 *      SOURCE_DATE_EPOCH fixed); the .debs, .buildinfo and .changes are sealed as one artifact;
 *   5. the report in Build-Depends terms (dsc_report.c), with the converse: the used
 *      Build-Depends none of whose files the build opened (dsc_converse.c, cli/reads.h).
 *
 * build_dsc.c drives the steps; dsc_closure.c holds steps 2 and 3 (dsc_int.h).
 *
 * Everything declared is base packages and store artifacts, so the policy is derived as for
 * any recipe; what the build used beyond them is a denial the diagnosis names by package. */
#ifndef HK_CLI_BUILD_DSC_H
#define HK_CLI_BUILD_DSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/build.h"
#include "core/dsc.h"
#include "core/json.h"
#include "core/strv.h"

#define HK_DSC_DEFAULT_BASE "debian-12-buildd"

/* dpkg-buildpackage's -b, -B, -A. */
enum hk_dsc_mode {
	HK_DSC_BUILD_BINARY = 0,    /* -b: architecture-dependent and -independent packages */
	HK_DSC_BUILD_ANY,           /* -B: architecture-dependent only */
	HK_DSC_BUILD_ALL,           /* -A: architecture-independent only */
};

struct hk_dsc_opts {
	const char *dsc_path;
	const char *base;           /* a base of the store by name or id (HK_DSC_DEFAULT_BASE) */
	enum hk_dsc_mode mode;
	bool with_checks;           /* run the test suites (no nocheck option and profile) */
	bool no_clean;              /* skip the clean phase (dpkg-buildpackage -nc) */
	int jobs;                   /* DEB_BUILD_OPTIONS parallel=N */
	/* When the build failed with missing Build-Depends of the store: build again with those
	 * packages left out of the store view, to see whether the build needed them or only
	 * failed on being refused what a machine without them would not have shown. */
	bool confirm;
	/* Packages imported into the store (with their dependencies) before the build, so the
	 * store view shows them: visible, not granted (docs/debian-builds.md, "What a build can
	 * name"). */
	const char *const *see;
	size_t n_see;
	/* After a build that completed: decide each probe by its effect on the .debs, building
	 * again with the probes granted (and once unchanged, as the control): dsc_decide.c. */
	bool decide_probes;
};

/* One package of the closure apt chose. */
struct hk_dsc_pkg {
	char *name, *version, *arch;
	char *upgrades;             /* the base's version it replaces, or NULL */
	char id[HK_B3_ID_LEN];      /* its store artifact */
};

/* A used Build-Depends group none of whose declared packages had a file of its own opened
 * (the converse of a missing Build-Depends; docs/debian-builds.md, "The report"). */
struct hk_dsc_unread {
	char *field;                /* "Build-Depends" … */
	char *group;                /* the group as reduced: "libncurses5-dev" */
	char *packages;             /* the declared packages it stands for: "libncurses5-dev" */
	/* NULL when nothing was opened through them: none opened.  Else the packages of their
	 * dependency closure within the build's closure a file of which was opened, nearest
	 * first (NULL-terminated): used through them, as a transitional package is
	 * (pkg-config through pkgconf; core/converse.h). */
	char **through;
	char **through_paths;       /* the first file opened of each of them */
	size_t n_through;
};

/* A store package named from the build's log, not from a denial: its /usr/share/aclocal file
 * defines a macro the log says was missing (core/aclocal.h).  The store view leaves that
 * directory out, so such a use has no other witness. */
struct hk_dsc_macro_need {
	char *package, *version;
	char *macro;                /* "PKG_PROG_PKG_CONFIG" */
	char *file;                 /* "/usr/share/aclocal/pkg.m4" */
	char *line;                 /* the log's line that says it was missing */
};

/* What a probe does to the .debs (docs/debian-builds.md, "Deciding probes"). */
enum hk_probe_class {
	HK_PROBE_INERT,             /* granted, the .debs are byte for byte the same */
	HK_PROBE_INFLUENCE,         /* granted, the .debs differ: an undeclared influence */
	HK_PROBE_UNDECIDED,         /* no answer, and why (the control differs, a build failed) */
};

/* One build --decide-probes ran beside the first, and what it showed. */
struct hk_dsc_extra_build {
	char *purpose;              /* "control: nothing changed", "round 1: the probes granted" */
	char **granted;             /* NAME=VERSION granted beyond the first build's, NULL-ended */
	size_t n_granted;
	char *phases;               /* "clean 0 Hermetic, build 0 Impure, binary 0 Hermetic" */
	bool completed;             /* every phase ran and exited 0 */
	char *error;                /* why it stopped before its verdicts, or NULL */
	char *compared_with;        /* the build its .debs were compared with, or NULL */
	bool identical;             /* ... and they were byte for byte the same */
	char **differences;         /* the first differences, one sentence each, NULL-ended */
	size_t n_differences;       /* all of them (more than listed when many) */
	char **new_probes;          /* packages it was denied that were not granted, NULL-ended */
	size_t n_new_probes;
};

struct hk_dsc_probe_decision {
	char *package;
	enum hk_probe_class cls;
	char *why;
	char **differences;         /* an influence's differing files, NULL-ended */
	size_t n_differences;
};

struct hk_dsc_decide {
	bool asked;                 /* --decide-probes was given */
	char *not_run;              /* why no extra build ran, or NULL */
	struct hk_dsc_extra_build *builds;
	size_t n_builds;
	struct hk_dsc_probe_decision *decisions;
	size_t n_decisions;
};

/* One output file of the build, as sealed. */
struct hk_dsc_output {
	char *file;
	unsigned long long size;
	char sha256[65];
};

struct hk_dsc_result {
	bool dsc_loaded;
	struct hk_dsc dsc;
	char dsc_sha256[65];
	char *dsc_path;             /* absolute */
	enum hk_dsc_mode mode;
	char *srcdir;               /* the unpacked tree's directory name under /src */
	char *source_date_epoch;
	char *build_options;        /* DEB_BUILD_OPTIONS */
	char *profiles;             /* DEB_BUILD_PROFILES ("" when none) */
	char *reduced[HK_DSC_FIELD_COUNT];   /* the fields used, reduced; NULL when not used */
	char *base_name, *base_id;
	struct hk_dsc_pkg *closure;
	size_t n_closure;
	char **declared_base;       /* base packages declared (NAME=VERSION), NULL-terminated */
	size_t n_declared_base;
	char *state_id;             /* the dpkg state artifact, or NULL (an empty closure) */
	bool built;                 /* the engine ran: `build` holds its result */
	struct hk_build_result build;
	struct hk_dsc_output *outputs;
	size_t n_outputs;
	/* The converse, when the opens were observed (build.opened_observed). */
	struct hk_dsc_unread *unread;
	size_t n_unread;
	/* The store packages named from the build's log (dsc_aclocal.c). */
	struct hk_dsc_macro_need *macro_needs;
	size_t n_macro_needs;
	size_t n_groups_checked;
	/* --confirm: the packages left out of the view, and the second build's result. */
	char **confirm_hidden;      /* NULL-terminated; NULL when no second build ran */
	size_t n_confirm_hidden;
	bool confirmed_ran;
	struct hk_build_result confirm;
	char *confirm_error;        /* why the second build stopped before its verdicts, or NULL */
	struct hk_dsc_decide decide;    /* --decide-probes */
	char *work;                 /* the front end's work directory */
	/* The closure's .debs could not be downloaded (apt-get download failed): the error is
	 * the network's or the mirror's, not the package's (a sweep reports it apart). */
	bool fetch_failed;
	const char *error;
};

/* Runs the whole Debian build; returns the exit status (commands.h).  `bo` gives the engine's
 * options (its recipe_path is ignored); for statuses >= 64 err says why. */
int hk_dsc_build_run(const struct hk_build_opts *bo, const struct hk_dsc_opts *o,
		     struct hk_dsc_result *r, struct hk_error *err);
void hk_dsc_result_free(struct hk_dsc_result *r);

/* The missing Build-Depends the report names that are store artifacts (those --confirm can leave
 * out of the view), into `out` (dsc_report.c). */
void hk_dsc_store_needs(const struct hk_dsc_result *r, struct hk_strv *out);

/* The probes of `br`, a build of r's package (the first or another): the packages a phase that
 * went on was denied, by name and as NAME=VERSION a recipe can declare (dsc_report.c). */
void hk_dsc_probes_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
		      struct hk_strv *names, struct hk_strv *specs);

/* The report in Build-Depends terms (dsc_report.c), for people (on `f`) and for programs. */
void hk_dsc_report_human(const struct hk_dsc_result *r, FILE *f);
void hk_dsc_result_json(const struct hk_dsc_result *r, struct hk_json *j);

/* --decide-probes in the report (dsc_decide.c). */
void hk_dsc_decide_human(const struct hk_dsc_result *r, FILE *f);
void hk_dsc_decide_json(const struct hk_dsc_result *r, struct hk_json *j);
const char *hk_probe_class_name(enum hk_probe_class c);

/* "binary", "any", "all" (dpkg-buildpackage --build=…). */
const char *hk_dsc_mode_name(enum hk_dsc_mode m);

#endif
