/* Hashing a file with BLAKE3: the I/O beside core/basic/blake3.h's pure hash. */
#ifndef HK_BLAKE3_FILE_H
#define HK_BLAKE3_FILE_H

#include <stdint.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"

/* 32-byte hash of a file's contents, read in large blocks.  Returns 0, or -errno with err
 * naming the path ("cannot open /x for hashing: No such file or directory"). */
HK_MUST_CHECK int hk_blake3_file(const char *path, uint8_t out[HK_BLAKE3_OUT_LEN], struct hk_error *err);
/* The same for an open descriptor, read from its current offset to the end; the caller
 * keeps the fd and names it in its own message.  Returns 0, or -errno of the failed read. */
HK_MUST_CHECK int hk_blake3_fd(int fd, uint8_t out[HK_BLAKE3_OUT_LEN]);

#endif
