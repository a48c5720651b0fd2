/* seccomp: the syscall half of the cage (design.md §3.8, design D4).
 *
 * A denylist, not an allowlist: what an honest build never needs (module loading, kexec,
 * ptrace, io_uring, mounts, …) is enumerable and stable; what a build needs is not.  Denied
 * calls fail with EPERM, never KILL: a dead process explains nothing, EPERM lets the build
 * fail where it should and its log say why.
 *
 * The filter is built with libseccomp (it knows the syscall numbers of each architecture) and
 * covers the native architecture plus its compat entry points (on x86-64: i386 and x32), so
 * `int $0x80` is no way around it.
 */
#ifndef HK_SYS_SECCOMP_H
#define HK_SYS_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* The denied syscalls, exactly design.md §3.8's list, in that order. */
extern const char *const hk_seccomp_denylist[];
extern const size_t hk_seccomp_denylist_len;

#define HK_SECCOMP_MAX_ARCHES 4

struct hk_seccomp_report {
	bool installed;
	size_t syscalls;                           /* rules in the filter (denylist entries) */
	const char *arches[HK_SECCOMP_MAX_ARCHES]; /* static strings: "x86_64", "x86", "x32" */
	size_t n_arches;
};

/* Installs the denylist filter on the calling thread (inherited by fork and execve).
 * Irreversible.  no_new_privs must already be set (or the caller must hold CAP_SYS_ADMIN).
 * On failure nothing is installed and `err` names the syscall, architecture or kernel call
 * that failed; the caller must then not run the command. */
int hk_seccomp_install_denylist(struct hk_seccomp_report *report, struct hk_error *err);

/* Test only (--test-break-seccomp): hands the kernel a deliberately malformed classic BPF
 * program through the raw seccomp() syscall, so the kernel itself refuses it (EINVAL) and the
 * caller's real failure path runs.  Always returns -errno. */
int hk_seccomp_install_malformed(struct hk_error *err);

#endif
