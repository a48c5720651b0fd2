/* Ed25519 signing keys and SHA-256, on libsodium: the only cryptography of harkaq's
 * attestations (docs/attestations.md).  Keys are stored in the standard forms of RFC 8410, so
 * any other tool reads them:
 *
 *   PREFIX.key   -----BEGIN PRIVATE KEY-----   PKCS#8 with the 32-byte seed, mode 0600
 *   PREFIX.pub   -----BEGIN PUBLIC KEY-----    SubjectPublicKeyInfo, mode 0644
 *
 * A key id is the lowercase hex SHA-256 of the public key's DER SubjectPublicKeyInfo (44
 * bytes): `openssl pkey -pubin -in PREFIX.pub -outform DER | sha256sum` gives the same. */
#ifndef HK_ENGINE_SIGN_H
#define HK_ENGINE_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"

#define HK_SHA256_HEX_LEN 65
#define HK_ED25519_SIG_LEN 64

struct hk_sign_key {
	uint8_t sk[64];                 /* libsodium's secret key: seed then public key */
	uint8_t pk[32];
	char keyid[HK_SHA256_HEX_LEN];
};

struct hk_verify_key {
	uint8_t pk[32];
	char keyid[HK_SHA256_HEX_LEN];
};

/* libsodium's initialisation; -EIO if it fails (nothing can be signed or hashed then). */
HK_MUST_CHECK int hk_crypto_init(struct hk_error *err);

void hk_sha256_hex(const void *p, size_t n, char out[HK_SHA256_HEX_LEN]);
/* SHA-256 of a file's content, read in blocks; errors name the file.  A symlink is refused
 * (O_NOFOLLOW): an attestation's subject is the file itself. */
HK_MUST_CHECK int hk_sha256_file(const char *path, char out[HK_SHA256_HEX_LEN], struct hk_error *err);
/* The same of what is left to read of `fd` (not closed); `shown` names it in errors. */
HK_MUST_CHECK int hk_sha256_fd(int fd, const char *shown, char out[HK_SHA256_HEX_LEN], struct hk_error *err);

/* Creates PREFIX.key (0600, never replacing a file) and PREFIX.pub.  If either exists, nothing
 * is written (-EEXIST); on any failure what was created is removed. */
HK_MUST_CHECK int hk_key_generate(const char *prefix, char keyid[HK_SHA256_HEX_LEN], struct hk_error *err);

/* Reads a private key.  A file that group or others may read or write, or that is not a
 * regular file, is refused (-EPERM) before its content is read; a file that is not an Ed25519
 * PKCS#8 key is -EINVAL. */
HK_MUST_CHECK int hk_key_load_secret(const char *path, struct hk_sign_key *out, struct hk_error *err);
/* Reads a public key (SubjectPublicKeyInfo PEM); -EINVAL for anything else. */
HK_MUST_CHECK int hk_key_load_public(const char *path, struct hk_verify_key *out, struct hk_error *err);
void hk_sign_key_wipe(struct hk_sign_key *k);

void hk_sign(const struct hk_sign_key *k, const void *msg, size_t n,
	     uint8_t sig[HK_ED25519_SIG_LEN]);
bool hk_verify(const struct hk_verify_key *k, const void *msg, size_t n, const uint8_t *sig,
	       size_t sig_len);

#endif
