/* The status sentinel (main.c says why it exists): a child that keeps only CAP_AUDIT_CONTROL
 * and the control socket, reads one byte per request from a pipe and answers each with an
 * AUDIT_GET — nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit/audit.h"
#include "sys/proc.h"

struct sentinel_reply {
	int32_t rc;
	struct hk_audit_status st;
	char msg[HK_ERROR_MSG_MAX];
};

/* A reply fits in one pipe write, so it arrives whole. */
_Static_assert(sizeof(struct sentinel_reply) <= PIPE_BUF, "sentinel reply must be atomic");

static void sentinel_main(struct hk_audit_ctl *ctl, int request_fd, int reply_fd)
{
	struct hk_error err;
	hk_error_clear(&err);
	if (hk_sys_set_thread_name("hk-audit-status") < 0) {
		/* Only ps shows the name: the sentinel works the same without it. */
	}
	/* It ends when the reader closes the request pipe (also when the reader dies); a ^C
	 * sent to the whole process group must not kill it before the closing AUDIT_GET. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	struct hk_reader_privileges p;
	if (drop_privileges(1ULL << HK_CAP_AUDIT_CONTROL, &p, &err) < 0) {
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

int sentinel_start(struct sentinel *s, struct hk_audit_ctl *ctl, int keep_stderr,
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

int sentinel_get(struct sentinel *s, struct hk_audit_status *st, struct hk_error *err)
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

void sentinel_stop(struct sentinel *s)
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

