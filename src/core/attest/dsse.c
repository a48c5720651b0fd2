#include "core/attest/dsse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/formats/json.h"
#include "core/basic/util.h"

void hk_dsse_pae(const char *type, size_t type_len, const void *body, size_t body_len,
		 struct hk_buf *out)
{
	hk_buf_printf(out, "DSSEv1 %zu ", type_len);
	hk_buf_append(out, type, type_len);
	hk_buf_printf(out, " %zu ", body_len);
	hk_buf_append(out, body, body_len);
}

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void hk_base64_encode(const void *p, size_t n, struct hk_buf *out)
{
	const uint8_t *s = p;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
		char q[4] = { b64_std[v >> 18], b64_std[(v >> 12) & 63], b64_std[(v >> 6) & 63],
			      b64_std[v & 63] };
		hk_buf_append(out, q, 4);
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)s[i] << 16;
		char q[4] = { b64_std[v >> 18], b64_std[(v >> 12) & 63], '=', '=' };
		hk_buf_append(out, q, 4);
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8;
		char q[4] = { b64_std[v >> 18], b64_std[(v >> 12) & 63], b64_std[(v >> 6) & 63], '=' };
		hk_buf_append(out, q, 4);
	}
}

/* The value of a base64 digit in the standard (url = 0) or URL-safe (url = 1) alphabet. */
static int b64_value(char c, int url)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == (url ? '-' : '+'))
		return 62;
	if (c == (url ? '_' : '/'))
		return 63;
	return -1;
}

uint8_t *hk_base64_decode(const char *s, size_t len, size_t *n, struct hk_error *err)
{
	int url = memchr(s, '-', len) || memchr(s, '_', len);
	size_t digits = len;
	while (digits > 0 && s[digits - 1] == '=')
		digits--;
	size_t pad = len - digits;
	/* Padding, when present, completes the last quantum exactly; one digit alone is not a
	 * quantum in any form. */
	if (pad > 2 || (pad > 0 && len % 4 != 0) || digits % 4 == 1) {
		hk_fail(err, EINVAL, "base64: %zu characters do not make whole bytes (truncated?)", len);
		return NULL;
	}
	uint8_t *out = hk_xmalloc(digits / 4 * 3 + 3);
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < digits; i++) {
		int v = b64_value(s[i], url);
		if (v < 0) {
			free(out);
			hk_fail(err, EINVAL, "base64: invalid character at offset %zu", i);
			return NULL;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* The bits left over must be zero, so that one byte string has one encoding. */
	if (acc != 0) {
		free(out);
		hk_fail(err, EINVAL, "base64: the last character carries bits beyond the data");
		return NULL;
	}
	out[o] = 0;
	*n = o;
	return out;
}

static int member_b64(const struct hk_jval *obj, const char *key, const char *where,
		      uint8_t **out, size_t *n, struct hk_error *err)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v)
		return hk_fail(err, EINVAL, "%s: member \"%s\" is missing", where, key);
	if (v->type != HK_JSTR)
		return hk_fail(err, EINVAL, "%s: member \"%s\" is not a string", where, key);
	*out = hk_base64_decode(v->str, v->len, n, err);
	if (!*out)
		return hk_wrap(err, "%s: member \"%s\"", where, key);
	return 0;
}

int hk_dsse_parse(const char *text, size_t len, struct hk_dsse_envelope *out,
		  struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_jval *root = NULL;
	if (hk_json_parse(text, len, &root, err) < 0)
		return hk_wrap(err, "envelope is not JSON");
	int rc = 0;
	if (root->type != HK_JOBJ) {
		rc = hk_fail(err, EINVAL, "envelope: not a JSON object");
		goto free_root;
	}
	const struct hk_jval *type = hk_jobj_get(root, "payloadType");
	if (!type || type->type != HK_JSTR || type->len == 0 || strlen(type->str) != type->len) {
		rc = hk_fail(err, EINVAL, "envelope: member \"payloadType\" is %s",
			     type ? "not a non-empty string" : "missing");
		goto free_root;
	}
	out->payload_type = hk_xstrdup(type->str);
	rc = member_b64(root, "payload", "envelope", &out->payload, &out->payload_len, err);
	if (rc < 0)
		goto free_root;
	const struct hk_jval *sigs = hk_jobj_get(root, "signatures");
	if (!sigs || sigs->type != HK_JARR) {
		rc = hk_fail(err, EINVAL, "envelope: member \"signatures\" is %s",
			     sigs ? "not an array" : "missing");
		goto free_root;
	}
	out->sigs = hk_xcalloc(sigs->len + 1, sizeof(*out->sigs));
	for (size_t i = 0; i < sigs->len; i++) {
		const struct hk_jval *s = &sigs->items[i];
		char where[64];
		snprintf(where, sizeof(where), "envelope: signatures[%zu]", i);
		if (s->type != HK_JOBJ) {
			rc = hk_fail(err, EINVAL, "%s: not an object", where);
			goto free_root;
		}
		struct hk_dsse_sig *d = &out->sigs[out->n_sigs++];
		rc = member_b64(s, "sig", where, &d->sig, &d->sig_len, err);
		if (rc < 0)
			goto free_root;
		const struct hk_jval *kid = hk_jobj_get(s, "keyid");
		if (kid && kid->type != HK_JSTR) {
			rc = hk_fail(err, EINVAL, "%s: member \"keyid\" is not a string", where);
			goto free_root;
		}
		if (kid && kid->len > 0)
			d->keyid = hk_xmemdupz(kid->str, kid->len);
	}
free_root:
	hk_jval_free(root);
	if (rc < 0)
		hk_dsse_free(out);
	return rc;
}

void hk_dsse_encode(const struct hk_dsse_envelope *env, struct hk_buf *out)
{
	struct hk_buf b64 = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, out, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "payload");
	hk_base64_encode(env->payload, env->payload_len, &b64);
	hk_json_strn(&j, b64.data ? b64.data : "", b64.len);
	hk_json_kv_str(&j, "payloadType", env->payload_type);
	hk_json_key(&j, "signatures");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < env->n_sigs; i++) {
		hk_json_obj_begin(&j);
		if (env->sigs[i].keyid)
			hk_json_kv_str(&j, "keyid", env->sigs[i].keyid);
		hk_json_key(&j, "sig");
		hk_buf_reset(&b64);
		hk_base64_encode(env->sigs[i].sig, env->sigs[i].sig_len, &b64);
		hk_json_strn(&j, b64.data ? b64.data : "", b64.len);
		hk_json_obj_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
	hk_buf_putc(out, '\n');
	hk_buf_free(&b64);
}

void hk_dsse_add_sig(struct hk_dsse_envelope *env, const char *keyid, const uint8_t *sig,
		     size_t sig_len)
{
	env->sigs = hk_xrealloc(env->sigs, (env->n_sigs + 1) * sizeof(*env->sigs));
	struct hk_dsse_sig *d = &env->sigs[env->n_sigs++];
	d->keyid = keyid ? hk_xstrdup(keyid) : NULL;
	d->sig = (uint8_t *)hk_xmemdupz(sig, sig_len);
	d->sig_len = sig_len;
}

void hk_dsse_free(struct hk_dsse_envelope *env)
{
	for (size_t i = 0; i < env->n_sigs; i++) {
		free(env->sigs[i].keyid);
		free(env->sigs[i].sig);
	}
	free(env->sigs);
	free(env->payload_type);
	free(env->payload);
	memset(env, 0, sizeof(*env));
}
