/* Capabilities, securebits-free privilege switches and no_new_privs: the kernel-facing half of
 * the reader's privilege drop (design.md §2), of `harkaq probe`'s capability report and of the
 * cage's first layer (design.md §3.8).  Every function returns 0 (or a documented value) or
 * -errno, and keeps errno as the kernel left it. */
#ifndef HK_SYS_CAPS_H
#define HK_SYS_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/basic/error.h"

/* The three capability sets of the calling thread, one bit per capability number. */
struct hk_caps {
	uint64_t effective, permitted, inheritable;
};

/* capget(2), version 3 (64 capabilities). */
HK_MUST_CHECK int hk_caps_get(struct hk_caps *out);
/* capset(2), version 3. */
HK_MUST_CHECK int hk_caps_set(const struct hk_caps *caps);
/* Whether `cap` is in the set. */
bool hk_caps_has(uint64_t set, unsigned cap);

/* Drops every capability the kernel knows from the bounding set, except those in `keep`
 * (needs CAP_SETPCAP).  -errno with the failing capability named. */
HK_MUST_CHECK int hk_caps_bounding_keep_only(uint64_t keep, struct hk_error *err);
/* Clears the ambient set (a kernel without ambient capabilities has none to clear). */
HK_MUST_CHECK int hk_caps_clear_ambient(void);
/* PR_SET_KEEPCAPS: keep the permitted set across the switch from uid 0. */
HK_MUST_CHECK int hk_caps_keep_on_setuid(bool keep);

/* PR_SET_NO_NEW_PRIVS, irreversible: no execve can grant privileges again. */
HK_MUST_CHECK int hk_no_new_privs_set(void);
/* 1 when no_new_privs is set, 0 when not, -errno. */
HK_MUST_CHECK int hk_no_new_privs_get(void);

#endif
