/* The store view's names, as values: where its traps appear in the sandbox, what a denied trap
 * path names, and which sandbox paths the view leaves out (core/store/view.h says why each exists).
 * Pure: the diagnosis reads a denial with these without the view on disk. */
#ifndef HK_VIEW_TRAP_H
#define HK_VIEW_TRAP_H

#include <stdbool.h>

/* Where the trap files appear inside the sandbox. */
#define HK_VIEW_TRAP_DIR "/.harkaq/links"

/* Whether the view leaves out the sandbox path `path` although an artifact ships it: what lies
 * where tools read every entry, failing on the first they cannot open (/usr/share/aclocal/,
 * /etc/ld.so.conf.d/, Python's installed metadata: the list is in view_trap.c).  A visible and
 * denied file there would break the build of a package that never needed it; absent, the
 * directory reads as on a machine without that package.  The cost, a stated blind spot: a
 * package needed only for what it ships there (pkg.m4) is not named by that file
 * (docs/debian-builds.md). */
bool hk_view_hides(const char *path);

/* For a denied sandbox path beneath HK_VIEW_TRAP_DIR: the artifact directory name and the
 * link's own sandbox path (both malloc'd).  False for any other path. */
bool hk_view_trap_parse(const char *path, char **artifact_dirname, char **link_path);

#endif
