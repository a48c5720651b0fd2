/* harkaq-audit: the privileged audit reader on the host (design.md §2, §6; docs/audit-reader.md).
 *
 * It confirms that audit is on (switching it on when allowed), raises the kernel's backlog
 * limit, subscribes to the audit multicast group, drops every privilege except CAP_AUDIT_READ,
 * announces readiness, and then forwards Landlock records (and the SYSCALL/PROCTITLE records
 * of the same events) to stdout as JSON lines, until stdin reaches EOF or SIGTERM/SIGINT.
 * It does not classify anything: classification is policy, not privilege (design.md §2).
 *
 * Privilege separation: the kernel answers AUDIT_GET only to a task holding
 * CAP_AUDIT_CONTROL at the time of the request, and the closing report needs one (the `lost`
 * counter).  So before dropping privileges the reader forks a *status sentinel* that keeps
 * only CAP_AUDIT_CONTROL and the control socket, reads one byte per request from a pipe and
 * answers with an AUDIT_GET — nothing else.  The reader itself keeps only CAP_AUDIT_READ.
 *
 * Its caller is not trusted (docs/audit-reader.md, "Threat model"): installed with file
 * capabilities, the reader is run by any member of its group.  So it starts from a known state
 * whatever it inherits (descriptors, environment, umask, signals), bounds its arguments, its
 * memory and its lifetime, never writes anywhere but stdout and stderr, and hands a caller
 * other than root only the records of that caller's own domains (filter.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/basic/util.h"
#include "sys/auditnl.h"
#include "sys/caps.h"
#include "sys/proc.h"

/* Bounds on what a caller hands over: more arguments than every option once, or a longer one
 * than any number needs, is an error, said before anything else is done. */
#define MAX_ARGS 16
#define MAX_ARG_LEN 64
/* How far a caller other than root may raise the kernel's audit backlog: eight times the
 * default floor.  The backlog is kernel memory shared by the machine. */
#define USER_BACKLOG_MAX 65536
/* A reader of a caller other than root ends after this long ("lifetime limit"), and a timer
 * kills it a minute later should it be stuck (a caller that never reads its output).  A
 * phase whose reader ended before its records came is NoEvidence, never Hermetic. */
#define USER_LIFETIME_S (72 * 60 * 60)

struct options {
	bool enable_allowed;
	uint32_t backlog_floor;
	int rcvbuf;
	bool forward_all;
	bool status_only;
};

/* The caller: its real uid, as the kernel set it (the environment and arguments are the
 * caller's to choose, the real uid is not).  Root reads every record; anyone else its own.
 * The uid is the one the audit records name only in the initial user namespace (elsewhere a
 * mapped "0" is some user's uid), so root is uid 0 there and nowhere else. */
struct caller {
	uid_t uid;
	bool root;
	int initial_userns;         /* hk_sys_in_initial_userns() */
};

/* ---- start-up: confirm audit, raise the backlog ---- */

struct change {
	enum hk_audit_setting setting;
	uint32_t from, to;
};

struct startup {
	struct hk_audit_ctl ctl;
	bool have_status;
	struct hk_audit_status st;   /* the most recent fresh AUDIT_GET */
	bool confirmed;
	char reason[HK_ERROR_MSG_MAX]; /* why not confirmed */
	struct change changes[2];
	int n_changes;
};

/* Sets one setting and reads the status back: the change counts only as the kernel reports it
 * afterwards. */
static int set_and_confirm(struct startup *s, enum hk_audit_setting setting, uint32_t value,
			   struct hk_error *err)
{
	uint32_t from = hk_audit_status_value(&s->st, setting);
	if (hk_audit_set(&s->ctl, setting, value, NULL, err) < 0)
		return -err->code;
	struct hk_audit_status fresh;
	if (hk_audit_get(&s->ctl, &fresh, err) < 0) {
		s->have_status = false;
		return hk_wrap(err, "confirming %s=%u", hk_audit_setting_name(setting), value);
	}
	s->st = fresh;
	uint32_t now = hk_audit_status_value(&fresh, setting);
	if (now != from && s->n_changes < (int)HK_ARRAY_LEN(s->changes))
		s->changes[s->n_changes++] = (struct change){ setting, from, now };
	if (now != value)
		return hk_fail(err, EIO, "AUDIT_SET %s=%u was accepted, but AUDIT_GET then reports "
					 "%s=%u", hk_audit_setting_name(setting), value,
			       hk_audit_setting_name(setting), now);
	return 0;
}

static void not_confirmed(struct startup *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void not_confirmed(struct startup *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

static void startup_run(struct startup *s, const struct options *opt, struct out *o)
{
	struct hk_error err;
	hk_error_clear(&err);
	s->ctl = (struct hk_audit_ctl)HK_AUDIT_CTL_INIT;

	if (hk_audit_ctl_open(&s->ctl, &err) < 0) {
		not_confirmed(s, "%s", err.msg);
		return;
	}
	if (hk_audit_get(&s->ctl, &s->st, &err) < 0) {
		not_confirmed(s, "audit status unknown: %s", err.msg);
		return;
	}
	s->have_status = true;

	if (!hk_audit_status_on(&s->st)) {
		if (!opt->enable_allowed) {
			not_confirmed(s, "audit is off (enabled=%u) and --no-enable forbids switching "
					 "it on", s->st.enabled);
		} else if (set_and_confirm(s, HK_AUDIT_SET_ENABLED, 1, &err) < 0) {
			not_confirmed(s, "audit could not be switched on: %s", err.msg);
		}
	}

	if (s->have_status && opt->backlog_floor > 0 &&
	    s->st.backlog_limit < opt->backlog_floor) {
		/* Not a condition of confirmation: the loss check (denials=N) still catches what
		 * a small backlog drops; but say so. */
		if (set_and_confirm(s, HK_AUDIT_SET_BACKLOG_LIMIT, opt->backlog_floor, &err) < 0) {
			hk_wrap(&err, "raising backlog_limit to the floor %u", opt->backlog_floor);
			emit_message(o, HK_READER_WARNING, err.msg);
		}
	}

	s->confirmed = s->have_status && hk_audit_status_on(&s->st);
	if (!s->confirmed && s->reason[0] == '\0')
		not_confirmed(s, "%s", "audit status unknown after a change");
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: harkaq-audit [--no-enable] [--backlog-floor N] [--rcvbuf BYTES] [--all]\n"
		"       harkaq-audit --status\n"
		"\n"
		"The privileged audit reader of harkaq.  Confirms that audit is on (switching it on\n"
		"unless --no-enable), raises the audit backlog limit to a floor, subscribes to the\n"
		"audit multicast group, keeps only CAP_AUDIT_READ, prints a \"ready\" line and then one\n"
		"JSON line per Landlock record (1423, 1424, and the SYSCALL and PROCTITLE records of\n"
		"the same events) until stdin reaches EOF or SIGTERM/SIGINT arrives, closing with an\n"
		"\"end\" line.  The protocol is described in docs/audit-reader.md.\n"
		"\n"
		"options:\n"
		"  --no-enable        never switch audit on; if it is off, ready says confirmed:false\n"
		"  --backlog-floor N  raise the kernel's backlog_limit to at least N (default 8192,\n"
		"                     0 leaves it alone)\n"
		"  --rcvbuf BYTES     receive buffer to ask for (default %d)\n"
		"  --all              forward every record type (debugging; root only)\n"
		"  --status           print whether this caller's runs would have evidence (the\n"
		"                     capabilities, the audit status) as one JSON line and exit\n"
		"  --help             this text\n"
		"\n"
		"A caller other than root receives only the records of its own Landlock domains, may\n"
		"not use --all, and may raise the backlog to %d at most.\n"
		"\n"
		"exit status: 0 success, 64 usage error, 70 environment error, 77 refused to this\n"
		"caller (an \"error\" line says why)\n",
		HK_AUDIT_DEFAULT_RCVBUF, USER_BACKLOG_MAX);
}

static int usage_error(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(struct out *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit_message(o, HK_READER_ERROR, msg);
	out_flush(o);
	fprintf(stderr, "harkaq-audit: %s (see --help)\n", msg);
	return EXIT_USAGE;
}

static int refused(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refused(struct out *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit_message(o, HK_READER_ERROR, msg);
	out_flush(o);
	fprintf(stderr, "harkaq-audit: %s\n", msg);
	return EXIT_REFUSED;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int fail_env(struct out *o, const struct hk_error *err)
{
	emit_message(o, HK_READER_ERROR, err->msg);
	out_flush(o);
	fprintf(stderr, "harkaq-audit: %s\n", err->msg);
	return EXIT_FAILURE_ENV;
}

/* A known state, whatever the caller left: descriptors 0-2 exist (before any socket is made,
 * or a socket could become "stdout") and no other is inherited; no environment (nothing here
 * reads it, and the C library's secure mode must not be the only guard); a fixed umask;
 * default signal dispositions and an empty signal mask (an ignored SIGTERM would never reach
 * the signalfd); no core dump and no ptrace by the caller's uid (the reader's memory holds
 * other users' records).  Returns 0 or -errno of the one step that can fail. */
static int sanitize(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
	if (close_range(3, ~0U, 0) != 0) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	clearenv();
	umask(077);
	static const int reset[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGALRM, SIGCHLD };
	for (size_t i = 0; i < HK_ARRAY_LEN(reset); i++)
		signal(reset[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return hk_sys_forbid_dumps();
}

/* Why this process cannot join the audit group, beyond the kernel's EPERM: the reasons seen
 * on real machines, each with what fixes it. */
static void explain_no_read(struct hk_error *err)
{
	int ns = hk_sys_in_initial_userns();
	struct hk_caps caps;
	bool have = hk_caps_get(&caps) == 0 && hk_caps_has(caps.permitted, HK_CAP_AUDIT_READ);
	if (ns == 0)
		hk_wrap(err, "it runs inside a user namespace, where its capabilities do "
			     "not count: start it from the initial one (outside containers and "
			     "unshare)");
	else if (!have && hk_no_new_privs_get() == 1)
		hk_wrap(err, "no_new_privs was set by the caller, so harkaq-audit's file "
			     "capabilities were not granted");
	else if (!have && getuid() != 0)
		hk_wrap(err, "harkaq-audit has no file capability CAP_AUDIT_READ (setcap "
			     "cap_audit_read,cap_audit_control+ep on it, as its package does), or "
			     "its file system is mounted nosuid");
}

/* --status: would a run of this caller have evidence?  Each half is tried for real: joining
 * the audit group (CAP_AUDIT_READ) and AUDIT_GET (CAP_AUDIT_CONTROL, which also switches audit
 * on when it is off).  A report, not an error: exit 0 whatever it says. */
static int cmd_status(struct out *o, const struct caller *c)
{
	struct hk_error rerr, cerr;
	hk_error_clear(&rerr);
	hk_error_clear(&cerr);
	struct hk_reader_line l = {
		.event = HK_READER_STATUS,
		.caller_uid = c->uid,
		.filtered = !c->root,
	};
	struct hk_audit_sub sub = HK_AUDIT_SUB_INIT;
	if (hk_audit_sub_open(&sub, 0, &rerr) == 0) {
		l.can_read = true;
		l.rcvbuf = sub.rcvbuf;
		hk_audit_sub_close(&sub);
	} else {
		if (rerr.code == EPERM)
			explain_no_read(&rerr);
		l.read_error = rerr.msg;
	}
	if (hk_audit_query_status(&l.audit, &cerr) == 0) {
		l.can_control = l.has_audit = true;
		l.confirmed = hk_audit_status_on(&l.audit);
		l.switchable = !l.confirmed;
	} else {
		l.audit_error = cerr.msg;
	}
	l.initial_userns = c->initial_userns < 0 ? -1 : c->initial_userns;
	l.evidence = l.can_read && (l.confirmed || l.switchable);
	char reason[2 * HK_ERROR_MSG_MAX + 64];
	if (!l.can_read)
		snprintf(reason, sizeof(reason), "the reader cannot read the audit stream: %s",
			 rerr.msg);
	else if (!l.can_control)
		snprintf(reason, sizeof(reason), "the reader cannot confirm that audit is on: %s",
			 cerr.msg);
	else
		reason[0] = '\0';
	l.text_reason = reason;
	out_line(o, &l);
	out_flush(o);
	return o->broken ? EXIT_FAILURE_ENV : EXIT_OK;
}

static int parse_options(int argc, char **argv, const struct caller *c, struct options *opt,
			 struct out *o, bool *done)
{
	static const struct option longopts[] = {
		{ "no-enable", no_argument, NULL, 'n' },
		{ "backlog-floor", required_argument, NULL, 'b' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "status", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*done = false;
	if (argc > MAX_ARGS)
		return usage_error(o, "%d arguments: at most %d are taken", argc - 1, MAX_ARGS - 1);
	for (int i = 1; i < argc; i++)
		if (strnlen(argv[i], MAX_ARG_LEN + 1) > MAX_ARG_LEN)
			return usage_error(o, "argument %d is longer than %d bytes ('%.24s…')", i,
					   MAX_ARG_LEN, argv[i]);
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint32_t v;
		switch (ch) {
		case 'n':
			opt->enable_allowed = false;
			break;
		case 'b':
			if (!parse_u32(optarg, &v))
				return usage_error(o, "--backlog-floor: '%s' is not a number from 0 "
						      "to 4294967295", optarg);
			opt->backlog_floor = v;
			break;
		case 'r':
			/* The kernel doubles the request and keeps it in an int. */
			if (!parse_u32(optarg, &v) || v == 0 || v > INT_MAX / 2)
				return usage_error(o, "--rcvbuf: '%s' is not a size from 1 to "
						      "1073741823 bytes", optarg);
			opt->rcvbuf = (int)v;
			break;
		case 'a':
			opt->forward_all = true;
			break;
		case 's':
			opt->status_only = true;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return EXIT_OK;
		default:
			return usage_error(o, "unknown option or missing value: '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error(o, "unexpected argument '%s'", argv[optind]);
	if (c->root)
		return EXIT_OK;
	if (opt->forward_all)
		return refused(o, "--all hands over every audit record, other users' too: only root "
				  "may ask for it (uid %u may not)", (unsigned)c->uid);
	if (opt->backlog_floor > USER_BACKLOG_MAX)
		return refused(o, "--backlog-floor %u: a caller other than root may raise the audit "
				  "backlog to %d at most", opt->backlog_floor, USER_BACKLOG_MAX);
	return EXIT_OK;
}

static int run(struct out *o, int argc, char **argv)
{
	struct options opt = { true, 8192, HK_AUDIT_DEFAULT_RCVBUF, false, false };
	struct hk_error err;
	hk_error_clear(&err);

	int sane = sanitize();
	int ns = hk_sys_in_initial_userns();
	const struct caller caller = { getuid(), getuid() == 0 && ns == 1, ns };
	bool done;
	int rc = parse_options(argc, argv, &caller, &opt, o, &done);
	if (rc != EXIT_OK || done)
		return rc;
	if (sane < 0) {
		hk_fail_errno(&err, -sane, "forbidding core dumps and ptrace (PR_SET_DUMPABLE)");
		return fail_env(o, &err);
	}
	/* A vanished orchestrator must show as a write error, not kill the reader mid-line. */
	signal(SIGPIPE, SIG_IGN);
	if (opt.status_only)
		return cmd_status(o, &caller);
	if (caller.initial_userns != 1) {
		/* Its capabilities would not count there, and the uids it would compare are not
		 * the ones the records name. */
		if (ns < 0)
			hk_fail_errno(&err, -ns, "cannot tell whether harkaq-audit runs in the initial "
						 "user namespace (/proc/self/uid_map)");
		else
			hk_fail(&err, EPERM, "it runs inside a user namespace, where its "
					     "capabilities do not count: start it from the initial "
					     "one (outside containers and unshare)");
		return fail_env(o, &err);
	}
	if (!caller.root)
		alarm(USER_LIFETIME_S + 60);

	/* Signals become readable events, so the loop stops between two records, never inside
	 * one. */
	sigset_t stop_signals;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
		hk_fail_errno(&err, errno, "blocking SIGTERM and SIGINT");
		return fail_env(o, &err);
	}
	int sigfd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
	if (sigfd < 0) {
		hk_fail_errno(&err, errno, "signalfd");
		return fail_env(o, &err);
	}

	/* Subscribed before "ready", so every record of a build started after it is queued; and
	 * before any setting is touched, so a reader that cannot read changes nothing. */
	struct reader r;
	memset(&r, 0, sizeof(r));
	r.out = o;
	r.sub = (struct hk_audit_sub)HK_AUDIT_SUB_INIT;
	if (hk_audit_sub_open(&r.sub, opt.rcvbuf, &err) < 0) {
		if (err.code == EPERM)
			explain_no_read(&err);
		return fail_env(o, &err);
	}
	filter_init(&r.filter, !caller.root, caller.uid, opt.forward_all, out_record, o);
	if (!caller.root) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		r.deadline_ms = ((int64_t)now.tv_sec + USER_LIFETIME_S) * 1000 + now.tv_nsec / 1000000;
	}

	struct startup s;
	memset(&s, 0, sizeof(s));
	startup_run(&s, &opt, o);

	struct sentinel sentinel = { -1, -1, -1 };
	if (s.have_status && sentinel_start(&sentinel, &s.ctl, STDERR_FILENO, &err) < 0) {
		emit_message(o, HK_READER_WARNING, err.msg);
		hk_error_clear(&err);
	}
	hk_audit_ctl_close(&s.ctl);

	struct hk_reader_privileges priv;
	if (drop_privileges(1ULL << HK_CAP_AUDIT_READ, &priv, &err) < 0) {
		hk_wrap(&err, "dropping privileges");
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		return fail_env(o, &err);
	}

	struct hk_reader_line ready = {
		.event = HK_READER_READY,
		.confirmed = s.confirmed,
		.has_audit = s.have_status,
		.audit = s.st,
		.rcvbuf = r.sub.rcvbuf,
		.rcvbuf_forced = r.sub.rcvbuf_forced,
		.privileges = priv,
		.caller_uid = caller.uid,
		.filtered = !caller.root,
		.text_reason = s.reason,
	};
	for (int i = 0; i < s.n_changes && ready.n_changed < HK_READER_MAX_CHANGES; i++) {
		struct hk_audit_change *c = &ready.changed[ready.n_changed++];
		snprintf(c->field, sizeof(c->field), "%s", hk_audit_setting_name(s.changes[i].setting));
		c->from = s.changes[i].from;
		c->to = s.changes[i].to;
	}
	out_line(o, &ready);
	out_flush(o);

	int loop_rc = 0;
	const char *why = run_loop(&r, sigfd, &err, &loop_rc);
	if (loop_rc < 0) {
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		filter_free(&r.filter);
		return fail_env(o, &err);
	}
	if (o->broken) {
		fprintf(stderr, "harkaq-audit: stopping: cannot write to stdout: %s\n",
			strerror(o->write_errno));
		sentinel_stop(&sentinel);
		hk_audit_sub_close(&r.sub);
		filter_free(&r.filter);
		return EXIT_FAILURE_ENV;
	}
	/* What was queued before the stop is still forwarded. */
	if (drain(&r, &err) < 0) {
		emit_message(o, HK_READER_WARNING, err.msg);
		hk_error_clear(&err);
	}
	filter_finish(&r.filter);

	struct hk_audit_status final_st = { 0 };
	int final_rc = sentinel_get(&sentinel, &final_st, &err);
	sentinel_stop(&sentinel);

	const struct hk_reader_line end = {
		.event = HK_READER_END,
		.text_reason = (char *)(uintptr_t)why,
		.has_audit = final_rc == 0,
		.audit = final_st,
		.audit_error = final_rc < 0 ? err.msg : NULL,
		.enobufs = r.sub.enobufs,
		.records_received = r.received,
		.records_forwarded = r.filter.forwarded,
		.foreign = r.sub.foreign,
		.withheld = r.filter.withheld,
		.evicted = r.filter.evicted,
		.untracked = r.filter.untracked,
	};
	out_line(o, &end);
	out_flush(o);

	filter_free(&r.filter);
	hk_audit_sub_close(&r.sub);
	close(sigfd);
	return o->broken ? EXIT_FAILURE_ENV : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct out o = { HK_BUF_INIT, false, 0 };
	int rc = run(&o, argc, argv);
	hk_buf_free(&o.buf);
	return rc;
}
