/* Whether the build user can make the sandbox bubblewrap makes (docs/kernel-facts.md §13):
 * asked of the kernel before a build's first sandbox, so that a machine which forbids it gets
 * one sentence saying what is missing, not a phase that "never reported". */
#ifndef HK_SYS_USERNS_H
#define HK_SYS_USERNS_H

#include <sys/types.h>

#include "core/basic/error.h"

/* In a forked child switched to uid/gid (when the caller is root): unshare the namespaces
 * bubblewrap's --unshare-all asks for (user, mount, pid, network, ipc, uts) and mount a tmpfs
 * on /tmp inside them, as bubblewrap does for its new root.  The child's namespaces die with
 * it; nothing reaches the caller's.  0, or -errno with a sentence in *err naming the step that
 * failed and the kernel setting that usually explains it. */
HK_MUST_CHECK int hk_sys_sandbox_check(uid_t uid, gid_t gid, struct hk_error *err);

#endif
