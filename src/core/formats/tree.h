/* Canonical tree hash: the content identity of a directory tree (docs/store.md, "Tree hash").
 *
 * A tree is a list of entries, each a directory, a regular file (executable or not) or a
 * symbolic link, named by its path relative to the tree's root ("usr/bin/make").  Everything
 * else about a file — owner, group, times, permission bits other than "is any x bit set",
 * hard-link structure, order of creation — is deliberately not part of the identity, so the
 * same package imported twice, by different users, at different times, hashes the same.
 *
 * Each directory's digest is BLAKE3 over the serialisation of its children sorted by name
 * bytes; the tree hash is the root directory's digest.  The exact byte layout is documented
 * in docs/store.md and implemented in dir_digest() in tree.c.
 *
 * Devices, FIFOs and sockets have no meaning in a store artifact: hk_tree_scan rejects them
 * with an error naming the path.
 *
 * This header is the tree in memory; reading one from a directory is core/formats/tree_scan.h.
 */
#ifndef HK_TREE_H
#define HK_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/basic/strv.h"

enum hk_tree_type {
	HK_TREE_DIR = 0,
	HK_TREE_FILE = 1,      /* regular file */
	HK_TREE_SYMLINK = 2,
};

struct hk_tree_entry {
	char *path;            /* owned; relative to the root, '/'-separated, no leading '/' */
	enum hk_tree_type type;
	bool exec;             /* HK_TREE_FILE: any of the x bits was set */
	/* HK_TREE_FILE: BLAKE3 of the content; HK_TREE_DIR: the directory's digest (computed by
	 * hk_tree_compute); HK_TREE_SYMLINK: unused (zero). */
	uint8_t digest[HK_BLAKE3_OUT_LEN];
	char *target;          /* HK_TREE_SYMLINK: owned target bytes, NUL-terminated; else NULL */
	size_t target_len;
};

struct hk_tree {
	struct hk_tree_entry *entries;  /* canonical order after hk_tree_compute (see below) */
	size_t n, cap;
	uint8_t root[HK_BLAKE3_OUT_LEN];  /* the tree hash; valid after hk_tree_compute */
	bool computed;
};

#define HK_TREE_INIT { NULL, 0, 0, { 0 }, false }

/* Builds a tree in memory (used when reading a manifest back).  The strings are copied.  For
 * a file, digest is its content hash; for a directory or symlink it is ignored. */
void hk_tree_add(struct hk_tree *t, const char *path, enum hk_tree_type type, bool exec,
		 const uint8_t *digest, const char *target, size_t target_len);

/* Sorts the entries canonically, checks the tree is well formed (every path valid, no
 * duplicates, every entry's parent present as a directory) and computes every directory's
 * digest and the tree hash.  Canonical order is depth-first pre-order with each directory's
 * children sorted by name bytes — which equals sorting whole paths bytewise with '/' ranked
 * below every other byte. */
HK_MUST_CHECK int hk_tree_compute(struct hk_tree *t, struct hk_error *err);

/* Comparison in canonical order (see hk_tree_compute), for callers that merge trees. */
int hk_tree_path_cmp(const char *a, const char *b);

/* Whether `name` is a valid single path component: non-empty, not "." or "..", no '/'. */
bool hk_tree_valid_component(const char *name, size_t len);

/* The first difference between two computed trees, as a sentence naming the path ("/usr/bin/
 * make: content differs"), or NULL if they are equal.  `label_a`/`label_b` name the sides in
 * the sentence ("recorded", "on disk").  Returns a malloc'd string. */
char *hk_tree_first_difference(const struct hk_tree *a, const struct hk_tree *b,
			       const char *label_a, const char *label_b);

/* Every difference between two computed trees, each a sentence as hk_tree_first_difference
 * words it, in canonical order: the first `max` are pushed onto `out` (when non-NULL); the
 * return value counts them all.  A directory missing from one side is a difference, and so
 * is each entry beneath it. */
size_t hk_tree_differences(const struct hk_tree *a, const struct hk_tree *b, const char *label_a,
			   const char *label_b, size_t max, struct hk_strv *out);

/* Number of entries that are not directories (files and symlinks). */
size_t hk_tree_file_count(const struct hk_tree *t);

/* "b3:<hex>" of the tree hash. */
void hk_tree_id(const struct hk_tree *t, char out[HK_B3_ID_LEN]);

/* What a file of mode m that a tree may not hold is ("a FIFO", "a socket", …), for the
 * message that refuses it. */
const char *hk_tree_special_kind(mode_t m);

/* Escaping shared by the store's text files (manifest, path index); the same form as the
 * policy format (core/policy/policy.h): bytes 0x21..0x7e other than '\' literal, '\' as "\\",
 * every other byte as "\xHH".  hk_tree_unescape reverses it; returns -EINVAL on a bad escape. */
void hk_tree_escape(const void *bytes, size_t n, struct hk_buf *out);
HK_MUST_CHECK int hk_tree_unescape(const char *text, size_t n, struct hk_buf *out);

void hk_tree_free(struct hk_tree *t);

#endif
