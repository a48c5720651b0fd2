/* in-toto Statements (core/attest/intoto.h): the SLSA provenance and verdict Statements a build
 * writes, their reader, purls, and the "hermetic" policy — each refusal with its positive
 * control. */
#include "harness.h"

#include <errno.h>

#include "core/attest/intoto.h"
#include "core/formats/json.h"
#include "core/basic/util.h"

#define EV_HERMETIC "{\"kind\":\"harkaq.verdict.v1\",\"state\":\"Hermetic\",\"reasons\":[]}"
#define EV_NOEVIDENCE                                                                      \
	"{\"kind\":\"harkaq.verdict.v1\",\"state\":\"NoEvidence\",\"reasons\":[{\"code\":"  \
	"\"canary_not_seen\",\"message\":\"m\"}]}"

static struct hk_resource subj[2];
static struct hk_resource dep;
static struct hk_phase_evidence ph[2];

static void input(struct hk_attest_input *in, bool pinned, const char *ev2)
{
	memset(in, 0, sizeof(*in));
	memset(subj, 0, sizeof(subj));
	subj[0].name = "usr/bin/hello";
	memset(subj[0].sha256, 'a', 64);
	memset(subj[0].blake3, 'b', 64);
	subj[1].name = "usr/share/doc/hello/README";
	memset(subj[1].sha256, 'c', 64);
	in->subjects = subj;
	in->n_subjects = 2;
	in->recipe_name = "hello";
	in->recipe_version = "1.0";
	in->recipe_hash = "b3:0123";
	in->recipe.name = "recipe.toml";
	in->recipe.content = "name = \"hello\"\n";
	in->recipe.content_len = 15;
	in->policy_id = "b3:4567";
	in->base.id = pinned ? "b3:89ab" : "host";
	in->base.name = pinned ? "debian-12" : "host";
	in->base.pinned = pinned;
	in->abi = in->kernel_abi = 7;
	in->profile = "autotools";
	in->caged = true;
	memset(&dep, 0, sizeof(dep));
	dep.name = "make";
	dep.uri = "pkg:deb/debian/make@4.3-4.1?arch=amd64";
	memset(dep.sha256, 'd', 64);
	in->deps = &dep;
	in->n_deps = 1;
	in->source.name = "source";
	in->source.uri = "file:src";
	memset(in->source.tree, 'e', 64);
	in->harkaq_version = "0.1.0";
	in->kernel_release = "6.1.0";
	in->invocation_id = "f00d";
	in->started_on = 1700000000;
	in->finished_on = 1700000061;
	in->artifact_id = "b3:cdef";
	in->artifact_dirname = "cdef-hello";
	memset(ph, 0, sizeof(ph));
	ph[0].phase = "compile";
	ph[0].evidence_id = "b3:1111";
	ph[0].evidence = EV_HERMETIC;
	ph[0].evidence_len = strlen(EV_HERMETIC);
	ph[1].phase = "install";
	ph[1].evidence_id = "b3:2222";
	ph[1].evidence = ev2;
	ph[1].evidence_len = ev2 ? strlen(ev2) : 0;
	in->phases = ph;
	in->n_phases = 2;
}

static struct hk_jval *statement(const struct hk_buf *b)
{
	struct hk_jval *st = NULL;
	struct hk_error err;
	if (hk_intoto_parse(b->data, b->len, &st, &err) < 0)
		HK_FAIL_AT("statement does not parse: %s", err.msg);
	return st;
}

TEST(provenance_is_a_slsa_v1_statement)
{
	struct hk_attest_input in;
	input(&in, true, EV_HERMETIC);
	struct hk_buf b = HK_BUF_INIT;
	hk_intoto_provenance(&in, &b);
	struct hk_jval *st = statement(&b);
	REQUIRE(st);
	CHECK_STR_EQ(HK_INTOTO_STATEMENT_TYPE, hk_jobj_str(st, "_type"));
	CHECK_STR_EQ("https://slsa.dev/provenance/v1", hk_jobj_str(st, "predicateType"));
	const struct hk_jval *s = hk_jobj_get(st, "subject");
	CHECK_EQ_INT(2, s->len);
	CHECK_STR_EQ("usr/bin/hello", hk_jobj_str(&s->items[0], "name"));
	CHECK_EQ_INT(64, strlen(hk_jobj_str(hk_jobj_get(&s->items[0], "digest"), "sha256")));
	CHECK_EQ_INT(64, strlen(hk_jobj_str(hk_jobj_get(&s->items[0], "digest"), "blake3")));
	CHECK(hk_jobj_get(hk_jobj_get(&s->items[1], "digest"), "blake3") == NULL);
	const struct hk_jval *p = hk_jobj_get(st, "predicate");
	const struct hk_jval *bd = hk_jobj_get(p, "buildDefinition");
	CHECK_STR_EQ(HK_INTOTO_BUILD_TYPE, hk_jobj_str(bd, "buildType"));
	const struct hk_jval *rec = hk_jobj_get(hk_jobj_get(bd, "externalParameters"), "recipe");
	CHECK_STR_EQ("b3:0123", hk_jobj_str(rec, "hash"));
	CHECK_STR_EQ("bmFtZSA9ICJoZWxsbyIK", hk_jobj_str(hk_jobj_get(rec, "file"), "content"));
	const struct hk_jval *ip = hk_jobj_get(bd, "internalParameters");
	CHECK_STR_EQ("b3:4567", hk_jobj_str(ip, "policyId"));
	CHECK_STR_EQ("b3:89ab", hk_jobj_str(hk_jobj_get(ip, "base"), "id"));
	CHECK_EQ_INT(7, hk_jobj_int(ip, "landlockAbi", -1));
	const struct hk_jval *rd = hk_jobj_get(bd, "resolvedDependencies");
	REQUIRE(rd && rd->len == 2);                  /* the dep, then the source */
	CHECK_STR_EQ("pkg:deb/debian/make@4.3-4.1?arch=amd64", hk_jobj_str(&rd->items[0], "uri"));
	CHECK_EQ_INT(64, strlen(hk_jobj_str(hk_jobj_get(&rd->items[1], "digest"), "harkaqTree")));
	const struct hk_jval *run = hk_jobj_get(p, "runDetails");
	CHECK_STR_EQ(HK_INTOTO_BUILDER_ID, hk_jobj_str(hk_jobj_get(run, "builder"), "id"));
	const struct hk_jval *ver = hk_jobj_get(hk_jobj_get(run, "builder"), "version");
	CHECK_STR_EQ("0.1.0", hk_jobj_str(ver, "harkaq"));
	CHECK_STR_EQ("6.1.0", hk_jobj_str(ver, "linux"));
	CHECK_STR_EQ("7", hk_jobj_str(ver, "landlock-abi"));
	const struct hk_jval *md = hk_jobj_get(run, "metadata");
	CHECK_STR_EQ("f00d", hk_jobj_str(md, "invocationId"));
	CHECK_STR_EQ("2023-11-14T22:13:20Z", hk_jobj_str(md, "startedOn"));
	CHECK_STR_EQ("2023-11-14T22:14:21Z", hk_jobj_str(md, "finishedOn"));
	const struct hk_jval *bp = hk_jobj_get(run, "byproducts");
	REQUIRE(bp && bp->len == 3);                  /* two evidence objects, the artifact */
	CHECK_STR_EQ("evidence/compile", hk_jobj_str(&bp->items[0], "name"));
	CHECK_STR_EQ("1111", hk_jobj_str(hk_jobj_get(&bp->items[0], "digest"), "blake3"));
	CHECK_STR_EQ("harkaq:artifact:cdef-hello", hk_jobj_str(&bp->items[2], "uri"));
	hk_jval_free(st);
	hk_buf_free(&b);
}

TEST(verdict_statement_carries_each_phase_and_its_evidence)
{
	struct hk_attest_input in;
	input(&in, true, EV_NOEVIDENCE);
	struct hk_buf b = HK_BUF_INIT;
	hk_intoto_verdict(&in, &b);
	struct hk_jval *st = statement(&b);
	REQUIRE(st);
	CHECK_STR_EQ(HK_INTOTO_VERDICT_TYPE, hk_jobj_str(st, "predicateType"));
	const struct hk_jval *p = hk_jobj_get(st, "predicate");
	const struct hk_jval *sum = hk_jobj_get(p, "summary");
	CHECK_EQ_INT(2, hk_jobj_int(sum, "phases", -1));
	CHECK_EQ_INT(1, hk_jobj_int(sum, "hermetic", -1));
	CHECK_EQ_INT(1, hk_jobj_int(sum, "noEvidence", -1));
	const struct hk_jval *phases = hk_jobj_get(p, "phases");
	REQUIRE(phases && phases->len == 2);
	CHECK_STR_EQ("install", hk_jobj_str(&phases->items[1], "phase"));
	CHECK_STR_EQ("NoEvidence", hk_jobj_str(&phases->items[1], "state"));
	CHECK_STR_EQ("harkaq.verdict.v1",
		     hk_jobj_str(hk_jobj_get(&phases->items[1], "evidence"), "kind"));
	/* The evidence object is embedded byte for byte. */
	CHECK_CONTAINS(hk_buf_str(&b), "\"evidence\":" EV_NOEVIDENCE "}");
	hk_jval_free(st);
	hk_buf_free(&b);
}

static size_t policy_of(bool pinned, const char *ev2, struct hk_buf *why)
{
	struct hk_attest_input in;
	input(&in, pinned, ev2);
	struct hk_buf b = HK_BUF_INIT;
	hk_intoto_verdict(&in, &b);
	struct hk_jval *st = statement(&b);
	size_t bad = st ? hk_policy_hermetic(st, why) : 99;
	hk_jval_free(st);
	hk_buf_free(&b);
	return bad;
}

TEST(policy_hermetic_passes_only_a_pinned_all_hermetic_build)
{
	struct hk_buf why = HK_BUF_INIT;
	/* Positive control: pinned base, both phases Hermetic. */
	CHECK_EQ_INT(0, policy_of(true, EV_HERMETIC, &why));
	CHECK_EQ_INT(0, why.len);
	/* The host is no pinned base. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(1, policy_of(false, EV_HERMETIC, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "the base host is not pinned");
	/* A NoEvidence phase, named with its reason. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(1, policy_of(true, EV_NOEVIDENCE, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "phase install is NoEvidence (canary_not_seen)");
	/* A phase without a verdict (no evidence object) is not Hermetic. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(1, policy_of(true, NULL, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "phase install has no verdict");
	/* Both at once: every violation is listed. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(2, policy_of(false, EV_NOEVIDENCE, &why));
	hk_buf_free(&why);
}

TEST(policy_hermetic_refuses_a_state_its_evidence_contradicts)
{
	const char *text =
		"{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"f\","
		"\"digest\":{\"sha256\":\"ab\"}}],\"predicateType\":\"" HK_INTOTO_VERDICT_TYPE "\","
		"\"predicate\":{\"base\":{\"pinned\":true},\"phases\":[{\"phase\":\"compile\","
		"\"state\":\"Hermetic\",\"evidence\":{\"state\":\"Impure\"}}]}}";
	struct hk_jval *st = NULL;
	struct hk_error err;
	REQUIRE(hk_intoto_parse(text, strlen(text), &st, &err) == 0);
	struct hk_buf why = HK_BUF_INIT;
	CHECK_EQ_INT(1, hk_policy_hermetic(st, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "says Hermetic but its evidence object says Impure");
	hk_jval_free(st);
	hk_buf_free(&why);
	/* A provenance Statement is not a verdict: the policy cannot pass on it. */
	struct hk_attest_input in;
	input(&in, true, EV_HERMETIC);
	struct hk_buf b = HK_BUF_INIT;
	hk_intoto_provenance(&in, &b);
	st = statement(&b);
	REQUIRE(st);
	CHECK_EQ_INT(1, hk_policy_hermetic(st, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "not a harkaq verdict");
	hk_jval_free(st);
	hk_buf_free(&b);
	hk_buf_free(&why);
}

/* A Debian verdict Statement whose one phase "build" is `state` (its evidence object says
 * `ev_state`), with `findings` as the members of its Debian phase, and "complete" `complete`. */
static size_t complete_policy_of(const char *state, const char *ev_state, const char *findings,
				 const char *complete, struct hk_buf *why)
{
	struct hk_buf t = HK_BUF_INIT;
	hk_buf_printf(&t,
		      "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"a.deb\","
		      "\"digest\":{\"sha256\":\"ab\"}}],\"predicateType\":\"" HK_INTOTO_VERDICT_TYPE
		      "\",\"predicate\":{\"base\":{\"name\":\"debian-12-buildd\",\"pinned\":true},"
		      "\"phases\":[{\"phase\":\"build\",\"state\":\"%s\",\"evidence\":{\"state\":"
		      "\"%s\"}}],\"debian\":{\"completed\":true,\"complete\":%s,\"phases\":[{"
		      "\"phase\":\"build\",\"state\":\"%s\",\"exitCode\":0%s}]}}}",
		      ev_state, ev_state, complete, state, findings);
	struct hk_jval *st = NULL;
	struct hk_error err;
	size_t bad = hk_intoto_parse(t.data, t.len, &st, &err) == 0
			     ? hk_policy_complete_build_depends(st, why) : 99;
	hk_jval_free(st);
	hk_buf_free(&t);
	return bad;
}

TEST(policy_complete_build_depends_names_phase_and_package)
{
	struct hk_buf why = HK_BUF_INIT;
	/* Positive control: Hermetic, nothing named, complete. */
	CHECK_EQ_INT(0, complete_policy_of("Hermetic", "Hermetic", "", "true", &why));
	CHECK_EQ_INT(0, why.len);
	/* A probe through a trap of the store view, with its decided class. */
	CHECK_EQ_INT(1, complete_policy_of("Impure", "Impure",
					   ",\"probes\":[{\"package\":\"bison\",\"path\":\"/x/yacc\","
					   "\"exe\":\"/usr/bin/dash\",\"access\":\"executed\","
					   "\"how\":\"link\",\"via\":\"/usr/bin/yacc\","
					   "\"class\":\"influence\"}]", "false", &why));
	CHECK_CONTAINS(hk_buf_str(&why), "phase build: undeclared bison, a probe (executed "
					 "/usr/bin/yacc, its symlink, by dash; the phase went on); "
					 "--decide-probes: influence");
	/* A missing Build-Depends. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(1, complete_policy_of("Impure", "Impure",
					   ",\"missing\":[{\"package\":\"zlib1g-dev\",\"path\":"
					   "\"/usr/include/zlib.h\",\"exe\":\"/usr/lib/cc1\","
					   "\"access\":\"read\"}]", "false", &why));
	CHECK_CONTAINS(hk_buf_str(&why), "phase build: missing Build-Depends: zlib1g-dev (read "
					 "/usr/include/zlib.h, by cc1)");
	/* "complete" claimed over an Impure phase: the phase and the contradiction. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(2, complete_policy_of("Impure", "Impure", "", "true", &why));
	CHECK_CONTAINS(hk_buf_str(&why), "phase build is Impure");
	CHECK_CONTAINS(hk_buf_str(&why), "which the lines above contradict");
	/* The Debian member disagreeing with the evidence object. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(2, complete_policy_of("Hermetic", "Impure", "", "true", &why));
	CHECK_CONTAINS(hk_buf_str(&why), "the Debian verdict says Hermetic, the phase Impure");
	/* Everything Hermetic, but the verdict does not say complete. */
	hk_buf_reset(&why);
	CHECK_EQ_INT(1, complete_policy_of("Hermetic", "Hermetic", "", "false", &why));
	CHECK_CONTAINS(hk_buf_str(&why), "does not say the Build-Depends were complete");
	/* A recipe's verdict has no Debian member. */
	hk_buf_reset(&why);
	struct hk_attest_input in;
	input(&in, true, EV_HERMETIC);
	struct hk_buf b = HK_BUF_INIT;
	hk_intoto_verdict(&in, &b);
	struct hk_jval *st = statement(&b);
	REQUIRE(st);
	CHECK_EQ_INT(1, hk_policy_complete_build_depends(st, &why));
	CHECK_CONTAINS(hk_buf_str(&why), "no predicate.debian");
	hk_jval_free(st);
	hk_buf_free(&b);
	hk_buf_free(&why);
}

TEST(statement_reader_refusals)
{
	static const struct { const char *text, *needle; } cases[] = {
		{ "{\"_type\":\"x\"}", "\"_type\" is \"x\"" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[]}", "\"subject\"" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"f\","
		  "\"digest\":{\"sha256\":\"zz\"}}],\"predicateType\":\"t\",\"predicate\":{}}",
		  "subject[0].digest.sha256 is not a hex string" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"f\"}],"
		  "\"predicateType\":\"t\",\"predicate\":{}}", "subject[0] needs a name" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"f\","
		  "\"digest\":{\"sha256\":\"ab\"}}],\"predicate\":{}}", "\"predicateType\"" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"f\","
		  "\"digest\":{\"sha256\":\"ab\"}}],\"predicateType\":\"t\"}", "\"predicate\"" },
		{ "{\"_type\":", "not JSON" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_jval *st = NULL;
		struct hk_error err = { 0 };
		CHECK_EQ_INT(-EINVAL, hk_intoto_parse(cases[i].text, strlen(cases[i].text), &st, &err));
		CHECK(st == NULL);
		CHECK_CONTAINS(err.msg, cases[i].needle);
	}
}

TEST(purl_of_a_debian_package)
{
	char *p = hk_purl_deb("make", "4.3-4.1", "amd64");
	CHECK_STR_EQ("pkg:deb/debian/make@4.3-4.1?arch=amd64", p);
	free(p);
	/* The purl specification keeps ':' and '~' and percent-encodes '+'. */
	p = hk_purl_deb("libc6", "1:2.36-9+deb12u4~1", "amd64");
	CHECK_STR_EQ("pkg:deb/debian/libc6@1:2.36-9%2Bdeb12u4~1?arch=amd64", p);
	free(p);
	p = hk_purl_deb("g++-12", NULL, NULL);
	CHECK_STR_EQ("pkg:deb/debian/g%2B%2B-12", p);
	free(p);
}
