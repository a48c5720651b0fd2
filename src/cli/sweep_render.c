/* The sweep for people: the table `harkaq sweep` prints and the self-contained HTML report
 * (docs/sweep.md), rendered from a result document.  Pure: buffers in, buffers out. */
#include <stdio.h>
#include <string.h>

#include "cli/sweep_render.h"
#include "core/util.h"

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

void hk_sweep_table(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_buf_printf(b, "harkaq sweep: %zu recipe(s)", d->n_items);
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
	hk_buf_printf(b, "%-*s  %-20s  %4s  %4s  %s\n", (int)w, "recipe", "outcome", "debt",
		      "base", "phases / reason");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
		size_t base = 0;
		for (size_t k = 0; k < it->n_debts; k++)
			base += it->debts[k].in_base;
		struct hk_buf name = HK_BUF_INIT;
		put_human(&name, item_label(it));
		hk_buf_printf(b, "%-*.*s  %-20s  %4zu  %4zu  ", (int)w, (int)w, hk_buf_str(&name),
			      hk_sweep_outcome_label(it->outcome), it->n_debts, base);
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
		if (it->fail_code) {
			hk_buf_printf(b, "%s%s: ", it->n_phases ? " — " : "", it->fail_code);
			put_human(b, it->reason ? it->reason : "");
		}
		hk_buf_putc(b, '\n');
	}

	hk_buf_printf(b, "\n%-22s %5zu\n", "total", s.recipes);
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++) {
		hk_buf_printf(b, "  %-20s %5zu  ", hk_sweep_outcome_label(o), s.counts[o]);
		pct(b, s.counts[o], s.recipes);
		hk_buf_putc(b, '\n');
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
	"#2e7d32", "#f9a825", "#c62828", "#6a1b9a", "#546e7a",
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
	".reason{color:#8a1c1c}.muted{color:#5b6670}ul{margin:0;padding-left:16px}";

static void html_pill(struct hk_buf *b, enum hk_sweep_outcome o)
{
	hk_buf_printf(b, "<span class=\"pill\" style=\"background:%s\">%s</span>", outcome_colour[o],
		      hk_sweep_outcome_label(o));
}

#define HTML_TOP_PATHS 20

static void html_chart(struct hk_buf *b, const struct hk_sweep_summary *s)
{
	size_t n = s->n_paths < HTML_TOP_PATHS ? s->n_paths : HTML_TOP_PATHS;
	if (n == 0) {
		hk_buf_puts(b, "<p class=\"muted\">No debt path in this sweep.</p>\n");
		return;
	}
	const int label_w = 430, bar_w = 520, row_h = 24, top = 8;
	size_t max = s->paths[0].recipes ? s->paths[0].recipes : 1;
	int height = top * 2 + (int)n * row_h + 18;
	hk_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "role=\"img\" aria-label=\"most frequent debt paths\" "
			 "style=\"background:#fff;border:1px solid #dde2e6;border-radius:8px\">\n",
		      label_w + bar_w + 60, height);
	for (size_t i = 0; i < n; i++) {
		const struct hk_sweep_path_count *p = &s->paths[i];
		int y = top + (int)i * row_h;
		int w = (int)((double)bar_w * (double)p->recipes / (double)max);
		if (w < 2)
			w = 2;
		/* Long paths keep their tail (the file name is the informative end). */
		const char *shown = p->path;
		size_t len = strlen(shown);
		bool cut = len > 62;
		if (cut)
			shown += len - 61;
		hk_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\" "
				 "font-family=\"ui-monospace,Menlo,Consolas,monospace\">%s",
			      label_w - 8, y + 16, cut ? "…" : "");
		hk_html_escape(b, shown);
		hk_buf_printf(b, "<title>");
		hk_html_escape(b, p->path);
		hk_buf_printf(b, "</title></text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				 "rx=\"3\" fill=\"%s\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">%zu"
				 "</text>\n",
			      label_w, y + 3, w, row_h - 6,
			      p->irreducible ? outcome_colour[HK_SWEEP_IRREDUCIBLE]
					     : outcome_colour[HK_SWEEP_DECLARABLE],
			      label_w + w + 6, y + 16, p->recipes);
	}
	int ly = top + (int)n * row_h + 12;
	hk_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			 "<text x=\"%d\" y=\"%d\" font-size=\"11\">declarable (the store provides "
			 "it)</text>\n<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			 "<text x=\"%d\" y=\"%d\" font-size=\"11\">irreducible (nobody provides it)"
			 "</text>\n",
		      label_w, ly - 9, outcome_colour[HK_SWEEP_DECLARABLE], label_w + 14, ly,
		      label_w + 230, ly - 9, outcome_colour[HK_SWEEP_IRREDUCIBLE], label_w + 244, ly);
	hk_buf_puts(b, "</svg>\n");
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

void hk_sweep_html(const struct hk_sweep_doc *d, struct hk_buf *b)
{
	struct hk_sweep_summary s;
	hk_sweep_summarise(d->items, d->n_items, &s);
	hk_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<title>harkaq sweep</title>\n<style>");
	hk_buf_puts(b, html_css);
	hk_buf_puts(b, "</style></head><body>\n<h1>harkaq sweep</h1>\n<div class=\"sub\">");
	hk_buf_printf(b, "%zu recipe(s)", d->n_items);
	if (d->shard_count)
		hk_buf_printf(b, " — shard %u/%u of %zu", d->shard_index, d->shard_count,
			      d->catalogue_size);
	hk_buf_puts(b, " · catalogue <code>");
	hk_html_escape(b, d->catalogue_id);
	hk_buf_puts(b, "</code></div>\n<div class=\"cards\">\n");
	for (int o = 0; o < HK_SWEEP_OUTCOME_COUNT; o++)
		hk_buf_printf(b, "<div class=\"card\" style=\"border-top:4px solid %s\"><b>%zu</b>"
				 "<span>%s</span></div>\n",
			      outcome_colour[o], s.counts[o], hk_sweep_outcome_label(o));
	hk_buf_puts(b, "</div>\n");
	html_distribution(b, &s);

	hk_buf_puts(b, "<div class=\"metric\">Irreducible rate: ");
	if (s.measured) {
		bool met = s.counts[HK_SWEEP_IRREDUCIBLE] * 100 < s.measured * HK_SWEEP_TARGET_PERCENT;
		hk_buf_printf(b, "<b>%zu of %zu measured = %.1f %%</b> — target &lt; %d %%: "
				 "<span class=\"%s\">%s</span>",
			      s.counts[HK_SWEEP_IRREDUCIBLE], s.measured,
			      100.0 * (double)s.counts[HK_SWEEP_IRREDUCIBLE] / (double)s.measured,
			      HK_SWEEP_TARGET_PERCENT, met ? "ok" : "bad", met ? "met" : "not met");
	} else {
		hk_buf_puts(b, "— (nothing measured)");
	}
	hk_buf_printf(b, "<br><span class=\"muted\">Not measured: %zu failed, %zu without "
			 "evidence.</span><br>Base debt (policy = closure vs closure + whole base "
			 "root): <b>%zu</b> recipe(s) read <b>%zu</b> base-root path(s) beyond their "
			 "closure (%zu distinct); with the whole base root granted, <b>%zu</b> of "
			 "them would look Hermetic.</div>\n",
		      s.counts[HK_SWEEP_FAILED], s.counts[HK_SWEEP_NOEVIDENCE], s.base_recipes,
		      s.base_paths_total, s.base_paths_distinct, s.hidden_by_base);
	if (s.unpinned)
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">Unpinned</span>: %zu "
				 "recipe(s) (%zu measured) stood on an unpinned base (host or root:): "
				 "their verdicts measure that machine, not the recipe.</div>\n",
			      s.unpinned, s.unpinned_measured);

	if (s.policy_bug_recipes) {
		hk_buf_printf(b, "<div class=\"metric\"><span class=\"bad\">harkaq policy bugs</span> "
				 "in %zu recipe(s) — denials on the sandbox's own contract surfaces, "
				 "not counted as the recipes' debt:", s.policy_bug_recipes);
		for (size_t i = 0; i < s.policy_bug_paths.len; i++) {
			hk_buf_puts(b, " <code>");
			hk_html_escape(b, s.policy_bug_paths.items[i]);
			hk_buf_puts(b, "</code>");
		}
		hk_buf_puts(b, "</div>\n");
	}
	hk_buf_printf(b, "<h2>Most frequent debt paths (%zu distinct)</h2>\n", s.n_paths);
	html_chart(b, &s);
	if (s.n_paths) {
		hk_buf_puts(b, "<table style=\"margin-top:10px\"><tr><th>recipes</th><th>class</th>"
			       "<th>in base root</th><th>path</th><th>suggestion</th></tr>\n");
		for (size_t i = 0; i < s.n_paths && i < HTML_TOP_PATHS; i++) {
			const struct hk_sweep_path_count *p = &s.paths[i];
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

	hk_buf_puts(b, "<h2>Recipes</h2>\n<table><tr><th>recipe</th><th>outcome</th><th>phases</th>"
		       "<th>debt paths</th><th>base</th><th>reason</th></tr>\n");
	for (size_t i = 0; i < d->n_items; i++) {
		const struct hk_sweep_item *it = &d->items[i];
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
			hk_buf_puts(b, "</span><br>");
		}
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
	hk_buf_puts(b, "</table>\n<p class=\"muted\">Generated by harkaq sweep. Outcome rule, base "
		       "debt and the success metric: docs/sweep.md.</p>\n</body></html>\n");
	hk_sweep_summary_free(&s);
}
