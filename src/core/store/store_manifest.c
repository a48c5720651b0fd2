/* The manifest (STORE/.meta/<dirname>.files: every entry of an artifact with its type and
 * content hash, docs/store.md), and the line reader every store text file shares. */
#include <errno.h>
#include <string.h>

#include "core/basic/hex.h"
#include "core/store/store_int.h"
#include "core/basic/util.h"

#define MANIFEST_HEADER "harkaq-manifest 1\n"

void store_manifest_encode(const struct hk_tree *t, struct hk_buf *out)
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

int store_unescape_field(const char *p, size_t n, struct hk_buf *out)
{
	hk_buf_reset(out);
	if (n == 0)
		return -EINVAL;
	return hk_tree_unescape(p, n, out);
}

int store_check_header(const char *text, size_t len, const char *header, const char *filename,
			struct hk_error *err)
{
	size_t hl = strlen(header);
	if (len < hl || memcmp(text, header, hl) != 0)
		return hk_fail_at(err, EBADMSG, filename, 1, 0, "missing header \"%.*s\"",
				  (int)(hl - 1), header);
	return 0;
}

int store_next_line(const char *p, const char *end, const char *filename, unsigned *line,
		     const char **nl, struct hk_error *err)
{
	++*line;
	*nl = memchr(p, '\n', (size_t)(end - p));
	if (!*nl)
		return hk_fail_at(err, EBADMSG, filename, *line, 0, "line not terminated");
	return 0;
}

void store_split_fields(const char *p, const char *nl, const char **sp1, const char **sp2)
{
	*sp1 = memchr(p, ' ', (size_t)(nl - p));
	*sp2 = *sp1 ? memchr(*sp1 + 1, ' ', (size_t)(nl - *sp1 - 1)) : NULL;
}

int store_manifest_decode(const char *text, size_t len, const char *filename,
			   struct hk_tree *out, struct hk_error *err)
{
	int r = store_check_header(text, len, MANIFEST_HEADER, filename, err);
	if (r < 0)
		return r;
	size_t hl = strlen(MANIFEST_HEADER);
	struct hk_tree t = HK_TREE_INIT;
	struct hk_buf path = HK_BUF_INIT, target = HK_BUF_INIT;
	unsigned line = 1;
	const char *p = text + hl, *end = text + len;
	while (p < end) {
		const char *nl;
		r = store_next_line(p, end, filename, &line, &nl, err);
		if (r < 0)
			break;
		const char *sp1, *sp2;
		store_split_fields(p, nl, &sp1, &sp2);
		bool ok = sp1 && sp1 == p + 1;
		char kind = *p;
		if (ok && kind == 'd') {
			ok = !sp2 &&
			     store_unescape_field(sp1 + 1, (size_t)(nl - sp1 - 1), &path) == 0;
			if (ok)
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_DIR, false, NULL, NULL, 0);
		} else if (ok && (kind == 'f' || kind == 'x')) {
			ok = sp2 && sp2 - sp1 - 1 == HEX_LEN && hk_is_lower_hex(sp1 + 1, HEX_LEN) &&
			     store_unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &path) == 0;
			uint8_t d[HK_BLAKE3_OUT_LEN];
			/* Validated as lowercase hex above; decoded with its result checked. */
			ok = ok && hk_unhex(sp1 + 1, HK_BLAKE3_OUT_LEN, d) == 0;
			if (ok)
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_FILE, kind == 'x', d,
					    NULL, 0);
		} else if (ok && kind == 'l') {
			ok = sp2 &&
			     store_unescape_field(sp1 + 1, (size_t)(sp2 - sp1 - 1), &path) == 0 &&
			     store_unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &target) == 0;
			if (ok)
				hk_tree_add(&t, hk_buf_str(&path), HK_TREE_SYMLINK, false, NULL,
					    hk_buf_str(&target), target.len);
		} else {
			ok = false;
		}
		if (ok && strlen(hk_buf_str(&path)) != path.len)
			ok = false;   /* a NUL byte cannot be part of a path */
		if (!ok) {
			r = hk_fail_at(err, EBADMSG, filename, line, 0, "malformed manifest line");
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
