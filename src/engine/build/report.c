#include "engine/build/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/store/suggest_source.h"
#include "core/evidence/build_failure.h"
#include "core/evidence/evobj.h"
#include "core/evidence/evobj_store.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"

/* How many paths a human line names before "… and N more" (the JSON lists them all). */
#define MAX_PATHS 3
#define MAX_ITEMS 12
/* phase column (10) + space + state column (11) + space */
#define INDENT 23

/* ---- text ---- */

/* Every renderer below works from the verdict and its diagnosis, typed; the build renders the
 * structs it holds and `harkaq explain` the structs it decoded from the stored object
 * (hk_evobj_decode), and both print the same bytes.  Byte strings (paths, exe, comm) are the
 * same in both; a text member is what the object carries, which is what hk_json_text_as_read
 * makes of it (its writer replaces a byte that is not UTF-8). */

/* A text member as the object carries it (unescaped). */
static void put_text(struct hk_buf *b, const char *s)
{
	hk_json_text_as_read(s, strlen(s), b);
}

/* A text member as the object carries it, escaped for a terminal. */
static void put_human_str(struct hk_buf *b, const char *s)
{
	struct hk_buf t = HK_BUF_INIT;
	put_text(&t, s);
	hk_escape_human(t.data, t.len, b);
	hk_buf_free(&t);
}

/* A byte string, escaped for a terminal. */
static void put_human_bytes(struct hk_buf *b, const char *p, size_t n)
{
	hk_escape_human(p, n, b);
}

/* "/usr/bin/make" or, without a path, what the record named instead. */
static void put_object(struct hk_buf *b, const struct hk_denial *den)
{
	if (den->path) {
		put_human_bytes(b, den->path, den->path_len);
		return;
	}
	if (den->ocomm) {
		hk_buf_puts(b, "process (");
		put_human_bytes(b, den->ocomm, den->ocomm_len);
		hk_buf_putc(b, ')');
		return;
	}
	hk_buf_puts(b, "(no path)");
}

/* "(by /usr/bin/dash, x2)", with the declared artifact the program comes from (§4.9). */
static void put_who(struct hk_buf *b, const struct hk_evobj_entry *it)
{
	const struct hk_denial *den = it->den;
	bool who = den->exe || den->comm;
	uint64_t count = it->count;
	if (!who && count <= 1)
		return;
	hk_buf_puts(b, "  (");
	if (who) {
		hk_buf_puts(b, "by ");
		if (den->exe)
			put_human_bytes(b, den->exe, den->exe_len);
		else
			put_human_bytes(b, den->comm, den->comm_len);
		if (it->dia->exe_declared_by) {
			hk_buf_puts(b, " of declared ");
			put_human_str(b, it->dia->exe_declared_by);
		}
	}
	if (count > 1)
		hk_buf_printf(b, "%sx%" PRIu64, who ? ", " : "", count);
	hk_buf_putc(b, ')');
}

static void newline_indent(struct hk_buf *b, int extra)
{
	hk_buf_putc(b, '\n');
	for (int i = 0; i < INDENT + extra; i++)
		hk_buf_putc(b, ' ');
}

/* " [Debian package]": where a provider came from (its origin), so a local build's output
 * offered as a provider is never mistaken for a package. */
static void put_origin(struct hk_buf *b, const struct hk_provider *provider)
{
	if (provider->origin) {
		hk_buf_puts(b, " [");
		put_human_str(b, hk_provider_origin_label(provider->origin));
		hk_buf_putc(b, ']');
	}
}

/* The diagnosis' line and where its provider came from: "declare dep: X [Debian package]". */
static void put_line(struct hk_buf *b, const struct hk_diag_item *dia)
{
	put_text(b, dia->line ? dia->line : "?");
	if (dia->n_providers > 0)
		put_origin(b, &dia->providers[0]);
}

/* "→ declare dep: X [Debian package]  (or: B [Debian package] via /usr/bin/ranlib, C [local
 * build])" */
static void put_suggestion(struct hk_buf *b, const struct hk_evobj_entry *it)
{
	const struct hk_diag_item *dia = it->dia;
	hk_buf_puts(b, " → ");
	put_line(b, dia);
	if (dia->n_providers < 2)
		return;
	hk_buf_puts(b, "  (or:");
	for (size_t k = 1; k < dia->n_providers; k++) {
		const struct hk_provider *p = &dia->providers[k];
		hk_buf_puts(b, k > 1 ? ", " : " ");
		put_human_str(b, p->spec ? p->spec : "?");
		put_origin(b, p);
		if (p->via) {
			hk_buf_puts(b, " via ");
			put_human_bytes(b, p->via, strlen(p->via));
		} else if (p->how == HK_PROVIDES_LINK) {
			hk_buf_puts(b, " as a link");
		}
	}
	hk_buf_putc(b, ')');
}

/* Whether two entries are fixed by the same line (entries without a line never are). */
static bool same_line(const struct hk_evobj_entry *a, const struct hk_evobj_entry *b)
{
	return a->dia->line && b->dia->line && strcmp(a->dia->line, b->dia->line) == 0;
}

/* Declarable debt, grouped by the line that fixes it: one line per suggestion. */
static void put_declarable(struct hk_buf *b, const struct hk_evobj_entry *its, size_t n, int extra)
{
	bool *done = hk_xcalloc(n + 1, sizeof(bool));
	size_t groups = 0;
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		size_t same = 0;
		for (size_t k = i; k < n; k++)
			if (!done[k] && same_line(&its[i], &its[k]))
				same++;
		if (groups)
			newline_indent(b, extra);
		if (groups == MAX_ITEMS) {
			hk_buf_puts(b, "… and more (the JSON report lists them all)");
			break;
		}
		groups++;
		if (same <= 1) {
			done[i] = true;
			put_object(b, its[i].den);
			put_suggestion(b, &its[i]);
			put_who(b, &its[i]);
			continue;
		}
		/* Several paths, one fix: name the fix once. */
		put_line(b, its[i].dia);
		hk_buf_printf(b, " ← %zu paths:", same);
		size_t shown = 0;
		for (size_t k = i; k < n; k++) {
			if (done[k] || !same_line(&its[i], &its[k]))
				continue;
			done[k] = true;
			if (shown < MAX_PATHS) {
				hk_buf_puts(b, shown ? ", " : " ");
				put_object(b, its[k].den);
			}
			shown++;
		}
		if (shown > MAX_PATHS)
			hk_buf_printf(b, ", … %zu more", shown - MAX_PATHS);
		put_who(b, &its[i]);
	}
	free(done);
}

static void put_plain(struct hk_buf *b, const struct hk_evobj_entry *its, size_t n, int extra,
		      bool with_reason)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			newline_indent(b, extra);
		if (i == MAX_ITEMS) {
			hk_buf_printf(b, "… and %zu more (the JSON report lists them all)", n - i);
			break;
		}
		put_object(b, its[i].den);
		put_who(b, &its[i]);
		if (with_reason && its[i].dia->reason) {
			hk_buf_puts(b, " — ");
			put_text(b, its[i].dia->reason);
		}
	}
}

/* "expected (N): a, b, c … +N" on one line. */
static void put_expected_inline(struct hk_buf *b, const struct hk_evobj_entry *its, size_t n)
{
	hk_buf_printf(b, "expected (%zu):", n);
	for (size_t i = 0; i < n && i < MAX_PATHS; i++) {
		hk_buf_puts(b, i ? ", " : " ");
		put_object(b, its[i].den);
	}
	if (n > MAX_PATHS)
		hk_buf_printf(b, ", … %zu more", n - MAX_PATHS);
	if (n == 0)
		hk_buf_puts(b, " none");
}

/* What the verdict stood on (docs/bases.md): "base debian-12-essential b3:e58099e1… (69
 * packages)", or the unpinned base and what that means.  Nothing for an object without one. */
static void put_base(struct hk_buf *out, const struct hk_verdict_base *base)
{
	if (!base->name)
		return;
	hk_buf_printf(out, "%-10s base ", "");
	put_human_str(out, base->name);
	if (base->pinned && base->id) {
		struct hk_buf id = HK_BUF_INIT;
		put_text(&id, base->id);
		hk_buf_printf(out, " %.14s… (%zu packages)\n", hk_buf_str(&id), base->packages);
		hk_buf_free(&id);
	} else {
		hk_buf_puts(out, " (unpinned: the verdict measures this machine, not the recipe)\n");
	}
}

/* The phase's exit status when it failed, else false: a verdict is about what the kernel saw,
 * and a phase can be Hermetic and still have failed. */
static bool phase_failed(const struct hk_verdict *v, int *code)
{
	if (!v->has_exit_code || !hk_phase_failed(v->exit_code, false))
		return false;
	*code = v->exit_code;
	return true;
}

void hk_report_state(const struct hk_verdict *v, struct hk_buf *out)
{
	int code;
	hk_buf_puts(out, hk_verdict_state_name(v->state));
	if (phase_failed(v, &code))
		hk_buf_printf(out, ", failed (exit %d)", code);
}

/* One entry per path and class, the counts counting paths (docs/diagnosis.md). */
struct entries {
	struct hk_evobj_entry *exp, *dec, *irr, *bug;
	size_t n_exp, n_dec, n_irr, n_bug;
};

static void entries_of(const struct hk_verdict *v, const struct hk_diagnosis *d,
		       struct entries *e)
{
	e->n_exp = hk_evobj_entries(v, d, HK_DIAG_EXPECTED, &e->exp);
	e->n_dec = hk_evobj_entries(v, d, HK_DIAG_DECLARABLE, &e->dec);
	e->n_irr = hk_evobj_entries(v, d, HK_DIAG_IRREDUCIBLE, &e->irr);
	e->n_bug = hk_evobj_entries(v, d, HK_DIAG_POLICY_BUG, &e->bug);
}

static void entries_free(struct entries *e)
{
	hk_evobj_entries_free(e->exp, e->n_exp);
	hk_evobj_entries_free(e->dec, e->n_dec);
	hk_evobj_entries_free(e->irr, e->n_irr);
	hk_evobj_entries_free(e->bug, e->n_bug);
}

void hk_report_human(const struct hk_verdict *v, const struct hk_diagnosis *d, const char *label,
		     const char *evidence_id, struct hk_buf *out)
{
	struct hk_buf phase = HK_BUF_INIT;
	if (!label) {
		put_text(&phase, v->phase ? v->phase : "phase");
		label = hk_buf_str(&phase);
	}
	/* The state column says a failed phase failed ("Hermetic, failed (exit 1)"): a script
	 * reading the line never takes it for a success.  Too long for the column, it puts
	 * what follows on the next line, at the column's end. */
	struct hk_buf state_text = HK_BUF_INIT;
	hk_report_state(v, &state_text);
	if (state_text.len > 11) {
		hk_buf_printf(out, "%-10s %s", label, hk_buf_str(&state_text));
		newline_indent(out, 0);
	} else {
		hk_buf_printf(out, "%-10s %-11s ", label, hk_buf_str(&state_text));
	}
	hk_buf_free(&state_text);
	hk_buf_free(&phase);

	struct entries e;
	entries_of(v, d, &e);
	size_t lines = 0;

	if (v->state == HK_NOEVIDENCE) {
		for (size_t i = 0; i < v->n_reasons; i++) {
			const char *m = v->reasons[i].message;
			if (i)
				newline_indent(out, 0);
			hk_buf_printf(out, "%s", i ? "also: " : "");
			put_human_str(out, m ? m : "?");
			lines++;
		}
		if (e.n_dec + e.n_irr) {
			newline_indent(out, 0);
			hk_buf_puts(out, "(not vouched for: the debt below may be incomplete)");
			lines++;
		}
	}
	if (v->state == HK_HERMETIC && e.n_dec + e.n_irr + e.n_bug == 0) {
		put_expected_inline(out, e.exp, e.n_exp);
		hk_buf_puts(out, "   debt: none");
		lines++;
	} else {
		/* Continuation lines align under the first item, after the "class (N): " label. */
		size_t at;
		if (e.n_dec) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "declarable (%zu): ", e.n_dec);
			put_declarable(out, e.dec, e.n_dec, (int)(out->len - at));
		}
		if (e.n_irr) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "irreducible (%zu): ", e.n_irr);
			put_plain(out, e.irr, e.n_irr, (int)(out->len - at), false);
		}
		if (e.n_bug) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "policy bug (%zu), not debt: ", e.n_bug);
			put_plain(out, e.bug, e.n_bug, (int)(out->len - at), true);
		}
		if (e.n_exp) {
			if (lines++)
				newline_indent(out, 0);
			put_expected_inline(out, e.exp, e.n_exp);
		}
		if (!lines)
			hk_buf_puts(out, "debt: none");
	}
	hk_buf_putc(out, '\n');
	put_base(out, &v->base);
	if (evidence_id)
		hk_buf_printf(out, "%-10s evidence %s  (harkaq explain %.11s)\n", "", evidence_id,
			      evidence_id);
	entries_free(&e);
}

/* ---- JSON ---- */

/* A byte-string member, in the form the evidence object writes it (hk_json_bytes), or null. */
static void kv_bytes_or_null(struct hk_json *j, const char *key, const char *p, size_t n)
{
	hk_json_key(j, key);
	if (p)
		hk_json_bytes(j, p, n);
	else
		hk_json_null(j);
}

static void json_items(struct hk_json *j, enum hk_diag_class cls, const struct hk_evobj_entry *its,
		       size_t n)
{
	hk_json_key(j, hk_diag_class_name(cls));
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct hk_denial *den = its[i].den;
		const struct hk_diag_item *dia = its[i].dia;
		hk_json_obj_begin(j);
		kv_bytes_or_null(j, "path", den->path, den->path_len);
		hk_json_kv_str(j, "blockers", its[i].blockers);
		hk_json_kv_uint(j, "count", its[i].count);
		kv_bytes_or_null(j, "exe", den->exe, den->exe_len);
		if (cls != HK_DIAG_EXPECTED)
			hk_json_kv_str(j, "exe_declared_by", dia->exe_declared_by);
		if (cls == HK_DIAG_DECLARABLE) {
			hk_json_key(j, "providers");
			hk_providers_json(dia->providers, dia->n_providers, j);
			hk_json_kv_str(j, "line", dia->line);
		} else if (cls != HK_DIAG_EXPECTED) {
			hk_json_kv_str(j, "reason", dia->reason);
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

void hk_report_json(const struct hk_verdict *v, const struct hk_diagnosis *d,
		    const char *evidence_id, struct hk_json *j)
{
	struct entries e;
	entries_of(v, d, &e);
	int code;
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "phase", v->phase);
	hk_json_kv_str(j, "state", hk_verdict_state_name(v->state));
	/* Next to the state: whether the phase itself failed, and how it exited. */
	hk_json_kv_bool(j, "failed", phase_failed(v, &code));
	hk_json_key(j, "exit_code");
	if (v->has_exit_code)
		hk_json_int(j, v->exit_code);
	else
		hk_json_null(j);
	hk_json_key(j, "reasons");
	hk_verdict_reasons_json(v, j);
	json_items(j, HK_DIAG_EXPECTED, e.exp, e.n_exp);
	json_items(j, HK_DIAG_DECLARABLE, e.dec, e.n_dec);
	json_items(j, HK_DIAG_IRREDUCIBLE, e.irr, e.n_irr);
	json_items(j, HK_DIAG_POLICY_BUG, e.bug, e.n_bug);
	hk_json_kv_str(j, "evidence", evidence_id);
	hk_json_obj_end(j);
	entries_free(&e);
}

/* ---- build glue ---- */

struct hk_suggester *hk_report_build_suggester(const struct hk_build_result *br)
{
	/* Any base with a dpkg database names the package of a denied base file. */
	const struct hk_suggest_source source =
		hk_suggest_source_disk(br->store, br->plan_ok ? br->plan.base_root : NULL);
	struct hk_suggest_input in = {
		.source = &source,
		.policy = br->plan_ok ? &br->plan.policy : NULL,
		.closure = br->plan_ok ? (const char *const *)br->plan.closure_names : NULL,
		.n_closure = br->plan_ok ? br->plan.n_closure : 0,
		.sandbox_contract = true,
		.expect_set = br->expect_set,
	};
	return hk_suggester_new(&in);
}

int hk_report_phase_evidence(struct hk_suggester *s, struct phase_result *pr,
			     struct hk_buf *bytes, struct hk_error *err)
{
	if (pr->has_diag)
		hk_diagnosis_free(&pr->diag);
	pr->has_diag = false;
	int r = hk_diagnose(s, &pr->verdict, &pr->diag, err);
	if (r < 0)
		return r;
	pr->has_diag = true;
	hk_evobj_encode(&pr->verdict, &pr->diag, bytes);
	return 0;
}

void hk_report_build_phase(struct hk_suggester *s, const struct hk_build_result *br,
			   struct phase_result *pr, bool quiet)
{
	struct hk_buf bytes = HK_BUF_INIT;
	struct hk_error err = { 0 };
	char id[HK_B3_ID_LEN] = "";
	const char *pname = pr->label;
	int r = hk_report_phase_evidence(s, pr, &bytes, &err);
	if (r == 0)
		r = hk_evobj_write(hk_store_dir(br->store), bytes.data, bytes.len, id, NULL, &err);
	if (r < 0) {
		fprintf(stderr, "harkaq build: %s: no evidence object: %s\n", pname, err.msg);
		id[0] = '\0';
	}
	/* Rendered from the verdict and diagnosis just encoded: `harkaq explain` decodes the
	 * same from the stored bytes and prints the same lines. */
	if (!quiet && pr->has_diag) {
		struct hk_buf text = HK_BUF_INIT;
		hk_report_human(&pr->verdict, &pr->diag, pname, id[0] ? id : NULL, &text);
		fputs(hk_buf_str(&text), stderr);
		hk_buf_free(&text);
	}
	/* Kept for the attestations, which embed the object byte for byte. */
	hk_buf_free(&pr->evidence);
	pr->evidence = bytes;
	snprintf(pr->evidence_id, sizeof(pr->evidence_id), "%s", id);
}

void hk_report_build_phase_json(const struct phase_result *pr, struct hk_json *j)
{
	if (!pr->has_verdict || !pr->has_diag) {
		hk_json_null(j);
		return;
	}
	hk_report_json(&pr->verdict, &pr->diag, pr->evidence_id[0] ? pr->evidence_id : NULL, j);
}
