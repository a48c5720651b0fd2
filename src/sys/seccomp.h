/* seccomp: the syscall half of the cage (design.md §3.8).
 *
 * A denylist, not an allowlist: what an honest build never needs (module loading, kexec,
 * ptrace, io_uring, mounts, …) is enumerable and stable; what a build needs is not.  Denied
 * calls fail with EPERM, never KILL: a dead process explains nothing, EPERM lets the build
 * fail where it should and its log say why.
 *
 * The filter is built with libseccomp (it knows the syscall numbers of each architecture) and
 * covers the native architecture plus its compat entry points (on x86-64: i386 and x32), so
 * `int $0x80` is no way around it.
 *
 * Beyond design.md §3.8's list (docs/cage.md, "seccomp"):
 *   - landlock_restrict_self: a build may not make a Landlock domain of its own.  The kernel
 *     charges a denial to the youngest domain that denies it, so a nested domain's denials
 *     never reach the build's count, and its records carry the nested domain's id (or, muted
 *     with LOG_SUBDOMAINS_OFF, do not exist): a probe the build made would be invisible.
 *     landlock_create_ruleset stays allowed (programs probe the ABI with it; a ruleset that
 *     is never enforced restricts nothing).
 *   - ioctl requests that put bytes into another process's input: TIOCSTI (push a byte into
 *     the terminal's input queue; root may do it on a terminal that is not its controlling
 *     one, so a new session does not stop it), TIOCLINUX (among its sub-commands, paste the
 *     console's selection into its input), and the console keymap writes (KDSKBENT,
 *     KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC, KDSETKEYCODE: what a key the user presses types).
 *     Landlock's ioctl_dev right does not cover them on descriptors opened before the cage
 *     (the terminal on fd 0).
 */
#ifndef HK_SYS_SECCOMP_H
#define HK_SYS_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"

/* The denied syscalls: design.md §3.8's list, in that order, then landlock_restrict_self. */
extern const char *const hk_seccomp_denylist[];
extern const size_t hk_seccomp_denylist_len;

/* ioctl requests denied on any descriptor, compared on their low 32 bits. */
struct hk_seccomp_ioctl {
	const char *name;      /* "TIOCSTI" */
	unsigned long request;
};
extern const struct hk_seccomp_ioctl hk_seccomp_denied_ioctls[];
extern const size_t hk_seccomp_denied_ioctls_len;

#define HK_SECCOMP_MAX_ARCHES 4
#define HK_SECCOMP_MAX_IOCTLS 16   /* bound on hk_seccomp_denied_ioctls_len */

struct hk_seccomp_report {
	bool installed;
	size_t syscalls;                           /* syscalls denied whatever their arguments */
	size_t ioctls;                             /* ioctl requests denied (a rule each) */
	const char *arches[HK_SECCOMP_MAX_ARCHES]; /* static strings: "x86_64", "x86", "x32" */
	size_t n_arches;
};

/* Installs the denylist filter on the calling thread (inherited by fork and execve).
 * Irreversible.  no_new_privs must already be set (or the caller must hold CAP_SYS_ADMIN).
 * On failure nothing is installed and `err` names the syscall, architecture or kernel call
 * that failed; the caller must then not run the command. */
HK_MUST_CHECK int hk_seccomp_install_denylist(struct hk_seccomp_report *report, struct hk_error *err);

/* Test only (--test-break-seccomp): hands the kernel a deliberately malformed classic BPF
 * program through the raw seccomp() syscall, so the kernel itself refuses it (EINVAL) and the
 * caller's real failure path runs.  Always returns -errno. */
HK_MUST_CHECK int hk_seccomp_install_malformed(struct hk_error *err);

#endif
