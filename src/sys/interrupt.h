/* The process's one interrupt context: SIGINT, SIGTERM and SIGHUP are caught once, by main()
 * (hk_interrupt_install), and every part of harkaq asks the same question — "was I asked to
 * stop, and by which signal?" — instead of installing handlers of its own and handing them
 * back.  A part that runs a child which must stop with harkaq (the cage's command, in its own
 * process group) names it as the forward target: the signal is passed to the child's group
 * at once, and a signal that came before the target was named is passed when it is named.
 *
 * Handlers, not SIG_IGN: an ignored signal would stay ignored in the programs harkaq execs
 * (mmdebstrap, bubblewrap), and a caught one is reset to the default by execve. */
#ifndef HK_SYS_INTERRUPT_H
#define HK_SYS_INTERRUPT_H

#include <sys/types.h>

/* Catches SIGINT, SIGTERM and SIGHUP for the whole process.  Called once, by main(). */
void hk_interrupt_install(void);

/* The first of those signals received since the install, or 0. */
int hk_interrupted(void);

/* Records `sig` as if it had been received (a step that learned of the interruption from a
 * child, such as the cage's EINTR). */
void hk_interrupt_note(int sig);

/* Passes the signals on to process group `pgid` from now on (0: to nobody).  A signal
 * received before is passed at once. */
void hk_interrupt_forward_to(pid_t pgid);

#endif
