/* cage_syscalls: calls every syscall of the cage's seccomp denylist (design.md §3.8, then
 * landlock_restrict_self) through each x86-64 entry point and prints the errno per call, one
 * line per syscall:
 *
 *   ptrace native=ESRCH i386=ESRCH x32=ENOSYS
 *
 * then two controls outside the denylist ("getpid i386=ok x32=…").  On a kernel without the
 * i386 entry point (int $0x80 is fatal there: SIGSEGV with IA32 emulation off) every i386
 * field reads "absent": found first in a forked child, so this process survives to report.  Arguments are harmless:
 * -1 as the first (a bad descriptor, request, count or pointer), zeros after.  The numbers
 * are written out here from the kernel's syscall tables (arch/x86/entry/syscalls/
 * syscall_{64,32}.tbl), independently of libseccomp, which the cage uses to build its filter.
 * "-" marks a syscall the i386 table lacks.  The helper judges nothing: cage.sh compares a
 * run outside the cage with one inside.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_BIT 0x40000000L

struct entry {
	const char *name;
	long native, i386, x32; /* x32 without X32_BIT; i386 -1 when absent */
};

static const struct entry table[] = {
	{ "io_uring_setup", SYS_io_uring_setup, 425, 425 },
	{ "io_uring_enter", SYS_io_uring_enter, 426, 426 },
	{ "io_uring_register", SYS_io_uring_register, 427, 427 },
	{ "ptrace", SYS_ptrace, 26, 521 },
	{ "process_vm_readv", SYS_process_vm_readv, 347, 539 },
	{ "process_vm_writev", SYS_process_vm_writev, 348, 540 },
	{ "bpf", SYS_bpf, 357, 321 },
	{ "userfaultfd", SYS_userfaultfd, 374, 323 },
	{ "keyctl", SYS_keyctl, 288, 250 },
	{ "add_key", SYS_add_key, 286, 248 },
	{ "request_key", SYS_request_key, 287, 249 },
	{ "init_module", SYS_init_module, 128, 175 },
	{ "finit_module", SYS_finit_module, 350, 313 },
	{ "delete_module", SYS_delete_module, 129, 176 },
	{ "kexec_load", SYS_kexec_load, 283, 528 },
	{ "kexec_file_load", SYS_kexec_file_load, -1, 320 },
	{ "perf_event_open", SYS_perf_event_open, 336, 298 },
	{ "mount", SYS_mount, 21, 165 },
	{ "umount2", SYS_umount2, 52, 166 },
	{ "open_tree", SYS_open_tree, 428, 428 },
	{ "move_mount", SYS_move_mount, 429, 429 },
	{ "fsopen", SYS_fsopen, 430, 430 },
	{ "fsconfig", SYS_fsconfig, 431, 431 },
	{ "fsmount", SYS_fsmount, 432, 432 },
	{ "fspick", SYS_fspick, 433, 433 },
	{ "mount_setattr", SYS_mount_setattr, 442, 442 },
	{ "setns", SYS_setns, 346, 308 },
	{ "landlock_restrict_self", SYS_landlock_restrict_self, 446, 446 },
};

static const char *errname(long ret, int err)
{
	if (ret >= 0)
		return "ok";
	const char *n = strerrorname_np(err);
	return n ? n : "errno?";
}

static long int80(long nr, long a1)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(0L), "d"(0L), "S"(0L), "D"(0L)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static const char *compat(long nr)
{
	long r = int80(nr, 0xffffffffL);
	return r < 0 && r > -4096 ? errname(-1, (int)-r) : "ok";
}

static const char *native(long nr)
{
	long r = syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L);
	return errname(r, errno);
}

/* 1 when int $0x80 getpid answers the pid in a child, 0 when the child dies or errs. */
static int i386_present(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		_exit(int80(20, 0) == getpid() ? 0 : 3);
	}
	int status;
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	int i386 = i386_present();
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct entry *e = &table[i];
		printf("%s native=%s", e->name, native(e->native));
		printf(" i386=%s", !i386 ? "absent" : e->i386 < 0 ? "-" : compat(e->i386));
		printf(" x32=%s\n", native(e->x32 | X32_BIT));
	}
	/* Controls outside the denylist: getpid must still work through i386, and x32 must
	 * answer what the kernel answers (not a filter's EPERM for an unknown architecture). */
	printf("getpid i386=%s x32=%s\n", !i386 ? "absent" : int80(20, 0) == getpid() ? "ok" : "wrong",
	       native(39 | X32_BIT));
	return 0;
}
