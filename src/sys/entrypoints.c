/* Syscall entry-point probes.  See entrypoints.h for the contract. */
#include "sys/entrypoints.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void set_entry(struct hk_entry_point *e, const char *arch, const char *label,
		      enum hk_entry_state state, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void set_entry(struct hk_entry_point *e, const char *arch, const char *label,
		      enum hk_entry_state state, const char *fmt, ...)
{
	e->arch = arch;
	e->label = label;
	e->state = state;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->evidence, sizeof(e->evidence), fmt, ap);
	va_end(ap);
}

#if defined(__x86_64__)

#define I386_NR_GETPID 20L
#define X32_SYSCALL_BIT 0x40000000L

static long int80_getpid(void)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(I386_NR_GETPID) : "memory", "r8", "r9",
			 "r10", "r11");
	return ret;
}

/* Exit statuses of the i386 probe's child. */
enum { I386_ANSWERED = 0, I386_WRONG_ANSWER = 3 };

static void probe_i386(struct hk_entry_point *e)
{
	static const char *const arch = "x86", *const label = "i386 (int $0x80)";
	pid_t pid = fork();
	if (pid < 0) {
		set_entry(e, arch, label, HK_ENTRY_ABSENT, "not probed: fork failed (%s)",
			  strerror(errno));
		return;
	}
	if (pid == 0) {
		/* A kernel without the entry point kills this child: it must leave no core file
		 * behind, nor wake a core_pattern handler (which ignores RLIMIT_CORE 0). */
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		_exit(int80_getpid() == syscall(SYS_getpid) ? I386_ANSWERED : I386_WRONG_ANSWER);
	}
	int status;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		set_entry(e, arch, label, HK_ENTRY_ABSENT, "not probed: waitpid failed (%s)",
			  strerror(errno));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == I386_ANSWERED) {
		set_entry(e, arch, label, HK_ENTRY_PRESENT, "int $0x80 getpid answered the pid");
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		set_entry(e, arch, label, HK_ENTRY_ABSENT,
			  "int $0x80 raised SIGSEGV: IA32 emulation is off");
	} else if (WIFSIGNALED(status)) {
		set_entry(e, arch, label, HK_ENTRY_ABSENT, "int $0x80 was killed by SIG%s",
			  sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	} else {
		set_entry(e, arch, label, HK_ENTRY_ABSENT,
			  "int $0x80 getpid did not answer the pid (exit status %d)",
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

static void probe_x32(struct hk_entry_point *e)
{
	static const char *const arch = "x32", *const label = "x32";
	/* getpid has the same number in the x32 table as in the native one. */
	long r = syscall(X32_SYSCALL_BIT | SYS_getpid);
	if (r == getpid())
		set_entry(e, arch, label, HK_ENTRY_PRESENT, "x32 getpid answered the pid");
	else if (r < 0 && errno == ENOSYS)
		set_entry(e, arch, label, HK_ENTRY_ABSENT,
			  "x32 getpid returned ENOSYS: this kernel has no x32 ABI");
	else
		set_entry(e, arch, label, HK_ENTRY_ABSENT, "x32 getpid returned %ld (%s)", r,
			  r < 0 ? strerror(errno) : "not the pid");
}

void hk_entry_points_probe(struct hk_entry_points *out)
{
	memset(out, 0, sizeof(*out));
	set_entry(&out->v[out->n++], "x86_64", "x86_64", HK_ENTRY_PRESENT,
		  "the native table (this process runs on it)");
	probe_i386(&out->v[out->n++]);
	probe_x32(&out->v[out->n++]);
}

#else

void hk_entry_points_probe(struct hk_entry_points *out)
{
	memset(out, 0, sizeof(*out));
	set_entry(&out->v[out->n++], "native", "native", HK_ENTRY_PRESENT,
		  "the native table (this process runs on it)");
#if defined(__aarch64__)
	/* The compat table is covered by the filter but not probed (a 64-bit process cannot
	 * simply enter it): said so rather than guessed. */
	set_entry(&out->v[out->n++], "arm", "arm (compat)", HK_ENTRY_UNPROBED,
		  "not probed on this architecture");
#endif
}

#endif

const struct hk_entry_point *hk_entry_points_find(const struct hk_entry_points *eps,
						  const char *arch)
{
	for (size_t i = 0; i < eps->n; i++)
		if (strcmp(eps->v[i].arch, arch) == 0)
			return &eps->v[i];
	return NULL;
}

const char *hk_entry_state_name(enum hk_entry_state state)
{
	switch (state) {
	case HK_ENTRY_PRESENT: return "present";
	case HK_ENTRY_ABSENT: return "absent";
	case HK_ENTRY_UNPROBED: return "unprobed";
	}
	return "?";
}
