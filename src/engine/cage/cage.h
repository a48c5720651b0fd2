/* One caged run with evidence: the reader started and confirmed before the command, the
 * cage's own report collected, the command waited for (and anything it left behind killed),
 * the domain's deallocation awaited, and everything handed to the verdict.
 *
 * Used by `harkaq run` (the command on the host) and `harkaq build` (each phase inside
 * bubblewrap); the caller prepares the argv that starts harkaq-exec. */
#ifndef HK_ENGINE_CAGE_H
#define HK_ENGINE_CAGE_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/evidence/evidence.h"
#include "core/formats/exec_status.h"
#include "core/formats/json.h"
#include "core/policy/policy.h"
#include "core/formats/reader_line.h"

struct hk_cage_opts {
	char **argv;                /* program and arguments that start harkaq-exec (maybe via bwrap) */
	int status_fd;              /* descriptor number on which the child expects the status pipe */
	const char *canary_path;    /* the canary as the kernel will report it (sandbox view) */
	bool evidence;              /* start the reader (false: enforcement only) */
	bool reader_may_enable;     /* allow the reader to switch audit on */
	long backlog_floor;         /* -1: reader's default */
	bool as_user;               /* switch to uid/gid before exec */
	uid_t uid;
	gid_t gid;
	int timeout_s;              /* 0: none; else the run is killed after this many seconds */
	const char *chdir_to;       /* NULL: stay */
	/* HK_NS_PID [| HK_NS_NET]: start the command under an init of its own namespaces, which
	 * no process of it outlives (harkaq run, src/sys/nsinit.h); 0 when the argv makes them
	 * (a build's bubblewrap). */
	unsigned namespaces;
	char **envp;                /* NULL: inherit */
	bool quiet;                 /* no progress on stderr */
	bool require_evidence;      /* refuse to start the command if the reader is not ready and
				     * confirmed (the verdict could only be NoEvidence) */
	/* Return as soon as the command has exited, leaving the reader running: the domain's
	 * deallocation record (~40 ms after the last process is reaped) is awaited later, by
	 * hk_cage_finish(), while the caller gets on with the next phase.  The result's
	 * evidence is incomplete until then. */
	bool defer_evidence;
	/* Deferred runs whose readers this run keeps draining while its command runs (their
	 * pipes must not fill, or their readers would stall and the kernel drop records).  A
	 * drained run whose canary and deallocation record are in has its reader asked for its
	 * final status right then: its loss window closes on its own accounting, not on the
	 * last phase's. */
	struct hk_cage_result *const *drain;
	size_t n_drain;
	/* A reader started ahead of the run (hk_cage_reader_start_ahead), which the run takes
	 * over whatever happens (NULL: the run starts its own when `evidence`).  Its start-up
	 * overlaps the caller's own set-up; what the run proves is unchanged (docs/audit-reader.md,
	 * "Started ahead"). */
	struct hk_cage_reader *reader;
};

struct hk_cage_reader;

/* Starts a reader now for a run that comes later, without waiting for its "ready" (the run
 * waits for it, bounded, as for its own).  Returns NULL when it could not be started; the run
 * then starts its own. */
struct hk_cage_reader *hk_cage_reader_start_ahead(bool may_enable, long backlog_floor);
/* Stops and reaps a reader started ahead that no run took over (a build stopped in set-up). */
void hk_cage_reader_discard(struct hk_cage_reader *rd);

struct hk_cage_result {
	/* the command */
	bool started;               /* the child was forked and exec'd */
	int wait_status;            /* of the direct child, as from waitpid */
	int exit_code;              /* decoded: exit status, or 128+signal */
	bool timed_out;
	int leftovers_killed;       /* processes still alive after the command exited */
	unsigned namespaces;        /* the opts' namespaces, once started */
	/* the cage (harkaq-exec's status lines, core/formats/exec_status.h) */
	bool cage_reported;         /* the "cage" event came: `cage` holds it */
	bool status_lost;           /* reading the status channel failed: cage_reported is then
				     * false, what came of the report not taken as given */
	struct hk_cage_report cage;
	char *cage_error;           /* harkaq-exec's error event message, or NULL */
	char *cage_error_layer;
	bool canary_reported;       /* the "canary" event came (else the probe never ran) */
	enum hk_canary_result canary;
	int abi, real_abi;          /* from the cage line; -1 unknown */
	/* the reader (its lines, core/formats/reader_line.h) */
	bool reader_started, reader_ready, audit_confirmed, reader_failed;
	char *reader_error;
	long long lost_before, lost_after;   /* -1 unknown */
	long long enobufs;
	bool have_audit_before, have_audit_after;
	struct hk_audit_status audit_before, audit_after;
	struct hk_audit_change audit_changed[HK_READER_MAX_CHANGES];
	size_t n_audit_changed;
	/* the signal harkaq forwarded to the command (SIGINT, SIGTERM, SIGHUP), 0 when none:
	 * hk_cage_run then returns -EINTR */
	int interrupted_by;
	/* the evidence */
	struct hk_evidence evidence;
	bool dealloc_timed_out;
	/* costs, ms */
	long long ms_reader_start, ms_command, ms_status_drain, ms_dealloc_wait, ms_reader_stop;
	/* how long before the run its reader was started (opts.reader), -1 when the run started
	 * its own or had none */
	long long ms_reader_ahead;
	long long ms_total;
	/* CPU time (user + system) of the command and everything it started, reaped by the end
	 * of the run: the cage's own work inside the sandbox included, the reader's not. */
	long long ms_command_cpu;
	/* defer_evidence: the reader still running, owned (NULL once finished) */
	struct hk_cage_reader *pending;
	bool deferred;              /* the run was finished by hk_cage_finish() */
};

/* Runs the cage.  Returns 0 when the run happened (whatever its verdict), -errno when it
 * could not be attempted at all (fork failure…).  A cage that refused to install a
 * protection is a *successful* call with started=true and cage_error set. */
HK_MUST_CHECK int hk_cage_run(const struct hk_cage_opts *o, struct hk_cage_result *r, struct hk_error *err);
void hk_cage_result_free(struct hk_cage_result *r);

/* Whether the command failed: it exited non-zero, was killed, or was stopped at its time
 * limit.  The one rule every report and decision uses ("a phase failed"). */
bool hk_cage_failed(const struct hk_cage_result *r);

/* Finishes deferred runs (defer_evidence): waits, bounded and for all of them at once, for
 * each one's canary and deallocation records, then stops their readers and reads the lost
 * counter after (a run whose records came in earlier was asked then: see drain).  Runs already finished (or without a reader) are skipped.  A run whose
 * result is freed without it has its reader killed, and its evidence stays incomplete. */
void hk_cage_finish(struct hk_cage_result *const *runs, size_t n);

struct hk_json;
/* {"reader_start", "reader_ahead", "command", "status_drain", "dealloc_wait", "reader_stop",
 * "total", "cage_setup"}: where a run's time went, in ms (bench/run reads it).
 * "reader_start" is what the run waited for its reader's "ready"; "reader_ahead" how long
 * before the run a reader started ahead was started (null: the run started its own).
 * "cage_setup" is harkaq-exec's own figure (policy load, rules, restrict_self, seccomp), null
 * when no cage reported. */
void hk_cage_timing_json(const struct hk_cage_result *r, struct hk_json *j);

/* Creates a canary file readable by everyone in a directory the policy does not let the cage
 * read; returns its path (and the directory to remove afterwards). */
HK_MUST_CHECK int hk_canary_create(const struct hk_policy *policy, char **path, char **dir, struct hk_error *err);
void hk_canary_remove(const char *path, const char *dir);

#endif
