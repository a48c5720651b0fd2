/* The sweep's result document (harkaq.sweep.v1, docs/sweep.md): its one encoder and its one
 * decoder.  The merge of shards reads what this file writes, byte for byte. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_internal.h"
#include "core/basic/util.h"

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

static const char *phase_evidence(const struct hk_sweep_item *it, const char *phase)
{
	for (size_t i = 0; phase && i < it->n_phases; i++)
		if (strcmp(it->phases[i].phase, phase) == 0)
			return it->phases[i].evidence;
	return NULL;
}

static void strs_json(struct hk_json *j, const char *key, char *const *v, size_t n)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++)
		hk_json_bytes(j, v[i], strlen(v[i]));
	hk_json_arr_end(j);
}

/* A probe's --decide-probes answer: null when none was given. */
static void decision_json(const struct hk_sweep_finding *f, struct hk_json *j)
{
	hk_json_key(j, "decision");
	if (!f->decided) {
		hk_json_null(j);
		return;
	}
	hk_json_obj_begin(j);
	jopt_str(j, "class", hk_probe_class_name(f->decision));
	jopt_bytes(j, "why", f->why);
	strs_json(j, "differences", f->differences, f->n_listed);
	hk_json_kv_uint(j, "n_differences", f->n_differences);
	hk_json_obj_end(j);
}

static void findings_json(const struct hk_sweep_item *it, const char *key,
			  const struct hk_sweep_finding *f, size_t n, bool probes, bool with_run,
			  struct hk_json *j)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		hk_json_obj_begin(j);
		jopt_str(j, "package", f[i].package);
		jopt_str(j, "version", f[i].version);
		jopt_str(j, "phase", f[i].phase);
		jopt_bytes(j, "path", f[i].path);
		hk_json_kv_uint(j, "paths", f[i].paths);
		hk_json_kv_bool(j, "from_log", f[i].from_log);
		if (probes)
			decision_json(&f[i], j);
		if (with_run) {
			jopt_bytes(j, "exe", f[i].exe);
			/* The phase's stored evidence object, which holds the denial. */
			jopt_str(j, "evidence", f[i].from_log ? NULL
							      : phase_evidence(it, f[i].phase));
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

static void deb_json(const struct hk_sweep_item *it, bool with_run, struct hk_json *j)
{
	const struct hk_sweep_deb *d = it->deb;
	hk_json_key(j, "debian");
	if (!d) {
		hk_json_null(j);
		return;
	}
	hk_json_obj_begin(j);
	jopt_str(j, "source", d->source);
	jopt_str(j, "dsc_sha256", d->dsc_sha256);
	/* The build's own class, which the item's outcome maps (hk_sweep_outcome_of_dsc). */
	jopt_str(j, "class", d->has_class ? hk_dsc_class_name(d->cls) : NULL);
	hk_json_kv_uint(j, "closure", d->closure);
	findings_json(it, "missing", d->missing, d->n_missing, false, with_run, j);
	findings_json(it, "probes", d->probes, d->n_probes, true, with_run, j);
	hk_json_kv_uint(j, "unattributed", d->unattributed);
	hk_json_kv_bool(j, "converse", d->converse);
	hk_json_key(j, "unopened");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < d->n_unopened; i++)
		hk_json_str(j, d->unopened[i]);
	hk_json_arr_end(j);
	jopt_str(j, "confirm", d->confirm);
	hk_json_key(j, "decide");
	if (d->decide_asked) {
		hk_json_obj_begin(j);
		jopt_bytes(j, "not_run", d->decide_not_run);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	hk_json_obj_end(j);
}

static void item_json(const struct hk_sweep_item *it, bool with_run, struct hk_json *j)
{
	hk_json_obj_begin(j);
	jopt_bytes(j, "key", it->key);
	jopt_str(j, "name", it->name);
	jopt_str(j, "version", it->version);
	jopt_str(j, "recipe_hash", it->recipe_hash);
	jopt_str(j, "policy_id", it->policy_id);
	hk_json_key(j, "base");
	if (it->base_name) {
		hk_json_obj_begin(j);
		jopt_str(j, "id", it->base_id);
		jopt_str(j, "name", it->base_name);
		hk_json_kv_bool(j, "pinned", it->base_pinned);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
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
			/* The stored evidence objects whose verdicts hold the raw denials. */
			hk_json_key(j, "evidence");
			hk_json_arr_begin(j);
			for (size_t k = 0; k < it->n_phases && k < 32; k++)
				if ((d->phases & (1u << k)) && it->phases[k].evidence)
					hk_json_str(j, it->phases[k].evidence);
			hk_json_arr_end(j);
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "policy_bugs");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < it->n_policy_bugs; i++)
		hk_json_bytes(j, it->policy_bugs[i], strlen(it->policy_bugs[i]));
	hk_json_arr_end(j);
	deb_json(it, with_run, j);
	if (with_run) {
		hk_json_key(j, "run");
		hk_json_obj_begin(j);
		jopt_str(j, "artifact", it->artifact);
		hk_json_kv_bool(j, "resumed", it->resumed);
		hk_json_key(j, "ms");
		hk_json_int(j, it->ms);
		hk_json_key(j, "exit_status");
		hk_json_int(j, it->exit_status);
		jopt_bytes(j, "log", it->log);
		/* How the build got its closure: run data, since it depends on what the store
		 * held before (an earlier build's imports, a bundle). */
		hk_json_key(j, "closure_downloaded");
		if (it->closure_known)
			hk_json_uint(j, it->closure_downloaded);
		else
			hk_json_null(j);
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
		hk_json_key(j, hk_sweep_outcome_name((enum hk_sweep_outcome)o));
		hk_json_uint(j, s->counts[o]);
	}
	hk_json_key(j, "measured");
	hk_json_uint(j, s->measured);
	hk_json_key(j, "failed_builds");
	hk_json_uint(j, s->failed_builds);
	hk_json_kv_uint(j, "unpinned", s->unpinned);
	hk_json_kv_uint(j, "unpinned_measured", s->unpinned_measured);
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
	if (s->debian) {
		hk_json_key(j, "debian");
		hk_json_obj_begin(j);
		hk_json_kv_uint(j, "sources", s->debian);
		/* The Debian items' classes alone (the counts above mix them with recipes'). */
		hk_json_key(j, "classes");
		hk_json_obj_begin(j);
		for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
			if (o != HK_SWEEP_DECLARABLE && o != HK_SWEEP_IRREDUCIBLE)
				hk_json_kv_uint(j, hk_sweep_outcome_name((enum hk_sweep_outcome)o),
						s->deb_counts[o]);
		hk_json_obj_end(j);
		hk_json_key(j, "named");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < s->n_named; i++) {
			hk_json_obj_begin(j);
			jopt_str(j, "package", s->named[i].package);
			hk_json_kv_uint(j, "sources", s->named[i].sources);
			hk_json_kv_uint(j, "missing", s->named[i].missing);
			hk_json_kv_uint(j, "influences", s->named[i].influences);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_key(j, "influences");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < s->n_influences; i++) {
			const struct hk_sweep_influence *x = &s->influences[i];
			hk_json_obj_begin(j);
			jopt_str(j, "package", x->probe->package);
			jopt_str(j, "version", x->probe->version);
			jopt_bytes(j, "key", x->item->key);
			jopt_str(j, "source", x->item->deb->source);
			hk_json_kv_uint(j, "n_differences", x->probe->n_differences);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_obj_end(j);
	}
	hk_json_obj_end(j);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

void hk_sweep_item_times(const struct hk_sweep_doc *d, bool debian_only,
			 struct hk_sweep_times *t)
{
	memset(t, 0, sizeof(*t));
	int64_t *ms = hk_xcalloc(d->n_items + 1, sizeof(int64_t));
	/* A build the interruption cut short took a time that is no build's. */
	for (size_t i = 0; i < d->n_items; i++)
		if ((d->items[i].exit_status >= 0 || d->items[i].ms > 0) &&
		    d->items[i].outcome != HK_SWEEP_NOT_BUILT &&
		    (!debian_only || d->items[i].deb))
			ms[t->n++] = d->items[i].ms;
	if (t->n) {
		qsort(ms, t->n, sizeof(int64_t), cmp_i64);
		for (size_t i = 0; i < t->n; i++)
			t->total_ms += ms[i];
		/* The nearest rank: the smallest time with at least p % of the times at or
		 * below it. */
		t->median_ms = ms[(t->n * 50 + 99) / 100 - 1];
		t->p95_ms = ms[(t->n * 95 + 99) / 100 - 1];
		t->max_ms = ms[t->n - 1];
	}
	free(ms);
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
	hk_json_key(j, "interrupted");
	if (d->interrupted)
		hk_json_int(j, d->interrupted);
	else
		hk_json_null(j);
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
		/* Time per item (each build's wall time, also of items resumed from an earlier
		 * run): what a plan for a bigger catalogue starts from. */
		struct hk_sweep_times t;
		hk_sweep_item_times(d, false, &t);
		hk_json_key(j, "item_ms");
		hk_json_obj_begin(j);
		hk_json_kv_uint(j, "items", t.n);
		hk_json_key(j, "total");
		hk_json_int(j, t.total_ms);
		hk_json_key(j, "median");
		hk_json_int(j, t.median_ms);
		hk_json_key(j, "p95");
		hk_json_int(j, t.p95_ms);
		hk_json_key(j, "max");
		hk_json_int(j, t.max_ms);
		hk_json_obj_end(j);
		hk_json_obj_end(j);
	}
	hk_json_obj_end(j);
	hk_sweep_summary_free(&s);
}

static int outcome_from_name(const char *s)
{
	for (int o = 0; s && o < HK_SWEEP_OUTCOME_COUNT; o++)
		if (strcmp(s, hk_sweep_outcome_name((enum hk_sweep_outcome)o)) == 0)
			return o;
	return -1;
}

static char **strs_parse(const struct hk_jval *arr, size_t *n)
{
	size_t len = arr && arr->type == HK_JARR ? arr->len : 0;
	char **v = hk_xcalloc(len + 1, sizeof(char *));
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		size_t l;
		char *s = hk_jval_bytes(&arr->items[i], &l);
		if (s)
			v[(*n)++] = s;
	}
	return v;
}

static int findings_parse(const struct hk_jval *arr, struct hk_sweep_finding **out, size_t *n,
			  const char *where, struct hk_error *err)
{
	size_t len = arr && arr->type == HK_JARR ? arr->len : 0;
	*out = hk_xcalloc(len + 1, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		const struct hk_jval *f = &arr->items[i];
		const char *pkg = jstr(f, "package");
		if (!pkg)
			continue;
		struct hk_sweep_finding *x = &(*out)[(*n)++];
		x->package = hk_xstrdup(pkg);
		x->version = dup_or_null(jstr(f, "version"));
		x->phase = dup_or_null(jstr(f, "phase"));
		x->path = jbytes_or_null(f, "path");
		x->exe = jbytes_or_null(f, "exe");
		int64_t p;
		x->paths = jint(f, "paths", &p) && p > 0 ? (uint64_t)p : 1;
		x->from_log = hk_jobj_bool(f, "from_log");
		const struct hk_jval *dec = hk_jobj_get(f, "decision");
		if (dec && dec->type == HK_JOBJ) {
			if (!hk_sweep_probe_class_of_name(jstr(dec, "class"), &x->decision))
				return hk_fail(err, EINVAL, "%s: probe %s: a decision whose class "
							    "is not inert, influence or undecided",
					       where, pkg);
			x->decided = true;
			x->why = jbytes_or_null(dec, "why");
			x->differences = strs_parse(hk_jobj_get(dec, "differences"), &x->n_listed);
			x->n_differences = jint(dec, "n_differences", &p) && p > 0 ? (size_t)p
										     : x->n_listed;
		}
	}
	return 0;
}

static int deb_parse(const struct hk_jval *deb, struct hk_sweep_item *it, const char *where,
		     size_t idx, struct hk_error *err)
{
	struct hk_sweep_deb *d = it->deb = hk_xcalloc(1, sizeof(*d));
	d->source = dup_or_null(jstr(deb, "source"));
	d->dsc_sha256 = dup_or_null(jstr(deb, "dsc_sha256"));
	const struct hk_jval *cls = hk_jobj_get(deb, "class");
	if (cls && cls->type != HK_JNULL) {
		if (!hk_sweep_dsc_class_of_name(jstr(deb, "class"), &d->cls))
			return hk_fail(err, EINVAL, "%s: recipe %zu: debian.class is not a "
						    "class of a Debian package", where, idx);
		d->has_class = true;
	}
	int64_t x;
	d->closure = jint(deb, "closure", &x) && x > 0 ? (size_t)x : 0;
	d->unattributed = jint(deb, "unattributed", &x) && x > 0 ? (size_t)x : 0;
	d->converse = hk_jobj_bool(deb, "converse");
	hk_autofree char *at = hk_xasprintf("%s: recipe %zu", where, idx);
	if (findings_parse(hk_jobj_get(deb, "missing"), &d->missing, &d->n_missing, at, err) < 0 ||
	    findings_parse(hk_jobj_get(deb, "probes"), &d->probes, &d->n_probes, at, err) < 0)
		return -1;
	const struct hk_jval *uo = hk_jobj_get(deb, "unopened");
	size_t nu = uo && uo->type == HK_JARR ? uo->len : 0;
	d->unopened = hk_xcalloc(nu + 1, sizeof(char *));
	for (size_t i = 0; i < nu; i++)
		if (uo->items[i].type == HK_JSTR)
			d->unopened[d->n_unopened++] = hk_xstrdup(uo->items[i].str);
	d->confirm = dup_or_null(jstr(deb, "confirm"));
	const struct hk_jval *dec = hk_jobj_get(deb, "decide");
	if (dec && dec->type == HK_JOBJ) {
		d->decide_asked = true;
		d->decide_not_run = jbytes_or_null(dec, "not_run");
	}
	return 0;
}

static int item_parse(const struct hk_jval *v, struct hk_sweep_item *it, const char *where,
		      size_t idx, struct hk_error *err)
{
	memset(it, 0, sizeof(*it));
	it->key = jbytes_or_null(v, "key");
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
	const struct hk_jval *base = hk_jobj_get(v, "base");
	it->base_id = dup_or_null(jstr(base, "id"));
	it->base_name = dup_or_null(jstr(base, "name"));
	it->base_pinned = hk_jobj_bool(base, "pinned");
	it->failed_phase = dup_or_null(jstr(v, "failed_phase"));
	const struct hk_jval *f = hk_jobj_get(v, "failure");
	if (f && f->type == HK_JOBJ) {
		it->fail_code = dup_or_null(jstr(f, "code"));
		it->reason = jbytes_or_null(f, "reason");
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
		sd->path = jbytes_or_null(d, "path");
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
		sd->exe = jbytes_or_null(d, "exe");
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
	const struct hk_jval *deb = hk_jobj_get(v, "debian");
	if (deb && deb->type == HK_JOBJ && deb_parse(deb, it, where, idx, err) < 0) {
		hk_sweep_item_free(it);
		return -1;
	}
	const struct hk_jval *run = hk_jobj_get(v, "run");
	if (run && run->type == HK_JOBJ) {
		it->resumed = hk_jobj_bool(run, "resumed");
		it->artifact = dup_or_null(jstr(run, "artifact"));
		it->log = jbytes_or_null(run, "log");
		int64_t x;
		it->ms = jint(run, "ms", &x) ? x : 0;
		it->exit_status = jint(run, "exit_status", &x) ? (int)x : -1;
		it->closure_known = jint(run, "closure_downloaded", &x) && x >= 0;
		it->closure_downloaded = it->closure_known ? (size_t)x : 0;
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
	/* Any value but null is an interruption: a result that cannot say it is whole is not. */
	const struct hk_jval *intr = hk_jobj_get(v, "interrupted");
	int64_t sig = 0;
	if (intr && intr->type != HK_JNULL)
		out->interrupted = jint(v, "interrupted", &sig) && sig > 0 && sig < 256 ? (int)sig : 1;
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
		out->store = jbytes_or_null(run, "store");
	}
out:
	hk_jval_free(v);
	if (rc < 0)
		hk_sweep_doc_free(out);
	return rc;
}

