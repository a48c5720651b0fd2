/* The decision rules of a Debian build's second looks (dsc_rules.h). */
#include "core/debian/dsc_rules.h"

enum hk_confirm_answer hk_confirm_decide(const struct hk_confirm_facts *f)
{
	if (!f->ran)
		return HK_CONFIRM_NONE;
	if (f->error || !f->first_failed || !f->reached)
		return HK_CONFIRM_NO_ANSWER;
	if (!f->phase_failed)
		return HK_CONFIRM_NOT_NEEDED;
	/* Failed again: a need only if nothing else it was denied could be the cause. */
	return f->other_needs ? HK_CONFIRM_UNDECIDED : HK_CONFIRM_STILL_FAILS;
}

const char *hk_confirm_answer_name(enum hk_confirm_answer a)
{
	switch (a) {
	case HK_CONFIRM_NOT_NEEDED: return "not_needed";
	case HK_CONFIRM_STILL_FAILS: return "still_fails";
	case HK_CONFIRM_UNDECIDED: return "undecided";
	case HK_CONFIRM_NO_ANSWER: return "no_answer";
	case HK_CONFIRM_NONE: break;
	}
	return NULL;
}

enum hk_probe_class hk_probe_decide(const struct hk_probe_facts *f, const char **why)
{
	if (!f->control_compared) {
		*why = "the control build gave no answer";
		return HK_PROBE_UNDECIDED;
	}
	if (!f->control_identical) {
		*why = "not reproducible here: the control, built again with nothing changed, "
		       "already makes other .debs";
		return HK_PROBE_UNDECIDED;
	}
	if (f->still_denied) {
		*why = "granted, but the build was denied it all the same (a path its files do not "
		       "hold, such as a link its maintainer scripts make): its effect on the .debs "
		       "was not measured";
		return HK_PROBE_UNDECIDED;
	}
	if (!f->granted_compared) {
		*why = "the build with it granted gave no answer";
		return HK_PROBE_UNDECIDED;
	}
	if (f->granted_identical) {
		*why = "granted, the .debs are byte for byte those built without it";
		return HK_PROBE_INERT;
	}
	*why = "granted, the .debs differ from those built without it";
	return HK_PROBE_INFLUENCE;
}

const char *hk_probe_class_name(enum hk_probe_class c)
{
	switch (c) {
	case HK_PROBE_INERT: return "inert";
	case HK_PROBE_INFLUENCE: return "influence";
	case HK_PROBE_UNDECIDED: return "undecided";
	}
	return "undecided";
}

enum hk_dsc_class hk_dsc_classify(const struct hk_dsc_class_facts *f)
{
	/* A failed build that named what it lacked is told by that: "missing" says more than
	 * "failed", and a build that failed on a need is the need's. */
	if (!f->completed)
		return f->missing ? HK_DSC_MISSING : HK_DSC_FAILED;
	if (f->no_evidence)
		return HK_DSC_NO_EVIDENCE;
	if (f->missing)
		return HK_DSC_MISSING;
	if (f->influences)
		return HK_DSC_INFLUENCE;
	if (f->unattributed)
		return HK_DSC_UNATTRIBUTED;
	if (f->undecided_probes)
		return HK_DSC_PROBES;
	if (f->inert_probes)
		return HK_DSC_INERT_PROBES;
	return HK_DSC_HERMETIC;
}

const char *hk_dsc_class_name(enum hk_dsc_class c)
{
	switch (c) {
	case HK_DSC_FAILED: return "failed";
	case HK_DSC_NO_EVIDENCE: return "no_evidence";
	case HK_DSC_MISSING: return "missing";
	case HK_DSC_INFLUENCE: return "influence";
	case HK_DSC_UNATTRIBUTED: return "unattributed";
	case HK_DSC_PROBES: return "probes";
	case HK_DSC_INERT_PROBES: return "inert_probes";
	case HK_DSC_HERMETIC: return "hermetic";
	}
	return "failed";
}
