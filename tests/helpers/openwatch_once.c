/* fanotify's watch for the converse reports a file once (src/sys/openwatch.h): the ignore mark
 * a reported file gets stops its later opens from raising events, except for a file with other
 * links, whose other names must still be reported.
 *
 *   openwatch_once DIR [--only-name]    (root; DIR an empty directory)
 *
 * In a mount namespace of its own, mounts a tmpfs on DIR and makes `one` (one link) and `two`
 * with a hard link `two-link`; watches the filesystem; then, draining after each step:
 * opens one, opens one 3 times more, opens two, opens two again, opens two-link.  Prints
 * "STEP EVENTS PATH..." for each step (paths relative to DIR).  With --only-name the drain's
 * caller answers that every file has no other name that can be opened (what a build says of
 * the files its verified trees name once): `two` is then marked as `one` is. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "sys/openwatch.h"

struct seen {
	const char *dir;
	int n;
	char line[4096];
};

static void record(void *ctx, const struct hk_fanotify_event *ev)
{
	struct seen *s = ctx;
	s->n++;
	size_t k = strlen(s->dir);
	const char *p = ev->path ? ev->path : "(none)";
	if (strncmp(p, s->dir, k) == 0 && p[k] == '/')
		p += k + 1;
	size_t used = strlen(s->line);
	snprintf(s->line + used, sizeof(s->line) - used, " %s", p);
}

static int open_close(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static bool every_file_has_one_name(void *ctx, uint64_t ino)
{
	(void)ctx;
	(void)ino;
	return true;
}

static bool (*only_name)(void *ctx, uint64_t ino);

static int step(int fan, const char *dir, const char *label, const char *name, int times)
{
	for (int i = 0; i < times; i++)
		if (open_close(dir, name) < 0) {
			fprintf(stderr, "openwatch_once: open %s/%s: %s\n", dir, name, strerror(errno));
			return -1;
		}
	struct seen s = { .dir = dir };
	if (hk_sys_fanotify_drain(fan, record, only_name, &s) < 0) {
		fprintf(stderr, "openwatch_once: drain failed\n");
		return -1;
	}
	printf("%s %d%s\n", label, s.n, s.line);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[2], "--only-name") == 0)
		only_name = every_file_has_one_name;
	else if (argc != 2) {
		fprintf(stderr, "usage: openwatch_once DIR [--only-name]\n");
		return 2;
	}
	const char *dir = argv[1];
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=1m") < 0) {
		fprintf(stderr, "openwatch_once: a tmpfs on %s: %s\n", dir, strerror(errno));
		return 1;
	}
	char one[4096], two[4096], link2[4096];
	snprintf(one, sizeof(one), "%s/one", dir);
	snprintf(two, sizeof(two), "%s/two", dir);
	snprintf(link2, sizeof(link2), "%s/two-link", dir);
	int fd1 = open(one, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	int fd2 = open(two, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd1 < 0 || fd2 < 0 || link(two, link2) < 0) {
		fprintf(stderr, "openwatch_once: files in %s: %s\n", dir, strerror(errno));
		return 1;
	}
	close(fd1);
	close(fd2);
	int fan;
	struct hk_error err;
	if (hk_sys_fanotify_init(&fan, &err) < 0 || hk_sys_fanotify_watch_fs(fan, dir, &err) < 0) {
		fprintf(stderr, "openwatch_once: %s\n", err.msg);
		return 1;
	}
	if (step(fan, dir, "one-first", "one", 1) < 0 || step(fan, dir, "one-again", "one", 3) < 0 ||
	    step(fan, dir, "two-first", "two", 1) < 0 || step(fan, dir, "two-again", "two", 1) < 0 ||
	    step(fan, dir, "two-link", "two-link", 1) < 0)
		return 1;
	return 0;
}
