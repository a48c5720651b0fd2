/* Audit records in the kernel's own text, fed to an evidence collector line by line as the
 * reader would (a test fixture shared by the unit tests of the verdict's readers). */
#ifndef HK_TEST_AUDIT_FIXTURE_H
#define HK_TEST_AUDIT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "core/evidence/evidence.h"
#include "harness.h"

/* Each line of `log`: "type=N audit(...): fields". */
static inline void feed_records(struct hk_evidence *ev, const char *log)
{
	const char *p = log;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *end;
		unsigned long type = strtoul(p + 5, &end, 10);
		const char *raw = end + 1;
		struct hk_error err = { 0 };
		if (hk_evidence_feed_raw(ev, (unsigned)type, raw, n - (size_t)(raw - p), &err) < 0)
			HK_FAIL_AT("fixture line rejected: %s", err.msg);
		p += n + (eol ? 1 : 0);
	}
}

#endif
