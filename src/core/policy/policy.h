/* The policy file: what harkaq-exec grants inside the cage (design.md §3) and what the verdict
 * expects to see denied (design.md §5).  The format is documented in docs/policy-format.md.
 *
 * Text form (one directive per line; '#' at the start of a line begins a comment):
 *
 *     harkaq-policy 1                 first directive, mandatory
 *     base b3:<hex>                   the base the sandbox stands on (at most once): a pinned
 *                                     base's id, or "host" / "root" for an unpinned one;
 *                                     harkaq-exec ignores it, the PolicyId covers it
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

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"

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
	char *base;          /* owned: "b3:<hex>", "host", "root", or NULL (not stated) */
	/* Set by hk_policy_finish() and hk_policy_parse(): grants and expects are sorted by path
	 * bytes (strcmp order) and unique.  Cleared by hk_policy_add_*(). */
	bool finished;
};

#define HK_POLICY_INIT { NULL, 0, 0, NULL, 0, 0, 0, NULL, false }

/* Parses policy text.  `filename` is used only in error messages ("FILE:LINE:COL: …"; NULL
 * reads as "<policy>").  Rejects: a missing or wrong header, unknown keywords, relative or
 * non-normalised paths, bad escapes, a path granted twice (identical or conflicting), a path
 * expected twice, an expect on a granted path, unknown or repeated scopes, whitespace other than
 * the single space after the keyword, CR and NUL bytes.  The full rule set is in
 * docs/policy-format.md.  *out is overwritten (not freed first); on success it is finished and
 * owned by the caller (hk_policy_free); on error it is left empty.  Returns 0 or -EINVAL. */
HK_MUST_CHECK int hk_policy_parse(const char *text, size_t len, const char *filename, struct hk_policy *out,
		    struct hk_error *err);

/* Building in memory (used by policy derivation).  The path is copied.  Adding the same
 * (kind, path) twice is harmless: hk_policy_finish() deduplicates; conflicting kinds for one
 * path are resolved by hk_policy_finish() as an error. */
void hk_policy_add_grant(struct hk_policy *p, enum hk_grant_kind kind, const char *path);
void hk_policy_add_expect(struct hk_policy *p, const char *path);
/* Sorts (by path bytes), removes exact duplicates, rejects conflicting grants.  Also checks
 * everything the parser checks about a path (absolute, normalised, an expect not granted), so
 * the encoding of a finished policy always parses back to an equal policy.  On error (-EINVAL)
 * the policy may be reordered but is otherwise intact and still owned by the caller. */
HK_MUST_CHECK int hk_policy_finish(struct hk_policy *p, struct hk_error *err);

/* Canonical text form (header, scopes, grants sorted by path, expects sorted), appended to
 * `out`.  Requires a finished policy (hk_policy_parse output is finished): encoding an
 * unfinished non-empty policy is a programming error and aborts, because its text would not
 * be canonical and its PolicyId would be meaningless. */
void hk_policy_encode(const struct hk_policy *p, struct hk_buf *out);
/* "b3:<hex>" of the canonical encoding. */
void hk_policy_id(const struct hk_policy *p, char out[HK_B3_ID_LEN]);

/* Lookups take O(depth · log n) on a finished policy (binary search per ancestor); on an
 * unfinished one they fall back to a linear scan and stay correct. */

/* Whether a denial of `path` is expected by one of the expect lines: an exact expect equal to
 * `path`, or a beneath expect ("/dir/") of which `path` is strictly beneath. */
bool hk_policy_expects(const struct hk_policy *p, const char *path);
/* Whether the policy would let the cage read `path` (granted ro or rw exactly, or beneath an
 * rw grant).  A list grant is not a read grant. */
bool hk_policy_grants_read(const struct hk_policy *p, const char *path);
/* The grant of exactly `path`, or NULL.  The pointer is owned by the policy. */
const struct hk_policy_grant *hk_policy_find_grant(const struct hk_policy *p, const char *path);
/* The grants' addresses in strcmp order of their paths (finished policies are in another
 * order: kind, then path).  Malloc'd, n_grants entries (at least one slot). */
const struct hk_policy_grant **hk_policy_grants_by_path(const struct hk_policy *p);
/* First index in order[0..n) (sorted by path, as above) whose path is >= key. */
size_t hk_grants_lower_bound(const struct hk_policy_grant *const *order, size_t n,
			     const char *key);
/* Same scopes, same (kind, path) grants and same expects, in the same order (line numbers are
 * ignored).  Two finished policies are equal iff their canonical encodings are equal. */
bool hk_policy_equal(const struct hk_policy *a, const struct hk_policy *b);

/* Escaping used by the format, exposed for error messages and other encoders: appends `path`
 * to `out`: a byte outside 0x21..0x7e is written "\xHH" (lowercase hex), a backslash "\\",
 * every other byte as itself.  hk_policy_escape_bytes does the same for n bytes (which may hold NUL). */
void hk_policy_escape_path(const char *path, struct hk_buf *out);
void hk_policy_escape_bytes(const void *bytes, size_t n, struct hk_buf *out);

const char *hk_grant_kind_name(enum hk_grant_kind kind);
/* The base line's argument: "b3:" and 64 lowercase hex digits, "host" or "root". */
bool hk_policy_base_valid(const char *s, size_t n);
/* Sets (a copy of) or clears the base; `base` must satisfy hk_policy_base_valid. */
void hk_policy_set_base(struct hk_policy *p, const char *base);
void hk_policy_free(struct hk_policy *p);

#endif
