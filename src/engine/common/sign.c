#include "engine/common/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/buf_fd.h"
#include "core/attest/dsse.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"

/* RFC 8410: the fixed DER prefixes of an Ed25519 key, followed by its 32 bytes. */
static const uint8_t spki_prefix[12] = { 0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
					 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00 };
static const uint8_t pkcs8_prefix[16] = { 0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06,
					  0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20 };

int hk_crypto_init(struct hk_error *err)
{
	if (sodium_init() < 0)
		return hk_fail(err, EIO, "libsodium could not be initialised");
	return 0;
}

void hk_sha256_hex(const void *p, size_t n, char out[HK_SHA256_HEX_LEN])
{
	uint8_t h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, p, n);
	hk_hex(h, sizeof(h), out);
}

int hk_sha256_file(const char *path, char out[HK_SHA256_HEX_LEN], struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "%s", path);
	return hk_sha256_fd(fd, path, out, err);
}

int hk_sha256_fd(int fd, const char *shown, char out[HK_SHA256_HEX_LEN], struct hk_error *err)
{
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	uint8_t block[65536];
	for (;;) {
		ssize_t r = read(fd, block, sizeof(block));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return hk_fail_errno(err, errno, "reading %s", shown);
		if (r == 0)
			break;
		crypto_hash_sha256_update(&st, block, (unsigned long long)r);
	}
	uint8_t h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_final(&st, h);
	hk_hex(h, sizeof(h), out);
	return 0;
}

static void keyid_of(const uint8_t pk[32], char out[HK_SHA256_HEX_LEN])
{
	uint8_t der[44];
	memcpy(der, spki_prefix, sizeof(spki_prefix));
	memcpy(der + sizeof(spki_prefix), pk, 32);
	hk_sha256_hex(der, sizeof(der), out);
}

static void pem(const char *label, const uint8_t *prefix, size_t np, const uint8_t *key,
		struct hk_buf *out)
{
	uint8_t der[48];
	memcpy(der, prefix, np);
	memcpy(der + np, key, 32);
	hk_buf_printf(out, "-----BEGIN %s-----\n", label);
	hk_base64_encode(der, np + 32, out);   /* 64 characters at most: one line */
	hk_buf_printf(out, "\n-----END %s-----\n", label);
	sodium_memzero(der, sizeof(der));
}

static int write_new(const char *path, mode_t mode, const struct hk_buf *b, struct hk_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return hk_fail_errno(err, errno, "creating %s", path);
	/* The mode asked for, whatever the umask: the private key must be 0600 exactly. */
	if (fchmod(fd, mode) < 0 || write(fd, b->data, b->len) != (ssize_t)b->len ||
	    fsync(fd) < 0) {
		int e = errno ? errno : EIO;
		close(fd);
		unlink(path);
		return hk_fail_errno(err, e, "writing %s", path);
	}
	if (close(fd) < 0) {
		int e = errno;
		unlink(path);
		return hk_fail_errno(err, e, "writing %s", path);
	}
	return 0;
}

int hk_key_generate(const char *prefix, char keyid[HK_SHA256_HEX_LEN], struct hk_error *err)
{
	hk_autofree char *kpath = hk_xasprintf("%s.key", prefix);
	hk_autofree char *ppath = hk_xasprintf("%s.pub", prefix);
	struct stat st;
	if (lstat(kpath, &st) == 0 || lstat(ppath, &st) == 0)
		return hk_fail(err, EEXIST, "%s exists: a key is never replaced (choose another "
					    "prefix, or remove the old key yourself)",
			       lstat(kpath, &st) == 0 ? kpath : ppath);
	struct hk_sign_key k;
	crypto_sign_keypair(k.pk, k.sk);
	struct hk_buf sec = HK_BUF_INIT, pub = HK_BUF_INIT;
	pem("PRIVATE KEY", pkcs8_prefix, sizeof(pkcs8_prefix), k.sk, &sec);   /* the seed */
	pem("PUBLIC KEY", spki_prefix, sizeof(spki_prefix), k.pk, &pub);
	int rc = write_new(kpath, 0600, &sec, err);
	if (rc == 0) {
		rc = write_new(ppath, 0644, &pub, err);
		if (rc < 0)
			unlink(kpath);
	}
	if (rc == 0)
		keyid_of(k.pk, keyid);
	sodium_memzero(sec.data, sec.len);
	hk_buf_free(&sec);
	hk_buf_free(&pub);
	hk_sign_key_wipe(&k);
	return rc;
}

/* The DER bytes of a one-block PEM file with this label. */
static int read_pem(int fd, const char *path, const char *label, uint8_t **der, size_t *n,
		    struct hk_error *err)
{
	struct hk_buf b = HK_BUF_INIT;
	int r = hk_buf_read_fd(&b, fd);
	if (r < 0) {
		hk_buf_free(&b);
		return hk_fail_errno(err, -r, "reading %s", path);
	}
	hk_autofree char *begin = hk_xasprintf("-----BEGIN %s-----", label);
	hk_autofree char *end = hk_xasprintf("-----END %s-----", label);
	const char *text = hk_buf_str(&b);
	const char *p = strstr(text, begin);
	const char *q = p ? strstr(p, end) : NULL;
	int rc = 0;
	if (!p || !q) {
		rc = hk_fail(err, EINVAL, "%s: not a PEM file with a '%s' block", path, begin);
	} else {
		struct hk_buf body = HK_BUF_INIT;
		for (const char *c = p + strlen(begin); c < q; c++)
			if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t')
				hk_buf_putc(&body, *c);
		*der = hk_base64_decode(hk_buf_str(&body), body.len, n, err);
		if (!*der)
			rc = hk_wrap(err, "%s", path);
		sodium_memzero(body.data, body.len);
		hk_buf_free(&body);
	}
	sodium_memzero(b.data, b.len);
	hk_buf_free(&b);
	return rc;
}

int hk_key_load_secret(const char *path, struct hk_sign_key *out, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "private key %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return hk_fail_errno(err, errno, "private key %s", path);
	if (!S_ISREG(st.st_mode))
		return hk_fail(err, EPERM, "private key %s: not a regular file", path);
	if (st.st_mode & 077)
		return hk_fail(err, EPERM, "private key %s: mode %04o lets others read or write it; "
					   "a key that may have leaked is not used (chmod 600 it, "
					   "or better, make a new one)",
			       path, (unsigned)(st.st_mode & 07777));
	uint8_t *der = NULL;
	size_t n = 0;
	int rc = read_pem(fd, path, "PRIVATE KEY", &der, &n, err);
	if (rc < 0)
		return rc;
	if (n != sizeof(pkcs8_prefix) + 32 || memcmp(der, pkcs8_prefix, sizeof(pkcs8_prefix)) != 0)
		rc = hk_fail(err, EINVAL, "private key %s: not an unencrypted Ed25519 PKCS#8 key "
					  "(RFC 8410)", path);
	else
		crypto_sign_seed_keypair(out->pk, out->sk, der + sizeof(pkcs8_prefix));
	sodium_memzero(der, n);
	free(der);
	if (rc == 0)
		keyid_of(out->pk, out->keyid);
	return rc;
}

int hk_key_load_public(const char *path, struct hk_verify_key *out, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "public key %s", path);
	uint8_t *der = NULL;
	size_t n = 0;
	int rc = read_pem(fd, path, "PUBLIC KEY", &der, &n, err);
	if (rc < 0)
		return rc;
	if (n != sizeof(spki_prefix) + 32 || memcmp(der, spki_prefix, sizeof(spki_prefix)) != 0)
		rc = hk_fail(err, EINVAL, "public key %s: not an Ed25519 SubjectPublicKeyInfo "
					  "(RFC 8410)", path);
	else
		memcpy(out->pk, der + sizeof(spki_prefix), 32);
	free(der);
	if (rc == 0)
		keyid_of(out->pk, out->keyid);
	return rc;
}

void hk_sign_key_wipe(struct hk_sign_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

void hk_sign(const struct hk_sign_key *k, const void *msg, size_t n,
	     uint8_t sig[HK_ED25519_SIG_LEN])
{
	crypto_sign_detached(sig, NULL, msg, n, k->sk);
}

bool hk_verify(const struct hk_verify_key *k, const void *msg, size_t n, const uint8_t *sig,
	       size_t sig_len)
{
	if (sig_len != crypto_sign_BYTES)
		return false;
	return crypto_sign_verify_detached(sig, msg, n, k->pk) == 0;
}
