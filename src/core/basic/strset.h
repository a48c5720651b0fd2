/* A set of NUL-terminated strings: deduplicated on insertion (hash index), iterated in
 * insertion order until hk_strset_sort() puts it in byte order (strcmp).
 *
 *     struct hk_strset s = HK_STRSET_INIT;
 *     hk_strset_add(&s, "/usr/bin/sh");
 *     hk_strset_sort(&s);
 *     for (size_t i = 0; i < s.len; i++) puts(s.items[i]);
 *     hk_strset_free(&s);
 *
 * Insertion order matters for callers that use the set as an ordered list without duplicates
 * (a library search path); sorting matters for canonical output (policies, PolicyId).  Insert,
 * contains and remove-duplicates are O(1) on average, so the set scales to the ~100k paths of a
 * large closure (kernel-facts.md §10). */
#ifndef HK_STRSET_H
#define HK_STRSET_H

#include <stdbool.h>
#include <stddef.h>

struct hk_strset {
	char **items;      /* owned strings; read-only for callers; items[0..len) */
	size_t len;
	size_t cap;
	size_t *index;     /* open-addressing hash table of (item position + 1); 0 = empty slot */
	size_t index_cap;  /* power of two, or 0 before the first insertion */
	bool sorted;       /* items are in strcmp order (true for the empty set) */
};

#define HK_STRSET_INIT { NULL, 0, 0, NULL, 0, true }

/* Copies `s` into the set.  Returns true if it was added, false if it was already there. */
bool hk_strset_add(struct hk_strset *set, const char *s);
/* Takes ownership of `s` (allocated with malloc); frees it if already present. */
bool hk_strset_add_owned(struct hk_strset *set, char *s);
/* Adds every item of `src` (in src's order). */
void hk_strset_add_all(struct hk_strset *dst, const struct hk_strset *src);
bool hk_strset_contains(const struct hk_strset *set, const char *s);
/* The position of `s` in items, or (size_t)-1 when it is not in the set: a caller may keep
 * values beside the items in a parallel array (valid until hk_strset_sort). */
size_t hk_strset_find(const struct hk_strset *set, const char *s);
/* Sorts items by strcmp (byte order); idempotent.  Later insertions append unsorted. */
void hk_strset_sort(struct hk_strset *set);
/* Removes every item; keeps no storage. */
void hk_strset_free(struct hk_strset *set);

#endif
