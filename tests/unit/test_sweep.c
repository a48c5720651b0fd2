/* The sweep's pure part (src/core/sweep/sweep.c): reading build results into items, the outcome
 * rule, shards, the result document round trip, merge, the summary and the HTML escaping. */
#include "harness.h"

#include <errno.h>

#include "engine/sweep/sweep_render.h"
#include "core/sweep/sweep.h"
#include "core/basic/util.h"

/* A fake store: /usr/bin/make is provided by "make", everything under /usr exists in the
 * base root. */
static void fake_classify(void *ctx, const char *path, struct hk_sweep_class *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (strcmp(path, "/usr/bin/make") == 0) {
		out->providers = hk_xcalloc(2, sizeof(char *));
		out->providers[0] = hk_xstrdup("remake");
		out->providers[1] = hk_xstrdup("make");
		out->n_providers = 2;
	}
}

static bool fake_in_base(void *ctx, const char *path)
{
	(void)ctx;
	return strncmp(path, "/usr/", 5) == 0;
}

/* A worker's partial store: it holds none of the providers. */
static void partial_classify(void *ctx, const char *path, struct hk_sweep_class *out)
{
	(void)ctx;
	(void)path;
	memset(out, 0, sizeof(*out));
}

/* The store item_of classifies against (a sweep classifies after its builds). */
static hk_sweep_classify_fn item_classifier = fake_classify;

static const char *denial(const char *cls, const char *path)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]),
		 "{\"class\":\"%s\",\"blockers\":\"fs.read_file\",\"path\":%s%s%s,\"exe\":\"/bin/sh\","
		 "\"count\":2}",
		 cls, path ? "\"" : "", path ? path : "null", path ? "\"" : "");
	return buf[k];
}

/* A build result with one phase per state/denials pair, as its text. */
static char *build_json(const char *failed_phase, const char *phases)
{
	return hk_xasprintf("{\"recipe\":{\"name\":\"r\",\"version\":\"1\",\"hash\":\"b3:00\"},"
			    "\"policy_id\":\"b3:11\",\"phases\":[%s],\"failed_phase\":%s%s%s,"
			    "\"artifact\":null}",
			    phases, failed_phase ? "\"" : "", failed_phase ? failed_phase : "null",
			    failed_phase ? "\"" : "");
}

static char *phase(const char *name, int exit_code, const char *state, const char *reason,
		   const char *denials, const char *report)
{
	return hk_xasprintf("{\"phase\":\"%s\",\"exit_code\":%d,\"ms\":5,\"verdict\":{\"state\":\"%s\","
			    "\"reasons\":[%s%s%s],\"denials\":[%s]}%s%s}",
			    name, exit_code, state, reason ? "{\"code\":\"" : "", reason ? reason : "",
			    reason ? "\"}" : "", denials, report ? ",\"report\":" : "",
			    report ? report : "");
}

static void item_of(struct hk_sweep_item *it, const char *failed, const char *phases)
{
	memset(it, 0, sizeof(*it));
	it->key = hk_xstrdup("k/recipe.toml");
	char *text = build_json(failed, phases);
	struct hk_error err;
	int rc = hk_sweep_item_from_build(it, text, strlen(text), fake_in_base, NULL, &err);
	if (rc < 0)
		fprintf(stderr, "# %s\n# %s\n", err.msg, text);
	CHECK_EQ_INT(0, rc);
	free(text);
	hk_sweep_classify(it, 1, item_classifier, NULL);
}

TEST(outcome_hermetic_declarable_irreducible)
{
	struct hk_sweep_item it;
	char *a = phase("compile", 0, "Hermetic", NULL, denial("expected", "/usr/bin/gcc"), NULL);
	item_of(&it, NULL, a);
	CHECK_EQ_INT(HK_SWEEP_HERMETIC, it.outcome);
	CHECK_EQ_INT(0, it.n_debts);
	CHECK_EQ_INT(1, it.phases[0].expected);
	hk_sweep_item_free(&it);
	free(a);

	/* The same path in two phases is one debt entry, listed with both phases. */
	char *d1 = hk_xasprintf("%s", denial("debt", "/usr/bin/make"));
	a = phase("configure", 0, "Impure", NULL, d1, NULL);
	char *b = phase("compile", 0, "Impure", NULL, d1, NULL);
	char *both = hk_xasprintf("%s,%s", a, b);
	item_of(&it, NULL, both);
	CHECK_EQ_INT(HK_SWEEP_DECLARABLE, it.outcome);
	REQUIRE(it.n_debts == 1);
	CHECK(!it.debts[0].irreducible);
	REQUIRE(it.debts[0].n_providers == 2);
	CHECK_STR_EQ("make", it.debts[0].providers[0]);   /* sorted */
	CHECK_STR_EQ("remake", it.debts[0].providers[1]);
	CHECK_EQ_INT(3, it.debts[0].phases);
	CHECK_EQ_INT(4, it.debts[0].records);
	CHECK(it.debts[0].in_base);
	hk_sweep_item_free(&it);
	free(a);
	free(b);
	free(both);

	/* One unprovided path makes the recipe irreducible; a denial without a path too. */
	char *ds = hk_xasprintf("%s,%s", d1, denial("debt", "/opt/x"));
	a = phase("compile", 0, "Impure", NULL, ds, NULL);
	item_of(&it, NULL, a);
	CHECK_EQ_INT(HK_SWEEP_IRREDUCIBLE, it.outcome);
	REQUIRE(it.n_debts == 2);
	CHECK_STR_EQ("/opt/x", it.debts[0].path);          /* sorted by path */
	CHECK(it.debts[0].irreducible);
	CHECK(!it.debts[0].in_base);
	hk_sweep_item_free(&it);
	free(a);
	free(ds);
	a = phase("compile", 0, "Impure", NULL, denial("debt", NULL), NULL);
	item_of(&it, NULL, a);
	REQUIRE(it.n_debts == 1);
	CHECK_STR_EQ("[fs.read_file]", it.debts[0].path);
	CHECK_EQ_INT(HK_SWEEP_IRREDUCIBLE, it.outcome);
	hk_sweep_item_free(&it);
	free(a);
	free(d1);
}

TEST(outcome_failures_and_missing_evidence)
{
	struct hk_sweep_item it;
	/* A failed phase without debt: failed, with the phase's status. */
	char *a = phase("compile", 2, "Hermetic", NULL, "", NULL);
	item_of(&it, "compile", a);
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	CHECK_STR_EQ(HK_SWEEP_FAIL_PHASE, it.fail_code);
	CHECK_STR_EQ("compile exited with status 2 (see the build log)", it.reason);
	hk_sweep_item_free(&it);
	free(a);
	/* A failed phase with debt: the debt decides (it is the likely cause). */
	a = phase("compile", 127, "Impure", NULL, denial("debt", "/usr/bin/make"), NULL);
	item_of(&it, "compile", a);
	CHECK_EQ_INT(HK_SWEEP_DECLARABLE, it.outcome);
	CHECK(it.fail_code == NULL);
	CHECK_STR_EQ("compile", it.failed_phase);
	hk_sweep_item_free(&it);
	free(a);
	/* NoEvidence in any phase wins over debt elsewhere. */
	a = phase("configure", 0, "Impure", NULL, denial("debt", "/opt/x"), NULL);
	char *b = phase("compile", 0, "NoEvidence", "records_lost", "", NULL);
	char *both = hk_xasprintf("%s,%s", a, b);
	item_of(&it, NULL, both);
	CHECK_EQ_INT(HK_SWEEP_NOEVIDENCE, it.outcome);
	CHECK_STR_EQ("records_lost", it.phases[1].reason);
	hk_sweep_item_free(&it);
	free(a);
	free(b);
	free(both);
	/* Never built: failed with the reason given. */
	memset(&it, 0, sizeof(it));
	hk_sweep_item_fail(&it, "x/recipe.toml", HK_SWEEP_FAIL_DEPS, "dep 'y' is not in the store");
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	CHECK_STR_EQ("x/recipe.toml", it.key);
	hk_sweep_item_free(&it);
	/* A build result that is not one, or not JSON at all. */
	struct hk_error err;
	memset(&it, 0, sizeof(it));
	CHECK(hk_sweep_item_from_build(&it, "{\"x\":1}", 7, NULL, NULL, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "not a harkaq build result");
	CHECK(hk_sweep_item_from_build(&it, "[1]", 3, NULL, NULL, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "not a harkaq build result (not a JSON object)");
	CHECK(hk_sweep_item_from_build(&it, "{\"rec", 5, NULL, NULL, &err) < 0);
	CHECK_CONTAINS(err.msg, "not a harkaq build result");
	hk_sweep_item_free(&it);
}

/* A build that left no result is said by how its process ended, typed: a signal is a crash,
 * an exit a set-up failure; neither reads a log. */
TEST(a_build_without_result_is_coded_by_how_its_process_ended)
{
	struct hk_sweep_item it;
	memset(&it, 0, sizeof(it));
	const struct hk_sweep_proc_end segv = { .signaled = true, .code = 11 };
	hk_sweep_item_without_result(&it, &segv, NULL);
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	CHECK_STR_EQ(HK_SWEEP_FAIL_CRASH, it.fail_code);
	CHECK_STR_EQ("the build's process was killed by signal 11 and left no result", it.reason);
	const struct hk_sweep_proc_end exit127 = { .signaled = false, .code = 127 };
	hk_sweep_item_without_result(&it, &exit127, "its result is unreadable: x");
	CHECK_STR_EQ(HK_SWEEP_FAIL_SETUP, it.fail_code);
	CHECK_STR_EQ("the build's process exited with status 127 and left no result: its result "
		     "is unreadable: x", it.reason);
	/* A Debian item without a report is failed too, not left without a class. */
	it.deb = hk_xcalloc(1, sizeof(*it.deb));
	hk_sweep_item_without_result(&it, &segv, NULL);
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	CHECK_STR_EQ(HK_SWEEP_FAIL_CRASH, it.fail_code);
	hk_sweep_item_free(&it);
}

TEST(policy_bug_denials_are_not_the_recipes_debt)
{
	struct hk_sweep_item it;
	const char *report = "{\"policy_bug\":[{\"path\":\"/dev/tty\"}],\"evidence\":\"b3:ee\"}";
	char *ds = hk_xasprintf("%s", denial("debt", "/dev/tty"));
	char *a = phase("configure", 0, "Impure", NULL, ds, report);
	item_of(&it, NULL, a);
	CHECK_EQ_INT(HK_SWEEP_HERMETIC, it.outcome);
	CHECK_EQ_INT(0, it.n_debts);
	REQUIRE(it.n_policy_bugs == 1);
	CHECK_STR_EQ("/dev/tty", it.policy_bugs[0]);
	CHECK_EQ_INT(1, it.phases[0].policy_bug);
	CHECK_STR_EQ("b3:ee", it.phases[0].evidence);
	hk_sweep_item_free(&it);
	free(a);
	/* Positive control: the same denial without the diagnosis' verdict is debt. */
	a = phase("configure", 0, "Impure", NULL, ds, NULL);
	item_of(&it, NULL, a);
	CHECK_EQ_INT(HK_SWEEP_IRREDUCIBLE, it.outcome);
	CHECK_EQ_INT(0, it.n_policy_bugs);
	hk_sweep_item_free(&it);
	free(a);
	free(ds);
}

/* The code of a build that stopped early, from the result's typed "failure" member: a
 * message that reads like another stage does not change it. */
static void failed_item(struct hk_sweep_item *it, const char *failure, int *rc)
{
	memset(it, 0, sizeof(*it));
	it->key = hk_xstrdup("k/recipe.toml");
	char *text = hk_xasprintf("{\"recipe\":{\"name\":\"r\",\"version\":\"1\",\"hash\":\"b3:00\"},"
				  "\"phases\":[],\"error\":\"fetching the source on the host: "
				  "'apt-get source' failed; build dep 'cmake'\"%s%s}",
				  failure ? ",\"failure\":" : "", failure ? failure : "");
	struct hk_error err;
	*rc = hk_sweep_item_from_build(it, text, strlen(text), fake_in_base, NULL, &err);
	free(text);
}

TEST(fail_codes_from_the_build_results_failure_stage)
{
	static const struct {
		const char *failure, *code;
	} cases[] = {
		{ "{\"stage\":\"fetch\",\"signal\":null}", HK_SWEEP_FAIL_FETCH },
		{ "{\"stage\":\"deps\",\"signal\":null}", HK_SWEEP_FAIL_DEPS },
		{ "{\"stage\":\"recipe\",\"signal\":null}", HK_SWEEP_FAIL_RECIPE },
		{ "{\"stage\":\"setup\",\"signal\":15}", HK_SWEEP_FAIL_SETUP },
		/* a result without the member (nothing says where): set-up */
		{ NULL, HK_SWEEP_FAIL_SETUP },
		{ "null", HK_SWEEP_FAIL_SETUP },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hk_sweep_item it;
		int rc = -1;
		failed_item(&it, cases[i].failure, &rc);
		CHECK_EQ_INT(0, rc);
		CHECK_STR_EQ(cases[i].code, it.fail_code);
		CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
		hk_sweep_item_free(&it);
	}
	/* A stage the sweep does not know is a bad result, not a guess. */
	struct hk_sweep_item it;
	int rc = 0;
	failed_item(&it, "{\"stage\":\"compile\"}", &rc);
	CHECK_EQ_INT(-EINVAL, rc);
	hk_sweep_item_free(&it);
}

TEST(shards_partition_the_sorted_catalogue)
{
	char *keys[] = { hk_xstrdup("c"), hk_xstrdup("a"), hk_xstrdup("b"), hk_xstrdup("a"),
			 hk_xstrdup("e"), hk_xstrdup("d"), hk_xstrdup("B") };
	size_t n = hk_sweep_sort_keys(keys, 7);
	REQUIRE(n == 6);
	const char *want[] = { "B", "a", "b", "c", "d", "e" };
	for (size_t i = 0; i < n; i++)
		CHECK_STR_EQ(want[i], keys[i]);
	/* Every position in exactly one shard, round robin. */
	for (unsigned count = 1; count <= 7; count++)
		for (size_t p = 0; p < n; p++) {
			int in = 0;
			for (unsigned i = 1; i <= count; i++)
				in += hk_sweep_in_shard(p, i, count);
			CHECK_EQ_INT(1, in);
		}
	CHECK(hk_sweep_in_shard(0, 1, 3) && hk_sweep_in_shard(3, 1, 3) && hk_sweep_in_shard(4, 2, 3));
	CHECK(!hk_sweep_in_shard(1, 1, 3));
	CHECK(hk_sweep_in_shard(5, 0, 0));   /* no shard: everything */

	char id1[HK_B3_ID_LEN], id2[HK_B3_ID_LEN];
	hk_sweep_catalogue_id((const char *const *)keys, n, id1);
	hk_sweep_catalogue_id((const char *const *)keys, n - 1, id2);
	CHECK(strcmp(id1, id2) != 0);
	CHECK_EQ_INT(67, strlen(id1));
	/* The key boundary is part of the id: ["ab"] and ["a","b"] differ. */
	const char *ab[] = { "ab" }, *a_b[] = { "a", "b" };
	hk_sweep_catalogue_id(ab, 1, id1);
	hk_sweep_catalogue_id(a_b, 2, id2);
	CHECK(strcmp(id1, id2) != 0);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);

	unsigned i, c;
	struct hk_error err;
	CHECK_EQ_INT(0, hk_sweep_parse_shard("2/3", &i, &c, &err));
	CHECK_EQ_INT(2, i);
	CHECK_EQ_INT(3, c);
	const char *bad[] = { "0/3", "4/3", "3", "/3", "1/", "1/0", "a/b", "1/3x", "-1/3", "" };
	for (size_t k = 0; k < HK_ARRAY_LEN(bad); k++) {
		CHECK(hk_sweep_parse_shard(bad[k], &i, &c, &err) == -EINVAL);
		CHECK_CONTAINS(err.msg, "--shard wants I/N");
	}
}

/* A document of three items: hermetic, declarable (/usr/bin/make), failed. */
static void make_doc(struct hk_sweep_doc *d, unsigned shard, unsigned count)
{
	memset(d, 0, sizeof(*d));
	const char *all[] = { "a/recipe.toml", "b/recipe.toml", "c/recipe.toml" };
	hk_sweep_catalogue_id(all, 3, d->catalogue_id);
	d->catalogue_size = 3;
	d->shard_index = shard;
	d->shard_count = count;
	d->items = hk_xcalloc(4, sizeof(*d->items));
	for (size_t p = 0; p < 3; p++) {
		if (!hk_sweep_in_shard(p, shard, count))
			continue;
		struct hk_sweep_item *it = &d->items[d->n_items++];
		if (p == 2) {
			memset(it, 0, sizeof(*it));
			hk_sweep_item_fail(it, all[p], HK_SWEEP_FAIL_RECIPE, "c: bad <recipe> & \"x\"");
			continue;
		}
		char *a = phase("compile", 0, p == 0 ? "Hermetic" : "Impure", NULL,
				p == 0 ? "" : denial("debt", "/usr/bin/make"), NULL);
		item_of(it, NULL, a);
		free(it->key);
		it->key = hk_xstrdup(all[p]);
		it->ms = 1000 + (int64_t)p * (count + 1);   /* run data differs between runs */
		free(a);
	}
}

static char *doc_text(const struct hk_sweep_doc *d, bool with_run)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 1);
	hk_sweep_doc_json(d, with_run, &j);
	return hk_buf_steal(&b);
}

TEST(document_round_trip_and_merge_equals_whole)
{
	struct hk_sweep_doc whole;
	make_doc(&whole, 0, 0);
	char *want = doc_text(&whole, false);
	CHECK_CONTAINS(want, "\"hermetic\": 1");
	CHECK_CONTAINS(want, "\"declarable\": 1");
	CHECK_CONTAINS(want, "\"failed\": 1");
	CHECK_CONTAINS(want, "\"irreducible_rate\": 0");
	CHECK(!strstr(want, "\"ms\""));   /* run data left out */

	/* Round trip of the full document (with run data). */
	char *full = doc_text(&whole, true);
	CHECK_CONTAINS(full, "\"ms\"");
	struct hk_sweep_doc back;
	struct hk_error err;
	REQUIRE(hk_sweep_doc_parse(full, strlen(full), "r.json", &back, &err) == 0);
	char *again = doc_text(&back, true);
	CHECK_STR_EQ(full, again);
	free(again);
	hk_sweep_doc_free(&back);
	free(full);

	/* Three shards written, read back, merged in any order: the whole document. */
	struct hk_sweep_doc parts[3];
	for (unsigned s = 0; s < 3; s++) {
		struct hk_sweep_doc sh;
		make_doc(&sh, 3 - s, 3);
		char *t = doc_text(&sh, true);
		REQUIRE(hk_sweep_doc_parse(t, strlen(t), "shard.json", &parts[s], &err) == 0);
		free(t);
		hk_sweep_doc_free(&sh);
	}
	struct hk_sweep_doc merged;
	REQUIRE(hk_sweep_merge(parts, 3, &merged, &err) == 0);
	char *got = doc_text(&merged, false);
	CHECK_STR_EQ(want, got);
	free(got);
	hk_sweep_doc_free(&merged);
	for (int s = 0; s < 3; s++)
		hk_sweep_doc_free(&parts[s]);

	/* A missing shard, a repeated shard, shards of another catalogue: refused. */
	struct hk_sweep_doc two[2];
	make_doc(&two[0], 1, 3);
	make_doc(&two[1], 3, 3);
	CHECK(hk_sweep_merge(two, 2, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "shard(s) 2/3 missing");
	hk_sweep_doc_free(&two[1]);
	make_doc(&two[1], 1, 3);
	CHECK(hk_sweep_merge(two, 2, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "shard 1/3 is given twice");
	hk_sweep_doc_free(&two[1]);
	make_doc(&two[1], 2, 3);
	two[1].catalogue_id[5] ^= 1;
	CHECK(hk_sweep_merge(two, 2, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "another catalogue");
	/* A shard that lost a recipe (same id claimed, fewer items). */
	two[1].catalogue_id[5] ^= 1;
	struct hk_sweep_doc three[3];
	three[0] = two[0];
	three[1] = two[1];
	make_doc(&three[2], 3, 3);
	hk_sweep_item_free(&three[2].items[0]);
	three[2].n_items = 0;
	CHECK(hk_sweep_merge(three, 3, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "a shard lost or gained recipes");
	for (int s = 0; s < 3; s++)
		hk_sweep_doc_free(&three[s]);
	free(want);
	hk_sweep_doc_free(&whole);

	/* Not a sweep result. */
	CHECK(hk_sweep_doc_parse("{}", 2, "x.json", &back, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "x.json: not a harkaq sweep result");
}

/* The worker measures, the merge classifies: shards whose workers' stores held none of the
 * providers, merged and classified against the complete store, give the whole catalogue's
 * document; merged without that classification they do not (the control). */
TEST(shards_measured_with_a_partial_store_merge_to_the_whole_classification)
{
	struct hk_sweep_doc whole;
	make_doc(&whole, 0, 0);
	char *want = doc_text(&whole, false);
	CHECK_CONTAINS(want, "\"declarable\": 1");
	struct hk_error err;
	struct hk_sweep_doc parts[3], merged;
	item_classifier = partial_classify;
	for (unsigned s = 0; s < 3; s++) {
		struct hk_sweep_doc sh;
		make_doc(&sh, s + 1, 3);
		char *t = doc_text(&sh, true);
		REQUIRE(hk_sweep_doc_parse(t, strlen(t), "shard.json", &parts[s], &err) == 0);
		free(t);
		hk_sweep_doc_free(&sh);
	}
	item_classifier = fake_classify;
	REQUIRE(hk_sweep_merge(parts, 3, &merged, &err) == 0);
	char *unclassified = doc_text(&merged, false);
	CHECK_CONTAINS(unclassified, "\"irreducible\": 1");   /* what the workers' stores said */
	CHECK(strcmp(want, unclassified) != 0);
	hk_sweep_classify(merged.items, merged.n_items, fake_classify, NULL);
	char *got = doc_text(&merged, false);
	CHECK_STR_EQ(want, got);
	free(got);
	free(unclassified);
	hk_sweep_doc_free(&merged);
	for (int s = 0; s < 3; s++)
		hk_sweep_doc_free(&parts[s]);
	free(want);
	hk_sweep_doc_free(&whole);
}

/* A shard stopped by a signal is missing from a merge, named, never a smaller catalogue; its
 * run again completes the merge.  The flag survives the document's round trip. */
TEST(an_interrupted_shard_is_missing_until_it_is_run_again)
{
	struct hk_error err;
	struct hk_sweep_doc parts[3], merged;
	for (unsigned s = 0; s < 3; s++)
		make_doc(&parts[s], s + 1, 3);
	parts[1].interrupted = 15;
	char *t = doc_text(&parts[1], false);
	CHECK_CONTAINS(t, "\"interrupted\": 15");
	hk_sweep_doc_free(&parts[1]);
	REQUIRE(hk_sweep_doc_parse(t, strlen(t), "shard2.json", &parts[1], &err) == 0);
	free(t);
	CHECK_EQ_INT(15, parts[1].interrupted);
	CHECK(hk_sweep_merge(parts, 3, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "shard(s) 2/3 missing: every recipe must be accounted for; 2/3 "
				"was interrupted by signal 15");
	/* Run again: complete. */
	hk_sweep_doc_free(&parts[1]);
	make_doc(&parts[1], 2, 3);
	REQUIRE(hk_sweep_merge(parts, 3, &merged, &err) == 0);
	CHECK_EQ_INT(3, merged.n_items);
	hk_sweep_doc_free(&merged);
	for (int s = 0; s < 3; s++)
		hk_sweep_doc_free(&parts[s]);

	/* A whole-catalogue result that was interrupted does not merge either; any non-null
	 * "interrupted" counts. */
	struct hk_sweep_doc one;
	make_doc(&one, 0, 0);
	char *text = doc_text(&one, true);
	hk_sweep_doc_free(&one);
	char *p = strstr(text, "\"interrupted\": null");
	REQUIRE(p);
	memcpy(p + strlen("\"interrupted\": "), "true", 4);
	REQUIRE(hk_sweep_doc_parse(text, strlen(text), "one.json", &one, &err) == 0);
	CHECK(one.interrupted != 0);
	CHECK(hk_sweep_merge(&one, 1, &merged, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "interrupted");
	hk_sweep_doc_free(&one);
	free(text);
}

TEST(summary_counts_paths_and_base_debt)
{
	struct hk_sweep_item items[3];
	char *d2 = hk_xasprintf("%s,%s", denial("debt", "/usr/bin/make"), denial("debt", "/opt/x"));
	char *a = phase("compile", 0, "Impure", NULL, denial("debt", "/usr/bin/make"), NULL);
	char *b = phase("compile", 0, "Impure", NULL, d2, NULL);
	char *c = phase("compile", 0, "Hermetic", NULL, "", NULL);
	item_of(&items[0], NULL, a);
	item_of(&items[1], NULL, b);
	item_of(&items[2], NULL, c);
	struct hk_sweep_summary s;
	hk_sweep_summarise(items, 3, &s);
	CHECK_EQ_INT(3, s.recipes);
	CHECK_EQ_INT(1, s.counts[HK_SWEEP_HERMETIC]);
	CHECK_EQ_INT(1, s.counts[HK_SWEEP_DECLARABLE]);
	CHECK_EQ_INT(1, s.counts[HK_SWEEP_IRREDUCIBLE]);
	CHECK_EQ_INT(3, s.measured);
	REQUIRE(s.n_paths == 2);
	CHECK_STR_EQ("/usr/bin/make", s.paths[0].path);   /* most frequent first */
	CHECK_EQ_INT(2, s.paths[0].recipes);
	CHECK_STR_EQ("/opt/x", s.paths[1].path);
	CHECK_EQ_INT(1, s.paths[1].recipes);
	CHECK(s.paths[1].irreducible);
	/* /usr/bin/make is in the (fake) base root, /opt/x is not. */
	CHECK_EQ_INT(2, s.base_recipes);
	CHECK_EQ_INT(2, s.base_paths_total);
	CHECK_EQ_INT(1, s.base_paths_distinct);
	CHECK_EQ_INT(1, s.hidden_by_base);   /* only the first: the second also reads /opt/x */
	hk_sweep_summary_free(&s);

	struct hk_sweep_doc d = { .items = items, .n_items = 3, .catalogue_size = 3 };
	struct hk_buf t = HK_BUF_INIT;
	hk_sweep_table(&d, &t);
	CHECK_CONTAINS(hk_buf_str(&t), "irreducible rate: 1 of 3 measured = 33.3 % (target < 5 %: NOT met)");
	CHECK_CONTAINS(hk_buf_str(&t), "/usr/bin/make  → declare dep: make | remake");
	hk_buf_free(&t);
	for (int i = 0; i < 3; i++)
		hk_sweep_item_free(&items[i]);
	free(a);
	free(b);
	free(c);
	free(d2);
}

TEST(html_escapes_everything_and_is_self_contained)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_html_escape(&b, "<a href='x'>&\"</a>\x01");
	CHECK_STR_EQ("&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;\\x01", hk_buf_str(&b));
	hk_buf_free(&b);

	struct hk_sweep_doc d;
	make_doc(&d, 0, 0);
	free(d.items[0].name);
	d.items[0].name = hk_xstrdup("<script>alert(1)</script>");
	struct hk_buf h = HK_BUF_INIT;
	hk_sweep_html(&d, &h);
	const char *html = hk_buf_str(&h);
	CHECK(!strstr(html, "<script"));
	CHECK_CONTAINS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
	CHECK_CONTAINS(html, "c: bad &lt;recipe&gt; &amp; &quot;x&quot;");
	CHECK_CONTAINS(html, "<svg");
	CHECK(!strstr(html, "src=") && !strstr(html, "href=") && !strstr(html, "url("));
	hk_buf_free(&h);
	hk_sweep_doc_free(&d);
}

/* A phase's counts count paths: /usr/bin/make denied under two sets of rights (read, then
 * executed) is one debt of the phase, as it is one debt entry of the recipe; another path
 * counts apart (docs/diagnosis.md, "One path, one entry"). */
TEST(phase_counts_count_paths_not_denials)
{
	struct hk_sweep_item it;
	const char *exec = "{\"class\":\"debt\",\"blockers\":\"fs.execute,fs.read_file\","
			   "\"path\":\"/usr/bin/make\",\"exe\":\"/bin/sh\",\"count\":1}";
	const char *exp_exec = "{\"class\":\"expected\",\"blockers\":\"fs.execute,fs.read_file\","
			       "\"path\":\"/usr/bin/gcc\",\"exe\":\"/bin/sh\",\"count\":1}";
	char *ds = hk_xasprintf("%s,%s,%s,%s,%s", denial("debt", "/usr/bin/make"), exec,
				denial("debt", "/opt/x"), denial("expected", "/usr/bin/gcc"), exp_exec);
	char *a = phase("compile", 0, "Impure", NULL, ds, NULL);
	item_of(&it, NULL, a);
	CHECK_EQ_INT(2, it.phases[0].debt);
	CHECK_EQ_INT(1, it.phases[0].expected);
	REQUIRE(it.n_debts == 2);
	CHECK_STR_EQ("/usr/bin/make", it.debts[1].path);
	/* Control: every record of both denials is still counted. */
	CHECK_EQ_INT(3, it.debts[1].records);
	hk_sweep_item_free(&it);
	free(a);
	free(ds);
}

/* A Debian item's document (harkaq.sweep.debian-build.v1, the sweep's child writes it) whose
 * report (harkaq build --dsc --json) has `result` phases, the findings, the package's class
 * (NULL: null) and --decide-probes' answers (`decide`: "" for null, else ",\"decide\":…"). */
static char *deb_doc(const char *failed, const char *phases, const char *missing,
		     const char *probes, const char *cls, const char *extra, const char *error)
{
	char *res = build_json(failed, phases);
	char *text = hk_xasprintf(
		"{\"kind\":\"harkaq.sweep.debian-build.v1\",\"exit_status\":0,\"fetch\":null,"
		"\"report\":{\"dsc\":{\"source\":\"hkcalc\",\"version\":\"1.0\",\"sha256\":\"ab\"},"
		"\"closure\":[{\"name\":\"bison\"}],\"closure_downloaded\":1,\"missing\":[%s],"
		"\"probes\":[%s],\"unattributed\":[{\"class\":\"unattributed\",\"path\":\"/x\"},"
		"{\"class\":\"policy_bug\",\"path\":\"/dev/tty\"}],\"from_log\":[],"
		"\"converse\":{\"computed\":true,\"unopened\":[{\"field\":\"Build-Depends\","
		"\"group\":\"hello\"}]},\"class\":%s%s%s,\"confirm\":null%s,"
		"\"result\":%s,\"error\":%s%s%s}}",
		missing, probes, cls ? "\"" : "", cls ? cls : "null", cls ? "\"" : "",
		*extra ? extra : ",\"decide\":null", res,
		error ? "\"" : "", error ? error : "null", error ? "\"" : "");
	free(res);
	return text;
}

static void deb_item_of(struct hk_sweep_item *it, const char *failed, const char *phases,
			const char *missing, const char *probes, const char *cls,
			const char *extra, const char *error)
{
	memset(it, 0, sizeof(*it));
	it->key = hk_xstrdup("hkcalc=1.0");
	char *text = deb_doc(failed, phases, missing, probes, cls, extra, error);
	struct hk_error err;
	int rc = hk_sweep_item_from_debian_build(it, text, strlen(text), &err);
	if (rc < 0)
		fprintf(stderr, "# %s\n# %s\n", err.msg, text);
	CHECK_EQ_INT(0, rc);
	free(text);
	hk_sweep_classify(it, 1, fake_classify, NULL);
}

/* "A,B", freeing both. */
static char *cat2(char *a, char *b)
{
	char *s = hk_xasprintf("%s,%s", a, b);
	free(a);
	free(b);
	return s;
}

static const char *finding(const char *pkg, const char *phase)
{
	static char buf[2][256];
	static int k;
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]),
		 "{\"package\":\"%s\",\"version\":\"1\",\"phase\":\"%s\",\"path\":\"/usr/bin/yacc\","
		 "\"exe\":\"/usr/bin/make\",\"how\":\"file\",\"via\":null,\"paths\":2}", pkg, phase);
	return buf[k];
}

/* --decide-probes' answer about tzdata, as the report's "decide" member. */
static const char decide_influence[] =
	",\"decide\":{\"not_run\":null,\"builds\":[],\"decisions\":[{\"package\":\"tzdata\","
	"\"class\":\"influence\",\"why\":\"granted, the .debs differ from those built without "
	"it\",\"differences\":[\"hkcalc_1.0_amd64.deb: ./usr/share/hkcalc/features: content "
	"differs\"],\"n_differences\":3}]}";

/* The classes of a Debian source package (docs/sweep.md, "Debian source packages"): the
 * build's own, each beside another. */
TEST(debian_classes_are_the_builds_own)
{
	struct hk_sweep_item it;
	char *ok3 = cat2(phase("clean", 0, "Hermetic", NULL, "", NULL),
			 phase("build", 0, "Hermetic", NULL, "", NULL));
	deb_item_of(&it, NULL, ok3, "", "", "hermetic", "", NULL);
	CHECK_EQ_INT(HK_SWEEP_HERMETIC, it.outcome);
	REQUIRE(it.deb);
	CHECK(it.deb->has_class);
	CHECK_EQ_INT(HK_DSC_HERMETIC, it.deb->cls);
	CHECK_STR_EQ("hkcalc", it.name);
	CHECK_STR_EQ("1.0", it.version);
	CHECK_EQ_INT(1, it.deb->closure);
	CHECK(it.closure_known);
	CHECK_EQ_INT(1, it.closure_downloaded);
	CHECK_EQ_INT(1, it.deb->unattributed);   /* the policy bug is not counted */
	REQUIRE(it.deb->n_unopened == 1);
	CHECK_STR_EQ("Build-Depends: hello", it.deb->unopened[0]);
	CHECK_EQ_INT(0, it.n_debts);   /* the report names packages, not debt paths */
	CHECK(!it.deb->decide_asked);
	hk_sweep_item_free(&it);
	/* The sweep never reclasses: the same completed build, classed failed by its report, is
	 * failed. */
	deb_item_of(&it, NULL, ok3, "", "", "failed", "", NULL);
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	hk_sweep_item_free(&it);
	free(ok3);

	/* Impure phases that went on, a probe named and not decided: probes only. */
	char *imp = cat2(phase("clean", 0, "Impure", NULL, denial("debt", "/usr/share/x"), NULL),
			 phase("build", 0, "Impure", NULL, denial("debt", "/usr/share/x"), NULL));
	deb_item_of(&it, NULL, imp, "", finding("tzdata", "debian/rules build-arch"), "probes", "",
		    NULL);
	CHECK_EQ_INT(HK_SWEEP_PROBES, it.outcome);
	REQUIRE(it.deb->n_probes == 1);
	CHECK_STR_EQ("build", it.deb->probes[0].phase);   /* the report's target, as the phase */
	CHECK_EQ_INT(2, it.deb->probes[0].paths);
	CHECK(!it.deb->probes[0].decided);
	hk_sweep_item_free(&it);
	/* The same probe decided an influence by --decide-probes: its answer on the probe. */
	deb_item_of(&it, NULL, imp, "", finding("tzdata", "debian/rules build-arch"), "influence",
		    decide_influence, NULL);
	CHECK_EQ_INT(HK_SWEEP_INFLUENCE, it.outcome);
	CHECK(it.deb->decide_asked);
	CHECK(it.deb->decide_not_run == NULL);
	REQUIRE(it.deb->n_probes == 1);
	const struct hk_sweep_finding *p = &it.deb->probes[0];
	CHECK(p->decided);
	CHECK_EQ_INT(HK_PROBE_INFLUENCE, p->decision);
	CHECK_STR_EQ("granted, the .debs differ from those built without it", p->why);
	REQUIRE(p->n_listed == 1);
	CHECK_STR_EQ("hkcalc_1.0_amd64.deb: ./usr/share/hkcalc/features: content differs",
		     p->differences[0]);
	CHECK_EQ_INT(3, p->n_differences);
	hk_sweep_item_free(&it);
	free(imp);

	/* A phase failed on a package it was denied: missing Build-Depends. */
	char *fail = cat2(phase("clean", 0, "Hermetic", NULL, "", NULL),
			  phase("build", 2, "Impure", NULL, denial("debt", "/usr/bin/yacc"), NULL));
	deb_item_of(&it, "build", fail, finding("bison", "debian/rules build"), "", "missing", "",
		    NULL);
	CHECK_EQ_INT(HK_SWEEP_MISSING, it.outcome);
	hk_sweep_item_free(&it);
	/* ...NoEvidence, then the sweep's limit or a fetch failure before anything the build
	 * said. */
	char *noev = phase("build", 2, "NoEvidence", "canary_not_seen", "", NULL);
	deb_item_of(&it, "build", noev, "", "", "no_evidence", "", NULL);
	CHECK_EQ_INT(HK_SWEEP_NOEVIDENCE, it.outcome);
	hk_sweep_item_fail(&it, NULL, HK_SWEEP_FAIL_TIMEOUT, "limit");
	CHECK_EQ_INT(HK_SWEEP_TIMED_OUT, it.outcome);
	hk_sweep_item_fail(&it, NULL, HK_SWEEP_FAIL_FETCH, "closure: apt-get download failed");
	CHECK_EQ_INT(HK_SWEEP_FETCH_FAILED, it.outcome);
	hk_sweep_item_free(&it);
	free(noev);

	/* Not built: no class, the report's error, failed. */
	deb_item_of(&it, NULL, "", "", "", NULL, "", "Build-Depends: unsatisfiable");
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	CHECK(!it.deb->has_class);
	CHECK_STR_EQ(HK_SWEEP_FAIL_SETUP, it.fail_code);
	CHECK_STR_EQ("Build-Depends: unsatisfiable", it.reason);
	hk_sweep_item_free(&it);
	free(fail);
}

/* Every class of the build has its own outcome, and the outcome's name reads back. */
TEST(each_debian_class_maps_to_one_outcome)
{
	bool seen[HK_SWEEP_OUTCOME_COUNT] = { false };
	for (int c = HK_DSC_FAILED; c <= HK_DSC_HERMETIC; c++) {
		enum hk_sweep_outcome o = hk_sweep_outcome_of_dsc((enum hk_dsc_class)c);
		CHECK(!seen[o]);
		seen[o] = true;
		CHECK(hk_sweep_outcome_name(o) != NULL);
	}
	CHECK_EQ_INT(HK_SWEEP_INFLUENCE, hk_sweep_outcome_of_dsc(HK_DSC_INFLUENCE));
	CHECK_EQ_INT(HK_SWEEP_UNATTRIBUTED, hk_sweep_outcome_of_dsc(HK_DSC_UNATTRIBUTED));
	CHECK_EQ_INT(HK_SWEEP_INERT_PROBES, hk_sweep_outcome_of_dsc(HK_DSC_INERT_PROBES));
	CHECK_STR_EQ("inert_probes", hk_sweep_outcome_name(HK_SWEEP_INERT_PROBES));
	/* The recipes' own outcomes are no class of a Debian build. */
	CHECK(!seen[HK_SWEEP_DECLARABLE] && !seen[HK_SWEEP_IRREDUCIBLE]);
}

/* The Debian document is read by one decoder: a fetch failure is typed, and what is not
 * such a document, or a class the build does not have, is refused. */
TEST(the_debian_document_decoder_refuses_what_it_does_not_know)
{
	struct hk_sweep_item it;
	memset(&it, 0, sizeof(it));
	it.key = hk_xstrdup("hknope=1.0");
	const char *fetch = "{\"kind\":\"harkaq.sweep.debian-build.v1\",\"exit_status\":70,"
			    "\"fetch\":{\"what\":\"source\",\"reason\":\"apt-get source "
			    "--download-only hknope=1.0 failed: E: no\"},\"report\":null}";
	struct hk_error err;
	REQUIRE(hk_sweep_item_from_debian_build(&it, fetch, strlen(fetch), &err) == 0);
	CHECK_EQ_INT(HK_SWEEP_FETCH_FAILED, it.outcome);
	CHECK_STR_EQ("source: apt-get source --download-only hknope=1.0 failed: E: no", it.reason);
	REQUIRE(it.deb);
	CHECK(!it.closure_known);
	hk_sweep_item_free(&it);

	const char *other = "{\"kind\":\"harkaq.sweep.v1\",\"fetch\":null,\"report\":null}";
	memset(&it, 0, sizeof(it));
	CHECK(hk_sweep_item_from_debian_build(&it, other, strlen(other), &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "not a harkaq.sweep.debian-build.v1 document");
	hk_sweep_item_free(&it);
	/* A class the build does not have; the control is the same document with one it has. */
	char *bad = deb_doc(NULL, "", "", "", "mostly_fine", "", NULL);
	memset(&it, 0, sizeof(it));
	CHECK(hk_sweep_item_from_debian_build(&it, bad, strlen(bad), &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "\"class\" is not a class of a Debian package");
	hk_sweep_item_free(&it);
	free(bad);
	char *good = deb_doc(NULL, "", "", "", "inert_probes", "", NULL);
	memset(&it, 0, sizeof(it));
	CHECK_EQ_INT(0, hk_sweep_item_from_debian_build(&it, good, strlen(good), &err));
	CHECK_EQ_INT(HK_SWEEP_INERT_PROBES, it.outcome);
	hk_sweep_item_free(&it);
	free(good);
}

/* Through the document and back, as a merge reads it: the classes, the decisions, the
 * summary's named packages and influences; the irreducible rate is the recipes' only, and how
 * the closure was got is run data. */
TEST(debian_items_round_trip_with_their_decisions)
{
	char *fail = cat2(phase("clean", 0, "Hermetic", NULL, "", NULL),
			  phase("build", 2, "Impure", NULL, denial("debt", "/usr/bin/yacc"), NULL));
	char *imp = phase("build", 0, "Impure", NULL, denial("debt", "/x"), NULL);
	struct hk_sweep_doc d = { .catalogue_size = 3 };
	const char *keys[] = { "a=1", "b=1", "hkcalc=1.0" };
	hk_sweep_catalogue_id(keys, 3, d.catalogue_id);
	d.items = hk_xcalloc(4, sizeof(*d.items));
	deb_item_of(&d.items[0], "build", fail, finding("bison", "debian/rules build"),
		    finding("tzdata", "debian/rules build"), "missing", "", NULL);
	deb_item_of(&d.items[1], NULL, imp, "", finding("tzdata", "debian/rules build"),
		    "influence", decide_influence, NULL);
	deb_item_of(&d.items[2], NULL, imp, "", finding("tzdata", "debian/rules build"), "probes",
		    "", NULL);
	for (size_t i = 0; i < 3; i++) {
		free(d.items[i].key);
		d.items[i].key = hk_xstrdup(keys[i]);
	}
	d.n_items = 3;
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 1);
	hk_sweep_doc_json(&d, true, &j);
	const char *t = hk_buf_str(&b);
	CHECK_CONTAINS(t, "\"missing_build_depends\": 1");
	CHECK_CONTAINS(t, "\"influence\": 1");
	CHECK_CONTAINS(t, "\"probes_only\": 1");
	CHECK_CONTAINS(t, "\"irreducible_rate\": null");
	CHECK_CONTAINS(t, "\"class\": \"influence\"");
	CHECK_CONTAINS(t, "\"closure_downloaded\": 1");
	struct hk_sweep_summary s;
	hk_sweep_summarise(d.items, d.n_items, &s);
	REQUIRE(s.n_named == 2);
	CHECK_STR_EQ("tzdata", s.named[0].package);
	CHECK_EQ_INT(3, s.named[0].sources);
	CHECK_EQ_INT(0, s.named[0].missing);
	CHECK_EQ_INT(1, s.named[0].influences);
	CHECK_STR_EQ("bison", s.named[1].package);
	CHECK_EQ_INT(1, s.named[1].missing);
	REQUIRE(s.n_influences == 1);
	CHECK_STR_EQ("b=1", s.influences[0].item->key);
	CHECK_STR_EQ("tzdata", s.influences[0].probe->package);
	CHECK_EQ_INT(3, s.debian);
	CHECK_EQ_INT(1, s.deb_counts[HK_SWEEP_INFLUENCE]);
	hk_sweep_summary_free(&s);
	struct hk_sweep_doc back;
	struct hk_error err;
	REQUIRE(hk_sweep_doc_parse(b.data, b.len, "r.json", &back, &err) == 0);
	struct hk_buf again = HK_BUF_INIT;
	hk_json_init(&j, &again, 1);
	hk_sweep_doc_json(&back, true, &j);
	CHECK_STR_EQ(hk_buf_str(&b), hk_buf_str(&again));
	REQUIRE(back.items[1].deb && back.items[1].deb->n_probes == 1);
	CHECK(back.items[1].deb->probes[0].decided);
	CHECK_EQ_INT(3, back.items[1].deb->probes[0].n_differences);
	/* Reclassified as a merge does, the classes stay. */
	hk_sweep_classify(back.items, back.n_items, fake_classify, NULL);
	CHECK_EQ_INT(HK_SWEEP_MISSING, back.items[0].outcome);
	CHECK_EQ_INT(HK_SWEEP_INFLUENCE, back.items[1].outcome);
	CHECK_EQ_INT(HK_SWEEP_PROBES, back.items[2].outcome);
	/* Without run data: the decisions stay, how the closure was got goes. */
	struct hk_buf sum = HK_BUF_INIT;
	hk_json_init(&j, &sum, 1);
	hk_sweep_doc_json(&back, false, &j);
	CHECK_CONTAINS(hk_buf_str(&sum), "\"n_differences\": 3");
	CHECK(!strstr(hk_buf_str(&sum), "closure_downloaded"));
	/* The text table and the HTML say the influence, and how the closure was got. */
	struct hk_buf tab = HK_BUF_INIT;
	hk_sweep_table(&back, &tab);
	CHECK_CONTAINS(hk_buf_str(&tab), "probes: tzdata (influence: 3 differences)");
	CHECK_CONTAINS(hk_buf_str(&tab), "closure 1, 1 downloaded");
	CHECK_CONTAINS(hk_buf_str(&tab), "undeclared influences (1):");
	struct hk_buf html = HK_BUF_INIT;
	back.store = hk_xstrdup("/s");
	hk_sweep_html(&back, &html);
	CHECK_CONTAINS(hk_buf_str(&html), "<h2>Undeclared influences (1)</h2>");
	CHECK_CONTAINS(hk_buf_str(&html), "./usr/share/hkcalc/features: content differs");
	hk_buf_free(&html);
	hk_buf_free(&tab);
	hk_buf_free(&sum);
	hk_buf_free(&again);
	hk_buf_free(&b);
	hk_sweep_doc_free(&back);
	hk_sweep_doc_free(&d);
	free(imp);
	free(fail);
}

/* The sweep's interruption (^C, SIGTERM) is no outcome of an item: an item it kept from
 * building, or cut short while building, is not built — not failed — whatever the build had
 * seen before it stopped, and stays so when a merge classifies it again. */
TEST(an_interrupted_item_is_not_built_not_failed)
{
	CHECK_STR_EQ("not_built", hk_sweep_outcome_name(HK_SWEEP_NOT_BUILT));
	CHECK_STR_EQ("not built (interrupted)", hk_sweep_outcome_label(HK_SWEEP_NOT_BUILT));
	/* Kept from building; the control: the same item failed at set-up is failed. */
	struct hk_sweep_item it;
	memset(&it, 0, sizeof(it));
	hk_sweep_item_fail(&it, "x/recipe.toml", HK_SWEEP_FAIL_INTERRUPTED,
			   "the sweep was interrupted (signal 2) before this item was built");
	CHECK_EQ_INT(HK_SWEEP_NOT_BUILT, it.outcome);
	hk_sweep_item_fail(&it, NULL, HK_SWEEP_FAIL_SETUP, "could not start");
	CHECK_EQ_INT(HK_SWEEP_FAILED, it.outcome);
	hk_sweep_item_free(&it);

	/* Cut short after a phase that saw debt and before the next one ran: the debt alone
	 * would make it irreducible (the control), the interruption makes it not built. */
	char *ph = phase("configure", 143, "Impure", NULL, denial("debt", "/opt/x"), NULL);
	item_of(&it, "configure", ph);
	CHECK_EQ_INT(HK_SWEEP_IRREDUCIBLE, it.outcome);
	hk_sweep_item_fail(&it, NULL, HK_SWEEP_FAIL_INTERRUPTED,
			   "the sweep was interrupted (signal 15) while this item was being built");
	CHECK_EQ_INT(HK_SWEEP_NOT_BUILT, it.outcome);
	CHECK_EQ_INT(1, it.n_debts);   /* what it saw stays in its record */
	hk_sweep_classify(&it, 1, fake_classify, NULL);
	CHECK_EQ_INT(HK_SWEEP_NOT_BUILT, it.outcome);
	hk_sweep_item_free(&it);
	free(ph);

	/* A Debian item: the interruption comes before the class its build's report gives. */
	char *ok = phase("build", 0, "Hermetic", NULL, "", NULL);
	deb_item_of(&it, NULL, ok, "", finding("tzdata", "debian/rules build"), "probes", "", NULL);
	CHECK_EQ_INT(HK_SWEEP_PROBES, it.outcome);
	hk_sweep_item_fail(&it, NULL, HK_SWEEP_FAIL_INTERRUPTED, "interrupted");
	CHECK_EQ_INT(HK_SWEEP_NOT_BUILT, it.outcome);
	hk_sweep_item_free(&it);
	free(ok);
}

/* A summary of seven items, three of them not built (one never started, two cut short, one
 * of those after its configure phase saw debt, the other after a phase failed): the counts add
 * up to seven, every other figure is over the four built — the shares, the measured recipes
 * and the irreducible rate, the failed builds, the debt paths and the base debt — and the
 * table, the HTML and the document say so.  The control is the same items before the
 * interruption was recorded on them, whose figures do count them. */
TEST(a_summary_with_items_not_built_counts_them_apart)
{
	struct hk_sweep_doc d = { .catalogue_size = 7 };
	const char *keys[] = { "a", "b", "c", "d", "e", "f", "g" };
	hk_sweep_catalogue_id(keys, 7, d.catalogue_id);
	d.items = hk_xcalloc(8, sizeof(*d.items));
	d.n_items = 7;
	char *herm = phase("compile", 0, "Hermetic", NULL, "", NULL);
	char *decl = phase("compile", 0, "Impure", NULL, denial("debt", "/usr/bin/make"), NULL);
	char *irre = phase("compile", 0, "Impure", NULL, denial("debt", "/opt/x"), NULL);
	char *fail = phase("compile", 2, "Hermetic", NULL, "", NULL);
	char *cut = phase("configure", 143, "Impure", NULL, denial("debt", "/usr/lib/y"), NULL);
	char *cut_fail = phase("compile", 143, "Hermetic", NULL, "", NULL);
	item_of(&d.items[0], NULL, herm);
	item_of(&d.items[1], NULL, decl);
	item_of(&d.items[2], NULL, irre);
	item_of(&d.items[3], "compile", fail);
	item_of(&d.items[4], "configure", cut);
	item_of(&d.items[5], "compile", cut_fail);
	hk_sweep_item_fail(&d.items[6], NULL, HK_SWEEP_FAIL_SETUP, "placeholder");
	for (size_t i = 0; i < 7; i++) {
		free(d.items[i].key);
		d.items[i].key = hk_xstrdup(keys[i]);
		d.items[i].ms = 1000 * (int64_t)(i + 1);
		d.items[i].exit_status = 0;
	}

	/* The control: as if the three had run to their end. */
	struct hk_sweep_summary s;
	hk_sweep_summarise(d.items, 7, &s);
	CHECK_EQ_INT(0, s.counts[HK_SWEEP_NOT_BUILT]);
	CHECK_EQ_INT(7, s.built);
	CHECK_EQ_INT(4, s.measured);
	CHECK_EQ_INT(3, s.n_paths);
	CHECK_EQ_INT(3, s.failed_builds);
	CHECK_EQ_INT(2, s.base_recipes);
	hk_sweep_summary_free(&s);
	struct hk_sweep_times t;
	hk_sweep_item_times(&d, false, &t);
	CHECK_EQ_INT(7, t.n);

	/* The interruption recorded, as the engine does. */
	hk_sweep_item_fail(&d.items[4], NULL, HK_SWEEP_FAIL_INTERRUPTED,
			   "the sweep was interrupted (signal 15) while this item was being built");
	hk_sweep_item_fail(&d.items[5], NULL, HK_SWEEP_FAIL_INTERRUPTED,
			   "the sweep was interrupted (signal 15) while this item was being built");
	hk_sweep_item_fail(&d.items[6], NULL, HK_SWEEP_FAIL_INTERRUPTED,
			   "the sweep was interrupted (signal 15) before this item was built");
	d.items[6].ms = 0;
	d.items[6].exit_status = -1;
	d.interrupted = 15;
	hk_sweep_summarise(d.items, 7, &s);
	size_t sum = 0;
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
		sum += s.counts[o];
	CHECK_EQ_INT(7, sum);
	CHECK_EQ_INT(7, s.recipes);
	CHECK_EQ_INT(3, s.counts[HK_SWEEP_NOT_BUILT]);
	CHECK_EQ_INT(1, s.counts[HK_SWEEP_FAILED]);   /* the one that really failed */
	CHECK_EQ_INT(4, s.built);
	CHECK_EQ_INT(3, s.measured);
	CHECK_EQ_INT(1, s.failed_builds);
	REQUIRE(s.n_paths == 2);   /* /usr/lib/y, seen by a build cut short, is not counted */
	CHECK_STR_EQ("/opt/x", s.paths[0].path);
	CHECK_STR_EQ("/usr/bin/make", s.paths[1].path);
	CHECK_EQ_INT(1, s.base_recipes);
	CHECK_EQ_INT(1, s.base_paths_distinct);
	hk_sweep_summary_free(&s);
	/* A build cut short took no build's time. */
	hk_sweep_item_times(&d, false, &t);
	CHECK_EQ_INT(4, t.n);
	CHECK_EQ_INT(4000, t.max_ms);

	/* The document: the new count beside the others, the rate over the measured. */
	char *text = doc_text(&d, true);
	CHECK_CONTAINS(text, "\"failed\": 1,");
	CHECK_CONTAINS(text, "\"timed_out\": 0,\n  \"not_built\": 3,\n  \"measured\": 3,");
	CHECK_CONTAINS(text, "\"irreducible_rate\": 0.333");
	CHECK_CONTAINS(text, "\"meets_target\": false");
	CHECK_CONTAINS(text, "\"outcome\": \"not_built\"");
	CHECK_CONTAINS(text, "\"code\": \"interrupted\"");
	/* Read back and classified again, as a merge does: the same document. */
	struct hk_sweep_doc back;
	struct hk_error err;
	REQUIRE(hk_sweep_doc_parse(text, strlen(text), "r.json", &back, &err) == 0);
	CHECK_EQ_INT(HK_SWEEP_NOT_BUILT, back.items[4].outcome);
	hk_sweep_classify(back.items, back.n_items, fake_classify, NULL);
	char *again = doc_text(&back, true);
	CHECK_STR_EQ(text, again);
	free(again);
	hk_sweep_doc_free(&back);
	free(text);

	/* The table: the shares of the built, the unbuilt counted apart without a share. */
	struct hk_buf tab = HK_BUF_INIT;
	hk_sweep_table(&d, &tab);
	const char *tt = hk_buf_str(&tab);
	CHECK_CONTAINS(tt, "\ntotal                        7  (4 built: the shares are of those)\n");
	CHECK_CONTAINS(tt, "\n  failed                      1   25.0 %\n");
	CHECK_CONTAINS(tt, "\n  not built (interrupted)     3\n");
	CHECK_CONTAINS(tt, "irreducible rate: 1 of 3 measured = 33.3 %");
	CHECK_CONTAINS(tt, "not measured: 1 failed, 0 without evidence, 3 not built (the sweep "
			   "was interrupted)");
	CHECK_CONTAINS(tt, "\nr       not built (interrupted)     1     1  configure=Impure");
	hk_buf_free(&tab);
	struct hk_buf html = HK_BUF_INIT;
	hk_sweep_html(&d, &html);
	CHECK_CONTAINS(hk_buf_str(&html), "3 of 7 item(s) not built (the same sweep run again "
					  "builds them); every figure and share below is of the 4 "
					  "built");
	CHECK_CONTAINS(hk_buf_str(&html), "Not measured: 1 failed, 0 without evidence, 3 not "
					  "built (the sweep was interrupted).");
	hk_buf_free(&html);
	hk_sweep_doc_free(&d);

	/* A complete sweep: 0 not built, in the document; the table and the HTML say nothing of
	 * it, and the shares are of every item. */
	struct hk_sweep_doc whole;
	make_doc(&whole, 0, 0);
	text = doc_text(&whole, false);
	CHECK_CONTAINS(text, "\"not_built\": 0,");
	free(text);
	hk_sweep_table(&whole, &tab);
	CHECK(!strstr(hk_buf_str(&tab), "not built"));
	CHECK(!strstr(hk_buf_str(&tab), "built:"));
	CHECK_CONTAINS(hk_buf_str(&tab), "\n  failed                    1   33.3 %\n");
	hk_buf_free(&tab);
	hk_sweep_html(&whole, &html);
	CHECK(!strstr(hk_buf_str(&html), "not built"));
	hk_buf_free(&html);
	hk_sweep_doc_free(&whole);
	free(herm);
	free(decl);
	free(irre);
	free(fail);
	free(cut);
	free(cut_fail);
}
