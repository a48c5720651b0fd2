/* hk_exec_cage(): the order of the layers, in one function (minijail style).  Each step says
 * why it sits where it does; the helpers above it do one thing each. */
#include "exec/exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/formats/abi_tier.h"
#include "core/formats/exec_status.h"
#include "core/policy/policy.h"
#include "core/policy/policy_file.h"
#include "core/basic/util.h"
#include "sys/caps.h"
#include "sys/landlock.h"
#include "sys/entrypoints.h"
#include "sys/seccomp.h"

/* Everything the status line reports, gathered as the layers go. */
struct cage_state {
	const struct hk_exec_args *o;
	const struct hk_landlock_probe *probe;
	int abi;                 /* effective */
	enum hk_tier tier;
	bool landlock;           /* a ruleset is installed */
	struct hk_landlock_report ll;
	uint64_t requested_scopes;
	struct hk_seccomp_report sc;
	struct hk_entry_points entry_points; /* which of the filter's arches the kernel offers */
	long closed_fds;         /* -1: unknown (no /proc) */
	bool probe_after_exec;   /* the canary probe runs after the re-exec (else it is skipped) */
	char self[PATH_MAX];
	/* Where the set-up's time went, in ms (reported as "setup_ms"). */
	double ms_policy, ms_rules, ms_restrict, ms_seccomp;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void free_state(struct cage_state *st)
{
	hk_landlock_report_free(&st->ll);
}

/* The names of a right mask, borrowed from sys/landlock.c's tables (the array is the caller's
 * to free, not the names). */
static struct hk_exec_names mask_names(uint64_t mask, bool scopes)
{
	unsigned nbits = scopes ? 2u : (unsigned)HK_LL_FS_NBITS;
	struct hk_exec_names n = { hk_xcalloc(nbits + 1, sizeof(char *)), 0 };
	for (unsigned b = 0; b < nbits; b++)
		if (mask & (1ULL << b))
			n.v[n.n++] = (char *)(uintptr_t)(scopes ? hk_landlock_scope_name(b)
							      : hk_landlock_fs_right_name(b));
	return n;
}

/* The granted paths at the given indices, borrowed from the policy. */
static struct hk_exec_names grant_paths(const struct hk_policy *p, const size_t *idx, size_t n)
{
	struct hk_exec_names out = { hk_xcalloc(n + 1, sizeof(char *)), n };
	for (size_t i = 0; i < n; i++)
		out.v[i] = p->grants[idx[i]].path;
	return out;
}

/* Comma-separated names of a right mask, for the stderr sentences. */
static void names_of(uint64_t mask, bool scopes, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned b = 0; b < (scopes ? 2u : (unsigned)HK_LL_FS_NBITS); b++) {
		if (!(mask & (1ULL << b)))
			continue;
		const char *name = scopes ? hk_landlock_scope_name(b) : hk_landlock_fs_right_name(b);
		int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

static void build_cage_line(const struct cage_state *st, const struct hk_policy *p,
			    struct hk_buf *out)
{
	const bool ll = st->landlock;
	struct hk_exec_event ev = { .kind = HK_EXEC_EVENT_CAGE, .exit_code = -1 };
	struct hk_cage_report *c = &ev.cage;
	c->abi = st->abi;
	c->real_abi = st->probe->abi;
	c->errata = st->probe->errata;
	c->forced = st->o->force_abi >= 0;
	c->tier = st->tier;
	c->handled_fs = mask_names(ll ? st->ll.handled_fs : 0, false);
	c->dropped_fs = mask_names(ll ? st->ll.dropped_fs : HK_LL_FS_ALL, false);
	c->scopes = mask_names(ll ? st->ll.scopes : 0, true);
	c->dropped_scopes = mask_names(ll ? st->ll.dropped_scopes : st->requested_scopes, true);
	c->log_new_exec_on = ll && (st->ll.restrict_flags & HK_LL_RESTRICT_LOG_NEW_EXEC_ON);
	c->log_flag_withheld = ll && st->ll.log_flag_withheld;
	c->tsync = ll && (st->ll.restrict_flags & HK_LL_RESTRICT_TSYNC);
	c->rules = st->ll.rules;
	c->ancestors = st->ll.ancestors;
	c->ro_dirs = st->ll.ro_dirs;
	c->beneath = st->ll.beneath;
	c->covered = st->ll.covered;
	c->declined = st->ll.declined;
	c->ro_sb_truncate = st->ll.ro_sb_truncate;
	c->installers = st->ll.installers;
	c->missing = grant_paths(p, st->ll.missing, st->ll.n_missing);
	c->not_dirs = grant_paths(p, st->ll.not_dirs, st->ll.n_not_dirs);
	c->seccomp_installed = st->sc.installed;
	c->seccomp_syscalls = st->sc.syscalls;
	c->seccomp_arches.v = hk_xcalloc(st->sc.n_arches + 1, sizeof(char *));
	for (size_t i = 0; i < st->sc.n_arches; i++)
		c->seccomp_arches.v[c->seccomp_arches.n++] = (char *)(uintptr_t)st->sc.arches[i];
	c->seccomp_reachable.v = hk_xcalloc(st->entry_points.n + 1, sizeof(char *));
	for (size_t i = 0; i < st->entry_points.n; i++)
		if (st->entry_points.v[i].state == HK_ENTRY_PRESENT)
			c->seccomp_reachable.v[c->seccomp_reachable.n++] =
				(char *)(uintptr_t)st->entry_points.v[i].arch;
	c->setup_policy_ms = st->ms_policy;
	c->setup_rules_ms = st->ms_rules;
	c->setup_restrict_ms = st->ms_restrict;
	c->setup_seccomp_ms = st->ms_seccomp;
	c->closed_fds = st->closed_fds;
	c->canary_after_exec = st->probe_after_exec;
	hk_exec_event_encode(&ev, out);
	/* The names and paths are borrowed: only the arrays are ours. */
	free(c->handled_fs.v);
	free(c->dropped_fs.v);
	free(c->scopes.v);
	free(c->dropped_scopes.v);
	free(c->missing.v);
	free(c->not_dirs.v);
	free(c->seccomp_arches.v);
	free(c->seccomp_reachable.v);
}

/* Says every downgrade out loud, one sentence each (a verifier never downgrades silently). */
static void announce_downgrades(const struct cage_state *st, const struct hk_policy *p)
{
	char names[512];
	if (st->o->force_abi >= 0 && st->abi < st->probe->abi)
		hk_exec_note("--force-abi %d: the cage behaves as Landlock ABI %d although the kernel "
			     "has ABI %d.",
			     st->abi, st->abi, st->probe->abi);
	if (!st->landlock) {
		if (st->probe->abi == 0)
			hk_exec_note("%s: the command runs without Landlock (seccomp only), tier none: "
				     "no filesystem restriction and no evidence.",
				     hk_landlock_unavailable_reason(st->probe->unavailable));
		else
			hk_exec_note("Landlock ABI %d is older than 3: the command runs without Landlock "
				     "(seccomp only), tier none: no filesystem restriction and no evidence.",
				     st->abi);
		return;
	}
	/* Rights newer than the running kernel cannot be restricted by anyone and are masked off
	 * by design (design.md §3.3); they stay in the status line.  Said aloud only when the cage
	 * itself narrowed what the kernel could do (--force-abi): that is a downgrade. */
	if (st->ll.dropped_fs && st->abi < st->probe->abi) {
		names_of(st->ll.dropped_fs, false, names, sizeof(names));
		hk_exec_note("Landlock ABI %d does not know the filesystem rights %s: they are not "
			     "restricted.",
			     st->abi, names);
	}
	if (st->ll.dropped_scopes) {
		names_of(st->ll.dropped_scopes, true, names, sizeof(names));
		hk_exec_note("Landlock ABI %d has no scopes: the policy's %s scopes are not enforced.",
			     st->abi, names);
	}
	if (st->tier != HK_TIER_EVIDENCE)
		hk_exec_note("Landlock ABI %d cannot log denials: tier enforce, the cage restricts but "
			     "gives no evidence.",
			     st->abi);
	if (st->ll.log_flag_withheld)
		hk_exec_note("LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON withheld (--test-withhold-log-flag): "
			     "denials after execve will not be logged.");
	/* A policy of a whole closure can name thousands of paths; the status line has them all. */
	const size_t shown = 20;
	for (size_t i = 0; i < st->ll.n_missing && i < shown; i++) {
		const struct hk_policy_grant *g = &p->grants[st->ll.missing[i]];
		hk_exec_note("the policy grants %s %s, which does not exist here: no rule was added.",
			     hk_grant_kind_name(g->kind), g->path);
	}
	if (st->ll.n_missing > shown)
		hk_exec_note("… and %zu more granted paths that do not exist (all are listed in the "
			     "status line).",
			     st->ll.n_missing - shown);
	for (size_t i = 0; i < st->ll.n_not_dirs && i < shown; i++) {
		const struct hk_policy_grant *g = &p->grants[st->ll.not_dirs[i]];
		hk_exec_note("the policy grants list %s, which is not a directory: list gives it "
			     "nothing.",
			     g->path);
	}
	if (st->ll.n_not_dirs > shown)
		hk_exec_note("… and %zu more list grants on non-directories.",
			     st->ll.n_not_dirs - shown);
}

/* Counts the descriptors above 2 (other than `keep`) that are about to be closed.  -1 when
 * /proc is not there to ask. */
static long count_inherited_fds(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	long n = 0;
	int self = dirfd(d);
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name)
			continue;
		if (fd > 2 && fd != self && fd != keep)
			n++;
	}
	closedir(d);
	return n;
}

/* Landlock does not restrict descriptors opened before restrict_self (kernel-facts.md §6, §11):
 * an inherited descriptor to an undeclared file would be a way around the policy. */
static int close_inherited_fds(int keep, long *closed, struct hk_error *err)
{
	*closed = count_inherited_fds(keep);
	unsigned lo = 3;
	if (keep >= 3) {
		if (keep > 3 && close_range(3, (unsigned)keep - 1, 0) < 0)
			return hk_fail_errno(err, errno, "close_range(3, %d)", keep - 1);
		lo = (unsigned)keep + 1;
	}
	if (close_range(lo, ~0U, 0) < 0)
		return hk_fail_errno(err, errno, "close_range(%u, ~0)", lo);
	return 0;
}

/* One function on purpose, longer than the rest: the order of the layers (policy, ABI and
 * tier, no_new_privs, Landlock, seccomp, descriptors, report, execve) is the cage's security
 * argument, and it reads top to bottom in one place, as minijail's does; each step's work is
 * in the helpers above. */
int hk_exec_cage(const struct hk_exec_args *o)
{
	__attribute__((cleanup(free_state))) struct cage_state st = {
		.o = o, .closed_fds = -1,
	};
	__attribute__((cleanup(hk_policy_free))) struct hk_policy policy = HK_POLICY_INIT;
	struct hk_error err = { 0 };
	const int sfd = o->status_fd;

	hk_exec_ignore_sigpipe();
	if (sfd >= 0 && (fcntl(sfd, F_GETFD) < 0 || fcntl(sfd, F_SETFD, 0) < 0)) {
		char msg[128];
		snprintf(msg, sizeof(msg), "the status fd %d is not open", sfd);
		return hk_exec_fail(-1, "fds", msg, HK_EXEC_EXIT_SETUP);
	}

	/* 0. Our own path, read before anything is restricted: the canary probe re-executes
	 *    harkaq-exec, and the path as this mount namespace sees it is what the policy grants. */
	if (o->canary_path) {
		ssize_t n = readlink("/proc/self/exe", st.self, sizeof(st.self) - 1);
		if (n < 0 || (size_t)n >= sizeof(st.self) - 1) {
			char msg[256];
			snprintf(msg, sizeof(msg),
				 "cannot find harkaq-exec's own path for the canary probe: readlink "
				 "/proc/self/exe: %s",
				 n < 0 ? strerror(errno) : "path too long");
			return hk_exec_fail(sfd, "exec", msg, HK_EXEC_EXIT_SETUP);
		}
		st.self[n] = '\0';
	}

	/* 1. The policy, strictly: a malformed line stops everything (FILE:LINE:COL). */
	double t = now_ms();
	if (hk_policy_load(o->policy_path, &policy, &err) < 0)
		return hk_exec_fail(sfd, "policy", err.msg, HK_EXEC_EXIT_POLICY);
	/* The collapse file (--collapse): the same strict format, `list` lines only. */
	__attribute__((cleanup(hk_policy_free))) struct hk_policy hints = HK_POLICY_INIT;
	hk_autofree char **collapse = NULL;
	size_t n_collapse = 0;
	if (o->collapse_path) {
		if (hk_policy_load(o->collapse_path, &hints, &err) < 0)
			return hk_exec_fail(sfd, "policy", err.msg, HK_EXEC_EXIT_POLICY);
		if (hints.n_expects || hints.scopes) {
			char msg[PATH_MAX + 128];
			snprintf(msg, sizeof(msg), "%s: a collapse file holds only 'list' lines",
				 o->collapse_path);
			return hk_exec_fail(sfd, "policy", msg, HK_EXEC_EXIT_POLICY);
		}
		collapse = hk_xcalloc(hints.n_grants + 1, sizeof(*collapse));
		for (size_t i = 0; i < hints.n_grants; i++) {
			if (hints.grants[i].kind != HK_GRANT_LIST) {
				char msg[PATH_MAX + 128];
				snprintf(msg, sizeof(msg),
					 "%s: a collapse file holds only 'list' lines, not '%s %s'",
					 o->collapse_path, hk_grant_kind_name(hints.grants[i].kind),
					 hints.grants[i].path);
				return hk_exec_fail(sfd, "policy", msg, HK_EXEC_EXIT_POLICY);
			}
			collapse[n_collapse++] = hints.grants[i].path;
		}
	}
	st.ms_policy = now_ms() - t;
	if (policy.scopes & HK_SCOPE_ABSTRACT_UNIX_SOCKET)
		st.requested_scopes |= HK_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
	if (policy.scopes & HK_SCOPE_SIGNAL)
		st.requested_scopes |= HK_LL_SCOPE_SIGNAL;

	/* 2. The ABI, from the syscall (never uname), and the tier it allows (design.md §3.2). */
	st.probe = hk_landlock_probe();
	st.abi = st.probe->abi;
	if (o->force_abi >= 0) {
		if (o->force_abi > st.probe->abi) {
			char msg[256];
			snprintf(msg, sizeof(msg),
				 "--force-abi %d: cannot behave as a newer ABI than the kernel's (%d)",
				 o->force_abi, st.probe->abi);
			return hk_exec_fail(sfd, "landlock", msg, HK_EXEC_EXIT_LANDLOCK);
		}
		st.abi = o->force_abi;
	}
	st.tier = hk_tier_of_abi(st.abi);
	st.landlock = st.tier != HK_TIER_NONE;
	if (!st.landlock && o->require_landlock) {
		char msg[512];
		if (st.probe->abi == 0)
			snprintf(msg, sizeof(msg), "%s; --require-landlock: the command is not run",
				 hk_landlock_unavailable_reason(st.probe->unavailable));
		else
			snprintf(msg, sizeof(msg),
				 "Landlock ABI %d is older than 3; --require-landlock: the command is "
				 "not run",
				 st.abi);
		return hk_exec_fail(sfd, "landlock", msg, HK_EXEC_EXIT_LANDLOCK);
	}

	/* 3. no_new_privs first: it lets an unprivileged process restrict itself at all, and no
	 *    setuid program run later can shed the layers below. */
	int nnp = hk_no_new_privs_set();
	if (nnp < 0) {
		hk_fail_errno(&err, -nnp, "prctl(PR_SET_NO_NEW_PRIVS)");
		return hk_exec_fail(sfd, "no_new_privs", err.msg, HK_EXEC_EXIT_SETUP);
	}

	/* 4. Landlock: one rule per granted file, READ_DIR on every ancestor, then the domain.
	 *    Before seccomp so that the filter cannot stand in the way of installing it. */
	if (st.landlock) {
		struct hk_landlock_config cfg = {
			.abi = st.abi,
			.policy_scopes = policy.scopes,
			.withhold_log_flag = o->test_withhold_log_flag,
			.collapse = (const char *const *)collapse,
			.n_collapse = n_collapse,
		};
		t = now_ms();
		hk_autoclose int ruleset_fd = hk_landlock_build(&policy, &cfg, &st.ll, &err);
		st.ms_rules = now_ms() - t;
		t = now_ms();
		if (ruleset_fd < 0 ||
		    hk_landlock_restrict(ruleset_fd, st.ll.restrict_flags, &err) < 0) {
			hk_wrap(&err, "the command is not run");
			return hk_exec_fail(sfd, "landlock", err.msg, HK_EXEC_EXIT_LANDLOCK);
		}
		st.ms_restrict = now_ms() - t;
	}

	/* 5. seccomp last among the layers, right before the execve it must survive: half a cage
	 *    believing itself whole is worse than none, so a refusal stops the run. */
	t = now_ms();
	/* Which of the filter's architectures the kernel really offers, asked before the filter
	 * stands: the report says "installed for i386" and "i386 reachable" apart. */
	hk_entry_points_probe(&st.entry_points);
	int rc = o->test_break_seccomp ? hk_seccomp_install_malformed(&err)
				       : hk_seccomp_install_denylist(&st.sc, &err);
	st.ms_seccomp = now_ms() - t;
	if (rc < 0) {
		hk_wrap(&err, "the command is not run");
		return hk_exec_fail(sfd, "seccomp", err.msg, HK_EXEC_EXIT_SECCOMP);
	}

	/* 6. Inherited descriptors, which Landlock does not restrict, are closed; the status
	 *    channel stays until the command's own execve. */
	if (close_inherited_fds(sfd, &st.closed_fds, &err) < 0)
		return hk_exec_fail(sfd, "fds", err.msg, HK_EXEC_EXIT_SETUP);

	/* 7. The report: everything installed, every downgrade named. */
	st.probe_after_exec = st.landlock && o->canary_path;
	announce_downgrades(&st, &policy);
	if (!o->canary_path)
		hk_exec_note("no --canary given: the canary probe is skipped, so this run cannot earn "
			     "evidence.");
	else if (!st.landlock)
		hk_exec_note("without Landlock the canary probe is skipped (nothing would deny it).");
	struct hk_buf line = HK_BUF_INIT;
	build_cage_line(&st, &policy, &line);
	rc = hk_status_write(sfd, &line, &err);
	hk_buf_free(&line);
	if (rc < 0)
		return hk_exec_fail(-1, "fds", err.msg, HK_EXEC_EXIT_SETUP);

	/* 8. execve.  With a canary, harkaq-exec re-executes itself first: the probe must run
	 *    after an execve inside the domain, where the build's own programs run (design.md §4). */
	if (!st.probe_after_exec)
		return hk_exec_command(o->cmd, sfd);

	struct hk_exec_args probe = HK_EXEC_ARGS_INIT;
	probe.probe_canary = o->canary_path;
	probe.status_fd = sfd;
	probe.cmd = o->cmd;
	hk_autostrv struct hk_strv argv = { 0 };
	hk_exec_args_to_argv(&probe, st.self, &argv);

	hk_exec_restore_sigpipe();
	execve(st.self, argv.v, environ);
	int e = errno;
	hk_exec_ignore_sigpipe();
	char msg[PATH_MAX + 256];
	if (e == EACCES)
		snprintf(msg, sizeof(msg),
			 "cannot re-execute harkaq-exec for the canary probe: the policy must grant ro "
			 "%s for the canary probe",
			 st.self);
	else
		snprintf(msg, sizeof(msg),
			 "cannot re-execute harkaq-exec (%s) for the canary probe: %s", st.self,
			 strerror(e));
	return hk_exec_fail(sfd, "exec", msg, HK_EXEC_EXIT_CANARY);
}
