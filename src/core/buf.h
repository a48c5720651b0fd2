/* Growable byte buffer, always NUL-terminated (the NUL is not counted in len). */
#ifndef HK_BUF_H
#define HK_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

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
/* Appends everything fd has left to read (retrying EINTR).  Returns 0 at end of file, or
 * -errno of the failed read, with what was read before it kept in b; the caller keeps fd and
 * names the file in its own message. */
HK_MUST_CHECK int hk_buf_read_fd(struct hk_buf *b, int fd);

#endif
