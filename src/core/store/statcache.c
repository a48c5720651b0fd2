/* The stat cache of store artifacts: see statcache.h for what it proves and why. */
#include "core/store/statcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/buf_fd.h"
#include "core/basic/inos.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

#define MAGIC "harkaq-statcache 1\n"

/* STORE/.meta/<dirname>.stat, from the metadata path STORE/.meta/<dirname>.json. */
static char *cache_path(const struct hk_artifact *a)
{
	size_t n = strlen(a->meta_path);
	return hk_xasprintf("%.*s.stat", (int)(n - strlen(".json")), a->meta_path);
}

static void stat_line(struct hk_buf *b, const struct stat *st)
{
	hk_buf_printf(b, "%" PRIu64 " %" PRIu64 " %o %" PRId64 " %" PRId64 ".%09ld %" PRId64
			 ".%09ld\n",
		      (uint64_t)st->st_dev, (uint64_t)st->st_ino, (unsigned)st->st_mode,
		      (int64_t)st->st_size, (int64_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		      (int64_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* The cache's text for the tree as it is now: the root, then every manifest entry in
 * manifest order; each regular file's inode into `inos` (NULL: not counted).  Fails if an
 * entry cannot be stat'ed (then nothing matches). */
static int describe(int rootfd, const struct hk_tree *t, struct hk_buf *out,
		    struct hk_inos *inos)
{
	hk_buf_puts(out, MAGIC);
	struct stat st;
	if (fstat(rootfd, &st) < 0)
		return -errno;
	stat_line(out, &st);
	for (size_t i = 0; i < t->n; i++) {
		if (fstatat(rootfd, t->entries[i].path, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		stat_line(out, &st);
		if (inos && S_ISREG(st.st_mode))
			hk_inos_add(inos, (uint64_t)st.st_ino);
	}
	return 0;
}

static int read_cache(const char *path, struct hk_buf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	int r = hk_buf_read_fd(out, fd);
	close(fd);
	return r;
}

/* hk_statcache_matches, counting the tree's files into `inos` when it matches. */
static bool matches(struct hk_store *s, const struct hk_artifact *a, struct hk_inos *inos)
{
	hk_autofree char *path = cache_path(a);
	struct hk_buf cached = HK_BUF_INIT, now = HK_BUF_INIT;
	struct hk_tree t = HK_TREE_INIT;
	struct hk_error ignored;
	size_t mark = inos ? inos->n : 0;
	bool ok = read_cache(path, &cached) == 0 && hk_store_files(s, a, &t, &ignored) == 0;
	int rootfd = ok ? open(a->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	ok = ok && rootfd >= 0 && describe(rootfd, &t, &now, inos) == 0 && cached.len == now.len &&
	     memcmp(cached.data, now.data, now.len) == 0;
	if (!ok && inos)
		inos->n = mark;
	if (rootfd >= 0)
		close(rootfd);
	hk_tree_free(&t);
	hk_buf_free(&cached);
	hk_buf_free(&now);
	return ok;
}

bool hk_statcache_matches(struct hk_store *s, const struct hk_artifact *a)
{
	return matches(s, a, NULL);
}

/* hk_statcache_refresh, counting the tree's files into `inos`; whether they were counted. */
static bool refresh(struct hk_store *s, const struct hk_artifact *a, struct hk_inos *inos)
{
	struct hk_tree t = HK_TREE_INIT;
	struct hk_error ignored;
	if (hk_store_files(s, a, &t, &ignored) < 0)
		return false;
	size_t mark = inos ? inos->n : 0;
	int rootfd = open(a->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct hk_buf text = HK_BUF_INIT;
	hk_autofree char *path = cache_path(a);
	hk_autofree char *tmp = hk_xasprintf("%s.XXXXXX", path);
	bool described = rootfd >= 0 && describe(rootfd, &t, &text, inos) == 0;
	if (described) {
		int fd = mkstemp(tmp);
		if (fd >= 0) {
			bool ok = write(fd, text.data, text.len) == (ssize_t)text.len &&
				  fchmod(fd, 0444) == 0;
			if (close(fd) < 0 || !ok || rename(tmp, path) < 0)
				unlink(tmp);
		}
	} else if (inos) {
		inos->n = mark;
	}
	if (rootfd >= 0)
		close(rootfd);
	hk_buf_free(&text);
	hk_tree_free(&t);
	return described;
}

/* Writes the cache for the tree as it is now (just verified).  A failure only costs the next
 * build a full check, so it is not an error. */
void hk_statcache_refresh(struct hk_store *s, const struct hk_artifact *a)
{
	(void)refresh(s, a, NULL);
}

int hk_statcache_verify(struct hk_store *s, const struct hk_artifact *a,
			int (*full)(struct hk_store *, const struct hk_artifact *, struct hk_error *),
			bool *warm, struct hk_inos *inos, struct hk_error *err)
{
	*warm = matches(s, a, inos);
	if (*warm)
		return 0;
	int r = full(s, a, err);
	/* Counted from the stats taken after the full check, as the cache is. */
	if (r == 0 && !refresh(s, a, inos) && inos)
		inos->incomplete = true;
	return r;
}
