/* The decision rules of a Debian build's second looks (core/debian/dsc_rules.h): --confirm's answer
 * and --decide-probes' class, each from the facts of the builds alone. */
#include <string.h>

#include "core/debian/dsc_rules.h"
#include "harness.h"

TEST(confirm_answers_by_what_the_second_build_did_in_the_failed_phase)
{
	struct hk_confirm_facts f = { .ran = true, .first_failed = true, .reached = true };
	CHECK_EQ_INT(HK_CONFIRM_NOT_NEEDED, hk_confirm_decide(&f));        /* it succeeded */
	f.phase_failed = true;
	CHECK_EQ_INT(HK_CONFIRM_STILL_FAILS, hk_confirm_decide(&f));       /* failed, nothing else */
	f.other_needs = true;
	CHECK_EQ_INT(HK_CONFIRM_UNDECIDED, hk_confirm_decide(&f));         /* failed on others */
	f.reached = false;
	CHECK_EQ_INT(HK_CONFIRM_NO_ANSWER, hk_confirm_decide(&f));         /* never got there */
	f.reached = true;
	f.error = true;
	CHECK_EQ_INT(HK_CONFIRM_NO_ANSWER, hk_confirm_decide(&f));         /* stopped early */
	struct hk_confirm_facts none = { 0 };
	CHECK_EQ_INT(HK_CONFIRM_NONE, hk_confirm_decide(&none));
	CHECK(hk_confirm_answer_name(HK_CONFIRM_NONE) == NULL);
	CHECK_STR_EQ("not_needed", hk_confirm_answer_name(HK_CONFIRM_NOT_NEEDED));
	CHECK_STR_EQ("still_fails", hk_confirm_answer_name(HK_CONFIRM_STILL_FAILS));
}

TEST(a_probe_is_inert_or_an_influence_only_where_the_control_holds)
{
	const char *why = NULL;
	struct hk_probe_facts f = { .control_compared = true, .control_identical = true,
				    .granted_compared = true, .granted_identical = true };
	CHECK_EQ_INT(HK_PROBE_INERT, hk_probe_decide(&f, &why));
	CHECK_CONTAINS(why, "byte for byte");
	f.granted_identical = false;
	CHECK_EQ_INT(HK_PROBE_INFLUENCE, hk_probe_decide(&f, &why));
	/* The same difference means nothing when the control already differs... */
	f.control_identical = false;
	CHECK_EQ_INT(HK_PROBE_UNDECIDED, hk_probe_decide(&f, &why));
	CHECK_CONTAINS(why, "not reproducible here");
	/* ...or when the control gave no answer, */
	f.control_identical = true;
	f.control_compared = false;
	CHECK_EQ_INT(HK_PROBE_UNDECIDED, hk_probe_decide(&f, &why));
	/* or when the grant did not reach the build (identical .debs prove nothing then), */
	f.control_compared = true;
	f.granted_identical = true;
	f.still_denied = true;
	CHECK_EQ_INT(HK_PROBE_UNDECIDED, hk_probe_decide(&f, &why));
	CHECK_CONTAINS(why, "denied it all the same");
	/* or when the granted build gave no answer. */
	f.still_denied = false;
	f.granted_compared = false;
	CHECK_EQ_INT(HK_PROBE_UNDECIDED, hk_probe_decide(&f, &why));
	CHECK_STR_EQ("influence", hk_probe_class_name(HK_PROBE_INFLUENCE));
	CHECK_STR_EQ("inert", hk_probe_class_name(HK_PROBE_INERT));
}

TEST(a_package_is_classed_by_its_worst_finding)
{
	struct hk_dsc_class_facts f = { .completed = true };
	CHECK_EQ_INT(HK_DSC_HERMETIC, hk_dsc_classify(&f));
	f.inert_probes = 2;
	CHECK_EQ_INT(HK_DSC_INERT_PROBES, hk_dsc_classify(&f));
	f.undecided_probes = 1;
	CHECK_EQ_INT(HK_DSC_PROBES, hk_dsc_classify(&f));
	f.unattributed = 1;
	CHECK_EQ_INT(HK_DSC_UNATTRIBUTED, hk_dsc_classify(&f));
	f.influences = 1;
	CHECK_EQ_INT(HK_DSC_INFLUENCE, hk_dsc_classify(&f));
	f.missing = 1;
	CHECK_EQ_INT(HK_DSC_MISSING, hk_dsc_classify(&f));
	f.no_evidence = true;
	CHECK_EQ_INT(HK_DSC_NO_EVIDENCE, hk_dsc_classify(&f));
	/* A build that did not complete: the need it named, else failed. */
	f.completed = false;
	CHECK_EQ_INT(HK_DSC_MISSING, hk_dsc_classify(&f));
	f.missing = 0;
	CHECK_EQ_INT(HK_DSC_FAILED, hk_dsc_classify(&f));
	CHECK_STR_EQ("inert_probes", hk_dsc_class_name(HK_DSC_INERT_PROBES));
	CHECK_STR_EQ("hermetic", hk_dsc_class_name(HK_DSC_HERMETIC));
}
