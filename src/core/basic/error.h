/* Error convention of the whole project (written down once, here; docs/design.md, "Errors").
 *
 * Every fallible function returns 0 (or a non-negative count) on success and a negative
 * errno-style value on failure, and fills a caller-provided `struct hk_error` with a sentence
 * that names the object that failed.  Callers add context with hk_wrap() as the error travels
 * up, so a failure deep inside reads as one sentence at the top:
 *
 *     policy.txt:3:5: unknown keyword 'rox' (expected ro, list, rw, scope or expect)
 *
 * The error also carries its *class*: what kind of failure it is, which decides what it means
 * to the user.  The step that knows sets it (hk_fail_at, hk_fail_as, hk_fail_interrupted,
 * hk_error_set_class); hk_wrap keeps it.  An error no step classified is classified by its
 * errno (hk_error_class_of_errno), the convention every hk_fail call already follows: a code
 * that says the input is wrong (EINVAL, EBADMSG, ENOENT, …) is the input's, any other the
 * environment's.
 *
 * No function returns an exit status: only a program's main() (and the command line's verbs
 * it calls) prints an error and chooses one, from the class, through one table
 * (engine/common/status.h, hk_exit_for_error).
 */
#ifndef HK_ERROR_H
#define HK_ERROR_H

#include <stddef.h>

#define HK_ERROR_MSG_MAX 1024

/* On every function that can fail and says why in a struct hk_error: a caller that drops the
 * result is a compile error (-Werror), so no failure goes unseen by accident.  Where ignoring
 * one is right, the caller says why in a comment beside an explicit test of the result. */
#define HK_MUST_CHECK __attribute__((warn_unused_result))

/* What kind of failure an error is.  The values are not exit statuses: the command line maps
 * them to one (engine/common/status.h). */
enum hk_error_class {
	/* No step classified it: hk_error_class() answers from its errno. */
	HK_ERROR_UNSET = 0,
	/* The command line was wrong: an unknown option or value, a user name that does not
	 * exist, a combination of options that contradict each other. */
	HK_ERROR_USAGE,
	/* The input is wrong, and the user fixes it: a malformed recipe, policy, store object,
	 * bundle or envelope (FILE:LINE:COL named where there is a position), a missing or
	 * ambiguous dep, a tampered artifact, a store or base the build user cannot reach. */
	HK_ERROR_INPUT,
	/* The machine refused: a protection that could not be installed, a build user that
	 * cannot make namespaces, a helper program that failed, an I/O error. */
	HK_ERROR_ENVIRONMENT,
	/* A signal stopped the work (hk_error.signal says which); what was made was removed. */
	HK_ERROR_INTERRUPTED,
	/* harkaq's own fault: a state its code should never reach. */
	HK_ERROR_INTERNAL,
};

struct hk_error {
	int code;                     /* positive errno value (EINVAL, ENOENT, …); 0 = no error */
	enum hk_error_class cls;      /* HK_ERROR_UNSET until a step classifies it */
	int signal;                   /* HK_ERROR_INTERRUPTED: the signal (> 0); else 0 */
	char msg[HK_ERROR_MSG_MAX];   /* NUL-terminated, never empty when code != 0 */
};

/* Sets err to (code, formatted message), unclassified, and returns -code.  The hk_fail family
 * cannot fail: its result is the caller's to return or to drop. */
int hk_fail(struct hk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like hk_fail, appending ": strerror(code)". */
int hk_fail_errno(struct hk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like hk_fail, for a position in a text file: "FILE:LINE:COL: message", both 1-based; with
 * col 0 (a line-oriented format) "FILE:LINE: message".  Classified HK_ERROR_INPUT: a position
 * in a file is what a malformed input names. */
int hk_fail_at(struct hk_error *err, int code, const char *file, unsigned line, unsigned col,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Like hk_fail, with the class the caller knows. */
int hk_fail_as(struct hk_error *err, enum hk_error_class cls, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A signal stopped the work: code EINTR, class HK_ERROR_INTERRUPTED, `sig` kept (SIGTERM when
 * it is not a signal number: something stopped the work, and it was not a clean exit). */
int hk_fail_interrupted(struct hk_error *err, int sig, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with formatted context and ": "; keeps the class; returns
 * -err->code.  An error without a code (a failure that never filled err) becomes EINVAL,
 * HK_ERROR_INTERNAL. */
int hk_wrap(struct hk_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Classifies an error a step knows more of than its errno says (a recipe that cannot be read
 * is the input's, whatever the reason).  An interruption stays one: the signal is why the step
 * failed, whatever it reported after; and only hk_fail_interrupted makes one, with its signal.
 * Returns -err->code (an error without a code becomes EINVAL, as in hk_wrap). */
int hk_error_set_class(struct hk_error *err, enum hk_error_class cls);

/* The error's class: the one a step set, else hk_error_class_of_errno(err->code); an error
 * without a code (a failure that never filled err) is HK_ERROR_INTERNAL. */
enum hk_error_class hk_error_class(const struct hk_error *err);

/* The class an errno stands for when no step said more: EINVAL, EBADMSG, ENOENT, ENOTDIR,
 * EEXIST and ELOOP say the input is malformed, missing or not what it should be
 * (HK_ERROR_INPUT); every other code is the environment's. */
enum hk_error_class hk_error_class_of_errno(int code);

/* "usage", "input", "environment", "interrupted", "internal" ("unset" for HK_ERROR_UNSET). */
const char *hk_error_class_name(enum hk_error_class cls);

void hk_error_clear(struct hk_error *err);

#endif
