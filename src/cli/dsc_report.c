/* The report of a Debian build in Build-Depends terms (build_dsc.h; docs/debian-builds.md,
 * "The report"), computed from each phase's evidence object, as the build's own report is:
 *
 *   missing Build-Depends: zlib1g-dev (debian/rules build read /usr/include/zlib.h, by cc1)
 *
 * A package the diagnosis names (docs/diagnosis.md: the store artifact or the base package
 * that ships the denied path) is a NEED when the phase that was denied it failed, and a PROBE
 * the build survived when the phase went on: an influence on the result, not a need (a
 * configure check that found nothing may still have changed the binary).  A denied path no
 * package of the store or the base ships is unattributed: harkaq cannot name a package for it. */
#include <stdlib.h>
#include <string.h>

#include "cli/build_dsc.h"
#include "cli/dsc_int.h"
#include "core/strset.h"
#include "core/util.h"

struct finding {
	char *package, *version, *origin;
	char *phase, *path, *exe, *blockers, *how, *via;
	uint64_t count;              /* denials, every phase */
	struct hk_strset paths;      /* distinct paths denied */
	struct hk_strset failed_paths;   /* those denied in a phase that failed */
	bool need;                   /* a path of it was denied only in phases that failed */
	char *alternative_in;        /* the used Build-Depends group that lists it, or NULL */
};

struct loose {
	char *phase, *path, *exe, *class_, *reason;
};

/* A path denied and expected, with the entry that expects it (NULL: not the set's). */
struct expected {
	char *phase, *path, *exe;
	uint64_t count;
	const struct hk_expect_entry *entry;
};

struct report {
	struct expected *x;
	size_t n_x;
	struct finding *f;
	size_t n;
	/* Paths denied in a phase that went on anyway: the build survived them. */
	struct hk_strset survived;
	struct loose *l;             /* unattributed and policy bugs */
	size_t n_l;
	uint64_t expected;
};

static char *bytes_of(const struct hk_jval *obj, const char *key)
{
	size_t len;
	char *s = hk_jval_bytes(hk_jobj_get(obj, key), &len);
	return s;
}

/* The denied right as a verb: what the build did to the path. */
static const char *verb(const char *blockers)
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

static const char *exe_short(const char *exe)
{
	if (!exe)
		return "?";
	const char *s = strrchr(exe, '/');
	return s ? s + 1 : exe;
}

/* The Debian target a phase ran, as the sentence names it. */
static char *phase_target(const struct hk_dsc_result *r, const char *label)
{
	const char *suffix = r->mode == HK_DSC_BUILD_ANY ? "-arch"
			     : r->mode == HK_DSC_BUILD_ALL ? "-indep" : "";
	if (strcmp(label, "clean") == 0)
		return hk_xstrdup("debian/rules clean");
	return hk_xasprintf("debian/rules %s%s", label, suffix);
}

static struct finding *finding_for(struct report *rep, const char *pkg)
{
	for (size_t i = 0; i < rep->n; i++)
		if (strcmp(rep->f[i].package, pkg) == 0)
			return &rep->f[i];
	rep->f = hk_xrealloc(rep->f, (rep->n + 1) * sizeof(*rep->f));
	struct finding *f = &rep->f[rep->n++];
	memset(f, 0, sizeof(*f));
	f->package = hk_xstrdup(pkg);
	f->paths = (struct hk_strset)HK_STRSET_INIT;
	f->failed_paths = (struct hk_strset)HK_STRSET_INIT;
	return f;
}

/* An expected denial, merged by path: the first phase and program that met it name it. */
static void add_expected(const struct hk_dsc_result *r, const struct phase_result *pr,
			 const struct hk_jval *d, uint64_t count, struct report *rep)
{
	hk_autofree char *path = bytes_of(d, "path");
	for (size_t i = 0; path && i < rep->n_x; i++) {
		if (rep->x[i].path && strcmp(rep->x[i].path, path) == 0) {
			rep->x[i].count += count;
			return;
		}
	}
	rep->x = hk_xrealloc(rep->x, (rep->n_x + 1) * sizeof(*rep->x));
	struct expected *x = &rep->x[rep->n_x++];
	x->phase = phase_target(r, pr->label);
	x->exe = bytes_of(d, "exe");
	x->count = count;
	x->entry = path ? hk_expect_match(&r->expect, path) : NULL;
	x->path = hk_steal_ptr(&path);
}

static void add_phase(const struct hk_dsc_result *r, const struct phase_result *pr,
		      struct report *rep)
{
	struct hk_jval *ev = NULL;
	struct hk_error err;
	if (!pr->has_verdict || pr->evidence.len == 0 ||
	    hk_json_parse(pr->evidence.data, pr->evidence.len, &ev, &err) < 0)
		return;
	const struct hk_jval *den = hk_jobj_get(ev, "denials");
	const struct hk_jval *diag = hk_jobj_get(ev, "diagnosis");
	bool failed = pr->res.exit_code != 0 || pr->res.timed_out;
	for (size_t i = 0; den && diag && i < den->len && i < diag->len; i++) {
		const struct hk_jval *d = &den->items[i], *g = &diag->items[i];
		const char *cls = hk_jobj_str(g, "class");
		if (!cls)
			continue;
		uint64_t count = (uint64_t)hk_jobj_int(d, "count", 1);
		if (strcmp(cls, "expected") == 0) {
			rep->expected += count;
			add_expected(r, pr, d, count, rep);
			continue;
		}
		const struct hk_jval *prov = hk_jobj_get(g, "providers");
		if (strcmp(cls, "declarable") == 0 && prov && prov->len > 0) {
			const struct hk_jval *best = &prov->items[0];
			struct finding *f = finding_for(rep, hk_jobj_str(best, "name"));
			/* The first denial names the finding, or the first of a failed phase. */
			bool replace = !f->path || (failed && f->failed_paths.len == 0);
			f->count += count;
			hk_autofree char *dpath = bytes_of(d, "path");
			if (dpath) {
				hk_strset_add(&f->paths, dpath);
				hk_strset_add(failed ? &f->failed_paths : &rep->survived, dpath);
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
				f->path = bytes_of(d, "path");
				f->exe = bytes_of(d, "exe");
				const char *bl = hk_jobj_str(d, "blockers");
				f->blockers = bl ? hk_xstrdup(bl) : NULL;
				const char *how = hk_jobj_str(best, "how");
				f->how = how ? hk_xstrdup(how) : NULL;
				f->via = bytes_of(best, "via");
				const char *v = hk_jobj_str(best, "version");
				const char *o = hk_jobj_str(best, "origin");
				f->version = v ? hk_xstrdup(v) : NULL;
				f->origin = o ? hk_xstrdup(o) : NULL;
			}
			continue;
		}
		rep->l = hk_xrealloc(rep->l, (rep->n_l + 1) * sizeof(*rep->l));
		struct loose *l = &rep->l[rep->n_l++];
		l->phase = phase_target(r, pr->label);
		l->path = bytes_of(d, "path");
		l->exe = bytes_of(d, "exe");
		l->class_ = hk_xstrdup(cls);
		const char *why = hk_jobj_str(g, "reason");
		l->reason = why ? hk_xstrdup(why) : NULL;
	}
	hk_jval_free(ev);
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
	return strcmp(((const struct finding *)a)->package, ((const struct finding *)b)->package);
}

static void report_build(const struct hk_dsc_result *r, struct report *rep)
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

static void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct finding *f = &rep->f[i];
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

/* "zlib1g-dev (debian/rules build read /usr/include/zlib.h, by cc1; 12 paths)" */
static void finding_line(const struct finding *f, FILE *out)
{
	/* A trap of the store view stands for the package's symlink: name the link. */
	bool trap = f->how && strcmp(f->how, "link") == 0 && f->via;
	fprintf(out, "%s (%s %s %s, by %s", f->package, f->phase, verb(f->blockers),
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

void hk_dsc_store_needs(const struct hk_dsc_result *r, struct hk_strv *out)
{
	hk_dsc_store_needs_of(r, &r->build, out);
}

char *hk_dsc_phases_summary(const struct hk_build_result *br)
{
	struct hk_buf s = HK_BUF_INIT;
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		hk_buf_printf(&s, "%s%s %d %s", i ? ", " : "", pr->label, pr->res.exit_code,
			      pr->has_verdict ? hk_verdict_state_name(pr->verdict.state)
					      : "no verdict");
	}
	if (br->n_phases == 0)
		hk_buf_puts(&s, "no phase ran");
	char *out = hk_xstrdup(hk_buf_str(&s));
	hk_buf_free(&s);
	return out;
}

void hk_dsc_store_needs_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
			   struct hk_strv *out)
{
	struct hk_dsc_result other = *r;
	other.build = *br;
	other.built = true;
	struct report rep;
	report_build(&other, &rep);
	/* A base package cannot be left out of the view: the base is the build's own root. */
	for (size_t i = 0; i < rep.n; i++)
		if (rep.f[i].need && !(rep.f[i].origin && strcmp(rep.f[i].origin, "base") == 0))
			hk_strv_push(out, rep.f[i].package);
	report_free(&rep);
}

void hk_dsc_probes_of(const struct hk_dsc_result *r, const struct hk_build_result *br,
		      struct hk_strv *names, struct hk_strv *specs)
{
	struct hk_dsc_result other = *r;
	other.build = *br;
	other.built = true;
	struct report rep;
	report_build(&other, &rep);
	for (size_t i = 0; i < rep.n; i++) {
		const struct finding *f = &rep.f[i];
		if (f->need)
			continue;
		hk_strv_push(names, f->package);
		hk_strv_push_owned(specs, f->version ? hk_xasprintf("%s=%s", f->package, f->version)
						     : hk_xstrdup(f->package));
	}
	report_free(&rep);
}

/* --confirm's answer: the second build succeeded without the packages (not needs), or failed
 * again (needs, or another cause its own report names), or could not give one. */
enum confirm_answer {
	CONFIRM_NONE,
	CONFIRM_NOT_NEEDED,         /* the phase succeeded without them */
	CONFIRM_STILL_FAILS,        /* it failed again, denied nothing it needed: they are needs */
	CONFIRM_UNDECIDED,          /* it failed again on other denials: no answer about them */
	CONFIRM_NO_ANSWER,          /* the second build gave no verdict for that phase */
};

/* The second build's report: the same result with its engine's result in place of the
 * first's (a shallow copy: nothing of it is freed here). */
static void confirm_report(const struct hk_dsc_result *r, struct report *rep)
{
	struct hk_dsc_result second = *r;
	second.build = r->confirm;
	second.built = true;
	report_build(&second, rep);
}

/* The first phase of `br` that failed, or br->n_phases when none did. */
static size_t first_failed_phase(const struct hk_build_result *br)
{
	for (size_t i = 0; i < br->n_phases; i++)
		if (br->phases[i].res.exit_code != 0 || br->phases[i].res.timed_out)
			return i;
	return br->n_phases;
}

/* The answer is about the phase the first build failed in, where the packages were denied:
 * if the second build gets through that phase without them, they were not needed there, even
 * when a later phase then fails on something else (named by the second build's own findings:
 * python-pip gets past `import Cython` and then meets pygments). */
static enum confirm_answer confirm_answer(const struct hk_dsc_result *r)
{
	if (!r->confirmed_ran)
		return CONFIRM_NONE;
	const struct hk_build_result *c = &r->confirm;
	size_t failed = first_failed_phase(&r->build);
	if (r->confirm_error || failed >= r->build.n_phases)
		return CONFIRM_NO_ANSWER;
	if (c->n_phases > failed && c->phases[failed].res.exit_code == 0 &&
	    !c->phases[failed].res.timed_out)
		return CONFIRM_NOT_NEEDED;
	if (c->n_phases <= failed)
		return CONFIRM_NO_ANSWER;
	/* Failed again: a need only if nothing else it was denied could be the cause. */
	struct report rep;
	confirm_report(r, &rep);
	bool other = false;
	for (size_t i = 0; i < rep.n && !other; i++)
		other = rep.f[i].need;
	report_free(&rep);
	return other ? CONFIRM_UNDECIDED : CONFIRM_STILL_FAILS;
}

bool hk_dsc_confirm_undecided(const struct hk_dsc_result *r)
{
	return confirm_answer(r) == CONFIRM_UNDECIDED;
}

static const char *confirm_answer_name(enum confirm_answer a)
{
	switch (a) {
	case CONFIRM_NOT_NEEDED: return "not_needed";
	case CONFIRM_STILL_FAILS: return "still_fails";
	case CONFIRM_UNDECIDED: return "undecided";
	case CONFIRM_NO_ANSWER: return "no_answer";
	case CONFIRM_NONE: break;
	}
	return NULL;
}


static void confirm_human(const struct hk_dsc_result *r, FILE *out)
{
	enum confirm_answer a = confirm_answer(r);
	if (a == CONFIRM_NONE)
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
			pr->res.exit_code != 0 ? " (failed)" : "");
	}
	fputc('\n', out);
	size_t failed = first_failed_phase(&r->build);
	const char *phase = failed < r->build.n_phases ? r->build.phases[failed].label : "?";
	switch (a) {
	case CONFIRM_NOT_NEEDED:
		fprintf(out, "    %s succeeded without them: NOT needs. The build failed on being "
			     "denied what a machine without them would not show (a probe the store "
			     "view made fatal); leave them undeclared.\n", phase);
		if (!dsc_completed(&r->confirm))
			fprintf(out, "    A later phase then failed on its own; its findings:\n");
		break;
	case CONFIRM_STILL_FAILS:
		fprintf(out, "    %s failed again without them, denied nothing else it needed: "
			     "needs.\n", phase);
		break;
	case CONFIRM_UNDECIDED:
		fprintf(out, "    %s failed again without them, on other denials: undecided (each "
			     "may be a need or another probe the view made fatal):\n", phase);
		break;
	case CONFIRM_NO_ANSWER:
		fprintf(out, "    no answer: %s\n",
			r->confirm_error ? r->confirm_error : "the second build gave no verdicts");
		return;
	case CONFIRM_NONE:
		return;
	}
	if (a == CONFIRM_STILL_FAILS || dsc_completed(&r->confirm))
		return;
	struct report rep;
	confirm_report(r, &rep);
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
	report_free(&rep);
}

/* The expected denials: what the toolchain always does, stated, each with its entry. */
static void expected_human(const struct hk_dsc_result *r, const struct report *rep, FILE *out)
{
	if (rep->n_x == 0)
		return;
	fprintf(out, "  expected (%s%s; they leave the phase Hermetic):\n", HK_DEB_EXPECT_VERSION,
		r->expect_package_file ? " and " HK_DEB_EXPECT_FILE : "");
	for (size_t i = 0; i < rep->n_x; i++) {
		const struct expected *x = &rep->x[i];
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

void hk_dsc_report_human(const struct hk_dsc_result *r, FILE *out)
{
	if (!r->dsc_loaded)
		return;
	fprintf(out, "\nBuild-Depends of %s %s (build %s%s%s) on %s %s:\n", r->dsc.source,
		r->dsc.version, hk_dsc_mode_name(r->mode), r->profiles && *r->profiles ?
		", profiles " : "", r->profiles ? r->profiles : "",
		r->base_name ? r->base_name : "?", r->base_id ? r->base_id : "");
	if (!r->built || r->build.n_phases == 0) {
		fprintf(out, "  not built: %s\n", r->error ? r->error : "(see above)");
		return;
	}
	fprintf(out, "  phases:");
	for (size_t i = 0; i < r->build.n_phases; i++) {
		const struct phase_result *pr = &r->build.phases[i];
		fprintf(out, "  %s %s", pr->label,
			pr->has_verdict ? hk_verdict_state_name(pr->verdict.state) : "no verdict");
		/* NoEvidence says why: nothing below is vouched for in that phase. */
		if (pr->has_verdict && pr->verdict.n_reasons)
			fprintf(out, " (%s)", hk_reason_code(pr->verdict.reasons[0].code));
		if (pr->res.exit_code != 0)
			fprintf(out, " (failed)");
	}
	fputc('\n', out);
	struct report rep;
	report_build(r, &rep);
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
		fprintf(out, "  %s, named from the build log: %s (macro %s is defined by %s of %s; "
			     "the log says: %s)\n",
			r->build.failed_phase ? "missing Build-Depends" : "probe survived",
			m->package, m->macro, m->file, m->package, m->line);
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
	hk_dsc_decide_human(r, out);
	converse_human(r, out);
	if (r->n_outputs) {
		fprintf(out, "  outputs (artifact %s):\n", r->build.artifact_id);
		for (size_t i = 0; i < r->n_outputs; i++)
			fprintf(out, "    %s  %llu bytes  sha256 %s\n", r->outputs[i].file,
				r->outputs[i].size, r->outputs[i].sha256);
	}
	report_free(&rep);
}

static void json_finding(struct hk_json *j, const struct finding *f)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "package", f->package);
	hk_json_kv_str(j, "version", f->version);
	hk_json_kv_str(j, "origin", f->origin);
	hk_json_kv_str(j, "phase", f->phase);
	hk_json_kv_bytes(j, "path", f->path ? f->path : "", f->path ? strlen(f->path) : 0);
	if (f->exe)
		hk_json_kv_bytes(j, "exe", f->exe, strlen(f->exe));
	else
		hk_json_kv_str(j, "exe", NULL);
	hk_json_kv_str(j, "blockers", f->blockers);
	hk_json_kv_str(j, "how", f->how);
	if (f->via)
		hk_json_kv_bytes(j, "via", f->via, strlen(f->via));
	else
		hk_json_kv_str(j, "via", NULL);
	hk_json_kv_uint(j, "paths", f->paths.len);
	hk_json_kv_uint(j, "count", f->count);
	hk_json_kv_str(j, "alternative_in", f->alternative_in);
	hk_json_obj_end(j);
}

const char *hk_dsc_step_name(enum hk_dsc_step s)
{
	static const char *const names[HK_DSC_T_COUNT] = {
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
	hk_json_key(j, "base_declared");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->n_declared_base; i++)
		hk_json_str(j, r->declared_base[i]);
	hk_json_arr_end(j);
	hk_json_kv_str(j, "dpkg_state", r->state_id);
	struct report rep;
	report_build(r, &rep);
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
		if (rep.l[i].path)
			hk_json_kv_bytes(j, "path", rep.l[i].path, strlen(rep.l[i].path));
		else
			hk_json_kv_str(j, "path", NULL);
		if (rep.l[i].exe)
			hk_json_kv_bytes(j, "exe", rep.l[i].exe, strlen(rep.l[i].exe));
		else
			hk_json_kv_str(j, "exe", NULL);
		hk_json_kv_str(j, "reason", rep.l[i].reason);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	hk_json_kv_uint(j, "expected_denials", rep.expected);
	hk_json_key(j, "expected");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < rep.n_x; i++) {
		const struct expected *x = &rep.x[i];
		hk_json_obj_begin(j);
		hk_json_kv_str(j, "phase", x->phase);
		if (x->path)
			hk_json_kv_bytes(j, "path", x->path, strlen(x->path));
		else
			hk_json_kv_str(j, "path", NULL);
		if (x->exe)
			hk_json_kv_bytes(j, "exe", x->exe, strlen(x->exe));
		else
			hk_json_kv_str(j, "exe", NULL);
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
		hk_json_kv_str(j, "macro", m->macro);
		hk_json_kv_bytes(j, "file", m->file, strlen(m->file));
		hk_json_kv_bytes(j, "line", m->line, strlen(m->line));
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	report_free(&rep);
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
	enum confirm_answer ca = confirm_answer(r);
	if (ca == CONFIRM_NONE) {
		hk_json_null(j);
	} else {
		hk_json_obj_begin(j);
		hk_json_key(j, "hidden");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < r->n_confirm_hidden; i++)
			hk_json_str(j, r->confirm_hidden[i]);
		hk_json_arr_end(j);
		hk_json_kv_str(j, "answer", confirm_answer_name(ca));
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
		size_t failed = first_failed_phase(&r->build);
		hk_json_kv_str(j, "phase",
			       failed < r->build.n_phases ? r->build.phases[failed].label : NULL);
		hk_json_kv_str(j, "error", r->confirm_error);
		hk_json_key(j, "result");
		hk_build_result_json(&r->confirm, j);
		hk_json_obj_end(j);
	}
	hk_json_key(j, "decide");
	hk_dsc_decide_json(r, j);
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
