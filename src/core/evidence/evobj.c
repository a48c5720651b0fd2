#include "core/evidence/evobj.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/audit_record.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"

/* design.md §13, kernel-facts.md §6 and §11: each is a measured hole of Landlock on ABI 7, or an
 * assumption the verdict rests on.  Codes are stable (consumers match on them). */
const struct hk_blind_spot hk_blind_spots[] = {
	{ "existence_checks",
	  "stat, access, readlink, chdir and O_PATH opens are not checked by Landlock: the build "
	  "can learn that an undeclared file exists without any denial" },
	{ "dac_blocked",
	  "what file permissions (DAC) already refuse never reaches Landlock, so it is neither "
	  "denied by the cage nor reported" },
	{ "inherited_descriptors",
	  "descriptors opened before the cage was installed are not checked (harkaq-exec closes "
	  "every inherited descriptor but stdin, stdout and stderr before the build starts)" },
	{ "network_inert",
	  "network rights are not part of the evidence: the sandbox's network namespace is "
	  "empty, so there is nothing to deny or report" },
	{ "kernel_trusted",
	  "the kernel and the policy derivation are trusted: a kernel exploit is out of scope "
	  "(use a microVM for that)" },
	{ "bytes_underneath",
	  "read-only rules do not stop bytes being changed under the filesystem; only sealed "
	  "(fs-verity) artifacts catch that" },
	{ "followed_symlinks",
	  "reading a symlink is not checked by Landlock, only its target: an undeclared store "
	  "artifact's link to a file is a trap of the store view, but the pinned base's own links "
	  "(a link of an undeclared base package to a granted file), the links of declared deps "
	  "and links to directories are followed without a record" },
	{ "standard_streams",
	  "stdin, stdout and stderr are inherited open and not checked: a build whose stdin was "
	  "redirected from an undeclared file reads it without a denial" },
	{ "preexisting_links",
	  "what lies beneath a writable surface (rw) when the build starts is read under that "
	  "surface's grant, whatever file it is: a hard link to an undeclared file made there "
	  "beforehand reads without a denial" },
	{ "seccomp_refusals",
	  "calls the seccomp filter refuses (ptrace, mount, landlock_restrict_self, the terminal "
	  "injection ioctls, ...) fail with EPERM and leave no record: the verdict does not say "
	  "the build tried them.  None of them hides a denial: the build cannot make a Landlock "
	  "domain of its own, so every denial of the build is its domain's, and counted" },
};
const size_t hk_n_blind_spots = HK_ARRAY_LEN(hk_blind_spots);

/* Only where the cage collapsed directories (verdict->collapsed_dirs > 0). */
const char hk_blind_spot_collapsed_code[] = "collapsed_directories";

static void collapsed_text(size_t n, struct hk_buf *out)
{
	hk_buf_printf(out,
		      "%zu director%s whose whole content was declared when the build began %s "
		      "granted with one rule beneath %s: a file added beneath %s during the "
		      "build (by the host) would be read without a denial; the base root is "
		      "assumed not to change during a build",
		      n, n == 1 ? "y" : "ies", n == 1 ? "was" : "were each",
		      n == 1 ? "it" : "them", n == 1 ? "it" : "one");
}

/* The members, in order: the verdict's own (hk_verdict_json_members decides them, so they
 * are read from it rather than copied here), then these. */
static const char *const own_members[] = { "exit_code", "diagnosis", "blind_spots" };

/* The verdict's member names, in order, from an empty verdict's encoding. */
static struct hk_jval *verdict_members(void)
{
	struct hk_verdict empty;
	memset(&empty, 0, sizeof(empty));
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_json_obj_begin(&j);
	hk_verdict_json_members(&empty, &j);
	hk_json_obj_end(&j);
	struct hk_jval *v = NULL;
	struct hk_error e;
	if (hk_json_parse(b.data, b.len, &v, &e) < 0)
		abort();   /* our own writer's output: cannot fail */
	hk_buf_free(&b);
	return v;
}

void hk_evobj_encode(const struct hk_verdict *v, const struct hk_diagnosis *d,
		     struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	hk_json_obj_begin(&j);
	hk_verdict_json_members(v, &j);
	/* How the phase exited: a verdict is about what the kernel saw, and a phase can be
	 * Hermetic and still have failed; its report must say both. */
	hk_json_key(&j, "exit_code");
	if (v->has_exit_code)
		hk_json_int(&j, v->exit_code);
	else
		hk_json_null(&j);
	hk_json_key(&j, "diagnosis");
	hk_diagnosis_json(d, &j);
	hk_json_key(&j, "blind_spots");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < hk_n_blind_spots; i++) {
		hk_json_obj_begin(&j);
		hk_json_kv_str(&j, "code", hk_blind_spots[i].code);
		hk_json_kv_str(&j, "text", hk_blind_spots[i].text);
		hk_json_obj_end(&j);
	}
	if (v->collapsed_dirs > 0) {
		struct hk_buf text = HK_BUF_INIT;
		collapsed_text(v->collapsed_dirs, &text);
		hk_json_obj_begin(&j);
		hk_json_kv_str(&j, "code", hk_blind_spot_collapsed_code);
		hk_json_kv_str(&j, "text", hk_buf_str(&text));
		hk_json_obj_end(&j);
		hk_buf_free(&text);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
}

size_t hk_evobj_entries(const struct hk_verdict *v, const struct hk_diagnosis *d,
			enum hk_diag_class cls, struct hk_evobj_entry **out)
{
	size_t n_den = v->n_denials < d->n ? v->n_denials : d->n;
	struct hk_evobj_entry *e = hk_xcalloc(n_den + 1, sizeof(*e));
	struct hk_buf *rights = hk_xcalloc(n_den + 1, sizeof(*rights));
	size_t n = 0;
	for (size_t i = 0; i < n_den; i++) {
		if (d->items[i].cls != cls)
			continue;
		const struct hk_denial *den = &v->denials[i];
		/* The entry a later denial of the same path joins (a pathless one joins none). */
		size_t k = 0;
		while (k < n && !hk_denial_same_path(e[k].den, den))
			k++;
		if (k == n) {
			k = n++;
			e[k].den = den;
			e[k].dia = &d->items[i];
		}
		hk_blockers_union(&rights[k], den->blockers ? den->blockers : "");
		e[k].count += den->count;
		e[k].n_denials++;
	}
	for (size_t k = 0; k < n; k++)
		e[k].blockers = hk_buf_steal(&rights[k]);
	free(rights);
	*out = e;
	return n;
}

void hk_evobj_entries_free(struct hk_evobj_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].blockers);
	free(e);
}

int hk_evobj_check(const void *bytes, size_t n, const char *expect_id, struct hk_jval **out,
		   struct hk_error *err)
{
	if (out)
		*out = NULL;
	if (expect_id) {
		char id[HK_B3_ID_LEN];
		hk_b3_id(bytes, n, id);
		if (strcmp(id, expect_id) != 0)
			return hk_fail(err, EBADMSG, "its bytes hash to %s, not to its name %s: the "
				       "object was changed", id, expect_id);
	}
	struct hk_jval *v = NULL;
	struct hk_error pe;
	if (hk_json_parse(bytes, n, &v, &pe) < 0)
		return hk_fail(err, EBADMSG, "it is not JSON: %s", pe.msg);
	int rc = 0;
	const struct hk_jval *kind = hk_jobj_get(v, "kind");
	if (v->type != HK_JOBJ) {
		rc = hk_fail(err, EBADMSG, "it is not a JSON object");
		goto hand_over_value;
	}
	if (!kind || kind->type != HK_JSTR || strcmp(kind->str, HK_EVOBJ_KIND) != 0) {
		rc = hk_fail(err, EBADMSG, "its kind is not %s", HK_EVOBJ_KIND);
		goto hand_over_value;
	}
	struct hk_jval *vm = verdict_members();
	size_t want = vm->len + HK_ARRAY_LEN(own_members);
	for (size_t i = 0; i < want && rc == 0; i++) {
		const char *m = i < vm->len ? vm->keys[i] : own_members[i - vm->len];
		if (i >= v->len)
			rc = hk_fail(err, EBADMSG, "member '%s' is missing", m);
		else if (strcmp(v->keys[i], m) != 0)
			rc = hk_fail(err, EBADMSG, "member %zu is '%s', expected '%s' (members come "
				     "in a fixed order)", i + 1, v->keys[i], m);
	}
	if (rc == 0 && v->len != want)
		rc = hk_fail(err, EBADMSG, "it has %zu members, %s has %zu", v->len,
			     HK_EVOBJ_KIND, want);
	hk_jval_free(vm);
	if (rc < 0)
		goto hand_over_value;
	const struct hk_jval *den = hk_jobj_get(v, "denials"), *dia = hk_jobj_get(v, "diagnosis");
	if (den->type != HK_JARR || dia->type != HK_JARR || den->len != dia->len) {
		rc = hk_fail(err, EBADMSG, "'diagnosis' must have one entry per denial");
		goto hand_over_value;
	}
	/* Canonical: the writer's own rendering of what was parsed is the same bytes.  This
	 * rejects whitespace, other escapes, non-integer numbers and a trailing newline. */
	struct hk_buf again = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &again, 0);
	hk_json_value(&j, v);
	bool same = again.len == n && memcmp(again.data, bytes, n) == 0;
	hk_buf_free(&again);
	if (!same) {
		rc = hk_fail(err, EBADMSG, "it is not in canonical form (compact JSON, integers "
			     "only, the writer's escapes, no trailing newline)");
		goto hand_over_value;
	}
hand_over_value:
	if (rc == 0 && out)
		*out = v;
	else
		hk_jval_free(v);
	return rc;
}
