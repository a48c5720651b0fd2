/* DSSE (core/attest/dsse.h): the pre-authentication encoding against the specification's own test
 * vector (tests/data/dsse/README.md), base64 against RFC 4648's vectors, and the envelope
 * reader's refusals. */
#include "harness.h"

#include <errno.h>

#include "core/attest/dsse.h"
#include "core/basic/util.h"

/* DSSE protocol.md, "Test Vectors". */
#define VEC_TYPE "http://example.com/HelloWorld"
#define VEC_BODY "hello world"
#define VEC_PAE "DSSEv1 29 http://example.com/HelloWorld 11 hello world"
#define VEC_ENVELOPE                                                                       \
	"{\"payload\": \"aGVsbG8gd29ybGQ=\",\n"                                            \
	" \"payloadType\": \"http://example.com/HelloWorld\",\n"                           \
	" \"signatures\": [{\"sig\": \"A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajab" \
	"ZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA==\"}]}\n"

TEST(pae_is_the_spec_test_vector)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_dsse_pae(VEC_TYPE, strlen(VEC_TYPE), VEC_BODY, strlen(VEC_BODY), &b);
	CHECK_EQ_INT(strlen(VEC_PAE), b.len);
	CHECK_STR_EQ(VEC_PAE, hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(pae_counts_bytes_not_characters_and_keeps_nul)
{
	/* "é" is two bytes; a NUL in the body is part of it. */
	struct hk_buf b = HK_BUF_INIT;
	hk_dsse_pae("t\xc3\xa9", 3, "a\0b", 3, &b);
	CHECK_EQ_INT(18, b.len);
	CHECK(memcmp(b.data, "DSSEv1 3 t\xc3\xa9 3 a\0b", 18) == 0);
	hk_buf_reset(&b);
	hk_dsse_pae("", 0, "", 0, &b);
	CHECK_STR_EQ("DSSEv1 0  0 ", hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(base64_rfc4648_vectors_both_ways)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const enc[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					   "Zm9vYmFy" };
	for (size_t i = 0; i < HK_ARRAY_LEN(plain); i++) {
		struct hk_buf b = HK_BUF_INIT;
		hk_base64_encode(plain[i], strlen(plain[i]), &b);
		CHECK_STR_EQ(enc[i], hk_buf_str(&b));
		struct hk_error err;
		size_t n = 99;
		uint8_t *d = hk_base64_decode(enc[i], strlen(enc[i]), &n, &err);
		REQUIRE(d != NULL);
		CHECK_EQ_INT(strlen(plain[i]), n);
		CHECK(memcmp(d, plain[i], n) == 0);
		free(d);
		hk_buf_free(&b);
	}
}

TEST(base64_accepts_url_safe_and_unpadded)
{
	struct hk_error err;
	size_t n;
	uint8_t *d = hk_base64_decode("-_8", 3, &n, &err);  /* 0xfb 0xff */
	REQUIRE(d != NULL);
	CHECK_EQ_INT(2, n);
	CHECK_EQ_INT(0xfb, d[0]);
	CHECK_EQ_INT(0xff, d[1]);
	free(d);
	d = hk_base64_decode("+/8=", 4, &n, &err);
	REQUIRE(d != NULL);
	CHECK_EQ_INT(0xfb, d[0]);
	free(d);
}

TEST(base64_refuses_what_is_not_base64)
{
	static const char *const bad[] = { "Zg=", "Z", "Zm9v!", "Zh==", "Zm9vY===", "Zg==Zg==",
					   "Z-+8" };
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_error err = { 0 };
		size_t n;
		uint8_t *d = hk_base64_decode(bad[i], strlen(bad[i]), &n, &err);
		if (d)
			HK_FAIL_AT("'%s' decoded", bad[i]);
		free(d);
		CHECK_EQ_INT(EINVAL, err.code);
	}
}

TEST(envelope_of_the_spec_parses)
{
	struct hk_dsse_envelope env;
	struct hk_error err;
	REQUIRE(hk_dsse_parse(VEC_ENVELOPE, strlen(VEC_ENVELOPE), &env, &err) == 0);
	CHECK_STR_EQ(VEC_TYPE, env.payload_type);
	CHECK_EQ_INT(11, env.payload_len);
	CHECK_STR_EQ(VEC_BODY, (const char *)env.payload);
	CHECK_EQ_INT(1, env.n_sigs);
	CHECK(env.sigs[0].keyid == NULL);
	CHECK_EQ_INT(64, env.sigs[0].sig_len);   /* raw r || s of P-256 */
	CHECK_EQ_INT(0x03, env.sigs[0].sig[0]);
	hk_dsse_free(&env);
}

TEST(envelope_round_trip)
{
	struct hk_dsse_envelope env = { 0 };
	env.payload_type = hk_xstrdup("application/vnd.in-toto+json");
	env.payload = (uint8_t *)hk_xstrdup("{\"a\":1}");
	env.payload_len = 7;
	static const uint8_t sig[5] = { 0, 1, 2, 0xfe, 0xff };
	hk_dsse_add_sig(&env, "k1", sig, sizeof(sig));
	struct hk_buf b = HK_BUF_INIT;
	hk_dsse_encode(&env, &b);
	CHECK_STR_EQ("{\"payload\":\"eyJhIjoxfQ==\",\"payloadType\":\"application/vnd.in-toto+json\","
		     "\"signatures\":[{\"keyid\":\"k1\",\"sig\":\"AAEC/v8=\"}]}\n", hk_buf_str(&b));
	struct hk_dsse_envelope back;
	struct hk_error err;
	REQUIRE(hk_dsse_parse(b.data, b.len, &back, &err) == 0);
	CHECK_EQ_INT(7, back.payload_len);
	CHECK_STR_EQ("k1", back.sigs[0].keyid);
	CHECK(memcmp(back.sigs[0].sig, sig, sizeof(sig)) == 0);
	hk_dsse_free(&back);
	hk_dsse_free(&env);
	hk_buf_free(&b);
}

TEST(envelope_refusals_name_the_member)
{
	static const struct { const char *text, *needle; } cases[] = {
		{ "{\"payload\":\"eyJ9\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA",
		  "not JSON" },                                      /* truncated */
		{ "[]", "not a JSON object" },
		{ "{\"payloadType\":\"t\",\"signatures\":[]}", "\"payload\" is missing" },
		{ "{\"payload\":\"e\",\"payloadType\":\"t\",\"signatures\":[]}", "\"payload\"" },
		{ "{\"payload\":\"\",\"signatures\":[]}", "\"payloadType\" is missing" },
		{ "{\"payload\":\"\",\"payloadType\":\"\",\"signatures\":[]}", "\"payloadType\"" },
		{ "{\"payload\":\"\",\"payloadType\":\"t\"}", "\"signatures\" is missing" },
		{ "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[1]}", "signatures[0]" },
		{ "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"keyid\":\"k\"}]}",
		  "\"sig\" is missing" },
		{ "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\",\"keyid\":3}]}",
		  "\"keyid\" is not a string" },
		{ "{\"payload\":\"\",\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[]}",
		  "duplicate" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_dsse_envelope env;
		struct hk_error err = { 0 };
		int rc = hk_dsse_parse(cases[i].text, strlen(cases[i].text), &env, &err);
		CHECK_EQ_INT(-EINVAL, rc);
		CHECK_CONTAINS(err.msg, cases[i].needle);
	}
	/* The positive control: the smallest valid envelope, unsigned. */
	const char *ok = "{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[]}";
	struct hk_dsse_envelope env;
	struct hk_error err;
	CHECK_EQ_INT(0, hk_dsse_parse(ok, strlen(ok), &env, &err));
	CHECK_EQ_INT(0, env.n_sigs);
	hk_dsse_free(&env);
}
