/* The reader's filter: which records its caller receives (filter.h says the rule and why). */
#include "audit/filter.h"

#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"
#include "core/formats/audit_record.h"

void filter_init(struct filter *f, bool by_owner, uint64_t caller_uid, bool forward_all,
		 filter_emit_fn emit, void *ctx)
{
	memset(f, 0, sizeof(*f));
	f->by_owner = by_owner;
	f->caller_uid = caller_uid;
	f->forward_all = forward_all;
	f->emit = emit;
	f->ctx = ctx;
}

static bool is_landlock(unsigned type)
{
	return type == HK_AUDIT_LANDLOCK_ACCESS || type == HK_AUDIT_LANDLOCK_DOMAIN;
}

static void hand_over(struct filter *f, const struct hk_audit_msg *m)
{
	f->emit(f->ctx, m);
	f->forwarded++;
}

static void withhold(struct filter *f, const struct hk_audit_msg *m)
{
	if (is_landlock(m->type))
		f->withheld++;
}

/* ---- serials of the Landlock events handed over ---- */

static void ring_add(struct filter *f, uint64_t serial)
{
	/* Consecutive records of one event share the serial: store it once. */
	if (f->ring_used > 0 &&
	    f->ring[(f->ring_next + FILTER_SERIAL_RING - 1) % FILTER_SERIAL_RING] == serial)
		return;
	f->ring[f->ring_next] = serial;
	f->ring_next = (f->ring_next + 1) % FILTER_SERIAL_RING;
	if (f->ring_used < FILTER_SERIAL_RING)
		f->ring_used++;
}

static bool ring_has(const struct filter *f, uint64_t serial)
{
	for (unsigned i = 0; i < f->ring_used; i++)
		if (f->ring[i] == serial)
			return true;
	return false;
}

/* ---- domains: the caller's, and recently another's ---- */

static bool owned_has(const struct filter *f, uint64_t domain)
{
	for (size_t i = 0; i < f->n_owned; i++)
		if (f->owned[i] == domain)
			return true;
	return false;
}

static bool owned_add(struct filter *f, uint64_t domain)
{
	if (owned_has(f, domain))
		return true;
	if (f->n_owned == FILTER_OWNED_MAX)
		return false;
	f->owned[f->n_owned++] = domain;
	return true;
}

static void owned_remove(struct filter *f, uint64_t domain)
{
	for (size_t i = 0; i < f->n_owned; i++)
		if (f->owned[i] == domain) {
			f->owned[i] = f->owned[--f->n_owned];
			return;
		}
}

static void foreign_add(struct filter *f, uint64_t domain)
{
	f->foreign[f->foreign_next] = domain;
	f->foreign_next = (f->foreign_next + 1) % FILTER_FOREIGN_RING;
	if (f->foreign_used < FILTER_FOREIGN_RING)
		f->foreign_used++;
}

static bool foreign_has(const struct filter *f, uint64_t domain)
{
	for (unsigned i = 0; i < f->foreign_used; i++)
		if (f->foreign[i] == domain)
			return true;
	return false;
}

/* ---- records held until their event says whose they are ---- */

static void held_drop_at(struct filter *f, size_t i)
{
	struct filter_held *h = &f->held[i];
	f->held_bytes -= h->m.body_len;
	free(h->copy);
	memmove(h, h + 1, (f->n_held - i - 1) * sizeof(*h));
	f->n_held--;
}

static void hold(struct filter *f, const struct hk_audit_msg *m, uint64_t domain)
{
	/* Bounded: the oldest held records go first.  One of the caller's among them would be
	 * missing from its domain's count, which then fails (NoEvidence): `evicted` says why. */
	while (f->n_held > 0 &&
	       (f->n_held >= FILTER_PENDING_MAX || f->held_bytes + m->body_len > FILTER_PENDING_BYTES)) {
		f->withheld++;
		f->evicted++;
		held_drop_at(f, 0);
	}
	if (f->n_held == f->held_cap) {
		f->held_cap = f->held_cap ? f->held_cap * 2 : 16;
		f->held = hk_xrealloc(f->held, f->held_cap * sizeof(*f->held));
	}
	struct filter_held *h = &f->held[f->n_held++];
	h->copy = hk_xmemdupz(m->body, m->body_len);
	h->m = *m;
	h->m.text = h->copy;
	h->m.text_len = m->body_len;
	h->m.body = h->copy;
	h->domain = domain;
	f->held_bytes += m->body_len;
}

/* The event `serial` reached its end (or its SYSCALL record) without an allocated record for
 * what it held: those domains are not known to be the caller's. */
static void held_withhold_serial(struct filter *f, uint64_t serial)
{
	for (size_t i = 0; i < f->n_held;) {
		if (f->held[i].m.serial == serial) {
			f->withheld++;
			held_drop_at(f, i);
		} else {
			i++;
		}
	}
}

/* The domain's owner is known: hand over (in the order received) or withhold what is held. */
static void held_decide_domain(struct filter *f, uint64_t domain, bool mine)
{
	for (size_t i = 0; i < f->n_held;) {
		struct filter_held *h = &f->held[i];
		if (h->domain != domain) {
			i++;
			continue;
		}
		if (mine) {
			hand_over(f, &h->m);
			ring_add(f, h->m.serial);
		} else {
			f->withheld++;
		}
		held_drop_at(f, i);
	}
}

/* ---- the decision ---- */

static void feed_domain_record(struct filter *f, const struct hk_audit_msg *m, uint64_t domain)
{
	struct hk_landlock_domain d;
	struct hk_error ignored;
	if (hk_landlock_domain_parse(m->body, m->body_len, &d, &ignored) < 0 || d.domain != domain) {
		withhold(f, m);
		return;
	}
	if (d.status == HK_DOMAIN_ALLOCATED && d.uid == f->caller_uid) {
		if (!owned_add(f, domain))
			f->untracked++;
		held_decide_domain(f, domain, true);
		hand_over(f, m);
		ring_add(f, m->serial);
	} else if (d.status == HK_DOMAIN_ALLOCATED) {
		foreign_add(f, domain);
		held_decide_domain(f, domain, false);
		withhold(f, m);
	} else if (owned_has(f, domain)) {
		/* deallocated: the domain's last record; its count closes the caller's check. */
		hand_over(f, m);
		owned_remove(f, domain);
	} else {
		held_decide_domain(f, domain, false);
		withhold(f, m);
	}
	hk_landlock_domain_free(&d);
}

static void feed_by_owner(struct filter *f, const struct hk_audit_msg *m)
{
	uint64_t domain = 0;
	switch (m->type) {
	case HK_AUDIT_LANDLOCK_ACCESS:
		/* A record without its event's stamp cannot be tied to an allocation. */
		if (!m->has_stamp || !hk_audit_leading_domain(m->body, m->body_len, &domain)) {
			withhold(f, m);
		} else if (owned_has(f, domain)) {
			hand_over(f, m);
			ring_add(f, m->serial);
		} else if (foreign_has(f, domain)) {
			withhold(f, m);
		} else {
			hold(f, m, domain);
		}
		return;
	case HK_AUDIT_LANDLOCK_DOMAIN:
		if (!m->has_stamp || !hk_audit_leading_domain(m->body, m->body_len, &domain))
			withhold(f, m);
		else
			feed_domain_record(f, m, domain);
		return;
	case HK_AUDIT_SYSCALL:
	case HK_AUDIT_PROCTITLE:
		if (!m->has_stamp)
			return;
		if (ring_has(f, m->serial)) {
			hand_over(f, m);
			return;
		}
		/* Written at the syscall's exit, after any allocated record of the event. */
		held_withhold_serial(f, m->serial);
		return;
	case HK_AUDIT_EOE:
		if (m->has_stamp)
			held_withhold_serial(f, m->serial);
		return;
	default:
		return;
	}
}

/* Root's reader: every Landlock record, and the SYSCALL/PROCTITLE records of their events. */
static void feed_all_domains(struct filter *f, const struct hk_audit_msg *m)
{
	switch (m->type) {
	case HK_AUDIT_LANDLOCK_ACCESS:
	case HK_AUDIT_LANDLOCK_DOMAIN:
		if (m->has_stamp)
			ring_add(f, m->serial);
		hand_over(f, m);
		return;
	case HK_AUDIT_SYSCALL:
	case HK_AUDIT_PROCTITLE:
		if (f->forward_all || (m->has_stamp && ring_has(f, m->serial)))
			hand_over(f, m);
		return;
	default:
		if (f->forward_all)
			hand_over(f, m);
		return;
	}
}

void filter_feed(struct filter *f, const struct hk_audit_msg *m)
{
	if (f->by_owner)
		feed_by_owner(f, m);
	else
		feed_all_domains(f, m);
}

void filter_finish(struct filter *f)
{
	while (f->n_held > 0) {
		f->withheld++;
		held_drop_at(f, 0);
	}
}

void filter_free(struct filter *f)
{
	for (size_t i = 0; i < f->n_held; i++)
		free(f->held[i].copy);
	free(f->held);
	f->held = NULL;
	f->n_held = f->held_cap = f->held_bytes = 0;
}
