/* Process-level kernel interfaces the orchestrator and the reader use: pidfds, the child
 * subreaper, a thread's name, core dumps, the user namespace.  Each returns 0 (or the documented value) or -errno. */
#ifndef HK_SYS_PROC_H
#define HK_SYS_PROC_H

#include <sys/types.h>

#include "core/basic/error.h"

/* pidfd_open(pid, 0): a descriptor that polls readable when the process exits; -errno
 * (a kernel without pidfds: -ENOSYS; the caller then polls the child). */
HK_MUST_CHECK int hk_sys_pidfd_open(pid_t pid);
/* PR_SET_CHILD_SUBREAPER: orphans of our descendants become our children. */
HK_MUST_CHECK int hk_sys_become_subreaper(void);
/* PR_SET_NAME: the calling thread's name in ps and /proc (at most 15 bytes are kept). */
HK_MUST_CHECK int hk_sys_set_thread_name(const char *name);
/* PR_SET_DUMPABLE 0: no core dump, and no other process of the same uid may ptrace this one
 * or open its /proc/PID/mem, environ, fd/… (the reader holds records of other users). */
HK_MUST_CHECK int hk_sys_forbid_dumps(void);
/* Whether the calling process is in the initial user namespace: its /proc/self/uid_map is
 * the identity over every uid.  1 yes, 0 no, -errno when the map cannot be read. */
HK_MUST_CHECK int hk_sys_in_initial_userns(void);

#endif
