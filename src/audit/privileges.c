/* The reader's privilege drop (design.md §2): after set-up it keeps one capability. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <unistd.h>

#include "audit/audit.h"
#include "sys/caps.h"

/* The uid/gid a root-started reader switches to: the conventional "nobody". */
#define UNPRIVILEGED_ID 65534

/* Reduces the process to the capabilities in `keep` (design.md §2: after set-up the reader needs
 * only CAP_AUDIT_READ): the bounding set loses everything else, so nothing can come back
 * through an execve; a root-started process moves to an unprivileged uid and gid (with no
 * capability, uid 0 would still own every root file); no_new_privs.  The result is read
 * back and verified, not assumed. */
int drop_privileges(uint64_t keep, struct hk_reader_privileges *p, struct hk_error *err)
{
	struct hk_caps caps;
	int r = hk_caps_get(&caps);
	if (r < 0)
		return hk_fail_errno(err, -r, "capget");
	if ((caps.permitted & keep) != keep)
		return hk_fail(err, EPERM, "dropping privileges: a capability to keep is not held "
					   "(permitted set %#" PRIx64 ", needed %#" PRIx64 ")",
			       caps.permitted, keep);

	/* PR_CAPBSET_DROP needs CAP_SETPCAP; an unprivileged reader started with file
	 * capabilities has none, and with no_new_privs its bounding set grants nothing
	 * anyway.  That case is reported as bounding_set_dropped=false. */
	p->bounding_set_dropped = false;
	if (hk_caps_has(caps.effective, CAP_SETPCAP)) {
		r = hk_caps_bounding_keep_only(keep, err);
		if (r < 0)
			return r;
		p->bounding_set_dropped = true;
	}
	if ((r = hk_caps_clear_ambient()) < 0)
		return hk_fail_errno(err, -r, "clearing the ambient capabilities");

	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (uid == 0) {
		/* Back to the invoking user when started setuid, otherwise "nobody". */
		uid = getuid() != 0 ? getuid() : UNPRIVILEGED_ID;
		gid = getgid() != 0 ? getgid() : UNPRIVILEGED_ID;
		if ((r = hk_caps_keep_on_setuid(true)) < 0)
			return hk_fail_errno(err, -r, "prctl(PR_SET_KEEPCAPS)");
		if (setgroups(0, NULL) != 0)
			return hk_fail_errno(err, errno, "clearing the supplementary groups");
		if (setresgid(gid, gid, gid) != 0)
			return hk_fail_errno(err, errno, "switching to gid %u", (unsigned)gid);
		if (setresuid(uid, uid, uid) != 0)
			return hk_fail_errno(err, errno, "switching to uid %u", (unsigned)uid);
		if ((r = hk_caps_keep_on_setuid(false)) < 0)
			return hk_fail_errno(err, -r, "prctl(PR_SET_KEEPCAPS, 0)");
	}
	r = hk_caps_set(&(struct hk_caps){ keep, keep, 0 });
	if (r < 0)
		return hk_fail_errno(err, -r, "capset to keep only %#" PRIx64, keep);
	if ((r = hk_no_new_privs_set()) < 0)
		return hk_fail_errno(err, -r, "prctl(PR_SET_NO_NEW_PRIVS)");

	/* Verify. */
	r = hk_caps_get(&caps);
	if (r < 0)
		return hk_fail_errno(err, -r, "capget after the drop");
	if (caps.effective != keep || caps.permitted != keep || caps.inheritable != 0)
		return hk_fail(err, EPERM, "capabilities after the drop are effective %#" PRIx64
					   ", permitted %#" PRIx64 ", inheritable %#" PRIx64
					   "; expected %#" PRIx64 " only",
			       caps.effective, caps.permitted, caps.inheritable, keep);
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0)
		return hk_fail_errno(err, errno, "getresuid after the drop");
	if (ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid)
		return hk_fail(err, EPERM, "user or group ids after the drop are not %u:%u",
			       (unsigned)uid, (unsigned)gid);
	if (uid != 0 && setresuid(0, 0, 0) == 0)
		return hk_fail(err, EPERM, "uid 0 could be regained after the drop");
	if (hk_no_new_privs_get() != 1)
		return hk_fail(err, EPERM, "no_new_privs is not set after the drop");

	p->uid = uid;
	p->gid = gid;
	p->caps = keep;
	p->no_new_privs = true;
	return 0;
}

