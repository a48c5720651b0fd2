/* The syscall entry points this kernel really has, probed with the entry points themselves
 * (docs/cage.md, "Entry points").
 *
 * The seccomp filter covers every entry point a process of the native architecture could use
 * (sys/seccomp.h): on x86-64 the native table, i386 (`int $0x80`) and x32.  Whether the kernel
 * offers them is another fact: IA32 emulation can be off at run time (ia32_emulation=0, or
 * CONFIG_IA32_EMULATION_DEFAULT_DISABLED) although it was built in, and x32 is often not built
 * at all.  "Filter installed for i386" and "i386 reachable" are told apart, so a report never
 * claims a compat table was exercised where none exists, and a test never calls through one.
 */
#ifndef HK_SYS_ENTRYPOINTS_H
#define HK_SYS_ENTRYPOINTS_H

#include <stdbool.h>
#include <stddef.h>

enum hk_entry_state {
	HK_ENTRY_PRESENT,
	HK_ENTRY_ABSENT,
	HK_ENTRY_UNPROBED, /* an entry point harkaq has no probe for on this architecture */
};

struct hk_entry_point {
	const char *arch;   /* libseccomp's name, as in the seccomp report: "x86_64", "x86", "x32" */
	const char *label;  /* for people: "x86_64", "i386 (int $0x80)", "x32" */
	enum hk_entry_state state;
	char evidence[128]; /* what the probe saw: "int $0x80 raised SIGSEGV (IA32 emulation off)" */
};

#define HK_ENTRY_POINTS_MAX 3

struct hk_entry_points {
	struct hk_entry_point v[HK_ENTRY_POINTS_MAX];
	size_t n;
};

/* Probes every entry point of the native architecture.  The i386 probe runs `int $0x80` with
 * getpid in a forked child (a kernel without IA32 emulation answers with a fatal SIGSEGV),
 * so the calling process survives whatever the kernel does; the child dumps no core.  The x32
 * probe calls getpid with the x32 bit set (ENOSYS: no x32 table).  Never fails: a probe that
 * cannot run (fork refused) reports the entry point absent with that reason, so nothing is
 * ever claimed reachable without being seen to answer. */
void hk_entry_points_probe(struct hk_entry_points *out);

/* The entry with libseccomp's architecture name `arch`, or NULL. */
const struct hk_entry_point *hk_entry_points_find(const struct hk_entry_points *eps,
						  const char *arch);

/* "present", "absent" or "unprobed". */
const char *hk_entry_state_name(enum hk_entry_state state);

#endif
