/* harkaq attest: keys for signing a build's attestations, and their verification
 * (docs/attestations.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/attest/dsse.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/store/store.h"
#include "engine/attest/verify.h"
#include "engine/common/sign.h"

/* What `harkaq attest verify` found wrong, each its own status (also in the README). */
enum {
	ATTEST_EXIT_BAD_SIGNATURE = 10,   /* a signature by the key does not verify: altered */
	ATTEST_EXIT_WRONG_KEY = 11,       /* no signature in the envelope is by the given key */
	ATTEST_EXIT_PAYLOAD_TYPE = 12,    /* the payload is not an in-toto Statement */
	ATTEST_EXIT_SUBJECT = 13,         /* a subject's digest does not match the artifact */
	ATTEST_EXIT_POLICY = 14,          /* the statement's claims fail the policy asked for */
};

/* The policy --policy names, as given (for the messages). */
static const char *policy_name;

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

/* The status of what hk_attest_verify found (README, "Exit statuses": 10-14 are attest
 * verify's own). */
static int verify_status(int outcome, struct hk_error *err)
{
	switch (outcome) {
	case HK_ATTEST_OK: return HK_EXIT_OK;
	case HK_ATTEST_BAD_SIGNATURE: return ATTEST_EXIT_BAD_SIGNATURE;
	case HK_ATTEST_WRONG_KEY: return ATTEST_EXIT_WRONG_KEY;
	case HK_ATTEST_PAYLOAD_TYPE: return ATTEST_EXIT_PAYLOAD_TYPE;
	case HK_ATTEST_SUBJECT: return ATTEST_EXIT_SUBJECT;
	case HK_ATTEST_POLICY: return ATTEST_EXIT_POLICY;
	case HK_ATTEST_NO_ARTIFACT: return HK_EXIT_USAGE;
	default: return hk_exit_for_error(err);
	}
}

static int verify_one(const struct hk_attest_verify_opts *o, const char *path, bool *is_verdict)
{
	struct hk_error err = { 0 };
	struct hk_attest_verified v;
	int r = hk_attest_verify(o, path, &v, &err);
	int code = verify_status(r, &err);
	*is_verdict = v.is_verdict;
	if (code != HK_EXIT_OK)
		fprintf(stderr, "harkaq attest verify: %s\n", err.msg);
	if (r == HK_ATTEST_OK) {
		printf("%s: signature by %s verified; %s; %zu subject(s) match %s\n", path,
		       o->key->keyid, v.predicate_type, v.n_subjects, v.root);
		if (v.policy_checked)
			printf("%s: policy %s satisfied\n", path, policy_name);
	}
	hk_attest_verified_free(&v);
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
	struct hk_attest_verify_opts o = { 0 };
	struct hk_verify_key key;
	const char *pub = NULL, *store_dir = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", verify_options, NULL)) != -1) {
		switch (c) {
		case OPT_PUB: pub = optarg; break;
		case OPT_STORE: store_dir = optarg; break;
		case OPT_ARTIFACT: o.artifact = optarg; break;
		case OPT_DIR: o.dir = optarg; break;
		case OPT_POLICY: policy_name = optarg; break;
		case OPT_HELP:
		case 'h': attest_usage(stdout); return HK_EXIT_OK;
		default: attest_usage(stderr); return HK_EXIT_USAGE;
		}
	}
	const char *env_store = getenv("HARKAQ_STORE");
	const char *wrong = NULL;
	if (optind >= argc || !pub)
		wrong = "give ENVELOPE... and --pub KEY.pub (see 'harkaq attest --help')";
	else if (o.dir && (store_dir || o.artifact))
		wrong = "--dir checks the subjects against a directory; it does not go with "
			"--store or --artifact";
	else if (!o.dir && !store_dir && !(env_store && *env_store))
		wrong = "the subjects are checked against an artifact: give --store DIR (or set "
			"$HARKAQ_STORE) or --dir DIR";
	if (wrong) {
		fprintf(stderr, "harkaq attest verify: %s\n", wrong);
		return HK_EXIT_USAGE;
	}
	if (policy_name && !hk_attest_policy_parse(policy_name, &o.policy)) {
		fprintf(stderr, "harkaq attest verify: unknown policy '%s' (known: hermetic, "
				"complete-build-depends)\n", policy_name);
		return HK_EXIT_USAGE;
	}
	struct hk_error err = { 0 };
	if (hk_crypto_init(&err) < 0)
		return cli_fail("harkaq attest verify", &err, HK_ERROR_ENVIRONMENT);
	/* --pub names the key: a file that is not one is bad input, one that cannot be read is
	 * a wrong argument. */
	if (hk_key_load_public(pub, &key, &err) < 0)
		return cli_fail("harkaq attest verify", &err,
				err.code == EINVAL ? HK_ERROR_INPUT : HK_ERROR_USAGE);
	o.key = &key;
	/* So is a --store that is not one. */
	if (!o.dir && hk_store_open(hk_store_choose_dir(store_dir), false, &o.store, &err) < 0)
		return cli_fail("harkaq attest verify", &err, HK_ERROR_USAGE);
	int code = HK_EXIT_OK;
	bool any_verdict = false;
	for (int i = optind; i < argc && code == HK_EXIT_OK; i++) {
		bool is_verdict = false;
		code = verify_one(&o, argv[i], &is_verdict);
		any_verdict = any_verdict || is_verdict;
	}
	if (code == HK_EXIT_OK && policy_name && !any_verdict) {
		fprintf(stderr, "harkaq attest verify: policy %s reads a verdict statement "
				"(verdict.dsse.json) and none was given\n", policy_name);
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
