/* harkaq store import-deb / import-apt: Debian packages into the store (store_import.h). */
#include "engine/store/store_import.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/common/proc.h"
#include "engine/common/sign.h"
#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/debian/deb.h"
#include "core/debian/deb_status.h"
#include "core/basic/hex.h"
#include "core/formats/json.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/root/usrmerge.h"
#include "core/basic/util.h"

void hk_print_added(const struct hk_artifact *a, bool added, const char *from)
{
	printf("%s %s %s %s (%zu files%s%s)\n", added ? "added" : "present", a->id, a->name,
	       a->version, a->file_count, from ? ", from " : "", from ? from : "");
}

/* ---- one .deb ------------------------------------------------------------------------------ */

/* What a .deb says about itself: its control fields and the relations parsed from them. */
struct deb_package {
	struct hk_deb_stanza *stz;             /* the control data: one stanza */
	size_t n_stz;
	const char *pkg, *version, *arch;      /* fields of stz[0], required */
	const char *depends, *pre_depends, *provides;   /* raw fields, NULL when absent */
	struct hk_deb_rel_group *rel_depends, *rel_pre_depends, *rel_provides;
	size_t n_depends, n_pre_depends, n_provides;
};

static void deb_package_free(struct deb_package *p)
{
	hk_deb_relations_free(p->rel_depends, p->n_depends);
	hk_deb_relations_free(p->rel_pre_depends, p->n_pre_depends);
	hk_deb_relations_free(p->rel_provides, p->n_provides);
	hk_deb_stanzas_free(p->stz, p->n_stz);
	memset(p, 0, sizeof(*p));
}

/* Parses the relation field `field` (if present) into *g. */
static int parse_field(const char *text, const char *field, struct hk_deb_rel_group **g,
		       size_t *n, struct hk_error *err)
{
	return text ? hk_deb_parse_relations(text, field, g, n, err) : 0;
}

/* The control fields of the package at the absolute `path` (`dpkg-deb -f`) and its relations.
 * Package, Version and Architecture are required. */
static int read_control(const char *path, const char *file, struct deb_package *p,
			struct hk_error *err)
{
	/* Absolute path: it starts with '/', so dpkg-deb can never read it as an option. */
	const char *argv[] = { "dpkg-deb", "-f", path, NULL };
	struct hk_run_result res;
	int r = hk_run_capture(argv, NULL, &res, err);
	if (r < 0)
		return r;
	if (res.status != 0) {
		char line[512];
		r = hk_fail(err, EINVAL, "%s: not a readable Debian package (dpkg-deb -f: %s)", file,
			    hk_first_line(&res.errout, line, sizeof(line)));
		hk_run_result_free(&res);
		return r;
	}
	hk_autofree char *ctl_name = hk_xasprintf("%s (control)", file);
	r = hk_deb_parse_control(hk_buf_str(&res.out), res.out.len, ctl_name, &p->stz, &p->n_stz,
				 err);
	hk_run_result_free(&res);
	if (r < 0)
		return r;
	const struct hk_deb_stanza *st = p->n_stz == 1 ? &p->stz[0] : NULL;
	p->pkg = st ? hk_deb_field(st, "Package") : NULL;
	p->version = p->pkg ? hk_deb_field(st, "Version") : NULL;
	p->arch = p->pkg ? hk_deb_field(st, "Architecture") : NULL;
	if (!p->pkg || !p->version || !p->arch)
		return hk_fail(err, EINVAL, "%s: the control data lacks Package, Version or "
			       "Architecture", file);
	p->depends = hk_deb_field(st, "Depends");
	p->pre_depends = hk_deb_field(st, "Pre-Depends");
	p->provides = hk_deb_field(st, "Provides");
	r = parse_field(p->depends, "Depends", &p->rel_depends, &p->n_depends, err);
	if (r == 0)
		r = parse_field(p->pre_depends, "Pre-Depends", &p->rel_pre_depends,
				&p->n_pre_depends, err);
	if (r == 0)
		r = parse_field(p->provides, "Provides", &p->rel_provides, &p->n_provides, err);
	if (r < 0)
		hk_wrap(err, "%s", file);
	return r;
}

/* Runtime deps are names only (docs/store.md): version constraints and architecture
 * qualifiers stay in the recorded source, the store resolves by name.  Pre-Depends and
 * Depends become the deps, the Provides names the provides. */
static void runtime_deps(const struct deb_package *p, struct hk_dep_group **deps,
			 size_t *n_deps, struct hk_strv *provides)
{
	*deps = hk_xcalloc(p->n_depends + p->n_pre_depends + 1, sizeof(**deps));
	*n_deps = 0;
	for (int which = 0; which < 2; which++) {
		const struct hk_deb_rel_group *g = which ? p->rel_pre_depends : p->rel_depends;
		size_t ng = which ? p->n_pre_depends : p->n_depends;
		for (size_t i = 0; i < ng; i++) {
			struct hk_dep_group *d = &(*deps)[(*n_deps)++];
			d->alts = hk_xcalloc(g[i].n, sizeof(char *));
			for (size_t k = 0; k < g[i].n; k++)
				d->alts[d->n_alts++] = hk_xstrdup(g[i].alts[k].name);
		}
	}
	for (size_t i = 0; i < p->n_provides; i++)
		for (size_t k = 0; k < p->rel_provides[i].n; k++)
			hk_strv_push(provides, p->rel_provides[i].alts[k].name);
}

static void json_relations(struct hk_json *j, const char *key, const struct hk_deb_rel_group *g,
			   size_t n)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		hk_json_arr_begin(j);
		for (size_t k = 0; k < g[i].n; k++) {
			const struct hk_deb_rel *r = &g[i].alts[k];
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "name", r->name);
			if (r->arch)
				hk_json_kv_str(j, "arch", r->arch);
			if (r->op) {
				hk_json_kv_str(j, "op", r->op);
				hk_json_kv_str(j, "version", r->version);
			}
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
	}
	hk_json_arr_end(j);
}

/* The metadata's "source" (docs/store.md): the file, its SHA-256 (the archive's Packages index
 * names it) and BLAKE3, the raw control fields and the relations parsed from them. */
static int source_json(const char *path, const char *file, const struct deb_package *p,
		       struct hk_buf *out, struct hk_error *err)
{
	char sha256[HK_SHA256_HEX_LEN];
	uint8_t b3[HK_BLAKE3_OUT_LEN];
	char b3hex[2 * HK_BLAKE3_OUT_LEN + 1];
	int r = hk_sha256_file(path, sha256, err);
	if (r == 0)
		r = hk_tree_hash_file(AT_FDCWD, path, file, b3, err);
	if (r < 0)
		return r;
	hk_hex(b3, sizeof(b3), b3hex);
	const struct hk_deb_stanza *st = &p->stz[0];
	const char *base = strrchr(path, '/') + 1;
	struct hk_json j;
	hk_json_init(&j, out, 0);
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "type", "deb");
	hk_json_kv_bytes(&j, "file", base, strlen(base));
	hk_json_kv_str(&j, "sha256", sha256);
	hk_json_kv_str(&j, "blake3", b3hex);
	hk_json_kv_str(&j, "package", p->pkg);
	hk_json_kv_str(&j, "version", p->version);
	hk_json_kv_str(&j, "architecture", p->arch);
	hk_json_kv_str(&j, "essential", hk_deb_field(st, "Essential"));
	hk_json_kv_str(&j, "priority", hk_deb_field(st, "Priority"));
	hk_json_kv_str(&j, "depends", p->depends);
	hk_json_kv_str(&j, "pre_depends", p->pre_depends);
	hk_json_kv_str(&j, "provides", p->provides);
	hk_json_key(&j, "relations");
	hk_json_obj_begin(&j);
	json_relations(&j, "depends", p->rel_depends, p->n_depends);
	json_relations(&j, "pre_depends", p->rel_pre_depends, p->n_pre_depends);
	json_relations(&j, "provides", p->rel_provides, p->n_provides);
	hk_json_obj_end(&j);
	hk_json_obj_end(&j);
	return 0;
}

/* Unpacks the package's files (`dpkg-deb -x`) into a new temporary directory of the store,
 * *tmp, laid out as a merged-/usr sandbox sees them.  On failure nothing is left. */
static int extract(struct hk_store *s, const char *path, const char *file, char **tmp,
		   struct hk_error *err)
{
	int r = hk_store_mktemp(s, tmp, err);
	if (r < 0)
		return r;
	const char *argv[] = { "dpkg-deb", "-x", path, *tmp, NULL };
	struct hk_run_result res;
	r = hk_run_capture(argv, NULL, &res, err);
	if (r == 0 && res.status != 0) {
		char line[512];
		r = hk_fail(err, EINVAL, "%s: dpkg-deb -x failed: %s", file,
			    hk_first_line(&res.errout, line, sizeof(line)));
	}
	hk_run_result_free(&res);
	/* Debian 12's base roots are merged-/usr. */
	if (r == 0 && hk_root_is_merged_usr("/") && hk_usrmerge_tree(*tmp, err) < 0)
		r = hk_wrap(err, "%s", file);
	if (r < 0) {
		struct hk_error ignored;
		if (hk_store_remove_tree(*tmp, &ignored) < 0) {
			/* err says why the import failed; the temporary tree is no artifact. */
		}
		free(*tmp);
		*tmp = NULL;
	}
	return r;
}

int hk_import_deb(struct hk_store *s, const char *file, const struct hk_artifact **out,
		  bool *added, struct hk_error *err)
{
	hk_autofree char *path = realpath(file, NULL);
	if (!path)
		return hk_fail_errno(err, errno, "%s", file);
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return hk_fail(err, EINVAL, "%s is not a regular file", file);
	struct deb_package p = { 0 };
	struct hk_dep_group *deps = NULL;
	size_t n_deps = 0;
	hk_autostrv struct hk_strv provides = HK_STRV_INIT;
	struct hk_buf src = HK_BUF_INIT;
	hk_autofree char *tmp = NULL;
	int r = read_control(path, file, &p, err);
	if (r == 0) {
		runtime_deps(&p, &deps, &n_deps, &provides);
		r = source_json(path, file, &p, &src, err);
	}
	if (r == 0)
		r = extract(s, path, file, &tmp, err);
	if (r == 0) {
		struct hk_artifact_spec spec = {
			.name = p.pkg, .version = p.version, .deps = deps, .n_deps = n_deps,
			.provides = (const char *const *)provides.v, .n_provides = provides.n,
			.source_json = hk_buf_str(&src),
		};
		/* The temporary directory is consumed: moved into place, or removed on failure. */
		r = hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, out, added, err);
		if (r < 0)
			hk_wrap(err, "%s", file);
	}
	hk_buf_free(&src);
	hk_dep_groups_free(deps, n_deps);
	deb_package_free(&p);
	return r;
}

/* ---- apt ----------------------------------------------------------------------------------- */

/* Is `name` something apt can download (a real package, not a purely virtual one)? */
static int apt_is_real(const char *name, bool *real, struct hk_error *err)
{
	const char *argv[] = { "apt-cache", "show", "--no-all-versions", name, NULL };
	struct hk_run_result res;
	int r = hk_run_capture(argv, NULL, &res, err);
	if (r < 0)
		return r;
	*real = false;
	if (res.status == 0) {
		struct hk_deb_stanza *st = NULL;
		size_t n = 0;
		struct hk_error ignored;
		if (hk_deb_parse_control(hk_buf_str(&res.out), res.out.len, "apt-cache", &st, &n,
					 &ignored) == 0) {
			*real = n > 0 && hk_deb_field(&st[0], "Package") != NULL;
			hk_deb_stanzas_free(st, n);
		}
	}
	hk_run_result_free(&res);
	return 0;
}

static bool store_has(struct hk_store *s, const char *name)
{
	const struct hk_artifact *a;
	struct hk_error err;
	int r = hk_store_find(s, name, &a, &err);
	/* Ambiguous means several artifacts answer to the name: present. */
	return r == 0 || r == -EEXIST;
}

const char *hk_apt_reason(struct hk_buf *errout, char *line, size_t size)
{
	const char *e = strstr(hk_buf_str(errout), "E: ");
	struct hk_buf only = HK_BUF_INIT;
	hk_buf_puts(&only, e ? e : hk_buf_str(errout));
	hk_first_line(&only, line, size);
	hk_buf_free(&only);
	return line;
}

/* Downloads `spec` (NAME or NAME=VERSION) into `dldir` and returns the .deb's path. */
static int apt_download(const char *spec, const char *dldir, char **deb, struct hk_error *err)
{
	const char *argv[] = { "apt-get", "download", "-q", spec, NULL };
	struct hk_run_result res;
	int r = hk_run_capture(argv, dldir, &res, err);
	if (r < 0)
		return r;
	if (res.status != 0) {
		char line[512];
		hk_apt_reason(&res.errout, line, sizeof(line));
		/* An unknown package is bad input; anything else (network, archive) is the
		 * environment. */
		bool unknown = strstr(line, "Unable to locate package") || strstr(line, "Version '");
		r = hk_fail(err, unknown ? ENOENT : EIO, "apt-get download %s failed: %s", spec, line);
		hk_run_result_free(&res);
		return r;
	}
	hk_run_result_free(&res);
	DIR *d = opendir(dldir);
	if (!d)
		return hk_fail_errno(err, errno, "cannot list %s", dldir);
	char *found = NULL;
	int count = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 4 && strcmp(de->d_name + n - 4, ".deb") == 0) {
			count++;
			free(found);
			found = hk_xasprintf("%s/%s", dldir, de->d_name);
		}
	}
	closedir(d);
	if (count != 1) {
		free(found);
		return hk_fail(err, EIO, "apt-get download %s left %d .deb files in %s (expected 1)",
			       spec, count, dldir);
	}
	*deb = found;
	return 0;
}

/* What an import-apt run has decided so far. */
struct apt_run {
	struct hk_store *s;
	const char *const *base;       /* names the base root provides */
	size_t n_base;
	struct hk_strv queue;          /* package specs to import, in order */
	struct hk_strv seen;           /* package names taken from the queue */
	struct hk_strv told_base;      /* base names already reported */
};

static bool in_base(const struct apt_run *run, const char *name)
{
	for (size_t b = 0; b < run->n_base; b++)
		if (strcmp(run->base[b], name) == 0)
			return true;
	return false;
}

/* Queues the dependencies of `a` that are still missing: for each group that neither the
 * store, nor the queue, nor the base root satisfies, the first alternative apt can
 * download. */
static int queue_deps(struct apt_run *run, const struct hk_artifact *a, struct hk_error *err)
{
	for (size_t i = 0; i < a->n_deps; i++) {
		const struct hk_dep_group *g = &a->deps[i];
		bool done = false;
		for (size_t k = 0; k < g->n_alts && !done; k++)
			done = store_has(run->s, g->alts[k]) || hk_strv_has(&run->seen, g->alts[k]);
		for (size_t k = 0; k < g->n_alts && !done; k++) {
			done = in_base(run, g->alts[k]);
			if (done && !hk_strv_has(&run->told_base, g->alts[k])) {
				printf("base %s (needed by %s: the base root provides it)\n",
				       g->alts[k], a->name);
				hk_strv_push(&run->told_base, g->alts[k]);
			}
		}
		for (size_t k = 0; k < g->n_alts && !done; k++) {
			bool real = false;
			int r = apt_is_real(g->alts[k], &real, err);
			if (r < 0)
				return r;
			if (real) {
				hk_strv_push(&run->queue, g->alts[k]);
				done = true;
			}
		}
		if (!done) {
			hk_autofree char *gs = hk_dep_group_str(g);
			fprintf(stderr, "harkaq store: warning: no package to download for '%s' (a "
				"dependency of %s): only virtual packages; not imported\n", gs,
				a->name);
		}
	}
	return 0;
}

int hk_import_apt(struct hk_store *s, const struct hk_strv *want, bool with_deps,
		  const char *const *base, size_t n_base, struct hk_error *err)
{
	hk_autofree char *dldir = NULL;
	int r = hk_store_mktemp(s, &dldir, err);
	if (r < 0)
		return r;
	/* Explicit packages are always imported (a no-op if present), dependencies only when
	 * the store lacks them. */
	struct apt_run run = { .s = s, .base = base, .n_base = n_base, .queue = HK_STRV_INIT,
			       .seen = HK_STRV_INIT, .told_base = HK_STRV_INIT };
	for (size_t i = 0; i < want->n; i++)
		hk_strv_push(&run.queue, want->v[i]);
	for (size_t q = 0; r == 0 && q < run.queue.n; q++) {
		const char *spec = run.queue.v[q];
		hk_autofree char *name = hk_xstrndup(spec, strcspn(spec, "="));
		if (hk_strv_has(&run.seen, name))
			continue;
		hk_strv_push(&run.seen, name);
		hk_autofree char *deb = NULL;
		const struct hk_artifact *a = NULL;
		bool added = false;
		r = apt_download(spec, dldir, &deb, err);
		if (r == 0)
			r = hk_import_deb(s, deb, &a, &added, err);
		if (r == 0)
			hk_print_added(a, added, strrchr(deb, '/') + 1);
		if (deb)
			unlink(deb);
		if (r == 0 && with_deps)
			r = queue_deps(&run, a, err);
	}
	struct hk_error rm;
	if (hk_store_remove_tree(dldir, &rm) < 0)
		fprintf(stderr, "[import] the download directory was left behind: %s\n", rm.msg);
	hk_strv_free(&run.queue);
	hk_strv_free(&run.seen);
	hk_strv_free(&run.told_base);
	return r;
}

int hk_base_root_names(const char *root, struct hk_strv *out, struct hk_error *err)
{
	hk_autofree char *status = hk_xasprintf("%s/var/lib/dpkg/status", root);
	char **names = NULL;
	size_t n = 0;
	int r = hk_deb_installed_names(status, &names, &n, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		hk_strv_push_owned(out, names[i]);
	free(names);
	return 0;
}
