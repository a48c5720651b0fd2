/* ll_deny PATH [GO]: provoke exactly one Landlock filesystem denial on PATH, for tests of the
 * audit reader (tests/integration/audit_reader.sh, audit_users.sh).
 *
 * It first opens PATH unrestricted (the positive control: DAC allows the read, so a later
 * EACCES can only come from Landlock), then enters a Landlock domain that handles READ_FILE and
 * grants nothing, with the default logging flags (same-exec denials are logged), and opens PATH
 * again.  It prints one line:
 *
 *     before=ok after=13 pid=1234
 *
 * "after" is the errno of the restricted open (0 if it unexpectedly succeeded).  With GO, the
 * domain lives on: once the file GO exists (waited for up to 20 s), PATH is opened a second
 * time in the same domain, and a second line says how ("again=13"): a denial of a domain
 * whose first one came earlier.  Exit status: 0 when the restricted opens failed with EACCES,
 * 1 when one did anything else, 2 on a set-up failure (message on stderr).  Static and
 * self-contained: no project library. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#define LL_ACCESS_FS_READ_FILE (1ULL << 2)

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: ll_deny PATH [GO]\n");
		return 2;
	}
	const char *path = argv[1];

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ll_deny: %s is not readable even before Landlock: %s\n", path,
			strerror(errno));
		return 2;
	}
	close(fd);

	struct {
		uint64_t handled_access_fs;
	} attr = { LL_ACCESS_FS_READ_FILE };
	int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0) {
		fprintf(stderr, "ll_deny: landlock_create_ruleset: %s\n", strerror(errno));
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "ll_deny: prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
		return 2;
	}
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
		fprintf(stderr, "ll_deny: landlock_restrict_self: %s\n", strerror(errno));
		return 2;
	}
	close(ruleset);

	int after = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	else
		after = errno;
	printf("before=ok after=%d pid=%d\n", after, (int)getpid());
	if (argc == 3) {
		fflush(stdout);
		for (int i = 0; i < 2000 && access(argv[2], F_OK) != 0; i++)
			usleep(10 * 1000);
		int again = 0;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else
			again = errno;
		printf("again=%d\n", again);
		if (again != EACCES)
			return 1;
	}
	return after == EACCES ? 0 : 1;
}
