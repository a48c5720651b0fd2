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
 *
 * Writer rules:
 *   - hk_json_str()/hk_json_strn()/hk_json_key() validate UTF-8 (strict: no overlong forms,
 *     no surrogates, nothing above U+10FFFF).  Each byte that is not part of a valid sequence
 *     is written as U+FFFD, so the output is always valid JSON; such a string is not
 *     reversible, which is why untrusted bytes go through hk_json_bytes().
 *   - Escapes: '"', '\\', \b \f \n \r \t, every other byte below 0x20 as \u00xx; DEL and
 *     '/' are written literally.
 *   - Commas, ':' and (with indent > 0) newlines and indentation are the writer's job.
 *     Several values at top level are separated by '\n' (JSON Lines).
 *   - At most HK_JSON_MAX_DEPTH containers may be open at once.  Exceeding it, a key outside
 *     an object, a value in an object without its key, or a mismatched end is a programming
 *     error: the writer prints the misuse on stderr and aborts.
 *
 * Reader rules (RFC 8259, strict): exactly one value; no comments, no trailing commas, no
 * leading zeros, no BOM; whitespace is space, tab, CR, LF; strings must be valid UTF-8 with
 * control characters escaped, and \uXXXX escapes must pair surrogates; numbers that overflow
 * a double are refused; nesting deeper than HK_JSON_MAX_DEPTH is refused.  Two choices beyond
 * the RFC, because stored evidence must mean one thing to every reader: duplicate keys in an
 * object are refused, and so is a key containing U+0000 (keys are C strings).
 * Errors read "JSON:<line>:<column>: <what>", both 1-based, the column counted in characters.
 */
#ifndef HK_JSON_H
#define HK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* ---- writer ---- */

#define HK_JSON_MAX_DEPTH 64

struct hk_json {
	struct hk_buf *out;       /* not owned */
	int depth;                /* open containers; index 0 of the arrays below is top level */
	bool need_comma[HK_JSON_MAX_DEPTH + 1];
	bool in_object[HK_JSON_MAX_DEPTH + 1];
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
/* Shortest decimal form that reads back as the same double; NaN and infinities, which JSON
 * cannot represent, are written as null. */
void hk_json_double(struct hk_json *j, double v);
/* Arbitrary bytes, in the reversible form described at the top of this file. */
void hk_json_bytes(struct hk_json *j, const void *p, size_t n);
/* The text a reader gets back from what hk_json_strn(s, n) writes, appended to `out`: the
 * same bytes, each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.  For
 * output rendered from a value that must read exactly as when rendered from its stored JSON. */
void hk_json_text_as_read(const char *s, size_t n, struct hk_buf *out);
/* A raw, already-serialised JSON value (caller guarantees validity). */
void hk_json_raw(struct hk_json *j, const char *json);
/* A member of the object being written: its key, then its value.  hk_json_kv_str writes null
 * for a NULL string (an optional field). */
void hk_json_kv_str(struct hk_json *j, const char *key, const char *s);
void hk_json_kv_bytes(struct hk_json *j, const char *key, const void *p, size_t n);
void hk_json_kv_int(struct hk_json *j, const char *key, int64_t v);
void hk_json_kv_uint(struct hk_json *j, const char *key, uint64_t v);
void hk_json_kv_bool(struct hk_json *j, const char *key, bool v);
/* Writes a parsed value back (object keys in their original order; integers exactly, other
 * numbers via hk_json_double).  v must nest no deeper than HK_JSON_MAX_DEPTH - j->depth. */
struct hk_jval;
void hk_json_value(struct hk_json *j, const struct hk_jval *v);

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

/* Parses exactly one JSON value (surrounding whitespace allowed).  On error returns -EINVAL,
 * *out stays NULL and the message names line and column.  The result is owned by the caller:
 * free with hk_jval_free().  Numbers: num always; is_int and i when the value is integral and
 * fits int64 (integers written without fraction or exponent are converted exactly, beyond
 * double precision). */
HK_MUST_CHECK int hk_json_parse(const char *text, size_t len, struct hk_jval **out, struct hk_error *err);
/* Frees v and everything it holds (v itself must come from hk_json_parse); NULL is allowed. */
void hk_jval_free(struct hk_jval *v);
/* Object member by key, or NULL (also NULL when obj is NULL or not an object). */
const struct hk_jval *hk_jobj_get(const struct hk_jval *obj, const char *key);
/* Typed member accessors (obj may be NULL or not an object, like hk_jobj_get).
 * hk_jobj_str: the string member's text, or NULL if absent or not a string (the text may hold
 *   U+0000: check len where that matters).
 * hk_jobj_int: a number member (its exact integer, else its value truncated), or dflt.
 * hk_jobj_bool: true only for a member that is the literal true. */
const char *hk_jobj_str(const struct hk_jval *obj, const char *key);
int64_t hk_jobj_int(const struct hk_jval *obj, const char *key, int64_t dflt);
bool hk_jobj_bool(const struct hk_jval *obj, const char *key);
/* A deep copy of v, owned by the caller (free with hk_jval_free()); NULL gives NULL. */
struct hk_jval *hk_jval_copy(const struct hk_jval *v);
/* Bytes of a value written by hk_json_bytes() (string or {"hex":…}); returns a malloc'd buffer
 * (NUL-terminated, length in *len) or NULL if v has neither form.  Only the canonical form is
 * accepted, so the encoding is one-to-one: a string must not contain U+0000, and the object
 * must have the single member "hex" with an even number of lowercase hex digits whose bytes
 * are not themselves valid UTF-8 without NUL (those would have been written as a string). */
char *hk_jval_bytes(const struct hk_jval *v, size_t *len);

#endif
