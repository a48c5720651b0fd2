/* What the steps of a Debian build and its readers share (engine/debian/build_dsc.h): its options, its
 * result, and the small rules every part of it asks — the build mode's name, a probe class's
 * name, the fixed environment, whether a build completed, a phases' one-line summary.  The
 * lowest room of the Debian build: it calls none of the others. */
#ifndef HK_ENGINE_DSC_COMMON_H
#define HK_ENGINE_DSC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/build/build.h"
#include "core/debian/debexpect.h"
#include "core/debian/dsc.h"
#include "core/debian/dsc_change.h"
#include "core/debian/dsc_rules.h"
#include "core/formats/json.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"

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
	/* Where the change to make is written (dsc_change.c): SOURCE_VERSION.control.patch and
	 * SOURCE_VERSION.bug.txt in this directory, made if missing; NULL: nowhere (the result
	 * still holds them). */
	const char *suggest_out;
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
	 * (pkg-config through pkgconf; core/debian/converse.h). */
	char **through;
	char **through_paths;       /* the first file opened of each of them */
	size_t n_through;
};

/* What the log says was missing, of a package named from it. */
enum hk_dsc_log_kind {
	HK_DSC_LOG_MACRO,           /* an m4 macro (core/debian/aclocal.h) */
	HK_DSC_LOG_VARIABLE,        /* a variable an m4 macro substitutes */
	HK_DSC_LOG_CONDITIONAL,     /* an automake conditional an m4 macro defines */
	HK_DSC_LOG_LIBRARY,         /* a library in a directory an ld.so.conf file names
				     * (core/debian/dsc_ldconf.h) */
};

/* "macro", "variable", "conditional", "library". */
const char *hk_dsc_log_kind_name(enum hk_dsc_log_kind kind);

/* A store package named from the build's log, not from a denial: its /usr/share/aclocal file
 * defines a macro, a variable or a conditional the log says was missing (core/debian/aclocal.h), or
 * its /etc/ld.so.conf.d file names the directory of a library the log says was not found
 * (core/debian/dsc_ldconf.h).  The store view leaves those directories out, so such a use has no
 * other witness. */
struct hk_dsc_macro_need {
	char *package, *version;
	enum hk_dsc_log_kind kind;
	char *macro;                /* its name: "PKG_PROG_PKG_CONFIG", "pkgconfigdir",
				     * "libhkfoo.so.1" */
	char *file;                 /* "/usr/share/aclocal/pkg.m4", "/etc/ld.so.conf.d/x.conf" */
	char *dir;                  /* a library's: the directory the file names; else NULL */
	char *line;                 /* the log's line that says it was missing */
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
	char **still_denied;        /* granted packages it was denied all the same, NULL-ended */
	size_t n_still_denied;
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

/* The front end's steps, each timed once (-1: not reached): the JSON result's "timings_ms",
 * beside the engine's own (hk_build_result.ms_steps). */
enum hk_dsc_step {
	HK_DSC_T_SOURCE_PACKAGE,     /* a tree's dpkg-source -b, or apt-get source of a name */
	HK_DSC_T_CHECKSUMS,          /* the .dsc read, its files' sizes and SHA-256 */
	HK_DSC_T_ARCH,               /* dpkg-architecture */
	HK_DSC_T_UNPACK,             /* dpkg-source -x, and the changelog's date */
	HK_DSC_T_EXPECTATIONS,       /* the expectation set */
	HK_DSC_T_BASE,               /* the store and the base's package database, reach */
	HK_DSC_T_REDUCE,             /* the relations reduced for the host */
	HK_DSC_T_RESOLUTION,         /* the closure, apt's answer (kept or asked) */
	HK_DSC_T_IMPORTS,            /* --see, downloads, .deb imports */
	HK_DSC_T_DPKG_STATE,         /* the closure's dpkg state, found or made */
	HK_DSC_T_DPKG_DB,            /* the package database's files listed */
	HK_DSC_T_RECIPE,             /* the recipe written */
	HK_DSC_T_ENGINE,             /* harkaq build, whole (its own steps: result.timings_ms) */
	HK_DSC_T_LOG,                /* macros the log says were missing */
	HK_DSC_T_OUTPUTS,            /* the .debs' SHA-256 */
	HK_DSC_T_CONVERSE,           /* Build-Depends nothing was read of */
	HK_DSC_T_COUNT
};

const char *hk_dsc_step_name(enum hk_dsc_step s);

struct hk_dsc_result {
	long long ms_steps[HK_DSC_T_COUNT];
	long long ms_total;
	bool dsc_loaded;
	struct hk_dsc dsc;
	char dsc_sha256[65];
	char *dsc_path;             /* absolute */
	/* How the .dsc was made from what --dsc named ("dpkg-source -b DIR", "apt-get source
	 * --download-only NAME"), or NULL when a .dsc was given. */
	char *dsc_made_from;
	enum hk_dsc_mode mode;
	char *srcdir;               /* the unpacked tree's directory name under /src */
	char *source_date_epoch;
	char *build_options;        /* DEB_BUILD_OPTIONS */
	char *profiles;             /* DEB_BUILD_PROFILES ("" when none) */
	char *reduced[HK_DSC_FIELD_COUNT];   /* the fields used, reduced; NULL when not used */
	char *base_name, *base_id;
	struct hk_dsc_pkg *closure;
	size_t n_closure;
	/* The closure's .debs `apt-get download` fetched for this build; 0 when every one came
	 * from the store (imported by an earlier build, or from a bundle). */
	size_t n_downloaded;
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
	/* The store packages named from the build's log (dsc_log_aclocal.c). */
	struct hk_dsc_macro_need *macro_needs;
	size_t n_macro_needs;
	size_t n_groups_checked;
	/* --confirm: the packages left out of the view, and the second build's result. */
	char **confirm_hidden;      /* NULL-terminated; NULL when no second build ran */
	size_t n_confirm_hidden;
	bool confirmed_ran;
	struct hk_build_result confirm;
	char *confirm_error;        /* why the second build stopped before its verdicts, or NULL */
	/* The rounds before the last (r->confirm is the last): each left out what the previous
	 * left out and the needs it named. */
	struct hk_dsc_confirm_round {
		char **hidden;          /* NULL-terminated */
		char *phases;           /* "clean 0 Impure, build 2 Impure" */
		char **new_needs;       /* the needs it named that were still in the view */
	} *confirm_rounds;
	size_t n_confirm_rounds;
	struct hk_dsc_decide decide;    /* --decide-probes */
	struct hk_recipe recipe;    /* the recipe the engine ran, made in memory */
	bool recipe_made;
	char *work;                 /* the front end's work directory */
	/* The closure's .debs could not be downloaded (apt-get download failed): the error is
	 * the network's or the mirror's, not the package's (a sweep reports it apart). */
	bool fetch_failed;
	const char *error;
	/* debian/control as unpacked (read when the source is: the engine may take the tree),
	 * or NULL when it could not be read. */
	char *control;
	size_t control_len;
	/* The change to make (engine/debian/dsc_change.h): made when the build gave verdicts
	 * and named something to change; `suggestion_not` says why there is none otherwise.
	 * The files it was written to, or NULL. */
	bool suggested;
	struct hk_dsc_suggestion suggestion;
	char *suggestion_not;
	char *patch_file, *bug_file;
	/* The expectations the build ran with: the built-in set (HK_DEB_EXPECT_VERSION), then the
	 * package's own (debian/harkaq-expect, when it has one). */
	struct hk_expect_set expect;
	bool expect_package_file;
	size_t n_expect_paths;      /* paths found for them that the build left undeclared */
};

/* "binary", "any", "all" (dpkg-buildpackage --build=…). */
const char *hk_dsc_mode_name(enum hk_dsc_mode m);

/* The fixed environment of every phase of a Debian build, "KEY=VALUE" each, NULL-terminated
 * (SOURCE_DATE_EPOCH comes apart: it is the package's): sbuild's, as Debian's buildds run
 * dpkg-buildpackage (docs/debian-builds.md, "Where Debian builds stand"). */
extern const char *const hk_dsc_fixed_env[];

/* What each phase of a Debian build is called: dpkg-buildpackage's targets, by the recipe's
 * phase (configure, compile, install). */
extern const char *const hk_dsc_phase_labels[HK_PHASE_COUNT];

/* Whether every phase ran and succeeded: a Build-Depends of a phase that never ran would read
 * as unread, and only a completed build's .debs can be compared. */
bool dsc_completed(const struct hk_build_result *br);

/* "clean 0 Hermetic, build 2 Impure" */
char *hk_dsc_phases_summary(const struct hk_build_result *br);

/* Adds `ms` to step `s` of the result's timings (-1, not reached, counts as 0). */
void dsc_step_add(struct hk_dsc_result *r, enum hk_dsc_step s, long long ms);

#endif
