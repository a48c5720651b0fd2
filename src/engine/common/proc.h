/* Process plumbing for the orchestrator: running host tools, spawning with pipes, reading JSON
 * lines from a pipe, and making sure nothing a caged command started outlives it. */
#ifndef HK_ENGINE_PROC_H
#define HK_ENGINE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/basic/strv.h"

/* Reads a pipe without blocking and splits it into lines. */
struct hk_linereader {
	int fd;              /* owned; -1 once EOF was reached and the fd closed */
	struct hk_buf pending;
	bool eof;
};

void hk_linereader_init(struct hk_linereader *lr, int fd);
/* Reads what is available (the fd is non-blocking).  Returns 0, or -errno on a read error,
 * after which the stream is at its end (fd closed, eof): what was read before is kept. */
HK_MUST_CHECK int hk_linereader_fill(struct hk_linereader *lr);
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
HK_MUST_CHECK int hk_pidfd_open(pid_t pid);

/* Absolute path of one of harkaq's helper programs (harkaq-exec, harkaq-audit): the one
 * lookup every caller makes (docs/install.md, "Where harkaq finds its helpers").  In order:
 * the directory $HARKAQ_LIBEXEC names, when set; for a harkaq installed in BINDIR (or in a
 * directory ending with it: a DESTDIR, a moved tree), LIBEXECDIR under the same prefix and
 * nowhere else; otherwise beside harkaq (the build tree), else LIBEXECDIR.  A helper not found
 * is -errno, err naming where it was looked for and what to do. */
HK_MUST_CHECK int hk_helper_path(const char *name, char **out, struct hk_error *err);
/* The search hk_helper_path makes, for saying what is wrong (`harkaq probe`): as it, except
 * that a helper found but not executable by this user is left in *out (the caller frees it)
 * with -EACCES (or the errno access(2) gave); *out is NULL when none was found. */
HK_MUST_CHECK int hk_helper_find(const char *name, char **out, struct hk_error *err);

/* Milliseconds on the monotonic clock. */
long long hk_now_ms(void);

/* A random nonce: 2*n_bytes lowercase hex characters into out (n_bytes*2+1). */
int hk_random_hex(char *out, size_t n_bytes, struct hk_error *err)
	__attribute__((warn_unused_result));

/* Resolves a user name or numeric uid to uid/gid (for --user). */
HK_MUST_CHECK int hk_resolve_user(const char *spec, uid_t *uid, gid_t *gid, struct hk_error *err);

/* What a host tool printed, and how it ended. */
struct hk_run_result {
	int status;                  /* exit status; 128+signal if killed */
	struct hk_buf out, errout;   /* everything it wrote to stdout and to stderr */
};

void hk_run_result_free(struct hk_run_result *res);

/* Runs a host tool and collects its output: the command line's one spawn-and-capture.
 * argv[0] is looked up in PATH, never through a shell (a file name is never interpreted);
 * stdin is /dev/null; the working directory is `cwd` if non-NULL.  Returns 0 when the program
 * ran, whatever its exit status (res->status), or -errno with err "cannot run ARGV0: …" when it
 * could not be started (res is then empty).  res is the caller's to free either way. */
HK_MUST_CHECK int hk_run_capture(const char *const *argv, const char *cwd, struct hk_run_result *res,
		   struct hk_error *err);

/* The first non-empty line of `b` (a tool's stderr), cut to size - 1 bytes, in `line`; "(no
 * message)" when there is none.  For a one-sentence error naming what the tool said. */
const char *hk_first_line(struct hk_buf *b, char *line, size_t size);

/* Runs argv (no shell) to completion with stdout/stderr inherited, or stdout to /dev/null when
 * quiet.  Returns the exit status (>= 0), or -errno if it could not be started; err says
 * which command failed when the status is not 0. */
HK_MUST_CHECK int hk_spawn_wait(char *const *argv, const char *cwd, bool quiet, struct hk_error *err);

/* hk_spawn_wait of the NULL-terminated argument list (arg0 is looked up in PATH). */
HK_MUST_CHECK int hk_spawnl(const char *cwd, bool quiet, struct hk_error *err, const char *arg0, ...)
	__attribute__((sentinel));

/* An argv is a string vector (core/basic/strv.h), NULL-terminated as execv() wants: `struct hk_argv`,
 * hk_argv_push and hk_argv_free are hk_strv, hk_strv_push and hk_strfreev by the names the
 * code that builds command lines uses. */
#define hk_argv hk_strv

static inline void hk_argv_push(struct hk_strv *a, const char *s)
{
	hk_strv_push(a, s);
}

static inline void hk_argv_free(char **argv)
{
	hk_strfreev(argv);
}

#endif
