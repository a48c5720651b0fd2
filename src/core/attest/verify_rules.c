/* The rules a Statement is verified by (verify_rules.h). */
#include "core/attest/verify_rules.h"

#include <string.h>

#include "core/basic/buf.h"
#include "core/evidence/evobj.h"
#include "core/formats/tree.h"

bool hk_attest_subject_name_ok(const char *n)
{
	if (!n || !*n || n[0] == '/')
		return false;
	for (const char *p = n; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (!hk_tree_valid_component(p, len))
			return false;
		p += len + (slash ? 1 : 0);
		if (slash && !*p)
			return false;
	}
	return true;
}

const char *hk_attest_statement_artifact(const struct hk_jval *st)
{
	const struct hk_jval *pred = hk_jobj_get(st, "predicate");
	const char *d = hk_jobj_str(hk_jobj_get(pred, "artifact"), "dirname");
	if (d)
		return d;
	const struct hk_jval *bp = hk_jobj_get(hk_jobj_get(pred, "runDetails"), "byproducts");
	for (size_t i = 0; bp && bp->type == HK_JARR && i < bp->len; i++) {
		const char *name = hk_jobj_str(&bp->items[i], "name");
		const char *uri = hk_jobj_str(&bp->items[i], "uri");
		static const char pfx[] = "harkaq:artifact:";
		if (name && uri && strcmp(name, "artifact") == 0 &&
		    strncmp(uri, pfx, sizeof(pfx) - 1) == 0)
			return uri + sizeof(pfx) - 1;
	}
	return NULL;
}

int hk_attest_check_embedded_evidence(const struct hk_jval *st, struct hk_error *err)
{
	const struct hk_jval *phases = hk_jobj_get(hk_jobj_get(st, "predicate"), "phases");
	for (size_t i = 0; phases && phases->type == HK_JARR && i < phases->len; i++) {
		const struct hk_jval *p = &phases->items[i];
		const struct hk_jval *ev = hk_jobj_get(p, "evidence");
		const char *name = hk_jobj_str(p, "phase");
		if (!ev || ev->type == HK_JNULL)
			continue;
		struct hk_buf bytes = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &bytes, 0);
		hk_json_value(&j, ev);
		int rc = hk_evobj_check(bytes.data, bytes.len, hk_jobj_str(p, "evidenceId"), NULL, err);
		hk_buf_free(&bytes);
		if (rc < 0) {
			hk_error_set_class(err, HK_ERROR_INPUT);
			return hk_wrap(err, "phase %s: the embedded evidence object", name ? name : "?");
		}
	}
	return 0;
}
