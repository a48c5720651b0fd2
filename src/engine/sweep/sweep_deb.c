/* Debian source packages in a sweep (engine/sweep/sweep.h; docs/sweep.md, "Debian source packages"):
 * the list of NAME=VERSION pins, the fetch of a pin's source into the sweep's cache, and the
 * child process that builds one item with the engine's own function, hk_dsc_build_run — the
 * same build `harkaq build --dsc` runs — and writes its report as JSON for the sweep to read.
 * Nothing here reads a log: the sweep learns what happened from the typed result only. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/debian/build_dsc.h"
#include "engine/common/status.h"
#include "engine/common/proc.h"
#include "engine/store/store_import.h"
#include "engine/sweep/sweep.h"
#include "core/basic/file.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/basic/util.h"

int sweep_read_dsc_list(const char *file, struct hk_strv *pins, struct hk_error *err)
{
	struct hk_buf text = HK_BUF_INIT;
	int rc = hk_file_read(file, &text, err);
	if (rc < 0)
		return rc;
	unsigned lineno = 0;
	const char *p = hk_buf_str(&text);
	while (*p && rc == 0) {
		lineno++;
		size_t n = strcspn(p, "\n");
		hk_autofree char *line = hk_xstrndup(p, n);
		p += n + (p[n] ? 1 : 0);
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		/* The first word is the pin; what follows it (a kind, a comment) is the list's. */
		s[strcspn(s, " \t\r")] = '\0';
		if (!hk_apt_source_spec_ok(s, true))
			rc = hk_fail(err, EINVAL, "%s:%u: '%s' is not NAME=VERSION (a Debian source "
					     "package at a version of the archive, e.g. sl=5.02-1)",
				     file, lineno, s);
		else
			hk_strv_push(pins, s);
	}
	hk_buf_free(&text);
	return rc;
}

char *sweep_deb_source_name(const char *key, bool pin)
{
	if (pin)
		return hk_xstrndup(key, strcspn(key, "="));
	const char *base = strrchr(key, '/');
	base = base ? base + 1 : key;
	return hk_xstrndup(base, strcspn(base, "_"));
}

/* `apt-get source --download-only NAME=VERSION` into SOURCES/NAME_VERSION, once: a directory
 * marked complete is the cache (a resumed sweep does not fetch again).  On the host, before
 * any cage: the mirror's and the network's failures are the item's "fetch failed". */
static int fetch_pin(const char *sources, const char *pin, char **dsc, struct hk_error *err)
{
	hk_autofree char *name = sweep_deb_source_name(pin, true);
	struct hk_buf dn = HK_BUF_INIT;
	hk_buf_printf(&dn, "%s/%s_", sources, name);
	for (const char *c = strchr(pin, '=') + 1; *c; c++)
		*c == ':' ? hk_buf_puts(&dn, "%3a") : hk_buf_putc(&dn, *c);
	hk_autofree char *dir = hk_buf_steal(&dn);
	hk_autofree char *marker = hk_xasprintf("%s/.complete", dir);
	if (access(marker, F_OK) == 0)
		return hk_apt_source_dsc(dir, name, dsc, err);
	/* An incomplete download is started again from nothing. */
	int rc = hk_store_remove_tree(dir, err);
	if (rc == 0)
		rc = hk_mkdir_p(dir, err);
	if (rc < 0)
		return rc;
	fprintf(stderr, "[sweep] apt-get source --download-only %s (into %s)\n", pin, dir);
	rc = hk_apt_source(dir, pin, true, err);
	if (rc == 0)
		rc = hk_apt_source_dsc(dir, name, dsc, err);
	if (rc == 0)
		rc = hk_file_write_atomic(marker, "", 0, 0644, err);
	if (rc < 0) {
		free(*dsc);
		*dsc = NULL;
		struct hk_error ignored;
		if (hk_store_remove_tree(dir, &ignored) < 0) {
			/* err says why the fetch failed; without its marker the directory is
			 * fetched again next time. */
		}
	}
	return rc;
}

/* The child's document: what the sweep reads back (sweep_item.c), never a log. */
static void write_child_result(const char *path, int code, const char *fetch_what,
			       const char *fetch_reason, const struct hk_dsc_result *r)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "kind", "harkaq.sweep.debian-build.v1");
	hk_json_key(&j, "exit_status");
	hk_json_int(&j, code);
	hk_json_key(&j, "fetch");
	if (fetch_what) {
		hk_json_obj_begin(&j);
		hk_json_kv_str(&j, "what", fetch_what);
		hk_json_key(&j, "reason");
		hk_json_bytes(&j, fetch_reason, strlen(fetch_reason));
		hk_json_obj_end(&j);
	} else {
		hk_json_null(&j);
	}
	hk_json_key(&j, "report");
	if (r)
		hk_dsc_result_json(r, &j);
	else
		hk_json_null(&j);
	hk_json_obj_end(&j);
	hk_buf_putc(&b, '\n');
	struct hk_error e;
	if (hk_file_write_atomic(path, b.data, b.len, 0644, &e) < 0)
		fprintf(stderr, "harkaq sweep: %s\n", e.msg);
	hk_buf_free(&b);
}

int sweep_deb_child(const struct sweep_deb_job *job, struct hk_error *err)
{
	hk_autofree char *fetched = NULL;
	const char *dsc = job->key;
	if (job->pin) {
		int fetched_rc = fetch_pin(job->sources, job->key, &fetched, err);
		if (fetched_rc < 0) {
			/* Whatever the step that failed said (a .dsc apt-get did not leave is
			 * ENOENT), a pin that does not fetch is the mirror's or the network's. */
			fetched_rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
			fprintf(stderr, "harkaq sweep: %s\n", err->msg);
			write_child_result(job->result_path, hk_exit_status(fetched_rc, err), "source",
					   err->msg, NULL);
			return fetched_rc;
		}
		dsc = fetched;
	}
	const struct sweep_opts *o = job->o;
	struct hk_build_opts bo = {
		.store_dir = job->store_dir,
		.cage = true,
		.user = o->user ? o->user : "nobody",
		.profile = o->profile ? o->profile : "autotools",
		.timeout_s = o->timeout ? atoi(o->timeout) : 3600,
		/* The .debs enter the store whatever the verdicts, as harkaq build --dsc seals
		 * them (docs/debian-builds.md). */
		.seal_impure = true,
		/* Every work directory in the item's own, which the sweep removes however the
		 * build ends. */
		.work_parent = job->workdir,
	};
	hk_autostrv struct hk_strv see = HK_STRV_INIT;
	if (o->see) {
		hk_autofree char *copy = hk_xstrdup(o->see);
		for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
		     t = strtok_r(NULL, ",", &save))
			hk_strv_push(&see, t);
	}
	struct hk_dsc_opts dopts = {
		.dsc_path = dsc,
		.base = o->base ? o->base : HK_DSC_DEFAULT_BASE,
		.jobs = 1,
		.see = (const char *const *)see.v,
		.n_see = see.n,
		.decide_probes = o->decide_probes,
		.confirm = o->confirm,
	};
	struct hk_dsc_result r;
	int rc = hk_dsc_build_run(&bo, &dopts, &r, err);
	if (rc < 0) {
		fprintf(stderr, "harkaq build: %s\n", err->msg);
		r.error = err->msg;
		if (r.built) {
			r.build.error = err->msg;
			if (r.build.failed_stage == HK_BUILD_STAGE_NONE)
				r.build.failed_stage = HK_BUILD_STAGE_SETUP;
		}
	}
	/* For people reading the item's log; the sweep reads the JSON. */
	hk_dsc_report_human(&r, stderr);
	write_child_result(job->result_path, hk_exit_status(rc, err),
			   r.fetch_failed ? "closure" : NULL, r.fetch_failed ? err->msg : NULL, &r);
	hk_dsc_result_free(&r);
	return rc;
}
