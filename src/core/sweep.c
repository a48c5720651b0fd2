/* The sweep's pure part: items, outcome rule, shards, result documents, merge, summary,
 * table and HTML (docs/sweep.md).  No process, no file system: the orchestrator passes
 * text and a classifier in. */
#include "core/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/build_failure.h"
#include "core/strset.h"
#include "core/util.h"

static const char *const outcome_names[HK_SWEEP_OUTCOME_COUNT] = {
	"hermetic", "declarable", "irreducible", "no_evidence", "failed",
};
static const char *const outcome_labels[HK_SWEEP_OUTCOME_COUNT] = {
	"Hermetic", "only declarable debt", "irreducible debt", "no evidence", "failed",
};

const char *hk_sweep_outcome_name(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_names[o] : NULL;
}

const char *hk_sweep_outcome_label(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_labels[o] : NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? hk_xstrdup(s) : NULL;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
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
	for (size_t i = 0; i < it->n_debts; i++) {
		free(it->debts[i].path);
		free_strv(it->debts[i].providers, it->debts[i].n_providers);
		free(it->debts[i].exe);
	}
	free(it->debts);
	free_strv(it->policy_bugs, it->n_policy_bugs);
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

/* The rule (docs/sweep.md, "Outcome"), in order:
 *  1. nothing ran (the recipe, its deps or its source stopped it)  -> failed
 *  2. a phase whose verdict is NoEvidence                          -> no evidence
 *     (the kernel cannot vouch that "only declarable" is all the debt there is)
 *  3. debt: irreducible if any path has no provider, else declarable — also when a phase
 *     then failed, since the denied access is the likely cause and the fix is the same
 *  4. a phase failed, or the build stopped (a set-up error, a phase the cage never
 *     started), without any debt                                   -> failed
 *  5. a phase without a verdict at all (built without the cage)    -> no evidence
 *  6. otherwise                                                    -> Hermetic */
enum hk_sweep_outcome hk_sweep_outcome_of(const struct hk_sweep_item *it)
{
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
	for (size_t i = 0; i < it->n_phases; i++) {
		const struct hk_sweep_phase *p = &it->phases[i];
		if (!p->state)
			return HK_SWEEP_NOEVIDENCE;
		/* Impure only through harkaq's own policy bugs: the recipe's declarations
		 * suffice (the design's §4.10 counted such a gap as no debt). */
		if (strcmp(p->state, "Hermetic") != 0 &&
		    !(strcmp(p->state, "Impure") == 0 && p->debt == 0 && p->policy_bug > 0))
			return HK_SWEEP_NOEVIDENCE;
	}
	return HK_SWEEP_HERMETIC;
}

/* ---- reading a build result ---- */

static const char *jstr(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	return v && v->type == HK_JSTR && strlen(v->str) == v->len ? v->str : NULL;
}

static bool jint(const struct hk_jval *obj, const char *key, int64_t *out)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type != HK_JNUM || !v->is_int)
		return false;
	*out = v->i;
	return true;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_debt(const void *a, const void *b)
{
	return strcmp(((const struct hk_sweep_debt *)a)->path,
		      ((const struct hk_sweep_debt *)b)->path);
}

/* The failure code of a build that stopped at `stage` (the codes are the stages' names). */
static const char *fail_code_of(enum hk_build_stage stage)
{
	switch (stage) {
	case HK_BUILD_STAGE_RECIPE:
		return HK_SWEEP_FAIL_RECIPE;
	case HK_BUILD_STAGE_DEPS:
		return HK_SWEEP_FAIL_DEPS;
	case HK_BUILD_STAGE_FETCH:
		return HK_SWEEP_FAIL_FETCH;
	case HK_BUILD_STAGE_NONE:
	case HK_BUILD_STAGE_SETUP:
		break;
	}
	return HK_SWEEP_FAIL_SETUP;
}

static struct hk_sweep_debt *find_debt(struct hk_sweep_item *it, const char *path)
{
	for (size_t i = 0; i < it->n_debts; i++)
		if (strcmp(it->debts[i].path, path) == 0)
			return &it->debts[i];
	return NULL;
}

int hk_sweep_item_from_build(struct hk_sweep_item *it, const struct hk_jval *b,
			     hk_sweep_classify_fn classify, void *ctx, struct hk_error *err)
{
	const struct hk_jval *recipe = hk_jobj_get(b, "recipe");
	const struct hk_jval *phases = hk_jobj_get(b, "phases");
	if (!b || b->type != HK_JOBJ || !recipe || recipe->type != HK_JOBJ || !phases ||
	    phases->type != HK_JARR)
		return hk_fail(err, EINVAL, "not a harkaq build result (no recipe or phases)");
	free(it->name);
	free(it->version);
	free(it->recipe_hash);
	free(it->policy_id);
	free(it->artifact);
	free(it->failed_phase);
	it->name = dup_or_null(jstr(recipe, "name"));
	it->version = dup_or_null(jstr(recipe, "version"));
	it->recipe_hash = dup_or_null(jstr(recipe, "hash"));
	it->policy_id = dup_or_null(jstr(b, "policy_id"));
	it->artifact = dup_or_null(jstr(b, "artifact"));
	it->failed_phase = dup_or_null(jstr(b, "failed_phase"));
	const char *error = jstr(b, "error");
	struct hk_build_failure failure;
	if (hk_build_failure_decode(b, &failure, err) < 0)
		return hk_wrap(err, "not a harkaq build result");
	if (error && !it->fail_code) {
		it->fail_code = hk_xstrdup(fail_code_of(failure.stage));
		it->reason = hk_xstrdup(error);
	}

	it->phases = hk_xcalloc(phases->len + 1, sizeof(*it->phases));
	for (size_t i = 0; i < phases->len; i++) {
		const struct hk_jval *ph = &phases->items[i];
		struct hk_sweep_phase *sp = &it->phases[it->n_phases++];
		const char *name = jstr(ph, "phase");
		sp->phase = hk_xstrdup(name ? name : "?");
		int64_t v;
		sp->exit_code = jint(ph, "exit_code", &v) ? (int)v : -1;
		sp->ms = jint(ph, "ms", &v) ? v : 0;
		const struct hk_jval *verdict = hk_jobj_get(ph, "verdict");
		if (!verdict || verdict->type != HK_JOBJ)
			continue;
		sp->state = dup_or_null(jstr(verdict, "state"));
		/* The diagnosis (docs/diagnosis.md) names denials on the sandbox's contract
		 * surfaces: harkaq's bug, kept apart from the recipe's debt. */
		const struct hk_jval *report = hk_jobj_get(ph, "report");
		const struct hk_jval *pb = report ? hk_jobj_get(report, "policy_bug") : NULL;
		struct hk_strset bugs = HK_STRSET_INIT;
		for (size_t k = 0; pb && pb->type == HK_JARR && k < pb->len; k++) {
			size_t n;
			char *bp = hk_jval_bytes(hk_jobj_get(&pb->items[k], "path"), &n);
			if (bp)
				hk_strset_add_owned(&bugs, bp);
		}
		/* The id of the phase's stored evidence object (cli/report.h), or null. */
		sp->evidence = dup_or_null(jstr(report, "evidence"));
		const struct hk_jval *reasons = hk_jobj_get(verdict, "reasons");
		if (reasons && reasons->type == HK_JARR && reasons->len > 0)
			sp->reason = dup_or_null(jstr(&reasons->items[0], "code"));
		const struct hk_jval *den = hk_jobj_get(verdict, "denials");
		for (size_t k = 0; den && den->type == HK_JARR && k < den->len; k++) {
			const struct hk_jval *d = &den->items[k];
			const char *cls = jstr(d, "class");
			/* Everything not classified as expected is debt: the diagnosis may refine
			 * "debt" into "declarable"/"irreducible", the sweep classifies itself. */
			if (cls && strcmp(cls, "expected") == 0) {
				sp->expected++;
				continue;
			}
			size_t plen = 0;
			char *path = NULL;
			const struct hk_jval *pv = hk_jobj_get(d, "path");
			if (pv && pv->type != HK_JNULL)
				path = hk_jval_bytes(pv, &plen);
			if (path && hk_strset_contains(&bugs, path)) {
				sp->policy_bug++;
				bool known = false;
				for (size_t q = 0; q < it->n_policy_bugs && !known; q++)
					known = strcmp(it->policy_bugs[q], path) == 0;
				if (!known) {
					it->policy_bugs = hk_xrealloc(it->policy_bugs,
								      (it->n_policy_bugs + 1) * sizeof(char *));
					it->policy_bugs[it->n_policy_bugs++] = path;
				} else {
					free(path);
				}
				continue;
			}
			sp->debt++;
			if (!path) {
				const char *bl = jstr(d, "blockers");
				path = hk_xasprintf("[%s]", bl ? bl : "unknown");
			}
			int64_t count = 1;
			jint(d, "count", &count);
			struct hk_sweep_debt *sd = find_debt(it, path);
			if (!sd) {
				it->debts = hk_xrealloc(it->debts, (it->n_debts + 1) * sizeof(*it->debts));
				sd = &it->debts[it->n_debts++];
				memset(sd, 0, sizeof(*sd));
				sd->path = path;
				path = NULL;
				const struct hk_jval *ev = hk_jobj_get(d, "exe");
				if (ev && ev->type != HK_JNULL)
					sd->exe = hk_jval_bytes(ev, &(size_t){ 0 });
				if (sd->path[0] == '/' && classify) {
					struct hk_sweep_class c = { 0 };
					classify(ctx, sd->path, &c);
					sd->providers = c.providers;
					sd->n_providers = c.n_providers;
					sd->in_base = c.in_base;
				}
				if (sd->n_providers > 1)
					qsort(sd->providers, sd->n_providers, sizeof(char *), cmp_str_ptr);
				sd->irreducible = sd->n_providers == 0;
			}
			free(path);
			sd->records += count > 0 ? (uint64_t)count : 1;
			if (i < 32)
				sd->phases |= 1u << i;
		}
		hk_strset_free(&bugs);
	}
	if (it->n_policy_bugs > 1)
		qsort(it->policy_bugs, it->n_policy_bugs, sizeof(char *), cmp_str_ptr);
	if (it->n_debts > 1)
		qsort(it->debts, it->n_debts, sizeof(*it->debts), cmp_debt);
	if (it->failed_phase && !it->fail_code && it->n_debts == 0) {
		int code = -1;
		for (size_t i = 0; i < it->n_phases; i++)
			if (strcmp(it->phases[i].phase, it->failed_phase) == 0)
				code = it->phases[i].exit_code;
		it->fail_code = hk_xstrdup(HK_SWEEP_FAIL_PHASE);
		it->reason = hk_xasprintf("%s exited with status %d (see the build log)",
					  it->failed_phase, code);
	}
	it->outcome = hk_sweep_outcome_of(it);
	return 0;
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

static void jopt_str(struct hk_json *j, const char *key, const char *s)
{
	hk_json_key(j, key);
	if (s)
		hk_json_str(j, s);
	else
		hk_json_null(j);
}

static void jopt_bytes(struct hk_json *j, const char *key, const char *s)
{
	hk_json_key(j, key);
	if (s)
		hk_json_bytes(j, s, strlen(s));
	else
		hk_json_null(j);
}

static void item_json(const struct hk_sweep_item *it, bool with_run, struct hk_json *j)
{
	hk_json_obj_begin(j);
	jopt_bytes(j, "key", it->key);
	jopt_str(j, "name", it->name);
	jopt_str(j, "version", it->version);
	jopt_str(j, "recipe_hash", it->recipe_hash);
	jopt_str(j, "policy_id", it->policy_id);
	jopt_str(j, "outcome", hk_sweep_outcome_name(it->outcome));
	hk_json_key(j, "failure");
	if (it->fail_code) {
		hk_json_obj_begin(j);
		jopt_str(j, "code", it->fail_code);
		jopt_bytes(j, "reason", it->reason);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	jopt_str(j, "failed_phase", it->failed_phase);
	hk_json_key(j, "phases");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < it->n_phases; i++) {
		const struct hk_sweep_phase *p = &it->phases[i];
		hk_json_obj_begin(j);
		jopt_str(j, "phase", p->phase);
		jopt_str(j, "state", p->state);
		jopt_str(j, "reason", p->reason);
		hk_json_key(j, "exit_code");
		hk_json_int(j, p->exit_code);
		hk_json_key(j, "debt");
		hk_json_uint(j, p->debt);
		hk_json_key(j, "expected");
		hk_json_uint(j, p->expected);
		hk_json_key(j, "policy_bug");
		hk_json_uint(j, p->policy_bug);
		if (with_run) {
			hk_json_key(j, "ms");
			hk_json_int(j, p->ms);
			jopt_str(j, "evidence", p->evidence);
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "debt");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < it->n_debts; i++) {
		const struct hk_sweep_debt *d = &it->debts[i];
		hk_json_obj_begin(j);
		jopt_bytes(j, "path", d->path);
		jopt_str(j, "class", d->irreducible ? "irreducible" : "declarable");
		hk_json_key(j, "providers");
		hk_json_arr_begin(j);
		for (size_t k = 0; k < d->n_providers; k++)
			hk_json_str(j, d->providers[k]);
		hk_json_arr_end(j);
		hk_json_key(j, "in_base");
		hk_json_bool(j, d->in_base);
		hk_json_key(j, "phases");
		hk_json_arr_begin(j);
		for (size_t k = 0; k < it->n_phases && k < 32; k++)
			if (d->phases & (1u << k))
				hk_json_str(j, it->phases[k].phase);
		hk_json_arr_end(j);
		if (with_run) {
			/* Which program and how often depend on scheduling (make -j): run data. */
			jopt_bytes(j, "exe", d->exe);
			hk_json_key(j, "records");
			hk_json_uint(j, d->records);
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "policy_bugs");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < it->n_policy_bugs; i++)
		hk_json_bytes(j, it->policy_bugs[i], strlen(it->policy_bugs[i]));
	hk_json_arr_end(j);
	if (with_run) {
		hk_json_key(j, "run");
		hk_json_obj_begin(j);
		jopt_str(j, "artifact", it->artifact);
		hk_json_key(j, "ms");
		hk_json_int(j, it->ms);
		hk_json_key(j, "exit_status");
		hk_json_int(j, it->exit_status);
		jopt_bytes(j, "log", it->log);
		hk_json_obj_end(j);
	}
	hk_json_obj_end(j);
}

static void summary_json(const struct hk_sweep_summary *s, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "recipes");
	hk_json_uint(j, s->recipes);
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		hk_json_key(j, outcome_names[o]);
		hk_json_uint(j, s->counts[o]);
	}
	hk_json_key(j, "measured");
	hk_json_uint(j, s->measured);
	hk_json_key(j, "failed_builds");
	hk_json_uint(j, s->failed_builds);
	hk_json_key(j, "irreducible_rate");
	if (s->measured)
		hk_json_double(j, (double)s->counts[HK_SWEEP_IRREDUCIBLE] / (double)s->measured);
	else
		hk_json_null(j);
	hk_json_key(j, "target_rate");
	hk_json_double(j, HK_SWEEP_TARGET_PERCENT / 100.0);
	hk_json_key(j, "meets_target");
	if (s->measured)
		hk_json_bool(j, s->counts[HK_SWEEP_IRREDUCIBLE] * 100 <
					s->measured * HK_SWEEP_TARGET_PERCENT);
	else
		hk_json_null(j);
	hk_json_key(j, "base_debt");
	hk_json_obj_begin(j);
	hk_json_key(j, "recipes");
	hk_json_uint(j, s->base_recipes);
	hk_json_key(j, "paths_total");
	hk_json_uint(j, s->base_paths_total);
	hk_json_key(j, "paths_distinct");
	hk_json_uint(j, s->base_paths_distinct);
	hk_json_key(j, "hidden_by_base");
	hk_json_uint(j, s->hidden_by_base);
	hk_json_obj_end(j);
	hk_json_key(j, "policy_bugs");
	hk_json_obj_begin(j);
	hk_json_key(j, "recipes");
	hk_json_uint(j, s->policy_bug_recipes);
	hk_json_key(j, "paths");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < s->policy_bug_paths.len; i++)
		hk_json_bytes(j, s->policy_bug_paths.items[i], strlen(s->policy_bug_paths.items[i]));
	hk_json_arr_end(j);
	hk_json_obj_end(j);
	hk_json_key(j, "debt_paths");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < s->n_paths; i++) {
		const struct hk_sweep_path_count *p = &s->paths[i];
		hk_json_obj_begin(j);
		jopt_bytes(j, "path", p->path);
		hk_json_key(j, "recipes");
		hk_json_uint(j, p->recipes);
		jopt_str(j, "class", p->irreducible ? "irreducible" : "declarable");
		hk_json_key(j, "providers");
		hk_json_arr_begin(j);
		for (size_t k = 0; k < p->first->n_providers; k++)
			hk_json_str(j, p->first->providers[k]);
		hk_json_arr_end(j);
		hk_json_key(j, "in_base");
		hk_json_bool(j, p->in_base);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_obj_end(j);
}

void hk_sweep_doc_json(const struct hk_sweep_doc *d, bool with_run, struct hk_json *j)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_json_obj_begin(j);
	jopt_str(j, "kind", "harkaq.sweep.v1");
	hk_json_key(j, "catalogue");
	hk_json_obj_begin(j);
	jopt_str(j, "id", d->catalogue_id);
	hk_json_key(j, "recipes");
	hk_json_uint(j, d->catalogue_size);
	hk_json_obj_end(j);
	hk_json_key(j, "shard");
	if (d->shard_count) {
		hk_json_obj_begin(j);
		hk_json_key(j, "index");
		hk_json_uint(j, d->shard_index);
		hk_json_key(j, "count");
		hk_json_uint(j, d->shard_count);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	hk_json_key(j, "summary");
	summary_json(&s, j);
	hk_json_key(j, "recipes");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < d->n_items; i++)
		item_json(&d->items[i], with_run, j);
	hk_json_arr_end(j);
	if (with_run) {
		hk_json_key(j, "run");
		hk_json_obj_begin(j);
		hk_json_key(j, "jobs");
		hk_json_uint(j, d->jobs);
		hk_json_key(j, "elapsed_ms");
		hk_json_int(j, d->elapsed_ms);
		jopt_bytes(j, "store", d->store);
		hk_json_obj_end(j);
	}
	hk_json_obj_end(j);
	hk_sweep_summary_free(&s);
}

static char *jbytes_dup(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type == HK_JNULL)
		return NULL;
	size_t n;
	return hk_jval_bytes(v, &n);
}

static int outcome_from_name(const char *s)
{
	for (int o = 0; s && o < HK_SWEEP_OUTCOME_COUNT; o++)
		if (strcmp(s, outcome_names[o]) == 0)
			return o;
	return -1;
}

static int item_parse(const struct hk_jval *v, struct hk_sweep_item *it, const char *where,
		      size_t idx, struct hk_error *err)
{
	memset(it, 0, sizeof(*it));
	it->key = jbytes_dup(v, "key");
	int o = outcome_from_name(jstr(v, "outcome"));
	if (v->type != HK_JOBJ || !it->key || o < 0) {
		hk_sweep_item_free(it);
		return hk_fail(err, EINVAL, "%s: recipe %zu has no key or no valid outcome", where,
			       idx);
	}
	it->outcome = (enum hk_sweep_outcome)o;
	it->name = dup_or_null(jstr(v, "name"));
	it->version = dup_or_null(jstr(v, "version"));
	it->recipe_hash = dup_or_null(jstr(v, "recipe_hash"));
	it->policy_id = dup_or_null(jstr(v, "policy_id"));
	it->failed_phase = dup_or_null(jstr(v, "failed_phase"));
	const struct hk_jval *f = hk_jobj_get(v, "failure");
	if (f && f->type == HK_JOBJ) {
		it->fail_code = dup_or_null(jstr(f, "code"));
		it->reason = jbytes_dup(f, "reason");
	}
	const struct hk_jval *ph = hk_jobj_get(v, "phases");
	size_t nph = ph && ph->type == HK_JARR ? ph->len : 0;
	it->phases = hk_xcalloc(nph + 1, sizeof(*it->phases));
	for (size_t i = 0; i < nph; i++) {
		const struct hk_jval *p = &ph->items[i];
		struct hk_sweep_phase *sp = &it->phases[it->n_phases++];
		const char *name = jstr(p, "phase");
		sp->phase = hk_xstrdup(name ? name : "?");
		sp->state = dup_or_null(jstr(p, "state"));
		sp->reason = dup_or_null(jstr(p, "reason"));
		sp->evidence = dup_or_null(jstr(p, "evidence"));
		int64_t x;
		sp->exit_code = jint(p, "exit_code", &x) ? (int)x : -1;
		sp->debt = jint(p, "debt", &x) && x > 0 ? (uint64_t)x : 0;
		sp->expected = jint(p, "expected", &x) && x > 0 ? (uint64_t)x : 0;
		sp->policy_bug = jint(p, "policy_bug", &x) && x > 0 ? (uint64_t)x : 0;
		sp->ms = jint(p, "ms", &x) ? x : 0;
	}
	const struct hk_jval *db = hk_jobj_get(v, "debt");
	size_t nd = db && db->type == HK_JARR ? db->len : 0;
	it->debts = hk_xcalloc(nd + 1, sizeof(*it->debts));
	for (size_t i = 0; i < nd; i++) {
		const struct hk_jval *d = &db->items[i];
		struct hk_sweep_debt *sd = &it->debts[it->n_debts];
		sd->path = jbytes_dup(d, "path");
		if (!sd->path) {
			hk_sweep_item_free(it);
			return hk_fail(err, EINVAL, "%s: recipe %zu: a debt entry without a path",
				       where, idx);
		}
		it->n_debts++;
		const char *cls = jstr(d, "class");
		sd->irreducible = !cls || strcmp(cls, "declarable") != 0;
		const struct hk_jval *pv = hk_jobj_get(d, "providers");
		if (pv && pv->type == HK_JARR && pv->len) {
			sd->providers = hk_xcalloc(pv->len, sizeof(char *));
			for (size_t k = 0; k < pv->len; k++)
				if (pv->items[k].type == HK_JSTR)
					sd->providers[sd->n_providers++] = hk_xstrdup(pv->items[k].str);
		}
		const struct hk_jval *ib = hk_jobj_get(d, "in_base");
		sd->in_base = ib && ib->type == HK_JBOOL && ib->b;
		const struct hk_jval *dp = hk_jobj_get(d, "phases");
		for (size_t k = 0; dp && dp->type == HK_JARR && k < dp->len; k++)
			for (size_t q = 0; q < it->n_phases && q < 32; q++)
				if (dp->items[k].type == HK_JSTR &&
				    strcmp(dp->items[k].str, it->phases[q].phase) == 0)
					sd->phases |= 1u << q;
		sd->exe = jbytes_dup(d, "exe");
		int64_t x;
		sd->records = jint(d, "records", &x) && x > 0 ? (uint64_t)x : 0;
	}
	const struct hk_jval *bugs = hk_jobj_get(v, "policy_bugs");
	size_t nb = bugs && bugs->type == HK_JARR ? bugs->len : 0;
	it->policy_bugs = hk_xcalloc(nb + 1, sizeof(char *));
	for (size_t i = 0; i < nb; i++) {
		size_t n;
		char *bp = hk_jval_bytes(&bugs->items[i], &n);
		if (bp)
			it->policy_bugs[it->n_policy_bugs++] = bp;
	}
	const struct hk_jval *run = hk_jobj_get(v, "run");
	if (run && run->type == HK_JOBJ) {
		it->artifact = dup_or_null(jstr(run, "artifact"));
		it->log = jbytes_dup(run, "log");
		int64_t x;
		it->ms = jint(run, "ms", &x) ? x : 0;
		it->exit_status = jint(run, "exit_status", &x) ? (int)x : -1;
	} else {
		it->exit_status = -1;
	}
	return 0;
}

int hk_sweep_doc_parse(const char *text, size_t len, const char *filename,
		       struct hk_sweep_doc *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_jval *v = NULL;
	if (hk_json_parse(text, len, &v, err) < 0)
		return hk_wrap(err, "%s", filename);
	int rc = 0;
	const char *kind = jstr(v, "kind");
	const struct hk_jval *cat = hk_jobj_get(v, "catalogue");
	const struct hk_jval *recipes = hk_jobj_get(v, "recipes");
	const char *id = cat ? jstr(cat, "id") : NULL;
	int64_t size = 0;
	if (!kind || strcmp(kind, "harkaq.sweep.v1") != 0 || !id ||
	    strlen(id) != HK_B3_ID_LEN - 1 || !jint(cat, "recipes", &size) || size < 0 ||
	    !recipes || recipes->type != HK_JARR) {
		rc = hk_fail(err, EINVAL, "%s: not a harkaq sweep result (kind harkaq.sweep.v1 "
					  "with catalogue and recipes)", filename);
		goto out;
	}
	memcpy(out->catalogue_id, id, HK_B3_ID_LEN);
	out->catalogue_size = (size_t)size;
	const struct hk_jval *sh = hk_jobj_get(v, "shard");
	if (sh && sh->type == HK_JOBJ) {
		int64_t i = 0, n = 0;
		if (!jint(sh, "index", &i) || !jint(sh, "count", &n) || n < 1 || i < 1 || i > n) {
			rc = hk_fail(err, EINVAL, "%s: the shard is not I/N with 1 <= I <= N", filename);
			goto out;
		}
		out->shard_index = (unsigned)i;
		out->shard_count = (unsigned)n;
	}
	out->items = hk_xcalloc(recipes->len + 1, sizeof(*out->items));
	for (size_t i = 0; i < recipes->len; i++) {
		rc = item_parse(&recipes->items[i], &out->items[out->n_items], filename, i, err);
		if (rc < 0)
			goto out;
		out->n_items++;
	}
	const struct hk_jval *run = hk_jobj_get(v, "run");
	if (run && run->type == HK_JOBJ) {
		int64_t x;
		out->jobs = jint(run, "jobs", &x) && x > 0 ? (unsigned)x : 0;
		out->elapsed_ms = jint(run, "elapsed_ms", &x) ? x : 0;
		out->store = jbytes_dup(run, "store");
	}
out:
	hk_jval_free(v);
	if (rc < 0)
		hk_sweep_doc_free(out);
	return rc;
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
	if (n > 0) {
		unsigned char *seen = hk_xcalloc(n + 1, 1);
		for (size_t i = 0; i < n_parts; i++) {
			if (seen[parts[i].shard_index]) {
				free(seen);
				return hk_fail(err, EINVAL, "shard %u/%u is given twice",
					       parts[i].shard_index, n);
			}
			seen[parts[i].shard_index] = 1;
		}
		struct hk_buf missing = HK_BUF_INIT;
		for (unsigned s = 1; s <= n; s++)
			if (!seen[s])
				hk_buf_printf(&missing, "%s%u/%u", missing.len ? ", " : "", s, n);
		free(seen);
		if (missing.len) {
			int rc = hk_fail(err, EINVAL, "shard(s) %s missing: every recipe must be "
						      "accounted for", hk_buf_str(&missing));
			hk_buf_free(&missing);
			return rc;
		}
		hk_buf_free(&missing);
	}
	size_t total = 0;
	for (size_t i = 0; i < n_parts; i++)
		total += parts[i].n_items;
	memcpy(out->catalogue_id, p0->catalogue_id, HK_B3_ID_LEN);
	out->catalogue_size = p0->catalogue_size;
	out->items = hk_xcalloc(total + 1, sizeof(*out->items));
	for (size_t i = 0; i < n_parts; i++) {
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
		if (it->failed_phase)
			s->failed_builds++;
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
	/* Count recipes per path (each recipe lists a path once). */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < items[i].n_debts; k++)
			for (size_t p = 0; p < s->n_paths; p++)
				if (strcmp(s->paths[p].path, items[i].debts[k].path) == 0) {
					s->paths[p].recipes++;
					break;
				}
	if (s->n_paths > 1)
		qsort(s->paths, s->n_paths, sizeof(*s->paths), cmp_path_count);
	s->measured = s->counts[HK_SWEEP_HERMETIC] + s->counts[HK_SWEEP_DECLARABLE] +
		      s->counts[HK_SWEEP_IRREDUCIBLE];
	s->base_paths_distinct = base.len;
	hk_strset_sort(&s->policy_bug_paths);
	hk_strset_free(&paths);
	hk_strset_free(&base);
}

void hk_sweep_summary_free(struct hk_sweep_summary *s)
{
	free(s->paths);
	hk_strset_free(&s->policy_bug_paths);
	memset(s, 0, sizeof(*s));
}

/* ---- text ---- */

/* Printable text for a terminal: control bytes and non-ASCII shown as \xHH. */
static void put_human(struct hk_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			hk_buf_putc(b, (char)*p);
		else
			hk_buf_printf(b, "\\x%02x", *p);
	}
}

static const char *item_label(const struct hk_sweep_item *it)
{
	return it->name ? it->name : it->key;
}

static void pct(struct hk_buf *b, size_t num, size_t den)
{
	if (den == 0)
		hk_buf_puts(b, "  —  ");
	else
		hk_buf_printf(b, "%5.1f %%", 100.0 * (double)num / (double)den);
}

static void suggestion(struct hk_buf *b, const struct hk_sweep_debt *d)
{
	if (d->irreducible) {
		hk_buf_puts(b, "nobody provides it");
		return;
	}
	hk_buf_puts(b, "declare dep: ");
	for (size_t k = 0; k < d->n_providers; k++)
		hk_buf_printf(b, "%s%s", k ? " | " : "", d->providers[k]);
}

#define TABLE_TOP_PATHS 15

void hk_sweep_table(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_buf_printf(b, "harkaq sweep: %zu recipe(s)", d->n_items);
	if (d->shard_count)
		hk_buf_printf(b, ", shard %u/%u of a catalogue of %zu", d->shard_index,
			      d->shard_count, d->catalogue_size);
	hk_buf_printf(b, " (catalogue %.19s…)\n\n", d->catalogue_id);

	size_t w = 6;
	for (size_t i = 0; i < d->n_items; i++) {
		size_t l = strlen(item_label(&d->items[i]));
		if (l > w)
			w = l;
	}
	if (w > 48)
		w = 48;
	hk_buf_printf(b, "%-*s  %-20s  %4s  %4s  %s\n", (int)w, "recipe", "outcome", "debt",
		      "base", "phases / reason");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
		size_t base = 0;
		for (size_t k = 0; k < it->n_debts; k++)
			base += it->debts[k].in_base;
		struct hk_buf name = HK_BUF_INIT;
		put_human(&name, item_label(it));
		hk_buf_printf(b, "%-*.*s  %-20s  %4zu  %4zu  ", (int)w, (int)w, hk_buf_str(&name),
			      hk_sweep_outcome_label(it->outcome), it->n_debts, base);
		hk_buf_free(&name);
		for (size_t k = 0; k < it->n_phases; k++) {
			const struct hk_sweep_phase *p = &it->phases[k];
			hk_buf_printf(b, "%s%s=%s", k ? " " : "", p->phase,
				      p->state ? p->state : "none");
			if (p->reason)
				hk_buf_printf(b, "(%s)", p->reason);
		}
		if (it->failed_phase)
			hk_buf_printf(b, "%s[%s failed]", it->n_phases ? " " : "", it->failed_phase);
		if (it->fail_code) {
			hk_buf_printf(b, "%s%s: ", it->n_phases ? " — " : "", it->fail_code);
			put_human(b, it->reason ? it->reason : "");
		}
		hk_buf_putc(b, '\n');
	}

	hk_buf_printf(b, "\n%-22s %5zu\n", "total", s.recipes);
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		hk_buf_printf(b, "  %-20s %5zu  ", outcome_labels[o], s.counts[o]);
		pct(b, s.counts[o], s.recipes);
		hk_buf_putc(b, '\n');
	}
	hk_buf_printf(b, "\nirreducible rate: %zu of %zu measured = ", s.counts[HK_SWEEP_IRREDUCIBLE],
		      s.measured);
	if (s.measured)
		hk_buf_printf(b, "%.1f %% (target < %d %%: %s)",
			      100.0 * (double)s.counts[HK_SWEEP_IRREDUCIBLE] / (double)s.measured,
			      HK_SWEEP_TARGET_PERCENT,
			      s.counts[HK_SWEEP_IRREDUCIBLE] * 100 < s.measured * HK_SWEEP_TARGET_PERCENT
				      ? "met"
				      : "NOT met");
	else
		hk_buf_puts(b, "— (nothing measured)");
	hk_buf_printf(b, "\n  not measured: %zu failed, %zu without evidence",
		      s.counts[HK_SWEEP_FAILED], s.counts[HK_SWEEP_NOEVIDENCE]);
	if (s.failed_builds)
		hk_buf_printf(b, "; %zu build(s) with a failed phase", s.failed_builds);
	hk_buf_printf(b, "\nbase debt (policy = closure vs closure + whole base root): %zu recipe(s) "
			 "read %zu base-root path(s) beyond their closure (%zu distinct); with the "
			 "whole base root granted %zu of them would look Hermetic\n",
		      s.base_recipes, s.base_paths_total, s.base_paths_distinct, s.hidden_by_base);
	if (s.policy_bug_recipes) {
		hk_buf_printf(b, "harkaq policy bugs (denials on the sandbox's own contract surfaces, "
				 "not counted as debt): %zu recipe(s):", s.policy_bug_recipes);
		for (size_t i = 0; i < s.policy_bug_paths.len; i++) {
			hk_buf_puts(b, " ");
			put_human(b, s.policy_bug_paths.items[i]);
		}
		hk_buf_putc(b, '\n');
	}
	if (s.n_paths) {
		hk_buf_printf(b, "\nmost frequent debt paths (%zu distinct):\n", s.n_paths);
		hk_buf_printf(b, "  %7s  %-11s  %-4s  %s\n", "recipes", "class", "base", "path → suggestion");
		for (size_t i = 0; i < s.n_paths && i < TABLE_TOP_PATHS; i++) {
			const struct hk_sweep_path_count *p = &s.paths[i];
			hk_buf_printf(b, "  %7zu  %-11s  %-4s  ", p->recipes,
				      p->irreducible ? "irreducible" : "declarable",
				      p->in_base ? "yes" : "no");
			put_human(b, p->path);
			hk_buf_puts(b, "  → ");
			suggestion(b, p->first);
			hk_buf_putc(b, '\n');
		}
		if (s.n_paths > TABLE_TOP_PATHS)
			hk_buf_printf(b, "  … %zu more in the JSON result\n", s.n_paths - TABLE_TOP_PATHS);
	}
	hk_sweep_summary_free(&s);
}

/* ---- HTML ---- */

void hk_html_escape(struct hk_buf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': hk_buf_puts(out, "&amp;"); break;
		case '<': hk_buf_puts(out, "&lt;"); break;
		case '>': hk_buf_puts(out, "&gt;"); break;
		case '"': hk_buf_puts(out, "&quot;"); break;
		case '\'': hk_buf_puts(out, "&#39;"); break;
		default:
			/* Control bytes would be invalid HTML; bytes >= 0x80 are kept (the page
			 * is UTF-8; an invalid sequence shows as U+FFFD, it cannot break markup). */
			if (*p < 0x20 && *p != '\t')
				hk_buf_printf(out, "\\x%02x", *p);
			else
				hk_buf_putc(out, (char)*p);
		}
	}
}

static const char *const outcome_colour[HK_SWEEP_OUTCOME_COUNT] = {
	"#2e7d32", "#f9a825", "#c62828", "#6a1b9a", "#546e7a",
};

static const char html_css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px 32px;"
	"color:#1d2329;background:#fafbfc}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}"
	".sub{color:#5b6670;margin-bottom:18px}"
	".cards{display:flex;gap:12px;flex-wrap:wrap}"
	".card{background:#fff;border:1px solid #dde2e6;border-radius:8px;padding:10px 16px;"
	"min-width:120px}"
	".card b{display:block;font-size:26px}.card span{color:#5b6670;font-size:12px}"
	".metric{background:#fff;border:1px solid #dde2e6;border-radius:8px;padding:12px 16px;"
	"margin-top:14px}"
	".ok{color:#2e7d32;font-weight:600}.bad{color:#c62828;font-weight:600}"
	"table{border-collapse:collapse;background:#fff;width:100%;font-size:13px}"
	"th,td{border:1px solid #dde2e6;padding:5px 8px;text-align:left;vertical-align:top}"
	"th{background:#eef1f4}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	".pill{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;"
	"white-space:nowrap}"
	"code{font:12px ui-monospace,Menlo,Consolas,monospace;word-break:break-all}"
	".reason{color:#8a1c1c}.muted{color:#5b6670}ul{margin:0;padding-left:16px}";

static void html_pill(struct hk_buf *b, enum hk_sweep_outcome o)
{
	hk_buf_printf(b, "<span class=\"pill\" style=\"background:%s\">%s</span>", outcome_colour[o],
		      outcome_labels[o]);
}

#define HTML_TOP_PATHS 20

static void html_chart(struct hk_buf *b, const struct hk_sweep_summary *s)
{
	size_t n = s->n_paths < HTML_TOP_PATHS ? s->n_paths : HTML_TOP_PATHS;
	if (n == 0) {
		hk_buf_puts(b, "<p class=\"muted\">No debt path in this sweep.</p>\n");
		return;
	}
	const int label_w = 430, bar_w = 520, row_h = 24, top = 8;
	size_t max = s->paths[0].recipes ? s->paths[0].recipes : 1;
	int height = top * 2 + (int)n * row_h + 18;
	hk_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "role=\"img\" aria-label=\"most frequent debt paths\" "
			 "style=\"background:#fff;border:1px solid #dde2e6;border-radius:8px\">\n",
		      label_w + bar_w + 60, height);
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_path_count *p = &s->paths[i];
		int y = top + (int)i * row_h;
		int w = (int)((double)bar_w * (double)p->recipes / (double)max);
		if (w < 2)
			w = 2;
		/* Long paths keep their tail (the file name is the informative end). */
		const char *shown = p->path;
		size_t len = strlen(shown);
		bool cut = len > 62;
		if (cut)
			shown += len - 61;
		hk_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\" "
				 "font-family=\"ui-monospace,Menlo,Consolas,monospace\">%s",
			      label_w - 8, y + 16, cut ? "…" : "");
		hk_html_escape(b, shown);
		hk_buf_printf(b, "<title>");
		hk_html_escape(b, p->path);
		hk_buf_printf(b, "</title></text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				 "rx=\"3\" fill=\"%s\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">%zu"
				 "</text>\n",
			      label_w, y + 3, w, row_h - 6,
			      p->irreducible ? outcome_colour[HK_SWEEP_IRREDUCIBLE]
					     : outcome_colour[HK_SWEEP_DECLARABLE],
			      label_w + w + 6, y + 16, p->recipes);
	}
	int ly = top + (int)n * row_h + 12;
	hk_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			 "<text x=\"%d\" y=\"%d\" font-size=\"11\">declarable (the store provides "
			 "it)</text>\n<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			 "<text x=\"%d\" y=\"%d\" font-size=\"11\">irreducible (nobody provides it)"
			 "</text>\n",
		      label_w, ly - 9, outcome_colour[HK_SWEEP_DECLARABLE], label_w + 14, ly,
		      label_w + 230, ly - 9, outcome_colour[HK_SWEEP_IRREDUCIBLE], label_w + 244, ly);
	hk_buf_puts(b, "</svg>\n");
}

static void html_distribution(struct hk_buf *b, const struct hk_sweep_summary *s)
{
	if (s->recipes == 0)
		return;
	const int width = 1010;
	hk_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"26\" "
			 "role=\"img\" aria-label=\"outcomes\" style=\"margin-top:14px\">\n", width);
	double x = 0;
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		if (!s->counts[o])
			continue;
		double w = (double)width * (double)s->counts[o] / (double)s->recipes;
		hk_buf_printf(b, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"26\" fill=\"%s\">"
				 "<title>%s: %zu</title></rect>\n",
			      x, w, outcome_colour[o], outcome_labels[o], s->counts[o]);
		if (w > 28)
			hk_buf_printf(b, "<text x=\"%.1f\" y=\"17\" font-size=\"12\" fill=\"#fff\" "
					 "text-anchor=\"middle\">%zu</text>\n",
				      x + w / 2, s->counts[o]);
		x += w;
	}
	hk_buf_puts(b, "</svg>\n");
}

void hk_sweep_html(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<title>harkaq sweep</title>\n<style>");
	hk_buf_puts(b, html_css);
	hk_buf_puts(b, "</style></head><body>\n<h1>harkaq sweep</h1>\n<div class=\"sub\">");
	hk_buf_printf(b, "%zu recipe(s)", d->n_items);
	if (d->shard_count)
		hk_buf_printf(b, " — shard %u/%u of %zu", d->shard_index, d->shard_count,
			      d->catalogue_size);
	hk_buf_puts(b, " · catalogue <code>");
	hk_html_escape(b, d->catalogue_id);
	hk_buf_puts(b, "</code></div>\n<div class=\"cards\">\n");
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
		hk_buf_printf(b, "<div class=\"card\" style=\"border-top:4px solid %s\"><b>%zu</b>"
				 "<span>%s</span></div>\n",
			      outcome_colour[o], s.counts[o], outcome_labels[o]);
	hk_buf_puts(b, "</div>\n");
	html_distribution(b, &s);

	hk_buf_puts(b, "<div class=\"metric\">Irreducible rate: ");
	if (s.measured) {
		bool met = s.counts[HK_SWEEP_IRREDUCIBLE] * 100 < s.measured * HK_SWEEP_TARGET_PERCENT;
		hk_buf_printf(b, "<b>%zu of %zu measured = %.1f %%</b> — target &lt; %d %%: "
				 "<span class=\"%s\">%s</span>",
			      s.counts[HK_SWEEP_IRREDUCIBLE], s.measured,
			      100.0 * (double)s.counts[HK_SWEEP_IRREDUCIBLE] / (double)s.measured,
			      HK_SWEEP_TARGET_PERCENT, met ? "ok" : "bad", met ? "met" : "not met");
	} else {
		hk_buf_puts(b, "— (nothing measured)");
	}
	hk_buf_printf(b, "<br><span class=\"muted\">Not measured: %zu failed, %zu without "
			 "evidence.</span><br>Base debt (policy = closure vs closure + whole base "
			 "root): <b>%zu</b> recipe(s) read <b>%zu</b> base-root path(s) beyond their "
			 "closure (%zu distinct); with the whole base root granted, <b>%zu</b> of "
			 "them would look Hermetic.</div>\n",
		      s.counts[HK_SWEEP_FAILED], s.counts[HK_SWEEP_NOEVIDENCE], s.base_recipes,
		      s.base_paths_total, s.base_paths_distinct, s.hidden_by_base);

	if (s.policy_bug_recipes) {
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">harkaq policy bugs</span> "
				 "in %zu recipe(s) — denials on the sandbox's own contract surfaces, "
				 "not counted as the recipes' debt:", s.policy_bug_recipes);
		for (size_t i = 0; i < s.policy_bug_paths.len; i++) {
			hk_buf_puts(b, " <code>");
			hk_html_escape(b, s.policy_bug_paths.items[i]);
			hk_buf_puts(b, "</code>");
		}
		hk_buf_puts(b, "</div>\n");
	}
	hk_buf_printf(b, "<h2>Most frequent debt paths (%zu distinct)</h2>\n", s.n_paths);
	html_chart(b, &s);
	if (s.n_paths) {
		hk_buf_puts(b, "<table style=\"margin-top:10px\"><tr><th>recipes</th><th>class</th>"
			       "<th>in base root</th><th>path</th><th>suggestion</th></tr>\n");
		for (size_t i = 0; i < s.n_paths && i < HTML_TOP_PATHS; i++) {
			const struct hk_sweep_path_count *p = &s.paths[i];
			struct hk_buf sug = HK_BUF_INIT;
			suggestion(&sug, p->first);
			hk_buf_printf(b, "<tr><td class=\"num\">%zu</td><td>%s</td><td>%s</td><td><code>",
				      p->recipes, p->irreducible ? "irreducible" : "declarable",
				      p->in_base ? "yes" : "no");
			hk_html_escape(b, p->path);
			hk_buf_puts(b, "</code></td><td>");
			hk_html_escape(b, hk_buf_str(&sug));
			hk_buf_puts(b, "</td></tr>\n");
			hk_buf_free(&sug);
		}
		hk_buf_puts(b, "</table>\n");
	}

	hk_buf_puts(b, "<h2>Recipes</h2>\n<table><tr><th>recipe</th><th>outcome</th><th>phases</th>"
		       "<th>debt paths</th><th>base</th><th>reason</th></tr>\n");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
		size_t base = 0;
		for (size_t k = 0; k < it->n_debts; k++)
			base += it->debts[k].in_base;
		hk_buf_puts(b, "<tr><td><b>");
		hk_html_escape(b, item_label(it));
		hk_buf_puts(b, "</b>");
		if (it->version) {
			hk_buf_puts(b, " ");
			hk_html_escape(b, it->version);
		}
		hk_buf_puts(b, "<br><code class=\"muted\">");
		hk_html_escape(b, it->key);
		hk_buf_puts(b, "</code></td><td>");
		html_pill(b, it->outcome);
		hk_buf_puts(b, "</td><td>");
		for (size_t k = 0; k < it->n_phases; k++) {
			const struct hk_sweep_phase *p = &it->phases[k];
			hk_buf_puts(b, "<span style=\"white-space:nowrap\">");
			hk_html_escape(b, p->phase);
			hk_buf_puts(b, ": ");
			hk_html_escape(b, p->state ? p->state : "no verdict");
			if (p->reason) {
				hk_buf_puts(b, " (");
				hk_html_escape(b, p->reason);
				hk_buf_puts(b, ")");
			}
			hk_buf_puts(b, "</span><br>");
		}
		hk_buf_puts(b, "</td><td>");
		if (it->n_debts) {
			hk_buf_puts(b, "<ul>");
			for (size_t k = 0; k < it->n_debts; k++) {
				const struct hk_sweep_debt *dd = &it->debts[k];
				struct hk_buf sug = HK_BUF_INIT;
				suggestion(&sug, dd);
				hk_buf_puts(b, "<li><code>");
				hk_html_escape(b, dd->path);
				hk_buf_printf(b, "</code> <span class=\"%s\">", dd->irreducible ? "bad" : "muted");
				hk_html_escape(b, hk_buf_str(&sug));
				hk_buf_puts(b, "</span></li>");
				hk_buf_free(&sug);
			}
			hk_buf_puts(b, "</ul>");
		}
		hk_buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"reason\">", base);
		if (it->failed_phase && !it->fail_code) {
			hk_buf_puts(b, "phase ");
			hk_html_escape(b, it->failed_phase);
			hk_buf_puts(b, " failed (the denied access is the likely cause)");
		}
		if (it->fail_code) {
			hk_html_escape(b, it->fail_code);
			hk_buf_puts(b, ": ");
			hk_html_escape(b, it->reason ? it->reason : "");
		}
		hk_buf_puts(b, "</td></tr>\n");
	}
	hk_buf_puts(b, "</table>\n<p class=\"muted\">Generated by harkaq sweep. Outcome rule, base "
		       "debt and the success metric: docs/sweep.md.</p>\n</body></html>\n");
	hk_sweep_summary_free(&s);
}
