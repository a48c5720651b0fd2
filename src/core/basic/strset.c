#include "core/basic/strset.h"
#include "core/basic/util.h"

#include <stdint.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	/* FNV-1a: enough spread for path strings; the set is not exposed to hostile collisions
	 * in a way that matters (worst case is a slower build of a policy). */
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Returns the slot holding `s`, or the empty slot where it would go. */
static size_t find_slot(const struct hk_strset *set, const char *s)
{
	size_t mask = set->index_cap - 1;
	size_t slot = (size_t)hash_str(s) & mask;
	while (set->index[slot] != 0) {
		if (strcmp(set->items[set->index[slot] - 1], s) == 0)
			return slot;
		slot = (slot + 1) & mask;
	}
	return slot;
}

static void rebuild_index(struct hk_strset *set, size_t index_cap)
{
	free(set->index);
	set->index = hk_xcalloc(index_cap, sizeof(*set->index));
	set->index_cap = index_cap;
	for (size_t i = 0; i < set->len; i++)
		set->index[find_slot(set, set->items[i])] = i + 1;
}

bool hk_strset_contains(const struct hk_strset *set, const char *s)
{
	if (set->index_cap == 0)
		return false;
	return set->index[find_slot(set, s)] != 0;
}

size_t hk_strset_find(const struct hk_strset *set, const char *s)
{
	if (set->index_cap == 0)
		return (size_t)-1;
	size_t at = set->index[find_slot(set, s)];
	return at ? at - 1 : (size_t)-1;
}

bool hk_strset_add_owned(struct hk_strset *set, char *s)
{
	/* Keep the table at most half full so probe sequences stay short. */
	if ((set->len + 1) * 2 > set->index_cap)
		rebuild_index(set, set->index_cap ? set->index_cap * 2 : 16);
	size_t slot = find_slot(set, s);
	if (set->index[slot] != 0) {
		free(s);
		return false;
	}
	if (set->len == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->items = hk_xrealloc(set->items, set->cap * sizeof(*set->items));
	}
	if (set->len > 0 && strcmp(set->items[set->len - 1], s) > 0)
		set->sorted = false;
	set->items[set->len++] = s;
	set->index[slot] = set->len;
	return true;
}

bool hk_strset_add(struct hk_strset *set, const char *s)
{
	if (hk_strset_contains(set, s))
		return false;
	return hk_strset_add_owned(set, hk_xstrdup(s));
}

void hk_strset_add_all(struct hk_strset *dst, const struct hk_strset *src)
{
	for (size_t i = 0; i < src->len; i++)
		hk_strset_add(dst, src->items[i]);
}

static int compare_items(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hk_strset_sort(struct hk_strset *set)
{
	if (set->sorted)
		return;
	qsort(set->items, set->len, sizeof(*set->items), compare_items);
	set->sorted = true;
	rebuild_index(set, set->index_cap);
}

void hk_strset_free(struct hk_strset *set)
{
	for (size_t i = 0; i < set->len; i++)
		free(set->items[i]);
	free(set->items);
	free(set->index);
	*set = (struct hk_strset)HK_STRSET_INIT;
}
