#include "sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

int hk_sys_forbid_dumps(void)
{
	const struct rlimit none = { 0, 0 };
	if (setrlimit(RLIMIT_CORE, &none) != 0)
		return -errno;
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ? -errno : 0;
}

int hk_sys_in_initial_userns(void)
{
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char map[256];
	ssize_t n = read(fd, map, sizeof(map) - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	map[n] = '\0';
	/* The initial namespace's map is the one line "0 0 4294967295" (space-padded). */
	unsigned long inside, outside, count;
	char rest;
	if (sscanf(map, " %lu %lu %lu %c", &inside, &outside, &count, &rest) != 3)
		return 0;
	return inside == 0 && outside == 0 && count == 4294967295UL;
}
