/* Reading a descriptor into a buffer: the I/O beside core/basic/buf.h's pure byte buffer. */
#ifndef HK_BUF_FD_H
#define HK_BUF_FD_H

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* Appends everything fd has left to read (retrying EINTR).  Returns 0 at end of file, or
 * -errno of the failed read, with what was read before it kept in b; the caller keeps fd and
 * names the file in its own message. */
HK_MUST_CHECK int hk_buf_read_fd(struct hk_buf *b, int fd);

#endif
