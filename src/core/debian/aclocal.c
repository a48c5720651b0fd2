/* What m4 files define, and what a build log says was missing (aclocal.h). */
#include "core/debian/aclocal.h"

#include <stdbool.h>
#include <string.h>

#include "core/basic/util.h"

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A shell or m4 identifier: what a variable or a conditional is called. */
static bool ident_like(const char *s, size_t n)
{
	return n > 0 && !(s[0] >= '0' && s[0] <= '9');
}

/* An upper-case name with an underscore: how autoconf macros are spelt, and no command. */
static bool macro_like(const char *s, size_t n)
{
	bool under = false;
	if (!ident_like(s, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
		under |= s[i] == '_';
	}
	return under;
}

const char *hk_aclocal_kind_name(enum hk_aclocal_kind kind)
{
	switch (kind) {
	case HK_ACLOCAL_MACRO:
		return "macro";
	case HK_ACLOCAL_VARIABLE:
		return "variable";
	case HK_ACLOCAL_CONDITIONAL:
		return "conditional";
	default:
		return "?";
	}
}

void hk_aclocal_names(const char *text, size_t len, enum hk_aclocal_kind kind,
		      struct hk_strv *out)
{
	/* The longer spelling first: AC_DEFUN_ONCE( is not AC_DEFUN( followed by a name. */
	static const char *const macro_calls[] = { "AC_DEFUN_ONCE(", "AC_DEFUN(", "AU_DEFUN(",
						   NULL };
	static const char *const variable_calls[] = { "AC_SUBST_FILE(", "AC_SUBST(", NULL };
	static const char *const conditional_calls[] = { "AM_CONDITIONAL(", NULL };
	const char *const *calls = kind == HK_ACLOCAL_MACRO      ? macro_calls
				   : kind == HK_ACLOCAL_VARIABLE ? variable_calls
				   : kind == HK_ACLOCAL_CONDITIONAL ? conditional_calls
								    : NULL;
	for (size_t i = 0; calls && i < len; i++) {
		/* A call starts where no identifier goes on before it (not MY_AC_DEFUN). */
		if (i > 0 && ident_char(text[i - 1]))
			continue;
		size_t at = 0;
		for (size_t c = 0; calls[c] && !at; c++) {
			size_t n = strlen(calls[c]);
			if (len - i >= n && memcmp(text + i, calls[c], n) == 0)
				at = i + n;
		}
		if (!at)
			continue;
		while (at < len && blank(text[at]))
			at++;
		bool quoted = at < len && text[at] == '[';
		at += quoted;
		size_t end = at;
		while (end < len && ident_char(text[end]))
			end++;
		/* The name must be the whole argument: "[NAME]" or "NAME" then "," or ")" — not
		 * an expansion ("[$1_CFLAGS]") nor a name put together ("[HAVE_][$1]"). */
		size_t after = end;
		if (quoted && after < len && text[after] == ']')
			after++;
		else if (quoted)
			after = len;
		while (after < len && blank(text[after]))
			after++;
		bool whole = after < len && (text[after] == ',' || text[after] == ')');
		if (end > at && whole && ident_like(text + at, end - at))
			hk_strv_push_owned(out, hk_xstrndup(text + at, end - at));
		i = end > i ? end - 1 : i;
	}
}

void hk_aclocal_defuns(const char *text, size_t len, struct hk_strv *out)
{
	hk_aclocal_names(text, len, HK_ACLOCAL_MACRO, out);
}

static void add_miss(const char *name, size_t n, bool valid, const char *line, size_t line_len,
		     struct hk_strv *names, struct hk_strv *lines)
{
	if (!valid)
		return;
	char *m = hk_xstrndup(name, n);
	if (hk_strv_has(names, m)) {
		free(m);
		return;
	}
	hk_strv_push_owned(names, m);
	if (lines)
		hk_strv_push_owned(lines, hk_xstrndup(line, line_len));
}

/* The name just before `suffix` at the end of the line, if the line ends so. */
static bool name_before(const char *line, size_t n, const char *suffix, size_t *start,
			size_t *name_len)
{
	size_t s = strlen(suffix);
	if (n < s || memcmp(line + n - s, suffix, s) != 0)
		return false;
	size_t end = n - s, b = end;
	while (b > 0 && ident_char(line[b - 1]))
		b--;
	*start = b;
	*name_len = end - b;
	return true;
}

/* One line of the log, without its line end, for `kind`. */
static void line_misses(const char *line, size_t ln, enum hk_aclocal_kind kind,
			struct hk_strv *names, struct hk_strv *lines)
{
	size_t start, name_len;
	switch (kind) {
	case HK_ACLOCAL_MACRO: {
		static const char undefined[] = "possibly undefined macro: ";
		const char *u = memmem(line, ln, undefined, sizeof(undefined) - 1);
		if (u) {
			const char *name = u + sizeof(undefined) - 1;
			size_t k = 0;
			while (name + k < line + ln && ident_char(name[k]))
				k++;
			add_miss(name, k, macro_like(name, k), line, ln, names, lines);
		} else if (name_before(line, ln, ": command not found", &start, &name_len) ||
			   name_before(line, ln, ": not found", &start, &name_len)) {
			add_miss(line + start, name_len, macro_like(line + start, name_len), line, ln,
				 names, lines);
		}
		break;
	}
	case HK_ACLOCAL_VARIABLE:
		/* automake's require_variables: "REASON but 'NAME' is undefined", the name
		 * quoted, never a bare word. */
		if (name_before(line, ln, "' is undefined", &start, &name_len) && start > 0 &&
		    (line[start - 1] == '\'' || line[start - 1] == '`'))
			add_miss(line + start, name_len, ident_like(line + start, name_len), line, ln,
				 names, lines);
		break;
	case HK_ACLOCAL_CONDITIONAL:
		if (name_before(line, ln, " does not appear in AM_CONDITIONAL", &start, &name_len) &&
		    (start == 0 || line[start - 1] == ' '))
			add_miss(line + start, name_len, ident_like(line + start, name_len), line, ln,
				 names, lines);
		break;
	default:
		break;
	}
}

void hk_aclocal_log_misses(const char *text, size_t len, enum hk_aclocal_kind kind,
			   struct hk_strv *names, struct hk_strv *lines)
{
	size_t pos = 0, n;
	const char *line;
	while (hk_text_next_line(text, len, &pos, &line, &n))
		line_misses(line, n, kind, names, lines);
}
