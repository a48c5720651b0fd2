/* ld.so.conf inside a root, read with ldconfig's rules (docs/base-runtime.md, "The glibc
 * loader's search"): '#' starts a comment; "include PATTERN…" reads every file a glob pattern
 * matches, in glob order (a relative pattern is relative to the including file's directory);
 * "hwcap" lines are obsolete and ignored; any other line is one directory.  A missing file
 * is not an error, for ldconfig neither. */
#ifndef HK_LDCONF_H
#define HK_LDCONF_H

#include "core/basic/error.h"
#include "core/root/rootpath.h"
#include "core/basic/strset.h"

/* What a reader wants of a configuration. */
struct hk_ldconf {
	/* The search directories, in file order (absolute ones only: ldconfig ignores relative
	 * ones with a warning), or NULL. */
	struct hk_strset *dirs;
	/* Called with each file an "include" brings in (as the include named it, once resolved to
	 * a regular file), before it is read; a negative return stops the reading.  NULL: none. */
	int (*included)(void *ctx, const char *path);
	void *ctx;
};

/* Reads the configuration file `file` inside `root` and, depth first, what it includes.
 * Includes nested deeper than 16 are -ELOOP (ldconfig has no bound; a loop must not hang). */
HK_MUST_CHECK int hk_ldconf_read(const struct hk_root *root, const char *file, const struct hk_ldconf *conf,
		   struct hk_error *err);

#endif
