/* Would this user's runs have evidence (`harkaq probe`; docs/audit-reader.md, "Installing the
 * reader")?  The facts are gathered here — the kernel's Landlock ABI and audit, harkaq-audit
 * found where a run finds it and asked `--status` as this user, who may run it, the
 * distribution — and the core decides and names the remedies (core/evidence/remedy.h). */
#ifndef HK_ENGINE_READER_PROBE_H
#define HK_ENGINE_READER_PROBE_H

#include <stdbool.h>

#include "core/basic/strv.h"
#include "core/evidence/remedy.h"
#include "core/formats/reader_line.h"

/* The reader as this user's runs would start it: found where hk_helper_path looks, asked
 * `harkaq-audit --status`. */
struct hk_reader_probe {
	enum hk_reader_found found;
	char *path;                 /* where it is, or NULL when missing */
	char *group;                /* the group limited to, when others may not run it */
	bool nosuid;                /* on a file system that ignores file capabilities */
	char *error;                /* not found, not run, or no status line: why */
	struct hk_reader_line status;   /* HK_READER_ANSWERED: its status line */
};

struct hk_evidence_probe {
	struct hk_reader_probe reader;
	/* The audit status: this process's own AUDIT_GET (root), else the reader's answer. */
	bool audit_ok;
	struct hk_audit_status audit;
	char audit_error[HK_ERROR_MSG_MAX];
	/* what the reader can do for this user (false when it did not answer) */
	bool can_read, can_control;
	bool possible;              /* this user's runs would have evidence */
	struct hk_strv remedies;    /* otherwise, one sentence per fix, the first one first */
};

void hk_evidence_probe_run(struct hk_evidence_probe *p);
void hk_evidence_probe_free(struct hk_evidence_probe *p);

#endif
