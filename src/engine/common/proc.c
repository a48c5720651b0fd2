#include "engine/common/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "sys/proc.h"
/* HK_BINDIR and HK_LIBEXECDIR, the directories make install puts harkaq and its helpers in
 * (Makefile: PREFIX, BINDIR, LIBEXECDIR), generated beside the objects so that another PREFIX
 * rebuilds this file alone. */
#include "install_dirs.h"

void hk_linereader_init(struct hk_linereader *lr, int fd)
{
	lr->fd = fd;
	lr->pending = (struct hk_buf)HK_BUF_INIT;
	lr->eof = false;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int hk_linereader_fill(struct hk_linereader *lr)
{
	char chunk[65536];
	while (lr->fd >= 0) {
		ssize_t n = read(lr->fd, chunk, sizeof(chunk));
		if (n > 0) {
			hk_buf_append(&lr->pending, chunk, (size_t)n);
			continue;
		}
		if (n == 0) {
			lr->eof = true;
			close(lr->fd);
			lr->fd = -1;
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		/* Nothing more can be read from it: the stream ends here, cut short. */
		int e = errno;
		lr->eof = true;
		close(lr->fd);
		lr->fd = -1;
		return -e;
	}
	return 0;
}

bool hk_linereader_next(struct hk_linereader *lr, char **line)
{
	if (lr->pending.len == 0)
		return false;
	char *nl = memchr(lr->pending.data, '\n', lr->pending.len);
	size_t n;
	if (nl)
		n = (size_t)(nl - lr->pending.data);
	else if (lr->eof)
		n = lr->pending.len;
	else
		return false;
	*line = hk_xstrndup(lr->pending.data, n);
	size_t consumed = nl ? n + 1 : n;
	memmove(lr->pending.data, lr->pending.data + consumed, lr->pending.len - consumed);
	lr->pending.len -= consumed;
	lr->pending.data[lr->pending.len] = '\0';
	return true;
}

void hk_linereader_close(struct hk_linereader *lr)
{
	if (lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
	hk_buf_free(&lr->pending);
}

/* PF_EXITING (include/linux/sched.h): the task is in exit(), about to become a zombie. */
#define HK_PF_EXITING 0x00000004u

/* Parent pid, state letter and flags of a process from /proc/PID/stat (the fields after the
 * parenthesised comm, which may itself contain spaces and parentheses: search from the last
 * ')'). */
static pid_t parent_of(pid_t pid, char *state, unsigned *flags)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	if (!rp)
		return -1;
	int ppid;
	if (sscanf(rp + 1, " %c %d %*d %*d %*d %*d %u", state, &ppid, flags) != 3)
		return -1;
	return (pid_t)ppid;
}

int hk_pidfd_open(pid_t pid)
{
	return hk_sys_pidfd_open(pid);
}

static bool in_list(pid_t p, const pid_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

struct descendant {
	pid_t pid, ppid;
	bool zombie;  /* exited, waiting to be reaped: nothing left to kill */
	bool exiting; /* in exit() already (PF_EXITING), a zombie in a moment */
};

/* The processes of /proc whose parent chain reaches `self` without passing a kept pid. */
static size_t list_descendants(pid_t self, const pid_t *keep, size_t n_keep,
			       struct descendant **out)
{
	size_t cap = 256, n = 0;
	struct descendant *all = hk_xmalloc(cap * sizeof(*all));
	DIR *d = opendir("/proc");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			char *end;
			long v = strtol(de->d_name, &end, 10);
			if (*end || v <= 0)
				continue;
			char state;
			unsigned flags;
			pid_t pp = parent_of((pid_t)v, &state, &flags);
			if (pp < 0)
				continue;
			if (n == cap) {
				cap *= 2;
				all = hk_xrealloc(all, cap * sizeof(*all));
			}
			bool zombie = state == 'Z' || state == 'X';
			all[n++] = (struct descendant){ (pid_t)v, pp, zombie,
							zombie || (flags & HK_PF_EXITING) };
		}
		closedir(d);
	}
	bool *desc = hk_xcalloc(n ? n : 1, sizeof(bool));
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			if (desc[i] || in_list(all[i].pid, keep, n_keep))
				continue;
			bool parent_ok = all[i].ppid == self;
			for (size_t k = 0; !parent_ok && k < n; k++)
				if (desc[k] && all[k].pid == all[i].ppid)
					parent_ok = true;
			if (parent_ok) {
				desc[i] = true;
				changed = true;
			}
		}
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (desc[i])
			all[m++] = all[i];
	free(desc);
	*out = all;
	return m;
}

/* Waits up to timeout_ms for our child pid to exit (not reaping it). */
static void wait_exit(pid_t pid, int timeout_ms)
{
	int pfd = hk_pidfd_open(pid);
	if (pfd < 0)
		return;
	struct pollfd p = { pfd, POLLIN, 0 };
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
	close(pfd);
}

int hk_kill_descendants(const pid_t *keep, size_t n_keep)
{
	pid_t self = getpid();
	size_t cap = 16, n_killed = 0;
	pid_t *killed = hk_xmalloc(cap * sizeof(*killed));

	/* Our own children that are still running get a short grace, shared, to exit by
	 * themselves first: bubblewrap's pid 1, orphaned to us when the outer bubblewrap
	 * returns, is between reporting its child's status and exiting, and its exit ends the
	 * sandbox's pid namespace (the kernel kills what is left there).  What had exited by
	 * itself is not a leftover; what harkaq has to kill is. */
	long long grace_end = hk_now_ms() + 100;
	/* Repeat: a killed process's children are reparented to us (we are a subreaper). */
	for (int round = 0; round < 100; round++) {
		struct descendant *desc;
		size_t n = list_descendants(self, keep, n_keep, &desc);
		size_t live = 0;
		bool exited = false;
		for (size_t i = 0; i < n; i++) {
			const struct descendant *d = &desc[i];
			int st;
			if (d->ppid == self && !d->zombie) {
				long long left = grace_end - hk_now_ms();
				if (left > 0)
					wait_exit(d->pid, (int)left);
			}
			if (d->ppid == self && waitpid(d->pid, &st, WNOHANG | __WALL) == d->pid) {
				exited = true; /* its children, if any, are ours now: look again */
				continue;
			}
			if (d->zombie)
				continue; /* reaped by its parent, or by us once reparented */
			if (kill(d->pid, SIGKILL) != 0)
				continue;
			live++;
			if (d->exiting)
				continue; /* killed to be sure, not counted: it was leaving */
			if (!in_list(d->pid, killed, n_killed)) {
				if (n_killed == cap) {
					cap *= 2;
					killed = hk_xrealloc(killed, cap * sizeof(*killed));
				}
				killed[n_killed++] = d->pid;
			}
		}
		free(desc);
		/* Reap only what we killed: other children (the reader) belong to their owners. */
		for (size_t i = 0; i < n_killed; i++) {
			int st;
			if (killed[i] > 0 && waitpid(killed[i], &st, WNOHANG | __WALL) == killed[i])
				killed[i] = -killed[i];
		}
		if (live == 0 && !exited)
			break;
		if (live > 0) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	/* Final reaping pass for the ones that were not yet our children. */
	for (int tries = 0; tries < 200; tries++) {
		bool left = false;
		for (size_t i = 0; i < n_killed; i++) {
			int st;
			if (killed[i] <= 0)
				continue;
			pid_t r = waitpid(killed[i], &st, WNOHANG | __WALL);
			if (r == killed[i] || (r < 0 && errno == ECHILD && kill(killed[i], 0) != 0))
				killed[i] = -killed[i];
			else
				left = true;
		}
		if (!left)
			break;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	int count = (int)n_killed;
	free(killed);
	return count;
}

/* Whether `dir` is the absolute directory `tail`, or ends with it: then *prefix_len is the
 * length of what stands before it (a DESTDIR, or where a whole installed tree was moved). */
static bool dir_ends_with(const char *dir, const char *tail, size_t *prefix_len)
{
	size_t d = strlen(dir), t = strlen(tail);
	if (t < 2 || tail[0] != '/' || d < t || strcmp(dir + d - t, tail) != 0)
		return false;
	*prefix_len = d - t;
	return true;
}

/* One place a helper may be (p, owned): 1 when it is there and executable (*out = p), 0 when it
 * is not there (p freed), -errno when it is there but not executable by this user — a helper
 * limited to a group (*out = p, for saying which). */
static int helper_at(char *p, char **out)
{
	if (access(p, X_OK) == 0) {
		*out = p;
		return 1;
	}
	int e = errno;
	if (e == ENOENT || e == ENOTDIR) {
		free(p);
		return 0;
	}
	*out = p;
	return -e;
}

int hk_helper_find(const char *name, char **out, struct hk_error *err)
{
	*out = NULL;
	const char *env = getenv("HARKAQ_LIBEXEC");
	int r;
	if (env && *env) {
		r = helper_at(hk_xasprintf("%s/%s", env, name), out);
		if (r > 0)
			return 0;
		return hk_fail_errno(err, r < 0 ? -r : ENOENT, "helper program '%s/%s' not found or "
				     "not executable (HARKAQ_LIBEXEC names %s)", env, name, env);
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return hk_fail_errno(err, errno, "cannot find harkaq's own path (/proc/self/exe)");
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	size_t pre;
	if (dir_ends_with(self, HK_BINDIR, &pre)) {
		/* Installed: the helpers are in LIBEXECDIR under the same prefix (none, or the
		 * DESTDIR a package is staged in), never beside harkaq in a shared bin. */
		r = helper_at(hk_xasprintf("%.*s%s/%s", (int)pre, self, HK_LIBEXECDIR, name), out);
		if (r > 0)
			return 0;
		if (r < 0)
			return hk_fail_errno(err, -r, "helper program '%s' is not executable by this "
					     "user", *out);
		return hk_fail_errno(err, ENOENT, "helper program '%.*s%s/%s' not found or not "
				     "executable (harkaq is installed in %s, its helpers belong in %.*s%s; reinstall "
				     "harkaq, or set HARKAQ_LIBEXEC to their directory)",
				     (int)pre, self, HK_LIBEXECDIR, name, self, (int)pre, self,
				     HK_LIBEXECDIR);
	}
	/* The build tree: the helpers beside harkaq.  Else a harkaq copied away from its
	 * installation: the LIBEXECDIR it was built for. */
	r = helper_at(hk_xasprintf("%s/%s", self, name), out);
	if (r == 0)
		r = helper_at(hk_xasprintf("%s/%s", HK_LIBEXECDIR, name), out);
	if (r > 0)
		return 0;
	if (r < 0)
		return hk_fail_errno(err, -r, "helper program '%s' is not executable by this user",
				     *out);
	return hk_fail_errno(err, ENOENT, "helper program '%s' not found or not executable, "
			     "neither beside harkaq in %s nor in %s (install it with 'make "
			     "install', or set HARKAQ_LIBEXEC to its directory)", name, self,
			     HK_LIBEXECDIR);
}

int hk_helper_path(const char *name, char **out, struct hk_error *err)
{
	int r = hk_helper_find(name, out, err);
	if (r < 0) {
		free(*out);
		*out = NULL;
	}
	return r;
}

long long hk_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int hk_random_hex(char *out, size_t n_bytes, struct hk_error *err)
{
	unsigned char raw[64];
	if (n_bytes > sizeof(raw))
		return hk_fail(err, EINVAL, "nonce too long");
	size_t got = 0;
	while (got < n_bytes) {
		ssize_t r = getrandom(raw + got, n_bytes - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return hk_fail_errno(err, errno, "getrandom");
		}
		got += (size_t)r;
	}
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n_bytes; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[2 * n_bytes] = '\0';
	return 0;
}

int hk_resolve_user(const char *spec, uid_t *uid, gid_t *gid, struct hk_error *err)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(spec, &end, 10);
	struct passwd *pw;
	if (*spec && !*end && errno == 0) {
		pw = getpwuid((uid_t)v);
		*uid = (uid_t)v;
		*gid = pw ? pw->pw_gid : (gid_t)v;
		return 0;
	}
	pw = getpwnam(spec);
	if (!pw)
		return hk_fail(err, ENOENT, "unknown user '%s' (give a name from /etc/passwd or a uid)",
			       spec);
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

void hk_run_result_free(struct hk_run_result *res)
{
	hk_buf_free(&res->out);
	hk_buf_free(&res->errout);
}

const char *hk_first_line(struct hk_buf *b, char *line, size_t size)
{
	const char *s = hk_buf_str(b);
	while (*s == '\n')
		s++;
	size_t n = strcspn(s, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(line, s, n);
	line[n] = '\0';
	return line[0] ? line : "(no message)";
}

static void close_pipe(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	p[0] = p[1] = -1;
}

/* Reads both pipes to their end, whichever has data, so that neither fills up and blocks the
 * child; closes them. */
static void drain_two(int fd0, int fd1, struct hk_buf *buf0, struct hk_buf *buf1)
{
	struct pollfd fds[2] = { { fd0, POLLIN, 0 }, { fd1, POLLIN, 0 } };
	struct hk_buf *bufs[2] = { buf0, buf1 };
	int open_fds = 2;
	char buf[1 << 14];
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0) {
				hk_buf_append(bufs[i], buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
}

/* Starts argv[0] (looked up in PATH) with stdin from /dev/null when `null_stdin`, stdout and
 * stderr onto `out_fd` and `err_fd` when they are not -1 (else inherited), in `cwd` when not
 * NULL.  posix_spawn rather than fork: glibc starts the child with CLONE_VM|CLONE_VFORK, so
 * the caller's pages are neither copied nor write-protected.  A fork of a process holding a
 * store's metadata (tens of MB) copied its page tables, and every page the parent wrote
 * afterwards faulted — costs a Debian build paid at each of its dozen tools, beside the
 * threads still writing.  An exec failure, or a failed file action (a `cwd` that cannot be
 * entered), is its return value: 0 or an errno. */
static int spawn_child(const char *const *argv, const char *cwd, bool null_stdin, int out_fd,
		       int err_fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (null_stdin)
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (err_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	/* The argv is only read by the exec; the cast drops the const the exec family never
	 * had. */
	int e = posix_spawnp(pid, argv[0], &fa, NULL, (char *const *)(uintptr_t)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

static int wait_status(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int hk_run_capture(const char *const *argv, const char *cwd, struct hk_run_result *res,
		   struct hk_error *err)
{
	memset(res, 0, sizeof(*res));
	int out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	if (pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0) {
		int e = errno;
		close_pipe(out_p);
		close_pipe(err_p);
		return hk_fail_errno(err, e, "cannot run %s", argv[0]);
	}
	pid_t pid;
	int e = spawn_child(argv, cwd, true, out_p[1], err_p[1], &pid);
	close(out_p[1]);
	close(err_p[1]);
	if (e != 0) {
		close(out_p[0]);
		close(err_p[0]);
		return hk_fail_errno(err, e, "cannot run %s", argv[0]);
	}
	drain_two(out_p[0], err_p[0], &res->out, &res->errout);
	int status = 0;
	(void)wait_status(pid, &status);
	res->status = exit_code(status);
	return 0;
}

int hk_spawn_wait(char *const *argv, const char *cwd, bool quiet, struct hk_error *err)
{
	int devnull = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	if (quiet && devnull < 0)
		return hk_fail_errno(err, errno, "cannot open /dev/null for %s", argv[0]);
	pid_t pid;
	int e = spawn_child((const char *const *)argv, cwd, false, devnull, -1, &pid);
	if (devnull >= 0)
		close(devnull);
	if (e != 0)
		return hk_fail_errno(err, e, "cannot run %s%s%s", argv[0], cwd ? " in " : "",
				     cwd ? cwd : "");
	int st = 0;
	int rc = wait_status(pid, &st);
	if (rc < 0)
		return hk_fail_errno(err, -rc, "waiting for %s", argv[0]);
	int code = exit_code(st);
	if (code != 0) {
		struct hk_buf b = HK_BUF_INIT;
		for (size_t i = 0; argv[i] && i < 8; i++) {
			if (i)
				hk_buf_putc(&b, ' ');
			hk_buf_puts(&b, argv[i]);
		}
		hk_fail(err, EIO, "'%s' failed with status %d", hk_buf_str(&b), code);
		hk_buf_free(&b);
	}
	return code;
}

int hk_spawnl(const char *cwd, bool quiet, struct hk_error *err, const char *arg0, ...)
{
	hk_autostrv struct hk_strv a = HK_STRV_INIT;
	va_list ap;
	va_start(ap, arg0);
	for (const char *s = arg0; s; s = va_arg(ap, const char *))
		hk_strv_push(&a, s);
	va_end(ap);
	return hk_spawn_wait(a.v, cwd, quiet, err);
}
