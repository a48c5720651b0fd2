#include <errno.h>

#include "cli/commands.h"

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
