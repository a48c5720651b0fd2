/* The collapse plan's lower layers read from disk (core/policy/collapse_disk.h). */
#include "core/policy/collapse_disk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

static int disk_type(void *ctx, const char *path, enum hk_layer_type *type)
{
	(void)ctx;
	struct stat st;
	if (lstat(path, &st) < 0)
		return -errno;
	*type = S_ISDIR(st.st_mode) ? HK_LAYER_DIR : S_ISREG(st.st_mode) ? HK_LAYER_FILE
								     : HK_LAYER_OTHER;
	return 0;
}

static int disk_list(void *ctx, const char *path,
		     bool (*each)(void *arg, const char *name, bool is_dir), void *arg)
{
	(void)ctx;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		bool is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				r = -errno;
				break;
			}
			is_dir = S_ISDIR(st.st_mode);
		}
		if (!each(arg, name, is_dir))
			break;
	}
	closedir(d);
	return r;
}

const struct hk_collapse_layers hk_collapse_layers_disk = {
	.type = disk_type,
	.list = disk_list,
};

int hk_collapse_plan(const struct hk_policy *policy, const struct hk_derive_entry *entries,
		     size_t n_entries, const char *base_root, const char *view_root,
		     struct hk_strset *out,
		     struct hk_collapse_stats *stats, bool (*merged)(const char *path),
		     struct hk_error *err)
{
	return hk_collapse_plan_over(&hk_collapse_layers_disk, policy, entries, n_entries,
				     base_root, view_root, out, stats, merged, err);
}
