/* Recipes (docs/recipe-format.md): written or imported by programs, so hostile in practice.
 * An accepted recipe must hash (the canonical serialisation walks every field). */
#include <string.h>

#include "core/policy/recipe.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct hk_recipe r;
	struct hk_error err;
	if (hk_recipe_parse(t, size, "recipe.toml", "/fuzz/recipes/x", &r, &err) == 0) {
		char id[HK_B3_ID_LEN];
		hk_recipe_hash(&r, id);
		FUZZ_CHECK(strncmp(id, "b3:", 3) == 0);
		hk_recipe_free(&r);
	}
	free(t);
	return 0;
}
