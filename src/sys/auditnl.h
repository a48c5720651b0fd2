/* Audit netlink client: the kernel-facing half of harkaq-audit (design.md §6; kernel-facts.md §5, §9).
 *
 * Two kinds of socket, both AF_NETLINK/NETLINK_AUDIT:
 *
 *   control (struct hk_audit_ctl)    AUDIT_GET / AUDIT_SET, unicast request and answer.  Needs
 *                                    CAP_AUDIT_CONTROL in the initial user and pid namespaces,
 *                                    at the time of each request (the kernel checks both the
 *                                    socket's opener and the sending task).
 *   subscriber (struct hk_audit_sub) the AUDIT_NLGRP_READLOG multicast group: every audit record
 *                                    the kernel emits, best effort.  CAP_AUDIT_READ is checked
 *                                    when the socket is bound.
 *
 * The one bug this file exists not to have (design.md §3.5, method note): the kernel sends the
 * ACK of an AUDIT_GET *before* the reply, because the reply is sent from a kernel thread.
 * hk_audit_get() reads past the ACK and accepts only a message of type AUDIT_GET carrying its
 * own sequence number, sent by the kernel (nl_pid == 0), within a bounded wait.
 *
 * Every function follows src/core/basic/error.h: 0 (or a documented non-negative value) on success,
 * -errno on failure with a sentence in *err.
 */
#ifndef HK_SYS_AUDITNL_H
#define HK_SYS_AUDITNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/formats/reader_line.h"

/* Record types.  Debian 12's headers predate the Landlock ones (Linux 6.15). */
#ifndef AUDIT_SYSCALL
#define AUDIT_SYSCALL 1300
#endif
#ifndef AUDIT_CONFIG_CHANGE
#define AUDIT_CONFIG_CHANGE 1305
#endif
#ifndef AUDIT_EOE
#define AUDIT_EOE 1320
#endif
#ifndef AUDIT_PROCTITLE
#define AUDIT_PROCTITLE 1327
#endif
#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#endif
#ifndef AUDIT_LANDLOCK_DOMAIN
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif

/* AUDIT_NLGRP_READLOG is an enumerator in <linux/audit.h> (so #ifndef cannot see it); this is
 * its value, fixed by the kernel ABI.  The bind mask is 1 << (group - 1) = 1. */
#define HK_AUDIT_NLGRP_READLOG 1

/* How long a control request waits for the kernel's answer. */
#define HK_AUDIT_REPLY_TIMEOUT_MS 2000

/* Receive buffer asked for by default (bytes).  kernel-facts.md §10: about 650 bytes of record
 * text per denial, 145-170k records/s; a slow moment of the reader must not overrun. */
#define HK_AUDIT_DEFAULT_RCVBUF (32 * 1024 * 1024)

/* struct hk_audit_status and hk_audit_status_json() are the reader line codec's
 * (core/formats/reader_line.h): the status travels to harkaq in those lines. */

/* Settings AUDIT_SET may change.  PID (registering as auditd) is deliberately absent: harkaq
 * never takes the auditd role. */
enum hk_audit_setting {
	HK_AUDIT_SET_ENABLED,
	HK_AUDIT_SET_FAILURE,
	HK_AUDIT_SET_RATE_LIMIT,
	HK_AUDIT_SET_BACKLOG_LIMIT,
	HK_AUDIT_SET_BACKLOG_WAIT_TIME,
	HK_AUDIT_SET_LOST,          /* resets the counter; the value passed is ignored */
};

/* "enabled", "backlog_limit", … (the setting's JSON key in hk_audit_status_json). */
const char *hk_audit_setting_name(enum hk_audit_setting setting);
/* The current value of a setting in a status. */
uint32_t hk_audit_status_value(const struct hk_audit_status *st, enum hk_audit_setting setting);

/* True when the status says the kernel emits records: enabled is 1, or 2 (enabled and locked;
 * the kernel and Landlock test audit_enabled as a boolean). */
bool hk_audit_status_on(const struct hk_audit_status *st);

/* ---- control socket ---- */

struct hk_audit_ctl {
	int fd;             /* owned; -1 when closed */
	uint32_t seq;       /* sequence number of the last request */
};

#define HK_AUDIT_CTL_INIT { -1, 0 }

HK_MUST_CHECK int hk_audit_ctl_open(struct hk_audit_ctl *ctl, struct hk_error *err);
void hk_audit_ctl_close(struct hk_audit_ctl *ctl);

/* AUDIT_GET.  Fills *st from the kernel's reply (never from the ACK).  -ETIMEDOUT when no
 * reply came within HK_AUDIT_REPLY_TIMEOUT_MS; -EPERM without CAP_AUDIT_CONTROL. */
HK_MUST_CHECK int hk_audit_get(struct hk_audit_ctl *ctl, struct hk_audit_status *st, struct hk_error *err);

/* AUDIT_SET of one setting, waiting for the kernel's nlmsgerr.  Returns the kernel's
 * non-negative answer: 0, except for HK_AUDIT_SET_LOST, where the kernel answers with the
 * counter's old value as a *positive* error code (kernel-facts.md §5) — a success, not a failure;
 * the exact value is stored in *kernel_value when kernel_value is not NULL (the return value
 * saturates at INT_MAX).  Check the effect with a fresh hk_audit_get(). */
HK_MUST_CHECK int hk_audit_set(struct hk_audit_ctl *ctl, enum hk_audit_setting setting, uint32_t value,
		 uint32_t *kernel_value, struct hk_error *err);

/* One-shot AUDIT_GET for callers that only want to look (`harkaq probe`, `harkaq-audit
 * --status`): opens a control socket, asks, closes. */
HK_MUST_CHECK int hk_audit_query_status(struct hk_audit_status *st, struct hk_error *err);

/* ---- multicast subscriber ---- */

struct hk_audit_sub {
	int fd;                 /* owned; -1 when closed */
	int rcvbuf;             /* effective SO_RCVBUF, as getsockopt reports it (bytes) */
	bool rcvbuf_forced;     /* SO_RCVBUFFORCE was accepted (beyond net.core.rmem_max) */
	uint64_t enobufs;       /* receive-buffer overruns seen (each one lost records) */
	uint64_t foreign;       /* datagrams ignored because they did not come from the kernel */
	uint64_t malformed;     /* netlink messages ignored because their header was invalid */
	char *buf;              /* owned; the current datagram */
	size_t buf_cap, len, off;
};

#define HK_AUDIT_SUB_INIT { -1, 0, false, 0, 0, 0, NULL, 0, 0, 0 }

/* Opens a socket bound to the READLOG group with a receive buffer of rcvbuf_request bytes
 * (<= 0: HK_AUDIT_DEFAULT_RCVBUF).  SO_RCVBUFFORCE is tried first (it needs CAP_NET_ADMIN and
 * may exceed net.core.rmem_max); on EPERM, SO_RCVBUF (capped by rmem_max).  sub->rcvbuf is
 * what the kernel really granted.  -EPERM without CAP_AUDIT_READ. */
HK_MUST_CHECK int hk_audit_sub_open(struct hk_audit_sub *sub, int rcvbuf_request, struct hk_error *err);
void hk_audit_sub_close(struct hk_audit_sub *sub);

/* One audit message.  All pointers point into the subscriber's buffer and stay valid until the
 * next hk_audit_sub_recv() or hk_audit_sub_close(); none is NUL-terminated. */
struct hk_audit_msg {
	uint16_t type;          /* 1423, 1424, 1300, … */
	const char *text;       /* the whole payload, "audit(1733078400.123:38): domain=…" */
	size_t text_len;        /* trailing NUL and newline bytes removed */
	bool has_stamp;         /* the "audit(SEC.MSEC:SERIAL): " prefix was recognised */
	uint64_t sec;           /* event time and serial (valid when has_stamp) */
	unsigned msec;
	uint64_t serial;
	const char *body;       /* after the prefix; the whole text when !has_stamp */
	size_t body_len;
};

/* Returns 1 with *msg filled; 0 when nothing arrived within timeout_ms (0 = do not wait,
 * -1 = wait forever); -ENOBUFS when the socket's receive buffer overflowed since the last
 * call (records were lost that the kernel's `lost` counter does not count, kernel-facts.md §9):
 * sub->enobufs is incremented and the caller should simply call again — the records still
 * queued are readable.  Any other -errno is a real failure. */
HK_MUST_CHECK int hk_audit_sub_recv(struct hk_audit_sub *sub, struct hk_audit_msg *msg, int timeout_ms,
		      struct hk_error *err);
/* The next netlink message of the datagram in sub->buf, from sub->off to sub->len: 1 with
 * *msg filled, 0 when the datagram is exhausted (a malformed header ends it, counted in
 * sub->malformed; NOOP, DONE and ERROR messages are skipped).  hk_audit_sub_recv's parser of
 * what the kernel sent, exposed so that it is fuzzed without a socket (fuzz/fuzz_reader.c). */
int hk_audit_sub_next(struct hk_audit_sub *sub, struct hk_audit_msg *msg);

#endif
