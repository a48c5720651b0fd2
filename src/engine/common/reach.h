/* Whether the build user can reach what its sandbox binds (docs/store.md, "What a build needs
 * of the machine").
 *
 * bubblewrap runs as the build user: a store kept under a directory of mode 0700 (as
 * `mktemp -d` makes it) would fail every build inside bubblewrap, after the build began.  The
 * engine asks first, with the user's own credentials (sys/reach.h), and stops before anything
 * is made with one sentence: which directory stops which user, its mode and owner, and what
 * to do. */
#ifndef HK_ENGINE_REACH_H
#define HK_ENGINE_REACH_H

#include <stddef.h>
#include <sys/types.h>

#include "core/basic/error.h"
#include "core/basic/strv.h"

/* One path the build user must reach.  The strings are borrowed. */
struct hk_reach_item {
	const char *path;   /* absolute host path */
	const char *what;   /* what it is, for the message: "the store", "bound at /usr …" */
	int mode;           /* what the path itself needs: R_OK, X_OK (0: only reached) */
	const char *hint;   /* the other way out, after "run 'chmod …'": "or choose another
			     * --store"; NULL: none */
};

struct hk_reach_list {
	struct hk_reach_item *v;
	size_t n;
	struct hk_strv owned;   /* the strings the list made itself (hk_reach_add_bind) */
};
#define HK_REACH_LIST_INIT { NULL, 0, HK_STRV_INIT }

/* Appends an item (path NULL: nothing is added).  The strings are borrowed. */
void hk_reach_add(struct hk_reach_list *l, const char *path, const char *what, int mode,
		  const char *hint);
/* Appends a host path bound at `dest` in the sandbox ("bound at DEST in the sandbox"); `path`
 * and `hint` are borrowed. */
void hk_reach_add_bind(struct hk_reach_list *l, const char *path, const char *dest, int mode,
		       const char *hint);
void hk_reach_list_free(struct hk_reach_list *l);

/* Checks that uid/gid reaches every item.  `role` and `user` name the user in the message
 * ("the build user" "nobody"; a user given as a number, or NULL: its name from the password
 * database); `store_dir`,
 * when not NULL, is the store: a directory that stops the user on the way to it, or inside it,
 * advises "or choose another --store".  Returns 0 when the user reaches them all; 1 when a
 * directory stops it (err holds the sentence, code EACCES); -errno when the check itself could
 * not be made. */
HK_MUST_CHECK int hk_reach_check(const char *role, const char *user, uid_t uid, gid_t gid,
		   const char *store_dir, const struct hk_reach_list *l, struct hk_error *err);

/* What the build user must reach before a build makes anything: the store, the base root,
 * harkaq-exec (NULL: --no-cage), a Debian build's package database (NULL: none) and the
 * directory where the work directory will be made.  Same returns as hk_reach_check.  The bind
 * sources themselves are checked once the sandbox is planned (hk_sandbox_argv_binds). */
HK_MUST_CHECK int hk_reach_check_build(const char *user, uid_t uid, gid_t gid, const char *store_dir,
			 const char *base_root, const char *exec_path, const char *dpkg_db,
			 const char *work_parent, struct hk_error *err);

/* The other way out when harkaq-exec is out of the build user's reach. */
#define HK_REACH_HINT_EXEC "or install harkaq where the build user can reach it " \
			   "(HARKAQ_LIBEXEC names the directory of harkaq-exec)"

#endif
