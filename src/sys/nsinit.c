/* The init of `harkaq run`'s namespaces.  See nsinit.h for the contract. */
#include "sys/nsinit.h"
#include "sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>



/* What init writes on its report pipe, once, just before it exits. */
struct init_report {
	int32_t cmd_status;   /* the command's wait status */
	int32_t leftovers;    /* processes init killed after the command exited */
};

static volatile pid_t command_pid;

/* Signals harkaq forwards to the init's group are the command's: pass them on to its group
 * (it made its own session), or to it alone before it has. */
static void pass_on(int sig)
{
	int saved = errno;
	pid_t p = command_pid;
	if (p > 0 && kill(-p, sig) < 0)
		kill(p, sig);
	errno = saved;
}

static int loopback_up(char *msg, size_t size)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(msg, size, "cannot open a socket in the run's network namespace: %s",
			 strerror(errno));
		return -1;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (rc < 0)
		snprintf(msg, size, "cannot bring up the loopback of the run's network namespace: %s",
			 strerror(errno));
	close(s);
	return rc;
}

/* pid 1: waits for the command, then ends the namespace's other processes and reports. */
static void __attribute__((noreturn)) init_main(pid_t cmd, int report_w)
{
	command_pid = cmd;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Nothing of harkaq's stays open here: the reader's pipes, the status pipe (the command
	 * has its own copy) and the rest belong to harkaq, and an init holding them would keep
	 * their other ends waiting. */
	if (report_w > 3)
		close_range(3, (unsigned)report_w - 1, 0);
	close_range((unsigned)report_w + 1, ~0U, 0);

	/* Orphans are reparented to us: reap them as they come, until the command exits. */
	int cmd_status = 0;
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, 0);
		if (w == cmd) {
			cmd_status = st;
			break;
		}
		if (w < 0 && errno != EINTR) {
			cmd_status = W_EXITCODE(125, 0);   /* cannot happen: cmd is our child */
			break;
		}
	}
	command_pid = 0;

	/* What the command left: one kill(-1) reaches every process of the namespace but us, in
	 * one pass under the task-list lock, so no fork in flight escapes it. */
	int leftovers = 0;
	kill(-1, SIGKILL);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, 0);
		if (w > 0) {
			/* Only what our SIGKILL ended counts; a zombie that had exited by itself
			 * (reparented to us) is reaped, not counted. */
			if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
				leftovers++;
			continue;
		}
		if (errno != EINTR)
			break;
	}
	struct init_report rep = { cmd_status, leftovers };
	ssize_t n = write(report_w, &rep, sizeof(rep));
	(void)n;
	_exit(WIFEXITED(cmd_status) ? WEXITSTATUS(cmd_status) : 128 + WTERMSIG(cmd_status));
}

pid_t hk_nsinit_fork(unsigned ns, int status_fd, hk_nsinit_fail_fn fail, int *report_fd,
		     struct hk_error *err)
{
	*report_fd = -1;
	int rp[2];
	if (pipe2(rp, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "pipe for the run's init");
	/* The child learns that harkaq died between the clone and its PR_SET_PDEATHSIG (which
	 * only covers a death after it) from this descriptor. */
	int self = hk_sys_pidfd_open(getpid());
	unsigned long flags = CLONE_NEWPID | SIGCHLD;
	if (ns & HK_NS_NET)
		flags |= CLONE_NEWNET;
	/* A raw clone, like fork but with new namespaces (bubblewrap does the same); the child
	 * runs on a copy of this stack. */
	long pid = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		int e = errno;
		close(rp[0]);
		close(rp[1]);
		if (self >= 0)
			close(self);
		const char *what = (ns & HK_NS_NET) ? "pid and network namespaces" : "pid namespace";
		/* EINVAL is the kernel's answer for a namespace it was built without; EPERM is
		 * the missing capability (kernel-facts.md §13). */
		if (e == EINVAL)
			return hk_fail_errno(err, e, "cannot put the command in its own %s: this "
						     "kernel was built without %s",
					     what, (ns & HK_NS_NET) ? "one of them (CONFIG_PID_NS, "
								     "CONFIG_NET_NS)"
								   : "it (CONFIG_PID_NS)");
		return hk_fail_errno(err, e,
				     "cannot put the command in its own %s (harkaq run needs "
				     "CAP_SYS_ADMIN: run it as root)", what);
	}
	if (pid > 0) {
		close(rp[1]);
		if (self >= 0)
			close(self);
		*report_fd = rp[0];
		return (pid_t)pid;
	}

	/* init */
	close(rp[0]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (self >= 0) {
		struct pollfd p = { self, POLLIN, 0 };
		if (poll(&p, 1, 0) > 0)
			_exit(125);
		close(self);
	}
	/* Its own session: no controlling terminal, and a process group harkaq can signal. */
	setsid();
	if (ns & HK_NS_NET) {
		char msg[256];
		if (loopback_up(msg, sizeof(msg)) < 0)
			fail(status_fd, "network", msg);
	}
	pid_t cmd = fork();
	if (cmd < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "fork in the run's pid namespace: %s", strerror(errno));
		fail(status_fd, "exec", msg);
	}
	if (cmd == 0) {
		close(rp[1]);
		return 0;
	}
	init_main(cmd, rp[1]);
}

bool hk_nsinit_report(int report_fd, int init_status, int *cmd_status, int *leftovers)
{
	*cmd_status = init_status;
	*leftovers = 0;
	if (report_fd < 0)
		return false;
	struct init_report rep;
	ssize_t n;
	do
		n = read(report_fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	close(report_fd);
	if (n != (ssize_t)sizeof(rep))
		return false;
	*cmd_status = rep.cmd_status;
	*leftovers = rep.leftovers;
	return true;
}
