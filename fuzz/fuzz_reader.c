/* harkaq-audit's input and its filter (src/sys/auditnl.c hk_audit_sub_next, src/audit/filter.c):
 * the netlink datagrams the kernel sends, split as the reader splits them, then fed to the
 * filter of a caller other than root (uid 1001), which must hand over nothing of another's.
 *
 * The first byte picks the mode:
 *   even  the rest is a datagram, as is: any bytes, any headers, any record text;
 *   odd   the rest drives a generator of what the kernel writes (kernel-facts.md §3): denial
 *         events of domains of uid 1001, 1002 and 0, interleaved record by record between
 *         domains, the allocated record after the first ACCESS record of a domain's first
 *         event, any record possibly lost; written as netlink messages into one datagram.
 *
 * Invariants, in both modes (an independent oracle, with the full parsers of the core):
 *   - every Landlock record handed over is of a domain whose allocated record naming uid 1001
 *     was fed before (or is being fed); a SYSCALL or PROCTITLE record handed over shares its
 *     serial with a Landlock record handed over; no other type is handed over;
 *   - a record's leading domain id is the one the full parser finds.
 * In the generated mode also completeness: every ACCESS record fed of a domain of uid 1001
 * whose allocated record was fed is handed over (the count check keeps its meaning), and
 * every deallocated record of one; nothing of uid 1002's or 0's domains. */
#include <linux/netlink.h>
#include <string.h>

#include "audit/filter.h"
#include "core/formats/audit_record.h"
#include "fuzz/fuzz.h"

#define CALLER 1001
#define MAX_DOMAINS 8
#define MAX_EVENTS 256
#define MAX_SERIALS 1024

/* ---- the oracle ---- */

struct oracle {
	uint64_t mine[4096];    /* domains allocated to CALLER, as fed (a datagram holds fewer) */
	size_t n_mine;
	bool serial_ok[MAX_SERIALS];              /* a Landlock record of it was handed over */
	/* generated mode: per domain index */
	unsigned fed_access[MAX_DOMAINS], got_access[MAX_DOMAINS];
	unsigned fed_dealloc[MAX_DOMAINS], got_dealloc[MAX_DOMAINS];
	bool alloc_fed[MAX_DOMAINS];
	unsigned handed;
};

static bool is_mine(const struct oracle *o, uint64_t d)
{
	for (size_t i = 0; i < o->n_mine; i++)
		if (o->mine[i] == d)
			return true;
	return false;
}

/* The domain id of a Landlock record by the full parser: true when it parses. */
static bool full_domain(const struct hk_audit_msg *m, uint64_t *d, struct hk_landlock_domain *dom)
{
	struct hk_error err;
	if (m->type == HK_AUDIT_LANDLOCK_ACCESS) {
		struct hk_landlock_access a;
		if (hk_landlock_access_parse(m->body, m->body_len, &a, &err) < 0)
			return false;
		*d = a.domain;
		hk_landlock_access_free(&a);
		return true;
	}
	if (hk_landlock_domain_parse(m->body, m->body_len, dom, &err) < 0)
		return false;
	*d = dom->domain;
	return true;
}

/* Before a record is fed: what the oracle learns from it. */
static void oracle_see(struct oracle *o, const struct hk_audit_msg *m)
{
	if (m->type != HK_AUDIT_LANDLOCK_ACCESS && m->type != HK_AUDIT_LANDLOCK_DOMAIN)
		return;
	uint64_t lead = 0, full = 0;
	bool has_lead = hk_audit_leading_domain(m->body, m->body_len, &lead);
	struct hk_landlock_domain dom = { 0 };
	bool has_full = full_domain(m, &full, &dom);
	if (has_lead && has_full)
		FUZZ_CHECK(lead == full);
	if (m->type == HK_AUDIT_LANDLOCK_DOMAIN && has_full && has_lead && m->has_stamp &&
	    dom.status == HK_DOMAIN_ALLOCATED && dom.uid == CALLER) {
		FUZZ_CHECK(o->n_mine < sizeof(o->mine) / sizeof(o->mine[0]));
		o->mine[o->n_mine++] = full;
	}
	if (has_full && m->type == HK_AUDIT_LANDLOCK_DOMAIN)
		hk_landlock_domain_free(&dom);
}

/* The generated mode's records name their domain index in the path or the text. */
static int domain_index(uint64_t d)
{
	return d >= 0x100000 && d < 0x100000 + MAX_DOMAINS ? (int)(d - 0x100000) : -1;
}

static struct oracle *the_oracle;

static void on_emit(void *ctx, const struct hk_audit_msg *m)
{
	(void)ctx;
	struct oracle *o = the_oracle;
	o->handed++;
	FUZZ_CHECK(m->has_stamp);
	switch (m->type) {
	case HK_AUDIT_LANDLOCK_ACCESS:
	case HK_AUDIT_LANDLOCK_DOMAIN: {
		uint64_t d = 0;
		FUZZ_CHECK(hk_audit_leading_domain(m->body, m->body_len, &d));
		FUZZ_CHECK(is_mine(o, d));
		o->serial_ok[m->serial % MAX_SERIALS] = true;
		int i = domain_index(d);
		if (i >= 0 && m->type == HK_AUDIT_LANDLOCK_ACCESS)
			o->got_access[i]++;
		if (i >= 0 && m->type == HK_AUDIT_LANDLOCK_DOMAIN &&
		    memmem(m->body, m->body_len, "status=deallocated", 18))
			o->got_dealloc[i]++;
		break;
	}
	case HK_AUDIT_SYSCALL:
	case HK_AUDIT_PROCTITLE:
		FUZZ_CHECK(o->serial_ok[m->serial % MAX_SERIALS]);
		break;
	default:
		FUZZ_CHECK(!"a record type other than Landlock, SYSCALL or PROCTITLE was handed over");
	}
}

/* Splits the datagram as the reader does and feeds every message to the filter. */
static void run_datagram(char *buf, size_t len, struct oracle *o)
{
	struct filter f;
	filter_init(&f, true, CALLER, false, on_emit, NULL);
	struct hk_audit_sub sub = HK_AUDIT_SUB_INIT;
	sub.buf = buf;
	sub.buf_cap = sub.len = len;
	struct hk_audit_msg m;
	while (hk_audit_sub_next(&sub, &m) == 1) {
		FUZZ_CHECK(m.text + m.text_len <= buf + len);
		FUZZ_CHECK(m.body >= m.text && m.body + m.body_len == m.text + m.text_len);
		oracle_see(o, &m);
		filter_feed(&f, &m);
	}
	filter_finish(&f);
	FUZZ_CHECK(f.n_held == 0 && f.held_bytes == 0);
	FUZZ_CHECK(f.forwarded == o->handed);
	filter_free(&f);
}

/* ---- the generated mode ---- */

struct gen {
	const uint8_t *in;
	size_t n, at;
	char *out;
	size_t len, cap;
};

static unsigned take(struct gen *g)
{
	return g->at < g->n ? g->in[g->at++] : 0;
}

static void put_record(struct gen *g, unsigned type, uint64_t serial, const char *body)
{
	char text[512];
	int t = snprintf(text, sizeof(text), "audit(1700000000.%03u:%llu): %s",
			 (unsigned)(serial % 1000), (unsigned long long)serial, body);
	size_t need = NLMSG_ALIGN(NLMSG_HDRLEN + (size_t)t);
	if (g->len + need > g->cap) {
		g->cap = (g->len + need) * 2;
		g->out = realloc(g->out, g->cap);
	}
	struct nlmsghdr *h = (struct nlmsghdr *)(g->out + g->len);
	memset(h, 0, need);
	h->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + (size_t)t);
	h->nlmsg_type = (uint16_t)type;
	memcpy(g->out + g->len + NLMSG_HDRLEN, text, (size_t)t);
	g->len += need;
}

/* One event in flight: its records are written one at a time. */
struct event {
	int domain;            /* index */
	uint64_t serial;
	unsigned step;         /* 0 ACCESS, 1 allocated?, 2 more ACCESS?, 3 SYSCALL, 4 PROCTITLE, 5 EOE */
	bool allocates;
	bool live;
};

struct domain {
	unsigned uid;
	bool preexisting;      /* allocated before the reader: never announced */
	bool allocated;        /* its allocation was written (or is in flight) */
	bool busy;             /* an event of it is in flight (a domain's events do not overlap) */
	bool dealloc_done;
	unsigned events;
};

static void generated(const uint8_t *data, size_t size)
{
	struct gen g = { data, size, 0, NULL, 0, 0 };
	static const unsigned uids[] = { CALLER, 1002, 0, CALLER };
	struct domain dom[MAX_DOMAINS];
	unsigned n_dom = 1 + take(&g) % MAX_DOMAINS;
	for (unsigned i = 0; i < n_dom; i++) {
		unsigned b = take(&g);
		dom[i] = (struct domain){ .uid = uids[b & 3], .preexisting = (b & 0x1c) == 0x1c };
	}
	struct oracle *o = calloc(1, sizeof(*o));
	the_oracle = o;
	struct event ev[3] = { { 0 } };
	uint64_t serial = 1;
	unsigned started = 0;
	char body[256];

	while (g.at < g.n) {
		unsigned b = take(&g);
		struct event *e = &ev[b % 3];
		bool lost = (b & 0xf0) == 0xf0;   /* this record is lost (backlog, overrun) */
		if (!e->live) {
			unsigned di = (b >> 2) % n_dom;
			struct domain *d = &dom[di];
			if (d->busy || d->dealloc_done || started >= MAX_EVENTS)
				continue;
			if ((b & 0x0c) == 0x0c && d->events > 0) {
				/* The domain ends: its count, from a kworker, an event of its own. */
				snprintf(body, sizeof(body), "domain=%x status=deallocated denials=%u",
					 0x100000 + di, d->events);
				if (!lost) {
					put_record(&g, HK_AUDIT_LANDLOCK_DOMAIN, serial, body);
					if (d->uid == CALLER && !d->preexisting && o->alloc_fed[di])
						o->fed_dealloc[di]++;
				}
				serial++;
				d->dealloc_done = true;
				continue;
			}
			*e = (struct event){ .domain = (int)di, .serial = serial++, .live = true,
					     .allocates = !d->allocated && !d->preexisting };
			d->allocated = true;
			d->busy = true;
			d->events++;
			started++;
		}
		struct domain *d = &dom[e->domain];
		switch (e->step) {
		case 0:
		case 2:
			snprintf(body, sizeof(body), "domain=%x blockers=fs.read_file path=\"/u%u/f\" "
						     "dev=\"vda\" ino=%u", 0x100000 + e->domain,
				 d->uid, e->step);
			if (!lost) {
				put_record(&g, HK_AUDIT_LANDLOCK_ACCESS, e->serial, body);
				o->fed_access[e->domain]++;
			}
			e->step = e->step == 0 ? 1 : 3;
			break;
		case 1:
			if (e->allocates) {
				snprintf(body, sizeof(body), "domain=%x status=allocated mode=enforcing "
							     "pid=7 uid=%u exe=\"/t\" comm=\"t\"",
					 0x100000 + e->domain, d->uid);
				if (!lost) {
					put_record(&g, HK_AUDIT_LANDLOCK_DOMAIN, e->serial, body);
					if (d->uid == CALLER)
						o->alloc_fed[e->domain] = true;
				}
			}
			/* Sometimes a second denial in the same event (a rename's two paths). */
			e->step = (b & 1) ? 2 : 3;
			break;
		case 3:
			if (!lost)
				put_record(&g, HK_AUDIT_SYSCALL, e->serial, "arch=c000003e syscall=257 "
									    "success=no exit=-13");
			e->step = 4;
			break;
		case 4:
			if (!lost)
				put_record(&g, HK_AUDIT_PROCTITLE, e->serial, "proctitle=7400");
			e->step = 5;
			break;
		default:
			if (!lost)
				put_record(&g, HK_AUDIT_EOE, e->serial, "");
			d->busy = false;
			e->live = false;
			e->step = 0;
			break;
		}
	}
	/* The ACCESS records fed before a lost allocated record's event are not the caller's
	 * to receive (the domain was never announced); count only what follows an
	 * announcement, which by construction is every record of the domain. */
	run_datagram(g.out ? g.out : (char *)"", g.len, o);
	for (unsigned i = 0; i < n_dom; i++) {
		bool mine = dom[i].uid == CALLER && !dom[i].preexisting && o->alloc_fed[i];
		FUZZ_CHECK(o->got_access[i] == (mine ? o->fed_access[i] : 0));
		FUZZ_CHECK(o->got_dealloc[i] == (mine ? o->fed_dealloc[i] : 0));
	}
	free(g.out);
	free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1) {
		generated(data + 1, size - 1);
		return 0;
	}
	/* A private copy without slack: ASan sees a read past the datagram. */
	size_t n = size - 1;
	char *buf = malloc(n ? n : 1);
	memcpy(buf, data + 1, n);
	struct oracle *o = calloc(1, sizeof(*o));
	the_oracle = o;
	run_datagram(buf, n, o);
	free(o);
	free(buf);
	return 0;
}
