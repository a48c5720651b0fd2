/* harkaq-audit's filter (src/audit/filter.c): which records a caller receives, fed record
 * sequences in the order the kernel writes them (kernel-facts.md §3, "Whose domain"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter.h"
#include "core/basic/buf.h"
#include "core/basic/util.h"
#include "core/formats/audit_record.h"
#include "harness.h"

/* What the filter handed over: "TYPE:SERIAL:BODY\n" per record. */
static struct hk_buf got = HK_BUF_INIT;
static unsigned n_got;

static void collect(void *ctx, const struct hk_audit_msg *m)
{
	(void)ctx;
	char head[64];
	snprintf(head, sizeof(head), "%u:%llu:", m->type, (unsigned long long)m->serial);
	hk_buf_puts(&got, head);
	hk_buf_append(&got, m->body, m->body_len);
	hk_buf_putc(&got, '\n');
	n_got++;
}

static void start(struct filter *f, bool by_owner, uint64_t uid, bool all)
{
	hk_buf_reset(&got);
	n_got = 0;
	filter_init(f, by_owner, uid, all, collect, NULL);
}

static void feed(struct filter *f, unsigned type, uint64_t serial, const char *body)
{
	/* A private copy: the filter must not keep pointers into what it was fed. */
	char *copy = hk_xstrdup(body);
	struct hk_audit_msg m = {
		.type = (uint16_t)type, .text = copy, .text_len = strlen(copy), .has_stamp = true,
		.sec = 1, .msec = 2, .serial = serial, .body = copy, .body_len = strlen(copy),
	};
	filter_feed(f, &m);
	memset(copy, 'X', strlen(copy));
	free(copy);
}

/* One denial event as the kernel writes it: ACCESS, the allocated record when it is the
 * domain's first logged denial, SYSCALL, PROCTITLE, EOE. */
static void denial(struct filter *f, uint64_t serial, const char *domain, unsigned uid, bool first)
{
	char b[256];
	snprintf(b, sizeof(b), "domain=%s blockers=fs.read_file path=\"/u%u/x\" dev=\"vda\" ino=7",
		 domain, uid);
	feed(f, 1423, serial, b);
	if (first) {
		snprintf(b, sizeof(b), "domain=%s status=allocated mode=enforcing pid=9 uid=%u "
				       "exe=\"/bin/t\" comm=\"t\"", domain, uid);
		feed(f, 1424, serial, b);
	}
	snprintf(b, sizeof(b), "arch=c000003e syscall=257 success=no exit=-13 uid=%u", uid);
	feed(f, 1300, serial, b);
	feed(f, 1327, serial, "proctitle=7400");
	feed(f, 1320, serial, "");
}

static void dealloc(struct filter *f, uint64_t serial, const char *domain, unsigned n)
{
	char b[128];
	snprintf(b, sizeof(b), "domain=%s status=deallocated denials=%u", domain, n);
	feed(f, 1424, serial, b);
}

TEST(root_receives_every_landlock_record_and_the_syscall_records_of_those_events)
{
	struct filter f;
	start(&f, false, 0, false);
	denial(&f, 10, "1a", 1001, true);
	denial(&f, 11, "1b", 1002, true);
	feed(&f, 1300, 12, "arch=c000003e syscall=1 success=yes");   /* no Landlock event */
	feed(&f, 1305, 13, "op=set audit_enabled=1");
	dealloc(&f, 14, "1a", 1);
	CHECK_EQ_INT(4 + 4 + 1, n_got);
	CHECK(strstr(hk_buf_str(&got), "1300:12:") == NULL);
	CHECK(strstr(hk_buf_str(&got), "1305:") == NULL);
	CHECK(strstr(hk_buf_str(&got), "1320:") == NULL);
	CHECK_EQ_INT(0, f.withheld);
	filter_free(&f);

	/* --all: every record type, the positive control for the two absences above. */
	start(&f, false, 0, true);
	feed(&f, 1300, 12, "arch=c000003e syscall=1 success=yes");
	feed(&f, 1305, 13, "op=set audit_enabled=1");
	feed(&f, 1320, 13, "");
	CHECK_EQ_INT(3, n_got);
	filter_free(&f);
}

TEST(a_user_receives_its_domain_whole_and_in_order_though_the_owner_comes_second)
{
	struct filter f;
	start(&f, true, 1001, false);
	denial(&f, 20, "1d5374efb", 1001, true);
	denial(&f, 21, "1d5374efb", 1001, false);
	dealloc(&f, 22, "1d5374efb", 2);
	CHECK_STR_EQ("1423:20:domain=1d5374efb blockers=fs.read_file path=\"/u1001/x\" dev=\"vda\" ino=7\n"
		     "1424:20:domain=1d5374efb status=allocated mode=enforcing pid=9 uid=1001 exe=\"/bin/t\" comm=\"t\"\n"
		     "1300:20:arch=c000003e syscall=257 success=no exit=-13 uid=1001\n"
		     "1327:20:proctitle=7400\n"
		     "1423:21:domain=1d5374efb blockers=fs.read_file path=\"/u1001/x\" dev=\"vda\" ino=7\n"
		     "1300:21:arch=c000003e syscall=257 success=no exit=-13 uid=1001\n"
		     "1327:21:proctitle=7400\n"
		     "1424:22:domain=1d5374efb status=deallocated denials=2\n",
		     hk_buf_str(&got));
	CHECK_EQ_INT(0, f.withheld);
	CHECK_EQ_INT(0, f.n_held);
	CHECK_EQ_INT(0, f.n_owned);   /* deallocated: forgotten */
	filter_free(&f);
}

TEST(another_users_domain_is_withheld_and_a_root_filter_sees_it)
{
	struct filter f;
	start(&f, true, 1001, false);
	denial(&f, 30, "2a", 1002, true);
	denial(&f, 31, "2a", 1002, false);
	denial(&f, 32, "2a", 1002, false);
	dealloc(&f, 33, "2a", 3);
	CHECK_EQ_INT(0, n_got);
	CHECK_EQ_INT(3 + 1 + 1, f.withheld);  /* three ACCESS, allocated, deallocated */
	CHECK_EQ_INT(0, f.n_held);
	filter_free(&f);

	/* The control: the same records exist, and root's filter hands them over. */
	start(&f, false, 0, false);
	denial(&f, 30, "2a", 1002, true);
	denial(&f, 31, "2a", 1002, false);
	dealloc(&f, 33, "2a", 3);
	CHECK_EQ_INT(4 + 3 + 1, n_got);
	filter_free(&f);
}

TEST(a_domain_never_seen_allocated_is_withheld_even_when_its_uid_is_the_callers)
{
	struct filter f;
	start(&f, true, 1001, false);
	/* Allocated before this reader: its later events carry no allocated record. */
	denial(&f, 40, "3a", 1001, false);
	dealloc(&f, 41, "3a", 5);
	CHECK_EQ_INT(0, n_got);
	CHECK_EQ_INT(2, f.withheld);
	CHECK_EQ_INT(0, f.n_held);
	filter_free(&f);
}

TEST(interleaved_events_of_two_users_each_record_goes_where_its_domain_belongs)
{
	struct filter f;
	start(&f, true, 1001, false);
	/* Another CPU's records fall between an ACCESS record and its allocated record. */
	feed(&f, 1423, 50, "domain=4a blockers=fs.read_file path=\"/mine\" dev=\"vda\" ino=1");
	feed(&f, 1423, 51, "domain=4b blockers=fs.read_file path=\"/theirs\" dev=\"vda\" ino=2");
	feed(&f, 1424, 51, "domain=4b status=allocated mode=enforcing pid=8 uid=1002 exe=\"/t\" comm=\"t\"");
	feed(&f, 1300, 51, "syscall=257 uid=1002");
	feed(&f, 1424, 50, "domain=4a status=allocated mode=enforcing pid=7 uid=1001 exe=\"/t\" comm=\"t\"");
	feed(&f, 1423, 52, "domain=4b blockers=fs.read_file path=\"/theirs2\" dev=\"vda\" ino=3");
	feed(&f, 1300, 50, "syscall=257 uid=1001");
	feed(&f, 1327, 51, "proctitle=00");
	feed(&f, 1320, 50, "");
	CHECK_STR_EQ("1423:50:domain=4a blockers=fs.read_file path=\"/mine\" dev=\"vda\" ino=1\n"
		     "1424:50:domain=4a status=allocated mode=enforcing pid=7 uid=1001 exe=\"/t\" comm=\"t\"\n"
		     "1300:50:syscall=257 uid=1001\n",
		     hk_buf_str(&got));
	CHECK(strstr(hk_buf_str(&got), "theirs") == NULL);
	CHECK_EQ_INT(3, f.withheld);
	filter_free(&f);
}

TEST(records_without_a_stamp_or_a_domain_are_withheld)
{
	struct filter f;
	start(&f, true, 1001, false);
	struct hk_audit_msg m = { .type = 1423, .text = "domain=5a blockers=x", .text_len = 20,
				  .body = "domain=5a blockers=x", .body_len = 20 };
	filter_feed(&f, &m);
	feed(&f, 1423, 60, "blockers=fs.read_file domain=5a");
	feed(&f, 1424, 61, "domain=5a status=allocated mode=enforcing pid=1 uid=1001");  /* no exe */
	feed(&f, 1424, 62, "domain=zz status=allocated mode=enforcing pid=1 uid=1001 exe=\"/t\" comm=\"t\"");
	CHECK_EQ_INT(0, n_got);
	CHECK_EQ_INT(4, f.withheld);
	filter_free(&f);
}

TEST(the_hold_is_bounded_and_what_it_drops_is_counted)
{
	struct filter f;
	start(&f, true, 1001, false);
	char b[96];
	/* Events that never end (no SYSCALL, no EOE) of domains nobody announces. */
	for (unsigned i = 0; i < FILTER_PENDING_MAX + 10; i++) {
		snprintf(b, sizeof(b), "domain=%x blockers=fs.read_file path=\"/p\"", 0x1000 + i);
		feed(&f, 1423, 1000 + i, b);
	}
	CHECK_EQ_INT(FILTER_PENDING_MAX, f.n_held);
	CHECK_EQ_INT(10, f.evicted);
	CHECK_EQ_INT(10, f.withheld);
	/* A domain of the caller whose record is still held is handed over whole. */
	feed(&f, 1424, 1000 + FILTER_PENDING_MAX + 9,
	     "domain=1409 status=allocated mode=enforcing pid=1 uid=1001 exe=\"/t\" comm=\"t\"");
	CHECK_EQ_INT(2, n_got);
	/* ... one whose record was dropped is not: its count check fails (NoEvidence). */
	feed(&f, 1424, 5000, "domain=1000 status=allocated mode=enforcing pid=1 uid=1001 exe=\"/t\" comm=\"t\"");
	CHECK_EQ_INT(3, n_got);
	CHECK(strstr(hk_buf_str(&got), "1423:1000:") == NULL);
	filter_finish(&f);
	CHECK_EQ_INT(0, f.n_held);
	CHECK_EQ_INT(10 + FILTER_PENDING_MAX - 1, f.withheld);
	filter_free(&f);
}

TEST(domains_beyond_the_tracked_number_are_counted_untracked)
{
	struct filter f;
	start(&f, true, 1001, false);
	char d[32];
	for (unsigned i = 0; i < FILTER_OWNED_MAX + 1; i++) {
		snprintf(d, sizeof(d), "%x", 0x100000 + i);
		denial(&f, 2000 + i, d, 1001, true);
	}
	CHECK_EQ_INT(FILTER_OWNED_MAX, f.n_owned);
	CHECK_EQ_INT(1, f.untracked);
	/* Its allocation event was handed over; its later records cannot be. */
	CHECK_EQ_INT(4 * (FILTER_OWNED_MAX + 1), n_got);
	snprintf(d, sizeof(d), "%x", 0x100000 + FILTER_OWNED_MAX);
	denial(&f, 9000, d, 1001, false);
	CHECK_EQ_INT(4 * (FILTER_OWNED_MAX + 1), n_got);
	filter_free(&f);
}

TEST(the_leading_domain_is_the_one_the_full_parser_finds)
{
	static const char *const bodies[] = {
		"domain=1d5374efb blockers=fs.read_file path=\"/x\" dev=\"vda\" ino=1",
		"domain=1d5374efb status=deallocated denials=3",
		"domain=ffffffffffffffff status=deallocated denials=0",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bodies); i++) {
		uint64_t lead = 0;
		REQUIRE(hk_audit_leading_domain(bodies[i], strlen(bodies[i]), &lead));
		struct hk_audit_fields fl = HK_AUDIT_FIELDS_INIT;
		struct hk_error err;
		REQUIRE(hk_audit_parse_fields(bodies[i], strlen(bodies[i]), &fl, &err) == 0);
		const struct hk_audit_field *d = hk_audit_field_get(&fl, "domain");
		REQUIRE(d != NULL);
		CHECK_EQ_INT(strtoull(d->value, NULL, 16), lead);
		hk_audit_fields_free(&fl);
	}
	static const char *const refused[] = {
		"", "domain=", "domain= x", " domain=1a", "domain=\"1a\"", "domain=1g",
		"domain=10000000000000000", "blockers=x domain=1a",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(refused); i++) {
		uint64_t lead;
		CHECK(!hk_audit_leading_domain(refused[i], strlen(refused[i]), &lead));
	}
}
