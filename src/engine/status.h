/* The statuses the engine's entry points return and main() passes on: one table for the
 * engine and the command line (docs/design.md, "Layers").
 *
 *   0  Hermetic (or: the command succeeded, for verbs that give no verdict)
 *   1  Impure: the build touched something outside its declared closure
 *   2  NoEvidence: the build ran, but harkaq cannot vouch for it (reason printed)
 *   3  the command under the cage failed (its own non-zero status), verdict otherwise printed
 *   64 usage error (bad option or argument)
 *   65 bad input (malformed policy, recipe, store object): FILE:LINE:COL named
 *   70 internal or environment error (a protection could not be installed, I/O failure)
 */
#ifndef HK_ENGINE_STATUS_H
#define HK_ENGINE_STATUS_H

enum {
	HK_EXIT_HERMETIC = 0,
	HK_EXIT_OK = 0,
	HK_EXIT_IMPURE = 1,
	HK_EXIT_NOEVIDENCE = 2,
	HK_EXIT_COMMAND_FAILED = 3,
	HK_EXIT_USAGE = 64,
	HK_EXIT_DATAERR = 65,
	HK_EXIT_SOFTWARE = 70,
};

/* The exit status for a failure, from its error code (hk_error's negative-errno convention,
 * given positive): the codes that say the input is bad — malformed (EINVAL, EBADMSG, ELOOP),
 * missing or not what it should be (ENOENT, ENOTDIR), ambiguous or already there (EEXIST) —
 * give HK_EXIT_DATAERR; every other code is the environment's or harkaq's, HK_EXIT_SOFTWARE. */
int hk_exit_for_errno(int code);

#endif
