/* ev_flood [--own-domain] PATH COUNT [RATE]: provoke COUNT Landlock denials on PATH, as fast as
 * possible or paced at RATE denials per second, for the evidence channel's loss tests and
 * benchmark (tests/integration/evidence.sh, tests/integration/hostile.sh, bench/evidence.sh).
 * Run it inside a cage that does not grant PATH; it restricts nothing itself, unless
 * --own-domain: then it first enters a Landlock domain of its own that handles read_file and
 * grants nothing (default logging flags), as any local process may — the neighbour whose
 * records flood the audit stream that every build's reader shares.
 *
 * Each denial is one open(PATH, O_RDONLY) that must fail with EACCES (what DAC blocks never
 * reaches Landlock, so the caller makes PATH world-readable).  It prints one line:
 *
 *     denied=5000 other=0 first_errno=0 elapsed_us=81234 rate=61551
 *
 * "other" counts opens that did anything but fail with EACCES (an open that succeeds means the
 * cage grants PATH, and the flood would prove nothing); rate is the achieved denials/s.
 * Exit status 0 when every open was denied with EACCES, 1 otherwise, 2 on a usage error.
 * Static and self-contained: no project library. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LL_ACCESS_FS_READ_FILE (1ULL << 2)

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int own_domain(void)
{
	struct {
		uint64_t handled_access_fs;
	} attr = { LL_ACCESS_FS_READ_FILE };
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
		fprintf(stderr, "ev_flood: cannot enter a Landlock domain: %s\n", strerror(errno));
		return -1;
	}
	close(ruleset);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--own-domain") == 0) {
		if (own_domain() < 0)
			return 2;
		argv++;
		argc--;
	}
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ev_flood [--own-domain] PATH COUNT [RATE]\n");
		return 2;
	}
	char *end;
	long count = strtol(argv[2], &end, 10);
	if (*end || count < 1) {
		fprintf(stderr, "ev_flood: COUNT must be a positive number\n");
		return 2;
	}
	double rate = 0;
	if (argc == 4) {
		rate = strtod(argv[3], &end);
		if (*end || rate <= 0) {
			fprintf(stderr, "ev_flood: RATE must be a positive number\n");
			return 2;
		}
	}
	long denied = 0, other = 0;
	int first_errno = 0;
	long long t0 = now_ns();
	for (long i = 0; i < count; i++) {
		if (rate > 0) {
			/* Absolute schedule: denial i is due at t0 + i/rate, so pacing errors do not
			 * accumulate; sleep only when ahead by more than 100 us (sleeps are coarse). */
			long long due = t0 + (long long)((double)i * 1e9 / rate);
			long long ahead = due - now_ns();
			if (ahead > 100000) {
				struct timespec ts = { ahead / 1000000000LL, ahead % 1000000000LL };
				nanosleep(&ts, NULL);
			}
			while (now_ns() < due)
				;
		}
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			other++;
		} else if (errno == EACCES) {
			denied++;
		} else {
			if (!first_errno)
				first_errno = errno;
			other++;
		}
	}
	long long el = now_ns() - t0;
	double achieved = el > 0 ? (double)denied * 1e9 / (double)el : 0;
	printf("denied=%ld other=%ld first_errno=%d elapsed_us=%lld rate=%.0f\n", denied, other,
	       first_errno, el / 1000, achieved);
	return other == 0 ? 0 : 1;
}
