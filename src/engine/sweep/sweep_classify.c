/* The one classification of debt paths a sweep and a merge share (engine/sweep/sweep.h):
 * the build's own diagnosis over a store snapshot, one suggester per base the recipes stood
 * on (design.md §8, §11). */
#include <string.h>

#include "engine/sweep/sweep_int.h"
#include "engine/store/suggest_source.h"
#include "core/evidence/suggest.h"
#include "core/policy/recipe_file.h"
#include "core/store/base.h"
#include "core/store/store.h"
#include "core/basic/util.h"

/* A debt path is classified by the build's own diagnosis (core/evidence/suggest.h, design.md §8):
 * declarable when an artifact of the store provides it, irreducible otherwise.  It asks a
 * store handle whose path index and symlink map were loaded once (sweep_open_classifier): for
 * a sweep, before the first build, so builds that seal new artifacts do not change the answer;
 * for a merge, the complete store it is given.  No closure is given: "declarable" is "the
 * store provides it". */
static void classify(void *ctx, const char *path, struct hk_sweep_class *out)
{
	struct hk_suggester *sugg = ctx;
	memset(out, 0, sizeof(*out));
	struct hk_diag_item it;
	struct hk_error e;
	if (!sugg || hk_diagnose_path(sugg, path, NULL, &it, &e) < 0)
		return;
	if (it.cls == HK_DIAG_DECLARABLE) {
		out->providers = hk_xcalloc(it.n_providers, sizeof(char *));
		for (size_t i = 0; i < it.n_providers; i++) {
			bool dup = false;
			for (size_t k = 0; k < out->n_providers; k++)
				dup |= strcmp(out->providers[k], it.providers[i].name) == 0;
			if (!dup)
				out->providers[out->n_providers++] = hk_xstrdup(it.providers[i].name);
		}
	}
	hk_diag_item_free(&it);
}

/* The diagnosis a sweep or a merge classifies with: one suggester over the store snapshot for
 * recipes on no known base, and one more per base the recipes stood on, so that a denied file
 * of a base is named with that base's package as the build's own report names it
 * (core/debian/debroot.h). */
struct sweep_classifier {
	struct hk_store *store;
	struct hk_suggester *sugg;
	struct base_sugg {
		char *key;       /* the base's id, or "host" */
		char *root;      /* its tree (owned) */
		struct hk_suggester *sugg;
	} *bases;
	size_t n_bases;
};

static struct hk_suggester *prime(struct hk_suggester *s)
{
	struct hk_diag_item primed;
	struct hk_error e;
	if (hk_diagnose_path(s, "/", NULL, &primed, &e) == 0)
		hk_diag_item_free(&primed);
	return s;
}

/* The suggester for the base `key` whose tree is `root`, made (and primed) on first need. */
static struct hk_suggester *base_suggester(struct sweep_classifier *c, const char *key,
					   const char *root)
{
	for (size_t i = 0; i < c->n_bases; i++)
		if (strcmp(c->bases[i].key, key) == 0)
			return c->bases[i].sugg;
	c->bases = hk_xrealloc(c->bases, (c->n_bases + 1) * sizeof(*c->bases));
	struct base_sugg *b = &c->bases[c->n_bases++];
	b->key = hk_xstrdup(key);
	b->root = hk_xstrdup(root);
	const struct hk_suggest_source source = hk_suggest_source_disk(c->store, b->root);
	const struct hk_suggest_input in = { .source = &source, .sandbox_contract = true };
	b->sugg = prime(hk_suggester_new(&in));
	return b->sugg;
}

/* The suggester for recipes standing on a pinned base of id `id` (found in the classifier's
 * store), on "host", or on anything else (the plain one). */
static struct hk_suggester *suggester_for_base(struct sweep_classifier *c, const char *id,
					       const char *name, bool pinned)
{
	if (pinned && id) {
		const struct hk_artifact *a = NULL;
		struct hk_error e;
		if (hk_store_find(c->store, id, &a, &e) == 0 && a->origin == HK_ORIGIN_BASE)
			return base_suggester(c, a->id, a->path);
	} else if (name && strcmp(name, "host") == 0) {
		return base_suggester(c, "host", "/");
	}
	return c->sugg;
}

void sweep_classify(struct hk_sweep_doc *d, struct sweep_classifier *c)
{
	for (size_t i = 0; i < d->n_items; i++) {
		struct hk_sweep_item *it = &d->items[i];
		struct hk_suggester *s = c ? suggester_for_base(c, it->base_id, it->base_name,
								it->base_pinned)
					   : NULL;
		hk_sweep_classify(it, 1, classify, s);
	}
}

void sweep_classifier_free(struct sweep_classifier *c)
{
	if (!c)
		return;
	hk_suggester_free(c->sugg);
	for (size_t i = 0; i < c->n_bases; i++) {
		hk_suggester_free(c->bases[i].sugg);
		free(c->bases[i].key);
		free(c->bases[i].root);
	}
	free(c->bases);
	if (c->store)
		hk_store_close(c->store);
	free(c);
}

struct hk_store *sweep_classifier_store(const struct sweep_classifier *c)
{
	return c ? c->store : NULL;
}

int sweep_open_classifier(const char *store_dir, struct sweep_classifier **out,
			  struct hk_error *err)
{
	struct sweep_classifier *c = hk_xcalloc(1, sizeof(*c));
	*out = c;
	const struct hk_artifact **p = NULL;
	size_t np = 0;
	int rc = hk_store_open(store_dir, false, &c->store, err);
	if (rc < 0)
		return rc;
	rc = hk_store_providers(c->store, "/", &p, &np, err);
	if (rc < 0)
		return rc;
	free(p);
	const struct hk_suggest_source source = hk_suggest_source_disk(c->store, NULL);
	const struct hk_suggest_input in = { .source = &source, .sandbox_contract = true };
	c->sugg = hk_suggester_new(&in);
	struct hk_diag_item primed;
	rc = hk_diagnose_path(c->sugg, "/", NULL, &primed, err);
	if (rc < 0)
		return rc;
	hk_diag_item_free(&primed);
	return 0;
}

/* The tree a recipe's base is: a pinned base's in the store, a root: directory, or "/". */
char *sweep_base_root_of(struct hk_store *store, const struct hk_recipe *r)
{
	if (r->base_kind == HK_BASE_ROOT)
		return hk_xstrdup(r->base_root);
	const struct hk_artifact *a = NULL;
	struct hk_error e;
	if (r->base_kind == HK_BASE_STORE && store && hk_base_find(store, r->base, &a, &e) == 0)
		return hk_xstrdup(a->path);
	return hk_xstrdup("/");
}

/* Before any build seals anything into the store: the suggester of every base the recipes
 * name, so that builds of this sweep cannot change a classification. */
void sweep_prime_bases(struct sweep_classifier *c, const struct hk_sweep_doc *d)
{
	for (size_t i = 0; c && i < d->n_items; i++) {
		struct hk_recipe r;
		struct hk_error e;
		if (d->items[i].deb || hk_recipe_load(d->items[i].key, &r, &e) < 0)
			continue;
		const struct hk_artifact *a = NULL;
		if (r.base_kind == HK_BASE_STORE && hk_base_find(c->store, r.base, &a, &e) == 0)
			base_suggester(c, a->id, a->path);
		else if (r.base_kind == HK_BASE_HOST)
			base_suggester(c, "host", "/");
		hk_recipe_free(&r);
	}
}
