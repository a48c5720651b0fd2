/* The path index (STORE/.index/paths, docs/store.md): sandbox path -> the artifacts that
 * provide it, rewritten from every manifest on each add, read by binary search. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/store.h"
#include "core/store_int.h"
#include "core/strv.h"
#include "core/util.h"

#define INDEX_HEADER "harkaq-path-index 1\n"

static int index_line_cmp_path(const struct store_index_line *l, const char *path, size_t n)
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
	int r = store_check_header(text, len, INDEX_HEADER, filename, err);
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
				free(s->index);
				s->index = NULL;
				s->n_index = 0;
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
 * (core/debroot.h); a state is a dep of its Debian build only. */
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

int store_index_build(struct hk_store *s, struct hk_artifact *const *arts, size_t n_arts,
		       const struct hk_artifact *extra, const struct hk_tree *extra_tree,
		       char **tmp_path, struct hk_error *err)
{
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	int r = 0;
	for (size_t i = 0; i < n_arts; i++) {
		/* A base or a state has no line in the index (index_lines_of): its manifest, the
		 * base's the largest of the store (11,726 files for debian-12-buildd), is not read
		 * for nothing at every add. */
		if (!index_lists(arts[i]))
			continue;
		struct hk_tree t = HK_TREE_INIT;
		r = hk_store_files(s, arts[i], &t, err);
		if (r < 0)
			break;
		index_lines_of(arts[i], &t, &lines);
		hk_tree_free(&t);
	}
	if (r == 0 && extra)
		index_lines_of(extra, extra_tree, &lines);
	if (r == 0) {
		/* A line is "<path> <dir>" and ' ' sorts below every byte an escaped path can
		 * hold, so sorting whole lines sorts by path, then by artifact. */
		hk_strv_sort_unique(&lines);
		struct hk_buf out = HK_BUF_INIT;
		hk_buf_puts(&out, INDEX_HEADER);
		for (size_t i = 0; i < lines.n; i++) {
			hk_buf_puts(&out, lines.v[i]);
			hk_buf_putc(&out, '\n');
		}
		hk_autofree char *dir = hk_xasprintf("%s/" INDEX_DIR, s->root);
		r = store_ensure_dir(dir, err);
		if (r == 0)
			r = hk_file_write_temp(dir, out.data, out.len, 0644, 0, tmp_path, err);
		hk_buf_free(&out);
	}
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
