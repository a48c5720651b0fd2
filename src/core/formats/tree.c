/* Canonical tree hash (docs/store.md, "Tree hash"), over a tree held in memory.  Walking a
 * directory into a tree is tree_scan.c. */
#include "core/formats/tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/basic/strv.h"
#include "core/basic/util.h"

/* Prefix of every directory's serialisation (with its terminating NUL), so a directory digest
 * can never equal the digest of a file whose content happens to look like a serialisation of
 * records, and so a future layout change gets a new version. */
static const char dir_magic[] = "harkaq-tree-v1";

/* Type bytes of the serialisation.  The executable bit is folded into the type so that the
 * only mode information in the identity is the one bit a build can observe by executing. */
enum {
	REC_DIR = 'd',
	REC_FILE = 'f',
	REC_EXEC = 'x',
	REC_SYMLINK = 'l',
};

static void put_u64le(struct hk_blake3 *h, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	hk_blake3_update(h, b, sizeof(b));
}

static void put_field(struct hk_blake3 *h, const void *p, size_t n)
{
	put_u64le(h, n);
	hk_blake3_update(h, p, n);
}

bool hk_tree_valid_component(const char *name, size_t len)
{
	if (len == 0 || memchr(name, '/', len) || memchr(name, '\0', len))
		return false;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	return true;
}

static bool valid_rel_path(const char *path)
{
	const char *p = path;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (!hk_tree_valid_component(p, len))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

int hk_tree_path_cmp(const char *a, const char *b)
{
	/* '/' ranks below every byte so that "usr/bin/x" sorts before "usr/bin-x": a directory's
	 * whole subtree stays contiguous and directly after it (depth-first pre-order). */
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	for (;; x++, y++) {
		unsigned cx = *x == '/' ? 1u : (*x ? (unsigned)*x + 1u : 0u);
		unsigned cy = *y == '/' ? 1u : (*y ? (unsigned)*y + 1u : 0u);
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (cx == 0)
			return 0;
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct hk_tree_entry *x = a, *y = b;
	return hk_tree_path_cmp(x->path, y->path);
}

void hk_tree_add(struct hk_tree *t, const char *path, enum hk_tree_type type, bool exec,
		 const uint8_t *digest, const char *target, size_t target_len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->entries = hk_xrealloc(t->entries, t->cap * sizeof(*t->entries));
	}
	struct hk_tree_entry *e = &t->entries[t->n++];
	memset(e, 0, sizeof(*e));
	e->path = hk_xstrdup(path);
	e->type = type;
	e->exec = type == HK_TREE_FILE && exec;
	if (type == HK_TREE_FILE && digest)
		memcpy(e->digest, digest, sizeof(e->digest));
	if (type == HK_TREE_SYMLINK) {
		e->target = hk_xmalloc(target_len + 1);
		memcpy(e->target, target, target_len);
		e->target[target_len] = '\0';
		e->target_len = target_len;
	}
	t->computed = false;
}

void hk_tree_free(struct hk_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->entries[i].path);
		free(t->entries[i].target);
	}
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

/* True if `path` lies strictly beneath the directory `prefix` (of length plen; "" = root). */
static bool beneath(const char *path, const char *prefix, size_t plen)
{
	if (plen == 0)
		return true;
	return strncmp(path, prefix, plen) == 0 && path[plen] == '/';
}

/* Computes the digest of the directory `prefix` whose children start at entries[*i], and
 * advances *i past its whole subtree.  The serialisation hashed here is the one documented in
 * docs/store.md:
 *
 *     "harkaq-tree-v1" 0x00
 *     for each child, sorted by name bytes:
 *         type (1 byte: 'd' directory, 'f' file, 'x' executable file, 'l' symlink)
 *         u64le length of name, name bytes
 *         u64le length of payload, payload
 *             (file: 32-byte BLAKE3 of the content; directory: its 32-byte digest;
 *              symlink: the target bytes)
 */
static void dir_digest(struct hk_tree *t, size_t *i, const char *prefix, size_t plen,
		       uint8_t out[HK_BLAKE3_OUT_LEN])
{
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_blake3_update(&h, dir_magic, sizeof(dir_magic));
	while (*i < t->n && beneath(t->entries[*i].path, prefix, plen)) {
		struct hk_tree_entry *e = &t->entries[*i];
		const char *name = e->path + (plen ? plen + 1 : 0);
		/* hk_tree_compute checked that every parent is present, and the order is
		 * pre-order, so the first entry beneath `prefix` not yet consumed is a child. */
		(*i)++;
		uint8_t type;
		switch (e->type) {
		case HK_TREE_DIR:
			dir_digest(t, i, e->path, strlen(e->path), e->digest);
			type = REC_DIR;
			break;
		case HK_TREE_FILE:
			type = e->exec ? REC_EXEC : REC_FILE;
			break;
		case HK_TREE_SYMLINK:
		default:
			type = REC_SYMLINK;
			break;
		}
		hk_blake3_update(&h, &type, 1);
		put_field(&h, name, strlen(name));
		if (e->type == HK_TREE_SYMLINK)
			put_field(&h, e->target, e->target_len);
		else
			put_field(&h, e->digest, sizeof(e->digest));
	}
	hk_blake3_finalize(&h, out, HK_BLAKE3_OUT_LEN);
}

static char *display_path(const char *rel)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_putc(&b, '/');
	hk_tree_escape(rel, strlen(rel), &b);
	return hk_buf_steal(&b);
}

int hk_tree_compute(struct hk_tree *t, struct hk_error *err)
{
	for (size_t k = 0; k < t->n; k++) {
		if (!valid_rel_path(t->entries[k].path)) {
			hk_autofree char *d = display_path(t->entries[k].path);
			return hk_fail(err, EINVAL,
				       "'%s' is not a valid path inside a tree (relative, no empty, "
				       "'.' or '..' components)", d);
		}
	}
	if (t->n)
		qsort(t->entries, t->n, sizeof(*t->entries), entry_cmp);
	for (size_t k = 0; k < t->n; k++) {
		const struct hk_tree_entry *e = &t->entries[k];
		if (k > 0 && strcmp(t->entries[k - 1].path, e->path) == 0) {
			hk_autofree char *d = display_path(e->path);
			return hk_fail(err, EINVAL, "%s appears twice in the tree", d);
		}
		const char *slash = strrchr(e->path, '/');
		if (!slash)
			continue;
		hk_autofree char *parent = hk_xstrndup(e->path, (size_t)(slash - e->path));
		struct hk_tree_entry key = { .path = parent };
		const struct hk_tree_entry *p =
			bsearch(&key, t->entries, t->n, sizeof(*t->entries), entry_cmp);
		if (!p || p->type != HK_TREE_DIR) {
			hk_autofree char *d = display_path(e->path);
			hk_autofree char *dp = display_path(parent);
			return hk_fail(err, EINVAL, "%s: its parent %s is %s", d, dp,
				       p ? "not a directory" : "missing from the tree");
		}
	}
	size_t i = 0;
	dir_digest(t, &i, "", 0, t->root);
	t->computed = true;
	return 0;
}

size_t hk_tree_file_count(const struct hk_tree *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->entries[i].type != HK_TREE_DIR)
			n++;
	return n;
}

void hk_tree_id(const struct hk_tree *t, char out[HK_B3_ID_LEN])
{
	memcpy(out, "b3:", 3);
	hk_hex(t->root, sizeof(t->root), out + 3);
}

const char *hk_tree_special_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "a file of unknown type";
}

static const char *type_name(enum hk_tree_type type)
{
	switch (type) {
	case HK_TREE_DIR:
		return "a directory";
	case HK_TREE_FILE:
		return "a regular file";
	case HK_TREE_SYMLINK:
		return "a symlink";
	}
	return "?";
}

/* One difference between entries x (of a) and y (of b) at the same path, or NULL. */
static char *entry_difference(const struct hk_tree_entry *x, const struct hk_tree_entry *y,
			      const char *label_a, const char *label_b)
{
	hk_autofree char *d = display_path(x->path);
	if (x->type != y->type)
		return hk_xasprintf("%s: %s in %s, %s in %s", d, type_name(x->type), label_a,
				    type_name(y->type), label_b);
	if (x->type == HK_TREE_FILE && x->exec != y->exec)
		return hk_xasprintf("%s: executable in %s, not executable in %s", d,
				    x->exec ? label_a : label_b, x->exec ? label_b : label_a);
	if (x->type == HK_TREE_FILE && memcmp(x->digest, y->digest, sizeof(x->digest))) {
		char hx[2 * HK_BLAKE3_OUT_LEN + 1], hy[2 * HK_BLAKE3_OUT_LEN + 1];
		hk_hex(x->digest, sizeof(x->digest), hx);
		hk_hex(y->digest, sizeof(y->digest), hy);
		return hk_xasprintf("%s: content differs (%s b3:%s, %s b3:%s)", d, label_a, hx,
				    label_b, hy);
	}
	if (x->type == HK_TREE_SYMLINK &&
	    (x->target_len != y->target_len || memcmp(x->target, y->target, x->target_len))) {
		struct hk_buf tx = HK_BUF_INIT, ty = HK_BUF_INIT;
		hk_tree_escape(x->target, x->target_len, &tx);
		hk_tree_escape(y->target, y->target_len, &ty);
		char *s = hk_xasprintf("%s: symlink target differs (%s '%s', %s '%s')", d, label_a,
				       hk_buf_str(&tx), label_b, hk_buf_str(&ty));
		hk_buf_free(&tx);
		hk_buf_free(&ty);
		return s;
	}
	return NULL;
}

size_t hk_tree_differences(const struct hk_tree *a, const struct hk_tree *b, const char *label_a,
			   const char *label_b, size_t max, struct hk_strv *out)
{
	size_t i = 0, j = 0, n = 0;
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 :
			hk_tree_path_cmp(a->entries[i].path, b->entries[j].path);
		char *diff;
		if (c < 0) {
			hk_autofree char *d = display_path(a->entries[i].path);
			diff = hk_xasprintf("%s: %s in %s, missing from %s", d,
					    type_name(a->entries[i].type), label_a, label_b);
			i++;
		} else if (c > 0) {
			hk_autofree char *d = display_path(b->entries[j].path);
			diff = hk_xasprintf("%s: %s in %s, absent from %s", d,
					    type_name(b->entries[j].type), label_b, label_a);
			j++;
		} else {
			diff = entry_difference(&a->entries[i], &b->entries[j], label_a, label_b);
			i++;
			j++;
		}
		if (!diff)
			continue;
		if (out && n < max)
			hk_strv_push_owned(out, diff);
		else
			free(diff);
		n++;
	}
	return n;
}

char *hk_tree_first_difference(const struct hk_tree *a, const struct hk_tree *b,
			       const char *label_a, const char *label_b)
{
	struct hk_strv one = HK_STRV_INIT;
	hk_tree_differences(a, b, label_a, label_b, 1, &one);
	char *first = one.n ? one.v[0] : NULL;
	if (one.n)
		one.v[0] = NULL;
	hk_strv_free(&one);
	return first;
}

void hk_tree_escape(const void *bytes, size_t n, struct hk_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = bytes;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == '\\') {
			hk_buf_append(out, "\\\\", 2);
		} else if (c >= 0x21 && c <= 0x7e) {
			hk_buf_putc(out, (char)c);
		} else {
			char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
			hk_buf_append(out, e, 4);
		}
	}
}

int hk_tree_unescape(const char *text, size_t n, struct hk_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x21 || c > 0x7e)
			return -EINVAL;
		if (c != '\\') {
			hk_buf_putc(out, (char)c);
			continue;
		}
		if (i + 1 < n && text[i + 1] == '\\') {
			hk_buf_putc(out, '\\');
			i++;
			continue;
		}
		if (i + 3 >= n || text[i + 1] != 'x')
			return -EINVAL;
		int hi = hk_hex_value(text[i + 2]), lo = hk_hex_value(text[i + 3]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		hk_buf_putc(out, (char)(hi << 4 | lo));
		i += 3;
	}
	return 0;
}
