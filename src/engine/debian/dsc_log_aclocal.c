/* Build-Depends named from the build's log: the store packages whose /usr/share/aclocal files
 * define a macro, a variable or a conditional the log says was missing (core/debian/aclocal.h;
 * docs/debian-builds.md, "What a build can name").  The store view leaves that directory out, so such a use leaves no denial: the
 * log is the only witness, and the report says so. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "engine/debian/dsc_int.h"
#include "core/debian/aclocal.h"
#include "core/basic/file.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

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
	(void)!write(l->stop[1], "", 1);
	/* The thread copies what is left in the pipe to saved_err: closed only once it is done,
	 * or the last lines of the log (the phases' reports) would be lost, or written into
	 * whatever descriptor took that number meanwhile. */
	pthread_join(l->thread, NULL);
	close(l->saved_err);
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

/* What the m4 files of /usr/share/aclocal define, of each kind (core/debian/aclocal.h): each name
 * with the file that defines it, in parallel vectors. */
struct m4_index {
	struct hk_strv names[HK_ACLOCAL_KINDS], files[HK_ACLOCAL_KINDS];
};

static void m4_index_free(struct m4_index *x)
{
	for (int k = 0; k < HK_ACLOCAL_KINDS; k++) {
		hk_strv_free(&x->names[k]);
		hk_strv_free(&x->files[k]);
	}
}

/* The m4 files of /usr/share/aclocal an artifact ships, and what each defines, into `x`. */
static int index_artifact(struct hk_store *s, const struct hk_artifact *a, struct m4_index *x,
			  struct hk_error *err)
{
	struct hk_tree t = HK_TREE_INIT;
	int rc = hk_store_files(s, a, &t, err);
	for (size_t e = 0; rc == 0 && e < t.n; e++) {
		const char *p = t.entries[e].path;
		size_t n = strlen(p);
		if (t.entries[e].type != HK_TREE_FILE || strncmp(p, "usr/share/aclocal/", 18) != 0 ||
		    strchr(p + 18, '/') || n < 3 || strcmp(p + n - 3, ".m4") != 0)
			continue;
		hk_autofree char *host = hk_xasprintf("%s/%s", a->path, p);
		struct hk_buf text = HK_BUF_INIT;
		rc = hk_file_read(host, &text, err);
		for (int k = 0; rc == 0 && k < HK_ACLOCAL_KINDS; k++) {
			hk_autostrv struct hk_strv defs = HK_STRV_INIT;
			hk_aclocal_names(text.data, text.len, (enum hk_aclocal_kind)k, &defs);
			for (size_t d = 0; d < defs.n; d++) {
				hk_strv_push(&x->names[k], defs.v[d]);
				hk_strv_push_owned(&x->files[k], hk_xasprintf("/%s", p));
			}
		}
		hk_buf_free(&text);
	}
	hk_tree_free(&t);
	return rc;
}

static enum hk_dsc_log_kind log_kind(enum hk_aclocal_kind k)
{
	switch (k) {
	case HK_ACLOCAL_VARIABLE:
		return HK_DSC_LOG_VARIABLE;
	case HK_ACLOCAL_CONDITIONAL:
		return HK_DSC_LOG_CONDITIONAL;
	default:
		return HK_DSC_LOG_MACRO;
	}
}

/* Whether `package` is named already for `name` of `kind` (an m4 file may define a name
 * twice). */
bool dsc_log_need_named(const struct hk_dsc_result *r, const char *package,
			enum hk_dsc_log_kind kind, const char *name)
{
	for (size_t i = 0; i < r->n_macro_needs; i++)
		if (r->macro_needs[i].kind == kind &&
		    strcmp(r->macro_needs[i].package, package) == 0 &&
		    strcmp(r->macro_needs[i].macro, name) == 0)
			return true;
	return false;
}

void dsc_log_need_add(struct hk_dsc_result *r, const struct hk_artifact *a,
		      enum hk_dsc_log_kind kind, const char *name, const char *file,
		      const char *dir, const char *line)
{
	r->macro_needs = hk_xrealloc(r->macro_needs,
				     (r->n_macro_needs + 1) * sizeof(*r->macro_needs));
	struct hk_dsc_macro_need *mn = &r->macro_needs[r->n_macro_needs++];
	mn->package = hk_xstrdup(a->name);
	mn->version = hk_xstrdup(a->version);
	mn->kind = kind;
	mn->macro = hk_xstrdup(name);
	mn->file = hk_xstrdup(file);
	mn->dir = dir ? hk_xstrdup(dir) : NULL;
	mn->line = hk_xstrdup(line);
}

int dsc_find_macro_needs(struct dsc_build *b, const struct dsc_log *log)
{
	struct hk_dsc_result *r = b->r;
	struct hk_strv missed[HK_ACLOCAL_KINDS], lines[HK_ACLOCAL_KINDS];
	size_t n_missed = 0;
	for (int k = 0; k < HK_ACLOCAL_KINDS; k++) {
		missed[k] = (struct hk_strv)HK_STRV_INIT;
		lines[k] = (struct hk_strv)HK_STRV_INIT;
		hk_aclocal_log_misses(log->text.data, log->text.len, (enum hk_aclocal_kind)k,
				      &missed[k], &lines[k]);
		n_missed += missed[k].n;
	}
	int rc = 0;
	const struct hk_artifact *const *all = NULL;
	size_t n_all = 0;
	struct hk_store *s = r->build.store;
	if (n_missed > 0 && hk_store_list(s, &all, &n_all, b->err) < 0)
		rc = -b->err->code;
	/* A name the closure's m4 files define was visible and granted: the log's failure is
	 * not that of a missing package, and no store package is named for it. */
	struct m4_index declared = { 0 };
	for (size_t i = 0; n_missed > 0 && rc == 0 && i < r->n_closure; i++) {
		const struct hk_artifact *a;
		rc = hk_store_find(s, r->closure[i].id, &a, b->err) < 0
			     ? -b->err->code
			     : index_artifact(s, a, &declared, b->err);
	}
	for (size_t i = 0; n_missed > 0 && rc == 0 && i < n_all; i++) {
		const struct hk_artifact *a = all[i];
		if (a->origin != HK_ORIGIN_DEB || dsc_closure_has(r, a->name))
			continue;
		struct m4_index defined = { 0 };
		rc = index_artifact(s, a, &defined, b->err);
		for (int k = 0; rc == 0 && k < HK_ACLOCAL_KINDS; k++) {
			for (size_t m = 0; m < defined.names[k].n; m++) {
				const char *name = defined.names[k].v[m];
				size_t miss = 0;
				while (miss < missed[k].n && strcmp(missed[k].v[miss], name) != 0)
					miss++;
				enum hk_dsc_log_kind kind = log_kind((enum hk_aclocal_kind)k);
				if (miss == missed[k].n || hk_strv_has(&declared.names[k], name) ||
				    dsc_log_need_named(r, a->name, kind, name))
					continue;
				dsc_log_need_add(r, a, kind, name, defined.files[k].v[m], NULL,
						 lines[k].v[miss]);
			}
		}
		m4_index_free(&defined);
	}
	m4_index_free(&declared);
	for (int k = 0; k < HK_ACLOCAL_KINDS; k++) {
		hk_strv_free(&missed[k]);
		hk_strv_free(&lines[k]);
	}
	return rc;
}
