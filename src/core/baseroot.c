#include "core/baseroot.h"
#include "core/buf.h"
#include "core/elf.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's limit on symlinks followed in one path walk (MAXSYMLINKS). */
#define MAX_LINKS 40
/* fs/exec.c: exec_binprm() accepts 5 binfmt rewrites ("#!" scripts) before -ELOOP. */
#define MAX_SCRIPT_REWRITES 5
/* Bound on nested "include" in ld.so.conf files (ldconfig has none; a loop must not hang). */
#define MAX_CONF_DEPTH 16

/* ---- resolution inside a root ------------------------------------------------------------- */

int hk_root_open(const char *path, struct hk_root *root, struct hk_error *err)
{
	*root = (struct hk_root)HK_ROOT_INIT;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "base root %s", path);
	root->fd = fd;
	root->path = hk_xstrdup(path);
	return 0;
}

void hk_root_close(struct hk_root *root)
{
	if (root->fd >= 0)
		close(root->fd);
	free(root->path);
	*root = (struct hk_root)HK_ROOT_INIT;
}

void hk_resolved_free(struct hk_resolved *res)
{
	free(res->path);
	hk_strset_free(&res->file_links);
	hk_strset_free(&res->dir_links);
	*res = (struct hk_resolved)HK_RESOLVED_INIT;
}

/* The directories walked so far: canonical path text plus one O_PATH descriptor per level, so
 * ".." returns to the real parent (as the kernel resolves it) without a lookup by name. */
struct walk {
	const struct hk_root *root;
	struct hk_buf canon;   /* "" for the root, else "/usr/bin" … */
	int *fds;
	size_t depth, cap;
};

static int walk_fd(const struct walk *w)
{
	return w->depth ? w->fds[w->depth - 1] : w->root->fd;
}

static void walk_push(struct walk *w, int fd, const char *name)
{
	if (w->depth == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->fds = hk_xrealloc(w->fds, w->cap * sizeof(*w->fds));
	}
	w->fds[w->depth++] = fd;
	hk_buf_putc(&w->canon, '/');
	hk_buf_puts(&w->canon, name);
}

static void walk_pop(struct walk *w)
{
	if (w->depth == 0)
		return;
	close(w->fds[--w->depth]);
	char *slash = strrchr(w->canon.data, '/');
	w->canon.len = (size_t)(slash - w->canon.data);
	w->canon.data[w->canon.len] = '\0';
}

static void walk_free(struct walk *w)
{
	while (w->depth)
		walk_pop(w);
	free(w->fds);
	hk_buf_free(&w->canon);
}

struct met_link {
	char *path;
	bool terminal;   /* met as the last component of the path still to resolve */
};

int hk_root_resolve(const struct hk_root *root, const char *path, struct hk_resolved *out,
		    struct hk_error *err)
{
	*out = (struct hk_resolved)HK_RESOLVED_INIT;
	if (path[0] != '/')
		return hk_fail(err, EINVAL, "%s: not an absolute path (inside root %s)", path,
			       root->path);

	struct walk w = { root, HK_BUF_INIT, NULL, 0, 0 };
	hk_buf_puts(&w.canon, "");
	struct met_link *links = NULL;
	size_t n_links = 0;
	char *remaining = hk_xstrdup(path);   /* what is left to resolve, always owned */
	char *target = hk_xmalloc(PATH_MAX + 1);
	struct stat st;
	int r = 0;
	bool final_is_dir = true;

	const char *p = remaining;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;   /* the path names the directory reached so far */
		const char *end = strchrnul(p, '/');
		hk_autofree char *comp = hk_xstrndup(p, (size_t)(end - p));
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = *rest == '\0';
		bool trailing_slash = last && *end == '/';

		if (strcmp(comp, ".") == 0) {
			p = end;
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			walk_pop(&w);
			p = end;
			continue;
		}
		if (fstatat(walk_fd(&w), comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = hk_fail_errno(err, errno, "%s inside root %s: %s%s%s", path, root->path,
					  w.canon.len ? w.canon.data : "", "/", comp);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			if (n_links == MAX_LINKS) {
				r = hk_fail(err, ELOOP,
					    "%s inside root %s: more than %d symbolic links", path,
					    root->path, MAX_LINKS);
				goto out;
			}
			ssize_t n = readlinkat(walk_fd(&w), comp, target, PATH_MAX + 1);
			if (n < 0 || n > PATH_MAX) {
				r = n < 0 ? hk_fail_errno(err, errno, "%s inside root %s: readlink %s/%s",
							  path, root->path, w.canon.data, comp)
					  : hk_fail(err, ENAMETOOLONG,
						    "%s inside root %s: link %s/%s is too long", path,
						    root->path, w.canon.data, comp);
				goto out;
			}
			target[n] = '\0';
			links = hk_xrealloc(links, (n_links + 1) * sizeof(*links));
			links[n_links].path = hk_xasprintf("%s/%s", w.canon.data, comp);
			links[n_links].terminal = last && !trailing_slash;
			n_links++;
			/* An absolute target restarts at the ROOT, never at the host's "/". */
			if (target[0] == '/')
				while (w.depth)
					walk_pop(&w);
			char *next = hk_xasprintf("%s%s%s", target, *rest || trailing_slash ? "/" : "",
						  rest);
			free(remaining);
			remaining = next;
			p = remaining;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(walk_fd(&w), comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				r = hk_fail_errno(err, errno, "%s inside root %s: open %s/%s", path,
						  root->path, w.canon.data, comp);
				goto out;
			}
			walk_push(&w, fd, comp);
			p = end;
			continue;
		}
		if (!last || trailing_slash) {
			r = hk_fail_errno(err, ENOTDIR, "%s inside root %s: %s/%s", path, root->path,
					  w.canon.data, comp);
			goto out;
		}
		hk_buf_putc(&w.canon, '/');
		hk_buf_puts(&w.canon, comp);
		final_is_dir = false;
		break;
	}
	if (final_is_dir && fstat(walk_fd(&w), &st) < 0) {
		r = hk_fail_errno(err, errno, "%s inside root %s: fstat", path, root->path);
		goto out;
	}
	out->path = hk_xstrdup(w.canon.len ? w.canon.data : "/");
	out->mode = st.st_mode;
	for (size_t i = 0; i < n_links; i++) {
		bool file_link = links[i].terminal && !S_ISDIR(st.st_mode);
		hk_strset_add(file_link ? &out->file_links : &out->dir_links, links[i].path);
	}
out:
	for (size_t i = 0; i < n_links; i++)
		free(links[i].path);
	free(links);
	free(remaining);
	free(target);
	walk_free(&w);
	return r;
}

int hk_root_open_canonical(const struct hk_root *root, const char *canonical,
			   struct hk_error *err)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = canonical[1] ? canonical + 1 : ".";
	int fd = (int)syscall(SYS_openat2, root->fd, rel, &how, sizeof(how));
	/* Before Linux 5.6: the canonical path has no link by construction; O_NOFOLLOW still
	 * refuses one in the last component. */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(root->fd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return hk_fail_errno(err, errno, "%s inside root %s: open", canonical, root->path);
	return fd;
}

/* ---- closure state ------------------------------------------------------------------------ */

void hk_runtime_closure_free(struct hk_runtime_closure *c)
{
	hk_strset_free(&c->files);
	hk_strset_free(&c->file_links);
	hk_strset_free(&c->dir_links);
}

void hk_runtime_closure_paths(const struct hk_runtime_closure *c, struct hk_strset *out)
{
	hk_strset_add_all(out, &c->files);
	hk_strset_add_all(out, &c->file_links);
	hk_strset_sort(out);
}

struct closure {
	struct hk_root root;
	struct hk_runtime_closure *out;
	struct hk_strset expanded;        /* objects whose dependencies were already walked */
	bool conf_loaded;
	bool cache_exists;
	struct hk_strset conf_dirs;       /* ld.so.conf directories, in file order */
	bool cache_consulted;
	struct hk_strset preloaded;       /* ELF identifications whose ld.so.preload was applied */
	/* Reading a configuration as data (HK_ENTRY_LDCONF): record every file it includes and
	 * leave the loader's search directories alone. */
	bool conf_as_data;
	struct hk_error *err;
};

/* What the libraries of one program share: the interpreter is already loaded under its
 * DT_SONAME, so a DT_NEEDED naming it (libc.so.6 needs ld-linux-x86-64.so.2) is satisfied
 * without a search, as glibc's name match on loaded objects does. */
struct program {
	const char *interp_soname;
};

static char *join_path(const char *dir, const char *name)
{
	return hk_xasprintf("%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
}

static char *dir_of(const char *canonical)
{
	const char *slash = strrchr(canonical, '/');
	if (!slash || slash == canonical)
		return hk_xstrdup("/");
	return hk_xstrndup(canonical, (size_t)(slash - canonical));
}

static void record(struct closure *c, const struct hk_resolved *res)
{
	if (!S_ISDIR(res->mode))
		hk_strset_add(&c->out->files, res->path);
	hk_strset_add_all(&c->out->file_links, &res->file_links);
	hk_strset_add_all(&c->out->dir_links, &res->dir_links);
}

static bool is_absent(int r)
{
	return r == -ENOENT || r == -ENOTDIR;
}

/* Resolves `path` inside the root, wanting a regular file: 1 with *res filled (the caller's
 * to free), 0 when the path is absent or not a regular file (neither is an error: the loader
 * and ldconfig skip such paths too), or the failure. */
static int resolve_regular(struct closure *c, const char *path, struct hk_resolved *res)
{
	int r = hk_root_resolve(&c->root, path, res, c->err);
	if (is_absent(r)) {
		hk_error_clear(c->err);
		return 0;
	}
	if (r < 0)
		return r;
	if (!S_ISREG(res->mode)) {
		hk_resolved_free(res);
		return 0;
	}
	return 1;
}

static int read_exec(struct closure *c, const char *canonical, struct hk_exec_info *info)
{
	hk_autoclose int fd = hk_root_open_canonical(&c->root, canonical, c->err);
	if (fd < 0)
		return fd;
	return hk_exec_read_fd(fd, canonical, info, c->err);
}

/* ---- ld.so.conf --------------------------------------------------------------------------- */

static bool has_glob_magic(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Expands an include pattern inside the root: every component with glob characters is
 * matched against the directory listing of its (resolved) parent. */
static int glob_in_root(struct closure *c, const char *pattern, struct hk_strset *matches)
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
				hk_strset_add_owned(&next, join_path(current.items[i], comp));
				continue;
			}
			struct hk_resolved dir = HK_RESOLVED_INIT;
			r = hk_root_resolve(&c->root, current.items[i], &dir, c->err);
			if (r < 0 || !S_ISDIR(dir.mode)) {
				bool absent = r == 0 || is_absent(r);
				hk_resolved_free(&dir);
				if (absent) {
					r = 0;
					continue;   /* glob(3): a missing directory matches nothing */
				}
				break;
			}
			int fd = hk_root_open_canonical(&c->root, dir.path, c->err);
			DIR *d = fd < 0 ? NULL : fdopendir(fd);
			if (!d) {
				r = fd < 0 ? fd : hk_fail_errno(c->err, errno, "%s inside root %s: opendir", dir.path,
							   c->root.path);
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
				hk_strset_add_owned(&next, join_path(current.items[i], names.items[k]));
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

static int read_whole(struct closure *c, const char *canonical, struct hk_buf *out)
{
	hk_autoclose int fd = hk_root_open_canonical(&c->root, canonical, c->err);
	if (fd < 0)
		return fd;
	int r = hk_buf_read_fd(out, fd);
	if (r < 0)
		return hk_fail_errno(c->err, -r, "%s inside root %s: read", canonical,
				     c->root.path);
	return 0;
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

/* ldconfig's rules: '#' starts a comment; "include PATTERN…" (a relative pattern is relative
 * to the including file's directory, matches in glob order); "hwcap" lines are obsolete and
 * ignored; any other line is one directory.  Missing files are not errors (ldconfig too). */
static int expand_data(struct closure *c, const char *path, bool optional);

static int parse_conf(struct closure *c, const char *file, int depth)
{
	if (depth > MAX_CONF_DEPTH)
		return hk_fail(c->err, ELOOP, "%s inside root %s: includes nest deeper than %d",
			       file, c->root.path, MAX_CONF_DEPTH);
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = resolve_regular(c, file, &res);
	if (r <= 0)
		return r;
	if (c->conf_as_data && depth > 0) {
		r = expand_data(c, file, true);
		if (r < 0) {
			hk_resolved_free(&res);
			return r;
		}
	}
	struct hk_buf text = HK_BUF_INIT;
	r = read_whole(c, res.path, &text);
	hk_autofree char *file_dir = dir_of(res.path);
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
								     : join_path(file_dir, pat);
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
		if (line[0] == '/' && !c->conf_as_data)
			hk_strset_add(&c->conf_dirs, line);
	}
	hk_buf_free(&text);
	if (r < 0)
		return hk_wrap(c->err, "reading %s", file);
	return 0;
}

/* The loader consults /etc/ld.so.cache, which ldconfig built from ld.so.conf; the cache's
 * directories are emulated by reading the configuration in order.  Without a cache file the
 * loader goes straight to its built-in directories, and so does the closure. */
static int load_conf(struct closure *c)
{
	if (c->conf_loaded)
		return 0;
	c->conf_loaded = true;
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = resolve_regular(c, "/etc/ld.so.cache", &res);
	if (r <= 0)
		return r;
	c->cache_exists = true;
	hk_resolved_free(&res);
	return parse_conf(c, "/etc/ld.so.conf", 0);
}

/* ---- the closure walk --------------------------------------------------------------------- */

static int expand_program(struct closure *c, const char *name, int script_depth);
static int load_library(struct closure *c, const struct program *prog, const char *found_path,
			const struct hk_resolved *res, const struct hk_strset *chain);

static char *chain_key(const char *kind, const char *canonical, const struct hk_strset *chain)
{
	struct hk_buf key = HK_BUF_INIT;
	hk_buf_printf(&key, "%s%s", kind, canonical);
	for (size_t i = 0; chain && i < chain->len; i++)
		hk_buf_printf(&key, "%c%s", i ? ':' : '\n', chain->items[i]);
	return hk_buf_steal(&key);
}

struct search {
	const struct program *prog;
	const char *name;                 /* the DT_NEEDED entry */
	const char *requester;            /* canonical path of the object that needs it */
	const struct hk_elf_ident *ident; /* the requester's: candidates must match it */
	const struct hk_strset *chain;    /* RPATHs the found library inherits */
	bool found_any;
	bool from_cache;                  /* searching the ld.so.cache stand-in (see try_candidate) */
	struct hk_buf tried;              /* directories searched, for the error message */
};

/* 1: a compatible library was found at `path` (recorded and walked); 0: not a candidate. */
static int try_candidate(struct closure *c, struct search *s, const char *path)
{
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = resolve_regular(c, path, &res);
	if (r <= 0)
		return r;
	struct hk_elf_ident id;
	int fd = hk_root_open_canonical(&c->root, res.path, c->err);
	r = fd < 0 ? fd : hk_elf_read_ident_fd(fd, res.path, &id, c->err);
	if (fd >= 0)
		close(fd);
	/* The cache holds only ELF objects, each tagged with its architecture, and the loader
	 * takes only entries of its own: other files of a configured directory are never opened.
	 * Everywhere else (RPATH, RUNPATH, system directories, paths) the loader OPENS each
	 * candidate and reads its header: a non-ELF file stops it ("invalid ELF header"), one
	 * of another class or machine is skipped — but it was opened, so it is part of what the
	 * cage must let the loader read, or every run would log a denial for it. */
	if (r == -ENOEXEC && s->from_cache) {
		hk_error_clear(c->err);
		hk_resolved_free(&res);
		return 0;
	}
	if (r == 0 && !hk_elf_ident_equal(&id, s->ident)) {
		if (!s->from_cache)
			record(c, &res);
		hk_resolved_free(&res);
		return 0;
	}
	if (r == 0) {
		s->found_any = true;
		record(c, &res);
		r = load_library(c, s->prog, path, &res, s->chain);
	}
	hk_resolved_free(&res);
	return r < 0 ? r : 1;
}

/* One search directory: its glibc-hwcaps subdirectories first.  Which of those the loader
 * takes depends on the CPU that runs the build, so every compatible one is part of the
 * closure, and the search stops only at a match in the directory itself (what a CPU without
 * any of those levels loads). */
static int try_dir(struct closure *c, struct search *s, const char *dir)
{
	hk_buf_printf(&s->tried, "%s%s", s->tried.len ? ":" : "", dir);
	for (const char *const *hw = hk_elf_hwcaps_subdirs(s->ident); *hw; hw++) {
		hk_autofree char *sub = hk_xasprintf("%s/glibc-hwcaps/%s", dir, *hw);
		hk_autofree char *path = join_path(sub, s->name);
		int r = try_candidate(c, s, path);
		if (r < 0)
			return r;
	}
	hk_autofree char *path = join_path(dir, s->name);
	return try_candidate(c, s, path);
}

static int try_dirs(struct closure *c, struct search *s, const struct hk_strset *dirs)
{
	for (size_t i = 0; i < dirs->len; i++) {
		int r = try_dir(c, s, dirs->items[i]);
		if (r != 0)
			return r;
	}
	return 0;
}

/* glibc's _dl_map_object search order for a name without '/'. */
static int find_library(struct closure *c, struct search *s, const struct hk_exec_info *obj,
			const struct hk_strset *rpath_stage, const struct hk_strset *runpath,
			bool optional)
{
	int r = try_dirs(c, s, rpath_stage);
	if (r == 0)
		r = try_dirs(c, s, runpath);
	if (r == 0 && !obj->nodeflib) {
		r = load_conf(c);
		if (r == 0 && c->cache_exists) {
			c->cache_consulted = true;
			s->from_cache = true;
			r = try_dirs(c, s, &c->conf_dirs);
			s->from_cache = false;
		}
		if (r == 0) {
			struct hk_strset system_dirs = HK_STRSET_INIT;
			const char *triplet = hk_elf_multiarch_triplet(s->ident);
			if (triplet) {
				hk_strset_add_owned(&system_dirs, hk_xasprintf("/lib/%s", triplet));
				hk_strset_add_owned(&system_dirs, hk_xasprintf("/usr/lib/%s", triplet));
			}
			hk_strset_add(&system_dirs, "/lib");
			hk_strset_add(&system_dirs, "/usr/lib");
			r = try_dirs(c, s, &system_dirs);
			hk_strset_free(&system_dirs);
		}
	}
	if (r < 0)
		return r;
	if (!s->found_any && !optional) {
		char desc[64];
		return hk_fail(c->err, ENOENT,
			       "%s (needed by %s, %s) not found inside root %s; searched %s",
			       s->name, s->requester, hk_elf_ident_describe(s->ident, desc, sizeof(desc)),
			       c->root.path, s->tried.len ? s->tried.data : "no directory");
	}
	return 0;
}

/* A name with '/' is opened as a path, without search. */
static int load_by_path(struct closure *c, const struct program *prog, const char *path,
			const char *requester, const struct hk_elf_ident *ident,
			const struct hk_strset *chain, bool optional)
{
	if (path[0] != '/')
		return hk_fail(c->err, EINVAL,
			       "%s needs \"%s\", a relative path the loader would resolve against "
			       "the build's working directory", requester, path);
	struct search s = { prog, path, requester, ident, chain, false, false, HK_BUF_INIT };
	int r = try_candidate(c, &s, path);
	hk_buf_free(&s.tried);
	if (r < 0)
		return r;
	if (r == 0 && !optional)
		return hk_fail(c->err, ENOENT, "%s (needed by %s) not found inside root %s or not a "
			       "compatible ELF object", path, requester, c->root.path);
	return 0;
}

static int expand_search_path(struct closure *c, const char *value, const char *found_path,
			      const struct hk_exec_info *obj, const char *canonical,
			      struct hk_strset *dirs)
{
	/* $ORIGIN is the directory the object was found in (for a library, the directory of the
	 * name the loader opened, resolved; for the program, that of its canonical path, as
	 * /proc/self/exe gives it).  Computed only when a token needs it. */
	hk_autofree char *origin = NULL;
	if (strchr(value, '$')) {
		hk_autofree char *dir = dir_of(found_path);
		struct hk_resolved res = HK_RESOLVED_INIT;
		int r = hk_root_resolve(&c->root, dir, &res, c->err);
		if (r < 0)
			return r;
		origin = hk_steal_ptr(&res.path);
		hk_resolved_free(&res);
	}
	return hk_elf_expand_search_path(value, origin ? origin : "", &obj->ident, canonical, dirs,
					 c->err);
}

static int load_deps(struct closure *c, const struct program *prog, const struct hk_exec_info *obj,
		     const char *found_path, const char *canonical, const struct hk_strset *chain)
{
	struct hk_strset own_rpath = HK_STRSET_INIT, runpath = HK_STRSET_INIT;
	struct hk_strset rpath_stage = HK_STRSET_INIT, child_chain = HK_STRSET_INIT;
	int r = 0;
	/* "If both RUNPATH and RPATH are given, the latter is ignored" (glibc), and an object with
	 * RUNPATH does not search the RPATHs of the objects that loaded it either. */
	if (obj->runpath)
		r = expand_search_path(c, obj->runpath, found_path, obj, canonical, &runpath);
	else if (obj->rpath)
		r = expand_search_path(c, obj->rpath, found_path, obj, canonical, &own_rpath);
	if (r == 0) {
		hk_strset_add_all(&child_chain, &own_rpath);
		if (chain)
			hk_strset_add_all(&child_chain, chain);
		if (!obj->runpath)
			hk_strset_add_all(&rpath_stage, &child_chain);
	}
	for (size_t i = 0; i < obj->n_needed && r == 0; i++) {
		const char *name = obj->needed[i];
		if (prog->interp_soname && strcmp(name, prog->interp_soname) == 0)
			continue;
		if (strchr(name, '/')) {
			r = load_by_path(c, prog, name, canonical, &obj->ident, &child_chain, false);
			continue;
		}
		struct search s = { prog, name, canonical, &obj->ident, &child_chain, false, false,
				    HK_BUF_INIT };
		r = find_library(c, &s, obj, &rpath_stage, &runpath, false);
		hk_buf_free(&s.tried);
	}
	hk_strset_free(&own_rpath);
	hk_strset_free(&runpath);
	hk_strset_free(&rpath_stage);
	hk_strset_free(&child_chain);
	return r;
}

static int load_library(struct closure *c, const struct program *prog, const char *found_path,
			const struct hk_resolved *res, const struct hk_strset *chain)
{
	hk_autofree char *key = chain_key("L", res->path, chain);
	if (!hk_strset_add(&c->expanded, key))
		return 0;
	struct hk_exec_info info;
	int r = read_exec(c, res->path, &info);
	if (r < 0)
		return r;
	if (info.format != HK_EXEC_ELF)
		r = hk_fail(c->err, ENOEXEC, "%s: a shared library that is not an ELF object",
			    res->path);
	else
		r = load_deps(c, prog, &info, found_path, res->path, chain);
	hk_exec_info_free(&info);
	return r;
}

/* glibc reads /etc/ld.so.preload (whitespace- or ':'-separated) in every dynamic program and
 * loads what it names before the program's own libraries; a name it cannot load is reported
 * and ignored, so a missing one is not an error here either. */
static int apply_preload(struct closure *c, const struct program *prog,
			 const struct hk_exec_info *main_obj, const char *canonical)
{
	char desc[64];
	hk_elf_ident_describe(&main_obj->ident, desc, sizeof(desc));
	if (!hk_strset_add(&c->preloaded, desc))
		return 0;
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = hk_root_resolve(&c->root, "/etc/ld.so.preload", &res, c->err);
	if (is_absent(r)) {
		hk_error_clear(c->err);
		return 0;
	}
	if (r < 0)
		return r;
	if (!S_ISREG(res.mode)) {
		hk_resolved_free(&res);
		return 0;
	}
	record(c, &res);
	struct hk_buf text = HK_BUF_INIT;
	r = read_whole(c, res.path, &text);
	hk_resolved_free(&res);
	char *save = NULL;
	struct hk_strset none = HK_STRSET_INIT;
	for (char *tok = r < 0 || !text.data ? NULL : strtok_r(text.data, " \t\n:", &save);
	     tok && r == 0; tok = strtok_r(NULL, " \t\n:", &save)) {
		if (strchr(tok, '/')) {
			r = load_by_path(c, prog, tok, "/etc/ld.so.preload", &main_obj->ident, &none,
					 true);
			continue;
		}
		struct search s = { prog, tok, canonical, &main_obj->ident, &none, false, false,
				    HK_BUF_INIT };
		r = find_library(c, &s, main_obj, &none, &none, true);
		hk_buf_free(&s.tried);
	}
	hk_buf_free(&text);
	return r;
}

static int lookup_in_path(struct closure *c, const char *name, char **out)
{
	hk_autofree char *dirs = hk_xstrdup(HK_BASE_PATH);
	char *save = NULL;
	for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		hk_autofree char *cand = join_path(dir, name);
		struct hk_resolved res = HK_RESOLVED_INIT;
		int r = hk_root_resolve(&c->root, cand, &res, c->err);
		if (is_absent(r)) {
			hk_error_clear(c->err);
			continue;
		}
		if (r < 0)
			return r;
		bool executable = S_ISREG(res.mode) && (res.mode & 0111);
		hk_resolved_free(&res);
		if (executable) {
			*out = hk_steal_ptr(&cand);
			return 0;
		}
	}
	return hk_fail(c->err, ENOENT, "%s: not found in PATH %s inside root %s", name,
		       HK_BASE_PATH, c->root.path);
}

/* The program interpreter named by PT_INTERP: an ELF object the kernel maps itself.  Its
 * DT_SONAME is what the program's libraries call it. */
static int expand_interp(struct closure *c, const char *interp, const char *program,
			 char **soname)
{
	if (interp[0] != '/')
		return hk_fail(c->err, EINVAL, "%s: PT_INTERP \"%s\" is not an absolute path",
			       program, interp);
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = hk_root_resolve(&c->root, interp, &res, c->err);
	if (r < 0)
		return hk_wrap(c->err, "program interpreter of %s", program);
	if (!S_ISREG(res.mode)) {
		r = hk_fail(c->err, ENOEXEC, "program interpreter %s of %s is not a regular file",
			    res.path, program);
		hk_resolved_free(&res);
		return r;
	}
	record(c, &res);
	struct hk_exec_info info;
	r = read_exec(c, res.path, &info);
	if (r == 0 && info.format != HK_EXEC_ELF)
		r = hk_fail(c->err, ENOEXEC, "program interpreter %s of %s is not an ELF object",
			    res.path, program);
	if (r == 0) {
		*soname = info.soname ? hk_xstrdup(info.soname) : NULL;
		hk_autofree char *key = chain_key("L", res.path, NULL);
		if (hk_strset_add(&c->expanded, key)) {
			struct program self = { info.soname };
			r = load_deps(c, &self, &info, interp, res.path, NULL);
		}
	}
	hk_exec_info_free(&info);
	hk_resolved_free(&res);
	return r;
}

static int expand_program(struct closure *c, const char *name, int script_depth)
{
	hk_autofree char *path = NULL;
	hk_autofree char *interp_soname = NULL;
	hk_autofree char *key = NULL;
	int r;
	if (!strchr(name, '/')) {
		r = lookup_in_path(c, name, &path);
		if (r < 0)
			return r;
	} else if (name[0] != '/') {
		return hk_fail(c->err, EINVAL,
			       "%s: a relative program path depends on the build's working directory",
			       name);
	} else {
		path = hk_xstrdup(name);
	}
	struct hk_resolved res = HK_RESOLVED_INIT;
	r = hk_root_resolve(&c->root, path, &res, c->err);
	if (r < 0)
		return r;
	if (!S_ISREG(res.mode) || !(res.mode & 0111)) {
		r = hk_fail(c->err, EACCES, "%s (%s inside root %s) is not an executable file",
			    path, res.path, c->root.path);
		hk_resolved_free(&res);
		return r;
	}
	record(c, &res);
	struct hk_exec_info info = HK_EXEC_INFO_INIT;
	r = read_exec(c, res.path, &info);
	if (r < 0)
		goto out;
	if (info.format == HK_EXEC_SCRIPT) {
		/* Scripts are re-read on every visit (they are small) so that a chain of "#!"
		 * interpreters is measured against the kernel's limit even when it loops. */
		if (script_depth >= MAX_SCRIPT_REWRITES) {
			r = hk_fail(c->err, ELOOP, "%s: more than %d nested \"#!\" interpreters",
				    res.path, MAX_SCRIPT_REWRITES);
			goto out;
		}
		if (info.script_interp[0] != '/') {
			r = hk_fail(c->err, ENOEXEC,
				    "%s: \"#!%s\" is relative to the build's working directory",
				    res.path, info.script_interp);
			goto out;
		}
		r = expand_program(c, info.script_interp, script_depth + 1);
		/* env execs its program afresh: a new chain, walked once per script (a script
		 * that names itself through env is a loop at run time, not a deeper chain). */
		key = chain_key("E", res.path, NULL);
		if (r == 0 && info.script_program && hk_strset_add(&c->expanded, key))
			r = expand_program(c, info.script_program, 0);
		if (r < 0)
			hk_wrap(c->err, "interpreter of script %s", res.path);
		goto out;
	}
	key = chain_key("P", res.path, NULL);
	if (!hk_strset_add(&c->expanded, key))
		goto out;
	if (info.interp)
		r = expand_interp(c, info.interp, res.path, &interp_soname);
	struct program prog = { interp_soname };
	if (r == 0)
		r = load_deps(c, &prog, &info, res.path, res.path, NULL);
	if (r == 0 && info.interp)
		r = apply_preload(c, &prog, &info, res.path);
out:
	hk_exec_info_free(&info);
	hk_resolved_free(&res);
	return r;
}

static int expand_data(struct closure *c, const char *path, bool optional)
{
	if (path[0] != '/')
		return hk_fail(c->err, EINVAL, "%s: a data entry must be an absolute path", path);
	struct hk_resolved res = HK_RESOLVED_INIT;
	int r = hk_root_resolve(&c->root, path, &res, c->err);
	if (optional && is_absent(r)) {
		hk_error_clear(c->err);
		return 0;
	}
	if (r < 0)
		return r;
	if (S_ISDIR(res.mode))
		r = hk_fail(c->err, EISDIR, "%s (%s inside root %s) is a directory, not a file",
			    path, res.path, c->root.path);
	else
		record(c, &res);
	hk_resolved_free(&res);
	return r;
}

static int closure_begin(struct closure *c, const char *root, struct hk_runtime_closure *out,
			 struct hk_error *err)
{
	*c = (struct closure){ .out = out, .err = err, .expanded = HK_STRSET_INIT,
			       .conf_dirs = HK_STRSET_INIT, .preloaded = HK_STRSET_INIT };
	return hk_root_open(root, &c->root, err);
}

static int closure_end(struct closure *c, int r)
{
	/* The loader opened its cache if any search reached that step. */
	if (r == 0 && c->cache_consulted)
		r = expand_data(c, "/etc/ld.so.cache", false);
	hk_strset_sort(&c->out->files);
	hk_strset_sort(&c->out->file_links);
	hk_strset_sort(&c->out->dir_links);
	hk_strset_free(&c->expanded);
	hk_strset_free(&c->conf_dirs);
	hk_strset_free(&c->preloaded);
	hk_root_close(&c->root);
	return r;
}

static int expand_entry_checked(struct closure *c, const struct hk_runtime_entry *e)
{
	int r;
	if (e->kind == HK_ENTRY_DATA) {
		r = expand_data(c, e->name, e->optional);
	} else if (e->kind == HK_ENTRY_LDCONF) {
		/* libtool's configure reads ld.so.conf and every file it includes (its awk
		 * follows "include"), so the configuration is granted with its includes. */
		r = expand_data(c, e->name, e->optional);
		if (r == 0) {
			c->conf_as_data = true;
			r = parse_conf(c, e->name, 0);
			c->conf_as_data = false;
		}
	} else if (e->optional && !strchr(e->name, '/')) {
		hk_autofree char *path = NULL;
		r = lookup_in_path(c, e->name, &path);
		if (r == -ENOENT) {
			hk_error_clear(c->err);
			return 0;
		}
		if (r == 0)
			r = expand_program(c, path, 0);
	} else {
		r = expand_program(c, e->name, 0);
	}
	if (r < 0)
		return hk_wrap(c->err, "base runtime entry %s", e->name);
	return 0;
}

int hk_elf_closure(const char *root, const char *const *entries, size_t n,
		   struct hk_runtime_closure *out, struct hk_error *err)
{
	struct closure c;
	int r = closure_begin(&c, root, out, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct hk_runtime_entry e = { entries[i], HK_ENTRY_PROGRAM, false };
		r = expand_entry_checked(&c, &e);
	}
	return closure_end(&c, r);
}

/* ---- base profiles ------------------------------------------------------------------------ */

#define PROG(n) { n, HK_ENTRY_PROGRAM, false }
#define PROG_OPTIONAL(n) { n, HK_ENTRY_PROGRAM, true }
#define DATA_OPTIONAL(n) { n, HK_ENTRY_DATA, true }
#define LDCONF_OPTIONAL(n) { n, HK_ENTRY_LDCONF, true }

/* docs/base-runtime.md says why each entry is here.  Every build starts /bin/sh; scripts
 * start "#!/usr/bin/env …"; os-release is read by toolchains (the design measured
 * /usr/lib/os-release in every build, §4.2). */
#define MINIMAL_ENTRIES                                                                    \
	PROG("/bin/sh"), PROG("/usr/bin/env"), DATA_OPTIONAL("/etc/os-release"),            \
	DATA_OPTIONAL("/usr/lib/os-release")

static const struct hk_runtime_entry minimal_entries[] = { MINIMAL_ENTRIES };

/* What an autoconf-generated configure, its config.status and libtool run as external
 * programs (Debian's coreutils is one binary per program, hence more entries than the
 * design's ~16 on Alpine, where coreutils is one multi-call binary).  Compilers, binutils and
 * make are NOT here: they are declared deps or expected denials (design §4.4). */
static const struct hk_runtime_entry autotools_entries[] = {
	MINIMAL_ENTRIES,
	PROG("bash"),
	/* coreutils */
	PROG("basename"), PROG("cat"), PROG("chmod"), PROG("cp"), PROG("cut"), PROG("date"),
	PROG("dirname"), PROG("echo"), PROG("expr"), PROG("false"), PROG("head"),
	PROG("install"), PROG("ln"), PROG("ls"), PROG("mkdir"), PROG("mktemp"), PROG("mv"),
	PROG("printf"), PROG("rm"), PROG("rmdir"), PROG("sleep"), PROG("sort"), PROG("tail"),
	PROG("test"), PROG("["), PROG("touch"), PROG("tr"), PROG("true"), PROG("uname"),
	PROG("uniq"), PROG("wc"),
	/* sed, grep, awk (mawk on Debian, through /etc/alternatives), diffutils */
	PROG("sed"), PROG("grep"), PROG("awk"), PROG("cmp"), PROG("diff"),
	/* config.log's header runs these; absent on some bases, and then not a denial. */
	PROG_OPTIONAL("hostname"), PROG_OPTIONAL("arch"),
	/* The base root's identity, which no dep can provide: user and group look-ups (whoami,
	 * id, configure's config.log header) read passwd/group through nsswitch.conf, and
	 * libtool's configure reads ld.so.conf (and what it includes) to learn the system's library
	 * search path.
	 * Each was measured as a denial in 5 of 6 real autotools builds of the catalogue. */
	DATA_OPTIONAL("/etc/passwd"), DATA_OPTIONAL("/etc/group"),
	DATA_OPTIONAL("/etc/nsswitch.conf"), LDCONF_OPTIONAL("/etc/ld.so.conf"),
};

static const struct hk_base_profile profiles[] = {
	{ "minimal", "/bin/sh and env: what every build starts", minimal_entries,
	  HK_ARRAY_LEN(minimal_entries) },
	{ "autotools", "what an autotools configure runs: shells, coreutils, sed, grep, awk, "
		       "diffutils", autotools_entries, HK_ARRAY_LEN(autotools_entries) },
};

const struct hk_base_profile *hk_base_profile_find(const char *name)
{
	if (strcmp(name, "host") == 0)
		name = "autotools";
	for (size_t i = 0; i < HK_ARRAY_LEN(profiles); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const char *const *hk_base_profile_names(void)
{
	static const char *const names[] = { "minimal", "autotools", "host", NULL };
	return names;
}

int hk_base_runtime_closure(const char *root, const char *profile,
			    struct hk_runtime_closure *out, struct hk_error *err)
{
	const struct hk_base_profile *p = hk_base_profile_find(profile);
	if (!p)
		return hk_fail(err, EINVAL,
			       "unknown base profile '%s' (known: minimal, autotools, host)", profile);
	struct closure c;
	int r = closure_begin(&c, root, out, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n_entries && r == 0; i++)
		r = expand_entry_checked(&c, &p->entries[i]);
	r = closure_end(&c, r);
	if (r < 0)
		return hk_wrap(err, "base profile %s inside root %s", p->name, root);
	return 0;
}

int hk_base_runtime(const char *root, const char *profile, struct hk_strset *out_paths,
		    struct hk_error *err)
{
	struct hk_runtime_closure c = HK_RUNTIME_CLOSURE_INIT;
	int r = hk_base_runtime_closure(root, profile, &c, err);
	if (r == 0)
		hk_runtime_closure_paths(&c, out_paths);
	hk_runtime_closure_free(&c);
	return r;
}
