/* What a user can reach on the host, asked of the kernel with that user's own credentials.
 *
 * A build's sandbox is set up by bubblewrap running as the build user, not as root: every
 * host path it binds must be reachable by that user (search permission on each directory on
 * the way, and read where the path itself is used).  A path that is not fails deep inside
 * bubblewrap ("Can't find source path …: Permission denied") after the build has begun.
 * hk_sys_reach_as() finds the directory that stops the user before anything starts.
 *
 * The check is exact because it is not a model of the permission rules: a forked child takes
 * the user's credentials the way the sandbox does (no supplementary groups, the user's gid and
 * uid: engine/cage/cage.c) and asks access(2), which applies every rule the kernel applies (modes,
 * ACLs, the LSMs' inode checks). */
#ifndef HK_SYS_REACH_H
#define HK_SYS_REACH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/basic/error.h"

/* One path the user must reach, and what it needs of the path itself. */
struct hk_reach_need {
	const char *path;   /* absolute host path */
	int mode;           /* access(2) bits the path itself needs (R_OK, X_OK; 0: reach it) */
};

/* The first directory (or the path itself) that stops the user. */
struct hk_reach_block {
	size_t index;        /* which need */
	char dir[PATH_MAX];  /* the directory (or file) whose permissions stop the user */
	int mode;            /* the access(2) bits the user lacks there (X_OK for a directory on
			      * the way) */
	mode_t st_mode;      /* dir's mode, owner and group, as the kernel has them */
	uid_t st_uid;
	gid_t st_gid;
};

/* Walks every need's path, each directory from / down, as uid/gid in a forked child.  A
 * component that does not exist ends that path's walk without a finding: what is not there
 * yet is made later (by root, world-searchable), and whatever else fails is the later step's
 * to report.  A symbolic link on the way is followed, and its target walked the same way, so
 * the directory named is one whose mode can be changed.
 *
 * When the caller is not root it cannot take another user's credentials: it walks as itself
 * when uid is its own, and fails with EPERM otherwise.
 *
 * Returns 0 when the user reaches every path, 1 when one stops it (*block filled), or -errno
 * when the check could not be made (err says why). */
HK_MUST_CHECK int hk_sys_reach_as(uid_t uid, gid_t gid, const struct hk_reach_need *needs, size_t n,
		    struct hk_reach_block *block, struct hk_error *err);

#endif
