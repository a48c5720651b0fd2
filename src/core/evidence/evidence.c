#include "core/evidence/evidence.h"

#include <string.h>

#include "core/basic/util.h"

void hk_evidence_init(struct hk_evidence *ev, const char *canary_path)
{
	memset(ev, 0, sizeof(*ev));
	/* NULL: a run without a canary (harkaq build --no-cage): no record is ever the canary. */
	if (!canary_path)
		return;
	ev->canary_len = strlen(canary_path);
	ev->canary_path = hk_xmemdupz(canary_path, ev->canary_len);
}

static void record_free(struct hk_evidence_record *r)
{
	hk_landlock_access_free(&r->access);
	free(r->exe);
	free(r->comm);
	memset(r, 0, sizeof(*r));
}

static void memo_free(struct hk_evidence_syscall_memo *m)
{
	free(m->exe);
	free(m->comm);
	memset(m, 0, sizeof(*m));
}

void hk_evidence_free(struct hk_evidence *ev)
{
	for (size_t i = 0; i < ev->n_records; i++)
		record_free(&ev->records[i]);
	free(ev->records);
	for (size_t i = 0; i < ev->n_pending_domains; i++)
		hk_landlock_domain_free(&ev->pending_domains[i]);
	free(ev->pending_domains);
	if (ev->allocated_seen)
		hk_landlock_domain_free(&ev->allocated);
	for (size_t i = 0; i < HK_EVIDENCE_SYSCALL_WINDOW; i++)
		memo_free(&ev->syscalls[i]);
	free(ev->canary_path);
	memset(ev, 0, sizeof(*ev));
}

/* ---- who tried: SYSCALL records matched by event serial ---- */

static void attach_who(struct hk_evidence_record *r, const char *exe, size_t exe_len,
		       const char *comm, size_t comm_len)
{
	if (r->exe || r->comm)
		return;
	if (exe) {
		r->exe = hk_xmemdupz(exe, exe_len);
		r->exe_len = exe_len;
	}
	if (comm) {
		r->comm = hk_xmemdupz(comm, comm_len);
		r->comm_len = comm_len;
	}
}

static void attach_from_memo(struct hk_evidence *ev, struct hk_evidence_record *r)
{
	for (size_t i = 0; i < HK_EVIDENCE_SYSCALL_WINDOW; i++) {
		const struct hk_evidence_syscall_memo *m = &ev->syscalls[i];
		if ((m->exe || m->comm) && m->serial == r->serial) {
			attach_who(r, m->exe, m->exe_len, m->comm, m->comm_len);
			return;
		}
	}
}

static void note_syscall(struct hk_evidence *ev, uint64_t serial, const struct hk_audit_syscall *s)
{
	if (!s->exe && !s->comm)
		return;
	/* The ACCESS records of an event precede its SYSCALL record (they are written during the
	 * syscall, the SYSCALL record at its exit), so look back at the newest records … */
	size_t back = ev->n_records < HK_EVIDENCE_SYSCALL_WINDOW ? ev->n_records
								  : HK_EVIDENCE_SYSCALL_WINDOW;
	for (size_t k = 0; k < back; k++) {
		struct hk_evidence_record *r = &ev->records[ev->n_records - 1 - k];
		if (r->serial == serial)
			attach_who(r, s->exe, s->exe_len, s->comm, s->comm_len);
	}
	/* … and remember it, in case a record of the same event is forwarded after it. */
	struct hk_evidence_syscall_memo *m = &ev->syscalls[ev->syscall_next];
	memo_free(m);
	m->serial = serial;
	if (s->exe) {
		m->exe = hk_xmemdupz(s->exe, s->exe_len);
		m->exe_len = s->exe_len;
	}
	if (s->comm) {
		m->comm = hk_xmemdupz(s->comm, s->comm_len);
		m->comm_len = s->comm_len;
	}
	ev->syscall_next = (ev->syscall_next + 1) % HK_EVIDENCE_SYSCALL_WINDOW;
}

/* ---- domain records ---- */

/* Takes ownership of *d. */
static void apply_domain(struct hk_evidence *ev, struct hk_landlock_domain *d)
{
	if (d->status == HK_DOMAIN_ALLOCATED && !ev->allocated_seen) {
		ev->allocated = *d;
		ev->allocated_seen = true;
		memset(d, 0, sizeof(*d));
		return;
	}
	if (d->status == HK_DOMAIN_DEALLOCATED && !ev->dealloc_seen) {
		ev->dealloc_seen = true;
		ev->kernel_denials = d->denials;
	}
	/* A second allocated or deallocated record for one domain cannot happen (the kernel
	 * writes each once); the first one stands. */
	hk_landlock_domain_free(d);
}

static void push_pending_domain(struct hk_evidence *ev, struct hk_landlock_domain *d)
{
	if (ev->n_pending_domains >= HK_EVIDENCE_PENDING_MAX) {
		ev->n_pending_dropped++;
		hk_landlock_domain_free(d);
		return;
	}
	if (ev->n_pending_domains == ev->cap_pending_domains) {
		ev->cap_pending_domains = ev->cap_pending_domains ? ev->cap_pending_domains * 2 : 8;
		ev->pending_domains = hk_xrealloc(ev->pending_domains, ev->cap_pending_domains *
						  sizeof(*ev->pending_domains));
	}
	ev->pending_domains[ev->n_pending_domains++] = *d;
	memset(d, 0, sizeof(*d));
}

static void feed_domain(struct hk_evidence *ev, struct hk_landlock_domain *d)
{
	if (!ev->canary_seen) {
		push_pending_domain(ev, d);
	} else if (d->domain == ev->domain) {
		apply_domain(ev, d);
	} else {
		ev->n_foreign++;
		hk_landlock_domain_free(d);
	}
}

/* ---- access records ---- */

static void push_record(struct hk_evidence *ev, uint64_t serial, struct hk_landlock_access *a,
			bool is_canary)
{
	if (ev->n_records == ev->cap_records) {
		ev->cap_records = ev->cap_records ? ev->cap_records * 2 : 16;
		ev->records = hk_xrealloc(ev->records, ev->cap_records * sizeof(*ev->records));
	}
	struct hk_evidence_record *r = &ev->records[ev->n_records++];
	memset(r, 0, sizeof(*r));
	r->serial = serial;
	r->access = *a;
	r->is_canary = is_canary;
	memset(a, 0, sizeof(*a));
	attach_from_memo(ev, r);
}

/* The canary named the run's domain: keep what was buffered for it, drop the rest. */
static void learn_domain(struct hk_evidence *ev, uint64_t domain)
{
	ev->canary_seen = true;
	ev->domain = domain;

	size_t kept = 0;
	for (size_t i = 0; i < ev->n_records; i++) {
		if (ev->records[i].access.domain == domain) {
			ev->records[kept++] = ev->records[i];
		} else {
			ev->n_foreign++;
			record_free(&ev->records[i]);
		}
	}
	ev->n_records = kept;

	for (size_t i = 0; i < ev->n_pending_domains; i++) {
		if (ev->pending_domains[i].domain == domain) {
			apply_domain(ev, &ev->pending_domains[i]);
		} else {
			ev->n_foreign++;
			hk_landlock_domain_free(&ev->pending_domains[i]);
		}
	}
	free(ev->pending_domains);
	ev->pending_domains = NULL;
	ev->n_pending_domains = ev->cap_pending_domains = 0;
}

static void feed_access(struct hk_evidence *ev, uint64_t serial, struct hk_landlock_access *a)
{
	bool is_canary = ev->canary_path && a->has_path && a->path_len == ev->canary_len &&
			 memcmp(a->path, ev->canary_path, ev->canary_len) == 0;

	if (ev->canary_seen) {
		if (a->domain != ev->domain) {
			/* The nonce makes the canary path unique to this run: seeing it denied in
			 * another domain means the attribution cannot be trusted. */
			if (is_canary && !ev->canary_conflict) {
				ev->canary_conflict = true;
				ev->conflict_domain = a->domain;
			}
			ev->n_foreign++;
			hk_landlock_access_free(a);
			return;
		}
		push_record(ev, serial, a, is_canary);
		return;
	}

	if (is_canary) {
		learn_domain(ev, a->domain);
		push_record(ev, serial, a, true);
		return;
	}
	if (ev->n_records >= HK_EVIDENCE_PENDING_MAX) {
		ev->n_pending_dropped++;
		hk_landlock_access_free(a);
		return;
	}
	push_record(ev, serial, a, false);
}

/* ---- feeding ---- */

int hk_evidence_feed(struct hk_evidence *ev, unsigned type, uint64_t serial, const char *text,
		     size_t len, struct hk_error *err)
{
	int r;

	switch (type) {
	case HK_AUDIT_LANDLOCK_ACCESS: {
		struct hk_landlock_access a;
		r = hk_landlock_access_parse(text, len, &a, err);
		if (r < 0)
			break;
		feed_access(ev, serial, &a);
		return 0;
	}
	case HK_AUDIT_LANDLOCK_DOMAIN: {
		struct hk_landlock_domain d;
		r = hk_landlock_domain_parse(text, len, &d, err);
		if (r < 0)
			break;
		feed_domain(ev, &d);
		return 0;
	}
	case HK_AUDIT_SYSCALL: {
		struct hk_audit_syscall s;
		r = hk_audit_syscall_parse(text, len, &s, err);
		if (r < 0)
			break;
		note_syscall(ev, serial, &s);
		hk_audit_syscall_free(&s);
		return 0;
	}
	default:
		return 0;
	}
	ev->n_malformed++;
	return hk_wrap(err, "audit record of type %u in event %llu", type,
		       (unsigned long long)serial);
}

int hk_evidence_feed_raw(struct hk_evidence *ev, unsigned type, const char *raw, size_t len,
			 struct hk_error *err)
{
	struct hk_audit_stamp stamp;
	size_t off;
	if (hk_audit_split_prefix(raw, len, &stamp, &off, err) < 0) {
		if (type == HK_AUDIT_LANDLOCK_ACCESS || type == HK_AUDIT_LANDLOCK_DOMAIN ||
		    type == HK_AUDIT_SYSCALL)
			ev->n_malformed++;
		return hk_wrap(err, "audit record of type %u", type);
	}
	return hk_evidence_feed(ev, type, stamp.serial, raw + off, len - off, err);
}

/* ---- queries ---- */

bool hk_evidence_canary_seen(const struct hk_evidence *ev)
{
	return ev->canary_seen;
}

uint64_t hk_evidence_domain(const struct hk_evidence *ev)
{
	return ev->canary_seen ? ev->domain : 0;
}

bool hk_evidence_dealloc_seen(const struct hk_evidence *ev)
{
	return ev->dealloc_seen;
}

uint64_t hk_evidence_kernel_denials(const struct hk_evidence *ev)
{
	return ev->dealloc_seen ? ev->kernel_denials : 0;
}

size_t hk_evidence_records_received(const struct hk_evidence *ev)
{
	return ev->canary_seen ? ev->n_records : 0;
}

size_t hk_evidence_canary_records(const struct hk_evidence *ev)
{
	size_t n = 0;
	if (!ev->canary_seen)
		return 0;
	for (size_t i = 0; i < ev->n_records; i++)
		n += ev->records[i].is_canary;
	return n;
}

const struct hk_landlock_domain *hk_evidence_allocated(const struct hk_evidence *ev)
{
	return ev->allocated_seen ? &ev->allocated : NULL;
}
