/* Audit netlink client (see auditnl.h).  The only file of harkaq that talks NETLINK_AUDIT. */
#include "sys/auditnl.h"

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/formats/audit_record.h"
#include "core/basic/util.h"

/* Large enough for any audit message: the kernel caps one record at MAX_AUDIT_MESSAGE_LENGTH
 * (8970 bytes); a control reply is far smaller. */
#define HK_AUDIT_RECV_BUF (64 * 1024)

/* ---- status helpers ---- */

const char *hk_audit_setting_name(enum hk_audit_setting setting)
{
	switch (setting) {
	case HK_AUDIT_SET_ENABLED:
		return "enabled";
	case HK_AUDIT_SET_FAILURE:
		return "failure";
	case HK_AUDIT_SET_RATE_LIMIT:
		return "rate_limit";
	case HK_AUDIT_SET_BACKLOG_LIMIT:
		return "backlog_limit";
	case HK_AUDIT_SET_BACKLOG_WAIT_TIME:
		return "backlog_wait_time";
	case HK_AUDIT_SET_LOST:
		return "lost";
	}
	return "unknown";
}

uint32_t hk_audit_status_value(const struct hk_audit_status *st, enum hk_audit_setting setting)
{
	switch (setting) {
	case HK_AUDIT_SET_ENABLED:
		return st->enabled;
	case HK_AUDIT_SET_FAILURE:
		return st->failure;
	case HK_AUDIT_SET_RATE_LIMIT:
		return st->rate_limit;
	case HK_AUDIT_SET_BACKLOG_LIMIT:
		return st->backlog_limit;
	case HK_AUDIT_SET_BACKLOG_WAIT_TIME:
		return st->backlog_wait_time;
	case HK_AUDIT_SET_LOST:
		return st->lost;
	}
	return 0;
}

bool hk_audit_status_on(const struct hk_audit_status *st)
{
	return st->enabled == 1 || st->enabled == 2;
}

/* ---- shared socket plumbing ---- */

static int audit_socket(struct hk_error *err, const char *role)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		int e = errno;
		if (e == EPROTONOSUPPORT)
			return hk_fail(err, e,
				       "cannot open the audit netlink %s socket: this kernel is built "
				       "without audit (CONFIG_AUDIT)", role);
		return hk_fail_errno(err, e, "cannot open the audit netlink %s socket", role);
	}
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is readable or the deadline passes: 1 readable, 0 timed out, -errno. */
static int wait_readable(int fd, int64_t deadline_ms)
{
	for (;;) {
		int64_t left = deadline_ms - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* Receives one datagram without blocking.  Returns its length, -EAGAIN when none is queued, or
 * another -errno.  *from_kernel tells whether the sender's port id is 0 (the kernel): another
 * process holding CAP_NET_ADMIN could send to our port, and its words are not evidence. */
static ssize_t recv_datagram(int fd, char *buf, size_t cap, bool *from_kernel, bool *truncated)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = {
		.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
	};
	for (;;) {
		memset(&from, 0, sizeof(from));
		mh.msg_namelen = sizeof(from);
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		*from_kernel = mh.msg_namelen >= sizeof(from) && from.nl_family == AF_NETLINK &&
			       from.nl_pid == 0;
		*truncated = (mh.msg_flags & MSG_TRUNC) != 0;
		return n;
	}
}

/* ---- control socket ---- */

int hk_audit_ctl_open(struct hk_audit_ctl *ctl, struct hk_error *err)
{
	int fd = audit_socket(err, "control");
	if (fd < 0)
		return fd;
	ctl->fd = fd;
	/* Any start value works (answers are matched per socket and per sequence number); the
	 * clock only makes the requests of two runs distinguishable in a netlink trace. */
	ctl->seq = (uint32_t)now_ms();
	return 0;
}

void hk_audit_ctl_close(struct hk_audit_ctl *ctl)
{
	if (ctl->fd >= 0)
		close(ctl->fd);
	ctl->fd = -1;
}

struct audit_request {
	struct nlmsghdr nlh;
	struct audit_status st;
};

static int ctl_send(struct hk_audit_ctl *ctl, uint16_t type, const struct audit_status *payload,
		    struct hk_error *err)
{
	struct audit_request req;
	memset(&req, 0, sizeof(req));
	size_t payload_len = payload ? sizeof(*payload) : 0;
	req.nlh.nlmsg_len = (uint32_t)NLMSG_LENGTH(payload_len);
	req.nlh.nlmsg_type = type;
	/* NLM_F_ACK is asked on purpose: the ACK is the kernel's answer to AUDIT_SET, and for
	 * AUDIT_GET it proves that reading past it works (the reply comes after it). */
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nlh.nlmsg_seq = ++ctl->seq;
	if (payload)
		req.st = *payload;

	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK, .nl_pid = 0 };
	for (;;) {
		ssize_t n = sendto(ctl->fd, &req, req.nlh.nlmsg_len, 0,
				   (const struct sockaddr *)&kernel, sizeof(kernel));
		if (n == (ssize_t)req.nlh.nlmsg_len)
			return 0;
		if (n >= 0)
			return hk_fail(err, EIO, "short write of an audit request to the kernel");
		if (errno != EINTR)
			return hk_fail_errno(err, errno, "cannot send the audit request to the kernel");
	}
}

/* A kernel nlmsgerr value is an error when it is a negative errno; anything else (0, or the
 * positive old `lost` counter that AUDIT_SET of LOST returns) is a success. */
static bool nlerr_is_failure(int32_t e)
{
	return e < 0 && e >= -4095;
}

static int refused(struct hk_error *err, int code, const char *what)
{
	if (code == EPERM)
		return hk_fail_errno(err, code, "the kernel refused %s (it needs CAP_AUDIT_CONTROL "
					       "in the initial user and pid namespaces%s)", what,
				     strncmp(what, "AUDIT_SET", 9) == 0
					     ? ", and audit not locked by enabled=2" : "");
	return hk_fail_errno(err, code, "the kernel refused %s", what);
}

/* Reads messages for the request with sequence seq until one of:
 *   want_type != 0: a message of that type (the AUDIT_GET reply), copied into reply;
 *   want_type == 0: the nlmsgerr (the AUDIT_SET answer), its value in *nlerr.
 * A zero nlmsgerr seen while waiting for a reply is the ACK, which the kernel sends first:
 * skipped.  A failure nlmsgerr ends the wait with that errno.  Messages with another sequence
 * number are stale answers to earlier requests (an ACK that came after its reply): skipped. */
static int ctl_wait(struct hk_audit_ctl *ctl, uint32_t seq, uint16_t want_type, void *reply,
		    size_t reply_cap, size_t *reply_len, int32_t *nlerr, const char *what,
		    struct hk_error *err)
{
	hk_autofree char *buf = hk_xmalloc(HK_AUDIT_RECV_BUF);
	int64_t deadline = now_ms() + HK_AUDIT_REPLY_TIMEOUT_MS;
	bool ack_seen = false;

	for (;;) {
		bool from_kernel = false, truncated = false;
		ssize_t n = recv_datagram(ctl->fd, buf, HK_AUDIT_RECV_BUF, &from_kernel, &truncated);
		if (n == -EAGAIN) {
			int w = wait_readable(ctl->fd, deadline);
			if (w < 0)
				return hk_fail_errno(err, -w, "waiting for the kernel's answer to %s",
						     what);
			if (w == 0)
				return hk_fail(err, ETIMEDOUT,
					       "no answer to %s from the kernel within %d ms (%s)", what,
					       HK_AUDIT_REPLY_TIMEOUT_MS,
					       ack_seen ? "the ACK came, the reply did not"
							: "not even an ACK came");
			continue;
		}
		if (n < 0)
			return hk_fail_errno(err, (int)-n, "cannot receive the kernel's answer to %s",
					     what);
		if (!from_kernel || truncated)
			continue;

		size_t left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;
			size_t plen = h->nlmsg_len - NLMSG_HDRLEN;
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (plen < sizeof(struct nlmsgerr))
					continue;
				const struct nlmsgerr *e = NLMSG_DATA(h);
				if (nlerr_is_failure(e->error))
					return refused(err, -e->error, what);
				if (want_type == 0) {
					*nlerr = e->error;
					return 0;
				}
				/* kernel-facts.md §5: the ACK arrives before the AUDIT_GET reply. */
				ack_seen = true;
				continue;
			}
			if (want_type != 0 && h->nlmsg_type == want_type) {
				size_t take = plen < reply_cap ? plen : reply_cap;
				memcpy(reply, NLMSG_DATA(h), take);
				*reply_len = plen;
				return 0;
			}
		}
	}
}

int hk_audit_get(struct hk_audit_ctl *ctl, struct hk_audit_status *out, struct hk_error *err)
{
	int r = ctl_send(ctl, AUDIT_GET, NULL, err);
	if (r < 0)
		return hk_wrap(err, "AUDIT_GET");

	struct audit_status st;
	memset(&st, 0, sizeof(st));
	size_t len = 0;
	r = ctl_wait(ctl, ctl->seq, AUDIT_GET, &st, sizeof(st), &len, NULL, "AUDIT_GET", err);
	if (r < 0)
		return r;
	/* The fields up to `backlog` exist in every kernel's struct; later ones are newer and
	 * stay 0 when an older kernel sends a shorter reply. */
	if (len < offsetof(struct audit_status, backlog) + sizeof(st.backlog))
		return hk_fail(err, EPROTO, "AUDIT_GET: the kernel's reply is %zu bytes, too short "
					   "for struct audit_status", len);

	out->enabled = st.enabled;
	out->failure = st.failure;
	out->pid = st.pid;
	out->rate_limit = st.rate_limit;
	out->backlog_limit = st.backlog_limit;
	out->lost = st.lost;
	out->backlog = st.backlog;
	out->backlog_wait_time = st.backlog_wait_time;
	return 0;
}

int hk_audit_set(struct hk_audit_ctl *ctl, enum hk_audit_setting setting, uint32_t value,
		 uint32_t *kernel_value, struct hk_error *err)
{
	struct audit_status st;
	memset(&st, 0, sizeof(st));
	switch (setting) {
	case HK_AUDIT_SET_ENABLED:
		st.mask = AUDIT_STATUS_ENABLED;
		st.enabled = value;
		break;
	case HK_AUDIT_SET_FAILURE:
		st.mask = AUDIT_STATUS_FAILURE;
		st.failure = value;
		break;
	case HK_AUDIT_SET_RATE_LIMIT:
		st.mask = AUDIT_STATUS_RATE_LIMIT;
		st.rate_limit = value;
		break;
	case HK_AUDIT_SET_BACKLOG_LIMIT:
		st.mask = AUDIT_STATUS_BACKLOG_LIMIT;
		st.backlog_limit = value;
		break;
	case HK_AUDIT_SET_BACKLOG_WAIT_TIME:
		st.mask = AUDIT_STATUS_BACKLOG_WAIT_TIME;
		st.backlog_wait_time = value;
		break;
	case HK_AUDIT_SET_LOST:
		st.mask = AUDIT_STATUS_LOST;
		break;
	default:
		return hk_fail(err, EINVAL, "AUDIT_SET: unknown setting %d", (int)setting);
	}
	const char *name = hk_audit_setting_name(setting);

	char what[64];
	snprintf(what, sizeof(what), "AUDIT_SET %s=%u", name, value);
	int r = ctl_send(ctl, AUDIT_SET, &st, err);
	if (r < 0)
		return hk_wrap(err, "%s", what);
	int32_t nlerr = 0;
	r = ctl_wait(ctl, ctl->seq, 0, NULL, 0, NULL, &nlerr, what, err);
	if (r < 0)
		return r;
	/* Setting LOST answers with the old counter as a positive "error" (kernel-facts.md §5); a
	 * counter above INT_MAX wraps negative beyond the errno range, hence the cast back. */
	uint32_t answer = (uint32_t)nlerr;
	if (kernel_value)
		*kernel_value = answer;
	return answer > INT_MAX ? INT_MAX : (int)answer;
}

int hk_audit_query_status(struct hk_audit_status *st, struct hk_error *err)
{
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	int r = hk_audit_ctl_open(&ctl, err);
	if (r < 0)
		return r;
	r = hk_audit_get(&ctl, st, err);
	hk_audit_ctl_close(&ctl);
	return r;
}

/* ---- multicast subscriber ---- */

int hk_audit_sub_open(struct hk_audit_sub *sub, int rcvbuf_request, struct hk_error *err)
{
	if (rcvbuf_request <= 0)
		rcvbuf_request = HK_AUDIT_DEFAULT_RCVBUF;
	hk_autoclose int fd = audit_socket(err, "multicast");
	if (fd < 0)
		return fd;

	/* Sized before bind, so no record arrives into the default small buffer.  The kernel
	 * doubles the request (bookkeeping overhead) and reports the doubled value. */
	bool forced = true;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf_request, sizeof(rcvbuf_request)) <
	    0) {
		if (errno != EPERM)
			return hk_fail_errno(err, errno, "setsockopt(SO_RCVBUFFORCE, %d) on the audit "
						 "multicast socket", rcvbuf_request);
		forced = false;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_request, sizeof(rcvbuf_request)) <
		    0)
			return hk_fail_errno(err, errno, "setsockopt(SO_RCVBUF, %d) on the audit "
						 "multicast socket", rcvbuf_request);
	}

	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_pid = 0,
		.nl_groups = 1u << (HK_AUDIT_NLGRP_READLOG - 1),
	};
	if (bind(fd, (const struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;
		if (e == EPERM)
			return hk_fail(err, e, "cannot join the audit multicast group READLOG: "
					       "CAP_AUDIT_READ is needed");
		return hk_fail_errno(err, e, "cannot join the audit multicast group READLOG");
	}

	int effective = 0;
	socklen_t optlen = sizeof(effective);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &effective, &optlen) < 0)
		return hk_fail_errno(err, errno, "getsockopt(SO_RCVBUF) on the audit multicast "
						 "socket");

	sub->fd = hk_steal_fd(&fd);
	sub->rcvbuf = effective;
	sub->rcvbuf_forced = forced;
	sub->enobufs = 0;
	sub->foreign = 0;
	sub->malformed = 0;
	sub->buf = hk_xmalloc(HK_AUDIT_RECV_BUF);
	sub->buf_cap = HK_AUDIT_RECV_BUF;
	sub->len = 0;
	sub->off = 0;
	return 0;
}

void hk_audit_sub_close(struct hk_audit_sub *sub)
{
	if (sub->fd >= 0)
		close(sub->fd);
	sub->fd = -1;
	free(sub->buf);
	sub->buf = NULL;
	sub->buf_cap = sub->len = sub->off = 0;
}

/* The stamp is parsed by the core (one parser for record text, design.md §2); a message without
 * one is still delivered, whole, so nothing the kernel said is hidden. */
static void set_stamp(struct hk_audit_msg *msg)
{
	struct hk_audit_stamp stamp;
	struct hk_error ignored;
	size_t body_offset = 0;

	if (hk_audit_split_prefix(msg->text, msg->text_len, &stamp, &body_offset, &ignored) == 0) {
		msg->has_stamp = true;
		msg->sec = stamp.sec;
		msg->msec = stamp.msec;
		msg->serial = stamp.serial;
		msg->body = msg->text + body_offset;
		msg->body_len = msg->text_len - body_offset;
	} else {
		msg->has_stamp = false;
		msg->sec = 0;
		msg->msec = 0;
		msg->serial = 0;
		msg->body = msg->text;
		msg->body_len = msg->text_len;
	}
}

int hk_audit_sub_next(struct hk_audit_sub *sub, struct hk_audit_msg *msg)
{
	while (sub->off < sub->len) {
		size_t left = sub->len - sub->off;
		struct nlmsghdr *h = (struct nlmsghdr *)(sub->buf + sub->off);
		if (!NLMSG_OK(h, left)) {
			sub->malformed++;
			sub->off = sub->len;
			return 0;
		}
		size_t step = NLMSG_ALIGN(h->nlmsg_len);
		sub->off += step < left ? step : left;
		if (h->nlmsg_type == NLMSG_NOOP || h->nlmsg_type == NLMSG_DONE ||
		    h->nlmsg_type == NLMSG_ERROR)
			continue;

		const char *text = NLMSG_DATA(h);
		size_t text_len = h->nlmsg_len - NLMSG_HDRLEN;
		/* The kernel may count a terminating NUL; records carry no meaningful trailing
		 * NUL or newline. */
		while (text_len > 0 && (text[text_len - 1] == '\0' || text[text_len - 1] == '\n'))
			text_len--;
		msg->type = h->nlmsg_type;
		msg->text = text;
		msg->text_len = text_len;
		set_stamp(msg);
		return 1;
	}
	return 0;
}

int hk_audit_sub_recv(struct hk_audit_sub *sub, struct hk_audit_msg *msg, int timeout_ms,
		      struct hk_error *err)
{
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;

	for (;;) {
		if (hk_audit_sub_next(sub, msg))
			return 1;

		bool from_kernel = false, truncated = false;
		sub->len = sub->off = 0;
		ssize_t n = recv_datagram(sub->fd, sub->buf, sub->buf_cap, &from_kernel, &truncated);
		if (n == -ENOBUFS) {
			/* kernel-facts.md §9: the socket's buffer overflowed; the kernel's `lost`
			 * does not count these.  The records still queued remain readable. */
			sub->enobufs++;
			return hk_fail(err, ENOBUFS, "the audit multicast socket's receive buffer "
						     "overflowed (%d bytes): records were lost "
						     "(overrun %llu)",
				       sub->rcvbuf, (unsigned long long)sub->enobufs);
		}
		if (n == -EAGAIN) {
			if (timeout_ms == 0)
				return 0;
			int w;
			if (timeout_ms < 0) {
				struct pollfd p = { .fd = sub->fd, .events = POLLIN };
				w = poll(&p, 1, -1);
				if (w < 0)
					w = errno == EINTR ? 1 : -errno;
			} else {
				w = wait_readable(sub->fd, deadline);
			}
			if (w < 0)
				return hk_fail_errno(err, -w, "waiting on the audit multicast socket");
			if (w == 0)
				return 0;
			continue;
		}
		if (n < 0)
			return hk_fail_errno(err, (int)-n, "cannot receive from the audit multicast "
							   "socket");
		if (!from_kernel) {
			sub->foreign++;
			continue;
		}
		if (truncated) {
			/* Cannot happen with a 64 KiB buffer and 8970-byte records; if it ever
			 * does, a record is incomplete and that must be visible. */
			sub->malformed++;
			return hk_fail(err, EMSGSIZE, "an audit record larger than %zu bytes was "
						      "truncated", sub->buf_cap);
		}
		sub->len = (size_t)n;
	}
}
