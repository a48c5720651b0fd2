/* The seccomp denylist.  See seccomp.h for the contract. */
#include "sys/seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/kd.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/basic/util.h"

const char *const hk_seccomp_denylist[] = {
	"io_uring_setup", "io_uring_enter",  "io_uring_register", "ptrace",
	"process_vm_readv", "process_vm_writev", "bpf",         "userfaultfd",
	"keyctl",         "add_key",         "request_key",       "init_module",
	"finit_module",   "delete_module",   "kexec_load",        "kexec_file_load",
	"perf_event_open", "mount",          "umount2",           "open_tree",
	"move_mount",     "fsopen",          "fsconfig",          "fsmount",
	"fspick",         "mount_setattr",   "setns",           "landlock_restrict_self",
};
const size_t hk_seccomp_denylist_len = HK_ARRAY_LEN(hk_seccomp_denylist);

const struct hk_seccomp_ioctl hk_seccomp_denied_ioctls[] = {
	{ "TIOCSTI", TIOCSTI },
	{ "TIOCLINUX", TIOCLINUX },
	{ "KDSKBENT", KDSKBENT },
	{ "KDSKBSENT", KDSKBSENT },
	{ "KDSKBDIACR", KDSKBDIACR },
	{ "KDSKBDIACRUC", KDSKBDIACRUC },
	{ "KDSETKEYCODE", KDSETKEYCODE },
};
const size_t hk_seccomp_denied_ioctls_len = HK_ARRAY_LEN(hk_seccomp_denied_ioctls);

struct arch_name {
	uint32_t token;
	const char *name;
};

static const struct arch_name arch_names[] = {
	{ SCMP_ARCH_X86_64, "x86_64" }, { SCMP_ARCH_X86, "x86" },   { SCMP_ARCH_X32, "x32" },
	{ SCMP_ARCH_AARCH64, "aarch64" }, { SCMP_ARCH_ARM, "arm" },
};

static const char *arch_name(uint32_t token)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(arch_names); i++)
		if (arch_names[i].token == token)
			return arch_names[i].name;
	return "native";
}

/* The compat ABIs through which a process of the native architecture can enter the kernel. */
static size_t compat_arches(uint32_t native, uint32_t out[HK_SECCOMP_MAX_ARCHES - 1])
{
	size_t n = 0;
	if (native == SCMP_ARCH_X86_64) {
		out[n++] = SCMP_ARCH_X86;
		out[n++] = SCMP_ARCH_X32;
	} else if (native == SCMP_ARCH_AARCH64) {
		out[n++] = SCMP_ARCH_ARM;
	}
	return n;
}

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

int hk_seccomp_install_denylist(struct hk_seccomp_report *report, struct hk_error *err)
{
	*report = (struct hk_seccomp_report){ 0 };

	__attribute__((cleanup(release_ctx))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return hk_fail(err, ENOMEM, "seccomp_init failed");

	/* Real errno values from the kernel instead of libseccomp's generic ECANCELED, so the
	 * message says what the kernel said. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (rc < 0)
		return hk_fail_errno(err, -rc, "seccomp_attr_set(SYSRAWRC)");
	/* A syscall from an architecture missing from the filter fails with EPERM too: the cage
	 * never kills (design.md §3.8). */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
	if (rc < 0)
		return hk_fail_errno(err, -rc, "seccomp_attr_set(ACT_BADARCH)");

	uint32_t native = seccomp_arch_native();
	uint32_t compat[HK_SECCOMP_MAX_ARCHES - 1];
	size_t n_compat = compat_arches(native, compat);
	report->arches[report->n_arches++] = arch_name(native);
	for (size_t i = 0; i < n_compat; i++) {
		rc = seccomp_arch_add(ctx, compat[i]);
		if (rc < 0 && rc != -EEXIST)
			return hk_fail_errno(err, -rc, "cannot add architecture %s to the seccomp filter",
					     arch_name(compat[i]));
		report->arches[report->n_arches++] = arch_name(compat[i]);
	}

	for (size_t i = 0; i < hk_seccomp_denylist_len; i++) {
		const char *name = hk_seccomp_denylist[i];
		int nr = seccomp_syscall_resolve_name(name);
		if (nr == __NR_SCMP_ERROR)
			return hk_fail(err, ENOSYS, "libseccomp does not know the syscall %s", name);
		/* libseccomp translates the native number for each added architecture (and skips
		 * one where the call does not exist, e.g. kexec_file_load on i386). */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (rc < 0)
			return hk_fail_errno(err, -rc, "cannot add the seccomp rule denying %s", name);
		report->syscalls++;
	}

	/* The kernel reads an ioctl request as an unsigned int and ignores the upper half of the
	 * register: a filter comparing all 64 bits would let TIOCSTI | 1UL << 32 through.  So the
	 * request is compared on its low 32 bits (a masked comparison), on every architecture. */
	for (size_t i = 0; i < hk_seccomp_denied_ioctls_len; i++) {
		const struct hk_seccomp_ioctl *q = &hk_seccomp_denied_ioctls[i];
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFULL, q->request));
		if (rc < 0)
			return hk_fail_errno(err, -rc, "cannot add the seccomp rule denying ioctl %s",
					     q->name);
		report->ioctls++;
	}

	rc = seccomp_load(ctx);
	if (rc < 0)
		return hk_fail_errno(err, -rc, "the kernel refused the seccomp filter");
	report->installed = true;
	return 0;
}

int hk_seccomp_install_malformed(struct hk_error *err)
{
	/* One load and no return instruction: the classic BPF checker rejects a program that
	 * can run off its end. */
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
	};
	struct sock_fprog prog = { .len = HK_ARRAY_LEN(insns), .filter = insns };
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return hk_fail(err, EPROTO,
			       "the kernel accepted a malformed seccomp program (it must not)");
	return hk_fail_errno(err, errno, "the kernel refused the seccomp filter (deliberately "
				       "malformed, --test-break-seccomp)");
}
