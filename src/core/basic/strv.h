/* A growable vector of owned strings, always NULL-terminated, so that its `v` can be handed
 * to execv() as an argv as well as walked with `n`.  A list in insertion order, duplicates
 * allowed (for a deduplicated or sorted set of strings, see core/basic/strset.h).
 *
 *     hk_autostrv struct hk_strv names = HK_STRV_INIT;
 *     hk_strv_push(&names, "libc6");
 *     if (!hk_strv_has(&names, "make")) …
 *     // freed with its strings when `names` goes out of scope
 */
#ifndef HK_STRV_H
#define HK_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct hk_strv {
	char **v;       /* owned strings; v[n] == NULL once anything was pushed, else v == NULL */
	size_t n;
	size_t cap;
};

#define HK_STRV_INIT { NULL, 0, 0 }

/* Appends a copy of `s`. */
void hk_strv_push(struct hk_strv *sv, const char *s);
/* Appends `s` itself: the vector takes ownership. */
void hk_strv_push_owned(struct hk_strv *sv, char *s);
bool hk_strv_has(const struct hk_strv *sv, const char *s);
/* Sorts (strcmp order) and removes duplicates. */
void hk_strv_sort_unique(struct hk_strv *sv);
/* Hands the array (NULL-terminated, never NULL) and its strings to the caller, who frees it
 * with hk_strfreev(); the vector is empty again. */
char **hk_strv_steal(struct hk_strv *sv);
/* Frees the strings and the array; the vector is empty again and may be reused. */
void hk_strv_free(struct hk_strv *sv);
/* Frees a NULL-terminated array of owned strings, and the array (NULL is allowed). */
void hk_strfreev(char **v);

#define hk_autostrv __attribute__((cleanup(hk_strv_free)))

#endif
