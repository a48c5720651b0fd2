/* Seal records (STORE/.meta/<dirname>.verity, design.md §12, docs/sealing.md): each regular
 * file's fs-verity digest beside its BLAKE3 hash.  The kernel calls are the caller's
 * (hk_seal_fn); this file walks the manifest, stores and compares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/store/store.h"
#include "core/store/store_int.h"
#include "core/basic/util.h"

#define SEAL_HEADER "harkaq-seal 1\n"

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
		return hk_is_lower_hex(p + 7, 64);
	if (n == 7 + 128 && memcmp(p, "sha512:", 7) == 0)
		return hk_is_lower_hex(p + 7, 128);
	return false;
}

int hk_seal_parse(const char *text, size_t len, const char *filename, struct hk_seal *out,
		  struct hk_error *err)
{
	int r = store_check_header(text, len, SEAL_HEADER, filename, err);
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
		r = store_next_line(p, end, filename, &line, &nl, err);
		if (r < 0)
			break;
		/* "<digest> <blake3 hex> <escaped path>" */
		const char *sp1, *sp2;
		store_split_fields(p, nl, &sp1, &sp2);
		uint8_t b3[HK_BLAKE3_OUT_LEN];
		bool ok = sp1 && sp2 && seal_digest_valid(p, (size_t)(sp1 - p)) &&
			  sp2 - sp1 - 1 == HEX_LEN && hk_is_lower_hex(sp1 + 1, HEX_LEN) &&
			  hk_unhex(sp1 + 1, HK_BLAKE3_OUT_LEN, b3) == 0 &&
			  store_unescape_field(sp2 + 1, (size_t)(nl - sp2 - 1), &path) == 0 &&
			  strlen(hk_buf_str(&path)) == path.len;
		if (!ok) {
			r = hk_fail_at(err, EBADMSG, filename, line, 0, "malformed seal line");
			break;
		}
		if (seal.n == cap) {
			cap = cap ? 2 * cap : 64;
			seal.entries = hk_xrealloc(seal.entries, cap * sizeof(*seal.entries));
		}
		struct hk_seal_entry *e = &seal.entries[seal.n++];
		memset(e, 0, sizeof(*e));
		memcpy(e->digest, p, (size_t)(sp1 - p));
		memcpy(e->b3, b3, sizeof(e->b3));
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
	r = hk_file_write_temp(meta_dir, text.data, text.len, 0644, 0, &tmp, err);
	hk_buf_free(&text);
	if (r < 0)
		return r;
	/* Sealed before the rename, so the record is never visible unprotected; the temporary
	 * file is closed (hk_file_write_temp), as FS_IOC_ENABLE_VERITY requires. */
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
	int r = hk_file_read(record, &text, err);
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
