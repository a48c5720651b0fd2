/* What one operation costs, run inside a build's phase (bench/ops.sh runs it caged and
 * uncaged): the operations the cage makes dearer, each timed over a batch, the fastest of
 * several batches kept (the machine's noise only ever adds).  Statically linked, so that it
 * runs in any base root and is one file to grant.
 *
 *   percall FILE_DEEP FILE_SHALLOW FILE_RW SELF
 *
 * prints one JSON object: ns per operation for
 *   syscall        getppid(): the price of every syscall (seccomp's filter runs on each)
 *   stat_missing   fstatat of a missing name: a path walk Landlock does not check
 *   open_deep      open + close of FILE_DEEP, granted read-only, deep in the tree
 *   open_shallow   open + close of FILE_SHALLOW, granted read-only, near the root
 *   open_rw        open + close of FILE_RW, beneath a read-write grant
 *   exec           fork, execve of SELF with the argument "noop" (it exits at once), wait
 * Exits 1 if an operation fails (a denied open would time the denial, not the open). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 7

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const char *arg_path;
static const char *self_path;

static int op_syscall(void)
{
	return getppid() > 0 ? 0 : -1;
}

static int op_stat_missing(void)
{
	struct stat st;
	return fstatat(AT_FDCWD, "/nonexistent-percall/name", &st, 0) < 0 && errno == ENOENT ? 0
												   : -1;
}

static int op_open(void)
{
	int fd = open(arg_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int op_exec(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(self_path, self_path, "noop", (char *)NULL);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

/* The fastest batch's ns per operation, or -1 when the operation failed. */
static double time_op(int (*op)(void), long per_batch)
{
	double best = -1;
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();
		for (long i = 0; i < per_batch; i++)
			if (op() < 0)
				return -1;
		double ns = (now_ns() - t0) / (double)per_batch;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "noop") == 0)
		return 0;
	if (argc != 5) {
		fprintf(stderr, "usage: percall FILE_DEEP FILE_SHALLOW FILE_RW SELF\n");
		return 64;
	}
	self_path = argv[4];
	struct {
		const char *name;
		int (*op)(void);
		const char *path;
		long per_batch;
	} ops[] = {
		{ "syscall", op_syscall, NULL, 200000 },
		{ "stat_missing", op_stat_missing, NULL, 50000 },
		{ "open_deep", op_open, argv[1], 30000 },
		{ "open_shallow", op_open, argv[2], 30000 },
		{ "open_rw", op_open, argv[3], 30000 },
		{ "exec", op_exec, NULL, 200 },
	};
	printf("{");
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		arg_path = ops[k].path;
		double ns = time_op(ops[k].op, ops[k].per_batch);
		if (ns < 0) {
			fprintf(stderr, "percall: %s%s%s failed: %s\n", ops[k].name,
				ops[k].path ? " of " : "", ops[k].path ? ops[k].path : "",
				strerror(errno));
			return 1;
		}
		printf("%s\"%s\":%.1f", k ? "," : "", ops[k].name, ns);
	}
	printf("}\n");
	return 0;
}
