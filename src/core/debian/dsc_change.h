/* The change to make, from a Debian build's findings (docs/debian-builds.md, "The change to
 * make"): the edit of debian/control each finding calls for, the patch that makes it, and a
 * bug report a maintainer can be sent.  Pure: the engine gathers the facts of a build
 * (engine/debian/dsc_change.c), this decides and writes.
 *
 *   missing Build-Depends   the package added to Build-Depends (-Indep for a build of the
 *                           architecture-independent packages alone when the file has that
 *                           field, -Arch likewise; clean's needs always to Build-Depends).
 *                           Which name: the package that ships the file the build used — not
 *                           a virtual name it provides (any provider satisfies that, and
 *                           another one need not ship the file), nor a package that only
 *                           depends on it (a transitional or meta package, meant to go).
 *                           When several packages ship the file as a file, the relation lists
 *                           them, the diagnosis' best first (buildds install the first
 *                           alternative): `P1 | P2`, or `P1 | V` when all of them provide one
 *                           virtual name V (Debian Policy §7.5: a real package first).  A
 *                           package the build used that a declared group lists as an
 *                           alternative apt did not choose is added on its own.
 *   undeclared influence    (--decide-probes) the package added, as a need is: the build then
 *                           has on every machine what changed its .debs here.  The other honest
 *                           choice — switch the feature off in debian/rules — is named in the
 *                           report, with what harkaq saw; harkaq cannot know which option of
 *                           the package's build guards the use, and says so.
 *   declared, unopened      the group dropped from its field, the report saying what the
 *                           evidence is (opens are seen, existence checks are not) and that a
 *                           build without it is the test.
 *
 * A change the file cannot take (a group not found as written, a package declared already) is
 * left out with its reason; the others are made. */
#ifndef HK_DSC_CHANGE_H
#define HK_DSC_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"
#include "core/debian/control_edit.h"

enum hk_dsc_change_kind {
	HK_DSC_CHANGE_MISSING = 0,
	HK_DSC_CHANGE_INFLUENCE,
	HK_DSC_CHANGE_UNOPENED,
};

/* "missing", "influence", "unopened" */
const char *hk_dsc_change_kind_name(enum hk_dsc_change_kind k);

/* One finding, as the decision needs it.  Borrowed strings. */
struct hk_dsc_change_finding {
	enum hk_dsc_change_kind kind;
	const char *package;             /* MISSING, INFLUENCE: the package the finding names */
	const char *version;             /* its version in the store or the base, or NULL */
	const char *origin;              /* "deb" (a store artifact), "base", or NULL */
	const char *phase;               /* "debian/rules build" */
	const char *verb;                /* "read", "executed" */
	const char *path;                /* the first path denied (the finding's) */
	const char *exe, *comm;          /* who used it (NULL: unknown) */
	size_t n_paths;
	const char *alternative_in;      /* MISSING: "Build-Depends: a | b", or NULL */
	const char *log_line;            /* MISSING named from the build log: its line */
	const char *log_what;            /* … and what it names: "macro PKG_PROG_PKG_CONFIG" */
	/* MISSING: --confirm's answer about it (hk_confirm_answer_name: "still_fails" — built
	 * again without it, the target failed again — "undecided", "no_answer"), or NULL when no
	 * second build left it out. */
	const char *confirm;
	const char *const *file_providers;   /* every package shipping `path` as a file, best
					      * first (the finding's package among them) */
	size_t n_file_providers;
	const char *shared_virtual;      /* a virtual name every one of them provides, or NULL */
	const char *const *provides;     /* the virtual names `package` provides */
	size_t n_provides;
	const char *const *dependents;   /* packages whose one dependency is `package` */
	size_t n_dependents;
	const char *const *differences;  /* INFLUENCE: the .debs' differing members */
	size_t n_differences;
	const char *field, *group, *group_packages;   /* UNOPENED */
};

struct hk_dsc_change_facts {
	const char *source, *version;    /* the source package */
	const char *mode;                /* "binary", "any", "all" */
	bool has_indep, has_arch;        /* debian/control has Build-Depends-Indep, -Arch */
	const char *base_name, *base_id;
	const char *reproduce;           /* the command lines that build it again, one a line */
	const char *control;             /* debian/control as unpacked, or NULL */
	size_t control_len;
	const struct hk_dsc_change_finding *findings;
	size_t n_findings;
	const char *const *evidence;     /* "clean b3:…" for each phase with an object */
	size_t n_evidence;
	const char *package_class;       /* hk_dsc_class_name */
};

struct hk_dsc_change {
	enum hk_dsc_change_kind kind;
	enum hk_control_op op;
	char *field, *item;
	char *package;                   /* the finding's package, or the group's packages */
	bool made;                       /* false: left out, `why` says why */
	char *why;                       /* made: the reason for it, a sentence */
};

struct hk_dsc_suggestion {
	struct hk_dsc_change *changes;
	size_t n_changes;
	struct hk_control_layout layout;
	char *patch;                     /* the unified diff of debian/control, or NULL */
	char *bug;                       /* the report, or NULL when there is no finding */
	char *subject;
	const char *severity;            /* static */
	char *not_made;                  /* why there is no patch though there are findings */
};

/* Decides and writes.  Fails only when the edit itself goes wrong (an internal error: the
 * editor's check); a file that is not a control file gives no patch and says why. */
HK_MUST_CHECK int hk_dsc_suggest(const struct hk_dsc_change_facts *f,
				 struct hk_dsc_suggestion *out, struct hk_error *err);
void hk_dsc_suggestion_free(struct hk_dsc_suggestion *s);

#endif
