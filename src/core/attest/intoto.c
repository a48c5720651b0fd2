#include "core/attest/intoto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/attest/dsse.h"
#include "core/basic/util.h"

/* purl's character encoding: letters, digits, '.', '-', '_', '~' and ':' stay as they are,
 * every other byte is %XX (uppercase) — so a Debian version's '+' is %2B, its epoch's ':'
 * stays. */
static void purl_escape(const char *s, struct hk_buf *out)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '-' || *p == '_' || *p == '~' || *p == ':')
			hk_buf_putc(out, (char)*p);
		else
			hk_buf_printf(out, "%%%02X", *p);
	}
}

char *hk_purl_deb(const char *name, const char *version, const char *arch)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_puts(&b, "pkg:deb/debian/");
	purl_escape(name, &b);
	if (version) {
		hk_buf_putc(&b, '@');
		purl_escape(version, &b);
	}
	if (arch) {
		hk_buf_puts(&b, "?arch=");
		purl_escape(arch, &b);
	}
	return hk_buf_steal(&b);
}

void hk_rfc3339(time_t t, char out[21])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void resource_json(struct hk_json *j, const struct hk_resource *r)
{
	hk_json_obj_begin(j);
	if (r->name)
		hk_json_kv_str(j, "name", r->name);
	if (r->uri)
		hk_json_kv_str(j, "uri", r->uri);
	if (r->sha256[0] || r->blake3[0] || r->tree[0]) {
		hk_json_key(j, "digest");
		hk_json_obj_begin(j);
		if (r->sha256[0])
			hk_json_kv_str(j, "sha256", r->sha256);
		if (r->blake3[0])
			hk_json_kv_str(j, "blake3", r->blake3);
		if (r->tree[0])
			hk_json_kv_str(j, "harkaqTree", r->tree);
		hk_json_obj_end(j);
	}
	if (r->content) {
		struct hk_buf b64 = HK_BUF_INIT;
		hk_base64_encode(r->content, r->content_len, &b64);
		hk_json_key(j, "content");
		hk_json_strn(j, hk_buf_str(&b64), b64.len);
		hk_buf_free(&b64);
	}
	if (r->media_type)
		hk_json_kv_str(j, "mediaType", r->media_type);
	if (r->annotations_json) {
		hk_json_key(j, "annotations");
		hk_json_raw(j, r->annotations_json);
	}
	hk_json_obj_end(j);
}

static void statement_begin(struct hk_json *j, const struct hk_attest_input *in,
			    const char *predicate_type)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "_type", HK_INTOTO_STATEMENT_TYPE);
	hk_json_key(j, "subject");
	hk_json_arr_begin(j);
	for (size_t i = 0; i < in->n_subjects; i++)
		resource_json(j, &in->subjects[i]);
	hk_json_arr_end(j);
	hk_json_kv_str(j, "predicateType", predicate_type);
	hk_json_key(j, "predicate");
}

static void base_json(struct hk_json *j, const struct hk_base_identity *b)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "id", b->id);
	hk_json_kv_str(j, "name", b->name);
	hk_json_kv_bool(j, "pinned", b->pinned);
	hk_json_obj_end(j);
}

static void recipe_json(struct hk_json *j, const struct hk_attest_input *in)
{
	hk_json_obj_begin(j);
	hk_json_kv_str(j, "name", in->recipe_name);
	hk_json_kv_str(j, "version", in->recipe_version);
	hk_json_kv_str(j, "hash", in->recipe_hash);
	hk_json_key(j, "file");
	resource_json(j, &in->recipe);
	hk_json_obj_end(j);
}

void hk_intoto_provenance(const struct hk_attest_input *in, struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	statement_begin(&j, in, HK_INTOTO_SLSA_TYPE);
	hk_json_obj_begin(&j);

	hk_json_key(&j, "buildDefinition");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "buildType", in->build_type ? in->build_type : HK_INTOTO_BUILD_TYPE);
	hk_json_key(&j, "externalParameters");
	if (in->external_json) {
		hk_json_raw(&j, in->external_json);
	} else {
		hk_json_obj_begin(&j);
		hk_json_key(&j, "recipe");
		recipe_json(&j, in);
		hk_json_obj_end(&j);
	}
	hk_json_key(&j, "internalParameters");
	hk_json_obj_begin(&j);
	/* A recipe harkaq wrote itself (a Debian build's) is a parameter of harkaq's, not of
	 * whoever asked for the build. */
	if (in->external_json) {
		hk_json_key(&j, "recipe");
		recipe_json(&j, in);
	}
	hk_json_kv_str(&j, "policyId", in->policy_id);
	hk_json_key(&j, "base");
	base_json(&j, &in->base);
	hk_json_kv_int(&j, "landlockAbi", in->abi);
	hk_json_kv_int(&j, "kernelLandlockAbi", in->kernel_abi);
	hk_json_kv_str(&j, "profile", in->profile);
	hk_json_kv_bool(&j, "caged", in->caged);
	hk_json_obj_end(&j);
	hk_json_key(&j, "resolvedDependencies");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < in->n_deps; i++)
		resource_json(&j, &in->deps[i]);
	resource_json(&j, &in->source);
	for (size_t i = 0; i < in->n_source_files; i++)
		resource_json(&j, &in->source_files[i]);
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);

	hk_json_key(&j, "runDetails");
	hk_json_obj_begin(&j);
	hk_json_key(&j, "builder");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "id", HK_INTOTO_BUILDER_ID);
	hk_json_key(&j, "version");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "harkaq", in->harkaq_version);
	hk_json_kv_str(&j, "linux", in->kernel_release);
	char abi[24];
	snprintf(abi, sizeof(abi), "%d", in->kernel_abi);
	hk_json_kv_str(&j, "landlock-abi", abi);
	hk_json_obj_end(&j);
	hk_json_obj_end(&j);
	hk_json_key(&j, "metadata");
	hk_json_obj_begin(&j);
	char ts[21];
	hk_json_kv_str(&j, "invocationId", in->invocation_id);
	hk_rfc3339(in->started_on, ts);
	hk_json_kv_str(&j, "startedOn", ts);
	hk_rfc3339(in->finished_on, ts);
	hk_json_kv_str(&j, "finishedOn", ts);
	hk_json_obj_end(&j);
	hk_json_key(&j, "byproducts");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < in->n_phases; i++) {
		const struct hk_phase_evidence *p = &in->phases[i];
		if (!p->evidence_id)
			continue;
		char name[64];
		snprintf(name, sizeof(name), "evidence/%s", p->phase);
		struct hk_resource r = { .name = name, .media_type = "application/json" };
		char *uri = hk_xasprintf("harkaq:evidence:%s", p->evidence_id);
		r.uri = uri;
		snprintf(r.sha256, sizeof(r.sha256), "%s", p->evidence_sha256);
		if (strncmp(p->evidence_id, "b3:", 3) == 0)
			snprintf(r.blake3, sizeof(r.blake3), "%s", p->evidence_id + 3);
		resource_json(&j, &r);
		free(uri);
	}
	if (in->artifact_dirname) {
		char *uri = hk_xasprintf("harkaq:artifact:%s", in->artifact_dirname);
		struct hk_resource r = { .name = "artifact", .uri = uri };
		resource_json(&j, &r);
		free(uri);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);

	hk_json_obj_end(&j);
	hk_json_obj_end(&j);
}

void hk_intoto_verdict(const struct hk_attest_input *in, struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	statement_begin(&j, in, HK_INTOTO_VERDICT_TYPE);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "recipe");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "name", in->recipe_name);
	hk_json_kv_str(&j, "version", in->recipe_version);
	hk_json_kv_str(&j, "hash", in->recipe_hash);
	hk_json_obj_end(&j);
	hk_json_key(&j, "artifact");
	hk_json_obj_begin(&j);
	hk_json_kv_str(&j, "id", in->artifact_id);
	hk_json_kv_str(&j, "dirname", in->artifact_dirname);
	hk_json_obj_end(&j);
	hk_json_kv_str(&j, "policyId", in->policy_id);
	hk_json_key(&j, "base");
	base_json(&j, &in->base);
	hk_json_kv_bool(&j, "caged", in->caged);
	hk_json_kv_str(&j, "invocationId", in->invocation_id);

	/* Each phase's state, read back from its own evidence object: one source of truth. */
	size_t counts[4] = { 0 };   /* Hermetic, Impure, NoEvidence, none */
	const char **states = hk_xcalloc(in->n_phases + 1, sizeof(*states));
	struct hk_jval **parsed = hk_xcalloc(in->n_phases + 1, sizeof(*parsed));
	for (size_t i = 0; i < in->n_phases; i++) {
		struct hk_error e;
		const struct hk_phase_evidence *p = &in->phases[i];
		if (p->evidence && hk_json_parse(p->evidence, p->evidence_len, &parsed[i], &e) == 0)
			states[i] = hk_jobj_str(parsed[i], "state");
		if (!states[i])
			counts[3]++;
		else if (strcmp(states[i], "Hermetic") == 0)
			counts[0]++;
		else if (strcmp(states[i], "Impure") == 0)
			counts[1]++;
		else
			counts[2]++;
	}
	hk_json_key(&j, "summary");
	hk_json_obj_begin(&j);
	hk_json_kv_uint(&j, "phases", in->n_phases);
	hk_json_kv_uint(&j, "hermetic", counts[0]);
	hk_json_kv_uint(&j, "impure", counts[1]);
	hk_json_kv_uint(&j, "noEvidence", counts[2]);
	hk_json_kv_uint(&j, "withoutVerdict", counts[3]);
	hk_json_obj_end(&j);
	hk_json_key(&j, "phases");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < in->n_phases; i++) {
		const struct hk_phase_evidence *p = &in->phases[i];
		hk_json_obj_begin(&j);
		hk_json_kv_str(&j, "phase", p->phase);
		hk_json_kv_str(&j, "state", states[i]);
		hk_json_kv_str(&j, "evidenceId", p->evidence_id);
		hk_json_kv_str(&j, "evidenceSha256", p->evidence && p->evidence_sha256[0]
						      ? p->evidence_sha256 : NULL);
		hk_json_key(&j, "evidence");
		/* The object's own canonical bytes, so its id can be recomputed from them. */
		if (parsed[i]) {
			char *raw = hk_xmemdupz(p->evidence, p->evidence_len);
			hk_json_raw(&j, raw);
			free(raw);
		} else
			hk_json_null(&j);
		hk_json_obj_end(&j);
	}
	hk_json_arr_end(&j);
	if (in->debian_json) {
		hk_json_key(&j, "debian");
		hk_json_raw(&j, in->debian_json);
	}
	hk_json_obj_end(&j);
	hk_json_obj_end(&j);
	for (size_t i = 0; i < in->n_phases; i++)
		hk_jval_free(parsed[i]);
	free(parsed);
	free(states);
}

static bool is_hex(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

int hk_intoto_parse(const void *bytes, size_t n, struct hk_jval **out, struct hk_error *err)
{
	*out = NULL;
	struct hk_jval *st = NULL;
	if (hk_json_parse(bytes, n, &st, err) < 0)
		return hk_wrap(err, "statement is not JSON");
	int rc = 0;
	const char *type = hk_jobj_str(st, "_type");
	const struct hk_jval *subj = hk_jobj_get(st, "subject");
	const struct hk_jval *pred = hk_jobj_get(st, "predicate");
	if (st->type != HK_JOBJ) {
		rc = hk_fail(err, EINVAL, "statement: not a JSON object");
	} else if (!type || strcmp(type, HK_INTOTO_STATEMENT_TYPE) != 0) {
		rc = hk_fail(err, EINVAL, "statement: \"_type\" is %s%s%s, not %s",
			     type ? "\"" : "missing", type ? type : "", type ? "\"" : "",
			     HK_INTOTO_STATEMENT_TYPE);
	} else if (!subj || subj->type != HK_JARR || subj->len == 0) {
		rc = hk_fail(err, EINVAL, "statement: \"subject\" is not a non-empty array");
	} else if (!hk_jobj_str(st, "predicateType")) {
		rc = hk_fail(err, EINVAL, "statement: \"predicateType\" is missing or not a string");
	} else if (!pred || pred->type != HK_JOBJ) {
		rc = hk_fail(err, EINVAL, "statement: \"predicate\" is missing or not an object");
	}
	for (size_t i = 0; rc == 0 && i < subj->len; i++) {
		const struct hk_jval *s = &subj->items[i];
		const struct hk_jval *d = hk_jobj_get(s, "digest");
		if (!hk_jobj_str(s, "name") || !d || d->type != HK_JOBJ || d->len == 0) {
			rc = hk_fail(err, EINVAL, "statement: subject[%zu] needs a name and a "
						  "non-empty digest object", i);
			break;
		}
		for (size_t k = 0; k < d->len; k++)
			if (d->items[k].type != HK_JSTR || !is_hex(d->items[k].str, d->items[k].len)) {
				rc = hk_fail(err, EINVAL, "statement: subject[%zu].digest.%s is not "
							  "a hex string", i, d->keys[k]);
				break;
			}
	}
	if (rc < 0) {
		hk_jval_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

/* Whether the Statement is a harkaq verdict (else one violation, said). */
static bool is_verdict(const struct hk_jval *st, struct hk_buf *why)
{
	const char *ptype = hk_jobj_str(st, "predicateType");
	if (ptype && strcmp(ptype, HK_INTOTO_VERDICT_TYPE) == 0)
		return true;
	hk_buf_printf(why, "the statement is not a harkaq verdict (predicateType %s, want %s)\n",
		      ptype ? ptype : "missing", HK_INTOTO_VERDICT_TYPE);
	return false;
}

/* Whether the verdict's base is pinned (else one violation, said). */
static bool base_pinned(const struct hk_jval *pred, struct hk_buf *why)
{
	const struct hk_jval *base = hk_jobj_get(pred, "base");
	const struct hk_jval *pinned = hk_jobj_get(base, "pinned");
	if (pinned && pinned->type == HK_JBOOL && pinned->b)
		return true;
	const char *name = hk_jobj_str(base, "name");
	hk_buf_printf(why, "the base %s is not pinned (no content-addressed base id)\n",
		      name ? name : "(unnamed)");
	return false;
}

size_t hk_policy_hermetic(const struct hk_jval *st, struct hk_buf *why)
{
	size_t bad = 0;
	if (!is_verdict(st, why))
		return 1;
	const struct hk_jval *pred = hk_jobj_get(st, "predicate");
	if (!base_pinned(pred, why))
		bad++;
	const struct hk_jval *phases = hk_jobj_get(pred, "phases");
	if (!phases || phases->type != HK_JARR || phases->len == 0) {
		hk_buf_printf(why, "the verdict lists no phase: nothing was vouched for\n");
		return bad + 1;
	}
	for (size_t i = 0; i < phases->len; i++) {
		const struct hk_jval *p = &phases->items[i];
		const char *name = hk_jobj_str(p, "phase");
		const char *state = hk_jobj_str(p, "state");
		const char *ev_state = hk_jobj_str(hk_jobj_get(p, "evidence"), "state");
		if (!name)
			name = "(unnamed phase)";
		if (!state || !ev_state) {
			hk_buf_printf(why, "phase %s has no verdict\n", name);
			bad++;
		} else if (strcmp(state, ev_state) != 0) {
			hk_buf_printf(why, "phase %s says %s but its evidence object says %s\n", name,
				      state, ev_state);
			bad++;
		} else if (strcmp(state, "Hermetic") != 0) {
			const struct hk_jval *reasons = hk_jobj_get(hk_jobj_get(p, "evidence"), "reasons");
			const char *code = reasons && reasons->type == HK_JARR && reasons->len > 0
						   ? hk_jobj_str(&reasons->items[0], "code") : NULL;
			hk_buf_printf(why, "phase %s is %s%s%s%s\n", name, state,
				      code ? " (" : "", code ? code : "", code ? ")" : "");
			bad++;
		}
	}
	return bad;
}

/* The verdict's phase named `name` (predicate.phases), or NULL. */
static const struct hk_jval *verdict_phase(const struct hk_jval *pred, const char *name)
{
	const struct hk_jval *phases = hk_jobj_get(pred, "phases");
	for (size_t i = 0; name && phases && phases->type == HK_JARR && i < phases->len; i++) {
		const char *n = hk_jobj_str(&phases->items[i], "phase");
		if (n && strcmp(n, name) == 0)
			return &phases->items[i];
	}
	return NULL;
}

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

/* The findings of one kind ("missing", "probes", "unattributed") of one Debian phase, one
 * line each.  Returns how many. */
static size_t phase_findings(const char *phase, const struct hk_jval *dp, const char *kind,
			     struct hk_buf *why)
{
	const struct hk_jval *list = hk_jobj_get(dp, kind);
	size_t n = 0;
	for (size_t i = 0; list && list->type == HK_JARR && i < list->len; i++, n++) {
		const struct hk_jval *f = &list->items[i];
		const char *pkg = hk_jobj_str(f, "package");
		const char *path = hk_jobj_str(f, "path"), *exe = hk_jobj_str(f, "exe");
		const char *access = hk_jobj_str(f, "access"), *how = hk_jobj_str(f, "how");
		const char *via = hk_jobj_str(f, "via");
		/* A trap of the store view: the package's symlink is what the build used. */
		bool link = how && via && strcmp(how, "link") == 0;
		const char *slash = exe ? strrchr(exe, '/') : NULL;
		if (strcmp(kind, "missing") == 0) {
			hk_buf_printf(why, "phase %s: missing Build-Depends: %s (%s %s%s, by %s)\n",
				      phase, or_q(pkg), access ? access : "used",
				      or_q(link ? via : path), link ? ", its symlink" : "",
				      slash ? slash + 1 : or_q(exe));
		} else if (strcmp(kind, "probes") == 0) {
			const char *cls = hk_jobj_str(f, "class");
			hk_buf_printf(why, "phase %s: undeclared %s, a probe (%s %s%s, by %s; the "
					   "phase went on)%s%s\n", phase, or_q(pkg),
				      access ? access : "used", or_q(link ? via : path),
				      link ? ", its symlink" : "", slash ? slash + 1 : or_q(exe),
				      cls ? "; --decide-probes: " : "; not decided",
				      cls ? cls : "");
		} else {
			const char *reason = hk_jobj_str(f, "reason");
			hk_buf_printf(why, "phase %s: %s denied, no package named (%s)%s%s\n", phase,
				      or_q(path), or_q(hk_jobj_str(f, "class")), reason ? ": " : "",
				      reason ? reason : "");
		}
	}
	return n;
}

size_t hk_policy_complete_build_depends(const struct hk_jval *st, struct hk_buf *why)
{
	if (!is_verdict(st, why))
		return 1;
	const struct hk_jval *pred = hk_jobj_get(st, "predicate");
	const struct hk_jval *deb = hk_jobj_get(pred, "debian");
	if (!deb || deb->type != HK_JOBJ) {
		hk_buf_printf(why, "the verdict is not a Debian build's (no predicate.debian): it "
				   "says nothing about Build-Depends\n");
		return 1;
	}
	size_t bad = base_pinned(pred, why) ? 0 : 1;
	const struct hk_jval *phases = hk_jobj_get(deb, "phases");
	if (!phases || phases->type != HK_JARR || phases->len == 0) {
		hk_buf_printf(why, "the verdict lists no phase: nothing was vouched for\n");
		return bad + 1;
	}
	for (size_t i = 0; i < phases->len; i++) {
		const struct hk_jval *dp = &phases->items[i];
		const char *name = or_q(hk_jobj_str(dp, "phase"));
		const char *state = hk_jobj_str(dp, "state");
		/* The Debian view of a phase and the phase's own evidence object must agree: the
		 * evidence is the proof, this member only its reading. */
		const struct hk_jval *vp = verdict_phase(pred, name);
		const char *vstate = hk_jobj_str(vp, "state");
		const char *ev_state = hk_jobj_str(hk_jobj_get(vp, "evidence"), "state");
		if (!state || !vstate || !ev_state) {
			hk_buf_printf(why, "phase %s has no verdict\n", name);
			bad++;
			continue;
		}
		if (strcmp(state, vstate) != 0 || strcmp(state, ev_state) != 0) {
			hk_buf_printf(why, "phase %s: the Debian verdict says %s, the phase %s, its "
					   "evidence object %s\n", name, state, vstate, ev_state);
			bad++;
			continue;
		}
		int64_t code = hk_jobj_int(dp, "exitCode", -1);
		if (code != 0) {
			hk_buf_printf(why, "phase %s failed (exit %lld)\n", name, (long long)code);
			bad++;
		}
		size_t named = phase_findings(name, dp, "missing", why) +
			       phase_findings(name, dp, "probes", why) +
			       phase_findings(name, dp, "unattributed", why);
		bad += named;
		if (strcmp(state, "Hermetic") != 0 && named == 0) {
			const struct hk_jval *reasons = hk_jobj_get(hk_jobj_get(vp, "evidence"),
								    "reasons");
			const char *rcode = reasons && reasons->type == HK_JARR && reasons->len > 0
						    ? hk_jobj_str(&reasons->items[0], "code") : NULL;
			hk_buf_printf(why, "phase %s is %s%s%s%s\n", name, state, rcode ? " (" : "",
				      rcode ? rcode : "", rcode ? ")" : "");
			bad++;
		}
	}
	const struct hk_jval *from_log = hk_jobj_get(deb, "fromLog");
	for (size_t i = 0; from_log && from_log->type == HK_JARR && i < from_log->len; i++) {
		const struct hk_jval *m = &from_log->items[i];
		hk_buf_printf(why, "%s, named from the build log: macro %s is defined by %s\n",
			      hk_jobj_bool(m, "need") ? "missing Build-Depends" : "probe survived",
			      or_q(hk_jobj_str(m, "macro")), or_q(hk_jobj_str(m, "package")));
		bad++;
	}
	if (!hk_jobj_bool(deb, "completed")) {
		hk_buf_printf(why, "the build did not complete: not every phase ran and exited 0\n");
		bad++;
	}
	const struct hk_jval *complete = hk_jobj_get(deb, "complete");
	bool says_complete = complete && complete->type == HK_JBOOL && complete->b;
	if (bad == 0 && !says_complete) {
		hk_buf_printf(why, "the verdict does not say the Build-Depends were complete\n");
		bad++;
	} else if (bad > 0 && says_complete) {
		hk_buf_printf(why, "the verdict says \"complete\": true, which the lines above "
				   "contradict\n");
		bad++;
	}
	return bad;
}
