/* The ABI tier rule (design.md §3.2), written once: what a Landlock ABI lets the cage do.
 *
 *   ABI < 3 (or no Landlock)   none      no Landlock at all: the sandbox and seccomp alone
 *   3 <= ABI < 7               enforce   the cage restricts, the kernel cannot report denials
 *   ABI >= 7                   evidence  the cage restricts and denials are audited
 *
 * harkaq-exec decides its layers with it, `harkaq probe` reports it, `harkaq run` refuses
 * early with it, and the verdict names the reason the tier gives no evidence. */
#ifndef HK_CORE_ABI_TIER_H
#define HK_CORE_ABI_TIER_H

#include <stdbool.h>

/* The first ABI with LANDLOCK_ACCESS_FS_REFER and TRUNCATE, below which the cage installs no
 * Landlock (a ruleset that cannot handle them would let a build rename or truncate past it). */
#define HK_ABI_ENFORCE 3
/* The first ABI whose denials reach the audit log (kernel-facts.md §1): below it the kernel
 * cannot report a denial, so no verdict below it can be evidence. */
#define HK_ABI_EVIDENCE 7

enum hk_tier {
	HK_TIER_NONE = 0,
	HK_TIER_ENFORCE,
	HK_TIER_EVIDENCE,
};

/* The tier of an ABI (0 or negative: no Landlock). */
enum hk_tier hk_tier_of_abi(int abi);
/* "none", "enforce", "evidence" (the name the status line and `harkaq probe` use). */
const char *hk_tier_name(enum hk_tier t);
/* The tier named `name`; false when it names none. */
bool hk_tier_from_name(const char *name, enum hk_tier *out);

#endif
