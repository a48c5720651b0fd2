/* The TOML subset under recipes (src/core/formats/toml.c). */
#include <string.h>

#include "core/formats/toml.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct hk_toml_table *root = NULL;
	struct hk_error err;
	if (hk_toml_parse(t, size, "fuzz.toml", &root, &err) == 0)
		hk_toml_free(root);
	else
		FUZZ_CHECK(root == NULL);
	free(t);
	return 0;
}
