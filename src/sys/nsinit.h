/* The namespaces of `harkaq run`: a pid namespace that no process of the command can outlive,
 * and an empty network namespace (docs/cage.md, "harkaq run").
 *
 * A build gets both from bubblewrap.  `harkaq run` starts its command on the host, and used to
 * rely on being a child subreaper that scans /proc for what the command left and kills it: a
 * fork loop whose parents exit at once outran that scan now and then (a process lives
 * microseconds: gone when its entry is read, its successor not yet listed) and went on
 * running after harkaq, caged and unwatched.  Here the
 * command's first process is a small init, pid 1 of a new pid namespace:
 *
 *     harkaq ── init (pid 1, outside the Landlock domain) ── the command (pid 2): harkaq-exec …
 *
 * When the command's process exits, init sends SIGKILL to every other process of the
 * namespace with one kill(-1) — the kernel signals them all under its task-list lock, and a
 * process with SIGKILL pending cannot complete a fork — reaps and counts them, reports, and
 * exits; its exit makes the kernel kill anything still in the namespace, and if harkaq itself
 * dies, init is killed (PR_SET_PDEATHSIG) and the namespace with it.  Either way nothing of
 * the command survives harkaq.
 *
 * Both need CAP_SYS_ADMIN: without it the run does not start (fail closed). */
#ifndef HK_SYS_NSINIT_H
#define HK_SYS_NSINIT_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/basic/error.h"

/* What the init puts the command in. */
#define HK_NS_PID 1u   /* always, when an init is used at all */
#define HK_NS_NET 2u   /* an empty network namespace, its loopback up */

/* In init, a set-up failure (the loopback cannot be brought up): writes the error to the
 * run's status descriptor `fd` as the cage's own error event would, and exits.  Must not
 * return. */
typedef void (*hk_nsinit_fail_fn)(int fd, const char *layer, const char *msg);

/* Like fork(2), but the child is the init of new namespaces (`ns`: HK_NS_PID, plus
 * HK_NS_NET).  Returns:
 *   in the parent   the init's pid, and *report_fd, the read end of its report (close-on-exec,
 *                   owned by the caller: read it with hk_nsinit_report once the init is reaped);
 *   in the child    0, in the command's process (pid 2 of the namespace), whose process group
 *                   and signal dispositions are as fork would have left them; init itself never
 *                   returns;
 *   on failure      -errno, with `err` saying what could not be created; nothing runs.
 * Signals harkaq sends to the init's process group (SIGINT, SIGTERM, SIGHUP) are passed on to
 * the command's process group; SIGKILL ends the whole namespace.  The process must be
 * single-threaded (a raw clone, as bubblewrap does). */
HK_MUST_CHECK pid_t hk_nsinit_fork(unsigned ns, int status_fd, hk_nsinit_fail_fn fail, int *report_fd,
		     struct hk_error *err);

/* After the init was reaped with `init_status`: the command's own wait status and how many
 * processes it left that init killed.  Returns false, leaving init_status and 0, when init did
 * not report (it was killed: a time limit, or harkaq's SIGKILL).  Closes report_fd. */
bool hk_nsinit_report(int report_fd, int init_status, int *cmd_status, int *leftovers);

#endif
