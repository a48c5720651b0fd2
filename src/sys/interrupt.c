/* The process's one interrupt context (interrupt.h). */
#include "sys/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;
static volatile pid_t forward_target;

static void on_signal(int sig)
{
	if (!received)
		received = sig;
	pid_t t = forward_target;
	if (t > 0)
		kill(-t, sig);
}

void hk_interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int hk_interrupted(void)
{
	return (int)received;
}

void hk_interrupt_note(int sig)
{
	if (!received)
		received = sig;
}

void hk_interrupt_forward_to(pid_t pgid)
{
	forward_target = pgid;
	/* A signal that came while nobody was named: the new target must stop too. */
	int sig = (int)received;
	if (pgid > 0 && sig)
		kill(-pgid, sig);
}
