/* Reading a recipe file: the file system side of core/policy/recipe.h, whose parser it calls. */
#ifndef HK_RECIPE_FILE_H
#define HK_RECIPE_FILE_H

#include "core/basic/error.h"
#include "core/policy/recipe.h"

/* Reads and validates the recipe at `path` (at most HK_RECIPE_FILE_MAX bytes) with
 * hk_recipe_parse, its directory the real file's (symlinks resolved), and sets out->path to
 * the real path.  Errors name `path` as given.  On error *out is zeroed (nothing to free). */
HK_MUST_CHECK int hk_recipe_load(const char *path, struct hk_recipe *out, struct hk_error *err);

/* A recipe file's text, not yet parsed: what an editor of it (core/policy/recipe_edit.h) starts
 * from.  `real` is its path with symlinks resolved (where a new text is written), `dir` the
 * directory its relative paths resolve against (hk_recipe_parse's recipe_dir). */
struct hk_recipe_text {
	char *text;              /* NUL-terminated, len bytes */
	size_t len;
	char *real, *dir;
};

/* Reads the recipe at `path` as hk_recipe_load does (at most HK_RECIPE_FILE_MAX bytes, a
 * regular file), without parsing it.  On error *out is zeroed. */
HK_MUST_CHECK int hk_recipe_file_read(const char *path, struct hk_recipe_text *out,
				      struct hk_error *err);
void hk_recipe_text_free(struct hk_recipe_text *t);

#endif
