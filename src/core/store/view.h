/* The store view: what a build can SEE beyond its declared closure (docs/bases.md, "Wide
 * visibility, narrow grants").
 *
 * A pinned base alone would make harkaq a clean chroot: an undeclared header would simply be
 * absent, the build would fail or configure itself without it, and no denial would say why.
 * So every build sees, read-only, the pinned base AND every artifact of the store; the policy
 * still grants only the declared closure.  Using what was not declared is then a denial with
 * a name, which the store's path index turns into "declare dep: …".
 *
 * The view is one merged tree per store snapshot, kept in STORE/.views/<hex>/: every
 * non-base artifact's directories made anew and its files HARD-LINKED (no bytes copied; the
 * same inodes as the store's), in a documented order — when two artifacts ship one path, the
 * first wins:
 *
 *     Debian packages (.deb imports), then trees added by hand, then local build outputs;
 *     within each, by name, then version, then id (byte order).
 *
 * In the sandbox the view is the LOWEST layer of every merged system directory: the declared
 * deps come first (highest first), then the pinned base, then the view.  So the view only
 * adds paths nobody declared and the base does not ship; it never replaces a declared file or
 * a base file.
 *
 * Symlinks.  Reading a symlink is not a Landlock access, and the kernel reports the target:
 * an undeclared -dev package's `libz.so -> libz.so.1.2.13` pointing at a DECLARED zlib1g would
 * link silently.  So in the view every symlink whose target is not a directory is replaced by
 * a link to a trap, /.harkaq/links/<artifact dirname>/<its path>: an empty file the policy never
 * grants.  Following the link is then a denial whose path names the artifact and the link
 * (hk_view_trap_parse), diagnosed as "declare dep: zlib1g-dev".  A declared dep's own links
 * lie in a higher layer and are untouched.  Links to directories are kept as they are (a trap
 * file cannot stand for a directory): a stated blind spot.  Without the cage (`--no-cage`), the
 * sandbox binds `links-plain/` at the same place instead: there each trap is a symlink to the
 * original target, so the build behaves as with the original link.
 *
 * Links maintainer scripts made.  No package ships /usr/bin/yacc: bison's postinst makes it
 * with update-alternatives.  The dpkg states of Debian builds (origin "state", engine/debian/debstate.h)
 * record such links; the view shows each one its merged tree lacks, as a trap attributed to
 * the artifact that ships the file its chain ends at, so running `yacc` without bison is a
 * denial naming bison.  States are not merged otherwise; their ids are part of the snapshot.
 *
 * A Debian build's sealed outputs (SOURCE_debs, .deb files at the top of their tree: no path a
 * build reads) are left out, so sealing one package does not make the next build's view anew.
 *
 * The snapshot id is BLAKE3 over "harkaq-view 4\n", the ids of the artifacts merged, in
 * merge order, one per line, then "state <id>" for each dpkg state by id: the same store
 * content gives the same view on any machine, and the evidence names it.
 *
 * A build holds a shared lock on STORE/.views/<hex>.lock while the view is mounted; making a
 * new view removes the older ones nobody holds. */
#ifndef HK_VIEW_H
#define HK_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"
#include "core/store/store.h"
#include "core/store/view_trap.h"

struct hk_view {
	char id[HK_B3_ID_LEN];    /* the snapshot id */
	char *path;               /* STORE/.views/<hex>: the merged tree (usr/, etc/, …) */
	char *links;              /* STORE/.views/<hex>.links: the trap files (caged builds) */
	char *links_plain;        /* STORE/.views/<hex>.links-plain: the original links */
	size_t n_artifacts;       /* artifacts merged */
	size_t n_files;           /* files linked */
	size_t n_traps;           /* symlinks replaced by traps */
	bool made;                /* this call made the view (false: it was there) */
	int lock_fd;              /* the shared lock, held until hk_view_release */
};

/* Makes (or finds) the view of the store's current snapshot and takes its shared lock.
 * `base_root` is the pinned base's tree (or "/" for the host): a link whose target is a
 * directory there is kept.  `merged(path)` says which sandbox paths are merged system
 * directories (hk_sandbox_merges_path): nothing else enters the view.  The store must not be
 * modified by this process while the view is used. */
HK_MUST_CHECK int hk_view_ensure(struct hk_store *s, const char *base_root, bool (*merged)(const char *path),
		   struct hk_view *out, struct hk_error *err);
/* The same view without the artifacts named in `hide` (nor the maintainer-made links that lead
 * to them): the store as it would be without those packages, for a build that checks whether a
 * package it was denied was needed or only a probe the view made fatal (docs/debian-builds.md,
 * "--confirm").  Its id is that of what it merges, so it is a view of its own. */
HK_MUST_CHECK int hk_view_ensure_hiding(struct hk_store *s, const char *base_root,
			  bool (*merged)(const char *path), const char *const *hide, size_t n_hide,
			  struct hk_view *out, struct hk_error *err);

/* Releases the lock and frees the strings (the view stays on disk for later builds). */
void hk_view_release(struct hk_view *v);

#endif
