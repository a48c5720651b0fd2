/* --decide-probes (build_dsc.h; docs/debian-builds.md, "--decide-probes"): every probe of a
 * Debian build that completed is decided by what it does to the .debs.
 *
 * A probe is a package a phase was denied and went on without (a configure check, an
 * optional import).  Whether it matters is a question about the output, and the output can
 * answer it: the build is run again with the probes *granted*, and its .debs compared with the
 * first build's, member by member.
 *
 *   - control: the same build once more, nothing changed.  If its .debs already differ, the
 *     package does not build reproducibly here, and no comparison can tell a probe's effect
 *     from the noise: every probe is undecided, said so with the control's differences.
 *   - rounds: the build with the probes granted.  A granted probe can lead the build on to
 *     another (configure finds a header, then links its library): what a round is denied
 *     that it was not granted is granted in the next, until a round meets no new probe.
 *   - the answer: the .debs of the last round equal the first build's: every probe granted
 *     is inert.  They differ: with one probe, it is an undeclared influence; with several,
 *     each is left out in turn (the others granted), and a probe whose absence changes the
 *     .debs is an influence, one whose absence changes nothing is inert.
 *
 * Nothing of these builds is sealed.  Only .deb, .udeb and .ddeb files are compared: the
 * .buildinfo records the build's date and the .changes the checksums of the others. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/debian/dsc_findings.h"
#include "engine/debian/dsc_int.h"
#include "engine/common/proc.h"
#include "engine/common/sign.h"
#include "core/basic/dir.h"
#include "core/basic/file.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"

/* Rounds of granting before the answer is given as it stands. */
#define DECIDE_MAX_ROUNDS 4
/* Probes attributed one by one (a build each) when the .debs differ with all granted. */
#define DECIDE_MAX_ATTRIBUTED 4
/* Differences listed per comparison (all are counted). */
#define DECIDE_MAX_LISTED 20


static bool is_binary_package(const char *name)
{
	size_t n = strlen(name);
	static const char *const suffixes[] = { ".deb", ".udeb", ".ddeb" };
	for (size_t i = 0; i < HK_ARRAY_LEN(suffixes); i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && strcmp(name + n - k, suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* The binary packages in `dir`, sorted. */
static int list_debs(const char *dir, struct hk_strv *out, struct hk_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open %s", dir);
	DIR *d = NULL;
	struct dirent *de;
	int rc = hk_dir_fdopen(fd, dir, &d, err);
	while (rc == 0 && (rc = hk_dir_next(d, dir, &de, err)) == 0 && de)
		if (is_binary_package(de->d_name))
			hk_strv_push(out, de->d_name);
	if (d)
		closedir(d);
	hk_strv_sort_unique(out);
	return rc;
}

/* dpkg-deb -R: the package's control member into DEBIAN/ and its data, as files. */
static int unpack_deb(const char *deb, const char *dest, struct hk_error *err)
{
	const char *argv[] = { "dpkg-deb", "-R", deb, dest, NULL };
	struct hk_run_result res;
	int rc = hk_run_capture(argv, NULL, &res, err);
	if (rc == 0 && res.status != 0) {
		char line[256];
		rc = hk_fail(err, EIO, "dpkg-deb -R %s: %s", deb,
			     hk_first_line(&res.errout, line, sizeof(line)));
	}
	hk_run_result_free(&res);
	return rc;
}

/* The differences between two .debs of the same name, member by member (DEBIAN/… is the
 * control member, the rest the data member), each prefixed with the package's file name. */
static int compare_deb(const char *name, const char *a, const char *b, const char *label_a,
		       const char *label_b, const char *scratch, struct hk_strv *diffs,
		       size_t *n_diffs, struct hk_error *err)
{
	char sha_a[HK_SHA256_HEX_LEN], sha_b[HK_SHA256_HEX_LEN];
	int rc;
	if ((rc = hk_sha256_file(a, sha_a, err)) < 0 || (rc = hk_sha256_file(b, sha_b, err)) < 0)
		return rc;
	if (strcmp(sha_a, sha_b) == 0)
		return 0;
	hk_autofree char *ua = hk_xasprintf("%s/a", scratch);
	hk_autofree char *ub = hk_xasprintf("%s/b", scratch);
	struct hk_tree ta = HK_TREE_INIT, tb = HK_TREE_INIT;
	if ((rc = unpack_deb(a, ua, err)) == 0 && (rc = unpack_deb(b, ub, err)) == 0 &&
	    (rc = hk_tree_scan(ua, &ta, err)) == 0 && (rc = hk_tree_scan(ub, &tb, err)) == 0) {
		struct hk_strv found = HK_STRV_INIT;
		size_t room = *n_diffs < DECIDE_MAX_LISTED ? DECIDE_MAX_LISTED - *n_diffs : 0;
		size_t n = hk_tree_differences(&ta, &tb, label_a, label_b, room, &found);
		for (size_t i = 0; i < found.n; i++)
			hk_strv_push_owned(diffs, hk_xasprintf("%s: %s", name, found.v[i]));
		hk_strv_free(&found);
		if (n == 0) {
			/* Same files, other bytes: the archives' own metadata. */
			n = 1;
			if (*n_diffs < DECIDE_MAX_LISTED)
				hk_strv_push_owned(diffs, hk_xasprintf(
					"%s: the same files, but the archives differ (owners, modes, "
					"times or compression; sha256 %s in %s, %s in %s)",
					name, sha_a, label_a, sha_b, label_b));
		}
		*n_diffs += n;
	}
	hk_tree_free(&ta);
	hk_tree_free(&tb);
	/* The two packages unpacked for the comparison: a leftover is said, the comparison
	 * stands. */
	const char *const unpacked[] = { ua, ub };
	for (size_t i = 0; i < HK_ARRAY_LEN(unpacked); i++) {
		struct hk_error rm;
		if (hk_store_remove_tree(unpacked[i], &rm) < 0)
			fprintf(stderr, "[dsc] left behind: %s\n", rm.msg);
	}
	return rc;
}

/* Compares the binary packages of two kept /out directories into rec. */
static int compare_outputs(const char *dir_a, const char *dir_b, const char *label_a,
			   const char *label_b, const char *scratch,
			   struct hk_dsc_extra_build *rec, struct hk_error *err)
{
	hk_autostrv struct hk_strv na = HK_STRV_INIT;
	hk_autostrv struct hk_strv nb = HK_STRV_INIT;
	hk_autostrv struct hk_strv diffs = HK_STRV_INIT;
	int rc;
	if ((rc = list_debs(dir_a, &na, err)) < 0 || (rc = list_debs(dir_b, &nb, err)) < 0)
		return rc;
	size_t n = 0;
	if (na.n == 0 && nb.n == 0)
		return hk_fail(err, ENOENT, "neither build made a .deb: nothing to compare");
	for (size_t i = 0; i < na.n; i++)
		if (!hk_strv_has(&nb, na.v[i])) {
			if (n++ < DECIDE_MAX_LISTED)
				hk_strv_push_owned(&diffs, hk_xasprintf("%s: made by %s only",
									na.v[i], label_a));
		}
	for (size_t i = 0; i < nb.n; i++)
		if (!hk_strv_has(&na, nb.v[i])) {
			if (n++ < DECIDE_MAX_LISTED)
				hk_strv_push_owned(&diffs, hk_xasprintf("%s: made by %s only",
									nb.v[i], label_b));
		}
	for (size_t i = 0; rc == 0 && i < na.n; i++) {
		if (!hk_strv_has(&nb, na.v[i]))
			continue;
		hk_autofree char *a = hk_xasprintf("%s/%s", dir_a, na.v[i]);
		hk_autofree char *b = hk_xasprintf("%s/%s", dir_b, na.v[i]);
		rc = compare_deb(na.v[i], a, b, label_a, label_b, scratch, &diffs, &n, err);
	}
	if (rc < 0)
		return rc;
	rec->identical = n == 0;
	rec->n_differences = n;
	rec->differences = hk_strv_steal(&diffs);
	return 0;
}

/* The first build's recipe with `grant` added to its declared deps (into `out`, the caller's
 * to free). */
static int granted_recipe(const struct dsc_build *b, const struct hk_strv *grant,
			  struct hk_recipe *out, struct hk_error *err)
{
	hk_recipe_copy(&b->r->recipe, out);
	for (size_t i = 0; grant && i < grant->n; i++)
		if (hk_recipe_add_build_dep(out, grant->v[i], err) < 0)
			return -err->code;
	return 0;
}

static struct hk_dsc_extra_build *new_record(struct hk_dsc_decide *d, const char *purpose,
					     const struct hk_strv *grant)
{
	d->builds = hk_xrealloc(d->builds, (d->n_builds + 1) * sizeof(*d->builds));
	struct hk_dsc_extra_build *rec = &d->builds[d->n_builds++];
	memset(rec, 0, sizeof(*rec));
	rec->purpose = hk_xstrdup(purpose);
	struct hk_strv g = HK_STRV_INIT;
	for (size_t i = 0; grant && i < grant->n; i++)
		hk_strv_push(&g, grant->v[i]);
	rec->n_granted = g.n;
	rec->granted = hk_strv_steal(&g);
	return rec;
}

/* Runs the first build's recipe again with `grant` granted (none for the control), its /out
 * kept at `out_dir`; the engine's result in `br` (the caller frees it). */
static void extra_build(struct dsc_build *b, const struct hk_build_opts *eo,
			const struct hk_strv *grant, const char *out_dir,
			struct hk_dsc_extra_build *rec, struct hk_build_result *br)
{
	struct hk_error err = { 0 };
	memset(br, 0, sizeof(*br));
	struct hk_recipe recipe;
	if (granted_recipe(b, grant, &recipe, &err) < 0) {
		hk_recipe_free(&recipe);
		rec->error = hk_xstrdup(err.msg);
		rec->phases = hk_xstrdup("not run");
		return;
	}
	struct hk_build_opts co = *eo;
	co.recipe = &recipe;
	co.recipe_path = NULL;
	co.no_seal = true;
	co.seal_impure = false;
	co.observe_opens = false;
	co.view_hide = NULL;
	co.n_view_hide = 0;
	co.keep_out = out_dir;
	if (!eo->quiet)
		fprintf(stderr, "[dsc] --decide-probes: %s\n", rec->purpose);
	int rc = hk_build_run(&co, br, &err);
	hk_recipe_free(&recipe);
	rec->phases = hk_dsc_phases_summary(br);
	rec->completed = rc >= 0 && dsc_completed(br);
	if (rc < 0)
		rec->error = hk_xstrdup(err.msg);
}

static void record_decision(struct hk_dsc_decide *d, const char *package, enum hk_probe_class cls,
		   const char *why, const struct hk_dsc_extra_build *shown)
{
	d->decisions = hk_xrealloc(d->decisions, (d->n_decisions + 1) * sizeof(*d->decisions));
	struct hk_dsc_probe_decision *x = &d->decisions[d->n_decisions++];
	memset(x, 0, sizeof(*x));
	x->package = hk_xstrdup(package);
	x->cls = cls;
	x->why = hk_xstrdup(why);
	struct hk_strv diffs = HK_STRV_INIT;
	for (size_t i = 0; shown && shown->differences && shown->differences[i]; i++)
		hk_strv_push(&diffs, shown->differences[i]);
	x->n_differences = shown ? shown->n_differences : 0;
	x->differences = hk_strv_steal(&diffs);
}

static void decide_all(struct hk_dsc_decide *d, const struct hk_strv *names,
		       enum hk_probe_class cls, const char *why,
		       const struct hk_dsc_extra_build *shown)
{
	for (size_t i = 0; i < names->n; i++)
		record_decision(d, names->v[i], cls, why, shown);
}

/* What decides one comparison: compares `out` with `against` into rec, or says why not. */
static bool compared(const char *out, const char *against, const char *label_a,
		     const char *label_b, const char *scratch, struct hk_dsc_extra_build *rec)
{
	if (!rec->completed)
		return false;
	struct hk_error err = { 0 };
	if (compare_outputs(against, out, label_a, label_b, scratch, rec, &err) < 0) {
		free(rec->error);
		rec->error = hk_xasprintf("the outputs could not be compared: %s", err.msg);
		return false;
	}
	rec->compared_with = hk_xstrdup(label_a);
	return true;
}

/* The extra builds' /out directories and scratch space, under the front end's work dir. */
struct decide_dirs {
	char *root, *scratch;
	size_t next;
};

static char *next_out(struct decide_dirs *dd)
{
	return hk_xasprintf("%s/out-%zu", dd->root, dd->next++);
}

/* Leaves each probe out in turn, the others granted, and compares with all granted. */
static void attribute(struct dsc_build *b, const struct hk_build_opts *eo,
		      struct decide_dirs *dd, const struct hk_strv *names,
		      const struct hk_strv *specs, const char *all_out,
		      const struct hk_dsc_extra_build *all_rec)
{
	struct hk_dsc_decide *d = &b->r->decide;
	if (names->n > DECIDE_MAX_ATTRIBUTED) {
		hk_autofree char *why = hk_xasprintf(
			"the .debs differ with all %zu probes granted; telling which would take %zu "
			"more builds (at most %d are run)", names->n, names->n,
			DECIDE_MAX_ATTRIBUTED);
		decide_all(d, names, HK_PROBE_UNDECIDED, why, all_rec);
		return;
	}
	size_t influences = 0;
	size_t first = d->n_decisions;
	for (size_t k = 0; k < names->n; k++) {
		struct hk_strv others = HK_STRV_INIT;
		for (size_t i = 0; i < specs->n; i++)
			if (i != k)
				hk_strv_push(&others, specs->v[i]);
		hk_autofree char *purpose = hk_xasprintf("without %s, the other probes granted",
							 names->v[k]);
		struct hk_dsc_extra_build *rec = new_record(d, purpose, &others);
		hk_autofree char *out = next_out(dd);
		struct hk_build_result br;
		extra_build(b, eo, &others, out, rec, &br);
		hk_strv_free(&others);
		hk_build_result_free(&br);
		if (!compared(out, all_out, "all probes granted", "this build", dd->scratch, rec)) {
			hk_autofree char *why = hk_xasprintf("the build without it gave no answer: %s",
							     rec->error ? rec->error : rec->phases);
			record_decision(d, names->v[k], HK_PROBE_UNDECIDED, why, NULL);
		} else if (rec->identical) {
			record_decision(d, names->v[k], HK_PROBE_INERT,
			       "left out (the others granted), the .debs are those of all granted",
			       NULL);
		} else {
			influences++;
			record_decision(d, names->v[k], HK_PROBE_INFLUENCE,
			       "left out (the others granted), the .debs differ from all granted",
			       rec);
		}
	}
	/* No single one changes them, all together do: each is part of the influence. */
	bool undecided = false;
	for (size_t i = first; i < d->n_decisions; i++)
		undecided |= d->decisions[i].cls == HK_PROBE_UNDECIDED;
	if (influences == 0 && !undecided)
		for (size_t i = first; i < d->n_decisions; i++) {
			struct hk_dsc_probe_decision *x = &d->decisions[i];
			x->cls = HK_PROBE_INFLUENCE;
			free(x->why);
			x->why = hk_xstrdup("together with the others: granted all, the .debs differ, "
					    "though leaving any one out changes nothing");
			hk_strfreev(x->differences);
			struct hk_strv diffs = HK_STRV_INIT;
			for (size_t k = 0; all_rec->differences && all_rec->differences[k]; k++)
				hk_strv_push(&diffs, all_rec->differences[k]);
			x->differences = hk_strv_steal(&diffs);
			x->n_differences = all_rec->n_differences;
		}
}

/* Decides `name` undecided with `why` and takes it out of the names and specs compared. */
static void set_aside(struct hk_dsc_decide *d, struct hk_strv *names, struct hk_strv *specs,
		      struct hk_strv *paths, const char *name, const char *why)
{
	for (size_t k = 0; k < names->n; k++) {
		if (strcmp(names->v[k], name) != 0)
			continue;
		record_decision(d, name, HK_PROBE_UNDECIDED, why, NULL);
		struct hk_strv *lists[] = { names, specs, paths };
		for (size_t l = 0; l < HK_ARRAY_LEN(lists); l++) {
			free(lists[l]->v[k]);
			memmove(&lists[l]->v[k], &lists[l]->v[k + 1],
				(lists[l]->n - k) * sizeof(char *));
			lists[l]->n--;
		}
		return;
	}
}

/* The rounds: the probes granted until a round meets no new one.  Returns the kept /out of
 * the last round that completed (NULL when none), with its record in *last. */
static char *grant_rounds(struct dsc_build *b, const struct hk_build_opts *eo,
			  struct decide_dirs *dd, struct hk_strv *names, struct hk_strv *specs,
			  struct hk_strv *paths, struct hk_dsc_extra_build **last)
{
	struct hk_dsc_decide *d = &b->r->decide;
	for (int round = 1; round <= DECIDE_MAX_ROUNDS; round++) {
		hk_autofree char *purpose = hk_xasprintf("round %d: the probes granted", round);
		struct hk_dsc_extra_build *rec = new_record(d, purpose, specs);
		char *out = next_out(dd);
		struct hk_build_result br;
		extra_build(b, eo, specs, out, rec, &br);
		struct hk_strv met = HK_STRV_INIT, met_specs = HK_STRV_INIT, met_paths = HK_STRV_INIT;
		struct hk_strv fresh = HK_STRV_INIT, still = HK_STRV_INIT;
		struct hk_strset denied = HK_STRSET_INIT;
		if (rec->completed) {
			hk_dsc_probes_of(b->r, &br, &met, &met_specs, &met_paths);
			hk_dsc_denied_paths(&br, &denied);
		}
		hk_build_result_free(&br);
		/* A granted probe whose paths are denied again: the grant did not reach them (once
		 * declared, the diagnosis no longer names it, so its paths tell). */
		for (size_t i = 0; rec->completed && i < names->n; i++) {
			hk_autofree char *list = hk_xstrdup(paths->v[i]);
			for (char *save = NULL, *p = strtok_r(list, "\n", &save); p;
			     p = strtok_r(NULL, "\n", &save))
				if (hk_strset_contains(&denied, p)) {
					hk_strv_push(&still, names->v[i]);
					break;
				}
		}
		for (size_t i = 0; i < met.n; i++)
			if (!hk_strv_has(names, met.v[i])) {
				hk_strv_push(&fresh, met.v[i]);
				hk_strv_push(names, met.v[i]);
				hk_strv_push(specs, met_specs.v[i]);
				hk_strv_push(paths, met_paths.v[i]);
			}
		rec->n_new_probes = fresh.n;
		rec->new_probes = hk_strv_steal(&fresh);
		rec->n_still_denied = still.n;
		rec->still_denied = hk_strv_steal(&still);
		hk_strv_free(&met);
		hk_strv_free(&met_specs);
		hk_strv_free(&met_paths);
		hk_strset_free(&denied);
		/* Re-pointed after every new_record: the array may have moved. */
		*last = &d->builds[d->n_builds - 1];
		if (!rec->completed || rec->n_new_probes == 0 || round == DECIDE_MAX_ROUNDS)
			return out;
		free(out);
	}
	return NULL;
}

int dsc_decide_probes(struct dsc_build *b, const struct hk_build_opts *eo, const char *first_out)
{
	struct hk_dsc_result *r = b->r;
	struct hk_dsc_decide *d = &r->decide;
	d->asked = true;
	if (!r->built || !dsc_completed(&r->build)) {
		d->not_run = hk_xstrdup("the build did not complete: only the probes of a build that "
					"made its .debs can be decided by them (--confirm answers "
					"about a failed one)");
		return 0;
	}
	hk_autostrv struct hk_strv names = HK_STRV_INIT;
	hk_autostrv struct hk_strv specs = HK_STRV_INIT;
	hk_autostrv struct hk_strv paths = HK_STRV_INIT;
	hk_dsc_probes_of(r, &r->build, &names, &specs, &paths);
	if (names.n == 0) {
		d->not_run = hk_xstrdup("no probe: no phase went on after a denial naming a package");
		return 0;
	}
	struct decide_dirs dd = { .root = hk_xasprintf("%s/decide", r->work) };
	dd.scratch = hk_xasprintf("%s/scratch", dd.root);
	int rc = 0;
	if (mkdir(dd.root, 0755) < 0 || mkdir(dd.scratch, 0755) < 0)
		rc = hk_fail_errno(b->err, errno, "creating %s", dd.root);

	/* The control: nothing changed. */
	struct hk_dsc_extra_build *control = rc ? NULL : new_record(d, "control: nothing changed",
								    NULL);
	hk_autofree char *control_out = rc ? NULL : next_out(&dd);
	if (control) {
		struct hk_build_result br;
		extra_build(b, eo, NULL, control_out, control, &br);
		hk_build_result_free(&br);
	}
	/* What the builds show, decided by the one rule (core/debian/dsc_rules.h); the why it gives is
	 * completed here with what only these builds know. */
	struct hk_probe_facts facts = { 0 };
	const char *rule;
	if (rc) {
		/* the work directory failed: said by the caller */
	} else if (!(facts.control_compared = compared(control_out, first_out, "the first build",
						       "the control", dd.scratch, control))) {
		enum hk_probe_class cls = hk_probe_decide(&facts, &rule);
		hk_autofree char *why = hk_xasprintf("%s: %s", rule,
						     control->error ? control->error : control->phases);
		decide_all(d, &names, cls, why, NULL);
	} else if (!(facts.control_identical = control->identical)) {
		enum hk_probe_class cls = hk_probe_decide(&facts, &rule);
		decide_all(d, &names, cls, rule, control);
	} else {
		struct hk_dsc_extra_build *last = NULL;
		hk_autofree char *all_out = grant_rounds(b, eo, &dd, &names, &specs, &paths, &last);
		/* Probes met in the last round allowed were never granted, and a granted probe the
		 * build was denied all the same (a link its package's maintainer script makes, which
		 * granting the package's files does not grant) never reached the build: no answer
		 * for either, and the comparison below speaks only of the others. */
		for (size_t i = 0; last && i < last->n_new_probes; i++)
			set_aside(d, &names, &specs, &paths, last->new_probes[i],
				  "met only in the last round of granting allowed, never granted");
		struct hk_probe_facts denied = facts;
		denied.still_denied = true;
		(void)hk_probe_decide(&denied, &rule);
		for (size_t i = 0; last && i < last->n_still_denied; i++)
			set_aside(d, &names, &specs, &paths, last->still_denied[i], rule);
		if (names.n > 0)
			facts.granted_compared = last && compared(all_out, first_out, "the first build",
								  "the probes granted", dd.scratch,
								  last);
		facts.granted_identical = facts.granted_compared && last->identical;
		enum hk_probe_class cls = hk_probe_decide(&facts, &rule);
		if (names.n == 0) {
			/* nothing left to decide by comparison */
		} else if (!facts.granted_compared) {
			hk_autofree char *why = hk_xasprintf(
				"%s: %s", rule,
				!last ? "it did not run" : last->error ? last->error : last->phases);
			decide_all(d, &names, cls, why, NULL);
		} else if (cls == HK_PROBE_INERT || names.n == 1) {
			decide_all(d, &names, cls, rule, cls == HK_PROBE_INFLUENCE ? last : NULL);
		} else {
			/* Several, and the .debs differ: each is left out in turn to tell which.
			 * Copied: attribute() adds records, which may move the array. */
			struct hk_dsc_extra_build all = *last;
			attribute(b, eo, &dd, &names, &specs, all_out, &all);
		}
	}
	struct hk_error rm;
	if (hk_store_remove_tree(dd.root, &rm) < 0)
		fprintf(stderr, "[dsc] --decide-probes: left behind: %s\n", rm.msg);
	free(dd.root);
	free(dd.scratch);
	return rc;
}

static void extra_build_free(struct hk_dsc_extra_build *x)
{
	free(x->purpose);
	hk_strfreev(x->granted);
	free(x->phases);
	free(x->error);
	free(x->compared_with);
	hk_strfreev(x->differences);
	hk_strfreev(x->new_probes);
	hk_strfreev(x->still_denied);
}

void dsc_decide_free(struct hk_dsc_decide *d)
{
	free(d->not_run);
	for (size_t i = 0; i < d->n_builds; i++)
		extra_build_free(&d->builds[i]);
	free(d->builds);
	for (size_t i = 0; i < d->n_decisions; i++) {
		free(d->decisions[i].package);
		free(d->decisions[i].why);
		hk_strfreev(d->decisions[i].differences);
	}
	free(d->decisions);
	memset(d, 0, sizeof(*d));
}

