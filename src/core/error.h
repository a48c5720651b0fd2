/* Error convention of the whole project (written down once, here).
 *
 * Every fallible function returns 0 (or a non-negative count) on success and a negative
 * errno-style value on failure, and fills a caller-provided `struct hk_error` with a sentence
 * that names the object that failed.  Callers add context with hk_wrap() as the error travels
 * up, so a failure deep inside reads as one sentence at the top:
 *
 *     policy.txt:3:5: unknown keyword 'rox' (expected ro, list, rw, scope or expect)
 *
 * Only a program's main() prints an error and chooses an exit status.
 */
#ifndef HK_ERROR_H
#define HK_ERROR_H

#include <stddef.h>

#define HK_ERROR_MSG_MAX 1024

/* On every function that can fail and says why in a struct hk_error: a caller that drops the
 * result is a compile error (-Werror), so no failure goes unseen by accident.  Where ignoring
 * one is right, the caller says why in a comment beside an explicit test of the result. */
#define HK_MUST_CHECK __attribute__((warn_unused_result))

struct hk_error {
	int code;                     /* positive errno value (EINVAL, ENOENT, …); 0 = no error */
	char msg[HK_ERROR_MSG_MAX];   /* NUL-terminated, never empty when code != 0 */
};

/* Sets err to (code, formatted message) and returns -code. */
int hk_fail(struct hk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like hk_fail, appending ": strerror(code)". */
int hk_fail_errno(struct hk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like hk_fail, for a position in a text file: "FILE:LINE:COL: message", both 1-based; with
 * col 0 (a line-oriented format) "FILE:LINE: message". */
int hk_fail_at(struct hk_error *err, int code, const char *file, unsigned line, unsigned col,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Prefixes the existing message with formatted context and ": "; returns -err->code. */
int hk_wrap(struct hk_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void hk_error_clear(struct hk_error *err);

#endif
