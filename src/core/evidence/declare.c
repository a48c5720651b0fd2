/* The rule of `harkaq declare`'s loop (declare.h). */
#include "core/evidence/declare.h"

#include <stdlib.h>
#include <string.h>

#include "core/basic/strset.h"
#include "core/basic/util.h"

const char *hk_declare_next_name(enum hk_declare_next n)
{
	switch (n) {
	case HK_DECLARE_GO_ON: return "go_on";
	case HK_DECLARE_HERMETIC: return "hermetic";
	case HK_DECLARE_IRREDUCIBLE: return "irreducible";
	case HK_DECLARE_POLICY_BUG: return "policy_bug";
	case HK_DECLARE_FAILED: return "failed";
	case HK_DECLARE_NO_EVIDENCE: return "no_evidence";
	case HK_DECLARE_REFUTED: return "refuted";
	case HK_DECLARE_NO_PROGRESS: return "no_progress";
	}
	return "?";
}

/* What a spec names, as a recipe compares deps (docs/recipe-format.md, "[deps]"): the id of
 * "b3:<hex>[-NAME]", else the NAME of "NAME[=VERSION]". */
static size_t spec_key(const char *spec)
{
	if (strncmp(spec, "b3:", 3) == 0)
		return strcspn(spec + 3, "-") + 3;
	return strcspn(spec, "=");
}

static bool declared(const struct hk_declare_facts *f, const char *spec)
{
	size_t n = spec_key(spec);
	for (size_t i = 0; i < f->n_declared; i++)
		if (spec_key(f->declared[i]) == n && strncmp(f->declared[i], spec, n) == 0)
			return true;
	return false;
}

/* A build's debt as a set of "CLASS PATH" lines (a denial without a path: "CLASS -"). */
static void debt_set(const struct hk_declare_build *b, struct hk_strset *out)
{
	for (size_t i = 0; i < b->n_debt; i++)
		hk_strset_add_owned(out, hk_xasprintf("%s %s", hk_diag_class_name(b->debt[i].cls),
						      b->debt[i].path ? b->debt[i].path : "-"));
}

static bool sets_equal(const struct hk_strset *a, const struct hk_strset *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (!hk_strset_contains(b, a->items[i]))
			return false;
	return true;
}

static size_t count_class(const struct hk_declare_build *b, enum hk_diag_class cls)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n_debt; i++)
		n += b->debt[i].cls == cls;
	return n;
}

static void stop(struct hk_declare_decision *d, enum hk_declare_next next, bool keep, char *why)
{
	d->next = next;
	d->keep_edit = keep;
	d->why = why;
}

void hk_declare_decide(const struct hk_declare_facts *f, struct hk_declare_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->specs = (struct hk_strv)HK_STRV_INIT;
	d->paths = (struct hk_strv)HK_STRV_INIT;
	const struct hk_declare_build *b = &f->builds[f->n_builds - 1];

	if (b->no_evidence) {
		stop(d, HK_DECLARE_NO_EVIDENCE, false,
		     hk_xstrdup("a phase gave no evidence: harkaq cannot vouch for this build, so "
				"nothing it saw is acted on"));
		return;
	}
	for (size_t a = 0; a < f->n_added; a++) {
		for (size_t i = 0; i < b->n_debt; i++) {
			const char *p = b->debt[i].path;
			if (!p || !f->added[a].path || strcmp(p, f->added[a].path) != 0)
				continue;
			hk_strv_push(&d->specs, f->added[a].spec);
			hk_strv_push(&d->paths, p);
			stop(d, HK_DECLARE_REFUTED, false,
			     hk_xasprintf("declaring %s did not remove the denial of %s (%s again, "
					  "in %s): the suggestion did not lead where it said",
					  f->added[a].spec, p, hk_diag_class_name(b->debt[i].cls),
					  b->debt[i].phase ? b->debt[i].phase : "?"));
			return;
		}
	}
	if (b->hermetic) {
		stop(d, HK_DECLARE_HERMETIC, true, hk_xstrdup("every phase is Hermetic"));
		return;
	}
	struct hk_strset now = HK_STRSET_INIT;
	debt_set(b, &now);
	for (size_t k = 0; k + 1 < f->n_builds; k++) {
		struct hk_strset then = HK_STRSET_INIT;
		debt_set(&f->builds[k], &then);
		bool same = now.len > 0 && sets_equal(&now, &then);
		hk_strset_free(&then);
		if (same) {
			hk_strset_free(&now);
			stop(d, HK_DECLARE_NO_PROGRESS, false,
			     hk_xasprintf("build %zu has the debt build %zu had: what was declared "
					  "since changed nothing", f->n_builds, k + 1));
			return;
		}
	}
	hk_strset_free(&now);

	size_t n_decl = count_class(b, HK_DIAG_DECLARABLE);
	for (size_t i = 0; i < b->n_debt; i++) {
		const struct hk_declare_debt *e = &b->debt[i];
		if (e->cls != HK_DIAG_DECLARABLE || !e->spec || declared(f, e->spec) ||
		    hk_strv_has(&d->specs, e->spec))
			continue;
		hk_strv_push(&d->specs, e->spec);
		hk_strv_push(&d->paths, e->path ? e->path : "-");
	}
	if (d->specs.n > 0) {
		stop(d, HK_DECLARE_GO_ON, true,
		     hk_xasprintf("%zu declarable path%s: declaring %zu dep%s", n_decl,
				  n_decl == 1 ? "" : "s", d->specs.n, d->specs.n == 1 ? "" : "s"));
		return;
	}
	if (n_decl > 0) {
		stop(d, HK_DECLARE_NO_PROGRESS, true,
		     hk_xasprintf("%zu declarable path%s, each naming a dep the recipe declares "
				  "already", n_decl, n_decl == 1 ? "" : "s"));
		return;
	}
	size_t n_irr = count_class(b, HK_DIAG_IRREDUCIBLE);
	if (n_irr > 0) {
		for (size_t i = 0; i < b->n_debt; i++)
			if (b->debt[i].cls == HK_DIAG_IRREDUCIBLE)
				hk_strv_push(&d->paths, b->debt[i].path ? b->debt[i].path : "-");
		stop(d, HK_DECLARE_IRREDUCIBLE, true,
		     hk_xasprintf("irreducible debt: nobody provides %zu path%s the build used "
				  "(write a recipe for %s, or, if the build does without %s, "
				  "classify %s in [expect])", n_irr, n_irr == 1 ? "" : "s",
				  n_irr == 1 ? "it" : "them", n_irr == 1 ? "it" : "them",
				  n_irr == 1 ? "it" : "them"));
		return;
	}
	if (count_class(b, HK_DIAG_POLICY_BUG) > 0) {
		stop(d, HK_DECLARE_POLICY_BUG, true,
		     hk_xstrdup("only policy bugs remain: harkaq's own fault, not the recipe's "
				"(report them); nothing to declare"));
		return;
	}
	stop(d, HK_DECLARE_FAILED, true,
	     hk_xstrdup(b->failed ? "a phase failed without debt: it fails for another reason "
				    "than an undeclared dep"
				  : "no debt, yet not Hermetic"));
}

void hk_declare_decision_free(struct hk_declare_decision *d)
{
	hk_strv_free(&d->specs);
	hk_strv_free(&d->paths);
	free(d->why);
	memset(d, 0, sizeof(*d));
}
