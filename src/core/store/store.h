/* The content-addressed store (design.md §9, path index §8): artifacts, each a tree laid out
 * as in the sandbox under STORE/<hex>-<name>, addressed by the BLAKE3 of what it is.  The
 * layout, the file formats and the identity's exact bytes are in docs/store.md; the parsing of
 * Debian metadata an import needs is core/debian/deb.h.
 *
 * Ownership: a `struct hk_store` owns every `struct hk_artifact` it hands out; those pointers
 * stay valid until hk_store_close(), also across hk_store_add().  Arrays of pointers returned
 * to the caller are the caller's to free() (not the artifacts in them).
 */
#ifndef HK_STORE_H
#define HK_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"
#include "core/formats/store_names.h"
#include "core/formats/tree.h"

struct hk_store;

/* The store directory to use: `option` if non-NULL, else $HARKAQ_STORE if set and non-empty,
 * else "./store".  Returns a pointer to one of those strings (not owned). */
const char *hk_store_choose_dir(const char *option);

/* Opens the store at `dir`.  With `create`, a missing store is created (with its marker);
 * without, a missing directory or marker is an error naming it.  *out is freed by
 * hk_store_close(). */
HK_MUST_CHECK int hk_store_open(const char *dir, bool create, struct hk_store **out, struct hk_error *err);
/* One more holder of `s`: each holder calls hk_store_close() once, and the last one frees it.
 * A caller hands its open store to a callee this way (a Debian build to its engine) instead
 * of the callee opening the store again, which on a store of a thousand artifacts reads a
 * thousand metadata files.  Not thread-safe: holders share one thread, or lock. */
struct hk_store *hk_store_ref(struct hk_store *s);
void hk_store_close(struct hk_store *s);
/* What other processes changed since the artifacts were loaded: the artifacts added (loaded),
 * and every artifact's `sealed` (a seal record written or removed).  What a store opened now
 * would show, at the cost of listing the metadata directory.  Nothing when nothing was loaded
 * yet (the first look-up loads everything). */
HK_MUST_CHECK int hk_store_refresh(struct hk_store *s, struct hk_error *err);
const char *hk_store_dir(const struct hk_store *s);

/* What an artifact is, besides its files. */
struct hk_artifact_spec {
	const char *name;             /* [A-Za-z0-9][A-Za-z0-9+._-]*, at most 128 bytes */
	const char *version;          /* printable ASCII without spaces, at most 256 bytes */
	const struct hk_dep_group *deps;
	size_t n_deps;
	const char *const *provides;
	size_t n_provides;
	/* Provenance, a JSON object written as is into the metadata's "source" member (for a
	 * .deb: file name, hashes, control fields).  Not part of the identity: the same tree
	 * with the same name, version and deps is the same artifact wherever it came from.
	 * NULL writes null. */
	const char *source_json;
};

/* The directory given to hk_store_add is a temporary directory of this store (made by
 * hk_store_mktemp): it is moved into place instead of copied, and removed if not needed. */
#define HK_STORE_ADD_CONSUME (1u << 0)

/* Adds the tree at `src_dir` as an artifact.  Copies it (or, with HK_STORE_ADD_CONSUME, moves
 * it) into a temporary directory of the store, normalises its permissions (docs/store.md,
 * "Stored permissions"), hashes it and renames it into place, then updates the path index.
 * Special files are rejected, naming the path.  On any failure nothing of the attempt stays
 * in the store.  Adding an artifact that is already present is a no-op: *out is the existing
 * artifact and *added (if non-NULL) is false. */
HK_MUST_CHECK int hk_store_add(struct hk_store *s, const char *src_dir, const struct hk_artifact_spec *spec,
		 unsigned flags, const struct hk_artifact **out, bool *added,
		 struct hk_error *err);

/* Stages a tree for a later decision: copies `src_dir` into a new temporary directory of the
 * store, puts it in the store's normal form and computes the id hk_store_add would give it
 * with `spec` — all as hk_store_add does — without adding anything.  The caller then adds it
 * (hk_store_add with HK_STORE_ADD_CONSUME: the same id) or removes it (hk_store_remove_tree);
 * *tmp_path is the caller's.  A build stages its /out so that its artifact id is known before
 * its verdicts decide whether the output may enter the store.  On failure nothing stays. */
HK_MUST_CHECK int hk_store_stage(struct hk_store *s, const char *src_dir, const struct hk_artifact_spec *spec,
		   char **tmp_path, char id[HK_B3_ID_LEN], struct hk_error *err);

/* Creates an empty temporary directory inside the store (STORE/.tmp-XXXXXX), for a caller
 * that fills it and passes it to hk_store_add with HK_STORE_ADD_CONSUME.  *path is owned by
 * the caller.  hk_store_remove_tree removes such a directory recursively (used on failure). */
HK_MUST_CHECK int hk_store_mktemp(struct hk_store *s, char **path, struct hk_error *err);
/* Not HK_MUST_CHECK: it is the clean-up of failure paths and temporaries, where nothing
 * better than going on can be done with its failure. */
HK_MUST_CHECK int hk_store_remove_tree(const char *path, struct hk_error *err);

/* Every artifact, sorted by name, then version, then id.  The array belongs to the store. */
HK_MUST_CHECK int hk_store_list(struct hk_store *s, const struct hk_artifact *const **out, size_t *n,
		  struct hk_error *err);

/* Finds one artifact.  `query` may be, in this order of precedence:
 *   "<hex>-<name>"       the directory name
 *   "b3:<hex prefix>"    an id or a prefix of one
 *   "NAME=VERSION"       name and version
 *   "NAME"               a name (or, if no artifact has that name, a name in `provides`)
 *   "<hex prefix>"       at least 8 hex digits, when no artifact is named so
 * Nothing found is -ENOENT; more than one match is -EEXIST (ambiguous), with every candidate
 * listed in the message. */
HK_MUST_CHECK int hk_store_find(struct hk_store *s, const char *query, const struct hk_artifact **out,
		  struct hk_error *err);

/* The artifact's entries as recorded in its manifest (the tree hashed into its id), in
 * canonical order; sandbox path = "/" + entry path.  Directories, files (with the exec bit
 * and content hash) and symlinks (with their target).  *out is owned by the caller. */
HK_MUST_CHECK int hk_store_files(struct hk_store *s, const struct hk_artifact *a, struct hk_tree *out,
		   struct hk_error *err);

/* Artifacts that provide the sandbox path `path` ("/usr/bin/make"; files and symlinks, not
 * directories), from the path index: O(log n).  *out (caller frees the array) may be empty. */
HK_MUST_CHECK int hk_store_providers(struct hk_store *s, const char *path, const struct hk_artifact ***out,
		       size_t *n, struct hk_error *err);

/* The transitive runtime closure of `roots` (roots included), deps before dependents, each
 * artifact once.  A dependency group is resolved, in order: (1) the first alternative that
 * names an artifact of the store (by name, then by provides); (2) else, if any alternative's
 * name is in `base`, the base root provides it and nothing is added (e.g. `base` from
 * hk_deb_installed_names of the base root's dpkg status).  A group that resolves to nothing
 * is -ENOENT naming the artifact and the missing dependency; a name matching several
 * artifacts is -EEXIST listing them.  Cycles are allowed (Debian's runtime Depends has them:
 * libc6 and libgcc-s1 depend on each other): each artifact of a cycle is listed once.  *out
 * (caller frees the array) holds store-owned artifacts. */
HK_MUST_CHECK int hk_store_closure(struct hk_store *s, const struct hk_artifact *const *roots,
		     size_t n_roots, const char *const *base, size_t n_base,
		     const struct hk_artifact ***out, size_t *n_out, struct hk_error *err);

/* Re-hashes the artifact's tree on disk and checks it against its manifest and its id.
 * Tampering is -EBADMSG with a message naming the first differing path. */
HK_MUST_CHECK int hk_store_verify_artifact(struct hk_store *s, const struct hk_artifact *a,
			     struct hk_error *err);

/* ---- sealing (design.md §12, docs/sealing.md) ----
 *
 * A sealed artifact has fs-verity enabled on every regular file and a seal record,
 * STORE/.meta/<dirname>.verity, listing each file's fs-verity digest next to its BLAKE3
 * content hash (which binds the record to the manifest, hence to the id).  The seal is not
 * identity: sealing never changes an artifact's id, tree or manifest.  The kernel calls
 * (enable, measure) are the caller's, passed in as an hk_seal_fn (src/sys/verity.h): the core
 * walks the manifest, stores and compares, and makes no fs-verity call itself. */

/* "sha256:<64 hex>" or "sha512:<128 hex>", NUL-terminated. */
#define HK_SEAL_DIGEST_MAX (7 + 128 + 1)

/* Seals (or only measures) the file at the absolute `path` and writes its fs-verity digest
 * into `out`.  Returns 0, -ENODATA (the file has no fs-verity), -EOPNOTSUPP (its filesystem
 * cannot seal) or another -errno, with err filled. */
typedef int (*hk_seal_fn)(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
			  struct hk_error *err);

struct hk_seal_entry {
	char *path;                          /* owned; relative to the artifact root */
	uint8_t b3[HK_BLAKE3_OUT_LEN];       /* the manifest's content hash of the file */
	char digest[HK_SEAL_DIGEST_MAX];     /* its fs-verity digest when sealed */
};

struct hk_seal {
	struct hk_seal_entry *entries;       /* the manifest's regular files, in its order */
	size_t n;
};

/* Calls `seal_file` on every regular file of the artifact (manifest order), re-hashes the
 * now frozen tree against the manifest (hk_store_verify_artifact: a tampered artifact is never
 * sealed), then writes the seal record atomically (temporary file, rename), calling
 * `seal_file` on the record itself first, so that it is protected like the files it lists.  Sealing again re-measures and
 * rewrites the record.  On failure no record is written (files already sealed stay sealed:
 * fs-verity cannot be turned off; such an artifact counts as unsealed until sealed again). */
HK_MUST_CHECK int hk_store_seal(struct hk_store *s, const struct hk_artifact *a, hk_seal_fn seal_file,
		  void *ctx, struct hk_error *err);

/* The artifact's seal record (-ENOENT if it is not sealed), checked against its manifest:
 * the same regular files, in the same order, with the same BLAKE3 hashes.  *out owned by the
 * caller (hk_seal_free). */
HK_MUST_CHECK int hk_store_seal_read(struct hk_store *s, const struct hk_artifact *a, struct hk_seal *out,
		       struct hk_error *err);
void hk_seal_free(struct hk_seal *seal);

/* Path of the seal record (caller frees). */
char *hk_store_seal_path(const struct hk_store *s, const struct hk_artifact *a);

/* Checks a sealed artifact's seal as the kernel reports it now: `measure` on the record
 * itself (it must still have fs-verity) and on every file listed; each digest must equal the
 * recorded one.  A file without fs-verity now, a different digest, or a filesystem that can
 * no longer report fs-verity is -EBADMSG naming the artifact and the file.  This does not
 * read the files' content (the BLAKE3 re-hash, hk_store_verify_artifact, does). */
HK_MUST_CHECK int hk_store_verify_seal(struct hk_store *s, const struct hk_artifact *a, hk_seal_fn measure,
			 void *ctx, struct hk_error *err);

/* Parses a seal record's text (exposed for unit tests; hk_store_seal_read uses it). */
HK_MUST_CHECK int hk_seal_parse(const char *text, size_t len, const char *filename, struct hk_seal *out,
		  struct hk_error *err);

/* Rewrites the path index from every artifact's manifest (hk_store_add keeps it up to date;
 * this repairs a deleted or damaged index). */
HK_MUST_CHECK int hk_store_reindex(struct hk_store *s, struct hk_error *err);

#endif
