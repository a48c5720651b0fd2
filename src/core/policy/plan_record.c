/* Kept plans: keys and records (plan_record.h says what they are and why). */
#include "core/policy/plan_record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/tree.h"
#include "core/basic/util.h"

#define KEY_MAGIC "harkaq-plan-key 1\n"
#define COLLAPSE_KEY_MAGIC "harkaq-collapse-key 1\n"
#define RECORD_MAGIC "harkaq-plan 1"
#define COLLAPSE_MAGIC "harkaq-collapse 1"

/* A field of a key: its name, then its bytes with their length, so that no value can run
 * into the next. */
static void key_field(struct hk_buf *b, const char *name, const char *value)
{
	const char *v = value ? value : "";
	hk_buf_printf(b, "%s %zu:", name, strlen(v));
	hk_buf_puts(b, v);
	hk_buf_putc(b, '\n');
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void hk_plan_key(const struct hk_plan_key_input *in, char out[HK_B3_ID_LEN])
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_puts(&b, KEY_MAGIC);
	key_field(&b, "code", in->code_id);
	key_field(&b, "base", in->base_id);
	key_field(&b, "profile", in->profile);
	hk_buf_printf(&b, "scopes %u\n", in->scopes);
	hk_buf_printf(&b, "closure %zu\n", in->n_closure);
	for (size_t i = 0; i < in->n_closure; i++)
		key_field(&b, "dep", in->closure[i]);
	/* A set: the order the closure's walk met the names in is not an input. */
	const char **wanted = hk_xcalloc(in->n_base_wanted + 1, sizeof(*wanted));
	if (in->n_base_wanted)
		memcpy(wanted, in->base_wanted, in->n_base_wanted * sizeof(*wanted));
	qsort(wanted, in->n_base_wanted, sizeof(*wanted), cmp_str_ptr);
	hk_buf_printf(&b, "base-wanted %zu\n", in->n_base_wanted);
	for (size_t i = 0; i < in->n_base_wanted; i++)
		key_field(&b, "package", wanted[i]);
	free(wanted);
	hk_buf_printf(&b, "expects %zu\n", in->n_expects);
	for (size_t i = 0; i < in->n_expects; i++)
		key_field(&b, "expect", in->expects[i]);
	struct hk_buf contract = HK_BUF_INIT;
	if (in->contract)
		hk_policy_encode(in->contract, &contract);
	key_field(&b, "contract", hk_buf_str(&contract));
	hk_buf_free(&contract);
	hk_b3_id(b.data, b.len, out);
	hk_buf_free(&b);
}

void hk_plan_collapse_key(const char *code_id, const char *plan_key, const char *policy_id,
			  const char *view_id, char out[HK_B3_ID_LEN])
{
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_puts(&b, COLLAPSE_KEY_MAGIC);
	key_field(&b, "code", code_id);
	key_field(&b, "plan", plan_key);
	key_field(&b, "policy", policy_id);
	key_field(&b, "view", view_id ? view_id : "none");
	hk_b3_id(b.data, b.len, out);
	hk_buf_free(&b);
}

/* ---- records ---- */

void hk_plan_record_encode(const struct hk_plan_record *r, const char *key, struct hk_buf *out)
{
	hk_buf_printf(out, RECORD_MAGIC "\nkey %s\npolicy %s\n", key, r->policy_id);
	hk_buf_printf(out, "closure %zu\nbase-packages %zu\nunmerged %zu\n", r->n_closure,
		      r->n_base_packages, r->n_unmerged);
	hk_buf_printf(out, "files %zu\nsymlinks %zu\nbase-runtime %zu\n", r->report.files,
		      r->report.symlinks, r->report.base_runtime);
	hk_buf_printf(out, "dangling %zu\n", r->report.dangling.len);
	for (size_t i = 0; i < r->report.dangling.len; i++) {
		const char *p = r->report.dangling.items[i];
		hk_tree_escape(p, strlen(p), out);
		hk_buf_putc(out, '\n');
	}
	struct hk_buf text = HK_BUF_INIT;
	hk_policy_encode(&r->policy, &text);
	hk_buf_printf(out, "text %zu\n", text.len);
	hk_buf_append(out, text.data, text.len);
	hk_buf_free(&text);
}

/* Reading a record, line by line. */
struct reader {
	const char *p, *end;
	const char *filename;
	unsigned line;
	struct hk_error *err;
};

static int bad(struct reader *rd, const char *what)
{
	return hk_fail_at(rd->err, EBADMSG, rd->filename, rd->line, 0, "%s", what);
}

/* The next line (without its newline) into *s, *n; -EBADMSG at the end of the text or on a
 * line without a newline. */
static int next_line(struct reader *rd, const char **s, size_t *n)
{
	rd->line++;
	const char *nl = rd->p < rd->end ? memchr(rd->p, '\n', (size_t)(rd->end - rd->p)) : NULL;
	if (!nl)
		return bad(rd, "truncated: a line is missing");
	*s = rd->p;
	*n = (size_t)(nl - rd->p);
	rd->p = nl + 1;
	return 0;
}

/* A line that is exactly `want`. */
static int expect_line(struct reader *rd, const char *want)
{
	const char *s;
	size_t n;
	int r = next_line(rd, &s, &n);
	if (r == 0 && (n != strlen(want) || memcmp(s, want, n) != 0))
		r = bad(rd, "unexpected line");
	return r;
}

/* "NAME VALUE": the value, which must not be empty. */
static int named_line(struct reader *rd, const char *name, const char **v, size_t *vn)
{
	const char *s;
	size_t n, k = strlen(name);
	int r = next_line(rd, &s, &n);
	if (r < 0)
		return r;
	if (n < k + 2 || memcmp(s, name, k) != 0 || s[k] != ' ')
		return bad(rd, "unexpected line");
	*v = s + k + 1;
	*vn = n - k - 1;
	return 0;
}

/* "NAME COUNT": a decimal count without sign or leading zeros. */
static int count_line(struct reader *rd, const char *name, size_t *out)
{
	const char *v;
	size_t n;
	int r = named_line(rd, name, &v, &n);
	if (r < 0)
		return r;
	if (n > 18 || (n > 1 && v[0] == '0'))
		return bad(rd, "not a count");
	size_t c = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return bad(rd, "not a count");
		c = c * 10 + (size_t)(v[i] - '0');
	}
	*out = c;
	return 0;
}

/* "NAME b3:<hex>" equal to `want`, or, with want NULL, any id, copied into `id`. */
static int id_line(struct reader *rd, const char *name, const char *want, char id[HK_B3_ID_LEN])
{
	const char *v;
	size_t n;
	int r = named_line(rd, name, &v, &n);
	if (r < 0)
		return r;
	if (n != HK_B3_ID_LEN - 1 || memcmp(v, "b3:", 3) != 0)
		return bad(rd, "not a b3: id");
	for (size_t i = 3; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return bad(rd, "not a b3: id");
	if (want && memcmp(v, want, n) != 0)
		return bad(rd, "kept under another key");
	if (id) {
		memcpy(id, v, n);
		id[n] = '\0';
	}
	return 0;
}

/* A line that is one escaped path: decoded, absolute. */
static int path_line(struct reader *rd, char **out)
{
	const char *s;
	size_t n;
	int r = next_line(rd, &s, &n);
	if (r < 0)
		return r;
	struct hk_buf b = HK_BUF_INIT;
	if (n == 0 || hk_tree_unescape(s, n, &b) < 0 || b.len == 0 || b.data[0] != '/' ||
	    memchr(b.data, '\0', b.len)) {
		hk_buf_free(&b);
		return bad(rd, "not an escaped absolute path");
	}
	*out = hk_buf_steal(&b);
	return 0;
}

void hk_plan_record_free(struct hk_plan_record *r)
{
	hk_policy_free(&r->policy);
	hk_derive_report_free(&r->report);
	memset(r, 0, sizeof(*r));
}

int hk_plan_record_decode(const char *text, size_t len, const char *key, const char *filename,
			  struct hk_plan_record *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	out->policy = (struct hk_policy)HK_POLICY_INIT;
	out->report.dangling = (struct hk_strset)HK_STRSET_INIT;
	struct reader rd = { text, text + len, filename, 0, err };
	size_t n_dangling = 0, n_text = 0;
	int r = expect_line(&rd, RECORD_MAGIC);
	if (r == 0)
		r = id_line(&rd, "key", key, NULL);
	if (r == 0)
		r = id_line(&rd, "policy", NULL, out->policy_id);
	if (r == 0)
		r = count_line(&rd, "closure", &out->n_closure);
	if (r == 0)
		r = count_line(&rd, "base-packages", &out->n_base_packages);
	if (r == 0)
		r = count_line(&rd, "unmerged", &out->n_unmerged);
	if (r == 0)
		r = count_line(&rd, "files", &out->report.files);
	if (r == 0)
		r = count_line(&rd, "symlinks", &out->report.symlinks);
	if (r == 0)
		r = count_line(&rd, "base-runtime", &out->report.base_runtime);
	if (r == 0)
		r = count_line(&rd, "dangling", &n_dangling);
	for (size_t i = 0; r == 0 && i < n_dangling; i++) {
		char *p = NULL;
		r = path_line(&rd, &p);
		if (r == 0)
			hk_strset_add_owned(&out->report.dangling, p);
	}
	if (r == 0)
		r = count_line(&rd, "text", &n_text);
	if (r == 0 && n_text != (size_t)(rd.end - rd.p))
		r = bad(&rd, "the policy's text is not of the length recorded");
	/* The policy proves itself: it parses as any policy file does, and hashes to the id it
	 * had when it was derived. */
	if (r == 0 && hk_policy_parse(rd.p, n_text, filename, &out->policy, err) < 0)
		r = -EBADMSG;
	if (r == 0) {
		char id[HK_B3_ID_LEN];
		hk_policy_id(&out->policy, id);
		if (strcmp(id, out->policy_id) != 0)
			r = hk_fail(err, EBADMSG, "%s: the kept policy hashes to %s, not to the %s it "
				    "was derived as", filename, id, out->policy_id);
	}
	if (r < 0) {
		hk_plan_record_free(out);
		return -EBADMSG;
	}
	/* As derived in memory: no line numbers. */
	for (size_t i = 0; i < out->policy.n_grants; i++)
		out->policy.grants[i].line = 0;
	for (size_t i = 0; i < out->policy.n_expects; i++)
		out->policy.expects[i].line = 0;
	return 0;
}

void hk_collapse_record_encode(const struct hk_strset *dirs, const struct hk_collapse_stats *stats,
			       const char *key, struct hk_buf *out)
{
	size_t start = out->len;
	hk_buf_printf(out, COLLAPSE_MAGIC "\nkey %s\n", key);
	hk_buf_printf(out, "dirs %zu\ncovered %zu\nbase-dirs-read %zu\n", dirs->len, stats->covered,
		      stats->base_dirs_read);
	for (size_t i = 0; i < dirs->len; i++) {
		hk_tree_escape(dirs->items[i], strlen(dirs->items[i]), out);
		hk_buf_putc(out, '\n');
	}
	char sum[HK_B3_ID_LEN];
	hk_b3_id(out->data + start, out->len - start, sum);
	hk_buf_printf(out, "sum %s\n", sum);
}

int hk_collapse_record_decode(const char *text, size_t len, const char *key, const char *filename,
			      struct hk_strset *dirs, struct hk_collapse_stats *stats,
			      struct hk_error *err)
{
	hk_strset_free(dirs);
	*dirs = (struct hk_strset)HK_STRSET_INIT;
	struct hk_collapse_stats st = { 0 };
	struct reader rd = { text, text + len, filename, 0, err };
	int r = expect_line(&rd, COLLAPSE_MAGIC);
	if (r == 0)
		r = id_line(&rd, "key", key, NULL);
	if (r == 0)
		r = count_line(&rd, "dirs", &st.dirs);
	if (r == 0)
		r = count_line(&rd, "covered", &st.covered);
	if (r == 0)
		r = count_line(&rd, "base-dirs-read", &st.base_dirs_read);
	for (size_t i = 0; r == 0 && i < st.dirs; i++) {
		char *p = NULL;
		r = path_line(&rd, &p);
		/* Strictly ascending: the planner's sorted set, each directory once. */
		if (r == 0 && dirs->len > 0 && strcmp(dirs->items[dirs->len - 1], p) >= 0) {
			free(p);
			r = bad(&rd, "the directories are not in ascending order");
		} else if (r == 0) {
			hk_strset_add_owned(dirs, p);
		}
	}
	size_t summed = (size_t)(rd.p - text);
	char sum[HK_B3_ID_LEN], want[HK_B3_ID_LEN];
	if (r == 0)
		r = id_line(&rd, "sum", NULL, sum);
	if (r == 0 && rd.p != rd.end)
		r = bad(&rd, "bytes after the checksum");
	if (r == 0) {
		hk_b3_id(text, summed, want);
		if (strcmp(sum, want) != 0)
			r = hk_fail(err, EBADMSG, "%s: the kept collapse plan hashes to %s, not to its "
				    "recorded %s", filename, want, sum);
	}
	if (r < 0) {
		hk_strset_free(dirs);
		*dirs = (struct hk_strset)HK_STRSET_INIT;
		return -EBADMSG;
	}
	hk_strset_sort(dirs);
	*stats = st;
	return 0;
}
