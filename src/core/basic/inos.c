/* Inode numbers counted (inos.h): a sorted array, counted by binary search. */
#include "core/basic/inos.h"

#include <stdlib.h>

#include "core/basic/util.h"

void hk_inos_add(struct hk_inos *s, uint64_t ino)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = hk_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = ino;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void hk_inos_finish(struct hk_inos *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), u64_cmp);
}

size_t hk_inos_count(const struct hk_inos *s, uint64_t ino)
{
	/* The first position holding ino or more, then the run of ino from there. */
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < s->n && s->v[k] == ino)
		k++;
	return k - lo;
}

void hk_inos_free(struct hk_inos *s)
{
	free(s->v);
	*s = (struct hk_inos)HK_INOS_INIT;
}
