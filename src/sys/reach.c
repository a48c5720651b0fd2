#include "sys/reach.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Links followed on one path before giving up (the kernel's own limit, ELOOP beyond it, is
 * the later step's to report). */
#define REACH_MAX_LINKS 40

/* What the child tells the parent through the pipe. */
struct reach_answer {
	int rc;          /* 0 reached, 1 blocked, -errno: the check could not be made */
	char step[32];   /* which step failed (rc < 0) */
	struct hk_reach_block block;
};

/* The bits of `mode` the calling credentials lack on `path` (ancestors known searchable). */
static int lacking(const char *path, int mode)
{
	int missing = 0;
	static const int bits[] = {R_OK, W_OK, X_OK};
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if ((mode & bits[i]) && access(path, bits[i]) < 0 && errno == EACCES)
			missing |= bits[i];
	return missing ? missing : mode;
}

/* Fills `b` with the directory (or file) `p` that stops the user, lacking `mode`. */
static int blocked_at(const char *p, int mode, struct hk_reach_block *b)
{
	struct stat st;
	snprintf(b->dir, sizeof(b->dir), "%s", p);
	b->mode = lacking(p, mode);
	if (lstat(p, &st) == 0) {
		b->st_mode = st.st_mode;
		b->st_uid = st.st_uid;
		b->st_gid = st.st_gid;
	}
	return 1;
}

/* Walks `path` from / down with the calling credentials: X_OK on every directory on the way,
 * `need` on the path itself.  Returns 1 (b filled) at the first component that refuses, 0
 * when the path is reached or ends early (missing, not a directory, too many links). */
static int walk(const char *path, int need, int depth, struct hk_reach_block *b)
{
	char p[PATH_MAX];
	if (path[0] != '/' || depth > REACH_MAX_LINKS ||
	    snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return 0;
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	if (access("/", X_OK) < 0 && errno == EACCES)
		return blocked_at("/", X_OK, b);
	for (size_t i = 1; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		if (p[i - 1] == '/') /* "//" or the root itself */
			continue;
		bool last = i == len;
		char saved = p[i];
		p[i] = '\0';
		struct stat st;
		if (lstat(p, &st) < 0) {
			/* Missing (made later by root), or not a directory: nothing the
			 * user's permissions decide. */
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], next[PATH_MAX];
			ssize_t n = readlink(p, target, sizeof(target) - 1);
			if (n < 0)
				return 0;
			target[n] = '\0';
			/* Not folded: "a/../b" is walked as the kernel resolves it, ".." from
			 * within "a" (which may itself be a link). */
			p[i] = saved;
			int w;
			if (target[0] == '/') {
				w = snprintf(next, sizeof(next), "%s%s", target, p + i);
			} else {
				size_t d = i; /* the link's directory: p up to its last '/' */
				while (d > 0 && p[d - 1] != '/')
					d--;
				w = snprintf(next, sizeof(next), "%.*s%s%s", (int)d, p, target,
					     p + i);
			}
			if (w >= (int)sizeof(next))
				return 0;
			return walk(next, need, depth + 1, b);
		}
		int mode = last ? need : X_OK;
		if (mode && access(p, mode) < 0 && errno == EACCES)
			return blocked_at(p, mode, b);
		p[i] = saved;
	}
	return 0;
}

/* In the child: the user's credentials as the sandbox takes them, then every walk. */
static void reach_child(uid_t uid, gid_t gid, const struct hk_reach_need *needs, size_t n,
			struct reach_answer *a)
{
	if (geteuid() == 0) {
		/* As the cage does before bubblewrap (engine/cage/cage.c): no supplementary groups. */
		if (setgroups(0, NULL) < 0) {
			a->rc = -errno;
			snprintf(a->step, sizeof(a->step), "setgroups");
			return;
		}
		if (setgid(gid) < 0) {
			a->rc = -errno;
			snprintf(a->step, sizeof(a->step), "setgid");
			return;
		}
		if (setuid(uid) < 0) {
			a->rc = -errno;
			snprintf(a->step, sizeof(a->step), "setuid");
			return;
		}
	} else if (getuid() != uid || geteuid() != uid) {
		a->rc = -EPERM;
		snprintf(a->step, sizeof(a->step), "setuid");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (walk(needs[i].path, needs[i].mode, 0, &a->block)) {
			a->block.index = i;
			a->rc = 1;
			return;
		}
	}
	a->rc = 0;
}

int hk_sys_reach_as(uid_t uid, gid_t gid, const struct hk_reach_need *needs, size_t n,
		    struct hk_reach_block *block, struct hk_error *err)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "checking what uid %u can reach: pipe",
				     (unsigned)uid);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return hk_fail_errno(err, e, "checking what uid %u can reach: fork", (unsigned)uid);
	}
	if (pid == 0) {
		close(pipefd[0]);
		struct reach_answer a;
		memset(&a, 0, sizeof(a));
		reach_child(uid, gid, needs, n, &a);
		const char *p = (const char *)&a;
		size_t left = sizeof(a);
		while (left > 0) {
			ssize_t w = write(pipefd[1], p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			p += w;
			left -= (size_t)w;
		}
		_exit(0);
	}
	close(pipefd[1]);
	struct reach_answer a;
	memset(&a, 0, sizeof(a));
	char *p = (char *)&a;
	size_t got = 0;
	while (got < sizeof(a)) {
		ssize_t r = read(pipefd[0], p + got, sizeof(a) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(pipefd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(a))
		return hk_fail(err, EIO,
			       "checking what uid %u can reach: the checking process "
			       "ended without an answer",
			       (unsigned)uid);
	if (a.rc < 0)
		return hk_fail_errno(err, -a.rc, "checking what uid %u can reach: %s(%u)",
				     (unsigned)uid, a.step, (unsigned)uid);
	if (a.rc == 1)
		*block = a.block;
	return a.rc;
}
