/* The store's names and identities, as values: an artifact's origin, name and version rules,
 * its dependency groups and its id (docs/store.md, "Artifact id").  Pure: the store's files
 * are read and written by the other store*.c files (store_int.h). */
#include "core/formats/store_names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/hex.h"

const char *hk_artifact_origin_name(enum hk_artifact_origin o)
{
	switch (o) {
	case HK_ORIGIN_DEB: return "deb";
	case HK_ORIGIN_OTHER: return "added";
	case HK_ORIGIN_BUILD: return "build";
	case HK_ORIGIN_BASE: return "base";
	case HK_ORIGIN_STATE: return "state";
	}
	return "added";
}

bool hk_artifact_name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > HK_STORE_NAME_MAX || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!isalnum(c) && c != '+' && c != '.' && c != '_' && c != '-')
			return false;
	}
	return true;
}

bool hk_artifact_version_valid(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n > HK_STORE_VERSION_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x21 || (unsigned char)v[i] > 0x7e)
			return false;
	return true;
}

int hk_dep_group_cmp(const struct hk_dep_group *a, const struct hk_dep_group *b)
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
	return hk_dep_group_cmp(a, b);
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
		if (hk_dep_group_cmp(&g[w - 1], &g[i]) == 0)
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
