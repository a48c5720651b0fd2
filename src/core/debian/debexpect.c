/* The Debian toolchain's expectations and a package's own (core/debian/debexpect.h). */
#include "core/debian/debexpect.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"

/* The built-in set, in the file format.  Each entry is measured (docs/debian-corpus.md) and
 * has a test that the .debs are the same bytes whether the path is granted or denied
 * (tests/integration/dsc.sh, "expected denials"). */
static const char builtin_text[] =
	"# " HK_DEB_EXPECT_VERSION ": what dpkg-buildpackage builds always read beyond\n"
	"# Essential + build-essential + Build-Depends (docs/debian-builds.md).\n"
	"/usr/lib/*/perl5/*/Locale/gettext.pm perl(Dpkg::Gettext) Dpkg::Gettext tries "
	"'use Locale::gettext' inside an eval, to translate dpkg's own messages; refused, the "
	"messages stay untranslated, which LC_ALL=C.UTF-8 asks for anyway\n"
	"/usr/share/zoneinfo/Etc/UTC libc(tzset) /etc/localtime, the zone the base configures "
	"(tzdata, Priority required, links it to Etc/UTC), read by a process's first "
	"localtime(); refused, glibc takes UTC, the same zone\n";

const char *hk_deb_expect_builtin_text(void)
{
	return builtin_text;
}

void hk_deb_expect_builtin(struct hk_expect_set *out)
{
	struct hk_error err = { 0 };
	if (hk_deb_expect_parse(builtin_text, sizeof(builtin_text) - 1, "built-in",
				HK_DEB_EXPECT_VERSION, out, &err) < 0)
		abort();   /* tests/unit/test_debexpect.c parses it */
}

bool hk_expect_is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?") != NULL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The column of the first problem in `pat` (1-based within the line: `col0` is the pattern's),
 * with what is wrong, or 0 when it is a valid pattern. */
static unsigned pattern_problem(const char *pat, size_t n, unsigned col0, const char **why)
{
	if (pat[0] != '/') {
		*why = "not an absolute path (a pattern starts with '/')";
		return col0;
	}
	if (n == 1 || pat[n - 1] == '/') {
		*why = "ends with '/': a pattern names files (write the file pattern, e.g. DIR/*)";
		return col0 + (unsigned)n - 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (strchr("[]\\{}", pat[i])) {
			*why = "only '*' and '?' are wildcards (no brackets, braces or escapes)";
			return col0 + (unsigned)i;
		}
		if ((unsigned char)pat[i] < 0x20 || pat[i] == 0x7f) {
			*why = "a control character";
			return col0 + (unsigned)i;
		}
	}
	/* Components: none empty, "." or ".."; the first never a wildcard (it would expect
	 * denials anywhere in the tree). */
	size_t start = 1;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && pat[i] != '/')
			continue;
		size_t m = i - start;
		const char *c = pat + start;
		if (m == 0 || (m == 1 && c[0] == '.') || (m == 2 && c[0] == '.' && c[1] == '.')) {
			*why = "an empty, '.' or '..' component (write the path normalised)";
			return col0 + (unsigned)start;
		}
		if (start == 1 && (memchr(c, '*', m) || memchr(c, '?', m))) {
			*why = "a wildcard in the first component would expect denials anywhere";
			return col0 + (unsigned)start;
		}
		start = i + 1;
	}
	return 0;
}

static void entries_free(struct hk_expect_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].pattern);
		free(e[i].tool);
		free(e[i].reason);
		free(e[i].source);
	}
}

int hk_deb_expect_parse(const char *text, size_t len, const char *filename, const char *version,
			struct hk_expect_set *out, struct hk_error *err)
{
	if (len > HK_DEB_EXPECT_MAX)
		return hk_fail(err, EINVAL, "%s: %zu bytes is not an expectation file (at most %d)",
			       filename, len, HK_DEB_EXPECT_MAX);
	if (memchr(text, '\0', len))
		return hk_fail(err, EINVAL, "%s: a NUL byte: not a text file", filename);
	struct hk_expect_entry *add = NULL;
	size_t n = 0;
	unsigned *lines = NULL;
	int rc = 0;
	unsigned line = 0;
	for (size_t pos = 0; pos < len && rc == 0;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		pos += ll + (nl ? 1 : 0);
		line++;
		size_t i = 0;
		while (i < ll && blank(l[i]))
			i++;
		if (i == ll || l[i] == '#')
			continue;
		if (l[i] == '\r' || l[ll - 1] == '\r') {
			rc = hk_fail_at(err, EINVAL, filename, line, (unsigned)(l[i] == '\r' ? i : ll - 1) + 1,
					"a carriage return (write the file with LF line ends)");
			break;
		}
		size_t p0 = i;
		while (i < ll && !blank(l[i]))
			i++;
		size_t p1 = i;
		const char *why = NULL;
		unsigned col = pattern_problem(l + p0, p1 - p0, (unsigned)p0 + 1, &why);
		if (col) {
			rc = hk_fail_at(err, EINVAL, filename, line, col, "pattern '%.*s': %s",
					(int)(p1 - p0), l + p0, why);
			break;
		}
		while (i < ll && blank(l[i]))
			i++;
		size_t t0 = i;
		while (i < ll && !blank(l[i]))
			i++;
		size_t t1 = i;
		while (i < ll && blank(l[i]))
			i++;
		size_t r0 = i, r1 = ll;
		while (r1 > r0 && blank(l[r1 - 1]))
			r1--;
		if (t0 == t1 || r0 == r1) {
			rc = hk_fail_at(err, EINVAL, filename, line, (unsigned)(t0 == t1 ? t0 : r0) + 1,
					"expected %s after the pattern (PATTERN TOOL REASON…: "
					"every expectation says which tool reads the path and why "
					"the build's output does not depend on it)",
					t0 == t1 ? "the tool and the reason" : "the reason");
			break;
		}
		for (size_t k = 0; k < n; k++) {
			if (strlen(add[k].pattern) == p1 - p0 &&
			    memcmp(add[k].pattern, l + p0, p1 - p0) == 0) {
				rc = hk_fail_at(err, EINVAL, filename, line, (unsigned)p0 + 1,
						"pattern '%s' is already expected on line %u",
						add[k].pattern, lines[k]);
				break;
			}
		}
		if (rc < 0)
			break;
		add = hk_xrealloc(add, (n + 1) * sizeof(*add));
		lines = hk_xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n] = line;
		add[n++] = (struct hk_expect_entry){
			.pattern = hk_xstrndup(l + p0, p1 - p0),
			.tool = hk_xstrndup(l + t0, t1 - t0),
			.reason = hk_xstrndup(l + r0, r1 - r0),
			.source = version ? hk_xstrdup(version) : hk_xasprintf("%s:%u", filename, line),
		};
	}
	free(lines);
	if (rc < 0) {
		entries_free(add, n);
		free(add);
		return rc;
	}
	out->e = hk_xrealloc(out->e, (out->n + n + 1) * sizeof(*out->e));
	if (n)
		memcpy(out->e + out->n, add, n * sizeof(*add));
	out->n += n;
	free(add);
	return 0;
}

const struct hk_expect_entry *hk_expect_match(const struct hk_expect_set *s, const char *path)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (fnmatch(s->e[i].pattern, path, FNM_PATHNAME | FNM_PERIOD) == 0)
			return &s->e[i];
	return NULL;
}

char *hk_expect_note(const struct hk_expect_entry *e)
{
	return hk_xasprintf("%s: %s: %s", e->source, e->tool, e->reason);
}

void hk_expect_set_free(struct hk_expect_set *s)
{
	entries_free(s->e, s->n);
	free(s->e);
	s->e = NULL;
	s->n = 0;
}
