/* harkaq store export / import: a store carried to machines that share no filesystem with it,
 * as one verified bundle (core/bundle.h; docs/store.md, "Bundles"; a sweep's workers,
 * docs/sweep.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/status.h"
#include "engine/store_bundle.h"
#include "engine/store_import.h"
#include "core/bundle.h"
#include "core/strv.h"
#include "core/util.h"

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

static int failed(const struct hk_error *err)
{
	fprintf(stderr, "harkaq store: %s\n", err->msg);
	return hk_exit_for_errno(err->code);
}

/* What export writes: the closure of the named artifacts, or every artifact. */
static int export_set(struct hk_store *s, const struct hk_strv *ids, bool all,
		      const struct hk_strv *base, const struct hk_artifact ***out, size_t *n,
		      struct hk_error *err)
{
	if (all) {
		const struct hk_artifact *const *list;
		int r = hk_store_list(s, &list, n, err);
		if (r < 0)
			return r;
		*out = hk_xcalloc(*n + 1, sizeof(**out));
		memcpy(*out, list, *n * sizeof(**out));
		return 0;
	}
	const struct hk_artifact **roots = hk_xcalloc(ids->n + 1, sizeof(*roots));
	int r = 0;
	for (size_t i = 0; r == 0 && i < ids->n; i++)
		r = hk_store_find(s, ids->v[i], &roots[i], err);
	if (r == 0)
		r = hk_store_closure(s, roots, ids->n, (const char *const *)base->v, base->n, out, n,
				     err);
	free(roots);
	return r;
}

static int write_bundle(struct hk_store *s, const struct hk_artifact **arts, size_t n,
			const char *out_path, struct hk_bundle_stats *st, struct hk_error *err)
{
	if (!out_path)
		return hk_bundle_write(s, (const struct hk_artifact *const *)arts, n, stdout, st, err);
	/* Written beside its name and renamed: a reader never sees half a bundle under it. */
	hk_autofree char *tmp = hk_xasprintf("%s.tmp-XXXXXX", out_path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return hk_fail_errno(err, errno, "creating %s", tmp);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return hk_fail_errno(err, e, "opening %s", tmp);
	}
	int r = hk_bundle_write(s, (const struct hk_artifact *const *)arts, n, f, st, err);
	if (fclose(f) != 0 && r == 0)
		r = hk_fail_errno(err, errno, "writing %s", tmp);
	if (r == 0 && chmod(tmp, 0644) < 0)
		r = hk_fail_errno(err, errno, "chmod %s", tmp);
	if (r == 0 && rename(tmp, out_path) < 0)
		r = hk_fail_errno(err, errno, "renaming %s to %s", tmp, out_path);
	if (r < 0)
		unlink(tmp);
	return r;
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
	const char *out_path = NULL, *base_root = NULL;
	bool all = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'o': out_path = optarg; break;
		case 'r': base_root = optarg; break;
		case 'b': hk_strv_push(&base, optarg); break;
		case 'h': fputs(bundle_usage, stdout); return HK_EXIT_OK;
		default: return usage("export: bad option");
		}
	}
	for (int i = optind; i < argc; i++)
		hk_strv_push(&ids, argv[i]);
	if (all == (ids.n > 0))
		return usage("export: give the IDs whose closure to export, or --all");
	if (all && (base_root || base.n))
		return usage("export: --base-root and --base apply to a closure, not --all");
	if (!out_path && isatty(1))
		return usage("export: stdout is a terminal; redirect it or give --out FILE");
	struct hk_error err = { 0 };
	if (base_root && hk_base_root_names(base_root, &base, &err) < 0)
		return failed(&err);
	struct hk_store *s = NULL;
	if (hk_store_open(hk_store_choose_dir(store_dir), false, &s, &err) < 0)
		return failed(&err);
	const struct hk_artifact **arts = NULL;
	size_t n = 0;
	struct hk_bundle_stats st = { 0 };
	int r = export_set(s, &ids, all, &base, &arts, &n, &err);
	if (r == 0)
		r = write_bundle(s, arts, n, out_path, &st, &err);
	free(arts);
	hk_store_close(s);
	if (r < 0)
		return failed(&err);
	fprintf(stderr, "harkaq store: exported %zu artifact(s), %zu file(s), %llu bytes of "
			"content%s%s\n", st.artifacts, st.files, (unsigned long long)st.bytes,
		out_path ? " to " : "", out_path ? out_path : "");
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
		return failed(&err);
	}
	struct hk_store *s = NULL;
	struct hk_bundle_stats st = { 0 };
	int r = hk_store_open(hk_store_choose_dir(store_dir), true, &s, &err);
	if (r == 0)
		r = hk_bundle_read(s, in, from_stdin ? "(stdin)" : path, print_imported, NULL, &st,
				   &err);
	if (s)
		hk_store_close(s);
	if (!from_stdin)
		fclose(in);
	if (r < 0)
		return failed(&err);
	fprintf(stderr, "harkaq store: imported %zu artifact(s) (%zu added, %zu present), %zu "
			"file(s), verified\n", st.artifacts, st.added, st.artifacts - st.added, st.files);
	return HK_EXIT_OK;
}

int store_bundle_cmd(const char *store_dir, int argc, char **argv)
{
	return strcmp(argv[0], "export") == 0 ? sub_export(store_dir, argc, argv)
					      : sub_import(store_dir, argc, argv);
}
