/* The mount interfaces of the merged view (engine/cage/sandbox.h): harkaq build's own mount namespace,
 * made private, and a read-only overlayfs per top-level directory.  Each returns 0 or -errno
 * (with a sentence in *err where one is taken). */
#ifndef HK_SYS_MOUNTNS_H
#define HK_SYS_MOUNTNS_H

#include "core/basic/error.h"

/* unshare(CLONE_NEWNS): a mount namespace of the caller's own. */
HK_MUST_CHECK int hk_sys_unshare_mounts(struct hk_error *err);
/* Makes every mount of the namespace private (MS_REC | MS_PRIVATE on /), so nothing mounted
 * afterwards propagates to the host's namespace. */
HK_MUST_CHECK int hk_sys_mounts_private(struct hk_error *err);
/* mount("overlay", target, "overlay", MS_RDONLY, options).  Layer paths in `options` are
 * resolved relative to the current directory.  -errno, errno kept. */
HK_MUST_CHECK int hk_sys_mount_overlay_ro(const char *target, const char *options);
/* The same, writable: `options` name an upperdir and a workdir (a Debian build's dpkg state is
 * made by installing its closure over the base, engine/debian/debstate.h). */
HK_MUST_CHECK int hk_sys_mount_overlay_rw(const char *target, const char *options);
/* Unmounts `target`, lazily (MNT_DETACH) when it is still busy. */
void hk_sys_unmount(const char *target);

#endif
