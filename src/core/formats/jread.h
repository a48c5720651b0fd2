/* Reading the members of a decoded JSON object into typed fields, for the wire formats'
 * decoders (exec_status.c, reader_line.c, build_failure.c).  A missing or null member gives
 * the default; a member of the wrong type gives the default too and is remembered, so that a
 * decoder refuses the whole line with the first such member named. */
#ifndef HK_CORE_JREAD_H
#define HK_CORE_JREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/formats/json.h"

struct hk_jread {
	const char *bad;              /* the first member of the wrong type, or NULL */
};

/* The member of that type, or NULL (obj may be NULL). */
const struct hk_jval *hk_jread_member(struct hk_jread *r, const struct hk_jval *obj,
				      const char *key, enum hk_jtype type);
int64_t hk_jread_int(struct hk_jread *r, const struct hk_jval *obj, const char *key,
		     int64_t dflt);
double hk_jread_double(struct hk_jread *r, const struct hk_jval *obj, const char *key);
bool hk_jread_bool(struct hk_jread *r, const struct hk_jval *obj, const char *key);
/* A member written with hk_json_bytes (or a plain string): malloc'd bytes, NUL-terminated,
 * length in *len when len is not NULL; NULL when absent or null. */
char *hk_jread_bytes(struct hk_jread *r, const struct hk_jval *obj, const char *key,
		     size_t *len);

#endif
