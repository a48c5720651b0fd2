/* harkaq-audit's parts (the top of main.c says what the reader does and why):
 *
 *   main.c        options, start-up (confirm audit, raise the backlog), the lines it announces
 *   privileges.c  the drop to one capability, verified
 *   sentinel.c    the status sentinel: the one process that keeps CAP_AUDIT_CONTROL
 *   forward.c     the receive loop: which records are forwarded, and how
 *
 * Every line on stdout is encoded by core/formats/reader_line.c, the codec harkaq decodes with. */
#ifndef HK_AUDIT_AUDIT_H
#define HK_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/reader_line.h"
#include "sys/auditnl.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 64,
	EXIT_FAILURE_ENV = 70,
};

/* ---- buffered JSON-lines writer on stdout (main.c) ---- */

struct out {
	struct hk_buf buf;
	bool broken;      /* stdout failed (the orchestrator went away): stop */
	int write_errno;
};

void out_flush(struct out *o);
/* Appends one line (flushed by the caller). */
void out_line(struct out *o, const struct hk_reader_line *l);
/* An "error" or "warning" line. */
void emit_message(struct out *o, enum hk_reader_event event, const char *message);

/* ---- privileges.c ---- */

/* Reduces the process to the capabilities in `keep` and verifies the result (see the
 * function). */
HK_MUST_CHECK int drop_privileges(uint64_t keep, struct hk_reader_privileges *p, struct hk_error *err);

/* ---- sentinel.c ---- */

struct sentinel {
	pid_t pid;        /* -1 when there is none */
	int request_fd;   /* parent writes one byte per request */
	int reply_fd;     /* parent reads one struct sentinel_reply */
};

/* Forks the sentinel.  The child keeps ctl's socket; the caller closes its own copy. */
HK_MUST_CHECK int sentinel_start(struct sentinel *s, struct hk_audit_ctl *ctl, int keep_stderr,
		   struct hk_error *err);
/* One AUDIT_GET, asked of the sentinel. */
HK_MUST_CHECK int sentinel_get(struct sentinel *s, struct hk_audit_status *st, struct hk_error *err);
void sentinel_stop(struct sentinel *s);

/* ---- forward.c ---- */

/* Landlock records of an event precede its SYSCALL and PROCTITLE records (kernel-facts.md §3),
 * so a SYSCALL record is forwarded when its serial is among the last Landlock serials seen.
 * Events interleave only as much as concurrent denials do; 256 is ample. */
#define SERIAL_RING 256

struct reader {
	struct out *out;
	struct hk_audit_sub sub;
	bool forward_all;
	uint64_t ring[SERIAL_RING];
	unsigned ring_next;
	unsigned ring_used;
	uint64_t received;
	uint64_t forwarded;
};

/* Receives everything queued, without waiting: 0, or -errno on a receive failure. */
HK_MUST_CHECK int drain(struct reader *r, struct hk_error *err);
/* Waits for records, stdin and signals; returns why it stopped. */
const char *run_loop(struct reader *r, int sigfd, struct hk_error *err, int *rc);

#endif
