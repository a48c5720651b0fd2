/* The reader's output: a buffered writer of JSON lines on stdout (audit.h), used by the
 * start-up (main.c) and the receive loop (forward.c) alike. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "audit/audit.h"
#include "core/basic/buf.h"

void out_flush(struct out *o)
{
	size_t done = 0;
	while (!o->broken && done < o->buf.len) {
		ssize_t n = write(STDOUT_FILENO, o->buf.data + done, o->buf.len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* The caller may hand over a non-blocking pipe: wait, as a blocking
				 * one would. */
				struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
				if (poll(&p, 1, -1) >= 0 || errno == EINTR)
					continue;
			}
			o->broken = true;
			o->write_errno = errno;
			break;
		}
		done += (size_t)n;
	}
	hk_buf_reset(&o->buf);
}

void out_line(struct out *o, const struct hk_reader_line *l)
{
	hk_reader_line_encode(l, &o->buf);
}

void out_record(void *ctx, const struct hk_audit_msg *m)
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
	out_line(ctx, &l);
}

void emit_message(struct out *o, enum hk_reader_event event, const char *message)
{
	const struct hk_reader_line l = { .event = event, .text_reason = (char *)(uintptr_t)message };
	out_line(o, &l);
}
