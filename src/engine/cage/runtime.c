#include "engine/cage/runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/root/baseroot.h"
#include "core/basic/util.h"

int hk_runtime_for_command(const char *cmd0, struct hk_policy *p, struct hk_runtime_report *r,
			   struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	r->paths = (struct hk_strset)HK_STRSET_INIT;
	char *entry;
	if (strchr(cmd0, '/')) {
		char resolved[PATH_MAX];
		if (!realpath(cmd0, resolved))
			return hk_fail_errno(err, errno, "command %s", cmd0);
		entry = hk_xstrdup(resolved);
	} else {
		entry = hk_xstrdup(cmd0);
	}
	struct hk_runtime_closure c = HK_RUNTIME_CLOSURE_INIT;
	const char *entries[] = { entry };
	int rc = hk_elf_closure("/", entries, 1, &c, err);
	if (rc < 0) {
		free(entry);
		hk_runtime_closure_free(&c);
		return hk_wrap(err, "the runtime of '%s' (use --no-runtime and grant it yourself)",
			       cmd0);
	}
	hk_runtime_closure_paths(&c, &r->paths);
	for (size_t i = 0; i < r->paths.len; i++)
		hk_policy_add_grant(p, HK_GRANT_RO, r->paths.items[i]);
	r->program = entry;
	hk_runtime_closure_free(&c);
	return 0;
}

void hk_runtime_report_free(struct hk_runtime_report *r)
{
	free(r->program);
	hk_strset_free(&r->paths);
	memset(r, 0, sizeof(*r));
}
