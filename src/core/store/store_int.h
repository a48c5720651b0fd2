/* What the store's own files share and nobody else may use: the handle's layout, the names of
 * the store's files, and the helpers more than one of them calls.  The public face of the store
 * is core/store/store.h; the formats are in docs/store.md.
 *
 *     store_names.c     names, dependency groups and identity, as values (pure)
 *     store.c           opening, loading artifacts, find, closure, verify
 *     store_add.c       hk_store_add: copy or take a tree, normalise, hash, commit
 *     store_manifest.c  the manifest format (.files) and the line reader the text formats share
 *     store_index.c     the path index
 *     store_seal.c      seal records (fs-verity digests beside the manifest)
 */
#ifndef HK_STORE_INT_H
#define HK_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/store_names.h"
#include "core/formats/tree.h"

#define STORE_MARKER ".harkaq-store"
#define STORE_MARKER_TEXT "harkaq-store 1\n"
#define META_DIR ".meta"
#define META_KIND "harkaq.artifact.v1"
#define INDEX_DIR ".index"
#define INDEX_FILE ".index/paths"
#define TMP_PREFIX ".tmp-"
#define SEAL_SUFFIX ".verity"
#define HEX_LEN (2 * HK_BLAKE3_OUT_LEN)
#define NAME_MAX_LEN HK_STORE_NAME_MAX
#define VERSION_MAX_LEN HK_STORE_VERSION_MAX

/* One line of the path index: "<escaped sandbox path> <dirname>", pointing into index_text. */
struct store_index_line {
	const char *path;
	size_t path_len;
	const char *dir;
	size_t dir_len;
};

struct hk_store {
	char *root;                    /* absolute */
	struct hk_artifact **arts;     /* sorted by name, version, id (store_add_artifact) */
	size_t n_arts, cap_arts;
	bool loaded;
	unsigned refs;                 /* hk_store_ref() adds one; the last hk_store_close frees */
	char *index_text;              /* NULL until the index is loaded */
	struct store_index_line *index;
	size_t n_index;
};

/* ---- store.c ---- */

/* Drops the loaded path index (store_index.c loads it again when asked). */
void store_index_unload(struct hk_store *s);

/* mkdir(path, 0755), an existing directory being fine. */
HK_MUST_CHECK int store_ensure_dir(const char *path, struct hk_error *err);
void store_artifact_free(struct hk_artifact *a);
/* Appends `a` (the store takes it) and keeps the list sorted. */
void store_add_artifact(struct hk_store *s, struct hk_artifact *a);
/* Loads the metadata of every artifact not yet in s->arts: all of them on the first call, on
 * later calls those other processes added since.  Artifacts already handed out stay; their
 * `sealed` is taken again from the same listing. */
HK_MUST_CHECK int store_load_new(struct hk_store *s, struct hk_error *err);
/* store_load_new once per handle. */
HK_MUST_CHECK int store_ensure_loaded(struct hk_store *s, struct hk_error *err);
/* The loaded artifact whose directory name is dir[0..n), or NULL. */
const struct hk_artifact *store_find_dirname(const struct hk_store *s, const char *dir,
					     size_t n);

/* ---- store_manifest.c: the manifest, and reading the store's line-oriented text files ---- */

void store_manifest_encode(const struct hk_tree *t, struct hk_buf *out);
/* Decodes a manifest's text (`filename` names it in errors) into *out, hashed. */
HK_MUST_CHECK int store_manifest_decode(const char *text, size_t len, const char *filename,
					struct hk_tree *out, struct hk_error *err);
/* The first line of every store text file names its format: `header` (with its '\n'). */
HK_MUST_CHECK int store_check_header(const char *text, size_t len, const char *header, const char *filename,
		       struct hk_error *err);
/* Counts the line that starts at `p` and finds its end *nl; an unterminated one is an error. */
HK_MUST_CHECK int store_next_line(const char *p, const char *end, const char *filename, unsigned *line,
		    const char **nl, struct hk_error *err);
/* The first two spaces of the line p..nl (either NULL where there is none). */
void store_split_fields(const char *p, const char *nl, const char **sp1, const char **sp2);
/* Unescapes one non-empty field (the policy format's escapes) into *out (reset first). */
HK_MUST_CHECK int store_unescape_field(const char *p, size_t n, struct hk_buf *out);

/* ---- store_index.c ---- */

/* Writes a complete index for `arts` (plus `extra` with its tree, not yet in the list) into a
 * temporary file of STORE/.index; the caller renames *tmp_path over STORE/.index/paths.  With
 * `extra`, an index on disk that covers exactly `arts` is merged into rather than rebuilt; the
 * handle's loaded index is dropped either way. */
HK_MUST_CHECK int store_index_build(struct hk_store *s, struct hk_artifact *const *arts, size_t n_arts,
		      const struct hk_artifact *extra, const struct hk_tree *extra_tree,
		      char **tmp_path, struct hk_error *err);

/* The origin a provenance ("source" JSON text) records (store.c). */
enum hk_artifact_origin store_origin_of_json(const char *source_json);

#endif
