/* Which records a caller of harkaq-audit receives (docs/audit-reader.md, "Whose records").
 *
 * A caller whose real uid is 0 receives every Landlock record (1423, 1424) and the SYSCALL and
 * PROCTITLE records of the same events, as root could read them from the audit log anyway.
 * Any other caller receives only the records of its own domains: a domain is the caller's when
 * its `status=allocated` record names the caller's uid (the domain's creator, in the initial
 * user namespace, kernel-facts.md §3).  Then it receives every ACCESS record of that domain,
 * its allocated and deallocated records, and the SYSCALL and PROCTITLE records of those events;
 * nothing of a domain it never saw allocated, nothing of another uid's.
 *
 * The allocated record comes in the same event as the domain's first logged ACCESS record, and
 * after it (kernel-facts.md §3, "Whose domain").  So an ACCESS record of a domain not known yet
 * is held until its event tells: the allocated record decides it (the caller's: handed over,
 * in the order received; another uid's: withheld), and the event's SYSCALL, PROCTITLE or EOE
 * record, which come after any allocated record of the event, ends the wait (withheld: the
 * domain was allocated before this reader saw it, or its allocated record was lost).  What is
 * held is bounded (FILTER_PENDING_MAX records, FILTER_PENDING_BYTES bytes): the oldest held
 * record is withheld first, and counted (`evicted`), so that a loss it causes is explained.
 *
 * The filter is pure (no system call): harkaq-audit's receive loop feeds it, the unit test and
 * fuzz/fuzz_reader.c feed it record sequences. */
#ifndef HK_AUDIT_FILTER_H
#define HK_AUDIT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/auditnl.h"

/* The serials of the last Landlock events handed over: their SYSCALL and PROCTITLE records
 * follow them.  Events interleave only as much as concurrent denials do; 256 is ample. */
#define FILTER_SERIAL_RING 256
/* The caller's live domains (allocated, not yet deallocated) the filter can know.  Beyond it
 * a new domain of the caller is handed over for its allocation event only and counted
 * (`untracked`): its later records are withheld, and its count check fails (NoEvidence). */
#define FILTER_OWNED_MAX 1024
/* Domains recently seen allocated by another uid: their records are withheld at once instead
 * of being held until their event ends (a neighbour's flood costs no copy). */
#define FILTER_FOREIGN_RING 64
/* ACCESS records held while their domain's owner is not known yet (the bytes may exceed the
 * bound by one record). */
#define FILTER_PENDING_MAX 1024
#define FILTER_PENDING_BYTES (4u * 1024 * 1024)

/* Called for each record handed over, in order. */
typedef void (*filter_emit_fn)(void *ctx, const struct hk_audit_msg *m);

/* A held ACCESS record (only those are ever held). */
struct filter_held {
	struct hk_audit_msg m;      /* body and text point into `copy` (the stamp is not kept) */
	char *copy;
	uint64_t domain;
};

struct filter {
	bool by_owner;              /* the caller is not root: own domains only */
	bool forward_all;           /* --all: every record type (root only) */
	uint64_t caller_uid;
	filter_emit_fn emit;
	void *ctx;

	uint64_t ring[FILTER_SERIAL_RING];
	unsigned ring_next, ring_used;
	uint64_t owned[FILTER_OWNED_MAX];
	size_t n_owned;
	uint64_t foreign[FILTER_FOREIGN_RING];
	unsigned foreign_next, foreign_used;
	struct filter_held *held;
	size_t n_held, held_cap, held_bytes;

	uint64_t forwarded;         /* records handed over */
	uint64_t withheld;          /* Landlock records not handed over (another's, or unknown) */
	uint64_t evicted;           /* of those, withheld because the hold was full */
	uint64_t untracked;         /* domains of the caller beyond FILTER_OWNED_MAX */
};

/* by_owner false: root's filter (caller_uid unused). */
void filter_init(struct filter *f, bool by_owner, uint64_t caller_uid, bool forward_all,
		 filter_emit_fn emit, void *ctx);
/* One record, as received.  m's pointers need to live only during the call. */
void filter_feed(struct filter *f, const struct hk_audit_msg *m);
/* The stream ends: whatever is still held is withheld. */
void filter_finish(struct filter *f);
void filter_free(struct filter *f);

#endif
