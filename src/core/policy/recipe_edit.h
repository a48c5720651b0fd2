/* A surgical edit of a recipe's text: build deps added to [deps] build, every other byte of
 * the file kept — its comments, its blank lines, its layout (docs/diagnosis.md, "harkaq
 * declare").  What `harkaq declare` writes when it follows the diagnosis' "declare dep: X".
 *
 * Where a dep goes, in the order tried:
 *   - `build = [...]` exists: the dep is appended after its last item, never sorted in: the
 *     order of the deps is the order their artifacts are merged in, which can decide which of
 *     two artifacts shipping one path wins (docs/recipe-format.md, "[deps]"), so appending
 *     keeps every dep already written where it stood.  An array written one item per line
 *     gets a line of its own, indented as the last item's line, with a comma when the items
 *     before have one (a trailing comma stays trailing); any other array gets `, "X"` after
 *     its last item; an empty one becomes `["X"]`.  The new item is quoted as the first one
 *     is ('literal' or "basic");
 *   - [deps] exists without `build`: `build = ["X"]` on the line after its header;
 *   - no [deps]: a table `[deps]` with that line, before [phases] and the comment lines just
 *     above its header (they speak of [phases]), separated by a blank line when one stands
 *     before [phases].
 * Line endings follow the file's (CRLF when its first line ends so).
 *
 * The result is checked before it is returned: parsed as a recipe, it must be the recipe
 * parsed from `text` with the deps appended to its build deps, and nothing else changed (the
 * canonical serialisation, core/policy/recipe.h).  A spec the recipe already declares (by
 * name or hash) is EEXIST; an invalid one EINVAL. */
#ifndef HK_RECIPE_EDIT_H
#define HK_RECIPE_EDIT_H

#include <stddef.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

/* Appends `specs` (n of them, in order) to [deps] build of the recipe `text` (len bytes; a
 * valid recipe, `filename` naming it in errors).  On success `out` holds the edited text
 * (appended to); on failure `out` is left as it was. */
HK_MUST_CHECK int hk_recipe_edit_add_build_deps(const char *text, size_t len, const char *filename,
						const char *const *specs, size_t n,
						struct hk_buf *out, struct hk_error *err);

#endif
