/* The evidence of ONE run (one phase, one Landlock domain), accumulated from audit records
 * (design.md §4, §6).
 *
 * The audit stream is global: every concurrent build's records, and the host's, reach every
 * reader.  Attribution rests on the canary alone (design.md §4, measured in the design.md §6): the
 * ACCESS record whose path is this run's canary reveals the run's `domain=`, and every other
 * record of that domain is the run's.  Neither pid (it travels only in the lazy `allocated`
 * record) nor dev+ino (they name the object, and two builds reading one file report the same
 * inode) can do that job.
 *
 * Records may arrive before the canary's (a denial earlier in the same exec, or the
 * `allocated` record, which the kernel may write first): until the domain is known they are
 * buffered, and when it is learnt the buffer is filtered.  Records of other domains never
 * count and are never kept.
 *
 * Feed every record the reader forwards, in arrival order:
 *
 *     struct hk_evidence ev;
 *     hk_evidence_init(&ev, "/.harkaq/canary-3f9a…");
 *     for each message: hk_evidence_feed(&ev, type, serial, body, body_len, &err);
 *     … wait (bounded) for hk_evidence_dealloc_seen(&ev) after the build exits …
 *     hk_evidence_free(&ev);
 */
#ifndef HK_EVIDENCE_H
#define HK_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/formats/audit_record.h"
#include "core/basic/error.h"

/* Buffer bound while the domain is unknown.  The canary is the first thing the build does, so
 * a run normally learns its domain within its first records; the bound only limits memory
 * when the canary never comes (broken reader) while other builds keep denying.  A record of
 * this run dropped here cannot go unnoticed: it is missing from records_received, so the
 * count check against `denials=N` fails. */
#define HK_EVIDENCE_PENDING_MAX 65536

/* How far back a SYSCALL record looks for ACCESS records of its event, and how many unmatched
 * SYSCALL records are remembered for ACCESS records arriving after them.  The records of one
 * event are written within one syscall, so they arrive close together. */
#define HK_EVIDENCE_SYSCALL_WINDOW 256

/* One ACCESS record attributed to the run (or pending attribution). */
struct hk_evidence_record {
	uint64_t serial;
	struct hk_landlock_access access;
	bool is_canary;
	/* "Who tried" (design.md §6): exe and comm of the SYSCALL record of the same event; NULL when
	 * no such record arrived (a denial outside a syscall, or a reader that filtered it). */
	char *exe;
	size_t exe_len;
	char *comm;
	size_t comm_len;
};

struct hk_evidence_syscall_memo {
	uint64_t serial;
	char *exe;
	size_t exe_len;
	char *comm;
	size_t comm_len;
};

/* The fields are readable; change them only through the functions below. */
struct hk_evidence {
	char *canary_path;               /* owned */
	size_t canary_len;

	bool canary_seen;
	uint64_t domain;                 /* valid once canary_seen */
	/* The canary was denied in a second, different domain: attribution is impossible. */
	bool canary_conflict;
	uint64_t conflict_domain;

	/* Before canary_seen: every ACCESS record (all domains).  After: only the run's. */
	struct hk_evidence_record *records;
	size_t n_records, cap_records;

	/* DOMAIN records waiting for the domain to be known. */
	struct hk_landlock_domain *pending_domains;
	size_t n_pending_domains, cap_pending_domains;

	bool allocated_seen;
	struct hk_landlock_domain allocated;
	bool dealloc_seen;
	uint64_t kernel_denials;         /* denials=N of the deallocated record */

	/* Ring of recent SYSCALL records that matched no ACCESS record yet. */
	struct hk_evidence_syscall_memo syscalls[HK_EVIDENCE_SYSCALL_WINDOW];
	size_t syscall_next;

	size_t n_malformed;              /* records that failed to parse (not attributable) */
	size_t n_pending_dropped;        /* records dropped because the pending buffer was full */
	size_t n_foreign;                /* records of other domains, discarded */
};

/* canary_path: the exact path the canary probe opens inside the sandbox (copied). */
void hk_evidence_init(struct hk_evidence *ev, const char *canary_path);
void hk_evidence_free(struct hk_evidence *ev);

/* Feeds one audit message: its type, the serial of its event, and its text after the
 * "audit(…): " stamp.  Types other than LANDLOCK_ACCESS, LANDLOCK_DOMAIN and SYSCALL are
 * accepted and ignored.  A record that fails to parse is counted in n_malformed and reported
 * as an error (naming the byte offset); the accumulator stays usable. */
HK_MUST_CHECK int hk_evidence_feed(struct hk_evidence *ev, unsigned type, uint64_t serial, const char *text,
		     size_t len, struct hk_error *err);
/* Same, from the raw message text that still starts with "audit(SEC.MSEC:SERIAL): ". */
HK_MUST_CHECK int hk_evidence_feed_raw(struct hk_evidence *ev, unsigned type, const char *raw, size_t len,
			 struct hk_error *err);

bool hk_evidence_canary_seen(const struct hk_evidence *ev);
/* The run's domain id; 0 until the canary is seen (real ids start at 2^32). */
uint64_t hk_evidence_domain(const struct hk_evidence *ev);
bool hk_evidence_dealloc_seen(const struct hk_evidence *ev);
/* denials=N of the domain's deallocated record; 0 until it is seen. */
uint64_t hk_evidence_kernel_denials(const struct hk_evidence *ev);
/* ACCESS records received for the run's domain, the canary's included; 0 until the canary is
 * seen.  Equal to hk_evidence_kernel_denials() when nothing was lost. */
size_t hk_evidence_records_received(const struct hk_evidence *ev);
/* How many of those carry the canary's path. */
size_t hk_evidence_canary_records(const struct hk_evidence *ev);
/* The domain's allocated record, or NULL if it has not arrived. */
const struct hk_landlock_domain *hk_evidence_allocated(const struct hk_evidence *ev);

#endif
