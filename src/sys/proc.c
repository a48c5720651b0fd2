#include "sys/proc.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int hk_sys_pidfd_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);
	return fd < 0 ? -errno : (int)fd;
}

int hk_sys_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ? -errno : 0;
}

int hk_sys_set_thread_name(const char *name)
{
	return prctl(PR_SET_NAME, name, 0, 0, 0) != 0 ? -errno : 0;
}
