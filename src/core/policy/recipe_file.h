/* Reading a recipe file: the file system side of core/policy/recipe.h, whose parser it calls. */
#ifndef HK_RECIPE_FILE_H
#define HK_RECIPE_FILE_H

#include "core/basic/error.h"
#include "core/policy/recipe.h"

/* Reads and validates the recipe at `path` (at most HK_RECIPE_FILE_MAX bytes) with
 * hk_recipe_parse, its directory the real file's (symlinks resolved), and sets out->path to
 * the real path.  Errors name `path` as given.  On error *out is zeroed (nothing to free). */
HK_MUST_CHECK int hk_recipe_load(const char *path, struct hk_recipe *out, struct hk_error *err);

#endif
