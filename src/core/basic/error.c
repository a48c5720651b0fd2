#include "core/basic/error.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail_v(struct hk_error *err, enum hk_error_class cls, int code, int with_errno,
		  const char *fmt, va_list ap)
{
	if (code <= 0)
		code = EINVAL;
	err->code = code;
	err->cls = cls;
	err->signal = 0;
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
	int r = fail_v(err, HK_ERROR_UNSET, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int hk_fail_errno(struct hk_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fail_v(err, HK_ERROR_UNSET, code, 1, fmt, ap);
	va_end(ap);
	return r;
}

int hk_fail_as(struct hk_error *err, enum hk_error_class cls, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fail_v(err, cls, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int hk_fail_interrupted(struct hk_error *err, int sig, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fail_v(err, HK_ERROR_INTERRUPTED, EINTR, 0, fmt, ap);
	va_end(ap);
	err->signal = sig > 0 && sig < NSIG ? sig : SIGTERM;
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
		return hk_fail_as(err, HK_ERROR_INPUT, code, "%s:%u: %s", file, line, what);
	return hk_fail_as(err, HK_ERROR_INPUT, code, "%s:%u:%u: %s", file, line, col, what);
}

/* An error reported without a code: nothing said what failed, which is harkaq's own fault. */
static void ensure_code(struct hk_error *err)
{
	if (err->code != 0)
		return;
	err->code = EINVAL;
	err->cls = HK_ERROR_INTERNAL;
	err->signal = 0;
}

int hk_wrap(struct hk_error *err, const char *fmt, ...)
{
	char prefix[HK_ERROR_MSG_MAX];
	char old[HK_ERROR_MSG_MAX];
	va_list ap;

	ensure_code(err);
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

int hk_error_set_class(struct hk_error *err, enum hk_error_class cls)
{
	ensure_code(err);
	if (err->cls != HK_ERROR_INTERRUPTED && cls != HK_ERROR_INTERRUPTED) {
		err->cls = cls;
		err->signal = 0;
	}
	return -err->code;
}

enum hk_error_class hk_error_class_of_errno(int code)
{
	switch (code) {
	case EINVAL:
	case EBADMSG:
	case ENOENT:
	case ENOTDIR:
	case EEXIST:
	case ELOOP:
		return HK_ERROR_INPUT;
	default:
		return HK_ERROR_ENVIRONMENT;
	}
}

enum hk_error_class hk_error_class(const struct hk_error *err)
{
	if (err->code == 0)
		return HK_ERROR_INTERNAL;
	if (err->cls != HK_ERROR_UNSET)
		return err->cls;
	return hk_error_class_of_errno(err->code);
}

const char *hk_error_class_name(enum hk_error_class cls)
{
	switch (cls) {
	case HK_ERROR_UNSET: return "unset";
	case HK_ERROR_USAGE: return "usage";
	case HK_ERROR_INPUT: return "input";
	case HK_ERROR_ENVIRONMENT: return "environment";
	case HK_ERROR_INTERRUPTED: return "interrupted";
	case HK_ERROR_INTERNAL: return "internal";
	}
	return NULL;
}

void hk_error_clear(struct hk_error *err)
{
	err->code = 0;
	err->cls = HK_ERROR_UNSET;
	err->signal = 0;
	err->msg[0] = '\0';
}
