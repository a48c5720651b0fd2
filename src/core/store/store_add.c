/* Adding an artifact (docs/store.md, "Adding"): the tree is copied (or taken) into a temporary
 * directory of the store, normalised and hashed; under the store's lock the manifest, metadata
 * and index are written beside it and renamed into place, the metadata last (the commit
 * point).  On any failure nothing of the attempt stays. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/store/store_int.h"
#include "core/basic/strv.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"

#define LOCK_FILE ".lock"

/* ---------------------------------------------------------------------------------------- */
/* trees on disk: removing, normalising, copying                                            */

static int remove_at(int parent_fd, const char *name, const char *shown, struct hk_error *err)
{
	struct stat st;
	if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return hk_fail_errno(err, errno, "cannot stat %s", shown);
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(parent_fd, name, 0) < 0 && errno != ENOENT)
			return hk_fail_errno(err, errno, "cannot remove %s", shown);
		return 0;
	}
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", shown);
	/* A tree extracted from a package may hold read-only directories; as a non-root user
	 * their entries cannot be unlinked until the directory is writable again. */
	if ((st.st_mode & 0700) != 0700 && fchmod(fd, 0700) < 0) {
		int e = errno;
		close(fd);
		return hk_fail_errno(err, e, "cannot make %s writable to empty it", shown);
	}
	DIR *d;
	int r = hk_dir_fdopen(fd, shown, &d, err);
	if (r < 0)
		return r;
	struct dirent *de;
	while ((r = hk_dir_next(d, shown, &de, err)) == 0 && de) {
		hk_autofree char *child = hk_xasprintf("%s/%s", shown, de->d_name);
		r = remove_at(dirfd(d), de->d_name, child, err);
		if (r < 0)
			break;
	}
	closedir(d);
	if (r == 0 && unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = hk_fail_errno(err, errno, "cannot remove %s", shown);
	return r;
}

int hk_store_remove_tree(const char *path, struct hk_error *err)
{
	return remove_at(AT_FDCWD, path, path, err);
}

/* A listing of the directory open as `dfd`, which stays open (and the caller's). */
static int list_dir(int dfd, const char *shown, DIR **d, struct hk_error *err)
{
	int fd = dup(dfd);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot list %s", shown);
	return hk_dir_fdopen(fd, shown, d, err);
}

/* Sets permissions to the store's normal form (docs/store.md): the identity keeps only the
 * executable bit, so the stored tree keeps nothing else either — in particular no set-id
 * bits and no write bits, whatever the package said. */
static int normalise_dir(int dfd, const char *shown, struct hk_error *err)
{
	if (fchmod(dfd, 0755) < 0)
		return hk_fail_errno(err, errno, "cannot set the permissions of %s", shown);
	DIR *d;
	int r = list_dir(dfd, shown, &d, err);
	if (r < 0)
		return r;
	struct dirent *de;
	while ((r = hk_dir_next(d, shown, &de, err)) == 0 && de) {
		hk_autofree char *child = hk_xasprintf("%s/%s", shown, de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = hk_fail_errno(err, errno, "cannot stat %s", child);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				r = hk_fail_errno(err, errno, "cannot open %s", child);
				break;
			}
			r = normalise_dir(cfd, child, err);
			close(cfd);
		} else if (S_ISREG(st.st_mode)) {
			mode_t m = (st.st_mode & 0111) ? 0555 : 0444;
			if ((st.st_mode & 07777) != m && fchmodat(dirfd(d), de->d_name, m, 0) < 0)
				r = hk_fail_errno(err, errno, "cannot set the permissions of %s",
						  child);
		}
		/* Symlinks have no permissions of their own; special files are rejected by the
		 * scan that follows, naming the path. */
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

static int copy_file_content(int in, int out)
{
	bool try_cfr = true;
	char buf[1 << 16];
	for (;;) {
		if (try_cfr) {
			ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
			if (n > 0)
				continue;
			if (n == 0)
				return 0;
			if (errno == EINTR)
				continue;
			if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
			    errno != EOPNOTSUPP)
				return -errno;
			try_cfr = false;
		}
		ssize_t r = read(in, buf, sizeof(buf));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return 0;
		int w = hk_write_all(out, buf, (size_t)r);
		if (w < 0)
			return w;
	}
}

/* Copies the contents of directory `sfd` (shown as `shown`) into the empty directory `dfd`.
 * Modes are set to a provisional form (exec bit kept) and normalised afterwards; times are
 * kept because builds (make) compare them. */
static int copy_dir(int sfd, int dfd, const char *shown, struct hk_error *err)
{
	DIR *d;
	int r = list_dir(sfd, shown, &d, err);
	if (r < 0)
		return r;
	struct dirent *de;
	while ((r = hk_dir_next(d, shown, &de, err)) == 0 && de) {
		const char *name = de->d_name;
		hk_autofree char *child = hk_xasprintf("%s/%s", shown, name);
		struct stat st;
		if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = hk_fail_errno(err, errno, "cannot stat %s", child);
			break;
		}
		struct timespec times[2] = { st.st_atim, st.st_mtim };
		if (S_ISDIR(st.st_mode)) {
			if (mkdirat(dfd, name, 0700) < 0) {
				r = hk_fail_errno(err, errno, "cannot copy the directory %s", child);
				break;
			}
			hk_autoclose int cs = openat(sfd, name, O_RDONLY | O_DIRECTORY |
							       O_NOFOLLOW | O_CLOEXEC);
			hk_autoclose int cd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
							       O_NOFOLLOW | O_CLOEXEC);
			if (cs < 0 || cd < 0) {
				r = hk_fail_errno(err, errno, "cannot open the directory %s", child);
				break;
			}
			r = copy_dir(cs, cd, child, err);
			if (r == 0)
				(void)futimens(cd, times);
		} else if (S_ISREG(st.st_mode)) {
			hk_autoclose int in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
								   O_NOCTTY);
			if (in < 0) {
				r = hk_fail_errno(err, errno, "cannot open %s", child);
				break;
			}
			hk_autoclose int out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
								    O_CLOEXEC,
						      (st.st_mode & 0111) ? 0700 : 0600);
			if (out < 0) {
				r = hk_fail_errno(err, errno, "cannot copy %s", child);
				break;
			}
			int c = copy_file_content(in, out);
			if (c < 0) {
				r = hk_fail_errno(err, -c, "cannot copy %s", child);
				break;
			}
			(void)futimens(out, times);
		} else if (S_ISLNK(st.st_mode)) {
			struct hk_buf target = HK_BUF_INIT;
			size_t cap = 256;
			for (;;) {
				char *buf = hk_xmalloc(cap);
				ssize_t n = readlinkat(sfd, name, buf, cap);
				if (n >= 0 && (size_t)n < cap)
					hk_buf_append(&target, buf, (size_t)n);
				free(buf);
				if (n < 0) {
					r = hk_fail_errno(err, errno, "cannot read the symlink %s",
							  child);
					break;
				}
				if ((size_t)n < cap)
					break;
				cap *= 2;
			}
			if (r == 0 && symlinkat(hk_buf_str(&target), dfd, name) < 0)
				r = hk_fail_errno(err, errno, "cannot copy the symlink %s", child);
			if (r == 0)
				(void)utimensat(dfd, name, times, AT_SYMLINK_NOFOLLOW);
			hk_buf_free(&target);
		} else {
			r = hk_fail(err, EINVAL,
				    "%s is %s; an artifact may hold only regular files, directories "
				    "and symlinks", child, hk_tree_special_kind(st.st_mode));
		}
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

/* ---------------------------------------------------------------------------------------- */
/* the store's lock, temporary directories, what an artifact is                             */

static int lock_store(struct hk_store *s, struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" LOCK_FILE, s->root);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		int e = errno;
		close(fd);
		return hk_fail_errno(err, e, "cannot lock %s", path);
	}
	return fd;
}

int hk_store_mktemp(struct hk_store *s, char **path, struct hk_error *err)
{
	char *p = hk_xasprintf("%s/" TMP_PREFIX "XXXXXX", s->root);
	if (!mkdtemp(p)) {
		int e = errno;
		free(p);
		return hk_fail_errno(err, e, "cannot create a temporary directory in %s", s->root);
	}
	*path = p;
	return 0;
}

static bool is_store_temp(const struct hk_store *s, const char *path)
{
	size_t n = strlen(s->root);
	return strncmp(path, s->root, n) == 0 && path[n] == '/' &&
	       strncmp(path + n + 1, TMP_PREFIX, strlen(TMP_PREFIX)) == 0 &&
	       !strchr(path + n + 1, '/');
}

static int check_spec(const struct hk_artifact_spec *spec, struct hk_error *err)
{
	if (!spec->name || !hk_artifact_name_valid(spec->name))
		return hk_fail(err, EINVAL,
			       "'%s' is not a valid artifact name (letters, digits and '+._-', "
			       "starting with a letter or digit, at most %d bytes)",
			       spec->name ? spec->name : "", NAME_MAX_LEN);
	if (!spec->version || !hk_artifact_version_valid(spec->version))
		return hk_fail(err, EINVAL,
			       "'%s' is not a valid version (printable ASCII without spaces, at "
			       "most %d bytes)", spec->version ? spec->version : "",
			       VERSION_MAX_LEN);
	for (size_t i = 0; i < spec->n_deps; i++) {
		if (spec->deps[i].n_alts == 0)
			return hk_fail(err, EINVAL, "dependency %zu of %s is empty", i + 1,
				       spec->name);
		for (size_t k = 0; k < spec->deps[i].n_alts; k++)
			if (!hk_artifact_name_valid(spec->deps[i].alts[k]))
				return hk_fail(err, EINVAL,
					       "dependency '%s' of %s is not a valid artifact name",
					       spec->deps[i].alts[k], spec->name);
	}
	for (size_t i = 0; i < spec->n_provides; i++)
		if (!hk_artifact_name_valid(spec->provides[i]))
			return hk_fail(err, EINVAL, "'%s' (provided by %s) is not a valid name",
				       spec->provides[i], spec->name);
	if (spec->source_json) {
		struct hk_jval *v = NULL;
		int r = hk_json_parse(spec->source_json, strlen(spec->source_json), &v, err);
		if (r < 0)
			return hk_wrap(err, "the source description of %s", spec->name);
		bool obj = v->type == HK_JOBJ;
		hk_jval_free(v);
		if (!obj)
			return hk_fail(err, EINVAL,
				       "the source description of %s is not a JSON object",
				       spec->name);
	}
	return 0;
}

static char *meta_encode(const struct hk_artifact *a, const char *source_json)
{
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 2);
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "kind", META_KIND);
	hk_json_kv_str(&j, "id", a->id);
	hk_json_kv_str(&j, "name", a->name);
	hk_json_kv_str(&j, "version", a->version);
	hk_json_key(&j, "deps");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < a->n_deps; i++) {
		hk_json_arr_begin(&j);
		for (size_t k = 0; k < a->deps[i].n_alts; k++)
			hk_json_str(&j, a->deps[i].alts[k]);
		hk_json_arr_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_key(&j, "provides");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < a->n_provides; i++)
		hk_json_str(&j, a->provides[i]);
	hk_json_arr_end(&j);
	hk_json_kv_str(&j, "tree", a->tree_id);
	hk_json_kv_uint(&j, "files", a->file_count);
	hk_json_key(&j, "source");
	struct hk_jval *src = NULL;
	struct hk_error ignored;
	/* check_spec already parsed it; parsing again re-indents it with the rest. */
	if (source_json && hk_json_parse(source_json, strlen(source_json), &src, &ignored) == 0)
		hk_json_value(&j, src);
	else
		hk_json_null(&j);
	hk_jval_free(src);
	hk_json_obj_end(&j);
	hk_buf_putc(&out, '\n');
	return hk_buf_steal(&out);
}

/* Moves `path` (a directory or file inside the store) out of the way into a fresh temporary
 * directory and removes it there, so a reader never sees a half-removed tree under its
 * final name. */
static int discard_path(struct hk_store *s, const char *path, struct hk_error *err)
{
	char *tmp = NULL;
	int r = hk_store_mktemp(s, &tmp, err);
	if (r < 0)
		return r;
	hk_autofree char *dst = hk_xasprintf("%s/old", tmp);
	if (rename(path, dst) < 0 && errno != ENOENT) {
		r = hk_fail_errno(err, errno, "cannot move %s out of the way", path);
	}
	struct hk_error e2;
	int r2 = hk_store_remove_tree(tmp, &e2);
	if (r == 0 && r2 < 0) {
		*err = e2;
		r = r2;
	}
	free(tmp);
	return r;
}

/* ---------------------------------------------------------------------------------------- */
/* hk_store_add, step by step                                                               */

/* An add in progress: what each step made, so that the end undoes exactly what was made and
 * not committed. */
struct add_txn {
	struct hk_store *s;
	char *tmp;                    /* STORE/.tmp-XXXXXX holding the tree until it moves */
	struct hk_tree tree;
	struct hk_artifact *a;        /* the new artifact, until the store takes it */
	int lock_fd;
	char *manifest_tmp;           /* written beside their final names, not yet renamed */
	char *meta_tmp;
	char *index_tmp;
};

/* Without HK_STORE_ADD_CONSUME: copies the directory `src_dir` into a new temporary directory
 * of the store. */
static int stage_copy(struct add_txn *t, const char *src_dir, struct hk_error *err)
{
	const char *root = t->s->root;
	struct stat st;
	if (stat(src_dir, &st) < 0)
		return hk_fail_errno(err, errno, "cannot add %s", src_dir);
	if (!S_ISDIR(st.st_mode))
		return hk_fail(err, ENOTDIR, "cannot add %s: not a directory", src_dir);
	/* Copying a directory that holds the store would copy the copy in progress. */
	hk_autofree char *real = realpath(src_dir, NULL);
	if (!real)
		return hk_fail_errno(err, errno, "cannot add %s", src_dir);
	size_t n = strlen(real);
	if (strncmp(root, real, n) == 0 && (root[n] == '/' || root[n] == '\0' || n == 1))
		return hk_fail(err, EINVAL, "cannot add %s: it contains the store %s", src_dir,
			       root);
	int r = hk_store_mktemp(t->s, &t->tmp, err);
	if (r < 0)
		return r;
	hk_autoclose int sfd = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hk_autoclose int dfd = open(t->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 || dfd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", sfd < 0 ? src_dir : t->tmp);
	return copy_dir(sfd, dfd, src_dir, err);
}

/* Puts the staged tree in the store's normal form, then scans and hashes it into t->tree.
 * `shown` names the artifact in a scan error (which would otherwise name the temporary
 * copy; errors from the copy already name the source path). */
static int normalise_and_hash(struct add_txn *t, const char *shown, struct hk_error *err)
{
	hk_autoclose int dfd = open(t->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", t->tmp);
	int r = normalise_dir(dfd, t->tmp, err);
	if (r < 0)
		return r;
	r = hk_tree_scan(t->tmp, &t->tree, err);
	if (r < 0)
		hk_wrap(err, "cannot add %s", shown);
	return r;
}

/* The artifact `spec` and `tree` make: canonical deps and provides, id, paths, metadata. */
static struct hk_artifact *artifact_new(const struct hk_store *s,
					const struct hk_artifact_spec *spec,
					const struct hk_tree *tree)
{
	struct hk_artifact *a = hk_xcalloc(1, sizeof(*a));
	a->name = hk_xstrdup(spec->name);
	a->version = hk_xstrdup(spec->version);
	a->deps = hk_xcalloc(spec->n_deps ? spec->n_deps : 1, sizeof(*a->deps));
	for (size_t i = 0; i < spec->n_deps; i++) {
		struct hk_dep_group *g = &a->deps[a->n_deps++];
		g->alts = hk_xcalloc(spec->deps[i].n_alts, sizeof(char *));
		for (size_t k = 0; k < spec->deps[i].n_alts; k++)
			g->alts[g->n_alts++] = hk_xstrdup(spec->deps[i].alts[k]);
	}
	hk_dep_groups_canonicalise(a->deps, &a->n_deps);
	struct hk_strv provides = HK_STRV_INIT;
	for (size_t i = 0; i < spec->n_provides; i++)
		hk_strv_push(&provides, spec->provides[i]);
	hk_strv_sort_unique(&provides);
	a->n_provides = provides.n;
	a->provides = hk_strv_steal(&provides);
	hk_tree_id(tree, a->tree_id);
	a->file_count = hk_tree_file_count(tree);
	hk_artifact_compute_id(a->name, a->version, a->deps, a->n_deps,
			       (const char *const *)a->provides, a->n_provides, tree->root, a->id);
	a->dirname = hk_xasprintf("%s-%s", a->id + 3, a->name);
	a->path = hk_xasprintf("%s/%s", s->root, a->dirname);
	a->meta_path = hk_xasprintf("%s/" META_DIR "/%s.json", s->root, a->dirname);
	a->meta_json = meta_encode(a, spec->source_json);
	a->origin = store_origin_of_json(spec->source_json);
	return a;
}

/* Takes the store's lock, then catches up with the artifacts other processes added since this
 * handle loaded: the index written next must list theirs too, and one of them may be this
 * very artifact (*have, else NULL). */
static int lock_and_catch_up(struct add_txn *t, const struct hk_artifact **have,
			     struct hk_error *err)
{
	t->lock_fd = lock_store(t->s, err);
	if (t->lock_fd < 0)
		return t->lock_fd;
	int r = store_load_new(t->s, err);
	if (r < 0)
		return r;
	*have = store_find_dirname(t->s, t->a->dirname, strlen(t->a->dirname));
	return 0;
}

/* A tree without metadata under the artifact's name is what an interrupted add leaves behind;
 * the metadata is written last, so that tree was never part of the store: out of the way. */
static int discard_leftover(struct add_txn *t, struct hk_error *err)
{
	struct stat st;
	if (lstat(t->a->path, &st) < 0)
		return 0;
	return discard_path(t->s, t->a->path, err);
}

/* Writes the manifest, the metadata and the new index to temporary files beside their places. */
static int write_pending(struct add_txn *t, struct hk_error *err)
{
	struct hk_store *s = t->s;
	hk_autofree char *meta_dir = hk_xasprintf("%s/" META_DIR, s->root);
	struct hk_buf manifest = HK_BUF_INIT;
	store_manifest_encode(&t->tree, &manifest);
	int r = store_ensure_dir(meta_dir, err);
	if (r == 0)
		r = hk_file_write_temp(meta_dir, manifest.data, manifest.len, 0644, 0,
				       &t->manifest_tmp, err);
	hk_buf_free(&manifest);
	if (r == 0)
		r = hk_file_write_temp(meta_dir, t->a->meta_json, strlen(t->a->meta_json), 0644, 0,
				       &t->meta_tmp, err);
	if (r < 0)
		return r;
	/* The index is merged into, or rebuilt from every manifest when it does not cover the
	 * store's other artifacts (store_index_build): a stale or damaged index is repaired by
	 * any add. */
	r = store_index_build(s, s->arts, s->n_arts, t->a, &t->tree, &t->index_tmp, err);
	if (r < 0)
		hk_wrap(err, "cannot update the path index");
	return r;
}

/* Renames the tree, the manifest, the metadata (the commit point) and the index into place,
 * in that order; if one rename fails, undoes the ones before it. */
static int commit(struct add_txn *t, struct hk_error *err)
{
	struct hk_store *s = t->s;
	const struct hk_artifact *a = t->a;
	hk_autofree char *manifest_path = hk_xasprintf("%s/" META_DIR "/%s.files", s->root,
						       a->dirname);
	hk_autofree char *index_path = hk_xasprintf("%s/" INDEX_FILE, s->root);
	int r = 0, step = 0;
	if (rename(t->tmp, a->path) < 0)
		r = hk_fail_errno(err, errno, "cannot move the new artifact to %s", a->path);
	else if (++step, rename(t->manifest_tmp, manifest_path) < 0)
		r = hk_fail_errno(err, errno, "cannot write %s", manifest_path);
	else if (++step, rename(t->meta_tmp, a->meta_path) < 0)
		r = hk_fail_errno(err, errno, "cannot write %s", a->meta_path);
	else if (++step, rename(t->index_tmp, index_path) < 0)
		r = hk_fail_errno(err, errno, "cannot write %s", index_path);
	if (r == 0)
		return 0;
	/* Undone in reverse order; the metadata file is the commit point, so once it is gone the
	 * artifact is not in the store whatever else remains. */
	if (step >= 3)
		unlink(a->meta_path);
	if (step >= 2)
		unlink(manifest_path);
	if (step >= 1 && rename(a->path, t->tmp) < 0) {
		struct hk_error ignored;
		discard_path(s, a->path, &ignored);
	}
	return r;
}

static void unlink_temp(char **path)
{
	if (*path)
		unlink(*path);
	free(*path);
	*path = NULL;
}

/* Releases the lock and removes whatever the add made that is not in place: temporary files,
 * the staged tree, an artifact the store did not take. */
static void add_txn_end(struct add_txn *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	unlink_temp(&t->manifest_tmp);
	unlink_temp(&t->meta_tmp);
	unlink_temp(&t->index_tmp);
	hk_tree_free(&t->tree);
	if (t->tmp) {
		struct stat st;
		struct hk_error ignored;
		if (lstat(t->tmp, &st) == 0 && hk_store_remove_tree(t->tmp, &ignored) < 0) {
			/* The add's own result is the one reported; a temporary directory is
			 * never an artifact of the store. */
		}
		free(t->tmp);
	}
	store_artifact_free(t->a);
}

int hk_store_stage(struct hk_store *s, const char *src_dir, const struct hk_artifact_spec *spec,
		   char **tmp_path, char id[HK_B3_ID_LEN], struct hk_error *err)
{
	*tmp_path = NULL;
	struct add_txn t = { .s = s, .tree = HK_TREE_INIT, .lock_fd = -1 };
	int r = check_spec(spec, err);
	if (r == 0)
		r = store_ensure_loaded(s, err);
	if (r == 0)
		r = stage_copy(&t, src_dir, err);
	if (r == 0)
		r = normalise_and_hash(&t, src_dir, err);
	if (r == 0) {
		/* The very computation hk_store_add makes: the same id when the copy is added. */
		t.a = artifact_new(s, spec, &t.tree);
		memcpy(id, t.a->id, HK_B3_ID_LEN);
		*tmp_path = hk_steal_ptr(&t.tmp);
	}
	add_txn_end(&t);
	return r;
}

int hk_store_add(struct hk_store *s, const char *src_dir, const struct hk_artifact_spec *spec,
		 unsigned flags, const struct hk_artifact **out, bool *added,
		 struct hk_error *err)
{
	bool consume = flags & HK_STORE_ADD_CONSUME;
	if (consume && !is_store_temp(s, src_dir))
		return hk_fail(err, EINVAL, "%s is not a temporary directory of the store %s",
			       src_dir, s->root);
	/* A consumed directory is the add's from here on: removed on any failure. */
	struct add_txn t = { .s = s, .tmp = consume ? hk_xstrdup(src_dir) : NULL,
			     .tree = HK_TREE_INIT, .lock_fd = -1 };
	const struct hk_artifact *have = NULL;
	int r = check_spec(spec, err);
	if (r == 0)
		r = store_ensure_loaded(s, err);
	if (r == 0 && !consume)
		r = stage_copy(&t, src_dir, err);
	if (r == 0)
		r = normalise_and_hash(&t, consume ? spec->name : src_dir, err);
	if (r == 0) {
		t.a = artifact_new(s, spec, &t.tree);
		r = lock_and_catch_up(&t, &have, err);
	}
	if (r == 0 && !have)
		r = discard_leftover(&t, err);
	if (r == 0 && !have)
		r = write_pending(&t, err);
	if (r == 0 && !have)
		r = commit(&t, err);
	bool fresh = r == 0 && !have;
	struct hk_artifact *a = fresh ? hk_steal_ptr(&t.a) : NULL;
	add_txn_end(&t);
	if (added)
		*added = fresh;
	if (r < 0)
		return r;
	if (have) {
		*out = have;
		return 0;
	}
	store_add_artifact(s, a);
	store_index_unload(s);
	*out = a;
	return 0;
}
