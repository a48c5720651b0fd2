/* harkaq-audit's parts (the top of main.c says what the reader does and why):
 *
 *   main.c        options, start-up (confirm audit, raise the backlog), the lines it announces
 *   privileges.c  the drop to one capability, verified
 *   sentinel.c    the status sentinel: the one process that keeps CAP_AUDIT_CONTROL
 *   filter.c      whose records the caller receives (pure; filter.h)
 *   forward.c     the receive loop: records through the filter to stdout
 *
 * Every line on stdout is encoded by core/formats/reader_line.c, the codec harkaq decodes with. */
#ifndef HK_AUDIT_AUDIT_H
#define HK_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit/filter.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/reader_line.h"
#include "sys/auditnl.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 64,
	EXIT_FAILURE_ENV = 70,
	EXIT_REFUSED = 77,          /* sysexits' EX_NOPERM: not for this caller */
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
/* The filter's emit function (filter.h): one "record" line; ctx is the struct out. */
void out_record(void *ctx, const struct hk_audit_msg *m);

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

struct reader {
	struct out *out;
	struct hk_audit_sub sub;
	struct filter filter;       /* which records are handed over (filter.h) */
	uint64_t received;
	int64_t deadline_ms;        /* monotonic; the reader ends then (0: no limit) */
};

/* Receives everything queued, without waiting: 0, or -errno on a receive failure. */
HK_MUST_CHECK int drain(struct reader *r, struct hk_error *err);
/* Waits for records, stdin and signals, until the deadline; returns why it stopped. */
const char *run_loop(struct reader *r, int sigfd, struct hk_error *err, int *rc);

#endif
