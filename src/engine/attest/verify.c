/* One DSSE envelope verified (engine/attest/verify.h). */
#include "engine/attest/verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/attest/dsse.h"
#include "core/attest/intoto.h"
#include "core/attest/verify_rules.h"
#include "core/basic/buf.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"
#include "core/formats/tree_scan.h"

bool hk_attest_policy_parse(const char *name, enum hk_attest_policy *out)
{
	if (strcmp(name, "hermetic") == 0)
		*out = HK_ATTEST_POLICY_HERMETIC;
	else if (strcmp(name, "complete-build-depends") == 0)
		*out = HK_ATTEST_POLICY_COMPLETE_BUILD_DEPENDS;
	else
		return false;
	return true;
}

void hk_attest_verified_free(struct hk_attest_verified *v)
{
	free(v->predicate_type);
	free(v->root);
	memset(v, 0, sizeof(*v));
}

/* Whether one of the envelope's signatures by the key verifies: OK, BAD_SIGNATURE (one by the
 * key does not) or WRONG_KEY (none is by the key). */
static enum hk_attest_outcome check_signature(const struct hk_verify_key *key,
					      const struct hk_dsse_envelope *env)
{
	struct hk_buf pae = HK_BUF_INIT;
	hk_dsse_pae(env->payload_type, strlen(env->payload_type), env->payload, env->payload_len,
		    &pae);
	bool verified = false, claimed = false;
	for (size_t i = 0; i < env->n_sigs && !verified; i++) {
		const struct hk_dsse_sig *s = &env->sigs[i];
		/* A signature naming another key is not this key's to fail. */
		if (s->keyid && strcmp(s->keyid, key->keyid) != 0)
			continue;
		claimed = true;
		verified = hk_verify(key, pae.data, pae.len, s->sig, s->sig_len);
	}
	hk_buf_free(&pae);
	return verified ? HK_ATTEST_OK : claimed ? HK_ATTEST_BAD_SIGNATURE : HK_ATTEST_WRONG_KEY;
}

/* One subject's digests (sha256, blake3: each present one is checked, at least one must be)
 * against the file `path`.  0, or -errno: EBADMSG a digest that differs. */
static int check_subject_digests(const char *name, const char *path, const struct hk_jval *d,
				 struct hk_error *err)
{
	const char *want_sha = hk_jobj_str(d, "sha256");
	const char *want_b3 = hk_jobj_str(d, "blake3");
	if (!want_sha && !want_b3)
		return hk_fail_as(err, HK_ERROR_INPUT, EINVAL, "subject %s has neither a sha256 nor "
							       "a blake3 digest: nothing harkaq can "
							       "check", name);
	if (want_sha) {
		char got[HK_SHA256_HEX_LEN];
		if (hk_sha256_file(path, got, err) < 0)
			return hk_wrap(err, "subject %s", name);
		if (strcasecmp(got, want_sha) != 0)
			return hk_fail(err, EBADMSG, "subject %s: sha256 %s on disk, %s in the "
						     "statement", name, got, want_sha);
	}
	if (want_b3) {
		uint8_t b3[HK_BLAKE3_OUT_LEN];
		char got[2 * HK_BLAKE3_OUT_LEN + 1];
		if (hk_tree_hash_file(AT_FDCWD, path, path, b3, err) < 0)
			return hk_wrap(err, "subject %s", name);
		hk_hex(b3, sizeof(b3), got);
		if (strcasecmp(got, want_b3) != 0)
			return hk_fail(err, EBADMSG, "subject %s: blake3 %s on disk, %s in the "
						     "statement", name, got, want_b3);
	}
	return 0;
}

/* Every subject against the file of its name beneath `root`.  A subject named outside the
 * tree, or without a digest, is bad input (-errno, class input); any other failure is a
 * subject that does not match (HK_ATTEST_SUBJECT). */
static int check_subjects(const struct hk_jval *st, const char *root, size_t *n_checked,
			  struct hk_error *err)
{
	const struct hk_jval *subj = hk_jobj_get(st, "subject");
	*n_checked = 0;
	for (size_t i = 0; i < subj->len; i++) {
		const struct hk_jval *s = &subj->items[i];
		const char *name = hk_jobj_str(s, "name");
		if (!hk_attest_subject_name_ok(name))
			return hk_fail_as(err, HK_ERROR_INPUT, EINVAL, "subject[%zu] '%s' is not a "
								       "relative path inside the "
								       "artifact", i, name ? name : "");
		hk_autofree char *path = hk_xasprintf("%s/%s", root, name);
		int r = check_subject_digests(name, path, hk_jobj_get(s, "digest"), err);
		if (r < 0)
			return err->cls == HK_ERROR_INPUT ? r : HK_ATTEST_SUBJECT;
		(*n_checked)++;
	}
	return HK_ATTEST_OK;
}

/* The directory the subjects are checked against: --dir, or the store's artifact that
 * --artifact or the Statement names. */
static int subjects_root(const struct hk_attest_verify_opts *o, const struct hk_jval *st,
			 char **root, struct hk_error *err)
{
	if (o->dir) {
		*root = hk_xstrdup(o->dir);
		return HK_ATTEST_OK;
	}
	const char *q = o->artifact ? o->artifact : hk_attest_statement_artifact(st);
	if (!q) {
		hk_fail_as(err, HK_ERROR_USAGE, EINVAL, "the statement names no store artifact: "
							 "give --artifact or --dir");
		return HK_ATTEST_NO_ARTIFACT;
	}
	const struct hk_artifact *a = NULL;
	if (hk_store_find(o->store, q, &a, err) < 0)
		return HK_ATTEST_SUBJECT;
	*root = hk_xstrdup(a->path);
	return HK_ATTEST_OK;
}

/* The policy over a verdict Statement: HK_ATTEST_POLICY, with why, when it is not met. */
static int check_policy(enum hk_attest_policy policy, const struct hk_jval *st,
			struct hk_error *err)
{
	struct hk_buf why = HK_BUF_INIT;
	size_t bad = policy == HK_ATTEST_POLICY_HERMETIC ? hk_policy_hermetic(st, &why)
							  : hk_policy_complete_build_depends(st, &why);
	int r = HK_ATTEST_OK;
	if (bad > 0) {
		hk_fail(err, EBADMSG, "policy %s not satisfied:\n%s",
			policy == HK_ATTEST_POLICY_HERMETIC ? "hermetic" : "complete-build-depends",
			hk_buf_str(&why));
		r = HK_ATTEST_POLICY;
	}
	hk_buf_free(&why);
	return r;
}

int hk_attest_verify(const struct hk_attest_verify_opts *o, const char *path,
		     struct hk_attest_verified *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_buf text = HK_BUF_INIT;
	struct hk_dsse_envelope env = { 0 };
	struct hk_jval *st = NULL;
	int r = hk_file_read(path, &text, err);
	if (r < 0)
		goto err_free_text;
	r = hk_dsse_parse(hk_buf_str(&text), text.len, &env, err);
	if (r < 0) {
		hk_autofree char *why = hk_xstrdup(err->msg);
		r = hk_fail_as(err, HK_ERROR_INPUT, EBADMSG, "%s (truncated or not a DSSE envelope)",
			       why);
		goto err_free_text;
	}
	if (strcmp(env.payload_type, HK_DSSE_INTOTO_TYPE) != 0) {
		hk_fail(err, EINVAL, "payloadType is '%s', not %s: not an in-toto Statement, "
				     "nothing else is checked", env.payload_type, HK_DSSE_INTOTO_TYPE);
		r = HK_ATTEST_PAYLOAD_TYPE;
		goto err_free_envelope;
	}
	r = check_signature(o->key, &env);
	if (r == HK_ATTEST_BAD_SIGNATURE)
		hk_fail(err, EBADMSG, "the signature by key %.16s… does not verify: the payload or "
				      "the signature was altered", o->key->keyid);
	else if (r == HK_ATTEST_WRONG_KEY)
		hk_fail(err, ENOKEY, "no signature by key %s (%zu signature(s), by other keys): "
				     "wrong key, or the envelope is unsigned", o->key->keyid, env.n_sigs);
	if (r != HK_ATTEST_OK)
		goto err_free_envelope;
	r = hk_intoto_parse(env.payload, env.payload_len, &st, err);
	if (r < 0) {
		hk_error_set_class(err, HK_ERROR_INPUT);
		goto err_free_envelope;
	}
	const char *ptype = hk_jobj_str(st, "predicateType");
	out->predicate_type = hk_xstrdup(ptype);
	out->is_verdict = strcmp(ptype, HK_INTOTO_VERDICT_TYPE) == 0;
	if (out->is_verdict && (r = hk_attest_check_embedded_evidence(st, err)) < 0)
		goto err_free_statement;
	r = subjects_root(o, st, &out->root, err);
	if (r == HK_ATTEST_OK)
		r = check_subjects(st, out->root, &out->n_subjects, err);
	if (r == HK_ATTEST_OK && o->policy != HK_ATTEST_POLICY_NONE && out->is_verdict) {
		out->policy_checked = true;
		r = check_policy(o->policy, st, err);
	}
err_free_statement:
	hk_jval_free(st);
err_free_envelope:
	hk_dsse_free(&env);
err_free_text:
	hk_buf_free(&text);
	if (r < 0 || r > HK_ATTEST_OK)
		hk_wrap(err, "%s", path);
	return r;
}
