/* Hexadecimal digits: digests are shown and stored as lowercase hex (manifests, ids), and
 * escaped bytes in policies and manifests are written \xHH.  One decoder for all of them. */
#ifndef HK_HEX_H
#define HK_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/error.h"

/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void hk_hex(const uint8_t *bytes, size_t n, char *out);
/* The inverse of hk_hex: 2n hex digits (either case) into n bytes.  Returns 0, or -EINVAL at
 * the first character that is not a hex digit (out is then partially written). */
HK_MUST_CHECK int hk_unhex(const char *hex, size_t n_bytes, uint8_t *out);
/* Whether s[0..n) are all lowercase hex digits, the form harkaq writes (ids, manifests). */
bool hk_is_lower_hex(const char *s, size_t n);
/* The value of one hex digit (0-9, a-f, A-F), or -1 for any other character. */
int hk_hex_value(char c);

#endif
