/* A Debian root's own package database, read from its files (ROOT/var/lib/dpkg): what a pinned
 * base is made of, and which package ships each of its paths (docs/bases.md).
 *
 * Nothing here runs dpkg: the root may belong to another release or architecture than the
 * host, and its database is plain text (deb822 status, one `.list` file per package).
 *
 * Paths are CANONICAL sandbox paths, as the kernel reports them in a denial.  dpkg lists what
 * the package archive names (/bin/ls, /lib/x86_64-linux-gnu/libc.so.6), but Debian 12 is
 * merged-/usr, so each listed path's directory is resolved inside the root (/bin → /usr/bin);
 * the last component is kept as listed (a symlink is owned by the package that ships the
 * link; the kernel reports its target, whose own owner is listed under the target's path).
 *
 * Ownership: every string of the structures below belongs to them; the *_free functions
 * release everything. */
#ifndef HK_DEBROOT_H
#define HK_DEBROOT_H

#include <stddef.h>
#include <sys/types.h>

#include "core/basic/error.h"
#include "core/basic/strset.h"

struct hk_deb_pkg {
	char *name;
	char *version;
	char *arch;       /* "amd64", "all", … */
};

struct hk_deb_pkglist {
	struct hk_deb_pkg *items;   /* sorted by name, then arch */
	size_t n;
};

/* Every package of ROOT/var/lib/dpkg/status whose status is "install ok installed".  A root
 * without a dpkg database is -ENOENT naming the status file. */
HK_MUST_CHECK int hk_debroot_packages(const char *root, struct hk_deb_pkglist *out, struct hk_error *err);
void hk_deb_pkglist_free(struct hk_deb_pkglist *l);

struct hk_deb_owner {
	char *path;       /* canonical sandbox path */
	mode_t mode;      /* its type in the root (lstat) */
	char *packages;   /* "libc-bin", or "a, b" when several packages list the path (a
			   * directory, or a file diverted from one package to another) */
};

struct hk_debroot_owners {
	struct hk_deb_owner *items;   /* sorted by path, one item per path */
	size_t n;
};

/* Reads every ROOT/var/lib/dpkg/info/PACKAGE[:ARCH].list.  Listed paths that do not exist in
 * the root (a conffile removed, a path of another architecture) are left out. */
HK_MUST_CHECK int hk_debroot_owners_load(const char *root, struct hk_debroot_owners *out, struct hk_error *err);
/* Packages of ROOT's database reached from `names` (package or virtual names) through
 * Depends and Pre-Depends, transitively, every installed alternative followed (an installed
 * package is there to be used: which alternative a program picks is its own business).
 * Names no installed package is or provides are skipped.  `out` receives package names. */
HK_MUST_CHECK int hk_debroot_closure(const char *root, const char *const *names, size_t n,
		       struct hk_strset *out, struct hk_error *err);

/* What the packages `pkgs` ship in ROOT, as grants would name it: every regular file, and
 * every symlink whose target (resolved inside the root) is one of those files, canonical
 * sandbox paths.  A link leading out of the set is left out: a rule through it would land on
 * a file no declared package ships. */
HK_MUST_CHECK int hk_debroot_package_files(const char *root, const struct hk_strset *pkgs,
			     struct hk_strset *out, struct hk_error *err);

/* The package(s) that ship `path` (canonical), or NULL. */
const char *hk_debroot_owner(const struct hk_debroot_owners *o, const char *path);
void hk_debroot_owners_free(struct hk_debroot_owners *o);

#endif
