/* Growable byte buffer, always NUL-terminated (the NUL is not counted in len). */
#ifndef HK_BUF_H
#define HK_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"

struct hk_buf {
	char *data;   /* owned; NULL until the first append */
	size_t len;
	size_t cap;
};

#define HK_BUF_INIT { NULL, 0, 0 }

void hk_buf_append(struct hk_buf *b, const void *p, size_t n);
void hk_buf_puts(struct hk_buf *b, const char *s);
void hk_buf_putc(struct hk_buf *b, char c);
void hk_buf_printf(struct hk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hk_buf_reset(struct hk_buf *b);       /* len = 0, keeps storage */
void hk_buf_free(struct hk_buf *b);
/* Returns data (never NULL: "" for an empty buffer); the buffer keeps ownership. */
const char *hk_buf_str(struct hk_buf *b);
/* Transfers ownership of the data to the caller (never NULL); the buffer becomes empty. */
char *hk_buf_steal(struct hk_buf *b);
/* Makes room for `extra` more bytes (and the NUL) without changing len: data + len is then
 * writable for cap - len - 1 bytes.  Reading a descriptor into a buffer is core/basic/buf_fd.h. */
void hk_buf_reserve(struct hk_buf *b, size_t extra);

#endif
