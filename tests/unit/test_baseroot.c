/* The derived base runtime (src/core/root/baseroot.c).
 *
 * The oracle is the real glibc loader: a child chroots into the root (the host's "/" or a
 * fake root built here) and runs the program with LD_TRACE_LOADED_OBJECTS=1, the mechanism
 * behind ldd, so the loader itself says which libraries it would map; the child canonicalises
 * them with realpath(3) — the kernel's own path walk, inside the chroot.  harkaq must agree
 * without running anything. */
#include "harness.h"

#include "core/root/baseroot.h"
#include "core/formats/elf.h"
#include "core/basic/util.h"

#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- file system helpers ------------------------------------------------------------------ */

static char *make_tmpdir(void)
{
	char *dir = hk_xstrdup("/tmp/hk-test-baseroot.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	return dir;
}

static void run_or_die(const char *cmd)
{
	if (system(cmd) != 0) {
		fprintf(stderr, "# command failed: %s\n", cmd);
		abort();
	}
}

static void remove_tree(const char *dir)
{
	hk_autofree char *cmd = hk_xasprintf("rm -rf '%s'", dir);
	run_or_die(cmd);
}

static void mkdirs(const char *root, const char *rel)
{
	hk_autofree char *cmd = hk_xasprintf("mkdir -p '%s/%s'", root, rel);
	run_or_die(cmd);
}

static void put_file(const char *root, const char *rel, const char *text, mode_t mode)
{
	hk_autofree char *path = hk_xasprintf("%s/%s", root, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t n = strlen(text);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		abort();
	close(fd);
}

static void put_link(const char *root, const char *rel, const char *target)
{
	hk_autofree char *path = hk_xasprintf("%s/%s", root, rel);
	if (symlink(target, path) != 0)
		abort();
}

/* Copies a host file into the root at `rel`, optionally overwriting one byte (to fake an
 * object of another ELF class or machine without changing anything else). */
static void copy_in(const char *root, const char *host_path, const char *rel, long patch_at,
		    unsigned char patch_byte)
{
	hk_autofree char *dst = hk_xasprintf("%s/%s", root, rel);
	hk_autofree char *cmd = hk_xasprintf("cp '%s' '%s'", host_path, dst);
	run_or_die(cmd);
	if (patch_at >= 0) {
		int fd = open(dst, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || pwrite(fd, &patch_byte, 1, patch_at) != 1)
			abort();
		close(fd);
	}
}

static char *host_realpath(const char *path)
{
	char buf[PATH_MAX];
	if (!realpath(path, buf)) {
		fprintf(stderr, "# realpath %s: %s\n", path, strerror(errno));
		abort();
	}
	return hk_xstrdup(buf);
}

/* ---- the loader oracle -------------------------------------------------------------------- */

struct trace {
	struct hk_strset files;     /* canonical paths the loader mapped (interpreter included) */
	struct hk_strset missing;   /* names it reported "not found" */
	struct hk_strset tried;     /* existing files it opened while searching (LD_DEBUG=libs
	                             * "trying file="), accepted or rejected */
	char *self;                 /* canonical path of the program */
};

static void trace_free(struct trace *t)
{
	hk_strset_free(&t->files);
	hk_strset_free(&t->missing);
	hk_strset_free(&t->tried);
	free(t->self);
}

static void child_trace(const char *root, const char *program, int out_fd)
{
	/* The loader finds the program's $ORIGIN through /proc/self/exe, so the chroot needs a
	 * /proc, as the sandbox has one: bind the host's in a private mount namespace. */
	if (unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		_exit(97);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		_exit(97);
	if (strcmp(root, "/") != 0) {
		char proc[PATH_MAX];
		snprintf(proc, sizeof(proc), "%s/proc", root);
		mkdir(proc, 0555);
		if (mount("/proc", proc, NULL, MS_BIND | MS_REC, NULL) != 0)
			_exit(97);
	}
	if (chroot(root) != 0)
		_exit(97);
	if (chdir("/") != 0)
		_exit(97);
	int tp[2];
	if (pipe(tp) != 0)
		_exit(97);
	pid_t pid = fork();
	if (pid == 0) {
		/* LD_DEBUG writes to stderr: both streams are parsed, line by line. */
		dup2(tp[1], 1);
		dup2(tp[1], 2);
		close(tp[0]);
		close(tp[1]);
		char *const argv[] = { (char *)(uintptr_t)program, NULL };
		char *const envp[] = { (char *)(uintptr_t)"LD_TRACE_LOADED_OBJECTS=1",
				       (char *)(uintptr_t)"LD_DEBUG=libs", NULL };
		execve(program, argv, envp);
		_exit(98);
	}
	close(tp[1]);
	FILE *in = fdopen(tp[0], "r");
	FILE *out = fdopen(out_fd, "w");
	if (!in || !out)
		_exit(97);
	char real[PATH_MAX];
	fprintf(out, "self %s\n", realpath(program, real) ? real : "?");
	char line[PATH_MAX + 64];
	while (fgets(line, sizeof(line), in)) {
		char *tried = strstr(line, "trying file=");
		if (tried) {
			tried += strlen("trying file=");
			tried[strcspn(tried, "\n")] = '\0';
			/* A name that does not exist was never opened (ENOENT: no inode). */
			if (realpath(tried, real))
				fprintf(out, "tried %s\n", real);
			continue;
		}
		size_t pid_len = strspn(line, " 0123456789");
		if (pid_len && line[pid_len] == ':')
			continue;   /* other LD_DEBUG lines ("  PID:\t...") */
		char *s = line + strspn(line, " \t");
		char *arrow = strstr(s, " => ");
		char *path = arrow ? arrow + 4 : s;
		if (arrow && strncmp(path, "not found", 9) == 0) {
			fprintf(out, "missing %.*s\n", (int)(arrow - s), s);
			continue;
		}
		if (path[0] != '/')
			continue;   /* linux-vdso.so.1: no file */
		path[strcspn(path, " (\n")] = '\0';
		fprintf(out, "file %s\n", realpath(path, real) ? real : path);
	}
	fclose(out);
	int st;
	waitpid(pid, &st, 0);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 99);
}

/* Returns the trace child's exit status (the loader's, in trace mode). */
static int loader_trace(const char *root, const char *program, struct trace *t)
{
	*t = (struct trace){ HK_STRSET_INIT, HK_STRSET_INIT, HK_STRSET_INIT, NULL };
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		child_trace(root, program, p[1]);
	}
	close(p[1]);
	FILE *in = fdopen(p[0], "r");
	char line[PATH_MAX + 64];
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "file ", 5) == 0)
			hk_strset_add(&t->files, line + 5);
		else if (strncmp(line, "tried ", 6) == 0)
			hk_strset_add(&t->tried, line + 6);
		else if (strncmp(line, "missing ", 8) == 0)
			hk_strset_add(&t->missing, line + 8);
		else if (strncmp(line, "self ", 5) == 0)
			t->self = hk_xstrdup(line + 5);
	}
	if (in)
		fclose(in);
	int st;
	waitpid(pid, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 99;
	if (rc == 97 || rc == 98)
		fprintf(stderr, "# loader oracle could not run %s in %s (status %d)\n", program, root,
			rc);
	return rc;
}

/* ---- set comparisons ---------------------------------------------------------------------- */

static bool sets_equal(const char *what, const struct hk_strset *expected,
		       const struct hk_strset *actual)
{
	bool ok = true;
	for (size_t i = 0; i < expected->len; i++)
		if (!hk_strset_contains(actual, expected->items[i])) {
			fprintf(stderr, "#   %s: missing %s\n", what, expected->items[i]);
			ok = false;
		}
	for (size_t i = 0; i < actual->len; i++)
		if (!hk_strset_contains(expected, actual->items[i])) {
			fprintf(stderr, "#   %s: unexpected %s\n", what, actual->items[i]);
			ok = false;
		}
	return ok;
}

static void fill(struct hk_strset *s, const char *const *items)
{
	for (; *items; items++)
		hk_strset_add(s, *items);
}

#define SET(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool set_is(const char *what, const struct hk_strset *actual, const char *const *items)
{
	struct hk_strset expected = HK_STRSET_INIT;
	fill(&expected, items);
	bool ok = sets_equal(what, &expected, actual);
	hk_strset_free(&expected);
	return ok;
}

/* Every path of the closure exists INSIDE the root, with the type its set promises: nothing
 * leaked from the host's file system. */
static void check_inside_root(const char *root, const struct hk_runtime_closure *c)
{
	const struct {
		const struct hk_strset *set;
		int kind; /* 0 file, 1 file link, 2 dir link */
	} groups[] = { { &c->files, 0 }, { &c->file_links, 1 }, { &c->dir_links, 2 } };
	for (size_t g = 0; g < HK_ARRAY_LEN(groups); g++) {
		for (size_t i = 0; i < groups[g].set->len; i++) {
			const char *p = groups[g].set->items[i];
			hk_autofree char *full = hk_xasprintf("%s%s", strcmp(root, "/") ? root : "", p);
			struct stat st;
			if (lstat(full, &st) != 0) {
				HK_FAIL_AT("%s is not inside root %s", p, root);
				continue;
			}
			if (groups[g].kind == 0 && (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)))
				HK_FAIL_AT("%s: listed as a file but is not one", p);
			if (groups[g].kind > 0 && !S_ISLNK(st.st_mode))
				HK_FAIL_AT("%s: listed as a link but is not one", p);
			if (groups[g].kind == 1 || groups[g].kind == 2) {
				/* The link's canonical location has no symlinked parent. */
				hk_autofree char *dir = hk_xstrdup(full);
				struct stat ds;
				CHECK(stat(dirname(dir), &ds) == 0 && S_ISDIR(ds.st_mode));
			}
		}
	}
}

static int closure_of(const char *root, const char *entry, struct hk_runtime_closure *c,
		      struct hk_error *err)
{
	*c = (struct hk_runtime_closure)HK_RUNTIME_CLOSURE_INIT;
	const char *entries[] = { entry };
	return hk_elf_closure(root, entries, 1, c, err);
}

/* The closure's files are exactly: the program, what the loader mapped or opened while
 * searching, plus `extra`. */
static void check_matches_loader(const char *root, const char *program,
				 const struct hk_runtime_closure *c, const char *const *extra)
{
	struct trace t;
	REQUIRE(loader_trace(root, program, &t) == 0);
	REQUIRE(t.self != NULL);
	CHECK_EQ_INT(0, t.missing.len);
	CHECK(t.files.len > 0);   /* a dynamic program: the oracle saw its loader at least */
	struct hk_strset expected = HK_STRSET_INIT;
	hk_strset_add(&expected, t.self);
	hk_strset_add_all(&expected, &t.files);
	hk_strset_add_all(&expected, &t.tried);
	fill(&expected, extra);
	hk_autofree char *what = hk_xasprintf("closure of %s in %s vs the loader", program, root);
	CHECK(sets_equal(what, &expected, &c->files));
	hk_strset_free(&expected);
	trace_free(&t);
}

/* ---- the host base (this machine's real Debian 12 binaries) ------------------------------ */

TEST(host_sh_closure_has_libc_and_interpreter_links_and_targets)
{
	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of("/", "/bin/sh", &c, &err) == 0);

	hk_autofree char *sh = host_realpath("/bin/sh");
	CHECK(hk_strset_contains(&c.files, sh));
	CHECK(hk_strset_contains(&c.files, "/etc/ld.so.cache"));

	/* libc.so.6: a regular file on glibc 2.36, a symlink on older glibc — assert what is. */
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct stat st;
	REQUIRE(lstat(libc, &st) == 0);
	hk_autofree char *libc_target = host_realpath(libc);
	CHECK(hk_strset_contains(&c.files, libc_target));
	CHECK_EQ_INT(S_ISLNK(st.st_mode), hk_strset_contains(&c.file_links, libc));

	/* The interpreter as PT_INTERP names it; its link inode sits at the canonical location
	 * of its directory (on merged-/usr /lib64 is itself a link into /usr). */
	const char *interp = "/lib64/ld-linux-x86-64.so.2";
	REQUIRE(lstat(interp, &st) == 0);
	REQUIRE(S_ISLNK(st.st_mode));
	hk_autofree char *interp_dir = host_realpath("/lib64");
	hk_autofree char *interp_link = hk_xasprintf("%s/ld-linux-x86-64.so.2", interp_dir);
	hk_autofree char *interp_target = host_realpath(interp);
	CHECK(hk_strset_contains(&c.file_links, interp_link));
	CHECK(hk_strset_contains(&c.files, interp_target));
	CHECK(!hk_strset_contains(&c.files, interp_link));
	REQUIRE(lstat("/lib64", &st) == 0);
	CHECK_EQ_INT(S_ISLNK(st.st_mode), hk_strset_contains(&c.dir_links, "/lib64"));

	/* /bin/sh: /bin is a directory link on merged-/usr, /usr/bin/sh a link to dash. */
	REQUIRE(lstat("/bin", &st) == 0);
	CHECK_EQ_INT(S_ISLNK(st.st_mode), hk_strset_contains(&c.dir_links, "/bin"));
	CHECK(!hk_strset_contains(&c.files, "/bin/sh"));
	CHECK(!hk_strset_contains(&c.file_links, "/bin"));
	hk_autofree char *bin = host_realpath("/bin");
	hk_autofree char *sh_link = hk_xasprintf("%s/sh", bin);
	REQUIRE(lstat(sh_link, &st) == 0);
	CHECK_EQ_INT(S_ISLNK(st.st_mode), hk_strset_contains(&c.file_links, sh_link));

	check_inside_root("/", &c);
	check_matches_loader("/", "/bin/sh", &c, SET("/etc/ld.so.cache"));
	hk_runtime_closure_free(&c);
}

static bool has_file_with_prefix(const struct hk_strset *s, const char *prefix)
{
	for (size_t i = 0; i < s->len; i++) {
		const char *base = strrchr(s->items[i], '/');
		if (base && strncmp(base + 1, prefix, strlen(prefix)) == 0)
			return true;
	}
	return false;
}

TEST(host_bash_pulls_libtinfo)
{
	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of("/", "bash", &c, &err) == 0);
	CHECK(has_file_with_prefix(&c.files, "libtinfo.so."));
	CHECK(has_file_with_prefix(&c.file_links, "libtinfo.so.6"));
	/* Positive control for the prefix search itself. */
	CHECK(!has_file_with_prefix(&c.files, "libselinux.so."));
	check_inside_root("/", &c);
	hk_autofree char *bash = host_realpath("/usr/bin/bash");
	check_matches_loader("/", bash, &c, SET("/etc/ld.so.cache"));
	hk_runtime_closure_free(&c);
}

TEST(host_ls_pulls_libselinux_and_libpcre2)
{
	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of("/", "ls", &c, &err) == 0);
	CHECK(has_file_with_prefix(&c.files, "libselinux.so."));
	CHECK(has_file_with_prefix(&c.files, "libpcre2-8.so."));
	check_inside_root("/", &c);
	check_matches_loader("/", "/usr/bin/ls", &c, SET("/etc/ld.so.cache"));
	hk_runtime_closure_free(&c);
}

TEST(host_script_resolves_its_interpreter)
{
	/* Debian 12's egrep is a "#!/bin/sh" script. */
	struct hk_runtime_closure script, sh;
	struct hk_error err = { 0 };
	REQUIRE(closure_of("/", "egrep", &script, &err) == 0);
	REQUIRE(closure_of("/", "/bin/sh", &sh, &err) == 0);
	hk_autofree char *egrep = host_realpath("/usr/bin/egrep");
	CHECK(hk_strset_contains(&script.files, egrep));
	for (size_t i = 0; i < sh.files.len; i++)
		CHECK(hk_strset_contains(&script.files, sh.files.items[i]));
	CHECK_EQ_INT(sh.files.len + 1, script.files.len);
	hk_runtime_closure_free(&script);
	hk_runtime_closure_free(&sh);
}

/* ---- a fake root ---------------------------------------------------------------------------- */

/* A merged-/usr root holding dash and exactly what the host's loader maps for it, at the same
 * canonical paths, with one difference from the host: /lib64 is a real directory holding an
 * ABSOLUTE link to the loader.  Resolved on the host, that link would go through the host's
 * /lib64 -> usr/lib64; resolved in the root it must not. */
static char *build_fake_root(void)
{
	char *root = make_tmpdir();
	mkdirs(root, "usr/bin");
	mkdirs(root, "usr/lib/x86_64-linux-gnu");
	mkdirs(root, "lib64");
	put_link(root, "bin", "usr/bin");
	put_link(root, "lib", "usr/lib");
	hk_autofree char *dash = host_realpath("/bin/sh");
	copy_in(root, dash, "usr/bin/dash", -1, 0);
	put_link(root, "usr/bin/sh", "dash");

	struct trace t;
	if (loader_trace("/", "/bin/sh", &t) != 0 || t.missing.len)
		abort();
	for (size_t i = 0; i < t.files.len; i++) {
		hk_autofree char *dir = hk_xstrdup(t.files.items[i] + 1);
		mkdirs(root, dirname(dir));
		copy_in(root, t.files.items[i], t.files.items[i] + 1, -1, 0);
	}
	trace_free(&t);
	hk_autofree char *ld = host_realpath("/lib64/ld-linux-x86-64.so.2");
	if (strcmp(ld, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2") != 0)
		abort();   /* the layout below assumes Debian's */
	put_link(root, "lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	return root;
}

TEST(fake_root_resolves_inside_the_root)
{
	hk_autofree char *root = build_fake_root();
	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);

	CHECK(set_is("files", &c.files,
		     SET("/usr/bin/dash", "/usr/lib/x86_64-linux-gnu/libc.so.6",
			 "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")));
	/* /lib64/… not /usr/lib64/…: the host's /lib64 link was not used.  No /etc/ld.so.cache:
	 * the root has none, the host's was not used. */
	CHECK(set_is("file links", &c.file_links, SET("/usr/bin/sh", "/lib64/ld-linux-x86-64.so.2")));
	CHECK(set_is("dir links", &c.dir_links, SET("/bin", "/lib")));
	check_inside_root(root, &c);
	check_matches_loader(root, "/bin/sh", &c, SET("/usr/bin/dash"));

	/* hk_base_runtime's flat list: targets and file links, sorted, no directory links. */
	struct hk_strset flat = HK_STRSET_INIT;
	hk_runtime_closure_paths(&c, &flat);
	CHECK_EQ_INT(5, flat.len);
	for (size_t i = 1; i < flat.len; i++)
		CHECK(strcmp(flat.items[i - 1], flat.items[i]) < 0);
	CHECK(!hk_strset_contains(&flat, "/bin"));
	hk_strset_free(&flat);
	hk_runtime_closure_free(&c);
	remove_tree(root);
}

TEST(fake_root_interpreter_outside_the_search_path)
{
	/* libc.so.6 needs ld-linux-x86-64.so.2.  The loader satisfies that with itself (matched
	 * by DT_SONAME), wherever PT_INTERP put it: here in a directory no search visits. */
	hk_autofree char *root = build_fake_root();
	mkdirs(root, "opt/ld");
	hk_autofree char *from = hk_xasprintf("%s/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", root);
	hk_autofree char *to = hk_xasprintf("%s/opt/ld/ld-linux-x86-64.so.2", root);
	hk_autofree char *link = hk_xasprintf("%s/lib64/ld-linux-x86-64.so.2", root);
	REQUIRE(rename(from, to) == 0);
	REQUIRE(unlink(link) == 0);
	put_link(root, "lib64/ld-linux-x86-64.so.2", "/opt/ld/ld-linux-x86-64.so.2");

	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	int r = closure_of(root, "/bin/sh", &c, &err);
	if (r < 0)
		fprintf(stderr, "# %s\n", err.msg);
	REQUIRE(r == 0);
	CHECK(set_is("files", &c.files,
		     SET("/usr/bin/dash", "/usr/lib/x86_64-linux-gnu/libc.so.6",
			 "/opt/ld/ld-linux-x86-64.so.2")));
	check_matches_loader(root, "/bin/sh", &c, SET(NULL));
	hk_runtime_closure_free(&c);
	remove_tree(root);
}

TEST(fake_root_glibc_hwcaps_variants_are_all_listed)
{
	/* Which glibc-hwcaps variant the loader maps depends on the CPU of the build machine;
	 * the closure lists every one plus the baseline, so the same root gives the same list on
	 * any machine.  The loader on THIS machine must pick one of them. */
	hk_autofree char *root = build_fake_root();
	const char *dir = "usr/lib/x86_64-linux-gnu";
	hk_autofree char *libc = hk_xasprintf("%s/%s/libc.so.6", root, dir);
	hk_autofree char *v2 = hk_xasprintf("%s/glibc-hwcaps/x86-64-v2", dir);
	mkdirs(root, v2);
	hk_autofree char *v2_libc = hk_xasprintf("%s/libc.so.6", v2);
	copy_in(root, libc, v2_libc, -1, 0);

	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(hk_strset_contains(&c.files,
				 "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libc.so.6"));
	struct trace t;
	REQUIRE(loader_trace(root, "/bin/sh", &t) == 0);
	CHECK(t.files.len > 0);
	for (size_t i = 0; i < t.files.len; i++)
		CHECK(hk_strset_contains(&c.files, t.files.items[i]));
	for (size_t i = 0; i < t.tried.len; i++)
		CHECK(hk_strset_contains(&c.files, t.tried.items[i]));
	trace_free(&t);
	hk_runtime_closure_free(&c);
	remove_tree(root);
}

TEST(fake_root_ld_so_conf_order_and_wrong_class_skipped)
{
	hk_autofree char *root = build_fake_root();
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	hk_autofree char *host_libc = hk_xasprintf("%s%s", root, libc);
	mkdirs(root, "etc/ld.so.conf.d");
	mkdirs(root, "opt/wrongclass");
	mkdirs(root, "opt/wrongmachine");
	mkdirs(root, "opt/right");
	mkdirs(root, "opt/ignored");
	/* Same bytes as the real libc except EI_CLASS (byte 4) or e_machine (bytes 18-19). */
	copy_in(root, host_libc, "opt/wrongclass/libc.so.6", EI_CLASS, ELFCLASS32);
	copy_in(root, host_libc, "opt/wrongmachine/libc.so.6", 18, EM_AARCH64);
	copy_in(root, host_libc, "opt/right/libc.so.6", -1, 0);
	copy_in(root, host_libc, "opt/ignored/libc.so.6", -1, 0);
	put_file(root, "etc/ld.so.conf",
		 "# relative include: relative to /etc\ninclude ld.so.conf.d/*.conf\nhwcap 0 nosegneg\n",
		 0644);
	put_file(root, "etc/ld.so.conf.d/10-wrong.conf", "/opt/wrongclass\n  /opt/wrongmachine/  \n",
		 0644);
	put_file(root, "etc/ld.so.conf.d/20-right.conf", "/opt/right # trailing comment\n", 0644);
	/* Sorts first, but does not match "*.conf". */
	put_file(root, "etc/ld.so.conf.d/05-ignored.txt", "/opt/ignored\n", 0644);
	/* The real cache, built by ldconfig from the root's own configuration, so the real
	 * loader in the oracle reads what harkaq reads. */
	hk_autofree char *cmd = hk_xasprintf("ldconfig -r '%s' 2>/dev/null", root);
	run_or_die(cmd);

	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/opt/right/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/opt/wrongclass/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/opt/wrongmachine/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/opt/ignored/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, libc));
	CHECK(hk_strset_contains(&c.files, "/etc/ld.so.cache"));
	check_inside_root(root, &c);
	check_matches_loader(root, "/bin/sh", &c, SET("/etc/ld.so.cache"));
	hk_runtime_closure_free(&c);

	/* Positive control for the skip: a 32-bit-class copy first and NOTHING right behind it
	 * in the configured directories → the system directory's libc, as the loader does. */
	put_file(root, "etc/ld.so.conf.d/10-wrong.conf", "/opt/wrongclass\n", 0644);
	put_file(root, "etc/ld.so.conf.d/20-right.conf", "\n", 0644);
	run_or_die(cmd);
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, libc));
	CHECK(!hk_strset_contains(&c.files, "/opt/wrongclass/libc.so.6"));
	check_matches_loader(root, "/bin/sh", &c, SET("/etc/ld.so.cache"));
	hk_runtime_closure_free(&c);

	/* Without a cache the loader never reads ld.so.conf's directories. */
	put_file(root, "etc/ld.so.conf.d/10-wrong.conf", "/opt/right\n", 0644);
	hk_autofree char *cache = hk_xasprintf("%s/etc/ld.so.cache", root);
	REQUIRE(unlink(cache) == 0);
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, libc));
	CHECK(!hk_strset_contains(&c.files, "/opt/right/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/etc/ld.so.cache"));
	check_matches_loader(root, "/bin/sh", &c, SET("/usr/bin/dash"));
	hk_runtime_closure_free(&c);
	remove_tree(root);
}

/* A minimal ELF object: header, PT_LOAD over the file, PT_DYNAMIC with DT_NEEDED entries and
 * an optional DT_SONAME.  Enough for the search, which reads nothing else. */
#define DEFINE_TINY_ELF(BITS)                                                                \
	static size_t tiny_elf##BITS(uint16_t machine, const char *const *needed,             \
				     const char *soname, unsigned char *out)                  \
	{                                                                                    \
		Elf##BITS##_Ehdr eh = { 0 };                                                 \
		Elf##BITS##_Phdr ph[2] = { 0 };                                              \
		Elf##BITS##_Dyn dyn[8];                                                      \
		size_t nd = 0, str_off = sizeof(eh) + sizeof(ph), str_len = 1;               \
		out[str_off] = '\0';                                                         \
		for (size_t i = 0; needed[i] || (soname && i == 0 && !needed[0]); i++) {    \
			if (!needed[i])                                                      \
				break;                                                       \
			dyn[nd].d_tag = DT_NEEDED;                                           \
			dyn[nd++].d_un.d_val = (Elf##BITS##_Word)str_len;                    \
			memcpy(out + str_off + str_len, needed[i], strlen(needed[i]) + 1);   \
			str_len += strlen(needed[i]) + 1;                                    \
		}                                                                            \
		if (soname) {                                                                \
			dyn[nd].d_tag = DT_SONAME;                                           \
			dyn[nd++].d_un.d_val = (Elf##BITS##_Word)str_len;                    \
			memcpy(out + str_off + str_len, soname, strlen(soname) + 1);         \
			str_len += strlen(soname) + 1;                                       \
		}                                                                            \
		dyn[nd].d_tag = DT_STRTAB;                                                   \
		dyn[nd++].d_un.d_ptr = (Elf##BITS##_Addr)str_off;                            \
		dyn[nd].d_tag = DT_STRSZ;                                                    \
		dyn[nd++].d_un.d_val = (Elf##BITS##_Word)str_len;                            \
		dyn[nd].d_tag = DT_NULL;                                                     \
		dyn[nd++].d_un.d_val = 0;                                                    \
		size_t dyn_off = (str_off + str_len + 7) & ~(size_t)7;                       \
		memcpy(out + dyn_off, dyn, nd * sizeof(dyn[0]));                             \
		size_t total = dyn_off + nd * sizeof(dyn[0]);                                \
		memcpy(eh.e_ident, ELFMAG, SELFMAG);                                         \
		eh.e_ident[EI_CLASS] = ELFCLASS##BITS;                                       \
		eh.e_ident[EI_DATA] = ELFDATA2LSB;                                           \
		eh.e_ident[EI_VERSION] = EV_CURRENT;                                         \
		eh.e_type = ET_DYN;                                                          \
		eh.e_machine = machine;                                                      \
		eh.e_version = EV_CURRENT;                                                   \
		eh.e_phoff = sizeof(eh);                                                     \
		eh.e_ehsize = sizeof(eh);                                                    \
		eh.e_phentsize = sizeof(ph[0]);                                              \
		eh.e_phnum = 2;                                                              \
		ph[0].p_type = PT_LOAD;                                                      \
		ph[0].p_filesz = ph[0].p_memsz = (Elf##BITS##_Word)total;                    \
		ph[1].p_type = PT_DYNAMIC;                                                   \
		ph[1].p_offset = ph[1].p_vaddr = (Elf##BITS##_Off)dyn_off;                   \
		ph[1].p_filesz = (Elf##BITS##_Word)(nd * sizeof(dyn[0]));                    \
		memcpy(out, &eh, sizeof(eh));                                                \
		memcpy(out + sizeof(eh), ph, sizeof(ph));                                    \
		return total;                                                                \
	}

DEFINE_TINY_ELF(32)
DEFINE_TINY_ELF(64)

static void put_tiny_elf(const char *root, const char *rel, unsigned bits, uint16_t machine,
			 const char *const *needed, const char *soname)
{
	unsigned char buf[2048] = { 0 };
	size_t n = bits == 32 ? tiny_elf32(machine, needed, soname, buf)
			      : tiny_elf64(machine, needed, soname, buf);
	hk_autofree char *path = hk_xasprintf("%s/%s", root, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		abort();
	close(fd);
}

TEST(fake_root_32bit_requester_takes_the_32bit_library)
{
	/* The other direction of the class check.  For i386 the system directories are
	 * /lib/i386-linux-gnu, /usr/lib/i386-linux-gnu, /lib, /usr/lib: a 64-bit libc.so.6 sits in
	 * the first, a 32-bit one in /lib (= /usr/lib here). */
	hk_autofree char *root = build_fake_root();
	mkdirs(root, "usr/lib/i386-linux-gnu");
	hk_autofree char *libc64 = hk_xasprintf("%s/usr/lib/x86_64-linux-gnu/libc.so.6", root);
	copy_in(root, libc64, "usr/lib/i386-linux-gnu/libc.so.6", -1, 0);
	put_tiny_elf(root, "usr/lib/libc.so.6", 32, EM_386, SET(NULL), "libc.so.6");
	put_tiny_elf(root, "usr/bin/prog32", 32, EM_386, SET("libc.so.6"), NULL);
	put_tiny_elf(root, "usr/bin/prog64", 64, EM_X86_64, SET("libc.so.6"), NULL);

	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of(root, "/usr/bin/prog32", &c, &err) == 0);
	/* The 64-bit libc is opened (its header read) and rejected: listed, not walked — else its
	 * own needs (the 64-bit loader) would be here too. */
	CHECK(set_is("32-bit closure", &c.files,
		     SET("/usr/bin/prog32", "/usr/lib/libc.so.6", "/usr/lib/i386-linux-gnu/libc.so.6")));
	hk_runtime_closure_free(&c);

	/* Positive control: the same search from a 64-bit requester takes the 64-bit libc of its
	 * own multiarch directory, and never the 32-bit one. */
	REQUIRE(closure_of(root, "/usr/bin/prog64", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/usr/lib/libc.so.6"));
	CHECK(!hk_strset_contains(&c.files, "/usr/lib/i386-linux-gnu/libc.so.6"));
	hk_runtime_closure_free(&c);

	/* Nothing of the right class anywhere: an error naming library, requester and class. */
	hk_autofree char *lib32 = hk_xasprintf("%s/usr/lib/libc.so.6", root);
	REQUIRE(unlink(lib32) == 0);
	CHECK_EQ_INT(-ENOENT, closure_of(root, "/usr/bin/prog32", &c, &err));
	CHECK_CONTAINS(err.msg, "libc.so.6");
	CHECK_CONTAINS(err.msg, "/usr/bin/prog32");
	CHECK_CONTAINS(err.msg, "i386 32-bit");
	CHECK_CONTAINS(err.msg, root);
	hk_runtime_closure_free(&c);
	remove_tree(root);
}

/* ---- RPATH and RUNPATH, with objects built by the system compiler ------------------------- */

static void compile(const char *cmd)
{
	hk_autofree char *full = hk_xasprintf("%s 2>&1", cmd);
	run_or_die(full);
}

TEST(fake_root_rpath_is_inherited_and_runpath_is_not)
{
	hk_autofree char *root = build_fake_root();
	hk_autofree char *src = make_tmpdir();
	mkdirs(root, "usr/private");
	put_file(src, "foo.c", "int foo(void) { return 1; }\n", 0644);
	put_file(src, "bar.c", "int foo(void); int bar(void) { return foo(); }\n", 0644);
	put_file(src, "main.c", "int bar(void); int main(void) { return bar() - 1; }\n", 0644);
	hk_autofree char *cmd = NULL;
#define CC(...)                                                                              \
	do {                                                                                 \
		free(cmd);                                                                   \
		cmd = hk_xasprintf(__VA_ARGS__);                                             \
		compile(cmd);                                                                \
	} while (0)
	CC("cc -shared -fPIC -o %s/usr/private/libfoo.so.1 -Wl,-soname,libfoo.so.1 %s/foo.c", root,
	   src);
	/* libbar needs libfoo and says nothing about where to find it. */
	CC("cc -shared -fPIC -o %s/usr/private/libbar.so.1 -Wl,-soname,libbar.so.1 %s/bar.c "
	   "%s/usr/private/libfoo.so.1", root, src, root);
	/* libbar2 finds libfoo through its own RUNPATH. */
	CC("cc -shared -fPIC -o %s/usr/private/libbar2.so.1 -Wl,-soname,libbar2.so.1 %s/bar.c "
	   "%s/usr/private/libfoo.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN'", root, src, root);
	/* libbaz has a RUNPATH (that holds nothing): it must not use its loader's RPATH. */
	CC("cc -shared -fPIC -o %s/usr/private/libbaz.so.1 -Wl,-soname,libbaz.so.1 %s/bar.c "
	   "%s/usr/private/libfoo.so.1 -Wl,--enable-new-dtags,-rpath,/nonexistent", root, src, root);
	CC("cc -o %s/usr/bin/prog_rpath_baz %s/main.c %s/usr/private/libbaz.so.1 "
	   "-Wl,-rpath-link,%s/usr/private -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../private'",
	   root, src, root, root);
	/* A program whose RPATH holds a libc.so.6 of the wrong class. */
	mkdirs(root, "opt/wrong");
	hk_autofree char *libc = hk_xasprintf("%s/usr/lib/x86_64-linux-gnu/libc.so.6", root);
	copy_in(root, libc, "opt/wrong/libc.so.6", EI_CLASS, ELFCLASS32);
	put_file(src, "hello.c", "#include <stdio.h>\nint main(void) { return puts(\"hi\") < 0; }\n",
		 0644);
	CC("cc -o %s/usr/bin/prog_wrong %s/hello.c -Wl,--disable-new-dtags,-rpath,/opt/wrong", root,
	   src);
	CC("cc -o %s/usr/bin/prog_rpath %s/main.c %s/usr/private/libbar.so.1 "
	   "-Wl,-rpath-link,%s/usr/private -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../private'",
	   root, src, root, root);
	CC("cc -o %s/usr/bin/prog_runpath %s/main.c %s/usr/private/libbar.so.1 "
	   "-Wl,-rpath-link,%s/usr/private -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../private'",
	   root, src, root, root);
	CC("cc -o %s/usr/bin/prog_runpath2 %s/main.c %s/usr/private/libbar2.so.1 "
	   "-Wl,-rpath-link,%s/usr/private -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../private'",
	   root, src, root, root);
#undef CC

	struct hk_runtime_closure c;
	struct hk_error err = { 0 };
	/* DT_RPATH of the program serves its libraries' needs too. Named through /bin. */
	REQUIRE(closure_of(root, "/bin/prog_rpath", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/private/libbar.so.1"));
	CHECK(hk_strset_contains(&c.files, "/usr/private/libfoo.so.1"));
	check_inside_root(root, &c);
	check_matches_loader(root, "/usr/bin/prog_rpath", &c, SET(NULL));
	hk_runtime_closure_free(&c);

	/* The wrong-class libc in the RPATH is opened, rejected and listed; the real one taken. */
	REQUIRE(closure_of(root, "/usr/bin/prog_wrong", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/opt/wrong/libc.so.6"));
	CHECK(hk_strset_contains(&c.files, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	check_matches_loader(root, "/usr/bin/prog_wrong", &c, SET(NULL));
	hk_runtime_closure_free(&c);

	/* DT_RUNPATH serves only the object that carries it: libbar's libfoo is not found,
	 * and the real loader agrees. */
	CHECK_EQ_INT(-ENOENT, closure_of(root, "/usr/bin/prog_runpath", &c, &err));
	CHECK_CONTAINS(err.msg, "libfoo.so.1 (needed by /usr/private/libbar.so.1");
	hk_runtime_closure_free(&c);
	struct trace t;
	loader_trace(root, "/usr/bin/prog_runpath", &t);
	CHECK(hk_strset_contains(&t.missing, "libfoo.so.1"));
	CHECK(!hk_strset_contains(&t.missing, "libbar.so.1"));
	trace_free(&t);

	/* An object with DT_RUNPATH ignores the DT_RPATH of the objects that loaded it. */
	CHECK_EQ_INT(-ENOENT, closure_of(root, "/usr/bin/prog_rpath_baz", &c, &err));
	CHECK_CONTAINS(err.msg, "libfoo.so.1 (needed by /usr/private/libbaz.so.1");
	hk_runtime_closure_free(&c);
	loader_trace(root, "/usr/bin/prog_rpath_baz", &t);
	CHECK(hk_strset_contains(&t.missing, "libfoo.so.1"));
	CHECK(!hk_strset_contains(&t.missing, "libbaz.so.1"));
	trace_free(&t);

	/* Positive control: a library with its own RUNPATH finds its dependency. */
	REQUIRE(closure_of(root, "/usr/bin/prog_runpath2", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/private/libfoo.so.1"));
	check_matches_loader(root, "/usr/bin/prog_runpath2", &c, SET(NULL));
	hk_runtime_closure_free(&c);

	/* /etc/ld.so.preload: loaded into every dynamic program; a missing entry is ignored. */
	hk_autofree char *pcmd = hk_xasprintf(
		"cc -shared -fPIC -o %s/usr/lib/x86_64-linux-gnu/libpre.so %s/foo.c", root, src);
	compile(pcmd);
	mkdirs(root, "etc");
	put_file(root, "etc/ld.so.preload", "libpre.so /usr/private/libbar2.so.1:/nonexistent.so\n",
		 0644);
	REQUIRE(closure_of(root, "/bin/sh", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/etc/ld.so.preload"));
	CHECK(hk_strset_contains(&c.files, "/usr/lib/x86_64-linux-gnu/libpre.so"));
	CHECK(hk_strset_contains(&c.files, "/usr/private/libbar2.so.1"));
	CHECK(hk_strset_contains(&c.files, "/usr/private/libfoo.so.1"));
	check_matches_loader(root, "/bin/sh", &c, SET("/usr/bin/dash", "/etc/ld.so.preload"));
	hk_runtime_closure_free(&c);
	remove_tree(src);
	remove_tree(root);
}

/* ---- scripts in a fake root ---------------------------------------------------------------- */

TEST(fake_root_scripts)
{
	hk_autofree char *root = build_fake_root();
	hk_autofree char *env = host_realpath("/usr/bin/env");
	copy_in(root, env, "usr/bin/env", -1, 0);
	put_file(root, "usr/bin/s1", "#!/bin/sh\necho one\n", 0755);
	put_file(root, "usr/bin/tool", "#!/bin/sh\n", 0755);
	put_file(root, "usr/bin/s2", "#!/usr/bin/env tool\n", 0755);
	put_file(root, "usr/bin/s3", "#!/usr/bin/s1 -x\n", 0755);
	put_file(root, "usr/bin/s4", "#!/usr/bin/env nosuchtool\n", 0755);
	put_file(root, "usr/bin/s5", "#!bin/sh\n", 0755);
	put_file(root, "usr/bin/l1", "#!/usr/bin/l2\n", 0755);
	put_file(root, "usr/bin/l2", "#!/usr/bin/l1\n", 0755);
	put_file(root, "usr/bin/self", "#!/usr/bin/env self\n", 0755);

	struct hk_runtime_closure sh, c;
	struct hk_error err = { 0 };
	REQUIRE(closure_of(root, "/bin/sh", &sh, &err) == 0);

	REQUIRE(closure_of(root, "s1", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/bin/s1"));
	CHECK(hk_strset_contains(&c.files, "/usr/bin/dash"));
	CHECK(hk_strset_contains(&c.file_links, "/usr/bin/sh"));
	CHECK_EQ_INT(sh.files.len + 1, c.files.len);
	hk_runtime_closure_free(&c);

	/* "#!/usr/bin/env tool": env, and tool found through the PATH, and tool's own "#!". */
	REQUIRE(closure_of(root, "/usr/bin/s2", &c, &err) == 0);
	CHECK(set_is("env script", &c.files,
		     SET("/usr/bin/s2", "/usr/bin/env", "/usr/bin/tool", "/usr/bin/dash",
			 "/usr/lib/x86_64-linux-gnu/libc.so.6",
			 "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")));
	check_inside_root(root, &c);
	hk_runtime_closure_free(&c);

	/* A script interpreting a script. */
	REQUIRE(closure_of(root, "s3", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/bin/s1"));
	CHECK(hk_strset_contains(&c.files, "/usr/bin/dash"));
	hk_runtime_closure_free(&c);

	CHECK_EQ_INT(-ENOENT, closure_of(root, "s4", &c, &err));
	CHECK_CONTAINS(err.msg, "nosuchtool");
	CHECK_CONTAINS(err.msg, "/usr/bin/s4");
	hk_runtime_closure_free(&c);
	CHECK_EQ_INT(-ENOEXEC, closure_of(root, "s5", &c, &err));
	CHECK_CONTAINS(err.msg, "relative");
	hk_runtime_closure_free(&c);
	CHECK_EQ_INT(-ELOOP, closure_of(root, "l1", &c, &err));
	hk_runtime_closure_free(&c);
	/* Names itself through env: a run-time loop, walked once. */
	REQUIRE(closure_of(root, "self", &c, &err) == 0);
	CHECK(hk_strset_contains(&c.files, "/usr/bin/self"));
	CHECK(hk_strset_contains(&c.files, "/usr/bin/env"));
	hk_runtime_closure_free(&c);
	hk_runtime_closure_free(&sh);
	remove_tree(root);
}

/* ---- the resolver ---------------------------------------------------------------------------- */

TEST(resolver_stays_inside_the_root)
{
	hk_autofree char *root = build_fake_root();
	put_link(root, "abs", "/usr/bin/dash");
	put_link(root, "usr/escape", "../../../../../../../etc/hostname-of-harkaq-test");
	put_link(root, "loop1", "loop2");
	put_link(root, "loop2", "loop1");
	struct hk_root r;
	struct hk_error err = { 0 };
	REQUIRE(hk_root_open(root, &r, &err) == 0);
	struct hk_resolved res;

	REQUIRE(hk_root_resolve(&r, "/abs", &res, &err) == 0);
	CHECK_STR_EQ("/usr/bin/dash", res.path);
	CHECK(S_ISREG(res.mode));
	CHECK(set_is("links of /abs", &res.file_links, SET("/abs")));
	hk_resolved_free(&res);

	REQUIRE(hk_root_resolve(&r, "/../../usr/./bin/../bin/dash", &res, &err) == 0);
	CHECK_STR_EQ("/usr/bin/dash", res.path);
	hk_resolved_free(&res);

	/* ".." out of the root lands on the root: the target is looked for in the root. */
	CHECK_EQ_INT(-ENOENT, hk_root_resolve(&r, "/usr/escape", &res, &err));
	CHECK_CONTAINS(err.msg, root);
	hk_resolved_free(&res);
	/* Positive control: once the root has that file, the link reaches it. */
	mkdirs(root, "etc");
	put_file(root, "etc/hostname-of-harkaq-test", "fake-host\n", 0644);
	REQUIRE(hk_root_resolve(&r, "/usr/escape", &res, &err) == 0);
	CHECK_STR_EQ("/etc/hostname-of-harkaq-test", res.path);
	int fd = hk_root_open_canonical(&r, res.path, &err);
	REQUIRE(fd >= 0);
	char buf[32] = "";
	CHECK(read(fd, buf, sizeof(buf) - 1) == 10);
	CHECK_STR_EQ("fake-host\n", buf);
	close(fd);
	hk_resolved_free(&res);

	/* A path that resolves to a directory through a link. */
	REQUIRE(hk_root_resolve(&r, "/bin", &res, &err) == 0);
	CHECK_STR_EQ("/usr/bin", res.path);
	CHECK(S_ISDIR(res.mode));
	CHECK(set_is("dir links of /bin", &res.dir_links, SET("/bin")));
	CHECK_EQ_INT(0, res.file_links.len);
	hk_resolved_free(&res);

	CHECK_EQ_INT(-ELOOP, hk_root_resolve(&r, "/loop1", &res, &err));
	hk_resolved_free(&res);
	CHECK_EQ_INT(-ENOTDIR, hk_root_resolve(&r, "/usr/bin/dash/x", &res, &err));
	hk_resolved_free(&res);
	CHECK_EQ_INT(-ENOTDIR, hk_root_resolve(&r, "/usr/bin/dash/", &res, &err));
	hk_resolved_free(&res);
	CHECK_EQ_INT(-EINVAL, hk_root_resolve(&r, "usr/bin/dash", &res, &err));
	hk_resolved_free(&res);

	/* The canonical opener refuses any link on the way (positive control: canonical path). */
	CHECK(hk_root_open_canonical(&r, "/bin/sh", &err) < 0);
	CHECK_CONTAINS(err.msg, "/bin/sh");
	fd = hk_root_open_canonical(&r, "/usr/bin/dash", &err);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	hk_root_close(&r);
	remove_tree(root);
}

TEST(resolver_link_limit_matches_the_kernel)
{
	hk_autofree char *root = make_tmpdir();
	put_file(root, "target", "x", 0644);
	/* Chains of relative links: the host kernel resolves them the same way, so its open()
	 * is the oracle for the limit. */
	char name[32], next[32];
	for (int i = 0; i < 41; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		if (i == 40)
			snprintf(next, sizeof(next), "target");
		else
			snprintf(next, sizeof(next), "c%d", i + 1);
		put_link(root, name, next);
	}
	struct hk_root r;
	struct hk_error err = { 0 };
	REQUIRE(hk_root_open(root, &r, &err) == 0);
	struct hk_resolved res;
	/* From c1: 40 links. */
	hk_autofree char *host40 = hk_xasprintf("%s/c1", root);
	int fd = open(host40, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_EQ_INT(0, hk_root_resolve(&r, "/c1", &res, &err));
	CHECK_EQ_INT(40, res.file_links.len);
	hk_resolved_free(&res);
	/* From c0: 41 links. */
	hk_autofree char *host41 = hk_xasprintf("%s/c0", root);
	CHECK(open(host41, O_RDONLY | O_CLOEXEC) < 0 && errno == ELOOP);
	CHECK_EQ_INT(-ELOOP, hk_root_resolve(&r, "/c0", &res, &err));
	CHECK_CONTAINS(err.msg, "40");
	hk_resolved_free(&res);
	hk_root_close(&r);
	remove_tree(root);
}

/* ---- profiles ---------------------------------------------------------------------------- */

static char *host_path_lookup(const char *name)
{
	if (name[0] == '/')
		return hk_xstrdup(name);
	hk_autofree char *dirs = hk_xstrdup(HK_BASE_PATH);
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = hk_xasprintf("%s/%s", d, name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

/* The oracle for an ld.so.conf entry, written independently of baseroot.c: the file's
 * "include PATTERN" lines globbed on the host (patterns relative to the file's directory),
 * recursively, each match added by its real path. */
static void add_conf_includes(const char *file, struct hk_strset *out)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "include", 7) != 0 || (p[7] != ' ' && p[7] != '\t'))
			continue;
		char *save = NULL;
		for (char *pat = strtok_r(p + 7, " \t\n", &save); pat;
		     pat = strtok_r(NULL, " \t\n", &save)) {
			hk_autofree char *full = NULL;
			if (pat[0] == '/') {
				full = hk_xstrdup(pat);
			} else {
				hk_autofree char *dir = hk_xstrdup(file);
				char *slash = strrchr(dir, '/');
				if (slash)
					*slash = '\0';
				full = hk_xasprintf("%s/%s", dir, pat);
			}
			glob_t g;
			if (glob(full, 0, NULL, &g) == 0) {
				for (size_t k = 0; k < g.gl_pathc; k++) {
					hk_strset_add_owned(out, host_realpath(g.gl_pathv[k]));
					add_conf_includes(g.gl_pathv[k], out);
				}
				globfree(&g);
			}
		}
	}
	fclose(f);
}

TEST(host_profiles_match_the_loader)
{
	const char *const *names = hk_base_profile_names();
	REQUIRE(names[0] != NULL);
	for (; *names; names++) {
		const struct hk_base_profile *p = hk_base_profile_find(*names);
		REQUIRE(p != NULL);
		struct hk_runtime_closure c = HK_RUNTIME_CLOSURE_INIT;
		struct hk_error err = { 0 };
		int r = hk_base_runtime_closure("/", *names, &c, &err);
		if (r < 0)
			fprintf(stderr, "# %s\n", err.msg);
		REQUIRE(r == 0);
		check_inside_root("/", &c);

		/* Expected: each entry, what the loader maps for it, the data files, the cache. */
		struct hk_strset expected = HK_STRSET_INIT;
		hk_strset_add(&expected, "/etc/ld.so.cache");
		for (size_t i = 0; i < p->n_entries; i++) {
			const struct hk_runtime_entry *e = &p->entries[i];
			if (e->kind == HK_ENTRY_DATA || e->kind == HK_ENTRY_LDCONF) {
				if (access(e->name, F_OK) == 0)
					hk_strset_add_owned(&expected, host_realpath(e->name));
				else
					CHECK(e->optional);
				if (e->kind == HK_ENTRY_LDCONF)
					add_conf_includes(e->name, &expected);
				continue;
			}
			hk_autofree char *prog = host_path_lookup(e->name);
			if (!prog) {
				CHECK(e->optional);
				continue;
			}
			struct trace t;
			CHECK_EQ_INT(0, loader_trace("/", prog, &t));
			CHECK_EQ_INT(0, t.missing.len);
			if (t.self)
				hk_strset_add(&expected, t.self);
			hk_strset_add_all(&expected, &t.files);
			trace_free(&t);
		}
		hk_autofree char *what = hk_xasprintf("profile %s on the host", *names);
		CHECK(sets_equal(what, &expected, &c.files));
		hk_strset_free(&expected);

		/* The flat list: every file and every file link, sorted, deduplicated; directory
		 * links left out. */
		struct hk_strset flat = HK_STRSET_INIT;
		REQUIRE(hk_base_runtime("/", *names, &flat, &err) == 0);
		CHECK_EQ_INT(c.files.len + c.file_links.len, flat.len);
		for (size_t i = 1; i < flat.len; i++)
			CHECK(strcmp(flat.items[i - 1], flat.items[i]) < 0);
		for (size_t i = 0; i < c.dir_links.len; i++)
			CHECK(!hk_strset_contains(&flat, c.dir_links.items[i]));
		/* Both the link builds open and its target. */
		CHECK(hk_strset_contains(&flat, "/usr/bin/sh"));
		hk_autofree char *sh = host_realpath("/bin/sh");
		CHECK(hk_strset_contains(&flat, sh));
		struct stat st;
		if (lstat("/etc/os-release", &st) == 0 && S_ISLNK(st.st_mode))
			CHECK(hk_strset_contains(&flat, "/etc/os-release"));
		hk_strset_free(&flat);
		hk_runtime_closure_free(&c);
	}
}

TEST(host_autotools_profile_follows_alternatives)
{
	/* Debian's awk: /usr/bin/awk -> /etc/alternatives/awk -> /usr/bin/mawk (what is true
	 * here is read with lstat/realpath, not assumed). */
	struct hk_runtime_closure c = HK_RUNTIME_CLOSURE_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_base_runtime_closure("/", "autotools", &c, &err) == 0);
	char hop[PATH_MAX];
	ssize_t n = readlink("/usr/bin/awk", hop, sizeof(hop) - 1);
	REQUIRE(n > 0);
	hop[n] = '\0';
	CHECK(hk_strset_contains(&c.file_links, "/usr/bin/awk"));
	if (hop[0] == '/') {
		struct stat st;
		if (lstat(hop, &st) == 0 && S_ISLNK(st.st_mode))
			CHECK(hk_strset_contains(&c.file_links, hop));
	}
	hk_autofree char *awk = host_realpath("/usr/bin/awk");
	CHECK(hk_strset_contains(&c.files, awk));
	/* coreutils with ACLs (cp) and expr's GMP come along without being listed. */
	CHECK(has_file_with_prefix(&c.files, "libacl.so."));
	CHECK(has_file_with_prefix(&c.files, "libtinfo.so."));

	/* "host" is the same profile. */
	struct hk_runtime_closure h = HK_RUNTIME_CLOSURE_INIT;
	REQUIRE(hk_base_runtime_closure("/", "host", &h, &err) == 0);
	CHECK(sets_equal("host vs autotools", &c.files, &h.files));
	hk_runtime_closure_free(&h);
	hk_runtime_closure_free(&c);
}

TEST(profile_errors)
{
	struct hk_runtime_closure c = HK_RUNTIME_CLOSURE_INIT;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINVAL, hk_base_runtime_closure("/", "nosuch", &c, &err));
	CHECK_CONTAINS(err.msg, "nosuch");
	CHECK_CONTAINS(err.msg, "minimal");
	CHECK(hk_base_profile_find("nosuch") == NULL);

	/* A fake root with sh and env but no bash: minimal works, autotools names what is
	 * missing and where. */
	hk_autofree char *root = build_fake_root();
	hk_autofree char *env = host_realpath("/usr/bin/env");
	copy_in(root, env, "usr/bin/env", -1, 0);
	CHECK_EQ_INT(0, hk_base_runtime_closure(root, "minimal", &c, &err));
	CHECK(hk_strset_contains(&c.files, "/usr/bin/env"));
	check_inside_root(root, &c);
	hk_runtime_closure_free(&c);
	CHECK_EQ_INT(-ENOENT, hk_base_runtime_closure(root, "autotools", &c, &err));
	CHECK_CONTAINS(err.msg, "bash");
	CHECK_CONTAINS(err.msg, root);
	hk_runtime_closure_free(&c);

	CHECK(hk_base_runtime_closure("/nonexistent-root-of-harkaq", "minimal", &c, &err) < 0);
	CHECK_CONTAINS(err.msg, "/nonexistent-root-of-harkaq");
	hk_runtime_closure_free(&c);
	remove_tree(root);
}
