#include "sys/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

enum step { STEP_NONE, STEP_USER, STEP_UNSHARE, STEP_PRIVATE, STEP_TMPFS };

struct outcome {
	int step;
	int err;
};

static void report(int fd, int step, int e) __attribute__((noreturn));
static void report(int fd, int step, int e)
{
	struct outcome o = { step, e };
	ssize_t w = write(fd, &o, sizeof(o));
	_exit(w == (ssize_t)sizeof(o) ? 0 : 1);
}

/* What usually explains an unshare refused to an unprivileged user.  The kernel says only
 * the errno; the settings are those that produce it (kernel/user_namespace.c, ucount.c). */
static const char *unshare_hint(int e)
{
	switch (e) {
	case ENOSPC:
		return "the limit /proc/sys/user/max_user_namespaces is 0 or reached";
	case EPERM:
		return "unprivileged user namespaces are turned off (sysctl "
		       "kernel.unprivileged_userns_clone=0), or a security module or a seccomp "
		       "filter forbids them";
	case EINVAL:
		return "this kernel lacks one of them (CONFIG_USER_NS, CONFIG_PID_NS, CONFIG_NET_NS, "
		       "CONFIG_IPC_NS, CONFIG_UTS_NS)";
	default:
		return "see /proc/sys/user/max_user_namespaces";
	}
}

int hk_sys_sandbox_check(uid_t uid, gid_t gid, struct hk_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "pipe for the sandbox check");
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return hk_fail_errno(err, e, "fork for the sandbox check");
	}
	if (pid == 0) {
		close(p[0]);
		if (geteuid() == 0 && uid != 0 &&
		    (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
		     setresuid(uid, uid, uid) < 0))
			report(p[1], STEP_USER, errno);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
			    CLONE_NEWUTS) < 0)
			report(p[1], STEP_UNSHARE, errno);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			report(p[1], STEP_PRIVATE, errno);
		if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
			report(p[1], STEP_TMPFS, errno);
		report(p[1], STEP_NONE, 0);
	}
	close(p[1]);
	struct outcome o = { -1, 0 };
	ssize_t n;
	do {
		n = read(p[0], &o, sizeof(o));
	} while (n < 0 && errno == EINTR);
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
	if (n != (ssize_t)sizeof(o))
		return hk_fail(err, EPROTO, "the sandbox check's child died before it answered");
	const char *who = uid == 0 ? "root" : "the build user";
	switch (o.step) {
	case STEP_NONE:
		return 0;
	case STEP_USER:
		return hk_fail(err, o.err, "cannot switch to the build user (uid %u, gid %u) to "
					   "check its sandbox: %s",
			       (unsigned)uid, (unsigned)gid, strerror(o.err));
	case STEP_UNSHARE:
		return hk_fail(err, o.err, "bubblewrap cannot make the build's sandbox here: %s "
					   "(uid %u) cannot create the user, mount, pid, network, "
					   "ipc and uts namespaces it needs: %s (%s); no build can "
					   "run until it can",
			       who, (unsigned)uid, strerror(o.err), unshare_hint(o.err));
	case STEP_PRIVATE:
	case STEP_TMPFS:
		/* Refused with the namespace's full capabilities: a security module's doing
		 * (AppArmor's restriction lets the unshare succeed and takes the capabilities). */
		return hk_fail(err, o.err, "bubblewrap cannot make the build's sandbox here: in a "
					   "new user namespace, %s (uid %u) cannot mount (%s: %s%s); "
					   "no build can run until it can",
			       who, (unsigned)uid,
			       o.step == STEP_PRIVATE ? "making / private" : "a tmpfs on /tmp",
			       strerror(o.err),
			       o.err == EPERM || o.err == EACCES
				       ? "; a security module restricts unprivileged user namespaces, "
					 "e.g. kernel.apparmor_restrict_unprivileged_userns=1"
				       : "");
	default:
		return hk_fail(err, EPROTO, "the sandbox check's child answered step %d", o.step);
	}
}
