/* A Debian build's closure (build_dsc.h, step 3 and 4): the base and its package database,
 * the Build-Depends reduced and resolved by apt on it, --see, the imports into the store and
 * the dpkg state made once per closure. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/debian/debstate.h"
#include "engine/debian/dsc_int.h"
#include "engine/common/proc.h"
#include "engine/store/store_import.h"
#include "core/store/base.h"
#include "core/debian/deb.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

/* What every Debian build may use without declaring it, besides the Essential packages:
 * build-essential (Debian Policy §4.2), and fakeroot, which dpkg-buildpackage needs for the
 * targets Rules-Requires-Root gives root, and which sbuild installs in every build chroot. */
const char *const dsc_implicit_deps[DSC_N_IMPLICIT] = { "build-essential", "fakeroot" };

void dsc_say(const struct dsc_build *b, const char *fmt, ...)
{
	if (b->bo->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("[dsc] ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- the base and the closure ---------------------------------------------------------- */

/* A stanza of the base's status file whose package is installed ("… installed"). */
bool dsc_installed(const struct hk_deb_stanza *st)
{
	const char *s = hk_deb_field(st, "Status");
	const char *last = s ? strrchr(s, ' ') : NULL;
	return hk_deb_field(st, "Package") && last && strcmp(last + 1, "installed") == 0;
}

int dsc_open_base(struct dsc_build *b)
{
	const char *dir = hk_store_choose_dir(b->bo->store_dir);
	int rc = hk_store_open(dir, false, &b->store, b->err);
	if (rc < 0)
		return hk_wrap(b->err, "the store (make one with 'harkaq store --store DIR base "
				       "create %s --variant buildd')", b->o->base);
	rc = hk_base_find(b->store, b->o->base, &b->base, b->err);
	if (rc < 0)
		return rc;
	b->r->base_name = hk_xstrdup(b->base->name);
	b->r->base_id = hk_xstrdup(b->base->id);
	hk_autofree char *status = hk_xasprintf("%s/var/lib/dpkg/status", b->base->path);
	struct hk_buf text = HK_BUF_INIT;
	rc = hk_file_read(status, &text, b->err);
	if (rc == 0)
		rc = hk_deb_parse_control(hk_buf_str(&text), text.len, status, &b->base_status,
					  &b->n_base_status, b->err);
	hk_buf_free(&text);
	if (rc < 0)
		return hk_wrap(b->err, "base %s has no dpkg database a Debian build can stand on",
			       b->o->base);
	size_t w = 0;
	for (size_t i = 0; i < b->n_base_status; i++)
		w += dsc_installed(&b->base_status[i]);
	dsc_say(b, "base %s %s (%zu packages installed)", b->base->name, b->base->id, w);
	return 0;
}

int dsc_check_base_arch(struct dsc_build *b)
{
	for (size_t i = 0; i < b->n_base_status; i++) {
		if (!dsc_installed(&b->base_status[i]) ||
		    strcmp(hk_deb_field(&b->base_status[i], "Package"), "dpkg") != 0)
			continue;
		const char *a = hk_deb_field(&b->base_status[i], "Architecture");
		if (!a || strcmp(a, b->host.arch) != 0)
			return hk_fail(b->err, EINVAL, "base %s is a %s system; this machine builds "
				       "for %s", b->o->base, a ? a : "?", b->host.arch);
	}
	return 0;
}

static bool mode_has_arch(enum hk_dsc_mode m)
{
	return m != HK_DSC_BUILD_ALL;
}

static bool mode_has_indep(enum hk_dsc_mode m)
{
	return m != HK_DSC_BUILD_ANY;
}

static bool field_used(enum hk_dsc_mode m, enum hk_dsc_field f)
{
	switch (f) {
	case HK_DSC_BUILD_DEPENDS:
	case HK_DSC_BUILD_CONFLICTS:
		return true;
	case HK_DSC_BUILD_DEPENDS_ARCH:
	case HK_DSC_BUILD_CONFLICTS_ARCH:
		return mode_has_arch(m);
	case HK_DSC_BUILD_DEPENDS_INDEP:
	case HK_DSC_BUILD_CONFLICTS_INDEP:
		return mode_has_indep(m);
	default:
		return false;
	}
}

/* The fields this build uses, reduced for the machine and the active profiles. */
int dsc_reduce_fields(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const char *const nocheck[] = { "nocheck" };
	size_t n_prof = b->o->with_checks ? 0 : 1;
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++) {
		if (!field_used(b->o->mode, (enum hk_dsc_field)f) || !r->dsc.relations[f])
			continue;
		int rc = hk_dsc_relations_reduce(r->dsc.relations[f], hk_dsc_field_name(f),
						 &b->host, nocheck, n_prof, &b->groups[f],
						 &b->n_groups[f], b->err);
		if (rc < 0)
			return hk_wrap(b->err, "%s:%u", b->dsc_file, r->dsc.relation_line[f]);
		struct hk_buf t = HK_BUF_INIT;
		hk_deb_relations_text(b->groups[f], b->n_groups[f], &t);
		r->reduced[f] = hk_buf_steal(&t);
	}
	return 0;
}

/* Which used field names `pkg` (to say where an unsatisfiable relation comes from). */
static const char *field_naming(const struct dsc_build *b, const char *pkg, bool conflicts)
{
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		for (size_t g = 0; b->groups[f] && dsc_is_conflicts(f) == conflicts && g < b->n_groups[f];
		     g++)
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				if (strcmp(b->groups[f][g].alts[k].name, pkg) == 0)
					return hk_dsc_field_name(f);
	return NULL;
}

/* apt's reasons for an unsatisfiable request, as one sentence naming the field: the
 * "satisfy:command-line : Depends: …" lines (on its stdout), else its "E: " line. */
static int unsatisfiable(struct dsc_build *b, struct hk_run_result *res)
{
	struct hk_buf why = HK_BUF_INIT;
	const char *field = NULL;
	struct hk_buf all = HK_BUF_INIT;
	hk_buf_puts(&all, hk_buf_str(&res->out));
	hk_buf_puts(&all, hk_buf_str(&res->errout));
	const char *text = hk_buf_str(&all);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		hk_autofree char *line = hk_xstrndup(p, n);
		const char *rel = strstr(line, "satisfy:command-line : ");
		if (rel) {
			rel += strlen("satisfy:command-line : ");
			if (why.len)
				hk_buf_puts(&why, "; ");
			hk_buf_puts(&why, rel);
			bool conflicts = strncmp(rel, "Conflicts: ", 11) == 0 ||
					 strncmp(rel, "Breaks: ", 8) == 0;
			const char *colon = strchr(rel, ':');
			if (colon && !field) {
				hk_autofree char *name = hk_xstrndup(colon + 2, strcspn(colon + 2, " "));
				field = field_naming(b, name, conflicts);
			}
		} else if (strncmp(line, "E: ", 3) == 0 && why.len == 0) {
			hk_buf_puts(&why, line + 3);
		}
		p = nl ? nl + 1 : NULL;
	}
	int rc = hk_fail(b->err, EINVAL, "%s: %s: unsatisfiable on base %s: apt says: %s",
			 b->dsc_file, field ? field : "Build-Depends", b->base->name,
			 why.len ? hk_buf_str(&why) : "(no reason given)");
	hk_buf_free(&why);
	hk_buf_free(&all);
	return rc;
}

/* "Inst NAME [OLD] (NEW ARCHIVE… [ARCH])" into a closure package. */
static int parse_inst(struct dsc_build *b, const char *line, struct hk_dsc_pkg *p)
{
	memset(p, 0, sizeof(*p));
	const char *s = line + 5;
	size_t n = strcspn(s, " ");
	p->name = hk_xstrndup(s, n);
	s += n;
	while (*s == ' ')
		s++;
	if (*s == '[') {
		size_t k = strcspn(s + 1, "]");
		p->upgrades = hk_xstrndup(s + 1, k);
		s += k + 2;
		while (*s == ' ')
			s++;
	}
	if (*s != '(') {
		free(p->name);
		free(p->upgrades);
		return hk_fail(b->err, EIO, "apt-get satisfy printed a line harkaq cannot read: %s",
			       line);
	}
	s++;
	n = strcspn(s, " )");
	p->version = hk_xstrndup(s, n);
	const char *a = strrchr(s, '[');
	p->arch = a ? hk_xstrndup(a + 1, strcspn(a + 1, "]")) : hk_xstrdup("?");
	if (strchr(p->name, ':'))
		return hk_fail(b->err, ENOTSUP, "%s: the closure needs %s, a package of another "
			       "architecture: harkaq builds with packages of the build's own",
			       b->dsc_file, p->name);
	return 0;
}

/* The closure: what apt would install on the base to satisfy build-essential, fakeroot and
 * the used Build-Depends and Build-Conflicts, asked of apt itself with the base's package
 * database as its state (no root, nothing installed: -s). */
/* The resolution's inputs beyond its arguments: the package lists apt reads (each pinned by
 * its Release file, whose hashes cover the Packages files) and the preferences that choose
 * among versions.  Appended to `key` as "NAME b3:…" lines; false when a list has no Release
 * file to stand for it (the answer is then not kept). */
static bool apt_inputs(struct hk_buf *key)
{
	static const char *const dirs[] = { "/var/lib/apt/lists", "/etc/apt/preferences.d" };
	bool release = false;
	for (size_t d = 0; d < HK_ARRAY_LEN(dirs); d++) {
		DIR *dir = opendir(dirs[d]);
		if (!dir)
			continue;
		hk_autostrv struct hk_strv names = HK_STRV_INIT;
		for (struct dirent *e; (e = readdir(dir));)
			if (e->d_name[0] != '.')
				hk_strv_push(&names, e->d_name);
		closedir(dir);
		hk_strv_sort_unique(&names);
		for (size_t i = 0; i < names.n; i++) {
			size_t n = strlen(names.v[i]);
			bool is_release = d == 0 && n >= 7 && strcmp(names.v[i] + n - 7, "Release") == 0;
			if (d == 0 && !is_release)
				continue;
			hk_autofree char *path = hk_xasprintf("%s/%s", dirs[d], names.v[i]);
			struct hk_buf text = HK_BUF_INIT;
			struct hk_error ignored;
			char id[HK_B3_ID_LEN];
			if (hk_file_read(path, &text, &ignored) == 0) {
				hk_b3_id(text.data, text.len, id);
				hk_buf_printf(key, "%s %s\n", path, id);
				release |= is_release;
			}
			hk_buf_free(&text);
		}
	}
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error ignored;
	char id[HK_B3_ID_LEN];
	if (hk_file_read("/etc/apt/preferences", &text, &ignored) == 0) {
		hk_b3_id(text.data, text.len, id);
		hk_buf_printf(key, "/etc/apt/preferences %s\n", id);
	}
	hk_buf_free(&text);
	return release;
}

/* apt-get satisfy's answer, kept in STORE/.cache/closure/ under the BLAKE3 of everything it
 * depends on: the base (its package database), the relations, and apt's inputs (apt_inputs).
 * Resolving costs apt a second or two of parsing the package lists for every build; the same
 * question on the same lists gets the same answer, so a warm build asks once.  Returns the
 * cache file's path, or NULL when the answer cannot be kept. */
static char *closure_cache_path(struct dsc_build *b, const char *const *argv)
{
	struct hk_buf key = HK_BUF_INIT;
	hk_buf_printf(&key, "harkaq-dsc-closure 1\nbase %s\n", b->base->id);
	for (size_t i = 0; argv[i]; i++)
		if (strncmp(argv[i], "Dir::State::extended_states=", 28) != 0)
			hk_buf_printf(&key, "arg %s\n", argv[i]);
	char *path = NULL;
	if (apt_inputs(&key)) {
		char id[HK_B3_ID_LEN];
		hk_b3_id(key.data, key.len, id);
		path = hk_xasprintf("%s/.cache/closure/%s", hk_store_dir(b->store), id + 3);
	}
	hk_buf_free(&key);
	return path;
}

int dsc_resolve_closure(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	struct hk_buf deps = HK_BUF_INIT, conflicts = HK_BUF_INIT;
	for (size_t i = 0; i < DSC_N_IMPLICIT; i++)
		hk_buf_printf(&deps, "%s%s", i ? ", " : "", dsc_implicit_deps[i]);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++) {
		if (!r->reduced[f] || !*r->reduced[f])
			continue;
		struct hk_buf *into = dsc_is_conflicts(f) ? &conflicts : &deps;
		hk_buf_printf(into, "%s%s", into->len ? ", " : "", r->reduced[f]);
	}
	hk_autofree char *status = hk_xasprintf("Dir::State::status=%s/var/lib/dpkg/status",
						b->base->path);
	hk_autofree char *ext = hk_xasprintf("Dir::State::extended_states=%s/extended_states",
					     r->work);
	hk_autofree char *conf = conflicts.len ? hk_xasprintf("Conflicts: %s",
							      hk_buf_str(&conflicts)) : NULL;
	const char *argv[] = { "apt-get", "satisfy", "-s", "-q", "--no-install-recommends",
			       "-o", status, "-o", ext, "-o", "Debug::NoLocking=1",
			       "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache=",
			       hk_buf_str(&deps), conf, NULL };
	struct hk_run_result res = { .status = 0, .out = HK_BUF_INIT, .errout = HK_BUF_INIT };
	hk_autofree char *cache = closure_cache_path(b, argv);
	struct hk_error ignored;
	bool cached = cache && hk_file_read(cache, &res.out, &ignored) == 0;
	int rc = 0;
	if (!cached) {
		hk_buf_free(&res.out);
		rc = hk_run_capture(argv, r->work, &res, b->err);
	}
	hk_buf_free(&deps);
	hk_buf_free(&conflicts);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		rc = unsatisfiable(b, &res);
		hk_run_result_free(&res);
		return rc;
	}
	/* Only a satisfiable answer is kept: a failure's message is the user's to read anew.
	 * Keeping it is an optimisation; failing to is said nowhere. */
	if (!cached && cache) {
		hk_autofree char *dir = hk_xstrdup(cache);
		*strrchr(dir, '/') = '\0';
		if (hk_mkdir_p(dir, &ignored) == 0 &&
		    hk_file_write_atomic(cache, res.out.data, res.out.len, 0644, &ignored) < 0) {
			/* the next build asks apt again */
		}
	}
	const char *out = hk_buf_str(&res.out);
	for (const char *p = out; rc == 0 && p && *p;) {
		const char *nl = strchr(p, '\n');
		hk_autofree char *line = hk_xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
		if (strncmp(line, "Remv ", 5) == 0) {
			rc = hk_fail(b->err, EINVAL, "%s: Build-Conflicts: satisfying them removes %.*s "
				     "from base %s, and a build cannot remove what its base holds",
				     b->dsc_file, (int)strcspn(line + 5, " "), line + 5,
				     b->base->name);
		} else if (strncmp(line, "Inst ", 5) == 0) {
			r->closure = hk_xrealloc(r->closure, (r->n_closure + 1) * sizeof(*r->closure));
			rc = parse_inst(b, line, &r->closure[r->n_closure]);
			if (rc == 0 || r->closure[r->n_closure].name)
				r->n_closure++;
		}
	}
	hk_run_result_free(&res);
	if (rc == 0)
		dsc_say(b, "closure: %zu package(s) beyond the base (apt-get satisfy on its package "
		       "database%s)", r->n_closure,
		       cached ? "; its answer kept from an earlier build with these relations and "
				"package lists" : "");
	return rc;
}

/* ---- 4. the store: imports, the dpkg state, what the view shows --------------------------- */

static bool store_has_exact(struct hk_store *s, const struct hk_dsc_pkg *p,
			    const struct hk_artifact **a)
{
	hk_autofree char *spec = hk_xasprintf("%s=%s", p->name, p->version);
	struct hk_error ignored;
	return hk_store_find(s, spec, a, &ignored) == 0;
}

/* `apt-get download` of every closure package `which` selects, into the work's debs/. */
static int download(struct dsc_build *b, bool all)
{
	struct hk_argv a = { 0 };
	hk_argv_push(&a, "apt-get");
	hk_argv_push(&a, "download");
	hk_argv_push(&a, "-q");
	size_t n = 0;
	for (size_t i = 0; i < b->r->n_closure; i++) {
		const struct hk_dsc_pkg *p = &b->r->closure[i];
		const struct hk_artifact *art;
		if (!all && store_has_exact(b->store, p, &art))
			continue;
		/* Already downloaded: apt names it NAME_VERSION_ARCH.deb, the epoch's ':' %3a. */
		struct hk_buf file = HK_BUF_INIT;
		hk_buf_printf(&file, "%s/%s_", b->debs_dir, p->name);
		for (const char *c = p->version; *c; c++)
			*c == ':' ? hk_buf_puts(&file, "%3a") : hk_buf_putc(&file, *c);
		hk_buf_printf(&file, "_%s.deb", p->arch);
		bool have = access(hk_buf_str(&file), F_OK) == 0;
		hk_buf_free(&file);
		if (have)
			continue;
		hk_autofree char *spec = hk_xasprintf("%s=%s", p->name, p->version);
		hk_argv_push(&a, spec);
		n++;
	}
	if (n == 0) {
		hk_argv_free(a.v);
		return 0;
	}
	dsc_say(b, "downloading %zu package(s) with apt-get download", n);
	struct hk_run_result res;
	int rc = hk_run_capture((const char *const *)a.v, b->debs_dir, &res, b->err);
	hk_argv_free(a.v);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		char line[512];
		rc = hk_fail(b->err, EIO, "apt-get download failed: %s",
			     hk_apt_reason(&res.errout, line, sizeof(line)));
		b->r->fetch_failed = true;
	} else {
		b->r->n_downloaded += n;
	}
	hk_run_result_free(&res);
	return rc;
}

/* Imports every .deb of debs/ the store lacks (hk_import_deb), quietly. */
static int import_downloaded(struct dsc_build *b)
{
	int fd = open(b->debs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(b->err, errno, "cannot open %s", b->debs_dir);
	DIR *d = NULL;
	struct dirent *de;
	size_t added_n = 0;
	int rc = hk_dir_fdopen(fd, b->debs_dir, &d, b->err);
	while (rc == 0 && (rc = hk_dir_next(d, b->debs_dir, &de, b->err)) == 0 && de) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".deb") != 0)
			continue;
		/* NAME_VERSION_ARCH.deb, the epoch's ':' written %3a by apt. */
		hk_autofree char *name = hk_xstrndup(de->d_name, strcspn(de->d_name, "_"));
		const char *v = de->d_name + strlen(name) + 1;
		hk_autofree char *ver = hk_xstrndup(v, strcspn(v, "_"));
		char *pc = strstr(ver, "%3a");
		if (pc)
			memmove(pc + 1, pc + 3, strlen(pc + 3) + 1), *pc = ':';
		struct hk_dsc_pkg key = { .name = name, .version = ver };
		const struct hk_artifact *a;
		if (store_has_exact(b->store, &key, &a))
			continue;
		hk_autofree char *path = hk_xasprintf("%s/%s", b->debs_dir, de->d_name);
		bool added = false;
		rc = hk_import_deb(b->store, path, &a, &added, b->err);
		added_n += added;
	}
	if (d)
		closedir(d);
	if (rc == 0 && added_n)
		dsc_say(b, "imported %zu package(s) into the store", added_n);
	return rc;
}

static int find_closure_artifacts(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	b->closure_arts = hk_xcalloc(r->n_closure + 1, sizeof(*b->closure_arts));
	for (size_t i = 0; i < r->n_closure; i++) {
		if (!store_has_exact(b->store, &r->closure[i], &b->closure_arts[i]))
			return hk_fail(b->err, ENOENT, "%s=%s is not in the store after its import",
				       r->closure[i].name, r->closure[i].version);
		snprintf(r->closure[i].id, sizeof(r->closure[i].id), "%s", b->closure_arts[i]->id);
	}
	return 0;
}

static int find_or_make_state(struct dsc_build *b, const char *hex);

/* The closure's packages in the store, and its dpkg state (made once per closure id). */
int dsc_import_closure(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	if (r->n_closure == 0)
		return 0;
	int rc = download(b, false);
	if (rc == 0)
		rc = import_downloaded(b);
	if (rc == 0)
		rc = find_closure_artifacts(b);
	if (rc < 0)
		return rc;
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	hk_debstate_id(b->base, b->closure_arts, r->n_closure, hex);
	long long t_state = hk_now_ms();
	/* Two builds of one closure at once make its state once: the second waits, then finds it
	 * (two makings could differ in a byte and leave one version under two ids). */
	hk_autofree char *lock_path = hk_xasprintf("%s/.dpkg-state.lock", hk_store_dir(b->store));
	int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0)
		return hk_fail_errno(b->err, errno, "cannot open %s", lock_path);
	while (flock(lock, LOCK_EX) < 0 && errno == EINTR) {
	}
	/* What another build added meanwhile: the state it may have made. */
	free(b->closure_arts);
	b->closure_arts = NULL;
	rc = hk_store_refresh(b->store, b->err);
	if (rc == 0)
		rc = hk_base_find(b->store, b->r->base_id, &b->base, b->err);
	if (rc == 0)
		rc = find_closure_artifacts(b);
	if (rc == 0)
		rc = find_or_make_state(b, hex);
	close(lock);
	dsc_step_add(r, HK_DSC_T_DPKG_STATE, hk_now_ms() - t_state);
	return rc;
}

/* The dpkg state of closure `hex`: found in the store, or made (debstate.h). */
static int find_or_make_state(struct dsc_build *b, const char *hex)
{
	struct hk_dsc_result *r = b->r;
	int rc = 0;
	hk_autofree char *spec = hk_xasprintf("%s=%s", HK_DEBSTATE_NAME, hex);
	struct hk_error ignored;
	if (hk_store_find(b->store, spec, &b->state, &ignored) == 0) {
		dsc_say(b, "dpkg state %s (made before for this closure)", b->state->id);
	} else {
		/* dpkg needs every .deb of the closure, not only the ones just imported. */
		rc = download(b, true);
		hk_autofree char *log = hk_xasprintf("%s/dpkg.log", r->work);
		struct hk_debstate_input in = {
			.store = b->store, .base = b->base, .closure = b->closure_arts,
			.n_closure = r->n_closure, .debs_dir = b->debs_dir, .id_hex = hex,
			.source_date_epoch = r->source_date_epoch, .log_path = log,
			.quiet = b->bo->quiet,
		};
		if (rc == 0)
			rc = hk_debstate_make(&in, &b->state, b->err);
		if (rc < 0)
			return rc;
		dsc_say(b, "dpkg state %s made", b->state->id);
	}
	r->state_id = hk_xstrdup(b->state->id);
	return 0;
}

/* --see: packages the store view should show (imported with their dependencies). */
int dsc_import_visible(struct dsc_build *b)
{
	if (b->o->n_see == 0)
		return 0;
	/* What the store already has is not fetched again (its dependencies came with it). */
	hk_autostrv struct hk_strv want = HK_STRV_INIT;
	for (size_t i = 0; i < b->o->n_see; i++) {
		const struct hk_artifact *a;
		struct hk_error e;
		if (hk_store_find(b->store, b->o->see[i], &a, &e) == -ENOENT)
			hk_strv_push(&want, b->o->see[i]);
	}
	if (want.n == 0)
		return 0;
	hk_autostrv struct hk_strv base = HK_STRV_INIT;
	for (size_t i = 0; i < b->n_base_status; i++)
		if (dsc_installed(&b->base_status[i]))
			hk_strv_push(&base, hk_deb_field(&b->base_status[i], "Package"));
	dsc_say(b, "importing %zu package(s) to be visible (--see), with their dependencies",
	    want.n);
	/* hk_import_apt reports on stdout; a Debian build's stdout is its result. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	int rc = hk_import_apt(b->store, &want, true, (const char *const *)base.v, base.n, b->err);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return rc < 0 ? hk_wrap(b->err, "--see") : 0;
}

/* The base's installed package named `name`, or providing it. */
const struct hk_deb_stanza *dsc_base_pkg(const struct dsc_build *b, const char *name,
					    bool *virtual_)
{
	*virtual_ = false;
	for (size_t i = 0; i < b->n_base_status; i++)
		if (dsc_installed(&b->base_status[i]) &&
		    strcmp(hk_deb_field(&b->base_status[i], "Package"), name) == 0)
			return &b->base_status[i];
	for (size_t i = 0; i < b->n_base_status; i++) {
		const char *prov = hk_deb_field(&b->base_status[i], "Provides");
		if (!prov || !dsc_installed(&b->base_status[i]))
			continue;
		struct hk_deb_rel_group *g = NULL;
		size_t ng = 0;
		struct hk_error ignored;
		bool hit = false;
		if (hk_deb_parse_relations(prov, "Provides", &g, &ng, &ignored) == 0)
			for (size_t k = 0; k < ng && !hit; k++)
				hit = strcmp(g[k].alts[0].name, name) == 0;
		hk_deb_relations_free(g, ng);
		if (hit) {
			*virtual_ = true;
			return &b->base_status[i];
		}
	}
	return NULL;
}

bool dsc_closure_has(const struct hk_dsc_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_closure; i++)
		if (strcmp(r->closure[i].name, name) == 0)
			return true;
	return false;
}
