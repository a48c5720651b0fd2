/* Pinned bases (docs/bases.md): the root file system a build stands on, as a store artifact
 * with a name and a BLAKE3 id, so that a verdict measures the recipe and not the machine.
 *
 * A base is an artifact of origin HK_ORIGIN_BASE: a whole Debian root (made by mmdebstrap,
 * src/engine/debian/base_make.c) whose provenance records its variant, suite and package list
 * (core/debian/base_making.h, which writes and reads it).  A store
 * keeps a tag per base name, STORE/.bases/NAME, holding the id that name stands for, so
 * `base = "debian-12-essential"` means one exact tree, and making the base again (a newer
 * point release) moves the tag, never the meaning of an id already recorded in evidence.
 *
 * A recipe names its base by name or by id; "host" (this machine's own directories) and
 * "root:PATH" (a directory) stay available as explicit, unpinned choices. */
#ifndef HK_BASE_H
#define HK_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"
#include "core/policy/recipe.h"
#include "core/store/store.h"

/* Finds the base `ref` names: "b3:<hex or prefix>" (an id), or a name (its tag; without a
 * tag, the one base artifact of that name).  Not found is -ENOENT with a message saying how
 * to make it; an artifact that is not a base is -EINVAL naming what it is. */
HK_MUST_CHECK int hk_base_find(struct hk_store *s, const char *ref, const struct hk_artifact **out,
		 struct hk_error *err);

/* Points the tag NAME at base artifact `a` (written atomically). */
HK_MUST_CHECK int hk_base_tag_set(struct hk_store *s, const char *name, const struct hk_artifact *a,
		    struct hk_error *err);

struct hk_base_tag {
	char *name;
	char id[HK_B3_ID_LEN];
};

/* Every tag of the store, sorted by name (a store without tags has none).  Caller frees
 * with hk_base_tags_free. */
HK_MUST_CHECK int hk_base_tags(struct hk_store *s, struct hk_base_tag **out, size_t *n, struct hk_error *err);
void hk_base_tags_free(struct hk_base_tag *t, size_t n);

/* The name of the tag among t[0..n) that points at `a`, or NULL. */
const char *hk_base_tag_of(const struct hk_base_tag *t, size_t n, const struct hk_artifact *a);

#endif
