/* The change to make after a Debian build (docs/debian-builds.md, "The change to make"): its
 * findings gathered as facts for core/debian/dsc_change.h, which decides the edit of
 * debian/control and writes the patch and the bug report; here they are kept in the result,
 * written into --suggest-out, and rendered for people and programs. */
#ifndef HK_ENGINE_DSC_CHANGE_H
#define HK_ENGINE_DSC_CHANGE_H

#include <stdio.h>

#include "engine/debian/dsc_common.h"
#include "core/formats/json.h"

/* From r's findings (dsc_findings.h): r->suggestion (r->suggested), or r->suggestion_not;
 * the files into o->suggest_out.  `store` answers what relations the packages have (their
 * Provides, who depends on them alone).  Returns 0, or -errno with err set when the files
 * could not be written or the edit went wrong. */
HK_MUST_CHECK int hk_dsc_suggest_change(const struct hk_dsc_opts *o, struct hk_store *store,
					struct hk_dsc_result *r, struct hk_error *err);

/* For people: the changes, the patch (shown when it was written nowhere) and where the
 * files are. */
void hk_dsc_change_human(const struct hk_dsc_result *r, FILE *out);
/* The result's "suggestion" member:
 *   {"changes":[{"kind","op","field","item","package","made","why"}],
 *    "layout":{"wrap_and_sort","options","order","free_field","comments"},
 *    "severity","subject","control_patch","bug_report",
 *    "files":{"control_patch","bug_report"},"not_made"}, or null with "suggestion_not". */
void hk_dsc_change_json(const struct hk_dsc_result *r, struct hk_json *j);

#endif
