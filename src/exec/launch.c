/* The last steps of harkaq-exec: the canary probe inside the domain, the execvp of the
 * command, and the status channel both use. */
#include "exec/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/formats/exec_status.h"
#include "core/basic/util.h"

static struct sigaction saved_sigpipe;
static bool sigpipe_saved;

void hk_exec_ignore_sigpipe(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGPIPE, &ign, &saved_sigpipe) == 0)
		sigpipe_saved = true;
}

void hk_exec_restore_sigpipe(void)
{
	if (sigpipe_saved)
		sigaction(SIGPIPE, &saved_sigpipe, NULL);
}

void hk_exec_note(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n] = '\n';
	/* stdio is avoided: nothing may stay buffered across the execve. */
	dprintf(2, "harkaq-exec: %.*s", n + 1, line);
}

int hk_status_write(int fd, struct hk_buf *line, struct hk_error *err)
{
	if (fd < 0)
		return 0;
	hk_buf_putc(line, '\n');
	const char *p = hk_buf_str(line);
	size_t left = line->len;
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return hk_fail_errno(err, errno, "cannot write the status line on fd %d", fd);
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int hk_exec_fail(int status_fd, const char *layer, const char *message, int exit_code)
{
	hk_exec_note("%s: %s", layer, message);
	struct hk_buf line = HK_BUF_INIT;
	const struct hk_exec_event ev = {
		.kind = HK_EXEC_EVENT_ERROR,
		.layer = (char *)(uintptr_t)layer,
		.message = (char *)(uintptr_t)message,
		.exit_code = exit_code,
	};
	hk_exec_event_encode(&ev, &line);
	struct hk_error ignored;
	/* The failure is already on stderr; a lost status line cannot be reported anywhere else. */
	if (hk_status_write(status_fd, &line, &ignored) < 0) {
		/* nothing more to do: see above */
	}
	hk_buf_free(&line);
	return exit_code;
}

int hk_exec_command(char **cmd, int status_fd)
{
	/* The status channel belongs to harkaq, not to the build. */
	if (status_fd >= 0 && fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "cannot mark the status fd %d close-on-exec: %s",
			 status_fd, strerror(errno));
		return hk_exec_fail(-1, "fds", msg, HK_EXEC_EXIT_SETUP);
	}
	hk_exec_restore_sigpipe();
	execvp(cmd[0], cmd);
	int e = errno;
	hk_exec_ignore_sigpipe();

	char msg[512];
	if (e == ENOENT || e == ENOTDIR) {
		snprintf(msg, sizeof(msg), "%s: command not found", cmd[0]);
		return hk_exec_fail(status_fd, "exec", msg, HK_EXEC_EXIT_NOT_FOUND);
	}
	if (e == EACCES)
		snprintf(msg, sizeof(msg),
			 "%s: cannot execute: %s (inside the cage this usually means the policy does "
			 "not grant ro on the program)",
			 cmd[0], strerror(e));
	else
		snprintf(msg, sizeof(msg), "%s: cannot execute: %s", cmd[0], strerror(e));
	return hk_exec_fail(status_fd, "exec", msg, HK_EXEC_EXIT_CANNOT_EXEC);
}

static int report_canary(int status_fd, const char *path, enum hk_canary_result result,
			 int err_no)
{
	struct hk_buf line = HK_BUF_INIT;
	const struct hk_exec_event ev = {
		.kind = HK_EXEC_EVENT_CANARY,
		.canary = result,
		.canary_errno = err_no,
		.canary_path = (char *)(uintptr_t)path,
		.exit_code = -1,
	};
	hk_exec_event_encode(&ev, &line);
	struct hk_error err;
	int rc = hk_status_write(status_fd, &line, &err);
	hk_buf_free(&line);
	if (rc < 0)
		return hk_exec_fail(-1, "fds", err.msg, HK_EXEC_EXIT_SETUP);
	return 0;
}

int hk_exec_probe(const char *canary_path, int status_fd, char **cmd)
{
	hk_exec_ignore_sigpipe();
	if (status_fd >= 0 && fcntl(status_fd, F_GETFD) < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "the status fd %d is not open in probe mode", status_fd);
		return hk_exec_fail(-1, "fds", msg, HK_EXEC_EXIT_SETUP);
	}

	/* This runs after an execve inside the domain: exactly the situation of every program of
	 * the build, so a denial here is logged only if the domain logs post-exec denials
	 * (LOG_NEW_EXEC_ON).  The reader must see it (design.md §4). */
	int fd = open(canary_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int e = errno;
	char msg[1024];
	if (fd >= 0) {
		close(fd);
		int rc = report_canary(status_fd, canary_path, HK_CANARY_OPENED, 0);
		if (rc)
			return rc;
		snprintf(msg, sizeof(msg),
			 "the canary %s opened inside the cage: the policy grants it, so an empty "
			 "denial list would mean nothing; the command is not run",
			 canary_path);
		return hk_exec_fail(status_fd, "canary", msg, HK_EXEC_EXIT_CANARY);
	}
	if (e != EACCES) {
		int rc = report_canary(status_fd, canary_path, HK_CANARY_ERROR, e);
		if (rc)
			return rc;
		snprintf(msg, sizeof(msg),
			 "opening the canary %s failed with %s instead of EACCES (it must exist and be "
			 "readable to the build user, and only Landlock may refuse it); the command is "
			 "not run",
			 canary_path, strerror(e));
		return hk_exec_fail(status_fd, "canary", msg, HK_EXEC_EXIT_CANARY);
	}
	int rc = report_canary(status_fd, canary_path, HK_CANARY_DENIED, e);
	if (rc)
		return rc;
	return hk_exec_command(cmd, status_fd);
}
