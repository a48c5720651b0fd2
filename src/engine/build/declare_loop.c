/* The declare loop (declare_loop.h). */
#include "engine/build/declare_loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/common/status.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "core/evidence/evobj.h"
#include "core/formats/udiff.h"
#include "core/policy/recipe_edit.h"
#include "core/policy/recipe_file.h"

/* A copy of `s` the step owns (in st->strings), or NULL. */
static const char *keep(struct hk_declare_step *st, const char *s)
{
	if (!s)
		return NULL;
	hk_strv_push(&st->strings, s);
	return st->strings.v[st->strings.n - 1];
}

/* The step's copy of what the chain and the rule need of a build: its phases and their
 * evidence ids, its artifact, its debt (one entry per path and class, per phase). */
static void take_build(struct hk_declare_step *st, const struct hk_build_result *br,
		       struct hk_declare_build *facts)
{
	memcpy(st->recipe_hash, br->recipe_hash, sizeof(st->recipe_hash));
	memcpy(st->artifact, br->artifact_id, sizeof(st->artifact));
	st->artifact_stored = br->artifact_stored;
	st->phases = hk_xcalloc(br->n_phases ? br->n_phases : 1, sizeof(*st->phases));
	st->n_phases = br->n_phases;
	memset(facts, 0, sizeof(*facts));
	facts->failed = br->failed_phase != NULL;
	size_t cap = 0;
	static const enum hk_diag_class classes[] = { HK_DIAG_DECLARABLE, HK_DIAG_IRREDUCIBLE,
						      HK_DIAG_POLICY_BUG };
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		struct hk_declare_phase *ph = &st->phases[i];
		ph->label = hk_xstrdup(pr->label);
		ph->state = hk_xstrdup(pr->has_verdict ? hk_verdict_state_name(pr->verdict.state)
						       : "no verdict");
		ph->failed = hk_cage_failed(&pr->res);
		ph->exit_code = pr->res.exit_code;
		memcpy(ph->evidence, pr->evidence_id, sizeof(ph->evidence));
		facts->failed |= ph->failed;
		if (!pr->has_verdict || pr->verdict.state == HK_NOEVIDENCE)
			facts->no_evidence = true;
		if (!pr->has_verdict || !pr->has_diag)
			continue;
		for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++) {
			struct hk_evobj_entry *e = NULL;
			size_t n = hk_evobj_entries(&pr->verdict, &pr->diag, classes[c], &e);
			for (size_t k = 0; k < n; k++) {
				if (st->n_debt == cap) {
					cap = cap ? cap * 2 : 8;
					st->debt = hk_xrealloc(st->debt, cap * sizeof(*st->debt));
				}
				const struct hk_diag_item *g = e[k].dia;
				st->debt[st->n_debt++] = (struct hk_declare_debt){
					.path = keep(st, e[k].den->has_path ? e[k].den->path : NULL),
					.cls = classes[c],
					.spec = keep(st, g->n_providers ? g->providers[0].spec : NULL),
					.phase = keep(st, pr->label),
				};
			}
			hk_evobj_entries_free(e, n);
		}
	}
	facts->debt = st->debt;
	facts->n_debt = st->n_debt;
}

static void step_free(struct hk_declare_step *st)
{
	free(st->error);
	for (size_t i = 0; i < st->n_phases; i++) {
		free(st->phases[i].label);
		free(st->phases[i].state);
	}
	free(st->phases);
	free(st->debt);
	hk_strv_free(&st->strings);
	hk_declare_decision_free(&st->decision);
}

/* Writes `text` over the recipe, which must still hold `expected` (what harkaq read or last
 * wrote there): a file someone changed under the loop is never overwritten.  Keeps the
 * file's mode, and its owner where harkaq can. */
static int write_recipe(const char *path, const struct hk_buf *expected, const struct hk_buf *text,
			struct hk_error *err)
{
	struct hk_recipe_text now;
	int rc = hk_recipe_file_read(path, &now, err);
	if (rc < 0)
		return hk_wrap(err, "reading the recipe again before writing it");
	bool same = now.len == expected->len && memcmp(now.text, expected->data, now.len) == 0;
	hk_recipe_text_free(&now);
	if (!same)
		return hk_fail_as(err, HK_ERROR_INPUT, EBUSY,
				  "%s changed while harkaq declare ran: nothing written (run it "
				  "again on the file as it is)", path);
	struct stat st;
	if (stat(path, &st) < 0)
		return hk_fail_errno(err, errno, "cannot stat %s", path);
	rc = hk_file_write_atomic(path, text->data, text->len, st.st_mode & 07777, err);
	if (rc < 0)
		return rc;
	if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    chown(path, st.st_uid, st.st_gid) < 0)
		fprintf(stderr, "harkaq declare: %s is now owned by uid %u (it was %u:%u): %s\n", path,
			(unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)st.st_gid, strerror(errno));
	return 0;
}

/* The recipe parsed from `text`, its relative paths resolving as the file's do. */
static int parse_text(const struct hk_recipe_text *file, const struct hk_buf *text,
		      const char *path, struct hk_recipe *out, struct hk_error *err)
{
	int rc = hk_recipe_parse(text->data, text->len, path, file->dir, out, err);
	if (rc == 0)
		out->path = hk_xstrdup(file->real);
	return rc;
}

static struct hk_declare_step *new_step(struct hk_declare_result *r)
{
	r->steps = hk_xrealloc(r->steps, (r->n_steps + 1) * sizeof(*r->steps));
	struct hk_declare_step *st = &r->steps[r->n_steps++];
	memset(st, 0, sizeof(*st));
	return st;
}

int hk_declare_run(const struct hk_declare_opts *o, struct hk_declare_result *r,
		   struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	r->declared = (struct hk_strv)HK_STRV_INIT;
	r->diff = hk_xstrdup("");
	struct hk_recipe_text file;
	int rc = hk_recipe_file_read(o->recipe_path, &file, err);
	if (rc < 0)
		return rc;
	r->recipe_path = hk_xstrdup(file.real);
	const char *slash = strrchr(file.real, '/');
	r->label = hk_xstrdup(slash ? slash + 1 : file.real);

	/* on_disk: what the file holds (read, or last written); cur: the text the next build
	 * runs; kept: the deps of cur beyond the file's first text. */
	struct hk_buf on_disk = HK_BUF_INIT, cur = HK_BUF_INIT;
	hk_buf_append(&on_disk, file.text, file.len);
	hk_buf_append(&cur, file.text, file.len);
	hk_autostrv struct hk_strv pending = HK_STRV_INIT, pending_paths = HK_STRV_INIT;
	struct hk_declare_build *facts = NULL;
	int last = -1;
	for (;;) {
		struct hk_recipe rec;
		rc = parse_text(&file, &cur, o->recipe_path, &rec, err);
		if (rc < 0)
			break;
		struct hk_declare_step *st = new_step(r);
		if (!o->build.quiet)
			fprintf(stderr, "[declare] build %zu of %s%s\n", r->n_steps, r->label,
				pending.n ? ", with" : "");
		for (size_t i = 0; i < pending.n && !o->build.quiet; i++)
			fprintf(stderr, "[declare]   + %s  (for %s)\n", pending.v[i],
				pending_paths.v[i]);
		struct hk_build_opts bo = o->build;
		bo.recipe = &rec;
		bo.recipe_path = NULL;
		struct hk_build_result br;
		rc = hk_build_run(&bo, &br, err);
		hk_recipe_free(&rec);
		st->rc = rc;
		if (rc < 0) {
			st->error = hk_xstrdup(err->msg);
			hk_build_result_free(&br);
			break;
		}
		last = rc;
		facts = hk_xrealloc(facts, r->n_steps * sizeof(*facts));
		take_build(st, &br, &facts[r->n_steps - 1]);
		facts[r->n_steps - 1].hermetic = rc == HK_OUTCOME_OK && !facts[r->n_steps - 1].failed;
		hk_build_result_free(&br);

		/* The rule, over every build so far and what the last edit declared. */
		struct hk_declare_added *added = hk_xcalloc(pending.n + 1, sizeof(*added));
		for (size_t i = 0; i < pending.n; i++)
			added[i] = (struct hk_declare_added){ pending.v[i], pending_paths.v[i] };
		struct hk_recipe now;
		rc = parse_text(&file, &cur, o->recipe_path, &now, err);
		if (rc < 0) {
			free(added);
			break;
		}
		const char **declared = hk_xcalloc(now.n_build_deps + 1, sizeof(*declared));
		for (size_t i = 0; i < now.n_build_deps; i++)
			declared[i] = now.build_deps[i].spec;
		const struct hk_declare_facts f = { facts, r->n_steps, added, pending.n, declared,
						    now.n_build_deps };
		hk_declare_decide(&f, &st->decision);
		free(declared);
		hk_recipe_free(&now);
		free(added);

		/* The edit the build confirmed stands: written, its deps kept. */
		if (st->decision.keep_edit && pending.n > 0) {
			for (size_t i = 0; i < pending.n; i++)
				hk_strv_push(&r->declared, pending.v[i]);
			if (!o->dry_run) {
				rc = write_recipe(file.real, &on_disk, &cur, err);
				if (rc < 0)
					break;
				hk_buf_reset(&on_disk);
				hk_buf_append(&on_disk, cur.data, cur.len);
				r->written = true;
			}
		}
		hk_strv_free(&pending);
		hk_strv_free(&pending_paths);
		if (st->decision.next != HK_DECLARE_GO_ON) {
			r->stopped = HK_DECLARE_STOPPED_RULE;
			rc = last;
			break;
		}
		struct hk_buf next = HK_BUF_INIT;
		rc = hk_recipe_edit_add_build_deps(cur.data, cur.len, o->recipe_path,
						   (const char *const *)st->decision.specs.v,
						   st->decision.specs.n, &next, err);
		if (rc < 0) {
			hk_buf_free(&next);
			break;
		}
		if (o->dry_run) {
			/* The edit shown, not written, not built. */
			struct hk_buf d = HK_BUF_INIT;
			hk_udiff(r->label, cur.data, cur.len, next.data, next.len, &d);
			free(r->diff);
			r->diff = d.data ? hk_buf_steal(&d) : hk_xstrdup("");
			hk_buf_free(&next);
			r->stopped = HK_DECLARE_STOPPED_DRY_RUN;
			rc = last;
			goto free_texts;
		}
		for (size_t i = 0; i < st->decision.specs.n; i++) {
			hk_strv_push(&pending, st->decision.specs.v[i]);
			hk_strv_push(&pending_paths, st->decision.paths.v[i]);
		}
		hk_buf_free(&cur);
		cur = next;
	}
	if (rc < 0)
		r->stopped = HK_DECLARE_STOPPED_ERROR;
	else {
		/* The change of the file, as left. */
		struct hk_buf d = HK_BUF_INIT;
		hk_udiff(r->label, file.text, file.len, on_disk.data ? on_disk.data : "", on_disk.len,
			 &d);
		free(r->diff);
		r->diff = d.data ? hk_buf_steal(&d) : hk_xstrdup("");
	}
free_texts:
	free(facts);
	hk_buf_free(&on_disk);
	hk_buf_free(&cur);
	hk_recipe_text_free(&file);
	return rc;
}

void hk_declare_result_free(struct hk_declare_result *r)
{
	for (size_t i = 0; i < r->n_steps; i++)
		step_free(&r->steps[i]);
	free(r->steps);
	free(r->recipe_path);
	free(r->label);
	hk_strv_free(&r->declared);
	free(r->diff);
	memset(r, 0, sizeof(*r));
}

/* ---- the chain, for people and programs ---- */

static const char *outcome_word(int rc)
{
	switch (rc) {
	case HK_OUTCOME_OK: return "Hermetic";
	case HK_OUTCOME_COMMAND_FAILED: return "failed";
	case HK_OUTCOME_IMPURE: return "Impure";
	case HK_OUTCOME_NOEVIDENCE: return "NoEvidence";
	}
	return "error";
}

void hk_declare_report_human(const struct hk_declare_result *r, FILE *f)
{
	fprintf(f, "harkaq declare %s\n", r->recipe_path ? r->recipe_path : "?");
	for (size_t s = 0; s < r->n_steps; s++) {
		const struct hk_declare_step *st = &r->steps[s];
		if (st->rc < 0) {
			fprintf(f, "build %zu  stopped: %s\n", s + 1, st->error ? st->error : "?");
			continue;
		}
		fprintf(f, "build %zu  %-10s recipe %s\n", s + 1, outcome_word(st->rc),
			st->recipe_hash);
		for (size_t i = 0; i < st->n_phases; i++) {
			const struct hk_declare_phase *ph = &st->phases[i];
			fprintf(f, "  %-10s %-10s evidence %s%s\n", ph->label, ph->state,
				ph->evidence[0] ? ph->evidence : "(not stored)",
				ph->failed ? "  (failed)" : "");
		}
		if (st->artifact[0])
			fprintf(f, "  artifact   %s%s\n", st->artifact,
				st->artifact_stored ? " (sealed)" : "");
		const struct hk_declare_decision *d = &st->decision;
		if (d->next == HK_DECLARE_GO_ON) {
			for (size_t i = 0; i < d->specs.n; i++)
				fprintf(f, "  %s declare dep: %s  (%s)\n",
					r->stopped == HK_DECLARE_STOPPED_DRY_RUN && s + 1 == r->n_steps
						? "would"
						: "→",
					d->specs.v[i], d->paths.v[i]);
		}
	}
	const struct hk_declare_step *last = r->n_steps ? &r->steps[r->n_steps - 1] : NULL;
	if (r->stopped == HK_DECLARE_STOPPED_ERROR) {
		fprintf(f, "stopped on an error: %s\n", r->error ? r->error : "?");
	} else if (r->stopped == HK_DECLARE_STOPPED_DRY_RUN) {
		fprintf(f, "dry run: nothing written; the edit the first step would make:\n");
	} else if (last) {
		const struct hk_declare_decision *d = &last->decision;
		fprintf(f, "stop: %s — %s\n", hk_declare_next_name(d->next), d->why ? d->why : "");
		if (d->next == HK_DECLARE_IRREDUCIBLE)
			for (size_t i = 0; i < d->paths.n; i++)
				fprintf(f, "  nobody provides %s\n", d->paths.v[i]);
		if (!d->keep_edit && r->n_steps > 1)
			fprintf(f, "the recipe is left as build %zu had it: the last edit no build "
				   "refuted\n", r->n_steps - 1);
	}
	if (r->stopped != HK_DECLARE_STOPPED_DRY_RUN) {
		if (r->declared.n) {
			fprintf(f, "%s: declared", r->label);
			for (size_t i = 0; i < r->declared.n; i++)
				fprintf(f, " %s", r->declared.v[i]);
			fprintf(f, "%s\n", r->written ? " (written)" : " (not written)");
		} else {
			fprintf(f, "%s: unchanged\n", r->label);
		}
	}
	if (r->diff && *r->diff)
		fputs(r->diff, f);
}

void hk_declare_result_json(const struct hk_declare_result *r, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "recipe");
	if (r->recipe_path)
		hk_json_bytes(j, r->recipe_path, strlen(r->recipe_path));
	else
		hk_json_null(j);
	hk_json_kv_bool(j, "dry_run", r->stopped == HK_DECLARE_STOPPED_DRY_RUN);
	hk_json_key(j, "builds");
	hk_json_arr_begin(j);
	for (size_t s = 0; s < r->n_steps; s++) {
		const struct hk_declare_step *st = &r->steps[s];
		hk_json_obj_begin(j);
		hk_json_kv_uint(j, "build", s + 1);
		hk_json_kv_str(j, "outcome", st->rc < 0 ? NULL : outcome_word(st->rc));
		hk_json_kv_str(j, "recipe_hash", st->rc < 0 ? NULL : st->recipe_hash);
		hk_json_key(j, "phases");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < st->n_phases; i++) {
			const struct hk_declare_phase *ph = &st->phases[i];
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "phase", ph->label);
			hk_json_kv_str(j, "state", ph->state);
			hk_json_kv_bool(j, "failed", ph->failed);
			hk_json_key(j, "exit_code");
			hk_json_int(j, ph->exit_code);
			hk_json_kv_str(j, "evidence", ph->evidence[0] ? ph->evidence : NULL);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_kv_str(j, "artifact", st->artifact[0] ? st->artifact : NULL);
		hk_json_kv_bool(j, "artifact_stored", st->artifact_stored);
		hk_json_key(j, "debt");
		hk_json_arr_begin(j);
		for (size_t i = 0; i < st->n_debt; i++) {
			const struct hk_declare_debt *e = &st->debt[i];
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "phase", e->phase);
			hk_json_kv_str(j, "class", hk_diag_class_name(e->cls));
			hk_json_key(j, "path");
			if (e->path)
				hk_json_bytes(j, e->path, strlen(e->path));
			else
				hk_json_null(j);
			hk_json_kv_str(j, "spec", e->spec);
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
		hk_json_key(j, "next");
		if (st->rc < 0) {
			hk_json_null(j);
		} else {
			const struct hk_declare_decision *d = &st->decision;
			hk_json_obj_begin(j);
			hk_json_kv_str(j, "rule", hk_declare_next_name(d->next));
			hk_json_kv_bool(j, "keep_edit", d->keep_edit);
			hk_json_key(j, "specs");
			hk_json_arr_begin(j);
			for (size_t i = 0; i < d->specs.n; i++)
				hk_json_str(j, d->specs.v[i]);
			hk_json_arr_end(j);
			hk_json_key(j, "paths");
			hk_json_arr_begin(j);
			for (size_t i = 0; i < d->paths.n; i++)
				hk_json_bytes(j, d->paths.v[i], strlen(d->paths.v[i]));
			hk_json_arr_end(j);
			hk_json_kv_str(j, "why", d->why);
			hk_json_obj_end(j);
		}
		hk_json_kv_str(j, "error", st->error);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
	const struct hk_declare_step *last = r->n_steps ? &r->steps[r->n_steps - 1] : NULL;
	hk_json_kv_str(j, "stop", r->stopped == HK_DECLARE_STOPPED_ERROR     ? "error"
				  : r->stopped == HK_DECLARE_STOPPED_DRY_RUN ? "dry_run"
				  : last                                     ? hk_declare_next_name(last->decision.next)
									     : "error");
	hk_json_key(j, "declared");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < r->declared.n; i++)
		hk_json_str(j, r->declared.v[i]);
	hk_json_arr_end(j);
	hk_json_kv_bool(j, "written", r->written);
	hk_json_kv_str(j, "diff", r->diff);
	hk_json_key(j, "error");
	if (r->error)
		hk_json_bytes(j, r->error, strlen(r->error));
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}
