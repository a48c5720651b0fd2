#include "core/policy/policy_file.h"

#include <errno.h>
#include <fcntl.h>

#include "core/basic/buf_fd.h"
#include "core/basic/util.h"

int hk_policy_load(const char *path, struct hk_policy *out, struct hk_error *err)
{
	*out = (struct hk_policy)HK_POLICY_INIT;
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open policy file '%s'", path);

	struct hk_buf text = HK_BUF_INIT;
	int r = hk_buf_read_fd(&text, fd);
	if (r < 0) {
		hk_buf_free(&text);
		return hk_fail_errno(err, -r, "cannot read policy file '%s'", path);
	}
	r = hk_policy_parse(hk_buf_str(&text), text.len, path, out, err);
	hk_buf_free(&text);
	return r;
}
