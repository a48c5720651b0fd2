/* The one reader of an evidence object (docs/evidence-objects.md, "Form"): from a parsed,
 * checked object to struct hk_verdict, struct hk_diagnosis and the blind spots.
 *
 * Strict by design: it accepts exactly what the writers (hk_verdict_json_members,
 * hk_diagnosis_json, hk_evobj_encode) can produce.  Each nested object must hold the writer's
 * members in the writer's order, each value its type and one of its allowed values, and what
 * the structs cannot hold (a C string with U+0000, a domain spelt another way, a Hermetic
 * state beside debt) is refused rather than approximated: a consumer that renders a decoded
 * object renders what the bytes say, and hk_evobj_encode of the result gives the bytes back. */
#include "core/evidence/evobj.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/hex.h"
#include "core/store/store.h"
#include "core/basic/util.h"

/* Where the reader stands, for messages: "denials[2].count". */
struct reader {
	struct hk_error *err;
	char at[128];
};

static int refuse(struct reader *r, const char *member, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct reader *r, const char *member, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!member && !r->at[0])
		return hk_fail(r->err, EBADMSG, "the object %s", what);
	return hk_fail(r->err, EBADMSG, "member '%s%s%s' %s", r->at,
		       r->at[0] && member ? "." : "", member ? member : "", what);
}

/* Enters an object member or array item for messages; returns the previous length to leave. */
static size_t enter(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t enter(struct reader *r, const char *fmt, ...)
{
	size_t was = strlen(r->at);
	if (was)
		snprintf(r->at + was, sizeof(r->at) - was, ".");
	size_t now = strlen(r->at);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->at + now, sizeof(r->at) - now, fmt, ap);
	va_end(ap);
	return was;
}

static void leave(struct reader *r, size_t was)
{
	r->at[was] = '\0';
}

/* `v`, the value of member `name` (NULL: the object itself), is an object whose members are
 * exactly `keys`, in order. */
static int members(struct reader *r, const char *name, const struct hk_jval *v,
		   const char *const *keys, size_t n)
{
	if (!v || v->type != HK_JOBJ)
		return refuse(r, name, "is not an object");
	for (size_t i = 0; i < n; i++) {
		if (i >= v->len)
			return refuse(r, name, "lacks its member '%s'", keys[i]);
		if (strcmp(v->keys[i], keys[i]) != 0)
			return refuse(r, name, "has '%s' where '%s' belongs (members come in a "
				      "fixed order)", v->keys[i], keys[i]);
	}
	if (v->len != n)
		return refuse(r, name, "has a member '%s' the form does not know", v->keys[n]);
	return 0;
}

/* A text member (written with hk_json_kv_str): a string without U+0000, or null when
 * `nullable` (*out NULL). */
static int text(struct reader *r, const char *name, const struct hk_jval *v, bool nullable,
		char **out)
{
	*out = NULL;
	if (v->type == HK_JNULL) {
		if (nullable)
			return 0;
		return refuse(r, name, "is null, and must be a string");
	}
	if (v->type != HK_JSTR)
		return refuse(r, name, "is not a string%s", nullable ? " or null" : "");
	if (strlen(v->str) != v->len)
		return refuse(r, name, "holds U+0000, which no text of the writer holds");
	*out = hk_xstrdup(v->str);
	return 0;
}

/* A byte-string member (hk_json_bytes: a string or {"hex":…}), or null (*out NULL).  With
 * `c_string`, bytes the struct keeps as a C string: U+0000 is refused. */
static int bytes(struct reader *r, const char *name, const struct hk_jval *v, bool c_string,
		 char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (v->type == HK_JNULL)
		return 0;
	char *b = hk_jval_bytes(v, len);
	if (!b)
		return refuse(r, name, "is neither a string nor {\"hex\":…} in its canonical form, "
			      "nor null");
	if (c_string && strlen(b) != *len) {
		free(b);
		*len = 0;
		return refuse(r, name, "holds a NUL byte, which this member never holds");
	}
	*out = b;
	return 0;
}

static int boolean(struct reader *r, const char *name, const struct hk_jval *v, bool *out)
{
	if (v->type != HK_JBOOL)
		return refuse(r, name, "is not true or false");
	*out = v->b;
	return 0;
}

/* An integer in [lo, hi]. */
static int integer(struct reader *r, const char *name, const struct hk_jval *v, int64_t lo,
		   int64_t hi, int64_t *out)
{
	if (v->type != HK_JNUM || !v->is_int)
		return refuse(r, name, "is not an integer");
	if (v->i < lo || v->i > hi)
		return refuse(r, name, "is %lld, outside %lld..%lld", (long long)v->i,
			      (long long)lo, (long long)hi);
	*out = v->i;
	return 0;
}

static int count(struct reader *r, const char *name, const struct hk_jval *v, uint64_t *out)
{
	int64_t i = 0;
	int rc = integer(r, name, v, 0, INT64_MAX, &i);
	*out = rc == 0 ? (uint64_t)i : 0;
	return rc;
}

/* One of the names `name_of` gives for 0..n-1; its index in *out. */
static int one_of(struct reader *r, const char *name, const struct hk_jval *v,
		  const char *(*name_of)(int), int n, int *out)
{
	if (v->type == HK_JSTR)
		for (int k = 0; k < n; k++) {
			const char *s = name_of(k);
			if (s && strlen(s) == v->len && strcmp(s, v->str) == 0) {
				*out = k;
				return 0;
			}
		}
	struct hk_buf names = HK_BUF_INIT;
	for (int k = 0; k < n; k++)
		if (name_of(k))
			hk_buf_printf(&names, "%s%s", names.len ? ", " : "", name_of(k));
	int rc = refuse(r, name, "is not one of %s", hk_buf_str(&names));
	hk_buf_free(&names);
	return rc;
}

static const char *state_name(int k) { return hk_verdict_state_name((enum hk_verdict_state)k); }
static const char *reason_name(int k) { return hk_reason_code((enum hk_reason)k); }
static const char *denial_class_name(int k) { return hk_denial_class_name((enum hk_denial_class)k); }
static const char *diag_class_name(int k) { return hk_diag_class_name((enum hk_diag_class)k); }
static const char *how_name(int k) { return hk_provider_how_name((enum hk_provider_how)k); }
static const char *origin_name(int k) { return hk_artifact_origin_name((enum hk_artifact_origin)k); }
static const char *sealed_name(int k)
{
	static const char *const words[] = { "all", "some", "none" };
	return words[k];
}

/* The writers' members, in their order (docs/evidence-objects.md). */
static const char *const top_keys[] = {
	"kind", "state", "reasons", "abi", "kernel_abi", "policy_id", "recipe_hash",
	"artifact_hash", "phase", "deps_sealed", "base", "canary", "kernel", "denials",
	"exit_code", "diagnosis", "blind_spots",
};
enum {
	M_KIND, M_STATE, M_REASONS, M_ABI, M_KERNEL_ABI, M_POLICY_ID, M_RECIPE_HASH,
	M_ARTIFACT_HASH, M_PHASE, M_DEPS_SEALED, M_BASE, M_CANARY, M_KERNEL, M_DENIALS,
	M_EXIT_CODE, M_DIAGNOSIS, M_BLIND_SPOTS,
};
static const char *const reason_keys[] = { "code", "message" };
static const char *const base_keys[] = { "id", "name", "pinned", "packages", "view" };
static const char *const canary_keys[] = { "path", "seen", "domain" };
static const char *const kernel_keys[] = {
	"denials", "records_received", "canary_records", "lost_before", "lost_after", "enobufs",
};
static const char *const denial_keys[] = {
	"class", "blockers", "path", "dev", "ino", "opid", "ocomm", "exe", "comm", "count",
};
static const char *const item_keys[] = {
	"denial", "class", "reason", "line", "exe_declared_by", "providers",
};
static const char *const provider_keys[] = {
	"name", "version", "id", "how", "via", "spec", "origin",
};
static const char *const spot_keys[] = { "code", "text" };

static int array(struct reader *r, const char *name, const struct hk_jval *v)
{
	return v->type == HK_JARR ? 0 : refuse(r, name, "is not an array");
}

static int reasons(struct reader *r, const struct hk_jval *v, struct hk_verdict *out)
{
	int rc = array(r, "reasons", v);
	if (rc < 0)
		return rc;
	out->reasons = hk_xcalloc(v->len + 1, sizeof(*out->reasons));
	for (size_t i = 0; i < v->len && rc == 0; i++) {
		const struct hk_jval *o = &v->items[i];
		char name[48];
		snprintf(name, sizeof(name), "reasons[%zu]", i);
		if ((rc = members(r, name, o, reason_keys, HK_ARRAY_LEN(reason_keys))) < 0)
			break;
		size_t was = enter(r, "%s", name);
		int code = 0;
		struct hk_verdict_reason *re = &out->reasons[i];
		rc = one_of(r, "code", &o->items[0], reason_name, HK_REASON_COUNT, &code);
		if (rc == 0) {
			re->code = (enum hk_reason)code;
			out->n_reasons = i + 1;
			rc = text(r, "message", &o->items[1], true, &re->message);
		}
		leave(r, was);
	}
	return rc;
}

static int base(struct reader *r, const struct hk_jval *v, struct hk_verdict_base *out)
{
	int rc = members(r, "base", v, base_keys, HK_ARRAY_LEN(base_keys));
	if (rc < 0)
		return rc;
	size_t was = enter(r, "base");
	uint64_t packages = 0;
	if ((rc = text(r, "id", &v->items[0], true, &out->id)) == 0 &&
	    (rc = text(r, "name", &v->items[1], true, &out->name)) == 0 &&
	    (rc = boolean(r, "pinned", &v->items[2], &out->pinned)) == 0 &&
	    (rc = count(r, "packages", &v->items[3], &packages)) == 0 &&
	    (rc = text(r, "view", &v->items[4], true, &out->view)) == 0)
		out->packages = (size_t)packages;
	leave(r, was);
	return rc;
}

/* The domain as json_domain writes it: lowercase hex, no leading zero. */
static int domain(struct reader *r, const struct hk_jval *v, uint64_t *out)
{
	if (v->type != HK_JSTR || v->len == 0 || v->len > 16 || !hk_is_lower_hex(v->str, v->len) ||
	    (v->len > 1 && v->str[0] == '0'))
		return refuse(r, "domain", "is not the domain's id in lowercase hex without "
			      "leading zeros");
	*out = strtoull(v->str, NULL, 16);
	return 0;
}

static int canary(struct reader *r, const struct hk_jval *v, struct hk_verdict *out)
{
	int rc = members(r, "canary", v, canary_keys, HK_ARRAY_LEN(canary_keys));
	if (rc < 0)
		return rc;
	size_t was = enter(r, "canary");
	size_t len;
	if ((rc = bytes(r, "path", &v->items[0], true, &out->canary_path, &len)) == 0 &&
	    (rc = boolean(r, "seen", &v->items[1], &out->canary_seen)) == 0) {
		/* The writer names the domain exactly when the canary was seen. */
		if (out->canary_seen)
			rc = domain(r, &v->items[2], &out->domain);
		else if (v->items[2].type != HK_JNULL)
			rc = refuse(r, "domain", "is not null, though the canary was not seen");
	}
	leave(r, was);
	return rc;
}

static int kernel(struct reader *r, const struct hk_jval *v, struct hk_verdict *out)
{
	int rc = members(r, "kernel", v, kernel_keys, HK_ARRAY_LEN(kernel_keys));
	if (rc < 0)
		return rc;
	size_t was = enter(r, "kernel");
	out->dealloc_seen = v->items[0].type != HK_JNULL;
	if ((!out->dealloc_seen ||
	     (rc = count(r, "denials", &v->items[0], &out->kernel_denials)) == 0) &&
	    (rc = count(r, "records_received", &v->items[1], &out->records_received)) == 0 &&
	    (rc = count(r, "canary_records", &v->items[2], &out->canary_records)) == 0 &&
	    (rc = count(r, "lost_before", &v->items[3], &out->lost_before)) == 0 &&
	    (rc = count(r, "lost_after", &v->items[4], &out->lost_after)) == 0)
		rc = count(r, "enobufs", &v->items[5], &out->enobufs);
	leave(r, was);
	return rc;
}

static int denial(struct reader *r, const struct hk_jval *o, struct hk_denial *d)
{
	int cls = 0;
	int64_t opid = 0;
	int rc;
	if ((rc = one_of(r, "class", &o->items[0], denial_class_name, 2, &cls)) < 0)
		return rc;
	d->cls = (enum hk_denial_class)cls;
	if ((rc = text(r, "blockers", &o->items[1], true, &d->blockers)) < 0 ||
	    (rc = bytes(r, "path", &o->items[2], false, &d->path, &d->path_len)) < 0 ||
	    (rc = bytes(r, "dev", &o->items[3], false, &d->dev, &d->dev_len)) < 0)
		return rc;
	d->has_path = d->path != NULL;
	d->has_ino = o->items[4].type != HK_JNULL;
	if (d->has_ino && (rc = count(r, "ino", &o->items[4], &d->ino)) < 0)
		return rc;
	d->has_opid = o->items[5].type != HK_JNULL;
	if (d->has_opid && (rc = integer(r, "opid", &o->items[5], INT64_MIN, INT64_MAX, &opid)) < 0)
		return rc;
	d->opid = opid;
	if ((rc = bytes(r, "ocomm", &o->items[6], false, &d->ocomm, &d->ocomm_len)) < 0 ||
	    (rc = bytes(r, "exe", &o->items[7], false, &d->exe, &d->exe_len)) < 0 ||
	    (rc = bytes(r, "comm", &o->items[8], false, &d->comm, &d->comm_len)) < 0 ||
	    (rc = count(r, "count", &o->items[9], &d->count)) < 0)
		return rc;
	/* Every denial was recorded at least once: that is what made it one. */
	if (d->count == 0)
		return refuse(r, "count", "is 0: a denial is recorded at least once");
	return 0;
}

static int denials(struct reader *r, const struct hk_jval *v, struct hk_verdict *out)
{
	int rc = array(r, "denials", v);
	if (rc < 0)
		return rc;
	out->denials = hk_xcalloc(v->len + 1, sizeof(*out->denials));
	for (size_t i = 0; i < v->len && rc == 0; i++) {
		char name[48];
		snprintf(name, sizeof(name), "denials[%zu]", i);
		if ((rc = members(r, name, &v->items[i], denial_keys, HK_ARRAY_LEN(denial_keys))) < 0)
			break;
		out->n_denials = i + 1;
		size_t was = enter(r, "%s", name);
		rc = denial(r, &v->items[i], &out->denials[i]);
		leave(r, was);
		if (rc == 0 && out->denials[i].cls == HK_DENIAL_DEBT)
			out->n_debt++;
		else if (rc == 0)
			out->n_expected++;
	}
	return rc;
}

static int provider(struct reader *r, const struct hk_jval *o, struct hk_provider *p)
{
	int how = 0;
	size_t len;
	int rc;
	if ((rc = text(r, "name", &o->items[0], true, &p->name)) < 0 ||
	    (rc = text(r, "version", &o->items[1], true, &p->version)) < 0 ||
	    (rc = text(r, "id", &o->items[2], true, &p->id)) < 0 ||
	    (rc = one_of(r, "how", &o->items[3], how_name, 3, &how)) < 0 ||
	    (rc = bytes(r, "via", &o->items[4], true, &p->via, &len)) < 0 ||
	    (rc = text(r, "spec", &o->items[5], true, &p->spec)) < 0)
		return rc;
	p->how = (enum hk_provider_how)how;
	/* The origin is a static string of the store's names (core/store/store.h). */
	if (o->items[6].type == HK_JNULL)
		return 0;
	int origin = 0;
	if ((rc = one_of(r, "origin", &o->items[6], origin_name, HK_ORIGIN_STATE + 1, &origin)) < 0)
		return rc;
	p->origin = hk_artifact_origin_name((enum hk_artifact_origin)origin);
	return 0;
}

static int item(struct reader *r, const struct hk_jval *o, size_t i, const struct hk_verdict *v,
		struct hk_diag_item *it)
{
	int64_t index = 0;
	int cls = 0;
	int rc;
	if ((rc = integer(r, "denial", &o->items[0], 0, INT64_MAX, &index)) < 0)
		return rc;
	if ((uint64_t)index != i)
		return refuse(r, "denial", "is %lld: item %zu diagnoses denial %zu", (long long)index,
			      i, i);
	if ((rc = one_of(r, "class", &o->items[1], diag_class_name, HK_DIAG_POLICY_BUG + 1, &cls)) < 0)
		return rc;
	it->cls = (enum hk_diag_class)cls;
	/* Expected is the verdict's class, and the diagnosis keeps it (core/evidence/suggest.h). */
	if ((it->cls == HK_DIAG_EXPECTED) != (v->denials[i].cls == HK_DENIAL_EXPECTED))
		return refuse(r, "class", "is '%s' for a denial of class '%s'",
			      hk_diag_class_name(it->cls), hk_denial_class_name(v->denials[i].cls));
	if ((rc = text(r, "reason", &o->items[2], true, &it->reason)) < 0 ||
	    (rc = text(r, "line", &o->items[3], true, &it->line)) < 0 ||
	    (rc = text(r, "exe_declared_by", &o->items[4], true, &it->exe_declared_by)) < 0 ||
	    (rc = array(r, "providers", &o->items[5])) < 0)
		return rc;
	const struct hk_jval *ps = &o->items[5];
	it->providers = hk_xcalloc(ps->len + 1, sizeof(*it->providers));
	for (size_t k = 0; k < ps->len && rc == 0; k++) {
		char name[48];
		snprintf(name, sizeof(name), "providers[%zu]", k);
		if ((rc = members(r, name, &ps->items[k], provider_keys,
				  HK_ARRAY_LEN(provider_keys))) < 0)
			break;
		it->n_providers = k + 1;
		size_t was = enter(r, "%s", name);
		rc = provider(r, &ps->items[k], &it->providers[k]);
		leave(r, was);
	}
	return rc;
}

static int diagnosis(struct reader *r, const struct hk_jval *v, const struct hk_verdict *verdict,
		     struct hk_diagnosis *out)
{
	int rc = array(r, "diagnosis", v);
	if (rc < 0)
		return rc;
	if (v->len != verdict->n_denials)
		return refuse(r, "diagnosis", "has %zu items for %zu denials", v->len,
			      verdict->n_denials);
	out->items = hk_xcalloc(v->len + 1, sizeof(*out->items));
	for (size_t i = 0; i < v->len && rc == 0; i++) {
		char name[48];
		snprintf(name, sizeof(name), "diagnosis[%zu]", i);
		if ((rc = members(r, name, &v->items[i], item_keys, HK_ARRAY_LEN(item_keys))) < 0)
			break;
		out->n = i + 1;
		size_t was = enter(r, "%s", name);
		rc = item(r, &v->items[i], i, verdict, &out->items[i]);
		leave(r, was);
		if (rc < 0 || hk_diag_counted_before(out, verdict, i))
			continue;
		switch (out->items[i].cls) {
		case HK_DIAG_EXPECTED: out->n_expected++; break;
		case HK_DIAG_DECLARABLE: out->n_declarable++; break;
		case HK_DIAG_IRREDUCIBLE: out->n_irreducible++; break;
		case HK_DIAG_POLICY_BUG: out->n_policy_bug++; break;
		}
	}
	return rc;
}

/* The blind spots, as data.  The one that carries a number — how many directories the cage
 * collapsed — gives it back to the verdict (collapsed_dirs), where the writer took it from;
 * its text begins with that number. */
static int blind_spots(struct reader *r, const struct hk_jval *v, struct hk_evobj *out)
{
	int rc = array(r, "blind_spots", v);
	if (rc < 0)
		return rc;
	out->blind_spots = hk_xcalloc(v->len + 1, sizeof(*out->blind_spots));
	for (size_t i = 0; i < v->len && rc == 0; i++) {
		char name[48];
		snprintf(name, sizeof(name), "blind_spots[%zu]", i);
		if ((rc = members(r, name, &v->items[i], spot_keys, HK_ARRAY_LEN(spot_keys))) < 0)
			break;
		out->n_blind_spots = i + 1;
		struct hk_evobj_spot *s = &out->blind_spots[i];
		size_t was = enter(r, "%s", name);
		if ((rc = text(r, "code", &v->items[i].items[0], false, &s->code)) == 0)
			rc = text(r, "text", &v->items[i].items[1], false, &s->text);
		if (rc == 0 && strcmp(s->code, hk_blind_spot_collapsed_code) == 0) {
			char *end;
			unsigned long long n = strtoull(s->text, &end, 10);
			if (s->text[0] < '1' || s->text[0] > '9' || end == s->text || *end != ' ' ||
			    n > SIZE_MAX)
				rc = refuse(r, "text", "does not begin with the number of collapsed "
					    "directories");
			else
				out->verdict.collapsed_dirs = (size_t)n;
		}
		leave(r, was);
	}
	return rc;
}

/* The state follows from the reasons and the debt (core/evidence/verdict.h): an object that says
 * otherwise contradicts itself. */
static int state_agrees(struct reader *r, const struct hk_verdict *v)
{
	const char *why = NULL;
	if (v->state == HK_NOEVIDENCE && v->n_reasons == 0)
		why = "is NoEvidence without a reason";
	else if (v->state != HK_NOEVIDENCE && v->n_reasons > 0)
		why = "has reasons for NoEvidence";
	else if (v->state == HK_HERMETIC && v->n_debt > 0)
		why = "is Hermetic beside a debt denial";
	else if (v->state == HK_IMPURE && v->n_debt == 0)
		why = "is Impure without a debt denial";
	return why ? refuse(r, "state", "%s", why) : 0;
}

static int decode(struct reader *r, const struct hk_jval *ev, struct hk_evobj *out)
{
	struct hk_verdict *v = &out->verdict;
	int rc = members(r, NULL, ev, top_keys, HK_ARRAY_LEN(top_keys));
	if (rc < 0)
		return rc;
	const struct hk_jval *m = ev->items;
	if (m[M_KIND].type != HK_JSTR || m[M_KIND].len != strlen(HK_EVOBJ_KIND) ||
	    strcmp(m[M_KIND].str, HK_EVOBJ_KIND) != 0)
		return refuse(r, "kind", "is not \"%s\"", HK_EVOBJ_KIND);
	int state = 0, sealed = 0;
	int64_t abi = 0, kernel_abi = 0, exit_code = 0;
	if ((rc = one_of(r, "state", &m[M_STATE], state_name, HK_NOEVIDENCE + 1, &state)) < 0)
		return rc;
	v->state = (enum hk_verdict_state)state;
	if ((rc = reasons(r, &m[M_REASONS], v)) < 0 ||
	    (rc = integer(r, "abi", &m[M_ABI], 0, INT_MAX, &abi)) < 0 ||
	    (rc = integer(r, "kernel_abi", &m[M_KERNEL_ABI], 0, INT_MAX, &kernel_abi)) < 0 ||
	    (rc = text(r, "policy_id", &m[M_POLICY_ID], true, &v->policy_id)) < 0 ||
	    (rc = text(r, "recipe_hash", &m[M_RECIPE_HASH], true, &v->recipe_hash)) < 0 ||
	    (rc = text(r, "artifact_hash", &m[M_ARTIFACT_HASH], true, &v->artifact_hash)) < 0 ||
	    (rc = text(r, "phase", &m[M_PHASE], true, &v->phase)) < 0)
		return rc;
	v->abi = (int)abi;
	v->kernel_abi = (int)kernel_abi;
	if (m[M_DEPS_SEALED].type != HK_JNULL) {
		if ((rc = one_of(r, "deps_sealed", &m[M_DEPS_SEALED], sealed_name, 3, &sealed)) < 0)
			return rc;
		v->deps_sealed = hk_xstrdup(sealed_name(sealed));
	}
	if ((rc = base(r, &m[M_BASE], &v->base)) < 0 || (rc = canary(r, &m[M_CANARY], v)) < 0 ||
	    (rc = kernel(r, &m[M_KERNEL], v)) < 0 || (rc = denials(r, &m[M_DENIALS], v)) < 0 ||
	    (rc = state_agrees(r, v)) < 0)
		return rc;
	v->has_exit_code = m[M_EXIT_CODE].type != HK_JNULL;
	if (v->has_exit_code &&
	    (rc = integer(r, "exit_code", &m[M_EXIT_CODE], INT_MIN, INT_MAX, &exit_code)) < 0)
		return rc;
	v->exit_code = (int)exit_code;
	if ((rc = diagnosis(r, &m[M_DIAGNOSIS], v, &out->diag)) < 0)
		return rc;
	return blind_spots(r, &m[M_BLIND_SPOTS], out);
}

int hk_evobj_decode(const struct hk_jval *ev, struct hk_evobj *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct reader r = { .err = err };
	int rc = decode(&r, ev, out);
	if (rc < 0)
		hk_evobj_free(out);
	return rc;
}

int hk_evobj_decode_bytes(const void *bytes, size_t n, struct hk_evobj *out,
			  struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_jval *ev = NULL;
	int rc = hk_evobj_check(bytes, n, NULL, &ev, err);
	if (rc == 0)
		rc = hk_evobj_decode(ev, out, err);
	hk_jval_free(ev);
	return rc;
}

void hk_evobj_free(struct hk_evobj *o)
{
	hk_verdict_free(&o->verdict);
	hk_diagnosis_free(&o->diag);
	for (size_t i = 0; i < o->n_blind_spots; i++) {
		free(o->blind_spots[i].code);
		free(o->blind_spots[i].text);
	}
	free(o->blind_spots);
	memset(o, 0, sizeof(*o));
}
