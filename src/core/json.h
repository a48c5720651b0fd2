/* JSON: a writer with correct escaping, and a small strict reader (RFC 8259).
 *
 * Writer: hk_json_str()/hk_json_strn() expect text; valid UTF-8 is written as is, with the
 * mandatory escapes ('"', '\\', control characters).  Paths and other untrusted strings are
 * arbitrary bytes, and a byte that is not valid UTF-8 cannot be represented in a JSON string,
 * so those go through hk_json_bytes(), whose form is exact and reversible:
 *
 *   valid UTF-8 without NUL  ->  a JSON string               "/usr/include/zlib.h"
 *   anything else            ->  an object with the hex form {"hex":"2f746d702fe9"}
 *
 * Readers use hk_jval_bytes() to get the bytes back from either form.
 */
#ifndef HK_JSON_H
#define HK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

/* ---- writer ---- */

struct hk_json {
	struct hk_buf *out;       /* not owned */
	int depth;
	bool need_comma[64];
	bool after_key;
	int indent;               /* 0 = compact (one line); >0 = pretty, that many spaces */
};

void hk_json_init(struct hk_json *j, struct hk_buf *out, int indent);
void hk_json_obj_begin(struct hk_json *j);
void hk_json_obj_end(struct hk_json *j);
void hk_json_arr_begin(struct hk_json *j);
void hk_json_arr_end(struct hk_json *j);
void hk_json_key(struct hk_json *j, const char *key);
void hk_json_str(struct hk_json *j, const char *s);                  /* NUL-terminated */
void hk_json_strn(struct hk_json *j, const char *s, size_t n);       /* exactly n bytes */
void hk_json_int(struct hk_json *j, int64_t v);
void hk_json_uint(struct hk_json *j, uint64_t v);
void hk_json_bool(struct hk_json *j, bool v);
void hk_json_null(struct hk_json *j);
/* Arbitrary bytes, in the reversible form described at the top of this file. */
void hk_json_bytes(struct hk_json *j, const void *p, size_t n);
/* A raw, already-serialised JSON value (caller guarantees validity). */
void hk_json_raw(struct hk_json *j, const char *json);

/* ---- reader ---- */

enum hk_jtype { HK_JNULL, HK_JBOOL, HK_JNUM, HK_JSTR, HK_JARR, HK_JOBJ };

struct hk_jval {
	enum hk_jtype type;
	bool b;
	double num;
	int64_t i;            /* valid when is_int */
	bool is_int;
	char *str;            /* HK_JSTR: decoded bytes, NUL-terminated (may contain NUL: use len) */
	size_t len;           /* HK_JSTR: byte length; HK_JARR/HK_JOBJ: number of items */
	struct hk_jval *items;/* HK_JARR: len values; HK_JOBJ: len values, keys[i] names items[i] */
	char **keys;
};

/* Parses exactly one JSON value (surrounding whitespace allowed).  On error the message names
 * line and column.  The result is owned by the caller: free with hk_jval_free(). */
int hk_json_parse(const char *text, size_t len, struct hk_jval **out, struct hk_error *err);
void hk_jval_free(struct hk_jval *v);
/* Object member by key, or NULL. */
const struct hk_jval *hk_jobj_get(const struct hk_jval *obj, const char *key);
/* Bytes of a value written by hk_json_bytes() (string or {"hex":…}); returns a malloc'd buffer
 * (NUL-terminated, length in *len) or NULL if v has neither form. */
char *hk_jval_bytes(const struct hk_jval *v, size_t *len);

#endif
