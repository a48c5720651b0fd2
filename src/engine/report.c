#include "engine/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/suggest_source.h"
#include "core/evobj.h"
#include "core/evobj_store.h"
#include "core/util.h"
#include "core/verdict.h"

/* How many paths a human line names before "… and N more" (the JSON lists them all). */
#define MAX_PATHS 3
#define MAX_ITEMS 12
/* phase column (10) + space + state column (11) + space */
#define INDENT 23

/* ---- reading the evidence object ---- */

/* A byte-string member, escaped for a terminal; NULL when absent or null. */
static char *jhuman(const struct hk_jval *o, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(o, key);
	size_t n;
	hk_autofree char *raw = v ? hk_jval_bytes(v, &n) : NULL;
	if (!raw)
		return NULL;
	struct hk_buf b = HK_BUF_INIT;
	hk_escape_human(raw, n, &b);
	return hk_buf_steal(&b);
}

static void put_human_str(struct hk_buf *b, const char *s)
{
	hk_escape_human(s, strlen(s), b);
}

/* "/usr/bin/make" or, without a path, what the record named instead. */
static void put_object(struct hk_buf *b, const struct hk_jval *den)
{
	hk_autofree char *path = jhuman(den, "path");
	if (path) {
		hk_buf_puts(b, path);
		return;
	}
	hk_autofree char *ocomm = jhuman(den, "ocomm");
	if (ocomm) {
		hk_buf_printf(b, "process (%s)", ocomm);
		return;
	}
	hk_buf_puts(b, "(no path)");
}

/* "(by /usr/bin/dash, x2)", with the declared artifact the program comes from (§4.9). */
static void put_who(struct hk_buf *b, const struct hk_evobj_entry *it)
{
	hk_autofree char *exe = jhuman(it->den, "exe");
	hk_autofree char *comm = jhuman(it->den, "comm");
	uint64_t count = it->count;
	const char *decl = hk_jobj_str(it->dia, "exe_declared_by");
	if (!exe && !comm && count <= 1)
		return;
	hk_buf_puts(b, "  (");
	if (exe || comm) {
		hk_buf_printf(b, "by %s", exe ? exe : comm);
		if (decl) {
			hk_buf_puts(b, " of declared ");
			put_human_str(b, decl);
		}
	}
	if (count > 1)
		hk_buf_printf(b, "%sx%" PRIu64, exe || comm ? ", " : "", count);
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
static void put_origin(struct hk_buf *b, const struct hk_jval *provider)
{
	const char *origin = hk_jobj_str(provider, "origin");
	if (origin) {
		hk_buf_puts(b, " [");
		put_human_str(b, hk_provider_origin_label(origin));
		hk_buf_putc(b, ']');
	}
}

/* The diagnosis' line and where its provider came from: "declare dep: X [Debian package]". */
static void put_line(struct hk_buf *b, const struct hk_jval *dia)
{
	const char *line = hk_jobj_str(dia, "line");
	const struct hk_jval *ps = hk_jobj_get(dia, "providers");
	hk_buf_puts(b, line ? line : "?");
	if (ps && ps->type == HK_JARR && ps->len > 0)
		put_origin(b, &ps->items[0]);
}

/* "→ declare dep: X [Debian package]  (or: B [Debian package] via /usr/bin/ranlib, C [local
 * build])" */
static void put_suggestion(struct hk_buf *b, const struct hk_evobj_entry *it)
{
	hk_buf_puts(b, " → ");
	put_line(b, it->dia);
	const struct hk_jval *ps = hk_jobj_get(it->dia, "providers");
	if (!ps || ps->type != HK_JARR || ps->len < 2)
		return;
	hk_buf_puts(b, "  (or:");
	for (size_t k = 1; k < ps->len; k++) {
		const struct hk_jval *p = &ps->items[k];
		const char *spec = hk_jobj_str(p, "spec"), *how = hk_jobj_str(p, "how");
		hk_autofree char *via = jhuman(p, "via");
		hk_buf_puts(b, k > 1 ? ", " : " ");
		put_human_str(b, spec ? spec : "?");
		put_origin(b, p);
		if (via)
			hk_buf_printf(b, " via %s", via);
		else if (how && strcmp(how, "link") == 0)
			hk_buf_puts(b, " as a link");
	}
	hk_buf_putc(b, ')');
}

/* Declarable debt, grouped by the line that fixes it: one line per suggestion. */
static void put_declarable(struct hk_buf *b, const struct hk_evobj_entry *its, size_t n, int extra)
{
	bool *done = hk_xcalloc(n + 1, sizeof(bool));
	size_t groups = 0;
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		const char *line = hk_jobj_str(its[i].dia, "line");
		size_t same = 0;
		for (size_t k = i; k < n; k++) {
			const char *l2 = hk_jobj_str(its[k].dia, "line");
			if (!done[k] && line && l2 && strcmp(line, l2) == 0)
				same++;
		}
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
			const char *l2 = hk_jobj_str(its[k].dia, "line");
			if (done[k] || !l2 || strcmp(line, l2) != 0)
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
		const char *reason = hk_jobj_str(its[i].dia, "reason");
		if (with_reason && reason)
			hk_buf_printf(b, " — %s", reason);
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
static void put_base(struct hk_buf *out, const struct hk_jval *base)
{
	const char *name = hk_jobj_str(base, "name");
	if (!name)
		return;
	const char *id = hk_jobj_str(base, "id");
	hk_buf_printf(out, "%-10s base ", "");
	put_human_str(out, name);
	if (hk_jobj_bool(base, "pinned") && id)
		hk_buf_printf(out, " %.14s… (%lld packages)\n", id,
			      (long long)hk_jobj_int(base, "packages", 0));
	else
		hk_buf_puts(out, " (unpinned: the verdict measures this machine, not the recipe)\n");
}

/* The phase's exit status when it failed (non-zero), else false. */
static bool phase_failed(const struct hk_jval *ev, long long *code)
{
	const struct hk_jval *x = hk_jobj_get(ev, "exit_code");
	if (!x || x->type != HK_JNUM || !x->is_int || x->i == 0)
		return false;
	*code = (long long)x->i;
	return true;
}

void hk_report_state(const struct hk_jval *ev, struct hk_buf *out)
{
	const char *state = hk_jobj_str(ev, "state");
	long long code;
	put_human_str(out, state ? state : "?");
	if (phase_failed(ev, &code))
		hk_buf_printf(out, ", failed (exit %lld)", code);
}

void hk_report_human(const struct hk_jval *ev, const char *label, const char *evidence_id,
		     struct hk_buf *out)
{
	const char *state = hk_jobj_str(ev, "state");
	const char *phase = hk_jobj_str(ev, "phase");
	if (!label)
		label = phase ? phase : "phase";
	if (!state)
		state = "?";
	/* The state column says a failed phase failed ("Hermetic, failed (exit 1)"): a script
	 * reading the line never takes it for a success.  Too long for the column, it puts
	 * what follows on the next line, at the column's end. */
	struct hk_buf state_text = HK_BUF_INIT;
	hk_report_state(ev, &state_text);
	if (state_text.len > 11) {
		hk_buf_printf(out, "%-10s %s", label, hk_buf_str(&state_text));
		newline_indent(out, 0);
	} else {
		hk_buf_printf(out, "%-10s %-11s ", label, hk_buf_str(&state_text));
	}
	hk_buf_free(&state_text);

	/* One entry per path and class, the counts counting paths (docs/diagnosis.md). */
	struct hk_evobj_entry *exp, *dec, *irr, *bug;
	size_t n_exp = hk_evobj_entries(ev, "expected", &exp),
	       n_dec = hk_evobj_entries(ev, "declarable", &dec),
	       n_irr = hk_evobj_entries(ev, "irreducible", &irr),
	       n_bug = hk_evobj_entries(ev, "policy_bug", &bug);
	size_t lines = 0;

	if (strcmp(state, "NoEvidence") == 0) {
		const struct hk_jval *rs = hk_jobj_get(ev, "reasons");
		for (size_t i = 0; rs && rs->type == HK_JARR && i < rs->len; i++) {
			const char *m = hk_jobj_str(&rs->items[i], "message");
			if (i)
				newline_indent(out, 0);
			hk_buf_printf(out, "%s", i ? "also: " : "");
			put_human_str(out, m ? m : "?");
			lines++;
		}
		if (n_dec + n_irr) {
			newline_indent(out, 0);
			hk_buf_puts(out, "(not vouched for: the debt below may be incomplete)");
			lines++;
		}
	}
	if (strcmp(state, "Hermetic") == 0 && n_dec + n_irr + n_bug == 0) {
		put_expected_inline(out, exp, n_exp);
		hk_buf_puts(out, "   debt: none");
		lines++;
	} else {
		/* Continuation lines align under the first item, after the "class (N): " label. */
		size_t at;
		if (n_dec) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "declarable (%zu): ", n_dec);
			put_declarable(out, dec, n_dec, (int)(out->len - at));
		}
		if (n_irr) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "irreducible (%zu): ", n_irr);
			put_plain(out, irr, n_irr, (int)(out->len - at), false);
		}
		if (n_bug) {
			if (lines++)
				newline_indent(out, 0);
			at = out->len;
			hk_buf_printf(out, "policy bug (%zu), not debt: ", n_bug);
			put_plain(out, bug, n_bug, (int)(out->len - at), true);
		}
		if (n_exp) {
			if (lines++)
				newline_indent(out, 0);
			put_expected_inline(out, exp, n_exp);
		}
		if (!lines)
			hk_buf_puts(out, "debt: none");
	}
	hk_buf_putc(out, '\n');
	put_base(out, hk_jobj_get(ev, "base"));
	if (evidence_id)
		hk_buf_printf(out, "%-10s evidence %s  (harkaq explain %.11s)\n", "", evidence_id,
			      evidence_id);
	hk_evobj_entries_free(exp, n_exp);
	hk_evobj_entries_free(dec, n_dec);
	hk_evobj_entries_free(irr, n_irr);
	hk_evobj_entries_free(bug, n_bug);
}

/* ---- JSON ---- */

static void copy_member(struct hk_json *j, const struct hk_jval *o, const char *key)
{
	const struct hk_jval *v = hk_jobj_get(o, key);
	hk_json_key(j, key);
	if (v)
		hk_json_value(j, v);
	else
		hk_json_null(j);
}

static void json_items(struct hk_json *j, const char *key, const struct hk_evobj_entry *its, size_t n)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		hk_json_obj_begin(j);
		copy_member(j, its[i].den, "path");
		hk_json_kv_str(j, "blockers", its[i].blockers);
		hk_json_kv_uint(j, "count", its[i].count);
		copy_member(j, its[i].den, "exe");
		if (strcmp(key, "expected") != 0)
			copy_member(j, its[i].dia, "exe_declared_by");
		if (strcmp(key, "declarable") == 0) {
			copy_member(j, its[i].dia, "providers");
			copy_member(j, its[i].dia, "line");
		} else if (strcmp(key, "expected") != 0) {
			copy_member(j, its[i].dia, "reason");
		}
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

void hk_report_json(const struct hk_jval *ev, const char *evidence_id, struct hk_json *j)
{
	/* One entry per path and class, the counts counting paths (docs/diagnosis.md). */
	struct hk_evobj_entry *exp, *dec, *irr, *bug;
	size_t n_exp = hk_evobj_entries(ev, "expected", &exp),
	       n_dec = hk_evobj_entries(ev, "declarable", &dec),
	       n_irr = hk_evobj_entries(ev, "irreducible", &irr),
	       n_bug = hk_evobj_entries(ev, "policy_bug", &bug);
	hk_json_obj_begin(j);
	copy_member(j, ev, "phase");
	copy_member(j, ev, "state");
	/* Next to the state: whether the phase itself failed, and how it exited. */
	long long code;
	hk_json_kv_bool(j, "failed", phase_failed(ev, &code));
	copy_member(j, ev, "exit_code");
	copy_member(j, ev, "reasons");
	json_items(j, "expected", exp, n_exp);
	json_items(j, "declarable", dec, n_dec);
	json_items(j, "irreducible", irr, n_irr);
	json_items(j, "policy_bug", bug, n_bug);
	hk_json_key(j, "evidence");
	if (evidence_id)
		hk_json_str(j, evidence_id);
	else
		hk_json_null(j);
	hk_json_obj_end(j);
	hk_evobj_entries_free(exp, n_exp);
	hk_evobj_entries_free(dec, n_dec);
	hk_evobj_entries_free(irr, n_irr);
	hk_evobj_entries_free(bug, n_bug);
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
	if (!quiet && bytes.len) {
		struct hk_jval *ev = NULL;
		if (hk_json_parse(bytes.data, bytes.len, &ev, &err) == 0) {
			struct hk_buf text = HK_BUF_INIT;
			hk_report_human(ev, pname, id[0] ? id : NULL, &text);
			fputs(hk_buf_str(&text), stderr);
			hk_buf_free(&text);
			hk_jval_free(ev);
		}
	}
	/* Kept for the --json result: the diagnosis is not computed a second time. */
	hk_buf_free(&pr->evidence);
	pr->evidence = bytes;
	snprintf(pr->evidence_id, sizeof(pr->evidence_id), "%s", id);
}

void hk_report_build_phase_json(const struct phase_result *pr, struct hk_json *j)
{
	struct hk_error err = { 0 };
	struct hk_jval *ev = NULL;
	if (!pr->has_verdict || pr->evidence.len == 0 ||
	    hk_json_parse(pr->evidence.data, pr->evidence.len, &ev, &err) < 0) {
		hk_json_null(j);
		return;
	}
	hk_report_json(ev, pr->evidence_id[0] ? pr->evidence_id : NULL, j);
	hk_jval_free(ev);
}
