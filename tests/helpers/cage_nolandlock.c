/* cage_nolandlock: makes a kernel without Landlock, for one program.
 *
 *   cage_nolandlock ENOSYS|EOPNOTSUPP CMD [ARGS...]
 *
 * Installs a seccomp filter under which landlock_create_ruleset fails with the given errno
 * (ENOSYS: as if Landlock were not built; EOPNOTSUPP: as if it were disabled at boot), then
 * executes CMD.  This is how cage.sh exercises harkaq-exec's old-kernel paths on a kernel
 * that has Landlock (the crun trick: force the errno, keep the real binary).  Raw BPF, so
 * the helper needs nothing but libc.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cage_nolandlock ENOSYS|EOPNOTSUPP CMD [ARGS...]\n");
		return 2;
	}
	unsigned err;
	if (strcmp(argv[1], "ENOSYS") == 0)
		err = ENOSYS;
	else if (strcmp(argv[1], "EOPNOTSUPP") == 0)
		err = EOPNOTSUPP;
	else {
		fprintf(stderr, "cage_nolandlock: unknown errno '%s'\n", argv[1]);
		return 2;
	}
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("cage_nolandlock: seccomp");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("cage_nolandlock: execv");
	return 127;
}
