#include "core/basic/buf.h"
#include "core/basic/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hk_buf_reserve(struct hk_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = hk_xrealloc(b->data, cap);
	b->cap = cap;
}

void hk_buf_append(struct hk_buf *b, const void *p, size_t n)
{
	hk_buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void hk_buf_puts(struct hk_buf *b, const char *s)
{
	hk_buf_append(b, s, strlen(s));
}

void hk_buf_putc(struct hk_buf *b, char c)
{
	hk_buf_append(b, &c, 1);
}

void hk_buf_printf(struct hk_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	hk_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void hk_buf_reset(struct hk_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void hk_buf_free(struct hk_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *hk_buf_str(struct hk_buf *b)
{
	return b->data ? b->data : "";
}

char *hk_buf_steal(struct hk_buf *b)
{
	char *p = b->data ? b->data : hk_xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
