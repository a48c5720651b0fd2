/* What the Debian toolchain itself always does, stated as expectations (docs/debian-builds.md,
 * "Expected denials"): a versioned set of path patterns, each with the tool that reads it and
 * why the build's bytes do not depend on it, plus a package's own entries from
 * debian/harkaq-expect.  A denial matching an entry is classified "expected", as a recipe's
 * [expect] paths are (docs/recipe-format.md): still listed, never making a phase Impure.
 *
 * One text format for both, line by line:
 *
 *     # a comment
 *     PATTERN  TOOL  REASON…
 *
 * PATTERN is an absolute, normalised path in which '*' and '?' match within one component
 * (fnmatch with FNM_PATHNAME); TOOL is one word; REASON is the rest of the line.  Pure: text in,
 * values out. */
#ifndef HK_CORE_DEBEXPECT_H
#define HK_CORE_DEBEXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"

/* The version of the built-in set: it names the set in reports, JSON and evidence.  Bumped
 * whenever an entry is added, removed or changed. */
#define HK_DEB_EXPECT_VERSION "harkaq-debian-expect 1"

/* The file a source package adds its own entries in, relative to its unpacked tree. */
#define HK_DEB_EXPECT_FILE "debian/harkaq-expect"

/* A file of entries is small; a bigger one is a mistake. */
#define HK_DEB_EXPECT_MAX (64 * 1024)

struct hk_expect_entry {
	char *pattern;              /* "/usr/share/zoneinfo/Etc/UTC" */
	char *tool;                 /* "perl(Dpkg::Gettext)" */
	char *reason;               /* why the output does not depend on it */
	char *source;               /* HK_DEB_EXPECT_VERSION, or "debian/harkaq-expect:LINE" */
};

struct hk_expect_set {
	struct hk_expect_entry *e;
	size_t n;
};

#define HK_EXPECT_SET_INIT { NULL, 0 }

/* Appends the built-in set's entries to `out` (cannot fail: the set is tested to parse). */
void hk_deb_expect_builtin(struct hk_expect_set *out);
/* The built-in set as text, in the file format (for `harkaq` docs and tests). */
const char *hk_deb_expect_builtin_text(void);

/* Parses `len` bytes of the format above, appending to `out`; `filename` names the text in
 * errors ("FILE:LINE:COL: …") and in each entry's source ("FILE:LINE"), or, when `version` is
 * non-NULL, the source is `version` instead.  On error `out` is unchanged. */
HK_MUST_CHECK int hk_deb_expect_parse(const char *text, size_t len, const char *filename, const char *version,
			struct hk_expect_set *out, struct hk_error *err);

/* The first entry whose pattern matches `path` (a sandbox path), or NULL. */
const struct hk_expect_entry *hk_expect_match(const struct hk_expect_set *s, const char *path);

/* "SOURCE: TOOL: REASON" — what an expected denial's diagnosis says.  Malloc'd. */
char *hk_expect_note(const struct hk_expect_entry *e);

/* Whether `pattern` has a '*' or '?'. */
bool hk_expect_is_glob(const char *pattern);

void hk_expect_set_free(struct hk_expect_set *s);

#endif
