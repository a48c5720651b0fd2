/* The store's values, without the store: an artifact's record, its origin, its dependency
 * groups, its name and version rules and its identity (docs/store.md, "Artifact id").  Pure
 * (store_names.c): what the store on disk (core/store/store.h) and everyone who reads an artifact's
 * record stand on. */
#ifndef HK_STORE_NAMES_H
#define HK_STORE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/blake3.h"

/* Longest artifact name and version the store accepts. */
#define HK_STORE_NAME_MAX 128
#define HK_STORE_VERSION_MAX 256

/* Runtime dependency: one of `alts` (in order of preference) must be available.  A plain
 * dependency is a group of one; Debian's "a | b" is a group of two. */
struct hk_dep_group {
	char **alts;
	size_t n_alts;
};

/* Where an artifact came from (its provenance, recorded beside its identity, not in it).
 * Ranked in this order wherever artifacts shipping one path compete: a Debian package before
 * a tree added by hand before a local build's output (docs/store.md). */
enum hk_artifact_origin {
	HK_ORIGIN_DEB = 0,      /* imported from a .deb (import-deb, import-apt) */
	HK_ORIGIN_OTHER = 1,    /* added by hand (store add) */
	HK_ORIGIN_BUILD = 2,    /* a build's sealed /out */
	HK_ORIGIN_BASE = 3,     /* a pinned base root (store base create): never a dep */
	/* What dpkg and the maintainer scripts of a Debian build's closure leave beyond the
	 * packages' own files (alternatives links, trigger outputs, the package database), made
	 * once per closure (engine/debian/debstate.h).  A dep of that build only: like a base, it is never
	 * in the store view nor in the path index. */
	HK_ORIGIN_STATE = 4,
};

/* "deb", "added", "build", "base", "state" */
const char *hk_artifact_origin_name(enum hk_artifact_origin o);

struct hk_artifact {
	char id[HK_B3_ID_LEN];        /* "b3:<64 hex>" */
	char tree_id[HK_B3_ID_LEN];   /* "b3:<64 hex>": tree hash (docs/store.md) */
	char *dirname;                /* "<64 hex>-<name>" */
	char *path;                   /* STORE/<dirname>: the tree root */
	char *meta_path;              /* STORE/.meta/<dirname>.json */
	char *name;
	char *version;
	struct hk_dep_group *deps;    /* canonical order (sorted, deduplicated) */
	size_t n_deps;
	char **provides;              /* sorted, deduplicated names this artifact also answers to */
	size_t n_provides;
	size_t file_count;            /* entries that are not directories */
	char *meta_json;              /* the metadata file's text (valid JSON) */
	bool sealed;                  /* a seal record exists (STORE/.meta/<dirname>.verity) */
	enum hk_artifact_origin origin;
	size_t index_;                /* private: position in the store's list */
};

/* Artifact id of an identity (exact serialisation in docs/store.md).  `deps` and `provides`
 * must be canonical (see hk_dep_groups_canonicalise); hk_store_add canonicalises. */
void hk_artifact_compute_id(const char *name, const char *version,
			    const struct hk_dep_group *deps, size_t n_deps,
			    const char *const *provides, size_t n_provides,
			    const uint8_t tree_root[HK_BLAKE3_OUT_LEN], char out[HK_B3_ID_LEN]);

/* Sorts groups (by their alternatives, compared in order) and removes duplicate groups;
 * alternatives keep their order of preference. */
void hk_dep_groups_canonicalise(struct hk_dep_group *g, size_t *n);
void hk_dep_groups_free(struct hk_dep_group *g, size_t n);
/* "a | b" form of a group, for messages (caller frees). */
char *hk_dep_group_str(const struct hk_dep_group *g);
bool hk_artifact_name_valid(const char *name);

/* A version the store accepts (at most HK_STORE_VERSION_MAX bytes, no '/', no control). */
bool hk_artifact_version_valid(const char *version);
/* The canonical order of dependency groups: by their alternatives, compared in order. */
int hk_dep_group_cmp(const struct hk_dep_group *a, const struct hk_dep_group *b);

#endif
