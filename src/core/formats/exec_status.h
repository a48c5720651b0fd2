/* The status channel of harkaq-exec (docs/cage.md): one JSON line per event on the status
 * descriptor, written inside the sandbox by harkaq-exec (and, for a set-up failure before
 * harkaq-exec runs, by the orchestrator's forked child), read on the host by harkaq.  This
 * file is its one encoder and its one decoder, so neither side spells a key the other does
 * not.
 *
 *   {"event":"cage", "abi", "real_abi", "errata", "forced", "tier", "handled_fs", …}
 *                                    what the cage installed, every downgrade included
 *   {"event":"canary","result":"denied"|"opened"|"error","errno","path"}
 *                                    the probe after the re-exec, inside the domain
 *   {"event":"error","layer","message","exit"}
 *                                    a layer refused: the command is not run
 *
 * Ownership: a decoded event owns every string and array it holds (hk_exec_event_free).  An
 * event built for encoding may borrow them instead: the encoder only reads, and such an event
 * is never freed. */
#ifndef HK_CORE_EXEC_STATUS_H
#define HK_CORE_EXEC_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/formats/abi_tier.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"

enum hk_exec_event_kind {
	HK_EXEC_EVENT_CAGE,
	HK_EXEC_EVENT_CANARY,
	HK_EXEC_EVENT_ERROR,
};

/* A list of names or paths (paths are written with hk_json_bytes: any bytes). */
struct hk_exec_names {
	char **v;
	size_t n;
};

/* The "cage" event: what harkaq-exec installed before it executed the command. */
struct hk_cage_report {
	int abi;                      /* effective (forced or the kernel's) */
	int real_abi;                 /* the kernel's */
	uint64_t errata;
	bool forced;                  /* --force-abi was given */
	enum hk_tier tier;
	struct hk_exec_names handled_fs, dropped_fs;       /* Landlock right names */
	struct hk_exec_names scopes, dropped_scopes;
	bool log_new_exec_on;         /* LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON was passed */
	bool log_flag_withheld;       /* … withheld by a test switch */
	bool tsync;
	/* how the policy was installed (docs/cage.md, "Collapsed directories") */
	uint64_t rules, ancestors, ro_dirs, beneath, covered, declined, ro_sb_truncate,
		installers;
	struct hk_exec_names missing;   /* granted paths that do not exist here */
	struct hk_exec_names not_dirs;  /* list grants on non-directories */
	bool seccomp_installed;
	uint64_t seccomp_syscalls;
	struct hk_exec_names seccomp_arches;    /* the filter covers these (libseccomp names) */
	struct hk_exec_names seccomp_reachable; /* of these, the ones the kernel offers: probed
						 * (sys/entrypoints.h) */
	/* where the set-up's time went, ms */
	double setup_policy_ms, setup_rules_ms, setup_restrict_ms, setup_seccomp_ms;
	long closed_fds;              /* -1: unknown (written as null) */
	bool canary_after_exec;       /* "canary_probe": "after_exec", else "skipped" */
};

/* The "canary" event. */
enum hk_canary_result {
	HK_CANARY_DENIED,             /* EACCES, as it must be */
	HK_CANARY_OPENED,             /* the policy grants it: the cage cannot testify */
	HK_CANARY_ERROR,              /* any other failure of the probe */
};

struct hk_exec_event {
	enum hk_exec_event_kind kind;
	struct hk_cage_report cage;                 /* HK_EXEC_EVENT_CAGE */
	enum hk_canary_result canary;               /* HK_EXEC_EVENT_CANARY */
	int canary_errno;
	char *canary_path;
	char *layer;                                /* HK_EXEC_EVENT_ERROR */
	char *message;
	int exit_code;                              /* -1 when the writer gave none */
};

/* "denied", "opened", "error". */
const char *hk_canary_result_name(enum hk_canary_result r);

/* Appends one event as one JSON object (no newline) to `out`. */
void hk_exec_event_encode(const struct hk_exec_event *ev, struct hk_buf *out);
/* Writes the "cage" event's object through a writer (the run report embeds it). */
void hk_cage_report_json(const struct hk_cage_report *c, struct hk_json *j);
/* Writes its "setup_ms" object: {"policy","rules","restrict","seccomp"}. */
void hk_cage_report_setup_json(const struct hk_cage_report *c, struct hk_json *j);

/* Decodes one line.  -EINVAL with a message when it is not JSON, names no known event, or a
 * member has the wrong type; *ev is then empty.  Members missing from an event take their
 * zero value (abi -1 and real_abi = abi for a cage event that names none). */
HK_MUST_CHECK int hk_exec_event_decode(const char *line, size_t len, struct hk_exec_event *ev,
			 struct hk_error *err);
void hk_exec_event_free(struct hk_exec_event *ev);
void hk_cage_report_free(struct hk_cage_report *c);

#endif
