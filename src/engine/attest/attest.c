/* The attestations of `harkaq build`: what goes into the two Statements, gathered from the
 * build result, the store and the files on disk; the core (core/attest/intoto.c) writes them. */
#include "engine/attest/attest.h"
#include "core/debian/debexpect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "engine/common/version.h"
#include "core/basic/blake3.h"
#include "core/attest/dsse.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"

int hk_attest_begin(struct hk_attest_ctx *ctx, const char *key_path, struct hk_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->started_on = time(NULL);
	if (hk_crypto_init(err) < 0)
		return hk_error_set_class(err, HK_ERROR_ENVIRONMENT);
	if (!key_path)
		return 0;
	/* The key is the user's: one that is refused or cannot be read is bad input. */
	if (hk_key_load_secret(key_path, &ctx->key, err) < 0)
		return hk_error_set_class(err, HK_ERROR_INPUT);
	ctx->have_key = true;
	return 0;
}

void hk_attest_end(struct hk_attest_ctx *ctx)
{
	hk_sign_key_wipe(&ctx->key);
	ctx->have_key = false;
}

struct hk_base_identity hk_attest_base_of(const struct hk_build_result *br)
{
	/* A pinned base is named by its id (docs/bases.md); "host" and "root:PATH" are not
	 * content-addressed: their identity is the recipe's text, and they are not pinned. */
	if (br->plan_ok && br->plan.base.pinned)
		return (struct hk_base_identity){ .id = br->plan.base.id,
						  .name = br->plan.base.name, .pinned = true };
	return (struct hk_base_identity){ .id = br->recipe.base, .name = br->recipe.base,
					  .pinned = false };
}

void hk_attest_envelope(const struct hk_sign_key *key, const void *payload, size_t n,
			struct hk_buf *out)
{
	struct hk_dsse_envelope env = { 0 };
	env.payload_type = hk_xstrdup(HK_DSSE_INTOTO_TYPE);
	env.payload = (uint8_t *)hk_xmemdupz(payload, n);
	env.payload_len = n;
	if (key) {
		struct hk_buf pae = HK_BUF_INIT;
		hk_dsse_pae(env.payload_type, strlen(env.payload_type), payload, n, &pae);
		uint8_t sig[HK_ED25519_SIG_LEN];
		hk_sign(key, pae.data, pae.len, sig);
		hk_dsse_add_sig(&env, key->keyid, sig, sizeof(sig));
		hk_buf_free(&pae);
	}
	hk_dsse_encode(&env, out);
	hk_dsse_free(&env);
}

/* A closure artifact as a resolved dependency: an imported Debian package by its purl and the
 * digests of its .deb (those of the archive's index); any other artifact by its store name. */
static void dep_resource(const struct hk_artifact *a, struct hk_resource *r, char **uri,
			 char **annotations)
{
	memset(r, 0, sizeof(*r));
	r->name = a->dirname;
	struct hk_jval *meta = NULL;
	struct hk_error e;
	const struct hk_jval *src = NULL;
	if (a->meta_json && hk_json_parse(a->meta_json, strlen(a->meta_json), &meta, &e) == 0)
		src = hk_jobj_get(meta, "source");
	const char *type = hk_jobj_str(src, "type");
	if (type && strcmp(type, "deb") == 0 && hk_jobj_str(src, "package") &&
	    hk_jobj_str(src, "version") && hk_jobj_str(src, "architecture")) {
		*uri = hk_purl_deb(hk_jobj_str(src, "package"), hk_jobj_str(src, "version"),
				   hk_jobj_str(src, "architecture"));
		const char *sha = hk_jobj_str(src, "sha256"), *b3 = hk_jobj_str(src, "blake3");
		if (sha && strlen(sha) == 64)
			snprintf(r->sha256, sizeof(r->sha256), "%s", sha);
		if (b3 && strlen(b3) == 64)
			snprintf(r->blake3, sizeof(r->blake3), "%s", b3);
	} else {
		*uri = hk_xasprintf("harkaq:artifact:%s", a->dirname);
	}
	r->uri = *uri;
	if (strncmp(a->tree_id, "b3:", 3) == 0)
		snprintf(r->tree, sizeof(r->tree), "%s", a->tree_id + 3);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "harkaqArtifactId", a->id);
	hk_json_kv_bool(&j, "sealed", a->sealed);
	hk_json_obj_end(&j);
	*annotations = hk_buf_steal(&b);
	r->annotations_json = *annotations;
	hk_jval_free(meta);
}

/* The recipe's source, with the digest it was checked against or, for a directory, the tree
 * hash of the directory as it is now. */
static int source_resource(const struct hk_recipe *rc, struct hk_resource *r, char **uri,
			   struct hk_error *err)
{
	memset(r, 0, sizeof(*r));
	r->name = "source";
	switch (rc->source.kind) {
	case HK_SOURCE_DIR: {
		struct hk_tree t = HK_TREE_INIT;
		if (hk_tree_scan(rc->source.path, &t, err) < 0)
			return hk_wrap(err, "hashing the source directory");
		hk_hex(t.root, sizeof(t.root), r->tree);
		hk_tree_free(&t);
		*uri = hk_xasprintf("file:%s", rc->source.spec);
		break;
	}
	case HK_SOURCE_TARBALL:
		if (hk_sha256_file(rc->source.path, r->sha256, err) < 0)
			return -err->code;
		if (rc->source.hash_algo == HK_HASH_B3)
			snprintf(r->blake3, sizeof(r->blake3), "%s", rc->source.hash_hex);
		*uri = hk_xasprintf("file:%s", rc->source.spec);
		break;
	case HK_SOURCE_APT:
		*uri = hk_purl_deb(rc->source.apt_package, rc->source.apt_version, "source");
		break;
	}
	r->uri = *uri;
	return 0;
}

/* What the two Statements of one build are made of, gathered step by step, and everything
 * they point into (freed by parts_free). */
struct attest_parts {
	struct hk_attest_input in;
	struct hk_tree files;                  /* the artifact's manifest: the subjects' names */
	struct hk_resource *subjects;
	struct hk_resource *deps;
	struct hk_resource *source_files;      /* a .dsc's files */
	struct hk_strv owned;                  /* strings the resources point into */
	struct hk_buf recipe_bytes;
	struct hk_phase_evidence phases[HK_PHASE_COUNT];
	struct utsname uts;
};

static void parts_free(struct attest_parts *p)
{
	hk_tree_free(&p->files);
	free(p->subjects);
	free(p->deps);
	free(p->source_files);
	hk_strv_free(&p->owned);
	hk_buf_free(&p->recipe_bytes);
}

/* Subjects: every regular file of the sealed artifact, as the manifest records it, with its
 * SHA-256 read from the store. */
static int gather_subjects(struct attest_parts *p, struct hk_store *store,
			   const char *artifact_dir, struct hk_error *err)
{
	const struct hk_artifact *art = NULL;
	if (hk_store_find(store, artifact_dir, &art, err) < 0 ||
	    hk_store_files(store, art, &p->files, err) < 0)
		return hk_wrap(err, "attesting %s", artifact_dir);
	p->subjects = hk_xcalloc(p->files.n + 1, sizeof(*p->subjects));
	size_t n = 0;
	for (size_t i = 0; i < p->files.n; i++) {
		const struct hk_tree_entry *e = &p->files.entries[i];
		if (e->type != HK_TREE_FILE)
			continue;
		struct hk_resource *s = &p->subjects[n++];
		s->name = e->path;
		hk_hex(e->digest, sizeof(e->digest), s->blake3);
		hk_autofree char *path = hk_xasprintf("%s/%s", art->path, e->path);
		if (hk_sha256_file(path, s->sha256, err) < 0)
			return -err->code;
	}
	if (n == 0)
		return hk_fail(err, EINVAL, "%s holds no regular file: an attestation needs a "
					    "subject", artifact_dir);
	p->in.subjects = p->subjects;
	p->in.n_subjects = n;
	return 0;
}

/* The recipe: its name, version and hash, and the file itself, inline with its digests. */
static int gather_recipe(struct attest_parts *p, const struct hk_build_result *br,
			 struct hk_error *err)
{
	const struct hk_recipe *rc = &br->recipe;
	p->in.recipe_name = rc->name;
	p->in.recipe_version = rc->version;
	p->in.recipe_hash = br->recipe_hash;
	if (!rc->path)
		return 0;
	if (hk_file_read(rc->path, &p->recipe_bytes, err) < 0)
		return -err->code;
	const char *bytes = hk_buf_str(&p->recipe_bytes);
	size_t len = p->recipe_bytes.len;
	const char *slash = strrchr(rc->path, '/');
	p->in.recipe.name = slash ? slash + 1 : rc->path;
	hk_sha256_hex(bytes, len, p->in.recipe.sha256);
	uint8_t b3[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(bytes, len, b3);
	hk_hex(b3, sizeof(b3), p->in.recipe.blake3);
	p->in.recipe.content = bytes;
	p->in.recipe.content_len = len;
	p->in.recipe.media_type = "application/toml";
	return 0;
}

/* The resolved dependencies: the closure (deps first), then the base; and the source. */
static int gather_deps(struct attest_parts *p, struct hk_store *store,
		       const struct hk_build_result *br, struct hk_error *err)
{
	size_t n_closure = br->plan_ok ? br->plan.n_closure : 0;
	p->deps = hk_xcalloc(n_closure + 2, sizeof(*p->deps));
	size_t n = 0;
	for (size_t i = 0; i < n_closure; i++) {
		const struct hk_artifact *d = NULL;
		if (hk_store_find(store, br->plan.closure_names[i], &d, err) < 0)
			return hk_wrap(err, "attesting the closure");
		char *uri = NULL, *annotations = NULL;
		dep_resource(d, &p->deps[n++], &uri, &annotations);
		hk_strv_push_owned(&p->owned, uri);
		hk_strv_push_owned(&p->owned, annotations);
	}
	char *base_uri = hk_xasprintf("harkaq:base:%s", p->in.base.id);
	hk_strv_push_owned(&p->owned, base_uri);
	p->deps[n].name = "base";
	p->deps[n].uri = base_uri;
	p->deps[n].annotations_json = p->in.base.pinned ? "{\"pinned\":true}"
							: "{\"pinned\":false}";
	n++;
	p->in.deps = p->deps;
	p->in.n_deps = n;
	char *source_uri = NULL;
	int r = source_resource(&br->recipe, &p->in.source, &source_uri, err);
	if (source_uri)
		hk_strv_push_owned(&p->owned, source_uri);
	return r;
}

/* How the build ran: policy, base, cage and ABI, versions, times, and each phase's evidence. */
static void gather_run(struct attest_parts *p, const struct hk_attest_ctx *ctx,
		       const struct hk_build_opts *bo, const struct hk_build_result *br)
{
	struct hk_attest_input *in = &p->in;
	in->policy_id = br->plan_ok ? br->plan.policy_id : NULL;
	in->profile = bo->profile;
	in->caged = br->cage;
	for (size_t i = 0; i < br->n_phases; i++)
		if (br->phases[i].has_verdict) {
			in->abi = br->phases[i].verdict.abi;
			in->kernel_abi = br->phases[i].verdict.kernel_abi;
			break;
		}
	in->harkaq_version = HK_VERSION;
	in->kernel_release = uname(&p->uts) == 0 ? p->uts.release : NULL;
	/* The invocation is the build's work directory nonce (its progress lines name it). */
	const char *nonce = br->work ? strrchr(br->work, '-') : NULL;
	in->invocation_id = nonce ? nonce + 1 : NULL;
	in->started_on = ctx->started_on;
	in->finished_on = time(NULL);
	in->artifact_id = br->artifact_id;
	in->artifact_dirname = br->artifact_dir;
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		struct hk_phase_evidence *ph = &p->phases[i];
		memset(ph, 0, sizeof(*ph));
		ph->phase = pr->label;
		if (pr->evidence.len > 0) {
			ph->evidence = pr->evidence.data;
			ph->evidence_len = pr->evidence.len;
			hk_sha256_hex(pr->evidence.data, pr->evidence.len, ph->evidence_sha256);
			ph->evidence_id = pr->evidence_id[0] ? pr->evidence_id : NULL;
		}
	}
	in->phases = p->phases;
	in->n_phases = br->n_phases;
}

/* Writes both envelopes into STORE/.attestations/<dirname>/, *path_p and *path_v (the
 * caller's to free): both or neither. */
static int write_envelopes(struct hk_store *store, const char *artifact_dir,
			   const struct hk_buf *env_p, const struct hk_buf *env_v, char **path_p,
			   char **path_v, struct hk_error *err)
{
	hk_autofree char *adir = hk_xasprintf("%s/%s", hk_store_dir(store), HK_ATTEST_DIR);
	hk_autofree char *dir = hk_xasprintf("%s/%s", adir, artifact_dir);
	if ((mkdir(adir, 0755) < 0 && errno != EEXIST) || (mkdir(dir, 0755) < 0 && errno != EEXIST))
		return hk_fail_errno(err, errno, "creating %s", dir);
	*path_p = hk_xasprintf("%s/provenance.dsse.json", dir);
	*path_v = hk_xasprintf("%s/verdict.dsse.json", dir);
	/* Both written (and synced) before either is renamed: a failed write leaves the previous
	 * pair as it was. */
	hk_autofree char *tmp_p = NULL, *tmp_v = NULL;
	int w = hk_file_write_temp(dir, env_p->data, env_p->len, 0644, HK_FILE_SYNC, &tmp_p,
				   err);
	if (w == 0)
		w = hk_file_write_temp(dir, env_v->data, env_v->len, 0644, HK_FILE_SYNC, &tmp_v,
				       err);
	if (w == 0 && rename(tmp_p, *path_p) < 0)
		w = hk_fail_errno(err, errno, "renaming %s", tmp_p);
	if (w == 0 && rename(tmp_v, *path_v) < 0) {
		w = hk_fail_errno(err, errno, "renaming %s", tmp_v);
		unlink(*path_p);
	}
	if (w < 0) {
		if (tmp_p)
			unlink(tmp_p);
		if (tmp_v)
			unlink(tmp_v);
		return hk_wrap(err, "writing the attestations");
	}
	return 0;
}

/* Both Statements of `p`, signed with the context's key (if any), written next to the store;
 * the [attest] lines unless --quiet.  Returns 0 or -errno with err. */
static int sign_and_write(const struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
			  const struct hk_build_result *br, const struct attest_parts *p,
			  struct hk_error *err)
{
	struct hk_buf prov = HK_BUF_INIT, verd = HK_BUF_INIT;
	struct hk_buf env_p = HK_BUF_INIT, env_v = HK_BUF_INIT;
	hk_autofree char *path_p = NULL, *path_v = NULL;
	const struct hk_sign_key *key = ctx->have_key ? &ctx->key : NULL;
	hk_intoto_provenance(&p->in, &prov);
	hk_intoto_verdict(&p->in, &verd);
	hk_attest_envelope(key, prov.data, prov.len, &env_p);
	hk_attest_envelope(key, verd.data, verd.len, &env_v);
	int r = write_envelopes(br->store, br->artifact_dir, &env_p, &env_v, &path_p, &path_v,
				err);
	if (r == 0 && !bo->quiet)
		fprintf(stderr, "[attest] %s\n[attest] %s%s%s\n", path_p, path_v,
			key ? "\n[attest] signed by key " : " (unsigned: no --key)",
			key ? key->keyid : "");
	hk_buf_free(&prov);
	hk_buf_free(&verd);
	hk_buf_free(&env_p);
	hk_buf_free(&env_v);
	return r;
}

int hk_attest_build(struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
		    const struct hk_build_result *br, struct hk_error *err)
{
	if (br->artifact_id[0] && !br->artifact_stored && ctx->have_key && !bo->quiet)
		fprintf(stderr, "[attest] nothing attested: the artifact was not stored\n");
	if (!br->artifact_id[0] || !br->artifact_dir || !br->store)
		return 0;
	struct attest_parts p = { .files = HK_TREE_INIT, .owned = HK_STRV_INIT,
				  .recipe_bytes = HK_BUF_INIT };
	p.in.base = hk_attest_base_of(br);
	int r = gather_subjects(&p, br->store, br->artifact_dir, err);
	if (r == 0)
		r = gather_recipe(&p, br, err);
	if (r == 0)
		r = gather_deps(&p, br->store, br, err);
	if (r == 0) {
		gather_run(&p, ctx, bo, br);
		r = sign_and_write(ctx, bo, br, &p, err);
	}
	parts_free(&p);
	/* The artifact is sealed and the build's verdicts stand: what fails now is writing the
	 * attestations, never the input. */
	return r < 0 ? hk_error_set_class(err, HK_ERROR_ENVIRONMENT) : 0;
}

/* ---- a Debian build (harkaq build --dsc) ------------------------------------------------- */

/* The expectation set the Debian verdicts were given against, named by its version: the one
 * place that names it in the attestations.  A Debian build has no versioned expectation set
 * yet, so the Statement says null. */
static const char *dsc_expected_set(const struct hk_dsc_result *r)
{
	/* The built-in set by its version, and whether the package added its own (its lines are
	 * the .dsc's to pin: debian/harkaq-expect is inside the source the .dsc hashes). */
	return r->expect_package_file ? HK_DEB_EXPECT_VERSION " + debian/harkaq-expect"
				      : HK_DEB_EXPECT_VERSION;
}

/* externalParameters: what was asked for — the .dsc (by its purl and the SHA-256 of its
 * bytes), the build, its options and profiles, the base by name. */
static char *dsc_external_json(const struct hk_dsc_result *r)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "dsc");
	hk_json_obj_begin(&j);
	const char *slash = strrchr(r->dsc_path, '/');
	hk_json_kv_bytes(&j, "name", slash ? slash + 1 : r->dsc_path,
			 strlen(slash ? slash + 1 : r->dsc_path));
	hk_autofree char *purl = hk_purl_deb(r->dsc.source, r->dsc.version, "source");
	hk_json_kv_str(&j, "uri", purl);
	hk_json_key(&j, "digest");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "sha256", r->dsc_sha256);
	hk_json_obj_end(&j);
	hk_json_kv_str(&j, "source", r->dsc.source);
	hk_json_kv_str(&j, "version", r->dsc.version);
	hk_json_kv_str(&j, "format", r->dsc.format);
	hk_json_kv_bool(&j, "signed", r->dsc.signed_);
	hk_json_obj_end(&j);
	hk_json_kv_str(&j, "build", hk_dsc_mode_name(r->mode));
	hk_json_kv_str(&j, "buildOptions", r->build_options);
	hk_json_kv_str(&j, "buildProfiles", r->profiles);
	hk_json_kv_str(&j, "sourceDateEpoch", r->source_date_epoch);
	hk_json_kv_str(&j, "base", r->base_name);
	hk_json_obj_end(&j);
	return hk_buf_steal(&b);
}

/* The recipe harkaq made for the engine, inline in its canonical form (core/policy/recipe.h: the
 * bytes its hash is taken over), with its digests. */
static void dsc_recipe(struct attest_parts *p, const struct hk_dsc_result *r)
{
	const struct hk_build_result *br = &r->build;
	p->in.recipe_name = br->recipe.name;
	p->in.recipe_version = br->recipe.version;
	p->in.recipe_hash = br->recipe_hash;
	if (!r->recipe_made)
		return;
	struct hk_buf canon = HK_BUF_INIT;
	hk_recipe_canonical(&r->recipe, &canon);
	char *text = hk_buf_steal(&canon);
	hk_strv_push_owned(&p->owned, text);
	size_t len = strlen(text);
	p->in.recipe.name = "recipe.canonical";
	hk_sha256_hex(text, len, p->in.recipe.sha256);
	uint8_t b3[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(text, len, b3);
	hk_hex(b3, sizeof(b3), p->in.recipe.blake3);
	p->in.recipe.content = text;
	p->in.recipe.content_len = len;
	p->in.recipe.media_type = "text/plain; charset=utf-8";
}

/* resolvedDependencies: the closure apt resolved, each .deb by its purl and the SHA-256 the
 * archive's Packages index lists (recorded when it was downloaded and imported); the dpkg
 * state; the base by id with the base packages the build declared; then the .dsc and the
 * files it lists, with the SHA-256 it gives them (checked before the build). */
static int dsc_deps(struct attest_parts *p, struct hk_store *store, const struct hk_dsc_result *r,
		    struct hk_error *err)
{
	p->deps = hk_xcalloc(r->n_closure + 2, sizeof(*p->deps));
	size_t n = 0;
	for (size_t i = 0; i < r->n_closure + (r->state_id ? 1 : 0); i++) {
		const char *id = i < r->n_closure ? r->closure[i].id : r->state_id;
		const struct hk_artifact *a = NULL;
		if (hk_store_find(store, id, &a, err) < 0)
			return hk_wrap(err, "attesting the closure");
		char *uri = NULL, *annotations = NULL;
		dep_resource(a, &p->deps[n++], &uri, &annotations);
		hk_strv_push_owned(&p->owned, uri);
		hk_strv_push_owned(&p->owned, annotations);
	}
	char *base_uri = hk_xasprintf("harkaq:base:%s", p->in.base.id);
	hk_strv_push_owned(&p->owned, base_uri);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_json_kv_bool(&j, "pinned", p->in.base.pinned);
	/* What the build declared of the base (NAME=VERSION): granted from the base, so
	 * resolved by its id. */
	hk_json_key(&j, "declaredPackages");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < r->n_declared_base; i++)
		hk_json_str(&j, r->declared_base[i]);
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
	char *base_ann = hk_buf_steal(&b);
	hk_strv_push_owned(&p->owned, base_ann);
	p->deps[n].name = "base";
	p->deps[n].uri = base_uri;
	p->deps[n].annotations_json = base_ann;
	n++;
	p->in.deps = p->deps;
	p->in.n_deps = n;

	struct hk_resource *src = &p->in.source;
	memset(src, 0, sizeof(*src));
	const char *slash = strrchr(r->dsc_path, '/');
	src->name = slash ? slash + 1 : r->dsc_path;
	char *purl = hk_purl_deb(r->dsc.source, r->dsc.version, "source");
	hk_strv_push_owned(&p->owned, purl);
	src->uri = purl;
	snprintf(src->sha256, sizeof(src->sha256), "%s", r->dsc_sha256);
	p->source_files = hk_xcalloc(r->dsc.n_files + 1, sizeof(*p->source_files));
	for (size_t i = 0; i < r->dsc.n_files; i++) {
		p->source_files[i].name = r->dsc.files[i].name;
		snprintf(p->source_files[i].sha256, sizeof(p->source_files[i].sha256), "%s",
			 r->dsc.files[i].sha256);
	}
	p->in.source_files = p->source_files;
	p->in.n_source_files = r->dsc.n_files;
	return 0;
}

int hk_attest_dsc(struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
		  const struct hk_dsc_result *r, struct hk_error *err)
{
	const struct hk_build_result *br = &r->build;
	if (!r->built)
		return 0;
	/* Only what the store holds is attested: the subjects are checked against it. */
	if ((!br->artifact_id[0] || !br->artifact_stored || !br->artifact_dir || !br->store)) {
		if (ctx->have_key && !bo->quiet)
			fprintf(stderr, "[attest] nothing attested: %s\n",
				!br->artifact_id[0] ? "the build produced no output (a phase failed "
						      "or never ran)"
						    : "the outputs were not stored (--no-seal)");
		return 0;
	}
	struct attest_parts p = { .files = HK_TREE_INIT, .owned = HK_STRV_INIT,
				  .recipe_bytes = HK_BUF_INIT };
	p.in.base = hk_attest_base_of(br);
	p.in.build_type = HK_INTOTO_DSC_BUILD_TYPE;
	char *external = dsc_external_json(r);
	hk_strv_push_owned(&p.owned, external);
	p.in.external_json = external;
	dsc_recipe(&p, r);
	int rc = gather_subjects(&p, br->store, br->artifact_dir, err);
	if (rc == 0)
		rc = dsc_deps(&p, br->store, r, err);
	if (rc == 0) {
		gather_run(&p, ctx, bo, br);
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 0);
		hk_dsc_verdict_json(r, dsc_expected_set(r), &j);
		char *debian = hk_buf_steal(&b);
		hk_strv_push_owned(&p.owned, debian);
		p.in.debian_json = debian;
		rc = sign_and_write(ctx, bo, br, &p, err);
	}
	parts_free(&p);
	return rc < 0 ? hk_error_set_class(err, HK_ERROR_ENVIRONMENT) : 0;
}
