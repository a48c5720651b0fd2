#include "core/evidence/build_failure.h"

#include <errno.h>
#include <string.h>

#include "core/formats/jread.h"
#include "core/basic/util.h"

static const char *const stage_names[] = {
	[HK_BUILD_STAGE_NONE] = NULL,        [HK_BUILD_STAGE_RECIPE] = "recipe",
	[HK_BUILD_STAGE_DEPS] = "deps",      [HK_BUILD_STAGE_FETCH] = "fetch",
	[HK_BUILD_STAGE_SETUP] = "setup",
};

bool hk_phase_failed(int exit_code, bool timed_out)
{
	return exit_code != 0 || timed_out;
}

const char *hk_build_stage_name(enum hk_build_stage s)
{
	return (unsigned)s < HK_ARRAY_LEN(stage_names) ? stage_names[s] : NULL;
}

void hk_build_failure_json(const struct hk_build_failure *f, struct hk_json *j)
{
	hk_json_key(j, "failure");
	const char *stage = hk_build_stage_name(f->stage);
	if (!stage) {
		hk_json_null(j);
		return;
	}
	hk_json_obj_begin(j);
	hk_json_key(j, "stage");
	hk_json_str(j, stage);
	hk_json_key(j, "signal");
	if (f->signal > 0)
		hk_json_int(j, f->signal);
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

int hk_build_failure_decode(const struct hk_jval *result, struct hk_build_failure *f,
			    struct hk_error *err)
{
	memset(f, 0, sizeof(*f));
	struct hk_jread r = { NULL };
	const struct hk_jval *v = hk_jread_member(&r, result, "failure", HK_JOBJ);
	if (!v)
		return r.bad ? hk_fail(err, EINVAL, "a build result's \"failure\" is not an object")
			     : 0;
	const struct hk_jval *stage = hk_jread_member(&r, v, "stage", HK_JSTR);
	for (size_t s = 1; stage && s < HK_ARRAY_LEN(stage_names); s++)
		if (strcmp(stage->str, stage_names[s]) == 0)
			f->stage = (enum hk_build_stage)s;
	int64_t sig = hk_jread_int(&r, v, "signal", 0);
	if (r.bad || f->stage == HK_BUILD_STAGE_NONE || sig < 0 || sig > 64) {
		memset(f, 0, sizeof(*f));
		return hk_fail(err, EINVAL, "a build result's \"failure\" names %s",
			       r.bad ? "a member of the wrong type"
				     : f->stage == HK_BUILD_STAGE_NONE ? "no known stage"
								       : "an impossible signal");
	}
	f->signal = (int)sig;
	return 0;
}
