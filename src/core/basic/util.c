#include "core/basic/util.h"

#include "core/basic/die.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void oom(void)
{
	hk_die("out of memory", NULL);
}

void *hk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *hk_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *hk_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *hk_xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *hk_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *hk_xmemdupz(const void *p, size_t n)
{
	char *out = hk_xmalloc(n + 1);
	if (n)
		memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

char *hk_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&out, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return out;
}

bool hk_text_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *l = text + *pos;
	const char *nl = memchr(l, '\n', len - *pos);
	size_t k = nl ? (size_t)(nl - l) : len - *pos;
	*pos += k + (nl ? 1 : 0);
	while (k > 0 && l[k - 1] == '\r')
		k--;
	*line = l;
	*n = k;
	return true;
}
