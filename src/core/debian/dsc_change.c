/* The change to make, and its report (dsc_change.h). */
#include "core/debian/dsc_change.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"
#include "core/formats/udiff.h"

const char *hk_dsc_change_kind_name(enum hk_dsc_change_kind k)
{
	switch (k) {
	case HK_DSC_CHANGE_MISSING: return "missing";
	case HK_DSC_CHANGE_INFLUENCE: return "influence";
	case HK_DSC_CHANGE_UNOPENED: return "unopened";
	}
	return "?";
}

/* The field a package the build used goes to: clean's needs are Build-Depends' (Debian
 * Policy §7.7), and so is a build of every package; a build of the architecture-independent
 * (-A) or -dependent (-B) packages alone names its own field when the file has it. */
static const char *field_for(const struct hk_dsc_change_facts *f,
			     const struct hk_dsc_change_finding *x)
{
	if (x->phase && strcmp(x->phase, "debian/rules clean") == 0)
		return "Build-Depends";
	if (f->mode && strcmp(f->mode, "all") == 0 && f->has_indep)
		return "Build-Depends-Indep";
	if (f->mode && strcmp(f->mode, "any") == 0 && f->has_arch)
		return "Build-Depends-Arch";
	return "Build-Depends";
}

static void list(struct hk_buf *b, const char *const *v, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++)
		hk_buf_printf(b, "%s%s", i ? sep : "", v[i]);
}

/* The relation to add for a package the build used, and why that one (dsc_change.h). */
static char *item_for(const struct hk_dsc_change_finding *x, struct hk_buf *why)
{
	if (x->alternative_in) {
		hk_buf_printf(why, "%s is listed as an alternative (%s), which apt satisfied with "
				   "another: buildds install the first alternative only, and the "
				   "build used %s itself, so it is declared on its own",
			      x->package, x->alternative_in, x->package);
		return hk_xstrdup(x->package);
	}
	size_t others = 0;
	for (size_t i = 0; i < x->n_file_providers; i++)
		others += strcmp(x->file_providers[i], x->package) != 0;
	if (others > 0 && x->shared_virtual) {
		hk_buf_printf(why, "%zu packages ship %s (", x->n_file_providers, x->path);
		list(why, x->file_providers, x->n_file_providers, ", ");
		hk_buf_printf(why, "), all providing %s: the relation names the real package the "
				   "build used first, as Policy §7.5 asks, then the virtual name",
			      x->shared_virtual);
		return hk_xasprintf("%s | %s", x->package, x->shared_virtual);
	}
	if (others > 0) {
		struct hk_buf item = HK_BUF_INIT;
		hk_buf_puts(&item, x->package);
		for (size_t i = 0; i < x->n_file_providers; i++)
			if (strcmp(x->file_providers[i], x->package) != 0)
				hk_buf_printf(&item, " | %s", x->file_providers[i]);
		hk_buf_printf(why, "%zu packages ship %s: each is an alternative, the one the build "
				   "used first (buildds install the first)",
			      x->n_file_providers, x->path);
		return hk_buf_steal(&item);
	}
	hk_buf_printf(why, "%s ships %s", x->package, x->path ? x->path : "what the log names");
	if (x->n_provides) {
		hk_buf_puts(why, "; the virtual name");
		hk_buf_puts(why, x->n_provides > 1 ? "s it provides (" : " it provides (");
		list(why, x->provides, x->n_provides, ", ");
		hk_buf_puts(why, ") would be satisfied by any package providing it, which need not "
				 "ship that file");
	}
	if (x->n_dependents) {
		hk_buf_puts(why, "; ");
		list(why, x->dependents, x->n_dependents, ", ");
		hk_buf_printf(why, " depend%s on it alone (a transitional or meta package, by its "
				   "relations), and would pull it in only as long as %s",
			      x->n_dependents == 1 ? "s" : "", x->n_dependents == 1 ? "it exists"
										: "they exist");
	}
	hk_buf_printf(why, ": the relation names %s", x->package);
	return hk_xstrdup(x->package);
}

static void add_change(struct hk_dsc_suggestion *s, enum hk_dsc_change_kind kind,
		       enum hk_control_op op, const char *field, char *item, const char *package,
		       char *why)
{
	s->changes = hk_xrealloc(s->changes, (s->n_changes + 1) * sizeof(*s->changes));
	s->changes[s->n_changes++] = (struct hk_dsc_change){
		kind, op, hk_xstrdup(field), item, hk_xstrdup(package), true, why,
	};
}

static void decide(const struct hk_dsc_change_facts *f, struct hk_dsc_suggestion *s)
{
	/* Needs first, then influences, then what may go: the report's order. */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < f->n_findings; i++) {
			const struct hk_dsc_change_finding *x = &f->findings[i];
			if ((int)x->kind != pass)
				continue;
			struct hk_buf why = HK_BUF_INIT;
			if (x->kind == HK_DSC_CHANGE_UNOPENED) {
				hk_buf_printf(&why, "none of the files of %s, nor of a package it pulls "
						    "in, was opened in any target",
					      x->group_packages);
				add_change(s, x->kind, HK_CONTROL_DROP, x->field, hk_xstrdup(x->group),
					   x->group_packages, hk_buf_steal(&why));
				continue;
			}
			char *item = item_for(x, &why);
			add_change(s, x->kind, HK_CONTROL_ADD, field_for(f, x), item, x->package,
				   hk_buf_steal(&why));
		}
	}
}

/* Makes each change on the file in turn; one the file cannot take is left out, its reason
 * kept.  Returns 0, or -errno when the editor failed on its own check. */
static int edit(const struct hk_dsc_change_facts *f, struct hk_dsc_suggestion *s,
		struct hk_error *err)
{
	/* The layout of the file as it is (no change: the editor only reads it). */
	struct hk_buf cur = HK_BUF_INIT;
	int rc = hk_control_edit(f->control, f->control_len, "debian/control", NULL, 0, &cur,
				 &s->layout, err);
	if (rc < 0) {
		s->not_made = hk_xasprintf("debian/control cannot be read as a control file: %s",
					   err->msg);
		hk_buf_free(&cur);
		hk_error_clear(err);
		return 0;
	}
	size_t made = 0;
	for (size_t i = 0; i < s->n_changes; i++) {
		struct hk_dsc_change *c = &s->changes[i];
		const struct hk_control_change ch = { c->op, c->field, c->item };
		struct hk_buf next = HK_BUF_INIT;
		struct hk_control_layout ignored;
		rc = hk_control_edit(cur.data, cur.len, "debian/control", &ch, 1, &next, &ignored,
				     err);
		if (rc == -EEXIST || rc == -ENOENT) {
			c->made = false;
			free(c->why);
			c->why = hk_xstrdup(err->msg);
			hk_error_clear(err);
			hk_buf_free(&next);
			rc = 0;
			continue;
		}
		if (rc < 0) {
			hk_buf_free(&next);
			hk_buf_free(&cur);
			return rc;
		}
		hk_buf_free(&cur);
		cur = next;
		made++;
		if (ignored.edited_free)
			s->layout.edited_free = true;
	}
	if (made) {
		struct hk_buf d = HK_BUF_INIT;
		hk_udiff("debian/control", f->control, f->control_len, cur.data, cur.len, &d);
		s->patch = hk_buf_steal(&d);
	} else if (s->n_changes) {
		s->not_made = hk_xstrdup("debian/control could take none of the changes (each says "
					 "why)");
	}
	hk_buf_free(&cur);
	return 0;
}

/* ---- the report ---- */

/* Mail wraps at 72 columns. */
#define REPORT_WIDTH 72

/* A paragraph of prose, words wrapped at REPORT_WIDTH, each line after `indent`; a word
 * longer than the line (a path) stands on its own line. */
static void para(struct hk_buf *b, const char *indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void para(struct hk_buf *b, const char *indent, const char *fmt, ...)
{
	struct hk_buf text = HK_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	hk_buf_puts(&text, t ? t : "");
	free(t);
	size_t col = 0, ind = strlen(indent);
	const char *p = hk_buf_str(&text);
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (col && col + 1 + n > REPORT_WIDTH) {
			hk_buf_putc(b, '\n');
			col = 0;
		}
		if (!col) {
			hk_buf_puts(b, indent);
			col = ind;
		} else {
			hk_buf_putc(b, ' ');
			col++;
		}
		hk_buf_append(b, p, n);
		col += n;
		p += n;
	}
	if (col)
		hk_buf_putc(b, '\n');
	hk_buf_free(&text);
}

static const char *who(const struct hk_dsc_change_finding *x, char *buf, size_t n)
{
	if (x->exe && x->comm)
		snprintf(buf, n, "by %s, comm %s", x->exe, x->comm);
	else if (x->exe || x->comm)
		snprintf(buf, n, "by %s", x->exe ? x->exe : x->comm);
	else
		snprintf(buf, n, "by an unknown program");
	return buf;
}

/* "WHAT: PACKAGE (VERSION here)", a finding's first line. */
static void heading(struct hk_buf *b, const char *what, const struct hk_dsc_change_finding *x)
{
	if (x->version)
		para(b, "", "%s: %s (%s here)", what, x->package, x->version);
	else
		para(b, "", "%s: %s", what, x->package);
}

static void report_missing(const struct hk_dsc_change_finding *x, const struct hk_dsc_change *c,
			   struct hk_buf *b)
{
	char by[512];
	heading(b, "Missing Build-Depends", x);
	if (x->log_line) {
		para(b, "  ", "Named from the build log: %s is defined by %s of %s, and the log "
			      "says:", x->log_what ? x->log_what : "what the log misses",
		     x->path ? x->path : "a file", x->package);
		hk_buf_printf(b, "    %s\n", x->log_line);
		para(b, "  ", "(harkaq's store view leaves that directory out, as a buildd's chroot "
			      "without the package lacks the file.)");
	} else {
		char more[64] = "";
		if (x->n_paths > 1)
			snprintf(more, sizeof(more), "; %zu of its paths in all", x->n_paths);
		const char *confirm =
			!x->confirm ? "Whether it fails with the package absent as it does with it "
				      "denied, `harkaq build --confirm` checks (it was not run)."
			: strcmp(x->confirm, "still_fails") == 0
				? "Built again with the package absent (--confirm), it failed again: "
				  "a buildd, whose chroot lacks it, fails the same way."
			: strcmp(x->confirm, "undecided") == 0
				? "Built again with the package absent (--confirm), the target failed "
				  "again on other denials: whether it is needed is undecided until "
				  "those are declared."
				: "--confirm built again without it and gave no answer (the second "
				  "build did not reach that target).";
		para(b, "  ", "%s %s %s (%s)%s. The target failed, denied it. %s",
		     x->phase ? x->phase : "The build", x->verb ? x->verb : "used",
		     x->path ? x->path : "?", who(x, by, sizeof(by)), more, confirm);
	}
	if (c)
		para(b, "  ", "The patch adds %s to %s: %s.", c->item, c->field, c->why);
}

static void report_influence(const struct hk_dsc_change_finding *x, const struct hk_dsc_change *c,
			     struct hk_buf *b)
{
	char by[512];
	heading(b, "Undeclared influence", x);
	para(b, "  ", "%s %s %s (%s), denied, and went on without it. Built again with %s "
		      "granted (--decide-probes, after a control build that changed nothing), "
		      "the .debs differ:", x->phase ? x->phase : "The build",
	     x->verb ? x->verb : "used", x->path ? x->path : "?", who(x, by, sizeof(by)),
	     x->package);
	for (size_t i = 0; i < x->n_differences; i++)
		hk_buf_printf(b, "    %s\n", x->differences[i]);
	para(b, "  ", "So what the package ships depends on whether %s happens to be installed "
		      "where it is built. Two honest fixes: declare it (the patch does: the build "
		      "then has it everywhere), or switch the feature off explicitly in "
		      "debian/rules. harkaq cannot know which option of the build guards this "
		      "use: it saw only the %s above.",
	     x->package, x->verb && strcmp(x->verb, "executed") == 0 ? "execution" : "read");
	if (c)
		para(b, "  ", "The patch adds %s to %s: %s.", c->item, c->field, c->why);
}

static void report_unopened(const struct hk_dsc_change_finding *x, const struct hk_dsc_change *c,
			    struct hk_buf *b)
{
	para(b, "", "Declared, none of its files opened: %s (%s: %s)", x->group_packages,
	     x->field, x->group);
	para(b, "  ", "No file of %s, nor of a package it pulls in, was opened in any target of "
		      "a build that completed. Opens are what was observed: a use by stat, access "
		      "or a directory listing alone is not seen, so a build without it is the "
		      "test.%s", x->group_packages, c ? " The patch drops it." : "");
}

static const struct hk_dsc_change *change_of(const struct hk_dsc_suggestion *s,
					     const struct hk_dsc_change_finding *x)
{
	const char *pkg = x->kind == HK_DSC_CHANGE_UNOPENED ? x->group_packages : x->package;
	for (size_t i = 0; i < s->n_changes; i++)
		if (s->changes[i].kind == x->kind && strcmp(s->changes[i].package, pkg) == 0)
			return s->changes[i].made ? &s->changes[i] : NULL;
	return NULL;
}

static void write_report(const struct hk_dsc_change_facts *f, struct hk_dsc_suggestion *s)
{
	size_t n[3] = { 0 };
	bool serious = false;
	for (size_t i = 0; i < f->n_findings; i++) {
		const struct hk_dsc_change_finding *x = &f->findings[i];
		n[x->kind]++;
		if (x->kind == HK_DSC_CHANGE_MISSING &&
		    ((x->confirm && strcmp(x->confirm, "still_fails") == 0) || x->log_line))
			serious = true;
	}
	s->severity = serious ? "serious" : n[HK_DSC_CHANGE_MISSING] ? "important"
		      : n[HK_DSC_CHANGE_INFLUENCE] ? "normal" : "minor";
	struct hk_buf subj = HK_BUF_INIT;
	hk_buf_printf(&subj, "%s: ", f->source);
	static const char *const what[3] = { "missing Build-Depends on",
					     "undeclared build influence:",
					     "Build-Depends none of whose files are opened:" };
	bool first_kind = true;
	for (int k = 0; k < 3; k++) {
		if (!n[k])
			continue;
		hk_buf_printf(&subj, "%s%s", first_kind ? "" : "; ", what[k]);
		first_kind = false;
		bool first = true;
		for (size_t i = 0; i < f->n_findings; i++) {
			const struct hk_dsc_change_finding *x = &f->findings[i];
			if ((int)x->kind != k)
				continue;
			hk_buf_printf(&subj, "%s %s", first ? "" : ",",
				      k == HK_DSC_CHANGE_UNOPENED ? x->group_packages : x->package);
			first = false;
		}
	}
	s->subject = hk_buf_steal(&subj);

	struct hk_buf b = HK_BUF_INIT;
	hk_buf_printf(&b, "Subject: %s\n\n", s->subject);
	hk_buf_printf(&b, "Package: src:%s\nVersion: %s\nSeverity: %s\n", f->source, f->version,
		      s->severity);
	if (s->patch || serious)
		hk_buf_printf(&b, "Tags:%s%s\n", s->patch ? " patch" : "", serious ? " ftbfs" : "");
	if (serious)
		hk_buf_puts(&b, "Justification: FTBFS\n");
	hk_buf_puts(&b, "\nDear Maintainer,\n\n");
	para(&b, "", "%s %s does not build with what it declares, and only with it. harkaq "
		     "built it on a pinned Debian base, each target of dpkg-buildpackage (clean, "
		     "build, binary) under a Landlock policy that grants exactly the Essential "
		     "packages, build-essential and the declared Build-Depends; what the build used "
		     "beyond them the kernel denied and reported, naming the file and the program "
		     "that used it.", f->source, f->version);
	hk_buf_putc(&b, '\n');
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < f->n_findings; i++) {
			const struct hk_dsc_change_finding *x = &f->findings[i];
			if ((int)x->kind != k)
				continue;
			const struct hk_dsc_change *c = change_of(s, x);
			if (k == HK_DSC_CHANGE_MISSING)
				report_missing(x, c, &b);
			else if (k == HK_DSC_CHANGE_INFLUENCE)
				report_influence(x, c, &b);
			else
				report_unopened(x, c, &b);
			hk_buf_putc(&b, '\n');
		}
	}
	hk_buf_printf(&b, "To reproduce:\n%s\n", f->reproduce ? f->reproduce : "");
	hk_buf_printf(&b, "The base: %s %s.\n", f->base_name ? f->base_name : "?",
		      f->base_id ? f->base_id : "?");
	if (f->n_evidence) {
		hk_buf_puts(&b, "Evidence objects (harkaq explain ID):\n");
		for (size_t i = 0; i < f->n_evidence; i++)
			hk_buf_printf(&b, "  %s\n", f->evidence[i]);
	}
	for (size_t i = 0; i < s->n_changes; i++)
		if (!s->changes[i].made)
			para(&b, "", "Not in the patch: %s %s %s: %s", s->changes[i].op == HK_CONTROL_ADD
								      ? "adding" : "dropping",
			     s->changes[i].item, s->changes[i].field, s->changes[i].why);
	if (s->patch) {
		char opts[8];
		hk_control_layout_options(&s->layout, opts);
		hk_buf_putc(&b, '\n');
		para(&b, "", "The patch below makes the change (patch -p1 in the unpacked source)%s%s%s.",
		     s->layout.wrap_and_sort ? "; debian/control keeps its wrap-and-sort layout"
		     : s->layout.edited_free ? "; the field is in no wrap-and-sort layout, and is "
					       "edited in place" : "",
		     s->layout.wrap_and_sort && *opts ? " " : "",
		     s->layout.wrap_and_sort ? opts : "");
		hk_buf_printf(&b, "\n%s", s->patch);
	} else if (s->not_made) {
		hk_buf_putc(&b, '\n');
		para(&b, "", "No patch: %s.", s->not_made);
	}
	s->bug = hk_buf_steal(&b);
}

int hk_dsc_suggest(const struct hk_dsc_change_facts *f, struct hk_dsc_suggestion *out,
		   struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (f->n_findings == 0)
		return 0;
	decide(f, out);
	if (!f->control) {
		out->not_made = hk_xstrdup("debian/control could not be read from the unpacked "
					   "source");
	} else {
		int rc = edit(f, out, err);
		if (rc < 0) {
			hk_dsc_suggestion_free(out);
			return rc;
		}
	}
	write_report(f, out);
	return 0;
}

void hk_dsc_suggestion_free(struct hk_dsc_suggestion *s)
{
	for (size_t i = 0; i < s->n_changes; i++) {
		free(s->changes[i].field);
		free(s->changes[i].item);
		free(s->changes[i].package);
		free(s->changes[i].why);
	}
	free(s->changes);
	free(s->patch);
	free(s->bug);
	free(s->subject);
	free(s->not_made);
	memset(s, 0, sizeof(*s));
}
