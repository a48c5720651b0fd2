/* Inode numbers counted: how many names each inode has among the entries of some trees.
 *
 *     struct hk_inos s = HK_INOS_INIT;
 *     hk_inos_add(&s, st.st_ino);              // once per entry seen
 *     hk_inos_finish(&s);
 *     if (hk_inos_count(&s, ino) == 1) ...     // one name among those trees
 *     hk_inos_free(&s);
 *
 * A build counts the regular files of its verified closure and base (core/store/statcache.h), the
 * lower layers of its merged views: an opened file whose inode has a single name there cannot
 * be opened in the view under another name, whatever its link count says (the store's views
 * link every artifact's files elsewhere; engine/cage/reads.h).  `incomplete` says a tree was not
 * counted: no count may then be taken for a name's absence. */
#ifndef HK_INOS_H
#define HK_INOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hk_inos {
	uint64_t *v;       /* the inode numbers added, sorted by hk_inos_finish */
	size_t n, cap;
	bool incomplete;   /* a tree that belongs was not counted */
};

#define HK_INOS_INIT { NULL, 0, 0, false }

void hk_inos_add(struct hk_inos *s, uint64_t ino);
/* Sorts what was added: before any hk_inos_count. */
void hk_inos_finish(struct hk_inos *s);
/* How many times `ino` was added (0 when never). */
size_t hk_inos_count(const struct hk_inos *s, uint64_t ino);
void hk_inos_free(struct hk_inos *s);

#endif
