/* harkaq sweep merge (engine/sweep/sweep.h; docs/sweep.md, "shards and merge"): the shards of a
 * sweep run on several machines, read with the one decoder of their document, combined by the
 * core (hk_sweep_merge: every shard once, none interrupted, the catalogue whole), classified
 * once against the complete store, and written as a single-machine sweep writes its outputs. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "engine/sweep/sweep.h"
#include "core/basic/file.h"
#include "core/store/store.h"
#include "core/basic/util.h"

/* Reads every shard's result into parts[0..*n_read).  A result named by its --out directory is
 * that directory's result.json. */
static int read_parts(char **results, size_t n_results, struct hk_sweep_doc *parts,
		      size_t *n_read, struct hk_error *err)
{
	for (*n_read = 0; *n_read < n_results; (*n_read)++) {
		const char *arg = results[*n_read];
		struct stat st;
		hk_autofree char *path = stat(arg, &st) == 0 && S_ISDIR(st.st_mode)
						 ? hk_xasprintf("%s/result.json", arg)
						 : hk_xstrdup(arg);
		struct hk_buf text = HK_BUF_INIT;
		int rc = hk_file_read(path, &text, err);
		if (rc == 0)
			rc = hk_sweep_doc_parse(hk_buf_str(&text), text.len, path,
						&parts[*n_read], err);
		hk_buf_free(&text);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int sweep_merge(char **results, size_t n_results, const struct sweep_opts *o,
		struct hk_error *err)
{
	if (n_results == 0)
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL, "give the shards' result.json files");
	struct hk_sweep_doc *parts = hk_xcalloc(n_results, sizeof(*parts));
	struct hk_sweep_doc merged = { 0 };
	size_t n = 0;
	int rc = read_parts(results, n_results, parts, &n, err);
	if (rc == 0)
		rc = hk_sweep_merge(parts, n, &merged, err);
	if (rc < 0)
		/* The results the user gave: unreadable, malformed, or shards that do not make
		 * the catalogue (one missing, repeated or interrupted). */
		rc = hk_error_set_class(err, HK_ERROR_INPUT);
	for (size_t i = 0; i < n; i++)
		hk_sweep_doc_free(&parts[i]);
	free(parts);
	/* The shards' classifications were made against their workers' stores: made again, once,
	 * against the complete one.  A store that does not open keeps the class its step gave. */
	struct sweep_classifier *cls = NULL;
	const char *store_dir = hk_store_choose_dir(o->store_opt);
	if (rc == 0)
		rc = sweep_open_classifier(store_dir, &cls, err);
	if (rc == 0) {
		sweep_classify(&merged, cls);
		free(merged.store);
		merged.store = realpath(store_dir, NULL);
	}
	sweep_classifier_free(cls);
	if (rc == 0) {
		merged.jobs = 0;
		if (o->out_dir)
			rc = sweep_mkdir_p(o->out_dir, err);
		if (rc == 0)
			rc = sweep_emit(&merged, o, err);
		if (rc < 0)
			/* Where the outputs were asked for: the machine refused, whatever the
			 * errno (ENOENT: a parent it could not make). */
			rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	}
	hk_sweep_doc_free(&merged);
	return rc < 0 ? rc : HK_OUTCOME_OK;
}
