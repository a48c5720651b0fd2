/* harkaq-exec: the cage, run inside the sandbox as the build's first process (design.md §3, §4).
 *
 *   main.c    the command line
 *   cage.c    hk_exec_cage(): the layers, in order, in one function
 *   launch.c  the canary probe after the re-exec, the final execvp, the status channel
 */
#ifndef HK_EXEC_EXEC_H
#define HK_EXEC_EXEC_H

#include <stdbool.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/exec_args.h"

/* Exit statuses of harkaq-exec itself (documented in --help and docs/cage.md).  Once the
 * command runs, its own status is the process's status. */
enum {
	HK_EXEC_EXIT_POLICY = 121,     /* the policy file cannot be read or parsed */
	HK_EXEC_EXIT_LANDLOCK = 122,   /* Landlock refused, or required and absent */
	HK_EXEC_EXIT_SECCOMP = 123,    /* the seccomp filter could not be installed */
	HK_EXEC_EXIT_CANARY = 124,     /* the canary probe did not see the expected EACCES */
	HK_EXEC_EXIT_SETUP = 125,      /* command line, no_new_privs, descriptors, own path */
	HK_EXEC_EXIT_CANNOT_EXEC = 126,/* the command exists but cannot be executed */
	HK_EXEC_EXIT_NOT_FOUND = 127,  /* the command was not found */
};


/* Installs the cage and executes the command (through the canary probe when a canary is
 * given).  Returns only on failure, with the exit status to use; the reason has already been
 * printed on stderr and sent on the status channel. */
HK_MUST_CHECK int hk_exec_cage(const struct hk_exec_args *o);

/* Probe mode (`--probe-canary`), entered by the cage's re-exec of itself, inside the domain:
 * open the canary expecting EACCES, report it, then execute the command.  Returns only on
 * failure, with the exit status. */
HK_MUST_CHECK int hk_exec_probe(const char *canary_path, int status_fd, char **cmd);

/* execvp(cmd) with the status channel closed on exec.  Returns only on failure: 127 when the
 * command was not found, 126 otherwise, after reporting why. */
HK_MUST_CHECK int hk_exec_command(char **cmd, int status_fd);

/* ---- status channel and messages (launch.c) ---- */

/* Writes one JSON line (the buffer's content plus '\n') on the status fd; no-op when fd < 0. */
HK_MUST_CHECK int hk_status_write(int fd, struct hk_buf *line, struct hk_error *err);
/* Reports a failure of one layer: one sentence on stderr ("harkaq-exec: LAYER: MESSAGE") and
 * an {"event":"error"} line.  Returns `exit_code`. */
int hk_exec_fail(int status_fd, const char *layer, const char *message, int exit_code);
/* One sentence on stderr, prefixed "harkaq-exec: ". */
void hk_exec_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* SIGPIPE is ignored while harkaq-exec writes its status (a vanished reader must not kill the
 * cage half-installed) and restored before any execve: ignored signals survive exec, and a
 * build expects the default. */
void hk_exec_ignore_sigpipe(void);
void hk_exec_restore_sigpipe(void);

#endif
