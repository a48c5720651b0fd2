/* A Debian build's dpkg state: the closure installed once with dpkg over the base, and what
 * that left kept as a store artifact (debstate.h). */
#include "engine/debian/debstate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine/common/proc.h"
#include "engine/cage/sandbox.h"
#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/formats/json.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"
#include "sys/mountns.h"

void hk_debstate_id(const struct hk_artifact *base, const struct hk_artifact *const *closure,
		    size_t n, char hex[2 * HK_BLAKE3_OUT_LEN + 1])
{
	hk_autostrv struct hk_strv ids = HK_STRV_INIT;
	for (size_t i = 0; i < n; i++)
		hk_strv_push(&ids, closure[i]->id);
	hk_strv_sort_unique(&ids);
	struct hk_buf text = HK_BUF_INIT;
	hk_buf_printf(&text, "harkaq-dpkg-state 1\n%s\n", base->id);
	for (size_t i = 0; i < ids.n; i++)
		hk_buf_printf(&text, "%s\n", ids.v[i]);
	char id[HK_B3_ID_LEN];
	hk_b3_id(text.data, text.len, id);
	hk_buf_free(&text);
	snprintf(hex, 2 * HK_BLAKE3_OUT_LEN + 1, "%s", id + 3);
}

/* ---- the closure's own entries: what the layer need not hold ------------------------------ */

struct shipped {
	const char *path;                    /* relative, as in the manifests */
	const struct hk_tree_entry *e;
};

struct closure_index {
	struct hk_tree *trees;
	size_t n_trees;
	struct shipped *v;                   /* sorted by path (strcmp) */
	size_t n;
};

static int cmp_shipped(const void *a, const void *b)
{
	return strcmp(((const struct shipped *)a)->path, ((const struct shipped *)b)->path);
}

static void closure_index_free(struct closure_index *x)
{
	for (size_t i = 0; i < x->n_trees; i++)
		hk_tree_free(&x->trees[i]);
	free(x->trees);
	free(x->v);
	memset(x, 0, sizeof(*x));
}

static int closure_index_load(const struct hk_debstate_input *in, struct closure_index *x,
			      struct hk_error *err)
{
	memset(x, 0, sizeof(*x));
	x->trees = hk_xcalloc(in->n_closure + 1, sizeof(*x->trees));
	size_t cap = 0;
	for (size_t i = 0; i < in->n_closure; i++) {
		x->trees[i] = (struct hk_tree)HK_TREE_INIT;
		x->n_trees++;
		int r = hk_store_files(in->store, in->closure[i], &x->trees[i], err);
		if (r < 0)
			return hk_wrap(err, "artifact %s", in->closure[i]->dirname);
		for (size_t k = 0; k < x->trees[i].n; k++) {
			const struct hk_tree_entry *e = &x->trees[i].entries[k];
			if (e->type == HK_TREE_DIR)
				continue;
			if (x->n == cap) {
				cap = cap ? 2 * cap : 4096;
				x->v = hk_xrealloc(x->v, cap * sizeof(*x->v));
			}
			x->v[x->n++] = (struct shipped){ e->path, e };
		}
	}
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), cmp_shipped);
	return 0;
}

/* Whether the upper layer's entry `rel` (lstat `st`, at `host`) is exactly what a closure
 * package ships at that path. */
static int shipped_as_is(const struct closure_index *x, const char *rel, const char *host,
			 const struct stat *st, bool *same, struct hk_error *err)
{
	*same = false;
	struct shipped key = { rel, NULL };
	struct shipped *hit = x->n ? bsearch(&key, x->v, x->n, sizeof(*x->v), cmp_shipped) : NULL;
	if (!hit)
		return 0;
	while (hit > x->v && strcmp(hit[-1].path, rel) == 0)
		hit--;
	uint8_t digest[HK_BLAKE3_OUT_LEN];
	bool hashed = false;
	for (; hit < x->v + x->n && strcmp(hit->path, rel) == 0 && !*same; hit++) {
		const struct hk_tree_entry *e = hit->e;
		if (S_ISLNK(st->st_mode) && e->type == HK_TREE_SYMLINK) {
			char target[4096];
			ssize_t n = readlink(host, target, sizeof(target));
			if (n < 0)
				return hk_fail_errno(err, errno, "reading the link %s", host);
			*same = (size_t)n == e->target_len && memcmp(target, e->target, (size_t)n) == 0;
		} else if (S_ISREG(st->st_mode) && e->type == HK_TREE_FILE) {
			if (!hashed) {
				int r = hk_tree_hash_file(AT_FDCWD, host, host, digest, err);
				if (r < 0)
					return r;
				hashed = true;
			}
			*same = memcmp(digest, e->digest, sizeof(digest)) == 0 &&
				e->exec == ((st->st_mode & 0111) != 0);
		}
	}
	return 0;
}

/* ---- copying into the layer --------------------------------------------------------------- */

/* Copies one file or symlink (contents and exec bits, no owner and no extended attribute:
 * an overlay's own attributes must not travel into a tree that is later an overlay layer). */
static int copy_entry(const char *from, const struct stat *st, const char *to,
		      struct hk_error *err)
{
	hk_autofree char *dir = hk_xstrdup(to);
	*strrchr(dir, '/') = '\0';
	int r = hk_mkdir_p(dir, err);
	if (r < 0)
		return r;
	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(from, target, sizeof(target) - 1);
		if (n < 0)
			return hk_fail_errno(err, errno, "reading the link %s", from);
		target[n] = '\0';
		if (symlink(target, to) < 0)
			return hk_fail_errno(err, errno, "creating the link %s", to);
		return 0;
	}
	struct hk_buf bytes = HK_BUF_INIT;
	r = hk_file_read(from, &bytes, err);
	if (r == 0)
		r = hk_file_write_atomic(to, bytes.data, bytes.len, st->st_mode & 0755, err);
	hk_buf_free(&bytes);
	return r;
}

/* What a walk of the upper layer does with each entry. */
struct walk {
	const struct closure_index *closure;
	const char *upper, *layer;
	size_t kept, dropped;
};

/* dpkg's own scratch in the package database: not part of the state. */
static bool dpkg_db_noise(const char *name)
{
	size_t n = strlen(name);
	return strcmp(name, "lock") == 0 || strcmp(name, "lock-frontend") == 0 ||
	       strcmp(name, "Lock") == 0 || (n > 4 && strcmp(name + n - 4, "-old") == 0);
}

/* Copies the package database `from` (the merged view's var/lib/dpkg) into `to`. */
static int copy_dpkg_db(const char *from, const char *to, struct hk_error *err)
{
	int r = hk_mkdir_p(to, err);
	if (r < 0)
		return r;
	int fd = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", from);
	DIR *d = NULL;
	struct dirent *de;
	r = hk_dir_fdopen(fd, from, &d, err);
	while (r == 0 && (r = hk_dir_next(d, from, &de, err)) == 0 && de) {
		if (dpkg_db_noise(de->d_name))
			continue;
		hk_autofree char *src = hk_xasprintf("%s/%s", from, de->d_name);
		hk_autofree char *dst = hk_xasprintf("%s/%s", to, de->d_name);
		struct stat st;
		if (lstat(src, &st) < 0)
			r = hk_fail_errno(err, errno, "cannot inspect %s", src);
		else if (S_ISDIR(st.st_mode))
			r = copy_dpkg_db(src, dst, err);
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			r = copy_entry(src, &st, dst, err);
	}
	if (d)
		closedir(d);
	return r;
}

/* Walks the upper layer's directory `rel` ("" for its root). */
static int walk_upper(struct walk *w, const char *rel, struct hk_error *err)
{
	hk_autofree char *host = hk_xasprintf("%s%s%s", w->upper, *rel ? "/" : "", rel);
	int fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", host);
	DIR *d = NULL;
	struct dirent *de;
	int r = hk_dir_fdopen(fd, host, &d, err);
	while (r == 0 && (r = hk_dir_next(d, host, &de, err)) == 0 && de) {
		hk_autofree char *crel = hk_xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);
		hk_autofree char *chost = hk_xasprintf("%s/%s", host, de->d_name);
		struct stat st;
		if (lstat(chost, &st) < 0) {
			r = hk_fail_errno(err, errno, "cannot inspect %s", chost);
			break;
		}
		/* Only what the sandbox shows: the merged system directories (the package
		 * database is copied whole, apart). */
		if (!hk_sandbox_merges_path(crel))
			continue;
		if (S_ISDIR(st.st_mode)) {
			r = walk_upper(w, crel, err);
			continue;
		}
		if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
			r = hk_fail(err, ENOTSUP, "a maintainer script removed /%s, a file of the "
				    "base: a layer above the base cannot remove it", crel);
			break;
		}
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			r = hk_fail(err, ENOTSUP, "the installation left /%s, %s: a store artifact "
				    "cannot hold it", crel, hk_tree_special_kind(st.st_mode));
			break;
		}
		bool same = false;
		r = shipped_as_is(w->closure, crel, chost, &st, &same, err);
		if (r < 0)
			break;
		if (same) {
			w->dropped++;
			continue;
		}
		hk_autofree char *dst = hk_xasprintf("%s/%s", w->layer, crel);
		r = copy_entry(chost, &st, dst, err);
		w->kept++;
	}
	if (d)
		closedir(d);
	return r;
}

/* ---- the installation --------------------------------------------------------------------- */

/* dpkg, over the base, inside bubblewrap as root: the overlay at `merged` is its root. */
static int run_dpkg(const struct hk_debstate_input *in, const char *merged, const char *log,
		    struct hk_error *err)
{
	const char *bwrap = getenv("HARKAQ_BWRAP");
	hk_autofree char *sde = hk_xstrdup(in->source_date_epoch ? in->source_date_epoch : "0");
	/* --force-depends: the .debs are unpacked all at once, in no particular order (the
	 * closure is complete: apt resolved it), then configured in dependency order. */
	const char *script =
		"dpkg --force-depends --force-confdef --force-confold --unpack /tmp/debs/*.deb "
		">/tmp/log 2>&1 && dpkg --force-confdef --force-confold --configure -a "
		">>/tmp/log 2>&1; rc=$?; cat /tmp/log; exit $rc";
	const char *argv[] = {
		bwrap && *bwrap ? bwrap : "/usr/bin/bwrap",
		/* Root in the host's user namespace (chown to system users must work); no
		 * network; its own pid, IPC and UTS namespaces. */
		"--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
		"--die-with-parent", "--new-session",
		"--bind", merged, "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
		"--ro-bind", in->debs_dir, "/tmp/debs",
		"--clearenv", "--setenv", "PATH", "/usr/sbin:/usr/bin:/sbin:/bin",
		"--setenv", "DEBIAN_FRONTEND", "noninteractive", "--setenv", "LC_ALL", "C",
		"--setenv", "SOURCE_DATE_EPOCH", sde, "--chdir", "/",
		"/bin/sh", "-c", script, NULL,
	};
	struct hk_run_result res;
	int r = hk_run_capture(argv, NULL, &res, err);
	if (r < 0)
		return r;
	struct hk_error ignored;
	if (hk_file_write_atomic(log, res.out.data, res.out.len, 0644, &ignored) < 0) {
		/* dpkg's log is kept for a person to read; the state does not depend on it */
	}
	if (res.status != 0) {
		/* dpkg's last lines say which package and why. */
		const char *out = hk_buf_str(&res.out);
		size_t n = res.out.len, lines = 0;
		while (n > 0 && lines < 4)
			if (out[--n] == '\n' && n + 1 < res.out.len)
				lines++;
		r = hk_fail(err, EIO, "installing the closure with dpkg over the base failed "
			    "(exit %d; log %s): %s%s", res.status, log, n ? "…" : "",
			    out + n + (n ? 1 : 0));
		char line[512];
		if (res.out.len == 0)
			r = hk_fail(err, EIO, "installing the closure with dpkg failed: %s",
				    hk_first_line(&res.errout, line, sizeof(line)));
	}
	hk_run_result_free(&res);
	return r;
}

static void source_json(const struct hk_debstate_input *in, struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "type", "dpkg-state");
	hk_json_kv_str(&j, "base", in->base->id);
	hk_json_key(&j, "packages");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < in->n_closure; i++) {
		hk_json_obj_begin(&j);
		hk_json_kv_str(&j, "name", in->closure[i]->name);
		hk_json_kv_str(&j, "version", in->closure[i]->version);
		hk_json_kv_str(&j, "id", in->closure[i]->id);
		hk_json_obj_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
}

/* The steps of hk_debstate_make once its directories exist: mount, install, keep, unmount. */
static int install_and_keep(const struct hk_debstate_input *in, const char *scratch,
			    const char *layer, struct walk *w, struct hk_error *err)
{
	hk_autofree char *upper = hk_xasprintf("%s/upper", scratch);
	hk_autofree char *work = hk_xasprintf("%s/work", scratch);
	hk_autofree char *merged = hk_xasprintf("%s/merged", scratch);
	const char *log = in->log_path;
	if (mkdir(upper, 0755) < 0 || mkdir(work, 0755) < 0 || mkdir(merged, 0755) < 0)
		return hk_fail_errno(err, errno, "creating the overlay directories in %s", scratch);
	if (strpbrk(in->base->path, ",:") || strpbrk(scratch, ",:"))
		return hk_fail(err, EINVAL, "the store path %s holds ',' or ':', which overlayfs "
			       "options cannot carry", scratch);
	hk_autofree char *opts = hk_xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", in->base->path,
					      upper, work);
	int r = hk_sys_unshare_mounts(err);
	if (r == 0)
		r = hk_sys_mounts_private(err);
	if (r < 0)
		return r;
	r = hk_sys_mount_overlay_rw(merged, opts);
	if (r < 0)
		return hk_fail_errno(err, -r, "mounting the base with a writable layer at %s", merged);
	if (!in->quiet)
		fprintf(stderr, "[state] installing %zu package(s) with dpkg over the base "
				"(maintainer scripts and triggers), once for this closure\n",
			in->n_closure);
	r = run_dpkg(in, merged, log, err);
	if (r == 0) {
		w->upper = upper;
		w->layer = layer;
		r = walk_upper(w, "", err);
	}
	if (r == 0) {
		hk_autofree char *db = hk_xasprintf("%s/var/lib/dpkg", merged);
		hk_autofree char *to = hk_xasprintf("%s/var/lib/dpkg", layer);
		r = copy_dpkg_db(db, to, err);
	}
	hk_sys_unmount(merged);
	return r;
}

int hk_debstate_make(const struct hk_debstate_input *in, const struct hk_artifact **out,
		     struct hk_error *err)
{
	struct closure_index closure;
	hk_autofree char *scratch = NULL, *layer = NULL;
	int r = closure_index_load(in, &closure, err);
	if (r == 0)
		r = hk_store_mktemp(in->store, &scratch, err);
	if (r == 0)
		r = hk_store_mktemp(in->store, &layer, err);
	struct walk w = { .closure = &closure };
	if (r == 0)
		r = install_and_keep(in, scratch, layer, &w, err);
	closure_index_free(&closure);
	/* A whole installation's scratch tree: a leftover is said, whatever the result. */
	struct hk_error rm;
	if (scratch && hk_store_remove_tree(scratch, &rm) < 0)
		fprintf(stderr, "[state] left behind: %s\n", rm.msg);
	if (r == 0) {
		if (!in->quiet)
			fprintf(stderr, "[state] kept %zu entr%s the installation made beyond the "
					"packages' files (%zu identical to theirs left out) and the "
					"package database\n",
				w.kept, w.kept == 1 ? "y" : "ies", w.dropped);
		struct hk_buf src = HK_BUF_INIT;
		source_json(in, &src);
		struct hk_artifact_spec spec = {
			.name = HK_DEBSTATE_NAME,
			.version = in->id_hex,
			.source_json = hk_buf_str(&src),
		};
		/* The layer is consumed: moved into place, or removed on failure. */
		r = hk_store_add(in->store, layer, &spec, HK_STORE_ADD_CONSUME, out, NULL, err);
		hk_buf_free(&src);
		if (r < 0)
			hk_wrap(err, "adding the dpkg state to the store");
		return r;
	}
	if (layer && hk_store_remove_tree(layer, &rm) < 0)
		fprintf(stderr, "[state] left behind: %s\n", rm.msg);
	return r;
}
