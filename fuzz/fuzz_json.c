/* The JSON reader: harkaq reads the reader's and the cage's JSON lines, store metadata and
 * stored verdicts.  An accepted value must serialise and parse back to the same bytes. */
#include <string.h>

#include "core/basic/buf.h"
#include "core/formats/json.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct hk_jval *v = NULL;
	struct hk_error err;
	if (hk_json_parse(t, size, &v, &err) == 0) {
		size_t blen;
		free(hk_jval_bytes(v, &blen));
		struct hk_buf a = HK_BUF_INIT, b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &a, 0);
		hk_json_value(&j, v);
		struct hk_jval *w = NULL;
		int r = hk_json_parse(a.data, a.len, &w, &err);
		if (r != 0)
			fprintf(stderr, "re-parse: %s\n", err.msg);
		FUZZ_CHECK(r == 0);
		hk_json_init(&j, &b, 0);
		hk_json_value(&j, w);
		FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		hk_jval_free(w);
		hk_jval_free(v);
		hk_buf_free(&a);
		hk_buf_free(&b);
	} else {
		FUZZ_CHECK(v == NULL);
	}
	free(t);
	return 0;
}
