/* harkaq store base: pinned bases (docs/bases.md) — make a Debian root with mmdebstrap, add it
 * to the store as an artifact of its own, tag it by name, list and show them.
 *
 * Why mmdebstrap rather than unpacking the store's .debs: a Debian root is more than its
 * packages' files.  Maintainer scripts make /etc/passwd and /etc/group, the update-alternatives
 * links (awk → mawk), the dpkg database the diagnosis reads its owners from, and ld.so.cache;
 * Debian's own tool runs them as Debian does, unprivileged (--mode=unshare), and with
 * SOURCE_DATE_EPOCH fixed it makes the same tree from the same archive state. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "sys/interrupt.h"
#include "cli/store_cli.h"
#include "engine/common/proc.h"
#include "core/store/base.h"
#include "core/basic/buf.h"
#include "core/debian/debroot.h"
#include "core/basic/dir.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/basic/util.h"

static const char base_usage[] =
	"usage: harkaq store [--store DIR] base SUBCOMMAND [ARGS...]\n"
	"\n"
	"Pinned bases: the Debian root a build stands on, as a store artifact with a name and a\n"
	"BLAKE3 id (docs/bases.md).  A recipe names its base with base = \"NAME\" or \"b3:...\";\n"
	"without one it stands on " HK_BASE_DEFAULT ".\n"
	"\n"
	"subcommands:\n"
	"  create NAME [--variant V] [--suite S] [--mirror URL] [--include PKG[,PKG...]]...\n"
	"                      make a Debian root with mmdebstrap (--mode=unshare), add it to the\n"
	"                      store and tag it NAME.  V: essential (default; ~145 MiB), minbase,\n"
	"                      apt, buildd (essential + apt + build-essential, for Debian-style\n"
	"                      builds).  S: bookworm (default).  URL: the Debian mirror\n"
	"                      (default http://deb.debian.org/debian).  SOURCE_DATE_EPOCH is\n"
	"                      fixed (default 1686355200, Debian 12's release) so the same archive\n"
	"                      state gives the same tree, hence the same id\n"
	"  import NAME|ID --from DIR\n"
	"                      copy a base from the store DIR into this one (same tree, same id)\n"
	"                      and tag it by its name: one download serves several stores\n"
	"  list [--json]       every base: tag, id, version, variant, package count\n"
	"  show NAME|ID [--json]\n"
	"                      one base: id, provenance and its package list\n"
	"  packages NAME|ID    its packages, one 'NAME VERSION ARCH' a line\n"
	"  owner NAME|ID PATH...\n"
	"                      the package of the base that ships each sandbox path\n"
	"\n"
	"exit status: 0 success; 1 'owner' found no package for some path; 64 usage error;\n"
	"65 bad input (an unknown base, an invalid name); 70 environment error (mmdebstrap or\n"
	"I/O failed; nothing is left in the store).\n";

/* Debian 12's release day: a fixed default, so that making a base again from the same
 * archive state gives the same bytes (log and shadow dates come from it). */
#define DEFAULT_SOURCE_DATE_EPOCH "1686355200"
#define DEFAULT_MIRROR "http://deb.debian.org/debian"
#define DEFAULT_SUITE "bookworm"

/* ---- create ------------------------------------------------------------------------------- */

/* Removes every entry of DIR (the directory itself stays). */
static int empty_dir(const char *dir, struct hk_error *err)
{
	DIR *d = NULL;
	int r = hk_dir_open_existing(dir, &d, err);
	struct dirent *de;
	while (r == 0 && d && (r = hk_dir_next(d, dir, &de, err)) == 0 && de) {
		hk_autofree char *p = hk_xasprintf("%s/%s", dir, de->d_name);
		r = hk_store_remove_tree(p, err);
	}
	if (d)
		closedir(d);
	return r;
}

static int remove_if_present(const char *root, const char *rel, struct hk_error *err)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", root, rel);
	struct stat st;
	if (lstat(p, &st) < 0)
		return errno == ENOENT ? 0 : hk_fail_errno(err, errno, "cannot inspect %s", p);
	return hk_store_remove_tree(p, err);
}

static int write_text(const char *root, const char *rel, const char *text, struct hk_error *err)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "we");
	if (!f)
		return hk_fail_errno(err, errno, "cannot write %s", p);
	bool ok = fputs(text, f) >= 0;
	if (fclose(f) != 0 || !ok)
		return hk_fail_errno(err, errno ? errno : EIO, "cannot write %s", p);
	return 0;
}

/* What mmdebstrap copies from the machine that runs it, or what the sandbox provides itself,
 * leaves the tree: then the same archive state gives the same tree on any machine.
 *   /dev/…            device nodes (the store holds no special files; bubblewrap makes /dev)
 *   /etc/resolv.conf  the host's name servers (a build has no network)
 *   /etc/hostname     the host's name
 *   /etc/apt/sources.list  rewritten to name the suite on deb.debian.org, whatever mirror
 *                     served the packages (the mirror is recorded in the provenance) */
static int normalise_root(const char *root, const char *suite, struct hk_error *err)
{
	hk_autofree char *dev = hk_xasprintf("%s/dev", root);
	int r = empty_dir(dev, err);
	if (r == 0)
		r = remove_if_present(root, "etc/resolv.conf", err);
	if (r == 0)
		r = remove_if_present(root, "etc/hostname", err);
	if (r == 0) {
		hk_autofree char *line = hk_xasprintf("deb " DEFAULT_MIRROR " %s main\n", suite);
		hk_autofree char *p = hk_xasprintf("%s/etc/apt/sources.list", root);
		struct stat st;
		if (lstat(p, &st) == 0)
			r = write_text(root, "etc/apt/sources.list", line, err);
	}
	return r;
}

static const char *const variants[] = { "essential", "minbase", "apt", "buildd" };

static bool variant_known(const char *v)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(variants); i++)
		if (strcmp(variants[i], v) == 0)
			return true;
	return false;
}

/* A Debian suite or codename: lowercase letters, digits and '-'. */
static bool suite_valid(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* Debian package names ([a-z0-9][a-z0-9+.-]+), comma-separated. */
static bool includes_valid(const char *s)
{
	bool start = true;
	for (; *s; s++) {
		bool alnum = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9');
		if (*s == ',') {
			if (start)
				return false;
			start = true;
		} else if (start) {
			if (!alnum)
				return false;
			start = false;
		} else if (!alnum && *s != '+' && *s != '.' && *s != '-') {
			return false;
		}
	}
	return !start;
}

/* The first line of ROOT/etc/debian_version ("12.12"): the base's version. */
static char *debian_version(const char *root)
{
	hk_autofree char *p = hk_xasprintf("%s/etc/debian_version", root);
	FILE *f = fopen(p, "re");
	char line[128] = "";
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	for (char *c = line; *c; c++)
		if (*c == ' ' || *c == '/')
			*c = '_';
	return hk_xstrdup(line[0] ? line : "unknown");
}

/* The provenance recorded in the base's metadata (not its identity: the tree is). */
static char *base_source_json(const char *variant, const char *suite, const char *mirror,
			      const char *epoch, char **includes, size_t n_includes,
			      const struct hk_deb_pkglist *pkgs)
{
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "type");
	hk_json_str(&j, "base");
	hk_json_key(&j, "tool");
	hk_json_str(&j, "mmdebstrap");
	hk_json_key(&j, "variant");
	hk_json_str(&j, variant);
	hk_json_key(&j, "suite");
	hk_json_str(&j, suite);
	hk_json_key(&j, "mirror");
	hk_json_str(&j, mirror);
	hk_json_key(&j, "source_date_epoch");
	hk_json_str(&j, epoch);
	hk_json_key(&j, "include");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < n_includes; i++)
		hk_json_str(&j, includes[i]);
	hk_json_arr_end(&j);
	hk_json_key(&j, "packages");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < pkgs->n; i++) {
		hk_json_arr_begin(&j);
		hk_json_str(&j, pkgs->items[i].name);
		hk_json_str(&j, pkgs->items[i].version);
		hk_json_str(&j, pkgs->items[i].arch);
		hk_json_arr_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
	return hk_buf_steal(&out);
}

struct create_opts {
	const char *name, *variant, *suite, *mirror;
	char **includes;
	size_t n_includes;
};

/* mmdebstrap into `tmp` (an empty temporary directory of the store). */
static int run_mmdebstrap(const struct create_opts *o, const char *tmp, const char *epoch,
			  struct hk_error *err)
{
	struct hk_argv a = { 0 };
	hk_argv_push(&a, "mmdebstrap");
	hk_autofree char *variant = hk_xasprintf("--variant=%s", o->variant);
	hk_argv_push(&a, variant);
	/* Unprivileged and isolated from the host, as root too. */
	hk_argv_push(&a, "--mode=unshare");
	hk_argv_push(&a, "--format=directory");
	for (size_t i = 0; i < o->n_includes; i++) {
		hk_autofree char *inc = hk_xasprintf("--include=%s", o->includes[i]);
		hk_argv_push(&a, inc);
	}
	hk_argv_push(&a, o->suite);
	hk_argv_push(&a, tmp);
	hk_argv_push(&a, o->mirror);
	setenv("SOURCE_DATE_EPOCH", epoch, 1);
	int code = hk_spawn_wait(a.v, NULL, false, err);
	hk_argv_free(a.v);
	if (code < 0)   /* not started: mmdebstrap missing, most likely */
		return hk_wrap(err, "making the base %s (is mmdebstrap installed? './setup' "
				    "installs it)", o->name);
	if (hk_interrupted())
		return hk_fail_interrupted(err, hk_interrupted(), "interrupted by signal %d",
					   hk_interrupted());
	if (code != 0)
		return hk_wrap(err, "making the base %s (is mmdebstrap installed? './setup' "
				    "installs it; the mirror %s must be reachable)",
			       o->name, o->mirror);
	return 0;
}

static int create_base(struct hk_store *s, const struct create_opts *o, struct hk_error *err)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	if (!epoch || !*epoch)
		epoch = DEFAULT_SOURCE_DATE_EPOCH;
	char *tmp = NULL;
	int r = hk_store_mktemp(s, &tmp, err);
	if (r < 0)
		return r;
	fprintf(stderr, "harkaq store base: making %s (%s, %s) with mmdebstrap…\n", o->name,
		o->variant, o->suite);
	r = run_mmdebstrap(o, tmp, epoch, err);
	if (r == 0)
		r = normalise_root(tmp, o->suite, err);
	struct hk_deb_pkglist pkgs = { 0 };
	if (r == 0)
		r = hk_debroot_packages(tmp, &pkgs, err);
	const struct hk_artifact *a = NULL;
	bool added = false;
	if (r == 0) {
		hk_autofree char *version = debian_version(tmp);
		hk_autofree char *source = base_source_json(o->variant, o->suite, o->mirror, epoch,
							    o->includes, o->n_includes, &pkgs);
		struct hk_artifact_spec spec = {
			.name = o->name, .version = version, .source_json = source,
		};
		fprintf(stderr, "harkaq store base: adding %s to the store (hashing)…\n", o->name);
		r = hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, &a, &added, err);
		/* hk_store_add consumed or removed the temporary directory either way. */
		free(tmp);
		tmp = NULL;
	}
	if (r == 0)
		r = hk_base_tag_set(s, o->name, a, err);
	if (r == 0)
		printf("%s %s %s %s (%s, %s, %zu packages, %zu files)\n", added ? "added" : "present",
		       a->id, a->name, a->version, o->variant, o->suite, pkgs.n, a->file_count);
	hk_deb_pkglist_free(&pkgs);
	if (tmp) {
		/* A base root left behind is hundreds of megabytes: said, beside the error that
		 * stopped the creation. */
		struct hk_error rm;
		struct stat st;
		if (lstat(tmp, &st) == 0 && hk_store_remove_tree(tmp, &rm) < 0)
			fprintf(stderr, "harkaq store base: left behind: %s\n", rm.msg);
		free(tmp);
	}
	return r;
}

static int sub_create(struct hk_store *s, int argc, char **argv)
{
	struct create_opts o = { .variant = "essential", .suite = DEFAULT_SUITE,
				 .mirror = DEFAULT_MIRROR };
	struct hk_argv inc = { 0 };
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v = "";
		if (store_is_help(argv[i])) {
			fputs(base_usage, stdout);
			hk_argv_free(inc.v);
			return 0;
		} else if (store_take_value(argc, argv, &i, "--variant", &v)) {
			if (v && !variant_known(v))
				rc = store_usage_error("base create: unknown variant '%s' (essential, minbase, "
						 "apt or buildd)", v);
			o.variant = v;
		} else if (store_take_value(argc, argv, &i, "--suite", &v)) {
			if (v && !suite_valid(v))
				rc = store_usage_error("base create: '%s' is not a Debian suite name", v);
			o.suite = v;
		} else if (store_take_value(argc, argv, &i, "--mirror", &v)) {
			if (v && strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0 &&
			    strncmp(v, "file://", 7) != 0)
				rc = store_usage_error("base create: the mirror '%s' is not an http, https or "
						 "file URL", v);
			o.mirror = v;
		} else if (store_take_value(argc, argv, &i, "--include", &v)) {
			if (v && !includes_valid(v))
				rc = store_usage_error("base create: --include '%s' is not a comma-separated list "
						 "of Debian package names", v);
			if (v)
				hk_argv_push(&inc, v);
		} else if (argv[i][0] == '-') {
			rc = store_usage_error("base create: unknown option '%s'", argv[i]);
		} else if (o.name) {
			rc = store_usage_error("base create: one NAME ('%s' is extra)", argv[i]);
		} else if (!hk_artifact_name_valid(argv[i])) {
			rc = store_usage_error("base create: '%s' is not a valid base name (letters, digits, "
					 "'+', '.', '_' and '-', starting with a letter or digit)",
					 argv[i]);
		} else {
			o.name = argv[i];
		}
		if (rc == 0 && !v)
			rc = store_usage_error("base create: %s needs a value", argv[i]);
	}
	if (rc == 0 && !o.name)
		rc = store_usage_error("base create: NAME is required (e.g. %s)", HK_BASE_DEFAULT);
	if (rc) {
		hk_argv_free(inc.v);
		return rc;
	}
	o.includes = inc.v;
	o.n_includes = inc.n;
	/* A signal ends mmdebstrap (it shares the terminal's process group); harkaq stays to
	 * remove what was made: the process's interrupt context catches it (sys/interrupt.h).
	 * This one subcommand of `store` asks for it; the others keep Ctrl-C's default. */
	hk_interrupt_install();
	struct hk_error err = { 0 };
	int r = create_base(s, &o, &err);
	hk_argv_free(inc.v);
	if (hk_interrupted()) {
		hk_fail_interrupted(&err, hk_interrupted(), "interrupted: nothing was added to the "
							    "store");
		return cli_fail("harkaq store base", &err, HK_ERROR_UNSET);
	}
	return r < 0 ? store_fail_exit(&err) : 0;
}

/* ---- import ------------------------------------------------------------------------------ */

static int sub_import(struct hk_store *s, int argc, char **argv)
{
	const char *ref = NULL, *from = NULL;
	for (int i = 1; i < argc; i++) {
		const char *v = "";
		if (store_is_help(argv[i])) {
			fputs(base_usage, stdout);
			return 0;
		} else if (store_take_value(argc, argv, &i, "--from", &v)) {
			if (!v)
				return store_usage_error("base import: --from needs a store directory");
			from = v;
		} else if (argv[i][0] == '-') {
			return store_usage_error("base import: unknown option '%s'", argv[i]);
		} else if (ref) {
			return store_usage_error("base import: one base at a time ('%s' is extra)", argv[i]);
		} else {
			ref = argv[i];
		}
	}
	if (!ref || !from)
		return store_usage_error("base import: NAME (or ID) and --from DIR are required");
	struct hk_error err = { 0 };
	struct hk_store *other = NULL;
	if (hk_store_open(from, false, &other, &err) < 0)
		return store_fail_exit(&err);
	const struct hk_artifact *src = NULL;
	int rc = 0;
	struct hk_jval *meta = NULL;
	if (hk_base_find(other, ref, &src, &err) < 0 ||
	    hk_json_parse(src->meta_json, strlen(src->meta_json), &meta, &err) < 0) {
		rc = store_fail_exit(&err);
		goto err_close_other;
	}
	/* The provenance travels as it was recorded: the copy is the same base. */
	struct hk_buf source = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &source, 0);
	hk_json_value(&j, hk_jobj_get(meta, "source"));
	struct hk_artifact_spec spec = {
		.name = src->name, .version = src->version, .source_json = hk_buf_str(&source),
	};
	const struct hk_artifact *a = NULL;
	bool added = false;
	if (hk_store_add(s, src->path, &spec, 0, &a, &added, &err) < 0 ||
	    hk_base_tag_set(s, a->name, a, &err) < 0) {
		rc = store_fail_exit(&err);
	} else if (strcmp(a->id, src->id) != 0) {
		/* Same tree, same name, version and provenance: a different id means the copy is
		 * not the base it was taken from. */
		hk_fail_as(&err, HK_ERROR_INPUT, EBADMSG, "the copy of %s has the id %s, not %s",
			   src->name, a->id, src->id);
		rc = cli_fail("harkaq store base", &err, HK_ERROR_UNSET);
	} else {
		printf("%s %s %s %s (%zu files, from %s)\n", added ? "added" : "present", a->id,
		       a->name, a->version, a->file_count, from);
	}
	hk_buf_free(&source);
err_close_other:
	hk_jval_free(meta);
	hk_store_close(other);
	return rc;
}

/* ---- list, show, packages, owner --------------------------------------------------------- */

static void base_json(struct hk_json *j, const struct hk_artifact *a, const char *tag,
		      const struct hk_base_info *info)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "id");
	hk_json_str(j, a->id);
	hk_json_key(j, "name");
	hk_json_str(j, a->name);
	hk_json_key(j, "version");
	hk_json_str(j, a->version);
	hk_json_key(j, "tag");
	if (tag)
		hk_json_str(j, tag);
	else
		hk_json_null(j);
	hk_json_key(j, "variant");
	if (info->variant)
		hk_json_str(j, info->variant);
	else
		hk_json_null(j);
	hk_json_key(j, "suite");
	if (info->suite)
		hk_json_str(j, info->suite);
	else
		hk_json_null(j);
	hk_json_key(j, "packages");
	hk_json_uint(j, info->n_packages);
	hk_json_key(j, "files");
	hk_json_uint(j, a->file_count);
	hk_json_obj_end(j);
}

/* The tag that points at `a`, if any. */
static const char *tag_of(const struct hk_base_tag *tags, size_t n, const struct hk_artifact *a)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tags[i].id, a->id) == 0)
			return tags[i].name;
	return NULL;
}

static int sub_list(struct hk_store *s, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (store_is_help(argv[i])) {
			fputs(base_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else {
			return store_usage_error("base list: unexpected argument '%s'", argv[i]);
		}
	}
	struct hk_error err = { 0 };
	const struct hk_artifact *const *all = NULL;
	size_t n = 0;
	struct hk_base_tag *tags = NULL;
	size_t n_tags = 0;
	if (hk_store_list(s, &all, &n, &err) < 0 || hk_base_tags(s, &tags, &n_tags, &err) < 0)
		return store_fail_exit(&err);
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 2);
	if (json)
		hk_json_arr_begin(&j);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (all[i]->origin != HK_ORIGIN_BASE)
			continue;
		struct hk_base_info info;
		if (hk_base_info_read(all[i], &info, &err) < 0) {
			rc = store_fail_exit(&err);
			break;
		}
		const char *tag = tag_of(tags, n_tags, all[i]);
		if (json)
			base_json(&j, all[i], tag, &info);
		else
			printf("%s %s %s %s %zu packages%s%s\n", all[i]->id, all[i]->name,
			       all[i]->version, info.variant ? info.variant : "-", info.n_packages,
			       tag ? ", tagged " : "", tag ? tag : "");
		hk_base_info_free(&info);
	}
	if (json && rc == 0) {
		hk_json_arr_end(&j);
		printf("%s\n", hk_buf_str(&out));
	}
	hk_buf_free(&out);
	hk_base_tags_free(tags, n_tags);
	return rc;
}

static int find_base(struct hk_store *s, const char *ref, const struct hk_artifact **a)
{
	struct hk_error err = { 0 };
	if (hk_base_find(s, ref, a, &err) < 0)
		return store_fail_exit(&err);
	return 0;
}

/* The prologue `packages` and `owner` share: --help, the operand count (at least `min_argc`
 * words with the verb, exactly that many when `exact`), then the base the first operand names.
 * Returns true with *a set to go on; false with *rc the exit status to return. */
static bool base_operand(struct hk_store *s, int argc, char **argv, int min_argc, bool exact,
			 const char *usage_msg, const struct hk_artifact **a, int *rc)
{
	*rc = 0;
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(base_usage, stdout);
		return false;
	}
	if (argc < min_argc || (exact && argc != min_argc)) {
		*rc = store_usage_error("%s", usage_msg);
		return false;
	}
	*rc = find_base(s, argv[1], a);
	return *rc == 0;
}

static int sub_show(struct hk_store *s, int argc, char **argv)
{
	const char *ref = NULL;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (store_is_help(argv[i])) {
			fputs(base_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (argv[i][0] == '-') {
			return store_usage_error("base show: unknown option '%s'", argv[i]);
		} else if (ref) {
			return store_usage_error("base show: one base at a time ('%s' is extra)", argv[i]);
		} else {
			ref = argv[i];
		}
	}
	if (!ref)
		return store_usage_error("base show: NAME or ID is required");
	const struct hk_artifact *a = NULL;
	int rc = find_base(s, ref, &a);
	if (rc)
		return rc;
	if (json) {
		printf("%s\n", a->meta_json);
		return 0;
	}
	struct hk_base_info info;
	struct hk_error err = { 0 };
	if (hk_base_info_read(a, &info, &err) < 0)
		return store_fail_exit(&err);
	printf("base      %s\nid        %s\nversion   %s\nvariant   %s\nsuite     %s\n"
	       "mirror    %s\npackages  %zu\nfiles     %zu\ntree      %s\n",
	       a->name, a->id, a->version, info.variant ? info.variant : "-",
	       info.suite ? info.suite : "-", info.mirror ? info.mirror : "-", info.n_packages,
	       a->file_count, a->path);
	hk_base_info_free(&info);
	return 0;
}

static int sub_packages(struct hk_store *s, int argc, char **argv)
{
	const struct hk_artifact *a = NULL;
	int rc;
	if (!base_operand(s, argc, argv, 2, true, "base packages: give exactly one NAME or ID", &a,
			  &rc))
		return rc;
	struct hk_deb_pkglist pkgs = { 0 };
	struct hk_error err = { 0 };
	if (hk_debroot_packages(a->path, &pkgs, &err) < 0)
		return store_fail_exit(&err);
	for (size_t i = 0; i < pkgs.n; i++)
		printf("%s %s %s\n", pkgs.items[i].name, pkgs.items[i].version, pkgs.items[i].arch);
	hk_deb_pkglist_free(&pkgs);
	return 0;
}

static int sub_owner(struct hk_store *s, int argc, char **argv)
{
	const struct hk_artifact *a = NULL;
	int rc;
	if (!base_operand(s, argc, argv, 3, false,
			  "base owner: give a NAME or ID and at least one PATH", &a, &rc))
		return rc;
	struct hk_debroot_owners owners = { 0 };
	struct hk_error err = { 0 };
	if (hk_debroot_owners_load(a->path, &owners, &err) < 0)
		return store_fail_exit(&err);
	for (int i = 2; i < argc; i++) {
		const char *pkg = hk_debroot_owner(&owners, argv[i]);
		printf("%s %s\n", argv[i], pkg ? pkg : "-");
		if (!pkg)
			rc = 1;
	}
	hk_debroot_owners_free(&owners);
	return rc;
}

int cmd_store_base(const char *store_dir, int argc, char **argv)
{
	if (argc < 2) {
		fputs(base_usage, stderr);
		return HK_EXIT_USAGE;
	}
	if (store_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
		fputs(base_usage, stdout);
		return 0;
	}
	static const struct {
		const char *name;
		bool create;
		int (*run)(struct hk_store *, int, char **);
	} subs[] = {
		{ "create", true, sub_create },
		{ "import", true, sub_import },
		{ "list", false, sub_list },
		{ "show", false, sub_show },
		{ "packages", false, sub_packages },
		{ "owner", false, sub_owner },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(subs); i++) {
		if (strcmp(argv[1], subs[i].name) != 0)
			continue;
		/* --help needs no store. */
		for (int k = 2; k < argc; k++)
			if (store_is_help(argv[k])) {
				fputs(base_usage, stdout);
				return 0;
			}
		struct hk_store *s = NULL;
		struct hk_error err = { 0 };
		if (hk_store_open(hk_store_choose_dir(store_dir), subs[i].create, &s, &err) < 0)
			return store_fail_exit(&err);
		int rc = subs[i].run(s, argc - 1, argv + 1);
		hk_store_close(s);
		return rc;
	}
	return store_usage_error("unknown subcommand '%s'", argv[1]);
}
