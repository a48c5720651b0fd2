#include "core/basic/hex.h"

#include <errno.h>

void hk_hex(const uint8_t *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 0xf];
	}
	out[2 * n] = '\0';
}

bool hk_is_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int hk_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hk_unhex(const char *hex, size_t n_bytes, uint8_t *out)
{
	/* By hand: sscanf("%1x") calls strlen on the rest of the buffer each time, which made
	 * reading a 100k-file manifest quadratic. */
	for (size_t i = 0; i < n_bytes; i++) {
		int hi = hk_hex_value(hex[2 * i]);
		if (hi < 0)
			return -EINVAL;
		int lo = hk_hex_value(hex[2 * i + 1]);
		if (lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
