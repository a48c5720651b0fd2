/* What the diagnosis' two unit tests share (test_suggest.c over a source in memory,
 * test_suggest_source.c over one on disk): verdicts computed from audit records, and the
 * policy they are diagnosed against.  The includer defines CANARY and DOMAIN. */
#ifndef HK_TEST_SUGGEST_FIXTURE_H
#define HK_TEST_SUGGEST_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "audit_fixture.h"
#include "harness.h"
#include "core/evidence/suggest.h"
#include "core/policy/policy.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"

/* One denial event: ACCESS + SYSCALL (who tried) + EOE. */
static inline char *denial(int serial, const char *blockers, const char *path, const char *exe)
{
	return hk_xasprintf(
		"type=1423 audit(1764618003.200:%d): domain=" DOMAIN " blockers=%s path=\"%s\" "
		"dev=\"overlay\" ino=%d\n"
		"type=1300 audit(1764618003.200:%d): arch=c000003e syscall=257 success=no exit=-13 "
		"pid=20300 uid=65534 comm=\"x\" exe=\"%s\" key=(null)\n"
		"type=1320 audit(1764618003.200:%d): \n",
		serial, blockers, path, serial, serial, exe, serial);
}

struct den {
	const char *blockers, *path, *exe;
};

static inline void verdict_of(const struct den *ds, size_t n, const struct hk_policy *p,
		       struct hk_verdict *v)
{
	struct hk_evidence ev;
	hk_evidence_init(&ev, CANARY);
	feed_records(&ev,
	     "type=1423 audit(1764618003.100:10): domain=" DOMAIN " blockers=fs.read_file path=\""
	     CANARY "\" dev=\"tmpfs\" ino=3\n"
	     "type=1424 audit(1764618003.100:10): domain=" DOMAIN " status=allocated "
	     "mode=enforcing pid=20200 uid=65534 exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"");
	for (size_t i = 0; i < n; i++) {
		char *d = denial((int)(20 + i), ds[i].blockers, ds[i].path, ds[i].exe);
		feed_records(&ev, d);
		free(d);
	}
	char *dealloc = hk_xasprintf("type=1424 audit(1764618003.900:999): domain=" DOMAIN
				     " status=deallocated denials=%zu", n + 1);
	feed_records(&ev, dealloc);
	free(dealloc);
	struct hk_verdict_input in = { 0 };
	in.abi = 7;
	in.kernel_abi = 7;
	in.audit_confirmed = true;
	in.evidence = &ev;
	in.policy = p;
	in.phase = "compile";
	hk_verdict_compute(&in, v);
	hk_evidence_free(&ev);
}

static inline void parse_policy(const char *text, struct hk_policy *p)
{
	struct hk_error err = { 0 };
	if (hk_policy_parse(text, strlen(text), "t.policy", p, &err) < 0)
		HK_FAIL_AT("policy: %s", err.msg);
}

static const char *const POLICY __attribute__((unused)) =
	"harkaq-policy 1\n"
	"list /\n"
	"rw /dev/null\n"
	"rw /tmp\n"
	"ro /usr/bin/dash\n"
	"ro /usr/bin/x86_64-linux-gnu-gcc-12\n"
	"expect /usr/bin/c99\n";

/* The diagnosis both tests expect of the toolchain denials (ranlib, gcc, libz.so, make) against
 * the same store's packages: each denial's providers, nearest first, and the line it gives. */
static inline void check_toolchain_diagnosis(const struct hk_diagnosis *d)
{
	REQUIRE(d->n == 4);
	const struct hk_diag_item *r = &d->items[0];
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, r->cls);
	REQUIRE(r->n_providers == 2);
	CHECK_STR_EQ("binutils-x86-64-linux-gnu", r->providers[0].name);
	CHECK_EQ_INT(HK_PROVIDES_FILE, r->providers[0].how);
	CHECK_STR_EQ("binutils", r->providers[1].name);
	CHECK_EQ_INT(HK_PROVIDES_ALIAS, r->providers[1].how);
	CHECK_STR_EQ("/usr/bin/ranlib", r->providers[1].via);
	CHECK_EQ_INT(1, r->providers[1].hops);
	CHECK_STR_EQ("declare dep: binutils-x86-64-linux-gnu", r->line);

	const struct hk_diag_item *g = &d->items[1];
	REQUIRE(g->n_providers == 2);
	CHECK_STR_EQ("gcc-12", g->providers[0].name);
	CHECK_STR_EQ("gcc", g->providers[1].name);
	CHECK_EQ_INT(HK_PROVIDES_ALIAS, g->providers[1].how);
	/* gcc's nearest link to the file: /usr/bin/gcc (2 hops), not /usr/bin/cc (3). */
	CHECK_STR_EQ("/usr/bin/gcc", g->providers[1].via);
	CHECK_EQ_INT(2, g->providers[1].hops);

	const struct hk_diag_item *z = &d->items[2];
	CHECK_EQ_INT(HK_DIAG_DECLARABLE, z->cls);
	REQUIRE(z->n_providers == 1);
	CHECK_STR_EQ("libz-dev", z->providers[0].name);
	CHECK_STR_EQ("/usr/lib/x86_64-linux-gnu/libz.so", z->providers[0].via);

	const struct hk_diag_item *make = &d->items[3];
	REQUIRE(make->n_providers == 1);
	CHECK_STR_EQ("make", make->providers[0].name);
	CHECK_EQ_INT(HK_PROVIDES_LINK, make->providers[0].how);
}

#endif
