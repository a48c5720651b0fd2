/* ev_who: print the ids the process runs with, for the evidence tests
 * (tests/integration/evidence.sh): "the command runs unprivileged while the reader is
 * privileged" is checked from inside the cage.
 *
 *     uid=65534 euid=65534 gid=65534 egid=65534 groups=0
 *
 * `id -u` would do, but coreutils' id is linked with libselinux, which reads /proc/filesystems
 * and /proc/PID/mounts: real debt that would make the control run Impure.  Static and
 * self-contained: no project library, no file read. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("uid=%u euid=%u gid=%u egid=%u groups=%d\n", (unsigned)getuid(), (unsigned)geteuid(),
	       (unsigned)getgid(), (unsigned)getegid(), getgroups(0, NULL));
	return 0;
}
