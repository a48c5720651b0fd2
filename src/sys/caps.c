#include "sys/caps.h"

#include "core/formats/reader_line.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int hk_caps_get(struct hk_caps *out)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return -errno;
	out->effective = (uint64_t)data[1].effective << 32 | data[0].effective;
	out->permitted = (uint64_t)data[1].permitted << 32 | data[0].permitted;
	out->inheritable = (uint64_t)data[1].inheritable << 32 | data[0].inheritable;
	return 0;
}

int hk_caps_set(const struct hk_caps *caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	data[0].effective = (uint32_t)caps->effective;
	data[1].effective = (uint32_t)(caps->effective >> 32);
	data[0].permitted = (uint32_t)caps->permitted;
	data[1].permitted = (uint32_t)(caps->permitted >> 32);
	data[0].inheritable = (uint32_t)caps->inheritable;
	data[1].inheritable = (uint32_t)(caps->inheritable >> 32);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -errno;
	return 0;
}

bool hk_caps_has(uint64_t set, unsigned cap)
{
	return cap < 64 && (set & (1ULL << cap));
}

int hk_caps_bounding_keep_only(uint64_t keep, struct hk_error *err)
{
	for (int cap = 0; cap < 64; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0)
			break; /* past the kernel's last capability */
		if (keep & (1ULL << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
			return hk_fail_errno(err, errno, "dropping capability %d from the bounding set",
					     cap);
	}
	return 0;
}

int hk_caps_clear_ambient(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return -errno;
	return 0;
}

int hk_caps_keep_on_setuid(bool keep)
{
	return prctl(PR_SET_KEEPCAPS, keep ? 1 : 0, 0, 0, 0) != 0 ? -errno : 0;
}

int hk_no_new_privs_set(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ? -errno : 0;
}

int hk_no_new_privs_get(void)
{
	int r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	return r < 0 ? -errno : r;
}

/* The reader line codec names capabilities by these numbers (core/formats/reader_line.h). */
_Static_assert(HK_CAP_AUDIT_CONTROL == CAP_AUDIT_CONTROL, "CAP_AUDIT_CONTROL");
_Static_assert(HK_CAP_AUDIT_READ == CAP_AUDIT_READ, "CAP_AUDIT_READ");
