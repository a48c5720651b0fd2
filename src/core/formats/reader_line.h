/* The reader's lines (docs/audit-reader.md): what harkaq-audit writes on its stdout, one JSON
 * object per line, and harkaq reads.  This file is their one encoder and their one decoder.
 *
 *   {"event":"ready","confirmed","audit":{…}|null,"changed":[{field,from,to}],"rcvbuf",
 *    "rcvbuf_forced","privileges":{uid,gid,capabilities,bounding_set_dropped,no_new_privs},
 *    "caller_uid","filtered","reason"?}   audit confirmed (or why not), privileges dropped,
 *                                         whose records are handed over
 *   {"event":"record","type","serial"|null,"time"|null,"text"}
 *                                         one forwarded audit record (text: hk_json_bytes)
 *   {"event":"overrun","enobufs"}         the socket's receive buffer overflowed
 *   {"event":"end","reason","audit":{…}|null,"audit_error"?,"enobufs","records_received",
 *    "records_forwarded","foreign","withheld","evicted","untracked"}
 *                                         the closing status (the lost counter after the run)
 *   {"event":"error"|"warning","message"}
 *   {"event":"status","confirmed","audit":{…}|null,"caller_uid","filtered","can_read",
 *    "read_error"?,"can_control","control_error"?,"switchable","evidence","rcvbuf",
 *    "initial_userns","reason"?}         `harkaq-audit --status`: would this caller's runs
 *                                         have evidence, and if not, what is missing
 *
 * Ownership: a decoded line owns its strings (hk_reader_line_free); a line built for encoding
 * may borrow them (the encoder only reads) and is then never freed. */
#ifndef HK_CORE_READER_LINE_H
#define HK_CORE_READER_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"

/* The fields of the kernel's struct audit_status that harkaq reports (AUDIT_GET; mask and
 * feature_bitmap omitted). */
struct hk_audit_status {
	uint32_t enabled;           /* 0 off, 1 on, 2 on and locked (AUDIT_LOCKED) */
	uint32_t failure;
	uint32_t pid;               /* registered auditd, 0 = none */
	uint32_t rate_limit;
	uint32_t backlog_limit;
	uint32_t lost;              /* records the kernel dropped (backlog, rate limit) */
	uint32_t backlog;
	uint32_t backlog_wait_time; /* jiffies */
};

/* Writes st as one JSON object:
 * {"enabled":1,"failure":1,"pid":0,"rate_limit":0,"backlog_limit":8192,"lost":0,"backlog":0,
 *  "backlog_wait_time":15000} */
void hk_audit_status_json(struct hk_json *j, const struct hk_audit_status *st);

enum hk_reader_event {
	HK_READER_READY,
	HK_READER_RECORD,
	HK_READER_OVERRUN,
	HK_READER_END,
	HK_READER_ERROR,
	HK_READER_WARNING,
	HK_READER_STATUS,
};

/* One audit setting the reader changed at start-up ("enabled", "backlog_limit", …). */
struct hk_audit_change {
	char field[32];
	uint32_t from, to;
};
#define HK_READER_MAX_CHANGES 8

/* Writes the changes as the "changed" array of a ready line: [{"field","from","to"}]. */
void hk_audit_changes_json(struct hk_json *j, const struct hk_audit_change *changes, size_t n);

/* Capabilities the reader may keep, by their kernel numbers (linux/capability.h). */
#define HK_CAP_AUDIT_CONTROL 30
#define HK_CAP_AUDIT_READ 37

struct hk_reader_privileges {
	uint32_t uid, gid;
	uint64_t caps;              /* effective == permitted after the drop, by cap number */
	bool other_caps;            /* decoded: a capability other than the two above was named */
	bool bounding_set_dropped;
	bool no_new_privs;
};

struct hk_reader_line {
	enum hk_reader_event event;
	/* ready, end, status: the audit status, when known */
	bool has_audit;
	struct hk_audit_status audit;
	/* ready, status */
	bool confirmed;
	/* ready */
	struct hk_audit_change changed[HK_READER_MAX_CHANGES];
	size_t n_changed;
	int64_t rcvbuf;
	bool rcvbuf_forced;
	struct hk_reader_privileges privileges;
	/* ready, status: the caller's real uid, and whether it receives its own domains' records
	 * only (any caller but root) */
	uint64_t caller_uid;
	bool filtered;
	/* status: the caller could join the audit multicast group (CAP_AUDIT_READ), or why not;
	 * could read the audit status (CAP_AUDIT_CONTROL), or why not (audit_error); audit is
	 * off and could be switched on; so a run of this caller would have evidence; whether the
	 * reader is in the initial user namespace (-1 unknown).  rcvbuf (above) is the receive
	 * buffer it got. */
	bool can_read, can_control, switchable, evidence;
	char *read_error;
	int initial_userns;
	/* ready: why audit is not confirmed; end: why the reader stopped ("stdin closed", …);
	 * error, warning: the message; status: why there would be no evidence */
	char *text_reason;
	/* end: why the closing AUDIT_GET failed, or NULL; status: why AUDIT_GET failed */
	char *audit_error;
	/* overrun, end */
	uint64_t enobufs;
	/* end */
	uint64_t records_received, records_forwarded, foreign;
	/* end: Landlock records not handed over (another uid's domain, or one never seen
	 * allocated), of those the ones dropped because the hold was full, and domains of the
	 * caller beyond what the reader can track (audit/filter.h) */
	uint64_t withheld, evicted, untracked;
	/* record */
	unsigned type;
	bool has_stamp;
	uint64_t serial, sec;
	unsigned msec;
	char *text;                 /* the record's text, text_len bytes (NUL-terminated) */
	size_t text_len;
};

/* Appends one line: a JSON object and '\n'. */
void hk_reader_line_encode(const struct hk_reader_line *l, struct hk_buf *out);

/* Decodes one line (without its '\n').  -EINVAL with a message when it is not JSON, names no
 * known event, or a member has the wrong type; *l is then empty.  Missing members take their
 * zero value. */
HK_MUST_CHECK int hk_reader_line_decode(const char *line, size_t len, struct hk_reader_line *l,
			  struct hk_error *err);
void hk_reader_line_free(struct hk_reader_line *l);

#endif
