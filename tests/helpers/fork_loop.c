/* fork_loop LOCKFILE STOPFILE LINGER_MS CHAINS: a process tree that keeps moving, for the
 * escape suite (tests/integration/escape.sh, docs/escape-suite.md): can `harkaq run` be
 * outrun?
 *
 * The first process opens LOCKFILE (it must exist) and takes a shared flock on it, starts
 * CHAINS chains and stays LINGER_MS milliseconds; in each chain a process forks and exits at
 * once, so the chain's only process is always a new one, an orphan just reparented.  Then the
 * first process prints
 *
 *     generations=N
 *
 * (forks so far, all chains: the loop really ran) and exits 0.  The chains go on until
 * STOPFILE exists, or 60 seconds have passed (a bound, so that a test that fails leaves
 * nothing running for long).
 *
 * Whether any chain still runs is what a test asks, and a scan of /proc cannot answer it: a
 * process that lives microseconds is gone when its entry is read, and its successor was not
 * in the listing.  The lock answers it: every process of the tree shares the open file the
 * lock is on, and the kernel releases the lock when the last of them is gone, so
 * `flock -n -x LOCKFILE true` succeeds exactly when nothing of the tree is left.
 * Static and self-contained: no project library. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BOUND_S 60

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void chain(const char *stop, long long deadline, volatile long *generations)
{
	struct stat st;
	for (;;) {
		if (stat(stop, &st) == 0 || now_ms() > deadline)
			_exit(0);
		pid_t p = fork();
		if (p > 0) {
			__atomic_add_fetch(generations, 1, __ATOMIC_RELAXED);
			_exit(0);
		}
		if (p < 0 && errno != EAGAIN)
			_exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: fork_loop LOCKFILE STOPFILE LINGER_MS CHAINS\n");
		return 2;
	}
	const char *stop = argv[2];
	long linger = strtol(argv[3], NULL, 10), chains = strtol(argv[4], NULL, 10);
	if (linger < 0 || chains < 1 || chains > 64) {
		fprintf(stderr, "fork_loop: LINGER_MS >= 0, 1 <= CHAINS <= 64\n");
		return 2;
	}
	int lock = open(argv[1], O_RDONLY);
	if (lock < 0 || flock(lock, LOCK_SH) < 0) {
		perror("fork_loop: lock");
		return 1;
	}
	volatile long *generations = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (generations == MAP_FAILED) {
		perror("fork_loop: mmap");
		return 1;
	}
	long long deadline = now_ms() + BOUND_S * 1000;
	fflush(stdout);
	for (long i = 0; i < chains; i++) {
		pid_t p = fork();
		if (p == 0)
			chain(stop, deadline, generations);
		if (p < 0) {
			perror("fork_loop: fork");
			return 1;
		}
	}
	struct timespec ts = { linger / 1000, (linger % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	printf("generations=%ld\n", __atomic_load_n(generations, __ATOMIC_RELAXED));
	return 0;
}
