/* The collapse plan (core/policy/collapse.h) over lower layers read from disk. */
#ifndef HK_CORE_COLLAPSE_DISK_H
#define HK_CORE_COLLAPSE_DISK_H

#include "core/policy/collapse.h"

/* The lower layers as the disk holds them: lstat(2) for a type, the directory's entries for a
 * listing (an entry whose type readdir does not say is asked with fstatat). */
extern const struct hk_collapse_layers hk_collapse_layers_disk;

/* hk_collapse_plan_over with the layers read from disk: the plan a build's cage installs. */
HK_MUST_CHECK int hk_collapse_plan(const struct hk_policy *policy, const struct hk_derive_entry *entries,
		     size_t n_entries, const char *base_root, const char *view_root,
		     struct hk_strset *out,
		     struct hk_collapse_stats *stats, bool (*merged)(const char *path),
		     struct hk_error *err);

#endif
