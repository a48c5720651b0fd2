/* What sweep.c, sweep_read.c (the builds' documents) and sweep_json.c (the result document)
 * share: typed reads of a parsed JSON member, and the frees of an item's parts.  Private to
 * those files. */
#ifndef HK_CORE_SWEEP_INTERNAL_H
#define HK_CORE_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/formats/json.h"
#include "core/sweep/sweep.h"
#include "core/basic/util.h"

/* Frees `n` strings of `v`, and `v`. */
void hk_sweep_strv_free(char **v, size_t n);
void hk_sweep_findings_free(struct hk_sweep_finding *f, size_t n);
/* Frees the item's debt paths; it has none afterwards. */
void hk_sweep_debts_free(struct hk_sweep_item *it);
/* The class a name gives (the inverse of hk_probe_class_name, hk_dsc_class_name); false for a
 * name that is none. */
bool hk_sweep_probe_class_of_name(const char *name, enum hk_probe_class *out);
bool hk_sweep_dsc_class_of_name(const char *name, enum hk_dsc_class *out);

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

/* A member that may hold any bytes (hk_jval_bytes), or NULL when absent or null. */
static inline char *jbytes_or_null(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type == HK_JNULL)
		return NULL;
	size_t n;
	return hk_jval_bytes(v, &n);
}

#endif
