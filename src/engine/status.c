/* The exit status of a failure by its error code (status.h). */
#include <errno.h>

#include "engine/status.h"

int hk_exit_for_errno(int code)
{
	switch (code) {
	case EINVAL:
	case EBADMSG:
	case ENOENT:
	case ENOTDIR:
	case EEXIST:
	case ELOOP:
		return HK_EXIT_DATAERR;
	default:
		return HK_EXIT_SOFTWARE;
	}
}
