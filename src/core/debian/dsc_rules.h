/* The decision rules of a Debian build's second looks (docs/debian-builds.md): --confirm's
 * answer about a failed build's missing Build-Depends, and --decide-probes' class of a probe.
 * Pure: they take what the builds showed, as plain facts, so each rule is one function with
 * unit tests, whoever ran the builds. */
#ifndef HK_CORE_DSC_RULES_H
#define HK_CORE_DSC_RULES_H

#include <stdbool.h>
#include <stddef.h>

enum hk_confirm_answer {
	HK_CONFIRM_NONE,            /* no second build ran */
	HK_CONFIRM_NOT_NEEDED,      /* the phase succeeded without them */
	HK_CONFIRM_STILL_FAILS,     /* it failed again, denied nothing it needed: they are needs */
	HK_CONFIRM_UNDECIDED,       /* it failed again on other needs: no answer about them */
	HK_CONFIRM_NO_ANSWER,       /* the second build gave no verdict for that phase */
};

/* What --confirm's last build showed about the phase the first build failed in. */
struct hk_confirm_facts {
	bool ran;                   /* a second build ran */
	bool error;                 /* it stopped before its verdicts */
	bool first_failed;          /* the first build had a failed phase (the answer's subject) */
	bool reached;               /* the second build ran that phase */
	bool phase_failed;          /* ... and it failed */
	bool other_needs;           /* ... and named needs of its own */
};

enum hk_confirm_answer hk_confirm_decide(const struct hk_confirm_facts *f);
/* "not_needed", "still_fails", "undecided", "no_answer"; NULL for NONE. */
const char *hk_confirm_answer_name(enum hk_confirm_answer a);

/* What a probe does to the .debs (--decide-probes). */
enum hk_probe_class {
	HK_PROBE_INERT,             /* granted, the .debs are byte for byte the same */
	HK_PROBE_INFLUENCE,         /* granted, the .debs differ: an undeclared influence */
	HK_PROBE_UNDECIDED,         /* no answer, and why (the control differs, a build failed) */
};

/* What --decide-probes saw for one probe. */
struct hk_probe_facts {
	bool control_compared;      /* the control (nothing changed) completed and was compared */
	bool control_identical;     /* ... and made the first build's .debs */
	bool granted_compared;      /* the build with the probe granted completed and was compared */
	bool granted_identical;     /* ... and made the same .debs as the build it was held to */
	bool still_denied;          /* that build was denied the probe all the same */
};

/* The class, and in *why the rule that gave it (a static sentence). */
enum hk_probe_class hk_probe_decide(const struct hk_probe_facts *f, const char **why);
/* "inert", "influence", "undecided". */
const char *hk_probe_class_name(enum hk_probe_class c);

/* A Debian package's class: its worst finding, the headline a census counts (docs/debian-
 * builds.md, "The package's class"), worst first in this order. */
enum hk_dsc_class {
	HK_DSC_FAILED,              /* the build did not complete, and named no missing package */
	HK_DSC_NO_EVIDENCE,         /* a phase's verdict is NoEvidence: nothing below is vouched */
	HK_DSC_MISSING,             /* missing Build-Depends: a need the build was denied */
	HK_DSC_INFLUENCE,           /* an undeclared package changes the .debs */
	HK_DSC_UNATTRIBUTED,        /* a denied path no package of the store or the base ships */
	HK_DSC_PROBES,              /* probes survived, not decided (or undecided) */
	HK_DSC_INERT_PROBES,        /* probes survived, each shown not to change the .debs */
	HK_DSC_HERMETIC,            /* every phase Hermetic (expected denials aside) */
};

struct hk_dsc_class_facts {
	bool completed;             /* every phase ran and exited 0 */
	bool no_evidence;           /* a phase's verdict is NoEvidence (or missing) */
	size_t missing;             /* needs, by denial or named from the log */
	size_t influences, undecided_probes, inert_probes;
	size_t unattributed;        /* irreducible denials (policy bugs are harkaq's, not counted) */
};

enum hk_dsc_class hk_dsc_classify(const struct hk_dsc_class_facts *f);
/* "failed", "no_evidence", "missing", "influence", "unattributed", "probes", "inert_probes",
 * "hermetic". */
const char *hk_dsc_class_name(enum hk_dsc_class c);

#endif
