/* Policy files (docs/policy-format.md): harkaq-exec reads them inside the sandbox.  A parsed
 * policy must encode canonically and the encoding must parse back to the same encoding. */
#include <string.h>

#include "core/basic/buf.h"
#include "core/policy/policy.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	if (hk_policy_parse(t, size, "fuzz", &p, &err) == 0) {
		struct hk_buf a = HK_BUF_INIT, b = HK_BUF_INIT;
		hk_policy_encode(&p, &a);
		struct hk_policy q = HK_POLICY_INIT;
		int r = hk_policy_parse(a.data, a.len, "re-encoded", &q, &err);
		if (r != 0)
			fprintf(stderr, "re-parse: %s\n", err.msg);
		FUZZ_CHECK(r == 0);
		hk_policy_encode(&q, &b);
		FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		hk_policy_free(&q);
		hk_buf_free(&a);
		hk_buf_free(&b);
		hk_policy_free(&p);
	}
	free(t);
	return 0;
}
