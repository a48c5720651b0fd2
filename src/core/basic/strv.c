#include "core/basic/strv.h"

#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"

void hk_strv_push_owned(struct hk_strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? 2 * sv->cap : 16;
		sv->v = hk_xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void hk_strv_push(struct hk_strv *sv, const char *s)
{
	hk_strv_push_owned(sv, hk_xstrdup(s));
}

bool hk_strv_has(const struct hk_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hk_strv_sort_unique(struct hk_strv *sv)
{
	if (sv->n == 0)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), str_cmp);
	size_t w = 1;
	for (size_t i = 1; i < sv->n; i++) {
		if (strcmp(sv->v[w - 1], sv->v[i]) == 0)
			free(sv->v[i]);
		else
			sv->v[w++] = sv->v[i];
	}
	sv->n = w;
	sv->v[w] = NULL;
}

char **hk_strv_steal(struct hk_strv *sv)
{
	char **v = sv->v ? sv->v : hk_xcalloc(1, sizeof(*v));
	*sv = (struct hk_strv)HK_STRV_INIT;
	return v;
}

void hk_strv_free(struct hk_strv *sv)
{
	hk_strfreev(sv->v);
	*sv = (struct hk_strv)HK_STRV_INIT;
}

void hk_strfreev(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}
