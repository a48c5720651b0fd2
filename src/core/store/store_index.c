/* The path index (STORE/.index/paths, docs/store.md): sandbox path -> the artifacts that
 * provide it, read by binary search.  An add merges the new artifact's lines into the index when
 * the index covers exactly the store's other artifacts (its "covers" line); otherwise, and on
 * `harkaq store reindex`, it is rewritten from every manifest. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/blake3.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/store/store.h"
#include "core/store/store_int.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

/* Version 2 adds the "covers" line; version 1 (no such line) is still read, and an add
 * rewrites it whole. */
#define INDEX_HEADER "harkaq-path-index 2\n"
#define INDEX_HEADER_V1 "harkaq-path-index 1\n"
#define COVER_PREFIX "covers "

static int index_line_cmp_path(const struct store_index_line *l, const char *path, size_t n)
{
	size_t m = l->path_len < n ? l->path_len : n;
	int c = memcmp(l->path, path, m);
	if (c)
		return c;
	return l->path_len < n ? -1 : l->path_len > n ? 1 : 0;
}

static void index_forget(struct hk_store *s)
{
	free(s->index);
	s->index = NULL;
	s->n_index = 0;
}

/* The "covers <count> <b3 id>" line of a version-2 index, at p (its end nl): the id into
 * cover.  Returns false if the line is not one. */
static bool index_parse_cover(const char *p, const char *nl, char cover[HK_B3_ID_LEN])
{
	size_t pl = strlen(COVER_PREFIX);
	if ((size_t)(nl - p) <= pl || memcmp(p, COVER_PREFIX, pl) != 0)
		return false;
	const char *count = p + pl;
	const char *sp = memchr(count, ' ', (size_t)(nl - count));
	if (!sp || sp == count || (size_t)(nl - sp - 1) != HK_B3_ID_LEN - 1 ||
	    memcmp(sp + 1, "b3:", 3) != 0 || !hk_is_lower_hex(sp + 4, HK_B3_ID_LEN - 4))
		return false;
	for (const char *c = count; c < sp; c++)
		if (*c < '0' || *c > '9')
			return false;
	memcpy(cover, sp + 1, HK_B3_ID_LEN - 1);
	cover[HK_B3_ID_LEN - 1] = '\0';
	return true;
}

static int index_parse(struct hk_store *s, char *text, size_t len, const char *filename,
		       struct hk_error *err)
{
	bool v1 = len >= strlen(INDEX_HEADER_V1) &&
		  memcmp(text, INDEX_HEADER_V1, strlen(INDEX_HEADER_V1)) == 0;
	int r = v1 ? 0 : store_check_header(text, len, INDEX_HEADER, filename, err);
	if (r < 0)
		return r;
	size_t hl = strlen(INDEX_HEADER);
	size_t cap = 0;
	unsigned line = 1;
	char *p = text + hl, *end = text + len;
	if (!v1) {
		line++;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char cover[HK_B3_ID_LEN];
		if (!nl || !index_parse_cover(p, nl, cover))
			return hk_fail_at(err, EBADMSG, filename, line, 0,
					  "expected \"" COVER_PREFIX "<count> b3:<hex>\"");
		p = nl + 1;
	}
	while (p < end) {
		line++;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *sp = nl ? memchr(p, ' ', (size_t)(nl - p)) : NULL;
		if (!nl || !sp || sp == p || sp + 1 == nl) {
			index_forget(s);
			return hk_fail_at(err, EBADMSG, filename, line, 0, "malformed index line");
		}
		if (s->n_index == cap) {
			cap = cap ? 2 * cap : 1024;
			s->index = hk_xrealloc(s->index, cap * sizeof(*s->index));
		}
		struct store_index_line *l = &s->index[s->n_index];
		l->path = p;
		l->path_len = (size_t)(sp - p);
		l->dir = sp + 1;
		l->dir_len = (size_t)(nl - sp - 1);
		if (s->n_index > 0) {
			const struct store_index_line *prev = &s->index[s->n_index - 1];
			int c = index_line_cmp_path(prev, l->path, l->path_len);
			if (c > 0) {
				index_forget(s);
				return hk_fail_at(err, EBADMSG, filename, line, 0,
						  "index is not sorted");
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
	int r = hk_file_read(path, &text, err);
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

/* Whether the index lists `a`'s paths.  A pinned base is the ground every build stands on,
 * never a dep to declare: who ships one of its paths is answered by its own dpkg database
 * (core/debian/debroot.h); a state is a dep of its Debian build only. */
static bool index_lists(const struct hk_artifact *a)
{
	return a->origin != HK_ORIGIN_BASE && a->origin != HK_ORIGIN_STATE;
}

/* Appends the index lines of artifact `a` (one per file and symlink) to `lines`. */
static void index_lines_of(const struct hk_artifact *a, const struct hk_tree *t,
			   struct hk_strv *lines)
{
	if (!index_lists(a))
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
		hk_strv_push_owned(lines, hk_buf_steal(&b));
	}
}

/* The id of the set of artifacts an index lists: BLAKE3 of their directory names, sorted, one
 * a line (`extra`, when not NULL, counted in).  *count is how many. */
static void index_cover_of(struct hk_artifact *const *arts, size_t n_arts,
			   const struct hk_artifact *extra, char out[HK_B3_ID_LEN], size_t *count)
{
	hk_autostrv struct hk_strv dirs = HK_STRV_INIT;
	for (size_t i = 0; i < n_arts; i++)
		if (index_lists(arts[i]))
			hk_strv_push(&dirs, arts[i]->dirname);
	if (extra && index_lists(extra))
		hk_strv_push(&dirs, extra->dirname);
	hk_strv_sort_unique(&dirs);
	struct hk_buf text = HK_BUF_INIT;
	for (size_t i = 0; i < dirs.n; i++) {
		hk_buf_puts(&text, dirs.v[i]);
		hk_buf_putc(&text, '\n');
	}
	hk_b3_id(text.data ? text.data : "", text.len, out);
	hk_buf_free(&text);
	*count = dirs.n;
}

/* Every artifact's lines, from its manifest. */
static int index_lines_from_manifests(struct hk_store *s, struct hk_artifact *const *arts,
				      size_t n_arts, struct hk_strv *lines, struct hk_error *err)
{
	for (size_t i = 0; i < n_arts; i++) {
		/* A base or a state has no line in the index (index_lines_of): its manifest, the
		 * base's the largest of the store (11,726 files for debian-12-buildd), is not read
		 * for nothing. */
		if (!index_lists(arts[i]))
			continue;
		struct hk_tree t = HK_TREE_INIT;
		int r = hk_store_files(s, arts[i], &t, err);
		if (r < 0)
			return r;
		index_lines_of(arts[i], &t, lines);
		hk_tree_free(&t);
	}
	return 0;
}

/* Compares two index lines (without their '\n').  A line is "<path> <dir>" and ' ' sorts below
 * every byte an escaped path can hold, so comparing whole lines compares by path, then by
 * artifact. */
static int index_line_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : an < bn ? -1 : an > bn ? 1 : 0;
}

/* Writes the index `text` (its covers line checked by the caller, from `body` on) with the
 * sorted `extra` lines merged in, in order, to `f`.  Returns false, having written part of
 * it, when a line of `text` is malformed or out of order: the caller rebuilds instead. */
static bool index_merge_into(const char *body, const char *end, const struct hk_strv *extra,
			     FILE *f)
{
	const char *prev = NULL;
	size_t prev_len = 0, k = 0;
	for (const char *p = body; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || !memchr(p, ' ', (size_t)(nl - p)) || p[0] != '/')
			return false;
		size_t n = (size_t)(nl - p);
		if (prev && index_line_cmp(prev, prev_len, p, n) >= 0)
			return false;
		int c = 1;
		while (k < extra->n &&
		       (c = index_line_cmp(extra->v[k], strlen(extra->v[k]), p, n)) < 0) {
			fputs(extra->v[k++], f);
			fputc('\n', f);
		}
		if (c == 0)
			k++;   /* the same line twice: once */
		fwrite(p, 1, n + 1, f);
		prev = p;
		prev_len = n;
		p = nl + 1;
	}
	for (; k < extra->n; k++) {
		fputs(extra->v[k], f);
		fputc('\n', f);
	}
	return true;
}

/* The index on disk with `extra` merged in, into a new temporary file of STORE/.index, when the
 * index is version 2 and covers exactly `before` (read again under the lock: another process
 * may have added since this handle loaded it).  Returns 1 and *tmp_path when it merged, 0 when
 * the index does not serve (the caller rebuilds), or -errno when the new file cannot be
 * written.  The index is mapped and the new one streamed: an add touches no copy of it. */
static int index_merge_file(struct hk_store *s, const char *before, const char *header,
			    const struct hk_strv *extra, char **tmp_path, struct hk_error *err)
{
	hk_autofree char *path = hk_xasprintf("%s/" INDEX_FILE, s->root);
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= (off_t)strlen(INDEX_HEADER))
		return 0;
	size_t len = (size_t)st.st_size;
	char *text = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (text == MAP_FAILED)
		return 0;
	const char *end = text + len, *cover_line = text + strlen(INDEX_HEADER);
	const char *nl = memchr(cover_line, '\n', (size_t)(end - cover_line));
	char cover[HK_B3_ID_LEN];
	if (memcmp(text, INDEX_HEADER, strlen(INDEX_HEADER)) != 0 || !nl ||
	    !index_parse_cover(cover_line, nl, cover) || strcmp(cover, before) != 0) {
		munmap(text, len);
		return 0;
	}
	hk_autofree char *dir = hk_xasprintf("%s/" INDEX_DIR, s->root);
	hk_autofree char *tmp = hk_xasprintf("%s/.tmp-XXXXXX", dir);
	int out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		munmap(text, len);
		return hk_fail_errno(err, errno, "cannot create a temporary file in %s", dir);
	}
	FILE *f = fdopen(out, "w");
	if (!f) {
		int e = errno;
		close(out);
		unlink(tmp);
		munmap(text, len);
		return hk_fail_errno(err, e, "cannot write %s", tmp);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	fputs(header, f);
	bool merged = index_merge_into(nl + 1, end, extra, f);
	munmap(text, len);
	int werr = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fchmod(out, 0644) < 0 && !werr)
		werr = errno;
	if (fclose(f) != 0 && !werr)
		werr = errno ? errno : EIO;
	if (!merged || werr) {
		unlink(tmp);
		return merged ? hk_fail_errno(err, werr, "cannot write %s", tmp) : 0;
	}
	*tmp_path = hk_steal_ptr(&tmp);
	return 1;
}

int store_index_build(struct hk_store *s, struct hk_artifact *const *arts, size_t n_arts,
		       const struct hk_artifact *extra, const struct hk_tree *extra_tree,
		       char **tmp_path, struct hk_error *err)
{
	store_index_unload(s);
	char before[HK_B3_ID_LEN], after[HK_B3_ID_LEN];
	size_t n_before, n_after;
	index_cover_of(arts, n_arts, NULL, before, &n_before);
	index_cover_of(arts, n_arts, extra, after, &n_after);
	struct hk_buf header = HK_BUF_INIT;
	hk_buf_puts(&header, INDEX_HEADER);
	hk_buf_printf(&header, COVER_PREFIX "%zu %s\n", n_after, after);
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	if (extra)
		index_lines_of(extra, extra_tree, &lines);
	/* An add to an index that lists the store's other artifacts, no more and no fewer, merges
	 * the new lines in: the cost of an add is then one pass over the index, not every
	 * manifest of the store read again.  Any other index (missing, damaged, of version 1, one
	 * add behind after a crash between the commit and its rename) is rebuilt from the
	 * manifests, so it still cannot drift from the store. */
	int r = 0;
	if (extra) {
		hk_strv_sort_unique(&lines);
		r = index_merge_file(s, before, hk_buf_str(&header), &lines, tmp_path, err);
		if (r != 0) {
			hk_buf_free(&header);
			return r < 0 ? r : 0;
		}
	}
	r = index_lines_from_manifests(s, arts, n_arts, &lines, err);
	hk_strv_sort_unique(&lines);
	struct hk_buf out = header;
	for (size_t i = 0; r == 0 && i < lines.n; i++) {
		hk_buf_puts(&out, lines.v[i]);
		hk_buf_putc(&out, '\n');
	}
	if (r == 0) {
		hk_autofree char *dir = hk_xasprintf("%s/" INDEX_DIR, s->root);
		r = store_ensure_dir(dir, err);
		if (r == 0)
			r = hk_file_write_temp(dir, out.data, out.len, 0644, 0, tmp_path, err);
	}
	hk_buf_free(&out);
	return r;
}

int hk_store_reindex(struct hk_store *s, struct hk_error *err)
{
	int r = store_ensure_loaded(s, err);
	if (r < 0)
		return r;
	char *tmp = NULL;
	r = store_index_build(s, s->arts, s->n_arts, NULL, NULL, &tmp, err);
	if (r < 0)
		return r;
	hk_autofree char *path = hk_xasprintf("%s/" INDEX_FILE, s->root);
	if (rename(tmp, path) < 0) {
		r = hk_fail_errno(err, errno, "cannot write %s", path);
		unlink(tmp);
	}
	free(tmp);
	store_index_unload(s);
	return r;
}

int hk_store_providers(struct hk_store *s, const char *path, const struct hk_artifact ***out,
		       size_t *n, struct hk_error *err)
{
	*out = NULL;
	*n = 0;
	int r = store_ensure_loaded(s, err);
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
			store_find_dirname(s, s->index[i].dir, s->index[i].dir_len);
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
