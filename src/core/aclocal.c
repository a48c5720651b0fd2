/* Macros an m4 file defines, and macros a build log says were missing (aclocal.h). */
#include "core/aclocal.h"

#include <stdbool.h>
#include <string.h>

#include "core/util.h"

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* An upper-case name with an underscore: how autoconf macros are spelt, and no command. */
static bool macro_like(const char *s, size_t n)
{
	bool under = false;
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
		under |= s[i] == '_';
	}
	return under;
}

void hk_aclocal_defuns(const char *text, size_t len, struct hk_strv *out)
{
	static const char *const calls[] = { "AC_DEFUN_ONCE(", "AC_DEFUN(", "AU_DEFUN(" };
	for (size_t i = 0; i < len; i++) {
		/* A call starts where no identifier goes on before it (not MY_AC_DEFUN). */
		if (i > 0 && ident_char(text[i - 1]))
			continue;
		size_t at = 0;
		for (size_t c = 0; c < HK_ARRAY_LEN(calls) && !at; c++) {
			size_t n = strlen(calls[c]);
			if (len - i >= n && memcmp(text + i, calls[c], n) == 0)
				at = i + n;
		}
		if (!at)
			continue;
		while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n'))
			at++;
		bool quoted = at < len && text[at] == '[';
		at += quoted;
		size_t end = at;
		while (end < len && ident_char(text[end]))
			end++;
		/* The name must end the argument: "[NAME]" or "NAME," — not an expansion. */
		bool whole = end < len && (quoted ? text[end] == ']' : (text[end] == ',' ||
									text[end] == ')'));
		if (end > at && whole)
			hk_strv_push_owned(out, hk_xstrndup(text + at, end - at));
		i = end > i ? end - 1 : i;
	}
}

static void add_miss(const char *name, size_t n, const char *line, size_t line_len,
		     struct hk_strv *macros, struct hk_strv *lines)
{
	if (!macro_like(name, n))
		return;
	char *m = hk_xstrndup(name, n);
	if (hk_strv_has(macros, m)) {
		free(m);
		return;
	}
	hk_strv_push_owned(macros, m);
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

void hk_aclocal_log_misses(const char *text, size_t len, struct hk_strv *macros,
			   struct hk_strv *lines)
{
	static const char undefined[] = "possibly undefined macro: ";
	size_t pos = 0;
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		size_t ln = n;
		while (ln > 0 && line[ln - 1] == '\r')
			ln--;
		const char *u = memmem(line, ln, undefined, sizeof(undefined) - 1);
		if (u) {
			const char *name = u + sizeof(undefined) - 1;
			size_t k = 0;
			while (name + k < line + ln && ident_char(name[k]))
				k++;
			add_miss(name, k, line, ln, macros, lines);
			continue;
		}
		size_t start, name_len;
		if (name_before(line, ln, ": command not found", &start, &name_len) ||
		    name_before(line, ln, ": not found", &start, &name_len))
			add_miss(line + start, name_len, line, ln, macros, lines);
	}
}
