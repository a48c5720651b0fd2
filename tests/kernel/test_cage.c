/* Kernel tests of the cage's layers (src/sys/landlock.c, src/sys/seccomp.c).
 *
 * Every restriction is irreversible, so each one runs in a forked child (the kernel
 * selftests' TEST_F_FORK); the child's checks decide its exit status.  Every negative result
 * has its positive control in the same test: the granted sibling that opens, the same signal
 * without the scope, the same syscall before the filter.  These run as root: DAC never
 * blocks root, so each EACCES here is Landlock's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "core/policy/policy.h"
#include "core/basic/util.h"
#include "sys/landlock.h"
#include "sys/entrypoints.h"
#include "sys/seccomp.h"

/* ---- scaffolding ---- */

static char scratch[64];

static void make_file(const char *rel, const char *content)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	close(fd);
}

static void make_dir(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	REQUIRE(mkdir(path, 0755) == 0);
}

static const char *at(const char *rel)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];
	snprintf(b, 512, "%s/%s", scratch, rel);
	return b;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void scratch_begin(void)
{
	snprintf(scratch, sizeof(scratch), "/var/tmp/harkaq-kt.XXXXXX");
	REQUIRE(mkdtemp(scratch) != NULL);
	REQUIRE(chmod(scratch, 0755) == 0);
}

static void scratch_end(void)
{
	nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs fn in a child; returns 0 when all its checks passed. */
static int in_child(void (*fn)(void *), void *arg)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		hk_test_failed_checks = 0;
		if (setjmp(hk_test_abort) == 0)
			fn(arg);
		_exit(hk_test_failed_checks ? 1 : 0);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

#define RUN_IN_CHILD(fn, arg) CHECK_EQ_INT(0, in_child((fn), (arg)))

/* 0 if path opens with flags (then closed), else errno. */
static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int read_content(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	out[n] = '\0';
	return 0;
}

/* Enters a domain built from `p` at `abi`; the report is returned for inspection. */
static void enter(struct hk_policy *p, int abi, struct hk_landlock_report *rep)
{
	struct hk_landlock_config cfg = { .abi = abi, .policy_scopes = p->scopes };
	struct hk_error err = { 0 };
	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	int rc = hk_landlock_apply(p, &cfg, rep, &err);
	if (rc < 0)
		fprintf(stderr, "#   hk_landlock_apply: %s\n", err.msg);
	REQUIRE(rc == 0);
}

static int kernel_abi(void)
{
	return hk_landlock_probe()->abi;
}

/* Builds (and closes) a ruleset from `p` at `abi`, without entering it: the report is what
 * is checked.  The build itself must succeed. */
static void build_only(const struct hk_policy *p, int abi, struct hk_landlock_report *rep)
{
	struct hk_landlock_config cfg = { .abi = abi };
	struct hk_error err = { 0 };
	int fd = hk_landlock_build(p, &cfg, rep, &err);
	if (fd < 0)
		fprintf(stderr, "#   hk_landlock_build: %s\n", err.msg);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void policy_of(struct hk_policy *p, const char *spec[][2], size_t n)
{
	*p = (struct hk_policy)HK_POLICY_INIT;
	for (size_t i = 0; i < n; i++) {
		enum hk_grant_kind k = strcmp(spec[i][0], "ro") == 0     ? HK_GRANT_RO
				       : strcmp(spec[i][0], "list") == 0 ? HK_GRANT_LIST
									 : HK_GRANT_RW;
		hk_policy_add_grant(p, k, spec[i][1]);
	}
	struct hk_error err = { 0 };
	int rc = hk_policy_finish(p, &err);
	if (rc < 0)
		fprintf(stderr, "#   hk_policy_finish: %s\n", err.msg);
	REQUIRE(rc == 0);
}

/* ---- probe and pure tables ---- */

TEST(probe_asks_the_kernel_once)
{
	long raw = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U << 0);
	long errata = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U << 1);
	const struct hk_landlock_probe *p = hk_landlock_probe();
	REQUIRE(raw >= 1); /* this project's machines have Landlock (ABI 7) */
	CHECK_EQ_INT(raw, p->abi);
	CHECK_EQ_INT(errata < 0 ? 0 : errata, p->errata);
	CHECK_EQ_INT(0, p->unavailable);
	CHECK(hk_landlock_probe() == p);
	CHECK_CONTAINS(hk_landlock_unavailable_reason(ENOSYS), "not built");
	CHECK_CONTAINS(hk_landlock_unavailable_reason(EOPNOTSUPP), "disabled at boot");
}

TEST(fs_rights_per_abi_narrow_like_the_kernel_table)
{
	const uint64_t abi1 = (1ULL << 13) - 1; /* EXECUTE .. MAKE_SYM */
	CHECK_EQ_INT(0, hk_landlock_fs_rights_for_abi(0));
	CHECK_EQ_INT(abi1, hk_landlock_fs_rights_for_abi(1));
	CHECK_EQ_INT(abi1 | HK_LL_FS_REFER, hk_landlock_fs_rights_for_abi(2));
	CHECK_EQ_INT(abi1 | HK_LL_FS_REFER | HK_LL_FS_TRUNCATE, hk_landlock_fs_rights_for_abi(3));
	CHECK_EQ_INT(hk_landlock_fs_rights_for_abi(3), hk_landlock_fs_rights_for_abi(4));
	CHECK_EQ_INT(hk_landlock_fs_rights_for_abi(3) | HK_LL_FS_IOCTL_DEV,
		     hk_landlock_fs_rights_for_abi(5));
	for (int abi = 6; abi <= 8; abi++)
		CHECK_EQ_INT(hk_landlock_fs_rights_for_abi(5), hk_landlock_fs_rights_for_abi(abi));
	CHECK_EQ_INT(HK_LL_FS_ALL, hk_landlock_fs_rights_for_abi(9));
	CHECK_EQ_INT(HK_LL_FS_ALL, hk_landlock_fs_rights_for_abi(12));
	CHECK_EQ_INT(0, hk_landlock_scopes_for_abi(5));
	CHECK_EQ_INT(3, hk_landlock_scopes_for_abi(6));
	/* The kernel accepts exactly the rights of its ABI: a ruleset handling more is refused. */
	struct { uint64_t fs, net, scoped; } attr = { hk_landlock_fs_rights_for_abi(kernel_abi()), 0, 0 };
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	attr.fs = hk_landlock_fs_rights_for_abi(kernel_abi()) | HK_LL_FS_RESOLVE_UNIX;
	if (kernel_abi() < 9) {
		fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
		CHECK_EQ_INT(-1, fd);
		CHECK_EQ_INT(EINVAL, errno);
	}
}

TEST(grant_access_masks_by_kind_and_type)
{
	const uint64_t all = hk_landlock_fs_rights_for_abi(7);
	CHECK_EQ_INT(HK_LL_FS_EXECUTE | HK_LL_FS_READ_FILE,
		     hk_landlock_grant_access(HK_GRANT_RO, false, all));
	CHECK_EQ_INT(HK_LL_FS_READ_DIR, hk_landlock_grant_access(HK_GRANT_RO, true, all));
	CHECK_EQ_INT(HK_LL_FS_READ_DIR, hk_landlock_grant_access(HK_GRANT_LIST, true, all));
	CHECK_EQ_INT(0, hk_landlock_grant_access(HK_GRANT_LIST, false, all));
	/* rw beneath a directory: everything but the device rights, which stay handled. */
	CHECK_EQ_INT(all & ~(HK_LL_FS_MAKE_CHAR | HK_LL_FS_MAKE_BLOCK | HK_LL_FS_IOCTL_DEV),
		     hk_landlock_grant_access(HK_GRANT_RW, true, all));
	CHECK_EQ_INT(HK_LL_FS_READ_FILE | HK_LL_FS_WRITE_FILE | HK_LL_FS_TRUNCATE | HK_LL_FS_IOCTL_DEV,
		     hk_landlock_grant_access(HK_GRANT_RW, false, all));
	/* Narrowed by what is handled (ABI 3 has no IOCTL_DEV). */
	CHECK_EQ_INT(HK_LL_FS_READ_FILE | HK_LL_FS_WRITE_FILE | HK_LL_FS_TRUNCATE,
		     hk_landlock_grant_access(HK_GRANT_RW, false, hk_landlock_fs_rights_for_abi(3)));
	/* Never a directory-only right on a non-directory, whatever the kind. */
	for (int k = HK_GRANT_RO; k <= HK_GRANT_RW; k++)
		CHECK_EQ_INT(0, hk_landlock_grant_access((enum hk_grant_kind)k, false, HK_LL_FS_ALL) &
					~HK_LL_FS_FILE_RIGHTS);
}

TEST(right_names_are_the_audit_blocker_names)
{
	CHECK_STR_EQ("execute", hk_landlock_fs_right_name(0));
	CHECK_STR_EQ("read_file", hk_landlock_fs_right_name(2));
	CHECK_STR_EQ("read_dir", hk_landlock_fs_right_name(3));
	CHECK_STR_EQ("refer", hk_landlock_fs_right_name(13));
	CHECK_STR_EQ("ioctl_dev", hk_landlock_fs_right_name(15));
	CHECK_STR_EQ("resolve_unix", hk_landlock_fs_right_name(16));
	CHECK(hk_landlock_fs_right_name(HK_LL_FS_NBITS) == NULL);
	CHECK_STR_EQ("abstract_unix_socket", hk_landlock_scope_name(0));
	CHECK_STR_EQ("signal", hk_landlock_scope_name(1));
	CHECK(hk_landlock_scope_name(2) == NULL);
}

/* ---- filesystem rules ---- */

static void ro_file_child(void *arg)
{
	struct hk_policy *p = arg;
	char buf[64];
	/* Control before the cage: both files open. */
	CHECK_EQ_INT(0, open_errno(at("d/granted"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("d/ungranted"), O_RDONLY));
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	CHECK_EQ_INT(1, rep.rules);
	CHECK_EQ_INT(0, read_content(at("d/granted"), buf, sizeof(buf)));
	CHECK_STR_EQ("declared\n", buf);
	CHECK_EQ_INT(EACCES, open_errno(at("d/ungranted"), O_RDONLY));
	/* ro is not write, nor truncate. */
	CHECK_EQ_INT(EACCES, open_errno(at("d/granted"), O_WRONLY));
	CHECK_EQ_INT(-1, truncate(at("d/granted"), 0));
	CHECK_EQ_INT(EACCES, errno);
	/* The parent lists (its ancestor READ_DIR), so a scan is not a denial. */
	CHECK_EQ_INT(0, open_errno(at("d"), O_RDONLY | O_DIRECTORY));
	hk_landlock_report_free(&rep);
}

TEST(ro_file_reads_while_ungranted_sibling_is_denied)
{
	scratch_begin();
	make_dir("d");
	make_file("d/granted", "declared\n");
	make_file("d/ungranted", "undeclared\n");
	struct hk_policy p;
	const char *spec[][2] = { { "ro", at("d/granted") } };
	policy_of(&p, spec, 1);
	RUN_IN_CHILD(ro_file_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

static void list_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	CHECK_EQ_INT(0, open_errno(at("lib/a.so"), O_RDONLY));
	enter(p, kernel_abi(), &rep);
	DIR *d = opendir(at("lib"));
	CHECK(d != NULL);
	int names = 0;
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			if (strcmp(e->d_name, "a.so") == 0 || strcmp(e->d_name, "b.so") == 0)
				names++;
		closedir(d);
	}
	CHECK_EQ_INT(2, names);
	CHECK_EQ_INT(EACCES, open_errno(at("lib/a.so"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("lib/b.so"), O_RDONLY));
	/* READ_DIR covers the subtree's listing, not its files. */
	CHECK_EQ_INT(0, open_errno(at("lib/sub"), O_RDONLY | O_DIRECTORY));
	CHECK_EQ_INT(EACCES, open_errno(at("lib/sub/c.so"), O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(list_directory_lists_but_its_files_do_not_open)
{
	scratch_begin();
	make_dir("lib");
	make_dir("lib/sub");
	make_file("lib/a.so", "a");
	make_file("lib/b.so", "b");
	make_file("lib/sub/c.so", "c");
	struct hk_policy p;
	const char *spec[][2] = { { "list", at("lib") } };
	policy_of(&p, spec, 1);
	RUN_IN_CHILD(list_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

static void ro_dir_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	CHECK_EQ_INT(1, rep.ro_dirs);
	CHECK_EQ_INT(0, open_errno(at("inc"), O_RDONLY | O_DIRECTORY));
	CHECK_EQ_INT(0, open_errno(at("inc/zlib.h"), O_RDONLY));     /* its own ro rule */
	CHECK_EQ_INT(EACCES, open_errno(at("inc/stdio.h"), O_RDONLY)); /* only listed */
	hk_landlock_report_free(&rep);
}

TEST(ro_on_a_directory_is_listing_only)
{
	scratch_begin();
	make_dir("inc");
	make_file("inc/zlib.h", "z");
	make_file("inc/stdio.h", "s");
	struct hk_policy p;
	const char *spec[][2] = { { "ro", at("inc") }, { "ro", at("inc/zlib.h") } };
	policy_of(&p, spec, 2);
	RUN_IN_CHILD(ro_dir_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

static void deep_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	char buf[32];
	enter(p, kernel_abi(), &rep);
	CHECK_EQ_INT(0, read_content(at("a/b/c/deep.h"), buf, sizeof(buf)));
	CHECK_STR_EQ("deep", buf);
	/* Files next to each ancestor stay closed; the ancestors themselves list. */
	CHECK_EQ_INT(EACCES, open_errno(at("a/top.h"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("a/b/mid.h"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("a/b/c/other.h"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("a/b"), O_RDONLY | O_DIRECTORY));
	CHECK_EQ_INT(0, open_errno("/", O_RDONLY | O_DIRECTORY));
	hk_landlock_report_free(&rep);
}

TEST(deep_granted_file_works_without_granting_parents_contents)
{
	scratch_begin();
	make_dir("a");
	make_dir("a/b");
	make_dir("a/b/c");
	make_file("a/top.h", "t");
	make_file("a/b/mid.h", "m");
	make_file("a/b/c/deep.h", "deep");
	make_file("a/b/c/other.h", "o");
	struct hk_policy p;
	const char *spec[][2] = { { "ro", at("a/b/c/deep.h") } };
	policy_of(&p, spec, 1);
	RUN_IN_CHILD(deep_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

static void rw_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	/* Inside the surface: create, write, rename, make a directory, delete both. */
	int fd = open(at("work/new.o"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ_INT(3, write(fd, "obj", 3));
		close(fd);
	}
	CHECK_EQ_INT(0, rename(at("work/new.o"), at("work/final.o")));
	CHECK_EQ_INT(0, mkdir(at("work/sub"), 0755));
	CHECK_EQ_INT(0, rename(at("work/final.o"), at("work/sub/final.o")));
	CHECK_EQ_INT(0, unlink(at("work/sub/final.o")));
	CHECK_EQ_INT(0, rmdir(at("work/sub")));
	CHECK_EQ_INT(0, truncate(at("work/existing"), 0));
	/* Outside: nothing. */
	CHECK_EQ_INT(EACCES, open_errno(at("outside/new"), O_WRONLY | O_CREAT));
	CHECK_EQ_INT(EACCES, open_errno(at("outside/kept"), O_RDONLY));
	CHECK_EQ_INT(-1, unlink(at("outside/kept")));
	CHECK_EQ_INT(EACCES, errno);
	CHECK_EQ_INT(-1, mkdir(at("outside/d"), 0755));
	CHECK_EQ_INT(EACCES, errno);
	/* Moving a file out of the surface is refused too (EXDEV or EACCES, never success). */
	CHECK_EQ_INT(0, open_errno(at("work/leak"), O_WRONLY | O_CREAT));
	CHECK_EQ_INT(-1, rename(at("work/leak"), at("outside/leak")));
	CHECK(errno == EACCES || errno == EXDEV);
	/* No device node beneath the surface, even as root (the test runs as root: the
	 * capability is there, only Landlock refuses); FIFOs and sockets are still made. */
	CHECK_EQ_INT(-1, mknod(at("work/kmsg"), S_IFCHR | 0600, makedev(1, 11)));
	CHECK_EQ_INT(EACCES, errno);
	CHECK_EQ_INT(-1, mknod(at("work/loop"), S_IFBLK | 0600, makedev(7, 0)));
	CHECK_EQ_INT(EACCES, errno);
	CHECK_EQ_INT(0, mknod(at("work/fifo"), S_IFIFO | 0600, 0));
	CHECK_EQ_INT(0, mknod(at("work/sock"), S_IFSOCK | 0600, 0));
	hk_landlock_report_free(&rep);
}

/* The control of the device-node checks above: uncaged, root makes both nodes there. */
static void mknod_control(void)
{
	CHECK_EQ_INT(0, mknod(at("work/kmsg"), S_IFCHR | 0600, makedev(1, 11)));
	CHECK_EQ_INT(0, mknod(at("work/loop"), S_IFBLK | 0600, makedev(7, 0)));
	CHECK_EQ_INT(0, unlink(at("work/kmsg")));
	CHECK_EQ_INT(0, unlink(at("work/loop")));
}

TEST(rw_surface_creates_writes_renames_deletes_inside_and_nothing_outside)
{
	scratch_begin();
	make_dir("work");
	make_dir("outside");
	make_file("work/existing", "x");
	make_file("outside/kept", "k");
	mknod_control();
	struct hk_policy p;
	const char *spec[][2] = { { "rw", at("work") } };
	policy_of(&p, spec, 1);
	RUN_IN_CHILD(rw_child, &p);
	struct stat st;
	CHECK_EQ_INT(0, stat(at("outside/kept"), &st));
	CHECK_EQ_INT(-1, stat(at("outside/leak"), &st));
	hk_policy_free(&p);
	scratch_end();
}

static void rw_file_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	CHECK_EQ_INT(0, open_errno("/dev/null", O_RDWR | O_TRUNC));
	CHECK_EQ_INT(0, open_errno(at("data"), O_RDWR | O_TRUNC));
	CHECK_EQ_INT(EACCES, open_errno("/dev/zero", O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(rw_on_a_file_reads_writes_and_truncates_that_file)
{
	scratch_begin();
	make_file("data", "d");
	CHECK_EQ_INT(0, open_errno("/dev/zero", O_RDONLY)); /* control */
	struct hk_policy p;
	const char *spec[][2] = { { "rw", "/dev/null" }, { "rw", at("data") } };
	policy_of(&p, spec, 2);
	RUN_IN_CHILD(rw_file_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

/* Independent count of the ancestors the cage must list: every proper prefix ending before a
 * '/', plus "/", minus granted paths; quadratic and obviously correct. */
static size_t expected_ancestors(const struct hk_policy *p)
{
	char seen[64][256];
	size_t n = 0;
	for (size_t i = 0; i < p->n_grants; i++) {
		const char *path = p->grants[i].path;
		for (size_t k = 0; path[k]; k++) {
			if (path[k] != '/' || (k == 0 && path[1] == '\0'))
				continue;
			size_t len = k == 0 ? 1 : k;
			char d[256];
			memcpy(d, path, len);
			d[len] = '\0';
			bool dup = false;
			for (size_t s = 0; s < n; s++)
				dup = dup || strcmp(seen[s], d) == 0;
			for (size_t g = 0; g < p->n_grants; g++)
				dup = dup || strcmp(p->grants[g].path, d) == 0;
			if (!dup && n < 64)
				snprintf(seen[n++], sizeof(seen[0]), "%s", d);
		}
	}
	return n;
}

TEST(ancestors_are_listed_once_each_sorted_or_not)
{
	scratch_begin();
	make_dir("u");
	make_dir("u/inc");
	make_dir("u/inc/sys");
	make_dir("u/inc-x");
	make_dir("u/lib");
	make_file("u/inc/zlib.h", "");
	make_file("u/inc/sys/types.h", "");
	make_file("u/inc-x/a.h", "");
	make_file("u/lib/libz.so", "");
	make_file("u/top", "");
	const char *spec[][2] = {
		{ "ro", at("u/inc/zlib.h") }, { "ro", at("u/inc/sys/types.h") },
		{ "ro", at("u/inc-x/a.h") },  { "ro", at("u/lib/libz.so") },
		{ "list", at("u/lib") },      { "ro", at("u/top") },
	};
	struct hk_policy sorted;
	policy_of(&sorted, spec, HK_ARRAY_LEN(spec));
	/* The same grants, in the reverse order and never finished: the cage sorts itself. */
	struct hk_policy reversed = HK_POLICY_INIT;
	for (size_t i = sorted.n_grants; i-- > 0;)
		hk_policy_add_grant(&reversed, sorted.grants[i].kind, sorted.grants[i].path);

	size_t want = expected_ancestors(&sorted);
	CHECK(want >= 6); /* "/", /var, /var/tmp, scratch, u, u/inc, u/inc/sys, u/inc-x */
	struct hk_policy *both[] = { &sorted, &reversed };
	for (size_t b = 0; b < 2; b++) {
		struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
		build_only(both[b], kernel_abi(), &rep);
		CHECK_EQ_INT(want, rep.ancestors);
		CHECK_EQ_INT(6, rep.rules);
		hk_landlock_report_free(&rep);
	}
	/* With READ_DIR beneath "/" (every derived policy's `list /`), the ancestors are listed
	 * already: no rule of their own, and the grants' rules unchanged (plus "/"). */
	hk_policy_add_grant(&reversed, HK_GRANT_LIST, "/");
	{
		struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
		build_only(&reversed, kernel_abi(), &rep);
		CHECK_EQ_INT(0, rep.ancestors);
		CHECK_EQ_INT(7, rep.rules);
		hk_landlock_report_free(&rep);
	}
	hk_policy_free(&sorted);
	hk_policy_free(&reversed);
	scratch_end();
}

/* Asserts that one of a report's lists (missing, not_dirs: indices of grants) names exactly
 * the grants whose paths, relative to the scratch directory, are given, in that order. */
#define CHECK_LISTED(p, idx, n, ...)                                                     \
	do {                                                                             \
		const char *const want_[] = { __VA_ARGS__ };                             \
		CHECK_EQ_INT(HK_ARRAY_LEN(want_), (n));                                  \
		for (size_t i_ = 0; i_ < (n) && i_ < HK_ARRAY_LEN(want_); i_++)          \
			CHECK_STR_EQ(at(want_[i_]), (p)->grants[(idx)[i_]].path);        \
	} while (0)

static void missing_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	CHECK_LISTED(p, rep.missing, rep.n_missing, "gone/never.h");
	CHECK_LISTED(p, rep.not_dirs, rep.n_not_dirs, "here.h");
	CHECK_EQ_INT(1, rep.rules);
	/* The rest of the policy still holds. */
	CHECK_EQ_INT(0, open_errno(at("present.h"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("here.h"), O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(missing_and_non_directory_grants_are_reported_and_the_rest_applies)
{
	scratch_begin();
	make_file("present.h", "p");
	make_file("here.h", "h");
	struct hk_policy p;
	const char *spec[][2] = {
		{ "ro", at("gone/never.h") },
		{ "ro", at("present.h") },
		{ "list", at("here.h") },
	};
	policy_of(&p, spec, 3);
	RUN_IN_CHILD(missing_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

/* Each rule's object is opened relative to its directory, kept open from the previous grant
 * (landlock.c, "parent_dir"): the object must be the one the whole path names, through a
 * symlinked directory and a symlinked last component, and a parent that is missing or a file
 * must leave its grants missing, as the whole walk would. */
static void relative_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	CHECK_EQ_INT(4, rep.rules); /* other/d.h, other/link.h (on its target), via/a.h, via/b.h */
	CHECK_LISTED(p, rep.missing, rep.n_missing, "afile/x.h", "gone/y.h");
	/* Granted through the symlinked directory: the same inodes by their real path. */
	CHECK_EQ_INT(0, open_errno(at("real/a.h"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("via/b.h"), O_RDONLY));
	/* The symlinked last component: the rule is on its target. */
	CHECK_EQ_INT(0, open_errno(at("real/target.h"), O_RDONLY));
	/* Negative controls in the same directories: not granted, denied. */
	CHECK_EQ_INT(EACCES, open_errno(at("real/undeclared.h"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("other/undeclared.h"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("other/d.h"), O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(rules_opened_relative_to_their_directory_land_on_what_the_path_names)
{
	scratch_begin();
	make_dir("real");
	make_dir("other");
	make_file("real/a.h", "a");
	make_file("real/b.h", "b");
	make_file("real/target.h", "t");
	make_file("real/undeclared.h", "u");
	make_file("other/d.h", "d");
	make_file("other/undeclared.h", "u");
	make_file("afile", "not a directory");
	REQUIRE(symlink("real", at("via")) == 0);
	REQUIRE(symlink("../real/target.h", at("other/link.h")) == 0);
	/* Positive control before the cage: every file opens. */
	CHECK_EQ_INT(0, open_errno(at("real/undeclared.h"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("other/link.h"), O_RDONLY));
	struct hk_policy p;
	const char *spec[][2] = {
		{ "ro", at("afile/x.h") },  { "ro", at("gone/y.h") },
		{ "ro", at("other/d.h") },  { "ro", at("other/link.h") },
		{ "ro", at("via/a.h") },    { "ro", at("via/b.h") },
	};
	policy_of(&p, spec, HK_ARRAY_LEN(spec));
	RUN_IN_CHILD(relative_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

/* A policy large enough to be installed by two threads (landlock.c, "installing the rules"):
 * the same rules, counts and reports, in path order, as one pass would give, with missing and
 * non-directory grants in both halves; then the domain holds in both halves. */
#define BIG_DIRS 12
#define BIG_FILES 100

struct big_case {
	struct hk_policy *policy;
	bool one_cpu; /* pinned to the CPU it runs on: one installer, the same rules */
};

static void big_child(void *arg)
{
	const struct big_case *bc = arg;
	struct hk_policy *p = bc->policy;
	int cpu = sched_getcpu();
	if (bc->one_cpu) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu < 0 ? 0 : cpu, &one);
		REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
	}
	cpu_set_t mine;
	REQUIRE(sched_getaffinity(0, sizeof(mine), &mine) == 0);
	char d0[64], d11[64];
	snprintf(d0, sizeof(d0), "d00/x");
	snprintf(d11, sizeof(d11), "d%02d/x", BIG_DIRS - 1);
	/* Controls before the cage: the ungranted files open. */
	CHECK_EQ_INT(0, open_errno(at(d0), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at(d11), O_RDONLY));
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, kernel_abi(), &rep);
	/* Two installers where this process may use two CPUs (and the check that there is a
	 * second thread is not vacuous on this machine: the pinned case says 1). */
	CHECK_EQ_INT(CPU_COUNT(&mine) >= 2 ? 2 : 1, rep.installers);
	CHECK_EQ_INT(BIG_DIRS * BIG_FILES - 2, rep.rules);
	CHECK_EQ_INT(expected_ancestors(p), rep.ancestors);
	CHECK_LISTED(p, rep.missing, rep.n_missing, "d00/f050", "d11/f050");
	/* The scratch directory is on a writable filesystem: no rule gets TRUNCATE (the
	 * read-only superblock case, and its control, are in tests/integration/cage.sh). */
	CHECK_EQ_INT(0, rep.ro_sb_truncate);
	CHECK_LISTED(p, rep.not_dirs, rep.n_not_dirs, "d01/notdir", "d10/notdir");
	CHECK_EQ_INT(0, open_errno(at("d00/f000"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("d11/f099"), O_RDONLY));
	CHECK_EQ_INT(0, open_errno(at("d06/f010"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at(d0), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at(d11), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("d10/notdir"), O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(a_large_policy_installed_by_two_threads_or_pinned_by_one_gives_the_rules_of_one_pass)
{
	scratch_begin();
	struct hk_policy p = HK_POLICY_INIT;
	char rel[64];
	for (int d = 0; d < BIG_DIRS; d++) {
		snprintf(rel, sizeof(rel), "d%02d", d);
		make_dir(rel);
		snprintf(rel, sizeof(rel), "d%02d/x", d);
		make_file(rel, "undeclared");
		for (int f = 0; f < BIG_FILES; f++) {
			snprintf(rel, sizeof(rel), "d%02d/f%03d", d, f);
			/* Two grants that do not exist: one in each half. */
			if (f != 50 || (d != 0 && d != BIG_DIRS - 1))
				make_file(rel, "declared");
			hk_policy_add_grant(&p, HK_GRANT_RO, at(rel));
		}
	}
	make_file("d01/notdir", "");
	make_file("d10/notdir", "");
	hk_policy_add_grant(&p, HK_GRANT_LIST, at("d10/notdir"));
	hk_policy_add_grant(&p, HK_GRANT_LIST, at("d01/notdir"));
	struct hk_error err = { 0 };
	REQUIRE(hk_policy_finish(&p, &err) == 0);
	struct big_case both = { &p, false }, pinned = { &p, true };
	RUN_IN_CHILD(big_child, &both);
	RUN_IN_CHILD(big_child, &pinned);
	hk_policy_free(&p);
	scratch_end();
}

/* ---- scopes ---- */

struct scope_case {
	struct hk_policy *policy;
	pid_t victim;
	const char *abstract_name;
	int expect; /* 0 or EPERM */
};

static void signal_child(void *arg)
{
	struct scope_case *c = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(c->policy, kernel_abi(), &rep);
	int rc = kill(c->victim, SIGCONT);
	CHECK_EQ_INT(c->expect ? -1 : 0, rc);
	if (c->expect)
		CHECK_EQ_INT(c->expect, errno);
	/* Inside the domain, signals still work. */
	CHECK_EQ_INT(0, kill(getpid(), SIGCONT));
	hk_landlock_report_free(&rep);
}

TEST(signal_scope_refuses_a_process_outside_the_domain)
{
	REQUIRE(kernel_abi() >= 6);
	pid_t victim = fork();
	REQUIRE(victim >= 0);
	if (victim == 0) {
		for (;;)
			pause();
	}
	struct hk_policy scoped = HK_POLICY_INIT, unscoped = HK_POLICY_INIT;
	scoped.scopes = HK_SCOPE_SIGNAL;
	hk_policy_add_grant(&scoped, HK_GRANT_RW, "/dev/null");
	hk_policy_add_grant(&unscoped, HK_GRANT_RW, "/dev/null");
	struct scope_case with = { &scoped, victim, NULL, EPERM };
	struct scope_case without = { &unscoped, victim, NULL, 0 };
	RUN_IN_CHILD(signal_child, &with);
	RUN_IN_CHILD(signal_child, &without);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	hk_policy_free(&scoped);
	hk_policy_free(&unscoped);
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strlen(name);
	memcpy(a->sun_path + 1, name, n); /* leading NUL: the abstract namespace */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void abstract_child(void *arg)
{
	struct scope_case *c = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(c->policy, kernel_abi(), &rep);
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, c->abstract_name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(s >= 0);
	int rc = connect(s, (struct sockaddr *)&a, len);
	CHECK_EQ_INT(c->expect ? -1 : 0, rc);
	if (c->expect)
		CHECK_EQ_INT(c->expect, errno);
	close(s);
	/* A socket created inside the domain stays reachable from inside it. */
	char inner[64];
	snprintf(inner, sizeof(inner), "%s-inner", c->abstract_name);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	len = abstract_addr(&a, inner);
	CHECK_EQ_INT(0, bind(l, (struct sockaddr *)&a, len));
	CHECK_EQ_INT(0, listen(l, 1));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK_EQ_INT(0, connect(s, (struct sockaddr *)&a, len));
	close(s);
	close(l);
	hk_landlock_report_free(&rep);
}

TEST(abstract_unix_scope_refuses_a_socket_created_outside)
{
	REQUIRE(kernel_abi() >= 6);
	char name[64];
	snprintf(name, sizeof(name), "harkaq-kt-%d", (int)getpid());
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, name);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(l >= 0);
	REQUIRE(bind(l, (struct sockaddr *)&a, len) == 0);
	REQUIRE(listen(l, 8) == 0);
	struct hk_policy scoped = HK_POLICY_INIT, unscoped = HK_POLICY_INIT;
	scoped.scopes = HK_SCOPE_ABSTRACT_UNIX_SOCKET;
	hk_policy_add_grant(&scoped, HK_GRANT_RW, "/dev/null");
	hk_policy_add_grant(&unscoped, HK_GRANT_RW, "/dev/null");
	struct scope_case with = { &scoped, 0, name, EPERM };
	struct scope_case without = { &unscoped, 0, name, 0 };
	RUN_IN_CHILD(abstract_child, &with);
	RUN_IN_CHILD(abstract_child, &without);
	close(l);
	hk_policy_free(&scoped);
	hk_policy_free(&unscoped);
}

/* ---- forced ABI and logging flags ---- */

static void abi3_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	enter(p, 3, &rep);
	CHECK_EQ_INT(3, rep.abi);
	CHECK_EQ_INT(hk_landlock_fs_rights_for_abi(3), rep.handled_fs);
	CHECK(rep.dropped_fs & HK_LL_FS_IOCTL_DEV);
	CHECK_EQ_INT(0, rep.scopes);
	CHECK_EQ_INT(HK_LL_SCOPE_SIGNAL, rep.dropped_scopes);
	CHECK_EQ_INT(0, rep.restrict_flags); /* ABI 3 has no logging flags */
	CHECK_EQ_INT(0, open_errno(at("granted"), O_RDONLY));
	CHECK_EQ_INT(EACCES, open_errno(at("ungranted"), O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(forced_abi_3_still_enforces_and_reports_what_it_dropped)
{
	scratch_begin();
	make_file("granted", "g");
	make_file("ungranted", "u");
	struct hk_policy p;
	const char *spec[][2] = { { "ro", at("granted") } };
	policy_of(&p, spec, 1);
	p.scopes = HK_SCOPE_SIGNAL;
	RUN_IN_CHILD(abi3_child, &p);
	hk_policy_free(&p);
	scratch_end();
}

TEST(forced_abi_above_the_kernel_is_refused)
{
	struct hk_policy p = HK_POLICY_INIT;
	hk_policy_add_grant(&p, HK_GRANT_RW, "/dev/null");
	struct hk_landlock_config cfg = { .abi = kernel_abi() + 1 };
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINVAL, hk_landlock_build(&p, &cfg, &rep, &err));
	CHECK_CONTAINS(err.msg, "kernel's ABI");
	cfg.abi = kernel_abi(); /* control */
	int fd = hk_landlock_build(&p, &cfg, &rep, &err);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	hk_landlock_report_free(&rep);
	hk_policy_free(&p);
}

static void withheld_child(void *arg)
{
	struct hk_policy *p = arg;
	struct hk_landlock_config cfg = { .abi = kernel_abi(), .withhold_log_flag = true };
	struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
	struct hk_error err = { 0 };
	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	CHECK_EQ_INT(0, hk_landlock_apply(p, &cfg, &rep, &err));
	CHECK(rep.log_flag_withheld);
	CHECK_EQ_INT(0, rep.restrict_flags & HK_LL_RESTRICT_LOG_NEW_EXEC_ON);
	CHECK_EQ_INT(EACCES, open_errno("/etc/hostname", O_RDONLY));
	hk_landlock_report_free(&rep);
}

TEST(logging_flags_follow_the_abi_and_are_never_turned_off)
{
	struct hk_policy p = HK_POLICY_INIT;
	hk_policy_add_grant(&p, HK_GRANT_RW, "/dev/null");
	for (int abi = 1; abi <= kernel_abi(); abi++) {
		struct hk_landlock_report rep = HK_LANDLOCK_REPORT_INIT;
		build_only(&p, abi, &rep);
		CHECK_EQ_INT(abi >= 7 ? HK_LL_RESTRICT_LOG_NEW_EXEC_ON : 0,
			     rep.restrict_flags & HK_LL_RESTRICT_LOG_NEW_EXEC_ON);
		CHECK_EQ_INT(abi >= 8 ? HK_LL_RESTRICT_TSYNC : 0,
			     rep.restrict_flags & HK_LL_RESTRICT_TSYNC);
		/* LOG_SAME_EXEC_OFF (1) and LOG_SUBDOMAINS_OFF (4): never. */
		CHECK_EQ_INT(0, rep.restrict_flags & 5u);
		CHECK_EQ_INT(0, rep.log_flag_withheld);
		hk_landlock_report_free(&rep);
	}
	CHECK_EQ_INT(0, open_errno("/etc/hostname", O_RDONLY)); /* control */
	RUN_IN_CHILD(withheld_child, &p);
	hk_policy_free(&p);
}

/* ---- seccomp ---- */

/* i386 entry point from a 64-bit process: the compat table the filter must also cover. */
static long int80(long nr, long a1)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(0L), "d"(0L), "S"(0L), "D"(0L)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/* Each call with harmless arguments: -1 as the first (a bad fd, request, count or pointer),
 * zeros after.  Returns the errno, or 0 on success. */
static int call_native(long nr)
{
	return syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L) < 0 ? errno : 0;
}

static int call_compat(long nr)
{
	long r = int80(nr, 0xffffffffL);
	return r < 0 && r > -4096 ? (int)-r : 0;
}

#define N_DENY 28

struct sc_results {
	int native[N_DENY], compat[N_DENY], x32[N_DENY];
	bool has_compat[N_DENY];
	int compat_getpid_ok, x32_getpid;
};

/* The i386 calls are made only when the kernel has the entry point: on one without it,
 * int $0x80 raises SIGSEGV and there is nothing to filter.  The x32 calls are made either
 * way: the filter sees an x32 number before the kernel looks for its table, so EPERM inside
 * the filter is the filter's answer even where the kernel has no x32 (ENOSYS outside). */
static void measure(struct sc_results *r, bool i386)
{
	for (size_t i = 0; i < hk_seccomp_denylist_len; i++) {
		const char *name = hk_seccomp_denylist[i];
		r->native[i] = call_native(seccomp_syscall_resolve_name(name));
		int nr32 = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, name);
		r->has_compat[i] = i386 && nr32 >= 0;
		if (r->has_compat[i])
			r->compat[i] = call_compat(nr32);
		r->x32[i] = call_native(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X32, name));
	}
	/* Syscalls outside the denylist, on both compat entry points: still allowed (so the
	 * x32 EPERMs come from the filter's x32 rules, not from a bad-architecture default). */
	if (i386)
		r->compat_getpid_ok =
			int80(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, "getpid"), 0) ==
			getpid();
	r->x32_getpid = call_native(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X32, "getpid"));
}

/* What the child checks: the native and x32 tables, or the i386 one. */
enum sc_part { SC_NATIVE_AND_X32, SC_I386 };

static void seccomp_child(void *arg)
{
	enum sc_part part = *(const enum sc_part *)arg;
	bool i386 = part == SC_I386;
	struct sc_results before, after;
	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	measure(&before, i386);

	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	struct hk_seccomp_report rep;
	struct hk_error err = { 0 };
	int rc = hk_seccomp_install_denylist(&rep, &err);
	if (rc < 0)
		fprintf(stderr, "#   %s\n", err.msg);
	REQUIRE(rc == 0);
	CHECK(rep.installed);
	CHECK_EQ_INT(N_DENY, rep.syscalls);
	/* The filter covers every entry point, whether the kernel offers it or not. */
	REQUIRE(rep.n_arches == 3);
	CHECK_STR_EQ("x86_64", rep.arches[0]);
	CHECK_STR_EQ("x86", rep.arches[1]);
	CHECK_STR_EQ("x32", rep.arches[2]);
	measure(&after, i386);

	int told_apart = 0, compat_told_apart = 0;
	for (size_t i = 0; i < hk_seccomp_denylist_len; i++) {
		const char *name = hk_seccomp_denylist[i];
		if (!i386) {
			if (after.native[i] != EPERM)
				HK_FAIL_AT("%s: errno %d inside the filter, expected EPERM", name,
					   after.native[i]);
			if (before.native[i] != EPERM)
				told_apart++;
			else
				fprintf(stderr, "#   note: %s gives EPERM even without the filter\n",
					name);
			if (after.x32[i] != EPERM)
				HK_FAIL_AT("%s (x32): errno %d inside the filter", name, after.x32[i]);
		} else if (before.has_compat[i]) {
			if (after.compat[i] != EPERM)
				HK_FAIL_AT("%s (i386): errno %d inside the filter", name, after.compat[i]);
			if (before.compat[i] != EPERM)
				compat_told_apart++;
		}
	}
	/* The controls: most calls answer otherwise without the filter (EFAULT, EBADF, EINVAL,
	 * ESRCH, ENOSYS…), and unrelated calls on the compat entry points still work. */
	if (!i386) {
		CHECK(told_apart >= 20);
		CHECK(before.x32_getpid != EPERM);
		CHECK_EQ_INT(before.x32_getpid, after.x32_getpid);
	} else {
		CHECK(compat_told_apart >= 20);
		CHECK(before.compat_getpid_ok);
		CHECK(after.compat_getpid_ok);
	}
}

/* The probe of the product (sys/entrypoints.h) against a call made here, in a child of our
 * own: both must agree on whether int $0x80 answers. */
static int int80_in_child(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		_exit(int80(20, 0) == getpid() ? 0 : 3);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(entry_points_probe_agrees_with_a_direct_call)
{
	struct hk_entry_points eps;
	hk_entry_points_probe(&eps);
	REQUIRE(eps.n == 3);
	CHECK_STR_EQ("x86_64", eps.v[0].arch);
	CHECK_EQ_INT(HK_ENTRY_PRESENT, eps.v[0].state);
	const struct hk_entry_point *i386 = hk_entry_points_find(&eps, "x86");
	const struct hk_entry_point *x32 = hk_entry_points_find(&eps, "x32");
	REQUIRE(i386 && x32);
	int direct = int80_in_child();
	REQUIRE(direct >= 0);
	CHECK_EQ_INT(direct ? HK_ENTRY_PRESENT : HK_ENTRY_ABSENT, i386->state);
	long r = syscall(0x40000000L | SYS_getpid);
	CHECK_EQ_INT(r == getpid() ? HK_ENTRY_PRESENT : HK_ENTRY_ABSENT, x32->state);
	fprintf(stderr, "#   i386: %s; x32: %s\n", i386->evidence, x32->evidence);
}

TEST(seccomp_denylist_returns_eperm_natively_and_on_x32)
{
	enum sc_part part = SC_NATIVE_AND_X32;
	RUN_IN_CHILD(seccomp_child, &part);
}

TEST(seccomp_denylist_returns_eperm_on_i386)
{
	struct hk_entry_points eps;
	hk_entry_points_probe(&eps);
	const struct hk_entry_point *i386 = hk_entry_points_find(&eps, "x86");
	REQUIRE(i386);
	if (i386->state != HK_ENTRY_PRESENT)
		SKIP("this kernel has no i386 entry point (%s): nothing to filter", i386->evidence);
	enum sc_part part = SC_I386;
	RUN_IN_CHILD(seccomp_child, &part);
}

TEST(seccomp_denylist_is_spec_list_and_landlock_restrict_self)
{
	static const char *const spec[N_DENY] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace",
		"process_vm_readv", "process_vm_writev", "bpf", "userfaultfd", "keyctl",
		"add_key", "request_key", "init_module", "finit_module", "delete_module",
		"kexec_load", "kexec_file_load", "perf_event_open", "mount", "umount2",
		"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
		"mount_setattr", "setns", "landlock_restrict_self",
	};
	REQUIRE(hk_seccomp_denylist_len == N_DENY);
	for (size_t i = 0; i < N_DENY; i++)
		CHECK_STR_EQ(spec[i], hk_seccomp_denylist[i]);
}

/* errno of ioctl(fd, request) with the request's upper 32 bits set to `high`, 0 on success. */
static int ioctl_errno(int fd, unsigned long request, unsigned long high, void *arg)
{
	return syscall(SYS_ioctl, fd, request | high << 32, arg) < 0 ? errno : 0;
}

static void ioctl_child(void *arg)
{
	(void)arg;
	/* A pseudo-terminal of our own, not our controlling terminal: as root (CAP_SYS_ADMIN)
	 * TIOCSTI works on it all the same, which is why a new session does not stop root. */
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	REQUIRE(master >= 0);
	REQUIRE(grantpt(master) == 0 && unlockpt(master) == 0);
	int tty = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	REQUIRE(tty >= 0);
	char c = '#';
	struct winsize ws;
	int before[HK_SECCOMP_MAX_IOCTLS] = { 0 }, before_high[HK_SECCOMP_MAX_IOCTLS] = { 0 };
	REQUIRE(hk_seccomp_denied_ioctls_len <= HK_SECCOMP_MAX_IOCTLS);
	for (size_t i = 0; i < hk_seccomp_denied_ioctls_len; i++) {
		before[i] = ioctl_errno(tty, hk_seccomp_denied_ioctls[i].request, 0, &c);
		before_high[i] = ioctl_errno(tty, hk_seccomp_denied_ioctls[i].request, 1, &c);
	}
	/* The controls: without the filter the kernel itself answers (TIOCSTI injects, the
	 * console requests are not a pseudo-terminal's), whatever the upper bits say. */
	CHECK_EQ_INT(0, before[0]);
	CHECK_EQ_INT(0, before_high[0]);
	for (size_t i = 0; i < hk_seccomp_denied_ioctls_len; i++) {
		if (before[i] == EPERM || before_high[i] == EPERM)
			HK_FAIL_AT("%s gives EPERM even without the filter",
				   hk_seccomp_denied_ioctls[i].name);
	}

	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	struct hk_seccomp_report rep;
	struct hk_error err = { 0 };
	REQUIRE(hk_seccomp_install_denylist(&rep, &err) == 0);
	CHECK_EQ_INT(hk_seccomp_denied_ioctls_len, rep.ioctls);
	for (size_t i = 0; i < hk_seccomp_denied_ioctls_len; i++) {
		const char *name = hk_seccomp_denied_ioctls[i].name;
		unsigned long req = hk_seccomp_denied_ioctls[i].request;
		if (ioctl_errno(tty, req, 0, &c) != EPERM)
			HK_FAIL_AT("%s is not EPERM inside the filter", name);
		if (ioctl_errno(tty, req, 1, &c) != EPERM)
			HK_FAIL_AT("%s with upper bits set is not EPERM inside the filter", name);
		if (ioctl_errno(tty, req, 0xffffffffUL, &c) != EPERM)
			HK_FAIL_AT("%s with all upper bits set is not EPERM inside the filter", name);
	}
	/* Other terminal requests still work: the rules name requests, not ioctl. */
	CHECK_EQ_INT(0, ioctl_errno(tty, TIOCGWINSZ, 0, &ws));
	CHECK_EQ_INT(0, ioctl_errno(master, TIOCGWINSZ, 0, &ws));
	close(tty);
	close(master);
}

TEST(seccomp_denies_input_injection_ioctls_on_their_low_32_bits)
{
	RUN_IN_CHILD(ioctl_child, NULL);
}

static void malformed_child(void *arg)
{
	(void)arg;
	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINVAL, hk_seccomp_install_malformed(&err));
	CHECK_CONTAINS(err.msg, "refused");
	/* Nothing was installed: ptrace still answers as without a filter. */
	CHECK(call_native(SYS_ptrace) != EPERM);
}

TEST(seccomp_malformed_program_is_refused_by_the_kernel)
{
	RUN_IN_CHILD(malformed_child, NULL);
}
