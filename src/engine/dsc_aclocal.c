/* Build-Depends named from the build's log: the store packages whose /usr/share/aclocal files
 * define a macro the log says was missing (core/aclocal.h; docs/debian-builds.md, "What a build
 * can name").  The store view leaves that directory out, so such a use leaves no denial: the
 * log is the only witness, and the report says so. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "engine/dsc_int.h"
#include "core/aclocal.h"
#include "core/file.h"
#include "core/tree.h"
#include "core/util.h"

/* What of a long log is kept: its tail.  A macro's failure stops autoreconf or configure, and
 * so the build, soon after; 16 MiB holds the last phases of any build in the corpus. */
#define LOG_KEEP (16u << 20)

static void keep(struct dsc_log *l, const char *p, size_t n)
{
	hk_buf_append(&l->text, p, n);
	if (l->text.len > 2 * LOG_KEEP) {
		size_t drop = l->text.len - LOG_KEEP;
		memmove(l->text.data, l->text.data + drop, l->text.len - drop);
		l->text.len -= drop;
	}
}

/* Copies what comes in to the saved stderr, and keeps it, until told to stop; then what is
 * left in the pipe.  A process of the build that outlives it (holding the pipe open) cannot
 * keep this thread alive: the read end is non-blocking. */
static void *copy_and_keep(void *arg)
{
	struct dsc_log *l = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	char buf[65536];
	for (bool stopping = false;;) {
		struct pollfd p[2] = { { l->pipe_r, POLLIN, 0 }, { l->stop[0], POLLIN, 0 } };
		if (!stopping && poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		stopping |= p[1].revents != 0;
		ssize_t n = read(l->pipe_r, buf, sizeof(buf));
		if (n > 0) {
			/* The user's stderr first: a failed write there is not the build's. */
			(void)!hk_write_all(l->saved_err, buf, (size_t)n);
			keep(l, buf, (size_t)n);
			continue;
		}
		if (n == 0 || stopping || (errno != EAGAIN && errno != EINTR))
			break;
	}
	return NULL;
}

int dsc_log_start(struct dsc_log *l, struct hk_error *err)
{
	memset(l, 0, sizeof(*l));
	l->text = (struct hk_buf)HK_BUF_INIT;
	l->saved_err = l->pipe_r = l->stop[0] = l->stop[1] = -1;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "pipe for the build's log");
	if (pipe2(l->stop, O_CLOEXEC) < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return hk_fail_errno(err, e, "pipe for the build's log");
	}
	fflush(stderr);
	l->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (l->saved_err < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0 ||
	    dup2(p[1], STDERR_FILENO) < 0) {
		int e = errno;
		if (l->saved_err >= 0)
			close(l->saved_err);
		close(p[0]);
		close(p[1]);
		close(l->stop[0]);
		close(l->stop[1]);
		return hk_fail_errno(err, e, "capturing the build's log");
	}
	close(p[1]);
	l->pipe_r = p[0];
	if (pthread_create(&l->thread, NULL, copy_and_keep, l) != 0) {
		dup2(l->saved_err, STDERR_FILENO);
		close(l->saved_err);
		close(l->pipe_r);
		close(l->stop[0]);
		close(l->stop[1]);
		return hk_fail(err, EAGAIN, "cannot start the thread that keeps the build's log");
	}
	l->on = true;
	return 0;
}

void dsc_log_stop(struct dsc_log *l)
{
	if (!l->on)
		return;
	fflush(stderr);
	/* stderr is the user's again: the pipe's last writer of ours is gone. */
	dup2(l->saved_err, STDERR_FILENO);
	close(l->saved_err);
	(void)!write(l->stop[1], "", 1);
	pthread_join(l->thread, NULL);
	close(l->pipe_r);
	close(l->stop[0]);
	close(l->stop[1]);
	l->on = false;
}

void dsc_log_free(struct dsc_log *l)
{
	dsc_log_stop(l);
	hk_buf_free(&l->text);
}

/* The m4 files of /usr/share/aclocal an artifact ships, and the macros each defines, into the
 * parallel vectors. */
static int index_artifact(struct hk_store *s, const struct hk_artifact *a, struct hk_strv *macros,
			  struct hk_strv *files, struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int rc = hk_store_files(s, a, &t, err);
	for (size_t k = 0; rc == 0 && k < t.n; k++) {
		const char *p = t.entries[k].path;
		size_t n = strlen(p);
		if (t.entries[k].type != HK_TREE_FILE || strncmp(p, "usr/share/aclocal/", 18) != 0 ||
		    strchr(p + 18, '/') || n < 3 || strcmp(p + n - 3, ".m4") != 0)
			continue;
		hk_autofree char *host = hk_xasprintf("%s/%s", a->path, p);
		struct hk_buf text = HK_BUF_INIT;
		rc = hk_file_read(host, &text, err);
		hk_autostrv struct hk_strv defs = HK_STRV_INIT;
		if (rc == 0)
			hk_aclocal_defuns(text.data, text.len, &defs);
		hk_buf_free(&text);
		for (size_t d = 0; d < defs.n; d++) {
			hk_strv_push(macros, defs.v[d]);
			hk_strv_push_owned(files, hk_xasprintf("/%s", p));
		}
	}
	hk_tree_free(&t);
	return rc;
}

/* Whether `package` is named already for `macro` (an m4 file may define a macro twice). */
static bool named(const struct hk_dsc_result *r, const char *package, const char *macro)
{
	for (size_t i = 0; i < r->n_macro_needs; i++)
		if (strcmp(r->macro_needs[i].package, package) == 0 &&
		    strcmp(r->macro_needs[i].macro, macro) == 0)
			return true;
	return false;
}

int dsc_find_macro_needs(struct dsc_build *b, const struct dsc_log *log)
{
	struct hk_dsc_result *r = b->r;
	hk_autostrv struct hk_strv missed = HK_STRV_INIT;
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	hk_aclocal_log_misses(log->text.data, log->text.len, &missed, &lines);
	if (missed.n == 0)
		return 0;
	const struct hk_artifact *const *all;
	size_t n_all;
	struct hk_store *s = r->build.store;
	if (hk_store_list(s, &all, &n_all, b->err) < 0)
		return -b->err->code;
	/* A macro the closure defines was visible and granted: the log's failure is not that of
	 * a missing package, and no store package is named for it. */
	hk_autostrv struct hk_strv declared = HK_STRV_INIT;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->n_closure; i++) {
		const struct hk_artifact *a;
		hk_autostrv struct hk_strv files = HK_STRV_INIT;
		rc = hk_store_find(s, r->closure[i].id, &a, b->err) < 0
			     ? -b->err->code
			     : index_artifact(s, a, &declared, &files, b->err);
	}
	for (size_t i = 0; rc == 0 && i < n_all; i++) {
		const struct hk_artifact *a = all[i];
		if (a->origin != HK_ORIGIN_DEB || dsc_closure_has(r, a->name))
			continue;
		hk_autostrv struct hk_strv macros = HK_STRV_INIT;
		hk_autostrv struct hk_strv files = HK_STRV_INIT;
		rc = index_artifact(s, a, &macros, &files, b->err);
		for (size_t m = 0; rc == 0 && m < macros.n; m++) {
			size_t miss = 0;
			while (miss < missed.n && strcmp(missed.v[miss], macros.v[m]) != 0)
				miss++;
			if (miss == missed.n || hk_strv_has(&declared, macros.v[m]) ||
			    named(r, a->name, macros.v[m]))
				continue;
			r->macro_needs = hk_xrealloc(r->macro_needs,
						     (r->n_macro_needs + 1) * sizeof(*r->macro_needs));
			struct hk_dsc_macro_need *mn = &r->macro_needs[r->n_macro_needs++];
			mn->package = hk_xstrdup(a->name);
			mn->version = hk_xstrdup(a->version);
			mn->macro = hk_xstrdup(macros.v[m]);
			mn->file = hk_xstrdup(files.v[m]);
			mn->line = hk_xstrdup(lines.v[miss]);
		}
	}
	return rc;
}
