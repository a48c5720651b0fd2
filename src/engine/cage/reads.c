/* The files a build opened among those allowed, from fanotify (reads.h). */
#include "engine/cage/reads.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "sys/openwatch.h"

/* An event's path as the sandbox names it: harkaq's mount point of a merged view is replaced
 * by the top it is bound at; a path already outside them is the sandbox's own (an open
 * through the sandbox's bind mount, named from its namespace). */
static void record(void *ctx, const struct hk_fanotify_event *ev)
{
	struct hk_reads *r = ctx;
	r->events++;
	if (ev->overflow) {
		r->overflow = true;
		return;
	}
	if (!ev->path)
		return;
	for (size_t i = 0; i < r->n_tops; i++) {
		size_t n = strlen(r->host[i]);
		if (strncmp(ev->path, r->host[i], n) == 0 && (ev->path[n] == '/' || !ev->path[n])) {
			hk_strset_add_owned(&r->paths, hk_xasprintf("%s%s", r->sandbox[i], ev->path + n));
			return;
		}
	}
	hk_strset_add(&r->paths, ev->path);
}

/* Whether the file of inode `ino` has a single name among the views' layers: one entry of the
 * verified trees.  The store links every artifact's files into its views (core/store/view.h), so
 * their link counts are never 1; a view links a file at the path its artifact has, the path
 * it is reported under (the overlay shows it once), and never links two artifacts' files
 * together. */
static bool only_name(void *ctx, uint64_t ino)
{
	const struct hk_reads *r = ctx;
	return r->inos && hk_inos_count(r->inos, ino) == 1;
}

static void *watch(void *arg)
{
	struct hk_reads *r = arg;
	/* Signals are the build's main thread's business. */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd p[2] = { { r->fd, POLLIN, 0 }, { r->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (hk_sys_fanotify_drain(r->fd, record, only_name, r) < 0)
			r->overflow = true;
		if (p[1].revents)
			break;
	}
	/* What came in between the last drain and the stop. */
	if (hk_sys_fanotify_drain(r->fd, record, only_name, r) < 0)
		r->overflow = true;
	return NULL;
}

/* Whether every layer of the plan's merged views is on one filesystem: an overlay of layers on
 * one filesystem reports each file's own inode number (kernel-facts.md §12), the number the
 * build's stats of the same files counted. */
static bool layers_on_one_fs(const struct hk_sandbox_plan *plan)
{
	dev_t dev = 0;
	bool seen = false;
	for (size_t i = 0; i < plan->n_tops; i++) {
		const struct hk_top *t = &plan->tops[i];
		for (size_t k = 0; t->kind == HK_TOP_OVERLAY && k < t->n_lowers; k++) {
			struct stat st;
			if (stat(t->lowers[k], &st) < 0 || (seen && st.st_dev != dev))
				return false;
			dev = st.st_dev;
			seen = true;
		}
	}
	return seen;
}

int hk_reads_start(struct hk_reads *r, const struct hk_sandbox_plan *plan,
		   const struct hk_inos *inos, struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->stop[0] = r->stop[1] = -1;
	r->paths = (struct hk_strset)HK_STRSET_INIT;
	r->inos = inos && !inos->incomplete && layers_on_one_fs(plan) ? inos : NULL;
	int rc = hk_sys_fanotify_init(&r->fd, err);
	for (size_t i = 0; rc == 0 && i < plan->n_tops; i++) {
		const struct hk_top *t = &plan->tops[i];
		if (t->kind != HK_TOP_OVERLAY)
			continue;
		rc = hk_sys_fanotify_watch_fs(r->fd, t->merged, err);
		r->host = hk_xrealloc(r->host, (r->n_tops + 1) * sizeof(char *));
		r->sandbox = hk_xrealloc(r->sandbox, (r->n_tops + 1) * sizeof(char *));
		r->host[r->n_tops] = hk_xstrdup(t->merged);
		r->sandbox[r->n_tops++] = hk_xasprintf("/%s", t->name);
	}
	if (rc == 0 && r->n_tops == 0)
		rc = hk_fail(err, ENOENT, "the sandbox has no merged view to watch");
	if (rc == 0 && pipe2(r->stop, O_CLOEXEC) < 0)
		rc = hk_fail_errno(err, errno, "pipe");
	if (rc == 0 && (errno = pthread_create(&r->thread, NULL, watch, r)) != 0)
		rc = hk_fail_errno(err, errno, "starting the thread that reads fanotify");
	if (rc < 0) {
		hk_reads_free(r);
		return rc;
	}
	r->running = true;
	return 0;
}

void hk_reads_stop(struct hk_reads *r)
{
	if (!r->running)
		return;
	ssize_t w = write(r->stop[1], "x", 1);
	(void)w;
	pthread_join(r->thread, NULL);
	r->running = false;
}

void hk_reads_free(struct hk_reads *r)
{
	hk_reads_stop(r);
	if (r->fd >= 0)
		close(r->fd);
	for (int i = 0; i < 2; i++)
		if (r->stop[i] >= 0)
			close(r->stop[i]);
	for (size_t i = 0; i < r->n_tops; i++) {
		free(r->host[i]);
		free(r->sandbox[i]);
	}
	free(r->host);
	free(r->sandbox);
	hk_strset_free(&r->paths);
	r->fd = -1;
	r->stop[0] = r->stop[1] = -1;
	r->host = r->sandbox = NULL;
	r->n_tops = 0;
}
