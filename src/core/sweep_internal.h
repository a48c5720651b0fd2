/* What sweep.c (reading build results) and sweep_json.c (reading result documents) share:
 * typed reads of a parsed JSON member.  Private to those two files. */
#ifndef HK_CORE_SWEEP_INTERNAL_H
#define HK_CORE_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

static inline char *dup_or_null(const char *s)
{
	return s ? hk_xstrdup(s) : NULL;
}

static inline const char *jstr(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR && strlen(v->str) == v->len ? v->str : NULL;
}

static inline bool jint(const struct hk_jval *obj, const char *key, int64_t *out)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type != HK_JNUM || !v->is_int)
		return false;
	*out = v->i;
	return true;
}

#endif
