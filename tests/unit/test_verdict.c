/* The three-state verdict (design.md §7) on audit logs in the kernel's own text. */
#include "harness.h"

#include <stdlib.h>

#include "core/formats/json.h"
#include "core/policy/policy.h"
#include "core/evidence/verdict.h"

#define CANARY "/.harkaq/canary-5e1f0a77c2d94b13"
#define DOMAIN "1d5374efb"

static void feed_log(struct hk_evidence *ev, const char *log)
{
	const char *p = log;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (n > 0) {
			REQUIRE(strncmp(p, "type=", 5) == 0);
			char *end;
			unsigned long type = strtoul(p + 5, &end, 10);
			REQUIRE(*end == ' ');
			const char *raw = end + 1;
			struct hk_error err = { 0 };
			int r = hk_evidence_feed_raw(ev, (unsigned)type, raw, n - (size_t)(raw - p), &err);
			if (r < 0)
				HK_FAIL_AT("fixture line rejected: %s", err.msg);
		}
		p += n + (eol ? 1 : 0);
	}
}

#define CANARY_LINE(serial)                                                                   \
	"type=1423 audit(1764618003.100:" #serial "): domain=" DOMAIN " blockers=fs.read_file " \
	"path=\"" CANARY "\" dev=\"tmpfs\" ino=3\n"                                             \
	"type=1424 audit(1764618003.100:" #serial "): domain=" DOMAIN " status=allocated "      \
	"mode=enforcing pid=20200 uid=65534 exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"\n"
#define DENIAL(serial, path_field, comm)                                                      \
	"type=1423 audit(1764618003.200:" #serial "): domain=" DOMAIN " blockers=fs.read_file " \
	path_field " dev=\"overlay\" ino=" #serial "\n"                                          \
	"type=1300 audit(1764618003.200:" #serial "): arch=c000003e syscall=257 success=no "    \
	"exit=-13 pid=20300 uid=65534 comm=\"" comm "\" exe=\"/usr/bin/" comm "\" key=(null)\n" \
	"type=1320 audit(1764618003.200:" #serial "): \n"
#define DEALLOC(n)                                                                            \
	"type=1424 audit(1764618003.900:999): domain=" DOMAIN " status=deallocated denials=" #n "\n"
/* Another build's records, interleaved: they must change nothing. */
#define FOREIGN                                                                               \
	"type=1423 audit(1764618003.300:500): domain=1d5374f02 blockers=fs.read_file "          \
	"path=\"/etc/shadow\" dev=\"overlay\" ino=77\n"                                          \
	"type=1424 audit(1764618003.950:501): domain=1d5374f02 status=deallocated denials=9\n"

static struct hk_verdict_input good_input(const struct hk_evidence *ev, const struct hk_policy *p)
{
	struct hk_verdict_input in = { 0 };
	in.abi = 7;
	in.kernel_abi = 7;
	in.audit_confirmed = true;
	in.lost_before = 12;
	in.lost_after = 12;
	in.evidence = ev;
	in.policy = p;
	in.policy_id = "b3:5d1c0c2a";
	in.phase = "compile";
	return in;
}

/* The verdict of a phase whose reader saw `log`, everything else about the run good. */
static void verdict_of_log(const char *log, const struct hk_policy *p, struct hk_evidence *ev,
			   struct hk_verdict *v)
{
	hk_evidence_init(ev, CANARY);
	feed_log(ev, log);
	struct hk_verdict_input in = good_input(ev, p);
	hk_verdict_compute(&in, v);
}

static void parse_policy(const char *text, struct hk_policy *p)
{
	struct hk_error err = { 0 };
	int r = hk_policy_parse(text, strlen(text), "test.policy", p, &err);
	if (r < 0)
		HK_FAIL_AT("policy: %s", err.msg);
	REQUIRE(r == 0);
}

static char *summary_of(const struct hk_verdict *v)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_verdict_summary(v, &b);
	return hk_buf_steal(&b);
}

static struct hk_jval *json_of(const struct hk_verdict *v)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_verdict_json(v, &j);
	struct hk_jval *val = NULL;
	struct hk_error err = { 0 };
	if (hk_json_parse(b.data, b.len, &val, &err) < 0)
		HK_FAIL_AT("verdict JSON does not parse: %s\n%s", err.msg, hk_buf_str(&b));
	hk_buf_free(&b);
	return val;
}

static const char *jstr(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR ? v->str : NULL;
}

static long long jint(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JNUM && v->is_int ? (long long)v->i : -999;
}

static bool jnull(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JNULL;
}

/* ---- the three states ---- */

TEST(hermetic_canary_only)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) FOREIGN DEALLOC(1));
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	CHECK_EQ_INT(0, v.n_reasons);
	CHECK_EQ_INT(0, v.n_denials);

	char *s = summary_of(&v);
	CHECK_STR_EQ("Hermetic  (canary seen, kernel counted 1 denial = 1 record; expected: none)\n",
		     s);
	free(s);

	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	CHECK_STR_EQ("harkaq.verdict.v1", jstr(j, "kind"));
	CHECK_STR_EQ("Hermetic", jstr(j, "state"));
	CHECK_EQ_INT(0, hk_jobj_get(j, "reasons")->len);
	CHECK_EQ_INT(7, jint(j, "abi"));
	CHECK_STR_EQ("b3:5d1c0c2a", jstr(j, "policy_id"));
	CHECK(jnull(j, "recipe_hash"));
	CHECK(jnull(j, "artifact_hash"));
	CHECK_STR_EQ("compile", jstr(j, "phase"));
	const struct hk_jval *c = hk_jobj_get(j, "canary");
	REQUIRE(c && c->type == HK_JOBJ);
	CHECK_STR_EQ(CANARY, jstr(c, "path"));
	CHECK(hk_jobj_get(c, "seen")->type == HK_JBOOL && hk_jobj_get(c, "seen")->b);
	CHECK_STR_EQ(DOMAIN, jstr(c, "domain"));
	const struct hk_jval *k = hk_jobj_get(j, "kernel");
	REQUIRE(k && k->type == HK_JOBJ);
	CHECK_EQ_INT(1, jint(k, "denials"));
	CHECK_EQ_INT(1, jint(k, "records_received"));
	CHECK_EQ_INT(12, jint(k, "lost_before"));
	CHECK_EQ_INT(12, jint(k, "lost_after"));
	CHECK_EQ_INT(0, jint(k, "enobufs"));
	CHECK_EQ_INT(0, hk_jobj_get(j, "denials")->len);
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(impure_names_the_debt_and_who_tried)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DENIAL(41, "path=\"/etc/passwd\"", "cat") FOREIGN DEALLOC(2));
	struct hk_verdict_input in = good_input(&ev, NULL);
	in.recipe_hash = "b3:aa";
	in.artifact_hash = "b3:bb";
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	REQUIRE(v.n_denials == 1);
	CHECK_EQ_INT(HK_DENIAL_DEBT, v.denials[0].cls);

	char *s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (1): /etc/passwd [fs.read_file] by cat\n", s);
	free(s);

	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	CHECK_STR_EQ("Impure", jstr(j, "state"));
	CHECK_STR_EQ("b3:aa", jstr(j, "recipe_hash"));
	CHECK_STR_EQ("b3:bb", jstr(j, "artifact_hash"));
	const struct hk_jval *ds = hk_jobj_get(j, "denials");
	REQUIRE(ds && ds->type == HK_JARR && ds->len == 1);
	const struct hk_jval *d = &ds->items[0];
	CHECK_STR_EQ("debt", jstr(d, "class"));
	CHECK_STR_EQ("fs.read_file", jstr(d, "blockers"));
	CHECK_STR_EQ("/etc/passwd", jstr(d, "path"));
	CHECK_STR_EQ("overlay", jstr(d, "dev"));
	CHECK_EQ_INT(41, jint(d, "ino"));
	CHECK_STR_EQ("/usr/bin/cat", jstr(d, "exe"));
	CHECK_STR_EQ("cat", jstr(d, "comm"));
	CHECK_EQ_INT(1, jint(d, "count"));
	CHECK(jnull(d, "opid"));
	CHECK_EQ_INT(2, jint(hk_jobj_get(j, "kernel"), "denials"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(expected_denials_keep_the_build_hermetic)
{
	static const char log[] = CANARY_LINE(38)
		DENIAL(41, "path=\"/usr/bin/gcc\"", "zig")
		DENIAL(42, "path=\"/usr/bin/gcc\"", "zig")
		DENIAL(43, "path=\"/usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so\"", "ld")
		DENIAL(44, "path=\"/usr/bin/gcc\"", "zig")
		DEALLOC(5);
	struct hk_policy expecting = HK_POLICY_INIT, plain = HK_POLICY_INIT;
	parse_policy("harkaq-policy 1\nexpect /usr/bin/gcc\nexpect /usr/lib/gcc/\n", &expecting);
	parse_policy("harkaq-policy 1\n", &plain);

	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, log);
	struct hk_verdict_input in = good_input(&ev, &expecting);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	CHECK_EQ_INT(2, v.n_expected);
	CHECK_EQ_INT(0, v.n_debt);
	REQUIRE(v.n_denials == 2);
	/* Deduplicated in first-seen order; counts add up to records - canary. */
	CHECK_STR_EQ("/usr/bin/gcc", v.denials[0].path);
	CHECK_EQ_INT(3, v.denials[0].count);
	CHECK_EQ_INT(1, v.denials[1].count);
	CHECK_EQ_INT(v.records_received - v.canary_records, v.denials[0].count + v.denials[1].count);
	char *s = summary_of(&v);
	CHECK_STR_EQ("Hermetic  (canary seen, kernel counted 5 denials = 5 records; expected: 2)\n"
		     "  expected (2): /usr/bin/gcc [fs.read_file] by zig x3\n"
		     "    /usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so [fs.read_file] by ld\n",
		     s);
	free(s);
	hk_verdict_free(&v);

	/* Positive control: the same records under a policy without expectations are debt. */
	in.policy = &plain;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	CHECK_EQ_INT(2, v.n_debt);
	s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (2): /usr/bin/gcc [fs.read_file] by zig x3\n"
		     "    /usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so [fs.read_file] by ld\n",
		     s);
	free(s);
	hk_verdict_free(&v);

	hk_evidence_free(&ev);
	hk_policy_free(&expecting);
	hk_policy_free(&plain);
}

TEST(debt_and_expected_together)
{
	struct hk_policy pol = HK_POLICY_INIT;
	parse_policy("harkaq-policy 1\nexpect /usr/bin/gcc\n", &pol);
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DENIAL(41, "path=\"/usr/bin/gcc\"", "zig")
		 DENIAL(42, "path=\"/usr/lib/libz.so.1.3.2\"", "ld") DEALLOC(3));
	struct hk_verdict_input in = good_input(&ev, &pol);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	char *s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (1): /usr/lib/libz.so.1.3.2 [fs.read_file] by ld\n"
		     "  expected (1): /usr/bin/gcc [fs.read_file] by zig\n", s);
	free(s);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	const struct hk_jval *ds = hk_jobj_get(j, "denials");
	REQUIRE(ds && ds->len == 2);
	CHECK_STR_EQ("expected", jstr(&ds->items[0], "class"));
	CHECK_STR_EQ("debt", jstr(&ds->items[1], "class"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
	hk_policy_free(&pol);
}

/* ---- NoEvidence ---- */

TEST(lost_records_are_no_evidence)
{
	static const char four[] = CANARY_LINE(38)
		DENIAL(41, "path=\"/etc/passwd\"", "cat") DENIAL(42, "path=\"/etc/group\"", "cat")
		DENIAL(43, "path=\"/etc/hosts\"", "cat");
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, four);
	feed_log(&ev, DEALLOC(5));
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_RECORDS_LOST, v.reasons[0].code);
	CHECK_CONTAINS(v.reasons[0].message, "kernel counted 5 denials");
	CHECK_CONTAINS(v.reasons[0].message, "received 4 records");
	/* What did arrive is still shown, as unvouched. */
	CHECK_EQ_INT(3, v.n_debt);
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "NoEvidence  records lost: the kernel counted 5 denials in domain "
		       DOMAIN ", the reader received 4 records\n");
	CHECK_CONTAINS(s, "  unvouched debt (3): /etc/passwd [fs.read_file] by cat\n");
	free(s);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	CHECK_STR_EQ("NoEvidence", jstr(j, "state"));
	const struct hk_jval *rs = hk_jobj_get(j, "reasons");
	REQUIRE(rs && rs->len == 1);
	CHECK_STR_EQ("records_lost", jstr(&rs->items[0], "code"));
	CHECK_CONTAINS(jstr(&rs->items[0], "message"), "received 4 records");
	CHECK_EQ_INT(5, jint(hk_jobj_get(j, "kernel"), "denials"));
	CHECK_EQ_INT(4, jint(hk_jobj_get(j, "kernel"), "records_received"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);

	/* Positive control: the same four records with denials=4 are a verdict. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, four);
	feed_log(&ev, DEALLOC(4));
	in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	CHECK_EQ_INT(0, v.n_reasons);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(no_deallocation_is_no_evidence)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	/* Another domain's deallocation must not stand in for ours. */
	feed_log(&ev, CANARY_LINE(38) FOREIGN);
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_NO_DEALLOCATION, v.reasons[0].code);
	CHECK_STR_EQ("no_deallocation", hk_reason_code(v.reasons[0].code));
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	CHECK(jnull(hk_jobj_get(j, "kernel"), "denials"));
	CHECK_EQ_INT(1, jint(hk_jobj_get(j, "kernel"), "records_received"));
	hk_jval_free(j);
	hk_verdict_free(&v);

	/* Control: the deallocation arrives, and the same run is Hermetic. */
	feed_log(&ev, DEALLOC(1));
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(missing_canary_is_never_hermetic_even_with_denials)
{
	/* Denials of a domain arrive, but not this run's canary: nothing can be attributed. */
	static const char log[] =
		"type=1423 audit(1764618003.200:41): domain=" DOMAIN " blockers=fs.read_file "
		"path=\"/etc/passwd\" dev=\"overlay\" ino=41\n"
		"type=1424 audit(1764618003.900:99): domain=" DOMAIN " status=deallocated denials=1\n";
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, log);
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_CANARY_NOT_SEEN, v.reasons[0].code);
	CHECK_EQ_INT(0, v.n_denials);
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "NoEvidence  canary not seen: the kernel's logging did not reach the "
		       "reader (no denial of " CANARY " arrived");
	free(s);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	const struct hk_jval *c = hk_jobj_get(j, "canary");
	CHECK(!hk_jobj_get(c, "seen")->b);
	CHECK(jnull(c, "domain"));
	CHECK(jnull(hk_jobj_get(j, "kernel"), "denials"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);

	/* No records at all (the silent reader): the same verdict. */
	hk_evidence_init(&ev, CANARY);
	in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	CHECK(hk_verdict_has_reason(&v, HK_REASON_CANARY_NOT_SEEN));
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(abi_below_7_and_forced_abi)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	/* Even complete-looking evidence does not rescue an ABI that cannot log. */
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1));
	struct hk_verdict_input in = good_input(&ev, NULL);
	in.abi = 6;
	in.kernel_abi = 6;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_ABI_BELOW_7, v.reasons[0].code);
	CHECK_CONTAINS(v.reasons[0].message, "ABI 6");
	hk_verdict_free(&v);

	/* A kernel with ABI 7 told to behave as 6: both reasons, the ABI first. */
	in.kernel_abi = 7;
	hk_verdict_compute(&in, &v);
	REQUIRE(v.n_reasons == 2);
	CHECK_EQ_INT(HK_REASON_ABI_BELOW_7, v.reasons[0].code);
	CHECK_EQ_INT(HK_REASON_FORCED_ABI, v.reasons[1].code);
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "NoEvidence  Landlock ABI 6 is below 7");
	CHECK_CONTAINS(s, "\n  also: forced ABI: the cage was told to behave as Landlock ABI 6 on "
		       "a kernel with ABI 7");
	free(s);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	const struct hk_jval *rs = hk_jobj_get(j, "reasons");
	REQUIRE(rs && rs->len == 2);
	CHECK_STR_EQ("abi_below_7", jstr(&rs->items[0], "code"));
	CHECK_STR_EQ("forced_abi", jstr(&rs->items[1], "code"));
	CHECK_EQ_INT(6, jint(j, "abi"));
	CHECK_EQ_INT(7, jint(j, "kernel_abi"));
	hk_jval_free(j);
	hk_verdict_free(&v);

	/* No Landlock at all, no reader run: one reason, not a pile of symptoms. */
	struct hk_verdict_input none = { 0 };
	none.audit_confirmed = true;
	hk_verdict_compute(&none, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_STR_EQ("no_landlock", hk_reason_code(v.reasons[0].code));
	hk_verdict_free(&v);

	/* Control: ABI 7 on an ABI 7 kernel with the same evidence is Hermetic. */
	in.abi = 7;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(every_condition_is_kept_causes_first)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	/* No deallocation record: the domain's count is incomplete, so the global loss
	 * counters are reasons too (with a complete count they are not: the next test). */
	feed_log(&ev, CANARY_LINE(38));
	struct hk_verdict_input in = good_input(&ev, NULL);
	in.audit_confirmed = false;
	in.reader_failed = true;
	in.reader_error = "recv on the audit socket: Connection reset by peer";
	in.cage_incomplete = true;
	in.cage_incomplete_detail = "LOG_NEW_EXEC_ON withheld by --test-no-log-new-exec";
	in.lost_after = 15;
	in.enobufs = 2;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	static const enum hk_reason want[] = {
		HK_REASON_CAGE_INCOMPLETE, HK_REASON_AUDIT_NOT_CONFIRMED, HK_REASON_READER_FAILED,
		HK_REASON_NO_DEALLOCATION, HK_REASON_KERNEL_LOST_COUNTER_ROSE,
		HK_REASON_RECEIVE_OVERRUN,
	};
	REQUIRE(v.n_reasons == sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < v.n_reasons; i++)
		CHECK_EQ_INT(want[i], v.reasons[i].code);
	CHECK_CONTAINS(v.reasons[0].message, "LOG_NEW_EXEC_ON withheld");
	CHECK_CONTAINS(v.reasons[2].message, "Connection reset by peer");
	CHECK_CONTAINS(v.reasons[4].message, "from 12 to 15");
	CHECK_CONTAINS(v.reasons[5].message, "2 times");
	hk_verdict_free(&v);
	hk_evidence_free(&ev);

	/* One at a time, each alone is enough to withhold the verdict of a domain whose count
	 * is incomplete. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38));
	for (int k = 0; k < 4; k++) {
		in = good_input(&ev, NULL);
		enum hk_reason expect;
		switch (k) {
		case 0: in.lost_after = 13; expect = HK_REASON_KERNEL_LOST_COUNTER_ROSE; break;
		case 1: in.lost_after = 0; expect = HK_REASON_KERNEL_LOST_COUNTER_ROSE; break;
		case 2: in.enobufs = 1; expect = HK_REASON_RECEIVE_OVERRUN; break;
		default: in.canary_opened = true; expect = HK_REASON_CANARY_OPENED; break;
		}
		hk_verdict_compute(&in, &v);
		CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
		CHECK(v.n_reasons == 2 && hk_verdict_has_reason(&v, HK_REASON_NO_DEALLOCATION) &&
		      hk_verdict_has_reason(&v, expect));
		hk_verdict_free(&v);
	}
	hk_evidence_free(&ev);
	/* Control: none of them, and the count complete: Hermetic. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1));
	in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

/* A neighbour flooding denials moves the global counters; a domain that accounted for all its
 * own denials stands, the global loss kept in the verdict.  A domain that did not is still
 * NoEvidence, with the global loss among its reasons. */
TEST(global_loss_withholds_only_a_domain_whose_own_count_is_incomplete)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	struct hk_policy p = HK_POLICY_INIT;
	parse_policy("harkaq-policy 1\n", &p);
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) FOREIGN DENIAL(40, "path=\"/usr/bin/make\"", "sh") DEALLOC(2));
	for (int k = 0; k < 4; k++) {
		struct hk_verdict_input in = good_input(&ev, &p);
		switch (k) {
		case 0: in.lost_after = 512; break;
		case 1: in.lost_after = 0; break;
		case 2: in.enobufs = 19; break;
		default: in.lost_after = 40; in.enobufs = 3; break;
		}
		hk_verdict_compute(&in, &v);
		CHECK_EQ_INT(HK_IMPURE, v.state);
		CHECK_EQ_INT(0, v.n_reasons);
		CHECK(v.count_complete);
		char *s = summary_of(&v);
		if (k == 0)
			CHECK_CONTAINS(s, "note: audit's lost counter went from 12 to 512 during the "
					  "run, none of it this domain's (its 2 denials all arrived)");
		if (k == 2)
			CHECK_CONTAINS(s, "note: the reader's socket overflowed 19 times during the run");
		free(s);
		/* Recorded in the verdict itself, not only said. */
		struct hk_jval *j = json_of(&v);
		const struct hk_jval *kern = hk_jobj_get(j, "kernel");
		CHECK_EQ_INT((long long)in.lost_after, jint(kern, "lost_after"));
		CHECK_EQ_INT((long long)in.enobufs, jint(kern, "enobufs"));
		hk_jval_free(j);
		hk_verdict_free(&v);
	}
	/* Control: no global loss, no note. */
	struct hk_verdict_input in = good_input(&ev, &p);
	hk_verdict_compute(&in, &v);
	char *s = summary_of(&v);
	CHECK(strstr(s, "note:") == NULL);
	free(s);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);

	/* The same global loss, and one record of the domain missing: NoEvidence. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DENIAL(40, "path=\"/usr/bin/make\"", "sh") DEALLOC(3));
	in = good_input(&ev, &p);
	in.lost_after = 512;
	in.enobufs = 19;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	CHECK(!v.count_complete);
	REQUIRE(v.n_reasons == 3);
	CHECK_EQ_INT(HK_REASON_RECORDS_LOST, v.reasons[0].code);
	CHECK_EQ_INT(HK_REASON_KERNEL_LOST_COUNTER_ROSE, v.reasons[1].code);
	CHECK_EQ_INT(HK_REASON_RECEIVE_OVERRUN, v.reasons[2].code);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);

	/* A canary seen in two domains is not a count of one domain. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1)
		 "type=1423 audit(1764618003.400:41): domain=1d5374f02 blockers=fs.read_file "
		 "path=\"" CANARY "\" dev=\"tmpfs\" ino=3\n");
	in = good_input(&ev, &p);
	in.enobufs = 1;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	CHECK(hk_verdict_has_reason(&v, HK_REASON_CANARY_AMBIGUOUS));
	CHECK(hk_verdict_has_reason(&v, HK_REASON_RECEIVE_OVERRUN));
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
	hk_policy_free(&p);
}

TEST(no_evidence_object_means_the_reader_failed)
{
	struct hk_verdict v;
	struct hk_verdict_input in = good_input(NULL, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_READER_FAILED, v.reasons[0].code);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	CHECK(jnull(hk_jobj_get(j, "canary"), "path"));
	hk_jval_free(j);
	hk_verdict_free(&v);
}

TEST(canary_in_two_domains_is_no_evidence)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1)
		 "type=1423 audit(1764618004.000:60): domain=1d5374f02 blockers=fs.read_file "
		 "path=\"" CANARY "\" dev=\"tmpfs\" ino=3\n");
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	CHECK(hk_verdict_has_reason(&v, HK_REASON_CANARY_AMBIGUOUS));
	CHECK_CONTAINS(v.reasons[0].message, "1d5374f02");
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

/* ---- bytes ---- */

TEST(untrusted_bytes_are_escaped_for_humans_and_exact_in_json)
{
	/* Paths the kernel writes in hex: a space, a quote, UTF-8, "(deleted)", a newline and a
	 * byte that is not UTF-8. */
	static const char log[] = CANARY_LINE(38)
		DENIAL(41, "path=2F746D702F6B66616374732F642073702F662031", "cc")
		DENIAL(42, "path=2F746D702F6B6620712278", "cc")
		DENIAL(43, "path=2F746D702F6B665FC3A974C3A9", "cc")
		DENIAL(44, "path=2F746D702F6B6664656C202864656C6574656429", "cc")
		DENIAL(45, "path=2F746D702F610A62", "cc")
		DENIAL(46, "path=2F746D702FFF5C", "cc")
		DEALLOC(7);
	struct hk_evidence ev;
	struct hk_verdict v;
	verdict_of_log(log, NULL, &ev, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	CHECK_EQ_INT(6, v.n_debt);
	char *s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (6): /tmp/kfacts/d sp/f 1 [fs.read_file] by cc\n"
		     "    /tmp/kf q\"x [fs.read_file] by cc\n"
		     "    /tmp/kf_\xc3\xa9t\xc3\xa9 [fs.read_file] by cc\n"
		     "    /tmp/kfdel (deleted) [fs.read_file] by cc\n"
		     "    /tmp/a\\x0Ab [fs.read_file] by cc\n"
		     "    /tmp/\\xFF\\\\ [fs.read_file] by cc\n", s);
	free(s);

	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	const struct hk_jval *ds = hk_jobj_get(j, "denials");
	REQUIRE(ds && ds->len == 6);
	CHECK_STR_EQ("/tmp/kf q\"x", jstr(&ds->items[1], "path"));
	CHECK_STR_EQ("/tmp/kf_\xc3\xa9t\xc3\xa9", jstr(&ds->items[2], "path"));
	CHECK_STR_EQ("/tmp/a\nb", jstr(&ds->items[4], "path"));
	/* Not UTF-8: the reversible hex form. */
	size_t n = 0;
	char *bytes = hk_jval_bytes(hk_jobj_get(&ds->items[5], "path"), &n);
	REQUIRE(bytes);
	CHECK_EQ_INT(7, n);
	CHECK(memcmp(bytes, "/tmp/\xff\\", 7) == 0);
	free(bytes);
	CHECK(hk_jobj_get(&ds->items[5], "path")->type == HK_JOBJ);
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(human_escaping_rejects_deceptive_characters)
{
	struct hk_buf b = HK_BUF_INIT;
	/* U+202E RIGHT-TO-LEFT OVERRIDE, an overlong '/', a lone continuation byte, DEL. */
	hk_escape_human("a\xe2\x80\xae" "b\xc0\xaf" "c\x80" "d\x7f", 11, &b);
	CHECK_STR_EQ("a\\xE2\\x80\\xAEb\\xC0\\xAFc\\x80d\\x7F", hk_buf_str(&b));
	hk_buf_reset(&b);
	/* Control: printable non-ASCII passes (é, €, a 4-byte emoji). */
	hk_escape_human("\xc3\xa9\xe2\x82\xac\xf0\x9f\x93\xa6", 9, &b);
	CHECK_STR_EQ("\xc3\xa9\xe2\x82\xac\xf0\x9f\x93\xa6", hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(scope_denials_name_the_target_process)
{
	static const char log[] = CANARY_LINE(38)
		"type=1423 audit(1764618003.300:50): domain=" DOMAIN " blockers=scope.signal "
		"opid=4242 ocomm=\"sshd\"\n"
		"type=1300 audit(1764618003.300:50): arch=c000003e syscall=62 success=no exit=-1 "
		"pid=20300 comm=\"kill\" exe=\"/usr/bin/kill\"\n"
		"type=1423 audit(1764618003.301:51): domain=" DOMAIN " blockers=scope.signal "
		"opid=4243 ocomm=\"sshd\"\n"
		DEALLOC(3);
	struct hk_evidence ev;
	struct hk_verdict v;
	verdict_of_log(log, NULL, &ev, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	REQUIRE(v.n_denials == 1);
	CHECK_EQ_INT(2, v.denials[0].count);
	char *s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (1): process 4242 (sshd) [scope.signal] by kill x2\n", s);
	free(s);
	struct hk_jval *j = json_of(&v);
	REQUIRE(j);
	const struct hk_jval *d = &hk_jobj_get(j, "denials")->items[0];
	CHECK(jnull(d, "path"));
	CHECK_EQ_INT(4242, jint(d, "opid"));
	CHECK_STR_EQ("sshd", jstr(d, "ocomm"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(timed_out_run_is_never_hermetic)
{
	/* The same clean evidence: Hermetic as a control, NoEvidence once the run was killed at
	 * its time limit (what it would have read afterwards is unknown). */
	struct hk_evidence ev;
	struct hk_verdict v;
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1));
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	hk_verdict_free(&v);
	in.timed_out = true;
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	CHECK(hk_verdict_has_reason(&v, HK_REASON_TIMED_OUT));
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "timed out");
	free(s);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(a_phase_without_a_canary_nonce_is_noevidence_and_not_run)
{
	struct hk_evidence ev;
	struct hk_verdict v;
	/* Control: the same run, its canary seen and counted, is Hermetic. */
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38) DEALLOC(1));
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_HERMETIC, v.state);
	hk_verdict_free(&v);
	hk_verdict_no_canary_nonce(&in, "getrandom: Function not implemented", &v);
	CHECK_EQ_INT(HK_NOEVIDENCE, v.state);
	REQUIRE(v.n_reasons == 1);
	CHECK_EQ_INT(HK_REASON_NO_CANARY_NONCE, v.reasons[0].code);
	CHECK_CONTAINS(v.reasons[0].message, "getrandom: Function not implemented");
	CHECK_CONTAINS(v.reasons[0].message, "the phase was not run");
	/* What the run is stays; what it never collected is not claimed. */
	CHECK_STR_EQ("compile", v.phase);
	CHECK_STR_EQ("b3:5d1c0c2a", v.policy_id);
	CHECK(!v.canary_seen);
	CHECK(v.canary_path == NULL);
	CHECK_EQ_INT(0, v.n_denials);
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "NoEvidence");
	CHECK_CONTAINS(s, "no canary nonce");
	free(s);
	struct hk_jval *j = json_of(&v);
	const struct hk_jval *reasons = hk_jobj_get(j, "reasons");
	REQUIRE(reasons && reasons->type == HK_JARR && reasons->len == 1);
	CHECK_STR_EQ("no_canary_nonce", hk_jobj_str(&reasons->items[0], "code"));
	hk_jval_free(j);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

TEST(reason_names_are_stable_and_complete)
{
	static const char *const names[HK_REASON_COUNT] = {
		"no_landlock", "abi_below_7", "forced_abi", "cage_incomplete",
		"audit_not_confirmed", "reader_failed", "canary_opened", "canary_ambiguous",
		"canary_not_seen", "no_deallocation", "records_lost", "kernel_lost_counter_rose",
		"receive_overrun", "timed_out", "no_canary_nonce",
	};
	for (int r = 0; r < HK_REASON_COUNT; r++) {
		CHECK_STR_EQ(names[r], hk_reason_code((enum hk_reason)r));
		CHECK(hk_reason_description((enum hk_reason)r) != NULL);
	}
	CHECK(hk_reason_code(HK_REASON_COUNT) == NULL);
	CHECK_STR_EQ("NoEvidence", hk_verdict_state_name(HK_NOEVIDENCE));
}

TEST(large_runs_deduplicate_with_exact_counts)
{
	/* 3000 denials over 100 distinct paths, as a build scanning headers repeatedly. */
	struct hk_evidence ev;
	struct hk_verdict v;
	struct hk_error err = { 0 };
	char text[256];
	hk_evidence_init(&ev, CANARY);
	feed_log(&ev, CANARY_LINE(38));
	for (int i = 0; i < 3000; i++) {
		int n = snprintf(text, sizeof(text), "domain=" DOMAIN " blockers=fs.read_file "
				 "path=\"/usr/include/h%d.h\" dev=\"overlay\" ino=%d", i % 100, i % 100);
		REQUIRE(hk_evidence_feed(&ev, 1423, 1000 + (uint64_t)i, text, (size_t)n, &err) == 0);
	}
	feed_log(&ev, DEALLOC(3001));
	struct hk_verdict_input in = good_input(&ev, NULL);
	hk_verdict_compute(&in, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	REQUIRE(v.n_denials == 100);
	uint64_t sum = 0;
	for (size_t i = 0; i < v.n_denials; i++) {
		char want[64];
		snprintf(want, sizeof(want), "/usr/include/h%zu.h", i);
		CHECK_STR_EQ(want, v.denials[i].path);
		CHECK_EQ_INT(30, v.denials[i].count);
		sum += v.denials[i].count;
	}
	CHECK_EQ_INT(3000, sum);
	char *s = summary_of(&v);
	CHECK_CONTAINS(s, "    ... and 90 more (the JSON verdict lists them all)\n");
	free(s);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}

/* A program run without being declared is denied twice under two sets of rights (read by one
 * process, executed by another): the verdict keeps both denials, as the kernel reported them,
 * and the summary shows one path with the rights of both, counted once (docs/diagnosis.md,
 * "One path, one entry"). */
TEST(two_denials_of_one_path_are_one_summary_item)
{
	static const char log[] = CANARY_LINE(38)
		DENIAL(40, "path=\"/usr/bin/dd\"", "cat")
		"type=1423 audit(1764618003.300:41): domain=" DOMAIN " blockers=fs.execute,fs.read_file "
		"path=\"/usr/bin/dd\" dev=\"overlay\" ino=40\n"
		"type=1423 audit(1764618003.300:42): domain=" DOMAIN " blockers=fs.execute,fs.read_file "
		"path=\"/usr/bin/dd\" dev=\"overlay\" ino=40\n"
		DENIAL(43, "path=\"/usr/bin/tee\"", "sh")
		DEALLOC(5);
	struct hk_evidence ev;
	struct hk_verdict v;
	verdict_of_log(log, NULL, &ev, &v);
	CHECK_EQ_INT(HK_IMPURE, v.state);
	/* Control: the verdict itself is the faithful record, one denial per (path, rights). */
	REQUIRE(v.n_denials == 3);
	CHECK_STR_EQ("fs.read_file", v.denials[0].blockers);
	CHECK_STR_EQ("fs.execute,fs.read_file", v.denials[1].blockers);
	CHECK(hk_denial_same_path(&v.denials[0], &v.denials[1]));
	CHECK(!hk_denial_same_path(&v.denials[0], &v.denials[2]));
	char *s = summary_of(&v);
	CHECK_STR_EQ("Impure  debt (2): /usr/bin/dd [fs.read_file,fs.execute] by cat x3\n"
		     "    /usr/bin/tee [fs.read_file] by sh\n", s);
	free(s);
	hk_verdict_free(&v);
	hk_evidence_free(&ev);
}
