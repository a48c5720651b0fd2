/* Landlock: the filesystem half of the cage (design.md §3.1–3.7, kernel-facts.md §1, §2, §6, §7).
 *
 * Three layers, from pure to irreversible:
 *
 *   1. Pure tables (no syscall): which filesystem rights an ABI knows, which rights a grant
 *      gives an object of a given type, right names as the audit log spells them.
 *   2. hk_landlock_probe(): the running kernel's ABI and errata, asked with the syscall, never
 *      from uname (kernels backport).  Probed once and cached.
 *   3. hk_landlock_build() creates the ruleset and adds one rule per grant plus READ_DIR on
 *      every ancestor; hk_landlock_restrict() makes the calling thread (all threads with TSYNC)
 *      enter the domain.  hk_landlock_apply() does both.
 *
 * Every downgrade (rights or scopes the effective ABI does not know, logging flags it lacks)
 * is recorded in struct hk_landlock_report so the caller can say it out loud: a verifier
 * never downgrades silently.
 */
#ifndef HK_SYS_LANDLOCK_H
#define HK_SYS_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"
#include "core/policy/policy.h"

/* Filesystem access rights (include/uapi/linux/landlock.h).  Named here because Debian 12's
 * linux-libc-dev stops at ABI 3. */
#define HK_LL_FS_EXECUTE      (1ULL << 0)
#define HK_LL_FS_WRITE_FILE   (1ULL << 1)
#define HK_LL_FS_READ_FILE    (1ULL << 2)
#define HK_LL_FS_READ_DIR     (1ULL << 3)
#define HK_LL_FS_REMOVE_DIR   (1ULL << 4)
#define HK_LL_FS_REMOVE_FILE  (1ULL << 5)
#define HK_LL_FS_MAKE_CHAR    (1ULL << 6)
#define HK_LL_FS_MAKE_DIR     (1ULL << 7)
#define HK_LL_FS_MAKE_REG     (1ULL << 8)
#define HK_LL_FS_MAKE_SOCK    (1ULL << 9)
#define HK_LL_FS_MAKE_FIFO    (1ULL << 10)
#define HK_LL_FS_MAKE_BLOCK   (1ULL << 11)
#define HK_LL_FS_MAKE_SYM     (1ULL << 12)
#define HK_LL_FS_REFER        (1ULL << 13)  /* ABI 2 */
#define HK_LL_FS_TRUNCATE     (1ULL << 14)  /* ABI 3 */
#define HK_LL_FS_IOCTL_DEV    (1ULL << 15)  /* ABI 5 */
#define HK_LL_FS_RESOLVE_UNIX (1ULL << 16)  /* ABI 9 */
#define HK_LL_FS_NBITS        17

/* Every filesystem right harkaq knows: what the cage asks to handle before the ABI narrows it. */
#define HK_LL_FS_ALL          ((1ULL << HK_LL_FS_NBITS) - 1)

/* Rights the kernel accepts in a rule on a non-directory (kernel-facts.md §6); any other right on
 * a non-directory makes landlock_add_rule fail with EINVAL. */
#define HK_LL_FS_FILE_RIGHTS                                                                  \
	(HK_LL_FS_EXECUTE | HK_LL_FS_WRITE_FILE | HK_LL_FS_READ_FILE | HK_LL_FS_TRUNCATE |      \
	 HK_LL_FS_IOCTL_DEV | HK_LL_FS_RESOLVE_UNIX)

/* What `rw` grants beneath a directory: every right but the device ones.  No contract surface
 * holds a device node, and one made beneath a writable directory is a way to any device of
 * the machine (as root, a character device 1:11 under /tmp reads the kernel log, which
 * opening /dev/kmsg would be denied): MAKE_CHAR and MAKE_BLOCK stay handled and ungranted, so
 * a mknod there is denied and recorded.  IOCTL_DEV goes with them: without device nodes
 * beneath the surface it has nothing to act on, and a node the host left there is not the
 * build's to drive.  The other rights are what builds do in /tmp and /src: run what they
 * compiled (EXECUTE), make and remove files, directories, symlinks, FIFOs (make's jobserver)
 * and sockets, move them across directories (REFER), truncate, and connect to the sockets
 * they made (RESOLVE_UNIX).  An `rw` grant on a single file (a device such as /dev/null) keeps
 * IOCTL_DEV: isatty() on it is an ioctl. */
#define HK_LL_FS_RW_BENEATH                                                                    \
	(HK_LL_FS_ALL & ~(HK_LL_FS_MAKE_CHAR | HK_LL_FS_MAKE_BLOCK | HK_LL_FS_IOCTL_DEV))

/* Scopes (ABI 6).  Same bit values as the kernel's LANDLOCK_SCOPE_*. */
#define HK_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define HK_LL_SCOPE_SIGNAL               (1ULL << 1)

/* landlock_restrict_self() flags harkaq uses (ABI 7 and 8).  LOG_SAME_EXEC_OFF (1U << 0) and
 * LOG_SUBDOMAINS_OFF (1U << 2) are deliberately absent: the cage never turns logging off. */
#define HK_LL_RESTRICT_LOG_NEW_EXEC_ON (1U << 1)
#define HK_LL_RESTRICT_TSYNC           (1U << 3)

/* ---- 1. pure tables ---- */

/* Filesystem rights known to `abi` (0 = none), limited to those harkaq knows. */
uint64_t hk_landlock_fs_rights_for_abi(int abi);
/* Scopes known to `abi`. */
uint64_t hk_landlock_scopes_for_abi(int abi);

/* Rights a grant gives an object (a rule's allowed_access), already intersected with
 * `handled`.  The decisions (docs/cage.md):
 *   ro   on a non-directory  EXECUTE | READ_FILE
 *   ro   on a directory      READ_DIR  — the same as list: rules are per file (design.md §3.3), so
 *                            "read everything beneath" is never what ro means
 *   list on a directory      READ_DIR
 *   list on a non-directory  nothing (READ_DIR is directory-only; 0 = no rule to add)
 *   rw   on a directory      every handled right but MAKE_CHAR, MAKE_BLOCK and IOCTL_DEV,
 *                            beneath (HK_LL_FS_RW_BENEATH)
 *   rw   on a non-directory  READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV | RESOLVE_UNIX:
 *                            the file rights minus EXECUTE (rw files are devices such as
 *                            /dev/null, data surfaces, never code) */
uint64_t hk_landlock_grant_access(enum hk_grant_kind kind, bool is_dir, uint64_t handled);

/* Name of one filesystem right, as in the audit log's blockers without the "fs." prefix
 * ("read_file"), or NULL for an unknown bit.  `bit` is the bit index (0..HK_LL_FS_NBITS-1). */
const char *hk_landlock_fs_right_name(unsigned bit);
/* Name of one scope bit ("abstract_unix_socket", "signal"), or NULL. */
const char *hk_landlock_scope_name(unsigned bit);

/* ---- 2. probe ---- */

struct hk_landlock_probe {
	int abi;            /* highest ABI the kernel supports; 0 when Landlock is unusable */
	unsigned errata;    /* LANDLOCK_CREATE_RULESET_ERRATA bitmask; 0 if unsupported */
	int unavailable;    /* 0, or the errno of the version probe: ENOSYS (not built into the
			     * kernel), EOPNOTSUPP (built but disabled at boot), other */
};

/* Asks the kernel once and caches the answer; never fails (absence is an answer). */
const struct hk_landlock_probe *hk_landlock_probe(void);
/* One sentence explaining `unavailable` ("Landlock is not built into this kernel …"). */
const char *hk_landlock_unavailable_reason(int unavailable);

/* ---- 3. ruleset and domain ---- */

struct hk_landlock_config {
	int abi;                  /* effective ABI, 1 ≤ abi ≤ probe->abi (--force-abi lowers it) */
	unsigned policy_scopes;   /* HK_SCOPE_* bits the policy asks for */
	bool withhold_log_flag;   /* test only: omit LOG_NEW_EXEC_ON (reported, never silent) */
	/* Directories to install as one `ro` rule beneath each instead of a rule per grant
	 * beneath them (sorted; landlock.c, "collapsed directories").  May be empty. */
	const char *const *collapse;
	size_t n_collapse;
};

struct hk_landlock_report {
	int abi;
	uint64_t handled_fs;      /* rights the ruleset handles */
	uint64_t dropped_fs;      /* rights harkaq knows that the effective ABI does not */
	uint64_t scopes;          /* scopes in force */
	uint64_t dropped_scopes;  /* scopes the policy asked for that the ABI does not know */
	unsigned restrict_flags;  /* flags given to landlock_restrict_self */
	bool log_flag_withheld;   /* LOG_NEW_EXEC_ON was withheld on request (ABI ≥ 7) */
	size_t rules;             /* rules added for grants */
	size_t ancestors;         /* READ_DIR rules added for ancestors not granted themselves */
	size_t ro_dirs;           /* ro grants on directories, given READ_DIR only */
	/* Collapsed directories installed as one rule beneath each (landlock.c, "collapsed
	 * directories"), the `ro` grants those rules stand for, and the directories declined
	 * (their grants keep their own rules). */
	size_t beneath, covered, declined;
	/* Rules that also carry TRUNCATE because their object's superblock is read-only, where
	 * the kernel refuses truncation before Landlock is asked (landlock.c, "read-only
	 * superblocks"): the right changes nothing but the cost of every open beneath them. */
	size_t ro_sb_truncate;
	unsigned installers;      /* threads that installed the rules: 2 for a large policy on a
				   * machine with two CPUs or more, else 1 */
	/* Grants whose path does not exist (ENOENT/ENOTDIR): indices into policy->grants, in
	 * path order.  Owned; freed by hk_landlock_report_free(). */
	size_t *missing;
	size_t n_missing, cap_missing;
	/* list grants on non-directories: nothing to grant, no rule added.  Same ownership. */
	size_t *not_dirs;
	size_t n_not_dirs, cap_not_dirs;
};

#define HK_LANDLOCK_REPORT_INIT { 0 }

/* Creates a ruleset for cfg->abi and adds the policy's rules.  Returns the ruleset
 * descriptor (≥ 0, close-on-exec, owned by the caller) or -errno with `err` naming the path or
 * call that failed.  `report` must be initialised (HK_LANDLOCK_REPORT_INIT) or come from an
 * earlier call: it is overwritten and its arrays are reused.  Does not take ownership of
 * `policy`; does not restrict anything.  A grant whose path does not exist is recorded in
 * report->missing, not an error. */
HK_MUST_CHECK int hk_landlock_build(const struct hk_policy *policy, const struct hk_landlock_config *cfg,
		      struct hk_landlock_report *report, struct hk_error *err);

/* landlock_restrict_self(ruleset_fd, flags).  Irreversible.  no_new_privs must already be set
 * (or the caller must hold CAP_SYS_ADMIN). */
HK_MUST_CHECK int hk_landlock_restrict(int ruleset_fd, unsigned flags, struct hk_error *err);

/* hk_landlock_build() then hk_landlock_restrict() with report->restrict_flags. */
HK_MUST_CHECK int hk_landlock_apply(const struct hk_policy *policy, const struct hk_landlock_config *cfg,
		      struct hk_landlock_report *report, struct hk_error *err);

void hk_landlock_report_free(struct hk_landlock_report *report);

#endif
