/* audit_set: read and change the kernel's audit settings from a test script, independently of
 * harkaq's own client (src/sys/auditnl.c), so the tests can (1) cross-check what
 * `harkaq-audit --status` reports and (2) put every setting they changed back exactly.
 *
 *     audit_set                       prints "enabled=1 backlog_limit=64 lost=0 ..."
 *     audit_set enabled=0 backlog_limit=64    sets each, in order; prints the status after
 *
 * Names: enabled, backlog_limit, rate_limit, failure, backlog_wait_time.
 *
 * Deliberately written differently from auditnl.c (no NLM_F_ACK on AUDIT_GET, so only the
 * reply comes back; answers matched by sequence number and sender): an oracle that shares the
 * code under test would share its bugs.  Exit status 0, or 1 with a message on stderr.
 * Static and self-contained (no project library). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint32_t next_seq = 1;

static int send_request(int fd, uint16_t type, uint16_t flags, const struct audit_status *st)
{
	struct {
		struct nlmsghdr h;
		struct audit_status st;
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(st ? sizeof(*st) : 0);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = next_seq;
	if (st)
		req.st = *st;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/* Waits (2 s at most) for the message of type `want` answering the current sequence number;
 * an NLMSG_ERROR answer ends the wait with its value in *nlerr. */
static int wait_answer(int fd, uint16_t want, void *out, size_t out_len, int *nlerr)
{
	char buf[16384];
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 2000) <= 0)
			return -ETIMEDOUT;
		struct sockaddr_nl from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return -errno;
		if (from.nl_pid != 0)
			continue;
		size_t left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != next_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				*nlerr = e->error;
				if (want == NLMSG_ERROR || e->error != 0)
					return 1;
				continue;
			}
			if (h->nlmsg_type == want) {
				size_t plen = h->nlmsg_len - NLMSG_HDRLEN;
				memcpy(out, NLMSG_DATA(h), plen < out_len ? plen : out_len);
				return 0;
			}
		}
	}
}

static int get_status(int fd, struct audit_status *st)
{
	memset(st, 0, sizeof(*st));
	next_seq++;
	int r = send_request(fd, AUDIT_GET, 0, NULL);
	if (r < 0)
		return r;
	int nlerr = 0;
	r = wait_answer(fd, AUDIT_GET, st, sizeof(*st), &nlerr);
	if (r == 1)
		return nlerr < 0 ? nlerr : -EPROTO;
	return r;
}

static int set_one(int fd, const char *name, uint32_t value)
{
	struct audit_status st;
	memset(&st, 0, sizeof(st));
	if (strcmp(name, "enabled") == 0) {
		st.mask = AUDIT_STATUS_ENABLED;
		st.enabled = value;
	} else if (strcmp(name, "backlog_limit") == 0) {
		st.mask = AUDIT_STATUS_BACKLOG_LIMIT;
		st.backlog_limit = value;
	} else if (strcmp(name, "rate_limit") == 0) {
		st.mask = AUDIT_STATUS_RATE_LIMIT;
		st.rate_limit = value;
	} else if (strcmp(name, "failure") == 0) {
		st.mask = AUDIT_STATUS_FAILURE;
		st.failure = value;
	} else if (strcmp(name, "backlog_wait_time") == 0) {
		st.mask = AUDIT_STATUS_BACKLOG_WAIT_TIME;
		st.backlog_wait_time = value;
	} else {
		return -EINVAL;
	}
	next_seq++;
	int r = send_request(fd, AUDIT_SET, NLM_F_ACK, &st);
	if (r < 0)
		return r;
	int nlerr = 0;
	r = wait_answer(fd, NLMSG_ERROR, NULL, 0, &nlerr);
	if (r < 0)
		return r;
	return nlerr < 0 ? nlerr : 0;
}

int main(int argc, char **argv)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		fprintf(stderr, "audit_set: socket: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		char name[64];
		unsigned long value;
		char *eq = strchr(argv[i], '=');
		if (!eq || (size_t)(eq - argv[i]) >= sizeof(name)) {
			fprintf(stderr, "audit_set: expected NAME=VALUE, got '%s'\n", argv[i]);
			return 1;
		}
		memcpy(name, argv[i], (size_t)(eq - argv[i]));
		name[eq - argv[i]] = '\0';
		char *end;
		value = strtoul(eq + 1, &end, 10);
		if (*end || end == eq + 1) {
			fprintf(stderr, "audit_set: '%s' is not a number\n", eq + 1);
			return 1;
		}
		int r = set_one(fd, name, (uint32_t)value);
		if (r < 0) {
			fprintf(stderr, "audit_set: setting %s=%lu: %s\n", name, value, strerror(-r));
			return 1;
		}
	}
	struct audit_status st;
	int r = get_status(fd, &st);
	if (r < 0) {
		fprintf(stderr, "audit_set: AUDIT_GET: %s\n", strerror(-r));
		return 1;
	}
	printf("enabled=%u failure=%u pid=%u rate_limit=%u backlog_limit=%u lost=%u backlog=%u "
	       "backlog_wait_time=%u\n",
	       st.enabled, st.failure, st.pid, st.rate_limit, st.backlog_limit, st.lost, st.backlog,
	       st.backlog_wait_time);
	close(fd);
	return 0;
}
