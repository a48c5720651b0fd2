/* Store bundles (core/store/bundle.h; the format in docs/store.md, "Bundles").
 *
 *     harkaq-bundle 1
 *     artifact <bytes>            then that many bytes: the artifact's metadata JSON
 *     d <path>                    a directory
 *     l <path> <target>           a symlink
 *     f|x <b3 hex> <size> <path>  a regular file (x: executable), then exactly <size> bytes
 *     end                         the artifact's last entry
 *     …                           the next artifact
 *     done <artifacts>            the end of the stream: nothing may follow
 *
 * Paths and targets are escaped as in the manifest (hk_tree_escape), so a header line splits
 * at its spaces; entries come in the tree's canonical order. */
#include "core/store/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/formats/json.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

#define BUNDLE_HEADER "harkaq-bundle 1\n"
#define HEX_LEN (2 * HK_BLAKE3_OUT_LEN)
/* A header line holds two escaped paths at most (4 bytes per byte of a PATH_MAX path). */
#define LINE_MAX_LEN (2 * 4 * 4096 + 128)
/* The largest metadata a store writes is a .deb's control fields: far below this. */
#define META_MAX_LEN (16u << 20)
#define COPY_CHUNK (1u << 16)

/* ---- writing ---- */

static int cmp_art_dirname(const void *a, const void *b)
{
	const struct hk_artifact *x = *(const struct hk_artifact *const *)a;
	const struct hk_artifact *y = *(const struct hk_artifact *const *)b;
	return strcmp(x->dirname, y->dirname);
}

static int put(FILE *out, const void *p, size_t n, struct hk_error *err)
{
	if (n && fwrite(p, 1, n, out) != n)
		return hk_fail_errno(err, errno ? errno : EIO, "writing the bundle");
	return 0;
}

/* Streams one regular file of `a` into the bundle, hashing it on the way: the bytes written
 * must be the bytes the manifest names. */
static int write_file(FILE *out, const struct hk_artifact *a, const struct hk_tree_entry *e,
		      struct hk_bundle_stats *st, struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/%s", a->path, e->path);
	hk_autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		return hk_fail_errno(err, errno, "%s", path);
	if (!S_ISREG(sb.st_mode))
		return hk_fail(err, EBADMSG, "%s: not a regular file, as its manifest says: the "
					     "artifact %s was altered (harkaq store verify)", path,
			       a->dirname);
	char hex[HEX_LEN + 1];
	hk_hex(e->digest, sizeof(e->digest), hex);
	struct hk_buf head = HK_BUF_INIT;
	hk_buf_printf(&head, "%c %s %" PRIu64 " ", e->exec ? 'x' : 'f', hex, (uint64_t)sb.st_size);
	hk_tree_escape(e->path, strlen(e->path), &head);
	hk_buf_putc(&head, '\n');
	int r = put(out, head.data, head.len, err);
	hk_buf_free(&head);
	if (r < 0)
		return r;
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_autofree char *buf = hk_xmalloc(COPY_CHUNK);
	uint64_t left = (uint64_t)sb.st_size;
	while (left) {
		ssize_t n = read(fd, buf, left < COPY_CHUNK ? (size_t)left : COPY_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return hk_fail_errno(err, errno, "reading %s", path);
		if (n == 0)
			return hk_fail(err, EBADMSG, "%s shrank while it was exported", path);
		hk_blake3_update(&h, buf, (size_t)n);
		r = put(out, buf, (size_t)n, err);
		if (r < 0)
			return r;
		left -= (uint64_t)n;
	}
	uint8_t d[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, d, sizeof(d));
	if (memcmp(d, e->digest, sizeof(d)) != 0)
		return hk_fail(err, EBADMSG, "%s: content differs from the artifact's manifest: the "
					     "artifact %s was altered, and is not exported (harkaq "
					     "store verify)", path, a->dirname);
	st->files++;
	st->bytes += (uint64_t)sb.st_size;
	return 0;
}

static int write_artifact(struct hk_store *s, FILE *out, const struct hk_artifact *a,
			  struct hk_bundle_stats *st, struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int r = hk_store_files(s, a, &t, err);
	if (r < 0)
		return r;
	struct hk_buf line = HK_BUF_INIT;
	size_t meta_len = strlen(a->meta_json);
	hk_buf_printf(&line, "artifact %zu\n", meta_len);
	r = put(out, line.data, line.len, err);
	if (r == 0)
		r = put(out, a->meta_json, meta_len, err);
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct hk_tree_entry *e = &t.entries[i];
		if (e->type == HK_TREE_FILE) {
			r = write_file(out, a, e, st, err);
			continue;
		}
		hk_buf_reset(&line);
		hk_buf_puts(&line, e->type == HK_TREE_DIR ? "d " : "l ");
		hk_tree_escape(e->path, strlen(e->path), &line);
		if (e->type == HK_TREE_SYMLINK) {
			hk_buf_putc(&line, ' ');
			hk_tree_escape(e->target, e->target_len, &line);
		}
		hk_buf_putc(&line, '\n');
		r = put(out, line.data, line.len, err);
	}
	if (r == 0)
		r = put(out, "end\n", 4, err);
	hk_buf_free(&line);
	hk_tree_free(&t);
	if (r < 0)
		return hk_wrap(err, "exporting %s", a->dirname);
	st->artifacts++;
	return 0;
}

int hk_bundle_write(struct hk_store *s, const struct hk_artifact *const *arts, size_t n,
		    FILE *out, struct hk_bundle_stats *stats, struct hk_error *err)
{
	struct hk_bundle_stats st = { 0 };
	const struct hk_artifact **sorted = hk_xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, arts, n * sizeof(*sorted));
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), cmp_art_dirname);
	int r = put(out, BUNDLE_HEADER, strlen(BUNDLE_HEADER), err);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (i == 0 || sorted[i] != sorted[i - 1])
			r = write_artifact(s, out, sorted[i], &st, err);
	free(sorted);
	if (r == 0) {
		char done[64];
		int len = snprintf(done, sizeof(done), "done %zu\n", st.artifacts);
		r = put(out, done, (size_t)len, err);
	}
	if (r == 0 && fflush(out) != 0)
		r = hk_fail_errno(err, errno, "writing the bundle");
	if (stats)
		*stats = st;
	return r;
}

/* ---- reading ---- */

struct reader {
	FILE *in;
	const char *shown;
	uint64_t offset;         /* bytes consumed so far: where a problem is */
	struct hk_buf line;      /* the current header line, without its '\n' */
};

static int bad(struct reader *rd, struct hk_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "BUNDLE: at byte N: <what>" */
static int bad(struct reader *rd, struct hk_error *err, const char *fmt, ...)
{
	char msg[HK_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return hk_fail(err, EBADMSG, "%s: at byte %" PRIu64 ": %s", rd->shown, rd->offset, msg);
}

/* Reads one '\n'-terminated header line into rd->line.  The end of the stream is -ENODATA. */
static int read_line(struct reader *rd, struct hk_error *err)
{
	hk_buf_reset(&rd->line);
	for (;;) {
		int c = getc(rd->in);
		if (c == EOF) {
			if (ferror(rd->in))
				return hk_fail_errno(err, errno ? errno : EIO, "reading %s", rd->shown);
			if (rd->line.len == 0)
				return -ENODATA;
			return bad(rd, err, "%s", "the stream ends inside a line: the bundle is "
						  "truncated");
		}
		if (c == '\n')
			break;
		if (rd->line.len >= LINE_MAX_LEN)
			return bad(rd, err, "%s", "a header line longer than any entry's");
		hk_buf_putc(&rd->line, (char)c);
	}
	rd->offset += rd->line.len + 1;
	hk_buf_str(&rd->line);
	return 0;
}

static int need_line(struct reader *rd, const char *what, struct hk_error *err)
{
	int r = read_line(rd, err);
	if (r == -ENODATA)
		return bad(rd, err, "the stream ends where %s should be: the bundle is truncated",
			   what);
	return r;
}

/* One artifact being read: what its metadata claims, and the tree its entries make. */
struct incoming {
	struct hk_jval *meta;
	const char *claimed_id, *claimed_tree, *name, *version;
	struct hk_dep_group *deps;
	size_t n_deps;
	struct hk_strv provides;
	char *source_json;
	struct hk_tree tree;
	struct hk_strset dirs;   /* directories made so far: the only parents an entry may have */
	char *dirname;
	char *tmp;               /* STORE/.tmp-XXXXXX being filled; NULL when present already */
	int tmp_fd;
};

static void incoming_free(struct incoming *a)
{
	hk_jval_free(a->meta);
	hk_dep_groups_free(a->deps, a->n_deps);
	hk_strv_free(&a->provides);
	free(a->source_json);
	hk_tree_free(&a->tree);
	hk_strset_free(&a->dirs);
	free(a->dirname);
	if (a->tmp_fd >= 0)
		close(a->tmp_fd);
	if (a->tmp) {
		struct hk_error ignored;
		if (hk_store_remove_tree(a->tmp, &ignored) < 0) {
			/* The error that stopped the import is the one reported; a temporary
			 * directory is never an artifact of the store. */
		}
		free(a->tmp);
	}
	memset(a, 0, sizeof(*a));
	a->tmp_fd = -1;
}

static bool is_id(const char *s)
{
	return s && strlen(s) == HK_B3_ID_LEN - 1 && strncmp(s, "b3:", 3) == 0 &&
	       hk_is_lower_hex(s + 3, HEX_LEN);
}

/* The identity the metadata claims (the fields hk_store_add takes, docs/store.md). */
static int parse_meta(struct reader *rd, struct incoming *a, const char *text, size_t len,
		      struct hk_error *err)
{
	if (hk_json_parse(text, len, &a->meta, err) < 0)
		return hk_wrap(err, "%s: at byte %" PRIu64 ": an artifact's metadata", rd->shown,
			       rd->offset);
	const struct hk_jval *m = a->meta;
	const char *kind = hk_jobj_str(m, "kind");
	a->claimed_id = hk_jobj_str(m, "id");
	a->claimed_tree = hk_jobj_str(m, "tree");
	a->name = hk_jobj_str(m, "name");
	a->version = hk_jobj_str(m, "version");
	const struct hk_jval *deps = hk_jobj_get(m, "deps");
	const struct hk_jval *prov = hk_jobj_get(m, "provides");
	if (!kind || strcmp(kind, "harkaq.artifact.v1") != 0 || !is_id(a->claimed_id) ||
	    !is_id(a->claimed_tree) || !a->name || !hk_artifact_name_valid(a->name) ||
	    !a->version || !deps || deps->type != HK_JARR || !prov || prov->type != HK_JARR)
		return bad(rd, err, "%s", "an artifact's metadata is not harkaq.artifact.v1 with id, "
					  "tree, name, version, deps and provides");
	a->deps = hk_xcalloc(deps->len + 1, sizeof(*a->deps));
	for (size_t i = 0; i < deps->len; i++) {
		const struct hk_jval *g = &deps->items[i];
		if (g->type != HK_JARR || g->len == 0)
			return bad(rd, err, "a dependency group of %s is not a list of names",
				   a->name);
		struct hk_dep_group *dg = &a->deps[a->n_deps++];
		dg->alts = hk_xcalloc(g->len, sizeof(char *));
		for (size_t k = 0; k < g->len; k++) {
			if (g->items[k].type != HK_JSTR)
				return bad(rd, err, "a dependency of %s is not a name", a->name);
			dg->alts[dg->n_alts++] = hk_xstrdup(g->items[k].str);
		}
	}
	for (size_t i = 0; i < prov->len; i++) {
		if (prov->items[i].type != HK_JSTR)
			return bad(rd, err, "a name %s provides is not a string", a->name);
		hk_strv_push(&a->provides, prov->items[i].str);
	}
	const struct hk_jval *src = hk_jobj_get(m, "source");
	if (src && src->type == HK_JOBJ) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_json_value(&j, src);
		a->source_json = hk_buf_steal(&b);
	}
	a->dirname = hk_xasprintf("%s-%s", a->claimed_id + 3, a->name);
	return 0;
}

/* An entry's path: valid components, after its parent in canonical order, and under a
 * directory this artifact's stream made — never through one of its symlinks. */
static int check_entry_path(struct reader *rd, struct incoming *a, const char *path,
			    struct hk_error *err)
{
	const char *p = path;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (!hk_tree_valid_component(p, n))
			return bad(rd, err, "'%s' is not a path a tree may hold", path);
		if (!slash)
			break;
		p = slash + 1;
	}
	const char *last = strrchr(path, '/');
	if (last) {
		hk_autofree char *parent = hk_xstrndup(path, (size_t)(last - path));
		if (!hk_strset_contains(&a->dirs, parent))
			return bad(rd, err, "'%s' comes before its directory (entries are in "
					    "canonical order, directories first)", path);
	}
	if (a->tree.n > 0 && hk_tree_path_cmp(a->tree.entries[a->tree.n - 1].path, path) >= 0)
		return bad(rd, err, "'%s' is out of canonical order, or repeated", path);
	return 0;
}

/* Splits rd->line after its kind ("d ", "l ", "f ", "x ") at its spaces into exactly `want`
 * fields; false if it has another number of them. */
static bool split_fields(struct reader *rd, char **f, size_t want)
{
	char *p = rd->line.data + 2;
	size_t n = 1;
	for (const char *q = p; *q; q++)
		n += *q == ' ';
	if (n != want)
		return false;
	for (size_t i = 0; i < want; i++) {
		f[i] = p;
		char *sp = strchr(p, ' ');
		if (sp) {
			*sp = '\0';
			p = sp + 1;
		}
	}
	return true;
}

static int unescape(struct reader *rd, const char *field, struct hk_buf *out, struct hk_error *err)
{
	hk_buf_reset(out);
	if (!*field || hk_tree_unescape(field, strlen(field), out) < 0)
		return bad(rd, err, "a malformed escaped path '%s'", field);
	if (strlen(hk_buf_str(out)) != out->len)
		return bad(rd, err, "%s", "a path with a NUL byte");
	return 0;
}

/* Copies `size` bytes of the stream into `fd` (or, for an artifact already present, only
 * hashes them) and checks their hash. */
static int read_content(struct reader *rd, struct incoming *a, const char *path, uint64_t size,
			const uint8_t want[HK_BLAKE3_OUT_LEN], int fd, struct hk_error *err)
{
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_autofree char *buf = hk_xmalloc(COPY_CHUNK);
	uint64_t left = size;
	while (left) {
		size_t want_n = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
		size_t n = fread(buf, 1, want_n, rd->in);
		if (n == 0) {
			if (ferror(rd->in))
				return hk_fail_errno(err, errno ? errno : EIO, "reading %s", rd->shown);
			return bad(rd, err, "the stream ends inside the content of %s: the bundle "
					    "is truncated", path);
		}
		hk_blake3_update(&h, buf, n);
		if (fd >= 0) {
			int w = hk_write_all(fd, buf, n);
			if (w < 0)
				return hk_fail_errno(err, -w, "writing %s/%s", a->tmp, path);
		}
		left -= n;
		rd->offset += n;
	}
	uint8_t d[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, d, sizeof(d));
	if (memcmp(d, want, sizeof(d)) != 0)
		return bad(rd, err, "the content of %s does not hash to its entry's hash: the "
				    "bundle was altered", path);
	return 0;
}

/* One entry line (rd->line, kind already known to be d, l, f or x): recorded in the tree and,
 * unless the artifact is present already, made in the staging directory. */
static int read_entry(struct reader *rd, struct incoming *a, struct hk_error *err)
{
	char kind = rd->line.data[0];
	char *f[3];
	size_t want = kind == 'd' ? 1 : kind == 'l' ? 2 : 3;
	if (rd->line.len < 3 || rd->line.data[1] != ' ' || !split_fields(rd, f, want))
		return bad(rd, err, "%s", "a malformed entry line");
	struct hk_buf path = HK_BUF_INIT, target = HK_BUF_INIT;
	int r = unescape(rd, f[kind == 'l' ? 0 : want - 1], &path, err);
	if (r == 0)
		r = check_entry_path(rd, a, hk_buf_str(&path), err);
	const char *p = hk_buf_str(&path);
	if (r == 0 && kind == 'd') {
		hk_tree_add(&a->tree, p, HK_TREE_DIR, false, NULL, NULL, 0);
		hk_strset_add(&a->dirs, p);
		if (a->tmp && mkdirat(a->tmp_fd, p, 0755) < 0)
			r = hk_fail_errno(err, errno, "creating %s/%s", a->tmp, p);
	} else if (r == 0 && kind == 'l') {
		r = unescape(rd, f[1], &target, err);
		if (r == 0) {
			hk_tree_add(&a->tree, p, HK_TREE_SYMLINK, false, NULL,
				    hk_buf_str(&target), target.len);
			if (a->tmp && symlinkat(hk_buf_str(&target), a->tmp_fd, p) < 0)
				r = hk_fail_errno(err, errno, "creating %s/%s", a->tmp, p);
		}
	} else if (r == 0) {
		uint8_t digest[HK_BLAKE3_OUT_LEN];
		char *end = NULL;
		errno = 0;
		unsigned long long size = strtoull(f[1], &end, 10);
		if (strlen(f[0]) != HEX_LEN || !hk_is_lower_hex(f[0], HEX_LEN) ||
		    hk_unhex(f[0], sizeof(digest), digest) < 0 || !*f[1] || *end || errno ||
		    f[1][0] == '-')
			r = bad(rd, err, "a file entry for %s without a valid hash and size", p);
		hk_autoclose int fd = -1;
		if (r == 0 && a->tmp) {
			fd = openat(a->tmp_fd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    kind == 'x' ? 0755 : 0644);
			if (fd < 0)
				r = hk_fail_errno(err, errno, "creating %s/%s", a->tmp, p);
		}
		if (r == 0)
			r = read_content(rd, a, p, size, digest, fd, err);
		if (r == 0)
			hk_tree_add(&a->tree, p, HK_TREE_FILE, kind == 'x', digest, NULL, 0);
	}
	hk_buf_free(&path);
	hk_buf_free(&target);
	return r;
}

/* The artifact's entries are all read: its tree hash and id, recomputed, must be the claimed
 * ones.  Only then is it committed. */
static int verify_identity(struct reader *rd, struct incoming *a, struct hk_error *err)
{
	int r = hk_tree_compute(&a->tree, err);
	if (r < 0)
		return hk_wrap(err, "%s: artifact %s", rd->shown, a->dirname);
	char tree_id[HK_B3_ID_LEN], id[HK_B3_ID_LEN];
	hk_tree_id(&a->tree, tree_id);
	if (strcmp(tree_id, a->claimed_tree) != 0)
		return hk_fail(err, EBADMSG, "%s: artifact %s: its entries hash to the tree %s, its "
					     "metadata says %s: the bundle was altered", rd->shown,
			       a->dirname, tree_id, a->claimed_tree);
	/* hk_artifact_compute_id wants canonical deps and provides, as hk_store_add makes them. */
	hk_dep_groups_canonicalise(a->deps, &a->n_deps);
	struct hk_strv prov = HK_STRV_INIT;
	for (size_t i = 0; i < a->provides.n; i++)
		hk_strv_push(&prov, a->provides.v[i]);
	hk_strv_sort_unique(&prov);
	hk_artifact_compute_id(a->name, a->version, a->deps, a->n_deps,
			       (const char *const *)prov.v, prov.n, a->tree.root, id);
	hk_strv_free(&prov);
	if (strcmp(id, a->claimed_id) != 0)
		return hk_fail(err, EBADMSG, "%s: artifact %s: its identity hashes to %s, not to the "
					     "id its metadata claims: the bundle was altered",
			       rd->shown, a->dirname, id);
	return 0;
}

static int commit(struct hk_store *s, struct reader *rd, struct incoming *a,
		  const struct hk_artifact **out, struct hk_error *err)
{
	const struct hk_artifact_spec spec = {
		.name = a->name,
		.version = a->version,
		.deps = a->deps,
		.n_deps = a->n_deps,
		.provides = (const char *const *)a->provides.v,
		.n_provides = a->provides.n,
		.source_json = a->source_json,
	};
	close(a->tmp_fd);
	a->tmp_fd = -1;
	/* hk_store_add takes the staged directory (removed on failure), scans and hashes it once
	 * more from disk: what is committed is what is on disk. */
	char *tmp = hk_steal_ptr(&a->tmp);
	bool added = false;
	int r = hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, out, &added, err);
	free(tmp);
	if (r < 0)
		return hk_wrap(err, "%s: artifact %s", rd->shown, a->dirname);
	if (strcmp((*out)->id, a->claimed_id) != 0)
		return hk_fail(err, EBADMSG, "%s: artifact %s was stored as %s: its files changed "
					     "on disk while it was imported", rd->shown, a->dirname,
			       (*out)->id);
	return 0;
}

/* Reads one artifact, from the line after "artifact N" to its "end", and commits it. */
static int read_artifact(struct hk_store *s, struct reader *rd, size_t meta_len,
			 hk_bundle_artifact_fn on_artifact, void *ctx, struct hk_bundle_stats *st,
			 struct hk_error *err)
{
	struct incoming a = { .tree = HK_TREE_INIT, .dirs = HK_STRSET_INIT, .tmp_fd = -1 };
	hk_autofree char *meta = hk_xmalloc(meta_len + 1);
	int r = 0;
	if (fread(meta, 1, meta_len, rd->in) != meta_len)
		r = bad(rd, err, "%s", "the stream ends inside an artifact's metadata: the bundle is "
				       "truncated");
	if (r == 0) {
		meta[meta_len] = '\0';
		rd->offset += meta_len;
		r = parse_meta(rd, &a, meta, meta_len, err);
	}
	const struct hk_artifact *have = NULL;
	struct hk_error not_found;
	bool present = r == 0 && hk_store_find(s, a.dirname, &have, &not_found) == 0 &&
		       strcmp(have->dirname, a.dirname) == 0;
	if (r == 0 && !present) {
		r = hk_store_mktemp(s, &a.tmp, err);
		if (r == 0) {
			a.tmp_fd = open(a.tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (a.tmp_fd < 0)
				r = hk_fail_errno(err, errno, "opening %s", a.tmp);
		}
	}
	size_t files = 0;
	uint64_t bytes = 0;
	while (r == 0) {
		r = need_line(rd, "an entry or 'end'", err);
		if (r < 0)
			break;
		if (strcmp(rd->line.data, "end") == 0)
			break;
		char k = rd->line.data[0];
		if (k != 'd' && k != 'l' && k != 'f' && k != 'x') {
			r = bad(rd, err, "'%.40s' is not an entry (d, l, f, x) nor 'end'",
				rd->line.data);
			break;
		}
		uint64_t before = rd->offset;
		r = read_entry(rd, &a, err);
		if (k == 'f' || k == 'x') {
			files++;
			bytes += rd->offset - before;
		}
	}
	if (r == 0)
		r = verify_identity(rd, &a, err);
	const struct hk_artifact *done = have;
	if (r == 0 && !present)
		r = commit(s, rd, &a, &done, err);
	if (r == 0) {
		st->artifacts++;
		st->added += !present;
		st->files += files;
		st->bytes += bytes;
		if (on_artifact)
			on_artifact(ctx, done, !present);
	}
	incoming_free(&a);
	return r;
}

int hk_bundle_read(struct hk_store *s, FILE *in, const char *shown, hk_bundle_artifact_fn on_artifact,
		   void *ctx, struct hk_bundle_stats *stats, struct hk_error *err)
{
	struct reader rd = { .in = in, .shown = shown, .line = HK_BUF_INIT };
	struct hk_bundle_stats st = { 0 };
	int r = read_line(&rd, err);
	if (r == -ENODATA || (r == 0 && strcmp(rd.line.data, "harkaq-bundle 1") != 0))
		r = bad(&rd, err, "%s", "not a harkaq bundle (it starts with \"harkaq-bundle 1\")");
	while (r == 0) {
		r = need_line(&rd, "an artifact or 'done'", err);
		if (r < 0)
			break;
		char *end = NULL;
		if (strncmp(rd.line.data, "artifact ", 9) == 0) {
			unsigned long long n = strtoull(rd.line.data + 9, &end, 10);
			if (!*end && end != rd.line.data + 9 && n > 0 && n <= META_MAX_LEN)
				r = read_artifact(s, &rd, (size_t)n, on_artifact, ctx, &st, err);
			else
				r = bad(&rd, err, "%s", "an artifact's metadata size is not a number "
							"from 1 to 16 MiB");
		} else if (strncmp(rd.line.data, "done ", 5) == 0) {
			unsigned long long n = strtoull(rd.line.data + 5, &end, 10);
			if (*end || end == rd.line.data + 5 || n != st.artifacts) {
				r = bad(&rd, err, "the bundle says '%s', after the artifacts read: an "
						  "artifact is missing", rd.line.data);
			} else if (getc(in) != EOF) {
				r = bad(&rd, err, "%s", "bytes after 'done': not one bundle");
			} else if (ferror(in)) {
				r = hk_fail_errno(err, errno ? errno : EIO, "reading %s", shown);
			} else {
				r = 1;
			}
		} else {
			r = bad(&rd, err, "'%.40s' is neither an artifact nor 'done'", rd.line.data);
		}
	}
	hk_buf_free(&rd.line);
	if (stats)
		*stats = st;
	return r > 0 ? 0 : r;
}
