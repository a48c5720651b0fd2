#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail_v(struct hk_error *err, int code, int with_errno, const char *fmt, va_list ap)
{
	if (code <= 0)
		code = EINVAL;
	err->code = code;
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (n < 0)
		n = 0;
	if (with_errno && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", strerror(code));
	if (err->msg[0] == '\0')
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(code));
	return -code;
}

int hk_fail(struct hk_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fail_v(err, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int hk_fail_errno(struct hk_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fail_v(err, code, 1, fmt, ap);
	va_end(ap);
	return r;
}

int hk_fail_at(struct hk_error *err, int code, const char *file, unsigned line, unsigned col,
	       const char *fmt, ...)
{
	char what[HK_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (col == 0)
		return hk_fail(err, code, "%s:%u: %s", file, line, what);
	return hk_fail(err, code, "%s:%u:%u: %s", file, line, col, what);
}

int hk_wrap(struct hk_error *err, const char *fmt, ...)
{
	char prefix[HK_ERROR_MSG_MAX];
	char old[HK_ERROR_MSG_MAX];
	va_list ap;

	if (err->code == 0)
		err->code = EINVAL;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Truncation keeps the start (the outermost context) and is acceptable for a message. */
	size_t n = strnlen(prefix, sizeof(prefix) - 1);
	memcpy(err->msg, prefix, n);
	size_t room = sizeof(err->msg) - n;
	if (room > 3) {
		memcpy(err->msg + n, ": ", 2);
		size_t m = strnlen(old, room - 3);
		memcpy(err->msg + n + 2, old, m);
		err->msg[n + 2 + m] = '\0';
	} else {
		err->msg[sizeof(err->msg) - 1] = '\0';
		err->msg[n < sizeof(err->msg) ? n : sizeof(err->msg) - 1] = '\0';
	}
	return -err->code;
}

void hk_error_clear(struct hk_error *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}
