/* Audit record text: the reader hands harkaq whatever the kernel multicasts, and the strings
 * in it (paths, exe, comm) are chosen by the build.  Every parser of one record, then the
 * evidence accumulator fed a whole sequence (one record per line; the first byte of a line
 * picks its type and serial), as cage.c feeds it. */
#include <string.h>

#include "core/formats/audit_record.h"
#include "core/evidence/evidence.h"
#include "fuzz/fuzz.h"

static void one_record(const char *t, size_t n)
{
	struct hk_error err;
	struct hk_audit_stamp st;
	size_t off = 0;
	if (hk_audit_split_prefix(t, n, &st, &off, &err) == 0)
		FUZZ_CHECK(off <= n);
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	if (hk_audit_parse_fields(t, n, &f, &err) == 0) {
		for (size_t i = 0; i < f.n; i++)
			FUZZ_CHECK(f.items[i].key && f.items[i].value);
		hk_audit_fields_free(&f);
	}
	struct hk_landlock_access a;
	if (hk_landlock_access_parse(t, n, &a, &err) == 0)
		hk_landlock_access_free(&a);
	struct hk_landlock_domain d;
	if (hk_landlock_domain_parse(t, n, &d, &err) == 0)
		hk_landlock_domain_free(&d);
	struct hk_audit_syscall s;
	if (hk_audit_syscall_parse(t, n, &s, &err) == 0)
		hk_audit_syscall_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Parsers take (pointer, length): a private copy without a terminator lets ASan see a
	 * read past the end. */
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	one_record(t, size);

	static const unsigned types[] = { 1423, 1424, 1300, 1327, 1320 };
	struct hk_evidence ev;
	hk_evidence_init(&ev, "/.harkaq/canary-0123456789abcdef");
	size_t i = 0;
	while (i < size) {
		size_t j = i;
		while (j < size && t[j] != '\n')
			j++;
		if (j > i) {
			unsigned char sel = (unsigned char)t[i];
			unsigned type = types[sel % 5];
			uint64_t serial = sel / 5;
			struct hk_error err;
			if (sel & 0x80)
				(void)hk_evidence_feed_raw(&ev, type, t + i + 1, j - i - 1, &err);
			else
				(void)hk_evidence_feed(&ev, type, serial, t + i + 1, j - i - 1, &err);
		}
		i = j + 1;
	}
	(void)hk_evidence_canary_seen(&ev);
	(void)hk_evidence_domain(&ev);
	(void)hk_evidence_kernel_denials(&ev);
	hk_evidence_free(&ev);
	free(t);
	return 0;
}
