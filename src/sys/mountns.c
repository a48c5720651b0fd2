#include "sys/mountns.h"

#include <errno.h>
#include <sched.h>
#include <sys/mount.h>

int hk_sys_unshare_mounts(struct hk_error *err)
{
	if (unshare(CLONE_NEWNS) < 0)
		return hk_fail_errno(err, errno, "unshare(CLONE_NEWNS) for the merged view");
	return 0;
}

int hk_sys_mounts_private(struct hk_error *err)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return hk_fail_errno(err, errno, "making the mount namespace private");
	return 0;
}

int hk_sys_mount_overlay_ro(const char *target, const char *options)
{
	return mount("overlay", target, "overlay", MS_RDONLY, options) < 0 ? -errno : 0;
}

int hk_sys_mount_overlay_rw(const char *target, const char *options)
{
	return mount("overlay", target, "overlay", 0, options) < 0 ? -errno : 0;
}

void hk_sys_unmount(const char *target)
{
	if (umount2(target, 0) < 0 && errno == EBUSY)
		umount2(target, MNT_DETACH);
}
