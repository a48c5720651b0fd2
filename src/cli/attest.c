/* The attestations of `harkaq build`: what goes into the two Statements, gathered from the
 * build result, the store and the files on disk; the core (core/intoto.c) writes them. */
#include "cli/attest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/version.h"
#include "core/blake3.h"
#include "core/dsse.h"
#include "core/file.h"
#include "core/hex.h"
#include "core/tree.h"
#include "core/util.h"

int hk_attest_begin(struct hk_attest_ctx *ctx, const char *key_path, struct hk_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->started_on = time(NULL);
	if (hk_crypto_init(err) < 0)
		return HK_EXIT_SOFTWARE;
	if (!key_path)
		return 0;
	if (hk_key_load_secret(key_path, &ctx->key, err) < 0)
		return HK_EXIT_DATAERR;
	ctx->have_key = true;
	return 0;
}

void hk_attest_end(struct hk_attest_ctx *ctx)
{
	hk_sign_key_wipe(&ctx->key);
	ctx->have_key = false;
}

struct hk_base_identity hk_attest_base_of(const struct hk_recipe *r)
{
	/* A recipe's base today is a directory named by its path ("root:PATH") or the host's
	 * own system: neither is content-addressed, so neither is pinned. */
	struct hk_base_identity b = { .id = r->base, .name = r->base, .pinned = false };
	return b;
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
		for (size_t i = 0; i < t.n; i++) {
			free(t.entries[i].path);
			free(t.entries[i].target);
		}
		free(t.entries);
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

static void free_tree(struct hk_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->entries[i].path);
		free(t->entries[i].target);
	}
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

int hk_attest_build(struct hk_attest_ctx *ctx, const struct hk_build_opts *bo,
		    const struct hk_build_result *br, struct hk_error *err)
{
	if (!br->artifact_id[0] || !br->artifact_dir || !br->store)
		return 0;
	struct hk_store *store = br->store;
	const struct hk_recipe *rc = &br->recipe;
	int rc_ = 0;
	struct hk_attest_input in = { 0 };
	struct hk_tree files = HK_TREE_INIT;
	struct hk_resource *subjects = NULL, *deps = NULL;
	char **dep_uris = NULL, **dep_ann = NULL;
	size_t n_subjects = 0, n_deps = 0;
	struct hk_phase_evidence phases[HK_PHASE_COUNT];
	struct hk_buf recipe_bytes = HK_BUF_INIT, prov = HK_BUF_INIT, verd = HK_BUF_INIT;
	struct hk_buf env_p = HK_BUF_INIT, env_v = HK_BUF_INIT;
	char *source_uri = NULL, *dir = NULL, *tmp_p = NULL, *tmp_v = NULL, *path_p = NULL,
	     *path_v = NULL, *base_dir = NULL;

	const struct hk_artifact *art = NULL;
	if (hk_store_find(store, br->artifact_dir, &art, err) < 0 ||
	    hk_store_files(store, art, &files, err) < 0) {
		rc_ = hk_wrap(err, "attesting %s", br->artifact_dir);
		goto out;
	}
	/* Subjects: every regular file of the sealed artifact, as the manifest records it, with
	 * its SHA-256 read from the store. */
	subjects = hk_xcalloc(files.n + 1, sizeof(*subjects));
	for (size_t i = 0; i < files.n; i++) {
		const struct hk_tree_entry *e = &files.entries[i];
		if (e->type != HK_TREE_FILE)
			continue;
		struct hk_resource *s = &subjects[n_subjects++];
		s->name = e->path;
		hk_hex(e->digest, sizeof(e->digest), s->blake3);
		hk_autofree char *p = hk_xasprintf("%s/%s", art->path, e->path);
		if (hk_sha256_file(p, s->sha256, err) < 0) {
			rc_ = -err->code;
			goto out;
		}
	}
	if (n_subjects == 0) {
		rc_ = hk_fail(err, EINVAL, "%s holds no regular file: an attestation needs a "
					   "subject", br->artifact_dir);
		goto out;
	}
	in.subjects = subjects;
	in.n_subjects = n_subjects;

	in.recipe_name = rc->name;
	in.recipe_version = rc->version;
	in.recipe_hash = br->recipe_hash;
	if (rc->path) {
		if (hk_file_read(rc->path, &recipe_bytes, err) < 0) {
			rc_ = -err->code;
			goto out;
		}
		const char *slash = strrchr(rc->path, '/');
		in.recipe.name = slash ? slash + 1 : rc->path;
		hk_sha256_hex(recipe_bytes.data ? recipe_bytes.data : "", recipe_bytes.len,
			      in.recipe.sha256);
		uint8_t b3[HK_BLAKE3_OUT_LEN];
		hk_blake3_hash(recipe_bytes.data ? recipe_bytes.data : "", recipe_bytes.len, b3);
		hk_hex(b3, sizeof(b3), in.recipe.blake3);
		in.recipe.content = hk_buf_str(&recipe_bytes);
		in.recipe.content_len = recipe_bytes.len;
		in.recipe.media_type = "application/toml";
	}

	in.policy_id = br->plan_ok ? br->plan.policy_id : NULL;
	in.base = hk_attest_base_of(rc);
	in.profile = bo->profile;
	in.caged = br->cage;
	for (size_t i = 0; i < br->n_phases; i++)
		if (br->phases[i].has_verdict) {
			in.abi = br->phases[i].verdict.abi;
			in.kernel_abi = br->phases[i].verdict.kernel_abi;
			break;
		}

	/* The closure (deps first), then the base and the source. */
	size_t n_closure = br->plan_ok ? br->plan.n_closure : 0;
	deps = hk_xcalloc(n_closure + 2, sizeof(*deps));
	dep_uris = hk_xcalloc(n_closure + 2, sizeof(*dep_uris));
	dep_ann = hk_xcalloc(n_closure + 2, sizeof(*dep_ann));
	for (size_t i = 0; i < n_closure; i++) {
		const struct hk_artifact *d = NULL;
		if (hk_store_find(store, br->plan.closure_names[i], &d, err) < 0) {
			rc_ = hk_wrap(err, "attesting the closure");
			goto out;
		}
		dep_resource(d, &deps[n_deps], &dep_uris[n_deps], &dep_ann[n_deps]);
		n_deps++;
	}
	base_dir = hk_xasprintf("harkaq:base:%s", in.base.id);
	deps[n_deps].name = "base";
	deps[n_deps].uri = base_dir;
	deps[n_deps].annotations_json = in.base.pinned ? "{\"pinned\":true}" : "{\"pinned\":false}";
	n_deps++;
	in.deps = deps;
	in.n_deps = n_deps;
	if (source_resource(rc, &in.source, &source_uri, err) < 0) {
		rc_ = -err->code;
		goto out;
	}

	struct utsname u;
	in.harkaq_version = HK_VERSION;
	in.kernel_release = uname(&u) == 0 ? u.release : NULL;
	/* The invocation is the build's work directory nonce (its progress lines name it). */
	const char *nonce = br->work ? strrchr(br->work, '-') : NULL;
	in.invocation_id = nonce ? nonce + 1 : NULL;
	in.started_on = ctx->started_on;
	in.finished_on = time(NULL);
	in.artifact_id = br->artifact_id;
	in.artifact_dirname = br->artifact_dir;
	for (size_t i = 0; i < br->n_phases; i++) {
		const struct phase_result *pr = &br->phases[i];
		struct hk_phase_evidence *p = &phases[i];
		memset(p, 0, sizeof(*p));
		p->phase = hk_phase_name(pr->phase);
		if (pr->evidence.len > 0) {
			p->evidence = pr->evidence.data;
			p->evidence_len = pr->evidence.len;
			hk_sha256_hex(pr->evidence.data, pr->evidence.len, p->evidence_sha256);
			p->evidence_id = pr->evidence_id[0] ? pr->evidence_id : NULL;
		}
	}
	in.phases = phases;
	in.n_phases = br->n_phases;

	hk_intoto_provenance(&in, &prov);
	hk_intoto_verdict(&in, &verd);
	const struct hk_sign_key *key = ctx->have_key ? &ctx->key : NULL;
	hk_attest_envelope(key, prov.data, prov.len, &env_p);
	hk_attest_envelope(key, verd.data, verd.len, &env_v);

	/* Both envelopes or neither: each is written to a temporary name first. */
	char *adir = hk_xasprintf("%s/%s", hk_store_dir(store), HK_ATTEST_DIR);
	dir = hk_xasprintf("%s/%s", adir, br->artifact_dir);
	if ((mkdir(adir, 0755) < 0 && errno != EEXIST) || (mkdir(dir, 0755) < 0 && errno != EEXIST)) {
		rc_ = hk_fail_errno(err, errno, "creating %s", dir);
		free(adir);
		goto out;
	}
	free(adir);
	path_p = hk_xasprintf("%s/provenance.dsse.json", dir);
	path_v = hk_xasprintf("%s/verdict.dsse.json", dir);
	/* Both written (and synced) before either is renamed: a failed write leaves the previous
	 * pair as it was. */
	int w = hk_file_write_temp(dir, env_p.data, env_p.len, 0644, HK_FILE_SYNC, &tmp_p, err);
	if (w == 0)
		w = hk_file_write_temp(dir, env_v.data, env_v.len, 0644, HK_FILE_SYNC, &tmp_v, err);
	if (w == 0 && rename(tmp_p, path_p) < 0)
		w = hk_fail_errno(err, errno, "renaming %s", tmp_p);
	if (w == 0 && rename(tmp_v, path_v) < 0) {
		w = hk_fail_errno(err, errno, "renaming %s", tmp_v);
		unlink(path_p);
	}
	if (w < 0) {
		if (tmp_p)
			unlink(tmp_p);
		if (tmp_v)
			unlink(tmp_v);
		rc_ = hk_wrap(err, "writing the attestations");
		goto out;
	}
	if (!bo->quiet)
		fprintf(stderr, "[attest] %s\n[attest] %s%s%s\n", path_p, path_v,
			key ? "\n[attest] signed by key " : " (unsigned: no --key)",
			key ? key->keyid : "");

out:
	for (size_t i = 0; i < n_deps; i++) {
		if (dep_uris)
			free(dep_uris[i]);
		if (dep_ann)
			free(dep_ann[i]);
	}
	free(dep_uris);
	free(dep_ann);
	free(deps);
	free(subjects);
	free_tree(&files);
	free(source_uri);
	free(base_dir);
	free(dir);
	free(tmp_p);
	free(tmp_v);
	free(path_p);
	free(path_v);
	hk_buf_free(&recipe_bytes);
	hk_buf_free(&prov);
	hk_buf_free(&verd);
	hk_buf_free(&env_p);
	hk_buf_free(&env_v);
	return rc_ < 0 ? HK_EXIT_SOFTWARE : 0;
}
