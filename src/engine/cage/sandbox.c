#include "engine/cage/sandbox.h"

#include "core/formats/exec_args.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/common/proc.h"
#include "core/basic/util.h"
#include "core/store/view.h"
#include "sys/mountns.h"

/* The base root's directories that make up a system; everything else of the host (home,
 * /root, /var, /srv, /work, …) stays out of the sandbox. */
static const char *const base_tops[] = { "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
					 "etc", "opt" };

/* Directories the sandbox itself provides: a dep shipping files there could not be merged. */
static bool is_in(const char *name, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

static struct hk_top *find_top(struct hk_sandbox_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_tops; i++)
		if (strcmp(plan->tops[i].name, name) == 0)
			return &plan->tops[i];
	return NULL;
}

static struct hk_top *add_top(struct hk_sandbox_plan *plan, const char *name)
{
	plan->tops = hk_xrealloc(plan->tops, (plan->n_tops + 1) * sizeof(*plan->tops));
	struct hk_top *t = &plan->tops[plan->n_tops++];
	memset(t, 0, sizeof(*t));
	t->name = hk_xstrdup(name);
	return t;
}

static void add_lower(struct hk_top *t, const char *dir)
{
	t->lowers = hk_xrealloc(t->lowers, (t->n_lowers + 1) * sizeof(char *));
	t->lowers[t->n_lowers++] = hk_xstrdup(dir);
}

static int cmp_top(const void *a, const void *b)
{
	return strcmp(((const struct hk_top *)a)->name, ((const struct hk_top *)b)->name);
}

bool hk_sandbox_merges_path(const char *path)
{
	const char *p = path[0] == '/' ? path + 1 : path;
	size_t n = strcspn(p, "/");
	for (size_t i = 0; i < HK_ARRAY_LEN(base_tops); i++)
		if (strlen(base_tops[i]) == n && memcmp(base_tops[i], p, n) == 0)
			return true;
	return false;
}

/* A dep's top-level symlink `name` (at `path`): the top, when nothing else is yet, or the same
 * link again. */
static int add_layer_link(struct hk_sandbox_plan *plan, const char *name, const char *path,
			  const char *layer, struct hk_error *err)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return hk_fail_errno(err, errno, "reading %s", path);
	target[n] = '\0';
	struct hk_top *t = find_top(plan, name);
	if (!t) {
		t = add_top(plan, name);
		t->kind = HK_TOP_SYMLINK;
		t->symlink_target = hk_xstrdup(target);
		return 0;
	}
	if (t->kind == HK_TOP_SYMLINK && strcmp(t->symlink_target, target) == 0)
		return 0;
	return hk_fail(err, EINVAL, "dep tree %s has /%s -> %s at its top, where another dep has %s",
		       layer, name, target, t->kind == HK_TOP_SYMLINK ? "another link" : "a directory");
}

static int add_view_tops(const struct hk_sandbox *s, struct hk_sandbox_plan *plan,
			 struct hk_error *err)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(base_tops); i++) {
		char *p = hk_xasprintf("%s/%s", s->view_root, base_tops[i]);
		struct stat st;
		if (lstat(p, &st) < 0) {
			int e = errno;
			free(p);
			if (e == ENOENT)
				continue;
			return hk_fail_errno(err, e, "the store view %s", s->view_root);
		}
		struct hk_top *t = find_top(plan, base_tops[i]);
		if (!S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		if (t && t->kind == HK_TOP_SYMLINK) {
			free(p);
			continue;
		}
		if (!t) {
			t = add_top(plan, base_tops[i]);
			t->kind = HK_TOP_OVERLAY;
		} else if (t->kind == HK_TOP_BIND) {
			/* A base directory alone so far: it becomes the first lower. */
			t->kind = HK_TOP_OVERLAY;
			add_lower(t, t->bind_source);
			free(t->bind_source);
			t->bind_source = NULL;
		}
		add_lower(t, p);
		free(p);
	}
	return 0;
}

int hk_sandbox_plan(const struct hk_sandbox *s, struct hk_sandbox_plan *plan, struct hk_error *err)
{
	memset(plan, 0, sizeof(*plan));
	const char *root = s->base_root ? s->base_root : "/";

	/* The deps, highest priority first, then the base root last (lowest). */
	for (size_t l = 0; l < s->n_layers; l++) {
		DIR *d = opendir(s->layers[l]);
		if (!d) {
			int e = errno;
			hk_sandbox_plan_free(plan);
			return hk_fail_errno(err, e, "dep tree %s", s->layers[l]);
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			/* Only the system directories are merged.  A dep's /var (dpkg's state
			 * directories) would turn /var into a read-only merged view under the
			 * sandbox's own /var/tmp scratch; such files are outside the sandbox, and
			 * the derivation leaves them out too (hk_sandbox_merges_path). */
			if (!is_in(de->d_name, base_tops, HK_ARRAY_LEN(base_tops)))
				continue;
			char *p = hk_xasprintf("%s/%s", s->layers[l], de->d_name);
			struct stat st;
			int sr = lstat(p, &st);
			/* A merged-/usr link a dep's tree holds at its top (a Debian build's dpkg
			 * state: /libx32 -> usr/libx32, made when libc6-x32 came in, where the base
			 * has no /libx32) is that top, unless something else already is. */
			if (sr == 0 && S_ISLNK(st.st_mode)) {
				int r = add_layer_link(plan, de->d_name, p, s->layers[l], err);
				free(p);
				if (r < 0) {
					closedir(d);
					hk_sandbox_plan_free(plan);
					return r;
				}
				continue;
			}
			if (sr < 0 || !S_ISDIR(st.st_mode)) {
				int r = hk_fail(err, EINVAL,
						"dep tree %s has /%s at its top, which is not a directory "
						"the sandbox can merge (top-level entries must be "
						"system directories such as usr/ or etc/)",
						s->layers[l], de->d_name);
				free(p);
				closedir(d);
				hk_sandbox_plan_free(plan);
				return r;
			}
			struct hk_top *t = find_top(plan, de->d_name);
			if (t && t->kind == HK_TOP_SYMLINK) {
				int r = hk_fail(err, EINVAL, "dep tree %s has /%s at its top, where a "
						"higher dep has a link to %s", s->layers[l], de->d_name,
						t->symlink_target);
				free(p);
				closedir(d);
				hk_sandbox_plan_free(plan);
				return r;
			}
			if (!t) {
				t = add_top(plan, de->d_name);
				t->kind = HK_TOP_OVERLAY;
			}
			add_lower(t, p);
			free(p);
		}
		closedir(d);
	}
	for (size_t i = 0; i < HK_ARRAY_LEN(base_tops); i++) {
		char *p = hk_xasprintf("%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/",
				       base_tops[i]);
		struct stat st;
		if (lstat(p, &st) < 0) {
			free(p);
			continue;
		}
		struct hk_top *t = find_top(plan, base_tops[i]);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(p, target, sizeof(target) - 1);
			if (n < 0) {
				free(p);
				continue;
			}
			target[n] = '\0';
			if (t && t->kind == HK_TOP_SYMLINK && strcmp(t->symlink_target, target) == 0) {
				free(p);
				continue;
			}
			if (t) {
				int r = hk_fail(err, EINVAL,
						"a dep ships files under /%s, but the base root's /%s is a "
						"symlink to %s (merged /usr): the dep's tree must be laid "
						"out as the sandbox sees it (under %s/)",
						base_tops[i], base_tops[i], target, target);
				free(p);
				hk_sandbox_plan_free(plan);
				return r;
			}
			t = add_top(plan, base_tops[i]);
			t->kind = HK_TOP_SYMLINK;
			t->symlink_target = hk_xstrdup(target);
		} else if (S_ISDIR(st.st_mode)) {
			if (!t) {
				t = add_top(plan, base_tops[i]);
				t->kind = HK_TOP_BIND;
				t->bind_source = hk_xstrdup(p);
			} else if (t->kind == HK_TOP_SYMLINK) {
				int r = hk_fail(err, EINVAL, "a dep has /%s -> %s at its top, where the "
						"base root has a directory", base_tops[i],
						t->symlink_target);
				free(p);
				hk_sandbox_plan_free(plan);
				return r;
			} else {
				add_lower(t, p);
			}
		}
		free(p);
	}
	/* The store view, lowest of all: it only adds what neither the deps nor the base show
	 * (core/store/view.h).  Only where the base has a real directory, or nothing: the view never
	 * replaces a base symlink such as /bin -> usr/bin. */
	if (s->view_root) {
		int r = add_view_tops(s, plan, err);
		if (r < 0) {
			hk_sandbox_plan_free(plan);
			return r;
		}
	}
	/* A merged view with a single layer is just that layer. */
	for (size_t i = 0; i < plan->n_tops; i++) {
		struct hk_top *t = &plan->tops[i];
		if (t->kind == HK_TOP_OVERLAY && t->n_lowers == 1) {
			t->kind = HK_TOP_BIND;
			t->bind_source = t->lowers[0];
			t->lowers[0] = NULL;
			t->n_lowers = 0;
		} else if (t->kind == HK_TOP_OVERLAY) {
			t->merged = hk_xasprintf("%s/%s", s->stage_dir, t->name);
		}
	}
	qsort(plan->tops, plan->n_tops, sizeof(*plan->tops), cmp_top);
	return 0;
}

void hk_sandbox_plan_free(struct hk_sandbox_plan *plan)
{
	for (size_t i = 0; i < plan->n_tops; i++) {
		struct hk_top *t = &plan->tops[i];
		free(t->name);
		free(t->symlink_target);
		free(t->bind_source);
		for (size_t k = 0; k < t->n_lowers; k++)
			free(t->lowers[k]);
		free(t->lowers);
		free(t->merged);
	}
	free(plan->tops);
	memset(plan, 0, sizeof(*plan));
}

int hk_sandbox_mount(const struct hk_sandbox_plan *plan, struct hk_error *err)
{
	/* Nothing mounted here may leak to the host's namespace. */
	if (hk_sys_mounts_private(err) < 0)
		return -err->code;
	for (size_t i = 0; i < plan->n_tops; i++) {
		const struct hk_top *t = &plan->tops[i];
		if (t->kind != HK_TOP_OVERLAY)
			continue;
		if (mkdir(t->merged, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "creating %s", t->merged);
		/* Mount options are limited to one page, and 48 store paths of ~110 bytes do not
		 * fit: each layer gets a short symlink in a directory of the stage, and the
		 * layers are named relative to it (overlayfs follows the links at mount time). */
		char *linkdir = hk_xasprintf("%s.layers", t->merged);
		if (mkdir(linkdir, 0755) < 0 && errno != EEXIST) {
			int ret = hk_fail_errno(err, errno, "creating %s", linkdir);
			free(linkdir);
			return ret;
		}
		struct hk_buf opts = HK_BUF_INIT;
		hk_buf_puts(&opts, "lowerdir=");
		for (size_t k = 0; k < t->n_lowers; k++) {
			char name[32];
			snprintf(name, sizeof(name), "%zu", k);
			char *lp = hk_xasprintf("%s/%s", linkdir, name);
			unlink(lp);
			if (symlink(t->lowers[k], lp) < 0) {
				int ret = hk_fail_errno(err, errno, "creating the layer link %s", lp);
				free(lp);
				free(linkdir);
				hk_buf_free(&opts);
				return ret;
			}
			free(lp);
			if (k)
				hk_buf_putc(&opts, ':');
			hk_buf_puts(&opts, name);
		}
		int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		int r = -1, e = 0;
		if (chdir(linkdir) == 0) {
			r = hk_sys_mount_overlay_ro(t->merged, opts.data);
			e = -r;
		} else {
			e = errno;
		}
		if (cwd >= 0) {
			if (fchdir(cwd) < 0) { /* the caller chdirs again before exec */ }
			close(cwd);
		}
		if (r < 0) {
			/* ENODEV is the kernel's "no such filesystem type": said in words, since
			 * every build with more than one layer needs it (kernel-facts.md §13). */
			int ret = hk_fail_errno(err, e, "mounting the merged view of /%s (%zu layers in "
							 "%s%s)", t->name, t->n_lowers, linkdir,
						e == ENODEV ? "; this kernel has no overlayfs: "
							      "CONFIG_OVERLAY_FS"
							    : "");
			hk_buf_free(&opts);
			free(linkdir);
			return ret;
		}
		hk_buf_free(&opts);
		free(linkdir);
	}
	return 0;
}
void hk_sandbox_unmount(const struct hk_sandbox_plan *plan)
{
	for (size_t i = 0; i < plan->n_tops; i++) {
		const struct hk_top *t = &plan->tops[i];
		if (t->kind == HK_TOP_OVERLAY)
			hk_sys_unmount(t->merged);
	}
}

static void push(struct hk_argv *a, const char *s)
{
	hk_argv_push(a, s);
}

static void push3(struct hk_argv *a, const char *x, const char *y, const char *z)
{
	push(a, x);
	push(a, y);
	if (z)
		push(a, z);
}

int hk_sandbox_argv(const struct hk_sandbox *s, const struct hk_sandbox_plan *plan,
		    const struct hk_exec_args *cage_args, char *const *inner_argv, char ***out,
		    struct hk_error *err)
{
	struct hk_argv a = { 0 };
	const char *bwrap = getenv("HARKAQ_BWRAP");
	push(&a, bwrap && *bwrap ? bwrap : "/usr/bin/bwrap");
	push(&a, "--unshare-all");
	push(&a, "--die-with-parent");
	push(&a, "--new-session");
	for (size_t i = 0; i < plan->n_tops; i++) {
		const struct hk_top *t = &plan->tops[i];
		char *dest = hk_xasprintf("/%s", t->name);
		switch (t->kind) {
		case HK_TOP_SYMLINK:
			push3(&a, "--symlink", t->symlink_target, dest);
			break;
		case HK_TOP_BIND:
			push3(&a, "--ro-bind", t->bind_source, dest);
			break;
		case HK_TOP_OVERLAY:
			push3(&a, "--ro-bind", t->merged, dest);
			break;
		}
		free(dest);
	}
	push3(&a, "--proc", "/proc", NULL);
	push3(&a, "--dev", "/dev", NULL);
	push3(&a, "--tmpfs", "/tmp", NULL);
	push3(&a, "--tmpfs", "/var/tmp", NULL);
	if (s->dpkg_db)
		push3(&a, "--ro-bind", s->dpkg_db, "/var/lib/dpkg");
	if (!s->src_dir || !s->out_dir) {
		hk_argv_free(a.v);
		return hk_fail(err, EINVAL, "the sandbox needs a source and an output directory");
	}
	push3(&a, "--bind", s->src_dir, "/src");
	push3(&a, "--bind", s->out_dir, "/out");
	if (s->cache_dir)
		push3(&a, "--bind", s->cache_dir, "/cache");
	if (s->cage) {
		push3(&a, "--ro-bind", s->exec_host_path, HK_SANDBOX_EXEC_PATH);
		push3(&a, "--ro-bind", s->policy_host_path, HK_SANDBOX_POLICY_PATH);
		if (s->collapse_host_path)
			push3(&a, "--ro-bind", s->collapse_host_path, HK_SANDBOX_COLLAPSE_PATH);
		if (s->canary_host_path)
			push3(&a, "--ro-bind", s->canary_host_path, s->canary_sandbox_path);
	}
	if (s->view_links)
		push3(&a, "--ro-bind", s->view_links, HK_VIEW_TRAP_DIR);
	push3(&a, "--chdir", "/src", NULL);
	push(&a, "--");
	if (s->cage) {
		/* The sandbox decides where the cage finds its files; the caller only the fault
		 * injection it asks for. */
		struct hk_exec_args xa = HK_EXEC_ARGS_INIT;
		if (cage_args)
			xa = *cage_args;
		xa.policy_path = HK_SANDBOX_POLICY_PATH;
		xa.status_fd = HK_SANDBOX_STATUS_FD;
		xa.collapse_path = s->collapse_host_path ? HK_SANDBOX_COLLAPSE_PATH : NULL;
		xa.canary_path = s->canary_sandbox_path;
		xa.cmd = (char **)(uintptr_t)inner_argv;
		hk_exec_args_to_argv(&xa, HK_SANDBOX_EXEC_PATH, &a);
		*out = a.v;
		return 0;
	}
	for (size_t i = 0; inner_argv[i]; i++)
		push(&a, inner_argv[i]);
	*out = a.v;
	return 0;
}

void hk_sandbox_argv_binds(char *const *argv, struct hk_reach_list *l)
{
	/* bubblewrap's options as hk_sandbox_argv writes them, with their operand counts; "--"
	 * ends them. */
	for (size_t i = 1; argv[i] && strcmp(argv[i], "--") != 0; i++) {
		const char *o = argv[i];
		if ((strcmp(o, "--bind") == 0 || strcmp(o, "--ro-bind") == 0) && argv[i + 1] &&
		    argv[i + 2]) {
			const char *src = argv[i + 1], *dest = argv[i + 2];
			bool exec = strcmp(dest, HK_SANDBOX_EXEC_PATH) == 0;
			struct stat st;
			bool dir = stat(src, &st) == 0 && S_ISDIR(st.st_mode);
			int mode = exec || dir ? X_OK : R_OK;
			hk_reach_add_bind(l, src, dest, mode, exec ? HK_REACH_HINT_EXEC : NULL);
			i += 2;
		} else if (strcmp(o, "--symlink") == 0) {
			i += 2;
		} else if (strcmp(o, "--proc") == 0 || strcmp(o, "--dev") == 0 ||
			   strcmp(o, "--tmpfs") == 0 || strcmp(o, "--chdir") == 0) {
			i += 1;
		}
	}
}

void hk_sandbox_contract(const struct hk_sandbox *s, struct hk_policy *p)
{
	/* The real read-write surfaces and the scratch directories (with --tmpfs, /var/tmp is
	 * discardable scratch like /tmp: design.md §3.3). */
	hk_policy_add_grant(p, HK_GRANT_RW, "/src");
	hk_policy_add_grant(p, HK_GRANT_RW, "/out");
	hk_policy_add_grant(p, HK_GRANT_RW, "/tmp");
	hk_policy_add_grant(p, HK_GRANT_RW, "/var/tmp");
	if (s->cache_dir)
		hk_policy_add_grant(p, HK_GRANT_RW, "/cache");
	/* bubblewrap's /dev: /dev/null is a write target (design.md §5). */
	hk_policy_add_grant(p, HK_GRANT_RW, "/dev/null");
	hk_policy_add_grant(p, HK_GRANT_RO, "/dev/zero");
	hk_policy_add_grant(p, HK_GRANT_RO, "/dev/full");
	hk_policy_add_grant(p, HK_GRANT_RO, "/dev/random");
	hk_policy_add_grant(p, HK_GRANT_RO, "/dev/urandom");
	/* bubblewrap's /dev/tty: bash and make open it (measured: hello's configure, 11 times).
	 * --new-session leaves the build no controlling terminal, so the open fails with ENXIO
	 * whatever the grant: granting it only keeps a contract surface out of the debt. */
	hk_policy_add_grant(p, HK_GRANT_RW, "/dev/tty");
	/* bubblewrap's /proc: the build's own pid namespace.  rw beneath, because an ro grant on
	 * a directory is READ_DIR only (docs/cage.md) and builds read /proc/self/…, /proc/cpuinfo.
	 * Magic links (/proc/self/root/…) do not widen this: Landlock checks the object reached. */
	hk_policy_add_grant(p, HK_GRANT_RW, "/proc");
	for (size_t i = 0; s->dpkg_db && i < s->n_dpkg_db_files; i++)
		hk_policy_add_grant(p, HK_GRANT_RO, s->dpkg_db_files[i]);
	/* The cage itself must be executable for its canary probe. */
	if (s->cage)
		hk_policy_add_grant(p, HK_GRANT_RO, HK_SANDBOX_EXEC_PATH);
	/* The tree's structure is contract: listing any directory is not debt, reading a file
	 * outside the closure is (design.md §3.3).  READ_DIR on / covers the whole tree. */
	hk_policy_add_grant(p, HK_GRANT_LIST, "/");
}
