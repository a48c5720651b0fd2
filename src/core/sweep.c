/* The sweep's pure part: items, outcome rule, shards, merge and summary (docs/sweep.md); the
 * result document's codec is sweep_json.c, its rendering for people src/engine/sweep_render.c.
 * No process, no file system: the orchestrator passes text and a classifier in. */
#include "core/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/build_failure.h"
#include "core/strset.h"
#include "core/sweep_internal.h"
#include "core/util.h"

static const char *const outcome_names[HK_SWEEP_OUTCOME_COUNT] = {
	"hermetic", "declarable", "irreducible", "no_evidence", "failed", "probes_only",
	"missing_build_depends", "fetch_failed", "timed_out",
};
static const char *const outcome_labels[HK_SWEEP_OUTCOME_COUNT] = {
	"Hermetic", "only declarable debt", "irreducible debt", "no evidence", "failed",
	"probes only", "missing Build-Depends", "fetch failed", "timed out",
};

const char *hk_sweep_outcome_name(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_names[o] : NULL;
}

const char *hk_sweep_outcome_label(enum hk_sweep_outcome o)
{
	return (unsigned)o < HK_SWEEP_OUTCOME_COUNT ? outcome_labels[o] : NULL;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void findings_free(struct hk_sweep_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].package);
		free(f[i].version);
		free(f[i].phase);
		free(f[i].path);
		free(f[i].exe);
	}
	free(f);
}

void hk_sweep_deb_free(struct hk_sweep_deb *d)
{
	if (!d)
		return;
	free(d->source);
	free(d->dsc_sha256);
	findings_free(d->missing, d->n_missing);
	findings_free(d->probes, d->n_probes);
	free_strv(d->unopened, d->n_unopened);
	free(d);
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
	for (size_t i = 0; i < it->n_debts; i++) {
		free(it->debts[i].path);
		free_strv(it->debts[i].providers, it->debts[i].n_providers);
		free(it->debts[i].exe);
	}
	free(it->debts);
	free_strv(it->policy_bugs, it->n_policy_bugs);
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
static bool fail_is(const struct hk_sweep_item *it, const char *code)
{
	return it->fail_code && strcmp(it->fail_code, code) == 0;
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

/* A Debian source package, as its report decides (docs/sweep.md, "Debian source packages"):
 *  1. the source or the closure's .debs could not be fetched       -> fetch failed
 *  2. no phase ran                                                  -> failed
 *  3. a phase whose verdict is NoEvidence                          -> no evidence
 *  4. a missing Build-Depends (denied only in phases that failed)  -> missing Build-Depends
 *  5. a phase failed, or the build stopped                         -> failed
 *  6. a phase without a verdict                                     -> no evidence
 *  7. every phase Hermetic (policy bugs aside)                      -> Hermetic
 *  8. otherwise: the build completed, denied only what it went on without -> probes only */
static enum hk_sweep_outcome deb_outcome(const struct hk_sweep_item *it)
{
	if (fail_is(it, HK_SWEEP_FAIL_FETCH))
		return HK_SWEEP_FETCH_FAILED;
	if (it->n_phases == 0)
		return HK_SWEEP_FAILED;
	for (size_t i = 0; i < it->n_phases; i++)
		if (it->phases[i].state && strcmp(it->phases[i].state, "NoEvidence") == 0)
			return HK_SWEEP_NOEVIDENCE;
	if (it->deb->n_missing)
		return HK_SWEEP_MISSING;
	if (it->fail_code || it->failed_phase)
		return HK_SWEEP_FAILED;
	for (size_t i = 0; i < it->n_phases; i++)
		if (!it->phases[i].state)
			return HK_SWEEP_NOEVIDENCE;
	return phases_clean(it) ? HK_SWEEP_HERMETIC : HK_SWEEP_PROBES;
}

enum hk_sweep_outcome hk_sweep_outcome_of(const struct hk_sweep_item *it)
{
	/* A build stopped by the sweep's limit measured nothing, whatever it had seen. */
	if (fail_is(it, HK_SWEEP_FAIL_TIMEOUT))
		return HK_SWEEP_TIMED_OUT;
	/* Nor did one the sweep's own stop cut short. */
	if (fail_is(it, HK_SWEEP_FAIL_INTERRUPTED))
		return HK_SWEEP_FAILED;
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

/* Whether a phase meets `path` for the first time in the class `cls` ('d' debt, 'e'
 * expected, 'p' policy bug): the phase's counts count paths, not the (path, rights) pairs of
 * its verdict (docs/diagnosis.md, "One path, one entry").  A denial without a path counts. */
static bool first_in_phase(struct hk_strset *counted, char cls, const char *path)
{
	if (!path)
		return true;
	return hk_strset_add_owned(counted, hk_xasprintf("%c%s", cls, path));
}

int hk_sweep_item_from_build(struct hk_sweep_item *it, const struct hk_jval *b,
			     hk_sweep_in_base_fn in_base, void *ctx, struct hk_error *err)
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
	free(it->base_id);
	free(it->base_name);
	free(it->artifact);
	free(it->failed_phase);
	const struct hk_jval *base = hk_jobj_get(b, "base");
	it->base_id = dup_or_null(jstr(base, "id"));
	it->base_name = dup_or_null(jstr(base, "name"));
	it->base_pinned = hk_jobj_bool(base, "pinned");
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
	it->stopped_by = failure.signal;
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
		struct hk_strset bugs = HK_STRSET_INIT, counted = HK_STRSET_INIT;
		for (size_t k = 0; pb && pb->type == HK_JARR && k < pb->len; k++) {
			size_t n;
			char *bp = hk_jval_bytes(hk_jobj_get(&pb->items[k], "path"), &n);
			if (bp)
				hk_strset_add_owned(&bugs, bp);
		}
		/* The id of the phase's stored evidence object (engine/report.h), or null. */
		sp->evidence = dup_or_null(jstr(report, "evidence"));
		const struct hk_jval *reasons = hk_jobj_get(verdict, "reasons");
		if (reasons && reasons->type == HK_JARR && reasons->len > 0)
			sp->reason = dup_or_null(jstr(&reasons->items[0], "code"));
		const struct hk_jval *den = hk_jobj_get(verdict, "denials");
		for (size_t k = 0; den && den->type == HK_JARR && k < den->len; k++) {
			const struct hk_jval *d = &den->items[k];
			const char *cls = jstr(d, "class");
			/* Everything not classified as expected is debt: the build's diagnosis may
			 * refine it with this machine's store; the sweep classifies once, later,
			 * against one store for the whole catalogue (hk_sweep_classify). */
			size_t plen = 0;
			char *path = NULL;
			const struct hk_jval *pv = hk_jobj_get(d, "path");
			if (pv && pv->type != HK_JNULL)
				path = hk_jval_bytes(pv, &plen);
			if (cls && strcmp(cls, "expected") == 0) {
				sp->expected += first_in_phase(&counted, 'e', path);
				free(path);
				continue;
			}
			if (path && hk_strset_contains(&bugs, path)) {
				sp->policy_bug += first_in_phase(&counted, 'p', path);
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
			if (!path) {
				const char *bl = jstr(d, "blockers");
				path = hk_xasprintf("[%s]", bl ? bl : "unknown");
			}
			sp->debt += first_in_phase(&counted, 'd', path);
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
				sd->in_base = sd->path[0] == '/' && in_base && in_base(ctx, sd->path);
				sd->irreducible = true;
			}
			free(path);
			sd->records += count > 0 ? (uint64_t)count : 1;
			if (i < 32)
				sd->phases |= 1u << i;
		}
		hk_strset_free(&bugs);
		hk_strset_free(&counted);
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

/* ---- reading a Debian build's report ---- */

static char *jbytes_or_null(const struct hk_jval *obj, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(obj, key);
	if (!v || v->type == HK_JNULL)
		return NULL;
	size_t n;
	return hk_jval_bytes(v, &n);
}

/* "debian/rules build-arch" (the report's words for a phase) -> "build", the phase's name in
 * the build result, so that a finding leads to the phase's evidence object. */
static char *phase_of_target(const struct hk_sweep_item *it, const char *target)
{
	if (!target)
		return NULL;
	static const char pre[] = "debian/rules ";
	const char *t = strncmp(target, pre, sizeof(pre) - 1) == 0 ? target + sizeof(pre) - 1
								    : target;
	for (size_t i = 0; i < it->n_phases; i++) {
		size_t l = strlen(it->phases[i].phase);
		if (strncmp(t, it->phases[i].phase, l) == 0 &&
		    (t[l] == '\0' || strcmp(t + l, "-arch") == 0 || strcmp(t + l, "-indep") == 0))
			return hk_xstrdup(it->phases[i].phase);
	}
	return hk_xstrdup(t);
}

static void add_finding(struct hk_sweep_finding **v, size_t *n, struct hk_sweep_finding f)
{
	*v = hk_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = f;
}

static void read_findings(struct hk_sweep_item *it, const struct hk_jval *arr,
			  struct hk_sweep_finding **v, size_t *n)
{
	for (size_t i = 0; arr && arr->type == HK_JARR && i < arr->len; i++) {
		const struct hk_jval *f = &arr->items[i];
		const char *pkg = jstr(f, "package");
		if (!pkg)
			continue;
		/* A trap of the store view stands for the package's symlink: the link is the
		 * path the build used (as the report's own sentence names it). */
		const char *how = jstr(f, "how");
		char *via = jbytes_or_null(f, "via");
		char *path = jbytes_or_null(f, "path");
		if (how && strcmp(how, "link") == 0 && via) {
			free(path);
			path = via;
			via = NULL;
		}
		free(via);
		int64_t paths = 1;
		jint(f, "paths", &paths);
		add_finding(v, n, (struct hk_sweep_finding){
			.package = hk_xstrdup(pkg),
			.version = dup_or_null(jstr(f, "version")),
			.phase = phase_of_target(it, jstr(f, "phase")),
			.path = path,
			.exe = jbytes_or_null(f, "exe"),
			.paths = paths > 0 ? (uint64_t)paths : 1,
		});
	}
}

static int cmp_finding(const void *a, const void *b)
{
	return strcmp(((const struct hk_sweep_finding *)a)->package,
		      ((const struct hk_sweep_finding *)b)->package);
}

int hk_sweep_item_from_dsc(struct hk_sweep_item *it, const struct hk_jval *rep,
			   struct hk_error *err)
{
	const struct hk_jval *dsc = hk_jobj_get(rep, "dsc");
	if (!rep || rep->type != HK_JOBJ || !hk_jobj_get(rep, "missing") ||
	    !hk_jobj_get(rep, "probes"))
		return hk_fail(err, EINVAL, "not a harkaq build --dsc report (no missing or probes)");
	const struct hk_jval *result = hk_jobj_get(rep, "result");
	if (result && result->type == HK_JOBJ) {
		if (hk_sweep_item_from_build(it, result, NULL, NULL, err) < 0)
			return -1;
	}
	/* The report names packages, not paths: the build's raw debt paths are not the item's
	 * debt (they would be classified against the store as a recipe's are). */
	for (size_t i = 0; i < it->n_debts; i++) {
		free(it->debts[i].path);
		free_strv(it->debts[i].providers, it->debts[i].n_providers);
		free(it->debts[i].exe);
	}
	free(it->debts);
	it->debts = NULL;
	it->n_debts = 0;
	const char *error = jstr(rep, "error");
	if (!it->fail_code && error) {
		it->fail_code = hk_xstrdup(HK_SWEEP_FAIL_SETUP);
		it->reason = hk_xstrdup(error);
	}
	hk_sweep_deb_free(it->deb);
	struct hk_sweep_deb *d = it->deb = hk_xcalloc(1, sizeof(*d));
	if (dsc && dsc->type == HK_JOBJ) {
		d->source = dup_or_null(jstr(dsc, "source"));
		d->dsc_sha256 = dup_or_null(jstr(dsc, "sha256"));
		free(it->name);
		free(it->version);
		it->name = dup_or_null(d->source);
		it->version = dup_or_null(jstr(dsc, "version"));
	}
	const struct hk_jval *cl = hk_jobj_get(rep, "closure");
	d->closure = cl && cl->type == HK_JARR ? cl->len : 0;
	read_findings(it, hk_jobj_get(rep, "missing"), &d->missing, &d->n_missing);
	read_findings(it, hk_jobj_get(rep, "probes"), &d->probes, &d->n_probes);
	/* A package named from the build log (a missing aclocal macro): a need when the build
	 * failed, a probe otherwise — as the report says it. */
	const struct hk_jval *fl = hk_jobj_get(rep, "from_log");
	for (size_t i = 0; fl && fl->type == HK_JARR && i < fl->len; i++) {
		const struct hk_jval *f = &fl->items[i];
		const char *pkg = jstr(f, "package");
		if (!pkg)
			continue;
		struct hk_sweep_finding x = {
			.package = hk_xstrdup(pkg),
			.version = dup_or_null(jstr(f, "version")),
			.phase = it->failed_phase ? hk_xstrdup(it->failed_phase) : NULL,
			.path = jbytes_or_null(f, "file"),
			.paths = 1,
			.from_log = true,
		};
		if (hk_jobj_bool(f, "need"))
			add_finding(&d->missing, &d->n_missing, x);
		else
			add_finding(&d->probes, &d->n_probes, x);
	}
	if (d->n_missing > 1)
		qsort(d->missing, d->n_missing, sizeof(*d->missing), cmp_finding);
	if (d->n_probes > 1)
		qsort(d->probes, d->n_probes, sizeof(*d->probes), cmp_finding);
	const struct hk_jval *un = hk_jobj_get(rep, "unattributed");
	for (size_t i = 0; un && un->type == HK_JARR && i < un->len; i++) {
		const char *cls = jstr(&un->items[i], "class");
		d->unattributed += !cls || strcmp(cls, "policy_bug") != 0;
	}
	const struct hk_jval *conv = hk_jobj_get(rep, "converse");
	d->converse = hk_jobj_bool(conv, "computed");
	const struct hk_jval *uo = conv ? hk_jobj_get(conv, "unopened") : NULL;
	for (size_t i = 0; uo && uo->type == HK_JARR && i < uo->len; i++) {
		const char *field = jstr(&uo->items[i], "field");
		const char *group = jstr(&uo->items[i], "group");
		if (!group)
			continue;
		d->unopened = hk_xrealloc(d->unopened, (d->n_unopened + 1) * sizeof(char *));
		d->unopened[d->n_unopened++] = hk_xasprintf("%s: %s", field ? field : "?", group);
	}
	if (d->n_unopened > 1)
		qsort(d->unopened, d->n_unopened, sizeof(char *), cmp_str_ptr);
	it->outcome = hk_sweep_outcome_of(it);
	return 0;
}

void hk_sweep_classify(struct hk_sweep_item *items, size_t n, hk_sweep_classify_fn classify,
		       void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		struct hk_sweep_item *it = &items[i];
		for (size_t k = 0; k < it->n_debts; k++) {
			struct hk_sweep_debt *d = &it->debts[k];
			free_strv(d->providers, d->n_providers);
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

/* Every package the Debian items' reports named, with how many source packages named it (a
 * package named as missing and as a probe by one source counts once, as missing). */
static void summarise_named(const struct hk_sweep_item *items, size_t n,
			    struct hk_sweep_summary *s)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_deb *d = items[i].deb;
		if (!d)
			continue;
		s->debian++;
		for (int pass = 0; pass < 2; pass++) {
			const struct hk_sweep_finding *f = pass ? d->probes : d->missing;
			size_t nf = pass ? d->n_probes : d->n_missing;
			for (size_t k = 0; k < nf; k++) {
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
			}
		}
	}
	if (s->n_named > 1)
		qsort(s->named, s->n_named, sizeof(*s->named), cmp_named);
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
		total += items[i].n_debts;
	const char **all = hk_xcalloc(total + 1, sizeof(char *));
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < items[i].n_debts; k++)
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
	summarise_named(items, n, s);
	hk_strset_free(&paths);
	hk_strset_free(&base);
}

void hk_sweep_summary_free(struct hk_sweep_summary *s)
{
	free(s->paths);
	free(s->named);
	hk_strset_free(&s->policy_bug_paths);
	memset(s, 0, sizeof(*s));
}
