/* The wire formats between harkaq's parts, each with its one encoder and decoder in the core:
 * harkaq-exec's status events (core/formats/exec_status.c), harkaq-audit's lines (core/formats/reader_line.c),
 * a build result's failure (core/evidence/build_failure.c); and the ABI tier rule (core/formats/abi_tier.c). */
#include "harness.h"

#include <errno.h>

#include "core/formats/abi_tier.h"
#include "core/evidence/build_failure.h"
#include "core/formats/exec_status.h"
#include "core/formats/reader_line.h"
#include "core/basic/util.h"

TEST(the_tier_rule_has_its_thresholds_at_3_and_7)
{
	CHECK_EQ_INT(HK_TIER_NONE, hk_tier_of_abi(-1));
	CHECK_EQ_INT(HK_TIER_NONE, hk_tier_of_abi(0));
	CHECK_EQ_INT(HK_TIER_NONE, hk_tier_of_abi(2));
	CHECK_EQ_INT(HK_TIER_ENFORCE, hk_tier_of_abi(3));
	CHECK_EQ_INT(HK_TIER_ENFORCE, hk_tier_of_abi(6));
	CHECK_EQ_INT(HK_TIER_EVIDENCE, hk_tier_of_abi(7));
	CHECK_EQ_INT(HK_TIER_EVIDENCE, hk_tier_of_abi(10));
	CHECK_STR_EQ("none", hk_tier_name(HK_TIER_NONE));
	CHECK_STR_EQ("enforce", hk_tier_name(HK_TIER_ENFORCE));
	CHECK_STR_EQ("evidence", hk_tier_name(HK_TIER_EVIDENCE));
	enum hk_tier t = HK_TIER_NONE;
	CHECK(hk_tier_from_name("evidence", &t) && t == HK_TIER_EVIDENCE);
	CHECK(!hk_tier_from_name("strict", &t));
}

/* ---- harkaq-exec's status events ---- */

/* A "cage" line as harkaq-exec writes it (the shape docs/cage.md shows). */
static const char cage_line[] =
	"{\"event\":\"cage\",\"abi\":6,\"real_abi\":7,\"errata\":3,\"forced\":true,"
	"\"tier\":\"enforce\",\"handled_fs\":[\"execute\",\"read_file\"],\"dropped_fs\":[\"ioctl_dev\"],"
	"\"scopes\":[\"signal\"],\"dropped_scopes\":[],\"log_flags\":[\"log_new_exec_on\"],"
	"\"log_flag_withheld\":false,\"tsync\":false,\"rules\":12,\"ancestors\":4,\"ro_dirs\":1,"
	"\"beneath\":2,\"covered\":30,\"declined\":1,\"ro_sb_truncate\":0,\"installers\":2,"
	"\"missing\":[\"/usr/lib/gone\",{\"hex\":\"2f746d702fe9\"}],\"not_dirs\":[],"
	"\"seccomp\":{\"installed\":true,\"syscalls\":31,\"arches\":[\"x86_64\",\"x86\"],"
	"\"reachable\":[\"x86_64\"]},"
	"\"setup_ms\":{\"policy\":0.25,\"rules\":1.5,\"restrict\":0.125,\"seccomp\":2},"
	"\"closed_fds\":null,\"canary_probe\":\"after_exec\"}";

TEST(a_cage_event_decodes_into_its_fields)
{
	struct hk_exec_event ev;
	struct hk_error err;
	REQUIRE(hk_exec_event_decode(cage_line, strlen(cage_line), &ev, &err) == 0);
	CHECK_EQ_INT(HK_EXEC_EVENT_CAGE, ev.kind);
	const struct hk_cage_report *c = &ev.cage;
	CHECK_EQ_INT(6, c->abi);
	CHECK_EQ_INT(7, c->real_abi);
	CHECK_EQ_INT(3, c->errata);
	CHECK(c->forced);
	CHECK_EQ_INT(HK_TIER_ENFORCE, c->tier);
	REQUIRE(c->handled_fs.n == 2);
	CHECK_STR_EQ("read_file", c->handled_fs.v[1]);
	CHECK(c->log_new_exec_on);
	CHECK(!c->log_flag_withheld);
	CHECK_EQ_INT(12, c->rules);
	CHECK_EQ_INT(2, c->beneath);
	CHECK_EQ_INT(2, c->installers);
	REQUIRE(c->missing.n == 2);
	CHECK_STR_EQ("/tmp/\xe9", c->missing.v[1]);   /* bytes back from their hex form */
	CHECK(c->seccomp_installed);
	CHECK_EQ_INT(31, c->seccomp_syscalls);
	REQUIRE(c->seccomp_arches.n == 2);
	CHECK_STR_EQ("x86", c->seccomp_arches.v[1]);
	/* Installed for i386, but the kernel offers only the native table. */
	REQUIRE(c->seccomp_reachable.n == 1);
	CHECK_STR_EQ("x86_64", c->seccomp_reachable.v[0]);
	CHECK(c->setup_rules_ms == 1.5);
	CHECK_EQ_INT(-1, c->closed_fds);
	CHECK(c->canary_after_exec);
	hk_exec_event_free(&ev);
}

TEST(a_cage_event_encodes_back_to_the_same_bytes)
{
	struct hk_exec_event ev;
	struct hk_error err;
	REQUIRE(hk_exec_event_decode(cage_line, strlen(cage_line), &ev, &err) == 0);
	struct hk_buf b = HK_BUF_INIT;
	hk_exec_event_encode(&ev, &b);
	CHECK_STR_EQ(cage_line, hk_buf_str(&b));
	hk_buf_free(&b);
	hk_exec_event_free(&ev);
}

TEST(canary_and_error_events_round_trip)
{
	static const char *const lines[] = {
		"{\"event\":\"canary\",\"result\":\"denied\",\"errno\":13,\"path\":\"/.harkaq/canary-1\"}",
		"{\"event\":\"canary\",\"result\":\"opened\",\"errno\":0,\"path\":\"/c\"}",
		"{\"event\":\"error\",\"layer\":\"seccomp\",\"message\":\"refused\",\"exit\":123}",
		/* the orchestrator's own child writes no exit status */
		"{\"event\":\"error\",\"layer\":\"user\",\"message\":\"cannot switch\"}",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(lines); i++) {
		struct hk_exec_event ev;
		struct hk_error err;
		REQUIRE(hk_exec_event_decode(lines[i], strlen(lines[i]), &ev, &err) == 0);
		struct hk_buf b = HK_BUF_INIT;
		hk_exec_event_encode(&ev, &b);
		CHECK_STR_EQ(lines[i], hk_buf_str(&b));
		hk_buf_free(&b);
		hk_exec_event_free(&ev);
	}
	struct hk_exec_event ev;
	struct hk_error err;
	REQUIRE(hk_exec_event_decode(lines[0], strlen(lines[0]), &ev, &err) == 0);
	CHECK_EQ_INT(HK_CANARY_DENIED, ev.canary);
	CHECK_EQ_INT(13, ev.canary_errno);
	hk_exec_event_free(&ev);
	REQUIRE(hk_exec_event_decode(lines[2], strlen(lines[2]), &ev, &err) == 0);
	CHECK_STR_EQ("seccomp", ev.layer);
	CHECK_EQ_INT(123, ev.exit_code);
	hk_exec_event_free(&ev);
}

TEST(a_status_line_that_is_not_an_event_is_refused_with_the_reason)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "not json", "JSON:" },
		{ "{\"event\":\"cages\"}", "no known event ('cages')" },
		{ "{\"abi\":7}", "no known event ('')" },
		{ "{\"event\":\"cage\",\"abi\":\"7\"}", "member \"abi\" has the wrong type" },
		{ "{\"event\":\"cage\",\"missing\":[1]}", "member \"missing\" has the wrong type" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_exec_event ev;
		struct hk_error err;
		CHECK_EQ_INT(-EINVAL, hk_exec_event_decode(bad[i].line, strlen(bad[i].line), &ev, &err));
		CHECK_CONTAINS(err.msg, bad[i].why);
	}
	/* A cage event that names nothing keeps the defaults the orchestrator relies on. */
	struct hk_exec_event ev;
	struct hk_error err;
	REQUIRE(hk_exec_event_decode("{\"event\":\"cage\"}", 16, &ev, &err) == 0);
	CHECK_EQ_INT(-1, ev.cage.abi);
	CHECK_EQ_INT(-1, ev.cage.real_abi);
	CHECK_EQ_INT(HK_TIER_NONE, ev.cage.tier);
	hk_exec_event_free(&ev);
}

/* ---- harkaq-audit's lines ---- */

static const char ready_line[] =
	"{\"event\":\"ready\",\"confirmed\":false,\"audit\":{\"enabled\":1,\"failure\":1,\"pid\":0,"
	"\"rate_limit\":0,\"backlog_limit\":8192,\"lost\":17,\"backlog\":0,\"backlog_wait_time\":15000},"
	"\"changed\":[{\"field\":\"backlog_limit\",\"from\":64,\"to\":8192}],\"rcvbuf\":33554432,"
	"\"rcvbuf_forced\":true,\"privileges\":{\"uid\":65534,\"gid\":65534,"
	"\"capabilities\":[\"cap_audit_read\"],\"bounding_set_dropped\":true,\"no_new_privs\":true},"
	"\"caller_uid\":1001,\"filtered\":true,\"reason\":\"audit is off\"}\n";

TEST(reader_lines_round_trip_to_the_same_bytes)
{
	static const char *const lines[] = {
		ready_line,
		"{\"event\":\"record\",\"type\":1423,\"serial\":38,\"time\":\"1733078400.123\","
		"\"text\":\"domain=1a blockers=fs.read_file path=\\\"/etc/x\\\"\"}\n",
		"{\"event\":\"record\",\"type\":1300,\"serial\":null,\"time\":null,\"text\":\"arch=c000003e\"}\n",
		"{\"event\":\"overrun\",\"enobufs\":2}\n",
		"{\"event\":\"end\",\"reason\":\"stdin closed\",\"audit\":null,\"audit_error\":\"timed out\","
		"\"enobufs\":0,\"records_received\":9,\"records_forwarded\":4,\"foreign\":1,"
		"\"withheld\":3,\"evicted\":1,\"untracked\":0}\n",
		"{\"event\":\"error\",\"message\":\"no CAP_AUDIT_READ\"}\n",
		"{\"event\":\"warning\",\"message\":\"backlog not raised\"}\n",
		"{\"event\":\"status\",\"confirmed\":true,\"audit\":{\"enabled\":2,\"failure\":1,\"pid\":0,"
		"\"rate_limit\":0,\"backlog_limit\":64,\"lost\":0,\"backlog\":0,\"backlog_wait_time\":0},"
		"\"caller_uid\":0,\"filtered\":false,\"can_read\":true,\"can_control\":true,"
		"\"switchable\":false,\"evidence\":true,\"rcvbuf\":425984,\"initial_userns\":true}\n",
		"{\"event\":\"status\",\"confirmed\":false,\"audit\":null,\"caller_uid\":1001,"
		"\"filtered\":true,\"can_read\":false,\"read_error\":\"CAP_AUDIT_READ is needed\","
		"\"can_control\":false,\"control_error\":\"EPERM\",\"switchable\":false,"
		"\"evidence\":false,\"rcvbuf\":0,\"initial_userns\":null,"
		"\"reason\":\"the reader cannot read the audit stream\"}\n",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(lines); i++) {
		struct hk_reader_line l;
		struct hk_error err;
		REQUIRE(hk_reader_line_decode(lines[i], strlen(lines[i]) - 1, &l, &err) == 0);
		struct hk_buf b = HK_BUF_INIT;
		hk_reader_line_encode(&l, &b);
		CHECK_STR_EQ(lines[i], hk_buf_str(&b));
		hk_buf_free(&b);
		hk_reader_line_free(&l);
	}
}

TEST(a_ready_line_decodes_into_its_fields)
{
	struct hk_reader_line l;
	struct hk_error err;
	REQUIRE(hk_reader_line_decode(ready_line, strlen(ready_line) - 1, &l, &err) == 0);
	CHECK_EQ_INT(HK_READER_READY, l.event);
	CHECK(!l.confirmed);
	CHECK(l.has_audit);
	CHECK_EQ_INT(17, l.audit.lost);
	CHECK_EQ_INT(8192, l.audit.backlog_limit);
	REQUIRE(l.n_changed == 1);
	CHECK_STR_EQ("backlog_limit", l.changed[0].field);
	CHECK_EQ_INT(64, l.changed[0].from);
	CHECK_EQ_INT(1ULL << HK_CAP_AUDIT_READ, l.privileges.caps);
	CHECK_STR_EQ("audit is off", l.text_reason);
	CHECK_EQ_INT(1001, l.caller_uid);
	CHECK(l.filtered);
	hk_reader_line_free(&l);

	static const char rec[] = "{\"event\":\"record\",\"type\":1424,\"serial\":7,\"time\":\"5.006\","
				  "\"text\":{\"hex\":\"2f746d702fe9\"}}";
	REQUIRE(hk_reader_line_decode(rec, strlen(rec), &l, &err) == 0);
	CHECK_EQ_INT(1424, l.type);
	CHECK(l.has_stamp);
	CHECK_EQ_INT(7, l.serial);
	CHECK_EQ_INT(5, l.sec);
	CHECK_EQ_INT(6, l.msec);
	CHECK_EQ_INT(6, l.text_len);
	CHECK(memcmp(l.text, "/tmp/\xe9", 6) == 0);
	hk_reader_line_free(&l);
}

TEST(a_reader_line_that_is_not_an_event_is_refused_with_the_reason)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "{\"event\":\"readied\"}", "no known event ('readied')" },
		{ "{\"event\":\"ready\",\"confirmed\":1}", "member \"confirmed\" has the wrong type" },
		{ "{\"event\":\"end\",\"audit\":[]}", "member \"audit\" has the wrong type" },
		{ "{\"event\":\"record\",\"text\":{\"hex\":\"zz\"}}", "member \"text\" has the wrong type" },
		{ "[", "JSON:" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_reader_line l;
		struct hk_error err;
		CHECK_EQ_INT(-EINVAL, hk_reader_line_decode(bad[i].line, strlen(bad[i].line), &l, &err));
		CHECK_CONTAINS(err.msg, bad[i].why);
	}
}

/* ---- a build result's failure ---- */

static int decode_failure(const char *result, struct hk_build_failure *f, struct hk_error *err)
{
	struct hk_jval *v = NULL;
	if (hk_json_parse(result, strlen(result), &v, err) < 0)
		return -1;
	int rc = hk_build_failure_decode(v, f, err);
	hk_jval_free(v);
	return rc;
}

TEST(a_build_failure_round_trips_and_absent_means_none)
{
	static const struct hk_build_failure cases[] = {
		{ HK_BUILD_STAGE_RECIPE, 0 }, { HK_BUILD_STAGE_DEPS, 0 }, { HK_BUILD_STAGE_FETCH, 0 },
		{ HK_BUILD_STAGE_SETUP, 15 }, { HK_BUILD_STAGE_NONE, 0 },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_obj_begin(&j);
		hk_build_failure_json(&cases[i], &j);
		hk_json_obj_end(&j);
		struct hk_build_failure f = { HK_BUILD_STAGE_SETUP, 99 };
		struct hk_error err;
		CHECK_EQ_INT(0, decode_failure(hk_buf_str(&b), &f, &err));
		CHECK_EQ_INT(cases[i].stage, f.stage);
		CHECK_EQ_INT(cases[i].signal, f.signal);
		hk_buf_free(&b);
	}
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_build_failure_json(&(struct hk_build_failure){ HK_BUILD_STAGE_FETCH, 2 }, &j);
	hk_json_obj_end(&j);
	CHECK_STR_EQ("{\"failure\":{\"stage\":\"fetch\",\"signal\":2}}", hk_buf_str(&b));
	hk_buf_free(&b);
	struct hk_build_failure f;
	struct hk_error err;
	CHECK_EQ_INT(0, decode_failure("{\"error\":\"x\"}", &f, &err));
	CHECK_EQ_INT(HK_BUILD_STAGE_NONE, f.stage);
}

TEST(a_malformed_build_failure_is_refused)
{
	static const char *const bad[] = {
		"{\"failure\":\"fetch\"}",
		"{\"failure\":{\"stage\":\"compile\"}}",
		"{\"failure\":{\"stage\":\"fetch\",\"signal\":\"2\"}}",
		"{\"failure\":{\"stage\":\"setup\",\"signal\":-1}}",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_build_failure f;
		struct hk_error err;
		CHECK_EQ_INT(-EINVAL, decode_failure(bad[i], &f, &err));
		CHECK_CONTAINS(err.msg, "build result's \"failure\"");
		CHECK_EQ_INT(HK_BUILD_STAGE_NONE, f.stage);
	}
}

/* "A phase failed": one rule for the build, its reports and --confirm's answer. */
TEST(a_phase_failed_by_its_status_or_its_time_limit)
{
	CHECK(!hk_phase_failed(0, false));       /* the control: exited 0 in time */
	CHECK(hk_phase_failed(2, false));        /* make's error */
	CHECK(hk_phase_failed(137, false));      /* killed (128 + SIGKILL) */
	CHECK(hk_phase_failed(137, true));       /* killed at its --timeout */
	CHECK(hk_phase_failed(0, true));         /* stopped at its limit, whatever status it got */
}
