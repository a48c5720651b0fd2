#include "core/evidence/verdict.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/formats/abi_tier.h"
#include "core/formats/audit_record.h"
#include "core/basic/util.h"

/* How many entries per class the human summary lists before pointing at the JSON. */
#define SUMMARY_MAX_ITEMS 10

static const struct {
	const char *code;
	const char *description;
} reasons[HK_REASON_COUNT] = {
	[HK_REASON_NO_LANDLOCK] = { "no_landlock",
		"Landlock is not available: the build ran under the sandbox alone" },
	[HK_REASON_ABI_BELOW_7] = { "abi_below_7",
		"the Landlock ABI is below 7: the cage was enforced, but the kernel cannot report "
		"denials" },
	[HK_REASON_FORCED_ABI] = { "forced_abi",
		"the cage was told to behave as an older Landlock ABI than the kernel's" },
	[HK_REASON_CAGE_INCOMPLETE] = { "cage_incomplete",
		"a protection of the cage was withheld" },
	[HK_REASON_AUDIT_NOT_CONFIRMED] = { "audit_not_confirmed",
		"audit could not be confirmed enabled, so the kernel may have written no record" },
	[HK_REASON_READER_FAILED] = { "reader_failed",
		"the audit reader failed" },
	[HK_REASON_CANARY_OPENED] = { "canary_opened",
		"the canary could be opened: the policy grants what it must deny" },
	[HK_REASON_CANARY_AMBIGUOUS] = { "canary_ambiguous",
		"the canary was denied in more than one domain, so records cannot be attributed" },
	[HK_REASON_CANARY_NOT_SEEN] = { "canary_not_seen",
		"the canary's denial never reached the reader" },
	[HK_REASON_NO_DEALLOCATION] = { "no_deallocation",
		"the domain's deallocation record, which carries the kernel's denial count, never "
		"arrived" },
	[HK_REASON_RECORDS_LOST] = { "records_lost",
		"the records received do not match the kernel's denial count" },
	[HK_REASON_KERNEL_LOST_COUNTER_ROSE] = { "kernel_lost_counter_rose",
		"the audit lost counter changed during the run: the kernel dropped records" },
	[HK_REASON_RECEIVE_OVERRUN] = { "receive_overrun",
		"the reader's socket overflowed (ENOBUFS): records were dropped before reaching it" },
	[HK_REASON_TIMED_OUT] = { "timed_out",
		"the run was killed at its time limit: the build did not finish, so its closure was "
		"not exercised" },
	[HK_REASON_NO_CANARY_NONCE] = { "no_canary_nonce",
		"the canary's nonce could not be drawn, so the phase was not run: a canary at a path "
		"the build could know in advance proves nothing" },
};

const char *hk_reason_code(enum hk_reason r)
{
	return (unsigned)r < HK_REASON_COUNT ? reasons[r].code : NULL;
}

const char *hk_reason_description(enum hk_reason r)
{
	return (unsigned)r < HK_REASON_COUNT ? reasons[r].description : NULL;
}

const char *hk_verdict_state_name(enum hk_verdict_state s)
{
	switch (s) {
	case HK_HERMETIC:
		return "Hermetic";
	case HK_IMPURE:
		return "Impure";
	case HK_NOEVIDENCE:
		return "NoEvidence";
	}
	return "?";
}

const char *hk_denial_class_name(enum hk_denial_class c)
{
	return c == HK_DENIAL_EXPECTED ? "expected" : "debt";
}

/* ---- human escaping ---- */

/* Length of the valid UTF-8 sequence at p (2..4), or 0; decodes into *cp. */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		c = p[0] & 0x1f;
		min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		c = p[0] & 0x0f;
		min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		c = p[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Characters that are valid but invisible or reorder text: a path must not be able to hide
 * or disguise itself on a terminal. */
static bool is_deceptive(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb);
}

void hk_escape_human(const void *p, size_t n, struct hk_buf *out)
{
	const unsigned char *s = p;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c == '\\') {
			hk_buf_puts(out, "\\\\");
			i++;
			continue;
		}
		if (c >= 0x20 && c < 0x7f) {
			hk_buf_putc(out, (char)c);
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = c >= 0x80 ? utf8_seq(s + i, n - i, &cp) : 0;
		if (len && !is_deceptive(cp)) {
			hk_buf_append(out, s + i, len);
			i += len;
			continue;
		}
		/* A rejected sequence is escaped one byte at a time. */
		hk_buf_printf(out, "\\x%02X", c);
		i++;
	}
}

/* ---- denials: deduplicated by (object, blockers), first-seen order ---- */

static char *dup_opt(const char *p, size_t n)
{
	return p ? hk_xmemdupz(p, n) : NULL;
}

/* The object a record names: its path, or for signal/ptrace records the target's comm. */
static void record_object(const struct hk_landlock_access *a, const char **p, size_t *n, char *tag)
{
	if (a->has_path) {
		*tag = 'P';
		*p = a->path;
		*n = a->path_len;
	} else if (a->ocomm) {
		*tag = 'O';
		*p = a->ocomm;
		*n = a->ocomm_len;
	} else {
		*tag = 'N';
		*p = "";
		*n = 0;
	}
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t record_key_hash(const struct hk_landlock_access *a)
{
	const char *obj;
	size_t n;
	char tag;
	record_object(a, &obj, &n, &tag);
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, &tag, 1);
	h = fnv1a(h, obj, n);
	h = fnv1a(h, "\0", 1);
	return fnv1a(h, a->blockers, strlen(a->blockers));
}

static bool denial_matches(const struct hk_denial *d, const struct hk_landlock_access *a)
{
	if (strcmp(d->blockers, a->blockers) != 0 || d->has_path != a->has_path)
		return false;
	if (a->has_path)
		return d->path_len == a->path_len && memcmp(d->path, a->path, a->path_len) == 0;
	if (!d->ocomm != !a->ocomm)
		return false;
	return !a->ocomm ||
	       (d->ocomm_len == a->ocomm_len && memcmp(d->ocomm, a->ocomm, a->ocomm_len) == 0);
}

static enum hk_denial_class classify(const struct hk_policy *policy,
				     const struct hk_landlock_access *a)
{
	/* Expectations name filesystem paths; a path with a NUL (an abstract socket) or a
	 * denial without a path can never be expected. */
	if (!policy || !a->has_path || memchr(a->path, '\0', a->path_len))
		return HK_DENIAL_DEBT;
	return hk_policy_expects(policy, a->path) ? HK_DENIAL_EXPECTED : HK_DENIAL_DEBT;
}

static void collect_denials(struct hk_verdict *v, const struct hk_evidence *ev,
			    const struct hk_policy *policy)
{
	size_t n = ev->n_records;
	if (n == 0)
		return;
	size_t slots = 16;
	while (slots < 2 * n)
		slots *= 2;
	size_t *table = hk_xcalloc(slots, sizeof(*table));   /* denial index + 1; 0 = empty */
	v->denials = hk_xcalloc(n, sizeof(*v->denials));

	for (size_t i = 0; i < n; i++) {
		const struct hk_evidence_record *r = &ev->records[i];
		const struct hk_landlock_access *a = &r->access;
		if (r->is_canary)
			continue;
		size_t s = (size_t)record_key_hash(a) & (slots - 1);
		struct hk_denial *d = NULL;
		while (table[s]) {
			struct hk_denial *cand = &v->denials[table[s] - 1];
			if (denial_matches(cand, a)) {
				d = cand;
				break;
			}
			s = (s + 1) & (slots - 1);
		}
		if (d) {
			d->count++;
			continue;
		}
		d = &v->denials[v->n_denials++];
		table[s] = v->n_denials;
		d->cls = classify(policy, a);
		d->blockers = hk_xstrdup(a->blockers);
		d->has_path = a->has_path;
		d->path = dup_opt(a->path, a->path_len);
		d->path_len = a->path_len;
		d->dev = dup_opt(a->dev, a->dev_len);
		d->dev_len = a->dev_len;
		d->has_ino = a->has_ino;
		d->ino = a->ino;
		d->has_opid = a->has_opid;
		d->opid = a->opid;
		d->ocomm = dup_opt(a->ocomm, a->ocomm_len);
		d->ocomm_len = a->ocomm_len;
		d->exe = dup_opt(r->exe, r->exe_len);
		d->exe_len = r->exe_len;
		d->comm = dup_opt(r->comm, r->comm_len);
		d->comm_len = r->comm_len;
		d->count = 1;
		if (d->cls == HK_DENIAL_DEBT)
			v->n_debt++;
		else
			v->n_expected++;
	}
	free(table);
}

/* ---- reasons ---- */

static void add_reason(struct hk_verdict *v, enum hk_reason code, char *message)
{
	v->reasons = hk_xrealloc(v->reasons, (v->n_reasons + 1) * sizeof(*v->reasons));
	v->reasons[v->n_reasons].code = code;
	v->reasons[v->n_reasons].message = message;
	v->n_reasons++;
}

static char *escaped(const char *p, size_t n)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_escape_human(p, n, &b);
	return hk_buf_steal(&b);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The domain's own accounting is complete: its canary was seen (so its id is known, and in
 * one domain only), its deallocation record brought the kernel's count of its denials, and
 * exactly that many records of it arrived.  denials=N counts every denial of the domain,
 * logged or not, dropped or not (kernel-facts.md §3), and a record names its domain, whose id
 * is never reused: so received == N means that no record of this domain was lost, wherever
 * else the audit stream lost records.  Records of the build are all records of this domain,
 * because the build cannot make a domain of its own (the seccomp filter refuses
 * landlock_restrict_self: docs/cage.md), which is where a denial would be charged otherwise.
 * docs/verdict.md, "Loss", says why this is sound. */
bool hk_verdict_count_complete(const struct hk_evidence *ev)
{
	return ev && ev->canary_seen && !ev->canary_conflict && ev->dealloc_seen &&
	       (uint64_t)ev->n_records == ev->kernel_denials;
}

static void compute_reasons(struct hk_verdict *v, const struct hk_verdict_input *in)
{
	const struct hk_evidence *ev = in->evidence;

	if (in->abi <= 0)
		add_reason(v, HK_REASON_NO_LANDLOCK, hk_xstrdup(
			"no Landlock: the kernel has no Landlock (or it is disabled at boot), so the "
			"build ran under the sandbox alone, uncaged and unwitnessed"));
	else if (hk_tier_of_abi(in->abi) == HK_TIER_NONE)
		/* harkaq-exec's tier none (design.md §3.2): below ABI 3 it applies no Landlock at all,
		 * so "enforced" would be a false statement (found by tests/integration/hostile.sh). */
		add_reason(v, HK_REASON_ABI_BELOW_7, hk_xasprintf(
			"Landlock ABI %d is below 3: the cage applied no Landlock (tier none), so the "
			"build ran under the sandbox and seccomp alone, and nothing reports denials",
			in->abi));
	else if (hk_tier_of_abi(in->abi) == HK_TIER_ENFORCE)
		add_reason(v, HK_REASON_ABI_BELOW_7, hk_xasprintf(
			"Landlock ABI %d is below 7: the cage was enforced, but this kernel cannot "
			"report denials", in->abi));
	if (in->abi > 0 && in->kernel_abi > in->abi)
		add_reason(v, HK_REASON_FORCED_ABI, hk_xasprintf(
			"forced ABI: the cage was told to behave as Landlock ABI %d on a kernel with "
			"ABI %d (a test setting, not a certificate)", in->abi, in->kernel_abi));
	if (in->cage_incomplete)
		add_reason(v, HK_REASON_CAGE_INCOMPLETE, hk_xasprintf(
			"cage incomplete: %s",
			in->cage_incomplete_detail ? in->cage_incomplete_detail
						   : "a protection of the cage was withheld"));
	if (!in->audit_confirmed)
		add_reason(v, HK_REASON_AUDIT_NOT_CONFIRMED, hk_xstrdup(
			"audit not confirmed: the reader could not confirm audit enabled=1, so the "
			"kernel may have written no record"));
	if (in->reader_failed)
		add_reason(v, HK_REASON_READER_FAILED, hk_xasprintf(
			"reader failed: %s", in->reader_error ? in->reader_error
							      : "the audit reader stopped"));
	else if (!ev && v->n_reasons == 0)
		add_reason(v, HK_REASON_READER_FAILED, hk_xstrdup(
			"reader failed: no audit records were collected for this run"));
	if (in->timed_out)
		add_reason(v, HK_REASON_TIMED_OUT, hk_xstrdup(
			"timed out: the run was killed at its time limit, so what it would have read "
			"afterwards is unknown; the records it did leave are listed"));
	if (in->canary_opened) {
		char *c = ev ? escaped(ev->canary_path, ev->canary_len) : hk_xstrdup("the canary");
		add_reason(v, HK_REASON_CANARY_OPENED, hk_xasprintf(
			"canary opened: %s was readable inside the cage, so the policy grants what it "
			"must deny; the build was not run", c));
		free(c);
	}
	if (ev) {
		char *c = escaped(ev->canary_path, ev->canary_len);
		if (ev->canary_conflict)
			add_reason(v, HK_REASON_CANARY_AMBIGUOUS, hk_xasprintf(
				"canary ambiguous: %s was denied in domain %" PRIx64 " and in domain %"
				PRIx64 ", so records cannot be attributed to this run", c, ev->domain,
				ev->conflict_domain));
		if (!ev->canary_seen) {
			size_t others = ev->n_records + ev->n_pending_domains + ev->n_foreign;
			if (others)
				add_reason(v, HK_REASON_CANARY_NOT_SEEN, hk_xasprintf(
					"canary not seen: the kernel's logging did not reach the reader "
					"(no denial of %s arrived, though %zu other Landlock %s did)", c,
					others, plural(others, "record", "records")));
			else
				add_reason(v, HK_REASON_CANARY_NOT_SEEN, hk_xasprintf(
					"canary not seen: the kernel's logging did not reach the reader "
					"(no denial of %s arrived, nor any other Landlock record)", c));
		} else if (!ev->dealloc_seen) {
			add_reason(v, HK_REASON_NO_DEALLOCATION, hk_xasprintf(
				"no deallocation: domain %" PRIx64 " never reported its denial count "
				"(its last process may still be alive, or the record was lost), so loss "
				"cannot be excluded", ev->domain));
		} else if ((uint64_t)ev->n_records != ev->kernel_denials) {
			struct hk_buf m = HK_BUF_INIT;
			/* More records than denials cannot come from the kernel of one domain (a
			 * duplicating reader?): still a count that does not check out. */
			hk_buf_printf(&m, "%s: the kernel counted %" PRIu64 " %s in domain %"
				      PRIx64 ", the reader received %zu %s",
				      (uint64_t)ev->n_records < ev->kernel_denials
					      ? "records lost" : "record count mismatch",
				      ev->kernel_denials, plural(ev->kernel_denials, "denial", "denials"),
				      ev->domain, ev->n_records,
				      plural(ev->n_records, "record", "records"));
			if (ev->n_malformed)
				hk_buf_printf(&m, " (%zu unparsable %s dropped)", ev->n_malformed,
					      plural(ev->n_malformed, "record was", "records were"));
			add_reason(v, HK_REASON_RECORDS_LOST, hk_buf_steal(&m));
		}
		free(c);
	}
	/* Loss elsewhere in the audit stream (the lost counter and the reader's overruns are
	 * global: any neighbour flooding denials moves them) withholds the verdict only when this
	 * domain's own count cannot rule out that the loss was its.  Otherwise it stands, and the
	 * counters stay in the verdict (kernel.lost_before, lost_after, enobufs). */
	if (v->count_complete)
		return;
	if (in->lost_after > in->lost_before)
		add_reason(v, HK_REASON_KERNEL_LOST_COUNTER_ROSE, hk_xasprintf(
			"kernel lost counter rose: audit's lost counter went from %" PRIu64 " to %"
			PRIu64 " during the run, so the kernel dropped records", in->lost_before,
			in->lost_after));
	else if (in->lost_after < in->lost_before)
		add_reason(v, HK_REASON_KERNEL_LOST_COUNTER_ROSE, hk_xasprintf(
			"kernel lost counter reset: audit's lost counter went from %" PRIu64 " to %"
			PRIu64 " during the run, so loss cannot be excluded", in->lost_before,
			in->lost_after));
	if (in->enobufs)
		add_reason(v, HK_REASON_RECEIVE_OVERRUN, hk_xasprintf(
			"receive overrun: the reader's socket overflowed %" PRIu64 " %s (ENOBUFS), "
			"dropping records the kernel does not count as lost", in->enobufs,
			plural(in->enobufs, "time", "times")));
}

/* What the verdict copies of the run whatever its evidence: its ABI and what it ran. */
static void verdict_identity(const struct hk_verdict_input *in, struct hk_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->abi = in->abi > 0 ? in->abi : 0;
	v->kernel_abi = in->kernel_abi > 0 ? in->kernel_abi : 0;
	v->policy_id = in->policy_id ? hk_xstrdup(in->policy_id) : NULL;
	v->recipe_hash = in->recipe_hash ? hk_xstrdup(in->recipe_hash) : NULL;
	v->artifact_hash = in->artifact_hash ? hk_xstrdup(in->artifact_hash) : NULL;
	v->phase = in->phase ? hk_xstrdup(in->phase) : NULL;
	v->deps_sealed = in->deps_sealed ? hk_xstrdup(in->deps_sealed) : NULL;
}

void hk_verdict_no_canary_nonce(const struct hk_verdict_input *in, const char *detail,
				struct hk_verdict *v)
{
	verdict_identity(in, v);
	add_reason(v, HK_REASON_NO_CANARY_NONCE, hk_xasprintf(
		"no canary nonce: %s; the phase was not run, since a canary at a path the build "
		"could know in advance proves nothing", detail ? detail : "the random source failed"));
	v->state = HK_NOEVIDENCE;
}

void hk_verdict_compute(const struct hk_verdict_input *in, struct hk_verdict *v)
{
	const struct hk_evidence *ev = in->evidence;

	verdict_identity(in, v);
	v->lost_before = in->lost_before;
	v->lost_after = in->lost_after;
	v->enobufs = in->enobufs;

	if (ev) {
		v->canary_path = hk_xmemdupz(ev->canary_path, ev->canary_len);
		v->canary_seen = hk_evidence_canary_seen(ev);
		v->domain = hk_evidence_domain(ev);
		v->dealloc_seen = hk_evidence_dealloc_seen(ev);
		v->kernel_denials = hk_evidence_kernel_denials(ev);
		v->records_received = hk_evidence_records_received(ev);
		v->canary_records = hk_evidence_canary_records(ev);
		v->count_complete = hk_verdict_count_complete(ev);
		/* Before the canary, the buffered records belong to nobody yet: no denials. */
		if (v->canary_seen)
			collect_denials(v, ev, in->policy);
	}

	compute_reasons(v, in);
	if (v->n_reasons)
		v->state = HK_NOEVIDENCE;
	else if (v->n_debt)
		v->state = HK_IMPURE;
	else
		v->state = HK_HERMETIC;
}

void hk_verdict_free(struct hk_verdict *v)
{
	for (size_t i = 0; i < v->n_reasons; i++)
		free(v->reasons[i].message);
	free(v->reasons);
	for (size_t i = 0; i < v->n_denials; i++) {
		struct hk_denial *d = &v->denials[i];
		free(d->blockers);
		free(d->path);
		free(d->dev);
		free(d->ocomm);
		free(d->exe);
		free(d->comm);
	}
	free(v->denials);
	free(v->policy_id);
	free(v->recipe_hash);
	free(v->artifact_hash);
	free(v->phase);
	free(v->deps_sealed);
	free(v->base.id);
	free(v->base.name);
	free(v->base.view);
	free(v->canary_path);
	memset(v, 0, sizeof(*v));
}

const char *hk_deps_sealed_word(size_t sealed, size_t total)
{
	if (total == 0)
		return NULL;
	return sealed == total ? "all" : sealed ? "some" : "none";
}

void hk_verdict_set_deps_sealed(struct hk_verdict *v, const char *word)
{
	free(v->deps_sealed);
	v->deps_sealed = word ? hk_xstrdup(word) : NULL;
}

void hk_verdict_set_base(struct hk_verdict *v, const struct hk_verdict_base *base)
{
	free(v->base.id);
	free(v->base.name);
	free(v->base.view);
	v->base = (struct hk_verdict_base){
		.id = base->id ? hk_xstrdup(base->id) : NULL,
		.name = base->name ? hk_xstrdup(base->name) : NULL,
		.pinned = base->pinned,
		.packages = base->packages,
		.view = base->view ? hk_xstrdup(base->view) : NULL,
	};
}

bool hk_verdict_has_reason(const struct hk_verdict *v, enum hk_reason r)
{
	for (size_t i = 0; i < v->n_reasons; i++)
		if (v->reasons[i].code == r)
			return true;
	return false;
}

/* ---- JSON ---- */

static void json_opt_bytes(struct hk_json *j, const char *key, const char *p, size_t n)
{
	hk_json_key(j, key);
	if (p)
		hk_json_bytes(j, p, n);
	else
		hk_json_null(j);
}

static void json_domain(struct hk_json *j, bool known, uint64_t domain)
{
	if (!known) {
		hk_json_null(j);
		return;
	}
	char hex[17];
	snprintf(hex, sizeof(hex), "%" PRIx64, domain);
	hk_json_str(j, hex);
}

void hk_verdict_reasons_json(const struct hk_verdict *v, struct hk_json *j)
{
	hk_json_arr_begin(j);
	for (size_t i = 0; i < v->n_reasons; i++) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "code", hk_reason_code(v->reasons[i].code));
		hk_json_kv_str(j, "message", v->reasons[i].message);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

void hk_verdict_json(const struct hk_verdict *v, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_verdict_json_members(v, j);
	hk_json_obj_end(j);
}

void hk_verdict_json_members(const struct hk_verdict *v, struct hk_json *j)
{
	hk_json_kv_str(j, "kind", "harkaq.verdict.v1");
	hk_json_kv_str(j, "state", hk_verdict_state_name(v->state));

	hk_json_key(j, "reasons");
	hk_verdict_reasons_json(v, j);

	hk_json_key(j, "abi");
	hk_json_int(j, v->abi);
	hk_json_key(j, "kernel_abi");
	hk_json_int(j, v->kernel_abi);
	hk_json_kv_str(j, "policy_id", v->policy_id);
	hk_json_kv_str(j, "recipe_hash", v->recipe_hash);
	hk_json_kv_str(j, "artifact_hash", v->artifact_hash);
	hk_json_kv_str(j, "phase", v->phase);
	hk_json_kv_str(j, "deps_sealed", v->deps_sealed);

	hk_json_key(j, "base");
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "id", v->base.id);
	hk_json_kv_str(j, "name", v->base.name);
	hk_json_kv_bool(j, "pinned", v->base.pinned);
	hk_json_kv_uint(j, "packages", v->base.packages);
	hk_json_kv_str(j, "view", v->base.view);
	hk_json_obj_end(j);

	hk_json_key(j, "canary");
	hk_json_obj_begin(j);
	json_opt_bytes(j, "path", v->canary_path, v->canary_path ? strlen(v->canary_path) : 0);
	hk_json_key(j, "seen");
	hk_json_bool(j, v->canary_seen);
	hk_json_key(j, "domain");
	json_domain(j, v->canary_seen, v->domain);
	hk_json_obj_end(j);

	hk_json_key(j, "kernel");
	hk_json_obj_begin(j);
	hk_json_key(j, "denials");
	if (v->dealloc_seen)
		hk_json_uint(j, v->kernel_denials);
	else
		hk_json_null(j);
	hk_json_key(j, "records_received");
	hk_json_uint(j, v->records_received);
	hk_json_key(j, "canary_records");
	hk_json_uint(j, v->canary_records);
	hk_json_key(j, "lost_before");
	hk_json_uint(j, v->lost_before);
	hk_json_key(j, "lost_after");
	hk_json_uint(j, v->lost_after);
	hk_json_key(j, "enobufs");
	hk_json_uint(j, v->enobufs);
	hk_json_obj_end(j);

	hk_json_key(j, "denials");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < v->n_denials; i++) {
		const struct hk_denial *d = &v->denials[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "class", hk_denial_class_name(d->cls));
		hk_json_kv_str(j, "blockers", d->blockers);
		json_opt_bytes(j, "path", d->path, d->path_len);
		json_opt_bytes(j, "dev", d->dev, d->dev_len);
		hk_json_key(j, "ino");
		if (d->has_ino)
			hk_json_uint(j, d->ino);
		else
			hk_json_null(j);
		hk_json_key(j, "opid");
		if (d->has_opid)
			hk_json_int(j, d->opid);
		else
			hk_json_null(j);
		json_opt_bytes(j, "ocomm", d->ocomm, d->ocomm_len);
		json_opt_bytes(j, "exe", d->exe, d->exe_len);
		json_opt_bytes(j, "comm", d->comm, d->comm_len);
		hk_json_key(j, "count");
		hk_json_uint(j, d->count);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

/* ---- human summary ---- */

bool hk_denial_same_path(const struct hk_denial *a, const struct hk_denial *b)
{
	return a->has_path && b->has_path && a->path_len == b->path_len &&
	       memcmp(a->path, b->path, a->path_len) == 0;
}

/* Whether two denials are one item of the summary: the same class and the same path. */
static bool same_item(const struct hk_denial *d, const struct hk_denial *e)
{
	return d->cls == e->cls && hk_denial_same_path(d, e);
}

/* Whether denial `i` joins an earlier one. */
static bool summary_merged(const struct hk_verdict *v, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (same_item(&v->denials[k], &v->denials[i]))
			return true;
	return false;
}

/* The items of class `cls`: its paths. */
static size_t summary_count(const struct hk_verdict *v, enum hk_denial_class cls)
{
	size_t n = 0;
	for (size_t i = 0; i < v->n_denials; i++)
		n += v->denials[i].cls == cls && !summary_merged(v, i);
	return n;
}

/* Denial `i` and the later denials of its class on the same path, as one item. */
static void summary_item(const struct hk_verdict *v, size_t i, struct hk_buf *out)
{
	const struct hk_denial *d = &v->denials[i];
	struct hk_buf rights = HK_BUF_INIT;
	uint64_t count = 0;
	for (size_t k = i; k < v->n_denials; k++) {
		const struct hk_denial *e = &v->denials[k];
		if (k == i || same_item(d, e)) {
			hk_blockers_union(&rights, e->blockers);
			count += e->count;
		}
	}
	if (d->has_path)
		hk_escape_human(d->path, d->path_len, out);
	else if (d->has_opid || d->ocomm) {
		hk_buf_puts(out, "process");
		if (d->has_opid)
			hk_buf_printf(out, " %" PRId64, d->opid);
		if (d->ocomm) {
			hk_buf_puts(out, " (");
			hk_escape_human(d->ocomm, d->ocomm_len, out);
			hk_buf_putc(out, ')');
		}
	} else {
		hk_buf_puts(out, "(no path)");
	}
	hk_buf_printf(out, " [%s]", hk_buf_str(&rights));
	hk_buf_free(&rights);
	/* comm is what a person recognises ("cat"); exe when the kernel gave no comm. */
	if (d->comm || d->exe) {
		hk_buf_puts(out, " by ");
		if (d->comm)
			hk_escape_human(d->comm, d->comm_len, out);
		else
			hk_escape_human(d->exe, d->exe_len, out);
	}
	if (count > 1)
		hk_buf_printf(out, " x%" PRIu64, count);
}

/* "<label> (N): first item", then one line per further item, indented by four spaces; N
 * counts paths. */
static void summary_list(const struct hk_verdict *v, enum hk_denial_class cls, const char *label,
			 struct hk_buf *out)
{
	size_t total = summary_count(v, cls), shown = 0;
	hk_buf_printf(out, "%s (%zu):", label, total);
	for (size_t i = 0; i < v->n_denials; i++) {
		if (v->denials[i].cls != cls || summary_merged(v, i))
			continue;
		if (shown == SUMMARY_MAX_ITEMS) {
			hk_buf_printf(out, "\n    ... and %zu more (the JSON verdict lists them all)",
				      total - shown);
			break;
		}
		hk_buf_puts(out, shown ? "\n    " : " ");
		summary_item(v, i, out);
		shown++;
	}
	hk_buf_putc(out, '\n');
}

/* The global loss a verdict stood through (hk_verdict_count_complete), said, never hidden. */
static void summary_global_loss(const struct hk_verdict *v, struct hk_buf *out)
{
	if (v->state == HK_NOEVIDENCE)
		return;
	if (v->lost_after != v->lost_before)
		hk_buf_printf(out, "  note: audit's lost counter went from %" PRIu64 " to %" PRIu64
			      " during the run, none of it this domain's (its %" PRIu64 " %s all "
			      "arrived)\n", v->lost_before, v->lost_after, v->kernel_denials,
			      plural(v->kernel_denials, "denial", "denials"));
	if (v->enobufs)
		hk_buf_printf(out, "  note: the reader's socket overflowed %" PRIu64 " %s during the "
			      "run, losing none of this domain's records (its %" PRIu64 " %s all "
			      "arrived)\n", v->enobufs, plural(v->enobufs, "time", "times"),
			      v->kernel_denials, plural(v->kernel_denials, "denial", "denials"));
}

void hk_verdict_summary(const struct hk_verdict *v, struct hk_buf *out)
{
	switch (v->state) {
	case HK_HERMETIC:
		hk_buf_printf(out, "Hermetic  (canary seen, kernel counted %" PRIu64 " %s = %" PRIu64
			      " %s; ", v->kernel_denials, plural(v->kernel_denials, "denial",
								 "denials"),
			      v->records_received, plural(v->records_received, "record", "records"));
		if (v->n_expected == 0) {
			hk_buf_puts(out, "expected: none)\n");
		} else {
			/* The expected denials themselves go on the lines below. */
			hk_buf_printf(out, "expected: %zu)\n  ", summary_count(v, HK_DENIAL_EXPECTED));
			summary_list(v, HK_DENIAL_EXPECTED, "expected", out);
		}
		break;
	case HK_IMPURE:
		hk_buf_puts(out, "Impure  ");
		summary_list(v, HK_DENIAL_DEBT, "debt", out);
		if (v->n_expected) {
			hk_buf_puts(out, "  ");
			summary_list(v, HK_DENIAL_EXPECTED, "expected", out);
		}
		break;
	case HK_NOEVIDENCE:
		hk_buf_printf(out, "NoEvidence  %s\n", v->n_reasons ? v->reasons[0].message : "?");
		for (size_t i = 1; i < v->n_reasons; i++)
			hk_buf_printf(out, "  also: %s\n", v->reasons[i].message);
		if (v->n_debt) {
			hk_buf_puts(out, "  unvouched ");
			summary_list(v, HK_DENIAL_DEBT, "debt", out);
		}
		break;
	}
	summary_global_loss(v, out);
}
