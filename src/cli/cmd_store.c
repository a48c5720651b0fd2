/* harkaq store: the content-addressed store (docs/store.md) — add trees, import Debian
 * packages (store_import.c), list, look up path providers, closure, seal, verify. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/store_cli.h"
#include "engine/store/store_import.h"
#include "core/store/base.h"
#include "core/basic/buf.h"
#include "core/debian/deb.h"
#include "core/debian/deb_status.h"
#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"
#include "sys/verity.h"

static const char store_usage[] =
	"usage: harkaq store [--store DIR] SUBCOMMAND [ARGS...]\n"
	"\n"
	"The content-addressed store of artifacts: each artifact is a tree laid out as it appears\n"
	"in the sandbox (STORE/<blake3-hex>-<name>/usr/...), with its name, version and runtime\n"
	"dependencies.  Layout and formats: docs/store.md.\n"
	"\n"
	"subcommands:\n"
	"  add DIR --name N --version V [--dep NAME[|ALT...]]... [--provides NAME]...\n"
	"                      add the tree DIR as an artifact (a no-op if already present)\n"
	"  import-deb FILE.deb...\n"
	"                      unpack Debian packages (dpkg-deb) and add each as an artifact named\n"
	"                      after the package, with its Depends and Pre-Depends as runtime deps\n"
	"  import-apt NAME[=VERSION]... [--with-deps] [--include-base] [--base NAME|--base-root DIR]\n"
	"                      download packages with 'apt-get download' (on the host) and import\n"
	"                      them; --with-deps also imports their dependencies, recursively,\n"
	"                      except those already in the store and those of the base root's\n"
	"                      pseudo-essential set (Essential/Priority: required packages and what\n"
	"                      they depend on), read from the dpkg database of the pinned base\n"
	"                      NAME (default: the store's " HK_BASE_DEFAULT " when it has one)\n"
	"                      or of DIR (default /); --include-base imports those too\n"
	"  list [--json]       every artifact: id, name, version, file count\n"
	"  show ID             an artifact's metadata (JSON)\n"
	"  files ID            an artifact's entries: d DIR, f FILE, x EXECUTABLE, l LINK -> TARGET\n"
	"  which PATH...       the artifacts that provide each sandbox path (/usr/bin/make)\n"
	"  closure ID... [--base-root DIR] [--base NAME]...\n"
	"                      the transitive runtime closure; a dep the store lacks is accepted\n"
	"                      only if the base root (dpkg status of DIR) or --base provides it\n"
	"  seal [ID...]        enable fs-verity on every file of artifacts (all by default) and\n"
	"                      record each file's fs-verity digest (docs/sealing.md); refused,\n"
	"                      with nothing recorded, on a filesystem without fs-verity\n"
	"  verify [ID...]      re-hash artifacts (all by default) and, for sealed ones, measure\n"
	"                      their fs-verity digests again; report any tampering\n"
	"  reindex             rebuild the path index from every artifact's manifest\n"
	"  export ID...|--all  the closure of the IDs (or every artifact) as one bundle\n"
	"  import BUNDLE       a bundle's artifacts, each verified (harkaq store export --help)\n"
	"  base ...            pinned bases: create, list, show (harkaq store base --help)\n"
	"\n"
	"ID is a name, NAME=VERSION, an id or id prefix (b3:1f2e... or at least 8 hex digits),\n"
	"or the directory name <hex>-<name>.  The store is --store DIR, else $HARKAQ_STORE,\n"
	"else ./store.\n"
	"\n"
	"exit status: 0 success; 1 'which' found no provider for some path; 64 usage error;\n"
	"65 bad input (a malformed package, an unknown or ambiguous ID, a tampered artifact);\n"
	"70 environment error (a tool failed, I/O).\n";

/* ---- subcommands ----------------------------------------------------------------------- */

static int open_for(const char *dir, bool create, struct hk_store **s)
{
	struct hk_error err = { 0 };
	if (hk_store_open(hk_store_choose_dir(dir), create, s, &err) < 0)
		return store_fail_exit(&err);
	return 0;
}

static int sub_add(const char *store_dir, int argc, char **argv)
{
	const char *dir = NULL, *name = NULL, *version = NULL;
	hk_autostrv struct hk_strv deps = HK_STRV_INIT, provides = HK_STRV_INIT;
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v = "";
		const char *opt = argv[i];
		if (store_is_help(opt)) {
			fputs(store_usage, stdout);
			return 0;
		} else if (store_take_value(argc, argv, &i, "--name", &v)) {
			name = v;
		} else if (store_take_value(argc, argv, &i, "--version", &v)) {
			version = v;
		} else if (store_take_value(argc, argv, &i, "--dep", &v)) {
			if (v)
				hk_strv_push(&deps, v);
		} else if (store_take_value(argc, argv, &i, "--provides", &v)) {
			if (v)
				hk_strv_push(&provides, v);
		} else if (opt[0] == '-') {
			rc = store_usage_error("add: unknown option '%s'", opt);
		} else if (dir) {
			rc = store_usage_error("add: one directory at a time ('%s' is extra)", opt);
		} else {
			dir = opt;
		}
		if (rc == 0 && !v)
			rc = store_usage_error("add: %s needs a value", opt);
	}
	if (rc)
		return rc;
	if (!dir || !name || !version)
		return store_usage_error("add: DIR, --name and --version are required");
	struct hk_dep_group *groups = hk_xcalloc(deps.n + 1, sizeof(*groups));
	for (size_t i = 0; i < deps.n; i++) {
		const char *p = deps.v[i];
		for (;;) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			hk_autofree char *alt = hk_xstrndup(p, len);
			char *a = alt, *e = alt + strlen(alt);
			while (*a == ' ')
				a++;
			while (e > a && e[-1] == ' ')
				*--e = '\0';
			groups[i].alts = hk_xrealloc(groups[i].alts,
						     (groups[i].n_alts + 1) * sizeof(char *));
			groups[i].alts[groups[i].n_alts++] = hk_xstrdup(a);
			if (!bar)
				break;
			p = bar + 1;
		}
	}
	struct hk_store *s = NULL;
	rc = open_for(store_dir, true, &s);
	if (rc == 0) {
		struct hk_artifact_spec spec = {
			.name = name, .version = version, .deps = groups, .n_deps = deps.n,
			.provides = (const char *const *)provides.v, .n_provides = provides.n,
		};
		/* Provenance of a hand-added tree: nothing beyond what the user said. */
		const char *source = "{\"type\":\"directory\"}";
		spec.source_json = source;
		const struct hk_artifact *a = NULL;
		bool added = false;
		struct hk_error err = { 0 };
		if (hk_store_add(s, dir, &spec, 0, &a, &added, &err) < 0)
			rc = store_fail_exit(&err);
		else
			hk_print_added(a, added, NULL);
		hk_store_close(s);
	}
	hk_dep_groups_free(groups, deps.n);
	return rc;
}

static int sub_import_deb(const char *store_dir, int argc, char **argv)
{
	int first = 1;
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && strcmp(argv[i], "-") != 0)
			return store_usage_error("import-deb: unknown option '%s'", argv[i]);
	if (argc < 2)
		return store_usage_error("import-deb: give at least one FILE.deb");
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, true, &s);
	for (int i = first; rc == 0 && i < argc; i++) {
		const struct hk_artifact *a = NULL;
		bool added = false;
		struct hk_error err = { 0 };
		if (hk_import_deb(s, argv[i], &a, &added, &err) < 0)
			rc = store_fail_exit(&err);
		else
			hk_print_added(a, added, argv[i]);
	}
	hk_store_close(s);
	return rc;
}

static int sub_import_apt(const char *store_dir, int argc, char **argv)
{
	bool with_deps = false, include_base = false;
	const char *base_root = NULL, *base_ref = NULL;
	hk_autostrv struct hk_strv want = HK_STRV_INIT;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (store_is_help(argv[i])) {
			fputs(store_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--with-deps") == 0) {
			with_deps = true;
		} else if (strcmp(argv[i], "--include-base") == 0) {
			include_base = true;
		} else if (store_take_value(argc, argv, &i, "--base-root", &v)) {
			if (!v)
				return store_usage_error("import-apt: --base-root needs a directory");
			base_root = v;
		} else if (store_take_value(argc, argv, &i, "--base", &v)) {
			if (!v)
				return store_usage_error("import-apt: --base needs a base's name or id");
			base_ref = v;
		} else if (argv[i][0] == '-') {
			return store_usage_error("import-apt: unknown option '%s'", argv[i]);
		} else {
			hk_strv_push(&want, argv[i]);
		}
	}
	if (want.n == 0)
		return store_usage_error("import-apt: give at least one package NAME");

	/* Computed before the store is opened (and perhaps created): a base root that cannot be
	 * read leaves nothing behind. */
	struct hk_error err = { 0 };
	if (base_root && base_ref)
		return store_usage_error("import-apt: --base-root and --base name the same thing; "
					 "give one");
	/* The base the store's recipes stand on, when the store has one (docs/bases.md): what
	 * it holds is not imported again. */
	hk_autofree char *base_tree = NULL;
	if (!base_root && with_deps && !include_base) {
		struct hk_store *bs = NULL;
		const struct hk_artifact *a = NULL;
		struct hk_error be = { 0 };
		bool opened = hk_store_open(hk_store_choose_dir(store_dir), false, &bs, &be) == 0;
		if (opened && hk_base_find(bs, base_ref ? base_ref : HK_BASE_DEFAULT, &a, &be) == 0)
			base_tree = hk_xstrdup(a->path);
		if (bs)
			hk_store_close(bs);
		if (base_ref && !base_tree)
			return store_fail_exit(&be);
		if (base_tree)
			printf("base %s (its packages are not imported again)\n",
			       base_ref ? base_ref : HK_BASE_DEFAULT);
	}
	if (!base_root)
		base_root = base_tree ? base_tree : "/";
	char **base = NULL;
	size_t n_base = 0;
	if (with_deps && !include_base) {
		hk_autofree char *status =
			hk_xasprintf("%s/var/lib/dpkg/status", strcmp(base_root, "/") ? base_root : "");
		if (hk_deb_essential_closure(status, &base, &n_base, &err) < 0) {
			hk_wrap(&err, "the base root's package set (use --include-base to import "
				"every dependency)");
			return store_fail_exit(&err);
		}
	}
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, true, &s);
	if (rc == 0 && hk_import_apt(s, &want, with_deps, (const char *const *)base, n_base,
				     &err) < 0)
		rc = store_fail_exit(&err);
	for (size_t i = 0; i < n_base; i++)
		free(base[i]);
	free(base);
	hk_store_close(s);
	return rc;
}

static int sub_list(const char *store_dir, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (store_is_help(argv[i])) {
			fputs(store_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else {
			return store_usage_error("list: unexpected argument '%s'", argv[i]);
		}
	}
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	const struct hk_artifact *const *list = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	if (hk_store_list(s, &list, &n, &err) < 0) {
		hk_store_close(s);
		return store_fail_exit(&err);
	}
	if (json) {
		struct hk_buf out = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &out, 2);
		hk_json_arr_begin(&j);
		for (size_t i = 0; i < n; i++) {
			struct hk_jval *v = NULL;
			if (hk_json_parse(list[i]->meta_json, strlen(list[i]->meta_json), &v, &err) <
			    0) {
				hk_buf_free(&out);
				hk_store_close(s);
				return store_fail_exit(&err);
			}
			hk_json_value(&j, v);
			hk_jval_free(v);
		}
		hk_json_arr_end(&j);
		printf("%s\n", hk_buf_str(&out));
		hk_buf_free(&out);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %zu\n", list[i]->id, list[i]->name, list[i]->version,
			       list[i]->file_count);
	}
	hk_store_close(s);
	return 0;
}

static int find_one(struct hk_store *s, const char *query, const struct hk_artifact **a)
{
	struct hk_error err = { 0 };
	if (hk_store_find(s, query, a, &err) < 0)
		return store_fail_exit(&err);
	return 0;
}

static int sub_show_or_files(const char *store_dir, int argc, char **argv, bool files)
{
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc != 2)
		return store_usage_error("%s: give exactly one ID", argv[0]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	const struct hk_artifact *a = NULL;
	rc = find_one(s, argv[1], &a);
	if (rc == 0 && !files) {
		fputs(a->meta_json, stdout);
	} else if (rc == 0) {
		struct hk_tree t = HK_TREE_INIT;
		struct hk_error err = { 0 };
		if (hk_store_files(s, a, &t, &err) < 0) {
			rc = store_fail_exit(&err);
		} else {
			struct hk_buf line = HK_BUF_INIT;
			for (size_t i = 0; i < t.n; i++) {
				const struct hk_tree_entry *e = &t.entries[i];
				hk_buf_reset(&line);
				hk_buf_printf(&line, "%c /", e->type == HK_TREE_DIR ? 'd' :
					      e->type == HK_TREE_SYMLINK ? 'l' :
					      e->exec ? 'x' : 'f');
				hk_tree_escape(e->path, strlen(e->path), &line);
				if (e->type == HK_TREE_SYMLINK) {
					hk_buf_puts(&line, " -> ");
					hk_tree_escape(e->target, e->target_len, &line);
				}
				printf("%s\n", hk_buf_str(&line));
			}
			hk_buf_free(&line);
			hk_tree_free(&t);
		}
	}
	hk_store_close(s);
	return rc;
}

static int sub_which(const char *store_dir, int argc, char **argv)
{
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc < 2)
		return store_usage_error("which: give at least one sandbox PATH");
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '/')
			return store_usage_error("which: '%s' is not an absolute sandbox path", argv[i]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	bool missing = false;
	for (int i = 1; rc == 0 && i < argc; i++) {
		const struct hk_artifact **p = NULL;
		size_t n = 0;
		struct hk_error err = { 0 };
		if (hk_store_providers(s, argv[i], &p, &n, &err) < 0) {
			rc = store_fail_exit(&err);
			break;
		}
		if (n == 0) {
			fprintf(stderr, "harkaq store: %s: no artifact in the store provides it\n",
				argv[i]);
			missing = true;
		}
		/* Escaped like the index, so that a path with spaces stays one field. */
		struct hk_buf shown = HK_BUF_INIT;
		hk_tree_escape(argv[i], strlen(argv[i]), &shown);
		for (size_t k = 0; k < n; k++)
			printf("%s %s %s %s\n", hk_buf_str(&shown), p[k]->name, p[k]->version,
			       p[k]->id);
		hk_buf_free(&shown);
		free(p);
	}
	hk_store_close(s);
	if (rc)
		return rc;
	return missing ? 1 : 0;
}

static int sub_closure(const char *store_dir, int argc, char **argv)
{
	hk_autostrv struct hk_strv queries = HK_STRV_INIT, base = HK_STRV_INIT;
	const char *base_root = NULL;
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v;
		if (store_is_help(argv[i])) {
			fputs(store_usage, stdout);
			return 0;
		} else if (store_take_value(argc, argv, &i, "--base-root", &v)) {
			if (!v)
				rc = store_usage_error("closure: --base-root needs a directory");
			base_root = v;
		} else if (store_take_value(argc, argv, &i, "--base", &v)) {
			if (!v)
				rc = store_usage_error("closure: --base needs a package name");
			else
				hk_strv_push(&base, v);
		} else if (argv[i][0] == '-') {
			rc = store_usage_error("closure: unknown option '%s'", argv[i]);
		} else {
			hk_strv_push(&queries, argv[i]);
		}
	}
	if (rc)
		return rc;
	if (queries.n == 0)
		return store_usage_error("closure: give at least one ID");
	struct hk_error err = { 0 };
	if (base_root && hk_base_root_names(base_root, &base, &err) < 0)
		return store_fail_exit(&err);
	struct hk_store *s = NULL;
	rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	const struct hk_artifact **roots = hk_xcalloc(queries.n, sizeof(*roots));
	for (size_t i = 0; rc == 0 && i < queries.n; i++)
		rc = find_one(s, queries.v[i], &roots[i]);
	if (rc == 0) {
		const struct hk_artifact **out = NULL;
		size_t n = 0;
		if (hk_store_closure(s, roots, queries.n, (const char *const *)base.v, base.n, &out,
				     &n, &err) < 0) {
			rc = store_fail_exit(&err);
		} else {
			for (size_t i = 0; i < n; i++)
				printf("%s %s %s\n", out[i]->id, out[i]->name, out[i]->version);
			free(out);
		}
	}
	free(roots);
	hk_store_close(s);
	return rc;
}

/* What `verify` and `seal` act on: the artifacts named by argv[1..], or every artifact when
 * none is named.  *list is the caller's to free (also on failure). */
static int named_or_all(struct hk_store *s, int argc, char **argv,
			const struct hk_artifact ***list, size_t *n)
{
	if (argc > 1) {
		*list = hk_xcalloc((size_t)argc, sizeof(**list));
		for (int i = 1; i < argc; i++) {
			int rc = find_one(s, argv[i], &(*list)[*n]);
			if (rc)
				return rc;
			(*n)++;
		}
		return 0;
	}
	const struct hk_artifact *const *all = NULL;
	struct hk_error err = { 0 };
	if (hk_store_list(s, &all, n, &err) < 0)
		return store_fail_exit(&err);
	*list = hk_xcalloc(*n ? *n : 1, sizeof(**list));
	for (size_t i = 0; i < *n; i++)
		(*list)[i] = all[i];
	return 0;
}

/* The start `verify` and `seal` share: --help, opening the store, choosing the artifacts.
 * Returns -1 when the subcommand goes on (*s and *list are then its to close and free), else
 * the exit status, with nothing left open. */
static int open_named(const char *store_dir, int argc, char **argv, struct hk_store **s,
		      const struct hk_artifact ***list, size_t *n)
{
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	int rc = open_for(store_dir, false, s);
	if (rc)
		return rc;
	rc = named_or_all(*s, argc, argv, list, n);
	if (rc) {
		free(*list);
		hk_store_close(*s);
		return rc;
	}
	return -1;
}

/* Runs `body` on the artifacts `verify` or `seal` was given, then closes what open_named
 * opened; returns the exit status. */
static int run_named(const char *store_dir, int argc, char **argv,
		     int (*body)(struct hk_store *s, const struct hk_artifact **list, size_t n))
{
	struct hk_store *s = NULL;
	const struct hk_artifact **list = NULL;
	size_t n = 0;
	int rc = open_named(store_dir, argc, argv, &s, &list, &n);
	if (rc >= 0)
		return rc;
	rc = body(s, list, n);
	free(list);
	hk_store_close(s);
	return rc;
}

static int verify_named(struct hk_store *s, const struct hk_artifact **list, size_t n)
{
	struct hk_error err = { 0 };
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		/* The same check `harkaq build` makes of every dep (sys/verity.h). */
		if (hk_verity_check_artifact(s, list[i], &err) < 0) {
			/* The check says EBADMSG for bytes that are not the artifact's (tampered);
			 * anything else kept it from looking (a file it could not read). */
			bad = cli_fail("harkaq store", &err, err.code == EBADMSG ? HK_ERROR_INPUT
										 : HK_ERROR_ENVIRONMENT);
		} else {
			printf("ok %s %s %s%s\n", list[i]->id, list[i]->name, list[i]->version,
			       list[i]->sealed ? " (sealed: fs-verity digests match)" : "");
		}
	}
	return bad;
}

static int sub_verify(const char *store_dir, int argc, char **argv)
{
	return run_named(store_dir, argc, argv, verify_named);
}

static int seal_named(struct hk_store *s, const struct hk_artifact **list, size_t n)
{
	int rc = 0;
	struct hk_error err = { 0 };
	/* Asked once, before any artifact is touched: a filesystem that cannot seal is said so,
	 * and nothing is changed or recorded. */
	if (rc == 0 && hk_verity_probe_dir(hk_store_dir(s), &err) < 0)
		rc = store_fail_exit(&err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct hk_artifact *a = list[i];
		if (hk_store_seal(s, a, hk_verity_seal_cb, NULL, &err) < 0) {
			rc = store_fail_exit(&err);
			break;
		}
		printf("sealed %s %s %s (%zu files, fs-verity sha256)\n", a->id, a->name,
		       a->version, a->file_count);
	}
	return rc;
}

static int sub_seal(const char *store_dir, int argc, char **argv)
{
	return run_named(store_dir, argc, argv, seal_named);
}

static int sub_reindex(const char *store_dir, int argc, char **argv)
{
	if (argc > 1 && store_is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc > 1)
		return store_usage_error("reindex: unexpected argument '%s'", argv[1]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	struct hk_error err = { 0 };
	if (hk_store_reindex(s, &err) < 0)
		rc = store_fail_exit(&err);
	hk_store_close(s);
	return rc;
}

int cmd_store(int argc, char **argv)
{
	/* --store may come before or after the subcommand; it is removed from argv here so
	 * that each subcommand sees only its own arguments. */
	const char *store_dir = NULL;
	char **args = hk_xcalloc((size_t)argc + 1, sizeof(char *));
	int n = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (store_take_value(argc, argv, &i, "--store", &v)) {
			if (!v) {
				free(args);
				return store_usage_error("--store needs a directory");
			}
			store_dir = v;
			continue;
		}
		args[n++] = argv[i];
	}
	int rc;
	if (n == 0) {
		fputs(store_usage, stderr);
		rc = HK_EXIT_USAGE;
	} else if (store_is_help(args[0]) || strcmp(args[0], "help") == 0) {
		fputs(store_usage, stdout);
		rc = 0;
	} else if (strcmp(args[0], "add") == 0) {
		rc = sub_add(store_dir, n, args);
	} else if (strcmp(args[0], "import-deb") == 0) {
		rc = sub_import_deb(store_dir, n, args);
	} else if (strcmp(args[0], "import-apt") == 0) {
		rc = sub_import_apt(store_dir, n, args);
	} else if (strcmp(args[0], "list") == 0) {
		rc = sub_list(store_dir, n, args);
	} else if (strcmp(args[0], "show") == 0) {
		rc = sub_show_or_files(store_dir, n, args, false);
	} else if (strcmp(args[0], "files") == 0) {
		rc = sub_show_or_files(store_dir, n, args, true);
	} else if (strcmp(args[0], "which") == 0) {
		rc = sub_which(store_dir, n, args);
	} else if (strcmp(args[0], "closure") == 0) {
		rc = sub_closure(store_dir, n, args);
	} else if (strcmp(args[0], "seal") == 0) {
		rc = sub_seal(store_dir, n, args);
	} else if (strcmp(args[0], "verify") == 0) {
		rc = sub_verify(store_dir, n, args);
	} else if (strcmp(args[0], "reindex") == 0) {
		rc = sub_reindex(store_dir, n, args);
	} else if (strcmp(args[0], "base") == 0) {
		rc = cmd_store_base(store_dir, n, args);
	} else if (strcmp(args[0], "export") == 0 || strcmp(args[0], "import") == 0) {
		rc = store_bundle_cmd(store_dir, n, args);
	} else {
		rc = store_usage_error("unknown subcommand '%s'", args[0]);
	}
	free(args);
	return rc;
}
