/* harkaq build --dsc FILE.dsc: a Debian source package as a build (build_dsc.h), one named
 * step at a time — the .dsc and its files, the unpacked source, the closure apt resolves on the
 * base with its imports and dpkg state (dsc_closure.c), the recipe, the engine, the outputs,
 * the converse (dsc_converse.c). */
#include "engine/debian/build_dsc.h"
#include "engine/debian/dsc_change.h"
#include "engine/debian/dsc_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/debian/debstate.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "engine/common/sign.h"
#include "engine/store/store_import.h"
#include "core/store/base.h"
#include "core/debian/deb.h"
#include "core/debian/debroot.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/strset.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

/* A .dsc is a small control file; a bigger one is a mistake. */
#define DSC_MAX (1024 * 1024)




/* ---- 1. the .dsc and its files ------------------------------------------------------------ */

static int load_dsc(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	const char *path = b->dsc_file;
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
					     "next to it (%s)", b->dsc_file, f->name, p);
		if (!S_ISREG(st.st_mode))
			return hk_fail(b->err, EINVAL, "%s: Checksums-Sha256: %s is not a regular "
				       "file", b->dsc_file, f->name);
		if ((unsigned long long)st.st_size != f->size)
			return hk_fail(b->err, EBADMSG, "%s: Checksums-Sha256: %s is %lld bytes, the "
				       ".dsc says %llu: not the file it was made with",
				       b->dsc_file, f->name, (long long)st.st_size,
				       (unsigned long long)f->size);
		char sha[HK_SHA256_HEX_LEN];
		int rc = hk_sha256_file(p, sha, b->err);
		if (rc < 0)
			return rc;
		if (strcmp(sha, f->sha256) != 0)
			return hk_fail(b->err, EBADMSG, "%s: Checksums-Sha256: %s has SHA-256 %s, the "
				       ".dsc says %s: not the file it was made with",
				       b->dsc_file, f->name, sha, f->sha256);
	}
	dsc_say(b, "%s %s: %zu file(s) match Checksums-Sha256", d->source, d->version, d->n_files);
	return 0;
}

/* ---- 2. the machine, the work directory, the unpacked source ------------------------------ */

/* Runs fn(arg) in a thread, or here when no thread can be made (then already joined). */
static void side_start(struct dsc_side *sd, void *(*fn)(void *), void *arg)
{
	if (pthread_create(&sd->thread, NULL, fn, arg) == 0) {
		sd->started = true;
		return;
	}
	fn(arg);
	sd->joined = true;
}

/* Waits for the thread side_start made, if it still runs. */
static void side_join(struct dsc_side *sd)
{
	if (sd->started && !sd->joined)
		pthread_join(sd->thread, NULL);
	sd->joined = true;
}

static void *host_arch_thread(void *arg)
{
	struct dsc_host_arch_run *ar = arg;
	const char *argv[] = { "dpkg-architecture", NULL };
	ar->rc = hk_run_capture(argv, NULL, &ar->res, &ar->err);
	return NULL;
}

/* Starts dpkg-architecture (~0.1 s of Perl) beside the steps that do not need its answer: the
 * work directory, the unpacking's start, the base (read_host_arch joins it). */
static int start_host_arch(struct dsc_build *b)
{
	side_start(&b->arch_run.side, host_arch_thread, &b->arch_run);
	return 0;
}

/* Waits for dpkg-architecture's thread, if it still runs. */
static void join_host_arch(struct dsc_build *b)
{
	side_join(&b->arch_run.side);
}

/* The architecture the build is for: this machine's, as dpkg names it; and the base must be of
 * it. */
static int read_host_arch(struct dsc_build *b)
{
	join_host_arch(b);
	struct dsc_host_arch_run *ar = &b->arch_run;
	if (ar->rc < 0) {
		*b->err = ar->err;
		return ar->rc;
	}
	struct hk_run_result res = ar->res;
	ar->res = (struct hk_run_result){ 0 };
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
	return dsc_check_base_arch(b);
}

/* "1:2.10-3" -> "2.10": the upstream version names the unpacked directory. */
static char *upstream_version(const char *v)
{
	const char *colon = strchr(v, ':');
	const char *s = colon ? colon + 1 : v;
	const char *dash = strrchr(s, '-');
	return hk_xstrndup(s, dash ? (size_t)(dash - s) : strlen(s));
}

/* dpkg-source -x on the host, into src/<source>-<upstream version>.  A source dpkg-source
 * refuses (an unknown format, a patch that does not apply, a missing file) is bad input.
 * --no-check: dpkg-source's own checks before unpacking are the files' checksums, which
 * verify_files has just made (size and SHA-256 of each), and the OpenPGP signature, whose
 * failure dpkg-source only warns about without --require-valid-signature; together they
 * cost 0.1-0.3 s of every build (gpgv and three digests per file).  Runs in the unpacking's
 * thread (start_unpack): it reads what no other step changes, and writes only `u`. */
static int unpack_source(const struct dsc_build *b, struct dsc_unpack *u, struct hk_error *err)
{
	const struct hk_dsc *d = &b->r->dsc;
	const char *argv[] = { "dpkg-source", "--no-copy", "--no-check", "-x", b->r->dsc_path,
			       u->dest, NULL };
	struct hk_run_result res;
	int rc = hk_run_capture(argv, b->r->work, &res, err);
	if (rc < 0)
		return rc;
	if (res.status != 0) {
		const char *e = strstr(hk_buf_str(&res.errout), "error: ");
		char line[512];
		struct hk_buf only = HK_BUF_INIT;
		hk_buf_puts(&only, e ? e + 7 : hk_buf_str(&res.errout));
		rc = hk_fail(err, EINVAL, "%s: Format %s: dpkg-source -x refused the source: %s",
			     b->dsc_file, d->format, hk_first_line(&only, line, sizeof(line)));
		hk_buf_free(&only);
	}
	hk_run_result_free(&res);
	if (rc < 0)
		return rc;
	/* SOURCE_DATE_EPOCH as dpkg-buildpackage sets it: the latest changelog entry's date,
	 * read here when its trailer has the usual form (dpkg-parsechangelog, a Perl program,
	 * costs ~40 ms of every build), else asked of dpkg-parsechangelog. */
	hk_autofree char *changelog = hk_xasprintf("%s/debian/changelog", u->dest);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error ignored;
	long long when;
	if (hk_file_read(changelog, &text, &ignored) == 0 &&
	    hk_changelog_timestamp(hk_buf_str(&text), text.len, &when) == 0) {
		hk_buf_free(&text);
		u->source_date_epoch = hk_xasprintf("%lld", when);
		return 0;
	}
	hk_buf_free(&text);
	const char *argv2[] = { "dpkg-parsechangelog", "-l", changelog, "-STimestamp", NULL };
	rc = hk_run_capture(argv2, NULL, &res, err);
	if (rc < 0)
		return rc;
	const char *ts = hk_buf_str(&res.out);
	size_t n = strspn(ts, "0123456789");
	if (res.status != 0 || n == 0 || (ts[n] && ts[n] != '\n')) {
		char line[512];
		rc = hk_fail(err, EINVAL, "%s: debian/changelog: no date in its latest entry "
			     "(dpkg-parsechangelog: %s)", b->dsc_file,
			     hk_first_line(&res.errout, line, sizeof(line)));
	} else {
		u->source_date_epoch = hk_xstrndup(ts, n);
	}
	hk_run_result_free(&res);
	return rc;
}

static void *unpack_thread(void *arg)
{
	struct dsc_build *b = arg;
	struct dsc_unpack *u = &b->unpack;
	long long t0 = hk_now_ms();
	u->rc = unpack_source(b, u, &u->err);
	u->ms = hk_now_ms() - t0;
	return NULL;
}

/* Starts unpacking the source while the steps that do not need it go on: dpkg-architecture,
 * the base, apt's answer, and on a warm build the engine's set-up up to the source's placing
 * (dsc_source_ready).  dpkg-source is 0.2-0.6 s of Perl start-up and unpacking, the largest
 * step of a warm build's front end.  Every step that can refuse the input still comes before
 * anything is imported (before_imports). */
static int start_unpack(struct dsc_build *b)
{
	const struct hk_dsc *d = &b->r->dsc;
	struct dsc_unpack *u = &b->unpack;
	hk_autofree char *up = upstream_version(d->version);
	b->r->srcdir = hk_xasprintf("%s-%s", d->source, up);
	u->dest = hk_xasprintf("%s/%s", b->src_parent, b->r->srcdir);
	side_start(&u->side, unpack_thread, b);
	return 0;
}

/* Waits for the unpacking's thread, if it still runs. */
static void wait_unpack(struct dsc_build *b)
{
	side_join(&b->unpack.side);
}

/* The expectations (core/debian/debexpect.h): the built-in set, then the package's own
 * debian/harkaq-expect when it has one, refused with its line and column before anything is
 * imported or run. */
static int load_expectations(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	hk_deb_expect_builtin(&r->expect);
	hk_autofree char *p = hk_xasprintf("%s/%s/" HK_DEB_EXPECT_FILE, b->src_parent, r->srcdir);
	struct stat st;
	if (lstat(p, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return hk_fail_errno(b->err, errno, "%s: " HK_DEB_EXPECT_FILE, b->dsc_file);
	}
	if (!S_ISREG(st.st_mode))
		return hk_fail(b->err, EINVAL, "%s: " HK_DEB_EXPECT_FILE " is not a regular file",
			       b->dsc_file);
	if (st.st_size > HK_DEB_EXPECT_MAX)
		return hk_fail(b->err, EINVAL, "%s: " HK_DEB_EXPECT_FILE ": %lld bytes is not an "
			       "expectation file (at most %d)", b->dsc_file,
			       (long long)st.st_size, HK_DEB_EXPECT_MAX);
	struct hk_buf text = HK_BUF_INIT;
	int rc = hk_file_read(p, &text, b->err);
	size_t before = r->expect.n;
	if (rc == 0)
		rc = hk_deb_expect_parse(hk_buf_str(&text), text.len, HK_DEB_EXPECT_FILE, NULL,
					 &r->expect, b->err);
	hk_buf_free(&text);
	if (rc < 0)
		return hk_wrap(b->err, "%s", b->dsc_file);
	r->expect_package_file = true;
	dsc_say(b, HK_DEB_EXPECT_FILE ": %zu expectation(s) of the package, beside %s's %zu",
		r->expect.n - before, HK_DEB_EXPECT_VERSION, before);
	return 0;
}

/* debian/control as unpacked, for the change to make (dsc_change.h): read now, since the
 * engine may take the tree.  A file that cannot be read leaves r->control NULL, and the
 * suggestion says so. */
static void read_control(struct dsc_build *b)
{
	struct hk_dsc_result *r = b->r;
	hk_autofree char *p = hk_xasprintf("%s/%s/debian/control", b->src_parent, r->srcdir);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error ignored;
	if (hk_file_read(p, &text, &ignored) == 0) {
		r->control_len = text.len;
		r->control = text.data ? hk_buf_steal(&text) : hk_xstrdup("");
	}
	hk_buf_free(&text);
}

/* The unpacked source, once: its failure is the build's; else the changelog's date, then the
 * package's expectations (load_expectations), and the engine's SOURCE_DATE_EPOCH.  The time
 * is the front end's steps' (unpack, expectations) unless the engine waits (`in_engine`: its
 * own source_wait).  Returns 0, or -errno with b->err set. */
static int join_source(struct dsc_build *b, bool in_engine)
{
	struct dsc_unpack *u = &b->unpack;
	if (!u->dest || b->source_joined)
		return b->source_rc;
	long long t0 = hk_now_ms();
	wait_unpack(b);
	if (!in_engine)
		dsc_step_add(b->r, HK_DSC_T_UNPACK, hk_now_ms() - t0);
	b->source_joined = true;
	if (u->rc < 0) {
		*b->err = u->err;
		return b->source_rc = u->rc;
	}
	struct hk_dsc_result *r = b->r;
	r->source_date_epoch = hk_steal_ptr(&u->source_date_epoch);
	read_control(b);
	dsc_say(b, "unpacked with dpkg-source -x into /src/%s (Format %s, %.1f s beside the other "
		   "steps); SOURCE_DATE_EPOCH=%s from debian/changelog",
		r->srcdir, r->dsc.format, (double)u->ms / 1000.0, r->source_date_epoch);
	t0 = hk_now_ms();
	b->source_rc = load_expectations(b);
	dsc_step_add(r, HK_DSC_T_EXPECTATIONS, in_engine ? 0 : hk_now_ms() - t0);
	if (b->source_rc == 0 && b->engine_env.v) {
		free(b->engine_env.v[b->sde_slot]);
		b->engine_env.v[b->sde_slot] = hk_xasprintf("SOURCE_DATE_EPOCH=%s",
							    r->source_date_epoch);
	}
	return b->source_rc;
}

/* The engine's hook (hk_build_opts.source_ready): the source it is about to place. */
static int dsc_source_ready(void *ctx, struct hk_error *err)
{
	struct dsc_build *b = ctx;
	int rc = join_source(b, true);
	if (rc < 0 && err != b->err)
		*err = *b->err;
	return rc;
}

/* Whether the imports would add nothing to the store: no --see, every package of the closure
 * there already, and its dpkg state made.  Only then does the unpacking go on beside the
 * engine; else it is awaited first (before_imports). */
static bool imports_nothing(struct dsc_build *b)
{
	const struct hk_dsc_result *r = b->r;
	if (b->o->n_see > 0)
		return false;
	if (r->n_closure == 0)
		return true;
	const struct hk_artifact **arts = hk_xcalloc(r->n_closure + 1, sizeof(*arts));
	struct hk_error ignored;
	bool all = true;
	for (size_t i = 0; all && i < r->n_closure; i++) {
		hk_autofree char *spec = hk_xasprintf("%s=%s", r->closure[i].name,
						      r->closure[i].version);
		all = hk_store_find(b->store, spec, &arts[i], &ignored) == 0;
	}
	if (all) {
		char hex[2 * HK_BLAKE3_OUT_LEN + 1];
		hk_debstate_id(b->base, arts, r->n_closure, hex);
		hk_autofree char *spec = hk_xasprintf("%s=%s", HK_DEBSTATE_NAME, hex);
		const struct hk_artifact *state;
		all = hk_store_find(b->store, spec, &state, &ignored) == 0;
	}
	free(arts);
	return all;
}

/* Before anything is imported, the unpacking and the expectations, which can refuse the
 * input, are awaited: bad input leaves the store as it was.  A build that imports nothing
 * awaits them in the engine instead. */
static int before_imports(struct dsc_build *b)
{
	return imports_nothing(b) ? 0 : join_source(b, false);
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

static int list_state_db(struct dsc_build *b)
{
	const char *db = b->state ? b->state->path : b->base->path;
	b->dpkg_db = hk_xasprintf("%s/var/lib/dpkg", db);
	return list_dpkg_db(b, b->dpkg_db, "");
}


/* ---- 5. the recipe ------------------------------------------------------------------------ */

/* The base packages the build declares, NAME=VERSION as the base has them: the Essential
 * ones, build-essential and fakeroot when the base has them, and every alternative of a used
 * Build-Depends the base has (its closure follows in the plan, core/debian/debroot.h).  Packages the
 * closure replaces are declared from the closure instead. */
static void declare_base(struct dsc_build *b, struct hk_strset *names)
{
	for (size_t i = 0; i < b->n_base_status; i++) {
		const char *ess = hk_deb_field(&b->base_status[i], "Essential");
		if (dsc_installed(&b->base_status[i]) && ess && strcasecmp(ess, "yes") == 0)
			hk_strset_add(names, hk_deb_field(&b->base_status[i], "Package"));
	}
	for (size_t i = 0; i < DSC_N_IMPLICIT; i++)
		hk_strset_add(names, dsc_implicit_deps[i]);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		for (size_t g = 0; !dsc_is_conflicts(f) && g < b->n_groups[f]; g++)
			for (size_t k = 0; k < b->groups[f][g].n; k++)
				hk_strset_add(names, b->groups[f][g].alts[k].name);
	struct hk_strset kept = HK_STRSET_INIT;
	for (size_t i = 0; i < names->len; i++) {
		bool virtual_;
		const struct hk_deb_stanza *st = dsc_base_pkg(b, names->items[i], &virtual_);
		if (!st)
			continue;
		const char *pkg = hk_deb_field(st, "Package");
		if (dsc_closure_has(b->r, pkg))
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

/* The binary phase's rules command (make_recipe says why), beside the unpacked tree, and the
 * command that writes it: debian/rules with its build targets made no-ops. */
#define DSC_BINARY_RULES "/src/.harkaq-binary-rules"
static const char binary_rules[] =
	"printf '%s\\n' "
	"'# debian/rules without the build targets, which the build phase ran (harkaq build --dsc)' "
	"'case \"$1\" in' "
	"'build|build-arch|build-indep) echo \"harkaq: debian/rules $1 ran in the build phase; "
	"not run again\" >&2; exit 0 ;;' "
	"'esac' "
	"'exec debian/rules \"$@\"' >" DSC_BINARY_RULES;

/* The recipe the engine runs, made in memory (core/policy/recipe.h: checked as a file's would be). */
static int make_recipe(struct dsc_build *b)
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

	struct hk_recipe *rc = &r->recipe;
	hk_recipe_init(rc, b->recipe_dir);
	r->recipe_made = true;
	/* The outputs' artifact is named SOURCE_debs: a Debian package name has no '_', so it
	 * never answers to a package's name (the source m4 builds the binary m4, and an output
	 * named m4 1.4.19-3 would make m4=1.4.19-3 ambiguous for every later closure). */
	hk_autofree char *name = hk_xasprintf("%s_debs", r->dsc.source);
	struct hk_error *err = b->err;
	int ret = hk_recipe_set_identity(rc, name, r->dsc.version, err);
	if (ret == 0)
		ret = hk_recipe_set_store_base(rc, b->base->id, err);
	if (ret == 0)
		ret = hk_recipe_set_source_dir(rc, "src", err);
	for (size_t i = 0; ret == 0 && i < base_names.len; i++)
		ret = hk_recipe_add_build_dep(rc, base_names.items[i], err);
	for (size_t i = 0; ret == 0 && i < r->n_closure; i++) {
		hk_autofree char *spec = hk_xasprintf("%s=%s", r->closure[i].name,
						      r->closure[i].version);
		ret = hk_recipe_add_build_dep(rc, spec, err);
	}
	if (ret == 0 && b->state) {
		hk_autofree char *spec = hk_xasprintf("%s=%s", b->state->name, b->state->version);
		ret = hk_recipe_add_build_dep(rc, spec, err);
	}
	hk_strset_free(&base_names);
	/* Each target run by dpkg-buildpackage itself: its environment (dpkg-architecture,
	 * dpkg-buildflags), its check of the Build-Depends against /var/lib/dpkg, and its
	 * choice of fakeroot from Rules-Requires-Root.  --sanitize-env as sbuild passes it to
	 * every dpkg since 1.20: umask 0022 and LC_COLLATE=C.UTF-8 (Dpkg::Vendor::Debian). */
	hk_autofree char *clean = hk_xasprintf(
		"cd %s && dpkg-buildpackage --sanitize-env --no-sign %s -T clean", r->srcdir, flag);
	hk_autofree char *build = hk_xasprintf(
		"cd %s && dpkg-buildpackage --sanitize-env --no-sign %s -T %s", r->srcdir, flag,
		target(r->mode, "build"));
	/* The binary phase runs what a buildd's dpkg-buildpackage runs after its build target:
	 * the binary target (under fakeroot when Rules-Requires-Root asks), dpkg-genbuildinfo,
	 * dpkg-genchanges.  dpkg-buildpackage -b alone would first run debian/rules build a
	 * second time, which a build target that is not idempotent fails ("mkdir: cannot create
	 * directory 'bin': File exists"); its --rules-file is a wrapper instead, debian/rules
	 * with the build targets, which the build phase ran, made no-ops.  The phase writes the
	 * wrapper itself, so the recipe is the whole of what ran; the rules command is two words,
	 * so that dpkg-buildpackage does not probe it with make -qn as it probes a makefile. */
	hk_autofree char *binary = hk_xasprintf(
		"cd %s && dpkg-buildpackage --sanitize-env --no-sign -nc %s "
		"--rules-file='/bin/sh " DSC_BINARY_RULES "'", r->srcdir, flag);
	if (ret == 0 && !b->o->no_clean)
		ret = hk_recipe_add_command(rc, HK_PHASE_CONFIGURE, clean, err);
	if (ret == 0)
		ret = hk_recipe_add_command(rc, HK_PHASE_COMPILE, build, err);
	if (ret == 0)
		ret = hk_recipe_add_command(rc, HK_PHASE_INSTALL, binary_rules, err);
	if (ret == 0)
		ret = hk_recipe_add_command(rc, HK_PHASE_INSTALL, binary, err);
	if (ret == 0)
		ret = hk_recipe_add_command(rc, HK_PHASE_INSTALL,
					    "cd /src && for f in *.deb *.udeb *.ddeb *.buildinfo "
					    "*.changes; do [ ! -e \"$f\" ] || mv \"$f\" /out/; done",
					    err);
	if (ret == 0)
		ret = hk_recipe_set_env(rc, "DEB_BUILD_OPTIONS", r->build_options, err);
	if (ret == 0)
		ret = hk_recipe_set_env(rc, "DEB_BUILD_PROFILES", r->profiles, err);
	/* The sandbox is a user namespace where uid 0 is not mapped: a real chown to root fails
	 * with EINVAL, which libfakeroot passes on (it forgives only EPERM).  This tells it not
	 * to try the real chown at all, only to record the owner (fakeroot(1)). */
	if (ret == 0)
		ret = hk_recipe_set_env(rc, "FAKEROOTDONTTRYCHOWN", "1", err);
	if (ret == 0)
		ret = hk_recipe_check(rc, err);
	if (ret < 0)
		hk_wrap(err, "the recipe of %s %s", r->dsc.source, r->dsc.version);
	return ret;
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

/* ---- the whole -------------------------------------------------------------------------- */

/* Whether the build user reaches the store, the base and harkaq-exec (engine/common/reach.h): asked
 * before the closure is imported, so that a refusal leaves the store as it was.  The engine
 * asks again for its own paths; this is the Debian front end's first write to the store. */
static int check_reach(struct dsc_build *b)
{
	uid_t uid;
	gid_t gid;
	int rc = hk_resolve_user(b->bo->user, &uid, &gid, b->err);
	if (rc < 0)
		return hk_error_set_class(b->err, HK_ERROR_USAGE);   /* --user, as a recipe's build */
	hk_autofree char *exec_path = NULL;
	if (b->bo->cage && (rc = hk_helper_path("harkaq-exec", &exec_path, b->err)) < 0)
		return rc;
	rc = hk_reach_check_build(b->bo->user, uid, gid, hk_store_dir(b->store), b->base->path,
				  exec_path, NULL,
				  b->bo->work_parent ? b->bo->work_parent : HK_BUILD_WORK_PARENT,
				  b->err);
	/* A path the build user cannot reach is bad input, as in the engine (build_prepare.c). */
	if (rc > 0)
		return hk_error_set_class(b->err, HK_ERROR_INPUT);
	return rc;
}

/* Up to the recipe: every step that can refuse the input comes before anything is imported
 * (except --see, which only adds packages). */
static int prepare(struct dsc_build *b)
{
	/* Each step timed (hk_dsc_result.ms_steps); the dpkg state's part of the imports is timed
	 * inside dsc_import_closure and taken out of them. */
	static const struct {
		enum hk_dsc_step step;
		int (*fn)(struct dsc_build *);
	} steps[] = {
		{ HK_DSC_T_SOURCE_PACKAGE, dsc_source_package },
		{ HK_DSC_T_CHECKSUMS, load_dsc },
		{ HK_DSC_T_CHECKSUMS, verify_files },
		{ HK_DSC_T_ARCH, start_host_arch },
		{ HK_DSC_T_UNPACK, dsc_make_work },
		{ HK_DSC_T_UNPACK, start_unpack },
		{ HK_DSC_T_BASE, dsc_open_base },
		{ HK_DSC_T_BASE, check_reach },
		{ HK_DSC_T_ARCH, read_host_arch },   /* joins dpkg-architecture, checks the base */
		{ HK_DSC_T_REDUCE, dsc_reduce_fields },
		{ HK_DSC_T_RESOLUTION, dsc_resolve_closure },
		{ HK_DSC_T_COUNT, before_imports },   /* times its own parts (join_source) */
		{ HK_DSC_T_IMPORTS, dsc_import_visible },
		{ HK_DSC_T_IMPORTS, dsc_import_closure },
		{ HK_DSC_T_DPKG_DB, list_state_db },
		{ HK_DSC_T_RECIPE, make_recipe },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(steps); i++) {
		long long t0 = hk_now_ms();
		int rc = steps[i].fn(b);
		if (steps[i].step != HK_DSC_T_COUNT)
			dsc_step_add(b->r, steps[i].step, hk_now_ms() - t0);
		if (rc < 0)
			return rc;
	}
	if (b->r->ms_steps[HK_DSC_T_DPKG_STATE] > 0)
		b->r->ms_steps[HK_DSC_T_IMPORTS] -= b->r->ms_steps[HK_DSC_T_DPKG_STATE];
	return 0;
}

/* --confirm (docs/debian-builds.md, "--confirm"): when the build failed and the report names
 * missing Build-Depends the store holds, the same build again with those packages left out of
 * the store view — the world of a machine without them.  The store view makes visible what a
 * buildd would not have, so a probe the build would survive by not finding (setuptools trying
 * `import Cython`) can fail on a denial instead: a build that succeeds without the packages did
 * not need them; one that still fails did, or failed for another reason its own report shows.
 * Nothing of the second build is sealed.  A failure to run it is said in its result, never
 * taken for either answer. */
/* Rounds of --confirm before the answer is given as it stands. */
#define CONFIRM_MAX_ROUNDS 4

static void confirm_needs(const struct hk_build_opts *eo, struct hk_dsc_result *r)
{
	if (!r->built || dsc_completed(&r->build))
		return;
	hk_autostrv struct hk_strv needs = HK_STRV_INIT;
	hk_dsc_store_needs(r, &needs);
	if (needs.n == 0)
		return;
	/* A round that fails again on other needs of the store (a second probe the view made
	 * fatal: python-pip meets pygments once Cython is gone) leaves those out too, until a
	 * round answers or names nothing new. */
	for (int round = 1;; round++) {
		struct hk_build_opts co = *eo;
		co.view_hide = (const char *const *)needs.v;
		co.n_view_hide = needs.n;
		co.no_seal = true;
		co.seal_impure = false;
		co.observe_opens = false;
		if (!eo->quiet) {
			fprintf(stderr, "[dsc] --confirm: building again without");
			for (size_t i = 0; i < needs.n; i++)
				fprintf(stderr, " %s", needs.v[i]);
			fprintf(stderr, " in the store view\n");
		}
		struct hk_error cerr = { 0 };
		if (hk_build_run(&co, &r->confirm, &cerr) < 0) {
			r->confirm_error = hk_xstrdup(cerr.msg);
			if (r->confirm.failed_stage == HK_BUILD_STAGE_NONE)
				r->confirm.failed_stage = HK_BUILD_STAGE_SETUP;
		}
		r->confirmed_ran = true;
		hk_autostrv struct hk_strv fresh = HK_STRV_INIT;
		if (round < CONFIRM_MAX_ROUNDS && hk_dsc_confirm_goes_on(r)) {
			hk_autostrv struct hk_strv again = HK_STRV_INIT;
			hk_dsc_store_needs_of(r, &r->confirm, &again);
			for (size_t i = 0; i < again.n; i++)
				if (!hk_strv_has(&needs, again.v[i]))
					hk_strv_push(&fresh, again.v[i]);
		}
		if (fresh.n == 0)
			break;
		/* This round is kept as a summary; the next one's result takes its place. */
		r->confirm_rounds = hk_xrealloc(r->confirm_rounds,
						(r->n_confirm_rounds + 1) *
							sizeof(*r->confirm_rounds));
		struct hk_dsc_confirm_round *cr = &r->confirm_rounds[r->n_confirm_rounds++];
		struct hk_strv hidden = HK_STRV_INIT;
		for (size_t i = 0; i < needs.n; i++)
			hk_strv_push(&hidden, needs.v[i]);
		cr->hidden = hk_strv_steal(&hidden);
		cr->phases = hk_dsc_phases_summary(&r->confirm);
		for (size_t i = 0; i < fresh.n; i++)
			hk_strv_push(&needs, fresh.v[i]);
		cr->new_needs = hk_strv_steal(&fresh);
		hk_build_result_free(&r->confirm);
		r->confirmed_ran = false;
		free(r->confirm_error);
		r->confirm_error = NULL;
	}
	r->n_confirm_hidden = needs.n;
	r->confirm_hidden = hk_strv_steal(&needs);
}

int hk_dsc_build_run(const struct hk_build_opts *bo, const struct hk_dsc_opts *o,
		     struct hk_dsc_result *r, struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	for (int s = 0; s < HK_DSC_T_COUNT; s++)
		r->ms_steps[s] = -1;
	long long t_run = hk_now_ms(), t0;
	r->mode = o->mode;
	r->build_options = o->with_checks ? hk_xasprintf("parallel=%d", o->jobs > 0 ? o->jobs : 1)
					  : hk_xasprintf("nocheck parallel=%d",
							 o->jobs > 0 ? o->jobs : 1);
	r->profiles = hk_xstrdup(o->with_checks ? "" : "nocheck");
	struct dsc_build b = { .bo = bo, .o = o, .r = r, .err = err,
			       .dpkg_db_files = HK_STRV_INIT, .engine_env = HK_STRV_INIT };
	int rc = prepare(&b);
	if (rc >= 0) {
		struct hk_build_opts eo = *bo;
		eo.recipe_path = NULL;
		eo.recipe = &r->recipe;
		hk_autofree char *store_dir = hk_xstrdup(hk_store_dir(b.store));
		eo.store_dir = store_dir;
		eo.source_date_epoch = r->source_date_epoch;
		eo.phase_labels = hk_dsc_phase_labels;
		eo.dpkg_db = b.dpkg_db;
		eo.dpkg_db_files = (const char *const *)b.dpkg_db_files.v;
		eo.n_dpkg_db_files = b.dpkg_db_files.n;
		eo.observe_opens = bo->cage;
		/* The unpacked source is the front end's own: the engine takes it rather than
		 * copying it, unless a second build (--confirm, --decide-probes) needs it again
		 * or --keep keeps it for the reader. */
		eo.source_disposable = !o->confirm && !o->decide_probes && !bo->keep;
		/* --decide-probes compares the first build's .debs with the others' as built,
		 * sealed or not. */
		hk_autofree char *first_out = o->decide_probes ? hk_xasprintf("%s/first-out", r->work)
							       : NULL;
		eo.keep_out = first_out;
		eo.expect_set = &r->expect;
		struct hk_strv *env = &b.engine_env;
		for (size_t i = 0; hk_dsc_fixed_env[i]; i++)
			hk_strv_push(env, hk_dsc_fixed_env[i]);
		/* dpkg-buildpackage sets it to this value too; the engine's other commands (the
		 * outputs moved to /out) see the same.  Still unpacking, the source gives it to
		 * the engine when the engine needs it (dsc_source_ready). */
		b.sde_slot = env->n;
		hk_strv_push_owned(env, hk_xasprintf("SOURCE_DATE_EPOCH=%s",
						     r->source_date_epoch ? r->source_date_epoch
									  : ""));
		eo.fixed_env = (const char *const *)env->v;
		eo.n_fixed_env = env->n;
		if (!b.source_joined) {
			eo.source_ready = dsc_source_ready;
			eo.source_ctx = &b;
		}
		/* The engine builds on our store rather than reading its metadata again; each of
		 * its runs (--confirm, --decide-probes) refreshes it. */
		eo.store = b.store;
		/* The log is the only witness of a package used only through what the store
		 * view leaves out (dsc_log_aclocal.c); without it the build runs as it would. */
		struct dsc_log log;
		struct hk_error log_err;
		bool logged = dsc_log_start(&log, &log_err) == 0;
		if (!logged)
			dsc_say(&b, "the build's log is not kept (%s): macros it says were missing "
				    "are not named", log_err.msg);
		t0 = hk_now_ms();
		rc = hk_build_run(&eo, &r->build, err);
		dsc_step_add(r, HK_DSC_T_ENGINE, hk_now_ms() - t0);
		r->built = true;
		/* The source refused by dpkg-source or by its expectations is the build's failure,
		 * as when it is refused before the engine starts (no engine result), whether the
		 * engine asked for the source or stopped before it needed it — unless a signal
		 * stopped the build, which also stops dpkg-source. */
		bool stopped = rc < 0 && hk_error_class(err) == HK_ERROR_INTERRUPTED;
		int src = stopped ? 0 : join_source(&b, false);
		if (src < 0) {
			rc = src;
			hk_build_result_free(&r->build);
			r->built = false;
		}
		t0 = hk_now_ms();
		if (logged) {
			dsc_log_stop(&log);
			if (rc >= 0 && (dsc_find_macro_needs(&b, &log) < 0 ||
					dsc_find_library_needs(&b, &log) < 0))
				rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
			dsc_log_free(&log);
		}
		dsc_step_add(r, HK_DSC_T_LOG, hk_now_ms() - t0);
		r->n_expect_paths = r->build.n_set_expects;
		t0 = hk_now_ms();
		if (rc >= 0 && collect_outputs(&b) < 0)
			rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		dsc_step_add(r, HK_DSC_T_OUTPUTS, hk_now_ms() - t0);
		t0 = hk_now_ms();
		if (rc >= 0 && r->build.opened_observed && dsc_completed(&r->build) &&
		    dsc_find_unread(&b) < 0)
			rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		dsc_step_add(r, HK_DSC_T_CONVERSE, hk_now_ms() - t0);
		if (rc >= 0 && o->confirm)
			confirm_needs(&eo, r);
		if (rc >= 0 && o->decide_probes) {
			eo.keep_out = NULL;
			if (dsc_decide_probes(&b, &eo, first_out) < 0)
				rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		}
		if (rc >= 0) {
			int sc = hk_dsc_suggest_change(o, b.store, r, err);
			if (sc < 0)
				rc = sc;
		}
	}
	/* The unpacking writes into the work directory: it ends before the directory goes.  Its
	 * date is kept for the result even when the build stopped before it was needed. */
	wait_unpack(&b);
	join_host_arch(&b);
	hk_run_result_free(&b.arch_run.res);
	if (!r->source_date_epoch && b.unpack.rc == 0)
		r->source_date_epoch = hk_steal_ptr(&b.unpack.source_date_epoch);
	free(b.unpack.source_date_epoch);
	free(b.unpack.dest);
	hk_strv_free(&b.engine_env);
	if (b.store)
		hk_store_close(b.store);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		hk_deb_relations_free(b.groups[f], b.n_groups[f]);
	hk_deb_stanzas_free(b.base_status, b.n_base_status);
	free(b.closure_arts);
	if (b.work_made && !bo->keep) {
		/* The build's result stands; the directory left behind is said. */
		struct hk_error rm;
		if (hk_store_remove_tree(r->work, &rm) < 0)
			fprintf(stderr, "[dsc] work directory left behind: %s\n", rm.msg);
	} else if (b.work_made && !bo->quiet) {
		fprintf(stderr, "[dsc] work directory kept: %s\n", r->work);
	}
	free(b.dsc_made);
	free(b.dsc_dir);
	free(b.recipe_dir);
	free(b.src_parent);
	free(b.debs_dir);
	free(b.dpkg_db);
	hk_strv_free(&b.dpkg_db_files);
	r->ms_total = hk_now_ms() - t_run;
	return rc;
}

void hk_dsc_result_free(struct hk_dsc_result *r)
{
	if (r->dsc_loaded)
		hk_dsc_free(&r->dsc);
	free(r->dsc_path);
	free(r->dsc_made_from);
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
	if (r->confirmed_ran)
		hk_build_result_free(&r->confirm);
	hk_strfreev(r->confirm_hidden);
	free(r->confirm_error);
	for (size_t i = 0; i < r->n_confirm_rounds; i++) {
		hk_strfreev(r->confirm_rounds[i].hidden);
		free(r->confirm_rounds[i].phases);
		hk_strfreev(r->confirm_rounds[i].new_needs);
	}
	free(r->confirm_rounds);
	dsc_decide_free(&r->decide);
	for (size_t i = 0; i < r->n_outputs; i++)
		free(r->outputs[i].file);
	free(r->outputs);
	for (size_t i = 0; i < r->n_unread; i++) {
		free(r->unread[i].field);
		free(r->unread[i].group);
		free(r->unread[i].packages);
		hk_strfreev(r->unread[i].through);
		hk_strfreev(r->unread[i].through_paths);
	}
	free(r->unread);
	for (size_t i = 0; i < r->n_macro_needs; i++) {
		free(r->macro_needs[i].package);
		free(r->macro_needs[i].version);
		free(r->macro_needs[i].macro);
		free(r->macro_needs[i].file);
		free(r->macro_needs[i].dir);
		free(r->macro_needs[i].line);
	}
	free(r->macro_needs);
	free(r->work);
	free(r->control);
	hk_dsc_suggestion_free(&r->suggestion);
	free(r->suggestion_not);
	free(r->patch_file);
	free(r->bug_file);
	hk_expect_set_free(&r->expect);
	if (r->recipe_made)
		hk_recipe_free(&r->recipe);
	memset(r, 0, sizeof(*r));
}
