/* The sweep for people: the table `harkaq sweep` prints and the self-contained HTML report
 * (docs/sweep.md), rendered from a result document.  Pure: buffers in, buffers out. */
#include <stdio.h>
#include <string.h>

#include "engine/sweep/sweep_render.h"
#include "core/basic/util.h"

/* ---- text ---- */

/* Printable text for a terminal: control bytes and non-ASCII shown as \xHH. */
static void put_human(struct hk_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			hk_buf_putc(b, (char)*p);
		else
			hk_buf_printf(b, "\\x%02x", *p);
	}
}

static const char *item_label(const struct hk_sweep_item *it)
{
	return it->name ? it->name : it->key;
}

static void pct(struct hk_buf *b, size_t num, size_t den)
{
	if (den == 0)
		hk_buf_puts(b, "  —  ");
	else
		hk_buf_printf(b, "%5.1f %%", 100.0 * (double)num / (double)den);
}

static void suggestion(struct hk_buf *b, const struct hk_sweep_debt *d)
{
	if (d->irreducible) {
		hk_buf_puts(b, "nobody provides it");
		return;
	}
	hk_buf_puts(b, "declare dep: ");
	for (size_t k = 0; k < d->n_providers; k++)
		hk_buf_printf(b, "%s%s", k ? " | " : "", d->providers[k]);
}

#define TABLE_TOP_PATHS 15
#define TOP_NAMED 15

/* The outcomes worth a line: the recipes' five when there are recipes, the Debian classes
 * when there are Debian packages, and any other that occurred. */
static bool outcome_shown(const struct hk_sweep_summary *s, int o)
{
	bool recipes = s->recipes > s->debian;
	switch (o) {
	case HK_SWEEP_HERMETIC:
	case HK_SWEEP_NOEVIDENCE:
	case HK_SWEEP_FAILED:
		return true;
	case HK_SWEEP_DECLARABLE:
	case HK_SWEEP_IRREDUCIBLE:
		return recipes || s->counts[o];
	case HK_SWEEP_MISSING:
	case HK_SWEEP_INFLUENCE:
	case HK_SWEEP_UNATTRIBUTED:
	case HK_SWEEP_PROBES:
	case HK_SWEEP_INERT_PROBES:
	case HK_SWEEP_FETCH_FAILED:
		return s->debian || s->counts[o];
	default:
		return s->counts[o] > 0;
	}
}

/* "influence: 3 differences", "inert", "undecided": a probe's --decide-probes answer. */
static void put_decision(struct hk_buf *b, const struct hk_sweep_finding *f)
{
	hk_buf_puts(b, hk_probe_class_name(f->decision));
	if (f->decision == HK_PROBE_INFLUENCE)
		hk_buf_printf(b, ": %zu difference%s", f->n_differences,
			      f->n_differences == 1 ? "" : "s");
}

static void put_findings(struct hk_buf *b, const char *what, const struct hk_sweep_finding *f,
			 size_t n)
{
	if (!n)
		return;
	hk_buf_printf(b, " — %s: ", what);
	for (size_t i = 0; i < n; i++) {
		hk_buf_printf(b, "%s", i ? ", " : "");
		put_human(b, f[i].package);
		if (f[i].decided) {
			hk_buf_puts(b, " (");
			put_decision(b, &f[i]);
			hk_buf_putc(b, ')');
		}
	}
}

/* How a Debian item got its closure (run data): downloaded now, or all from the store. */
static void put_closure(struct hk_buf *b, const struct hk_sweep_item *it)
{
	if (!it->closure_known || it->deb->closure == 0)
		return;
	if (it->closure_downloaded)
		hk_buf_printf(b, " — closure %zu, %zu downloaded", it->deb->closure,
			      it->closure_downloaded);
	else
		hk_buf_printf(b, " — closure %zu from the store", it->deb->closure);
}

/* "12 s", "3.5 min", "2.1 h" */
static void put_seconds(struct hk_buf *b, int64_t ms)
{
	if (ms < 120000)
		hk_buf_printf(b, "%.0f s", (double)ms / 1000.0);
	else if (ms < 7200000)
		hk_buf_printf(b, "%.1f min", (double)ms / 60000.0);
	else
		hk_buf_printf(b, "%.1f h", (double)ms / 3600000.0);
}

/* The Debian packages over the catalogue: the packages named most often, the undeclared
 * influences found, the time per package. */
static void table_debian(const struct hk_sweep_doc *d, const struct hk_sweep_summary *s,
			 struct hk_buf *b)
{
	hk_buf_printf(b, "\nDebian source packages: %zu; packages named most often (by how many "
			 "source packages; missing of them; influences):\n", s->debian);
	for (size_t i = 0; i < s->n_named && i < TOP_NAMED; i++) {
		hk_buf_printf(b, "  %5zu  %5zu  %5zu  ", s->named[i].sources, s->named[i].missing,
			      s->named[i].influences);
		put_human(b, s->named[i].package);
		hk_buf_putc(b, '\n');
	}
	if (s->n_named > TOP_NAMED)
		hk_buf_printf(b, "  … %zu more in the JSON result\n", s->n_named - TOP_NAMED);
	hk_buf_printf(b, "undeclared influences (%zu):%s\n", s->n_influences,
		      s->n_influences ? "" : " none found");
	for (size_t i = 0; i < s->n_influences; i++) {
		const struct hk_sweep_influence *x = &s->influences[i];
		hk_buf_puts(b, "  ");
		put_human(b, x->probe->package);
		hk_buf_puts(b, " changes ");
		put_human(b, x->item->name ? x->item->name : x->item->key);
		hk_buf_printf(b, ": %zu difference%s", x->probe->n_differences,
			      x->probe->n_differences == 1 ? "" : "s");
		if (x->probe->n_listed) {
			hk_buf_puts(b, ", first ");
			put_human(b, x->probe->differences[0]);
		}
		hk_buf_putc(b, '\n');
	}
	struct hk_sweep_times t;
	hk_sweep_item_times(d, true, &t);
	if (t.n) {
		hk_buf_printf(b, "time per package (%zu built): median ", t.n);
		put_seconds(b, t.median_ms);
		hk_buf_puts(b, ", 95th percentile ");
		put_seconds(b, t.p95_ms);
		hk_buf_puts(b, ", longest ");
		put_seconds(b, t.max_ms);
		hk_buf_puts(b, ", in all ");
		put_seconds(b, t.total_ms);
		hk_buf_putc(b, '\n');
	}
}

void hk_sweep_table(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_buf_printf(b, "harkaq sweep: %zu item(s)", d->n_items);
	if (d->shard_count)
		hk_buf_printf(b, ", shard %u/%u of a catalogue of %zu", d->shard_index,
			      d->shard_count, d->catalogue_size);
	hk_buf_printf(b, " (catalogue %.19s…)\n\n", d->catalogue_id);

	size_t w = 6;
	for (size_t i = 0; i < d->n_items; i++) {
		size_t l = strlen(item_label(&d->items[i]));
		if (l > w)
			w = l;
	}
	if (w > 48)
		w = 48;
	/* The outcome column as wide as its longest label ("not built (interrupted)"). */
	size_t ow = 20;
	for (size_t i = 0; i < d->n_items; i++) {
		size_t l = strlen(hk_sweep_outcome_label(d->items[i].outcome));
		if (l > ow)
			ow = l;
	}
	hk_buf_printf(b, "%-*s  %-*s  %4s  %4s  %s\n", (int)w, "recipe", (int)ow, "outcome", "debt",
		      "base", "phases / reason");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
		size_t base = 0;
		for (size_t k = 0; k < it->n_debts; k++)
			base += it->debts[k].in_base;
		struct hk_buf name = HK_BUF_INIT;
		put_human(&name, item_label(it));
		hk_buf_printf(b, "%-*.*s  %-*s  %4zu  %4zu  ", (int)w, (int)w, hk_buf_str(&name),
			      (int)ow, hk_sweep_outcome_label(it->outcome), it->n_debts, base);
		hk_buf_free(&name);
		for (size_t k = 0; k < it->n_phases; k++) {
			const struct hk_sweep_phase *p = &it->phases[k];
			hk_buf_printf(b, "%s%s=%s", k ? " " : "", p->phase,
				      p->state ? p->state : "none");
			if (p->reason)
				hk_buf_printf(b, "(%s)", p->reason);
		}
		if (it->failed_phase)
			hk_buf_printf(b, "%s[%s failed]", it->n_phases ? " " : "", it->failed_phase);
		if (it->deb) {
			put_findings(b, "missing", it->deb->missing, it->deb->n_missing);
			if (it->deb->confirm)
				hk_buf_printf(b, " (--confirm: %s)", it->deb->confirm);
			put_findings(b, "probes", it->deb->probes, it->deb->n_probes);
			if (it->deb->n_unopened)
				hk_buf_printf(b, " — %zu declared, none opened", it->deb->n_unopened);
			put_closure(b, it);
		}
		if (it->fail_code) {
			hk_buf_printf(b, "%s%s: ", it->n_phases ? " — " : "", it->fail_code);
			put_human(b, it->reason ? it->reason : "");
		}
		hk_buf_putc(b, '\n');
	}

	size_t lw = 21;
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
		if (outcome_shown(&s, o) && strlen(hk_sweep_outcome_label(o)) > lw)
			lw = strlen(hk_sweep_outcome_label(o));
	hk_buf_printf(b, "\n%-*s %5zu", (int)lw + 1, "total", s.recipes);
	/* The shares are of the items built: an interrupted sweep's unbuilt items are no
	 * outcome of the catalogue (125 of 154 not built is not 81 % failed). */
	if (s.counts[HK_SWEEP_NOT_BUILT])
		hk_buf_printf(b, "  (%zu built: the shares are of those)", s.built);
	hk_buf_putc(b, '\n');
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		if (!outcome_shown(&s, o))
			continue;
		hk_buf_printf(b, "  %-*s %5zu", (int)lw, hk_sweep_outcome_label(o), s.counts[o]);
		if (o != HK_SWEEP_NOT_BUILT) {
			hk_buf_puts(b, "  ");
			pct(b, s.counts[o], s.built);
		}
		hk_buf_putc(b, '\n');
	}
	if (s.debian) {
		table_debian(d, &s, b);
		if (s.debian == s.recipes) {
			hk_sweep_summary_free(&s);
			return;
		}
	}
	hk_buf_printf(b, "\nirreducible rate: %zu of %zu measured = ", s.counts[HK_SWEEP_IRREDUCIBLE],
		      s.measured);
	if (s.measured)
		hk_buf_printf(b, "%.1f %% (target < %d %%: %s)",
			      100.0 * (double)s.counts[HK_SWEEP_IRREDUCIBLE] / (double)s.measured,
			      HK_SWEEP_TARGET_PERCENT,
			      s.counts[HK_SWEEP_IRREDUCIBLE] * 100 < s.measured * HK_SWEEP_TARGET_PERCENT
				      ? "met"
				      : "NOT met");
	else
		hk_buf_puts(b, "— (nothing measured)");
	hk_buf_printf(b, "\n  not measured: %zu failed, %zu without evidence",
		      s.counts[HK_SWEEP_FAILED], s.counts[HK_SWEEP_NOEVIDENCE]);
	if (s.counts[HK_SWEEP_NOT_BUILT])
		hk_buf_printf(b, ", %zu not built (the sweep was interrupted)",
			      s.counts[HK_SWEEP_NOT_BUILT]);
	if (s.failed_builds)
		hk_buf_printf(b, "; %zu build(s) with a failed phase", s.failed_builds);
	if (s.unpinned)
		hk_buf_printf(b, "\nunpinned: %zu recipe(s) (%zu measured) stood on an unpinned base (host "
				 "or root:): their verdicts measure that machine, not the recipe",
			      s.unpinned, s.unpinned_measured);
	hk_buf_printf(b, "\nbase debt (policy = closure vs closure + whole base root): %zu recipe(s) "
			 "read %zu base-root path(s) beyond their closure (%zu distinct); with the "
			 "whole base root granted %zu of them would look Hermetic\n",
		      s.base_recipes, s.base_paths_total, s.base_paths_distinct, s.hidden_by_base);
	if (s.policy_bug_recipes) {
		hk_buf_printf(b, "harkaq policy bugs (denials on the sandbox's own contract surfaces, "
				 "not counted as debt): %zu recipe(s):", s.policy_bug_recipes);
		for (size_t i = 0; i < s.policy_bug_paths.len; i++) {
			hk_buf_puts(b, " ");
			put_human(b, s.policy_bug_paths.items[i]);
		}
		hk_buf_putc(b, '\n');
	}
	if (s.n_paths) {
		hk_buf_printf(b, "\nmost frequent debt paths (%zu distinct):\n", s.n_paths);
		hk_buf_printf(b, "  %7s  %-11s  %-4s  %s\n", "recipes", "class", "base", "path → suggestion");
		for (size_t i = 0; i < s.n_paths && i < TABLE_TOP_PATHS; i++) {
			const struct hk_sweep_path_count *p = &s.paths[i];
			hk_buf_printf(b, "  %7zu  %-11s  %-4s  ", p->recipes,
				      p->irreducible ? "irreducible" : "declarable",
				      p->in_base ? "yes" : "no");
			put_human(b, p->path);
			hk_buf_puts(b, "  → ");
			suggestion(b, p->first);
			hk_buf_putc(b, '\n');
		}
		if (s.n_paths > TABLE_TOP_PATHS)
			hk_buf_printf(b, "  … %zu more in the JSON result\n", s.n_paths - TABLE_TOP_PATHS);
	}
	hk_sweep_summary_free(&s);
}

/* ---- HTML ---- */

void hk_html_escape(struct hk_buf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': hk_buf_puts(out, "&amp;"); break;
		case '<': hk_buf_puts(out, "&lt;"); break;
		case '>': hk_buf_puts(out, "&gt;"); break;
		case '"': hk_buf_puts(out, "&quot;"); break;
		case '\'': hk_buf_puts(out, "&#39;"); break;
		default:
			/* Control bytes would be invalid HTML; bytes >= 0x80 are kept (the page
			 * is UTF-8; an invalid sequence shows as U+FFFD, it cannot break markup). */
			if (*p < 0x20 && *p != '\t')
				hk_buf_printf(out, "\\x%02x", *p);
			else
				hk_buf_putc(out, (char)*p);
		}
	}
}

static const char *const outcome_colour[HK_SWEEP_OUTCOME_COUNT] = {
	[HK_SWEEP_HERMETIC] = "#2e7d32",      [HK_SWEEP_DECLARABLE] = "#f9a825",
	[HK_SWEEP_IRREDUCIBLE] = "#c62828",   [HK_SWEEP_NOEVIDENCE] = "#6a1b9a",
	[HK_SWEEP_FAILED] = "#546e7a",        [HK_SWEEP_MISSING] = "#0277bd",
	[HK_SWEEP_INFLUENCE] = "#ad1457",     [HK_SWEEP_UNATTRIBUTED] = "#e65100",
	[HK_SWEEP_PROBES] = "#00838f",        [HK_SWEEP_INERT_PROBES] = "#7cb342",
	[HK_SWEEP_FETCH_FAILED] = "#8d6e63",  [HK_SWEEP_TIMED_OUT] = "#263238",
	[HK_SWEEP_NOT_BUILT] = "#b0bec5",
};

static const char html_css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px 32px;"
	"color:#1d2329;background:#fafbfc}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}"
	".sub{color:#5b6670;margin-bottom:18px}"
	".cards{display:flex;gap:12px;flex-wrap:wrap}"
	".card{background:#fff;border:1px solid #dde2e6;border-radius:8px;padding:10px 16px;"
	"min-width:120px}"
	".card b{display:block;font-size:26px}.card span{color:#5b6670;font-size:12px}"
	".metric{background:#fff;border:1px solid #dde2e6;border-radius:8px;padding:12px 16px;"
	"margin-top:14px}"
	".ok{color:#2e7d32;font-weight:600}.bad{color:#c62828;font-weight:600}"
	"table{border-collapse:collapse;background:#fff;width:100%;font-size:13px}"
	"th,td{border:1px solid #dde2e6;padding:5px 8px;text-align:left;vertical-align:top}"
	"th{background:#eef1f4}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	".pill{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;"
	"white-space:nowrap}"
	"code{font:12px ui-monospace,Menlo,Consolas,monospace;word-break:break-all}"
	".reason{color:#8a1c1c}.muted{color:#5b6670}ul{margin:0;padding-left:16px}"
	/* Bar charts as HTML, not SVG text: a label wraps instead of being clipped, so a long
	 * path stays readable whole. */
	".bars{display:grid;grid-template-columns:minmax(220px,46%) 1fr;gap:5px 12px;"
	"background:#fff;border:1px solid #dde2e6;border-radius:8px;padding:10px 14px;"
	"max-width:1100px}"
	".bars .lbl{font:12px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere;"
	"text-align:right}"
	".bars .val{display:flex;align-items:center;gap:6px;font-size:12px}"
	".bars .bar{height:15px;border-radius:3px;min-width:2px}"
	"a.ev{font:11px ui-monospace,Menlo,Consolas,monospace;color:#1565c0}"
	".legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}";

static void html_pill(struct hk_buf *b, enum hk_sweep_outcome o)
{
	hk_buf_printf(b, "<span class=\"pill\" style=\"background:%s\">%s</span>", outcome_colour[o],
		      hk_sweep_outcome_label(o));
}

#define HTML_TOP_PATHS 20

/* One row of a bar chart: the label (wrapping), a bar of `frac` of the width, the count. */
static void html_bar(struct hk_buf *b, const char *label, double frac, const char *colour,
		     const char *count)
{
	hk_buf_puts(b, "<div class=\"lbl\">");
	hk_html_escape(b, label);
	hk_buf_printf(b, "</div><div class=\"val\"><div class=\"bar\" style=\"width:%.1f%%;"
			 "background:%s\"></div>%s</div>\n",
		      frac * 85.0, colour, count);
}

static void html_chart(struct hk_buf *b, const struct hk_sweep_summary *s)
{
	size_t n = s->n_paths < HTML_TOP_PATHS ? s->n_paths : HTML_TOP_PATHS;
	if (n == 0) {
		hk_buf_puts(b, "<p class=\"muted\">No debt path in this sweep.</p>\n");
		return;
	}
	size_t max = s->paths[0].recipes ? s->paths[0].recipes : 1;
	hk_buf_puts(b, "<div class=\"bars\" role=\"img\" aria-label=\"most frequent debt "
		       "paths\">\n");
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_path_count *p = &s->paths[i];
		char count[32];
		snprintf(count, sizeof(count), "%zu", p->recipes);
		html_bar(b, p->path, (double)p->recipes / (double)max,
			 p->irreducible ? outcome_colour[HK_SWEEP_IRREDUCIBLE]
					: outcome_colour[HK_SWEEP_DECLARABLE],
			 count);
	}
	hk_buf_printf(b, "</div>\n<div class=\"legend muted\"><span style=\"background:%s\"></span>"
			 "declarable (the store provides it)<span style=\"background:%s\"></span>"
			 "irreducible (nobody provides it)</div>\n",
		      outcome_colour[HK_SWEEP_DECLARABLE], outcome_colour[HK_SWEEP_IRREDUCIBLE]);
}

static void html_distribution(struct hk_buf *b, const struct hk_sweep_summary *s)
{
	if (s->recipes == 0)
		return;
	const int width = 1010;
	hk_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"26\" "
			 "role=\"img\" aria-label=\"outcomes\" style=\"margin-top:14px\">\n", width);
	double x = 0;
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		if (!s->counts[o])
			continue;
		double w = (double)width * (double)s->counts[o] / (double)s->recipes;
		hk_buf_printf(b, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"26\" fill=\"%s\">"
				 "<title>%s: %zu</title></rect>\n",
			      x, w, outcome_colour[o], hk_sweep_outcome_label(o), s->counts[o]);
		if (w > 28)
			hk_buf_printf(b, "<text x=\"%.1f\" y=\"17\" font-size=\"12\" fill=\"#fff\" "
					 "text-anchor=\"middle\">%zu</text>\n",
				      x + w / 2, s->counts[o]);
		x += w;
	}
	hk_buf_puts(b, "</svg>\n");
}

/* The page's head: title, the catalogue, the outcome cards and the distribution. */
static void html_head(const struct hk_sweep_doc *d, const struct hk_sweep_summary *s,
		      struct hk_buf *b)
{
	hk_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<title>harkaq sweep</title>\n<style>");
	hk_buf_puts(b, html_css);
	hk_buf_puts(b, "</style></head><body>\n<h1>harkaq sweep</h1>\n<div class=\"sub\">");
	hk_buf_printf(b, "%zu item(s)", d->n_items);
	if (d->shard_count)
		hk_buf_printf(b, " — shard %u/%u of %zu", d->shard_index, d->shard_count,
			      d->catalogue_size);
	hk_buf_puts(b, " · catalogue <code>");
	hk_html_escape(b, d->catalogue_id);
	hk_buf_puts(b, "</code></div>\n<div class=\"cards\">\n");
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
		if (outcome_shown(s, o))
			hk_buf_printf(b, "<div class=\"card\" style=\"border-top:4px solid %s\">"
					 "<b>%zu</b><span>%s</span></div>\n",
				      outcome_colour[o], s->counts[o], hk_sweep_outcome_label(o));
	hk_buf_puts(b, "</div>\n");
	if (s->counts[HK_SWEEP_NOT_BUILT])
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">Interrupted</span>: "
				 "%zu of %zu item(s) not built (the same sweep run again builds them); "
				 "every figure and share below is of the %zu built.</div>\n",
			      s->counts[HK_SWEEP_NOT_BUILT], s->recipes, s->built);
	html_distribution(b, s);
}

/* The success metric, base debt, unpinned bases and harkaq's own policy bugs. */
static void html_metrics(const struct hk_sweep_summary *s, struct hk_buf *b)
{
	hk_buf_puts(b, "<div class=\"metric\">Irreducible rate: ");
	if (s->measured) {
		bool met = s->counts[HK_SWEEP_IRREDUCIBLE] * 100 < s->measured * HK_SWEEP_TARGET_PERCENT;
		hk_buf_printf(b, "<b>%zu of %zu measured = %.1f %%</b> — target &lt; %d %%: "
				 "<span class=\"%s\">%s</span>",
			      s->counts[HK_SWEEP_IRREDUCIBLE], s->measured,
			      100.0 * (double)s->counts[HK_SWEEP_IRREDUCIBLE] / (double)s->measured,
			      HK_SWEEP_TARGET_PERCENT, met ? "ok" : "bad", met ? "met" : "not met");
	} else {
		hk_buf_puts(b, "— (nothing measured)");
	}
	hk_buf_printf(b, "<br><span class=\"muted\">Not measured: %zu failed, %zu without "
			 "evidence", s->counts[HK_SWEEP_FAILED], s->counts[HK_SWEEP_NOEVIDENCE]);
	if (s->counts[HK_SWEEP_NOT_BUILT])
		hk_buf_printf(b, ", %zu not built (the sweep was interrupted)",
			      s->counts[HK_SWEEP_NOT_BUILT]);
	hk_buf_printf(b, ".</span><br>Base debt (policy = closure vs closure + whole base "
			 "root): <b>%zu</b> recipe(s) read <b>%zu</b> base-root path(s) beyond their "
			 "closure (%zu distinct); with the whole base root granted, <b>%zu</b> of "
			 "them would look Hermetic.</div>\n",
		      s->base_recipes,
		      s->base_paths_total, s->base_paths_distinct, s->hidden_by_base);
	if (s->unpinned)
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">Unpinned</span>: %zu "
				 "recipe(s) (%zu measured) stood on an unpinned base (host or root:): "
				 "their verdicts measure that machine, not the recipe.</div>\n",
			      s->unpinned, s->unpinned_measured);

	if (s->policy_bug_recipes) {
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">harkaq policy bugs</span> "
				 "in %zu recipe(s) — denials on the sandbox's own contract surfaces, "
				 "not counted as the recipes' debt:", s->policy_bug_recipes);
		for (size_t i = 0; i < s->policy_bug_paths.len; i++) {
			hk_buf_puts(b, " <code>");
			hk_html_escape(b, s->policy_bug_paths.items[i]);
			hk_buf_puts(b, "</code>");
		}
		hk_buf_puts(b, "</div>\n");
	}
}

/* The most frequent debt paths: the chart and the table of the first HTML_TOP_PATHS. */
static void html_top_paths(const struct hk_sweep_summary *s, struct hk_buf *b)
{
	hk_buf_printf(b, "<h2>Most frequent debt paths (%zu distinct)</h2>\n", s->n_paths);
	html_chart(b, s);
	if (s->n_paths) {
		hk_buf_puts(b, "<table style=\"margin-top:10px\"><tr><th>recipes</th><th>class</th>"
			       "<th>in base root</th><th>path</th><th>suggestion</th></tr>\n");
		for (size_t i = 0; i < s->n_paths && i < HTML_TOP_PATHS; i++) {
			const struct hk_sweep_path_count *p = &s->paths[i];
			struct hk_buf sug = HK_BUF_INIT;
			suggestion(&sug, p->first);
			hk_buf_printf(b, "<tr><td class=\"num\">%zu</td><td>%s</td><td>%s</td><td><code>",
				      p->recipes, p->irreducible ? "irreducible" : "declarable",
				      p->in_base ? "yes" : "no");
			hk_html_escape(b, p->path);
			hk_buf_puts(b, "</code></td><td>");
			hk_html_escape(b, hk_buf_str(&sug));
			hk_buf_puts(b, "</td></tr>\n");
			hk_buf_free(&sug);
		}
		hk_buf_puts(b, "</table>\n");
	}
}

/* A link to the stored evidence object of the item's phase `phase` (the file in the store, and
 * the command that verifies and shows it), or nothing when the build stored none. */
static void html_evidence(const struct hk_sweep_doc *d, const struct hk_sweep_item *it,
			  const char *phase, struct hk_buf *b)
{
	const char *id = NULL;
	for (size_t i = 0; phase && i < it->n_phases; i++)
		if (strcmp(it->phases[i].phase, phase) == 0)
			id = it->phases[i].evidence;
	if (!id || strncmp(id, "b3:", 3) != 0)
		return;
	hk_buf_puts(b, " <a class=\"ev\"");
	if (d->store) {
		hk_buf_puts(b, " href=\"file://");
		hk_html_escape(b, d->store);
		hk_buf_puts(b, "/.evidence/");
		hk_html_escape(b, id + 3);
		hk_buf_puts(b, ".json\"");
	}
	hk_buf_puts(b, " title=\"harkaq evidence");
	if (d->store) {
		hk_buf_puts(b, " --store ");
		hk_html_escape(b, d->store);
	}
	hk_buf_puts(b, " show ");
	hk_html_escape(b, id);
	hk_buf_printf(b, "\">evidence %.15s…</a>", id);
}

/* An item's phases, one a line: its verdict (NoEvidence's reason), a failed phase's status,
 * and for a Debian item the link to its evidence object.  A recipe's row has no link: its
 * report loads nothing and links nowhere (docs/sweep.md). */
static void html_phases(const struct hk_sweep_doc *d, const struct hk_sweep_item *it,
			struct hk_buf *b)
{
	for (size_t k = 0; k < it->n_phases; k++) {
		const struct hk_sweep_phase *p = &it->phases[k];
		hk_buf_puts(b, "<span style=\"white-space:nowrap\">");
		hk_html_escape(b, p->phase);
		hk_buf_puts(b, ": ");
		hk_html_escape(b, p->state ? p->state : "no verdict");
		if (p->reason) {
			hk_buf_puts(b, " (");
			hk_html_escape(b, p->reason);
			hk_buf_puts(b, ")");
		}
		if (p->exit_code > 0)
			hk_buf_printf(b, ", exit %d", p->exit_code);
		hk_buf_puts(b, "</span>");
		if (it->deb)
			html_evidence(d, it, p->phase, b);
		hk_buf_puts(b, "<br>");
	}
}

/* One recipe's row: name and base, outcome, phases, debt paths, base debt, reason. */
static void html_recipe_row(const struct hk_sweep_doc *d, const struct hk_sweep_item *it,
			    struct hk_buf *b)
{
	size_t base = 0;
	for (size_t k = 0; k < it->n_debts; k++)
		base += it->debts[k].in_base;
	hk_buf_puts(b, "<tr><td><b>");
	hk_html_escape(b, item_label(it));
	hk_buf_puts(b, "</b>");
	if (it->version) {
		hk_buf_puts(b, " ");
		hk_html_escape(b, it->version);
	}
	hk_buf_puts(b, "<br><code class=\"muted\">");
	hk_html_escape(b, it->key);
	hk_buf_puts(b, "</code>");
	if (it->base_name) {
		/* What the verdict stood on (docs/bases.md). */
		hk_buf_puts(b, "<br><span class=\"muted\">on ");
		hk_html_escape(b, it->base_name);
		if (it->base_pinned && it->base_id)
			hk_buf_printf(b, " <code>%.14s…</code>", it->base_id);
		else
			hk_buf_puts(b, " <span class=\"bad\">(unpinned)</span>");
		hk_buf_puts(b, "</span>");
	}
	hk_buf_puts(b, "</td><td>");
	html_pill(b, it->outcome);
	hk_buf_puts(b, "</td><td>");
	html_phases(d, it, b);
	hk_buf_puts(b, "</td><td>");
	if (it->n_debts) {
		hk_buf_puts(b, "<ul>");
		for (size_t k = 0; k < it->n_debts; k++) {
			const struct hk_sweep_debt *dd = &it->debts[k];
			struct hk_buf sug = HK_BUF_INIT;
			suggestion(&sug, dd);
			hk_buf_puts(b, "<li><code>");
			hk_html_escape(b, dd->path);
			hk_buf_printf(b, "</code> <span class=\"%s\">", dd->irreducible ? "bad" : "muted");
			hk_html_escape(b, hk_buf_str(&sug));
			hk_buf_puts(b, "</span></li>");
			hk_buf_free(&sug);
		}
		hk_buf_puts(b, "</ul>");
	}
	hk_buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"reason\">", base);
	if (it->failed_phase && !it->fail_code) {
		hk_buf_puts(b, "phase ");
		hk_html_escape(b, it->failed_phase);
		hk_buf_puts(b, " failed (the denied access is the likely cause)");
	}
	if (it->fail_code) {
		hk_html_escape(b, it->fail_code);
		hk_buf_puts(b, ": ");
		hk_html_escape(b, it->reason ? it->reason : "");
	}
	hk_buf_puts(b, "</td></tr>\n");
}

/* ---- Debian source packages ---- */

static void html_findings(const struct hk_sweep_doc *d, const struct hk_sweep_item *it,
			  const struct hk_sweep_finding *f, size_t n, struct hk_buf *b)
{
	if (!n) {
		hk_buf_puts(b, "<span class=\"muted\">none</span>");
		return;
	}
	hk_buf_puts(b, "<ul>");
	for (size_t i = 0; i < n; i++) {
		hk_buf_puts(b, "<li><b>");
		hk_html_escape(b, f[i].package);
		hk_buf_puts(b, "</b>");
		if (f[i].from_log) {
			hk_buf_puts(b, " <span class=\"muted\">named from the build log");
			if (f[i].path) {
				hk_buf_puts(b, " (its macro file <code>");
				hk_html_escape(b, f[i].path);
				hk_buf_puts(b, "</code>)");
			}
			hk_buf_puts(b, "</span></li>");
			continue;
		}
		hk_buf_puts(b, " <span class=\"muted\">");
		if (f[i].phase)
			hk_html_escape(b, f[i].phase);
		hk_buf_puts(b, ": </span><code>");
		hk_html_escape(b, f[i].path ? f[i].path : "?");
		hk_buf_puts(b, "</code>");
		if (f[i].exe) {
			const char *e = strrchr(f[i].exe, '/');
			hk_buf_puts(b, " <span class=\"muted\">by ");
			hk_html_escape(b, e ? e + 1 : f[i].exe);
			hk_buf_puts(b, "</span>");
		}
		if (f[i].paths > 1)
			hk_buf_printf(b, " <span class=\"muted\">(%llu paths)</span>",
				      (unsigned long long)f[i].paths);
		html_evidence(d, it, f[i].phase, b);
		if (f[i].decided) {
			/* --decide-probes' answer, and the rule that gave it. */
			hk_buf_printf(b, "<br><span class=\"%s\" title=\"",
				      f[i].decision == HK_PROBE_INFLUENCE ? "bad" : "muted");
			hk_html_escape(b, f[i].why ? f[i].why : "");
			hk_buf_puts(b, "\">");
			struct hk_buf dec = HK_BUF_INIT;
			put_decision(&dec, &f[i]);
			hk_html_escape(b, hk_buf_str(&dec));
			hk_buf_free(&dec);
			hk_buf_puts(b, "</span>");
		}
		hk_buf_puts(b, "</li>");
	}
	hk_buf_puts(b, "</ul>");
}

/* Every undeclared influence: the package it changed, the undeclared package, the .deb
 * members that differ, and the evidence of the denial. */
static void html_influences(const struct hk_sweep_doc *d, const struct hk_sweep_summary *s,
			    struct hk_buf *b)
{
	hk_buf_printf(b, "<h2>Undeclared influences (%zu)</h2>\n", s->n_influences);
	if (!s->n_influences) {
		bool asked = false;
		for (size_t i = 0; i < d->n_items && !asked; i++)
			asked = d->items[i].deb && d->items[i].deb->decide_asked;
		hk_buf_puts(b, asked ? "<p class=\"muted\">No probe was shown to change the .debs."
				       "</p>\n"
				     : "<p class=\"muted\">None decided: the sweep ran without "
				       "--decide-probes.</p>\n");
		return;
	}
	hk_buf_puts(b, "<table><tr><th>package</th><th>undeclared package</th><th>differing "
		       "files</th><th>evidence</th></tr>\n");
	for (size_t i = 0; i < s->n_influences; i++) {
		const struct hk_sweep_influence *x = &s->influences[i];
		const struct hk_sweep_finding *f = x->probe;
		hk_buf_puts(b, "<tr><td><b>");
		hk_html_escape(b, item_label(x->item));
		hk_buf_puts(b, "</b>");
		if (x->item->version) {
			hk_buf_puts(b, " ");
			hk_html_escape(b, x->item->version);
		}
		hk_buf_puts(b, "</td><td><b>");
		hk_html_escape(b, f->package);
		hk_buf_puts(b, "</b>");
		if (f->version) {
			hk_buf_puts(b, " ");
			hk_html_escape(b, f->version);
		}
		hk_buf_puts(b, "<br><span class=\"muted\">");
		if (f->phase)
			hk_html_escape(b, f->phase);
		hk_buf_puts(b, ": </span><code>");
		hk_html_escape(b, f->path ? f->path : "?");
		hk_buf_puts(b, "</code></td><td><ul>");
		for (size_t k = 0; k < f->n_listed; k++) {
			hk_buf_puts(b, "<li><code>");
			hk_html_escape(b, f->differences[k]);
			hk_buf_puts(b, "</code></li>");
		}
		if (f->n_differences > f->n_listed)
			hk_buf_printf(b, "<li class=\"muted\">… and %zu more</li>",
				      f->n_differences - f->n_listed);
		hk_buf_puts(b, "</ul></td><td>");
		html_evidence(d, x->item, f->phase, b);
		hk_buf_puts(b, "</td></tr>\n");
	}
	hk_buf_puts(b, "</table>\n");
}

static void html_debian(const struct hk_sweep_doc *d, const struct hk_sweep_summary *s,
			struct hk_buf *b)
{
	hk_buf_printf(b, "<h2>Debian source packages (%zu)</h2>\n", s->debian);
	/* Counts per class, of the Debian packages only. */
	/* Shares of the packages built: those the interruption kept from building are counted
	 * apart, with no share. */
	size_t not_built = s->deb_counts[HK_SWEEP_NOT_BUILT], built = s->debian - not_built;
	hk_buf_puts(b, "<table style=\"width:auto\"><tr><th>class</th><th>packages</th><th>share");
	if (not_built)
		hk_buf_printf(b, " of the %zu built", built);
	hk_buf_puts(b, "</th></tr>\n");
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		if (o == HK_SWEEP_DECLARABLE || o == HK_SWEEP_IRREDUCIBLE ||
		    (o == HK_SWEEP_NOT_BUILT && !not_built))
			continue;
		hk_buf_puts(b, "<tr><td>");
		html_pill(b, (enum hk_sweep_outcome)o);
		hk_buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"num\">",
			      s->deb_counts[o]);
		if (o != HK_SWEEP_NOT_BUILT && built)
			hk_buf_printf(b, "%.1f %%", 100.0 * (double)s->deb_counts[o] / (double)built);
		else
			hk_buf_puts(b, "—");
		hk_buf_puts(b, "</td></tr>\n");
	}
	hk_buf_puts(b, "</table>\n");
	struct hk_sweep_times t;
	hk_sweep_item_times(d, true, &t);
	if (t.n)
		hk_buf_printf(b, "<div class=\"metric\">Time per package (wall, %zu built): median "
				 "<b>%.0f s</b>, 95th percentile <b>%.0f s</b>, longest %.0f s, "
				 "%.1f min in all.</div>\n",
			      t.n, (double)t.median_ms / 1000.0, (double)t.p95_ms / 1000.0,
			      (double)t.max_ms / 1000.0, (double)t.total_ms / 60000.0);
	html_influences(d, s, b);
	hk_buf_printf(b, "<h2>Packages named most often as undeclared (%zu distinct)</h2>\n",
		      s->n_named);
	if (!s->n_named) {
		hk_buf_puts(b, "<p class=\"muted\">No build was denied a package.</p>\n");
	} else {
		hk_buf_puts(b, "<div class=\"bars\" role=\"img\" aria-label=\"packages named most "
			       "often\">\n");
		size_t max = s->named[0].sources ? s->named[0].sources : 1;
		for (size_t i = 0; i < s->n_named && i < HTML_TOP_PATHS; i++) {
			char count[64];
			if (s->named[i].missing)
				snprintf(count, sizeof(count), "%zu (%zu missing)", s->named[i].sources,
					 s->named[i].missing);
			else
				snprintf(count, sizeof(count), "%zu", s->named[i].sources);
			html_bar(b, s->named[i].package,
				 (double)s->named[i].sources / (double)max,
				 s->named[i].missing ? outcome_colour[HK_SWEEP_MISSING]
						     : outcome_colour[HK_SWEEP_PROBES],
				 count);
		}
		hk_buf_printf(b, "</div>\n<div class=\"legend muted\"><span style=\"background:%s\">"
				 "</span>named as a missing Build-Depends by some package<span "
				 "style=\"background:%s\"></span>only as a probe</div>\n",
			      outcome_colour[HK_SWEEP_MISSING], outcome_colour[HK_SWEEP_PROBES]);
	}
	hk_buf_puts(b, "<h2>Per package</h2>\n<table><tr><th>package</th><th>class</th>"
		       "<th>phases</th><th>missing Build-Depends</th><th>probes survived</th>"
		       "<th>declared, none opened</th><th>time</th><th>reason</th></tr>\n");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
		if (!it->deb)
			continue;
		hk_buf_puts(b, "<tr><td><b>");
		hk_html_escape(b, item_label(it));
		hk_buf_puts(b, "</b>");
		if (it->version) {
			hk_buf_puts(b, " ");
			hk_html_escape(b, it->version);
		}
		hk_buf_puts(b, "<br><code class=\"muted\">");
		hk_html_escape(b, it->key);
		hk_buf_printf(b, "</code><br><span class=\"muted\">closure %zu", it->deb->closure);
		/* How the closure was got: downloaded by this run, or all from the store. */
		if (it->closure_known && it->deb->closure && it->closure_downloaded)
			hk_buf_printf(b, ", %zu downloaded", it->closure_downloaded);
		else if (it->closure_known && it->deb->closure)
			hk_buf_puts(b, " from the store");
		hk_buf_puts(b, "</span></td><td>");
		html_pill(b, it->outcome);
		hk_buf_puts(b, "</td><td>");
		html_phases(d, it, b);
		hk_buf_puts(b, "</td><td>");
		html_findings(d, it, it->deb->missing, it->deb->n_missing, b);
		if (it->deb->confirm) {
			hk_buf_puts(b, "<br><span class=\"muted\">--confirm: ");
			hk_html_escape(b, it->deb->confirm);
			hk_buf_puts(b, "</span>");
		}
		hk_buf_puts(b, "</td><td>");
		html_findings(d, it, it->deb->probes, it->deb->n_probes, b);
		if (it->deb->unattributed)
			hk_buf_printf(b, "<br><span class=\"muted\">and %zu path(s) no package "
					 "ships</span>", it->deb->unattributed);
		hk_buf_puts(b, "</td><td>");
		if (!it->deb->converse)
			hk_buf_puts(b, "<span class=\"muted\">not computed</span>");
		else if (!it->deb->n_unopened)
			hk_buf_puts(b, "<span class=\"muted\">none</span>");
		for (size_t k = 0; k < it->deb->n_unopened; k++) {
			hk_buf_puts(b, k ? "<br><code>" : "<code>");
			hk_html_escape(b, it->deb->unopened[k]);
			hk_buf_puts(b, "</code>");
		}
		hk_buf_puts(b, "</td><td class=\"num\">");
		if (it->ms > 0)
			hk_buf_printf(b, "%.0f s%s", (double)it->ms / 1000.0,
				      it->resumed ? "<br><span class=\"muted\">resumed</span>" : "");
		hk_buf_puts(b, "</td><td class=\"reason\">");
		if (it->fail_code) {
			hk_html_escape(b, it->fail_code);
			hk_buf_puts(b, ": ");
			hk_html_escape(b, it->reason ? it->reason : "");
		}
		hk_buf_puts(b, "</td></tr>\n");
	}
	hk_buf_puts(b, "</table>\n");
}

void hk_sweep_html(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	html_head(d, &s, b);
	bool recipes = s.recipes > s.debian || s.recipes == 0;
	if (recipes) {
		html_metrics(&s, b);
		html_top_paths(&s, b);
	}
	if (s.debian)
		html_debian(d, &s, b);
	if (recipes) {
		hk_buf_puts(b, "<h2>Recipes</h2>\n<table><tr><th>recipe</th><th>outcome</th>"
			       "<th>phases</th><th>debt paths</th><th>base</th><th>reason</th></tr>\n");
		for (size_t i = 0; i < d->n_items; i++)
			if (!d->items[i].deb)
				html_recipe_row(d, &d->items[i], b);
		hk_buf_puts(b, "</table>\n");
	}
	hk_buf_puts(b, "<p class=\"muted\">Generated by harkaq sweep. Outcome rule, base debt, the "
		       "success metric and the Debian classes: docs/sweep.md.</p>\n</body></html>\n");
	hk_sweep_summary_free(&s);
}
