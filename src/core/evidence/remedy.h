/* Would this user's runs have evidence, and if not, what fixes it (`harkaq probe`;
 * docs/audit-reader.md, "Installing the reader").  Pure: the facts are gathered by the
 * caller (the kernel's Landlock ABI, whether it has audit, what harkaq-audit --status answered
 * when run as this user, where the helper is and who may run it, the distribution), and
 * each missing piece becomes one sentence that names the fix. */
#ifndef HK_CORE_REMEDY_H
#define HK_CORE_REMEDY_H

#include <stdbool.h>

#include "core/basic/strv.h"

enum hk_reader_found {
	HK_READER_ANSWERED,         /* it ran and printed its status line */
	HK_READER_MISSING,          /* not beside harkaq, nor in the libexec directory */
	HK_READER_NOT_EXECUTABLE,   /* there, but this user may not run it (its group) */
	HK_READER_NO_ANSWER,        /* it ran and said nothing usable */
};

struct hk_evidence_facts {
	int landlock_abi;           /* <= 0: no usable Landlock */
	const char *landlock_why;   /* when landlock_abi <= 0: why (hk_landlock_unavailable_reason) */
	bool audit_in_kernel;       /* false: the kernel is built without audit */
	const char *os_id;          /* /etc/os-release ID ("debian"), or NULL */
	const char *os_version_id;  /* its VERSION_ID ("13"), or NULL */
	const char *deb_arch;       /* "amd64", "arm64", … for a kernel package's name, or NULL */

	enum hk_reader_found reader;
	const char *reader_path;    /* where it is (or was looked for, when missing) */
	const char *reader_group;   /* the group that may run it, when others may not; or NULL */
	const char *reader_error;   /* what went wrong: where it was looked for (MISSING), what
				     * happened (NO_ANSWER) */
	bool reader_nosuid;         /* its file system ignores file capabilities */
	const char *user;           /* this user's name */
	bool root;                  /* this user is root */

	/* HK_READER_ANSWERED: its status line (core/formats/reader_line.h) */
	bool can_read, can_control, confirmed, switchable;
	int initial_userns;         /* 1, 0, -1 unknown */
	const char *read_error, *control_error;
};

/* Appends one sentence per missing piece to `out`, the first one the first thing to fix;
 * returns whether the runs would have evidence (nothing was appended). */
bool hk_evidence_remedies(const struct hk_evidence_facts *f, struct hk_strv *out);

#endif
