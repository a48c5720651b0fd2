/* Unified diffs (udiff.h). */
#include "core/formats/udiff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"

struct line {
	const char *p;
	size_t n;    /* with its '\n', when it has one */
};

enum op_kind { OP_EQUAL, OP_DELETE, OP_INSERT };

struct op {
	enum op_kind kind;
	size_t a, b;    /* the line of a (EQUAL, DELETE) and of b (EQUAL, INSERT) */
};

struct ops {
	struct op *v;
	size_t n, cap;
};

static void push(struct ops *o, enum op_kind kind, size_t a, size_t b)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = hk_xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = (struct op){ kind, a, b };
}

static struct line *split(const char *t, size_t len, size_t *n)
{
	size_t cap = 16;
	struct line *v = hk_xmalloc(cap * sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(t + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - t) + 1 : len;
		if (*n == cap) {
			cap *= 2;
			v = hk_xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = (struct line){ t + i, end - i };
		i = end;
	}
	return v;
}

static bool same(const struct line *x, const struct line *y)
{
	return x->n == y->n && memcmp(x->p, y->p, x->n) == 0;
}

/* Myers' greedy O(ND) search over a[0, n) and b[0, m), the endpoints of each round kept for
 * the walk back.  Appends the ops of the middle, offset by (ao, bo).  Returns false (nothing
 * appended) past HK_UDIFF_MAX_EDITS edits. */
static bool myers(const struct line *a, size_t n, const struct line *b, size_t m, size_t ao,
		  size_t bo, struct ops *out)
{
	long max = (long)(n + m);
	long limit = max < HK_UDIFF_MAX_EDITS ? max : HK_UDIFF_MAX_EDITS;
	long *v = hk_xcalloc((size_t)(2 * max + 3), sizeof(*v));
	long off = max + 1;
	/* ends[d] holds V[-d..d] at the end of round d. */
	long **ends = hk_xcalloc((size_t)limit + 1, sizeof(*ends));
	long found = -1;
	for (long d = 0; d <= limit && found < 0; d++) {
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			long y = x - k;
			while (x < (long)n && y < (long)m && same(&a[x], &b[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= (long)n && y >= (long)m)
				found = d;
		}
		ends[d] = hk_xmalloc((size_t)(2 * d + 1) * sizeof(**ends));
		memcpy(ends[d], v + off - d, (size_t)(2 * d + 1) * sizeof(**ends));
	}
	bool ok = found >= 0;
	if (ok) {
		/* Walked back from (n, m): each round one edit and the diagonal before it. */
		struct ops rev = { 0 };
		long x = (long)n, y = (long)m;
		for (long d = found; d > 0; d--) {
			long k = x - y;
			const long *pv = ends[d - 1];
			long pk = (k == -d || (k != d && pv[k - 1 + (d - 1)] < pv[k + 1 + (d - 1)]))
					  ? k + 1
					  : k - 1;
			long px = pv[pk + (d - 1)], py = px - pk;
			while (x > px && y > py) {
				x--;
				y--;
				push(&rev, OP_EQUAL, (size_t)x, (size_t)y);
			}
			if (x == px) {
				y--;
				push(&rev, OP_INSERT, (size_t)x, (size_t)y);
			} else {
				x--;
				push(&rev, OP_DELETE, (size_t)x, (size_t)y);
			}
		}
		while (x > 0 && y > 0) {
			x--;
			y--;
			push(&rev, OP_EQUAL, (size_t)x, (size_t)y);
		}
		for (size_t i = rev.n; i-- > 0;)
			push(out, rev.v[i].kind, rev.v[i].a + ao, rev.v[i].b + bo);
		free(rev.v);
	}
	for (long d = 0; d <= limit; d++)
		free(ends[d]);
	free(ends);
	free(v);
	return ok;
}

static void put_line(struct hk_buf *out, char tag, const struct line *l)
{
	hk_buf_putc(out, tag);
	hk_buf_append(out, l->p, l->n);
	if (l->n == 0 || l->p[l->n - 1] != '\n')
		hk_buf_puts(out, "\n\\ No newline at end of file\n");
}

/* "START,COUNT" as diff writes a range: COUNT 1 is left out, and an empty range names the
 * line before it. */
static void put_range(struct hk_buf *out, size_t start, size_t count)
{
	if (count == 1)
		hk_buf_printf(out, "%zu", start + 1);
	else
		hk_buf_printf(out, "%zu,%zu", count ? start + 1 : start, count);
}

void hk_udiff(const char *path, const char *a, size_t alen, const char *b, size_t blen,
	      struct hk_buf *out)
{
	size_t na, nb;
	struct line *la = split(a, alen, &na), *lb = split(b, blen, &nb);
	size_t pre = 0;
	while (pre < na && pre < nb && same(&la[pre], &lb[pre]))
		pre++;
	size_t suf = 0;
	while (suf < na - pre && suf < nb - pre && same(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	struct ops ops = { 0 };
	for (size_t i = 0; i < pre; i++)
		push(&ops, OP_EQUAL, i, i);
	size_t ma = na - pre - suf, mb = nb - pre - suf;
	if (!myers(la + pre, ma, lb + pre, mb, pre, pre, &ops)) {
		for (size_t i = 0; i < ma; i++)
			push(&ops, OP_DELETE, pre + i, pre);
		for (size_t i = 0; i < mb; i++)
			push(&ops, OP_INSERT, pre + ma, pre + i);
	}
	for (size_t i = 0; i < suf; i++)
		push(&ops, OP_EQUAL, na - suf + i, nb - suf + i);

	bool header = false;
	for (size_t i = 0; i < ops.n;) {
		if (ops.v[i].kind == OP_EQUAL) {
			i++;
			continue;
		}
		/* A hunk: context before the change, changes whose gaps are at most twice the
		 * context, context after the last one. */
		size_t start = i >= HK_UDIFF_CONTEXT ? i - HK_UDIFF_CONTEXT : 0;
		size_t end = i, last = i;
		for (size_t j = i; j < ops.n; j++) {
			if (ops.v[j].kind != OP_EQUAL) {
				last = j;
				continue;
			}
			if (j - last > 2 * HK_UDIFF_CONTEXT)
				break;
		}
		end = last + 1 + HK_UDIFF_CONTEXT;
		if (end > ops.n)
			end = ops.n;
		size_t ca = 0, cb = 0;
		for (size_t j = start; j < end; j++) {
			ca += ops.v[j].kind != OP_INSERT;
			cb += ops.v[j].kind != OP_DELETE;
		}
		if (!header) {
			hk_buf_printf(out, "--- a/%s\n+++ b/%s\n", path, path);
			header = true;
		}
		hk_buf_puts(out, "@@ -");
		put_range(out, ops.v[start].a, ca);
		hk_buf_puts(out, " +");
		put_range(out, ops.v[start].b, cb);
		hk_buf_puts(out, " @@\n");
		for (size_t j = start; j < end; j++) {
			const struct op *o = &ops.v[j];
			if (o->kind == OP_EQUAL)
				put_line(out, ' ', &la[o->a]);
			else if (o->kind == OP_DELETE)
				put_line(out, '-', &la[o->a]);
			else
				put_line(out, '+', &lb[o->b]);
		}
		i = end;
	}
	free(ops.v);
	free(la);
	free(lb);
}
