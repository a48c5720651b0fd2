/* The policy file: what harkaq-exec grants inside the cage (SPEC §3) and what the verdict
 * expects to see denied (SPEC §5).  The format is documented in docs/policy-format.md.
 *
 * Text form (one directive per line; '#' at the start of a line begins a comment):
 *
 *     harkaq-policy 1                 first directive, mandatory
 *     scope abstract-unix-socket      ABI >= 6 scopes
 *     scope signal
 *     ro /usr/include/zlib.h          read + execute rights valid on the object's type
 *     list /usr/include               READ_DIR only: listing is not reading
 *     rw /tmp                         every right, beneath the directory
 *     expect /usr/bin/gcc             a denial the verdict classifies as expected (exact path)
 *     expect /usr/lib/gcc/            ... or anything beneath a directory (trailing '/')
 *
 * Paths are absolute and normalised (no "//", ".", ".." components, no trailing '/' except
 * for the root and the "beneath" form of expect).  Bytes 0x21..0x7e other than '\' are
 * written literally; every other byte is written "\xHH" and a backslash is written "\\".
 * So spaces, quotes, newlines and non-UTF-8 bytes are all representable; NUL is not (it
 * cannot occur in a path).
 *
 * The canonical encoding (hk_policy_encode) sorts and deduplicates; PolicyId = BLAKE3 of it.
 */
#ifndef HK_POLICY_H
#define HK_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/blake3.h"
#include "core/buf.h"
#include "core/error.h"

enum hk_grant_kind {
	HK_GRANT_RO = 0,
	HK_GRANT_LIST = 1,
	HK_GRANT_RW = 2,
};

#define HK_SCOPE_ABSTRACT_UNIX_SOCKET (1u << 0)
#define HK_SCOPE_SIGNAL               (1u << 1)

struct hk_policy_grant {
	enum hk_grant_kind kind;
	char *path;          /* owned, decoded, NUL-terminated, absolute */
	unsigned line;       /* source line (0 when built in memory) */
};

struct hk_policy_expect {
	char *path;          /* owned, decoded; ends with '/' for the "beneath" form */
	unsigned line;
};

struct hk_policy {
	struct hk_policy_grant *grants;
	size_t n_grants, cap_grants;
	struct hk_policy_expect *expects;
	size_t n_expects, cap_expects;
	unsigned scopes;     /* HK_SCOPE_* bitmask */
};

#define HK_POLICY_INIT { NULL, 0, 0, NULL, 0, 0, 0 }

/* Parses policy text.  `filename` is used only in error messages ("FILE:LINE:COL: …").
 * Rejects: a missing or wrong header, unknown keywords, relative or non-normalised paths,
 * bad escapes, a path granted twice (identical or conflicting), an expect on a granted path,
 * unknown scopes.  On error *out is left empty. */
int hk_policy_parse(const char *text, size_t len, const char *filename, struct hk_policy *out,
		    struct hk_error *err);
int hk_policy_load(const char *path, struct hk_policy *out, struct hk_error *err);

/* Building in memory (used by policy derivation).  The path is copied.  Adding the same
 * (kind, path) twice is harmless: hk_policy_finish() deduplicates; conflicting kinds for one
 * path are resolved by hk_policy_finish() as an error. */
void hk_policy_add_grant(struct hk_policy *p, enum hk_grant_kind kind, const char *path);
void hk_policy_add_expect(struct hk_policy *p, const char *path);
/* Sorts (by path bytes), removes exact duplicates, rejects conflicting grants. */
int hk_policy_finish(struct hk_policy *p, struct hk_error *err);

/* Canonical text form (header, scopes, grants sorted by path, expects sorted).  Requires a
 * finished policy (hk_policy_parse output is finished). */
void hk_policy_encode(const struct hk_policy *p, struct hk_buf *out);
/* "b3:<hex>" of the canonical encoding. */
void hk_policy_id(const struct hk_policy *p, char out[HK_B3_ID_LEN]);

/* Whether a denial of `path` is expected by one of the expect lines. */
bool hk_policy_expects(const struct hk_policy *p, const char *path);
/* Whether the policy would let the cage read `path` (granted ro exactly, or beneath rw). */
bool hk_policy_grants_read(const struct hk_policy *p, const char *path);

/* Escaping used by the format, exposed for error messages and other encoders. */
void hk_policy_escape_path(const char *path, struct hk_buf *out);

const char *hk_grant_kind_name(enum hk_grant_kind kind);
void hk_policy_free(struct hk_policy *p);

#endif
