/* Getting a recipe's source onto the host, before anything runs in the sandbox (D8: fetching
 * happens on the host; the build receives bytes, never a socket). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/build/build.h"
#include "engine/common/proc.h"
#include "engine/common/sign.h"
#include "engine/store/store_import.h"
#include "core/basic/blake3.h"
#include "core/basic/blake3_file.h"
#include "core/basic/util.h"

static int sha256_file(const char *path, char out[HK_SHA256_HEX_LEN], struct hk_error *err)
{
	/* A tarball may be reached through a symlink, so not hk_sha256_file (which refuses one).
	 * A tarball that cannot be read is the environment's failure (EIO), as a bad hash is the
	 * input's (EBADMSG). */
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = fd < 0 ? hk_fail_errno(err, errno, "source tarball %s", path)
		       : hk_sha256_fd(fd, path, out, err);
	if (r < 0)
		err->code = EIO;
	return r < 0 ? -EIO : 0;
}

int hk_source_verify_tarball(const struct hk_recipe *r, struct hk_error *err)
{
	char got[HK_SHA256_HEX_LEN];
	if (r->source.hash_algo == HK_HASH_B3) {
		uint8_t d[HK_BLAKE3_OUT_LEN];
		if (hk_blake3_file(r->source.path, d, err) < 0)
			return hk_wrap(err, "source tarball");
		hk_hex(d, sizeof(d), got);
	} else if (sha256_file(r->source.path, got, err) < 0) {
		return -EIO;
	}
	if (strcmp(got, r->source.hash_hex) != 0)
		return hk_fail_at(err, EBADMSG, r->path ? r->path : "recipe", r->source.pos.line,
				  r->source.pos.col, "source tarball %s has %s %s, the recipe says %s",
				  r->source.path, r->source.hash_algo == HK_HASH_B3 ? "b3" : "sha256",
				  got, r->source.hash_hex);
	return 0;
}

/* The only entry of `dir` when it is a single directory, else NULL. */
static char *single_subdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *de;
	char *only = NULL;
	int count = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		count++;
		free(only);
		only = hk_xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	struct stat st;
	if (count != 1 || lstat(only, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(only);
		return NULL;
	}
	return only;
}

int hk_source_flatten_single_dir(const char *dir, struct hk_error *err)
{
	char *sub = single_subdir(dir);
	if (!sub)
		return 0;
	char *tmp = hk_xasprintf("%s.flatten", dir);
	int rc = 0;
	if (rename(sub, tmp) < 0 || rmdir(dir) < 0 || rename(tmp, dir) < 0)
		rc = hk_fail_errno(err, errno, "moving the unpacked source %s up", sub);
	free(tmp);
	free(sub);
	return rc;
}

int hk_source_take_apt_dir(const char *fetch, const char *package, const char *dst,
			   struct hk_error *err)
{
	/* apt-get source leaves the .dsc, the tarballs, and one unpacked directory
	 * PACKAGE-UPSTREAMVERSION. */
	DIR *d = opendir(fetch);
	if (!d)
		return hk_fail_errno(err, errno, "%s", fetch);
	struct dirent *de;
	char *found = NULL;
	size_t plen = strlen(package);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, package, plen) != 0 || de->d_name[plen] != '-')
			continue;
		char *p = hk_xasprintf("%s/%s", fetch, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(found);
			found = p;
		} else {
			free(p);
		}
	}
	closedir(d);
	if (!found)
		return hk_fail(err, ENOENT, "apt-get source left no %s-* directory in %s", package,
			       fetch);
	char *src = hk_xasprintf("%s/.", found);
	int r = hk_spawnl(NULL, false, err, "cp", "-a", "--no-preserve=ownership", src, dst, NULL);
	free(src);
	free(found);
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

bool hk_apt_source_spec_ok(const char *s, bool need_version)
{
	const char *eq = strchr(s, '=');
	const char *end = eq ? eq : s + strlen(s);
	if (end - s < 2 || (eq && !eq[1]) || (need_version && !eq))
		return false;
	for (const char *p = s; p < end; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      (p > s && (*p == '+' || *p == '-' || *p == '.'))))
			return false;
	for (const char *p = eq ? eq + 1 : end; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("+-.:~", *p)))
			return false;
	return true;
}

int hk_apt_source(const char *dir, const char *spec, bool download_only, struct hk_error *err)
{
	const char *argv[] = { "apt-get", "source", "-qq", spec, NULL, NULL };
	if (download_only) {
		argv[3] = "--download-only";
		argv[4] = spec;
	}
	struct hk_run_result res;
	int rc = hk_run_capture(argv, dir, &res, err);
	if (rc == 0 && res.status != 0) {
		char line[512];
		hk_apt_reason(&res.errout, line, sizeof(line));
		bool unknown = strstr(line, "Unable to find a source package") ||
			       strstr(line, "Can not find version");
		rc = hk_fail(err, unknown ? ENOENT : EIO, "apt-get source%s %s failed: %s%s",
			     download_only ? " --download-only" : "", spec, line,
			     strstr(line, "deb-src") ? " (apt needs a deb-src entry beside the "
						       "machine's deb entry: docs/debian-builds.md, "
						       "\"Usage\")" : "");
	}
	hk_run_result_free(&res);
	return rc;
}

int hk_apt_source_dsc(const char *dir, const char *name, char **out, struct hk_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return hk_fail_errno(err, errno, "reading %s", dir);
	hk_autofree char *prefix = hk_xasprintf("%s_", name);
	char *found = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l <= 4 || strcmp(e->d_name + l - 4, ".dsc") != 0)
			continue;
		if (!found || strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
			free(found);
			found = hk_xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	if (!found)
		return hk_fail(err, ENOENT, "apt-get source left no .dsc in %s", dir);
	*out = found;
	return 0;
}
