/* harkaq build --dsc FILE.dsc: a Debian source package as a build (build_dsc.h), one named
 * step at a time — the .dsc and its files, the unpacked source, the closure apt resolves on the
 * base, the store imports and the dpkg state, the recipe, the engine, the outputs. */
#include "cli/build_dsc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/debstate.h"
#include "cli/proc.h"
#include "cli/sign.h"
#include "cli/store_import.h"
#include "core/base.h"
#include "core/deb.h"
#include "core/debroot.h"
#include "core/dir.h"
#include "core/file.h"
#include "core/strset.h"
#include "core/strv.h"
#include "core/util.h"

/* A .dsc is a small control file; a bigger one is a mistake. */
#define DSC_MAX (1024 * 1024)

/* What every Debian build may use without declaring it, besides the Essential packages:
 * build-essential (Debian Policy §4.2), and fakeroot, which dpkg-buildpackage needs for the
 * targets Rules-Requires-Root gives root, and which sbuild installs in every build chroot. */
static const char *const implicit_deps[] = { "build-essential", "fakeroot" };

const char *hk_dsc_mode_name(enum hk_dsc_mode m)
{
	switch (m) {
	case HK_DSC_BUILD_BINARY: return "binary";
	case HK_DSC_BUILD_ANY: return "any";
	case HK_DSC_BUILD_ALL: return "all";
	}
	return "binary";
}

static bool mode_has_arch(enum hk_dsc_mode m)
{
	return m != HK_DSC_BUILD_ALL;
}

static bool mode_has_indep(enum hk_dsc_mode m)
{
	return m != HK_DSC_BUILD_ANY;
}

/* Everything one Debian build holds while it runs. */
struct dsc_build {
	const struct hk_build_opts *bo;
	const struct hk_dsc_opts *o;
	struct hk_dsc_result *r;
	struct hk_error *err;
	struct hk_store *store;
	const struct hk_artifact *base;
	char *dsc_dir;              /* the directory of the .dsc: its files lie there */
	char *recipe_dir, *src_parent, *debs_dir, *recipe_path;
	struct hk_deb_arch host;
	char host_strings[5][64];
	struct hk_deb_rel_group *groups[HK_DSC_FIELD_COUNT];
	size_t n_groups[HK_DSC_FIELD_COUNT];
	struct hk_deb_stanza *base_status;  /* the base's installed packages */
	size_t n_base_status;
	const struct hk_artifact **closure_arts;
	const struct hk_artifact *state;
	struct hk_strv dpkg_db_files;
	char *dpkg_db;
	bool work_made;
};

static void say(const struct dsc_build *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct dsc_build *b, const char *fmt, ...)
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

/* ---- 1. the .dsc and its files ------------------------------------------------------------ */

static int load_dsc(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const char *path = b->o->dsc_path;
	r->dsc_path = realpath(path, NULL);
	if (!r->dsc_path)
		return hk_fail_errno(b->err, errno, "%s", path);
	struct stat st;
	if (stat(r->dsc_path, &st) < 0 || !S_ISREG(st.st_mode))
		return hk_fail(b->err, EINVAL, "%s is not a regular file", path);
	if (st.st_size > DSC_MAX)
		return hk_fail(b->err, EINVAL, "%s: %lld bytes is not a .dsc (at most %d)", path,
			       (long long)st.st_size, DSC_MAX);
	struct hk_buf text = HK_BUF_INIT;
	int rc = hk_file_read(r->dsc_path, &text, b->err);
	if (rc == 0)
		hk_sha256_hex(text.data, text.len, r->dsc_sha256);
	if (rc == 0)
		rc = hk_dsc_parse(hk_buf_str(&text), text.len, path, &r->dsc, b->err);
	hk_buf_free(&text);
	if (rc < 0)
		return rc;
	r->dsc_loaded = true;
	b->dsc_dir = hk_xstrdup(r->dsc_path);
	*strrchr(b->dsc_dir, '/') = '\0';
	if (!*b->dsc_dir)
		strcpy(b->dsc_dir, "/");
	return 0;
}

/* Every file the .dsc lists: present next to it, of its size, with its SHA-256.  Checked
 * before anything reads them (dpkg-source checks them again). */
static int verify_files(struct dsc_build *b)
{
	const struct hk_dsc *d = &b->r->dsc;
	for (size_t i = 0; i < d->n_files; i++) {
		const struct hk_dsc_file *f = &d->files[i];
		hk_autofree char *p = hk_xasprintf("%s/%s", b->dsc_dir, f->name);
		struct stat st;
		if (stat(p, &st) < 0)
			return hk_fail_errno(b->err, errno == ENOENT ? ENOENT : errno,
					     "%s: Checksums-Sha256: %s, which the .dsc lists, is not "
					     "next to it (%s)", b->o->dsc_path, f->name, p);
		if (!S_ISREG(st.st_mode))
			return hk_fail(b->err, EINVAL, "%s: Checksums-Sha256: %s is not a regular "
				       "file", b->o->dsc_path, f->name);
		if ((unsigned long long)st.st_size != f->size)
			return hk_fail(b->err, EBADMSG, "%s: Checksums-Sha256: %s is %lld bytes, the "
				       ".dsc says %llu: not the file it was made with",
				       b->o->dsc_path, f->name, (long long)st.st_size,
				       (unsigned long long)f->size);
		char sha[HK_SHA256_HEX_LEN];
		int rc = hk_sha256_file(p, sha, b->err);
		if (rc < 0)
			return rc;
		if (strcmp(sha, f->sha256) != 0)
			return hk_fail(b->err, EBADMSG, "%s: Checksums-Sha256: %s has SHA-256 %s, the "
				       ".dsc says %s: not the file it was made with",
				       b->o->dsc_path, f->name, sha, f->sha256);
	}
	say(b, "%s %s: %zu file(s) match Checksums-Sha256", d->source, d->version, d->n_files);
	return 0;
}

/* ---- 2. the machine, the work directory, the unpacked source ------------------------------ */

/* The architecture the build is for: this machine's, as dpkg names it. */
static int read_host_arch(struct dsc_build *b)
{
	const char *argv[] = { "dpkg-architecture", NULL };
	struct hk_run_result res;
	int rc = hk_run_capture(argv, NULL, &res, b->err);
	if (rc < 0)
		return rc;
	static const char *const keys[5] = { "DEB_HOST_ARCH=", "DEB_HOST_ARCH_ABI=",
					     "DEB_HOST_ARCH_LIBC=", "DEB_HOST_ARCH_OS=",
					     "DEB_HOST_ARCH_CPU=" };
	const char *out = hk_buf_str(&res.out);
	for (size_t k = 0; k < 5; k++) {
		const char *p = strstr(out, keys[k]);
		while (p && p != out && p[-1] != '\n')
			p = strstr(p + 1, keys[k]);
		if (!p || res.status != 0) {
			hk_run_result_free(&res);
			return hk_fail(b->err, EIO, "dpkg-architecture does not say %.*s",
				       (int)strlen(keys[k]) - 1, keys[k]);
		}
		p += strlen(keys[k]);
		snprintf(b->host_strings[k], sizeof(b->host_strings[k]), "%.*s",
			 (int)strcspn(p, "\n"), p);
	}
	hk_run_result_free(&res);
	b->host = (struct hk_deb_arch){ b->host_strings[0], b->host_strings[1], b->host_strings[2],
					b->host_strings[3], b->host_strings[4] };
	return 0;
}

/* "1:2.10-3" -> "2.10": the upstream version names the unpacked directory. */
static char *upstream_version(const char *v)
{
	const char *colon = strchr(v, ':');
	const char *s = colon ? colon + 1 : v;
	const char *dash = strrchr(s, '-');
	return hk_xstrndup(s, dash ? (size_t)(dash - s) : strlen(s));
}

/* The front end's work directory ($TMPDIR, else /var/tmp): the unpacked source, the recipe,
 * the downloaded .debs.  Removed at the end unless --keep. */
static int make_work(struct dsc_build *b)
{
	const char *tmp = getenv("TMPDIR");
	hk_autofree char *tmpl = hk_xasprintf("%s/harkaq-dsc-XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
	if (!mkdtemp(tmpl))
		return hk_fail_errno(b->err, errno, "creating a work directory %s", tmpl);
	b->r->work = hk_xstrdup(tmpl);
	b->work_made = true;
	if (chmod(tmpl, 0755) < 0)
		return hk_fail_errno(b->err, errno, "chmod %s", tmpl);
	b->recipe_dir = hk_xasprintf("%s/recipe", tmpl);
	b->src_parent = hk_xasprintf("%s/src", b->recipe_dir);
	b->debs_dir = hk_xasprintf("%s/debs", tmpl);
	b->recipe_path = hk_xasprintf("%s/recipe.toml", b->recipe_dir);
	if (mkdir(b->recipe_dir, 0755) < 0 || mkdir(b->src_parent, 0755) < 0 ||
	    mkdir(b->debs_dir, 0755) < 0)
		return hk_fail_errno(b->err, errno, "creating the work directory %s", tmpl);
	return 0;
}

/* dpkg-source -x on the host, into src/<source>-<upstream version>.  A source dpkg-source
 * refuses (an unknown format, a patch that does not apply, a missing file) is bad input. */
static int unpack(struct dsc_build *b)
{
	const struct hk_dsc *d = &b->r->dsc;
	hk_autofree char *up = upstream_version(d->version);
	b->r->srcdir = hk_xasprintf("%s-%s", d->source, up);
	hk_autofree char *dest = hk_xasprintf("%s/%s", b->src_parent, b->r->srcdir);
	const char *argv[] = { "dpkg-source", "--no-copy", "-x", b->r->dsc_path, dest, NULL };
	struct hk_run_result res;
	int rc = hk_run_capture(argv, b->r->work, &res, b->err);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		const char *e = strstr(hk_buf_str(&res.errout), "error: ");
		char line[512];
		struct hk_buf only = HK_BUF_INIT;
		hk_buf_puts(&only, e ? e + 7 : hk_buf_str(&res.errout));
		rc = hk_fail(b->err, EINVAL, "%s: Format %s: dpkg-source -x refused the source: %s",
			     b->o->dsc_path, d->format, hk_first_line(&only, line, sizeof(line)));
		hk_buf_free(&only);
	}
	hk_run_result_free(&res);
	if (rc < 0)
		return rc;
	/* SOURCE_DATE_EPOCH as dpkg-buildpackage sets it: the latest changelog entry's date. */
	hk_autofree char *changelog = hk_xasprintf("%s/debian/changelog", dest);
	const char *argv2[] = { "dpkg-parsechangelog", "-l", changelog, "-STimestamp", NULL };
	rc = hk_run_capture(argv2, NULL, &res, b->err);
	if (rc < 0)
		return rc;
	const char *ts = hk_buf_str(&res.out);
	size_t n = strspn(ts, "0123456789");
	if (res.status != 0 || n == 0 || (ts[n] && ts[n] != '\n')) {
		char line[512];
		rc = hk_fail(b->err, EINVAL, "%s: debian/changelog: no date in its latest entry "
			     "(dpkg-parsechangelog: %s)", b->o->dsc_path,
			     hk_first_line(&res.errout, line, sizeof(line)));
	} else {
		b->r->source_date_epoch = hk_xstrndup(ts, n);
	}
	hk_run_result_free(&res);
	if (rc == 0)
		say(b, "unpacked with dpkg-source -x into /src/%s (Format %s); SOURCE_DATE_EPOCH=%s "
		       "from debian/changelog", b->r->srcdir, d->format, b->r->source_date_epoch);
	return rc;
}

/* ---- 3. the base and the closure ---------------------------------------------------------- */

/* A stanza of the base's status file whose package is installed ("… installed"). */
static bool installed(const struct hk_deb_stanza *st)
{
	const char *s = hk_deb_field(st, "Status");
	const char *last = s ? strrchr(s, ' ') : NULL;
	return hk_deb_field(st, "Package") && last && strcmp(last + 1, "installed") == 0;
}

static int open_store_and_base(struct dsc_build *b)
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
		w += installed(&b->base_status[i]);
	/* The base must be of the architecture the build is for. */
	for (size_t i = 0; i < b->n_base_status; i++) {
		if (!installed(&b->base_status[i]) ||
		    strcmp(hk_deb_field(&b->base_status[i], "Package"), "dpkg") != 0)
			continue;
		const char *a = hk_deb_field(&b->base_status[i], "Architecture");
		if (!a || strcmp(a, b->host.arch) != 0)
			return hk_fail(b->err, EINVAL, "base %s is a %s system; this machine builds "
				       "for %s", b->o->base, a ? a : "?", b->host.arch);
	}
	say(b, "base %s %s (%zu packages installed)", b->base->name, b->base->id, w);
	return 0;
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

static bool is_conflicts(enum hk_dsc_field f)
{
	return f >= HK_DSC_BUILD_CONFLICTS;
}

/* The fields this build uses, reduced for the machine and the active profiles. */
static int reduce_fields(struct dsc_build *b)
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
			return hk_wrap(b->err, "%s:%u", b->o->dsc_path, r->dsc.relation_line[f]);
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
		for (size_t g = 0; b->groups[f] && is_conflicts(f) == conflicts && g < b->n_groups[f];
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
			 b->o->dsc_path, field ? field : "Build-Depends", b->base->name,
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
			       b->o->dsc_path, p->name);
	return 0;
}

/* The closure: what apt would install on the base to satisfy build-essential, fakeroot and
 * the used Build-Depends and Build-Conflicts, asked of apt itself with the base's package
 * database as its state (no root, nothing installed: -s). */
static int resolve_closure(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	struct hk_buf deps = HK_BUF_INIT, conflicts = HK_BUF_INIT;
	for (size_t i = 0; i < HK_ARRAY_LEN(implicit_deps); i++)
		hk_buf_printf(&deps, "%s%s", i ? ", " : "", implicit_deps[i]);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++) {
		if (!r->reduced[f] || !*r->reduced[f])
			continue;
		struct hk_buf *into = is_conflicts(f) ? &conflicts : &deps;
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
	struct hk_run_result res;
	int rc = hk_run_capture(argv, r->work, &res, b->err);
	hk_buf_free(&deps);
	hk_buf_free(&conflicts);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		rc = unsatisfiable(b, &res);
		hk_run_result_free(&res);
		return rc;
	}
	const char *out = hk_buf_str(&res.out);
	for (const char *p = out; rc == 0 && p && *p;) {
		const char *nl = strchr(p, '\n');
		hk_autofree char *line = hk_xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
		if (strncmp(line, "Remv ", 5) == 0) {
			rc = hk_fail(b->err, EINVAL, "%s: Build-Conflicts: satisfying them removes %.*s "
				     "from base %s, and a build cannot remove what its base holds",
				     b->o->dsc_path, (int)strcspn(line + 5, " "), line + 5,
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
		say(b, "closure: %zu package(s) beyond the base (apt-get satisfy on its package "
		       "database)", r->n_closure);
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
	say(b, "downloading %zu package(s) with apt-get download", n);
	struct hk_run_result res;
	int rc = hk_run_capture((const char *const *)a.v, b->debs_dir, &res, b->err);
	hk_argv_free(a.v);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		char line[512];
		rc = hk_fail(b->err, EIO, "apt-get download failed: %s",
			     hk_apt_reason(&res.errout, line, sizeof(line)));
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
		say(b, "imported %zu package(s) into the store", added_n);
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
static int import_closure(struct dsc_build *b)
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
	/* Two builds of one closure at once make its state once: the second waits, then finds it
	 * (two makings could differ in a byte and leave one version under two ids). */
	hk_autofree char *lock_path = hk_xasprintf("%s/.dpkg-state.lock", hk_store_dir(b->store));
	int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0)
		return hk_fail_errno(b->err, errno, "cannot open %s", lock_path);
	while (flock(lock, LOCK_EX) < 0 && errno == EINTR) {
	}
	/* What another build added meanwhile is seen by a store opened now. */
	hk_autofree char *dir = hk_xstrdup(hk_store_dir(b->store));
	hk_store_close(b->store);
	b->store = NULL;
	free(b->closure_arts);
	b->closure_arts = NULL;
	rc = hk_store_open(dir, false, &b->store, b->err);
	if (rc == 0)
		rc = hk_base_find(b->store, b->r->base_id, &b->base, b->err);
	if (rc == 0)
		rc = find_closure_artifacts(b);
	if (rc == 0)
		rc = find_or_make_state(b, hex);
	close(lock);
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
		say(b, "dpkg state %s (made before for this closure)", b->state->id);
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
		say(b, "dpkg state %s made", b->state->id);
	}
	r->state_id = hk_xstrdup(b->state->id);
	return 0;
}

/* --see: packages the store view should show (imported with their dependencies). */
static int import_visible(struct dsc_build *b)
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
		if (installed(&b->base_status[i]))
			hk_strv_push(&base, hk_deb_field(&b->base_status[i], "Package"));
	say(b, "importing %zu package(s) to be visible (--see), with their dependencies",
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

/* The package database the sandbox shows: the state's (base + closure), or the base's own
 * when the closure is empty; and its files as sandbox paths, to be granted. */
static int list_dpkg_db(struct dsc_build *b, const char *dir, const char *rel)
{
	hk_autofree char *host = hk_xasprintf("%s%s%s", dir, *rel ? "/" : "", rel);
	int fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(b->err, errno, "cannot open %s", host);
	DIR *d = NULL;
	struct dirent *de;
	int rc = hk_dir_fdopen(fd, host, &d, b->err);
	while (rc == 0 && (rc = hk_dir_next(d, host, &de, b->err)) == 0 && de) {
		hk_autofree char *crel = hk_xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);
		hk_autofree char *chost = hk_xasprintf("%s/%s", host, de->d_name);
		struct stat st;
		if (lstat(chost, &st) < 0)
			rc = hk_fail_errno(b->err, errno, "cannot inspect %s", chost);
		else if (S_ISDIR(st.st_mode))
			rc = list_dpkg_db(b, dir, crel);
		else if (S_ISREG(st.st_mode))
			hk_strv_push_owned(&b->dpkg_db_files, hk_xasprintf("/var/lib/dpkg/%s", crel));
	}
	if (d)
		closedir(d);
	return rc;
}

/* ---- 5. the recipe ------------------------------------------------------------------------ */

static void toml_str(struct hk_buf *b, const char *s)
{
	hk_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			hk_buf_putc(b, '\\');
		hk_buf_putc(b, *s);
	}
	hk_buf_putc(b, '"');
}

/* The base's installed package named `name`, or providing it. */
static const struct hk_deb_stanza *base_pkg(const struct dsc_build *b, const char *name,
					    bool *virtual_)
{
	*virtual_ = false;
	for (size_t i = 0; i < b->n_base_status; i++)
		if (installed(&b->base_status[i]) &&
		    strcmp(hk_deb_field(&b->base_status[i], "Package"), name) == 0)
			return &b->base_status[i];
	for (size_t i = 0; i < b->n_base_status; i++) {
		const char *prov = hk_deb_field(&b->base_status[i], "Provides");
		if (!prov || !installed(&b->base_status[i]))
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

static bool closure_has(const struct hk_dsc_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_closure; i++)
		if (strcmp(r->closure[i].name, name) == 0)
			return true;
	return false;
}

/* The base packages the build declares, NAME=VERSION as the base has them: the Essential
 * ones, build-essential and fakeroot when the base has them, and every alternative of a used
 * Build-Depends the base has (its closure follows in the plan, core/debroot.h).  Packages the
 * closure replaces are declared from the closure instead. */
static void declare_base(struct dsc_build *b, struct hk_strset *names)
{
	for (size_t i = 0; i < b->n_base_status; i++) {
		const char *ess = hk_deb_field(&b->base_status[i], "Essential");
		if (installed(&b->base_status[i]) && ess && strcasecmp(ess, "yes") == 0)
			hk_strset_add(names, hk_deb_field(&b->base_status[i], "Package"));
	}
	for (size_t i = 0; i < HK_ARRAY_LEN(implicit_deps); i++)
		hk_strset_add(names, implicit_deps[i]);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		for (size_t g = 0; !is_conflicts(f) && g < b->n_groups[f]; g++)
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				hk_strset_add(names, b->groups[f][g].alts[k].name);
	struct hk_strset kept = HK_STRSET_INIT;
	for (size_t i = 0; i < names->len; i++) {
		bool virtual_;
		const struct hk_deb_stanza *st = base_pkg(b, names->items[i], &virtual_);
		if (!st)
			continue;
		const char *pkg = hk_deb_field(st, "Package");
		if (closure_has(b->r, pkg))
			continue;
		hk_strset_add_owned(&kept, hk_xasprintf("%s=%s", pkg, hk_deb_field(st, "Version")));
	}
	hk_strset_sort(&kept);
	hk_strset_free(names);
	*names = kept;
}

static const char *target(enum hk_dsc_mode m, const char *what)
{
	static char buf[2][32];
	static int k;
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", what,
		 m == HK_DSC_BUILD_BINARY ? "" : m == HK_DSC_BUILD_ANY ? "-arch" : "-indep");
	return buf[k];
}

/* The recipe the engine runs (kept in the work directory, and in the result). */
static int write_recipe(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const char *flag = r->mode == HK_DSC_BUILD_BINARY ? "-b" : r->mode == HK_DSC_BUILD_ANY
								       ? "-B" : "-A";
	struct hk_strset base_names = HK_STRSET_INIT;
	declare_base(b, &base_names);
	r->declared_base = hk_xcalloc(base_names.len + 1, sizeof(char *));
	for (size_t i = 0; i < base_names.len; i++)
		r->declared_base[i] = hk_xstrdup(base_names.items[i]);
	r->n_declared_base = base_names.len;

	struct hk_buf t = HK_BUF_INIT;
	hk_buf_puts(&t, "# Written by harkaq build --dsc: the Debian build of ");
	hk_buf_printf(&t, "%s %s (docs/debian-builds.md)\nname = ", r->dsc.source, r->dsc.version);
	toml_str(&t, r->dsc.source);
	hk_buf_puts(&t, "\nversion = ");
	toml_str(&t, r->dsc.version);
	hk_buf_puts(&t, "\nbase = ");
	toml_str(&t, b->base->id);
	hk_buf_puts(&t, "\n\n[source]\ndir = \"src\"\n\n[deps]\nbuild = [\n");
	for (size_t i = 0; i < base_names.len; i++) {
		hk_buf_puts(&t, "  ");
		toml_str(&t, base_names.items[i]);
		hk_buf_puts(&t, ",\n");
	}
	for (size_t i = 0; i < r->n_closure; i++) {
		hk_autofree char *spec = hk_xasprintf("%s=%s", r->closure[i].name,
						      r->closure[i].version);
		hk_buf_puts(&t, "  ");
		toml_str(&t, spec);
		hk_buf_puts(&t, ",\n");
	}
	if (b->state) {
		hk_buf_printf(&t, "  \"%s=%s\",\n", b->state->name, b->state->version);
	}
	hk_buf_puts(&t, "]\n\n[phases]\n");
	/* Each target run by dpkg-buildpackage itself: its environment (dpkg-architecture,
	 * dpkg-buildflags), its check of the Build-Depends against /var/lib/dpkg, and its
	 * choice of fakeroot from Rules-Requires-Root. */
	if (!b->o->no_clean)
		hk_buf_printf(&t, "configure = \"cd %s && dpkg-buildpackage --no-sign %s -T clean\"\n",
			      r->srcdir, flag);
	hk_buf_printf(&t, "compile = \"cd %s && dpkg-buildpackage --no-sign %s -T %s\"\n",
		      r->srcdir, flag, target(r->mode, "build"));
	hk_buf_printf(&t, "install = [\n  \"cd %s && dpkg-buildpackage --no-sign -nc %s\",\n"
			  "  \"cd /src && for f in *.deb *.udeb *.ddeb *.buildinfo *.changes; do "
			  "[ ! -e \\\"$f\\\" ] || mv \\\"$f\\\" /out/; done\",\n]\n",
		      r->srcdir, flag);
	hk_buf_puts(&t, "\n[env]\nDEB_BUILD_OPTIONS = ");
	toml_str(&t, r->build_options);
	hk_buf_puts(&t, "\nDEB_BUILD_PROFILES = ");
	toml_str(&t, r->profiles);
	/* The sandbox is a user namespace where uid 0 is not mapped: a real chown to root fails
	 * with EINVAL, which libfakeroot passes on (it forgives only EPERM).  This tells it not
	 * to try the real chown at all, only to record the owner (fakeroot(1)). */
	hk_buf_puts(&t, "\nFAKEROOTDONTTRYCHOWN = \"1\"\n");
	hk_strset_free(&base_names);
	int rc = hk_file_write_atomic(b->recipe_path, t.data, t.len, 0644, b->err);
	hk_buf_free(&t);
	return rc;
}

/* ---- 6. the outputs ----------------------------------------------------------------------- */

static int collect_outputs(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const struct hk_build_result *br = &r->build;
	if (!br->artifact_dir)
		return 0;
	hk_autofree char *dir = hk_xasprintf("%s/%s", hk_store_dir(br->store), br->artifact_dir);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(b->err, errno, "cannot open %s", dir);
	DIR *d = NULL;
	struct dirent *de;
	hk_autostrv struct hk_strv names = HK_STRV_INIT;
	int rc = hk_dir_fdopen(fd, dir, &d, b->err);
	while (rc == 0 && (rc = hk_dir_next(d, dir, &de, b->err)) == 0 && de)
		hk_strv_push(&names, de->d_name);
	if (d)
		closedir(d);
	hk_strv_sort_unique(&names);
	r->outputs = hk_xcalloc(names.n + 1, sizeof(*r->outputs));
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		hk_autofree char *p = hk_xasprintf("%s/%s", dir, names.v[i]);
		struct stat st;
		if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		struct hk_dsc_output *out = &r->outputs[r->n_outputs];
		rc = hk_sha256_file(p, out->sha256, b->err);
		if (rc == 0) {
			out->file = hk_xstrdup(names.v[i]);
			out->size = (unsigned long long)st.st_size;
			r->n_outputs++;
		}
	}
	return rc;
}

/* ---- 7. the converse ---------------------------------------------------------------------- */

/* The sandbox paths of the files the declared package `name` ships: its closure artifact's,
 * or the base's own (core/debroot.h). */
static int package_files(const struct hk_dsc_result *r, const char *name, struct hk_strset *out,
			 struct hk_error *err)
{
	for (size_t i = 0; i < r->n_closure; i++) {
		if (strcmp(r->closure[i].name, name) != 0)
			continue;
		const struct hk_artifact *a;
		if (hk_store_find(r->build.store, r->closure[i].id, &a, err) < 0)
			return -err->code;
		struct hk_tree t = HK_TREE_INIT;
		int rc = hk_store_files(r->build.store, a, &t, err);
		for (size_t k = 0; rc == 0 && k < t.n; k++)
			if (t.entries[k].type == HK_TREE_FILE)
				hk_strset_add_owned(out, hk_xasprintf("/%s", t.entries[k].path));
		hk_tree_free(&t);
		return rc;
	}
	struct hk_strset one = HK_STRSET_INIT;
	hk_strset_add(&one, name);
	int rc = hk_debroot_package_files(r->build.plan.base_root, &one, out, err);
	hk_strset_free(&one);
	return rc;
}

/* The declared packages an alternative `name` stands for: the closure's or the base's package
 * of that name, else those providing it. */
static void declared_for(struct dsc_build *b, const char *name, struct hk_strv *out)
{
	const struct hk_dsc_result *r = b->r;
	for (size_t i = 0; i < r->n_closure; i++)
		if (strcmp(r->closure[i].name, name) == 0) {
			hk_strv_push(out, name);
			return;
		}
	bool virtual_;
	const struct hk_deb_stanza *st = base_pkg(b, name, &virtual_);
	if (st && !virtual_) {
		hk_strv_push(out, name);
		return;
	}
	for (size_t i = 0; i < r->n_closure; i++) {
		const struct hk_artifact *a;
		struct hk_error e;
		if (hk_store_find(r->build.store, r->closure[i].id, &a, &e) < 0)
			continue;
		for (size_t k = 0; k < a->n_provides; k++)
			if (strcmp(a->provides[k], name) == 0)
				hk_strv_push(out, r->closure[i].name);
	}
	if (out->n == 0 && st)
		hk_strv_push(out, hk_deb_field(st, "Package"));
}

static bool any_opened(const struct hk_strset *files, const struct hk_strset *opened)
{
	for (size_t i = 0; i < files->len; i++)
		if (hk_strset_contains(opened, files->items[i]))
			return true;
	return false;
}

/* Whether every phase ran and succeeded: a Build-Depends of a phase that never ran would read
 * as unread. */
static bool completed(const struct hk_build_result *br)
{
	if (br->n_phases == 0 || br->failed_phase || !br->artifact_id[0])
		return false;
	for (size_t i = 0; i < br->n_phases; i++)
		if (br->phases[i].res.exit_code != 0)
			return false;
	return true;
}

/* The used Build-Depends groups none of whose declared packages had a file opened, each with
 * its packages' direct dependencies that had (a transitional package is read through them). */
static int find_unread(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const struct hk_strset *opened = &r->build.opened;
	int rc = 0;
	for (size_t f = 0; rc == 0 && f < HK_DSC_BUILD_CONFLICTS; f++) {
		for (size_t g = 0; rc == 0 && g < b->n_groups[f]; g++) {
			hk_autostrv struct hk_strv pkgs = HK_STRV_INIT;
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				declared_for(b, b->groups[f][g].alts[k].name, &pkgs);
			hk_strv_sort_unique(&pkgs);
			if (pkgs.n == 0)
				continue;
			r->n_groups_checked++;
			struct hk_strset files = HK_STRSET_INIT;
			for (size_t k = 0; rc == 0 && k < pkgs.n; k++)
				rc = package_files(r, pkgs.v[k], &files, b->err);
			bool read = rc == 0 && any_opened(&files, opened);
			size_t content = 0;
			for (size_t k = 0; k < files.len; k++)
				content += strncmp(files.items[k], "/usr/share/doc/", 15) != 0;
			hk_strset_free(&files);
			if (rc < 0 || read)
				continue;
			/* A package of documentation only (transitional, a metapackage) is used
			 * through its dependencies: say which of them were opened. */
			struct hk_buf deps = HK_BUF_INIT;
			for (size_t k = 0; content == 0 && k < pkgs.n; k++) {
				const struct hk_artifact *a = NULL;
				hk_autofree char *spec = NULL;
				struct hk_error e;
				for (size_t i = 0; i < r->n_closure; i++)
					if (strcmp(r->closure[i].name, pkgs.v[k]) == 0)
						spec = hk_xstrdup(r->closure[i].id);
				if (!spec || hk_store_find(r->build.store, spec, &a, &e) < 0)
					continue;
				for (size_t d = 0; d < a->n_deps; d++) {
					struct hk_strset dfiles = HK_STRSET_INIT;
					struct hk_error ignored;
					const char *dep = a->deps[d].alts[0];
					if (package_files(r, dep, &dfiles, &ignored) == 0 &&
					    any_opened(&dfiles, opened))
						hk_buf_printf(&deps, "%s%s", deps.len ? ", " : "", dep);
					hk_strset_free(&dfiles);
				}
			}
			r->unread = hk_xrealloc(r->unread, (r->n_unread + 1) * sizeof(*r->unread));
			struct hk_dsc_unread *u = &r->unread[r->n_unread++];
			struct hk_buf gt = HK_BUF_INIT, pt = HK_BUF_INIT;
			hk_deb_relations_text(&b->groups[f][g], 1, &gt);
			for (size_t k = 0; k < pkgs.n; k++)
				hk_buf_printf(&pt, "%s%s", k ? ", " : "", pkgs.v[k]);
			u->field = hk_xstrdup(hk_dsc_field_name(f));
			u->group = hk_buf_steal(&gt);
			u->packages = hk_buf_steal(&pt);
			u->deps_opened = deps.len ? hk_buf_steal(&deps) : NULL;
			hk_buf_free(&deps);
		}
	}
	return rc;
}

/* ---- the whole -------------------------------------------------------------------------- */

/* Up to the recipe: every step that can refuse the input comes before anything is imported
 * (except --see, which only adds packages). */
static int prepare(struct dsc_build *b)
{
	int rc;
	if ((rc = load_dsc(b)) < 0 || (rc = verify_files(b)) < 0 || (rc = read_host_arch(b)) < 0 ||
	    (rc = make_work(b)) < 0 || (rc = unpack(b)) < 0 || (rc = open_store_and_base(b)) < 0 ||
	    (rc = reduce_fields(b)) < 0 || (rc = resolve_closure(b)) < 0 ||
	    (rc = import_visible(b)) < 0 || (rc = import_closure(b)) < 0)
		return rc;
	const char *db = b->state ? b->state->path : b->base->path;
	b->dpkg_db = hk_xasprintf("%s/var/lib/dpkg", db);
	if ((rc = list_dpkg_db(b, b->dpkg_db, "")) < 0)
		return rc;
	return write_recipe(b);
}

int hk_dsc_build_run(const struct hk_build_opts *bo, const struct hk_dsc_opts *o,
		     struct hk_dsc_result *r, struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	r->mode = o->mode;
	r->build_options = o->with_checks ? hk_xasprintf("parallel=%d", o->jobs > 0 ? o->jobs : 1)
					  : hk_xasprintf("nocheck parallel=%d",
							 o->jobs > 0 ? o->jobs : 1);
	r->profiles = hk_xstrdup(o->with_checks ? "" : "nocheck");
	struct dsc_build b = { .bo = bo, .o = o, .r = r, .err = err,
			       .dpkg_db_files = HK_STRV_INIT };
	int rc = prepare(&b);
	int code;
	if (rc < 0) {
		code = hk_exit_for_errno(err->code);
	} else {
		static const char *const labels[HK_PHASE_COUNT] = { "clean", "build", "binary" };
		struct hk_build_opts eo = *bo;
		eo.recipe_path = b.recipe_path;
		hk_autofree char *store_dir = hk_xstrdup(hk_store_dir(b.store));
		eo.store_dir = store_dir;
		eo.source_date_epoch = r->source_date_epoch;
		eo.phase_labels = labels;
		eo.dpkg_db = b.dpkg_db;
		eo.dpkg_db_files = (const char *const *)b.dpkg_db_files.v;
		eo.n_dpkg_db_files = b.dpkg_db_files.n;
		eo.observe_opens = bo->cage;
		/* The engine opens the store again for itself: close ours, whose view of the
		 * artifacts is the same. */
		hk_store_close(b.store);
		b.store = NULL;
		code = hk_build_run(&eo, &r->build, err);
		r->built = true;
		if (code < HK_EXIT_USAGE && collect_outputs(&b) < 0)
			code = HK_EXIT_SOFTWARE;
		if (code < HK_EXIT_USAGE && r->build.opened_observed && completed(&r->build) &&
		    find_unread(&b) < 0)
			code = HK_EXIT_SOFTWARE;
	}
	if (b.store)
		hk_store_close(b.store);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		hk_deb_relations_free(b.groups[f], b.n_groups[f]);
	hk_deb_stanzas_free(b.base_status, b.n_base_status);
	free(b.closure_arts);
	if (b.work_made && !bo->keep) {
		struct hk_error ignored;
		hk_store_remove_tree(r->work, &ignored);
	} else if (b.work_made && !bo->quiet) {
		fprintf(stderr, "[dsc] work directory kept: %s (the recipe: %s)\n", r->work,
			b.recipe_path);
	}
	free(b.dsc_dir);
	free(b.recipe_dir);
	free(b.src_parent);
	free(b.debs_dir);
	free(b.recipe_path);
	free(b.dpkg_db);
	hk_strv_free(&b.dpkg_db_files);
	return code;
}

void hk_dsc_result_free(struct hk_dsc_result *r)
{
	if (r->dsc_loaded)
		hk_dsc_free(&r->dsc);
	free(r->dsc_path);
	free(r->srcdir);
	free(r->source_date_epoch);
	free(r->build_options);
	free(r->profiles);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		free(r->reduced[f]);
	free(r->base_name);
	free(r->base_id);
	for (size_t i = 0; i < r->n_closure; i++) {
		free(r->closure[i].name);
		free(r->closure[i].version);
		free(r->closure[i].arch);
		free(r->closure[i].upgrades);
	}
	free(r->closure);
	hk_strfreev(r->declared_base);
	free(r->state_id);
	if (r->built)
		hk_build_result_free(&r->build);
	for (size_t i = 0; i < r->n_outputs; i++)
		free(r->outputs[i].file);
	free(r->outputs);
	for (size_t i = 0; i < r->n_unread; i++) {
		free(r->unread[i].field);
		free(r->unread[i].group);
		free(r->unread[i].packages);
		free(r->unread[i].deps_opened);
	}
	free(r->unread);
	free(r->work);
	memset(r, 0, sizeof(*r));
}
