/* The directories ld.so.conf files name, and the libraries a build log says were not found
 * (dsc_ldconf.h). */
#include "core/debian/dsc_ldconf.h"

#include <stdbool.h>
#include <string.h>

#include "core/basic/util.h"

static bool separator(char c)
{
	return c == ' ' || c == '\t' || c == ':' || c == ',' || c == '=';
}

void hk_ldconf_dirs(const char *text, size_t len, struct hk_strv *out)
{
	size_t pos = 0, n;
	const char *line;
	while (hk_text_next_line(text, len, &pos, &line, &n)) {
		const char *hash = memchr(line, '#', n);
		if (hash)
			n = (size_t)(hash - line);
		size_t i = 0;
		while (i < n && separator(line[i]))
			i++;
		/* ldconfig's directives: an include names files, hwcap a capability. */
		static const char *const directives[] = { "include", "hwcap" };
		bool directive = false;
		for (size_t d = 0; d < HK_ARRAY_LEN(directives); d++) {
			size_t k = strlen(directives[d]);
			if (n - i > k && memcmp(line + i, directives[d], k) == 0 &&
			    (line[i + k] == ' ' || line[i + k] == '\t'))
				directive = true;
		}
		while (!directive && i < n) {
			size_t start = i;
			while (i < n && !separator(line[i]) && line[i] != '\r')
				i++;
			size_t end = i;
			while (end > start + 1 && line[end - 1] == '/')
				end--;
			if (end > start && line[start] == '/')
				hk_strv_push_owned(out, hk_xstrndup(line + start, end - start));
			while (i < n && (separator(line[i]) || line[i] == '\r'))
				i++;
		}
	}
}

static bool file_char(char c)
{
	return c > ' ' && c != '/' && c != ',' && c != '\'' && c != '"' && c != 0x7f;
}

static void add_miss(const char *name, size_t n, const char *line, size_t line_len,
		     struct hk_strv *libs, struct hk_strv *lines)
{
	if (n == 0)
		return;
	char *lib = hk_xstrndup(name, n);
	if (hk_strv_has(libs, lib)) {
		free(lib);
		return;
	}
	hk_strv_push_owned(libs, lib);
	if (lines)
		hk_strv_push_owned(lines, hk_xstrndup(line, line_len));
}

void hk_ldconf_log_misses(const char *text, size_t len, struct hk_strv *libs,
			  struct hk_strv *lines)
{
	static const char shlibdeps[] = "cannot find library ";
	static const char ld_tail[] = " not found (try using -rpath or -rpath-link)";
	static const char needed[] = ", needed by ";
	size_t pos = 0, n;
	const char *line;
	while (hk_text_next_line(text, len, &pos, &line, &n)) {
		const char *s = memmem(line, n, shlibdeps, sizeof(shlibdeps) - 1);
		if (s) {
			/* "cannot find library NAME needed by FILE (ELF format: …)" */
			const char *name = s + sizeof(shlibdeps) - 1;
			size_t k = 0;
			while (name + k < line + n && file_char(name[k]))
				k++;
			static const char by[] = " needed by ";
			if ((size_t)(line + n - (name + k)) >= sizeof(by) - 1 &&
			    memcmp(name + k, by, sizeof(by) - 1) == 0)
				add_miss(name, k, line, n, libs, lines);
			continue;
		}
		/* ld: "…: warning: NAME, needed by FILE, not found (try using -rpath …)" */
		if (n < sizeof(ld_tail) - 1 ||
		    memcmp(line + n - (sizeof(ld_tail) - 1), ld_tail, sizeof(ld_tail) - 1) != 0)
			continue;
		const char *nd = memmem(line, n, needed, sizeof(needed) - 1);
		if (!nd)
			continue;
		const char *b = nd;
		while (b > line && file_char(b[-1]))
			b--;
		if (b > line && b[-1] != ' ')
			continue;
		add_miss(b, (size_t)(nd - b), line, n, libs, lines);
	}
}
