/* Paths as strings (path.h). */
#include "core/basic/path.h"

#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"

char *hk_path_join_normalise(const char *link_path, const char *target)
{
	struct hk_buf joined = HK_BUF_INIT;
	if (target[0] == '/') {
		hk_buf_puts(&joined, target);
	} else {
		const char *slash = strrchr(link_path, '/');
		hk_buf_append(&joined, link_path, slash ? (size_t)(slash - link_path) : 0);
		hk_buf_putc(&joined, '/');
		hk_buf_puts(&joined, target);
	}
	/* Fold components lexically. */
	char *src = hk_buf_steal(&joined);
	size_t n = strlen(src);
	char *out = hk_xmalloc(n + 2);
	size_t o = 0;
	const char *p = src;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 1 && p[0] == '.') {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(src);
	return out;
}
