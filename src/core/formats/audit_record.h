/* Audit record text -> structs (design.md §2: the core knows record text, never netlink).
 *
 * The reader hands over the text of one audit message.  Its raw form starts with the event
 * stamp, "audit(SEC.MSEC:SERIAL): ", followed by space-separated key=value fields:
 *
 *     domain=1d5374efb blockers=fs.read_file path=2F746D702F6B66 dev="vda" ino=10953970
 *
 * A value is bare (numbers, ids, flags), "double-quoted", or — for the kernel's *untrusted
 * strings* (path, exe, comm, ocomm, dev, proctitle, …) — uppercase hex when any byte is '"',
 * < 0x21 or > 0x7e (kernel-facts.md §4).  Only the untrusted-string keys are ever hex-decoded:
 * a bare `ino=1234` or `domain=1d5374efb` is a number, not hex bytes.
 *
 * Every error names the byte offset in the text it was given.
 */
#ifndef HK_AUDIT_RECORD_H
#define HK_AUDIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* Record types harkaq reads (include/uapi/linux/audit.h). */
enum {
	HK_AUDIT_SYSCALL = 1300,
	HK_AUDIT_EOE = 1320,
	HK_AUDIT_PROCTITLE = 1327,
	HK_AUDIT_LANDLOCK_ACCESS = 1423,
	HK_AUDIT_LANDLOCK_DOMAIN = 1424,
};

/* ---- the event stamp ---- */

struct hk_audit_stamp {
	uint64_t sec;
	unsigned msec;
	uint64_t serial;     /* one event = one serial; its records share it */
};

/* Splits "audit(SEC.MSEC:SERIAL): " off the front of raw message text.  On success fills
 * *stamp and sets *body_offset to the index of the first field. */
HK_MUST_CHECK int hk_audit_split_prefix(const char *text, size_t len, struct hk_audit_stamp *stamp,
			  size_t *body_offset, struct hk_error *err);

/* ---- generic fields ---- */

enum hk_audit_form {
	HK_AUDIT_BARE = 0,     /* written as is: numbers, ids, or a kernel placeholder like (null) */
	HK_AUDIT_QUOTED = 1,   /* "…": value is the text between the quotes */
	HK_AUDIT_HEX = 2,      /* untrusted string written as uppercase hex: value is the bytes */
};

struct hk_audit_field {
	char *key;            /* owned, NUL-terminated */
	char *value;          /* owned, decoded, NUL-terminated; may contain NUL (hex): use value_len */
	size_t value_len;
	enum hk_audit_form form;
	size_t key_offset;    /* byte offsets in the parsed text, for error messages */
	size_t value_offset;
};

struct hk_audit_fields {
	struct hk_audit_field *items;
	size_t n, cap;
};

#define HK_AUDIT_FIELDS_INIT { NULL, 0, 0 }

/* Whether the kernel writes `key` as an untrusted string (quoted or hex). */
bool hk_audit_key_is_untrusted_string(const char *key);

/* Parses the fields of one record body (the text after the stamp; trailing spaces, newlines
 * and NULs are ignored).  On error *out is left empty and the message names the byte offset. */
HK_MUST_CHECK int hk_audit_parse_fields(const char *text, size_t len, struct hk_audit_fields *out,
			  struct hk_error *err);
/* First field named `key`, or NULL. */
const struct hk_audit_field *hk_audit_field_get(const struct hk_audit_fields *f, const char *key);
void hk_audit_fields_free(struct hk_audit_fields *f);

/* The domain id of a Landlock record (1423, 1424) whose body starts with "domain=HEX" and a
 * space (or ends there), as the kernel writes both.  For harkaq-audit's filter, which must
 * decide on every record without the cost of a whole parse; the id is the one
 * hk_landlock_access_parse and hk_landlock_domain_parse find.  False when the body does not
 * start that way. */
bool hk_audit_leading_domain(const char *body, size_t len, uint64_t *domain);

/* ---- AUDIT_LANDLOCK_ACCESS (1423) ---- */

struct hk_landlock_access {
	uint64_t domain;
	char *blockers;        /* owned, as written: "fs.execute,fs.read_file" */
	/* Filesystem object, or the abstract UNIX socket name (always hex: it starts with NUL).
	 * For make_* and remove_* denials the kernel logs the parent directory. */
	bool has_path;
	char *path;            /* owned, decoded bytes, NUL-terminated; NULL when !has_path */
	size_t path_len;
	char *dev;             /* owned, decoded; NULL when absent */
	size_t dev_len;
	bool has_ino;
	uint64_t ino;
	/* Signal and ptrace denials name the target process instead. */
	bool has_opid;
	int64_t opid;
	char *ocomm;           /* owned, decoded; NULL when absent */
	size_t ocomm_len;
	/* Network denials (saddr/daddr/src/dest) are accepted and not kept: network rights are
	 * inert in the cage, whose network namespace is empty. */
};

HK_MUST_CHECK int hk_landlock_access_parse(const char *text, size_t len, struct hk_landlock_access *out,
			     struct hk_error *err);
void hk_landlock_access_free(struct hk_landlock_access *a);

/* Merges one `blockers` list into `acc` (both comma-separated, as the kernel writes them):
 * each right of `blockers` not in `acc` yet is appended, so the rights keep the order they
 * were first seen in.  Two denials of one path under different rights (an execve denied
 * fs.execute,fs.read_file, a read of the same file fs.read_file) read as one entry with
 * the rights of both (docs/diagnosis.md, "One path, one entry"). */
void hk_blockers_union(struct hk_buf *acc, const char *blockers);

/* ---- AUDIT_LANDLOCK_DOMAIN (1424) ---- */

enum hk_domain_status {
	HK_DOMAIN_ALLOCATED = 1,
	HK_DOMAIN_DEALLOCATED = 2,
};

struct hk_landlock_domain {
	uint64_t domain;
	enum hk_domain_status status;
	/* allocated: the creator of the domain, captured at restrict_self */
	char *mode;            /* owned ("enforcing"); NULL for deallocated */
	int64_t pid;           /* in the initial pid namespace */
	uint64_t uid;
	char *exe;             /* owned, decoded, relative to the creator's root */
	size_t exe_len;
	char *comm;            /* owned, decoded */
	size_t comm_len;
	/* deallocated: every denial of the domain, logged or not — the completeness check */
	uint64_t denials;
};

HK_MUST_CHECK int hk_landlock_domain_parse(const char *text, size_t len, struct hk_landlock_domain *out,
			     struct hk_error *err);
void hk_landlock_domain_free(struct hk_landlock_domain *d);

/* ---- SYSCALL (1300): "who tried" (design.md §6) ---- */

struct hk_audit_syscall {
	long syscall;          /* architecture's syscall number */
	bool has_success;
	bool success;
	bool has_exit;
	int64_t exit;          /* return value, e.g. -13 */
	bool has_pid;
	int64_t pid;
	bool has_uid;
	uint64_t uid;
	char *exe;             /* owned, decoded; NULL when absent */
	size_t exe_len;
	char *comm;            /* owned, decoded; NULL when absent */
	size_t comm_len;
};

HK_MUST_CHECK int hk_audit_syscall_parse(const char *text, size_t len, struct hk_audit_syscall *out,
			   struct hk_error *err);
void hk_audit_syscall_free(struct hk_audit_syscall *s);

#endif
