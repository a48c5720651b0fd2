/* without_i386 CMD [ARG...]: runs CMD as it would run on a kernel without the i386 entry point
 * (IA32 emulation off: ia32_emulation=0, or CONFIG_IA32_EMULATION_DEFAULT_DISABLED).
 *
 * Some machines have IA32 emulation on, and it cannot be switched off without a reboot; so
 * the suite takes the entry point away with a seccomp filter that kills any process entering
 * the kernel through it (SIGSYS, where such a kernel raises SIGSEGV: both fatal, both
 * "absent" to harkaq's probe, sys/entrypoints.h).  On a kernel that already lacks it, the
 * filter changes nothing and the kernel's own SIGSEGV is what CMD meets.  The filter is inherited by
 * everything CMD starts, bubblewrap and the cage included, and stacks under the cage's own.
 *
 * Before running CMD it checks that the entry point is really gone (a child's int $0x80 must
 * die) and still there for the native table: a wrapper that silently failed to filter would
 * make every "skipped: no i386" below it a lie.  Exit 125 when the wrapper itself fails.
 *
 * A raw classic-BPF program, not libseccomp: four instructions on the architecture field are
 * the whole filter, and the point is to be independent of the code under test. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int int80_getpid_survives(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		long ret;
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "r8", "r9", "r10",
				 "r11");
		_exit(ret == syscall(SYS_getpid) ? 0 : 3);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: without_i386 CMD [ARG...]\n");
		return 125;
	}
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };
	/* Root needs no no_new_privs for this (CAP_SYS_ADMIN), and must not set it: CMD may
	 * rely on privileges an execve grants.  Others need it. */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("without_i386: prctl(PR_SET_NO_NEW_PRIVS)");
		return 125;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("without_i386: seccomp");
		return 125;
	}
	if (int80_getpid_survives() != 0) {
		fprintf(stderr, "without_i386: int $0x80 still answers: the filter is not in force\n");
		return 125;
	}
	if (syscall(SYS_getpid) != getpid()) {
		fprintf(stderr, "without_i386: the native table does not answer\n");
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "without_i386: %s: %s\n", argv[1], strerror(errno));
	return 125;
}
