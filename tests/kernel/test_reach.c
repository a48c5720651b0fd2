/* hk_sys_reach_as (sys/reach.h) against the real kernel: what the build user (nobody) reaches,
 * asked with its own credentials.  Runs as root, in directories made here under /tmp; every
 * refusal has its control, the same path reached once the mode allows it (or by root). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "../unit/harness.h"
#include "sys/reach.h"

static uid_t nobody_uid = 65534;
static gid_t nobody_gid = 65534;

static void find_nobody(void)
{
	struct passwd *pw = getpwnam("nobody");
	if (pw) {
		nobody_uid = pw->pw_uid;
		nobody_gid = pw->pw_gid;
	}
}

/* A root-owned scratch directory of `mode`, under /tmp (world-searchable). */
static char *scratch(mode_t mode)
{
	char tmpl[] = "/tmp/hk-reach.XXXXXX";
	REQUIRE(mkdtemp(tmpl) != NULL);
	REQUIRE(chmod(tmpl, mode) == 0);
	return hk_xstrdup(tmpl);
}

static int reach1(uid_t uid, gid_t gid, const char *path, int mode, struct hk_reach_block *b)
{
	struct hk_error err = { 0 };
	struct hk_reach_need need = { path, mode };
	int rc = hk_sys_reach_as(uid, gid, &need, 1, b, &err);
	if (rc < 0)
		fprintf(stderr, "#   %s\n", err.msg);
	return rc;
}

TEST(a_0700_directory_on_the_way_stops_nobody_and_is_named_with_its_mode)
{
	find_nobody();
	REQUIRE(geteuid() == 0);
	hk_autofree char *d = scratch(0700);
	hk_autofree char *store = hk_xasprintf("%s/store", d);
	REQUIRE(mkdir(store, 0755) == 0);
	struct hk_reach_block b;
	memset(&b, 0, sizeof(b));
	CHECK_EQ_INT(1, reach1(nobody_uid, nobody_gid, store, X_OK, &b));
	CHECK_STR_EQ(d, b.dir);
	CHECK_EQ_INT(X_OK, b.mode);
	CHECK_EQ_INT(0700, b.st_mode & 07777);
	CHECK_EQ_INT(0, b.st_uid);
	/* Controls: root reaches it as it is; nobody once the directory is searchable. */
	CHECK_EQ_INT(0, reach1(0, 0, store, X_OK, &b));
	REQUIRE(chmod(d, 0711) == 0);
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, store, X_OK, &b));
	rmdir(store);
	rmdir(d);
}

TEST(the_path_itself_needs_its_mode_a_file_read_a_directory_searched)
{
	find_nobody();
	REQUIRE(geteuid() == 0);
	hk_autofree char *d = scratch(0755);
	hk_autofree char *f = hk_xasprintf("%s/policy", d);
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(chmod(f, 0600) == 0);
	struct hk_reach_block b;
	memset(&b, 0, sizeof(b));
	CHECK_EQ_INT(1, reach1(nobody_uid, nobody_gid, f, R_OK, &b));
	CHECK_STR_EQ(f, b.dir);
	CHECK_EQ_INT(R_OK, b.mode);
	/* Only reaching it (mode 0) asks nothing of the file itself. */
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, f, 0, &b));
	REQUIRE(chmod(f, 0644) == 0);
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, f, R_OK, &b));
	/* A directory of mode 0750 (root's group) to be entered: refused, then allowed.  The
	 * checking process is given root's group as a supplementary group first: refused only
	 * because the child drops them, as the sandbox does. */
	gid_t root_group[] = { 0 };
	REQUIRE(setgroups(1, root_group) == 0);
	hk_autofree char *sub = hk_xasprintf("%s/sub", d);
	REQUIRE(mkdir(sub, 0750) == 0);
	REQUIRE(chmod(sub, 0750) == 0);
	CHECK_EQ_INT(1, reach1(nobody_uid, nobody_gid, sub, X_OK, &b));
	CHECK_STR_EQ(sub, b.dir);
	REQUIRE(chmod(sub, 0751) == 0);
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, sub, X_OK, &b));
	unlink(f);
	rmdir(sub);
	rmdir(d);
}

TEST(the_users_own_group_counts_and_a_group_it_is_not_in_does_not)
{
	find_nobody();
	REQUIRE(geteuid() == 0);
	/* 0750 owned by root and nobody's own group: nobody enters it through its gid. */
	hk_autofree char *d = scratch(0750);
	REQUIRE(chown(d, 0, nobody_gid) == 0);
	REQUIRE(chmod(d, 0750) == 0);
	hk_autofree char *in = hk_xasprintf("%s/in", d);
	REQUIRE(mkdir(in, 0755) == 0);
	struct hk_reach_block b;
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, in, X_OK, &b));
	/* The same uid with root's group as its own: stopped. */
	memset(&b, 0, sizeof(b));
	CHECK_EQ_INT(1, reach1(nobody_uid, 0, in, X_OK, &b));
	CHECK_STR_EQ(d, b.dir);
	rmdir(in);
	rmdir(d);
}

TEST(a_link_on_the_way_is_followed_and_the_directory_of_its_target_is_named)
{
	find_nobody();
	REQUIRE(geteuid() == 0);
	hk_autofree char *open_dir = scratch(0755);
	hk_autofree char *closed = scratch(0700);
	hk_autofree char *target = hk_xasprintf("%s/tree", closed);
	REQUIRE(mkdir(target, 0755) == 0);
	hk_autofree char *link = hk_xasprintf("%s/link", open_dir);
	REQUIRE(symlink(target, link) == 0);
	/* A relative link too, through "..": resolved from the link's own directory. */
	hk_autofree char *rel = hk_xasprintf("%s/rel", open_dir);
	hk_autofree char *rel_target = hk_xasprintf("..%s/tree", closed + strlen("/tmp"));
	REQUIRE(symlink(rel_target, rel) == 0);
	hk_autofree char *via = hk_xasprintf("%s/link/usr", open_dir);
	hk_autofree char *via_rel = hk_xasprintf("%s/rel", open_dir);
	struct hk_reach_block b;
	memset(&b, 0, sizeof(b));
	CHECK_EQ_INT(1, reach1(nobody_uid, nobody_gid, via, X_OK, &b));
	CHECK_STR_EQ(closed, b.dir);
	memset(&b, 0, sizeof(b));
	CHECK_EQ_INT(1, reach1(nobody_uid, nobody_gid, via_rel, X_OK, &b));
	CHECK_CONTAINS(b.dir, closed + strlen("/tmp"));
	CHECK_EQ_INT(0700, b.st_mode & 07777);
	/* Control: the target's directory opened, both reach (usr/ is missing: the walk ends
	 * there without a finding). */
	REQUIRE(chmod(closed, 0711) == 0);
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, via, X_OK, &b));
	CHECK_EQ_INT(0, reach1(nobody_uid, nobody_gid, via_rel, X_OK, &b));
	unlink(link);
	unlink(rel);
	rmdir(target);
	rmdir(closed);
	rmdir(open_dir);
}

TEST(the_first_need_that_is_stopped_is_the_one_reported)
{
	find_nobody();
	REQUIRE(geteuid() == 0);
	hk_autofree char *ok_dir = scratch(0755);
	hk_autofree char *closed = scratch(0700);
	hk_autofree char *missing = hk_xasprintf("%s/not/yet/made", ok_dir);
	hk_autofree char *under = hk_xasprintf("%s/x", closed);
	struct hk_reach_need needs[] = { { ok_dir, X_OK }, { missing, X_OK }, { under, X_OK } };
	struct hk_reach_block b;
	memset(&b, 0, sizeof(b));
	struct hk_error err = { 0 };
	CHECK_EQ_INT(1, hk_sys_reach_as(nobody_uid, nobody_gid, needs, 3, &b, &err));
	CHECK_EQ_INT(2, b.index);
	CHECK_STR_EQ(closed, b.dir);
	/* Control: without the closed one, a missing path is no finding. */
	CHECK_EQ_INT(0, hk_sys_reach_as(nobody_uid, nobody_gid, needs, 2, &b, &err));
	rmdir(closed);
	rmdir(ok_dir);
}
