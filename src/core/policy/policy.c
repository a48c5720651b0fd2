/* The policy file: strict parser, canonical encoder, PolicyId and lookups.
 *
 * The format and every rule enforced here are documented in docs/policy-format.md.  Design
 * decisions worth knowing when reading this file:
 *
 * - The parser is strict because the policy is evidence: two texts that mean the same policy
 *   but differ in whitespace, escapes or order would still get one PolicyId (the id is taken
 *   over the canonical encoding), but a sloppy parser would hide typos such as a trailing
 *   space that silently becomes part of a path.  So every byte of a directive line has one
 *   meaning, and anything else is an error naming FILE:LINE:COL.
 * - Duplicate detection sorts and scans (O(n log n)); a 100k-grant derived policy must parse
 *   fast.  Errors found that way are reported at the smallest offending line, so the message
 *   does not depend on the sort.
 * - hk_policy_finish() checks every path rule the parser checks: the canonical encoding of a
 *   finished policy always parses back to an equal policy.
 */
#include "core/policy/policy.h"

#include "core/basic/die.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define HEADER_KEYWORD "harkaq-policy"
#define HEADER_VERSION "1"
/* Paths and tokens quoted in error messages are cut to this many source bytes: the message
 * must name the object, and hk_error holds 1 KiB. */
#define SHOWN_MAX 200

static const char *const kind_names[] = {
	[HK_GRANT_RO] = "ro",
	[HK_GRANT_LIST] = "list",
	[HK_GRANT_RW] = "rw",
};

struct scope_name {
	const char *name;
	unsigned bit;
};

/* Sorted by name: the canonical encoding writes scopes in this order. */
static const struct scope_name scope_names[] = {
	{ "abstract-unix-socket", HK_SCOPE_ABSTRACT_UNIX_SOCKET },
	{ "signal", HK_SCOPE_SIGNAL },
};

const char *hk_grant_kind_name(enum hk_grant_kind kind)
{
	if ((unsigned)kind < HK_ARRAY_LEN(kind_names))
		return kind_names[kind];
	return "?";
}

/* ---------------------------------------------------------------- escaping */

static bool is_literal_byte(unsigned char c)
{
	return c >= 0x21 && c <= 0x7e && c != '\\';
}

void hk_policy_escape_bytes(const void *bytes, size_t n, struct hk_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = bytes;
	size_t run = 0; /* start of the pending run of literal bytes */

	for (size_t i = 0; i < n; i++) {
		if (is_literal_byte(s[i]))
			continue;
		hk_buf_append(out, s + run, i - run);
		if (s[i] == '\\') {
			hk_buf_append(out, "\\\\", 2);
		} else {
			char e[4] = { '\\', 'x', hex[s[i] >> 4], hex[s[i] & 0xf] };
			hk_buf_append(out, e, 4);
		}
		run = i + 1;
	}
	hk_buf_append(out, s + run, n - run);
}

void hk_policy_escape_path(const char *path, struct hk_buf *out)
{
	hk_policy_escape_bytes(path, strlen(path), out);
}

/* For quoting source text in messages: like the format's escaping, but a backslash is shown
 * as itself, so "bad escape '\q'" quotes what the user wrote. */
static void show_source(struct hk_buf *out, const char *s, size_t n)
{
	bool cut = n > SHOWN_MAX;
	if (cut)
		n = SHOWN_MAX;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			hk_buf_putc(out, '\\');
		else
			hk_policy_escape_bytes(s + i, 1, out);
	}
	if (cut)
		hk_buf_puts(out, "...");
}

/* For quoting a decoded path in messages: its canonical escaped form. */
static void show_path(struct hk_buf *out, const char *s, size_t n)
{
	bool cut = n > SHOWN_MAX;
	hk_policy_escape_bytes(s, cut ? SHOWN_MAX : n, out);
	if (cut)
		hk_buf_puts(out, "...");
}

/* ---------------------------------------------------------------- path rules */

/* What is wrong with a decoded path, if anything.  `what` and `why` frame the quoted path in
 * the message ("relative path 'usr/lib' (paths must start with '/')"); `at` is the offset of
 * the offending byte in the decoded path. */
struct path_problem {
	const char *what;
	const char *why;
	size_t at;
};

static bool path_problem_find(const char *d, size_t m, bool is_expect, struct path_problem *pp)
{
	*pp = (struct path_problem){ NULL, NULL, 0 };
	if (m == 0) {
		*pp = (struct path_problem){ "empty path", " (expected an absolute path)", 0 };
		return true;
	}
	if (d[0] != '/') {
		*pp = (struct path_problem){ "relative path", " (paths must start with '/')", 0 };
		return true;
	}
	if (is_expect && m == 1) {
		/* The beneath form of the root would classify every denial as expected, which
		 * would certify any build: refuse it rather than let a verdict mean nothing. */
		*pp = (struct path_problem){
			"expect path", " would expect every denial (name the directory whose "
				       "contents are expected, ending with '/')", 0 };
		return true;
	}
	/* Component by component, each byte visited once: d[i] is the '/' before a component,
	 * d[j] the '/' after it (or j == m). */
	for (size_t i = 0, j; i < m; i = j) {
		j = i + 1;
		while (j < m && d[j] != '/')
			j++;
		size_t clen = j - (i + 1);
		if (clen == 0 && j < m) {
			*pp = (struct path_problem){ "non-normalised path",
						     ": empty component '//'", i + 1 };
			return true;
		}
		if (clen == 1 && d[i + 1] == '.') {
			*pp = (struct path_problem){ "non-normalised path", ": '.' component",
						     i + 1 };
			return true;
		}
		if (clen == 2 && d[i + 1] == '.' && d[i + 2] == '.') {
			*pp = (struct path_problem){ "non-normalised path", ": '..' component",
						     i + 1 };
			return true;
		}
	}
	if (!is_expect && m > 1 && d[m - 1] == '/') {
		*pp = (struct path_problem){
			"non-normalised path",
			": trailing '/' (only the root, and expect lines meaning 'beneath', end "
			"with '/')",
			m - 1 };
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------- building */

void hk_policy_add_grant(struct hk_policy *p, enum hk_grant_kind kind, const char *path)
{
	if (p->n_grants == p->cap_grants) {
		p->cap_grants = p->cap_grants ? 2 * p->cap_grants : 16;
		p->grants = hk_xrealloc(p->grants, p->cap_grants * sizeof(*p->grants));
	}
	p->grants[p->n_grants++] =
		(struct hk_policy_grant){ .kind = kind, .path = hk_xstrdup(path), .line = 0 };
	p->finished = false;
}

void hk_policy_add_expect(struct hk_policy *p, const char *path)
{
	if (p->n_expects == p->cap_expects) {
		p->cap_expects = p->cap_expects ? 2 * p->cap_expects : 16;
		p->expects = hk_xrealloc(p->expects, p->cap_expects * sizeof(*p->expects));
	}
	p->expects[p->n_expects++] = (struct hk_policy_expect){ .path = hk_xstrdup(path), .line = 0 };
	p->finished = false;
}

void hk_policy_free(struct hk_policy *p)
{
	for (size_t i = 0; i < p->n_grants; i++)
		free(p->grants[i].path);
	for (size_t i = 0; i < p->n_expects; i++)
		free(p->expects[i].path);
	free(p->grants);
	free(p->expects);
	free(p->base);
	*p = (struct hk_policy)HK_POLICY_INIT;
}

/* strcmp compares as unsigned char, which is the format's "path bytes" (memcmp) order. */
static int cmp_grant_path_kind_line(const void *a, const void *b)
{
	const struct hk_policy_grant *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_grant_path_line(const void *a, const void *b)
{
	const struct hk_policy_grant *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_expect_path_line(const void *a, const void *b)
{
	const struct hk_policy_expect *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Whether the grants' paths strictly ascend as they stand, as they do in every policy harkaq
 * writes (hk_policy_encode): then each of the orders above already holds (no two paths tie)
 * and sorting 9k grants again in every phase is skipped. */
static bool grants_strictly_ascending(const struct hk_policy *p)
{
	for (size_t i = 1; i < p->n_grants; i++)
		if (strcmp(p->grants[i - 1].path, p->grants[i].path) >= 0)
			return false;
	return true;
}

/* Compares the n bytes of `key` (no NUL among them) with the string `s`, in strcmp order. */
static int cmp_key(const char *key, size_t n, const char *s)
{
	int c = strncmp(key, s, n);
	if (c)
		return c;
	return s[n] == '\0' ? 0 : -1;
}

static const struct hk_policy_grant *grant_lookup(const struct hk_policy *p, const char *key,
						  size_t n)
{
	if (!p->finished) {
		for (size_t i = 0; i < p->n_grants; i++)
			if (cmp_key(key, n, p->grants[i].path) == 0)
				return &p->grants[i];
		return NULL;
	}
	size_t lo = 0, hi = p->n_grants;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(key, n, p->grants[mid].path);
		if (c == 0)
			return &p->grants[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const struct hk_policy_expect *expect_lookup(const struct hk_policy *p, const char *key,
						    size_t n)
{
	if (!p->finished) {
		for (size_t i = 0; i < p->n_expects; i++)
			if (cmp_key(key, n, p->expects[i].path) == 0)
				return &p->expects[i];
		return NULL;
	}
	size_t lo = 0, hi = p->n_expects;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(key, n, p->expects[mid].path);
		if (c == 0)
			return &p->expects[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static bool expect_is_beneath_form(const char *path)
{
	size_t n = strlen(path);
	return n > 1 && path[n - 1] == '/';
}

int hk_policy_finish(struct hk_policy *p, struct hk_error *err)
{
	struct hk_buf shown = HK_BUF_INIT;
	struct path_problem pp;
	int r = 0;

	p->finished = false;
	for (size_t i = 0; i < p->n_grants; i++) {
		const struct hk_policy_grant *g = &p->grants[i];
		if ((unsigned)g->kind >= HK_ARRAY_LEN(kind_names)) {
			r = hk_fail(err, EINVAL, "policy grant of '%s': unknown grant kind %d",
				    g->path, (int)g->kind);
			goto free_shown;
		}
		if (path_problem_find(g->path, strlen(g->path), false, &pp)) {
			show_path(&shown, g->path, strlen(g->path));
			r = hk_fail(err, EINVAL, "policy grant '%s': %s '%s'%s",
				    hk_grant_kind_name(g->kind), pp.what, hk_buf_str(&shown), pp.why);
			goto free_shown;
		}
	}
	for (size_t i = 0; i < p->n_expects; i++) {
		const char *e = p->expects[i].path;
		if (path_problem_find(e, strlen(e), true, &pp)) {
			show_path(&shown, e, strlen(e));
			r = hk_fail(err, EINVAL, "policy expectation: %s '%s'%s", pp.what,
				    hk_buf_str(&shown), pp.why);
			goto free_shown;
		}
	}

	if (!grants_strictly_ascending(p))
		qsort(p->grants, p->n_grants, sizeof(*p->grants), cmp_grant_path_kind_line);
	size_t kept = 0;
	for (size_t i = 0; i < p->n_grants; i++) {
		struct hk_policy_grant *g = &p->grants[i];
		if (kept > 0 && strcmp(p->grants[kept - 1].path, g->path) == 0) {
			const struct hk_policy_grant *prev = &p->grants[kept - 1];
			if (prev->kind != g->kind) {
				show_path(&shown, g->path, strlen(g->path));
				r = hk_fail(err, EINVAL,
					    "policy: '%s' granted twice with different kinds: '%s' "
					    "and '%s'",
					    hk_buf_str(&shown), hk_grant_kind_name(prev->kind),
					    hk_grant_kind_name(g->kind));
				/* Compact what is already scanned so the policy stays valid. */
				memmove(&p->grants[kept], &p->grants[i],
					(p->n_grants - i) * sizeof(*p->grants));
				p->n_grants -= i - kept;
				goto free_shown;
			}
			free(g->path);
			continue;
		}
		p->grants[kept++] = *g;
	}
	p->n_grants = kept;

	if (p->n_expects > 1)
		qsort(p->expects, p->n_expects, sizeof(*p->expects), cmp_expect_path_line);
	kept = 0;
	for (size_t i = 0; i < p->n_expects; i++) {
		struct hk_policy_expect *e = &p->expects[i];
		if (kept > 0 && strcmp(p->expects[kept - 1].path, e->path) == 0) {
			free(e->path);
			continue;
		}
		p->expects[kept++] = *e;
	}
	p->n_expects = kept;

	/* Grants are sorted and unique now: binary search is valid. */
	p->finished = true;
	for (size_t i = 0; i < p->n_expects; i++) {
		const char *e = p->expects[i].path;
		if (expect_is_beneath_form(e))
			continue;
		const struct hk_policy_grant *g = grant_lookup(p, e, strlen(e));
		if (g) {
			show_path(&shown, e, strlen(e));
			r = hk_fail(err, EINVAL, "policy: '%s' is both expected and granted ('%s')",
				    hk_buf_str(&shown), hk_grant_kind_name(g->kind));
			p->finished = false;
			goto free_shown;
		}
	}
free_shown:
	hk_buf_free(&shown);
	return r;
}

bool hk_policy_base_valid(const char *s, size_t n)
{
	if ((n == 4 && memcmp(s, "host", 4) == 0) || (n == 4 && memcmp(s, "root", 4) == 0))
		return true;
	if (n != HK_B3_ID_LEN - 1 || memcmp(s, "b3:", 3) != 0)
		return false;
	for (size_t i = 3; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

void hk_policy_set_base(struct hk_policy *p, const char *base)
{
	free(p->base);
	p->base = base ? hk_xstrdup(base) : NULL;
}

/* ---------------------------------------------------------------- encoding */

void hk_policy_encode(const struct hk_policy *p, struct hk_buf *out)
{
	if (!p->finished && (p->n_grants || p->n_expects)) {
		hk_die("BUG: hk_policy_encode on an unfinished policy", NULL);
	}
	hk_buf_puts(out, HEADER_KEYWORD " " HEADER_VERSION "\n");
	if (p->base) {
		hk_buf_puts(out, "base ");
		hk_buf_puts(out, p->base);
		hk_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < HK_ARRAY_LEN(scope_names); i++) {
		if (p->scopes & scope_names[i].bit) {
			hk_buf_puts(out, "scope ");
			hk_buf_puts(out, scope_names[i].name);
			hk_buf_putc(out, '\n');
		}
	}
	for (size_t i = 0; i < p->n_grants; i++) {
		hk_buf_puts(out, hk_grant_kind_name(p->grants[i].kind));
		hk_buf_putc(out, ' ');
		hk_policy_escape_path(p->grants[i].path, out);
		hk_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < p->n_expects; i++) {
		hk_buf_puts(out, "expect ");
		hk_policy_escape_path(p->expects[i].path, out);
		hk_buf_putc(out, '\n');
	}
}

void hk_policy_id(const struct hk_policy *p, char out[HK_B3_ID_LEN])
{
	struct hk_buf text = HK_BUF_INIT;
	hk_policy_encode(p, &text);
	hk_b3_id(text.data, text.len, out);
	hk_buf_free(&text);
}

/* ---------------------------------------------------------------- lookups */

const struct hk_policy_grant *hk_policy_find_grant(const struct hk_policy *p, const char *path)
{
	return grant_lookup(p, path, strlen(path));
}

static int cmp_grant_ptr_path(const void *a, const void *b)
{
	const struct hk_policy_grant *const *x = a, *const *y = b;
	return strcmp((*x)->path, (*y)->path);
}

const struct hk_policy_grant **hk_policy_grants_by_path(const struct hk_policy *p)
{
	const struct hk_policy_grant **order = hk_xcalloc(p->n_grants + 1, sizeof(*order));
	for (size_t i = 0; i < p->n_grants; i++)
		order[i] = &p->grants[i];
	/* A finished policy is sorted and unique already. */
	if (!p->finished && !grants_strictly_ascending(p))
		qsort(order, p->n_grants, sizeof(*order), cmp_grant_ptr_path);
	return order;
}

size_t hk_grants_lower_bound(const struct hk_policy_grant *const *order, size_t n,
			     const char *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(order[mid]->path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool hk_policy_expects(const struct hk_policy *p, const char *path)
{
	size_t n = strlen(path);
	if (expect_lookup(p, path, n))
		return true;
	/* Beneath expects end with '/': try every prefix that ends at a '/' and leaves at least
	 * one byte after it ("strictly beneath"). */
	for (size_t i = 0; i + 1 < n; i++) {
		if (path[i] == '/' && expect_lookup(p, path, i + 1))
			return true;
	}
	return false;
}

bool hk_policy_grants_read(const struct hk_policy *p, const char *path)
{
	size_t n = strlen(path);
	const struct hk_policy_grant *g = grant_lookup(p, path, n);
	if (g && (g->kind == HK_GRANT_RO || g->kind == HK_GRANT_RW))
		return true;
	/* Ancestors: each prefix ending before a '/', and the root itself. */
	for (size_t i = n; i-- > 0;) {
		if (path[i] != '/')
			continue;
		size_t len = i ? i : 1;
		g = grant_lookup(p, path, len);
		if (g && g->kind == HK_GRANT_RW)
			return true;
	}
	return false;
}

bool hk_policy_equal(const struct hk_policy *a, const struct hk_policy *b)
{
	if (a->scopes != b->scopes || a->n_grants != b->n_grants || a->n_expects != b->n_expects)
		return false;
	if ((a->base == NULL) != (b->base == NULL) || (a->base && strcmp(a->base, b->base) != 0))
		return false;
	for (size_t i = 0; i < a->n_grants; i++) {
		if (a->grants[i].kind != b->grants[i].kind ||
		    strcmp(a->grants[i].path, b->grants[i].path) != 0)
			return false;
	}
	for (size_t i = 0; i < a->n_expects; i++) {
		if (strcmp(a->expects[i].path, b->expects[i].path) != 0)
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- parsing */

enum directive {
	DIR_HEADER,
	DIR_RO,
	DIR_LIST,
	DIR_RW,
	DIR_SCOPE,
	DIR_EXPECT,
	DIR_BASE,
	DIR_UNKNOWN,
};

static const char *const directive_names[] = {
	[DIR_HEADER] = HEADER_KEYWORD, [DIR_RO] = "ro",	      [DIR_LIST] = "list",
	[DIR_RW] = "rw",	       [DIR_SCOPE] = "scope", [DIR_EXPECT] = "expect",
	[DIR_BASE] = "base",
};

struct parser {
	const char *filename;
	struct hk_error *err;
	struct hk_policy *out;
	struct hk_buf shown;    /* scratch for quoted text in messages */
	/* The decoded path of the current line, and for each decoded byte the offset in the line
	 * of the source byte (or escape) it came from, so errors found after decoding (for
	 * example "/a\x2f/b" is "/a//b") still point at the right column. */
	char *path;
	size_t *path_src;
	size_t path_cap;
	/* The current path was copied as it stands (no escape in it): its byte k came from line
	 * offset path_base + k, and path_src is not filled. */
	bool path_verbatim;
	size_t path_base;
	/* The whole text has no NUL and no CR: the lines need not be searched for them. */
	bool text_clean;
	size_t line_no;
	bool have_header;
	size_t header_line;
	size_t scope_line[HK_ARRAY_LEN(scope_names)];
	size_t base_line;
};

#define fail_at(ps, line, col, ...) \
	hk_fail_at((ps)->err, EINVAL, (ps)->filename, (unsigned)(line), (unsigned)(col), __VA_ARGS__)

static const char *shown_source(struct parser *ps, const char *s, size_t n)
{
	hk_buf_reset(&ps->shown);
	show_source(&ps->shown, s, n);
	return hk_buf_str(&ps->shown);
}

static const char *shown_path(struct parser *ps, const char *s, size_t n)
{
	hk_buf_reset(&ps->shown);
	show_path(&ps->shown, s, n);
	return hk_buf_str(&ps->shown);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool all_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_blank(s[i]))
			return false;
	return true;
}

/* A byte that needs the careful checks of a line's argument: a blank, the escape '\\', a
 * control byte.  Any other byte (0x80 and up included) stands for itself in a path. */
static bool is_special_byte(unsigned char c)
{
	return c <= 0x20 || c == 0x7f || c == '\\';
}

/* Whether arg[0..n) is all ordinary bytes: the common line (a derived policy is ~9k of them,
 * which harkaq-exec parses afresh in every phase) then skips the byte-by-byte checks and
 * decoding, whose messages only a special byte can trigger.  Eight bytes at a time: a word has
 * a byte below 0x21 when (x - 0x21..) & ~x & 0x80.. is non-zero, and a byte equal to c when
 * x ^ c.. has a zero byte; either test may only err towards "special", which sends the line
 * the careful way, never the reverse. */
static bool all_ordinary(const char *arg, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, arg + i, sizeof(x));
		uint64_t del = x ^ (0x7f * ones), esc = x ^ ((uint64_t)'\\' * ones);
		uint64_t hit = ((x - 0x21 * ones) & ~x) | ((del - ones) & ~del) |
			       ((esc - ones) & ~esc);
		if (hit & highs)
			return false;
	}
	for (; i < n; i++)
		if (is_special_byte((unsigned char)arg[i]))
			return false;
	return true;
}

static enum directive directive_of(const char *tok, size_t n)
{
	for (size_t d = 0; d < HK_ARRAY_LEN(directive_names); d++) {
		if (strlen(directive_names[d]) == n && memcmp(directive_names[d], tok, n) == 0)
			return (enum directive)d;
	}
	return DIR_UNKNOWN;
}

/* Decodes the path argument arg[0..n) of the current line (which starts at line offset
 * `base`) into ps->path / ps->path_src; returns its length, or -EINVAL. */
static ssize_t decode_path(struct parser *ps, const char *arg, size_t n, size_t base,
			   bool ordinary)
{
	if (n + 1 > ps->path_cap) {
		ps->path_cap = n + 1;
		ps->path = hk_xrealloc(ps->path, ps->path_cap);
		ps->path_src = hk_xrealloc(ps->path_src, ps->path_cap * sizeof(*ps->path_src));
	}
	ps->path_verbatim = ordinary;
	ps->path_base = base;
	if (ordinary) {
		memcpy(ps->path, arg, n);
		ps->path[n] = '\0';
		return (ssize_t)n;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)arg[i];
		size_t col = base + i + 1;
		ps->path_src[m] = base + i;
		if (c == '\\') {
			char next = i + 1 < n ? arg[i + 1] : '\0';
			if (next == '\\') {
				ps->path[m++] = '\\';
				i += 1;
				continue;
			}
			if (next == 'x' && n - i >= 4 && hk_hex_value(arg[i + 2]) >= 0 &&
			    hk_hex_value(arg[i + 3]) >= 0) {
				int v = hk_hex_value(arg[i + 2]) * 16 + hk_hex_value(arg[i + 3]);
				if (v == 0)
					return fail_at(ps, ps->line_no, col,
						       "escaped NUL '\\x%c%c' (paths cannot contain NUL)",
						       arg[i + 2], arg[i + 3]);
				ps->path[m++] = (char)v;
				i += 3;
				continue;
			}
			size_t shown_n = (i + 1 < n && arg[i + 1] == 'x') ? 4 : 2;
			if (shown_n > n - i)
				shown_n = n - i;
			return fail_at(ps, ps->line_no, col,
				       "bad escape '%s'%s (expected '\\\\' or '\\xHH')",
				       shown_source(ps, arg + i, shown_n),
				       i + 1 == n ? " at end of line" : "");
		}
		if (c < 0x20 || c == 0x7f)
			return fail_at(ps, ps->line_no, col,
				       "control byte 0x%02x in path (write \\x%02x to mean it)", c, c);
		ps->path[m++] = (char)c;
	}
	ps->path[m] = '\0';
	return (ssize_t)m;
}

static void push_grant(struct hk_policy *p, enum hk_grant_kind kind, const char *path, size_t n,
		       size_t line)
{
	if (p->n_grants == p->cap_grants) {
		p->cap_grants = p->cap_grants ? 2 * p->cap_grants : 64;
		p->grants = hk_xrealloc(p->grants, p->cap_grants * sizeof(*p->grants));
	}
	p->grants[p->n_grants++] = (struct hk_policy_grant){
		.kind = kind, .path = hk_xstrndup(path, n), .line = (unsigned)line };
}

static void push_expect(struct hk_policy *p, const char *path, size_t n, size_t line)
{
	if (p->n_expects == p->cap_expects) {
		p->cap_expects = p->cap_expects ? 2 * p->cap_expects : 16;
		p->expects = hk_xrealloc(p->expects, p->cap_expects * sizeof(*p->expects));
	}
	p->expects[p->n_expects++] =
		(struct hk_policy_expect){ .path = hk_xstrndup(path, n), .line = (unsigned)line };
}

static bool takes_path(enum directive d)
{
	return d == DIR_RO || d == DIR_LIST || d == DIR_RW || d == DIR_EXPECT;
}

static const char *argument_hint(enum directive d)
{
	switch (d) {
	case DIR_HEADER:
		return "the version: 1";
	case DIR_SCOPE:
		return "a scope name: abstract-unix-socket or signal";
	case DIR_BASE:
		return "the base: b3:<64 hex digits>, host or root";
	default:
		return "an absolute path";
	}
}

static int parse_path_directive(struct parser *ps, enum directive d, const char *arg, size_t n,
				size_t base, bool ordinary)
{
	ssize_t m = decode_path(ps, arg, n, base, ordinary);
	if (m < 0)
		return (int)m;
	struct path_problem pp;
	if (path_problem_find(ps->path, (size_t)m, d == DIR_EXPECT, &pp)) {
		size_t col = (ps->path_verbatim ? ps->path_base + pp.at : ps->path_src[pp.at]) + 1;
		return fail_at(ps, ps->line_no, col, "%s '%s'%s", pp.what,
			       shown_path(ps, ps->path, (size_t)m), pp.why);
	}
	if (d == DIR_EXPECT) {
		push_expect(ps->out, ps->path, (size_t)m, ps->line_no);
	} else {
		enum hk_grant_kind kind = d == DIR_RO	? HK_GRANT_RO
					  : d == DIR_LIST ? HK_GRANT_LIST
							  : HK_GRANT_RW;
		push_grant(ps->out, kind, ps->path, (size_t)m, ps->line_no);
	}
	return 0;
}

static int parse_line(struct parser *ps, const char *line, size_t len)
{
	/* Encoding errors first, anywhere on the line, comments included: a CRLF file or a
	 * binary file is rejected as such rather than by whatever grammar rule trips first. */
	const char *nul = ps->text_clean ? NULL : memchr(line, '\0', len);
	const char *cr = ps->text_clean ? NULL : memchr(line, '\r', nul ? (size_t)(nul - line) : len);
	if (cr)
		return fail_at(ps, ps->line_no, (size_t)(cr - line) + 1,
			       "carriage return: write \\x0d to mean it in a path (lines end with "
			       "LF alone)");
	if (nul)
		return fail_at(ps, ps->line_no, (size_t)(nul - line) + 1,
			       "NUL byte (a policy is text; write no NUL, paths cannot contain it)");

	if (len == 0 || line[0] == '#')
		return 0;
	if (is_blank(line[0])) {
		if (all_blank(line, len))
			return fail_at(ps, ps->line_no, 1,
				       "whitespace on a blank line (blank lines must be empty)");
		return fail_at(ps, ps->line_no, 1,
			       "leading whitespace (directives start at column 1)");
	}

	size_t kw_len = 0;
	while (kw_len < len && !is_blank(line[kw_len]))
		kw_len++;
	enum directive d = directive_of(line, kw_len);

	if (!ps->have_header) {
		if (d != DIR_HEADER)
			return fail_at(ps, ps->line_no, 1,
				       "expected 'harkaq-policy 1' as the first directive, found '%s'",
				       shown_source(ps, line, kw_len));
	} else if (d == DIR_HEADER) {
		return fail_at(ps, ps->line_no, 1,
			       "second header (the header 'harkaq-policy 1' is at line %zu and "
			       "must appear once)",
			       ps->header_line);
	} else if (d == DIR_UNKNOWN) {
		return fail_at(ps, ps->line_no, 1,
			       "unknown keyword '%s' (expected ro, list, rw, scope, expect or base)",
			       shown_source(ps, line, kw_len));
	}
	const char *kw = directive_names[d];

	if (kw_len == len || (line[kw_len] == ' ' && kw_len + 1 == len)) {
		const char *what = takes_path(d) ? "empty path" : "missing argument";
		return fail_at(ps, ps->line_no, len + 1, "%s after '%s' (expected one space, then %s)",
			       what, kw, argument_hint(d));
	}
	if (line[kw_len] == '\t')
		return fail_at(ps, ps->line_no, kw_len + 1,
			       "tab after '%s' (expected exactly one space between keyword and "
			       "argument)",
			       kw);
	size_t base = kw_len + 1;
	if (is_blank(line[base]))
		return fail_at(ps, ps->line_no, base + 1,
			       "more than one space after '%s' (expected exactly one space between "
			       "keyword and argument)",
			       kw);

	const char *arg = line + base;
	size_t arg_len = len - base;
	bool ordinary = all_ordinary(arg, arg_len);
	for (size_t i = 0; i < arg_len && !ordinary; i++) {
		if (!is_blank(arg[i]))
			continue;
		size_t col = base + i + 1;
		if (all_blank(arg + i, arg_len - i))
			return fail_at(ps, ps->line_no, col, "trailing whitespace%s",
				       takes_path(d) ? " (write \\x20 to mean a space at the end of a "
						       "path)"
						     : "");
		if (takes_path(d))
			return fail_at(ps, ps->line_no, col, "unescaped %s in path (write %s to mean it)",
				       arg[i] == ' ' ? "space" : "tab",
				       arg[i] == ' ' ? "\\x20" : "\\x09");
		return fail_at(ps, ps->line_no, col,
			       "unexpected %s after '%s %s' (a directive takes one argument)",
			       arg[i] == ' ' ? "space" : "tab", kw, shown_source(ps, arg, i));
	}

	switch (d) {
	case DIR_HEADER:
		if (arg_len != strlen(HEADER_VERSION) || memcmp(arg, HEADER_VERSION, arg_len) != 0)
			return fail_at(ps, ps->line_no, base + 1,
				       "unsupported policy version '%s' (expected 'harkaq-policy 1')",
				       shown_source(ps, arg, arg_len));
		ps->have_header = true;
		ps->header_line = ps->line_no;
		return 0;
	case DIR_SCOPE:
		for (size_t s = 0; s < HK_ARRAY_LEN(scope_names); s++) {
			if (strlen(scope_names[s].name) != arg_len ||
			    memcmp(scope_names[s].name, arg, arg_len) != 0)
				continue;
			if (ps->scope_line[s])
				return fail_at(ps, ps->line_no, base + 1,
					       "scope '%s' given twice (first at line %zu)",
					       scope_names[s].name, ps->scope_line[s]);
			ps->scope_line[s] = ps->line_no;
			ps->out->scopes |= scope_names[s].bit;
			return 0;
		}
		return fail_at(ps, ps->line_no, base + 1,
			       "unknown scope '%s' (expected abstract-unix-socket or signal)",
			       shown_source(ps, arg, arg_len));
	case DIR_BASE:
		if (ps->base_line)
			return fail_at(ps, ps->line_no, 1, "base given twice (first at line %zu)",
				       ps->base_line);
		if (!hk_policy_base_valid(arg, arg_len))
			return fail_at(ps, ps->line_no, base + 1,
				       "invalid base '%s' (expected b3:<64 lowercase hex digits> for a "
				       "pinned base, or host or root for an unpinned one)",
				       shown_source(ps, arg, arg_len));
		ps->base_line = ps->line_no;
		ps->out->base = hk_xstrndup(arg, arg_len);
		return 0;
	default:
		return parse_path_directive(ps, d, arg, arg_len, base, ordinary);
	}
}

/* Column where a grant or expect line's path starts (the keyword, one space, the path). */
static size_t path_column_grant(enum hk_grant_kind kind)
{
	return strlen(hk_grant_kind_name(kind)) + 2;
}

#define EXPECT_PATH_COLUMN (sizeof("expect ") - 1 + 1)

/* Whole-policy rules, checked once every line is read: sort, then scan neighbours.  Of all
 * violations the one at the smallest line is reported, so the message does not depend on
 * sort details. */
static int check_duplicates(struct parser *ps)
{
	struct hk_policy *p = ps->out;
	size_t best_line = SIZE_MAX;
	char best_msg[HK_ERROR_MSG_MAX];
	size_t best_col = 0;

	if (!grants_strictly_ascending(p))
		qsort(p->grants, p->n_grants, sizeof(*p->grants), cmp_grant_path_line);
	for (size_t i = 1; i < p->n_grants; i++) {
		/* Within a run of equal paths lines ascend, so the run's first pair is the one
		 * with the smallest "here"; later pairs of the run fail the line test. */
		const struct hk_policy_grant *first = &p->grants[i - 1], *here = &p->grants[i];
		if (strcmp(first->path, here->path) != 0 || here->line >= best_line)
			continue;
		best_line = here->line;
		best_col = path_column_grant(here->kind);
		snprintf(best_msg, sizeof(best_msg),
			 "'%s' granted twice: '%s' here and '%s' at line %u",
			 shown_path(ps, here->path, strlen(here->path)),
			 hk_grant_kind_name(here->kind), hk_grant_kind_name(first->kind),
			 first->line);
	}

	if (p->n_expects > 1)
		qsort(p->expects, p->n_expects, sizeof(*p->expects), cmp_expect_path_line);
	for (size_t i = 1; i < p->n_expects; i++) {
		const struct hk_policy_expect *first = &p->expects[i - 1], *here = &p->expects[i];
		if (strcmp(first->path, here->path) != 0 || here->line >= best_line)
			continue;
		best_line = here->line;
		best_col = EXPECT_PATH_COLUMN;
		snprintf(best_msg, sizeof(best_msg), "'%s' expected twice (first at line %u)",
			 shown_path(ps, here->path, strlen(here->path)), first->line);
	}

	/* Grants are sorted by path now; binary search finds a path even where it is (still)
	 * duplicated, so this check does not depend on the one above. */
	p->finished = true;
	for (size_t i = 0; i < p->n_expects; i++) {
		const struct hk_policy_expect *e = &p->expects[i];
		if (e->line >= best_line || expect_is_beneath_form(e->path))
			continue;
		const struct hk_policy_grant *g = grant_lookup(p, e->path, strlen(e->path));
		if (!g)
			continue;
		best_line = e->line;
		best_col = EXPECT_PATH_COLUMN;
		snprintf(best_msg, sizeof(best_msg), "'%s' is both expected and granted (line %u)",
			 shown_path(ps, e->path, strlen(e->path)), g->line);
	}

	if (best_line == SIZE_MAX)
		return 0;
	p->finished = false;
	return fail_at(ps, best_line, best_col, "%s", best_msg);
}

int hk_policy_parse(const char *text, size_t len, const char *filename, struct hk_policy *out,
		    struct hk_error *err)
{
	struct parser ps = {
		.filename = filename ? filename : "<policy>",
		.err = err,
		.out = out,
		.shown = HK_BUF_INIT,
	};
	int r = 0;

	*out = (struct hk_policy)HK_POLICY_INIT;
	ps.text_clean = !memchr(text, '\0', len) && !memchr(text, '\r', len);
	size_t pos = 0, last_len = 0;
	bool ends_with_newline = true;
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - line) : len - pos;
		ps.line_no++;
		r = parse_line(&ps, line, line_len);
		if (r < 0)
			goto err_free_policy;
		pos += line_len + (nl ? 1 : 0);
		last_len = line_len;
		ends_with_newline = nl != NULL;
	}
	if (!ps.have_header) {
		/* Point at the end of the file, where the header was still missing. */
		size_t line = ends_with_newline ? ps.line_no + 1 : ps.line_no;
		size_t col = ends_with_newline ? 1 : last_len + 1;
		r = fail_at(&ps, line, col,
			    "missing header: expected 'harkaq-policy 1' as the first directive");
		goto err_free_policy;
	}
	r = check_duplicates(&ps);
	if (r < 0)
		goto err_free_policy;
	free(ps.path);
	free(ps.path_src);
	hk_buf_free(&ps.shown);
	return 0;

err_free_policy:
	free(ps.path);
	free(ps.path_src);
	hk_buf_free(&ps.shown);
	hk_policy_free(out);
	return r;
}
