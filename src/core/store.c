/* The content-addressed store: layout and formats in docs/store.md. */
#include "core/store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/dir.h"
#include "core/json.h"
#include "core/util.h"

#define STORE_MARKER ".harkaq-store"
#define STORE_MARKER_TEXT "harkaq-store 1\n"
#define META_DIR ".meta"
#define INDEX_DIR ".index"
#define INDEX_FILE ".index/paths"
#define INDEX_HEADER "harkaq-path-index 1\n"
#define MANIFEST_HEADER "harkaq-manifest 1\n"
#define META_KIND "harkaq.artifact.v1"
#define LOCK_FILE ".lock"
#define TMP_PREFIX ".tmp-"
#define SEAL_SUFFIX ".verity"
#define SEAL_HEADER "harkaq-seal 1\n"
#define HEX_LEN (2 * HK_BLAKE3_OUT_LEN)
#define NAME_MAX_LEN 128
#define VERSION_MAX_LEN 256

/* One line of the path index: "<escaped sandbox path> <dirname>", pointing into index_text. */
struct index_line {
	const char *path;
	size_t path_len;
	const char *dir;
	size_t dir_len;
};

struct hk_store {
	char *root;                    /* absolute */
	struct hk_artifact **arts;     /* sorted by name, version, id (see sort_artifacts) */
	size_t n_arts, cap_arts;
	bool loaded;
	char *index_text;              /* NULL until the index is loaded */
	struct index_line *index;
	size_t n_index;
};

/* ---------------------------------------------------------------------------------------- */
/* small file helpers                                                                       */

static int read_whole_file(const char *path, struct hk_buf *out, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", path);
	char buf[1 << 14];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return hk_fail_errno(err, errno, "cannot read %s", path);
		}
		if (r == 0)
			return 0;
		hk_buf_append(out, buf, (size_t)r);
	}
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes `data` to a new temporary file in `dir` (named .tmp-XXXXXX, mode 0644) and returns
 * its path in *tmp_path; the caller renames it into place or unlinks it. */
static int write_temp_file(const char *dir, const void *data, size_t n, char **tmp_path,
			   struct hk_error *err)
{
	char *path = hk_xasprintf("%s/" TMP_PREFIX "XXXXXX", dir);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(path);
		return hk_fail_errno(err, e, "cannot create a temporary file in %s", dir);
	}
	int r = write_all(fd, data, n);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(path);
		hk_fail_errno(err, -r, "cannot write %s", path);
		free(path);
		return r;
	}
	*tmp_path = path;
	return 0;
}

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
	(void)fchmod(fd, 0700);
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

/* Sets permissions to the store's normal form (docs/store.md): the identity keeps only the
 * executable bit, so the stored tree keeps nothing else either — in particular no set-id
 * bits and no write bits, whatever the package said. */
static int normalise_dir(int dfd, const char *shown, struct hk_error *err)
{
	if (fchmod(dfd, 0755) < 0)
		return hk_fail_errno(err, errno, "cannot set the permissions of %s", shown);
	int fd = dup(dfd);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot list %s", shown);
	DIR *d;
	int r = hk_dir_fdopen(fd, shown, &d, err);
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
		int w = write_all(out, buf, (size_t)r);
		if (w < 0)
			return w;
	}
}

/* Copies the contents of directory `sfd` (shown as `shown`) into the empty directory `dfd`.
 * Modes are set to a provisional form (exec bit kept) and normalised afterwards; times are
 * kept because builds (make) compare them. */
static int copy_dir(int sfd, int dfd, const char *shown, struct hk_error *err)
{
	int fd = dup(sfd);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot list %s", shown);
	DIR *d;
	int r = hk_dir_fdopen(fd, shown, &d, err);
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
/* names, dependency groups, identity                                                       */

const char *hk_artifact_origin_name(enum hk_artifact_origin o)
{
	switch (o) {
	case HK_ORIGIN_DEB: return "deb";
	case HK_ORIGIN_OTHER: return "added";
	case HK_ORIGIN_BUILD: return "build";
	case HK_ORIGIN_BASE: return "base";
	}
	return "added";
}

bool hk_artifact_name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > NAME_MAX_LEN || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!isalnum(c) && c != '+' && c != '.' && c != '_' && c != '-')
			return false;
	}
	return true;
}

static bool version_valid(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n > VERSION_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x21 || (unsigned char)v[i] > 0x7e)
			return false;
	return true;
}

static int group_cmp(const struct hk_dep_group *a, const struct hk_dep_group *b)
{
	for (size_t i = 0; i < a->n_alts && i < b->n_alts; i++) {
		int c = strcmp(a->alts[i], b->alts[i]);
		if (c)
			return c;
	}
	return a->n_alts < b->n_alts ? -1 : a->n_alts > b->n_alts ? 1 : 0;
}

static int group_qsort_cmp(const void *a, const void *b)
{
	return group_cmp(a, b);
}

static void group_free(struct hk_dep_group *g)
{
	for (size_t i = 0; i < g->n_alts; i++)
		free(g->alts[i]);
	free(g->alts);
	g->alts = NULL;
	g->n_alts = 0;
}

void hk_dep_groups_canonicalise(struct hk_dep_group *g, size_t *n)
{
	if (*n == 0)
		return;
	qsort(g, *n, sizeof(*g), group_qsort_cmp);
	size_t w = 1;
	for (size_t i = 1; i < *n; i++) {
		if (group_cmp(&g[w - 1], &g[i]) == 0)
			group_free(&g[i]);
		else
			g[w++] = g[i];
	}
	*n = w;
}

void hk_dep_groups_free(struct hk_dep_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		group_free(&g[i]);
	free(g);
}

char *hk_dep_group_str(const struct hk_dep_group *g)
{
	struct hk_buf b = HK_BUF_INIT;
	for (size_t i = 0; i < g->n_alts; i++) {
		if (i)
			hk_buf_puts(&b, " | ");
		hk_buf_puts(&b, g->alts[i]);
	}
	return hk_buf_steal(&b);
}

static int str_qsort_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique_strings(char **v, size_t *n)
{
	if (*n == 0)
		return;
	qsort(v, *n, sizeof(*v), str_qsort_cmp);
	size_t w = 1;
	for (size_t i = 1; i < *n; i++) {
		if (strcmp(v[w - 1], v[i]) == 0)
			free(v[i]);
		else
			v[w++] = v[i];
	}
	*n = w;
}

static void put_u64le(struct hk_blake3 *h, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	hk_blake3_update(h, b, sizeof(b));
}

static void put_str(struct hk_blake3 *h, const char *s)
{
	size_t n = strlen(s);
	put_u64le(h, n);
	hk_blake3_update(h, s, n);
}

void hk_artifact_compute_id(const char *name, const char *version,
			    const struct hk_dep_group *deps, size_t n_deps,
			    const char *const *provides, size_t n_provides,
			    const uint8_t tree_root[HK_BLAKE3_OUT_LEN], char out[HK_B3_ID_LEN])
{
	/* The serialisation documented in docs/store.md ("Artifact id"). */
	static const char magic[] = "harkaq-artifact-v1";
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_blake3_update(&h, magic, sizeof(magic));
	put_str(&h, name);
	put_str(&h, version);
	put_u64le(&h, n_deps);
	for (size_t i = 0; i < n_deps; i++) {
		put_u64le(&h, deps[i].n_alts);
		for (size_t k = 0; k < deps[i].n_alts; k++)
			put_str(&h, deps[i].alts[k]);
	}
	put_u64le(&h, n_provides);
	for (size_t i = 0; i < n_provides; i++)
		put_str(&h, provides[i]);
	hk_blake3_update(&h, tree_root, HK_BLAKE3_OUT_LEN);
	uint8_t digest[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, digest, sizeof(digest));
	memcpy(out, "b3:", 3);
	hk_hex(digest, sizeof(digest), out + 3);
}

/* ---------------------------------------------------------------------------------------- */
/* opening, artifacts                                                                       */

const char *hk_store_choose_dir(const char *option)
{
	if (option)
		return option;
	const char *env = getenv("HARKAQ_STORE");
	if (env && env[0])
		return env;
	return "./store";
}

const char *hk_store_dir(const struct hk_store *s)
{
	return s->root;
}

static void artifact_free(struct hk_artifact *a)
{
	if (!a)
		return;
	free(a->dirname);
	free(a->path);
	free(a->meta_path);
	free(a->name);
	free(a->version);
	hk_dep_groups_free(a->deps, a->n_deps);
	for (size_t i = 0; i < a->n_provides; i++)
		free(a->provides[i]);
	free(a->provides);
	free(a->meta_json);
	free(a);
}

static void index_unload(struct hk_store *s)
{
	free(s->index_text);
	free(s->index);
	s->index_text = NULL;
	s->index = NULL;
	s->n_index = 0;
}

void hk_store_close(struct hk_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_arts; i++)
		artifact_free(s->arts[i]);
	free(s->arts);
	index_unload(s);
	free(s->root);
	free(s);
}

static int ensure_dir(const char *path, struct hk_error *err)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return hk_fail_errno(err, errno, "cannot create %s", path);
	return 0;
}

int hk_store_open(const char *dir, bool create, struct hk_store **out, struct hk_error *err)
{
	struct stat st;
	if (stat(dir, &st) < 0) {
		if (errno == ENOENT && !create)
			return hk_fail(err, ENOENT, "the store %s does not exist (give --store DIR "
				       "or set HARKAQ_STORE; 'harkaq store add' and 'import-deb' "
				       "create it)", dir);
		if (errno != ENOENT)
			return hk_fail_errno(err, errno, "store %s", dir);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return hk_fail_errno(err, errno, "cannot create the store %s", dir);
	} else if (!S_ISDIR(st.st_mode)) {
		return hk_fail(err, ENOTDIR, "store %s is not a directory", dir);
	}
	hk_autofree char *root = realpath(dir, NULL);
	if (!root)
		return hk_fail_errno(err, errno, "store %s", dir);
	hk_autofree char *marker = hk_xasprintf("%s/" STORE_MARKER, root);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e2;
	if (read_whole_file(marker, &text, &e2) < 0) {
		hk_buf_free(&text);
		if (e2.code != ENOENT)
			return hk_fail(err, e2.code, "%s", e2.msg);
		if (!create)
			return hk_fail(err, ENOENT,
				       "%s is not a harkaq store (no %s; create one with 'harkaq "
				       "store add' or 'harkaq store import-deb')", root, STORE_MARKER);
		/* Only an empty directory becomes a store: never adopt a directory that holds
		 * something else. */
		DIR *d = opendir(root);
		if (!d)
			return hk_fail_errno(err, errno, "cannot list %s", root);
		struct dirent *de;
		bool empty = true;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				empty = false;
		closedir(d);
		if (!empty)
			return hk_fail(err, EEXIST,
				       "%s is not empty and not a harkaq store (no %s); refusing to "
				       "turn it into one", root, STORE_MARKER);
		char *tmp = NULL;
		int r = write_temp_file(root, STORE_MARKER_TEXT, strlen(STORE_MARKER_TEXT), &tmp,
					err);
		if (r < 0)
			return r;
		if (rename(tmp, marker) < 0) {
			r = hk_fail_errno(err, errno, "cannot create %s", marker);
			unlink(tmp);
			free(tmp);
			return r;
		}
		free(tmp);
	} else {
		bool ok = strcmp(hk_buf_str(&text), STORE_MARKER_TEXT) == 0;
		hk_buf_free(&text);
		if (!ok)
			return hk_fail(err, EINVAL,
				       "%s: not a store of a format this harkaq knows (expected "
				       "\"harkaq-store 1\")", marker);
	}
	hk_autofree char *meta = hk_xasprintf("%s/" META_DIR, root);
	hk_autofree char *index = hk_xasprintf("%s/" INDEX_DIR, root);
	if (create) {
		int r = ensure_dir(meta, err);
		if (r == 0)
			r = ensure_dir(index, err);
		if (r < 0)
			return r;
	}
	struct hk_store *s = hk_xcalloc(1, sizeof(*s));
	s->root = hk_steal_ptr(&root);
	*out = s;
	return 0;
}

static int artifact_cmp(const void *a, const void *b)
{
	const struct hk_artifact *x = *(const struct hk_artifact *const *)a;
	const struct hk_artifact *y = *(const struct hk_artifact *const *)b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->version, y->version);
	if (!c)
		c = strcmp(x->id, y->id);
	return c;
}

static void sort_artifacts(struct hk_store *s)
{
	if (s->n_arts)
		qsort(s->arts, s->n_arts, sizeof(*s->arts), artifact_cmp);
	for (size_t i = 0; i < s->n_arts; i++)
		s->arts[i]->index_ = i;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static const char *jstr(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR && strlen(v->str) == v->len ? v->str : NULL;
}

/* Where an artifact came from, read from its provenance ("source"): a Debian package's
 * import writes "type": "deb", a pinned base "type": "base", a sealed build output
 * "built_by". */
static enum hk_artifact_origin origin_of(const struct hk_jval *source)
{
	if (!source || source->type != HK_JOBJ)
		return HK_ORIGIN_OTHER;
	const char *type = jstr(source, "type");
	if (type && strcmp(type, "deb") == 0)
		return HK_ORIGIN_DEB;
	if (type && strcmp(type, "base") == 0)
		return HK_ORIGIN_BASE;
	if (jstr(source, "built_by"))
		return HK_ORIGIN_BUILD;
	return HK_ORIGIN_OTHER;
}

static enum hk_artifact_origin origin_of_text(const char *source_json)
{
	struct hk_jval *v = NULL;
	struct hk_error ignored;
	if (!source_json || hk_json_parse(source_json, strlen(source_json), &v, &ignored) < 0)
		return HK_ORIGIN_OTHER;
	enum hk_artifact_origin o = origin_of(v);
	hk_jval_free(v);
	return o;
}

/* Parses and checks one metadata file.  `dirname` is its expected directory name (from the
 * file name).  The recorded identity must hash to the directory name, so metadata cannot be
 * edited without the store noticing. */
static int load_meta(const char *root, const char *dirname, struct hk_artifact **out,
		     struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" META_DIR "/%s.json", root, dirname);
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(path, &text, err);
	if (r < 0) {
		hk_buf_free(&text);
		return r;
	}
	struct hk_jval *v = NULL;
	r = hk_json_parse(hk_buf_str(&text), text.len, &v, err);
	if (r < 0) {
		hk_buf_free(&text);
		return hk_wrap(err, "%s", path);
	}
	struct hk_artifact *a = hk_xcalloc(1, sizeof(*a));
	a->meta_json = hk_buf_steal(&text);
	const char *why = NULL;
	const char *kind = jstr(v, "kind"), *id = jstr(v, "id"), *name = jstr(v, "name");
	const char *version = jstr(v, "version"), *tree = jstr(v, "tree");
	const struct hk_jval *deps = hk_jobj_get(v, "deps");
	const struct hk_jval *provides = hk_jobj_get(v, "provides");
	const struct hk_jval *files = hk_jobj_get(v, "files");
	if (v->type != HK_JOBJ)
		why = "not a JSON object";
	else if (!kind || strcmp(kind, META_KIND) != 0)
		why = "\"kind\" is not \"" META_KIND "\"";
	else if (!id || strlen(id) != 3 + HEX_LEN || strncmp(id, "b3:", 3) ||
		 !is_hex(id + 3, HEX_LEN))
		why = "\"id\" is not a b3: id";
	else if (!name || !hk_artifact_name_valid(name))
		why = "\"name\" is missing or not a valid artifact name";
	else if (!version || !version_valid(version))
		why = "\"version\" is missing or not valid";
	else if (!tree || strlen(tree) != 3 + HEX_LEN || strncmp(tree, "b3:", 3) ||
		 !is_hex(tree + 3, HEX_LEN))
		why = "\"tree\" is not a b3: id";
	else if (!deps || deps->type != HK_JARR)
		why = "\"deps\" is not an array";
	else if (!provides || provides->type != HK_JARR)
		why = "\"provides\" is not an array";
	else if (!files || files->type != HK_JNUM || !files->is_int || files->i < 0)
		why = "\"files\" is not a count";
	if (!why) {
		a->name = hk_xstrdup(name);
		a->version = hk_xstrdup(version);
		memcpy(a->id, id, HK_B3_ID_LEN);
		memcpy(a->tree_id, tree, HK_B3_ID_LEN);
		a->file_count = (size_t)files->i;
		a->deps = hk_xcalloc(deps->len ? deps->len : 1, sizeof(*a->deps));
		for (size_t i = 0; !why && i < deps->len; i++) {
			const struct hk_jval *g = &deps->items[i];
			if (g->type != HK_JARR || g->len == 0) {
				why = "a \"deps\" group is not a non-empty array";
				break;
			}
			struct hk_dep_group *dg = &a->deps[a->n_deps++];
			dg->alts = hk_xcalloc(g->len, sizeof(char *));
			for (size_t k = 0; k < g->len; k++) {
				const struct hk_jval *alt = &g->items[k];
				if (alt->type != HK_JSTR || !hk_artifact_name_valid(alt->str)) {
					why = "a \"deps\" name is not a valid artifact name";
					break;
				}
				dg->alts[dg->n_alts++] = hk_xstrdup(alt->str);
			}
		}
		a->provides = hk_xcalloc(provides->len ? provides->len : 1, sizeof(char *));
		for (size_t i = 0; !why && i < provides->len; i++) {
			const struct hk_jval *p = &provides->items[i];
			if (p->type != HK_JSTR || !hk_artifact_name_valid(p->str)) {
				why = "a \"provides\" name is not a valid artifact name";
				break;
			}
			a->provides[a->n_provides++] = hk_xstrdup(p->str);
		}
	}
	if (!why)
		a->origin = origin_of(hk_jobj_get(v, "source"));
	hk_jval_free(v);
	char expect_dir[HEX_LEN + 2 + NAME_MAX_LEN + 1];
	if (!why) {
		snprintf(expect_dir, sizeof(expect_dir), "%s-%s", a->id + 3, a->name);
		if (strcmp(expect_dir, dirname) != 0)
			why = "its id and name do not match its file name";
	}
	if (!why) {
		/* Recompute the identity from the recorded fields: metadata edited by hand (a dep
		 * removed, a version changed) no longer hashes to its directory name. */
		uint8_t root_hash[HK_BLAKE3_OUT_LEN];
		(void)hk_unhex(a->tree_id + 3, HK_BLAKE3_OUT_LEN, root_hash); /* validated above */
		bool canonical = true;
		for (size_t i = 1; canonical && i < a->n_deps; i++)
			canonical = group_cmp(&a->deps[i - 1], &a->deps[i]) < 0;
		for (size_t i = 1; canonical && i < a->n_provides; i++)
			canonical = strcmp(a->provides[i - 1], a->provides[i]) < 0;
		char computed[HK_B3_ID_LEN];
		hk_artifact_compute_id(a->name, a->version, a->deps, a->n_deps,
				       (const char *const *)a->provides, a->n_provides, root_hash,
				       computed);
		if (!canonical)
			why = "\"deps\" or \"provides\" is not in canonical order";
		else if (strcmp(computed, a->id) != 0)
			why = "the recorded identity (name, version, deps, provides, tree) does not "
			      "hash to its id: the metadata was altered";
	}
	if (why) {
		artifact_free(a);
		return hk_fail(err, EBADMSG, "%s: %s", path, why);
	}
	a->dirname = hk_xstrdup(dirname);
	a->path = hk_xasprintf("%s/%s", root, dirname);
	a->meta_path = hk_steal_ptr(&path);
	hk_autofree char *seal = hk_xasprintf("%s/" META_DIR "/%s" SEAL_SUFFIX, root, dirname);
	struct stat sst;
	a->sealed = lstat(seal, &sst) == 0;
	*out = a;
	return 0;
}

static void add_artifact(struct hk_store *s, struct hk_artifact *a)
{
	if (s->n_arts == s->cap_arts) {
		s->cap_arts = s->cap_arts ? 2 * s->cap_arts : 16;
		s->arts = hk_xrealloc(s->arts, s->cap_arts * sizeof(*s->arts));
	}
	s->arts[s->n_arts++] = a;
}

/* Loads every artifact whose metadata is on disk but not yet in s->arts (all of them on the
 * first call; on later calls, those other processes added since).  Artifacts already handed
 * out are never freed here. */
static int load_new(struct hk_store *s, struct hk_error *err)
{
	hk_autofree char *meta = hk_xasprintf("%s/" META_DIR, s->root);
	DIR *d = opendir(meta);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return hk_fail_errno(err, errno, "cannot list %s", meta);
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r;
	struct dirent *de;
	while ((r = hk_dir_next(d, meta, &de, err)) == 0 && de) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		bool known = false;
		for (size_t i = 0; i < s->n_arts && !known; i++)
			known = strlen(s->arts[i]->dirname) == len - 5 &&
				strncmp(s->arts[i]->dirname, de->d_name, len - 5) == 0;
		if (known)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = hk_xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = hk_xstrndup(de->d_name, len - 5);
	}
	closedir(d);
	/* Sorted so that a damaged store reports the same file every time. */
	if (n)
		qsort(names, n, sizeof(*names), str_qsort_cmp);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct hk_artifact *a = NULL;
		r = load_meta(s->root, names[i], &a, err);
		if (r == 0)
			add_artifact(s, a);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	sort_artifacts(s);
	return r;
}

static int ensure_loaded(struct hk_store *s, struct hk_error *err)
{
	if (s->loaded)
		return 0;
	int r = load_new(s, err);
	if (r < 0) {
		for (size_t i = 0; i < s->n_arts; i++)
			artifact_free(s->arts[i]);
		s->n_arts = 0;
		return r;
	}
	s->loaded = true;
	return 0;
}

int hk_store_list(struct hk_store *s, const struct hk_artifact *const **out, size_t *n,
		  struct hk_error *err)
{
	int r = ensure_loaded(s, err);
	if (r < 0)
		return r;
	*out = (const struct hk_artifact *const *)s->arts;
	*n = s->n_arts;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* manifest                                                                                 */

static void manifest_encode(const struct hk_tree *t, struct hk_buf *out)
{
	hk_buf_puts(out, MANIFEST_HEADER);
	for (size_t i = 0; i < t->n; i++) {
		const struct hk_tree_entry *e = &t->entries[i];
		char hex[HEX_LEN + 1];
		switch (e->type) {
		case HK_TREE_DIR:
			hk_buf_puts(out, "d ");
			hk_tree_escape(e->path, strlen(e->path), out);
			break;
		case HK_TREE_FILE:
			hk_hex(e->digest, sizeof(e->digest), hex);
			hk_buf_printf(out, "%c %s ", e->exec ? 'x' : 'f', hex);
			hk_tree_escape(e->path, strlen(e->path), out);
			break;
		case HK_TREE_SYMLINK:
			hk_buf_puts(out, "l ");
			hk_tree_escape(e->path, strlen(e->path), out);
			hk_buf_putc(out, ' ');
			hk_tree_escape(e->target, e->target_len, out);
			break;
		}
		hk_buf_putc(out, '\n');
	}
}

static int unescape_field(const char *p, size_t n, struct hk_buf *out)
{
	hk_buf_reset(out);
	if (n == 0)
		return -EINVAL;
	return hk_tree_unescape(p, n, out);
}

/* The first line of every store text file names its format: `header` (with its '\n'). */
static int check_header(const char *text, size_t len, const char *header, const char *filename,
			struct hk_error *err)
{
	size_t hl = strlen(header);
	if (len < hl || memcmp(text, header, hl) != 0)
		return hk_fail(err, EBADMSG, "%s:1: missing header \"%.*s\"", filename,
			       (int)(hl - 1), header);
	return 0;
}

/* Counts the line that starts at `p` and finds its end *nl; an unterminated one is an error. */
static int next_line(const char *p, const char *end, const char *filename, unsigned *line,
		     const char **nl, struct hk_error *err)
{
	++*line;
	*nl = memchr(p, '\n', (size_t)(end - p));
	if (!*nl)
		return hk_fail(err, EBADMSG, "%s:%u: line not terminated", filename, *line);
	return 0;
}

/* The first two spaces of the line p..nl (either NULL where there is none). */
static void split_fields(const char *p, const char *nl, const char **sp1, const char **sp2)
{
	*sp1 = memchr(p, ' ', (size_t)(nl - p));
	*sp2 = *sp1 ? memchr(*sp1 + 1, ' ', (size_t)(nl - *sp1 - 1)) : NULL;
}

static int manifest_decode(const char *text, size_t len, const char *filename,
			   struct hk_tree *out, struct hk_error *err)
{
	int r = check_header(text, len, MANIFEST_HEADER, filename, err);
	if (r < 0)
		return r;
	size_t hl = strlen(MANIFEST_HEADER);
	struct hk_tree t = HK_TREE_INIT;
	struct hk_buf path = HK_BUF_INIT, target = HK_BUF_INIT;
	unsigned line = 1;
	const char *p = text + hl, *end = text + len;
	while (p < end) {
		const char *nl;
		r = next_line(p, end, filename, &line, &nl, err);
		if (r < 0)
			break;
		const char *sp1, *sp2;
		split_fields(p, nl, &sp1, &sp2);
		bool ok = sp1 && sp1 == p + 1;
		char kind = *p;
		if (ok && kind == 'd') {
			ok = !sp2 && unescape_field(sp1 + 1, (size_t)(nl - sp1 - 1), &path) == 0;
			if (ok)
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_DIR, false, NULL, NULL, 0);
		} else if (ok && (kind == 'f' || kind == 'x')) {
			ok = sp2 && sp2 - sp1 - 1 == HEX_LEN && is_hex(sp1 + 1, HEX_LEN) &&
			     unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &path) == 0;
			if (ok) {
				uint8_t d[HK_BLAKE3_OUT_LEN];
				(void)hk_unhex(sp1 + 1, HK_BLAKE3_OUT_LEN, d); /* validated above */
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_FILE, kind == 'x', d,
					    NULL, 0);
			}
		} else if (ok && kind == 'l') {
			ok = sp2 && unescape_field(sp1 + 1, (size_t)(sp2 - sp1 - 1), &path) == 0 &&
			     unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &target) == 0;
			if (ok)
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_SYMLINK, false, NULL,
					    hk_buf_str(&target), target.len);
		} else {
			ok = false;
		}
		if (ok && strlen(hk_buf_str(&path)) != path.len)
			ok = false;   /* a NUL byte cannot be part of a path */
		if (!ok) {
			r = hk_fail(err, EBADMSG, "%s:%u: malformed manifest line", filename, line);
			break;
		}
		p = nl + 1;
	}
	hk_buf_free(&path);
	hk_buf_free(&target);
	if (r == 0) {
		r = hk_tree_compute(&t, err);
		if (r < 0)
			hk_wrap(err, "%s", filename);
	}
	if (r < 0) {
		hk_tree_free(&t);
		return r;
	}
	*out = t;
	return 0;
}

int hk_store_files(struct hk_store *s, const struct hk_artifact *a, struct hk_tree *out,
		   struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" META_DIR "/%s.files", s->root, a->dirname);
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(path, &text, err);
	if (r == 0)
		r = manifest_decode(hk_buf_str(&text), text.len, path, out, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	char id[HK_B3_ID_LEN];
	hk_tree_id(out, id);
	if (strcmp(id, a->tree_id) != 0) {
		hk_tree_free(out);
		return hk_fail(err, EBADMSG,
			       "%s: the manifest hashes to %s, not to the artifact's tree %s: the "
			       "manifest was altered", path, id, a->tree_id);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* path index                                                                               */

static int index_line_cmp_path(const struct index_line *l, const char *path, size_t n)
{
	size_t m = l->path_len < n ? l->path_len : n;
	int c = memcmp(l->path, path, m);
	if (c)
		return c;
	return l->path_len < n ? -1 : l->path_len > n ? 1 : 0;
}

static int index_parse(struct hk_store *s, char *text, size_t len, const char *filename,
		       struct hk_error *err)
{
	int r = check_header(text, len, INDEX_HEADER, filename, err);
	if (r < 0)
		return r;
	size_t hl = strlen(INDEX_HEADER);
	size_t cap = 0;
	unsigned line = 1;
	char *p = text + hl, *end = text + len;
	while (p < end) {
		line++;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *sp = nl ? memchr(p, ' ', (size_t)(nl - p)) : NULL;
		if (!nl || !sp || sp == p || sp + 1 == nl) {
			free(s->index);
			s->index = NULL;
			s->n_index = 0;
			return hk_fail(err, EBADMSG, "%s:%u: malformed index line", filename, line);
		}
		if (s->n_index == cap) {
			cap = cap ? 2 * cap : 1024;
			s->index = hk_xrealloc(s->index, cap * sizeof(*s->index));
		}
		struct index_line *l = &s->index[s->n_index];
		l->path = p;
		l->path_len = (size_t)(sp - p);
		l->dir = sp + 1;
		l->dir_len = (size_t)(nl - sp - 1);
		if (s->n_index > 0) {
			const struct index_line *prev = &s->index[s->n_index - 1];
			int c = index_line_cmp_path(prev, l->path, l->path_len);
			if (c > 0) {
				free(s->index);
				s->index = NULL;
				s->n_index = 0;
				return hk_fail(err, EBADMSG, "%s:%u: index is not sorted", filename,
					       line);
			}
		}
		s->n_index++;
		p = nl + 1;
	}
	s->index_text = text;
	return 0;
}

static int index_load(struct hk_store *s, struct hk_error *err)
{
	if (s->index_text)
		return 0;
	hk_autofree char *path = hk_xasprintf("%s/" INDEX_FILE, s->root);
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(path, &text, err);
	if (r < 0) {
		hk_buf_free(&text);
		if (err->code == ENOENT)
			hk_fail(err, ENOENT, "the store's path index %s is missing (run 'harkaq "
				"store reindex')", path);
		return r;
	}
	size_t len = text.len;
	char *data = hk_buf_steal(&text);
	r = index_parse(s, data, len, path, err);
	if (r < 0)
		free(data);
	return r;
}

/* Appends the index lines of artifact `a` (one per file and symlink) to `lines`. */
static void index_lines_of(const struct hk_artifact *a, const struct hk_tree *t, char ***lines,
			   size_t *n, size_t *cap)
{
	/* A pinned base is the ground every build stands on, never a dep to declare: who ships
	 * one of its paths is answered by its own dpkg database (core/debroot.h). */
	if (a->origin == HK_ORIGIN_BASE)
		return;
	for (size_t i = 0; i < t->n; i++) {
		const struct hk_tree_entry *e = &t->entries[i];
		if (e->type == HK_TREE_DIR)
			continue;
		struct hk_buf b = HK_BUF_INIT;
		hk_buf_putc(&b, '/');
		hk_tree_escape(e->path, strlen(e->path), &b);
		hk_buf_putc(&b, ' ');
		hk_buf_puts(&b, a->dirname);
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			*lines = hk_xrealloc(*lines, *cap * sizeof(**lines));
		}
		(*lines)[(*n)++] = hk_buf_steal(&b);
	}
}

/* Writes a complete index for `arts` (plus `extra`, not yet in the list) into a temporary
 * file of STORE/.index; the caller renames it over STORE/.index/paths. */
static int index_build(struct hk_store *s, struct hk_artifact *const *arts, size_t n_arts,
		       const struct hk_artifact *extra, const struct hk_tree *extra_tree,
		       char **tmp_path, struct hk_error *err)
{
	char **lines = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	for (size_t i = 0; i < n_arts; i++) {
		struct hk_tree t = HK_TREE_INIT;
		r = hk_store_files(s, arts[i], &t, err);
		if (r < 0)
			break;
		index_lines_of(arts[i], &t, &lines, &n, &cap);
		hk_tree_free(&t);
	}
	if (r == 0 && extra)
		index_lines_of(extra, extra_tree, &lines, &n, &cap);
	if (r == 0) {
		/* A line is "<path> <dir>" and ' ' sorts below every byte an escaped path can
		 * hold, so sorting whole lines sorts by path, then by artifact. */
		if (n)
			qsort(lines, n, sizeof(*lines), str_qsort_cmp);
		struct hk_buf out = HK_BUF_INIT;
		hk_buf_puts(&out, INDEX_HEADER);
		for (size_t i = 0; i < n; i++) {
			if (i && strcmp(lines[i - 1], lines[i]) == 0)
				continue;
			hk_buf_puts(&out, lines[i]);
			hk_buf_putc(&out, '\n');
		}
		hk_autofree char *dir = hk_xasprintf("%s/" INDEX_DIR, s->root);
		r = ensure_dir(dir, err);
		if (r == 0)
			r = write_temp_file(dir, out.data, out.len, tmp_path, err);
		hk_buf_free(&out);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return r;
}

int hk_store_reindex(struct hk_store *s, struct hk_error *err)
{
	int r = ensure_loaded(s, err);
	if (r < 0)
		return r;
	char *tmp = NULL;
	r = index_build(s, s->arts, s->n_arts, NULL, NULL, &tmp, err);
	if (r < 0)
		return r;
	hk_autofree char *path = hk_xasprintf("%s/" INDEX_FILE, s->root);
	if (rename(tmp, path) < 0) {
		r = hk_fail_errno(err, errno, "cannot write %s", path);
		unlink(tmp);
	}
	free(tmp);
	index_unload(s);
	return r;
}

static const struct hk_artifact *artifact_by_dirname(struct hk_store *s, const char *dir,
						     size_t n)
{
	for (size_t i = 0; i < s->n_arts; i++)
		if (strlen(s->arts[i]->dirname) == n && memcmp(s->arts[i]->dirname, dir, n) == 0)
			return s->arts[i];
	return NULL;
}

int hk_store_providers(struct hk_store *s, const char *path, const struct hk_artifact ***out,
		       size_t *n, struct hk_error *err)
{
	*out = NULL;
	*n = 0;
	int r = ensure_loaded(s, err);
	if (r == 0)
		r = index_load(s, err);
	if (r < 0)
		return r;
	struct hk_buf q = HK_BUF_INIT;
	hk_tree_escape(path, strlen(path), &q);
	/* Lower bound of the first line whose path is >= q. */
	size_t lo = 0, hi = s->n_index;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (index_line_cmp_path(&s->index[mid], q.data, q.len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct hk_artifact **res = NULL;
	size_t count = 0;
	for (size_t i = lo; i < s->n_index && index_line_cmp_path(&s->index[i], q.data,
								      q.len) == 0; i++) {
		const struct hk_artifact *a =
			artifact_by_dirname(s, s->index[i].dir, s->index[i].dir_len);
		if (!a) {
			free(res);
			hk_buf_free(&q);
			return hk_fail(err, EBADMSG,
				       "the path index %s/" INDEX_FILE " names %.*s, which is not in "
				       "the store (run 'harkaq store reindex')", s->root,
				       (int)s->index[i].dir_len, s->index[i].dir);
		}
		res = hk_xrealloc(res, (count + 1) * sizeof(*res));
		res[count++] = a;
	}
	hk_buf_free(&q);
	*out = res;
	*n = count;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* adding                                                                                   */

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
	if (!spec->version || !version_valid(spec->version))
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
	hk_json_key(&j, "kind");
	hk_json_str(&j, META_KIND);
	hk_json_key(&j, "id");
	hk_json_str(&j, a->id);
	hk_json_key(&j, "name");
	hk_json_str(&j, a->name);
	hk_json_key(&j, "version");
	hk_json_str(&j, a->version);
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
	hk_json_key(&j, "tree");
	hk_json_str(&j, a->tree_id);
	hk_json_key(&j, "files");
	hk_json_uint(&j, a->file_count);
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

static const struct hk_artifact *find_loaded_by_dirname(struct hk_store *s, const char *dir)
{
	return artifact_by_dirname(s, dir, strlen(dir));
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

int hk_store_add(struct hk_store *s, const char *src_dir, const struct hk_artifact_spec *spec,
		 unsigned flags, const struct hk_artifact **out, bool *added,
		 struct hk_error *err)
{
	bool consume = flags & HK_STORE_ADD_CONSUME;
	char *tmp = NULL;
	int r;
	if (consume && !is_store_temp(s, src_dir)) {
		return hk_fail(err, EINVAL, "%s is not a temporary directory of the store %s",
			       src_dir, s->root);
	}
	if (consume)
		tmp = hk_xstrdup(src_dir);
	r = check_spec(spec, err);
	if (r == 0)
		r = ensure_loaded(s, err);
	if (r == 0 && !consume) {
		struct stat st;
		if (stat(src_dir, &st) < 0)
			r = hk_fail_errno(err, errno, "cannot add %s", src_dir);
		else if (!S_ISDIR(st.st_mode))
			r = hk_fail(err, ENOTDIR, "cannot add %s: not a directory", src_dir);
		if (r == 0) {
			/* Copying a directory that holds the store would copy the copy in progress. */
			hk_autofree char *real = realpath(src_dir, NULL);
			size_t n = real ? strlen(real) : 0;
			if (!real)
				r = hk_fail_errno(err, errno, "cannot add %s", src_dir);
			else if (strncmp(s->root, real, n) == 0 &&
				 (s->root[n] == '/' || s->root[n] == '\0' || n == 1))
				r = hk_fail(err, EINVAL, "cannot add %s: it contains the store %s",
					    src_dir, s->root);
		}
		if (r == 0)
			r = hk_store_mktemp(s, &tmp, err);
		if (r == 0) {
			hk_autoclose int sfd = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			hk_autoclose int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (sfd < 0 || dfd < 0)
				r = hk_fail_errno(err, errno, "cannot open %s",
						  sfd < 0 ? src_dir : tmp);
			else
				r = copy_dir(sfd, dfd, src_dir, err);
		}
	}
	if (r == 0) {
		hk_autoclose int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			r = hk_fail_errno(err, errno, "cannot open %s", tmp);
		else
			r = normalise_dir(dfd, tmp, err);
	}
	struct hk_tree tree = HK_TREE_INIT;
	if (r == 0) {
		r = hk_tree_scan(tmp, &tree, err);
		/* Errors from the copy name the source path; a scan error names the temporary
		 * copy, so say which artifact it was. */
		if (r < 0)
			hk_wrap(err, "cannot add %s", consume ? spec->name : src_dir);
	}
	struct hk_artifact *a = NULL;
	if (r == 0) {
		a = hk_xcalloc(1, sizeof(*a));
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
		a->provides = hk_xcalloc(spec->n_provides ? spec->n_provides : 1, sizeof(char *));
		for (size_t i = 0; i < spec->n_provides; i++)
			a->provides[a->n_provides++] = hk_xstrdup(spec->provides[i]);
		sort_unique_strings(a->provides, &a->n_provides);
		hk_tree_id(&tree, a->tree_id);
		a->file_count = hk_tree_file_count(&tree);
		hk_artifact_compute_id(a->name, a->version, a->deps, a->n_deps,
				       (const char *const *)a->provides, a->n_provides, tree.root,
				       a->id);
		a->dirname = hk_xasprintf("%s-%s", a->id + 3, a->name);
		a->path = hk_xasprintf("%s/%s", s->root, a->dirname);
		a->meta_path = hk_xasprintf("%s/" META_DIR "/%s.json", s->root, a->dirname);
		a->meta_json = meta_encode(a, spec->source_json);
		a->origin = origin_of_text(spec->source_json);
	}
	int lock_fd = -1;
	if (r == 0) {
		lock_fd = lock_store(s, err);
		if (lock_fd < 0)
			r = lock_fd;
	}
	bool already = false;
	if (r == 0) {
		/* Under the lock, catch up with artifacts other processes added since this store
		 * was loaded: the index written below must list theirs too, and one of them may
		 * be this very artifact. */
		r = load_new(s, err);
		const struct hk_artifact *have = r == 0 ? find_loaded_by_dirname(s, a->dirname) : NULL;
		if (have) {
			already = true;
			*out = have;
		}
	}
	if (r == 0 && !already) {
		/* A tree without metadata is what an interrupted add leaves behind; the metadata
		 * is written last, so that tree was never part of the store. */
		struct stat st;
		if (lstat(a->path, &st) == 0)
			r = discard_path(s, a->path, err);
	}
	char *manifest_tmp = NULL, *meta_tmp = NULL, *index_tmp = NULL;
	if (r == 0 && !already) {
		hk_autofree char *meta_dir = hk_xasprintf("%s/" META_DIR, s->root);
		struct hk_buf manifest = HK_BUF_INIT;
		manifest_encode(&tree, &manifest);
		r = ensure_dir(meta_dir, err);
		if (r == 0)
			r = write_temp_file(meta_dir, manifest.data, manifest.len, &manifest_tmp,
					    err);
		hk_buf_free(&manifest);
		if (r == 0)
			r = write_temp_file(meta_dir, a->meta_json, strlen(a->meta_json),
					    &meta_tmp, err);
		if (r == 0) {
			/* The index is rewritten from every manifest: the store is the truth, and a
			 * stale or damaged index is repaired by any add. */
			r = index_build(s, s->arts, s->n_arts, a, &tree, &index_tmp, err);
			if (r < 0)
				hk_wrap(err, "cannot update the path index");
		}
	}
	if (r == 0 && !already) {
		hk_autofree char *manifest_path =
			hk_xasprintf("%s/" META_DIR "/%s.files", s->root, a->dirname);
		hk_autofree char *index_path = hk_xasprintf("%s/" INDEX_FILE, s->root);
		int step = 0;
		if (rename(tmp, a->path) < 0)
			r = hk_fail_errno(err, errno, "cannot move the new artifact to %s", a->path);
		else if (++step, rename(manifest_tmp, manifest_path) < 0)
			r = hk_fail_errno(err, errno, "cannot write %s", manifest_path);
		else if (++step, rename(meta_tmp, a->meta_path) < 0)
			r = hk_fail_errno(err, errno, "cannot write %s", a->meta_path);
		else if (++step, rename(index_tmp, index_path) < 0)
			r = hk_fail_errno(err, errno, "cannot write %s", index_path);
		if (r < 0) {
			/* Undo in reverse order; the metadata file is the commit point, so once it
			 * is gone the artifact is not in the store whatever else remains. */
			if (step >= 3)
				unlink(a->meta_path);
			if (step >= 2)
				unlink(manifest_path);
			if (step >= 1 && rename(a->path, tmp) < 0) {
				struct hk_error ignored;
				discard_path(s, a->path, &ignored);
			}
		}
	}
	if (lock_fd >= 0)
		close(lock_fd);
	if (manifest_tmp) {
		unlink(manifest_tmp);
		free(manifest_tmp);
	}
	if (meta_tmp) {
		unlink(meta_tmp);
		free(meta_tmp);
	}
	if (index_tmp) {
		unlink(index_tmp);
		free(index_tmp);
	}
	hk_tree_free(&tree);
	if (tmp) {
		struct stat st;
		if (lstat(tmp, &st) == 0) {
			struct hk_error ignored;
			hk_store_remove_tree(tmp, &ignored);
		}
		free(tmp);
	}
	if (r < 0 || already) {
		artifact_free(a);
		if (added)
			*added = false;
		return r;
	}
	add_artifact(s, a);
	sort_artifacts(s);
	index_unload(s);
	*out = a;
	if (added)
		*added = true;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* finding, closure, verification                                                           */

static void candidates_msg(struct hk_buf *b, const struct hk_artifact *const *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hk_buf_printf(b, "%s%.14s… %s %s", i ? ", " : "", c[i]->id, c[i]->name,
			      c[i]->version);
}

static int pick_one(struct hk_store *s, const char *query, const struct hk_artifact **m,
		    size_t n, const struct hk_artifact **out, struct hk_error *err)
{
	if (n == 1) {
		*out = m[0];
		return 0;
	}
	struct hk_buf b = HK_BUF_INIT;
	candidates_msg(&b, m, n);
	hk_fail(err, EEXIST, "'%s' is ambiguous in the store %s: %s (use an id prefix or "
		"NAME=VERSION)", query, s->root, hk_buf_str(&b));
	hk_buf_free(&b);
	return -EEXIST;
}

/* Artifacts named `name` (or, if none, providing it); returns the count, matches in *m. */
static size_t match_name(struct hk_store *s, const char *name, const char *version,
			 const struct hk_artifact ***m)
{
	size_t n = 0;
	*m = hk_xcalloc(s->n_arts ? s->n_arts : 1, sizeof(**m));
	for (size_t i = 0; i < s->n_arts; i++)
		if (strcmp(s->arts[i]->name, name) == 0 &&
		    (!version || strcmp(s->arts[i]->version, version) == 0))
			(*m)[n++] = s->arts[i];
	if (n || version)
		return n;
	for (size_t i = 0; i < s->n_arts; i++)
		for (size_t k = 0; k < s->arts[i]->n_provides; k++)
			if (strcmp(s->arts[i]->provides[k], name) == 0) {
				(*m)[n++] = s->arts[i];
				break;
			}
	return n;
}

int hk_store_find(struct hk_store *s, const char *query, const struct hk_artifact **out,
		  struct hk_error *err)
{
	int r = ensure_loaded(s, err);
	if (r < 0)
		return r;
	const struct hk_artifact *a = find_loaded_by_dirname(s, query);
	if (a) {
		*out = a;
		return 0;
	}
	hk_autofree const struct hk_artifact **m = NULL;
	size_t n = 0;
	const char *hex = NULL;
	if (strncmp(query, "b3:", 3) == 0) {
		hex = query + 3;
		if (!hex[0] || strlen(hex) > HEX_LEN || !is_hex(hex, strlen(hex)))
			return hk_fail(err, EINVAL, "'%s' is not an id or id prefix (b3: and lowercase "
				       "hex digits)", query);
	} else {
		const char *eq = strchr(query, '=');
		hk_autofree char *name = eq ? hk_xstrndup(query, (size_t)(eq - query))
					    : hk_xstrdup(query);
		n = match_name(s, name, eq ? eq + 1 : NULL, &m);
		if (n)
			return pick_one(s, query, m, n, out, err);
		size_t len = strlen(query);
		if (!eq && len >= 8 && len <= HEX_LEN && is_hex(query, len))
			hex = query;
	}
	if (hex) {
		free(m);
		m = hk_xcalloc(s->n_arts ? s->n_arts : 1, sizeof(*m));
		n = 0;
		for (size_t i = 0; i < s->n_arts; i++)
			if (strncmp(s->arts[i]->id + 3, hex, strlen(hex)) == 0)
				m[n++] = s->arts[i];
		if (n)
			return pick_one(s, query, m, n, out, err);
	}
	return hk_fail(err, ENOENT, "no artifact '%s' in the store %s (see 'harkaq store list')",
		       query, s->root);
}

static bool in_base(const char *name, const char *const *base, size_t n_base)
{
	for (size_t i = 0; i < n_base; i++)
		if (strcmp(base[i], name) == 0)
			return true;
	return false;
}

struct closure_walk {
	struct hk_store *s;
	const char *const *base;
	size_t n_base;
	unsigned char *state;                 /* per artifact: 0 new, 1 on the path, 2 done */
	const struct hk_artifact **path;      /* current DFS path, for the cycle message */
	size_t depth;
	const struct hk_artifact **out;
	size_t n_out;
	struct hk_error *err;
};

static int closure_visit(struct closure_walk *w, const struct hk_artifact *a)
{
	if (w->state[a->index_] == 2)
		return 0;
	/* A runtime closure is a set: Debian's Depends may form cycles (libc6 and libgcc-s1
	 * depend on each other), which are legal for runtime dependencies.  An artifact on the
	 * current path is already being collected. */
	if (w->state[a->index_] == 1)
		return 0;
	w->state[a->index_] = 1;
	w->path[w->depth++] = a;
	for (size_t i = 0; i < a->n_deps; i++) {
		const struct hk_dep_group *g = &a->deps[i];
		const struct hk_artifact *dep = NULL;
		for (size_t k = 0; k < g->n_alts && !dep; k++) {
			hk_autofree const struct hk_artifact **m = NULL;
			size_t n = match_name(w->s, g->alts[k], NULL, &m);
			if (n > 1) {
				pick_one(w->s, g->alts[k], m, n, &dep, w->err);
				return hk_wrap(w->err, "resolving the dependencies of %s %s",
					       a->name, a->version);
			}
			if (n == 1)
				dep = m[0];
		}
		if (!dep) {
			/* The store first: what the store has is granted file by file.  Only what
			 * it lacks may come from the base root (and if the build then reads it
			 * without a grant, the kernel reports it as debt). */
			bool base = false;
			for (size_t k = 0; k < g->n_alts && !base; k++)
				base = in_base(g->alts[k], w->base, w->n_base);
			if (base)
				continue;
			hk_autofree char *gs = hk_dep_group_str(g);
			return hk_fail(w->err, ENOENT,
				       "%s %s depends on '%s', which is neither in the store %s nor "
				       "provided by the base root (import it, e.g. 'harkaq store "
				       "import-apt %s')", a->name, a->version, gs, w->s->root,
				       g->alts[0]);
		}
		int r = closure_visit(w, dep);
		if (r < 0)
			return r;
	}
	w->depth--;
	w->state[a->index_] = 2;
	w->out[w->n_out++] = a;
	return 0;
}

int hk_store_closure(struct hk_store *s, const struct hk_artifact *const *roots,
		     size_t n_roots, const char *const *base, size_t n_base,
		     const struct hk_artifact ***out, size_t *n_out, struct hk_error *err)
{
	*out = NULL;
	*n_out = 0;
	int r = ensure_loaded(s, err);
	if (r < 0)
		return r;
	size_t n = s->n_arts ? s->n_arts : 1;
	struct closure_walk w = {
		.s = s, .base = base, .n_base = n_base, .err = err,
		.state = hk_xcalloc(n, 1),
		.path = hk_xcalloc(n, sizeof(*w.path)),
		.out = hk_xcalloc(n, sizeof(*w.out)),
	};
	for (size_t i = 0; r == 0 && i < n_roots; i++) {
		if (roots[i]->index_ >= s->n_arts || s->arts[roots[i]->index_] != roots[i]) {
			r = hk_fail(err, EINVAL, "%s is not an artifact of the store %s",
				    roots[i]->name, s->root);
			break;
		}
		r = closure_visit(&w, roots[i]);
	}
	free(w.state);
	free(w.path);
	if (r < 0) {
		free(w.out);
		return r;
	}
	*out = w.out;
	*n_out = w.n_out;
	return 0;
}

int hk_store_verify_artifact(struct hk_store *s, const struct hk_artifact *a,
			     struct hk_error *err)
{
	struct hk_tree recorded = HK_TREE_INIT, disk = HK_TREE_INIT;
	int r = hk_store_files(s, a, &recorded, err);
	if (r < 0)
		return hk_wrap(err, "artifact %s %s", a->name, a->id);
	r = hk_tree_scan(a->path, &disk, err);
	if (r < 0) {
		hk_tree_free(&recorded);
		/* A special file now in the tree (EINVAL) or the tree gone (ENOENT) is tampering;
		 * anything else (EACCES, EIO) says nothing about the content. */
		if (err->code != EINVAL && err->code != ENOENT)
			return hk_wrap(err, "cannot verify artifact %s %s", a->name, a->id);
		hk_wrap(err, "artifact %s %s was altered", a->name, a->id);
		err->code = EBADMSG;
		return -EBADMSG;
	}
	char *diff = hk_tree_first_difference(&recorded, &disk, "the manifest", "the store");
	if (!diff && memcmp(recorded.root, disk.root, sizeof(disk.root)) != 0)
		diff = hk_xstrdup("the tree hash differs");   /* unreachable if both computed */
	hk_tree_free(&recorded);
	hk_tree_free(&disk);
	if (diff) {
		r = hk_fail(err, EBADMSG, "artifact %s %s was altered: %s", a->name, a->id, diff);
		free(diff);
		return r;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* sealing (fs-verity digests recorded beside the manifest; docs/sealing.md)                */

char *hk_store_seal_path(const struct hk_store *s, const struct hk_artifact *a)
{
	return hk_xasprintf("%s/" META_DIR "/%s" SEAL_SUFFIX, s->root, a->dirname);
}

void hk_seal_free(struct hk_seal *seal)
{
	for (size_t i = 0; i < seal->n; i++)
		free(seal->entries[i].path);
	free(seal->entries);
	seal->entries = NULL;
	seal->n = 0;
}

/* "sha256:" + 64 hex or "sha512:" + 128 hex: the only digests fs-verity produces. */
static bool seal_digest_valid(const char *p, size_t n)
{
	if (n == 7 + 64 && memcmp(p, "sha256:", 7) == 0)
		return is_hex(p + 7, 64);
	if (n == 7 + 128 && memcmp(p, "sha512:", 7) == 0)
		return is_hex(p + 7, 128);
	return false;
}

int hk_seal_parse(const char *text, size_t len, const char *filename, struct hk_seal *out,
		  struct hk_error *err)
{
	int r = check_header(text, len, SEAL_HEADER, filename, err);
	if (r < 0)
		return r;
	size_t hl = strlen(SEAL_HEADER);
	struct hk_seal seal = { 0 };
	size_t cap = 0;
	struct hk_buf path = HK_BUF_INIT;
	unsigned line = 1;
	const char *p = text + hl, *end = text + len;
	while (p < end) {
		const char *nl;
		r = next_line(p, end, filename, &line, &nl, err);
		if (r < 0)
			break;
		/* "<digest> <blake3 hex> <escaped path>" */
		const char *sp1, *sp2;
		split_fields(p, nl, &sp1, &sp2);
		bool ok = sp1 && sp2 && seal_digest_valid(p, (size_t)(sp1 - p)) &&
			  sp2 - sp1 - 1 == HEX_LEN && is_hex(sp1 + 1, HEX_LEN) &&
			  unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &path) == 0 &&
			  strlen(hk_buf_str(&path)) == path.len;
		if (!ok) {
			r = hk_fail(err, EBADMSG, "%s:%u: malformed seal line", filename, line);
			break;
		}
		if (seal.n == cap) {
			cap = cap ? 2 * cap : 64;
			seal.entries = hk_xrealloc(seal.entries, cap * sizeof(*seal.entries));
		}
		struct hk_seal_entry *e = &seal.entries[seal.n++];
		memset(e, 0, sizeof(*e));
		memcpy(e->digest, p, (size_t)(sp1 - p));
		(void)hk_unhex(sp1 + 1, HK_BLAKE3_OUT_LEN, e->b3); /* validated above */
		e->path = hk_xstrdup(hk_buf_str(&path));
		p = nl + 1;
	}
	hk_buf_free(&path);
	if (r < 0) {
		hk_seal_free(&seal);
		return r;
	}
	*out = seal;
	return 0;
}

static void seal_encode(const struct hk_seal *seal, struct hk_buf *out)
{
	hk_buf_puts(out, SEAL_HEADER);
	for (size_t i = 0; i < seal->n; i++) {
		const struct hk_seal_entry *e = &seal->entries[i];
		char hex[HEX_LEN + 1];
		hk_hex(e->b3, sizeof(e->b3), hex);
		hk_buf_printf(out, "%s %s ", e->digest, hex);
		hk_tree_escape(e->path, strlen(e->path), out);
		hk_buf_putc(out, '\n');
	}
}

/* The store's own (mutable) copy of an artifact it handed out as const. */
static struct hk_artifact *owned_artifact(struct hk_store *s, const struct hk_artifact *a)
{
	return a->index_ < s->n_arts && s->arts[a->index_] == a ? s->arts[a->index_] : NULL;
}

int hk_store_seal(struct hk_store *s, const struct hk_artifact *a, hk_seal_fn seal_file,
		  void *ctx, struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int r = hk_store_files(s, a, &t, err);
	if (r < 0)
		return hk_wrap(err, "artifact %s %s", a->name, a->id);
	struct hk_seal seal = { 0 };
	seal.entries = hk_xcalloc(t.n ? t.n : 1, sizeof(*seal.entries));
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct hk_tree_entry *te = &t.entries[i];
		if (te->type != HK_TREE_FILE)
			continue;
		struct hk_seal_entry *e = &seal.entries[seal.n++];
		e->path = hk_xstrdup(te->path);
		memcpy(e->b3, te->digest, sizeof(e->b3));
		hk_autofree char *abs = hk_xasprintf("%s/%s", a->path, te->path);
		r = seal_file(ctx, abs, e->digest, err);
		if (r == 0 && !seal_digest_valid(e->digest, strlen(e->digest)))
			r = hk_fail(err, EPROTO, "%s: not an fs-verity digest: '%s'", abs, e->digest);
		if (r < 0 && err->code != EOPNOTSUPP)
			hk_wrap(err, "sealing artifact %s %s", a->name, a->id);
	}
	hk_tree_free(&t);
	if (r == 0) {
		/* Re-hashed only now that fs-verity froze every file: the content checked against
		 * the manifest is the content sealed, with no window to change it in between
		 * (through the filesystem; below it, the kernel's read-time check answers). */
		r = hk_store_verify_artifact(s, a, err);
		if (r < 0)
			hk_wrap(err, "refusing to record a seal");
	}
	if (r < 0) {
		hk_seal_free(&seal);
		return r;
	}
	struct hk_buf text = HK_BUF_INIT;
	seal_encode(&seal, &text);
	hk_seal_free(&seal);
	hk_autofree char *meta_dir = hk_xasprintf("%s/" META_DIR, s->root);
	hk_autofree char *record = hk_store_seal_path(s, a);
	char *tmp = NULL;
	r = write_temp_file(meta_dir, text.data, text.len, &tmp, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	/* Sealed before the rename, so the record is never visible unprotected; the temporary
	 * file is closed (write_temp_file), as FS_IOC_ENABLE_VERITY requires. */
	char ignored[HK_SEAL_DIGEST_MAX];
	r = seal_file(ctx, tmp, ignored, err);
	if (r < 0)
		hk_wrap(err, "sealing the seal record of %s %s", a->name, a->id);
	else if (chmod(tmp, 0444) < 0 || rename(tmp, record) < 0)
		r = hk_fail_errno(err, errno, "cannot write %s", record);
	if (r < 0) {
		unlink(tmp);
		free(tmp);
		return r;
	}
	free(tmp);
	struct hk_artifact *own = owned_artifact(s, a);
	if (own)
		own->sealed = true;
	return 0;
}

int hk_store_seal_read(struct hk_store *s, const struct hk_artifact *a, struct hk_seal *out,
		       struct hk_error *err)
{
	hk_autofree char *record = hk_store_seal_path(s, a);
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(record, &text, err);
	if (r == 0)
		r = hk_seal_parse(hk_buf_str(&text), text.len, record, out, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	struct hk_tree t = HK_TREE_INIT;
	r = hk_store_files(s, a, &t, err);
	if (r < 0) {
		hk_seal_free(out);
		return r;
	}
	/* The record must list exactly the manifest's files with their BLAKE3 hashes: a record
	 * copied from another artifact, or edited, does not describe this one. */
	size_t k = 0;
	const char *why = NULL, *which = NULL;
	for (size_t i = 0; !why && i < t.n; i++) {
		const struct hk_tree_entry *te = &t.entries[i];
		if (te->type != HK_TREE_FILE)
			continue;
		if (k == out->n || strcmp(out->entries[k].path, te->path) != 0) {
			why = "does not list";
			which = te->path;
		} else if (memcmp(out->entries[k].b3, te->digest, HK_BLAKE3_OUT_LEN) != 0) {
			why = "has another BLAKE3 hash for";
			which = te->path;
		}
		k++;
	}
	if (!why && k != out->n) {
		why = "lists a file absent from the manifest:";
		which = out->entries[k].path;
	}
	if (why)
		r = hk_fail(err, EBADMSG, "%s: the seal record of %s %s %s /%s", record, a->name,
			    a->id, why, which);
	hk_tree_free(&t);
	if (r < 0)
		hk_seal_free(out);
	return r;
}

int hk_store_verify_seal(struct hk_store *s, const struct hk_artifact *a, hk_seal_fn measure,
			 void *ctx, struct hk_error *err)
{
	struct hk_seal seal = { 0 };
	int r = hk_store_seal_read(s, a, &seal, err);
	if (r < 0) {
		if (r == -ENOENT)
			err->code = EBADMSG;   /* recorded as sealed at load, record gone since */
		return hk_wrap(err, "artifact %s %s", a->name, a->id);
	}
	hk_autofree char *record = hk_store_seal_path(s, a);
	char now[HK_SEAL_DIGEST_MAX];
	r = measure(ctx, record, now, err);
	if (r == -ENODATA || r == -EOPNOTSUPP) {
		r = hk_fail(err, EBADMSG, "artifact %s %s: its seal record %s is no longer protected "
			    "by fs-verity (%s)", a->name, a->id, record,
			    r == -ENODATA ? "replaced?" : "the store's filesystem cannot report "
							 "fs-verity: was the store copied?");
	} else if (r < 0) {
		hk_wrap(err, "artifact %s %s", a->name, a->id);
	}
	for (size_t i = 0; r == 0 && i < seal.n; i++) {
		const struct hk_seal_entry *e = &seal.entries[i];
		hk_autofree char *abs = hk_xasprintf("%s/%s", a->path, e->path);
		r = measure(ctx, abs, now, err);
		if (r == -ENODATA)
			r = hk_fail(err, EBADMSG, "artifact %s %s was altered: /%s lost its fs-verity "
				    "seal (the file was replaced)", a->name, a->id, e->path);
		else if (r == -EOPNOTSUPP)
			r = hk_fail(err, EBADMSG, "artifact %s %s is recorded as sealed, but /%s is on "
				    "a filesystem without fs-verity now (was the store copied?)",
				    a->name, a->id, e->path);
		else if (r < 0)
			hk_wrap(err, "cannot verify the seal of artifact %s %s", a->name, a->id);
		else if (strcmp(now, e->digest) != 0)
			r = hk_fail(err, EBADMSG, "artifact %s %s was altered: /%s: fs-verity digest "
				    "differs (the seal %s, the file now %s)", a->name, a->id, e->path,
				    e->digest, now);
	}
	hk_seal_free(&seal);
	return r;
}

/* ---------------------------------------------------------------------------------------- */
/* Debian metadata                                                                          */

static void stanza_add(struct hk_deb_stanza *st, char *name, char *value)
{
	st->fields = hk_xrealloc(st->fields, (st->n + 1) * sizeof(*st->fields));
	st->fields[st->n].name = name;
	st->fields[st->n].value = value;
	st->n++;
}

static char *trim_dup(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return hk_xstrndup(p, n);
}

int hk_deb_parse_control(const char *text, size_t len, const char *filename,
			 struct hk_deb_stanza **out, size_t *n, struct hk_error *err)
{
	struct hk_deb_stanza *v = NULL;
	size_t count = 0;
	bool in_stanza = false;
	unsigned line = 0;
	const char *p = text, *end = text + len;
	int r = 0;
	while (p < end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);
		bool blank = true;
		for (size_t i = 0; i < ll; i++)
			if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
				blank = false;
		if (blank) {
			in_stanza = false;
		} else if (p[0] == '#') {
			/* comment (allowed in deb822 files, not in dpkg-deb output) */
		} else if (p[0] == ' ' || p[0] == '\t') {
			if (!in_stanza || v[count - 1].n == 0) {
				r = hk_fail(err, EINVAL, "%s:%u: continuation line outside a field",
					    filename, line);
				break;
			}
			struct hk_deb_field *f = &v[count - 1].fields[v[count - 1].n - 1];
			hk_autofree char *cont = trim_dup(p, ll);
			/* A lone "." stands for an empty line in multi-line fields. */
			char *joined = hk_xasprintf("%s\n%s", f->value,
						    strcmp(cont, ".") == 0 ? "" : cont);
			free(f->value);
			f->value = joined;
		} else {
			const char *colon = memchr(p, ':', ll);
			if (!colon || colon == p) {
				r = hk_fail(err, EINVAL, "%s:%u: expected \"Field: value\"", filename,
					    line);
				break;
			}
			if (!in_stanza) {
				v = hk_xrealloc(v, (count + 1) * sizeof(*v));
				memset(&v[count], 0, sizeof(v[count]));
				count++;
				in_stanza = true;
			}
			stanza_add(&v[count - 1], hk_xstrndup(p, (size_t)(colon - p)),
				   trim_dup(colon + 1, (size_t)(le - colon - 1)));
		}
		p = nl ? nl + 1 : end;
	}
	if (r < 0) {
		hk_deb_stanzas_free(v, count);
		return r;
	}
	*out = v;
	*n = count;
	return 0;
}

const char *hk_deb_field(const struct hk_deb_stanza *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcasecmp(st->fields[i].name, name) == 0)
			return st->fields[i].value;
	return NULL;
}

static void stanza_fields_free(struct hk_deb_stanza *st)
{
	for (size_t k = 0; k < st->n; k++) {
		free(st->fields[k].name);
		free(st->fields[k].value);
	}
	free(st->fields);
}

void hk_deb_stanzas_free(struct hk_deb_stanza *st, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stanza_fields_free(&st[i]);
	free(st);
}

void hk_deb_relations_free(struct hk_deb_rel_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < g[i].n; k++) {
			free(g[i].alts[k].name);
			free(g[i].alts[k].arch);
			free(g[i].alts[k].op);
			free(g[i].alts[k].version);
		}
		free(g[i].alts);
	}
	free(g);
}

static bool rel_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool pkg_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.' || c == '_';
}

/* Parses one alternative "name[:arch] [(op version)]" from [p, end). */
static int parse_rel(const char *p, const char *end, const char *field, const char *text,
		     struct hk_deb_rel *rel, struct hk_error *err)
{
	memset(rel, 0, sizeof(*rel));
	while (p < end && rel_space(*p))
		p++;
	const char *s = p;
	while (p < end && pkg_char(*p))
		p++;
	if (p == s || !isalnum((unsigned char)*s))
		goto bad;
	rel->name = hk_xstrndup(s, (size_t)(p - s));
	if (p < end && *p == ':') {
		s = ++p;
		while (p < end && pkg_char(*p))
			p++;
		if (p == s)
			goto bad;
		rel->arch = hk_xstrndup(s, (size_t)(p - s));
	}
	while (p < end && rel_space(*p))
		p++;
	if (p < end && *p == '(') {
		p++;
		while (p < end && rel_space(*p))
			p++;
		s = p;
		while (p < end && (*p == '<' || *p == '>' || *p == '='))
			p++;
		size_t ol = (size_t)(p - s);
		static const char *const ops[] = { "<<", "<=", "=", ">=", ">>", "<", ">" };
		bool known = false;
		for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
			if (strlen(ops[i]) == ol && strncmp(ops[i], s, ol) == 0)
				known = true;
		if (!known)
			goto bad;
		rel->op = hk_xstrndup(s, ol);
		while (p < end && rel_space(*p))
			p++;
		s = p;
		while (p < end && *p != ')' && !rel_space(*p))
			p++;
		if (p == s)
			goto bad;
		rel->version = hk_xstrndup(s, (size_t)(p - s));
		while (p < end && rel_space(*p))
			p++;
		if (p >= end || *p != ')')
			goto bad;
		p++;
	}
	while (p < end && rel_space(*p))
		p++;
	if (p < end)
		goto bad;
	return 0;
bad:
	free(rel->name);
	free(rel->arch);
	free(rel->op);
	free(rel->version);
	memset(rel, 0, sizeof(*rel));
	if (p < end && (*p == '[' || *p == '<'))
		return hk_fail(err, EINVAL,
			       "%s: '%s': architecture and profile restrictions belong to source "
			       "package relations, not to a binary package's", field, text);
	return hk_fail(err, EINVAL, "%s: cannot parse the relation in '%s'", field, text);
}

int hk_deb_parse_relations(const char *text, const char *field, struct hk_deb_rel_group **out,
			   size_t *n, struct hk_error *err)
{
	struct hk_deb_rel_group *g = NULL;
	size_t count = 0;
	const char *p = text, *end = text + strlen(text);
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *ge = comma ? comma : end;
		const char *q = p;
		while (q < ge && rel_space(*q))
			q++;
		if (q < ge) {
			hk_autofree char *group_text = trim_dup(p, (size_t)(ge - p));
			struct hk_deb_rel_group grp = { NULL, 0 };
			const char *a = p;
			for (;;) {
				const char *bar = memchr(a, '|', (size_t)(ge - a));
				const char *ae = bar ? bar : ge;
				grp.alts = hk_xrealloc(grp.alts, (grp.n + 1) * sizeof(*grp.alts));
				int r = parse_rel(a, ae, field, group_text, &grp.alts[grp.n], err);
				if (r < 0) {
					for (size_t k = 0; k < grp.n; k++) {
						free(grp.alts[k].name);
						free(grp.alts[k].arch);
						free(grp.alts[k].op);
						free(grp.alts[k].version);
					}
					free(grp.alts);
					hk_deb_relations_free(g, count);
					return r;
				}
				grp.n++;
				if (!bar)
					break;
				a = bar + 1;
			}
			g = hk_xrealloc(g, (count + 1) * sizeof(*g));
			g[count++] = grp;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = g;
	*n = count;
	return 0;
}

/* The stanzas of a dpkg status file whose packages are installed. */
static int load_installed(const char *status_path, struct hk_deb_stanza **out, size_t *n,
			  struct hk_error *err)
{
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(status_path, &text, err);
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	if (r == 0)
		r = hk_deb_parse_control(hk_buf_str(&text), text.len, status_path, &st, &ns, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	size_t w = 0;
	for (size_t i = 0; i < ns; i++) {
		const char *pkg = hk_deb_field(&st[i], "Package");
		const char *status = hk_deb_field(&st[i], "Status");
		/* "want flag status": only the last word says whether the files are there. */
		const char *last = status ? strrchr(status, ' ') : NULL;
		if (pkg && last && strcmp(last + 1, "installed") == 0) {
			struct hk_deb_stanza keep = st[i];
			st[i] = st[w];
			st[w++] = keep;
		}
	}
	for (size_t i = w; i < ns; i++)
		stanza_fields_free(&st[i]);
	*out = st;
	*n = w;
	return 0;
}

static void push_name(char ***v, size_t *n, const char *name)
{
	*v = hk_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = hk_xstrdup(name);
}

/* Appends the names of every relation of field `field` of `st` to *v. */
static int relation_names(const struct hk_deb_stanza *st, const char *field,
			  const char *status_path, char ***v, size_t *n, struct hk_error *err)
{
	const char *text = hk_deb_field(st, field);
	if (!text)
		return 0;
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	int r = hk_deb_parse_relations(text, field, &g, &ng, err);
	if (r < 0)
		return hk_wrap(err, "%s: package %s", status_path, hk_deb_field(st, "Package"));
	for (size_t k = 0; k < ng; k++)
		for (size_t j = 0; j < g[k].n; j++)
			push_name(v, n, g[k].alts[j].name);
	hk_deb_relations_free(g, ng);
	return 0;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The end both name lists share: on success the sorted, unique names are the caller's. */
static int hand_out_names(int r, char **v, size_t count, char ***names, size_t *n)
{
	if (r < 0) {
		free_names(v, count);
		return r;
	}
	sort_unique_strings(v, &count);
	*names = v;
	*n = count;
	return 0;
}

int hk_deb_installed_names(const char *status_path, char ***names, size_t *n,
			   struct hk_error *err)
{
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	int r = load_installed(status_path, &st, &ns, err);
	if (r < 0)
		return r;
	char **v = NULL;
	size_t count = 0;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		push_name(&v, &count, hk_deb_field(&st[i], "Package"));
		r = relation_names(&st[i], "Provides", status_path, &v, &count, err);
	}
	hk_deb_stanzas_free(st, ns);
	return hand_out_names(r, v, count, names, n);
}

int hk_deb_essential_closure(const char *status_path, char ***names, size_t *n,
			     struct hk_error *err)
{
	struct hk_deb_stanza *st = NULL;
	size_t ns = 0;
	int r = load_installed(status_path, &st, &ns, err);
	if (r < 0)
		return r;
	bool *reached = hk_xcalloc(ns ? ns : 1, sizeof(bool));
	size_t *queue = hk_xcalloc(ns ? ns : 1, sizeof(size_t));
	char ***prov = hk_xcalloc(ns ? ns : 1, sizeof(char **));
	size_t *n_prov = hk_xcalloc(ns ? ns : 1, sizeof(size_t));
	size_t qn = 0;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		r = relation_names(&st[i], "Provides", status_path, &prov[i], &n_prov[i], err);
		const char *ess = hk_deb_field(&st[i], "Essential");
		const char *prio = hk_deb_field(&st[i], "Priority");
		if ((ess && strcasecmp(ess, "yes") == 0) || (prio && strcmp(prio, "required") == 0)) {
			reached[i] = true;
			queue[qn++] = i;
		}
	}
	for (size_t q = 0; r == 0 && q < qn; q++) {
		char **deps = NULL;
		size_t nd = 0;
		const struct hk_deb_stanza *cur = &st[queue[q]];
		r = relation_names(cur, "Pre-Depends", status_path, &deps, &nd, err);
		if (r == 0)
			r = relation_names(cur, "Depends", status_path, &deps, &nd, err);
		/* Every installed package that is, or provides, a dependency's name.  Linear in the
		 * number of installed packages per name: a system has a few thousand at most and
		 * the pseudo-essential set is a few dozen. */
		for (size_t d = 0; r == 0 && d < nd; d++) {
			for (size_t i = 0; i < ns; i++) {
				if (reached[i])
					continue;
				bool match = strcmp(hk_deb_field(&st[i], "Package"), deps[d]) == 0;
				for (size_t k = 0; k < n_prov[i] && !match; k++)
					match = strcmp(prov[i][k], deps[d]) == 0;
				if (match) {
					reached[i] = true;
					queue[qn++] = i;
				}
			}
		}
		free_names(deps, nd);
	}
	char **v = NULL;
	size_t count = 0;
	for (size_t i = 0; r == 0 && i < ns; i++) {
		if (!reached[i])
			continue;
		push_name(&v, &count, hk_deb_field(&st[i], "Package"));
		for (size_t k = 0; k < n_prov[i]; k++)
			push_name(&v, &count, prov[i][k]);
	}
	for (size_t i = 0; i < ns; i++)
		free_names(prov[i], n_prov[i]);
	free(prov);
	free(n_prov);
	free(reached);
	free(queue);
	hk_deb_stanzas_free(st, ns);
	return hand_out_names(r, v, count, names, n);
}
