/* The report of a Debian build in Build-Depends terms (build_dsc.h; docs/debian-builds.md,
 * "The report"), rendered from its findings (dsc_findings.h): for people, as JSON for
 * programs, and as the verdict Statement's "debian" member.
 *
 *   missing Build-Depends: zlib1g-dev (debian/rules build read /usr/include/zlib.h, by cc1) */
#include <stdlib.h>
#include <string.h>

#include "engine/debian/build_dsc.h"
#include "engine/debian/dsc_change.h"
#include "engine/debian/dsc_findings.h"
#include "core/basic/strset.h"
#include "core/basic/util.h"

/* A string member that may be absent: its bytes (any bytes, hk_json_bytes), or null. */
static void kv_bytes_or_null(struct hk_json *j, const char *key, const char *s)
{
	if (s)
		hk_json_kv_bytes(j, key, s, strlen(s));
	else
		hk_json_kv_str(j, key, NULL);
}


static const char *exe_short(const char *exe)
{
	if (!exe)
		return "?";
	const char *s = strrchr(exe, '/');
	return s ? s + 1 : exe;
}









/* "zlib1g-dev (debian/rules build read /usr/include/zlib.h, by cc1; 12 paths)" */
static void finding_line(const struct dsc_finding *f, FILE *out)
{
	/* A trap of the store view stands for the package's symlink: name the link. */
	bool trap = f->how && strcmp(f->how, "link") == 0 && f->via;
	fprintf(out, "%s (%s %s %s, by %s", f->package, f->phase, hk_dsc_verb(f->blockers),
		trap ? f->via : f->path, exe_short(f->exe));
	if (trap)
		fprintf(out, ", its symlink");
	else if (f->how && strcmp(f->how, "alias") == 0 && f->via)
		fprintf(out, ", through its link %s", f->via);
	if (f->paths.len > 1)
		fprintf(out, "; %zu paths", f->paths.len);
	fprintf(out, ")");
	if (f->origin && strcmp(f->origin, "base") == 0)
		fprintf(out, " — in the base, but neither Essential nor build-essential");
	if (f->alternative_in)
		fprintf(out, " — an alternative apt did not choose (%s)", f->alternative_in);
	fputc('\n', out);
}

/* Why the converse was not computed, or NULL when it was. */
static const char *converse_not(const struct hk_dsc_result *r)
{
	if (!r->built || !r->build.opened_observed)
		return r->built && r->build.opened_note ? r->build.opened_note
							: "the opens were not observed";
	if (r->n_groups_checked == 0 && (r->build.failed_phase || !r->build.artifact_id[0]))
		return "the build did not complete: a Build-Depends of a phase that never ran "
		       "would read as unopened";
	return NULL;
}

static void unread_line(const struct hk_dsc_unread *u, FILE *out)
{
	fprintf(out, "    %s: %s", u->field, u->group);
	if (strcmp(u->group, u->packages) != 0)
		fprintf(out, " (declared as %s)", u->packages);
	for (size_t k = 0; k < u->n_through; k++)
		fprintf(out, "%s%s (%s)", k ? ", " : " — used through ", u->through[k],
			u->through_paths[k]);
	fputc('\n', out);
}

static void converse_human(const struct hk_dsc_result *r, FILE *out)
{
	const char *why = converse_not(r);
	if (why) {
		fprintf(out, "  declared and unopened: not computed (%s)\n", why);
		return;
	}
	const char *loss = r->build.opened_incomplete ? "; some opens were lost, not vouched for" : "";
	size_t n_through = 0;
	for (size_t i = 0; i < r->n_unread; i++)
		n_through += r->unread[i].through != NULL;
	if (n_through == r->n_unread) {
		fprintf(out, "  declared and unopened: none (every one of %zu used Build-Depends had a "
			     "file opened%s%s)\n", r->n_groups_checked,
			n_through ? ", its own or a dependency's" : "", loss);
	} else {
		fprintf(out, "  declared, none of its files opened (opens are seen; existence checks "
			     "such as stat and access are not%s):\n", loss);
		for (size_t i = 0; i < r->n_unread; i++)
			if (!r->unread[i].through)
				unread_line(&r->unread[i], out);
	}
	if (n_through == 0)
		return;
	/* A transitional or meta package: dropping it drops what it pulls in, which was used. */
	fprintf(out, "  declared, used through a dependency (none of its own files opened, files of "
		     "packages it pulls in were: not unneeded):\n");
	for (size_t i = 0; i < r->n_unread; i++)
		if (r->unread[i].through)
			unread_line(&r->unread[i], out);
}













static void confirm_human(const struct hk_dsc_result *r, FILE *out)
{
	enum hk_confirm_answer a = dsc_confirm_answer(r);
	if (a == HK_CONFIRM_NONE)
		return;
	for (size_t k = 0; k < r->n_confirm_rounds; k++) {
		const struct hk_dsc_confirm_round *cr = &r->confirm_rounds[k];
		fprintf(out, "  --confirm round %zu: built again without", k + 1);
		for (size_t i = 0; cr->hidden[i]; i++)
			fprintf(out, " %s", cr->hidden[i]);
		fprintf(out, ": %s; failed again on", cr->phases);
		for (size_t i = 0; cr->new_needs[i]; i++)
			fprintf(out, " %s", cr->new_needs[i]);
		fprintf(out, ", left out too in the next round\n");
	}
	fprintf(out, "  --confirm: built again without");
	for (size_t i = 0; i < r->n_confirm_hidden; i++)
		fprintf(out, " %s", r->confirm_hidden[i]);
	fprintf(out, " in the store view:\n   ");
	for (size_t i = 0; i < r->confirm.n_phases; i++) {
		const struct phase_result *pr = &r->confirm.phases[i];
		fprintf(out, " %s %s%s", pr->label,
			pr->has_verdict ? hk_verdict_state_name(pr->verdict.state) : "no verdict",
			hk_cage_failed(&pr->res) ? " (failed)" : "");
	}
	fputc('\n', out);
	size_t failed = dsc_first_failed_phase(&r->build);
	const char *phase = failed < r->build.n_phases ? r->build.phases[failed].label : "?";
	switch (a) {
	case HK_CONFIRM_NOT_NEEDED:
		fprintf(out, "    %s succeeded without them: NOT needs. The build failed on being "
			     "denied what a machine without them would not show (a probe the store "
			     "view made fatal); leave them undeclared.\n", phase);
		if (!dsc_completed(&r->confirm))
			fprintf(out, "    A later phase then failed on its own; its findings:\n");
		break;
	case HK_CONFIRM_STILL_FAILS:
		fprintf(out, "    %s failed again without them, denied nothing else it needed: "
			     "needs.\n", phase);
		break;
	case HK_CONFIRM_UNDECIDED:
		fprintf(out, "    %s failed again without them, on other denials: undecided (each "
			     "may be a need or another probe the view made fatal):\n", phase);
		break;
	case HK_CONFIRM_NO_ANSWER:
		fprintf(out, "    no answer: %s\n",
			r->confirm_error ? r->confirm_error : "the second build gave no verdicts");
		return;
	case HK_CONFIRM_NONE:
		return;
	}
	if (a == HK_CONFIRM_STILL_FAILS || dsc_completed(&r->confirm))
		return;
	struct dsc_findings rep;
	dsc_confirm_findings(r, &rep);
	size_t shown = 0;
	for (size_t i = 0; i < rep.n; i++) {
		if (!rep.f[i].need)
			continue;
		fprintf(out, "      missing: ");
		finding_line(&rep.f[i], out);
		shown++;
	}
	if (!shown)
		fprintf(out, "      (no missing Build-Depends named)\n");
	dsc_findings_free(&rep);
}

/* The expected denials: what the toolchain always does, stated, each with its entry. */
static void expected_human(const struct hk_dsc_result *r, const struct dsc_findings *rep, FILE *out)
{
	if (rep->n_x == 0)
		return;
	fprintf(out, "  expected (%s%s; they leave the phase Hermetic):\n", HK_DEB_EXPECT_VERSION,
		r->expect_package_file ? " and " HK_DEB_EXPECT_FILE : "");
	for (size_t i = 0; i < rep->n_x; i++) {
		const struct dsc_expected *x = &rep->x[i];
		fprintf(out, "    %s (%s, by %s", x->path ? x->path : "?", x->phase,
			exe_short(x->exe));
		if (x->count > 1)
			fprintf(out, "; %llu denials", (unsigned long long)x->count);
		fprintf(out, ")");
		if (x->entry)
			fprintf(out, " — %s: %s [%s]", x->entry->tool, x->entry->reason,
				x->entry->source);
		fputc('\n', out);
	}
}

/* --decide-probes (dsc_decide.c): the builds it ran and what each probe does. */

static void list_human(FILE *f, const char *indent, char *const *items, size_t n_all)
{
	size_t shown = 0;
	for (; items && items[shown]; shown++)
		fprintf(f, "%s%s\n", indent, items[shown]);
	if (n_all > shown)
		fprintf(f, "%s… and %zu more\n", indent, n_all - shown);
}

static void decide_human(const struct hk_dsc_result *r, FILE *f)
{
	const struct hk_dsc_decide *d = &r->decide;
	if (!d->asked)
		return;
	if (d->not_run) {
		fprintf(f, "  --decide-probes: no build run: %s\n", d->not_run);
		return;
	}
	fprintf(f, "  --decide-probes: each probe by its effect on the .debs (%zu more build%s, "
		   "none sealed):\n", d->n_builds, d->n_builds == 1 ? "" : "s");
	for (size_t i = 0; i < d->n_builds; i++) {
		const struct hk_dsc_extra_build *x = &d->builds[i];
		fprintf(f, "    %s", x->purpose);
		if (x->n_granted && strncmp(x->purpose, "round", 5) == 0) {
			fprintf(f, " (");
			for (size_t k = 0; k < x->n_granted; k++)
				fprintf(f, "%s%s", k ? " " : "", x->granted[k]);
			fprintf(f, ")");
		}
		fprintf(f, ": %s", x->phases);
		if (x->compared_with)
			fprintf(f, "; .debs %s %s", x->identical ? "identical to" : "differ from",
				x->compared_with);
		if (x->error)
			fprintf(f, "; no answer: %s", x->error);
		if (x->n_new_probes) {
			fprintf(f, "; new probes:");
			for (size_t k = 0; k < x->n_new_probes; k++)
				fprintf(f, " %s", x->new_probes[k]);
		}
		if (x->n_still_denied) {
			fprintf(f, "; denied though granted:");
			for (size_t k = 0; k < x->n_still_denied; k++)
				fprintf(f, " %s", x->still_denied[k]);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < d->n_decisions; i++) {
		const struct hk_dsc_probe_decision *x = &d->decisions[i];
		fprintf(f, "    %s: %s — %s\n", x->package,
			x->cls == HK_PROBE_INFLUENCE ? "UNDECLARED INFLUENCE"
						     : hk_probe_class_name(x->cls),
			x->why);
		list_human(f, "      ", x->differences, x->n_differences);
	}
}

static void strs_json(struct hk_json *j, const char *key, char *const *items)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; items && items[i]; i++)
		hk_json_bytes(j, items[i], strlen(items[i]));
	hk_json_arr_end(j);
}

static void decide_json(const struct hk_dsc_result *r, struct hk_json *j)
{
	const struct hk_dsc_decide *d = &r->decide;
	if (!d->asked) {
		hk_json_null(j);
		return;
	}
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "not_run", d->not_run);
	hk_json_key(j, "builds");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < d->n_builds; i++) {
		const struct hk_dsc_extra_build *x = &d->builds[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "purpose", x->purpose);
		strs_json(j, "granted", x->granted);
		hk_json_kv_str(j, "phases", x->phases);
		hk_json_kv_bool(j, "completed", x->completed);
		kv_bytes_or_null(j, "error", x->error);
		hk_json_kv_str(j, "compared_with", x->compared_with);
		hk_json_key(j, "identical");
		if (x->compared_with)
			hk_json_bool(j, x->identical);
		else
			hk_json_null(j);
		strs_json(j, "differences", x->differences);
		hk_json_kv_uint(j, "n_differences", x->n_differences);
		strs_json(j, "new_probes", x->new_probes);
		strs_json(j, "still_denied", x->still_denied);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "decisions");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < d->n_decisions; i++) {
		const struct hk_dsc_probe_decision *x = &d->decisions[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "package", x->package);
		hk_json_kv_str(j, "class", hk_probe_class_name(x->cls));
		hk_json_kv_bytes(j, "why", x->why, strlen(x->why));
		strs_json(j, "differences", x->differences);
		hk_json_kv_uint(j, "n_differences", x->n_differences);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_obj_end(j);
}

/* The recipe the engine ran, as data: each phase's commands, the fixed environment and the
 * recipe's variables, which the phases get after it (build_prepare.c).  What a build run
 * elsewhere needs to do the same (bench/debian/pairs runs it bare). */
static void recipe_json(const struct hk_dsc_result *r, struct hk_json *j)
{
	if (!r->recipe_made) {
		hk_json_null(j);
		return;
	}
	const struct hk_recipe *rc = &r->recipe;
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "name", rc->name);
	hk_json_kv_str(j, "version", rc->version);
	hk_json_kv_str(j, "base", rc->base);
	/* The phases start in /src, where the source was unpacked as source_tree. */
	hk_json_kv_str(j, "source", "/src");
	hk_json_kv_str(j, "source_tree", r->srcdir);
	hk_json_key(j, "phases");
	hk_json_arr_begin(j);
	for (int p = 0; p < HK_PHASE_COUNT; p++) {
		if (rc->phases[p].n_commands == 0)
			continue;
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "phase", hk_dsc_phase_labels[p]);
		hk_json_kv_str(j, "recipe_phase", hk_phase_name((enum hk_phase)p));
		hk_json_key(j, "commands");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < rc->phases[p].n_commands; i++)
			hk_json_str(j, rc->phases[p].commands[i]);
		hk_json_arr_end(j);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "environment");
	hk_json_arr_begin(j);
	for (size_t i = 0; hk_dsc_fixed_env[i]; i++)
		hk_json_str(j, hk_dsc_fixed_env[i]);
	if (r->source_date_epoch) {
		hk_autofree char *sde = hk_xasprintf("SOURCE_DATE_EPOCH=%s", r->source_date_epoch);
		hk_json_str(j, sde);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "variables");
	hk_json_obj_begin(j);
	for (size_t i = 0; i < rc->n_env; i++)
		hk_json_kv_str(j, rc->env[i].key, rc->env[i].value);
	hk_json_obj_end(j);
	hk_json_obj_end(j);
}

void hk_dsc_report_human(const struct hk_dsc_result *r, FILE *out)
{
	if (!r->dsc_loaded)
		return;
	fprintf(out, "\nBuild-Depends of %s %s (build %s%s%s) on %s %s:\n", r->dsc.source,
		r->dsc.version, hk_dsc_mode_name(r->mode), r->profiles && *r->profiles ?
		", profiles " : "", r->profiles ? r->profiles : "",
		r->base_name ? r->base_name : "?", r->base_id ? r->base_id : "");
	if (r->dsc_made_from)
		fprintf(out, "  source package: %s, made by %s\n", r->dsc_path, r->dsc_made_from);
	if (!r->built || r->build.n_phases == 0) {
		fprintf(out, "  not built: %s\n", r->error ? r->error : "(see above)");
		return;
	}
	fprintf(out, "  class: %s\n", hk_dsc_class_name(hk_dsc_package_class(r)));
	fprintf(out, "  phases:");
	for (size_t i = 0; i < r->build.n_phases; i++) {
		const struct phase_result *pr = &r->build.phases[i];
		fprintf(out, "  %s %s", pr->label,
			pr->has_verdict ? hk_verdict_state_name(pr->verdict.state) : "no verdict");
		/* NoEvidence says why: nothing below is vouched for in that phase. */
		if (pr->has_verdict && pr->verdict.n_reasons)
			fprintf(out, " (%s)", hk_reason_code(pr->verdict.reasons[0].code));
		if (hk_cage_failed(&pr->res))
			fprintf(out, " (failed)");
	}
	fputc('\n', out);
	struct dsc_findings rep;
	dsc_findings_of(r, &rep);
	size_t needs = 0, probes = 0;
	for (size_t i = 0; i < rep.n; i++)
		rep.f[i].need ? needs++ : probes++;
	if (needs == 0 && probes == 0 && rep.n_l == 0 && r->n_macro_needs == 0)
		fprintf(out, "  nothing read beyond base + Build-Depends%s\n",
			rep.expected ? " (expected denials aside)" : "");
	expected_human(r, &rep, out);
	for (size_t i = 0; i < rep.n; i++) {
		if (!rep.f[i].need)
			continue;
		fprintf(out, "  missing Build-Depends: ");
		finding_line(&rep.f[i], out);
	}
	/* No denial witnesses these: the store view leaves /usr/share/aclocal out, and the log
	 * is what named them.  A build that failed needed them; one that went on was changed by
	 * their absence. */
	for (size_t i = 0; i < r->n_macro_needs; i++) {
		const struct hk_dsc_macro_need *m = &r->macro_needs[i];
		static const char *const by[] = {
			[HK_DSC_LOG_MACRO] = "is defined by",
			[HK_DSC_LOG_VARIABLE] = "is substituted (AC_SUBST) by",
			[HK_DSC_LOG_CONDITIONAL] = "is defined (AM_CONDITIONAL) by",
		};
		fprintf(out, "  %s, named from the build log: %s (",
			r->build.failed_phase ? "missing Build-Depends" : "probe survived",
			m->package);
		if (m->kind == HK_DSC_LOG_LIBRARY)
			fprintf(out, "library %s is in %s, which %s of %s names", m->macro, m->dir,
				m->file, m->package);
		else
			fprintf(out, "%s %s %s %s of %s", hk_dsc_log_kind_name(m->kind), m->macro,
				by[m->kind], m->file, m->package);
		fprintf(out, "; the log says: %s)\n", m->line);
	}
	if (probes)
		fprintf(out, "  probes survived (the phase went on without them: influences on the "
			     "result, not needs):\n");
	for (size_t i = 0; i < rep.n; i++) {
		if (rep.f[i].need)
			continue;
		fprintf(out, "    ");
		finding_line(&rep.f[i], out);
	}
	for (size_t i = 0; i < rep.n_l; i++)
		fprintf(out, "  %s: %s (%s, by %s)%s%s\n",
			strcmp(rep.l[i].class_, "policy_bug") == 0 ? "policy bug, not debt"
								    : "unattributed",
			rep.l[i].path ? rep.l[i].path : "?", rep.l[i].phase, exe_short(rep.l[i].exe),
			rep.l[i].reason ? " — " : "", rep.l[i].reason ? rep.l[i].reason : "");
	confirm_human(r, out);
	decide_human(r, out);
	converse_human(r, out);
	hk_dsc_change_human(r, out);
	if (r->n_outputs) {
		fprintf(out, "  outputs (artifact %s):\n", r->build.artifact_id);
		for (size_t i = 0; i < r->n_outputs; i++)
			fprintf(out, "    %s  %llu bytes  sha256 %s\n", r->outputs[i].file,
				r->outputs[i].size, r->outputs[i].sha256);
	}
	dsc_findings_free(&rep);
}

static void json_finding(struct hk_json *j, const struct dsc_finding *f)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "package", f->package);
	hk_json_kv_str(j, "version", f->version);
	hk_json_kv_str(j, "origin", f->origin);
	hk_json_kv_str(j, "phase", f->phase);
	hk_json_kv_bytes(j, "path", f->path ? f->path : "", f->path ? strlen(f->path) : 0);
	kv_bytes_or_null(j, "exe", f->exe);
	hk_json_kv_str(j, "blockers", f->blockers);
	hk_json_kv_str(j, "how", f->how);
	kv_bytes_or_null(j, "via", f->via);
	hk_json_kv_uint(j, "paths", f->paths.len);
	hk_json_kv_uint(j, "count", f->count);
	hk_json_kv_str(j, "alternative_in", f->alternative_in);
	hk_json_obj_end(j);
}

const char *hk_dsc_step_name(enum hk_dsc_step s)
{
	static const char *const names[HK_DSC_T_COUNT] = {
		[HK_DSC_T_SOURCE_PACKAGE] = "source_package",
		[HK_DSC_T_CHECKSUMS] = "checksums",
		[HK_DSC_T_ARCH] = "architecture",
		[HK_DSC_T_UNPACK] = "unpack",
		[HK_DSC_T_EXPECTATIONS] = "expectations",
		[HK_DSC_T_BASE] = "base",
		[HK_DSC_T_REDUCE] = "reduce",
		[HK_DSC_T_RESOLUTION] = "resolution",
		[HK_DSC_T_IMPORTS] = "imports",
		[HK_DSC_T_DPKG_STATE] = "dpkg_state",
		[HK_DSC_T_DPKG_DB] = "dpkg_db",
		[HK_DSC_T_RECIPE] = "recipe",
		[HK_DSC_T_ENGINE] = "engine",
		[HK_DSC_T_LOG] = "log",
		[HK_DSC_T_OUTPUTS] = "outputs",
		[HK_DSC_T_CONVERSE] = "converse",
	};
	return (unsigned)s < HK_DSC_T_COUNT ? names[s] : "?";
}

void hk_dsc_result_json(const struct hk_dsc_result *r, struct hk_json *j)
{
	hk_json_obj_begin(j);
	/* Where the front end's time went (null: not reached); the engine's steps are the
	 * result's own "timings_ms". */
	hk_json_key(j, "timings_ms");
	hk_json_obj_begin(j);
	for (int s = 0; s < HK_DSC_T_COUNT; s++) {
		hk_json_key(j, hk_dsc_step_name((enum hk_dsc_step)s));
		if (r->ms_steps[s] >= 0)
			hk_json_int(j, r->ms_steps[s]);
		else
			hk_json_null(j);
	}
	hk_json_key(j, "total");
	hk_json_int(j, r->ms_total);
	hk_json_obj_end(j);
	hk_json_key(j, "dsc");
	if (r->dsc_loaded) {
		hk_json_obj_begin(j);
		hk_json_kv_bytes(j, "path", r->dsc_path, strlen(r->dsc_path));
		hk_json_kv_str(j, "made_from", r->dsc_made_from);
		hk_json_kv_str(j, "sha256", r->dsc_sha256);
		hk_json_kv_str(j, "source", r->dsc.source);
		hk_json_kv_str(j, "version", r->dsc.version);
		hk_json_kv_str(j, "format", r->dsc.format);
		hk_json_kv_bool(j, "signed", r->dsc.signed_);
		hk_json_obj_end(j);
	} else {
		hk_json_null(j);
	}
	hk_json_kv_str(j, "build", hk_dsc_mode_name(r->mode));
	hk_json_kv_str(j, "build_options", r->build_options);
	hk_json_kv_str(j, "build_profiles", r->profiles);
	hk_json_kv_str(j, "source_date_epoch", r->source_date_epoch);
	hk_json_key(j, "base");
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "name", r->base_name);
	hk_json_kv_str(j, "id", r->base_id);
	hk_json_obj_end(j);
	hk_json_key(j, "relations");
	hk_json_obj_begin(j);
	for (size_t f = 0; f < HK_DSC_FIELD_COUNT; f++)
		if (r->reduced[f])
			hk_json_kv_str(j, hk_dsc_field_name(f), r->reduced[f]);
	hk_json_obj_end(j);
	hk_json_key(j, "closure");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_closure; i++) {
		const struct hk_dsc_pkg *p = &r->closure[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "name", p->name);
		hk_json_kv_str(j, "version", p->version);
		hk_json_kv_str(j, "arch", p->arch);
		hk_json_kv_str(j, "upgrades", p->upgrades);
		hk_json_kv_str(j, "id", p->id[0] ? p->id : NULL);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	/* How the build got its closure: downloaded now, or all of it from the store. */
	hk_json_kv_uint(j, "closure_downloaded", r->n_downloaded);
	hk_json_key(j, "base_declared");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_declared_base; i++)
		hk_json_str(j, r->declared_base[i]);
	hk_json_arr_end(j);
	hk_json_kv_str(j, "dpkg_state", r->state_id);
	struct dsc_findings rep;
	dsc_findings_of(r, &rep);
	hk_json_key(j, "missing");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n; i++)
		if (rep.f[i].need)
			json_finding(j, &rep.f[i]);
	hk_json_arr_end(j);
	hk_json_key(j, "probes");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n; i++)
		if (!rep.f[i].need)
			json_finding(j, &rep.f[i]);
	hk_json_arr_end(j);
	hk_json_key(j, "unattributed");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n_l; i++) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "class", rep.l[i].class_);
		hk_json_kv_str(j, "phase", rep.l[i].phase);
		kv_bytes_or_null(j, "path", rep.l[i].path);
		kv_bytes_or_null(j, "exe", rep.l[i].exe);
		hk_json_kv_str(j, "reason", rep.l[i].reason);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_kv_uint(j, "expected_denials", rep.expected);
	hk_json_key(j, "expected");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n_x; i++) {
		const struct dsc_expected *x = &rep.x[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "phase", x->phase);
		kv_bytes_or_null(j, "path", x->path);
		kv_bytes_or_null(j, "exe", x->exe);
		hk_json_kv_uint(j, "count", x->count);
		hk_json_kv_str(j, "pattern", x->entry ? x->entry->pattern : NULL);
		hk_json_kv_str(j, "tool", x->entry ? x->entry->tool : NULL);
		hk_json_kv_str(j, "reason", x->entry ? x->entry->reason : NULL);
		hk_json_kv_str(j, "source", x->entry ? x->entry->source : NULL);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "from_log");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_macro_needs; i++) {
		const struct hk_dsc_macro_need *m = &r->macro_needs[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "package", m->package);
		hk_json_kv_str(j, "version", m->version);
		hk_json_kv_bool(j, "need", r->build.failed_phase != NULL);
		hk_json_kv_str(j, "evidence", "build_log");
		hk_json_kv_str(j, "kind", hk_dsc_log_kind_name(m->kind));
		hk_json_kv_str(j, "macro", m->macro);
		hk_json_kv_bytes(j, "file", m->file, strlen(m->file));
		kv_bytes_or_null(j, "dir", m->dir);
		hk_json_kv_bytes(j, "line", m->line, strlen(m->line));
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	dsc_findings_free(&rep);
	hk_json_key(j, "expectations");
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "set", HK_DEB_EXPECT_VERSION);
	hk_json_kv_bool(j, "package_file", r->expect_package_file);
	hk_json_kv_uint(j, "paths_expected", r->n_expect_paths);
	hk_json_key(j, "entries");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->expect.n; i++) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "pattern", r->expect.e[i].pattern);
		hk_json_kv_str(j, "tool", r->expect.e[i].tool);
		hk_json_kv_str(j, "reason", r->expect.e[i].reason);
		hk_json_kv_str(j, "source", r->expect.e[i].source);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_obj_end(j);
	hk_json_key(j, "environment");
	hk_json_arr_begin(j);
	for (size_t i = 0; hk_dsc_fixed_env[i]; i++)
		hk_json_str(j, hk_dsc_fixed_env[i]);
	hk_json_arr_end(j);
	hk_json_key(j, "recipe");
	recipe_json(r, j);
	hk_json_key(j, "converse");
	hk_json_obj_begin(j);
	const char *why = converse_not(r);
	hk_json_kv_bool(j, "computed", why == NULL);
	hk_json_kv_str(j, "not_computed", why);
	hk_json_kv_bool(j, "incomplete", r->built && r->build.opened_incomplete);
	hk_json_kv_uint(j, "checked", r->n_groups_checked);
	hk_json_key(j, "unopened");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_unread; i++) {
		if (r->unread[i].through)
			continue;
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "field", r->unread[i].field);
		hk_json_kv_str(j, "group", r->unread[i].group);
		hk_json_kv_str(j, "packages", r->unread[i].packages);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "used_through");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_unread; i++) {
		const struct hk_dsc_unread *u = &r->unread[i];
		if (!u->through)
			continue;
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "field", u->field);
		hk_json_kv_str(j, "group", u->group);
		hk_json_kv_str(j, "packages", u->packages);
		hk_json_key(j, "through");
		hk_json_arr_begin(j);
		for (size_t k = 0; k < u->n_through; k++) {
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "package", u->through[k]);
			hk_json_kv_bytes(j, "path", u->through_paths[k], strlen(u->through_paths[k]));
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_obj_end(j);
	hk_json_key(j, "confirm");
	enum hk_confirm_answer ca = dsc_confirm_answer(r);
	if (ca == HK_CONFIRM_NONE) {
		hk_json_null(j);
	} else {
		hk_json_obj_begin(j);
		hk_json_key(j, "hidden");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < r->n_confirm_hidden; i++)
			hk_json_str(j, r->confirm_hidden[i]);
		hk_json_arr_end(j);
		hk_json_kv_str(j, "answer", hk_confirm_answer_name(ca));
		hk_json_key(j, "rounds_before");
		hk_json_arr_begin(j);
		for (size_t k = 0; k < r->n_confirm_rounds; k++) {
			const struct hk_dsc_confirm_round *cr = &r->confirm_rounds[k];
			hk_json_obj_begin(j);
			hk_json_key(j, "hidden");
			hk_json_arr_begin(j);
			for (size_t i = 0; cr->hidden[i]; i++)
				hk_json_str(j, cr->hidden[i]);
			hk_json_arr_end(j);
			hk_json_kv_str(j, "phases", cr->phases);
			hk_json_key(j, "new_needs");
			hk_json_arr_begin(j);
			for (size_t i = 0; cr->new_needs[i]; i++)
				hk_json_str(j, cr->new_needs[i]);
			hk_json_arr_end(j);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		/* The phase the answer is about: the first build's first failed phase. */
		size_t failed = dsc_first_failed_phase(&r->build);
		hk_json_kv_str(j, "phase",
			       failed < r->build.n_phases ? r->build.phases[failed].label : NULL);
		hk_json_kv_str(j, "error", r->confirm_error);
		hk_json_key(j, "result");
		hk_build_result_json(&r->confirm, j);
		hk_json_obj_end(j);
	}
	hk_json_key(j, "class");
	if (r->built)
		hk_json_str(j, hk_dsc_class_name(hk_dsc_package_class(r)));
	else
		hk_json_null(j);
	hk_json_key(j, "decide");
	decide_json(r, j);
	hk_dsc_change_json(r, j);
	hk_json_key(j, "outputs");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_outputs; i++) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "file", r->outputs[i].file);
		hk_json_kv_uint(j, "size", r->outputs[i].size);
		hk_json_kv_str(j, "sha256", r->outputs[i].sha256);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "result");
	if (r->built)
		hk_build_result_json(&r->build, j);
	else
		hk_json_null(j);
	hk_json_key(j, "error");
	if (r->error)
		hk_json_bytes(j, r->error, strlen(r->error));
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

/* The --decide-probes class of `pkg`, or NULL when it was not decided. */
static const char *decided_class(const struct hk_dsc_result *r, const char *pkg)
{
	for (size_t i = 0; i < r->decide.n_decisions; i++)
		if (strcmp(r->decide.decisions[i].package, pkg) == 0)
			return hk_probe_class_name(r->decide.decisions[i].cls);
	return NULL;
}

static void verdict_finding(struct hk_json *j, const struct dsc_finding *f, const char *cls,
			    bool with_class)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "package", f->package);
	hk_json_kv_str(j, "version", f->version);
	hk_json_kv_str(j, "origin", f->origin);
	hk_json_kv_bytes(j, "path", f->path ? f->path : "", f->path ? strlen(f->path) : 0);
	kv_bytes_or_null(j, "exe", f->exe);
	/* What the build did, and to which path as the report names it: a trap of the store
	 * view stands for the package's symlink (finding_line). */
	hk_json_kv_str(j, "access", hk_dsc_verb(f->blockers));
	hk_json_kv_str(j, "how", f->how);
	kv_bytes_or_null(j, "via", f->via);
	hk_json_kv_uint(j, "count", f->count);
	if (with_class)
		hk_json_kv_str(j, "class", cls);
	hk_json_obj_end(j);
}

/* One phase as the Debian verdicts read it: its own findings, each a need or a probe as the
 * whole build's report decides (a need is a path denied only in phases that failed, so the
 * rule spans phases). */
static void verdict_phase_json(const struct hk_dsc_result *r, const struct phase_result *pr,
			       const struct dsc_findings *all, struct hk_json *j)
{
	struct dsc_findings rep;
	dsc_phase_findings(r, pr, &rep);
	const char *state = pr->has_verdict ? hk_verdict_state_name(pr->verdict.state) : NULL;
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "phase", pr->label);
	hk_json_kv_str(j, "state", state);
	hk_json_kv_int(j, "exitCode", pr->res.timed_out ? -1 : pr->res.exit_code);
	hk_json_kv_uint(j, "expectedDenials", rep.expected);
	for (int need = 1; need >= 0; need--) {
		hk_json_key(j, need ? "missing" : "probes");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < rep.n; i++) {
			bool is_need = false;
			for (size_t k = 0; k < all->n; k++)
				if (strcmp(all->f[k].package, rep.f[i].package) == 0)
					is_need = all->f[k].need;
			if (is_need != (bool)need)
				continue;
			verdict_finding(j, &rep.f[i], decided_class(r, rep.f[i].package), !need);
		}
		hk_json_arr_end(j);
	}
	hk_json_key(j, "unattributed");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n_l; i++) {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "class", rep.l[i].class_);
		hk_json_kv_bytes(j, "path", rep.l[i].path ? rep.l[i].path : "",
				 rep.l[i].path ? strlen(rep.l[i].path) : 0);
		kv_bytes_or_null(j, "exe", rep.l[i].exe);
		hk_json_kv_str(j, "reason", rep.l[i].reason);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_obj_end(j);
	dsc_findings_free(&rep);
}


void hk_dsc_verdict_json(const struct hk_dsc_result *r, const char *expected_set,
			 struct hk_json *j)
{
	struct dsc_findings all;
	dsc_findings_of(r, &all);
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "source", r->dsc.source);
	hk_json_kv_str(j, "version", r->dsc.version);
	hk_json_kv_str(j, "build", hk_dsc_mode_name(r->mode));
	hk_json_kv_str(j, "buildProfiles", r->profiles);
	hk_json_kv_bool(j, "completed", r->built && dsc_completed(&r->build));
	hk_json_kv_bool(j, "complete", hk_dsc_build_depends_complete(r));
	hk_json_kv_str(j, "expectedSet", expected_set);
	hk_json_key(j, "phases");
	hk_json_arr_begin(j);
	for (size_t i = 0; r->built && i < r->build.n_phases; i++)
		verdict_phase_json(r, &r->build.phases[i], &all, j);
	hk_json_arr_end(j);
	hk_json_key(j, "fromLog");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_macro_needs; i++) {
		const struct hk_dsc_macro_need *m = &r->macro_needs[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "package", m->package);
		hk_json_kv_str(j, "version", m->version);
		hk_json_kv_bool(j, "need", r->build.failed_phase != NULL);
		hk_json_kv_str(j, "kind", hk_dsc_log_kind_name(m->kind));
		hk_json_kv_str(j, "macro", m->macro);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_key(j, "decideProbes");
	if (!r->decide.asked) {
		hk_json_null(j);
	} else {
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "notRun", r->decide.not_run);
		hk_json_key(j, "decisions");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < r->decide.n_decisions; i++) {
			const struct hk_dsc_probe_decision *d = &r->decide.decisions[i];
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "package", d->package);
			hk_json_kv_str(j, "class", hk_probe_class_name(d->cls));
			hk_json_kv_str(j, "why", d->why);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_obj_end(j);
	}
	hk_json_obj_end(j);
	dsc_findings_free(&all);
}
