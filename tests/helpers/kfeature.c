/* kfeature: asks the kernel whether it has a feature the suite relies on, and makes a kernel
 * without one, for one program (docs/kernel-facts.md §13).
 *
 *   kfeature probe fanotify PATH    fanotify_init with harkaq's flags, then a filesystem mark
 *                                   (FAN_MARK_FILESYSTEM) on PATH's filesystem
 *   kfeature probe seccomp          a filter that allows everything, installed in a child
 *   kfeature without FEATURE[,FEATURE...] CMD [ARGS...]
 *                                   CMD under a seccomp filter that answers as a kernel
 *                                   without FEATURE would:
 *       userns    clone/unshare with CLONE_NEWUSER: EPERM (as with
 *                 kernel.unprivileged_userns_clone=0); clone3: ENOSYS, so that callers fall
 *                 back to clone, whose flags a filter can read
 *       netpid    clone/unshare with CLONE_NEWPID or CLONE_NEWNET: EINVAL (as without
 *                 CONFIG_PID_NS or CONFIG_NET_NS)
 *       mount     mount: ENODEV (the filesystem type is not known); fsopen: ENOSYS (no new
 *                 mount API, so that callers fall back to mount)
 *       overlay   mount with flags exactly MS_RDONLY: ENODEV, as without CONFIG_OVERLAY_FS.
 *                 A filter cannot read the type string; that flag word is the shape of the
 *                 read-only overlays harkaq mounts and of `mount -o ro -t overlay`, while
 *                 bubblewrap's mounts and the sandbox check's carry other flags
 *       fanotify  fanotify_init: ENOSYS (as without CONFIG_FANOTIFY)
 *       seccomp   seccomp and prctl(PR_SET_SECCOMP): EINVAL (as without
 *                 CONFIG_SECCOMP_FILTER)
 *
 * A probe prints "present", or "absent: WHY" and exits 1; 2 is a usage error.  The filters
 * are the crun trick (cage_nolandlock does the same for Landlock): the real binaries meet the
 * errno a kernel without the feature gives, so a probe can be shown to say "absent" on a
 * machine that has everything.  Raw BPF, so the helper needs nothing but libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_INSNS 64

struct prog {
	struct sock_filter insns[MAX_INSNS];
	unsigned short n;
};

static void emit(struct prog *p, struct sock_filter insn)
{
	if (p->n >= MAX_INSNS) {
		fprintf(stderr, "kfeature: filter too long\n");
		exit(2);
	}
	p->insns[p->n++] = insn;
}

/* nr == NR: return ERRNO.  Expects the syscall number in the accumulator, leaves it there. */
static void deny_nr(struct prog *p, long nr, unsigned err)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err));
}

/* nr == NR and args[ARG] == VALUE (its low 32 bits): return ERRNO. */
static void deny_nr_arg_eq(struct prog *p, long nr, int arg, unsigned value, unsigned err)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, args[arg])));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, nr)));
}

/* nr == NR and (args[0] & BIT): return ERRNO.  The flags of clone and unshare are their first
 * argument on x86_64; the lower 32 bits hold every CLONE_NEW* flag. */
static void deny_nr_flag(struct prog *p, long nr, unsigned bit, unsigned err)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, args[0])));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bit, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, nr)));
}

static int install(struct prog *p)
{
	struct sock_fprog fprog = { p->n, p->insns };
	/* Root may install a filter without no_new_privs (CAP_SYS_ADMIN); keeping privileges
	 * matters, since harkaq drops to its build user after this. */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0)
		return -errno;
	return 0;
}

static int without(char *features, char **cmd)
{
	struct prog p = { .n = 0 };
	/* Only x86_64 calls are answered for; i386 and x32 calls are refused outright, so that
	 * no other entry point reaches the feature the filter hides. */
	emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch)));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr)));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
	for (char *save = NULL, *f = strtok_r(features, ",", &save); f;
	     f = strtok_r(NULL, ",", &save)) {
		if (strcmp(f, "userns") == 0) {
			deny_nr_flag(&p, SYS_clone, CLONE_NEWUSER, EPERM);
			deny_nr_flag(&p, SYS_unshare, CLONE_NEWUSER, EPERM);
			deny_nr(&p, SYS_clone3, ENOSYS);
		} else if (strcmp(f, "netpid") == 0) {
			deny_nr_flag(&p, SYS_clone, CLONE_NEWPID | CLONE_NEWNET, EINVAL);
			deny_nr_flag(&p, SYS_unshare, CLONE_NEWPID | CLONE_NEWNET, EINVAL);
			deny_nr(&p, SYS_clone3, ENOSYS);
		} else if (strcmp(f, "mount") == 0) {
			deny_nr(&p, SYS_mount, ENODEV);
			deny_nr(&p, SYS_fsopen, ENOSYS);
		} else if (strcmp(f, "overlay") == 0) {
			deny_nr_arg_eq(&p, SYS_mount, 3, MS_RDONLY, ENODEV);
			deny_nr(&p, SYS_fsopen, ENOSYS);
		} else if (strcmp(f, "fanotify") == 0) {
			deny_nr(&p, SYS_fanotify_init, ENOSYS);
		} else if (strcmp(f, "seccomp") == 0) {
			deny_nr(&p, SYS_seccomp, EINVAL);
			deny_nr_flag(&p, SYS_prctl, PR_SET_SECCOMP, EINVAL);
		} else {
			fprintf(stderr, "kfeature: unknown feature '%s'\n", f);
			return 2;
		}
	}
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	int r = install(&p);
	if (r < 0) {
		fprintf(stderr, "kfeature: installing the filter: %s\n", strerror(-r));
		return 2;
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "kfeature: cannot execute %s: %s\n", cmd[0], strerror(errno));
	return 127;
}

static int absent(const char *what, int err)
{
	printf("absent: %s (%s)\n", what, strerror(err));
	return 1;
}

static int probe_fanotify(const char *path)
{
	/* The flags of src/sys/openwatch.c: a kernel may have fanotify without a flag it uses. */
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE,
			       O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fd < 0)
		return absent("fanotify_init", errno);
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_OPEN_EXEC,
			  AT_FDCWD, path) < 0) {
		int e = errno;
		close(fd);
		printf("absent: fanotify_mark(FAN_MARK_FILESYSTEM) of the filesystem of %s (%s)\n", path,
		       strerror(e));
		return 1;
	}
	close(fd);
	printf("present\n");
	return 0;
}

static int probe_seccomp(void)
{
	/* In a child: a filter is for life. */
	pid_t pid = fork();
	if (pid < 0) {
		perror("kfeature: fork");
		return 2;
	}
	if (pid == 0) {
		struct prog p = { .n = 0 };
		emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(errno);
		struct sock_fprog fprog = { p.n, p.insns };
		_exit(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0 ? errno : 0);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)) {
		fprintf(stderr, "kfeature: the seccomp probe died\n");
		return 2;
	}
	if (WEXITSTATUS(st) != 0)
		return absent("seccomp(SECCOMP_SET_MODE_FILTER)", WEXITSTATUS(st));
	printf("present\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "without") == 0)
		return without(argv[2], argv + 3);
	if (argc == 4 && strcmp(argv[1], "probe") == 0 && strcmp(argv[2], "fanotify") == 0)
		return probe_fanotify(argv[3]);
	if (argc == 3 && strcmp(argv[1], "probe") == 0 && strcmp(argv[2], "seccomp") == 0)
		return probe_seccomp();
	fprintf(stderr, "usage: kfeature probe fanotify PATH | kfeature probe seccomp |\n"
			"       kfeature without userns|netpid|mount|overlay|fanotify|seccomp[,...] CMD [ARGS...]\n");
	return 2;
}
