/* Landlock ruleset construction and domain entry.  See landlock.h for the contract. */
#include "sys/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/basic/util.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_CREATE_RULESET_ERRATA  (1U << 1)
#define LL_RULE_PATH_BENEATH      1

/* Our own copies of the uapi structures: the system header's landlock_ruleset_attr may be
 * the ABI-1 one.  The struct grew by one field at ABI 4 (net) and ABI 6 (scoped); the size
 * passed to the kernel is the size the effective ABI knows, so a forced ABI behaves exactly
 * like an older kernel's interface. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

static size_t ruleset_attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct ll_ruleset_attr);
	if (abi >= 4)
		return 2 * sizeof(uint64_t);
	return sizeof(uint64_t);
}

/* ---- pure tables ---- */

uint64_t hk_landlock_fs_rights_for_abi(int abi)
{
	/* Fall-through narrowing, as the kernel's samples/landlock/sandboxer.c does: start from
	 * everything harkaq knows and remove what each older ABI lacks. */
	uint64_t r = HK_LL_FS_ALL;
	if (abi <= 0)
		return 0;
	switch (abi) {
	case 1:
		r &= ~HK_LL_FS_REFER;
		__attribute__((fallthrough));
	case 2:
		r &= ~HK_LL_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3:
	case 4:
		r &= ~HK_LL_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5:
	case 6:
	case 7:
	case 8:
		r &= ~HK_LL_FS_RESOLVE_UNIX;
		break;
	default:
		break;
	}
	return r;
}

uint64_t hk_landlock_scopes_for_abi(int abi)
{
	return abi >= 6 ? (HK_LL_SCOPE_ABSTRACT_UNIX_SOCKET | HK_LL_SCOPE_SIGNAL) : 0;
}

uint64_t hk_landlock_grant_access(enum hk_grant_kind kind, bool is_dir, uint64_t handled)
{
	uint64_t want = 0;
	switch (kind) {
	case HK_GRANT_RO:
		/* Per-file semantics (design.md §3.3): ro never means "everything beneath". */
		want = is_dir ? HK_LL_FS_READ_DIR : (HK_LL_FS_EXECUTE | HK_LL_FS_READ_FILE);
		break;
	case HK_GRANT_LIST:
		want = HK_LL_FS_READ_DIR;
		break;
	case HK_GRANT_RW:
		want = is_dir ? HK_LL_FS_RW_BENEATH : (HK_LL_FS_FILE_RIGHTS & ~HK_LL_FS_EXECUTE);
		break;
	}
	/* Directory-only rights on a non-directory: the kernel answers EINVAL (kernel-facts.md §6). */
	if (!is_dir)
		want &= HK_LL_FS_FILE_RIGHTS;
	return want & handled;
}

static const char *const fs_right_names[HK_LL_FS_NBITS] = {
	"execute",    "write_file", "read_file", "read_dir",  "remove_dir",   "remove_file",
	"make_char",  "make_dir",   "make_reg",  "make_sock", "make_fifo",    "make_block",
	"make_sym",   "refer",      "truncate",  "ioctl_dev", "resolve_unix",
};

const char *hk_landlock_fs_right_name(unsigned bit)
{
	return bit < HK_LL_FS_NBITS ? fs_right_names[bit] : NULL;
}

const char *hk_landlock_scope_name(unsigned bit)
{
	switch (bit) {
	case 0:
		return "abstract_unix_socket";
	case 1:
		return "signal";
	default:
		return NULL;
	}
}

/* ---- probe ---- */

const struct hk_landlock_probe *hk_landlock_probe(void)
{
	static struct hk_landlock_probe cached;
	static bool probed;

	if (probed)
		return &cached;
	probed = true;
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (v < 0) {
		cached.abi = 0;
		cached.unavailable = errno;
		return &cached;
	}
	cached.abi = (int)v;
	/* Kernels older than the errata interface answer EINVAL: no errata known to be fixed. */
	long e = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_ERRATA);
	cached.errata = e < 0 ? 0 : (unsigned)e;
	return &cached;
}

const char *hk_landlock_unavailable_reason(int unavailable)
{
	switch (unavailable) {
	case 0:
		return "Landlock is available";
	case ENOSYS:
		return "Landlock is not built into this kernel (CONFIG_SECURITY_LANDLOCK is off)";
	case EOPNOTSUPP:
		return "Landlock is built into this kernel but disabled at boot (add landlock to the "
		       "lsm= kernel parameter)";
	default:
		return "the Landlock ABI probe failed";
	}
}

/* ---- ruleset ---- */

static void push_index(size_t **v, size_t *n, size_t *cap, size_t idx)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = hk_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = idx;
}

void hk_landlock_report_free(struct hk_landlock_report *report)
{
	free(report->missing);
	free(report->not_dirs);
	*report = (struct hk_landlock_report)HK_LANDLOCK_REPORT_INIT;
}

enum rule_outcome {
	RULE_ADDED,
	RULE_MISSING,      /* the path does not exist */
	RULE_EMPTY,        /* the grant gives this object type nothing */
};

/* ---- read-only superblocks ----
 *
 * Every open asks Landlock for TRUNCATE besides the access it needs (the answer is kept in the
 * file, for a later ftruncate), so where no rule grants it the kernel walks from the file up
 * to the root looking for it: ~1 µs per open of a header deep in the gcc tree (bench/ops.sh),
 * paid by every open of an `ro` file.  On a read-only superblock truncation can never happen:
 * truncate(2), O_TRUNC and any open for writing fail with EROFS before Landlock is asked,
 * through every mount of it, and nothing inside the cage can remount (Landlock refuses mount
 * operations to a restricted process).  So there a rule on a non-directory also carries
 * TRUNCATE, and so does a collapsed directory's rule when nothing is mounted anywhere on its
 * superblock (a mount beneath it would put another filesystem's files beneath the rule).  The
 * check is on the superblock, not the mount: a read-only bind of a writable filesystem leaves
 * the same inode writable through another path, and a rule follows the inode.  The sandbox's
 * merged views are overlays without an upper layer, read-only superblocks. */
struct mount_fact {
	uint64_t id, parent;
	unsigned dev_major, dev_minor;
	bool sb_ro;        /* the superblock's own options say ro */
	bool sb_mounted_on; /* some mount sits on a mount of the same superblock */
};

struct mount_table {
	struct mount_fact *m;
	size_t n;
};

static const struct mount_fact *mount_find(const struct mount_table *t, uint64_t id)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->m[i].id == id)
			return &t->m[i];
	return NULL;
}

/* /proc/self/mountinfo, as far as the rules need it.  Unreadable or odd: an empty table, and
 * then no rule gets TRUNCATE (the cage costs what it cost before, nothing is granted). */
static void mount_table_load(struct mount_table *t)
{
	t->m = NULL;
	t->n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	size_t cap = 0;
	char *line = NULL;
	size_t len = 0;
	bool ok = true;
	while (ok && getline(&line, &len, f) > 0) {
		struct mount_fact m = { 0 };
		int n = 0;
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTS" */
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %u:%u %n", &m.id, &m.parent,
			   &m.dev_major, &m.dev_minor, &n) != 4) {
			ok = false;
			break;
		}
		const char *sep = strstr(line + n, " - ");
		const char *fstype = sep ? sep + 3 : NULL;
		const char *source = fstype ? strchr(fstype, ' ') : NULL;
		const char *opts = source ? strchr(source + 1, ' ') : NULL;
		if (!opts) {
			ok = false;
			break;
		}
		opts++;
		m.sb_ro = strncmp(opts, "ro", 2) == 0 &&
			  (opts[2] == ',' || opts[2] == '\n' || opts[2] == '\0');
		if (t->n == cap) {
			cap = cap ? cap * 2 : 32;
			t->m = hk_xrealloc(t->m, cap * sizeof(*t->m));
		}
		t->m[t->n++] = m;
	}
	free(line);
	fclose(f);
	if (!ok) {
		free(t->m);
		t->m = NULL;
		t->n = 0;
		return;
	}
	/* A mount on top of any mount of a superblock marks every mount of that superblock. */
	for (size_t i = 0; i < t->n; i++) {
		const struct mount_fact *under = mount_find(t, t->m[i].parent);
		if (under == &t->m[i])
			under = NULL; /* a namespace's root may name itself as its parent */
		for (size_t q = 0; under && q < t->n; q++)
			if (t->m[q].dev_major == under->dev_major &&
			    t->m[q].dev_minor == under->dev_minor)
				t->m[q].sb_mounted_on = true;
	}
}

/* One rule: open the object (O_PATH: never restricted, and follows symlinks so the rule lands
 * on the target, which is what the kernel checks), mask the rights by its type, add.  No
 * allocation: this runs once per file of the closure (kernel-facts.md §10, 5–7 µs each).
 * *truncate_added says whether the rule also got TRUNCATE (read-only superblocks, above). */
struct parent_dir;
static int add_path_rule(int ruleset_fd, const char *path, enum hk_grant_kind kind,
			 bool tree_rule, uint64_t handled, const struct mount_table *mounts,
			 struct parent_dir *parent, bool *is_dir, bool *truncate_added,
			 struct hk_error *err);

/* Rights of a rule beneath a collapsed directory (below): exactly what per-file `ro` rules on
 * every file beneath it give, plus READ_DIR, which `list` on every ancestor already gives. */
#define TREE_ACCESS (HK_LL_FS_EXECUTE | HK_LL_FS_READ_FILE | HK_LL_FS_READ_DIR)

/* The directory of the previous rule's object, kept open.  The grants come sorted by path, so
 * consecutive objects mostly share their directory, and opening the last component relative to
 * it walks one component where the whole path walks every one, each through overlayfs's
 * permission checks on the merged inode and on the layer's: a fifth of what opening an object
 * cost (perf, phases on cjson's closure; the rest is the last lookup and the file itself).
 * The result is the same file: the directory is resolved as the whole walk would resolve it
 * (symlinks followed, mounts crossed), and the policy's paths are normalised (no "." or ".."
 * to resolve differently). */
struct parent_dir {
	bool set;   /* path holds a directory (fd may still be -1: it could not be opened) */
	int fd;
	size_t len;
	char path[PATH_MAX + 1];
};

#define PARENT_DIR_INIT { .set = false, .fd = -1, .len = 0 }

static void parent_dir_close(struct parent_dir *pd)
{
	if (pd->fd >= 0)
		close(pd->fd);
	pd->fd = -1;
	pd->set = false;
}

static int open_object(struct parent_dir *pd, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	/* Beneath "/" (or "/" itself) there is nothing to save. */
	if (!pd || dlen == 0 || slash[1] == '\0')
		return open(path, O_PATH | O_CLOEXEC);
	if (!pd->set || pd->len != dlen || memcmp(pd->path, path, dlen) != 0) {
		parent_dir_close(pd);
		memcpy(pd->path, path, dlen);
		pd->path[dlen] = '\0';
		pd->len = dlen;
		pd->set = true;
		pd->fd = open(pd->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	/* No directory to start from: the whole walk, for exactly its errno. */
	if (pd->fd < 0)
		return open(path, O_PATH | O_CLOEXEC);
	return openat(pd->fd, slash + 1, O_PATH | O_CLOEXEC);
}

static int add_path_rule(int ruleset_fd, const char *path, enum hk_grant_kind kind,
			 bool tree_rule, uint64_t handled, const struct mount_table *mounts,
			 struct parent_dir *parent, bool *is_dir, bool *truncate_added,
			 struct hk_error *err)
{
	*truncate_added = false;
	hk_autoclose int fd = open_object(parent, path);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return RULE_MISSING;
		return hk_fail_errno(err, errno, "cannot open %s to add its rule", path);
	}
	/* statx, not fstat: the same cost, and it names the mount (for its superblock). */
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MNT_ID, &stx) < 0)
		return hk_fail_errno(err, errno, "cannot stat %s", path);
	*is_dir = S_ISDIR(stx.stx_mode);
	struct ll_path_beneath_attr rule = {
		.allowed_access = hk_landlock_grant_access(kind, *is_dir, handled),
		.parent_fd = fd,
	};
	if (*is_dir && tree_rule)
		rule.allowed_access = TREE_ACCESS & handled;
	if (rule.allowed_access == 0)
		return RULE_EMPTY;
	const struct mount_fact *mf =
		(stx.stx_mask & STATX_MNT_ID) ? mount_find(mounts, stx.stx_mnt_id) : NULL;
	bool unwritable = mf && mf->sb_ro && (*is_dir ? tree_rule && !mf->sb_mounted_on
						      : kind == HK_GRANT_RO);
	if (unwritable && (handled & HK_LL_FS_TRUNCATE)) {
		rule.allowed_access |= HK_LL_FS_TRUNCATE;
		*truncate_added = true;
	}
	if (syscall(__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
		return hk_fail_errno(err, errno,
				     "landlock_add_rule(%s %s, rights 0x%llx) was refused",
				     hk_grant_kind_name(kind), path,
				     (unsigned long long)rule.allowed_access);
	return RULE_ADDED;
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	return i;
}

/* Whether `dir` (len bytes) is itself a granted path; `order` is sorted by path. */
static bool is_granted(const struct hk_policy_grant *const *order, size_t n, const char *dir,
		       size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *p = order[mid]->path;
		int c = strncmp(p, dir, len);
		if (c == 0 && p[len] != '\0')
			c = 1; /* p is longer: p sorts after dir */
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* ---- collapsed directories ----
 *
 * One rule per file costs 5–16 µs to install (kernel-facts.md §10; the upper figure on an
 * overlay of many layers), paid in every phase: 8.9k files are ~110 ms.  `harkaq build`
 * finds the directories whose whole merged content, recursively, is granted `ro` file by
 * file (src/core/policy/collapse.c: from the closure's manifests and the base root) and hands them
 * to the cage; one rule beneath such a directory grants exactly the same files.  The cage
 * checks what it can cheaply check itself — the directory is on a read-only mount, every
 * grant beneath it is `ro`, the directories do not nest — and otherwise keeps the per-file
 * rules (counted in report->declined).  The policy itself is unchanged. */

/* Orders directories as their "dir/" prefixes sort, which is the order of their grant ranges
 * ("a-b/" sorts before "a/", although "a" sorts before "a-b"). */
static int cmp_dir_prefix(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;
	while (*x && *x == *y) {
		x++;
		y++;
	}
	unsigned cx = *x ? *x : '/', cy = *y ? *y : '/';
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return (int)(!*x && *y) - (int)(*x && !*y); /* "a/" vs "a//…": a prefix sorts first */
}

static bool on_readonly_dir(const char *dir)
{
	hk_autoclose int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct statvfs vfs;
	return fd >= 0 && fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

/* Marks the grants beneath each accepted directory: covered[i], and tree_len[i] > 0 (the
 * directory's length) at the first grant of each range. */
static void plan_collapse(const struct hk_policy_grant *const *order, size_t n,
			  const struct hk_landlock_config *cfg, bool *covered, size_t *tree_len,
			  struct hk_landlock_report *r)
{
	/* In the order of their ranges of grants, so that ranges can be checked for overlap. */
	hk_autofree const char **dirs = hk_xcalloc(cfg->n_collapse, sizeof(*dirs));
	memcpy(dirs, cfg->collapse, cfg->n_collapse * sizeof(*dirs));
	qsort(dirs, cfg->n_collapse, sizeof(*dirs), cmp_dir_prefix);
	size_t prev_hi = 0;
	for (size_t k = 0; k < cfg->n_collapse; k++) {
		const char *dir = dirs[k];
		size_t dlen = strlen(dir);
		if (dir[0] != '/' || dlen < 2 || dlen >= PATH_MAX) {
			r->declined++;
			continue;
		}
		char key[PATH_MAX + 1];
		memcpy(key, dir, dlen);
		key[dlen] = '/';
		key[dlen + 1] = '\0';
		size_t lo = hk_grants_lower_bound(order, n, key);
		key[dlen] = '/' + 1; /* the first path after every "dir/..." */
		size_t hi = hk_grants_lower_bound(order, n, key);
		bool ok = hi > lo && lo >= prev_hi;
		for (size_t i = lo; ok && i < hi; i++)
			if (order[i]->kind != HK_GRANT_RO)
				ok = false;
		if (ok && !on_readonly_dir(dir))
			ok = false;
		if (!ok) {
			r->declined++;
			continue;
		}
		for (size_t i = lo; i < hi; i++)
			covered[i] = true;
		tree_len[lo] = dlen;
		prev_hi = hi;
	}
}

/* ---- installing the rules ----
 *
 * What one rule costs is a handful of syscalls (open, statx, landlock_add_rule, close: 5–7 µs
 * here, kernel-facts.md §10), paid in every phase, so a closure's rules are installed by two
 * threads when the machine has two CPUs: each takes a contiguous range of the sorted grants.
 * The ranges give the same rules and counts as one pass over all of them: an ancestor is added
 * for the first path that needs it, and "needs" is decided from the path before it in the
 * sorted order, whichever thread handled that one.  The threads are joined before anything is
 * restricted (landlock_restrict_self and seccomp apply to the calling thread). */

struct install_ctx {
	const struct hk_policy *policy;
	const struct hk_policy_grant *const *order;
	size_t n;
	const bool *covered;
	const size_t *tree_len;
	bool root_lists;
	int ruleset_fd;
	uint64_t handled;
	const struct mount_table *mounts;
};

struct install_range {
	const struct install_ctx *c;
	size_t lo, hi;
	struct hk_landlock_report r; /* the counts and lists of this range */
	struct hk_error err;
	int rc;
};

static int install_range_from(const struct install_ctx *c, size_t lo, size_t hi,
			      struct parent_dir *parent, struct hk_landlock_report *r,
			      struct hk_error *err)
{
	const struct hk_policy_grant *const *order = c->order;
	const size_t n = c->n;
	const bool *covered = c->covered;
	const size_t *tree_len = c->tree_len;
	const bool root_lists = c->root_lists;
	const int ruleset_fd = c->ruleset_fd;
	const struct hk_policy *policy = c->policy;
	const uint64_t handled = c->handled;
	const struct mount_table *mounts = c->mounts;
	char dir[PATH_MAX + 1];
	char tree[PATH_MAX + 1];
	for (size_t i = lo; i < hi; i++) {
		const struct hk_policy_grant *g = order[i];
		const char *path = g->path;
		size_t len = strlen(path);
		bool is_dir = false, truncate_added = false;
		int rc;

		/* A collapsed directory: its ancestors and one rule, in place of its grants. */
		bool is_tree = tree_len[i] > 0;
		if (is_tree) {
			memcpy(tree, path, tree_len[i]);
			tree[tree_len[i]] = '\0';
			path = tree;
			len = tree_len[i];
		} else if (covered[i]) {
			continue;
		}

		/* Ancestors first: "/" once, then every P[0..k) with P[k] == '/' that the previous
		 * path did not already have.  Ancestors that are granted themselves get their own
		 * rule (any grant on a directory includes READ_DIR); missing ancestors need no
		 * report: the grant beneath them is reported missing. */
		size_t shared = i > 0 ? common_prefix(path, order[i - 1]->path) : 0;
		for (size_t k = 0; k < len && !root_lists; k++) {
			if (path[k] != '/')
				continue;
			size_t dlen = k == 0 ? 1 : k; /* k == 0 is the root */
			if (k == 0 ? i > 0 : k < shared)
				continue;
			if (dlen == len)
				break; /* the path is "/" itself */
			if (is_granted(order, n, path, dlen))
				continue;
			memcpy(dir, path, dlen);
			dir[dlen] = '\0';
			rc = add_path_rule(ruleset_fd, dir, HK_GRANT_LIST, false, handled, mounts,
					   parent, &is_dir, &truncate_added, err);
			if (rc < 0)
				return hk_wrap(err, "ancestor of %s", path);
			if (rc == RULE_ADDED)
				r->ancestors++;
		}

		if (is_tree) {
			/* Up to the next collapsed range, which may follow at once. */
			size_t end = i + 1;
			while (end < n && covered[end] && tree_len[end] == 0)
				end++;
			rc = add_path_rule(ruleset_fd, path, HK_GRANT_RO, true, handled, mounts,
					   parent, &is_dir, &truncate_added, err);
			if (rc < 0)
				return rc;
			if (rc != RULE_ADDED || !is_dir)
				return hk_fail(err, EIO, "%s changed while its rules were installed", path);
			r->beneath++;
			r->ro_sb_truncate += truncate_added;
			r->covered += end - i;
			i = end - 1;
			continue;
		}
		rc = add_path_rule(ruleset_fd, path, g->kind, false, handled, mounts, parent,
				   &is_dir, &truncate_added, err);
		if (rc < 0)
			return rc;
		size_t idx = (size_t)(g - policy->grants);
		switch (rc) {
		case RULE_ADDED:
			r->rules++;
			r->ro_sb_truncate += truncate_added;
			if (g->kind == HK_GRANT_RO && is_dir)
				r->ro_dirs++;
			break;
		case RULE_MISSING:
			push_index(&r->missing, &r->n_missing, &r->cap_missing, idx);
			break;
		case RULE_EMPTY:
			push_index(&r->not_dirs, &r->n_not_dirs, &r->cap_not_dirs, idx);
			break;
		}
	}
	return 0;
}

static int install_range(const struct install_ctx *c, size_t lo, size_t hi,
			 struct hk_landlock_report *r, struct hk_error *err)
{
	struct parent_dir parent = PARENT_DIR_INIT;
	int rc = install_range_from(c, lo, hi, &parent, r, err);
	parent_dir_close(&parent);
	return rc;
}

static void *install_range_thread(void *arg)
{
	struct install_range *t = arg;
	t->rc = install_range(t->c, t->lo, t->hi, &t->r, &t->err);
	return NULL;
}

static void append_indices(size_t **v, size_t *n, size_t *cap, const size_t *add, size_t n_add)
{
	for (size_t i = 0; i < n_add; i++)
		push_index(v, n, cap, add[i]);
}

/* Below this many grants a second thread costs more than it saves. */
#define INSTALL_SPLIT_MIN 512

/* The CPUs this thread may run on, not those the machine has: a build pinned to one CPU
 * (taskset, a cgroup's cpuset) gains nothing from a second installer, only its cost. */
static int usable_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int install_rules(const struct install_ctx *c, struct hk_landlock_report *r,
			 struct hk_error *err)
{
	/* The split: the middle, moved forward out of any collapsed directory's range (a range
	 * is installed as one rule, by one thread). */
	size_t split = c->n;
	if (c->n >= INSTALL_SPLIT_MIN && usable_cpus() >= 2) {
		split = c->n / 2;
		while (split < c->n && c->covered[split] && c->tree_len[split] == 0)
			split++;
	}
	struct install_range second = { .c = c, .lo = split, .hi = c->n,
					 .r = HK_LANDLOCK_REPORT_INIT };
	pthread_t tid;
	bool threaded = split < c->n && pthread_create(&tid, NULL, install_range_thread,
						       &second) == 0;
	r->installers = threaded ? 2 : 1;
	int rc = install_range(c, 0, threaded ? split : c->n, r, err);
	if (!threaded)
		return rc;
	pthread_join(tid, NULL);
	if (rc == 0 && second.rc < 0) {
		*err = second.err;
		rc = second.rc;
	}
	r->rules += second.r.rules;
	r->ancestors += second.r.ancestors;
	r->ro_dirs += second.r.ro_dirs;
	r->beneath += second.r.beneath;
	r->covered += second.r.covered;
	r->ro_sb_truncate += second.r.ro_sb_truncate;
	append_indices(&r->missing, &r->n_missing, &r->cap_missing, second.r.missing,
		       second.r.n_missing);
	append_indices(&r->not_dirs, &r->n_not_dirs, &r->cap_not_dirs, second.r.not_dirs,
		       second.r.n_not_dirs);
	hk_landlock_report_free(&second.r);
	return rc;
}

int hk_landlock_build(const struct hk_policy *policy, const struct hk_landlock_config *cfg,
		      struct hk_landlock_report *report, struct hk_error *err)
{
	const struct hk_landlock_probe *probe = hk_landlock_probe();
	struct hk_landlock_report *r = report;

	if (cfg->abi < 1)
		return hk_fail(err, EINVAL, "Landlock ABI %d has no rulesets", cfg->abi);
	if (cfg->abi > probe->abi)
		return hk_fail(err, EINVAL, "cannot behave as Landlock ABI %d: the kernel's ABI is %d",
			       cfg->abi, probe->abi);

	uint64_t known = hk_landlock_fs_rights_for_abi(cfg->abi);
	uint64_t requested_scopes = 0;
	if (cfg->policy_scopes & HK_SCOPE_ABSTRACT_UNIX_SOCKET)
		requested_scopes |= HK_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
	if (cfg->policy_scopes & HK_SCOPE_SIGNAL)
		requested_scopes |= HK_LL_SCOPE_SIGNAL;

	r->abi = cfg->abi;
	r->handled_fs = HK_LL_FS_ALL & known;
	r->dropped_fs = HK_LL_FS_ALL & ~known;
	r->scopes = requested_scopes & hk_landlock_scopes_for_abi(cfg->abi);
	r->dropped_scopes = requested_scopes & ~r->scopes;
	r->restrict_flags = 0;
	r->log_flag_withheld = false;
	if (cfg->abi >= 7) {
		/* Without it, denials after execve are never logged and every build would be
		 * certified hermetic (design.md §3.5, kernel-facts.md §2). */
		if (cfg->withhold_log_flag)
			r->log_flag_withheld = true;
		else
			r->restrict_flags |= HK_LL_RESTRICT_LOG_NEW_EXEC_ON;
	}
	if (cfg->abi >= 8)
		r->restrict_flags |= HK_LL_RESTRICT_TSYNC;
	r->rules = r->ancestors = r->ro_dirs = r->beneath = r->covered = r->declined = 0;
	r->ro_sb_truncate = 0;
	r->n_missing = r->n_not_dirs = 0;

	/* Network rights are not handled: the sandbox's network namespace is empty (design.md §13). */
	struct ll_ruleset_attr attr = { .handled_access_fs = r->handled_fs, .scoped = r->scopes };
	hk_autoclose int ruleset_fd = (int)syscall(__NR_landlock_create_ruleset, &attr,
						   ruleset_attr_size(cfg->abi), 0);
	if (ruleset_fd < 0)
		return hk_fail_errno(err, errno,
				     "landlock_create_ruleset (ABI %d, fs rights 0x%llx, scopes 0x%llx)",
				     cfg->abi, (unsigned long long)r->handled_fs,
				     (unsigned long long)r->scopes);

	/* Visit the grants in path order.  Paths with a common prefix D + "/" are contiguous in
	 * that order, so an ancestor D is new exactly when the previous path does not share it:
	 * the ancestor set is deduplicated in one pass, without storing it. */
	size_t n = policy->n_grants;
	hk_autofree const struct hk_policy_grant **order = hk_policy_grants_by_path(policy);

	for (size_t i = 0; i < n; i++) {
		if (order[i]->path[0] != '/')
			return hk_fail(err, EINVAL, "policy path %s is not absolute", order[i]->path);
		if (strlen(order[i]->path) > PATH_MAX)
			return hk_fail(err, ENAMETOOLONG, "policy path %.64s… is too long",
				       order[i]->path);
	}

	hk_autofree bool *covered = hk_xcalloc(n ? n : 1, sizeof(*covered));
	hk_autofree size_t *tree_len = hk_xcalloc(n ? n : 1, sizeof(*tree_len));
	if (cfg->n_collapse > 0)
		plan_collapse(order, n, cfg, covered, tree_len, r);

	/* READ_DIR beneath "/" (a `list /`, as every derived policy has, or any grant on "/")
	 * already lists every ancestor: their own rules would add nothing. */
	bool root_lists = false;
	for (size_t i = 0; i < n && !root_lists; i++)
		root_lists = strcmp(order[i]->path, "/") == 0 &&
			     (hk_landlock_grant_access(order[i]->kind, true, r->handled_fs) &
			      HK_LL_FS_READ_DIR);

	struct mount_table mounts;
	mount_table_load(&mounts);
	struct install_ctx ctx = {
		.policy = policy, .order = order, .n = n, .covered = covered, .tree_len = tree_len,
		.root_lists = root_lists, .ruleset_fd = ruleset_fd, .handled = r->handled_fs,
		.mounts = &mounts,
	};
	int rc = install_rules(&ctx, r, err);
	free(mounts.m);
	if (rc < 0)
		return rc;
	return hk_steal_fd(&ruleset_fd);
}

int hk_landlock_restrict(int ruleset_fd, unsigned flags, struct hk_error *err)
{
	if (syscall(__NR_landlock_restrict_self, ruleset_fd, flags) < 0)
		return hk_fail_errno(err, errno, "landlock_restrict_self(flags 0x%x) was refused",
				     flags);
	return 0;
}

int hk_landlock_apply(const struct hk_policy *policy, const struct hk_landlock_config *cfg,
		      struct hk_landlock_report *report, struct hk_error *err)
{
	hk_autoclose int ruleset_fd = hk_landlock_build(policy, cfg, report, err);
	if (ruleset_fd < 0)
		return ruleset_fd;
	return hk_landlock_restrict(ruleset_fd, report->restrict_flags, err);
}
