/* One run's evidence from the global audit stream: canary attribution, who tried, and the
 * kernel count.  Fixtures are audit logs in the kernel's own text (kernel-facts.md §3), as the
 * reader forwards them: "type=N audit(SEC.MSEC:SERIAL): fields". */
#include "harness.h"

#include <stdlib.h>

#include "core/evidence/evidence.h"

#define CANARY_A "/.harkaq/canary-5e1f0a77c2d94b13"
#define CANARY_B "/.harkaq/canary-b0c4a2f96e1d3857"

/* Feeds every line of a log; returns the number of lines that failed to parse. */
static int feed_log(struct hk_evidence *ev, const char *log)
{
	int failures = 0;
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
			if (hk_evidence_feed_raw(ev, (unsigned)type, raw, n - (size_t)(raw - p), &err) < 0)
				failures++;
		}
		p += n + (eol ? 1 : 0);
	}
	return failures;
}

/* Two builds running at once (domains 1d5374efb = A and 1d5374f02 = B), interleaved as the
 * host reader receives them, plus an unrelated SYSCALL of the host.  A's first denial comes
 * before its canary, so A's allocated record does too. */
static const char two_builds[] =
	"type=1423 audit(1764618003.101:100): domain=1d5374f02 blockers=fs.read_file "
	"path=\"/etc/hosts\" dev=\"overlay\" ino=5123\n"
	"type=1424 audit(1764618003.101:100): domain=1d5374f02 status=allocated mode=enforcing "
	"pid=20100 uid=65534 exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"\n"
	"type=1300 audit(1764618003.101:100): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffd5b2c1e30 a2=0 a3=0 items=0 ppid=20099 pid=20100 auid=4294967295 "
	"uid=65534 gid=65534 euid=65534 suid=65534 fsuid=65534 egid=65534 sgid=65534 "
	"fsgid=65534 tty=(none) ses=4294967295 comm=\"cat\" exe=\"/usr/bin/cat\" key=(null)\n"
	"type=1327 audit(1764618003.101:100): proctitle=636174002F6574632F686F737473\n"
	"type=1320 audit(1764618003.101:100): \n"
	"type=1423 audit(1764618003.102:101): domain=1d5374efb blockers=fs.read_file "
	"path=2F6574632F6D792070617373 dev=\"overlay\" ino=7001\n"
	"type=1424 audit(1764618003.102:101): domain=1d5374efb status=allocated mode=enforcing "
	"pid=20200 uid=65534 exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"\n"
	"type=1300 audit(1764618003.102:101): arch=c000003e syscall=257 success=no exit=-13 "
	"ppid=20199 pid=20200 uid=65534 comm=\"harkaq-exec\" exe=\"/.harkaq/harkaq-exec\" "
	"key=(null)\n"
	"type=1320 audit(1764618003.102:101): \n"
	"type=1423 audit(1764618003.103:102): domain=1d5374efb blockers=fs.read_file "
	"path=\"" CANARY_A "\" dev=\"tmpfs\" ino=3\n"
	"type=1300 audit(1764618003.103:102): arch=c000003e syscall=257 success=no exit=-13 "
	"pid=20201 uid=65534 comm=\"harkaq-exec\" exe=\"/.harkaq/harkaq-exec\" key=(null)\n"
	"type=1300 audit(1764618003.103:103): arch=c000003e syscall=59 success=yes exit=0 "
	"pid=999 uid=0 comm=\"cron\" exe=\"/usr/sbin/cron\" key=(null)\n"
	"type=1423 audit(1764618003.104:104): domain=1d5374f02 blockers=fs.read_file "
	"path=\"" CANARY_B "\" dev=\"tmpfs\" ino=3\n"
	"type=1423 audit(1764618003.105:105): domain=1d5374efb blockers=fs.execute,fs.read_file "
	"path=\"/usr/bin/gcc\" dev=\"overlay\" ino=8811\n"
	"type=1423 audit(1764618003.105:106): domain=1d5374f02 blockers=fs.read_file "
	"path=\"/usr/lib/libz.so.1\" dev=\"overlay\" ino=9001\n"
	"type=1300 audit(1764618003.105:105): arch=c000003e syscall=59 success=no exit=-13 "
	"pid=20230 uid=65534 comm=\"zig\" exe=\"/opt/zig/zig\" key=(null)\n"
	"type=1300 audit(1764618003.105:106): arch=c000003e syscall=257 success=no exit=-13 "
	"pid=20150 uid=65534 comm=\"ld\" exe=\"/usr/bin/ld\" key=(null)\n"
	"type=1423 audit(1764618003.106:107): domain=1d5374f02 blockers=fs.read_file "
	"path=\"/usr/include/stdio.h\" dev=\"overlay\" ino=9002\n"
	"type=1424 audit(1764618003.201:110): domain=1d5374f02 status=deallocated denials=4\n"
	"type=1424 audit(1764618003.251:111): domain=1d5374efb status=deallocated denials=3\n";

TEST(attributes_by_canary_domain_among_concurrent_builds)
{
	struct hk_evidence ev;
	hk_evidence_init(&ev, CANARY_A);
	CHECK_EQ_INT(0, feed_log(&ev, two_builds));

	REQUIRE(hk_evidence_canary_seen(&ev));
	CHECK(hk_evidence_domain(&ev) == 0x1d5374efbULL);
	/* The pre-canary denial, the canary, gcc; none of B's. */
	CHECK_EQ_INT(3, hk_evidence_records_received(&ev));
	CHECK_EQ_INT(1, hk_evidence_canary_records(&ev));
	REQUIRE(ev.n_records == 3);
	for (size_t i = 0; i < ev.n_records; i++)
		CHECK(ev.records[i].access.domain == 0x1d5374efbULL);
	CHECK_STR_EQ("/etc/my pass", ev.records[0].access.path);
	CHECK(ev.records[1].is_canary);
	CHECK_STR_EQ("/usr/bin/gcc", ev.records[2].access.path);

	/* Who tried: the SYSCALL record of the same serial, not the domain's creator. */
	CHECK_STR_EQ("harkaq-exec", ev.records[0].comm);
	CHECK_STR_EQ("zig", ev.records[2].comm);
	CHECK_STR_EQ("/opt/zig/zig", ev.records[2].exe);

	/* A's own allocated and deallocated records, which arrived around B's. */
	const struct hk_landlock_domain *alloc = hk_evidence_allocated(&ev);
	REQUIRE(alloc);
	CHECK(alloc->pid == 20200);
	/* B's deallocation (denials=4) came first and must not be taken for A's. */
	REQUIRE(hk_evidence_dealloc_seen(&ev));
	CHECK(hk_evidence_kernel_denials(&ev) == 3);
	CHECK(!ev.canary_conflict);
	hk_evidence_free(&ev);
}

TEST(the_other_build_gets_only_its_own_records_from_the_same_stream)
{
	struct hk_evidence ev;
	hk_evidence_init(&ev, CANARY_B);
	CHECK_EQ_INT(0, feed_log(&ev, two_builds));
	REQUIRE(hk_evidence_canary_seen(&ev));
	CHECK(hk_evidence_domain(&ev) == 0x1d5374f02ULL);
	CHECK_EQ_INT(4, hk_evidence_records_received(&ev));
	REQUIRE(ev.n_records == 4);
	CHECK_STR_EQ("/etc/hosts", ev.records[0].access.path);
	CHECK_STR_EQ("cat", ev.records[0].comm);
	CHECK(ev.records[1].is_canary);
	CHECK_STR_EQ("/usr/lib/libz.so.1", ev.records[2].access.path);
	CHECK_STR_EQ("ld", ev.records[2].comm);
	CHECK_STR_EQ("/usr/include/stdio.h", ev.records[3].access.path);
	CHECK(hk_evidence_allocated(&ev)->pid == 20100);
	CHECK(hk_evidence_kernel_denials(&ev) == 4);
	hk_evidence_free(&ev);
}

TEST(a_run_whose_canary_never_came_adopts_nothing)
{
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/.harkaq/canary-0000000000000000");
	CHECK_EQ_INT(0, feed_log(&ev, two_builds));
	CHECK(!hk_evidence_canary_seen(&ev));
	CHECK(hk_evidence_domain(&ev) == 0);
	CHECK_EQ_INT(0, hk_evidence_records_received(&ev));
	/* Other domains' deallocations must not pass for this run's. */
	CHECK(!hk_evidence_dealloc_seen(&ev));
	CHECK(hk_evidence_allocated(&ev) == NULL);
	/* Positive control: the records did arrive; they are just nobody's yet. */
	CHECK_EQ_INT(7, ev.n_records);
	CHECK_EQ_INT(4, ev.n_pending_domains);
	hk_evidence_free(&ev);
}

TEST(syscall_record_before_the_access_record_still_attaches)
{
	static const char log[] =
		"type=1423 audit(1.000:1): domain=100000001 blockers=fs.read_file path=\"/c\" "
		"dev=\"tmpfs\" ino=1\n"
		"type=1300 audit(1.000:2): arch=c000003e syscall=257 success=no exit=-13 pid=5 "
		"comm=2F62696E2F6D7920746F6F6C exe=\"/bin/x\"\n"
		"type=1423 audit(1.000:2): domain=100000001 blockers=fs.read_file path=\"/d\" "
		"dev=\"tmpfs\" ino=2\n"
		"type=1423 audit(1.000:3): domain=100000001 blockers=fs.read_file path=\"/e\" "
		"dev=\"tmpfs\" ino=3\n";
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/c");
	CHECK_EQ_INT(0, feed_log(&ev, log));
	REQUIRE(ev.n_records == 3);
	CHECK(ev.records[0].comm == NULL);
	CHECK_STR_EQ("/bin/my tool", ev.records[1].comm);
	CHECK_STR_EQ("/bin/x", ev.records[1].exe);
	/* Serial 3 had no SYSCALL record: unknown, not borrowed from a neighbour. */
	CHECK(ev.records[2].comm == NULL);
	CHECK(ev.records[2].exe == NULL);
	hk_evidence_free(&ev);
}

TEST(the_canary_in_a_second_domain_is_a_conflict)
{
	static const char log[] =
		"type=1423 audit(1.000:1): domain=100000001 blockers=fs.read_file path=\"/c\" "
		"dev=\"tmpfs\" ino=1\n"
		"type=1423 audit(1.000:2): domain=100000002 blockers=fs.read_file path=\"/c\" "
		"dev=\"tmpfs\" ino=1\n";
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/c");
	CHECK_EQ_INT(0, feed_log(&ev, log));
	CHECK(hk_evidence_canary_seen(&ev));
	CHECK(hk_evidence_domain(&ev) == 0x100000001ULL);
	CHECK(ev.canary_conflict);
	CHECK(ev.conflict_domain == 0x100000002ULL);
	CHECK_EQ_INT(1, hk_evidence_records_received(&ev));
	hk_evidence_free(&ev);

	/* Control: the same canary twice in one domain is two records, not a conflict. */
	static const char same[] =
		"type=1423 audit(1.000:1): domain=100000001 blockers=fs.read_file path=\"/c\"\n"
		"type=1423 audit(1.000:2): domain=100000001 blockers=fs.read_file path=\"/c\"\n";
	hk_evidence_init(&ev, "/c");
	CHECK_EQ_INT(0, feed_log(&ev, same));
	CHECK(!ev.canary_conflict);
	CHECK_EQ_INT(2, hk_evidence_records_received(&ev));
	CHECK_EQ_INT(2, hk_evidence_canary_records(&ev));
	hk_evidence_free(&ev);
}

TEST(canary_match_is_exact_bytes_of_the_decoded_path)
{
	/* The canary path here has a space, so the kernel writes it in hex. */
	static const char log[] =
		"type=1423 audit(1.000:1): domain=100000001 blockers=fs.read_file "
		"path=\"/.harkaq/canary\" dev=\"tmpfs\" ino=1\n"
		"type=1423 audit(1.000:2): domain=100000002 blockers=fs.read_file "
		"path=2F2E6861726B61712F63616E6172792031 dev=\"tmpfs\" ino=2\n";
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/.harkaq/canary 1");
	CHECK_EQ_INT(0, feed_log(&ev, log));
	CHECK(hk_evidence_canary_seen(&ev));
	/* A prefix of the canary path is not the canary. */
	CHECK(hk_evidence_domain(&ev) == 0x100000002ULL);
	CHECK_EQ_INT(1, hk_evidence_records_received(&ev));
	hk_evidence_free(&ev);
}

TEST(malformed_records_are_reported_and_counted)
{
	static const char log[] =
		"type=1423 audit(1.000:1): domain=100000001 blockers=fs.read_file path=\"/c\"\n"
		"type=1423 audit(1.000:2): domain=100000001 blockers=fs.read_file path=2F6\n"
		"type=1424 audit(1.000:3): domain=100000001 status=deallocated denials=zz\n"
		"type=1423 audit(1.000:4) domain=100000001 blockers=fs.read_file\n"
		"type=1327 audit(1.000:5): proctitle=not-checked\n"
		"type=1423 audit(1.000:6): domain=100000001 blockers=fs.read_file path=\"/d\"\n";
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/c");
	CHECK_EQ_INT(3, feed_log(&ev, log));
	CHECK_EQ_INT(3, ev.n_malformed);
	/* The accumulator went on: the last record counts. */
	CHECK_EQ_INT(2, hk_evidence_records_received(&ev));
	CHECK(!hk_evidence_dealloc_seen(&ev));
	hk_evidence_free(&ev);

	static const char bad[] = "domain=100000001 blockers=fs.read_file path=2F6";
	struct hk_error err = { 0 };
	hk_evidence_init(&ev, "/c");
	CHECK(hk_evidence_feed(&ev, 1423, 2, bad, sizeof(bad) - 1, &err) < 0);
	CHECK_CONTAINS(err.msg, "event 2");
	CHECK_CONTAINS(err.msg, "byte 44");
	CHECK_EQ_INT(1, ev.n_malformed);
	hk_evidence_free(&ev);
}

TEST(pending_buffer_is_bounded_while_the_domain_is_unknown)
{
	struct hk_evidence ev;
	struct hk_error err = { 0 };
	static const char foreign[] = "domain=100000009 blockers=fs.read_file path=\"/x\"";
	static const char mine[] = "domain=100000001 blockers=fs.read_file path=\"/c\"";
	hk_evidence_init(&ev, "/c");
	for (size_t i = 0; i < HK_EVIDENCE_PENDING_MAX + 2; i++)
		REQUIRE(hk_evidence_feed(&ev, 1423, i, foreign, sizeof(foreign) - 1, &err) == 0);
	CHECK_EQ_INT(HK_EVIDENCE_PENDING_MAX, ev.n_records);
	CHECK_EQ_INT(2, ev.n_pending_dropped);
	REQUIRE(hk_evidence_feed(&ev, 1423, 1u << 20, mine, sizeof(mine) - 1, &err) == 0);
	CHECK(hk_evidence_canary_seen(&ev));
	CHECK_EQ_INT(1, hk_evidence_records_received(&ev));
	CHECK_EQ_INT(HK_EVIDENCE_PENDING_MAX, ev.n_foreign);
	hk_evidence_free(&ev);
}

/* Captured verbatim on this project's machine (kernel 6.18, ABI 7, the multicast reader):
 * a process restricted with LOG_NEW_EXEC_ON opening /etc/ld.so.cache (denied during exec of
 * the dynamic loader), "/tmp/kf d sp", '/tmp/kf q"x', "/tmp/kf_\xc3\xa9t\xc3\xa9",
 * /tmp/kfplain and /etc/passwd; then an unrelated domain's deallocation. */
static const char captured[] =
	"type=1423 audit(1796156229.515:581): domain=190623ca7 blockers=fs.read_file "
	"path=\"/etc/ld.so.cache\" dev=\"vda\" ino=794\n"
	"type=1424 audit(1796156229.515:581): domain=190623ca7 status=allocated "
	"mode=enforcing pid=29161 uid=0 exe=\"/tmp/cap/cap\" comm=\"cap\"\n"
	"type=1300 audit(1796156229.515:581): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7fbd406860b1 a2=80000 a3=0 items=0 ppid=29146 pid=29161 "
	"auid=4294967295 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) "
	"ses=4294967295 comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1327 audit(1796156229.515:581): "
	"proctitle=2F746D702F6361702F76696374696D002F746D702F6B662064207370002F746D702F6B662071"
	"2278002F746D702F6B665FC3A974C3A9002F746D702F6B66706C61696E002F6574632F706173737764\n"
	"type=1320 audit(1796156229.515:581): \n"
	"type=1423 audit(1796156229.515:582): domain=190623ca7 blockers=fs.read_file "
	"path=2F746D702F6B662064207370 dev=\"vda\" ino=10953042\n"
	"type=1300 audit(1796156229.515:582): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffc48e59998 a2=0 a3=0 items=0 ppid=29146 pid=29161 auid=4294967295 "
	"uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 "
	"comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1320 audit(1796156229.515:582): \n"
	"type=1423 audit(1796156229.515:583): domain=190623ca7 blockers=fs.read_file "
	"path=2F746D702F6B6620712278 dev=\"vda\" ino=10953043\n"
	"type=1300 audit(1796156229.515:583): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffc48e599a5 a2=0 a3=0 items=0 ppid=29146 pid=29161 auid=4294967295 "
	"uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 "
	"comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1320 audit(1796156229.515:583): \n"
	"type=1423 audit(1796156229.515:584): domain=190623ca7 blockers=fs.read_file "
	"path=2F746D702F6B665FC3A974C3A9 dev=\"vda\" ino=10953044\n"
	"type=1300 audit(1796156229.515:584): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffc48e599b1 a2=0 a3=0 items=0 ppid=29146 pid=29161 auid=4294967295 "
	"uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 "
	"comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1320 audit(1796156229.515:584): \n"
	"type=1423 audit(1796156229.515:585): domain=190623ca7 blockers=fs.read_file "
	"path=\"/tmp/kfplain\" dev=\"vda\" ino=10953045\n"
	"type=1300 audit(1796156229.515:585): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffc48e599bf a2=0 a3=0 items=0 ppid=29146 pid=29161 auid=4294967295 "
	"uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 "
	"comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1320 audit(1796156229.515:585): \n"
	"type=1423 audit(1796156229.515:586): domain=190623ca7 blockers=fs.read_file "
	"path=\"/etc/passwd\" dev=\"vda\" ino=861\n"
	"type=1300 audit(1796156229.515:586): arch=c000003e syscall=257 success=no exit=-13 "
	"a0=ffffff9c a1=7ffc48e599cc a2=0 a3=0 items=0 ppid=29146 pid=29161 auid=4294967295 "
	"uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 "
	"comm=\"victim\" exe=\"/tmp/cap/victim\" key=(null)\n"
	"type=1320 audit(1796156229.515:586): \n"
	"type=1424 audit(1796156229.559:587): domain=190623ca7 status=deallocated denials=6\n"
	"type=1424 audit(1796156231.719:589): domain=190623c9e status=deallocated denials=1\n";

TEST(captured_stream_from_this_kernel)
{
	struct hk_evidence ev;
	/* Pretend /tmp/kfplain is the canary: it is the fifth record, so four come before it. */
	hk_evidence_init(&ev, "/tmp/kfplain");
	CHECK_EQ_INT(0, feed_log(&ev, captured));
	REQUIRE(hk_evidence_canary_seen(&ev));
	CHECK(hk_evidence_domain(&ev) == 0x190623ca7ULL);
	CHECK_EQ_INT(6, hk_evidence_records_received(&ev));
	REQUIRE(hk_evidence_dealloc_seen(&ev));
	CHECK(hk_evidence_kernel_denials(&ev) == 6);
	REQUIRE(ev.n_records == 6);
	static const char *const paths[] = {
		"/etc/ld.so.cache", "/tmp/kf d sp", "/tmp/kf q\"x", "/tmp/kf_\xc3\xa9t\xc3\xa9",
		"/tmp/kfplain", "/etc/passwd",
	};
	for (size_t i = 0; i < 6; i++) {
		CHECK_STR_EQ(paths[i], ev.records[i].access.path);
		CHECK_STR_EQ("victim", ev.records[i].comm);
		CHECK_STR_EQ("/tmp/cap/victim", ev.records[i].exe);
		CHECK_STR_EQ("vda", ev.records[i].access.dev);
		CHECK_EQ_INT(i == 4, ev.records[i].is_canary);
	}
	CHECK(ev.records[1].access.ino == 10953042u);
	/* The domain's creator (the restricting parent before exec), not who tried. */
	const struct hk_landlock_domain *alloc = hk_evidence_allocated(&ev);
	REQUIRE(alloc);
	CHECK_STR_EQ("/tmp/cap/cap", alloc->exe);
	CHECK(alloc->pid == 29161);
	CHECK_EQ_INT(1, ev.n_foreign);
	hk_evidence_free(&ev);
}
