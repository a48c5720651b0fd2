/* The exit statuses of harkaq, and the one table that chooses them (docs/design.md, "Errors").
 *
 *   0  Hermetic (or: the command succeeded, for verbs that give no verdict)
 *   1  Impure: the build touched something outside its declared closure
 *   2  NoEvidence: the build ran, but harkaq cannot vouch for it (reason printed)
 *   3  the command under the cage failed (its own non-zero status), verdict otherwise printed
 *   64 usage error (bad option or argument)
 *   65 bad input (malformed policy, recipe, store object): FILE:LINE:COL named
 *   70 internal or environment error (a protection could not be installed, I/O failure)
 *   128+N  a signal N stopped the work (build, sweep, store base create: they stop cleanly)
 *
 * The engine never returns a status.  Its entry points return an outcome (>= 0, enum
 * hk_outcome) or a negative errno with a classified struct hk_error (core/basic/error.h); the
 * command line turns either into a status with hk_exit_status, and into nothing else.  The
 * statuses a verb decides from its own argv (64 for a bad option, 0 for --help) and the ones
 * only one verb has (`attest verify`'s 10-14) are its own. */
#ifndef HK_ENGINE_STATUS_H
#define HK_ENGINE_STATUS_H

#include "core/basic/error.h"

enum {
	HK_EXIT_HERMETIC = 0,
	HK_EXIT_OK = 0,
	HK_EXIT_IMPURE = 1,
	HK_EXIT_NOEVIDENCE = 2,
	HK_EXIT_COMMAND_FAILED = 3,
	HK_EXIT_USAGE = 64,
	HK_EXIT_DATAERR = 65,
	HK_EXIT_SOFTWARE = 70,
	HK_EXIT_SIGNAL_BASE = 128,      /* + the signal that stopped the work */
};

/* What an engine entry point returns when it did not stop on an error.  Ordered from best to
 * worst: a build's outcome is its worst phase's, the largest (hk_outcome_worse). */
enum hk_outcome {
	HK_OUTCOME_OK = 0,              /* Hermetic; for work without a verdict, done */
	HK_OUTCOME_COMMAND_FAILED,      /* the command under the cage failed; its verdict stands */
	HK_OUTCOME_IMPURE,
	HK_OUTCOME_NOEVIDENCE,
};

/* The worse of two outcomes. */
enum hk_outcome hk_outcome_worse(enum hk_outcome a, enum hk_outcome b);

/* The exit status of an outcome. */
int hk_exit_for_outcome(enum hk_outcome o);

/* The exit status of a failure, by its class (hk_error_class): usage 64, input 65,
 * environment and internal 70, interrupted 128 + its signal. */
int hk_exit_for_error(const struct hk_error *err);

/* The exit status of what an entry point returned: `rc` >= 0 an outcome, < 0 a failure that
 * `err` describes. */
int hk_exit_status(int rc, const struct hk_error *err);

#endif
