/* ld.so.conf inside a root (ldconf.h). */
#include "core/root/ldconf.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"

/* Bound on nested "include" in ld.so.conf files (ldconfig has none; a loop must not hang). */
#define MAX_CONF_DEPTH 16

struct reader {
	const struct hk_root *root;
	const struct hk_ldconf *conf;
	struct hk_error *err;
};

static bool has_glob_magic(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Expands an include pattern inside the root: every component with glob characters is
 * matched against the directory listing of its (resolved) parent. */
static int glob_in_root(struct reader *c, const char *pattern, struct hk_strset *matches)
{
	struct hk_strset current = HK_STRSET_INIT;
	hk_strset_add(&current, "/");
	hk_autofree char *copy = hk_xstrdup(pattern);
	char *save = NULL;
	int r = 0;
	for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		struct hk_strset next = HK_STRSET_INIT;
		for (size_t i = 0; i < current.len && r == 0; i++) {
			if (!has_glob_magic(comp)) {
				hk_strset_add_owned(&next,
						    hk_root_path_join(current.items[i], comp));
				continue;
			}
			struct hk_resolved dir = HK_RESOLVED_INIT;
			r = hk_root_resolve(c->root, current.items[i], &dir, c->err);
			if (r < 0 || !S_ISDIR(dir.mode)) {
				bool absent = r == 0 || hk_root_absent(r);
				hk_resolved_free(&dir);
				if (absent) {
					r = 0;
					continue;   /* glob(3): a missing directory matches nothing */
				}
				break;
			}
			int fd = hk_root_open_canonical(c->root, dir.path, c->err);
			DIR *d = fd < 0 ? NULL : fdopendir(fd);
			if (!d) {
				r = fd < 0 ? fd
					   : hk_fail_errno(c->err, errno, "%s inside root %s: opendir",
							   dir.path, c->root->path);
				if (fd >= 0)
					close(fd);
				hk_resolved_free(&dir);
				break;
			}
			struct hk_strset names = HK_STRSET_INIT;
			for (struct dirent *de; (de = readdir(d));) {
				if (de->d_name[0] == '.' && comp[0] != '.')
					continue;
				if (fnmatch(comp, de->d_name, FNM_PERIOD) == 0)
					hk_strset_add(&names, de->d_name);
			}
			closedir(d);
			/* glob(3) sorts its matches; the C locale collates by bytes. */
			hk_strset_sort(&names);
			for (size_t k = 0; k < names.len; k++)
				hk_strset_add_owned(&next, hk_root_path_join(current.items[i],
									     names.items[k]));
			hk_strset_free(&names);
			hk_resolved_free(&dir);
		}
		hk_strset_free(&current);
		current = next;
		if (r < 0)
			break;
	}
	if (r == 0)
		hk_strset_add_all(matches, &current);
	hk_strset_free(&current);
	return r;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static bool starts_with_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\t');
}

/* Reads `file` (its includes at depth + 1): the rules are in ldconf.h. */
static int parse_conf(struct reader *c, const char *file, int depth)
{
	if (depth > MAX_CONF_DEPTH)
		return hk_fail(c->err, ELOOP, "%s inside root %s: includes nest deeper than %d",
			       file, c->root->path, MAX_CONF_DEPTH);
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = hk_root_resolve_regular(c->root, file, &res, c->err);
	if (r <= 0)
		return r;
	if (c->conf->included && depth > 0) {
		r = c->conf->included(c->conf->ctx, file);
		if (r < 0) {
			hk_resolved_free(&res);
			return r;
		}
	}
	struct hk_buf text = HK_BUF_INIT;
	r = hk_root_read(c->root, res.path, &text, c->err);
	hk_autofree char *file_dir = hk_root_path_dir(res.path);
	hk_resolved_free(&res);
	char *save = NULL;
	for (char *line = r < 0 || !text.data ? NULL : strtok_r(text.data, "\n", &save);
	     line && r == 0; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line = trim(line);
		if (*line == '\0' || starts_with_word(line, "hwcap"))
			continue;
		if (starts_with_word(line, "include")) {
			char *psave = NULL;
			for (char *pat = strtok_r(line + 7, " \t", &psave); pat && r == 0;
			     pat = strtok_r(NULL, " \t", &psave)) {
				hk_autofree char *full = pat[0] == '/' ? hk_xstrdup(pat)
								     : hk_root_path_join(file_dir, pat);
				struct hk_strset matches = HK_STRSET_INIT;
				r = glob_in_root(c, full, &matches);
				for (size_t i = 0; i < matches.len && r == 0; i++)
					r = parse_conf(c, matches.items[i], depth + 1);
				hk_strset_free(&matches);
			}
			continue;
		}
		size_t n = strlen(line);
		while (n > 1 && line[n - 1] == '/')
			line[--n] = '\0';
		/* ldconfig ignores relative directories (with a warning). */
		if (line[0] == '/' && c->conf->dirs)
			hk_strset_add(c->conf->dirs, line);
	}
	hk_buf_free(&text);
	if (r < 0)
		return hk_wrap(c->err, "reading %s", file);
	return 0;
}

int hk_ldconf_read(const struct hk_root *root, const char *file, const struct hk_ldconf *conf,
		   struct hk_error *err)
{
	struct reader rd = { root, conf, err };
	return parse_conf(&rd, file, 0);
}
