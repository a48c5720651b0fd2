#include "engine/cage/cage.h"
#include "sys/interrupt.h"
#include "core/evidence/build_failure.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/common/proc.h"
#include "sys/nsinit.h"
#include "core/formats/json.h"
#include "core/basic/util.h"
#include "sys/proc.h"

/* Bounds on waiting.  The deallocation record comes from a kworker about 50 ms after the
 * last process of the domain is reaped (kernel-facts.md §3); the bound only matters when
 * something is wrong, and then the verdict says so. */
#define READER_READY_TIMEOUT_MS 5000
#define DEALLOC_TIMEOUT_MS 3000
#define CANARY_LATE_TIMEOUT_MS 500
#define READER_END_TIMEOUT_MS 3000

struct hk_cage_reader {
	pid_t pid;
	int in_fd;                  /* its stdin; closing it asks it to stop */
	struct hk_linereader out;
	bool ended;
	long long t_started;        /* hk_now_ms() at its fork */
};

static struct hk_cage_reader *reader_new(void)
{
	struct hk_cage_reader *rd = hk_xcalloc(1, sizeof(*rd));
	rd->pid = -1;
	rd->in_fd = -1;
	rd->out.fd = -1;
	return rd;
}

static int reader_start(bool may_enable, long backlog_floor, struct hk_cage_reader *rd,
			struct hk_error *err)
{
	hk_autofree char *path = NULL;
	int r = hk_helper_path("harkaq-audit", &path, err);
	if (r < 0)
		return r;
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "pipe for the audit reader");
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return hk_fail_errno(err, errno, "pipe for the audit reader");
	}
	char floor_arg[32];
	char no_enable[] = "--no-enable", floor_opt[] = "--backlog-floor";
	char *argv[8];
	int a = 0;
	argv[a++] = path;
	if (!may_enable)
		argv[a++] = no_enable;
	if (backlog_floor >= 0) {
		snprintf(floor_arg, sizeof(floor_arg), "%ld", backlog_floor);
		argv[a++] = floor_opt;
		argv[a++] = floor_arg;
	}
	argv[a] = NULL;
	rd->t_started = hk_now_ms();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		return hk_fail_errno(err, e, "fork for the audit reader");
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		/* The reader must not take the caged command's signals (Ctrl-C goes to harkaq,
		 * which forwards it to the command and then finishes the evidence). */
		setpgid(0, 0);
		execv(path, argv);
		fprintf(stderr, "harkaq: cannot execute %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	rd->pid = pid;
	rd->in_fd = in[1];
	hk_linereader_init(&rd->out, out[0]);
	rd->ended = false;
	return 0;
}

/* Handles one line of the reader.  Returns 1 for "ready", 2 for "end", 0 otherwise. */
static int reader_line(struct hk_cage_result *res, const char *line)
{
	struct hk_reader_line l;
	struct hk_error e;
	if (hk_reader_line_decode(line, strlen(line), &l, &e) < 0) {
		res->reader_failed = true;
		if (!res->reader_error)
			res->reader_error = hk_xasprintf("unreadable line from the reader: %s", e.msg);
		return 0;
	}
	int ret = 0;
	switch (l.event) {
	case HK_READER_RECORD: {
		struct hk_error fe;
		/* A record that does not parse is counted by the evidence (n_malformed); if it was
		 * one of this run's, the count check against denials=N fails and says so.  Another
		 * process's odd record must not condemn this run. */
		if (l.text && hk_evidence_feed(&res->evidence, l.type, l.serial, l.text,
					       l.text_len, &fe) < 0) {
			/* counted, as said above */
		}
		break;
	}
	case HK_READER_READY:
		res->reader_ready = true;
		res->audit_confirmed = l.confirmed;
		res->have_audit_before = l.has_audit;
		res->audit_before = l.audit;
		memcpy(res->audit_changed, l.changed, sizeof(l.changed));
		res->n_audit_changed = l.n_changed;
		res->lost_before = l.has_audit ? (long long)l.audit.lost : -1;
		ret = 1;
		break;
	case HK_READER_END:
		res->have_audit_after = l.has_audit;
		res->audit_after = l.audit;
		res->lost_after = l.has_audit ? (long long)l.audit.lost : -1;
		res->enobufs = (long long)l.enobufs;
		ret = 2;
		break;
	case HK_READER_ERROR:
		res->reader_failed = true;
		if (!res->reader_error)
			res->reader_error = hk_xstrdup(l.text_reason ?: "reader error");
		break;
	case HK_READER_OVERRUN:
	case HK_READER_WARNING:
	case HK_READER_STATUS:
		break;
	}
	hk_reader_line_free(&l);
	return ret;
}

static int reader_drain(struct hk_cage_reader *rd, struct hk_cage_result *res)
{
	int seen = 0;
	int rerr = hk_linereader_fill(&rd->out);
	char *line;
	while (hk_linereader_next(&rd->out, &line)) {
		int k = reader_line(res, line);
		free(line);
		if (k == 2)
			rd->ended = true;
		seen |= k;
	}
	/* What the reader said after a failed read is lost: its records are not complete. */
	if (rerr < 0 && !rd->ended) {
		res->reader_failed = true;
		if (!res->reader_error)
			res->reader_error = hk_xasprintf("reading the audit reader's output: %s",
							 strerror(-rerr));
	}
	return seen;
}

static void status_line(struct hk_cage_result *res, const char *line)
{
	struct hk_exec_event ev;
	struct hk_error e;
	if (hk_exec_event_decode(line, strlen(line), &ev, &e) < 0)
		return; /* harkaq-exec writes only its events here; anything else is not its report */
	switch (ev.kind) {
	case HK_EXEC_EVENT_CAGE:
		res->abi = ev.cage.abi;
		res->real_abi = ev.cage.real_abi;
		if (res->cage_reported)
			hk_cage_report_free(&res->cage);
		res->cage = ev.cage;
		res->cage_reported = true;
		memset(&ev.cage, 0, sizeof(ev.cage)); /* moved into the result */
		break;
	case HK_EXEC_EVENT_CANARY:
		res->canary_reported = true;
		res->canary = ev.canary;
		break;
	case HK_EXEC_EVENT_ERROR:
		if (!res->cage_error) {
			res->cage_error = hk_xstrdup(ev.message ? ev.message : "cage error");
			res->cage_error_layer = hk_xstrdup(ev.layer ? ev.layer : "unknown");
		}
		break;
	}
	hk_exec_event_free(&ev);
}

/* In the forked child, before exec: a failure goes to the status pipe as the cage's own
 * error event would, so the orchestrator reports a set-up failure, never a verdict. */
static void child_fail(int status_fd, const char *layer, const char *msg)
	__attribute__((noreturn));
static void child_fail(int status_fd, const char *layer, const char *msg)
{
	struct hk_buf b = HK_BUF_INIT;
	const struct hk_exec_event ev = {
		.kind = HK_EXEC_EVENT_ERROR,
		.layer = (char *)(uintptr_t)layer,
		.message = (char *)(uintptr_t)msg,
		.exit_code = -1,
	};
	hk_exec_event_encode(&ev, &b);
	hk_buf_putc(&b, '\n');
	ssize_t w = write(status_fd, b.data, b.len);
	(void)w;
	fprintf(stderr, "harkaq: %s\n", msg);
	_exit(125);
}

/* The reader and its status sentinel share the process group the reader made (setpgid in
 * reader_start).  When the reader dies, the sentinel is reparented to us (we are a subreaper)
 * and would otherwise be killed and counted as a leftover of the *command* — a false
 * statement in the result (found by tests/integration/evidence.sh).  It exits by itself once
 * the reader's end of its pipe is gone. */
#define READER_GROUP_MAX 8
static size_t reader_group(pid_t reader, pid_t out[READER_GROUP_MAX])
{
	if (reader <= 0)
		return 0;
	size_t n = 0;
	out[n++] = reader;
	DIR *d = opendir("/proc");
	if (!d)
		return n;
	struct dirent *de;
	while (n < READER_GROUP_MAX && (de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0 || (pid_t)v == reader)
			continue;
		if (getpgid((pid_t)v) == reader)
			out[n++] = (pid_t)v;
	}
	closedir(d);
	return n;
}

/* Kills a reader (after its final status, or without it: a run that failed, a result freed
 * unfinished, a reader started ahead for a build that stopped before its first phase) and
 * reaps it and its sentinel. */
static void reader_free(struct hk_cage_reader *rd)
{
	if (!rd)
		return;
	if (rd->in_fd >= 0)
		close(rd->in_fd);
	if (rd->pid > 0) {
		kill(rd->pid, SIGKILL);
		int ws;
		waitpid(rd->pid, &ws, 0);
		/* Its sentinel, orphaned, is now our child (we are a subreaper) and exits on its
		 * own once the reader's end of its pipe is gone: reap it (bounded, 100 ms). */
		for (int k = 0; k < 50; k++) {
			pid_t w = waitpid(-rd->pid, &ws, WNOHANG);
			if (w < 0)
				break;
			if (w == 0) {
				struct timespec ts = { 0, 2 * 1000 * 1000 };
				nanosleep(&ts, NULL);
			}
		}
	}
	hk_linereader_close(&rd->out);
	free(rd);
}

static void reader_kill(struct hk_cage_result *r)
{
	reader_free(r->pending);
	r->pending = NULL;
}

struct hk_cage_reader *hk_cage_reader_start_ahead(bool may_enable, long backlog_floor)
{
	/* As in hk_cage_run: should the reader die, its orphaned sentinel becomes our child.
	 * Without that, no reader is started ahead: the run tries again and says why it fails. */
	if (hk_sys_become_subreaper() < 0)
		return NULL;
	struct hk_cage_reader *rd = reader_new();
	struct hk_error ignored;
	if (reader_start(may_enable, backlog_floor, rd, &ignored) < 0) {
		free(rd); /* the run starts its own, and reports why that fails */
		return NULL;
	}
	return rd;
}

void hk_cage_reader_discard(struct hk_cage_reader *rd)
{
	reader_free(rd);
}

/* Whether a run still waits for records: its reader is ready and alive, and its canary or
 * its deallocation record has not come yet. */
static bool awaits_records(const struct hk_cage_result *r)
{
	return r->pending && r->reader_ready && r->pending->out.fd >= 0 &&
	       !(hk_evidence_canary_seen(&r->evidence) && hk_evidence_dealloc_seen(&r->evidence));
}

/* Closes a deferred run's evidence on its own accounting: once its canary and its
 * deallocation record are in (the kernel's count of its domain, after which no record of it
 * can come), its reader is asked for its final status — the lost counter after — at once,
 * not after the last phase.  A run's loss window is then its own (plus the kernel's delay
 * before its deallocation record): a record lost while a later phase runs no longer voids
 * it.  The reader answers while the caller goes on; hk_cage_finish reaps it. */
static void settle(struct hk_cage_result *r)
{
	struct hk_cage_reader *rd = r->pending;
	if (!rd || rd->in_fd < 0 || !r->reader_ready || !hk_evidence_canary_seen(&r->evidence) ||
	    !hk_evidence_dealloc_seen(&r->evidence))
		return;
	close(rd->in_fd);
	rd->in_fd = -1;
}

void hk_cage_finish(struct hk_cage_result *const *runs, size_t n)
{
	/* 1. Wait (bounded, each run by its own bound) for every canary and deallocation
	 *    record, draining every reader meanwhile. */
	long long t_wait = hk_now_ms();
	hk_autofree struct pollfd *p = hk_xcalloc(n ? n : 1, sizeof(*p));
	hk_autofree bool *waiting = hk_xcalloc(n ? n : 1, sizeof(*waiting));
	for (size_t i = 0; i < n; i++)
		waiting[i] = runs[i]->pending != NULL;
	for (;;) {
		long long waited = hk_now_ms() - t_wait;
		long long next = -1; /* ms until the nearest bound */
		for (size_t i = 0; i < n; i++) {
			struct hk_cage_result *r = runs[i];
			if (!waiting[i])
				continue;
			if (!awaits_records(r)) {
				waiting[i] = false;
				r->ms_dealloc_wait = waited;
				continue;
			}
			bool canary = hk_evidence_canary_seen(&r->evidence);
			long long bound = canary ? DEALLOC_TIMEOUT_MS : CANARY_LATE_TIMEOUT_MS;
			if (waited >= bound) {
				if (canary)
					r->dealloc_timed_out = true;
				waiting[i] = false;
				r->ms_dealloc_wait = waited;
				continue;
			}
			if (next < 0 || bound - waited < next)
				next = bound - waited;
		}
		if (next < 0)
			break;
		for (size_t i = 0; i < n; i++)
			p[i] = (struct pollfd){ runs[i]->pending ? runs[i]->pending->out.fd : -1,
						POLLIN, 0 };
		poll(p, (nfds_t)n, (int)next);
		for (size_t i = 0; i < n; i++) {
			if (p[i].revents && runs[i]->pending)
				reader_drain(runs[i]->pending, runs[i]);
			settle(runs[i]);
		}
	}

	/* 2. Stop the readers: each answers with a final status (the lost counter after the
	 *    run).  All are asked first, so that they answer together (those whose records
	 *    were complete earlier were asked then, by settle()). */
	long long t_stop = hk_now_ms();
	for (size_t i = 0; i < n; i++) {
		struct hk_cage_reader *rd = runs[i]->pending;
		if (rd && rd->in_fd >= 0) {
			close(rd->in_fd);
			rd->in_fd = -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct hk_cage_result *r = runs[i];
		struct hk_cage_reader *rd = r->pending;
		if (!rd)
			continue;
		if (rd->pid > 0) {
			long long deadline = hk_now_ms() + READER_END_TIMEOUT_MS;
			while (rd->out.fd >= 0 && hk_now_ms() < deadline) {
				struct pollfd q = { rd->out.fd, POLLIN, 0 };
				poll(&q, 1, 100);
				reader_drain(rd, r);
			}
			if (!rd->ended) {
				r->reader_failed = true;
				if (!r->reader_error)
					r->reader_error = hk_xstrdup("the audit reader stopped before the "
								     "run ended (killed or crashed)");
			}
		}
		reader_kill(r);
		r->ms_reader_stop = hk_now_ms() - t_stop;
		r->ms_total += r->ms_dealloc_wait + r->ms_reader_stop;
	}
}

static long long cpu_ms(const struct rusage *ru)
{
	return ((long long)ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000 +
	       ((long long)ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
}

/* Starts this run's reader (when evidence is asked), unless one was started ahead for it, and
 * waits, bounded, for its "ready".  A reader started ahead may have announced it long ago: its
 * "ready" (and anything it forwarded since) waits in its pipe. */
static void start_reader(const struct hk_cage_opts *o, struct hk_cage_result *r,
			 struct hk_cage_reader *rd, long long t_run)
{
	if (!o->evidence)
		return;
	if (rd->pid > 0) {
		r->ms_reader_ahead = t_run - rd->t_started;
	} else {
		struct hk_error re;
		if (reader_start(o->reader_may_enable, o->backlog_floor, rd, &re) < 0) {
			r->reader_failed = true;
			r->reader_error = hk_xstrdup(re.msg);
			return;
		}
	}
	r->reader_started = true;
	long long deadline = hk_now_ms() + READER_READY_TIMEOUT_MS;
	while (!r->reader_ready && rd->out.fd >= 0) {
		long long left = deadline - hk_now_ms();
		if (left <= 0)
			break;
		struct pollfd p = { rd->out.fd, POLLIN, 0 };
		poll(&p, 1, (int)left);
		reader_drain(rd, r);
	}
	if (!r->reader_ready) {
		r->reader_failed = true;
		if (!r->reader_error)
			r->reader_error = hk_xstrdup(rd->out.fd < 0
							     ? "the audit reader exited before it was ready"
							     : "the audit reader did not become ready in time");
	}
}

/* In the forked child: the command's session, its status descriptor, its user and directory,
 * then the exec.  Never returns. */
static void exec_command(const struct hk_cage_opts *o, int status_w,
			 const struct hk_cage_reader *rd) __attribute__((noreturn));
static void exec_command(const struct hk_cage_opts *o, int status_w,
			 const struct hk_cage_reader *rd)
{
	if (rd->in_fd >= 0)
		close(rd->in_fd);
	/* A new session: the caged command gets no controlling terminal to inject into
	 * (TIOCSTI, kernel-facts.md §11), and we can signal its whole group. */
	setsid();
	if (status_w == o->status_fd) {
		fcntl(status_w, F_SETFD, 0);
	} else {
		dup2(status_w, o->status_fd);
		close(status_w);
	}
	if (o->as_user) {
		if (setgroups(0, NULL) < 0 || setgid(o->gid) < 0 || setuid(o->uid) < 0) {
			char m[256];
			snprintf(m, sizeof(m), "cannot switch to uid %u: %s", (unsigned)o->uid,
				 strerror(errno));
			child_fail(o->status_fd, "user", m);
		}
	}
	if (o->chdir_to && chdir(o->chdir_to) < 0) {
		char m[512];
		snprintf(m, sizeof(m), "cannot enter %s: %s", o->chdir_to, strerror(errno));
		child_fail(o->status_fd, "exec", m);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (o->envp)
		execve(o->argv[0], o->argv, o->envp);
	else
		execv(o->argv[0], o->argv);
	char m[512];
	snprintf(m, sizeof(m), "cannot execute %s: %s", o->argv[0], strerror(errno));
	child_fail(o->status_fd, "exec", m);
}

/* A status channel that failed to read loses the end of harkaq-exec's report: the report is
 * not taken as given, and the run is one whose cage never reported. */
static void status_read(struct hk_cage_result *r, struct hk_linereader *status)
{
	if (hk_linereader_fill(status) < 0)
		r->status_lost = true;
}

static void status_drain(struct hk_cage_result *r, struct hk_linereader *status)
{
	status_read(r, status);
	char *line;
	while (hk_linereader_next(status, &line)) {
		status_line(r, line);
		free(line);
	}
}

/* Until the command exits: its status lines, this run's reader and the deferred runs'
 * readers drained as they come, the time limit enforced. */
static bool supervise(const struct hk_cage_opts *o, struct hk_cage_result *r,
		      struct hk_cage_reader *rd, pid_t child, struct hk_linereader *status,
		      long long t_cmd)
{
	bool exited = false;
	int pfd = hk_sys_pidfd_open(child);
	long long kill_at = o->timeout_s > 0 ? t_cmd + (long long)o->timeout_s * 1000 : 0;
	hk_autofree struct pollfd *p = hk_xcalloc(3 + o->n_drain, sizeof(*p));
	for (;;) {
		int n = 0;
		p[n++] = (struct pollfd){ pfd, POLLIN, 0 };
		int i_status = -1, i_reader = -1;
		if (status->fd >= 0) {
			i_status = n;
			p[n++] = (struct pollfd){ status->fd, POLLIN, 0 };
		}
		if (rd->out.fd >= 0) {
			i_reader = n;
			p[n++] = (struct pollfd){ rd->out.fd, POLLIN, 0 };
		}
		int i_drain = n;
		for (size_t k = 0; k < o->n_drain; k++) {
			const struct hk_cage_reader *dr = o->drain[k]->pending;
			p[n++] = (struct pollfd){ dr ? dr->out.fd : -1, POLLIN, 0 };
		}
		int timeout = 1000;
		if (kill_at) {
			long long left = kill_at - hk_now_ms();
			if (left <= 0) {
				r->timed_out = true;
				kill(-child, SIGKILL);
				kill(child, SIGKILL);
				kill_at = 0;
				left = 0;
			}
			if (left < timeout)
				timeout = (int)left;
		}
		if (pfd < 0)
			timeout = 20; /* no pidfd: poll the child */
		int pr = poll(p, (nfds_t)n, timeout);
		if (pr < 0 && errno != EINTR)
			break;
		if (i_status >= 0 && p[i_status].revents)
			status_drain(r, status);
		if (i_reader >= 0 && p[i_reader].revents)
			reader_drain(rd, r);
		for (size_t k = 0; k < o->n_drain; k++) {
			if (p[i_drain + (int)k].revents && o->drain[k]->pending)
				reader_drain(o->drain[k]->pending, o->drain[k]);
			settle(o->drain[k]);
		}
		int ws;
		if (waitpid(child, &ws, WNOHANG) == child) {
			r->wait_status = ws;
			exited = true;
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return exited;
}

/* Whatever the command left running holds the domain (and would hold the deallocation record
 * back forever): kill it, and say so in the result.  The readers (this run's, and the
 * deferred runs' still running) are not the command's. */
static void kill_leftovers(const struct hk_cage_opts *o, struct hk_cage_result *r,
			   const struct hk_cage_reader *rd)
{
	hk_autofree pid_t *keep = hk_xcalloc((1 + o->n_drain) * READER_GROUP_MAX, sizeof(*keep));
	size_t n_keep = reader_group(rd->pid, keep);
	for (size_t k = 0; k < o->n_drain; k++)
		if (o->drain[k]->pending)
			n_keep += reader_group(o->drain[k]->pending->pid, keep + n_keep);
	r->leftovers_killed += hk_kill_descendants(keep, n_keep);
}

/* The status pipe after the command: the rest of it (the cage may have written its last line
 * late), bounded. */
static void read_status_rest(struct hk_cage_result *r, struct hk_linereader *status)
{
	long long t_drain = hk_now_ms();
	for (int i = 0; i < 50 && status->fd >= 0; i++) {
		struct pollfd sp = { status->fd, POLLIN, 0 };
		if (poll(&sp, 1, 10) <= 0)
			break;
		status_read(r, status);
	}
	char *line;
	while (hk_linereader_next(status, &line)) {
		status_line(r, line);
		free(line);
	}
	hk_linereader_close(status);
	if (r->status_lost)
		r->cage_reported = false;
	r->ms_status_drain = hk_now_ms() - t_drain;
}

int hk_cage_run(const struct hk_cage_opts *o, struct hk_cage_result *r, struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	/* A signal forwarded to an earlier run of this process (a previous phase) is not this
	 * run's. */
	r->abi = r->real_abi = -1;
	r->lost_before = r->lost_after = -1;
	r->ms_reader_ahead = -1;
	hk_evidence_init(&r->evidence, o->canary_path);
	long long t0 = hk_now_ms();

	/* A reader started ahead is this run's, unless the run gathers no evidence. */
	struct hk_cage_reader *rd = o->reader;
	if (rd && !o->evidence) {
		reader_free(rd);
		rd = NULL;
	}
	if (!rd)
		rd = reader_new();
	/* From here on, the reader belongs to the result: every return below either finishes
	 * it or leaves it to hk_cage_finish() / hk_cage_result_free(). */
	r->pending = rd;

	/* Orphans of the caged command must become our children, so that nothing it started
	 * outlives the run unseen (and keeps the domain, hence its deallocation, alive). */
	int sub = hk_sys_become_subreaper();
	if (sub < 0) {
		reader_kill(r);
		return hk_fail_errno(err, -sub, "cannot become the child subreaper "
						"(PR_SET_CHILD_SUBREAPER), so what the command starts "
						"could outlive the run; the command was not run");
	}
	start_reader(o, r, rd, t0);
	r->ms_reader_start = hk_now_ms() - t0;
	if (o->require_evidence && (!r->reader_ready || !r->audit_confirmed)) {
		reader_kill(r);
		return hk_fail(err, EPERM, "evidence was required but cannot be established (%s); "
					   "the command was not run",
			       r->reader_error ? r->reader_error : "audit is not confirmed enabled");
	}

	int st[2];
	if (pipe2(st, O_CLOEXEC) < 0) {
		int e = errno;
		reader_kill(r);
		return hk_fail_errno(err, e, "status pipe");
	}
	long long t_cmd = hk_now_ms();
	struct rusage ru_before;
	getrusage(RUSAGE_CHILDREN, &ru_before);
	/* harkaq run: the command under an init of its own namespaces (sys/nsinit.h); a build's
	 * bubblewrap makes them itself. */
	int ns_report = -1;
	pid_t child = o->namespaces
			      ? hk_nsinit_fork(o->namespaces, st[1], child_fail, &ns_report, err)
			      : fork();
	if (child < 0) {
		int rc = o->namespaces ? child : hk_fail_errno(err, errno, "fork");
		close(st[0]);
		close(st[1]);
		reader_kill(r);
		return rc;
	}
	if (child == 0) {
		close(st[0]);
		exec_command(o, st[1], rd);
	}
	close(st[1]);
	r->started = true;
	r->namespaces = o->namespaces;
	/* The process's interrupt context passes SIGINT/TERM/HUP to the command's group. */
	hk_interrupt_forward_to(child);

	struct hk_linereader status;
	hk_linereader_init(&status, st[0]);
	bool exited = supervise(o, r, rd, child, &status, t_cmd);
	hk_interrupt_forward_to(0);
	r->ms_command = hk_now_ms() - t_cmd;
	/* Through an init, its exit is the command's, and what it killed the command's leftovers. */
	if (exited)
		hk_nsinit_report(ns_report, r->wait_status, &r->wait_status, &r->leftovers_killed);
	else if (ns_report >= 0)
		close(ns_report);
	r->exit_code = WIFEXITED(r->wait_status) ? WEXITSTATUS(r->wait_status)
						  : 128 + WTERMSIG(r->wait_status);
	kill_leftovers(o, r, rd);
	/* Every process of the command is reaped by now (bubblewrap's pid 1 reaps the sandbox's,
	 * and is reaped above); the readers are not (they are kept). */
	struct rusage ru_after;
	getrusage(RUSAGE_CHILDREN, &ru_after);
	r->ms_command_cpu = cpu_ms(&ru_after) - cpu_ms(&ru_before);
	read_status_rest(r, &status);

	/* The deallocation record, now or later (defer_evidence: while the next phase runs). */
	r->ms_total = hk_now_ms() - t0;
	if (!o->defer_evidence)
		hk_cage_finish(&r, 1); /* adds its own time to ms_total */
	else
		r->deferred = rd->pid > 0;
	r->interrupted_by = hk_interrupted();
	if (hk_interrupted())
		return hk_fail_interrupted(err, hk_interrupted(),
					   "interrupted by signal %d (the command was stopped)",
					   hk_interrupted());
	return 0;
}

void hk_cage_timing_json(const struct hk_cage_result *r, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "reader_start");
	hk_json_int(j, r->ms_reader_start);
	hk_json_key(j, "reader_ahead");
	if (r->ms_reader_ahead >= 0)
		hk_json_int(j, r->ms_reader_ahead);
	else
		hk_json_null(j);
	hk_json_key(j, "command");
	hk_json_int(j, r->ms_command);
	hk_json_key(j, "status_drain");
	hk_json_int(j, r->ms_status_drain);
	hk_json_key(j, "dealloc_wait");
	hk_json_int(j, r->ms_dealloc_wait);
	hk_json_key(j, "reader_stop");
	hk_json_int(j, r->ms_reader_stop);
	hk_json_key(j, "total");
	hk_json_int(j, r->ms_total);
	hk_json_key(j, "command_cpu");
	hk_json_int(j, r->ms_command_cpu);
	/* Part of "command": the cage's own set-up before the command's execve. */
	hk_json_key(j, "cage_setup");
	if (r->cage_reported)
		hk_cage_report_setup_json(&r->cage, j);
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

bool hk_cage_failed(const struct hk_cage_result *r)
{
	return hk_phase_failed(r->exit_code, r->timed_out);
}

void hk_cage_result_free(struct hk_cage_result *r)
{
	reader_kill(r);
	if (r->cage_reported)
		hk_cage_report_free(&r->cage);
	free(r->cage_error);
	free(r->cage_error_layer);
	free(r->reader_error);
	hk_evidence_free(&r->evidence);
	memset(r, 0, sizeof(*r));
}

/* Whether any grant covers `path` (is it, or an ancestor of it).  Stricter than
 * hk_policy_grants_read: an ro or list grant on an ancestor directory is avoided too, so the
 * canary's place never depends on how a directory grant is interpreted. */
static bool any_grant_covers(const struct hk_policy *policy, const char *path)
{
	size_t plen = strlen(path);
	for (size_t i = 0; i < policy->n_grants; i++) {
		const char *g = policy->grants[i].path;
		size_t glen = strlen(g);
		if (policy->grants[i].kind == HK_GRANT_LIST)
			continue; /* listing is not reading */
		if (glen == 1 && g[0] == '/')
			return true;
		if (glen <= plen && memcmp(g, path, glen) == 0 && (path[glen] == '/' || path[glen] == '\0'))
			return true;
	}
	return false;
}

int hk_canary_create(const struct hk_policy *policy, char **path, char **dir, struct hk_error *err)
{
	static const char *const bases[] = { "/var/tmp", "/tmp", "/dev/shm", "/run" };
	char nonce[33];
	int r = hk_random_hex(nonce, 16, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < HK_ARRAY_LEN(bases); i++) {
		char *d = hk_xasprintf("%s/harkaq-canary-%s", bases[i], nonce);
		char *p = hk_xasprintf("%s/canary-%s", d, nonce);
		if (hk_policy_grants_read(policy, p) || any_grant_covers(policy, d)) {
			free(d);
			free(p);
			continue;
		}
		if (mkdir(d, 0755) < 0) {
			free(d);
			free(p);
			continue;
		}
		/* World-readable: what DAC blocks never reaches Landlock, and a canary blocked by
		 * DAC would be a silent zero (design.md §13). */
		if (chmod(d, 0755) < 0) {
			rmdir(d);
			free(d);
			free(p);
			continue;
		}
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			rmdir(d);
			free(d);
			free(p);
			continue;
		}
		/* 0644 whatever the umask: readable by the user the command runs as. */
		static const char body[] = "harkaq canary: reading this file means the cage is open\n";
		ssize_t w = fchmod(fd, 0644) < 0 ? -1 : write(fd, body, sizeof(body) - 1);
		close(fd);
		if (w != (ssize_t)(sizeof(body) - 1)) {
			unlink(p);
			rmdir(d);
			free(d);
			free(p);
			continue;
		}
		*path = p;
		*dir = d;
		return 0;
	}
	return hk_fail(err, EACCES, "no place for the canary: the policy lets the cage read every "
				    "candidate directory (/var/tmp, /tmp, /dev/shm, /run)");
}

void hk_canary_remove(const char *path, const char *dir)
{
	if (path)
		unlink(path);
	if (dir)
		rmdir(dir);
}
