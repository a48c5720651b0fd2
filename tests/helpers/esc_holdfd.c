/* esc_holdfd: keeps a Landlock domain alive from outside it (hostile.sh, "no deallocation").
 *
 *   esc_holdfd PID FD SECONDS
 *
 * Takes a duplicate of descriptor FD of process PID (pidfd_getfd: the same open file, so the
 * same f_cred, which holds the opener's Landlock domain) and keeps it SECONDS seconds after
 * PID is gone.  The domain cannot be freed while the file lives, so its deallocated record
 * (denials=N) comes too late for the run: the verdict must be NoEvidence, never Hermetic.
 * Prints "holding" once it has the descriptor.  Needs CAP_SYS_PTRACE over PID (root). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: esc_holdfd PID FD SECONDS\n");
		return 2;
	}
	int pfd = (int)syscall(SYS_pidfd_open, atoi(argv[1]), 0);
	if (pfd < 0) {
		fprintf(stderr, "esc_holdfd: pidfd_open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int fd = (int)syscall(SYS_pidfd_getfd, pfd, atoi(argv[2]), 0);
	if (fd < 0) {
		fprintf(stderr, "esc_holdfd: pidfd_getfd %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	close(pfd);
	printf("holding\n");
	fflush(stdout);
	sleep((unsigned)atoi(argv[3]));
	close(fd);
	return 0;
}
