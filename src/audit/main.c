/* harkaq-audit: the privileged audit reader on the host (design.md §2, §6; docs/audit-reader.md).
 *
 * It confirms that audit is on (switching it on when allowed), raises the kernel's backlog
 * limit, subscribes to the audit multicast group, drops every privilege except CAP_AUDIT_READ,
 * announces readiness, and then forwards Landlock records (and the SYSCALL/PROCTITLE records
 * of the same events) to stdout as JSON lines, until stdin reaches EOF or SIGTERM/SIGINT.
 * It does not classify anything: classification is policy, not privilege (design.md §2).
 *
 * Privilege separation: the kernel answers AUDIT_GET only to a task holding
 * CAP_AUDIT_CONTROL at the time of the request, and the closing report needs one (the `lost`
 * counter).  So before dropping privileges the reader forks a *status sentinel* that keeps
 * only CAP_AUDIT_CONTROL and the control socket, reads one byte per request from a pipe and
 * answers with an AUDIT_GET — nothing else.  The reader itself keeps only CAP_AUDIT_READ.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/json.h"
#include "core/util.h"
#include "sys/auditnl.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 64,
	EXIT_FAILURE_ENV = 70,
};

/* The uid/gid a root-started reader switches to: the conventional "nobody". */
#define UNPRIVILEGED_ID 65534

/* Landlock records of an event precede its SYSCALL and PROCTITLE records (kernel-facts.md §3), so
 * a SYSCALL record is forwarded when its serial is among the last Landlock serials seen.
 * Events interleave only as much as concurrent denials do; 256 is ample. */
#define SERIAL_RING 256

/* Output is batched and flushed whenever the socket has nothing more queued; this bounds the
 * batch when records keep arriving without pause. */
#define FLUSH_THRESHOLD (256 * 1024)

struct options {
	bool enable_allowed;
	uint32_t backlog_floor;
	int rcvbuf;
	bool forward_all;
	bool status_only;
};

/* ---- buffered JSON-lines writer on stdout ---- */

struct out {
	struct hk_buf buf;
	bool broken;      /* stdout failed (the orchestrator went away): stop */
	int write_errno;
};

static void out_flush(struct out *o)
{
	size_t done = 0;
	while (!o->broken && done < o->buf.len) {
		ssize_t n = write(STDOUT_FILENO, o->buf.data + done, o->buf.len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->broken = true;
			o->write_errno = errno;
			break;
		}
		done += (size_t)n;
	}
	hk_buf_reset(&o->buf);
}

/* Starts one line: returns a writer positioned for the top-level object's members, after
 * "event". */
static void line_begin(struct out *o, struct hk_json *j, const char *event)
{
	hk_json_init(j, &o->buf, 0);
	hk_json_obj_begin(j);
	hk_json_key(j, "event");
	hk_json_str(j, event);
}

static void line_end(struct out *o, struct hk_json *j)
{
	hk_json_obj_end(j);
	hk_buf_putc(&o->buf, '\n');
}

static void emit_message(struct out *o, const char *event, const char *message)
{
	struct hk_json j;
	line_begin(o, &j, event);
	hk_json_key(&j, "message");
	hk_json_bytes(&j, message, strlen(message));
	line_end(o, &j);
}

/* ---- privileges ---- */

struct privileges {
	uid_t uid;
	gid_t gid;
	uint64_t caps;            /* effective == permitted after the drop */
	bool bounding_dropped;
	bool no_new_privs;
};

static int capget_sets(uint64_t *effective, uint64_t *permitted, uint64_t *inheritable)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return -errno;
	*effective = (uint64_t)data[1].effective << 32 | data[0].effective;
	*permitted = (uint64_t)data[1].permitted << 32 | data[0].permitted;
	*inheritable = (uint64_t)data[1].inheritable << 32 | data[0].inheritable;
	return 0;
}

static int capset_sets(uint64_t effective, uint64_t permitted, uint64_t inheritable)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	data[0].effective = (uint32_t)effective;
	data[1].effective = (uint32_t)(effective >> 32);
	data[0].permitted = (uint32_t)permitted;
	data[1].permitted = (uint32_t)(permitted >> 32);
	data[0].inheritable = (uint32_t)inheritable;
	data[1].inheritable = (uint32_t)(inheritable >> 32);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -errno;
	return 0;
}

static const char *cap_name(int cap)
{
	switch (cap) {
	case CAP_AUDIT_READ:
		return "cap_audit_read";
	case CAP_AUDIT_CONTROL:
		return "cap_audit_control";
	default:
		return "cap_other";
	}
}

/* Reduces the process to the capabilities in `keep` (design.md §2: after set-up the reader needs
 * only CAP_AUDIT_READ): the bounding set loses everything else, so nothing can come back
 * through an execve; a root-started process moves to an unprivileged uid and gid (with no
 * capability, uid 0 would still own every root file); no_new_privs.  The result is read
 * back and verified, not assumed. */
static int drop_privileges(uint64_t keep, struct privileges *p, struct hk_error *err)
{
	uint64_t eff, prm, inh;
	int r = capget_sets(&eff, &prm, &inh);
	if (r < 0)
		return hk_fail_errno(err, -r, "capget");
	if ((prm & keep) != keep)
		return hk_fail(err, EPERM, "dropping privileges: a capability to keep is not held "
					   "(permitted set %#" PRIx64 ", needed %#" PRIx64 ")",
			       prm, keep);

	/* PR_CAPBSET_DROP needs CAP_SETPCAP; an unprivileged reader started with file
	 * capabilities has none, and with no_new_privs its bounding set grants nothing
	 * anyway.  That case is reported as bounding_dropped=false. */
	p->bounding_dropped = false;
	if (eff & (1ULL << CAP_SETPCAP)) {
		for (int cap = 0; cap < 64; cap++) {
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0)
				break; /* past the kernel's last capability */
			if (keep & (1ULL << cap))
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
				return hk_fail_errno(err, errno, "dropping capability %d from the "
								 "bounding set", cap);
		}
		p->bounding_dropped = true;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return hk_fail_errno(err, errno, "clearing the ambient capabilities");

	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (uid == 0) {
		/* Back to the invoking user when started setuid, otherwise "nobody". */
		uid = getuid() != 0 ? getuid() : UNPRIVILEGED_ID;
		gid = getgid() != 0 ? getgid() : UNPRIVILEGED_ID;
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
			return hk_fail_errno(err, errno, "prctl(PR_SET_KEEPCAPS)");
		if (setgroups(0, NULL) != 0)
			return hk_fail_errno(err, errno, "clearing the supplementary groups");
		if (setresgid(gid, gid, gid) != 0)
			return hk_fail_errno(err, errno, "switching to gid %u", (unsigned)gid);
		if (setresuid(uid, uid, uid) != 0)
			return hk_fail_errno(err, errno, "switching to uid %u", (unsigned)uid);
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
			return hk_fail_errno(err, errno, "prctl(PR_SET_KEEPCAPS, 0)");
	}
	r = capset_sets(keep, keep, 0);
	if (r < 0)
		return hk_fail_errno(err, -r, "capset to keep only %#" PRIx64, keep);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return hk_fail_errno(err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");

	/* Verify. */
	r = capget_sets(&eff, &prm, &inh);
	if (r < 0)
		return hk_fail_errno(err, -r, "capget after the drop");
	if (eff != keep || prm != keep || inh != 0)
		return hk_fail(err, EPERM, "capabilities after the drop are effective %#" PRIx64
					   ", permitted %#" PRIx64 ", inheritable %#" PRIx64
					   "; expected %#" PRIx64 " only",
			       eff, prm, inh, keep);
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0)
		return hk_fail_errno(err, errno, "getresuid after the drop");
	if (ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid)
		return hk_fail(err, EPERM, "user or group ids after the drop are not %u:%u",
			       (unsigned)uid, (unsigned)gid);
	if (uid != 0 && setresuid(0, 0, 0) == 0)
		return hk_fail(err, EPERM, "uid 0 could be regained after the drop");
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return hk_fail(err, EPERM, "no_new_privs is not set after the drop");

	p->uid = uid;
	p->gid = gid;
	p->caps = keep;
	p->no_new_privs = true;
	return 0;
}

static void privileges_json(struct hk_json *j, const struct privileges *p)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "uid");
	hk_json_uint(j, p->uid);
	hk_json_key(j, "gid");
	hk_json_uint(j, p->gid);
	hk_json_key(j, "capabilities");
	hk_json_arr_begin(j);
	for (int cap = 0; cap < 64; cap++)
		if (p->caps & (1ULL << cap))
			hk_json_str(j, cap_name(cap));
	hk_json_arr_end(j);
	hk_json_key(j, "bounding_set_dropped");
	hk_json_bool(j, p->bounding_dropped);
	hk_json_key(j, "no_new_privs");
	hk_json_bool(j, p->no_new_privs);
	hk_json_obj_end(j);
}

/* ---- the status sentinel (see the top of this file) ---- */

struct sentinel_reply {
	int32_t rc;
	struct hk_audit_status st;
	char msg[HK_ERROR_MSG_MAX];
};

/* A reply fits in one pipe write, so it arrives whole. */
_Static_assert(sizeof(struct sentinel_reply) <= PIPE_BUF, "sentinel reply must be atomic");

struct sentinel {
	pid_t pid;        /* -1 when there is none */
	int request_fd;   /* parent writes one byte per request */
	int reply_fd;     /* parent reads one struct sentinel_reply */
};

static void sentinel_main(struct hk_audit_ctl *ctl, int request_fd, int reply_fd)
{
	struct hk_error err;
	hk_error_clear(&err);
	prctl(PR_SET_NAME, "hk-audit-status", 0, 0, 0);
	/* It ends when the reader closes the request pipe (also when the reader dies); a ^C
	 * sent to the whole process group must not kill it before the closing AUDIT_GET. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	struct privileges p;
	if (drop_privileges(1ULL << CAP_AUDIT_CONTROL, &p, &err) < 0) {
		fprintf(stderr, "harkaq-audit: status sentinel: %s\n", err.msg);
		_exit(EXIT_FAILURE_ENV);
	}
	for (;;) {
		char c;
		ssize_t n = read(request_fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		struct sentinel_reply rep;
		memset(&rep, 0, sizeof(rep));
		hk_error_clear(&err);
		rep.rc = hk_audit_get(ctl, &rep.st, &err);
		if (rep.rc < 0)
			snprintf(rep.msg, sizeof(rep.msg), "%s", err.msg);
		if (write(reply_fd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			_exit(EXIT_FAILURE_ENV);
	}
}

/* Forks the sentinel.  The child keeps ctl's socket; the caller closes its own copy. */
static int sentinel_start(struct sentinel *s, struct hk_audit_ctl *ctl, int keep_stderr,
			  struct hk_error *err)
{
	int req[2], rep[2];
	if (pipe2(req, O_CLOEXEC) != 0)
		return hk_fail_errno(err, errno, "creating the status sentinel's pipe");
	if (pipe2(rep, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		return hk_fail_errno(err, errno, "creating the status sentinel's pipe");
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(req[0]);
		close(req[1]);
		close(rep[0]);
		close(rep[1]);
		return hk_fail_errno(err, e, "forking the status sentinel");
	}
	if (pid == 0) {
		/* Only the two pipe ends, the control socket and stderr stay open; stdin and stdout
		 * belong to the orchestrator's protocol. */
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		for (int fd = 3; fd < 1024; fd++)
			if (fd != req[0] && fd != rep[1] && fd != ctl->fd && fd != keep_stderr)
				close(fd);
		sentinel_main(ctl, req[0], rep[1]);
		_exit(0);
	}
	close(req[0]);
	close(rep[1]);
	s->pid = pid;
	s->request_fd = req[1];
	s->reply_fd = rep[0];
	return 0;
}

static int sentinel_get(struct sentinel *s, struct hk_audit_status *st, struct hk_error *err)
{
	if (s->pid < 0)
		return hk_fail(err, EPERM, "no AUDIT_GET is possible: CAP_AUDIT_CONTROL was not held "
					   "at start-up");
	char c = 'G';
	if (write(s->request_fd, &c, 1) != 1)
		return hk_fail_errno(err, errno, "asking the status sentinel");
	struct pollfd pfd = { .fd = s->reply_fd, .events = POLLIN };
	int r;
	do
		r = poll(&pfd, 1, HK_AUDIT_REPLY_TIMEOUT_MS + 1000);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return hk_fail(err, ETIMEDOUT, "the status sentinel did not answer");
	struct sentinel_reply rep;
	ssize_t n = read(s->reply_fd, &rep, sizeof(rep));
	if (n != (ssize_t)sizeof(rep))
		return hk_fail(err, EIO, "the status sentinel's answer was incomplete (%zd bytes)", n);
	if (rep.rc < 0) {
		rep.msg[sizeof(rep.msg) - 1] = '\0';
		return hk_fail(err, -rep.rc, "%s", rep.msg);
	}
	*st = rep.st;
	return 0;
}

static void sentinel_stop(struct sentinel *s)
{
	if (s->pid < 0)
		return;
	close(s->request_fd);
	close(s->reply_fd);
	int status;
	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
	s->pid = -1;
}

/* ---- start-up: confirm audit, raise the backlog ---- */

struct change {
	enum hk_audit_setting setting;
	uint32_t from, to;
};

struct startup {
	struct hk_audit_ctl ctl;
	bool have_status;
	struct hk_audit_status st;   /* the most recent fresh AUDIT_GET */
	bool confirmed;
	char reason[HK_ERROR_MSG_MAX]; /* why not confirmed */
	struct change changes[2];
	int n_changes;
};

/* Sets one setting and reads the status back: the change counts only as the kernel reports it
 * afterwards. */
static int set_and_confirm(struct startup *s, enum hk_audit_setting setting, uint32_t value,
			   struct hk_error *err)
{
	uint32_t from = hk_audit_status_value(&s->st, setting);
	if (hk_audit_set(&s->ctl, setting, value, NULL, err) < 0)
		return -err->code;
	struct hk_audit_status fresh;
	if (hk_audit_get(&s->ctl, &fresh, err) < 0) {
		s->have_status = false;
		return hk_wrap(err, "confirming %s=%u", hk_audit_setting_name(setting), value);
	}
	s->st = fresh;
	uint32_t now = hk_audit_status_value(&fresh, setting);
	if (now != from && s->n_changes < (int)HK_ARRAY_LEN(s->changes))
		s->changes[s->n_changes++] = (struct change){ setting, from, now };
	if (now != value)
		return hk_fail(err, EIO, "AUDIT_SET %s=%u was accepted, but AUDIT_GET then reports "
					 "%s=%u", hk_audit_setting_name(setting), value,
			       hk_audit_setting_name(setting), now);
	return 0;
}

static void not_confirmed(struct startup *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void not_confirmed(struct startup *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

static void startup_run(struct startup *s, const struct options *opt, struct out *o)
{
	struct hk_error err;
	hk_error_clear(&err);
	s->ctl = (struct hk_audit_ctl)HK_AUDIT_CTL_INIT;

	if (hk_audit_ctl_open(&s->ctl, &err) < 0) {
		not_confirmed(s, "%s", err.msg);
		return;
	}
	if (hk_audit_get(&s->ctl, &s->st, &err) < 0) {
		not_confirmed(s, "audit status unknown: %s", err.msg);
		return;
	}
	s->have_status = true;

	if (!hk_audit_status_on(&s->st)) {
		if (!opt->enable_allowed) {
			not_confirmed(s, "audit is off (enabled=%u) and --no-enable forbids switching "
					 "it on", s->st.enabled);
		} else if (set_and_confirm(s, HK_AUDIT_SET_ENABLED, 1, &err) < 0) {
			not_confirmed(s, "audit could not be switched on: %s", err.msg);
		}
	}

	if (s->have_status && opt->backlog_floor > 0 &&
	    s->st.backlog_limit < opt->backlog_floor) {
		/* Not a condition of confirmation: the loss check (denials=N) still catches what
		 * a small backlog drops; but say so. */
		if (set_and_confirm(s, HK_AUDIT_SET_BACKLOG_LIMIT, opt->backlog_floor, &err) < 0) {
			hk_wrap(&err, "raising backlog_limit to the floor %u", opt->backlog_floor);
			emit_message(o, "warning", err.msg);
		}
	}

	s->confirmed = s->have_status && hk_audit_status_on(&s->st);
	if (!s->confirmed && s->reason[0] == '\0')
		not_confirmed(s, "%s", "audit status unknown after a change");
}

/* ---- the receive loop ---- */

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
	struct hk_json j;
	line_begin(r->out, &j, "record");
	hk_json_key(&j, "type");
	hk_json_uint(&j, m->type);
	hk_json_key(&j, "serial");
	if (m->has_stamp)
		hk_json_uint(&j, m->serial);
	else
		hk_json_null(&j);
	hk_json_key(&j, "time");
	if (m->has_stamp) {
		char t[48];
		int n = snprintf(t, sizeof(t), "%" PRIu64 ".%03u", m->sec, m->msec);
		hk_json_strn(&j, t, (size_t)n);
	} else {
		hk_json_null(&j);
	}
	hk_json_key(&j, "text");
	hk_json_bytes(&j, m->body, m->body_len);
	line_end(r->out, &j);
	r->forwarded++;
}

/* Receives everything queued, without waiting: 0, or -errno on a receive failure. */
static int drain(struct reader *r, struct hk_error *err)
{
	for (;;) {
		struct hk_audit_msg m;
		int got = hk_audit_sub_recv(&r->sub, &m, 0, err);
		if (got == 0)
			break;
		if (got == -ENOBUFS) {
			/* Rare and important: said at once, so the orchestrator can tie the loss
			 * to the phase it happened in. */
			struct hk_json j;
			line_begin(r->out, &j, "overrun");
			hk_json_key(&j, "enobufs");
			hk_json_uint(&j, r->sub.enobufs);
			line_end(r->out, &j);
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

/* Waits for records, stdin and signals; returns why it stopped. */
static const char *run_loop(struct reader *r, int sigfd, struct hk_error *err, int *rc)
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

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq-audit [--no-enable] [--backlog-floor N] [--rcvbuf BYTES] [--all]\n"
		"       harkaq-audit --status\n"
		"\n"
		"The privileged audit reader of harkaq.  Confirms that audit is on (switching it on\n"
		"unless --no-enable), raises the audit backlog limit to a floor, subscribes to the\n"
		"audit multicast group, keeps only CAP_AUDIT_READ, prints a \"ready\" line and then one\n"
		"JSON line per Landlock record (1423, 1424, and the SYSCALL and PROCTITLE records of\n"
		"the same events) until stdin reaches EOF or SIGTERM/SIGINT arrives, closing with an\n"
		"\"end\" line.  The protocol is described in docs/audit-reader.md.\n"
		"\n"
		"options:\n"
		"  --no-enable        never switch audit on; if it is off, ready says confirmed:false\n"
		"  --backlog-floor N  raise the kernel's backlog_limit to at least N (default 8192,\n"
		"                     0 leaves it alone)\n"
		"  --rcvbuf BYTES     receive buffer to ask for (default %d)\n"
		"  --all              forward every record type (debugging)\n"
		"  --status           print the audit status (AUDIT_GET) as one JSON line and exit\n"
		"  --help             this text\n"
		"\n"
		"exit status: 0 success, 64 usage error, 70 environment error (an \"error\" line says "
		"why)\n",
		HK_AUDIT_DEFAULT_RCVBUF);
}

static int usage_error(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(struct out *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit_message(o, "error", msg);
	out_flush(o);
	fprintf(stderr, "harkaq-audit: %s (see --help)\n", msg);
	return EXIT_USAGE;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int fail_env(struct out *o, const struct hk_error *err)
{
	emit_message(o, "error", err->msg);
	out_flush(o);
	fprintf(stderr, "harkaq-audit: %s\n", err->msg);
	return EXIT_FAILURE_ENV;
}

/* Descriptors 0-2 must exist before any socket is created, or a socket could become "stdout". */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

static int cmd_status(struct out *o)
{
	struct hk_error err;
	struct hk_audit_status st;
	hk_error_clear(&err);
	if (hk_audit_query_status(&st, &err) < 0)
		return fail_env(o, &err);
	struct hk_json j;
	line_begin(o, &j, "status");
	hk_json_key(&j, "confirmed");
	hk_json_bool(&j, hk_audit_status_on(&st));
	hk_json_key(&j, "audit");
	hk_audit_status_json(&j, &st);
	line_end(o, &j);
	out_flush(o);
	return o->broken ? EXIT_FAILURE_ENV : EXIT_OK;
}

static int parse_options(int argc, char **argv, struct options *opt, struct out *o, bool *done)
{
	static const struct option longopts[] = {
		{ "no-enable", no_argument, NULL, 'n' },
		{ "backlog-floor", required_argument, NULL, 'b' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "status", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*done = false;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint32_t v;
		switch (c) {
		case 'n':
			opt->enable_allowed = false;
			break;
		case 'b':
			if (!parse_u32(optarg, &v))
				return usage_error(o, "--backlog-floor: '%s' is not a number from 0 "
						      "to 4294967295", optarg);
			opt->backlog_floor = v;
			break;
		case 'r':
			/* The kernel doubles the request and keeps it in an int. */
			if (!parse_u32(optarg, &v) || v == 0 || v > INT_MAX / 2)
				return usage_error(o, "--rcvbuf: '%s' is not a size from 1 to "
						      "1073741823 bytes", optarg);
			opt->rcvbuf = (int)v;
			break;
		case 'a':
			opt->forward_all = true;
			break;
		case 's':
			opt->status_only = true;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return EXIT_OK;
		default:
			return usage_error(o, "unknown option or missing value: '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error(o, "unexpected argument '%s'", argv[optind]);
	return EXIT_OK;
}

static int run(struct out *o, int argc, char **argv)
{
	struct options opt = { true, 8192, HK_AUDIT_DEFAULT_RCVBUF, false, false };
	struct hk_error err;
	hk_error_clear(&err);

	ensure_std_fds();
	bool done;
	int rc = parse_options(argc, argv, &opt, o, &done);
	if (rc != EXIT_OK || done)
		return rc;
	/* A vanished orchestrator must show as a write error, not kill the reader mid-line. */
	signal(SIGPIPE, SIG_IGN);
	if (opt.status_only)
		return cmd_status(o);

	/* Signals become readable events, so the loop stops between two records, never inside
	 * one. */
	sigset_t stop_signals;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
		hk_fail_errno(&err, errno, "blocking SIGTERM and SIGINT");
		return fail_env(o, &err);
	}
	int sigfd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
	if (sigfd < 0) {
		hk_fail_errno(&err, errno, "signalfd");
		return fail_env(o, &err);
	}

	/* Subscribed before "ready", so every record of a build started after it is queued; and
	 * before any setting is touched, so a reader that cannot read changes nothing. */
	struct reader r;
	memset(&r, 0, sizeof(r));
	r.out = o;
	r.sub = (struct hk_audit_sub)HK_AUDIT_SUB_INIT;
	r.forward_all = opt.forward_all;
	if (hk_audit_sub_open(&r.sub, opt.rcvbuf, &err) < 0)
		return fail_env(o, &err);

	struct startup s;
	memset(&s, 0, sizeof(s));
	startup_run(&s, &opt, o);

	struct sentinel sentinel = { -1, -1, -1 };
	if (s.have_status && sentinel_start(&sentinel, &s.ctl, STDERR_FILENO, &err) < 0) {
		emit_message(o, "warning", err.msg);
		hk_error_clear(&err);
	}
	hk_audit_ctl_close(&s.ctl);

	struct privileges priv;
	if (drop_privileges(1ULL << CAP_AUDIT_READ, &priv, &err) < 0) {
		hk_wrap(&err, "dropping privileges");
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		return fail_env(o, &err);
	}

	struct hk_json j;
	line_begin(o, &j, "ready");
	hk_json_key(&j, "confirmed");
	hk_json_bool(&j, s.confirmed);
	hk_json_key(&j, "audit");
	if (s.have_status)
		hk_audit_status_json(&j, &s.st);
	else
		hk_json_null(&j);
	hk_json_key(&j, "changed");
	hk_json_arr_begin(&j);
	for (int i = 0; i < s.n_changes; i++) {
		hk_json_obj_begin(&j);
		hk_json_key(&j, "field");
		hk_json_str(&j, hk_audit_setting_name(s.changes[i].setting));
		hk_json_key(&j, "from");
		hk_json_uint(&j, s.changes[i].from);
		hk_json_key(&j, "to");
		hk_json_uint(&j, s.changes[i].to);
		hk_json_obj_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_key(&j, "rcvbuf");
	hk_json_int(&j, r.sub.rcvbuf);
	hk_json_key(&j, "rcvbuf_forced");
	hk_json_bool(&j, r.sub.rcvbuf_forced);
	hk_json_key(&j, "privileges");
	privileges_json(&j, &priv);
	if (!s.confirmed) {
		hk_json_key(&j, "reason");
		hk_json_bytes(&j, s.reason, strlen(s.reason));
	}
	line_end(o, &j);
	out_flush(o);

	int loop_rc = 0;
	const char *why = run_loop(&r, sigfd, &err, &loop_rc);
	if (loop_rc < 0) {
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		return fail_env(o, &err);
	}
	if (o->broken) {
		fprintf(stderr, "harkaq-audit: stopping: cannot write to stdout: %s\n",
			strerror(o->write_errno));
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		return EXIT_FAILURE_ENV;
	}
	/* What was queued before the stop is still forwarded. */
	if (drain(&r, &err) < 0) {
		emit_message(o, "warning", err.msg);
		hk_error_clear(&err);
	}

	struct hk_audit_status final_st;
	int final_rc = sentinel_get(&sentinel, &final_st, &err);
	sentinel_stop(&sentinel);

	line_begin(o, &j, "end");
	hk_json_key(&j, "reason");
	hk_json_str(&j, why);
	hk_json_key(&j, "audit");
	if (final_rc == 0)
		hk_audit_status_json(&j, &final_st);
	else
		hk_json_null(&j);
	if (final_rc < 0) {
		hk_json_key(&j, "audit_error");
		hk_json_bytes(&j, err.msg, strlen(err.msg));
	}
	hk_json_key(&j, "enobufs");
	hk_json_uint(&j, r.sub.enobufs);
	hk_json_key(&j, "records_received");
	hk_json_uint(&j, r.received);
	hk_json_key(&j, "records_forwarded");
	hk_json_uint(&j, r.forwarded);
	hk_json_key(&j, "foreign");
	hk_json_uint(&j, r.sub.foreign);
	line_end(o, &j);
	out_flush(o);

	hk_audit_sub_close(&r.sub);
	close(sigfd);
	return o->broken ? EXIT_FAILURE_ENV : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct out o = { HK_BUF_INIT, false, 0 };
	int rc = run(&o, argc, argv);
	hk_buf_free(&o.buf);
	return rc;
}
