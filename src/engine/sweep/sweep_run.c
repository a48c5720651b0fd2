/* One sweep (engine/sweep/sweep.h): measure a whole catalogue (design.md §11, docs/sweep.md).
 *
 * Here the scheduling: the catalogue found and sharded, the store snapshot, the workspace,
 * resuming from an earlier run's records, --jobs builds at a time with their limits, the
 * progress, and the outputs.  Every item is run by sweep_item.c in its own child process (its
 * own reader, its own canaries: concurrent builds are told apart by Landlock domain, design.md
 * §6), what it wrote read back, each debt path classified against the store and the base root
 * (sweep_classify.c), and the whole summarised by src/core/sweep/sweep.c.  No recipe is
 * dropped: one that cannot be read, resolved, fetched or built is an item with outcome
 * "failed" and its reason.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/common/status.h"
#include "engine/build/build.h"
#include "engine/debian/build_dsc.h"
#include "engine/build/plan_cache.h"
#include "engine/common/proc.h"
#include "engine/common/reach.h"
#include "engine/common/sign.h"
#include "engine/sweep/sweep_int.h"
#include "engine/sweep/sweep_render.h"
#include "sys/interrupt.h"
#include "core/basic/hex.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_file.h"
#include "core/basic/strset.h"
#include "core/store/store.h"
#include "core/basic/file.h"
#include "core/store/base.h"
#include "core/basic/util.h"

#define RECIPE_FILE "recipe.toml"

/* ---- finding recipes ---- */

struct recipes {
	char **keys;
	size_t n, cap;
};

static void recipes_add(struct recipes *r, char *key)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->keys = hk_xrealloc(r->keys, r->cap * sizeof(char *));
	}
	r->keys[r->n++] = key;
}

static bool is_dsc_name(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && strcmp(name + l - 4, ".dsc") == 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks `dir` (named `shown`): a directory holding recipe.toml is a recipe and is not
 * descended (its subdirectories are its sources); hidden directories and stores (a
 * .harkaq-store marker) are skipped. */
static int walk(const char *dir, const char *shown, struct recipes *out, int depth,
		struct hk_error *err)
{
	if (depth > 32)
		return hk_fail(err, ELOOP, "%s: nested more than 32 directories deep", shown);
	hk_autofree char *rf = hk_xasprintf("%s/" RECIPE_FILE, dir);
	struct stat st;
	if (stat(rf, &st) == 0 && S_ISREG(st.st_mode)) {
		recipes_add(out, hk_xasprintf("%s%s" RECIPE_FILE, shown, *shown ? "/" : ""));
		return 0;
	}
	hk_autofree char *marker = hk_xasprintf("%s/.harkaq-store", dir);
	if (access(marker, F_OK) == 0)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return hk_fail_errno(err, errno, "reading the directory %s", shown);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = hk_xrealloc(names, cap * sizeof(char *));
		}
		names[n++] = hk_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		hk_autofree char *sub = hk_xasprintf("%s/%s", dir, names[i]);
		hk_autofree char *subshown =
			hk_xasprintf("%s%s%s", shown, *shown ? "/" : "", names[i]);
		/* lstat: a symlinked directory could loop or leave the catalogue. */
		if (rc == 0 && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = walk(sub, subshown, out, depth + 1, err);
		} else if (rc == 0 && S_ISREG(st.st_mode) && is_dsc_name(names[i])) {
			/* A Debian source package (docs/sweep.md, "Debian source packages"). */
			recipes_add(out, hk_xstrdup(subshown));
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int find_recipes(char **args, size_t n_args, struct recipes *out, struct hk_error *err)
{
	for (size_t i = 0; i < n_args; i++) {
		struct stat st;
		if (stat(args[i], &st) < 0)
			return hk_fail_errno(err, errno, "%s", args[i]);
		if (!S_ISDIR(st.st_mode)) {
			recipes_add(out, hk_xstrdup(args[i]));
			continue;
		}
		/* The directory as named, without trailing slashes ("." names nothing). */
		char *shown = hk_xstrdup(args[i]);
		size_t l = strlen(shown);
		while (l > 1 && shown[l - 1] == '/')
			shown[--l] = '\0';
		if (strcmp(shown, ".") == 0)
			shown[0] = '\0';
		size_t before = out->n;
		int rc = walk(args[i], shown, out, 0, err);
		free(shown);
		if (rc < 0)
			return rc;
		if (out->n == before)
			return hk_fail(err, ENOENT, "%s: no " RECIPE_FILE " and no .dsc in this "
				       "directory or below", args[i]);
	}
	return 0;
}

/* ---- running the builds ---- */

/* A stop (SIGINT, SIGTERM, SIGHUP) is asked of the process's one interrupt context, which main
 * installed before the sweep began (sys/interrupt.h): a signal that came while the sweep found
 * its recipes or opened its store stops it too. */

static bool tty_progress;

/* "42s", "5m03s", "7h12m" */
static void put_duration(struct hk_buf *b, long long s)
{
	if (s < 60)
		hk_buf_printf(b, "%llds", s);
	else if (s < 3600)
		hk_buf_printf(b, "%lldm%02llds", s / 60, s % 60);
	else
		hk_buf_printf(b, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

struct sweep_run;
static void progress(struct sweep_run *sr, const char *finished);

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return hk_xstrdup(buf);
}

/* ---- one sweep, step by step ---- */

/* Everything one sweep holds while it runs; released by release_sweep(). */
struct sweep_run {
	const struct sweep_opts *o;
	struct hk_error *err;       /* the caller's: what stopped the sweep */
	struct hk_sweep_doc d;
	size_t *positions;          /* each item's position in the whole catalogue */
	char *store_dir;
	struct sweep_classifier *cls;   /* the store snapshot every classification uses */
	struct hk_store *store;     /* its store (not owned) */
	char *work;                 /* logs and build results: --out, or a scratch directory */
	bool scratch;
	char *logs, *builds, *self;
	struct sweep_job *jobs;
	size_t n_jobs, next, done;
	size_t built;               /* items whose build ended in this run */
	size_t resumed;             /* items taken from an earlier run's records */
	long long t0;
	long long last_beat;        /* the last progress line without a terminal */
	/* Debian source packages and resuming (docs/sweep.md) */
	struct hk_strset pins;      /* keys that are NAME=VERSION pins */
	char *sources;              /* the fetch cache */
	char *items_dir;            /* OUT/work: each Debian item's own directory */
	char *records;              /* OUT/done: one record per finished item; NULL without --out */
	char code_id[HK_B3_ID_LEN]; /* hk_code_id_with_helpers */
	char *deb_base;             /* the Debian base's id in the store (else its name) */
};

/* What an item is, from its key. */
enum item_kind { ITEM_RECIPE, ITEM_DSC, ITEM_PIN };

static enum item_kind item_kind(const struct sweep_run *sr, const char *key)
{
	if (hk_strset_contains(&sr->pins, key))
		return ITEM_PIN;
	return is_dsc_name(key) ? ITEM_DSC : ITEM_RECIPE;
}

static void progress(struct sweep_run *sr, const char *finished)
{
	const struct sweep_opts *o = sr->o;
	if (o->quiet)
		return;
	long long now = hk_now_ms();
	long long el = now - sr->t0;
	size_t total = sr->d.n_items;
	/* Without a terminal: a line per finished item, and one a minute while builds run. */
	if (!tty_progress && !finished && now - sr->last_beat < 60000)
		return;
	sr->last_beat = now;
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_printf(&b, "%s[sweep] %zu/%zu done", tty_progress ? "\r\033[K" : "", sr->done,
		      total);
	if (sr->resumed)
		hk_buf_printf(&b, " (%zu resumed)", sr->resumed);
	hk_buf_puts(&b, " · ");
	put_duration(&b, el / 1000);
	/* The rate of this run's builds (resumed items cost nothing), and the time left at it. */
	if (sr->built && el > 0) {
		double per_h = (double)sr->built * 3600000.0 / (double)el;
		hk_buf_printf(&b, " · %.1f/h", per_h);
		if (sr->done < total) {
			hk_buf_puts(&b, " · ~");
			put_duration(&b, (long long)((double)(total - sr->done) * 3600.0 / per_h));
			hk_buf_puts(&b, " left");
		}
	}
	if (finished)
		hk_buf_printf(&b, " · %s", finished);
	if (sr->n_jobs) {
		hk_buf_puts(&b, tty_progress ? " · running: " : "\n        running: ");
		for (size_t i = 0; i < sr->n_jobs; i++) {
			const struct hk_sweep_item *it = &sr->d.items[sr->jobs[i].item];
			hk_buf_printf(&b, "%s%s (", i ? ", " : "", it->name ? it->name : it->key);
			put_duration(&b, (now - sr->jobs[i].t0) / 1000);
			hk_buf_putc(&b, ')');
			if (tty_progress && b.len > 160) {
				hk_buf_puts(&b, "…");
				break;
			}
		}
	}
	if (!tty_progress)
		hk_buf_putc(&b, '\n');
	fputs(hk_buf_str(&b), stderr);
	fflush(stderr);
	hk_buf_free(&b);
}

static void release_sweep(struct sweep_run *sr)
{
	if (sr->scratch && sr->work) {
		struct hk_error rm;
		if (hk_store_remove_tree(sr->work, &rm) < 0)
			fprintf(stderr, "harkaq sweep: left behind: %s\n", rm.msg);
	} else if (sr->items_dir) {
		/* Each item's directory went when its build ended: what stays is empty. */
		rmdir(sr->items_dir);
	}
	sweep_classifier_free(sr->cls);
	hk_strset_free(&sr->pins);
	free(sr->sources);
	free(sr->items_dir);
	free(sr->records);
	free(sr->deb_base);
	free(sr->jobs);
	free(sr->positions);
	free(sr->self);
	free(sr->logs);
	free(sr->builds);
	free(sr->work);
	free(sr->store_dir);
	hk_sweep_doc_free(&sr->d);
}

/* The catalogue: the recipes found, sorted, named by their keys, and this shard's items. */
static int collect_items(struct sweep_run *sr, char **args, size_t n_args)
{
	struct recipes found = { 0 };
	sr->pins = (struct hk_strset)HK_STRSET_INIT;
	if (sr->o->dsc_list) {
		hk_autostrv struct hk_strv pins = HK_STRV_INIT;
		if (sweep_read_dsc_list(sr->o->dsc_list, &pins, sr->err) < 0)
			/* The list the user gave, whatever stopped its reading. */
			return hk_error_set_class(sr->err, HK_ERROR_INPUT);
		for (size_t i = 0; i < pins.n; i++) {
			hk_strset_add(&sr->pins, pins.v[i]);
			recipes_add(&found, hk_xstrdup(pins.v[i]));
		}
	}
	if (find_recipes(args, n_args, &found, sr->err) < 0) {
		for (size_t i = 0; i < found.n; i++)
			free(found.keys[i]);
		free(found.keys);
		/* A path the user named: missing, unreadable, or holding no recipe. */
		return hk_error_set_class(sr->err, HK_ERROR_INPUT);
	}
	found.n = hk_sweep_sort_keys(found.keys, found.n);
	struct hk_sweep_doc *d = &sr->d;
	hk_sweep_catalogue_id((const char *const *)found.keys, found.n, d->catalogue_id);
	d->catalogue_size = found.n;
	d->jobs = sr->o->jobs;
	d->items = hk_xcalloc(found.n + 1, sizeof(*d->items));
	sr->positions = hk_xcalloc(found.n + 1, sizeof(size_t));
	int rc = 0;
	if (sr->o->shard &&
	    hk_sweep_parse_shard(sr->o->shard, &d->shard_index, &d->shard_count, sr->err) < 0)
		/* --shard's value: the command line was wrong. */
		rc = hk_error_set_class(sr->err, HK_ERROR_USAGE);
	for (size_t i = 0; i < found.n; i++) {
		if (rc == 0 && hk_sweep_in_shard(i, d->shard_index, d->shard_count)) {
			sr->positions[d->n_items] = i;
			struct hk_sweep_item *it = &d->items[d->n_items++];
			it->exit_status = -1;
			it->key = found.keys[i];
			enum item_kind k = item_kind(sr, it->key);
			if (k != ITEM_RECIPE) {
				/* A Debian item from the start: whatever becomes of it, its class
				 * is a Debian class. */
				it->deb = hk_xcalloc(1, sizeof(*it->deb));
				it->deb->source = sweep_deb_source_name(it->key, k == ITEM_PIN);
				it->name = hk_xstrdup(it->deb->source);
				if (k == ITEM_PIN)
					it->version = hk_xstrdup(strchr(it->key, '=') + 1);
			}
		} else {
			free(found.keys[i]);
		}
	}
	free(found.keys);
	return rc;
}

/* One store for every build, resolved once, and its snapshot: the path index and the
 * symlink map the diagnosis reads, loaded now, before any build can seal into the store. */
static int open_snapshot(struct sweep_run *sr)
{
	const struct sweep_opts *o = sr->o;
	bool debian = false;
	for (size_t i = 0; i < sr->d.n_items; i++)
		debian |= sr->d.items[i].deb != NULL;
	if (o->store_opt || (getenv("HARKAQ_STORE") && *getenv("HARKAQ_STORE"))) {
		sr->store_dir = hk_xstrdup(hk_store_choose_dir(o->store_opt));
	} else {
		for (size_t i = 0; i < sr->d.n_items && !sr->store_dir; i++) {
			struct hk_recipe r;
			struct hk_error e;
			if (!sr->d.items[i].deb && hk_recipe_load(sr->d.items[i].key, &r, &e) == 0) {
				sr->store_dir = hk_build_store_dir(&r, NULL);
				hk_recipe_free(&r);
			}
		}
	}
	/* A Debian package has no recipe to find a store from, and its closure and base must
	 * come from one: never a guess. */
	if (!sr->store_dir && debian)
		return hk_fail_as(sr->err, HK_ERROR_USAGE, EINVAL,
				  "Debian source packages need the store that holds their base "
				  "(%s): give --store DIR or $HARKAQ_STORE",
				  o->base ? o->base : HK_DSC_DEFAULT_BASE);
	if (!sr->store_dir)
		return 0;
	int oc = sweep_open_classifier(sr->store_dir, &sr->cls, sr->err);
	sr->store = sweep_classifier_store(sr->cls);
	if (oc < 0)
		/* The store the user named, or the one found above the recipes: theirs to fix. */
		return hk_error_set_class(sr->err, HK_ERROR_INPUT);
	sweep_prime_bases(sr->cls, &sr->d);
	char *abs = realpath(sr->store_dir, NULL);
	if (abs) {
		free(sr->store_dir);
		sr->store_dir = abs;
	}
	sr->d.store = hk_xstrdup(sr->store_dir);
	/* The base Debian items stand on, by id: part of their identity for resuming. */
	const char *bname = o->base ? o->base : HK_DSC_DEFAULT_BASE;
	const struct hk_artifact *a = NULL;
	struct hk_error e;
	sr->deb_base = hk_xstrdup(sr->store && hk_base_find(sr->store, bname, &a, &e) == 0 ? a->id
											    : bname);
	return 0;
}

/* The code's identity (hk_code_id_with_helpers): harkaq, which runs the sweep and, as its
 * children, the builds, the libraries loaded with it, and the cage's helpers, by their GNU
 * build ids — the identity the kept plans use for harkaq itself.  Other code (a rebuilt
 * harkaq or harkaq-exec, another libseccomp): an earlier run's records do not stand for it. */
static int code_identity(struct sweep_run *sr)
{
	return hk_code_id_with_helpers(sr->code_id, sr->err);
}

/* `path` made absolute against the working directory (which need not hold it yet): a child
 * that changes directory, or hands the path on as TMPDIR to dpkg-source, must not read it
 * anew relative to another one. */
static char *absolute(const char *path)
{
	if (path[0] == '/')
		return hk_xstrdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return hk_xstrdup(path);
	return hk_xasprintf("%s/%s", cwd, path);
}

/* mkdir -p, then the mode the build user needs to pass through it (DAC). */
static int make_reachable_dir(const char *path, struct hk_error *err)
{
	int rc = sweep_mkdir_p(path, err);
	if (rc < 0)
		return rc;
	if (chmod(path, 0755) < 0)
		return hk_fail_errno(err, errno, "making %s reachable (chmod 0755)", path);
	return 0;
}

/* Whether the build user reaches OUT/work, where the Debian items' work directories are made:
 * asked once, before the first build, so that a --out under a directory it cannot enter is
 * one sentence, not every item failed (engine/common/reach.h). */
static int check_items_reach(struct sweep_run *sr)
{
	const char *user = sr->o->user ? sr->o->user : "nobody";
	uid_t uid;
	gid_t gid;
	int rc = hk_resolve_user(user, &uid, &gid, sr->err);
	if (rc < 0)
		return rc;
	struct hk_reach_list l = HK_REACH_LIST_INIT;
	hk_reach_add(&l, sr->items_dir, "where the Debian items' work directories are made",
		     X_OK, "or choose another --out");
	rc = hk_reach_check("the build user", user, uid, gid, NULL, &l, sr->err);
	hk_reach_list_free(&l);
	return rc;
}

/* Where logs, build results and the items' work go: --out, else a scratch directory removed at
 * the end.  Every path the children are given is absolute.  A failure is the machine's
 * (environment), but for an --out the build user cannot reach (input: the user chooses it). */
static int make_workspace(struct sweep_run *sr)
{
	struct hk_error *err = sr->err;
	sr->scratch = !sr->o->out_dir;
	if (sr->o->out_dir) {
		sr->work = absolute(sr->o->out_dir);
	} else {
		sr->work = hk_xstrdup("/var/tmp/harkaq-sweep-XXXXXX");
		if (!mkdtemp(sr->work)) {
			hk_fail_errno(err, errno, "creating a scratch directory");
			free(sr->work);
			sr->work = NULL;
			return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		}
		/* mkdtemp made it 0700; the Debian items' work is made below it, for the build
		 * user to reach.  A --out given is left as it is: check_items_reach asks. */
		if (chmod(sr->work, 0755) < 0) {
			hk_fail_errno(err, errno, "making %s reachable", sr->work);
			return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		}
	}
	/* A result left by an earlier sweep in --out must not stand for this one if this one is
	 * killed before it writes its own: a merge would take it for this shard. */
	static const char *const results[] = { "result.json", "summary.json", "summary.txt" };
	for (size_t i = 0; !sr->scratch && i < HK_ARRAY_LEN(results); i++) {
		hk_autofree char *old = hk_xasprintf("%s/%s", sr->work, results[i]);
		if (unlink(old) < 0 && errno != ENOENT) {
			hk_fail_errno(err, errno, "removing the earlier %s", old);
			return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
		}
	}
	sr->logs = hk_xasprintf("%s/logs", sr->work);
	sr->builds = hk_xasprintf("%s/builds", sr->work);
	sr->items_dir = hk_xasprintf("%s/work", sr->work);
	sr->sources = sr->o->sources ? absolute(sr->o->sources)
				     : hk_xasprintf("%s/sources", sr->work);
	/* The records of finished items outlive an interruption: only with --out. */
	sr->records = sr->scratch ? NULL : hk_xasprintf("%s/done", sr->work);
	sr->self = self_exe();
	if (!sr->self)
		return hk_fail_as(err, HK_ERROR_ENVIRONMENT, ENOENT,
				  "cannot find its own executable");
	/* What a sweep killed outright (SIGKILL, a lost node) left of its items' work. */
	struct hk_error rm;
	if (hk_store_remove_tree(sr->items_dir, &rm) < 0)
		fprintf(stderr, "harkaq sweep: left behind: %s\n", rm.msg);
	/* A Debian build's source is unpacked below OUT/work, for the build user to read. */
	int rc = sweep_mkdir_p(sr->logs, err);
	if (rc == 0)
		rc = sweep_mkdir_p(sr->builds, err);
	if (rc == 0)
		rc = make_reachable_dir(sr->items_dir, err);
	if (rc == 0 && sr->records)
		rc = sweep_mkdir_p(sr->records, err);
	if (rc == 0)
		rc = code_identity(sr);
	if (rc < 0)
		return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	bool debian = false;
	for (size_t i = 0; i < sr->d.n_items; i++)
		debian |= sr->d.items[i].deb != NULL;
	int reach = debian ? check_items_reach(sr) : 0;
	if (reach > 0)
		/* A directory on the way stops the build user: the --out chosen. */
		return hk_error_set_class(err, HK_ERROR_INPUT);
	if (reach < 0)
		/* The check itself could not be made (the build user unknown, a path that
		 * cannot be examined). */
		return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	return 0;
}

/* ---- resuming (docs/sweep.md, "Resuming") ---- */

/* The record of a finished item: OUT/done/<BLAKE3>.json, the hash over the item (its key and
 * its content: the recipe's hash, the .dsc's SHA-256, or the pin), the code's identity, the
 * base it builds on, and every option that changes its build: those of every build, and a
 * Debian item's own (--base, --see, --decide-probes, --confirm).  Any of them changed, the
 * item is built again. */
static char *record_path(const struct sweep_run *sr, const char *key, bool deb,
			 const char *content, const char *base)
{
	const struct sweep_opts *o = sr->o;
	struct hk_buf id = HK_BUF_INIT;
	hk_buf_printf(&id, "harkaq-sweep-item-v2%c%s%c%s%c%s%c%s%c", 0, key, 0,
		      content ? content : "", 0, sr->code_id, 0, base ? base : "", 0);
	hk_buf_printf(&id, "timeout=%s%cprofile=%s%cuser=%s%citem-timeout=%ld%c",
		      o->timeout ? o->timeout : "", 0, o->profile ? o->profile : "", 0,
		      o->user ? o->user : "", 0, o->item_timeout, 0);
	if (deb)
		hk_buf_printf(&id, "base=%s%csee=%s%cdecide-probes=%d%cconfirm=%d%c",
			      o->base ? o->base : "", 0, o->see ? o->see : "", 0,
			      o->decide_probes, 0, o->confirm, 0);
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_blake3_update(&h, id.data, id.len);
	uint8_t d[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, d, sizeof(d));
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	hk_hex(d, sizeof(d), hex);
	hk_buf_free(&id);
	return hk_xasprintf("%s/%s.json", sr->records, hex);
}

/* Takes the item from its record when there is one (a one-item harkaq.sweep.v1 document). */
static bool try_resume(struct hk_sweep_item *it, const char *record)
{
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error e;
	struct hk_sweep_doc one;
	bool ok = access(record, F_OK) == 0 && hk_file_read(record, &text, &e) == 0 &&
		  hk_sweep_doc_parse(hk_buf_str(&text), text.len, record, &one, &e) == 0;
	hk_buf_free(&text);
	if (!ok)
		return false;
	if (one.n_items != 1 || strcmp(one.items[0].key, it->key) != 0) {
		hk_sweep_doc_free(&one);
		return false;
	}
	hk_sweep_item_free(it);
	*it = one.items[0];
	memset(&one.items[0], 0, sizeof(one.items[0]));
	hk_sweep_doc_free(&one);
	it->resumed = true;
	return true;
}

static void write_record(const struct sweep_run *sr, struct hk_sweep_item *it,
			 const char *record)
{
	struct hk_sweep_doc one = { .catalogue_size = 1, .items = it, .n_items = 1 };
	memcpy(one.catalogue_id, sr->d.catalogue_id, HK_B3_ID_LEN);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_sweep_doc_json(&one, true, &j);
	hk_buf_putc(&b, '\n');
	struct hk_error e;
	if (hk_file_write_atomic(record, b.data, b.len, 0644, &e) < 0 && !sr->o->quiet)
		fprintf(stderr, "harkaq sweep: %s (the item will be built again on resume)\n",
			e.msg);
	hk_buf_free(&b);
}

/* An item's identity for its record: its content, and the base it builds on. */
static void item_identity(const struct sweep_run *sr, const struct hk_sweep_item *it,
			  enum item_kind k, const struct hk_recipe *r, char **content, char **base)
{
	if (k == ITEM_RECIPE) {
		*content = it->recipe_hash ? hk_xstrdup(it->recipe_hash) : NULL;
		const struct hk_artifact *a = NULL;
		struct hk_error e;
		if (r->base_kind == HK_BASE_STORE && sr->store &&
		    hk_base_find(sr->store, r->base, &a, &e) == 0)
			*base = hk_xstrdup(a->id);
		else
			*base = sweep_base_root_of(sr->store, r);
		return;
	}
	*base = hk_xstrdup(sr->deb_base ? sr->deb_base : "");
	if (k == ITEM_PIN) {
		*content = hk_xstrdup(it->key);
		return;
	}
	/* The .dsc pins every file of the source by its checksum. */
	char sha[HK_SHA256_HEX_LEN];
	struct hk_error e;
	*content = hk_sha256_file(it->key, sha, &e) == 0 ? hk_xstrdup(sha) : NULL;
}

/* Starts builds while there are slots and items: a recipe checked first (preflight), an item
 * an earlier run finished taken from its record, the others built each by its own child. */
static void start_jobs(struct sweep_run *sr)
{
	struct hk_sweep_doc *d = &sr->d;
	while (!hk_interrupted() && sr->n_jobs < sr->o->jobs && sr->next < d->n_items) {
		struct hk_sweep_item *it = &d->items[sr->next];
		size_t pos = sr->positions[sr->next];
		sr->next++;
		enum item_kind k = item_kind(sr, it->key);
		struct hk_recipe r;
		memset(&r, 0, sizeof(r));
		if (k == ITEM_RECIPE && !sweep_job_preflight(it, sr->store, sr->store_dir, &r)) {
			sr->done++;
			char *line = hk_xasprintf("%s: failed (%s)", it->name ? it->name : it->key,
						  it->fail_code);
			progress(sr, line);
			free(line);
			continue;
		}
		hk_autofree char *content = NULL;
		hk_autofree char *base = NULL;
		hk_autofree char *record = NULL;
		if (sr->records) {
			item_identity(sr, it, k, &r, &content, &base);
			record = record_path(sr, it->key, k != ITEM_RECIPE, content, base);
		}
		if (record && try_resume(it, record)) {
			if (k == ITEM_RECIPE)
				hk_recipe_free(&r);
			sr->done++;
			sr->resumed++;
			char *line = hk_xasprintf("%s: %s (resumed: built by an earlier run)",
						  it->name ? it->name : it->key,
						  hk_sweep_outcome_label(it->outcome));
			progress(sr, line);
			free(line);
			continue;
		}
		struct sweep_job *jb = &sr->jobs[sr->n_jobs];
		memset(jb, 0, sizeof(*jb));
		jb->item = (size_t)(it - d->items);
		jb->record = record;
		record = NULL;
		hk_autofree char *slug = sweep_file_slug(pos, it->key);
		jb->result_path = hk_xasprintf("%s/%s.json", sr->builds, slug);
		jb->log_path = hk_xasprintf("%s/%s.log", sr->logs, slug);
		/* An item's failure to start, said in its reason; the sweep goes on. */
		struct hk_error item_err = { 0 };
		/* A result an earlier run left at this path would be read as this build's. */
		if (unlink(jb->result_path) < 0 && errno != ENOENT) {
			hk_fail_errno(&item_err, errno, "removing the earlier %s", jb->result_path);
			if (k == ITEM_RECIPE)
				hk_recipe_free(&r);
			jb->pid = -1;
		} else if (k == ITEM_RECIPE) {
			jb->abs_recipe = r.path ? hk_xstrdup(r.path) : NULL;
			jb->base_root = sweep_base_root_of(sr->store, &r);
			hk_recipe_free(&r);
			jb->pid = sweep_job_spawn_build(jb, sr->self, sr->o, sr->store_dir, it->key,
							&item_err);
		} else {
			jb->deb = true;
			jb->workdir = hk_xasprintf("%s/%s", sr->items_dir, slug);
			const struct sweep_deb_job dj = {
				.o = sr->o, .key = it->key, .pin = k == ITEM_PIN,
				.sources = sr->sources, .store_dir = sr->store_dir,
				.result_path = jb->result_path, .workdir = jb->workdir,
			};
			jb->t0 = hk_now_ms();
			sweep_job_remove_workdir(jb);
			if (make_reachable_dir(jb->workdir, &item_err) < 0 ||
			    hk_mkdir_p(sr->sources, &item_err) < 0)
				jb->pid = -1;
			else
				jb->pid = sweep_job_spawn_deb(jb, &dj, &item_err);
		}
		if (jb->pid < 0) {
			/* Said as a build's reason is (finish_job): the same on every machine. */
			hk_autofree char *why = sweep_clean_reason(item_err.msg, sr->work, NULL, it->key);
			hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_SETUP, why);
			sweep_job_remove_workdir(jb);
			sweep_job_free(jb);
			sr->done++;
			continue;
		}
		if (!sr->scratch) {
			free(it->log);
			it->log = hk_xstrdup(jb->log_path);
		}
		sr->n_jobs++;
	}
}

/* The wall-clock limit per item: SIGTERM when it runs out (the build stops cleanly: its
 * sandbox killed, its work directory removed, nothing sealed), SIGKILL to its whole process
 * group if it has not stopped 30 s later. */
#define ITEM_GRACE_MS 30000

static void enforce_limits(struct sweep_run *sr)
{
	if (!sr->o->item_timeout)
		return;
	long long now = hk_now_ms();
	for (size_t i = 0; i < sr->n_jobs; i++) {
		struct sweep_job *jb = &sr->jobs[i];
		if (!jb->term_at && now - jb->t0 >= sr->o->item_timeout * 1000) {
			kill(jb->pid, SIGTERM);
			jb->term_at = now;
		} else if (jb->term_at && !jb->killed && now - jb->term_at >= ITEM_GRACE_MS) {
			kill(-jb->pid, SIGKILL);
			jb->killed = true;
		}
	}
}

/* Reaps one finished build, if any, and reads its result.  Returns whether one was reaped. */
static bool reap_job(struct sweep_run *sr)
{
	int status;
	pid_t pid = waitpid(-1, &status, WNOHANG);
	if (pid <= 0)
		return false;
	for (size_t i = 0; i < sr->n_jobs; i++) {
		struct sweep_job *jb = &sr->jobs[i];
		if (jb->pid != pid)
			continue;
		/* Whatever the build left running in its process group goes with it. */
		kill(-jb->pid, SIGKILL);
		struct hk_sweep_item *it = &sr->d.items[jb->item];
		sweep_job_finish(jb, status, sr->work, it);
		/* Stopped by the sweep's own stop (the SIGTERM it passed on): whatever the build
		 * said, it was cut short, not measured. */
		if (hk_interrupted() && !jb->term_at && it->fail_code) {
			hk_autofree char *r = hk_xasprintf("the sweep was interrupted (signal %d) "
							   "while this item was being built",
							   hk_interrupted());
			hk_sweep_item_fail(it, NULL, HK_SWEEP_FAIL_INTERRUPTED, r);
		}
		sweep_job_remove_workdir(jb);
		/* A build the sweep's own stop interrupted is not finished, nor one a signal sent to
		 * it stopped (its result names the signal), nor is one that could
		 * not fetch (the mirror may answer next time) or whose process died: those are
		 * built again on resume. */
		if (jb->record && !hk_interrupted() && !it->stopped_by &&
		    it->outcome != HK_SWEEP_FETCH_FAILED &&
		    !(it->fail_code && strcmp(it->fail_code, HK_SWEEP_FAIL_CRASH) == 0))
			write_record(sr, it, jb->record);
		sweep_job_free(jb);
		sr->jobs[i] = sr->jobs[--sr->n_jobs];
		sr->done++;
		sr->built++;
		char *line = hk_xasprintf("%s: %s (%.1f s)", it->name ? it->name : it->key,
					  hk_sweep_outcome_label(it->outcome), (double)it->ms / 1000.0);
		progress(sr, line);
		free(line);
		break;
	}
	return true;
}

/* Builds every item, --jobs at a time.  A stop signal is passed on to the running builds
 * (each stops cleanly on SIGTERM: its work directory removed, nothing half-sealed), and the
 * recipes it kept from running are reported, not dropped. */
static void run_builds(struct sweep_run *sr)
{
	tty_progress = isatty(2);

	/* A finished build is reaped when it ends, not at the next tick of a poll: SIGCHLD is
	 * blocked and waited for (at most 200 ms, for the progress line).  A child that ends
	 * between the reap and the wait leaves it pending, so the wait returns at once. */
	sigset_t chld, saved;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &saved);
	sr->t0 = hk_now_ms();
	sr->last_beat = sr->t0;
	if (!sr->o->quiet) {
		fprintf(stderr, "[sweep] %zu item(s)%s, %u at a time, store %s\n", sr->d.n_items,
			sr->d.shard_count ? " in this shard" : "", sr->o->jobs,
			sr->store_dir ? sr->store_dir : "(none)");
		if (sr->records)
			fprintf(stderr, "[sweep] finished items are recorded in %s (code %.19s…): "
					"an interrupted sweep run again resumes from them\n",
				sr->records, sr->code_id);
	}
	sr->jobs = hk_xcalloc(sr->o->jobs + 1, sizeof(*sr->jobs));
	bool forwarded = false;
	while (sr->next < sr->d.n_items || sr->n_jobs > 0) {
		if (hk_interrupted() && !forwarded) {
			for (size_t i = 0; i < sr->n_jobs; i++)
				kill(sr->jobs[i].pid, SIGTERM);
			forwarded = true;
		}
		start_jobs(sr);
		if (sr->n_jobs == 0) {
			if (hk_interrupted())
				break;
			continue;
		}
		enforce_limits(sr);
		if (!reap_job(sr)) {
			progress(sr, NULL);
			const struct timespec ts = { 0, 200 * 1000 * 1000 };
			sigtimedwait(&chld, NULL, &ts);
		}
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (tty_progress && !sr->o->quiet)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < sr->d.n_items; i++)
		if (sr->d.items[i].n_phases == 0 && !sr->d.items[i].fail_code) {
			char *msg = hk_xasprintf("the sweep was interrupted (signal %d) before this "
						 "item was built", hk_interrupted());
			hk_sweep_item_fail(&sr->d.items[i], NULL, HK_SWEEP_FAIL_INTERRUPTED, msg);
			free(msg);
		}
	sr->d.interrupted = hk_interrupted();
	sr->d.elapsed_ms = hk_now_ms() - sr->t0;
}

/* What an interrupted sweep returns, once its result is written (or could not be): the signal,
 * how many items it stopped or kept from running, and whether a run again resumes. */
static int interrupted(const struct sweep_run *sr, int sig, bool written, struct hk_error *err)
{
	size_t stopped = 0;
	for (size_t i = 0; i < sr->d.n_items; i++)
		stopped += sr->d.items[i].fail_code &&
			   strcmp(sr->d.items[i].fail_code, HK_SWEEP_FAIL_INTERRUPTED) == 0;
	if (!written) {
		/* err holds why the result was not written: said after the signal. */
		char why[HK_ERROR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", err->msg);
		return hk_fail_interrupted(err, sig, "interrupted by signal %d (%s), and its result "
					   "could not be written: %s", sig, strsignal(sig), why);
	}
	return hk_fail_interrupted(err, sig, "interrupted by signal %d (%s): %zu of %zu item(s) "
				   "stopped or not built, in the result as not built (interrupted)%s",
				   sig, strsignal(sig), stopped, sr->d.n_items,
				   sr->records ? "; the same command run again resumes" : "");
}

int sweep_run(char **args, size_t n_args, const struct sweep_opts *o, struct hk_error *err)
{
	/* A --user that names nobody is the command line's error, said before anything is made
	 * (each build would refuse it alike). */
	uid_t uid;
	gid_t gid;
	if (o->user && hk_resolve_user(o->user, &uid, &gid, err) < 0)
		return hk_error_set_class(err, HK_ERROR_USAGE);
	/* --out first: a directory that cannot be made is said before any recipe is looked
	 * for.  The machine's refusal, whatever the errno (ENOENT: a parent it could not make). */
	if (o->out_dir && !o->list && sweep_mkdir_p(o->out_dir, err) < 0)
		return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	struct sweep_run sr = { .o = o, .err = err };
	int rc = collect_items(&sr, args, n_args);
	if (rc == 0 && o->list) {
		for (size_t i = 0; i < sr.d.n_items; i++)
			printf("%s\n", sr.d.items[i].key);
		fflush(stdout);
		fprintf(stderr, "catalogue %s: %zu item(s)", sr.d.catalogue_id, sr.d.catalogue_size);
		if (sr.d.shard_count)
			fprintf(stderr, "; shard %u/%u: %zu", sr.d.shard_index, sr.d.shard_count,
				sr.d.n_items);
		fputc('\n', stderr);
		release_sweep(&sr);
		return HK_OUTCOME_OK;
	}
	if (rc == 0)
		rc = open_snapshot(&sr);
	if (rc == 0)
		rc = make_workspace(&sr);
	if (rc < 0) {
		release_sweep(&sr);
		return rc;
	}
	run_builds(&sr);
	/* One classification of every debt path, against the snapshot taken before the first
	 * build; then the snapshot is no longer needed. */
	sweep_classify(&sr.d, sr.cls);
	sweep_classifier_free(sr.cls);
	sr.cls = NULL;
	sr.store = NULL;
	/* Every item has its outcome now: the sweep's own is OK unless its outputs cannot be
	 * written where they were asked for (the machine's refusal, whatever the errno). */
	rc = HK_OUTCOME_OK;
	if (sweep_emit(&sr.d, o, err) < 0)
		rc = hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	if (!sr.scratch && !o->quiet)
		fprintf(stderr, "[sweep] results, logs and build results in %s\n", sr.work);
	if (hk_interrupted())
		rc = interrupted(&sr, hk_interrupted(), rc == HK_OUTCOME_OK, err);
	release_sweep(&sr);
	return rc;
}

int sweep_mkdir_p(const char *path, struct hk_error *err)
{
	return hk_mkdir_p(path, err);
}

/* Writes the outputs every sweep and merge produce. */
int sweep_emit(const struct hk_sweep_doc *d, const struct sweep_opts *o, struct hk_error *err)
{
	if (o->out_dir) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, true, &j);
		hk_buf_putc(&b, '\n');
		hk_autofree char *res = hk_xasprintf("%s/result.json", o->out_dir);
		int rc = hk_file_write_atomic(res, b.data, b.len, 0644, err);
		hk_buf_reset(&b);
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, false, &j);
		hk_buf_putc(&b, '\n');
		hk_autofree char *sum = hk_xasprintf("%s/summary.json", o->out_dir);
		if (rc == 0)
			rc = hk_file_write_atomic(sum, b.data, b.len, 0644, err);
		hk_buf_reset(&b);
		hk_sweep_table(d, &b);
		hk_autofree char *txt = hk_xasprintf("%s/summary.txt", o->out_dir);
		if (rc == 0)
			rc = hk_file_write_atomic(txt, b.data, b.len, 0644, err);
		hk_buf_free(&b);
		if (rc < 0)
			return rc;
	}
	if (o->html) {
		struct hk_buf b = HK_BUF_INIT;
		hk_sweep_html(d, &b);
		int rc = hk_file_write_atomic(o->html, b.data, b.len, 0644, err);
		hk_buf_free(&b);
		if (rc < 0)
			return rc;
	}
	struct hk_buf b = HK_BUF_INIT;
	if (o->json) {
		struct hk_json j;
		hk_json_init(&j, &b, 1);
		hk_sweep_doc_json(d, true, &j);
		hk_buf_putc(&b, '\n');
	} else {
		hk_sweep_table(d, &b);
	}
	fwrite(b.data, 1, b.len, stdout);
	fflush(stdout);
	hk_buf_free(&b);
	return 0;
}
