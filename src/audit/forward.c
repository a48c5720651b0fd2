/* The receive loop: records from the audit multicast group through the filter (filter.h) to
 * stdout, until stdin closes, a stop signal, or the reader's lifetime ends. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"

/* Output is batched and flushed whenever the socket has nothing more queued; this bounds the
 * batch when records keep arriving without pause. */
#define FLUSH_THRESHOLD (256 * 1024)

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
		filter_feed(&r->filter, &m);
		if (r->out->buf.len >= FLUSH_THRESHOLD)
			out_flush(r->out);
		if (r->out->broken)
			return 0;
	}
	out_flush(r->out);
	return 0;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* poll's timeout until the deadline: -1 without one. */
static int timeout_until(int64_t deadline_ms)
{
	if (deadline_ms <= 0)
		return -1;
	int64_t left = deadline_ms - monotonic_ms();
	if (left <= 0)
		return 0;
	return left > 60 * 60 * 1000 ? 60 * 60 * 1000 : (int)left;
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
		int n = poll(p, 3, timeout_until(r->deadline_ms));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*rc = hk_fail_errno(err, errno, "poll");
			return "error";
		}
		/* Checked on every turn: a stream that never pauses must not extend it. */
		if (r->deadline_ms > 0 && monotonic_ms() >= r->deadline_ms)
			return "lifetime limit";
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
