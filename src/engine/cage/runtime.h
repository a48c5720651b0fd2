/* `harkaq run`'s derived runtime: the command's program and its shared-library closure
 * (ELF DT_NEEDED resolved by the loader's rules, never ldd), granted ro so that a policy
 * names only what the command should read, not what it needs to start. */
#ifndef HK_ENGINE_RUNTIME_H
#define HK_ENGINE_RUNTIME_H

#include "core/basic/error.h"
#include "core/policy/policy.h"
#include "core/basic/strset.h"

struct hk_runtime_report {
	char *program;            /* resolved entry, or NULL when not computed */
	struct hk_strset paths;   /* what was added */
};

HK_MUST_CHECK int hk_runtime_for_command(const char *cmd0, struct hk_policy *p, struct hk_runtime_report *r,
			   struct hk_error *err);
void hk_runtime_report_free(struct hk_runtime_report *r);

#endif
