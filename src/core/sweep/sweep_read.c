/* The documents a sweep reads from its builds (core/sweep/sweep.h), each by one function that takes
 * its bytes and fills the item: the rest of the sweep reads the item's fields, never a JSON
 * member and never a log.
 *
 *   hk_sweep_item_from_build          `harkaq build --result-out` (a recipe's build)
 *   hk_sweep_item_from_debian_build   harkaq.sweep.debian-build.v1 (a Debian item's child:
 *                                     its fetch, and the --json report of `harkaq build --dsc`,
 *                                     which holds a build result of the first kind) */
#include "core/sweep/sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/evidence/build_failure.h"
#include "core/basic/strset.h"
#include "core/sweep/sweep_internal.h"
#include "core/basic/util.h"

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parses `text`, which must be a JSON object; `what` names the document in the error. */
static int parse_object(const char *text, size_t len, const char *what, struct hk_jval **out,
			struct hk_error *err)
{
	*out = NULL;
	if (hk_json_parse(text ? text : "", text ? len : 0, out, err) < 0)
		return hk_wrap(err, "not %s", what);
	if ((*out)->type != HK_JOBJ) {
		hk_jval_free(*out);
		*out = NULL;
		return hk_fail(err, EINVAL, "not %s (not a JSON object)", what);
	}
	return 0;
}

/* ---- a build result ---- */

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

static void add_policy_bug(struct hk_sweep_item *it, char *path)
{
	for (size_t q = 0; q < it->n_policy_bugs; q++)
		if (strcmp(it->policy_bugs[q], path) == 0) {
			free(path);
			return;
		}
	it->policy_bugs = hk_xrealloc(it->policy_bugs, (it->n_policy_bugs + 1) * sizeof(char *));
	it->policy_bugs[it->n_policy_bugs++] = path;
}

/* One denial of phase `i` that is not expected: a policy bug, or the item's debt. */
static void read_denial(struct hk_sweep_item *it, size_t i, const struct hk_jval *d,
			const struct hk_strset *bugs, struct hk_strset *counted,
			hk_sweep_in_base_fn in_base, void *ctx)
{
	struct hk_sweep_phase *sp = &it->phases[i];
	char *path = jbytes_or_null(d, "path");
	if (path && hk_strset_contains(bugs, path)) {
		sp->policy_bug += first_in_phase(counted, 'p', path);
		add_policy_bug(it, path);
		return;
	}
	if (!path) {
		const char *bl = jstr(d, "blockers");
		path = hk_xasprintf("[%s]", bl ? bl : "unknown");
	}
	sp->debt += first_in_phase(counted, 'd', path);
	int64_t count = 1;
	jint(d, "count", &count);
	struct hk_sweep_debt *sd = find_debt(it, path);
	if (!sd) {
		it->debts = hk_xrealloc(it->debts, (it->n_debts + 1) * sizeof(*it->debts));
		sd = &it->debts[it->n_debts++];
		memset(sd, 0, sizeof(*sd));
		sd->path = path;
		path = NULL;
		sd->exe = jbytes_or_null(d, "exe");
		sd->in_base = sd->path[0] == '/' && in_base && in_base(ctx, sd->path);
		sd->irreducible = true;
	}
	free(path);
	sd->records += count > 0 ? (uint64_t)count : 1;
	if (i < 32)
		sd->phases |= 1u << i;
}

/* One phase of a build result: its verdict, its evidence object, its denials. */
static void read_phase(struct hk_sweep_item *it, const struct hk_jval *ph,
		       hk_sweep_in_base_fn in_base, void *ctx)
{
	size_t i = it->n_phases++;
	struct hk_sweep_phase *sp = &it->phases[i];
	const char *name = jstr(ph, "phase");
	sp->phase = hk_xstrdup(name ? name : "?");
	int64_t v;
	sp->exit_code = jint(ph, "exit_code", &v) ? (int)v : -1;
	sp->ms = jint(ph, "ms", &v) ? v : 0;
	const struct hk_jval *verdict = hk_jobj_get(ph, "verdict");
	if (!verdict || verdict->type != HK_JOBJ)
		return;
	sp->state = dup_or_null(jstr(verdict, "state"));
	/* The diagnosis (docs/diagnosis.md) names denials on the sandbox's contract surfaces:
	 * harkaq's bug, kept apart from the recipe's debt. */
	const struct hk_jval *report = hk_jobj_get(ph, "report");
	const struct hk_jval *pb = hk_jobj_get(report, "policy_bug");
	struct hk_strset bugs = HK_STRSET_INIT, counted = HK_STRSET_INIT;
	for (size_t k = 0; pb && pb->type == HK_JARR && k < pb->len; k++) {
		char *bp = jbytes_or_null(&pb->items[k], "path");
		if (bp)
			hk_strset_add_owned(&bugs, bp);
	}
	/* The id of the phase's stored evidence object (engine/build/report.h), or null. */
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
		if (cls && strcmp(cls, "expected") == 0) {
			char *path = jbytes_or_null(d, "path");
			sp->expected += first_in_phase(&counted, 'e', path);
			free(path);
			continue;
		}
		read_denial(it, i, d, &bugs, &counted, in_base, ctx);
	}
	hk_strset_free(&bugs);
	hk_strset_free(&counted);
}

static int read_build(struct hk_sweep_item *it, const struct hk_jval *b,
		      hk_sweep_in_base_fn in_base, void *ctx, struct hk_error *err)
{
	const struct hk_jval *recipe = hk_jobj_get(b, "recipe");
	const struct hk_jval *phases = hk_jobj_get(b, "phases");
	if (!recipe || recipe->type != HK_JOBJ || !phases || phases->type != HK_JARR)
		return hk_fail(err, EINVAL, "not a harkaq build result (no recipe or phases)");
	struct hk_build_failure failure;
	if (hk_build_failure_decode(b, &failure, err) < 0)
		return hk_wrap(err, "not a harkaq build result");
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
	it->stopped_by = failure.signal;
	char *error = jbytes_or_null(b, "error");
	if (error && !it->fail_code) {
		it->fail_code = hk_xstrdup(fail_code_of(failure.stage));
		free(it->reason);
		it->reason = error;
		error = NULL;
	}
	free(error);

	it->phases = hk_xcalloc(phases->len + 1, sizeof(*it->phases));
	for (size_t i = 0; i < phases->len; i++)
		read_phase(it, &phases->items[i], in_base, ctx);
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
		free(it->reason);
		it->reason = hk_xasprintf("%s exited with status %d (see the build log)",
					  it->failed_phase, code);
	}
	it->outcome = hk_sweep_outcome_of(it);
	return 0;
}

int hk_sweep_item_from_build(struct hk_sweep_item *it, const char *text, size_t len,
			     hk_sweep_in_base_fn in_base, void *ctx, struct hk_error *err)
{
	struct hk_jval *v;
	int rc = parse_object(text, len, "a harkaq build result", &v, err);
	if (rc < 0)
		return rc;
	rc = read_build(it, v, in_base, ctx, err);
	hk_jval_free(v);
	return rc;
}

/* ---- a Debian build's report ---- */

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

/* A package named from the build log (a missing aclocal macro): a need when the build
 * failed, a probe otherwise — as the report says it. */
static void read_from_log(struct hk_sweep_item *it, const struct hk_jval *fl)
{
	struct hk_sweep_deb *d = it->deb;
	for (size_t i = 0; fl && fl->type == HK_JARR && i < fl->len; i++) {
		const struct hk_jval *f = &fl->items[i];
		const char *pkg = jstr(f, "package");
		if (!pkg)
			continue;
		struct hk_sweep_finding x = {
			.package = hk_xstrdup(pkg),
			.version = dup_or_null(jstr(f, "version")),
			.phase = dup_or_null(it->failed_phase),
			.path = jbytes_or_null(f, "file"),
			.paths = 1,
			.from_log = true,
		};
		if (hk_jobj_bool(f, "need"))
			add_finding(&d->missing, &d->n_missing, x);
		else
			add_finding(&d->probes, &d->n_probes, x);
	}
}

/* --decide-probes' answers (the report's "decide"), each onto its probe. */
static int read_decisions(struct hk_sweep_deb *d, const struct hk_jval *dec,
			  struct hk_error *err)
{
	if (!dec || dec->type != HK_JOBJ)
		return 0;
	d->decide_asked = true;
	d->decide_not_run = jbytes_or_null(dec, "not_run");
	const struct hk_jval *arr = hk_jobj_get(dec, "decisions");
	for (size_t i = 0; arr && arr->type == HK_JARR && i < arr->len; i++) {
		const struct hk_jval *x = &arr->items[i];
		const char *pkg = jstr(x, "package");
		enum hk_probe_class cls;
		if (!pkg || !hk_sweep_probe_class_of_name(jstr(x, "class"), &cls))
			return hk_fail(err, EINVAL, "decide.decisions[%zu]: no package, or a class "
						    "that is not inert, influence or undecided", i);
		for (size_t k = 0; k < d->n_probes; k++) {
			struct hk_sweep_finding *f = &d->probes[k];
			if (f->from_log || strcmp(f->package, pkg) != 0)
				continue;
			f->decided = true;
			f->decision = cls;
			free(f->why);
			f->why = jbytes_or_null(x, "why");
			hk_sweep_strv_free(f->differences, f->n_listed);
			f->differences = NULL;
			f->n_listed = 0;
			const struct hk_jval *df = hk_jobj_get(x, "differences");
			size_t nd = df && df->type == HK_JARR ? df->len : 0;
			f->differences = hk_xcalloc(nd + 1, sizeof(char *));
			for (size_t q = 0; q < nd; q++) {
				size_t n;
				char *s = hk_jval_bytes(&df->items[q], &n);
				if (s)
					f->differences[f->n_listed++] = s;
			}
			int64_t all = 0;
			f->n_differences = jint(x, "n_differences", &all) && all > 0
						   ? (size_t)all : f->n_listed;
		}
	}
	return 0;
}

static int cmp_finding(const void *a, const void *b)
{
	return strcmp(((const struct hk_sweep_finding *)a)->package,
		      ((const struct hk_sweep_finding *)b)->package);
}

/* The --json report of `harkaq build --dsc` (hk_dsc_result_json). */
static int read_dsc_report(struct hk_sweep_item *it, const struct hk_jval *rep,
			   struct hk_error *err)
{
	if (!hk_jobj_get(rep, "missing") || !hk_jobj_get(rep, "probes"))
		return hk_fail(err, EINVAL, "not a harkaq build --dsc report (no missing or "
					    "probes)");
	const struct hk_jval *result = hk_jobj_get(rep, "result");
	if (result && result->type == HK_JOBJ && read_build(it, result, NULL, NULL, err) < 0)
		return hk_wrap(err, "its \"result\"");
	/* The report names packages, not paths: the build's raw debt paths are not the item's
	 * debt (they would be classified against the store as a recipe's are). */
	hk_sweep_debts_free(it);
	char *error = jbytes_or_null(rep, "error");
	if (!it->fail_code && error) {
		it->fail_code = hk_xstrdup(HK_SWEEP_FAIL_SETUP);
		free(it->reason);
		it->reason = error;
		error = NULL;
	}
	free(error);
	/* The source's name the sweep gave the item stays when the report has no .dsc. */
	char *source = it->deb ? it->deb->source : NULL;
	if (it->deb)
		it->deb->source = NULL;
	hk_sweep_deb_free(it->deb);
	struct hk_sweep_deb *d = it->deb = hk_xcalloc(1, sizeof(*d));
	d->source = source;
	const struct hk_jval *dsc = hk_jobj_get(rep, "dsc");
	if (dsc && dsc->type == HK_JOBJ && jstr(dsc, "source")) {
		free(d->source);
		d->source = dup_or_null(jstr(dsc, "source"));
		d->dsc_sha256 = dup_or_null(jstr(dsc, "sha256"));
		free(it->name);
		free(it->version);
		it->name = dup_or_null(d->source);
		it->version = dup_or_null(jstr(dsc, "version"));
	}
	const struct hk_jval *cls = hk_jobj_get(rep, "class");
	if (cls && cls->type != HK_JNULL) {
		if (!hk_sweep_dsc_class_of_name(jstr(rep, "class"), &d->cls))
			return hk_fail(err, EINVAL, "\"class\" is not a class of a Debian package "
						    "(core/debian/dsc_rules.h)");
		d->has_class = true;
	}
	const struct hk_jval *cl = hk_jobj_get(rep, "closure");
	d->closure = cl && cl->type == HK_JARR ? cl->len : 0;
	int64_t downloaded;
	it->closure_known = jint(rep, "closure_downloaded", &downloaded) && downloaded >= 0;
	it->closure_downloaded = it->closure_known ? (size_t)downloaded : 0;
	read_findings(it, hk_jobj_get(rep, "missing"), &d->missing, &d->n_missing);
	read_findings(it, hk_jobj_get(rep, "probes"), &d->probes, &d->n_probes);
	read_from_log(it, hk_jobj_get(rep, "from_log"));
	if (d->n_missing > 1)
		qsort(d->missing, d->n_missing, sizeof(*d->missing), cmp_finding);
	if (d->n_probes > 1)
		qsort(d->probes, d->n_probes, sizeof(*d->probes), cmp_finding);
	int rc = read_decisions(d, hk_jobj_get(rep, "decide"), err);
	if (rc < 0)
		return rc;
	d->confirm = dup_or_null(jstr(hk_jobj_get(rep, "confirm"), "answer"));
	const struct hk_jval *un = hk_jobj_get(rep, "unattributed");
	for (size_t i = 0; un && un->type == HK_JARR && i < un->len; i++) {
		const char *c = jstr(&un->items[i], "class");
		d->unattributed += !c || strcmp(c, "policy_bug") != 0;
	}
	const struct hk_jval *conv = hk_jobj_get(rep, "converse");
	d->converse = hk_jobj_bool(conv, "computed");
	const struct hk_jval *uo = hk_jobj_get(conv, "unopened");
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
	return 0;
}

int hk_sweep_item_from_debian_build(struct hk_sweep_item *it, const char *text, size_t len,
				    struct hk_error *err)
{
	static const char what[] = "a harkaq.sweep.debian-build.v1 document";
	struct hk_jval *v;
	int rc = parse_object(text, len, what, &v, err);
	if (rc < 0)
		return rc;
	const char *kind = jstr(v, "kind");
	const struct hk_jval *fetch = hk_jobj_get(v, "fetch");
	const struct hk_jval *rep = hk_jobj_get(v, "report");
	if (!kind || strcmp(kind, "harkaq.sweep.debian-build.v1") != 0 || !fetch || !rep ||
	    (fetch->type != HK_JNULL && fetch->type != HK_JOBJ) ||
	    (rep->type != HK_JNULL && rep->type != HK_JOBJ)) {
		rc = hk_fail(err, EINVAL, "not %s (kind, fetch and report)", what);
		goto out;
	}
	/* The report of a build whose closure was not fetched still names the .dsc. */
	if (rep->type == HK_JOBJ && (rc = read_dsc_report(it, rep, err)) < 0) {
		hk_wrap(err, "%s: its \"report\"", what);
		goto out;
	}
	if (!it->deb)
		it->deb = hk_xcalloc(1, sizeof(*it->deb));
	if (fetch->type == HK_JOBJ) {
		const char *fwhat = jstr(fetch, "what");
		char *why = jbytes_or_null(fetch, "reason");
		char *msg = hk_xasprintf("%s: %s", fwhat ? fwhat : "fetch",
					 why ? why : "(no reason given)");
		hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_FETCH, msg);
		free(msg);
		free(why);
	}
	it->outcome = hk_sweep_outcome_of(it);
out:
	hk_jval_free(v);
	return rc;
}
