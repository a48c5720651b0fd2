#include "core/basic/die.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const char *s)
{
	/* Best effort: a process about to abort has nobody to report a failed write to. */
	ssize_t w = write(2, s, strlen(s));
	(void)w;
}

void hk_die(const char *what, const char *detail)
{
	put("harkaq: ");
	put(what);
	if (detail)
		put(detail);
	put("\n");
	abort();
}
