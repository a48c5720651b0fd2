/* DSSE, the Dead Simple Signing Envelope (v1): the pre-authentication encoding a signature
 * covers, and the JSON envelope that carries a payload and its signatures.  No cryptography
 * here: the signer and verifier (src/engine/common/sign.c) sign and check the bytes hk_dsse_pae gives.
 *
 *     PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 *     LEN(s)          = the byte length of s in ASCII decimal, no leading zeros
 *
 *     { "payload": BASE64(body), "payloadType": type,
 *       "signatures": [ { "keyid": "…", "sig": BASE64(Sign(PAE(type, body))) } ] }
 *
 * Envelopes are written with standard base64 and padding; the reader accepts the standard and
 * the URL-safe alphabets, with or without padding, as the envelope format allows.  Details and
 * the format harkaq signs with: docs/attestations.md. */
#ifndef HK_DSSE_H
#define HK_DSSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* The payload type of an in-toto Statement. */
#define HK_DSSE_INTOTO_TYPE "application/vnd.in-toto+json"

/* Appends PAE(type, body) to out. */
void hk_dsse_pae(const char *type, size_t type_len, const void *body, size_t body_len,
		 struct hk_buf *out);

/* Standard base64 with padding, appended to out. */
void hk_base64_encode(const void *p, size_t n, struct hk_buf *out);
/* Decodes standard or URL-safe base64, padded or not (one alphabet per string).  Returns a
 * malloc'd buffer (NUL-terminated, length in *n) or NULL for anything else, naming the first
 * bad character's offset in err. */
HK_MUST_CHECK uint8_t *hk_base64_decode(const char *s, size_t len, size_t *n, struct hk_error *err);

struct hk_dsse_sig {
	char *keyid;          /* owned; NULL when the signature names no key */
	uint8_t *sig;         /* owned */
	size_t sig_len;
};

struct hk_dsse_envelope {
	char *payload_type;   /* owned */
	uint8_t *payload;     /* owned, NUL-terminated (not counted in payload_len) */
	size_t payload_len;
	struct hk_dsse_sig *sigs;
	size_t n_sigs;
};

/* Parses an envelope.  Anything that is not one — not JSON, a member missing or of the wrong
 * type, bad base64, a duplicate member — is -EINVAL with a message naming the member.  Other
 * members are ignored (they are not signed).  Zero signatures parse (an unsigned envelope); verifying one fails. */
HK_MUST_CHECK int hk_dsse_parse(const char *text, size_t len, struct hk_dsse_envelope *out,
		  struct hk_error *err);
/* The envelope as one JSON object, members in the order payload, payloadType, signatures,
 * followed by a newline. */
void hk_dsse_encode(const struct hk_dsse_envelope *env, struct hk_buf *out);
/* Adds a signature (copied). */
void hk_dsse_add_sig(struct hk_dsse_envelope *env, const char *keyid, const uint8_t *sig,
		     size_t sig_len);
void hk_dsse_free(struct hk_dsse_envelope *env);

#endif
