/* harkaq store base: pinned bases (docs/bases.md).  Parses the subcommand's words and calls
 * the engine (engine/debian/base_make.h: create, import) or the store (core/store/base.h,
 * core/debian/base_making.h: list, show, packages, owner), then prints. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/store_cli.h"
#include "core/basic/buf.h"
#include "core/basic/util.h"
#include "core/debian/base_making.h"
#include "core/debian/debroot.h"
#include "core/store/base.h"
#include "core/store/store.h"
#include "engine/common/proc.h"
#include "engine/debian/base_make.h"
#include "sys/interrupt.h"

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
	"                      (default " HK_BASE_DEFAULT_MIRROR ").  SOURCE_DATE_EPOCH is\n"
	"                      fixed (default " HK_BASE_DEFAULT_SOURCE_DATE_EPOCH ", Debian 12's release) so the\n"
	"                      same archive state gives the same tree, hence the same id\n"
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

/* ---- create, import ---------------------------------------------------------------------- */

static int sub_create(struct hk_store *s, int argc, char **argv)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	struct hk_base_making m = {
		.variant = HK_BASE_DEFAULT_VARIANT, .suite = HK_BASE_DEFAULT_SUITE,
		.mirror = HK_BASE_DEFAULT_MIRROR,
		.source_date_epoch = epoch && *epoch ? epoch : HK_BASE_DEFAULT_SOURCE_DATE_EPOCH,
	};
	struct hk_argv inc = { 0 };
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v = "";
		if (store_take_value(argc, argv, &i, "--variant", &v))
			m.variant = v;
		else if (store_take_value(argc, argv, &i, "--suite", &v))
			m.suite = v;
		else if (store_take_value(argc, argv, &i, "--mirror", &v))
			m.mirror = v;
		else if (store_take_value(argc, argv, &i, "--include", &v) && v)
			hk_argv_push(&inc, v);
		else if (argv[i][0] == '-')
			rc = store_usage_error("base create: unknown option '%s'", argv[i]);
		else if (m.name)
			rc = store_usage_error("base create: one NAME ('%s' is extra)", argv[i]);
		else
			m.name = argv[i];
		if (rc == 0 && !v)
			rc = store_usage_error("base create: %s needs a value", argv[i]);
	}
	if (rc == 0 && !m.name)
		rc = store_usage_error("base create: NAME is required (e.g. %s)", HK_BASE_DEFAULT);
	m.includes = (const char *const *)inc.v;
	m.n_includes = inc.n;
	struct hk_error err = { 0 };
	if (rc == 0 && hk_base_making_check(&m, &err) < 0)
		rc = store_usage_error("base create: %s", err.msg);
	if (rc) {
		hk_argv_free(inc.v);
		return rc;
	}
	/* A signal ends mmdebstrap (it shares the terminal's process group); harkaq stays to
	 * remove what was made: the process's interrupt context catches it (sys/interrupt.h).
	 * This one subcommand of `store` asks for it; the others keep Ctrl-C's default. */
	hk_interrupt_install();
	struct hk_base_made made;
	int r = hk_base_make(s, &m, &made, &err);
	hk_argv_free(inc.v);
	if (hk_interrupted()) {
		hk_fail_interrupted(&err, hk_interrupted(), "interrupted: nothing was added to the "
							    "store");
		return cli_fail("harkaq store base", &err, HK_ERROR_UNSET);
	}
	if (r < 0)
		return store_fail_exit(&err);
	printf("%s %s %s %s (%s, %s, %zu packages, %zu files)\n", made.added ? "added" : "present",
	       made.artifact->id, made.artifact->name, made.artifact->version, m.variant, m.suite,
	       made.n_packages, made.artifact->file_count);
	return 0;
}

static int sub_import(struct hk_store *s, int argc, char **argv)
{
	const char *ref = NULL, *from = NULL;
	for (int i = 1; i < argc; i++) {
		const char *v = "";
		if (store_take_value(argc, argv, &i, "--from", &v)) {
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
	struct hk_base_made made;
	if (hk_base_import(s, from, ref, &made, &err) < 0)
		return store_fail_exit(&err);
	const struct hk_artifact *a = made.artifact;
	printf("%s %s %s %s (%zu files, from %s)\n", made.added ? "added" : "present", a->id,
	       a->name, a->version, a->file_count, from);
	return 0;
}

/* ---- list, show, packages, owner --------------------------------------------------------- */

/* The words `list` and `show` take: --json, and for `show` one NAME or ID (`who` names the
 * subcommand in messages).  Returns 0, or the usage error's exit status. */
static int ref_and_json(int argc, char **argv, const char *who, bool want_ref, const char **ref,
			bool *json)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			*json = true;
		else if (argv[i][0] == '-')
			return store_usage_error("base %s: unknown option '%s'", who, argv[i]);
		else if (!want_ref || *ref)
			return store_usage_error("base %s: unexpected argument '%s'", who, argv[i]);
		else
			*ref = argv[i];
	}
	if (want_ref && !*ref)
		return store_usage_error("base %s: NAME or ID is required", who);
	return 0;
}

static int sub_list(struct hk_store *s, int argc, char **argv)
{
	const char *none = NULL;
	bool json = false;
	int rc = ref_and_json(argc, argv, "list", false, &none, &json);
	struct hk_buf out = HK_BUF_INIT;
	struct hk_error err = { 0 };
	if (rc == 0 && hk_base_list(s, json, &out, &err) < 0)
		rc = store_fail_exit(&err);
	if (rc == 0)
		fputs(hk_buf_str(&out), stdout);
	hk_buf_free(&out);
	return rc;
}

/* The base `ref` names, or the exit status of the error that says why not (*rc). */
static const struct hk_artifact *find_base(struct hk_store *s, const char *ref, int *rc)
{
	struct hk_error err = { 0 };
	const struct hk_artifact *a = NULL;
	*rc = hk_base_find(s, ref, &a, &err) < 0 ? store_fail_exit(&err) : 0;
	return a;
}

static int sub_show(struct hk_store *s, int argc, char **argv)
{
	const char *ref = NULL;
	bool json = false;
	int rc = ref_and_json(argc, argv, "show", true, &ref, &json);
	const struct hk_artifact *a = rc ? NULL : find_base(s, ref, &rc);
	struct hk_buf out = HK_BUF_INIT;
	struct hk_error err = { 0 };
	if (a && hk_base_show(a, json, &out, &err) < 0)
		rc = store_fail_exit(&err);
	if (a && rc == 0)
		fputs(hk_buf_str(&out), stdout);
	hk_buf_free(&out);
	return rc;
}

static int sub_packages(struct hk_store *s, int argc, char **argv)
{
	int rc = argc == 2 ? 0 : store_usage_error("base packages: give exactly one NAME or ID");
	const struct hk_artifact *a = rc ? NULL : find_base(s, argv[1], &rc);
	struct hk_deb_pkglist pkgs = { 0 };
	struct hk_error err = { 0 };
	if (!a)
		return rc;
	if (hk_debroot_packages(a->path, &pkgs, &err) < 0)
		return store_fail_exit(&err);
	for (size_t i = 0; i < pkgs.n; i++)
		printf("%s %s %s\n", pkgs.items[i].name, pkgs.items[i].version, pkgs.items[i].arch);
	hk_deb_pkglist_free(&pkgs);
	return 0;
}

static int sub_owner(struct hk_store *s, int argc, char **argv)
{
	int rc = argc >= 3 ? 0 : store_usage_error("base owner: give a NAME or ID and at least one PATH");
	const struct hk_artifact *a = rc ? NULL : find_base(s, argv[1], &rc);
	struct hk_debroot_owners owners = { 0 };
	struct hk_error err = { 0 };
	if (!a)
		return rc;
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
