/* Process plumbing for the orchestrator: spawning with pipes, reading JSON lines from a pipe,
 * and making sure nothing a caged command started outlives it. */
#ifndef HK_CLI_PROC_H
#define HK_CLI_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/error.h"

/* Reads a pipe without blocking and splits it into lines. */
struct hk_linereader {
	int fd;              /* owned; -1 once EOF was reached and the fd closed */
	struct hk_buf pending;
	bool eof;
};

void hk_linereader_init(struct hk_linereader *lr, int fd);
/* Reads what is available (the fd is non-blocking).  Returns 0, or -errno on a read error. */
int hk_linereader_fill(struct hk_linereader *lr);
/* Pops the next complete line (without '\n') into *line (malloc'd); returns false if none.
 * After EOF a final unterminated line is returned too. */
bool hk_linereader_next(struct hk_linereader *lr, char **line);
void hk_linereader_close(struct hk_linereader *lr);

/* Sends SIGKILL to every descendant of this process except those listed in keep[] (and
 * their descendants), reaps what it can, and returns how many were killed.  The orchestrator
 * is a child subreaper, so orphans of the caged command become its children and are found.
 * Zombies (descendants that had already exited) are reaped and not counted. */
int hk_kill_descendants(const pid_t *keep, size_t n_keep);

/* pidfd_open(2) (glibc 2.36 has no wrapper): a descriptor that polls readable once pid exits. */
int hk_pidfd_open(pid_t pid);

/* Absolute path of a helper program installed next to the running harkaq binary
 * (harkaq-exec, harkaq-audit); HARKAQ_LIBEXEC overrides the directory. */
int hk_helper_path(const char *name, char **out, struct hk_error *err);

/* Milliseconds on the monotonic clock. */
long long hk_now_ms(void);

/* A random nonce: 2*n_bytes lowercase hex characters into out (n_bytes*2+1). */
int hk_random_hex(char *out, size_t n_bytes, struct hk_error *err);

/* Resolves a user name or numeric uid to uid/gid (for --user). */
int hk_resolve_user(const char *spec, uid_t *uid, gid_t *gid, struct hk_error *err);

/* Runs argv (no shell) to completion with stdout/stderr inherited, or stdout to /dev/null when
 * quiet.  Returns the exit status (>= 0), or -errno if it could not be started; err says
 * which command failed when the status is not 0. */
int hk_spawn_wait(char *const *argv, const char *cwd, bool quiet, struct hk_error *err);

/* hk_spawn_wait of the NULL-terminated argument list (arg0 is looked up in PATH). */
int hk_spawnl(const char *cwd, bool quiet, struct hk_error *err, const char *arg0, ...)
	__attribute__((sentinel));

/* A NULL-terminated argv of owned strings, built by appending. */
struct hk_argv {
	char **v;
	size_t n, cap;
};
void hk_argv_push(struct hk_argv *a, const char *s);
void hk_argv_free(char **argv);

#endif
