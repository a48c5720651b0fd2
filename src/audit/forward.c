/* The receive loop: records from the audit multicast group to stdout, Landlock records and the
 * SYSCALL/PROCTITLE records of the same events, until stdin closes or a stop signal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "audit/audit.h"

/* Output is batched and flushed whenever the socket has nothing more queued; this bounds the
 * batch when records keep arriving without pause. */
#define FLUSH_THRESHOLD (256 * 1024)

static void ring_add(struct reader *r, uint64_t serial)
{
	/* Consecutive records of one event share the serial: store it once. */
	if (r->ring_used > 0 && r->ring[(r->ring_next + SERIAL_RING - 1) % SERIAL_RING] == serial)
		return;
	r->ring[r->ring_next] = serial;
	r->ring_next = (r->ring_next + 1) % SERIAL_RING;
	if (r->ring_used < SERIAL_RING)
		r->ring_used++;
}

static bool ring_has(const struct reader *r, uint64_t serial)
{
	for (unsigned i = 0; i < r->ring_used; i++)
		if (r->ring[i] == serial)
			return true;
	return false;
}

static bool wanted(struct reader *r, const struct hk_audit_msg *m)
{
	switch (m->type) {
	case AUDIT_LANDLOCK_ACCESS:
	case AUDIT_LANDLOCK_DOMAIN:
		if (m->has_stamp)
			ring_add(r, m->serial);
		return true;
	case AUDIT_SYSCALL:
	case AUDIT_PROCTITLE:
		return r->forward_all || (m->has_stamp && ring_has(r, m->serial));
	default:
		return r->forward_all;
	}
}

static void forward(struct reader *r, const struct hk_audit_msg *m)
{
	const struct hk_reader_line l = {
		.event = HK_READER_RECORD,
		.type = m->type,
		.has_stamp = m->has_stamp,
		.serial = m->serial,
		.sec = m->sec,
		.msec = m->msec,
		.text = (char *)(uintptr_t)m->body,
		.text_len = m->body_len,
	};
	out_line(r->out, &l);
	r->forwarded++;
}

int drain(struct reader *r, struct hk_error *err)
{
	for (;;) {
		struct hk_audit_msg m;
		int got = hk_audit_sub_recv(&r->sub, &m, 0, err);
		if (got == 0)
			break;
		if (got == -ENOBUFS) {
			/* Rare and important: said at once, so the orchestrator can tie the loss
			 * to the phase it happened in. */
			const struct hk_reader_line l = { .event = HK_READER_OVERRUN,
							  .enobufs = r->sub.enobufs };
			out_line(r->out, &l);
			continue;
		}
		if (got < 0)
			return got;
		r->received++;
		if (wanted(r, &m))
			forward(r, &m);
		if (r->out->buf.len >= FLUSH_THRESHOLD)
			out_flush(r->out);
		if (r->out->broken)
			return 0;
	}
	out_flush(r->out);
	return 0;
}

const char *run_loop(struct reader *r, int sigfd, struct hk_error *err, int *rc)
{
	char scratch[4096];
	bool stdin_open = true;

	*rc = 0;
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = r->sub.fd, .events = POLLIN },
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
		};
		int n = poll(p, 3, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*rc = hk_fail_errno(err, errno, "poll");
			return "error";
		}
		/* Records first: they are what the loop is for. */
		if (p[0].revents & (POLLIN | POLLERR)) {
			*rc = drain(r, err);
			if (*rc < 0)
				return "error";
		}
		if (r->out->broken)
			return "stdout closed";
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				return si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
		}
		if (p[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t got = read(STDIN_FILENO, scratch, sizeof(scratch));
			if (got == 0)
				return "stdin closed";
			if (got < 0 && errno != EINTR && errno != EAGAIN) {
				/* Not a pipe we can watch (e.g. a closed descriptor): rely on
				 * signals only. */
				stdin_open = false;
			}
			/* Input is not part of the protocol yet: ignored. */
		}
	}
}

