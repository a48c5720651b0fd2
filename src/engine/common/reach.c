#include "engine/common/reach.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "sys/reach.h"

void hk_reach_add(struct hk_reach_list *l, const char *path, const char *what, int mode,
		  const char *hint)
{
	if (!path)
		return;
	l->v = hk_xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct hk_reach_item){path, what, mode, hint};
}

void hk_reach_add_bind(struct hk_reach_list *l, const char *path, const char *dest, int mode,
		       const char *hint)
{
	char *what = hk_xasprintf("bound at %s in the sandbox", dest);
	hk_strv_push_owned(&l->owned, what);
	hk_reach_add(l, path, what, mode, hint);
}

void hk_reach_list_free(struct hk_reach_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
	hk_strv_free(&l->owned);
}

/* Whether `path` is `dir` or lies beneath it. */
static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

static char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	return pw ? hk_xstrdup(pw->pw_name) : hk_xasprintf("%u", (unsigned)uid);
}

static char *group_name(gid_t gid)
{
	struct group *gr = getgrgid(gid);
	return gr ? hk_xstrdup(gr->gr_name) : hk_xasprintf("%u", (unsigned)gid);
}

/* "rx" for R_OK|X_OK. */
static void mode_letters(int mode, char out[4])
{
	size_t k = 0;
	if (mode & R_OK)
		out[k++] = 'r';
	if (mode & W_OK)
		out[k++] = 'w';
	if (mode & X_OK)
		out[k++] = 'x';
	out[k] = '\0';
}

int hk_reach_check(const char *role, const char *user, uid_t uid, gid_t gid,
		   const char *store_dir, const struct hk_reach_list *l, struct hk_error *err)
{
	if (l->n == 0)
		return 0;
	struct hk_reach_need *needs = hk_xcalloc(l->n, sizeof(*needs));
	for (size_t i = 0; i < l->n; i++)
		needs[i] = (struct hk_reach_need){l->v[i].path, l->v[i].mode};
	struct hk_reach_block b;
	int rc = hk_sys_reach_as(uid, gid, needs, l->n, &b, err);
	free(needs);
	if (rc <= 0)
		return rc;

	const struct hk_reach_item *it = &l->v[b.index];
	bool named = user && *user && user[strspn(user, "0123456789")] != '\0';
	hk_autofree char *who = named ? hk_xstrdup(user) : user_name(uid);
	hk_autofree char *owner = user_name(b.st_uid);
	hk_autofree char *group = group_name(b.st_gid);
	/* The class of the mode that applies to the user (the sandbox keeps no supplementary
	 * group, so only its own gid counts). */
	char cls = b.st_uid == uid ? 'u' : b.st_gid == gid ? 'g' : 'o';
	int shift = cls == 'u' ? 6 : cls == 'g' ? 3 : 0;
	int has = ((int)b.st_mode >> shift) & 7; /* r=4 w=2 x=1, as R_OK W_OK X_OK */
	char letters[4];
	mode_letters(b.mode, letters);
	const char *hint = it->hint;
	if (store_dir && (within(b.dir, store_dir) || within(store_dir, b.dir)))
		hint = "or choose another --store";
	if ((has & b.mode) == b.mode) {
		/* The mode bits allow it, the kernel still refuses: an ACL or a security module
		 * decides, and chmod would change nothing. */
		hk_fail(err, EACCES,
			"%s %s cannot reach %s (%s): %s is mode %04o owned by "
			"%s:%s, which allows it, yet the kernel refuses it (an ACL or a "
			"security module: see 'getfacl %s')%s%s",
			role, who, it->path, it->what, b.dir, (unsigned)(b.st_mode & 07777), owner,
			group, b.dir, hint ? "; " : "", hint ? hint : "");
		return 1;
	}
	hk_fail(err, EACCES,
		"%s %s cannot reach %s (%s): %s is mode %04o owned by %s:%s; "
		"run 'chmod %c+%s %s'%s%s",
		role, who, it->path, it->what, b.dir, (unsigned)(b.st_mode & 07777), owner, group,
		cls, letters, b.dir, hint ? ", " : "", hint ? hint : "");
	return 1;
}

int hk_reach_check_build(const char *user, uid_t uid, gid_t gid, const char *store_dir,
			 const char *base_root, const char *exec_path, const char *dpkg_db,
			 const char *work_parent, struct hk_error *err)
{
	struct hk_reach_list l = HK_REACH_LIST_INIT;
	hk_reach_add(&l, store_dir, "the store", X_OK, NULL);
	hk_reach_add(&l, base_root, "the base", X_OK,
		     "or build on a base the build user can reach");
	hk_reach_add(&l, exec_path, "harkaq-exec", X_OK, HK_REACH_HINT_EXEC);
	hk_reach_add(&l, dpkg_db, "the package database", R_OK | X_OK, NULL);
	hk_reach_add(&l, work_parent, "where work directories are made", X_OK, NULL);
	int rc = hk_reach_check("the build user", user, uid, gid, store_dir, &l, err);
	hk_reach_list_free(&l);
	return rc;
}
