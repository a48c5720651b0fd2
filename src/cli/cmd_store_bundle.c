/* harkaq store export / import: the command line of a store's bundles
 * (engine/store/store_bundle.h; docs/store.md, "Bundles"). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/store_cli.h"
#include "engine/store/store_bundle.h"
#include "engine/store/store_import.h"
#include "core/store/store.h"
#include "core/basic/strv.h"

static const char bundle_usage[] =
	"usage: harkaq store [--store DIR] export ID... [--base-root DIR] [--base NAME]...\n"
	"                                        [--out FILE]\n"
	"       harkaq store [--store DIR] export --all [--out FILE]\n"
	"       harkaq store [--store DIR] import BUNDLE|-\n"
	"\n"
	"export writes the runtime closure of the IDs (resolved as 'harkaq store closure' does;\n"
	"a dep the store lacks must be the base root's: --base-root DIR, --base NAME), or with\n"
	"--all every artifact, as one bundle: each artifact's metadata and files, nothing a\n"
	"store derives (path index, seals, caches).  The same artifacts give the same bytes.\n"
	"To FILE (written whole, then renamed) or to stdout.\n"
	"\n"
	"import reads a bundle (- for stdin) into the store, creating it if missing: every\n"
	"file's content, every tree hash and every id is recomputed and must match before an\n"
	"artifact is committed; artifacts already present are verified and kept.  Importing the\n"
	"same bundle twice changes nothing.  Prints 'added|present b3:<id> NAME VERSION'.\n"
	"\n"
	"exit status: 0 success; 64 usage; 65 a bundle that does not verify, an unknown ID or a\n"
	"missing dependency; 70 environment error (I/O).\n";

static int usage(const char *what)
{
	fprintf(stderr, "harkaq store: %s (see 'harkaq store export --help')\n", what);
	return HK_EXIT_USAGE;
}

static int sub_export(const char *store_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "base-root", required_argument, NULL, 'r' },
		{ "base", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	hk_autostrv struct hk_strv ids = HK_STRV_INIT, base = HK_STRV_INIT;
	struct hk_store_export x = { .store_dir = hk_store_choose_dir(store_dir), .ids = &ids,
				     .base = &base, .out = stdout };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': x.all = true; break;
		case 'o': x.out_path = optarg; break;
		case 'r': x.base_root = optarg; break;
		case 'b': hk_strv_push(&base, optarg); break;
		case 'h': fputs(bundle_usage, stdout); return HK_EXIT_OK;
		default: return usage("export: bad option");
		}
	}
	for (int i = optind; i < argc; i++)
		hk_strv_push(&ids, argv[i]);
	if (x.all == (ids.n > 0))
		return usage("export: give the IDs whose closure to export, or --all");
	if (x.all && (x.base_root || base.n))
		return usage("export: --base-root and --base apply to a closure, not --all");
	if (!x.out_path && isatty(1))
		return usage("export: stdout is a terminal; redirect it or give --out FILE");
	struct hk_error err = { 0 };
	struct hk_bundle_stats st = { 0 };
	if (hk_store_export(&x, &st, &err) < 0)
		return store_fail_exit(&err);
	fprintf(stderr, "harkaq store: exported %zu artifact(s), %zu file(s), %llu bytes of "
			"content%s%s\n", st.artifacts, st.files, (unsigned long long)st.bytes,
		x.out_path ? " to " : "", x.out_path ? x.out_path : "");
	return HK_EXIT_OK;
}

static void print_imported(void *ctx, const struct hk_artifact *a, bool added)
{
	hk_print_added(a, added, ctx);
}

static int sub_import(const char *store_dir, int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(bundle_usage, stdout);
		return HK_EXIT_OK;
	}
	if (argc != 2)
		return usage("import: give one bundle (or - for stdin)");
	const char *path = argv[1];
	bool from_stdin = strcmp(path, "-") == 0;
	FILE *in = from_stdin ? stdin : fopen(path, "r");
	struct hk_error err = { 0 };
	if (!in) {
		hk_fail_errno(&err, errno, "opening %s", path);
		return store_fail_exit(&err);
	}
	struct hk_bundle_stats st = { 0 };
	int r = hk_store_import(hk_store_choose_dir(store_dir), in,
				from_stdin ? "(stdin)" : path, print_imported, NULL, &st, &err);
	if (!from_stdin)
		fclose(in);
	if (r < 0)
		return store_fail_exit(&err);
	fprintf(stderr, "harkaq store: imported %zu artifact(s) (%zu added, %zu present), %zu "
			"file(s), verified\n", st.artifacts, st.added, st.artifacts - st.added, st.files);
	return HK_EXIT_OK;
}

int store_bundle_cmd(const char *store_dir, int argc, char **argv)
{
	return strcmp(argv[0], "export") == 0 ? sub_export(store_dir, argc, argv)
					      : sub_import(store_dir, argc, argv);
}
