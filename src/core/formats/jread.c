#include "core/formats/jread.h"

const struct hk_jval *hk_jread_member(struct hk_jread *r, const struct hk_jval *obj,
				      const char *key, enum hk_jtype type)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type == HK_JNULL)
		return NULL;
	if (v->type != type) {
		if (!r->bad)
			r->bad = key;
		return NULL;
	}
	return v;
}

int64_t hk_jread_int(struct hk_jread *r, const struct hk_jval *obj, const char *key,
		     int64_t dflt)
{
	const struct hk_jval *v = hk_jread_member(r, obj, key, HK_JNUM);
	return v ? (v->is_int ? v->i : (int64_t)v->num) : dflt;
}

double hk_jread_double(struct hk_jread *r, const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jread_member(r, obj, key, HK_JNUM);
	return v ? v->num : 0;
}

bool hk_jread_bool(struct hk_jread *r, const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jread_member(r, obj, key, HK_JBOOL);
	return v && v->b;
}

char *hk_jread_bytes(struct hk_jread *r, const struct hk_jval *obj, const char *key,
		     size_t *len)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type == HK_JNULL)
		return NULL;
	size_t n = 0;
	char *s = hk_jval_bytes(v, &n);
	if (!s && !r->bad)
		r->bad = key;
	if (len)
		*len = n;
	return s;
}
