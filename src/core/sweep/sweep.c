/* The sweep's pure part: items, outcome rules, shards, merge and summary (docs/sweep.md); the
 * builds' documents are read by sweep_read.c, the result document's codec is sweep_json.c, its
 * rendering for people src/engine/sweep/sweep_render.c.  No process, no file system: the orchestrator
 * passes text and a classifier in. */
#include "core/sweep/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/strset.h"
#include "core/sweep/sweep_internal.h"
#include "core/basic/util.h"

static const char *const outcome_names[HK_SWEEP_OUTCOME_COUNT] = {
	"hermetic", "declarable", "irreducible", "no_evidence", "failed",
	"missing_build_depends", "influence", "unattributed", "probes_only", "inert_probes",
	"fetch_failed", "timed_out", "not_built",
};
static const char *const outcome_labels[HK_SWEEP_OUTCOME_COUNT] = {
	"Hermetic", "only declarable debt", "irreducible debt", "no evidence", "failed",
	"missing Build-Depends", "undeclared influence", "unattributed denial", "probes only",
	"inert probes only", "fetch failed", "timed out", "not built (interrupted)",
};

const char *hk_sweep_outcome_name(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_names[o] : NULL;
}

const char *hk_sweep_outcome_label(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_labels[o] : NULL;
}

enum hk_sweep_outcome hk_sweep_outcome_of_dsc(enum hk_dsc_class c)
{
	switch (c) {
	case HK_DSC_FAILED: return HK_SWEEP_FAILED;
	case HK_DSC_NO_EVIDENCE: return HK_SWEEP_NOEVIDENCE;
	case HK_DSC_MISSING: return HK_SWEEP_MISSING;
	case HK_DSC_INFLUENCE: return HK_SWEEP_INFLUENCE;
	case HK_DSC_UNATTRIBUTED: return HK_SWEEP_UNATTRIBUTED;
	case HK_DSC_PROBES: return HK_SWEEP_PROBES;
	case HK_DSC_INERT_PROBES: return HK_SWEEP_INERT_PROBES;
	case HK_DSC_HERMETIC: return HK_SWEEP_HERMETIC;
	}
	return HK_SWEEP_FAILED;
}

bool hk_sweep_probe_class_of_name(const char *name, enum hk_probe_class *out)
{
	static const enum hk_probe_class all[] = { HK_PROBE_INERT, HK_PROBE_INFLUENCE,
						   HK_PROBE_UNDECIDED };
	for (size_t i = 0; name && i < HK_ARRAY_LEN(all); i++)
		if (strcmp(name, hk_probe_class_name(all[i])) == 0) {
			*out = all[i];
			return true;
		}
	return false;
}

bool hk_sweep_dsc_class_of_name(const char *name, enum hk_dsc_class *out)
{
	for (int c = HK_DSC_FAILED; name && c <= HK_DSC_HERMETIC; c++)
		if (strcmp(name, hk_dsc_class_name((enum hk_dsc_class)c)) == 0) {
			*out = (enum hk_dsc_class)c;
			return true;
		}
	return false;
}

void hk_sweep_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void hk_sweep_findings_free(struct hk_sweep_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].package);
		free(f[i].version);
		free(f[i].phase);
		free(f[i].path);
		free(f[i].exe);
		free(f[i].why);
		hk_sweep_strv_free(f[i].differences, f[i].n_listed);
	}
	free(f);
}

void hk_sweep_deb_free(struct hk_sweep_deb *d)
{
	if (!d)
		return;
	free(d->source);
	free(d->dsc_sha256);
	hk_sweep_findings_free(d->missing, d->n_missing);
	hk_sweep_findings_free(d->probes, d->n_probes);
	hk_sweep_strv_free(d->unopened, d->n_unopened);
	free(d->confirm);
	free(d->decide_not_run);
	free(d);
}

void hk_sweep_debts_free(struct hk_sweep_item *it)
{
	for (size_t i = 0; i < it->n_debts; i++) {
		free(it->debts[i].path);
		hk_sweep_strv_free(it->debts[i].providers, it->debts[i].n_providers);
		free(it->debts[i].exe);
	}
	free(it->debts);
	it->debts = NULL;
	it->n_debts = 0;
}

void hk_sweep_item_free(struct hk_sweep_item *it)
{
	if (!it)
		return;
	free(it->key);
	free(it->name);
	free(it->version);
	free(it->recipe_hash);
	free(it->policy_id);
	free(it->base_id);
	free(it->base_name);
	free(it->fail_code);
	free(it->reason);
	free(it->failed_phase);
	for (size_t i = 0; i < it->n_phases; i++) {
		free(it->phases[i].phase);
		free(it->phases[i].state);
		free(it->phases[i].reason);
		free(it->phases[i].evidence);
	}
	free(it->phases);
	hk_sweep_debts_free(it);
	hk_sweep_strv_free(it->policy_bugs, it->n_policy_bugs);
	hk_sweep_deb_free(it->deb);
	free(it->artifact);
	free(it->log);
	memset(it, 0, sizeof(*it));
}

void hk_sweep_item_fail(struct hk_sweep_item *it, const char *key, const char *code,
			const char *reason)
{
	if (key && it->key != key) {
		free(it->key);
		it->key = hk_xstrdup(key);
	}
	free(it->fail_code);
	free(it->reason);
	it->fail_code = hk_xstrdup(code);
	it->reason = hk_xstrdup(reason);
	it->outcome = hk_sweep_outcome_of(it);
}

void hk_sweep_item_without_result(struct hk_sweep_item *it, const struct hk_sweep_proc_end *end,
				  const char *why)
{
	char *reason;
	if (end->signaled)
		reason = hk_xasprintf("the build's process was killed by signal %d and left no "
				      "result%s%s", end->code, why ? ": " : "", why ? why : "");
	else
		reason = hk_xasprintf("the build's process exited with status %d and left no "
				      "result%s%s", end->code, why ? ": " : "", why ? why : "");
	hk_sweep_item_fail(it, NULL, end->signaled ? HK_SWEEP_FAIL_CRASH : HK_SWEEP_FAIL_SETUP,
			   reason);
	free(reason);
}

/* The rule (docs/sweep.md, "Outcome"), in order, after what the sweep itself saw of any item
 * (its limit per item ran out: timed out; its own interruption: not built):
 *  1. nothing ran (the recipe, its deps or its source stopped it)  -> failed
 *  2. a phase whose verdict is NoEvidence                          -> no evidence
 *     (the kernel cannot vouch that "only declarable" is all the debt there is)
 *  3. debt: irreducible if any path has no provider, else declarable — also when a phase
 *     then failed, since the denied access is the likely cause and the fix is the same
 *  4. a phase failed, or the build stopped (a set-up error, a phase the cage never
 *     started), without any debt                                   -> failed
 *  5. a phase without a verdict at all (built without the cage)    -> no evidence
 *  6. otherwise                                                    -> Hermetic */
static bool fail_is(const struct hk_sweep_item *it, const char *code)
{
	return it->fail_code && strcmp(it->fail_code, code) == 0;
}

/* A Debian source package (docs/sweep.md, "Debian source packages"): what the sweep saw
 * first, then the build's own class.
 *  1. the source or the closure's .debs could not be fetched       -> fetch failed
 *  2. the build's report gives the package's class                 -> that class
 *  3. no class: the build stopped before its phases, or left no report -> failed */
static enum hk_sweep_outcome deb_outcome(const struct hk_sweep_item *it)
{
	if (fail_is(it, HK_SWEEP_FAIL_FETCH))
		return HK_SWEEP_FETCH_FAILED;
	if (it->deb->has_class)
		return hk_sweep_outcome_of_dsc(it->deb->cls);
	return HK_SWEEP_FAILED;
}

/* Whether every phase is Hermetic, or Impure only through harkaq's own policy bugs (the
 * recipe's declarations suffice: the design's §4.10 counted such a gap as no debt).  A phase
 * without a verdict (built without the cage) is neither. */
static bool phases_clean(const struct hk_sweep_item *it)
{
	for (size_t i = 0; i < it->n_phases; i++) {
		const struct hk_sweep_phase *p = &it->phases[i];
		if (!p->state || (strcmp(p->state, "Hermetic") != 0 &&
				  !(strcmp(p->state, "Impure") == 0 && p->debt == 0 &&
				    p->policy_bug > 0)))
			return false;
	}
	return true;
}

enum hk_sweep_outcome hk_sweep_outcome_of(const struct hk_sweep_item *it)
{
	/* A build stopped by the sweep's limit measured nothing, whatever it had seen. */
	if (fail_is(it, HK_SWEEP_FAIL_TIMEOUT))
		return HK_SWEEP_TIMED_OUT;
	/* Nor did one the sweep's own stop cut short or kept from running: not built, rather
	 * than failed, since nothing says the item would fail (a run again builds it). */
	if (fail_is(it, HK_SWEEP_FAIL_INTERRUPTED))
		return HK_SWEEP_NOT_BUILT;
	if (it->deb)
		return deb_outcome(it);
	if (it->n_phases == 0)
		return HK_SWEEP_FAILED;
	for (size_t i = 0; i < it->n_phases; i++)
		if (it->phases[i].state && strcmp(it->phases[i].state, "NoEvidence") == 0)
			return HK_SWEEP_NOEVIDENCE;
	if (it->n_debts > 0) {
		for (size_t i = 0; i < it->n_debts; i++)
			if (it->debts[i].irreducible)
				return HK_SWEEP_IRREDUCIBLE;
		return HK_SWEEP_DECLARABLE;
	}
	if (it->fail_code || it->failed_phase)
		return HK_SWEEP_FAILED;
	return phases_clean(it) ? HK_SWEEP_HERMETIC : HK_SWEEP_NOEVIDENCE;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hk_sweep_classify(struct hk_sweep_item *items, size_t n, hk_sweep_classify_fn classify,
		       void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		struct hk_sweep_item *it = &items[i];
		for (size_t k = 0; k < it->n_debts; k++) {
			struct hk_sweep_debt *d = &it->debts[k];
			hk_sweep_strv_free(d->providers, d->n_providers);
			d->providers = NULL;
			d->n_providers = 0;
			if (d->path[0] == '/' && classify) {
				struct hk_sweep_class c = { 0 };
				classify(ctx, d->path, &c);
				d->providers = c.providers;
				d->n_providers = c.n_providers;
			}
			if (d->n_providers > 1)
				qsort(d->providers, d->n_providers, sizeof(char *), cmp_str_ptr);
			d->irreducible = d->n_providers == 0;
		}
		it->outcome = hk_sweep_outcome_of(it);
	}
}

/* ---- catalogue and shards ---- */

size_t hk_sweep_sort_keys(char **keys, size_t n)
{
	if (n == 0)
		return 0;
	qsort(keys, n, sizeof(char *), cmp_str_ptr);
	size_t w = 1;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(keys[i], keys[w - 1]) == 0) {
			free(keys[i]);
			continue;
		}
		keys[w++] = keys[i];
	}
	return w;
}

void hk_sweep_catalogue_id(const char *const *keys, size_t n, char out[HK_B3_ID_LEN])
{
	/* Each key with its terminating NUL: no two lists of keys give the same bytes. */
	struct hk_blake3 h;
	hk_blake3_init(&h);
	static const char tag[] = "harkaq-sweep-catalogue-v1";
	hk_blake3_update(&h, tag, sizeof(tag));
	for (size_t i = 0; i < n; i++)
		hk_blake3_update(&h, keys[i], strlen(keys[i]) + 1);
	uint8_t d[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, d, sizeof(d));
	memcpy(out, "b3:", 3);
	hk_hex(d, sizeof(d), out + 3);
}

int hk_sweep_parse_shard(const char *text, unsigned *index, unsigned *count,
			 struct hk_error *err)
{
	unsigned long i = 0, n = 0;
	const char *p = text;
	int digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 7) {
		i = i * 10 + (unsigned long)(*p++ - '0');
		digits++;
	}
	bool ok = digits > 0 && *p == '/';
	if (ok) {
		p++;
		digits = 0;
		while (*p >= '0' && *p <= '9' && digits < 7) {
			n = n * 10 + (unsigned long)(*p++ - '0');
			digits++;
		}
		ok = digits > 0 && *p == '\0';
	}
	if (!ok || n < 1 || n > 100000 || i < 1 || i > n)
		return hk_fail(err, EINVAL, "--shard wants I/N with 1 <= I <= N (e.g. 2/3), not '%s'",
			       text);
	*index = (unsigned)i;
	*count = (unsigned)n;
	return 0;
}

bool hk_sweep_in_shard(size_t position, unsigned index, unsigned count)
{
	return count == 0 || position % count == (size_t)(index - 1);
}

/* ---- documents ---- */

void hk_sweep_doc_free(struct hk_sweep_doc *d)
{
	for (size_t i = 0; i < d->n_items; i++)
		hk_sweep_item_free(&d->items[i]);
	free(d->items);
	free(d->store);
	memset(d, 0, sizeof(*d));
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct hk_sweep_item *)a)->key, ((const struct hk_sweep_item *)b)->key);
}

void hk_sweep_doc_sort(struct hk_sweep_doc *d)
{
	if (d->n_items > 1)
		qsort(d->items, d->n_items, sizeof(*d->items), cmp_item);
}

int hk_sweep_merge(struct hk_sweep_doc *parts, size_t n_parts, struct hk_sweep_doc *out,
		   struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (n_parts == 0)
		return hk_fail(err, EINVAL, "nothing to merge");
	const struct hk_sweep_doc *p0 = &parts[0];
	unsigned n = p0->shard_count;
	for (size_t i = 1; i < n_parts; i++) {
		if (strcmp(parts[i].catalogue_id, p0->catalogue_id) != 0)
			return hk_fail(err, EINVAL, "result %zu is of another catalogue (%s, the first "
						    "is %s): shards of different sweeps do not merge",
				       i + 1, parts[i].catalogue_id, p0->catalogue_id);
		if (parts[i].shard_count != n)
			return hk_fail(err, EINVAL, "result %zu is shard %u/%u, the first is of %u "
						    "shards", i + 1, parts[i].shard_index,
				       parts[i].shard_count, n);
	}
	if (n == 0 && n_parts > 1)
		return hk_fail(err, EINVAL, "%zu whole-catalogue results: merge takes the shards of "
					    "one sweep", n_parts);
	if (n == 0 && p0->interrupted)
		return hk_fail(err, EINVAL, "the sweep was interrupted (signal %d) before every "
					    "recipe was built: run it again", p0->interrupted);
	if (n > 0) {
		/* 0: not given; 1: given; 2: given, but interrupted — as missing as not given. */
		unsigned char *seen = hk_xcalloc(n + 1, 1);
		int *signals = hk_xcalloc(n + 1, sizeof(int));
		for (size_t i = 0; i < n_parts; i++) {
			if (seen[parts[i].shard_index]) {
				free(seen);
				free(signals);
				return hk_fail(err, EINVAL, "shard %u/%u is given twice",
					       parts[i].shard_index, n);
			}
			seen[parts[i].shard_index] = parts[i].interrupted ? 2 : 1;
			signals[parts[i].shard_index] = parts[i].interrupted;
		}
		struct hk_buf missing = HK_BUF_INIT, why = HK_BUF_INIT;
		for (unsigned s = 1; s <= n; s++) {
			if (seen[s] != 1)
				hk_buf_printf(&missing, "%s%u/%u", missing.len ? ", " : "", s, n);
			if (seen[s] == 2)
				hk_buf_printf(&why, "; %u/%u was interrupted by signal %d before all "
						    "its recipes were built", s, n, signals[s]);
		}
		free(seen);
		free(signals);
		int rc = 0;
		if (missing.len)
			rc = hk_fail(err, EINVAL, "shard(s) %s missing: every recipe must be "
						  "accounted for%s (run each missing shard again)",
				     hk_buf_str(&missing), hk_buf_str(&why));
		hk_buf_free(&missing);
		hk_buf_free(&why);
		if (rc < 0)
			return rc;
	}
	size_t total = 0;
	for (size_t i = 0; i < n_parts; i++)
		total += parts[i].n_items;
	memcpy(out->catalogue_id, p0->catalogue_id, HK_B3_ID_LEN);
	out->catalogue_size = p0->catalogue_size;
	out->items = hk_xcalloc(total + 1, sizeof(*out->items));
	for (size_t i = 0; i < n_parts; i++) {
		if (parts[i].n_items)   /* a part already merged holds no array at all */
			memcpy(out->items + out->n_items, parts[i].items,
			       parts[i].n_items * sizeof(*out->items));
		out->n_items += parts[i].n_items;
		free(parts[i].items);
		parts[i].items = NULL;
		parts[i].n_items = 0;
		if (parts[i].elapsed_ms > out->elapsed_ms)
			out->elapsed_ms = parts[i].elapsed_ms;
	}
	hk_sweep_doc_sort(out);
	for (size_t i = 1; i < out->n_items; i++)
		if (strcmp(out->items[i].key, out->items[i - 1].key) == 0) {
			int rc = hk_fail(err, EINVAL, "recipe %s is in two results",
					 out->items[i].key);
			hk_sweep_doc_free(out);
			return rc;
		}
	const char **keys = hk_xcalloc(out->n_items + 1, sizeof(char *));
	for (size_t i = 0; i < out->n_items; i++)
		keys[i] = out->items[i].key;
	char id[HK_B3_ID_LEN];
	hk_sweep_catalogue_id(keys, out->n_items, id);
	free(keys);
	if (out->n_items != out->catalogue_size || strcmp(id, out->catalogue_id) != 0) {
		int rc = hk_fail(err, EINVAL, "the merged results hold %zu recipes (catalogue %s), "
					      "the catalogue has %zu (%s): a shard lost or gained "
					      "recipes", out->n_items, id, out->catalogue_size,
				 out->catalogue_id);
		hk_sweep_doc_free(out);
		return rc;
	}
	return 0;
}

/* ---- summary ---- */

static int cmp_path_count(const void *a, const void *b)
{
	const struct hk_sweep_path_count *x = a, *y = b;
	if (x->recipes != y->recipes)
		return x->recipes > y->recipes ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int cmp_path_name(const void *a, const void *b)
{
	return strcmp(((const struct hk_sweep_path_count *)a)->path,
		      ((const struct hk_sweep_path_count *)b)->path);
}

static int cmp_named(const void *a, const void *b)
{
	const struct hk_sweep_named *x = a, *y = b;
	if (x->sources != y->sources)
		return x->sources > y->sources ? -1 : 1;
	return strcmp(x->package, y->package);
}

static int cmp_influence(const void *a, const void *b)
{
	const struct hk_sweep_influence *x = a, *y = b;
	int c = strcmp(x->probe->package, y->probe->package);
	return c ? c : strcmp(x->item->key, y->item->key);
}

static bool is_influence(const struct hk_sweep_finding *f)
{
	return f->decided && f->decision == HK_PROBE_INFLUENCE;
}

/* Every package the Debian items' reports named, with how many source packages named it (a
 * package named as missing and as a probe by one source counts once, as missing), and every
 * undeclared influence. */
static void summarise_debian(const struct hk_sweep_item *items, size_t n,
			     struct hk_sweep_summary *s)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_deb *d = items[i].deb;
		if (!d)
			continue;
		s->debian++;
		s->deb_counts[items[i].outcome]++;
		/* What a build the interruption cut short named is not a finding of the item. */
		if (items[i].outcome == HK_SWEEP_NOT_BUILT)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			const struct hk_sweep_finding *f = pass ? d->probes : d->missing;
			size_t nf = pass ? d->n_probes : d->n_missing;
			for (size_t k = 0; k < nf; k++) {
				if (pass && is_influence(&f[k])) {
					s->influences = hk_xrealloc(s->influences,
								    (s->n_influences + 1) *
									    sizeof(*s->influences));
					s->influences[s->n_influences++] =
						(struct hk_sweep_influence){ &items[i], &f[k] };
				}
				/* Once per source package: its own earlier findings. */
				bool again = false;
				for (size_t q = 0; q < k && !again; q++)
					again = strcmp(f[q].package, f[k].package) == 0;
				for (size_t q = 0; pass && q < d->n_missing && !again; q++)
					again = strcmp(d->missing[q].package, f[k].package) == 0;
				if (again)
					continue;
				struct hk_sweep_named *e = NULL;
				for (size_t q = 0; q < s->n_named && !e; q++)
					if (strcmp(s->named[q].package, f[k].package) == 0)
						e = &s->named[q];
				if (!e) {
					if (s->n_named == cap) {
						cap = cap ? 2 * cap : 32;
						s->named = hk_xrealloc(s->named, cap * sizeof(*s->named));
					}
					e = &s->named[s->n_named++];
					*e = (struct hk_sweep_named){ .package = f[k].package };
				}
				e->sources++;
				e->missing += !pass;
				e->influences += pass && is_influence(&f[k]);
			}
		}
	}
	if (s->n_named > 1)
		qsort(s->named, s->n_named, sizeof(*s->named), cmp_named);
	if (s->n_influences > 1)
		qsort(s->influences, s->n_influences, sizeof(*s->influences), cmp_influence);
}

void hk_sweep_summarise(const struct hk_sweep_item *items, size_t n, struct hk_sweep_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->policy_bug_paths = (struct hk_strset)HK_STRSET_INIT;
	s->recipes = n;
	struct hk_strset paths = HK_STRSET_INIT;
	struct hk_strset base = HK_STRSET_INIT;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_item *it = &items[i];
		s->counts[it->outcome]++;
		/* An item the interruption kept from building, or cut short, measured nothing:
		 * whatever a cut-short build had seen is in its record, not in the catalogue's
		 * figures. */
		if (it->outcome == HK_SWEEP_NOT_BUILT)
			continue;
		s->built++;
		if (it->failed_phase)
			s->failed_builds++;
		if (it->base_name && !it->base_pinned) {
			s->unpinned++;
			s->unpinned_measured += it->outcome == HK_SWEEP_HERMETIC ||
						it->outcome == HK_SWEEP_DECLARABLE ||
						it->outcome == HK_SWEEP_IRREDUCIBLE;
		}
		size_t in_base = 0;
		for (size_t k = 0; k < it->n_debts; k++) {
			const struct hk_sweep_debt *d = &it->debts[k];
			if (d->in_base) {
				in_base++;
				hk_strset_add(&base, d->path);
			}
			if (hk_strset_add(&paths, d->path)) {
				if (s->n_paths == cap) {
					cap = cap ? 2 * cap : 64;
					s->paths = hk_xrealloc(s->paths, cap * sizeof(*s->paths));
				}
				s->paths[s->n_paths++] = (struct hk_sweep_path_count){
					.path = d->path,
					.recipes = 0,
					.irreducible = d->irreducible,
					.in_base = d->in_base,
					.first = d,
				};
			}
		}
		if (it->n_policy_bugs)
			s->policy_bug_recipes++;
		for (size_t k = 0; k < it->n_policy_bugs; k++)
			hk_strset_add(&s->policy_bug_paths, it->policy_bugs[k]);
		s->base_paths_total += in_base;
		if (in_base)
			s->base_recipes++;
		if (it->n_debts && in_base == it->n_debts)
			s->hidden_by_base++;
	}
	/* Count recipes per path (each recipe lists a path once): every debt path of every
	 * recipe, sorted, counted run by run — O(D log D) for D debt paths, where a search of
	 * the distinct paths per debt was quadratic in a Debian-sized catalogue. */
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (items[i].outcome != HK_SWEEP_NOT_BUILT)
			total += items[i].n_debts;
	const char **all = hk_xcalloc(total + 1, sizeof(char *));
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; items[i].outcome != HK_SWEEP_NOT_BUILT && k < items[i].n_debts; k++)
			all[w++] = items[i].debts[k].path;
	if (total > 1)
		qsort(all, total, sizeof(char *), cmp_str_ptr);
	if (s->n_paths > 1)
		qsort(s->paths, s->n_paths, sizeof(*s->paths), cmp_path_name);
	/* Both lists are now in path order: the k-th run of `all` is the k-th distinct path. */
	for (size_t a = 0, p = 0; a < total && p < s->n_paths; p++)
		for (; a < total && strcmp(all[a], s->paths[p].path) == 0; a++)
			s->paths[p].recipes++;
	free(all);
	if (s->n_paths > 1)
		qsort(s->paths, s->n_paths, sizeof(*s->paths), cmp_path_count);
	/* The irreducible rate is the recipes' (design.md §8): a Debian package is classified
	 * by its report, not by debt paths, and is not in it. */
	for (size_t i = 0; i < n; i++)
		s->measured += !items[i].deb && (items[i].outcome == HK_SWEEP_HERMETIC ||
						 items[i].outcome == HK_SWEEP_DECLARABLE ||
						 items[i].outcome == HK_SWEEP_IRREDUCIBLE);
	s->base_paths_distinct = base.len;
	hk_strset_sort(&s->policy_bug_paths);
	summarise_debian(items, n, s);
	hk_strset_free(&paths);
	hk_strset_free(&base);
}

void hk_sweep_summary_free(struct hk_sweep_summary *s)
{
	free(s->paths);
	free(s->named);
	free(s->influences);
	hk_strset_free(&s->policy_bug_paths);
	memset(s, 0, sizeof(*s));
}
