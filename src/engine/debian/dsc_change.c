/* The change to make after a Debian build: facts gathered, the core's decision kept, written
 * and rendered (dsc_change.h). */
#include "engine/debian/dsc_change.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/debian/dsc_findings.h"
#include "core/basic/file.h"
#include "core/basic/strv.h"
#include "core/basic/util.h"

/* What the facts borrow, kept alive until the core has answered. */
struct facts_store {
	struct hk_strv strings;
	struct hk_dsc_change_finding *f;
	size_t n;
	struct hk_strv *lists;          /* one list per finding's borrowed arrays */
	size_t n_lists;
};

static const char *keep(struct facts_store *k, const char *s)
{
	if (!s)
		return NULL;
	hk_strv_push(&k->strings, s);
	return k->strings.v[k->strings.n - 1];
}

static struct hk_strv *new_list(struct facts_store *k)
{
	k->lists = hk_xrealloc(k->lists, (k->n_lists + 1) * sizeof(*k->lists));
	struct hk_strv *l = &k->lists[k->n_lists++];
	*l = (struct hk_strv)HK_STRV_INIT;
	return l;
}

static struct hk_dsc_change_finding *new_finding(struct facts_store *k,
						 enum hk_dsc_change_kind kind)
{
	k->f = hk_xrealloc(k->f, (k->n + 1) * sizeof(*k->f));
	struct hk_dsc_change_finding *x = &k->f[k->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	return x;
}

/* The first denial of `path` in the build, and its diagnosis. */
static bool denial_of(const struct hk_build_result *br, const char *path,
		      const struct hk_denial **den, const struct hk_diag_item **dia)
{
	for (size_t p = 0; path && p < br->n_phases; p++) {
		const struct phase_result *pr = &br->phases[p];
		if (!pr->has_verdict || !pr->has_diag)
			continue;
		for (size_t i = 0; i < pr->verdict.n_denials && i < pr->diag.n; i++) {
			const struct hk_denial *d = &pr->verdict.denials[i];
			if (d->has_path && strcmp(d->path, path) == 0) {
				*den = d;
				*dia = &pr->diag.items[i];
				return true;
			}
		}
	}
	return false;
}

static const struct hk_artifact *artifact(struct hk_store *store, const char *name,
					  const char *version)
{
	if (!store || !name)
		return NULL;
	hk_autofree char *q = version ? hk_xasprintf("%s=%s", name, version) : hk_xstrdup(name);
	const struct hk_artifact *a = NULL;
	struct hk_error ignored;
	if (hk_store_find(store, q, &a, &ignored) < 0)
		return NULL;
	return a;
}

/* What the archive's relations say of the package a need or an influence names: who else
 * ships the file (as a file), a virtual name they all provide, the names it provides, the
 * packages that depend on it alone. */
static void relations(struct facts_store *k, struct hk_store *store,
		      const struct hk_build_result *br, struct hk_dsc_change_finding *x)
{
	const struct hk_denial *den = NULL;
	const struct hk_diag_item *dia = NULL;
	struct hk_strv *prov = new_list(k);
	if (x->path && denial_of(br, x->path, &den, &dia)) {
		x->comm = den->comm ? keep(k, den->comm) : NULL;
		for (size_t i = 0; i < dia->n_providers; i++) {
			const struct hk_provider *p = &dia->providers[i];
			if (p->how == HK_PROVIDES_FILE && !hk_strv_has(prov, p->name) &&
			    (strcmp(p->origin, "deb") == 0 || strcmp(p->origin, "base") == 0))
				hk_strv_push(prov, p->name);
		}
	}
	if (!hk_strv_has(prov, x->package)) {
		/* The finding's own package first, as the diagnosis ranked it. */
		hk_strv_push(prov, x->package);
		char *own = prov->v[prov->n - 1];
		memmove(prov->v + 1, prov->v, (prov->n - 1) * sizeof(*prov->v));
		prov->v[0] = own;
	}
	x->file_providers = (const char *const *)prov->v;
	x->n_file_providers = prov->n;
	const struct hk_artifact *a = artifact(store, x->package, x->version);
	if (a) {
		x->provides = (const char *const *)a->provides;
		x->n_provides = a->n_provides;
	}
	/* A virtual name every file provider provides (each a store artifact). */
	for (size_t v = 0; a && prov->n > 1 && v < a->n_provides && !x->shared_virtual; v++) {
		bool all = true;
		for (size_t i = 1; i < prov->n && all; i++) {
			const struct hk_artifact *o = artifact(store, prov->v[i], NULL);
			bool has = false;
			for (size_t m = 0; o && m < o->n_provides; m++)
				has |= strcmp(o->provides[m], a->provides[v]) == 0;
			all = has;
		}
		if (all)
			x->shared_virtual = a->provides[v];
	}
	/* Packages whose one dependency is it: transitional or meta, by their relations. */
	const struct hk_artifact *const *arts = NULL;
	size_t n_arts = 0;
	struct hk_error ignored;
	struct hk_strv *deps = new_list(k);
	if (store && hk_store_list(store, &arts, &n_arts, &ignored) == 0) {
		for (size_t i = 0; i < n_arts; i++) {
			const struct hk_artifact *o = arts[i];
			if (o->origin != HK_ORIGIN_DEB || o->n_deps != 1 || o->deps[0].n_alts != 1 ||
			    strcmp(o->deps[0].alts[0], x->package) != 0 ||
			    strcmp(o->name, x->package) == 0 || hk_strv_has(deps, o->name))
				continue;
			hk_strv_push(deps, o->name);
		}
	}
	x->dependents = (const char *const *)deps->v;
	x->n_dependents = deps->n;
}

static const struct hk_dsc_probe_decision *decision_of(const struct hk_dsc_result *r,
						       const char *pkg)
{
	for (size_t i = 0; i < r->decide.n_decisions; i++)
		if (strcmp(r->decide.decisions[i].package, pkg) == 0)
			return &r->decide.decisions[i];
	return NULL;
}

static bool in_list(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Every finding of r the change is made from (dsc_change.h, core/debian/dsc_change.h). */
static void gather(const struct hk_dsc_result *r, struct hk_store *store, struct facts_store *k)
{
	enum hk_confirm_answer answer = dsc_confirm_answer(r);
	struct dsc_findings rep;
	dsc_findings_of(r, &rep);
	for (size_t i = 0; i < rep.n; i++) {
		const struct dsc_finding *f = &rep.f[i];
		const struct hk_dsc_probe_decision *dec = NULL;
		if (f->need) {
			/* --confirm showed the first build failed on what the view showed: not
			 * needs (docs/debian-builds.md, "--confirm"). */
			if (answer == HK_CONFIRM_NOT_NEEDED)
				continue;
		} else {
			dec = decision_of(r, f->package);
			if (!dec || dec->cls != HK_PROBE_INFLUENCE)
				continue;
		}
		struct hk_dsc_change_finding *x =
			new_finding(k, f->need ? HK_DSC_CHANGE_MISSING : HK_DSC_CHANGE_INFLUENCE);
		bool trap = f->how && strcmp(f->how, "link") == 0 && f->via;
		x->package = keep(k, f->package);
		x->version = keep(k, f->version);
		x->origin = keep(k, f->origin);
		x->phase = keep(k, f->phase);
		x->verb = hk_dsc_verb(f->blockers);
		x->exe = keep(k, f->exe);
		x->n_paths = f->paths.len;
		x->alternative_in = keep(k, f->alternative_in);
		if (f->need && r->confirmed_ran && in_list(r->confirm_hidden, f->package))
			x->confirm = hk_confirm_answer_name(answer);
		if (dec) {
			x->differences = (const char *const *)dec->differences;
			x->n_differences = dec->n_differences;
		}
		/* The denied path, for what the diagnosis says of it; a trap of the store view is
		 * said as the link it stands for. */
		x->path = keep(k, f->path);
		relations(k, store, &r->build, x);
		if (trap)
			x->path = keep(k, f->via);
	}
	dsc_findings_free(&rep);
	/* Named from the log: needs when the build failed (else probes no build decided). */
	for (size_t i = 0; r->build.failed_phase && i < r->n_macro_needs; i++) {
		const struct hk_dsc_macro_need *m = &r->macro_needs[i];
		struct hk_dsc_change_finding *x = new_finding(k, HK_DSC_CHANGE_MISSING);
		x->package = keep(k, m->package);
		x->version = keep(k, m->version);
		x->origin = "deb";
		x->path = keep(k, m->file);
		x->log_line = keep(k, m->line);
		hk_autofree char *what = hk_xasprintf("%s %s", hk_dsc_log_kind_name(m->kind), m->macro);
		x->log_what = keep(k, what);
		x->n_paths = 1;
		struct hk_strv *one = new_list(k);
		hk_strv_push(one, m->package);
		x->file_providers = (const char *const *)one->v;
		x->n_file_providers = 1;
	}
	/* Declared, none of its files opened, nor any of a package it pulls in. */
	for (size_t i = 0; i < r->n_unread; i++) {
		const struct hk_dsc_unread *u = &r->unread[i];
		if (u->through)
			continue;
		struct hk_dsc_change_finding *x = new_finding(k, HK_DSC_CHANGE_UNOPENED);
		x->field = keep(k, u->field);
		x->group = keep(k, u->group);
		x->group_packages = keep(k, u->packages);
	}
}

static void facts_free(struct facts_store *k)
{
	hk_strv_free(&k->strings);
	for (size_t i = 0; i < k->n_lists; i++)
		hk_strv_free(&k->lists[i]);
	free(k->lists);
	free(k->f);
}

/* The version in a file name, as dpkg writes it there: without its epoch. */
static const char *no_epoch(const char *v)
{
	const char *colon = strchr(v, ':');
	return colon ? colon + 1 : v;
}

/* The command lines that build the package again as this build did. */
static char *reproduce(const struct hk_dsc_opts *o, const struct hk_dsc_result *r,
		       const struct facts_store *k)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_printf(&b, "  apt-get source --download-only %s=%s   (or the .dsc built here)\n",
		      r->dsc.source, r->dsc.version);
	if (r->base_name && strncmp(r->base_name, "b3:", 3) != 0)
		hk_buf_printf(&b, "  harkaq store --store STORE base create %s%s\n", r->base_name,
			      strstr(r->base_name, "buildd") ? " --variant buildd" : "");
	const char *slash = r->dsc_path ? strrchr(r->dsc_path, '/') : NULL;
	hk_buf_printf(&b, "  harkaq build --store STORE --dsc %s",
		      slash ? slash + 1 : r->dsc_path ? r->dsc_path : "?");
	if (r->base_name)
		hk_buf_printf(&b, " --base %s", r->base_name);
	if (r->mode != HK_DSC_BUILD_BINARY)
		hk_buf_printf(&b, " --build %s", hk_dsc_mode_name(r->mode));
	if (o->with_checks)
		hk_buf_puts(&b, " --with-checks");
	/* What the build was shown: the packages named must be in the store to be named. */
	hk_autostrv struct hk_strv see = HK_STRV_INIT;
	for (size_t i = 0; i < o->n_see; i++)
		hk_strv_push(&see, o->see[i]);
	for (size_t i = 0; i < k->n; i++)
		if (k->f[i].package && k->f[i].origin && strcmp(k->f[i].origin, "deb") == 0 &&
		    !hk_strv_has(&see, k->f[i].package))
			hk_strv_push(&see, k->f[i].package);
	for (size_t i = 0; i < see.n; i++)
		hk_buf_printf(&b, "%s%s", i ? "," : " --see ", see.v[i]);
	if (o->confirm)
		hk_buf_puts(&b, " --confirm");
	if (o->decide_probes)
		hk_buf_puts(&b, " --decide-probes");
	hk_buf_putc(&b, '\n');
	return hk_buf_steal(&b);
}

static int write_files(const struct hk_dsc_opts *o, struct hk_dsc_result *r, struct hk_error *err)
{
	int rc = hk_mkdir_p(o->suggest_out, err);
	if (rc < 0)
		return hk_wrap(err, "--suggest-out");
	const char *v = no_epoch(r->dsc.version);
	if (r->suggestion.patch) {
		r->patch_file = hk_xasprintf("%s/%s_%s.control.patch", o->suggest_out, r->dsc.source, v);
		rc = hk_file_write_atomic(r->patch_file, r->suggestion.patch,
					  strlen(r->suggestion.patch), 0644, err);
		if (rc < 0)
			return rc;
	}
	if (r->suggestion.bug) {
		r->bug_file = hk_xasprintf("%s/%s_%s.bug.txt", o->suggest_out, r->dsc.source, v);
		rc = hk_file_write_atomic(r->bug_file, r->suggestion.bug, strlen(r->suggestion.bug),
					  0644, err);
	}
	return rc;
}

int hk_dsc_suggest_change(const struct hk_dsc_opts *o, struct hk_store *store,
			  struct hk_dsc_result *r, struct hk_error *err)
{
	if (!r->built || !r->dsc_loaded) {
		r->suggestion_not = hk_xstrdup("the build gave no verdicts");
		return 0;
	}
	if (!r->build.cage) {
		r->suggestion_not = hk_xstrdup("built without the cage: nothing was seen");
		return 0;
	}
	if (hk_dsc_package_class(r) == HK_DSC_NO_EVIDENCE) {
		r->suggestion_not = hk_xstrdup("a phase gave no evidence: nothing it saw is acted on");
		return 0;
	}
	struct facts_store k = { .strings = HK_STRV_INIT };
	gather(r, store, &k);
	hk_autofree char *again = reproduce(o, r, &k);
	struct hk_strv evidence = HK_STRV_INIT;
	for (size_t i = 0; i < r->build.n_phases; i++)
		if (r->build.phases[i].evidence_id[0])
			hk_strv_push_owned(&evidence, hk_xasprintf("%s %s", r->build.phases[i].label,
								   r->build.phases[i].evidence_id));
	const struct hk_dsc_change_facts f = {
		.source = r->dsc.source,
		.version = r->dsc.version,
		.mode = hk_dsc_mode_name(r->mode),
		.has_indep = r->dsc.relations[HK_DSC_BUILD_DEPENDS_INDEP] != NULL,
		.has_arch = r->dsc.relations[HK_DSC_BUILD_DEPENDS_ARCH] != NULL,
		.base_name = r->base_name,
		.base_id = r->base_id,
		.reproduce = again,
		.control = r->control,
		.control_len = r->control_len,
		.findings = k.f,
		.n_findings = k.n,
		.evidence = (const char *const *)evidence.v,
		.n_evidence = evidence.n,
		.package_class = hk_dsc_class_name(hk_dsc_package_class(r)),
	};
	int rc = hk_dsc_suggest(&f, &r->suggestion, err);
	hk_strv_free(&evidence);
	facts_free(&k);
	if (rc < 0)
		return rc;
	r->suggested = true;
	if (!r->suggestion.bug) {
		r->suggestion_not = hk_xstrdup("nothing to change: no missing Build-Depends, no "
					       "undeclared influence, no Build-Depends unopened");
		return 0;
	}
	return o->suggest_out ? write_files(o, r, err) : 0;
}

void hk_dsc_change_human(const struct hk_dsc_result *r, FILE *out)
{
	if (!r->built)
		return;
	const struct hk_dsc_suggestion *s = &r->suggestion;
	if (!r->suggested || !s->bug) {
		fprintf(out, "  the change to make: none (%s)\n",
			r->suggestion_not ? r->suggestion_not : "not computed");
		return;
	}
	char opts[8];
	hk_control_layout_options(&s->layout, opts);
	fprintf(out, "  the change to make (debian/control");
	if (s->layout.wrap_and_sort)
		fprintf(out, ", its wrap-and-sort%s%s layout kept", *opts ? " " : "", opts);
	else if (s->layout.edited_free)
		fprintf(out, ", a field in no layout edited in place");
	fprintf(out, "):\n");
	for (size_t i = 0; i < s->n_changes; i++) {
		const struct hk_dsc_change *c = &s->changes[i];
		fprintf(out, "    %c %s: %s  (%s%s: %s)\n", c->op == HK_CONTROL_ADD ? '+' : '-',
			c->field, c->item, c->made ? "" : "NOT MADE, ", hk_dsc_change_kind_name(c->kind),
			c->why);
	}
	if (r->patch_file)
		fprintf(out, "    patch: %s (patch -p1 in the unpacked source)\n", r->patch_file);
	else if (s->patch) {
		fprintf(out, "    patch (patch -p1 in the unpacked source; --suggest-out DIR writes "
			     "it and a bug report):\n");
		for (const char *p = s->patch; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			fprintf(out, "      %.*s\n", (int)n, p);
			p += n + (nl != NULL);
		}
	} else if (s->not_made) {
		fprintf(out, "    no patch: %s\n", s->not_made);
	}
	if (r->bug_file)
		fprintf(out, "    bug report (severity %s): %s\n", s->severity, r->bug_file);
}

void hk_dsc_change_json(const struct hk_dsc_result *r, struct hk_json *j)
{
	const struct hk_dsc_suggestion *s = &r->suggestion;
	hk_json_key(j, "suggestion");
	if (!r->suggested || !s->bug) {
		hk_json_null(j);
		hk_json_kv_str(j, "suggestion_not", r->suggestion_not);
		return;
	}
	hk_json_obj_begin(j);
	hk_json_key(j, "changes");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < s->n_changes; i++) {
		const struct hk_dsc_change *c = &s->changes[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "kind", hk_dsc_change_kind_name(c->kind));
		hk_json_kv_str(j, "op", c->op == HK_CONTROL_ADD ? "add" : "drop");
		hk_json_kv_str(j, "field", c->field);
		hk_json_kv_str(j, "item", c->item);
		hk_json_kv_str(j, "package", c->package);
		hk_json_kv_bool(j, "made", c->made);
		hk_json_kv_bytes(j, "why", c->why, strlen(c->why));
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	char opts[8];
	hk_control_layout_options(&s->layout, opts);
	hk_json_key(j, "layout");
	hk_json_obj_begin(j);
	hk_json_kv_bool(j, "wrap_and_sort", s->layout.wrap_and_sort);
	hk_json_kv_str(j, "options", opts);
	hk_json_kv_str(j, "order", hk_control_order_name(s->layout.order));
	hk_json_kv_bool(j, "free_field", s->layout.edited_free);
	hk_json_kv_bool(j, "comments", s->layout.comments);
	hk_json_obj_end(j);
	hk_json_kv_str(j, "severity", s->severity);
	hk_json_kv_bytes(j, "subject", s->subject, strlen(s->subject));
	hk_json_key(j, "control_patch");
	if (s->patch)
		hk_json_bytes(j, s->patch, strlen(s->patch));
	else
		hk_json_null(j);
	hk_json_kv_bytes(j, "bug_report", s->bug, strlen(s->bug));
	hk_json_key(j, "files");
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "control_patch", r->patch_file);
	hk_json_kv_str(j, "bug_report", r->bug_file);
	hk_json_obj_end(j);
	hk_json_kv_str(j, "not_made", s->not_made);
	hk_json_obj_end(j);
	hk_json_kv_str(j, "suggestion_not", NULL);
}
