/* Fault injection for tests/integration/canary_nonce.sh, preloaded into harkaq
 * (LD_PRELOAD): getrandom(2) without flags — how harkaq draws its nonces (hk_random_hex) —
 * fails with ENOSYS once the file $HARKAQ_TEST_GETRANDOM_GATE exists.  The test opens the gate
 * while a phase runs, so the next phase's canary nonce is the first draw that fails.  Calls
 * with flags (the C library's own, GRND_NONBLOCK, which fall back by themselves) pass.  Only
 * harkaq itself is affected: the programs it starts do not inherit the preload. */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((constructor)) static void not_for_children(void)
{
	unsetenv("LD_PRELOAD");
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	const char *gate = getenv("HARKAQ_TEST_GETRANDOM_GATE");
	if (flags == 0 && gate && access(gate, F_OK) == 0) {
		errno = ENOSYS;
		return -1;
	}
	return syscall(SYS_getrandom, buf, len, flags);
}
