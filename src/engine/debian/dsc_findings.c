/* The findings of a Debian build's evidence (dsc_findings.h). */
#include "engine/debian/dsc_findings.h"

#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"

/* The Debian target a phase ran, as the sentence names it. */
static char *phase_target(const struct hk_dsc_result *r, const char *label)
{
	const char *suffix = r->mode == HK_DSC_BUILD_ANY ? "-arch"
			     : r->mode == HK_DSC_BUILD_ALL ? "-indep" : "";
	if (strcmp(label, "clean") == 0)
		return hk_xstrdup("debian/rules clean");
	return hk_xasprintf("debian/rules %s%s", label, suffix);
}

const char *hk_dsc_verb(const char *blockers)
{
	if (!blockers)
		return "used";
	if (strstr(blockers, "fs.execute"))
		return "executed";
	if (strstr(blockers, "fs.read_file"))
		return "read";
	if (strstr(blockers, "fs.write_file") || strstr(blockers, "fs.make_") ||
	    strstr(blockers, "fs.remove_") || strstr(blockers, "fs.truncate"))
		return "wrote";
	return "used";
}

static struct dsc_finding *finding_for(struct dsc_findings *rep, const char *pkg)
{
	for (size_t i = 0; i < rep->n; i++)
		if (strcmp(rep->f[i].package, pkg) == 0)
			return &rep->f[i];
	rep->f = hk_xrealloc(rep->f, (rep->n + 1) * sizeof(*rep->f));
	struct dsc_finding *f = &rep->f[rep->n++];
	memset(f, 0, sizeof(*f));
	f->package = hk_xstrdup(pkg);
	f->paths = (struct hk_strset)HK_STRSET_INIT;
	f->failed_paths = (struct hk_strset)HK_STRSET_INIT;
	return f;
}

/* An expected denial, merged by path: the first phase and program that met it name it. */
static void add_expected(const struct hk_dsc_result *r, const struct phase_result *pr,
			 const struct hk_denial *d, struct dsc_findings *rep)
{
	const char *path = d->has_path ? d->path : NULL;
	for (size_t i = 0; path && i < rep->n_x; i++) {
		if (rep->x[i].path && strcmp(rep->x[i].path, path) == 0) {
			rep->x[i].count += d->count;
			return;
		}
	}
	rep->x = hk_xrealloc(rep->x, (rep->n_x + 1) * sizeof(*rep->x));
	struct dsc_expected *x = &rep->x[rep->n_x++];
	x->phase = phase_target(r, pr->label);
	x->exe = d->exe ? hk_xstrdup(d->exe) : NULL;
	x->count = d->count;
	x->entry = path ? hk_expect_match(&r->expect, path) : NULL;
	x->path = path ? hk_xstrdup(path) : NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? hk_xstrdup(s) : NULL;
}

/* The phase's denials with their diagnosis, typed (phase_result.diag: items[i] diagnoses
 * verdict.denials[i]). */
static void add_phase(const struct hk_dsc_result *r, const struct phase_result *pr,
		      struct dsc_findings *rep)
{
	if (!pr->has_verdict || !pr->has_diag)
		return;
	const struct hk_verdict *v = &pr->verdict;
	bool failed = hk_cage_failed(&pr->res);
	for (size_t i = 0; i < v->n_denials && i < pr->diag.n; i++) {
		const struct hk_denial *d = &v->denials[i];
		const struct hk_diag_item *g = &pr->diag.items[i];
		const char *path = d->has_path ? d->path : NULL;
		if (g->cls == HK_DIAG_EXPECTED) {
			rep->expected += d->count;
			add_expected(r, pr, d, rep);
			continue;
		}
		if (g->cls == HK_DIAG_DECLARABLE && g->n_providers > 0) {
			const struct hk_provider *best = &g->providers[0];
			struct dsc_finding *f = finding_for(rep, best->name);
			/* The first denial names the finding, or the first of a failed phase. */
			bool replace = !f->path || (failed && f->failed_paths.len == 0);
			f->count += d->count;
			if (path) {
				hk_strset_add(&f->paths, path);
				hk_strset_add(failed ? &f->failed_paths : &rep->survived, path);
			}
			if (replace) {
				free(f->phase);
				free(f->path);
				free(f->exe);
				free(f->blockers);
				free(f->how);
				free(f->via);
				free(f->version);
				free(f->origin);
				f->phase = phase_target(r, pr->label);
				f->path = dup_or_null(path);
				f->exe = dup_or_null(d->exe);
				f->blockers = dup_or_null(d->blockers);
				f->how = hk_xstrdup(hk_provider_how_name(best->how));
				f->via = dup_or_null(best->via);
				f->version = dup_or_null(best->version);
				f->origin = dup_or_null(best->origin);
			}
			continue;
		}
		rep->l = hk_xrealloc(rep->l, (rep->n_l + 1) * sizeof(*rep->l));
		struct dsc_loose *l = &rep->l[rep->n_l++];
		l->phase = phase_target(r, pr->label);
		l->path = dup_or_null(path);
		l->exe = dup_or_null(d->exe);
		l->class_ = hk_xstrdup(hk_diag_class_name(g->cls));
		l->reason = dup_or_null(g->reason);
	}
}

/* The used Build-Depends group listing `pkg` as one of several alternatives, when another
 * alternative satisfied it: the build read an alternative apt did not choose. */
static char *alternative_in(const struct hk_dsc_result *r, const char *pkg)
{
	for (size_t f = 0; f < HK_DSC_BUILD_CONFLICTS; f++) {
		const char *text = r->reduced[f];
		if (!text)
			continue;
		hk_autofree char *copy = hk_xstrdup(text);
		for (char *save = NULL, *g = strtok_r(copy, ",", &save); g;
		     g = strtok_r(NULL, ",", &save)) {
			if (!strchr(g, '|'))
				continue;
			hk_autofree char *alts = hk_xstrdup(g);
			for (char *s2 = NULL, *a = strtok_r(alts, "|", &s2); a;
			     a = strtok_r(NULL, "|", &s2)) {
				while (*a == ' ')
					a++;
				size_t n = strcspn(a, " :(");
				if (strlen(pkg) == n && strncmp(a, pkg, n) == 0) {
					while (*g == ' ')
						g++;
					return hk_xasprintf("%s: %s", hk_dsc_field_name(f), g);
				}
			}
		}
	}
	return NULL;
}

static int cmp_finding(const void *a, const void *b)
{
	return strcmp(((const struct dsc_finding *)a)->package, ((const struct dsc_finding *)b)->package);
}

void dsc_findings_of(const struct hk_dsc_result *r, struct dsc_findings *rep)
{
	memset(rep, 0, sizeof(*rep));
	if (!r->built)
		return;
	rep->survived = (struct hk_strset)HK_STRSET_INIT;
	for (size_t i = 0; i < r->build.n_phases; i++)
		add_phase(r, &r->build.phases[i], rep);
	/* A need: a path the build was denied only in phases that failed.  A path denied in a
	 * phase that went on is a probe the build survived, wherever else it was denied. */
	for (size_t i = 0; i < rep->n; i++)
		for (size_t k = 0; k < rep->f[i].failed_paths.len && !rep->f[i].need; k++)
			rep->f[i].need = !hk_strset_contains(&rep->survived,
							     rep->f[i].failed_paths.items[k]);
	for (size_t i = 0; i < rep->n; i++)
		rep->f[i].alternative_in = alternative_in(r, rep->f[i].package);
	if (rep->n)
		qsort(rep->f, rep->n, sizeof(*rep->f), cmp_finding);
}

void dsc_findings_free(struct dsc_findings *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct dsc_finding *f = &rep->f[i];
		free(f->package);
		free(f->version);
		free(f->origin);
		free(f->phase);
		free(f->path);
		free(f->exe);
		free(f->blockers);
		free(f->how);
		free(f->via);
		free(f->alternative_in);
		hk_strset_free(&f->paths);
		hk_strset_free(&f->failed_paths);
	}
	free(rep->f);
	hk_strset_free(&rep->survived);
	for (size_t i = 0; i < rep->n_l; i++) {
		free(rep->l[i].phase);
		free(rep->l[i].path);
		free(rep->l[i].exe);
		free(rep->l[i].class_);
		free(rep->l[i].reason);
	}
	free(rep->l);
	for (size_t i = 0; i < rep->n_x; i++) {
		free(rep->x[i].phase);
		free(rep->x[i].path);
		free(rep->x[i].exe);
	}
	free(rep->x);
}

void hk_dsc_store_needs(const struct hk_dsc_result *r, struct hk_strv *out)
{
	hk_dsc_store_needs_of(r, &r->build, out);
}

void hk_dsc_store_needs_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
			   struct hk_strv *out)
{
	struct hk_dsc_result other = *r;
	other.build = *br;
	other.built = true;
	struct dsc_findings rep;
	dsc_findings_of(&other, &rep);
	/* A base package cannot be left out of the view: the base is the build's own root. */
	for (size_t i = 0; i < rep.n; i++)
		if (rep.f[i].need && !(rep.f[i].origin && strcmp(rep.f[i].origin, "base") == 0))
			hk_strv_push(out, rep.f[i].package);
	dsc_findings_free(&rep);
}

void hk_dsc_denied_paths(const struct hk_build_result *br, struct hk_strset *out)
{
	for (size_t p = 0; p < br->n_phases; p++) {
		const struct phase_result *pr = &br->phases[p];
		if (!pr->has_verdict || !pr->has_diag)
			continue;
		for (size_t i = 0; i < pr->verdict.n_denials && i < pr->diag.n; i++)
			if (pr->diag.items[i].cls != HK_DIAG_EXPECTED && pr->verdict.denials[i].has_path)
				hk_strset_add(out, pr->verdict.denials[i].path);
	}
}

void hk_dsc_probes_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
		      struct hk_strv *names, struct hk_strv *specs, struct hk_strv *paths)
{
	struct hk_dsc_result other = *r;
	other.build = *br;
	other.built = true;
	struct dsc_findings rep;
	dsc_findings_of(&other, &rep);
	for (size_t i = 0; i < rep.n; i++) {
		const struct dsc_finding *f = &rep.f[i];
		if (f->need)
			continue;
		hk_strv_push(names, f->package);
		hk_strv_push_owned(specs, f->version ? hk_xasprintf("%s=%s", f->package, f->version)
						     : hk_xstrdup(f->package));
		if (paths) {
			struct hk_buf joined = HK_BUF_INIT;
			for (size_t k = 0; k < f->paths.len; k++)
				hk_buf_printf(&joined, "%s%s", k ? "\n" : "", f->paths.items[k]);
			hk_strv_push_owned(paths, hk_buf_steal(&joined));
		}
	}
	dsc_findings_free(&rep);
}

/* The second build's report: the same result with its engine's result in place of the
 * first's (a shallow copy: nothing of it is freed here). */
void dsc_confirm_findings(const struct hk_dsc_result *r, struct dsc_findings *rep)
{
	struct hk_dsc_result second = *r;
	second.build = r->confirm;
	second.built = true;
	dsc_findings_of(&second, rep);
}

/* The first phase of `br` that failed, or br->n_phases when none did. */
size_t dsc_first_failed_phase(const struct hk_build_result *br)
{
	for (size_t i = 0; i < br->n_phases; i++)
		if (hk_cage_failed(&br->phases[i].res))
			return i;
	return br->n_phases;
}

/* The answer is about the phase the first build failed in, where the packages were denied:
 * if the second build gets through that phase without them, they were not needed there, even
 * when a later phase then fails on something else (named by the second build's own findings:
 * python-pip gets past `import Cython` and then meets pygments). */
enum hk_confirm_answer dsc_confirm_answer(const struct hk_dsc_result *r)
{
	const struct hk_build_result *c = &r->confirm;
	size_t failed = dsc_first_failed_phase(&r->build);
	struct hk_confirm_facts f = {
		.ran = r->confirmed_ran,
		.error = r->confirm_error != NULL,
		.first_failed = failed < r->build.n_phases,
		.reached = r->confirmed_ran && c->n_phases > failed,
	};
	if (f.ran && f.first_failed && f.reached) {
		f.phase_failed = hk_cage_failed(&c->phases[failed].res);
		struct dsc_findings rep;
		dsc_confirm_findings(r, &rep);
		for (size_t i = 0; i < rep.n && !f.other_needs; i++)
			f.other_needs = rep.f[i].need;
		dsc_findings_free(&rep);
	}
	return hk_confirm_decide(&f);
}

bool hk_dsc_confirm_goes_on(const struct hk_dsc_result *r)
{
	enum hk_confirm_answer a = dsc_confirm_answer(r);
	/* Past the phase it answers about, a later phase may have failed on the next probe
	 * (python-pip's build gets past `import Cython` without cython3, and its binary target
	 * meets docutils' `import pygments`): the package is not classed by a build that failed
	 * on what the view showed. */
	return a == HK_CONFIRM_UNDECIDED ||
	       (a == HK_CONFIRM_NOT_NEEDED && !dsc_completed(&r->confirm));
}

bool hk_dsc_build_depends_complete(const struct hk_dsc_result *r)
{
	if (!r->built || !r->build.cage || !dsc_completed(&r->build) || r->n_macro_needs > 0)
		return false;
	for (size_t i = 0; i < r->build.n_phases; i++) {
		const struct phase_result *pr = &r->build.phases[i];
		if (!pr->has_verdict || pr->verdict.state != HK_HERMETIC)
			return false;
	}
	return true;
}

void dsc_phase_findings(const struct hk_dsc_result *r, const struct phase_result *pr,
			struct dsc_findings *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->survived = (struct hk_strset)HK_STRSET_INIT;
	add_phase(r, pr, rep);
	if (rep->n)
		qsort(rep->f, rep->n, sizeof(*rep->f), cmp_finding);
}

/* A probe's class as --decide-probes decided it, or undecided when it did not. */
static enum hk_probe_class probe_class_of(const struct hk_dsc_result *r, const char *pkg)
{
	for (size_t i = 0; i < r->decide.n_decisions; i++)
		if (strcmp(r->decide.decisions[i].package, pkg) == 0)
			return r->decide.decisions[i].cls;
	return HK_PROBE_UNDECIDED;
}

/* The facts of one build of the package (`second` false: the first build, whose probes
 * --decide-probes decided; true: --confirm's last build, whose probes nothing decided). */
static void class_facts_of(const struct hk_dsc_result *r, bool second,
			   struct hk_dsc_class_facts *f)
{
	const struct hk_build_result *br = second ? &r->confirm : &r->build;
	f->completed = (second || r->built) && dsc_completed(br);
	for (size_t i = 0; (second || r->built) && i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		if (br->cage && (!pr->has_verdict || pr->verdict.state == HK_NOEVIDENCE))
			f->no_evidence = true;
	}
	if ((second || r->built) && !br->cage)
		f->no_evidence = true;
	struct dsc_findings rep;
	if (second)
		dsc_confirm_findings(r, &rep);
	else
		dsc_findings_of(r, &rep);
	for (size_t i = 0; i < rep.n; i++) {
		if (rep.f[i].need) {
			f->missing++;
			continue;
		}
		switch (second ? HK_PROBE_UNDECIDED : probe_class_of(r, rep.f[i].package)) {
		case HK_PROBE_INFLUENCE: f->influences++; break;
		case HK_PROBE_INERT: f->inert_probes++; break;
		case HK_PROBE_UNDECIDED: f->undecided_probes++; break;
		}
	}
	for (size_t i = 0; i < rep.n_l; i++)
		if (strcmp(rep.l[i].class_, "policy_bug") != 0)
			f->unattributed++;
	dsc_findings_free(&rep);
}

enum hk_dsc_class hk_dsc_package_class(const struct hk_dsc_result *r)
{
	struct hk_dsc_class_facts f = { 0 };
	if (dsc_confirm_answer(r) == HK_CONFIRM_NOT_NEEDED) {
		/* The first build failed on packages the store view showed and the policy denied,
		 * and built without them (--confirm): they were probes the view made fatal, not
		 * needs.  The package is what the build that completed says, those packages
		 * probes no build decided (a machine that has them may build otherwise). */
		class_facts_of(r, true, &f);
		f.undecided_probes += r->n_confirm_hidden;
		return hk_dsc_classify(&f);
	}
	class_facts_of(r, false, &f);
	/* Named from the log: a need when the build failed, else a probe no build decided. */
	if (r->build.failed_phase)
		f.missing += r->n_macro_needs;
	else
		f.undecided_probes += r->n_macro_needs;
	return hk_dsc_classify(&f);
}
