/* harkaq attest: keys for signing a build's attestations, and their verification
 * (docs/attestations.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/attest/attest.h"
#include "cli/commands.h"
#include "engine/common/sign.h"
#include "core/attest/dsse.h"
#include "core/evidence/evobj.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/attest/intoto.h"
#include "core/store/store.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"

/* What `harkaq attest verify` found wrong, each its own status (also in the README). */
enum {
	ATTEST_EXIT_BAD_SIGNATURE = 10,   /* a signature by the key does not verify: altered */
	ATTEST_EXIT_WRONG_KEY = 11,       /* no signature in the envelope is by the given key */
	ATTEST_EXIT_PAYLOAD_TYPE = 12,    /* the payload is not an in-toto Statement */
	ATTEST_EXIT_SUBJECT = 13,         /* a subject's digest does not match the artifact */
	ATTEST_EXIT_POLICY = 14,          /* the statement's claims fail the policy asked for */
};

static void attest_usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq attest keygen PREFIX\n"
		"       harkaq attest verify ENVELOPE... --pub KEY.pub [--store DIR [--artifact Q] |\n"
		"                            --dir DIR] [--policy hermetic|complete-build-depends]\n"
		"       harkaq attest pae ENVELOPE\n"
		"\n"
		"A build signed with 'harkaq build --key PREFIX.key' writes two DSSE envelopes into\n"
		"STORE/.attestations/<artifact>/: provenance.dsse.json (in-toto Statement, SLSA\n"
		"provenance v1) and verdict.dsse.json (harkaq's verdict predicate).\n"
		"\n"
		"  keygen PREFIX   a new Ed25519 key: PREFIX.key (mode 0600, PKCS#8 PEM) and PREFIX.pub\n"
		"                  (SubjectPublicKeyInfo PEM); prints the key id.  Never replaces a file.\n"
		"  verify          checks each envelope: its payload type, a signature by --pub, the\n"
		"                  Statement, every subject's digest against the artifact in the store\n"
		"                  (--store, default $HARKAQ_STORE; the artifact the statement names, or\n"
		"                  --artifact) or in a directory (--dir); then --policy.  Writes nothing.\n"
		"  pae ENVELOPE    the bytes a DSSE signature of ENVELOPE covers, on stdout\n"
		"\n"
		"policies:\n"
		"  hermetic        the verdict statement says every phase Hermetic (none NoEvidence),\n"
		"                  and the base is pinned\n"
		"  complete-build-depends\n"
		"                  a Debian build's verdict (build --dsc) says its Build-Depends were\n"
		"                  complete: every phase ran, exited 0 and is Hermetic, no missing\n"
		"                  Build-Depends, probe or unattributed denial, the base pinned;\n"
		"                  otherwise each phase and package that breaks it is named\n"
		"\n"
		"exit status (verify): 0 verified, 10 a signature by the key does not verify (payload\n"
		"or signature altered), 11 no signature by the key (wrong key, or unsigned), 12 the\n"
		"payload type is not %s, 13 a subject's digest does not match,\n"
		"14 the policy is not satisfied, 64 usage, 65 not an envelope or not a Statement\n"
		"(truncated, malformed), 70 environment error.\n",
		HK_DSSE_INTOTO_TYPE);
}

static bool asks_help(int argc, char **argv)
{
	return argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
}

static int attest_keygen(int argc, char **argv)
{
	if (asks_help(argc, argv)) {
		attest_usage(stdout);
		return HK_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-') {
		attest_usage(stderr);
		return HK_EXIT_USAGE;
	}
	struct hk_error err = { 0 };
	char keyid[HK_SHA256_HEX_LEN];
	if (hk_crypto_init(&err) < 0 || hk_key_generate(argv[1], keyid, &err) < 0)
		return cli_fail("harkaq attest keygen", &err, HK_ERROR_UNSET);
	printf("private key %s.key (mode 0600: keep it to yourself)\n", argv[1]);
	printf("public key  %s.pub\n", argv[1]);
	printf("key id      %s\n", keyid);
	return HK_EXIT_OK;
}

static int attest_pae(int argc, char **argv)
{
	if (asks_help(argc, argv)) {
		attest_usage(stdout);
		return HK_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-') {
		attest_usage(stderr);
		return HK_EXIT_USAGE;
	}
	struct hk_error err = { 0 };
	struct hk_buf text = HK_BUF_INIT, pae = HK_BUF_INIT;
	struct hk_dsse_envelope env;
	if (hk_file_read(argv[1], &text, &err) < 0) {
		hk_buf_free(&text);
		return cli_fail("harkaq attest pae", &err, HK_ERROR_INPUT);
	}
	if (hk_dsse_parse(hk_buf_str(&text), text.len, &env, &err) < 0) {
		hk_buf_free(&text);
		hk_wrap(&err, "%s", argv[1]);
		return cli_fail("harkaq attest pae", &err, HK_ERROR_INPUT);
	}
	hk_dsse_pae(env.payload_type, strlen(env.payload_type), env.payload, env.payload_len, &pae);
	int code = HK_EXIT_OK;
	if (fwrite(pae.data, 1, pae.len, stdout) != pae.len || fflush(stdout) != 0) {
		hk_fail_errno(&err, errno ? errno : EIO, "writing to stdout");
		code = cli_fail("harkaq attest pae", &err, HK_ERROR_ENVIRONMENT);
	}
	hk_dsse_free(&env);
	hk_buf_free(&text);
	hk_buf_free(&pae);
	return code;
}

/* The store artifact a Statement names: the verdict's predicate.artifact.dirname, or the
 * provenance's byproduct "artifact" (uri harkaq:artifact:<dirname>). */
static const char *statement_artifact(const struct hk_jval *st)
{
	const struct hk_jval *pred = hk_jobj_get(st, "predicate");
	const char *d = hk_jobj_str(hk_jobj_get(pred, "artifact"), "dirname");
	if (d)
		return d;
	const struct hk_jval *bp = hk_jobj_get(hk_jobj_get(pred, "runDetails"), "byproducts");
	for (size_t i = 0; bp && bp->type == HK_JARR && i < bp->len; i++) {
		const char *name = hk_jobj_str(&bp->items[i], "name");
		const char *uri = hk_jobj_str(&bp->items[i], "uri");
		static const char pfx[] = "harkaq:artifact:";
		if (name && uri && strcmp(name, "artifact") == 0 &&
		    strncmp(uri, pfx, sizeof(pfx) - 1) == 0)
			return uri + sizeof(pfx) - 1;
	}
	return NULL;
}

/* A verdict Statement embeds each phase's evidence object: it must be a valid one, and its
 * canonical bytes must hash to the evidenceId the Statement gives (so a consumer can chain
 * it to STORE/.evidence). */
static int check_embedded_evidence(const struct hk_jval *st, struct hk_error *err)
{
	const struct hk_jval *phases = hk_jobj_get(hk_jobj_get(st, "predicate"), "phases");
	for (size_t i = 0; phases && phases->type == HK_JARR && i < phases->len; i++) {
		const struct hk_jval *p = &phases->items[i];
		const struct hk_jval *ev = hk_jobj_get(p, "evidence");
		const char *name = hk_jobj_str(p, "phase");
		if (!ev || ev->type == HK_JNULL)
			continue;
		struct hk_buf bytes = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &bytes, 0);
		hk_json_value(&j, ev);
		int rc = hk_evobj_check(bytes.data, bytes.len, hk_jobj_str(p, "evidenceId"), NULL, err);
		hk_buf_free(&bytes);
		if (rc < 0)
			return hk_wrap(err, "phase %s: the embedded evidence object", name ? name : "?");
	}
	return 0;
}

/* A subject name must stay inside the tree it is checked against. */
static bool subject_name_ok(const char *n)
{
	if (!*n || n[0] == '/')
		return false;
	for (const char *p = n; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (!hk_tree_valid_component(p, len))
			return false;
		p += len + (slash ? 1 : 0);
		if (slash && !*p)
			return false;
	}
	return true;
}

/* Every subject's digests (sha256, blake3: each present one is checked, at least one must
 * be) against the file of that name beneath `root`. */
static int check_subjects(const struct hk_jval *st, const char *root, size_t *n_checked,
			  struct hk_error *err)
{
	const struct hk_jval *subj = hk_jobj_get(st, "subject");
	*n_checked = 0;
	for (size_t i = 0; i < subj->len; i++) {
		const struct hk_jval *s = &subj->items[i];
		const char *name = hk_jobj_str(s, "name");
		const struct hk_jval *d = hk_jobj_get(s, "digest");
		if (!subject_name_ok(name))
			return hk_fail_as(err, HK_ERROR_INPUT, EINVAL, "subject[%zu] '%s' is not a "
								       "relative path inside the "
								       "artifact", i, name);
		hk_autofree char *path = hk_xasprintf("%s/%s", root, name);
		const char *want_sha = hk_jobj_str(d, "sha256");
		const char *want_b3 = hk_jobj_str(d, "blake3");
		if (!want_sha && !want_b3)
			return hk_fail_as(err, HK_ERROR_INPUT, EINVAL, "subject %s has neither a "
								       "sha256 nor a blake3 digest: "
								       "nothing harkaq can check", name);
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
		(*n_checked)++;
	}
	return 0;
}

struct verify_opts {
	struct hk_verify_key key;
	const char *store_dir;
	const char *artifact;
	const char *dir;
	const char *policy;
	struct hk_store *store;
};

static int verify_one(struct verify_opts *o, const char *path, bool *is_verdict)
{
	struct hk_error err = { 0 };
	struct hk_buf text = HK_BUF_INIT, pae = HK_BUF_INIT, why = HK_BUF_INIT;
	struct hk_dsse_envelope env = { 0 };
	struct hk_jval *st = NULL;
	char *root = NULL;
	int code = HK_EXIT_OK;
	if (hk_file_read(path, &text, &err) < 0) {
		code = cli_fail("harkaq attest verify", &err, HK_ERROR_UNSET);
		goto free_envelope;
	}
	if (hk_dsse_parse(hk_buf_str(&text), text.len, &env, &err) < 0) {
		fprintf(stderr, "harkaq attest verify: %s: %s (truncated or not a DSSE envelope)\n",
			path, err.msg);
		code = cli_exit_as(&err, HK_ERROR_INPUT);
		goto free_envelope;
	}
	if (strcmp(env.payload_type, HK_DSSE_INTOTO_TYPE) != 0) {
		fprintf(stderr, "harkaq attest verify: %s: payloadType is '%s', not %s: not an "
				"in-toto Statement, nothing else is checked\n",
			path, env.payload_type, HK_DSSE_INTOTO_TYPE);
		code = ATTEST_EXIT_PAYLOAD_TYPE;
		goto free_envelope;
	}
	hk_dsse_pae(env.payload_type, strlen(env.payload_type), env.payload, env.payload_len, &pae);
	bool verified = false, claimed = false;
	for (size_t i = 0; i < env.n_sigs && !verified; i++) {
		const struct hk_dsse_sig *s = &env.sigs[i];
		/* A signature naming another key is not this key's to fail. */
		if (s->keyid && strcmp(s->keyid, o->key.keyid) != 0)
			continue;
		claimed = true;
		verified = hk_verify(&o->key, pae.data, pae.len, s->sig, s->sig_len);
	}
	if (!verified && claimed) {
		fprintf(stderr, "harkaq attest verify: %s: the signature by key %.16s… does not "
				"verify: the payload or the signature was altered\n",
			path, o->key.keyid);
		code = ATTEST_EXIT_BAD_SIGNATURE;
		goto free_envelope;
	}
	if (!verified) {
		fprintf(stderr, "harkaq attest verify: %s: no signature by key %s (%zu signature(s), "
				"by other keys): wrong key, or the envelope is unsigned\n",
			path, o->key.keyid, env.n_sigs);
		code = ATTEST_EXIT_WRONG_KEY;
		goto free_envelope;
	}
	if (hk_intoto_parse(env.payload, env.payload_len, &st, &err) < 0) {
		hk_wrap(&err, "%s", path);
		code = cli_fail("harkaq attest verify", &err, HK_ERROR_INPUT);
		goto free_envelope;
	}
	const char *ptype = hk_jobj_str(st, "predicateType");
	*is_verdict = strcmp(ptype, HK_INTOTO_VERDICT_TYPE) == 0;
	if (*is_verdict && check_embedded_evidence(st, &err) < 0) {
		hk_wrap(&err, "%s", path);
		code = cli_fail("harkaq attest verify", &err, HK_ERROR_INPUT);
		goto free_envelope;
	}

	/* Subjects: against a directory, or the store's artifact. */
	if (o->dir) {
		root = hk_xstrdup(o->dir);
	} else {
		const char *q = o->artifact ? o->artifact : statement_artifact(st);
		const struct hk_artifact *a = NULL;
		if (!q) {
			fprintf(stderr, "harkaq attest verify: %s: the statement names no store "
					"artifact: give --artifact or --dir\n", path);
			code = HK_EXIT_USAGE;
			goto free_envelope;
		}
		if (hk_store_find(o->store, q, &a, &err) < 0) {
			fprintf(stderr, "harkaq attest verify: %s: %s\n", path, err.msg);
			code = ATTEST_EXIT_SUBJECT;
			goto free_envelope;
		}
		root = hk_xstrdup(a->path);
	}
	size_t n_checked = 0;
	if (check_subjects(st, root, &n_checked, &err) < 0) {
		fprintf(stderr, "harkaq attest verify: %s: %s\n", path, err.msg);
		/* A statement whose subjects are malformed is bad input (check_subjects says so);
		 * any other failure is a subject that does not match the artifact. */
		code = err.cls == HK_ERROR_INPUT ? hk_exit_for_error(&err) : ATTEST_EXIT_SUBJECT;
		goto free_envelope;
	}
	printf("%s: signature by %s verified; %s; %zu subject(s) match %s\n", path, o->key.keyid,
	       ptype, n_checked, root);
	if (o->policy && *is_verdict) {
		size_t bad = strcmp(o->policy, "hermetic") == 0
				     ? hk_policy_hermetic(st, &why)
				     : hk_policy_complete_build_depends(st, &why);
		if (bad > 0) {
			fprintf(stderr, "harkaq attest verify: %s: policy %s not satisfied:\n%s", path,
				o->policy, hk_buf_str(&why));
			code = ATTEST_EXIT_POLICY;
			goto free_envelope;
		}
		printf("%s: policy %s satisfied\n", path, o->policy);
	}
free_envelope:
	free(root);
	hk_jval_free(st);
	hk_dsse_free(&env);
	hk_buf_free(&text);
	hk_buf_free(&pae);
	hk_buf_free(&why);
	return code;
}

enum { OPT_PUB = 1000, OPT_STORE, OPT_ARTIFACT, OPT_DIR, OPT_POLICY, OPT_HELP };

static const struct option verify_options[] = {
	{ "pub", required_argument, NULL, OPT_PUB },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "artifact", required_argument, NULL, OPT_ARTIFACT },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int attest_verify(int argc, char **argv)
{
	struct verify_opts o = { 0 };
	const char *pub = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", verify_options, NULL)) != -1) {
		switch (c) {
		case OPT_PUB: pub = optarg; break;
		case OPT_STORE: o.store_dir = optarg; break;
		case OPT_ARTIFACT: o.artifact = optarg; break;
		case OPT_DIR: o.dir = optarg; break;
		case OPT_POLICY: o.policy = optarg; break;
		case OPT_HELP:
		case 'h': attest_usage(stdout); return HK_EXIT_OK;
		default: attest_usage(stderr); return HK_EXIT_USAGE;
		}
	}
	if (optind >= argc || !pub) {
		fprintf(stderr, "harkaq attest verify: give ENVELOPE... and --pub KEY.pub "
				"(see 'harkaq attest --help')\n");
		return HK_EXIT_USAGE;
	}
	if (o.policy && strcmp(o.policy, "hermetic") != 0 &&
	    strcmp(o.policy, "complete-build-depends") != 0) {
		fprintf(stderr, "harkaq attest verify: unknown policy '%s' (known: hermetic, "
				"complete-build-depends)\n", o.policy);
		return HK_EXIT_USAGE;
	}
	if (o.dir && (o.store_dir || o.artifact)) {
		fprintf(stderr, "harkaq attest verify: --dir checks the subjects against a "
				"directory; it does not go with --store or --artifact\n");
		return HK_EXIT_USAGE;
	}
	const char *env_store = getenv("HARKAQ_STORE");
	if (!o.dir && !o.store_dir && !(env_store && *env_store)) {
		fprintf(stderr, "harkaq attest verify: the subjects are checked against an "
				"artifact: give --store DIR (or set $HARKAQ_STORE) or --dir DIR\n");
		return HK_EXIT_USAGE;
	}
	struct hk_error err = { 0 };
	if (hk_crypto_init(&err) < 0)
		return cli_fail("harkaq attest verify", &err, HK_ERROR_ENVIRONMENT);
	/* --pub names the key: a file that is not one is bad input, one that cannot be read is
	 * a wrong argument. */
	if (hk_key_load_public(pub, &o.key, &err) < 0)
		return cli_fail("harkaq attest verify", &err,
				err.code == EINVAL ? HK_ERROR_INPUT : HK_ERROR_USAGE);
	/* So is a --store that is not one. */
	if (!o.dir && hk_store_open(hk_store_choose_dir(o.store_dir), false, &o.store, &err) < 0)
		return cli_fail("harkaq attest verify", &err, HK_ERROR_USAGE);
	int code = HK_EXIT_OK;
	bool any_verdict = false;
	for (int i = optind; i < argc && code == HK_EXIT_OK; i++) {
		bool is_verdict = false;
		code = verify_one(&o, argv[i], &is_verdict);
		any_verdict = any_verdict || is_verdict;
	}
	if (code == HK_EXIT_OK && o.policy && !any_verdict) {
		fprintf(stderr, "harkaq attest verify: policy %s reads a verdict statement "
				"(verdict.dsse.json) and none was given\n", o.policy);
		code = ATTEST_EXIT_POLICY;
	}
	if (o.store)
		hk_store_close(o.store);
	return code;
}

int cmd_attest(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		attest_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? HK_EXIT_USAGE : HK_EXIT_OK;
	}
	if (strcmp(argv[1], "keygen") == 0)
		return attest_keygen(argc - 1, argv + 1);
	if (strcmp(argv[1], "verify") == 0)
		return attest_verify(argc - 1, argv + 1);
	if (strcmp(argv[1], "pae") == 0)
		return attest_pae(argc - 1, argv + 1);
	fprintf(stderr, "harkaq attest: unknown subcommand '%s' (keygen, verify, pae)\n", argv[1]);
	return HK_EXIT_USAGE;
}
