#include "core/evidence/remedy.h"

#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"
#include "core/formats/abi_tier.h"

static const char setcap_cmd[] = "sudo setcap cap_audit_read,cap_audit_control+ep";

/* Where a kernel whose Landlock reports denials comes from, on the distributions this is
 * known for: Debian 13's backports kernel is Linux 6.15 or later; Debian 12's own kernels
 * (its backports included) are older. */
static char *kernel_hint(const struct hk_evidence_facts *f)
{
	if (!f->os_id || strcmp(f->os_id, "debian") != 0 || !f->os_version_id)
		return hk_xstrdup("");
	const char *arch = f->deb_arch ? f->deb_arch : "<architecture>";
	if (strcmp(f->os_version_id, "13") == 0)
		return hk_xasprintf("; on Debian 13, the backports kernel has it: sudo apt install "
				    "-t trixie-backports linux-image-%s, then reboot", arch);
	if (strcmp(f->os_version_id, "12") == 0)
		return hk_xstrdup("; Debian 12's kernels are older: Debian 13 with its backports "
				  "kernel (trixie-backports) has it");
	return hk_xstrdup("");
}

static void kernel_remedy(const struct hk_evidence_facts *f, struct hk_strv *out)
{
	if (f->landlock_abi >= HK_ABI_EVIDENCE)
		return;
	char *hint = kernel_hint(f);
	if (f->landlock_abi <= 0 && f->landlock_why && strstr(f->landlock_why, "lsm=")) {
		hk_strv_push_owned(out, hk_xasprintf("%s; the kernel must also report denials "
						     "(Landlock ABI %d, Linux 6.15 or later)",
						     f->landlock_why, HK_ABI_EVIDENCE));
	} else if (f->landlock_abi <= 0) {
		hk_strv_push_owned(out, hk_xasprintf("%s: a kernel with Landlock ABI %d (Linux 6.15 "
						     "or later) is needed%s",
						     f->landlock_why ? f->landlock_why
								     : "this kernel has no Landlock",
						     HK_ABI_EVIDENCE, hint));
	} else {
		hk_strv_push_owned(out, hk_xasprintf("this kernel's Landlock (ABI %d) cannot report "
						     "denials: a kernel with Landlock ABI %d (Linux "
						     "6.15 or later) is needed%s",
						     f->landlock_abi, HK_ABI_EVIDENCE, hint));
	}
	free(hint);
}

static void reader_remedy(const struct hk_evidence_facts *f, struct hk_strv *out)
{
	const char *path = f->reader_path ? f->reader_path : "harkaq-audit";
	switch (f->reader) {
	case HK_READER_MISSING:
		hk_strv_push_owned(out, hk_xasprintf("harkaq-audit, the audit reader, is not "
						     "installed (%s): install harkaq's package, or "
						     "run make install as root (which gives it its "
						     "group and capabilities)", f->reader_error ? f->reader_error
										 : path));
		return;
	case HK_READER_NOT_EXECUTABLE:
		if (f->reader_group)
			hk_strv_push_owned(out, hk_xasprintf("%s may be run by the group %s only: add "
							     "yourself to it (sudo adduser %s %s), "
							     "then log in again",
							     path, f->reader_group,
							     f->user ? f->user : "$USER",
							     f->reader_group));
		else
			hk_strv_push_owned(out, hk_xasprintf("%s is not executable by %s", path,
							     f->user ? f->user : "this user"));
		return;
	case HK_READER_NO_ANSWER:
		hk_strv_push_owned(out, hk_xasprintf("%s did not say whether it can read audit: %s",
						     path, f->reader_error ? f->reader_error : "?"));
		return;
	case HK_READER_ANSWERED:
		break;
	}
	if (!f->can_read) {
		if (f->initial_userns == 0)
			hk_strv_push_owned(out, hk_xstrdup("harkaq runs inside a user namespace (a "
							   "container, or unshare), where the "
							   "reader's capabilities do not count: run "
							   "harkaq on the host"));
		else if (f->reader_nosuid)
			hk_strv_push_owned(out, hk_xasprintf("%s is on a file system mounted nosuid, "
							     "where file capabilities do not count: "
							     "install it on another", path));
		else if (!f->root)
			hk_strv_push_owned(out, hk_xasprintf("harkaq-audit lacks its capabilities: "
							     "%s %s (the package's postinst does "
							     "this)", setcap_cmd, path));
		else
			hk_strv_push_owned(out, hk_xasprintf("the reader cannot read the audit "
							     "stream: %s", f->read_error ? f->read_error
										 : "?"));
		return;
	}
	if (!f->can_control) {
		if (!f->root)
			hk_strv_push_owned(out, hk_xasprintf("harkaq-audit cannot confirm that audit "
							     "is on (CAP_AUDIT_CONTROL): %s %s (the "
							     "package's postinst does this)",
							     setcap_cmd, path));
		else
			hk_strv_push_owned(out, hk_xasprintf("the reader cannot read the audit "
							     "status: %s", f->control_error
									   ? f->control_error
									   : "?"));
	}
}

bool hk_evidence_remedies(const struct hk_evidence_facts *f, struct hk_strv *out)
{
	size_t before = out->n;
	kernel_remedy(f, out);
	if (!f->audit_in_kernel)
		hk_strv_push(out, "this kernel is built without audit (CONFIG_AUDIT): a kernel with "
				  "audit is needed (Debian's kernels have it)");
	else
		reader_remedy(f, out);
	return out->n == before;
}
