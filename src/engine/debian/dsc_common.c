/* The small rules every part of a Debian build asks (dsc_common.h). */
#include "engine/debian/dsc_common.h"

#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"

const char *hk_dsc_mode_name(enum hk_dsc_mode m)
{
	switch (m) {
	case HK_DSC_BUILD_BINARY: return "binary";
	case HK_DSC_BUILD_ANY: return "any";
	case HK_DSC_BUILD_ALL: return "all";
	}
	return "binary";
}

/* sbuild's environment for dpkg-buildpackage (sbuild 0.85, lib/Sbuild/Build.pm and
 * sbuild.conf(5)): its PATH, LC_ALL=C.UTF-8, SHELL=/bin/sh and a HOME that does not exist, so
 * a build that writes to $HOME fails as on a buildd.  No TZ: dpkg-buildpackage sets none, and
 * glibc then reads /etc/localtime, the zone the base configures (Etc/UTC). */
const char *const hk_dsc_fixed_env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games",
	"HOME=/sbuild-nonexistent",
	"LC_ALL=C.UTF-8",
	"SHELL=/bin/sh",
	NULL,
};

const char *hk_dsc_log_kind_name(enum hk_dsc_log_kind kind)
{
	switch (kind) {
	case HK_DSC_LOG_MACRO:
		return "macro";
	case HK_DSC_LOG_VARIABLE:
		return "variable";
	case HK_DSC_LOG_CONDITIONAL:
		return "conditional";
	case HK_DSC_LOG_LIBRARY:
		return "library";
	}
	return "?";
}

const char *const hk_dsc_phase_labels[HK_PHASE_COUNT] = { "clean", "build", "binary" };

/* Whether every phase ran and succeeded: a Build-Depends of a phase that never ran would read
 * as unread. */
bool dsc_completed(const struct hk_build_result *br)
{
	if (br->n_phases == 0 || br->failed_phase || !br->artifact_id[0])
		return false;
	for (size_t i = 0; i < br->n_phases; i++)
		if (hk_cage_failed(&br->phases[i].res))
			return false;
	return true;
}

char *hk_dsc_phases_summary(const struct hk_build_result *br)
{
	struct hk_buf s = HK_BUF_INIT;
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		hk_buf_printf(&s, "%s%s %d %s", i ? ", " : "", pr->label, pr->res.exit_code,
			      pr->has_verdict ? hk_verdict_state_name(pr->verdict.state)
					      : "no verdict");
	}
	if (br->n_phases == 0)
		hk_buf_puts(&s, "no phase ran");
	char *out = hk_xstrdup(hk_buf_str(&s));
	hk_buf_free(&s);
	return out;
}

void dsc_step_add(struct hk_dsc_result *r, enum hk_dsc_step s, long long ms)
{
	r->ms_steps[s] = (r->ms_steps[s] < 0 ? 0 : r->ms_steps[s]) + ms;
}
