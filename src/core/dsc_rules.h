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

#endif
