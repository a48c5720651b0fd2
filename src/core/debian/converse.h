/* The converse of a missing Build-Depends: was a declared package used, by the opens a build
 * made (docs/debian-builds.md, "The report").
 *
 * A declared package can be used without a file of its own being opened: a transitional or
 * meta package ships nothing the build reads, and the package it pulls in does the work
 * (bookworm's pkg-config depends on pkgconf, whose dependency pkgconf-bin ships the program
 * /usr/bin/pkg-config leads to). Dropping it breaks the build all the same. So a declared
 * package is "none opened" only when nothing was opened through it: neither a file of its own
 * nor a file of a package of its dependency closure within the build's packages (Depends and
 * Pre-Depends, every alternative, a virtual name through the packages that provide it).
 *
 * The closure is taken within the packages the caller gives, which for a Debian build are the
 * ones apt added to the base for this build: everything on the base (libc6, perl) is opened by
 * any build and would make every declared package look used.
 *
 * Pure: a table of packages and a set of opened paths in, a decision out. */
#ifndef HK_CORE_CONVERSE_H
#define HK_CORE_CONVERSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/store/store.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"

/* One package as the converse sees it.  Borrowed pointers: the table owns nothing. */
struct hk_conv_pkg {
	const char *name;
	/* The paths of the files it ships, as the build sees them ("/usr/bin/pkgconf"); NULL
	 * when not loaded, which hk_conv_use() reads as "ships nothing". */
	const struct hk_strset *files;
	const struct hk_dep_group *deps;    /* Depends and Pre-Depends */
	size_t n_deps;
	const char *const *provides;
	size_t n_provides;
};

enum hk_conv_use {
	HK_CONV_OPENED = 0,     /* a file of a root was opened */
	HK_CONV_THROUGH,        /* none of the roots', but one of their dependency closure's */
	HK_CONV_NONE,           /* nothing was opened through the roots */
};

/* The dependency closure of pkgs[roots[0..n_roots)] within `pkgs`, roots excluded, nearest
 * first (breadth-first, each dependency group in order, every alternative of a group, and
 * for a name no package has, the packages that provide it).  Writes indices into `order`
 * (room for n entries) and returns how many. */
size_t hk_conv_reach(const struct hk_conv_pkg *pkgs, size_t n, const size_t *roots,
		     size_t n_roots, size_t *order);

/* Whether the declared packages pkgs[roots[…]] were used, from the opened paths.  For
 * HK_CONV_THROUGH, appends to `through` the names of the packages of their dependency closure
 * a file of which was opened, nearest first, and to `paths` (unless NULL) the first such file
 * of each, in the package's file order: the evidence a maintainer judges the use by (pkg.m4
 * read is a need of pkgconf; a Perl module a tool tried is not).  The files of every root and
 * of every package hk_conv_reach() names must be loaded. */
enum hk_conv_use hk_conv_use(const struct hk_conv_pkg *pkgs, size_t n, const size_t *roots,
			     size_t n_roots, const struct hk_strset *opened,
			     struct hk_strv *through, struct hk_strv *paths);

#endif
