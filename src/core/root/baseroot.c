#include "core/root/baseroot.h"
#include "core/basic/buf.h"
#include "core/formats/elf.h"
#include "core/root/ldconf.h"
#include "core/basic/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* fs/exec.c: exec_binprm() accepts 5 binfmt rewrites ("#!" scripts) before -ELOOP. */
#define MAX_SCRIPT_REWRITES 5

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
	struct hk_error *err;
};

/* What the libraries of one program share: the interpreter is already loaded under its
 * DT_SONAME, so a DT_NEEDED naming it (libc.so.6 needs ld-linux-x86-64.so.2) is satisfied
 * without a search, as glibc's name match on loaded objects does. */
struct program {
	const char *interp_soname;
};

static void record(struct closure *c, const struct hk_resolved *res)
{
	if (!S_ISDIR(res->mode))
		hk_strset_add(&c->out->files, res->path);
	hk_strset_add_all(&c->out->file_links, &res->file_links);
	hk_strset_add_all(&c->out->dir_links, &res->dir_links);
}

static int read_exec(struct closure *c, const char *canonical, struct hk_exec_info *info)
{
	hk_autoclose int fd = hk_root_open_canonical(&c->root, canonical, c->err);
	if (fd < 0)
		return fd;
	return hk_exec_read_fd(fd, canonical, info, c->err);
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
	int r = hk_root_resolve_regular(&c->root, "/etc/ld.so.cache", &res, c->err);
	if (r <= 0)
		return r;
	c->cache_exists = true;
	hk_resolved_free(&res);
	struct hk_ldconf conf = { .dirs = &c->conf_dirs };
	return hk_ldconf_read(&c->root, "/etc/ld.so.conf", &conf, c->err);
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
	int r = hk_root_resolve_regular(&c->root, path, &res, c->err);
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
		hk_autofree char *path = hk_root_path_join(sub, s->name);
		int r = try_candidate(c, s, path);
		if (r < 0)
			return r;
	}
	hk_autofree char *path = hk_root_path_join(dir, s->name);
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
		hk_autofree char *dir = hk_root_path_dir(found_path);
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
	int r = hk_root_resolve_regular(&c->root, "/etc/ld.so.preload", &res, c->err);
	if (r <= 0)
		return r;
	record(c, &res);
	struct hk_buf text = HK_BUF_INIT;
	r = hk_root_read(&c->root, res.path, &text, c->err);
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
		hk_autofree char *cand = hk_root_path_join(dir, name);
		struct hk_resolved res = HK_RESOLVED_INIT;
		int r = hk_root_resolve(&c->root, cand, &res, c->err);
		if (hk_root_absent(r)) {
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
		goto free_resolved;
	if (info.format == HK_EXEC_SCRIPT) {
		/* Scripts are re-read on every visit (they are small) so that a chain of "#!"
		 * interpreters is measured against the kernel's limit even when it loops. */
		if (script_depth >= MAX_SCRIPT_REWRITES) {
			r = hk_fail(c->err, ELOOP, "%s: more than %d nested \"#!\" interpreters",
				    res.path, MAX_SCRIPT_REWRITES);
			goto free_resolved;
		}
		if (info.script_interp[0] != '/') {
			r = hk_fail(c->err, ENOEXEC,
				    "%s: \"#!%s\" is relative to the build's working directory",
				    res.path, info.script_interp);
			goto free_resolved;
		}
		r = expand_program(c, info.script_interp, script_depth + 1);
		/* env execs its program afresh: a new chain, walked once per script (a script
		 * that names itself through env is a loop at run time, not a deeper chain). */
		key = chain_key("E", res.path, NULL);
		if (r == 0 && info.script_program && hk_strset_add(&c->expanded, key))
			r = expand_program(c, info.script_program, 0);
		if (r < 0)
			hk_wrap(c->err, "interpreter of script %s", res.path);
		goto free_resolved;
	}
	key = chain_key("P", res.path, NULL);
	if (!hk_strset_add(&c->expanded, key))
		goto free_resolved;
	if (info.interp)
		r = expand_interp(c, info.interp, res.path, &interp_soname);
	struct program prog = { interp_soname };
	if (r == 0)
		r = load_deps(c, &prog, &info, res.path, res.path, NULL);
	if (r == 0 && info.interp)
		r = apply_preload(c, &prog, &info, res.path);
free_resolved:
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
	if (optional && hk_root_absent(r)) {
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

static int record_included(void *ctx, const char *path)
{
	return expand_data(ctx, path, true);
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
			/* Read as data: every file it includes is recorded, and the loader's search
			 * directories are left alone. */
			struct hk_ldconf conf = { .included = record_included, .ctx = c };
			r = hk_ldconf_read(&c->root, e->name, &conf, c->err);
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
 * make are NOT here: they are declared deps or expected denials (design.md §5). */
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
