#include "core/formats/audit_record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/basic/hex.h"
#include "core/basic/util.h"

/* Keys the kernel writes with audit_log_untrustedstring() or audit_log_n_untrustedstring()
 * (kernel-facts.md §4), so a bare value of theirs is hex.  `key` (the audit rule key) is written
 * that way too, but harkaq installs no rules and only ever sees "key=(null)". */
static const char *const untrusted_keys[] = {
	"path", "exe", "comm", "ocomm", "dev", "proctitle", "name", "cwd",
};

bool hk_audit_key_is_untrusted_string(const char *key)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(untrusted_keys); i++)
		if (strcmp(key, untrusted_keys[i]) == 0)
			return true;
	return false;
}

/* ---- small helpers ---- */

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* The kernel hex-encodes untrusted strings in uppercase only (audit_log_n_hex), so only
 * uppercase digits mark a value as encoded; other hex numbers take either case. */
static int upper_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A printable rendering of one byte for error messages. */
static const char *byte_desc(char c, char out[8])
{
	unsigned char u = (unsigned char)c;
	if (u > 0x20 && u < 0x7f)
		snprintf(out, 8, "'%c'", c);
	else
		snprintf(out, 8, "0x%02x", u);
	return out;
}

static bool parse_u64_dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool parse_i64_dec(const char *s, size_t n, int64_t *out)
{
	bool neg = n > 0 && s[0] == '-';
	uint64_t mag;
	if (!parse_u64_dec(s + neg, n - neg, &mag))
		return false;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return false;
		*out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)mag;
	}
	return true;
}

static bool parse_u64_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = hk_hex_value(s[i]);
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

bool hk_audit_leading_domain(const char *body, size_t len, uint64_t *domain)
{
	static const char key[] = "domain=";
	const size_t k = sizeof(key) - 1;
	if (len < k || memcmp(body, key, k) != 0)
		return false;
	size_t end = k;
	while (end < len && body[end] != ' ')
		end++;
	return parse_u64_hex(body + k, end - k, domain);
}

/* ---- the stamp ---- */

int hk_audit_split_prefix(const char *text, size_t len, struct hk_audit_stamp *stamp,
			  size_t *body_offset, struct hk_error *err)
{
	static const char head[] = "audit(";
	size_t i = 0, start;

	if (len < sizeof(head) - 1 || memcmp(text, head, sizeof(head) - 1) != 0)
		return hk_fail(err, EINVAL, "audit message at byte 0: expected \"audit(\"");
	i = sizeof(head) - 1;

	start = i;
	while (i < len && text[i] >= '0' && text[i] <= '9')
		i++;
	if (!parse_u64_dec(text + start, i - start, &stamp->sec))
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected the seconds of the "
			       "event time", start);
	if (i >= len || text[i] != '.')
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected '.' after the seconds",
			       i);
	i++;
	start = i;
	while (i < len && text[i] >= '0' && text[i] <= '9')
		i++;
	uint64_t msec;
	if (!parse_u64_dec(text + start, i - start, &msec) || msec > 999)
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected milliseconds "
			       "(0 to 999)", start);
	stamp->msec = (unsigned)msec;
	if (i >= len || text[i] != ':')
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected ':' before the "
			       "serial", i);
	i++;
	start = i;
	while (i < len && text[i] >= '0' && text[i] <= '9')
		i++;
	if (!parse_u64_dec(text + start, i - start, &stamp->serial))
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected the event serial",
			       start);
	if (i + 1 >= len || text[i] != ')' || text[i + 1] != ':')
		return hk_fail(err, EINVAL, "audit message at byte %zu: expected \"):\" after the "
			       "serial", i);
	i += 2;
	/* The kernel writes exactly one space; a record with no fields ends right here. */
	if (i < len && text[i] == ' ')
		i++;
	*body_offset = i;
	return 0;
}

/* ---- fields ---- */

static void fields_push(struct hk_audit_fields *f, struct hk_audit_field field)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->items = hk_xrealloc(f->items, f->cap * sizeof(*f->items));
	}
	f->items[f->n++] = field;
}

void hk_audit_fields_free(struct hk_audit_fields *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->items[i].key);
		free(f->items[i].value);
	}
	free(f->items);
	f->items = NULL;
	f->n = f->cap = 0;
}

const struct hk_audit_field *hk_audit_field_get(const struct hk_audit_fields *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->items[i].key, key) == 0)
			return &f->items[i];
	return NULL;
}

static bool is_upper_hex_string(const char *s, size_t n)
{
	if (n == 0 || n % 2 != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (upper_hex_value(s[i]) < 0)
			return false;
	return true;
}

static char *hex_decode(const char *s, size_t n, size_t *out_len)
{
	char *out = hk_xmalloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++)
		out[i] = (char)(upper_hex_value(s[2 * i]) << 4 | upper_hex_value(s[2 * i + 1]));
	out[n / 2] = '\0';
	*out_len = n / 2;
	return out;
}

static int parse_fields(const char *text, size_t len, struct hk_audit_fields *out,
			struct hk_error *err)
{
	size_t i = 0;
	char d[8];

	/* Netlink payloads may carry a trailing NUL or newline; they are not part of a field. */
	while (len > 0 && (text[len - 1] == '\0' || text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;

	while (i < len) {
		while (i < len && text[i] == ' ')
			i++;
		if (i >= len)
			break;

		size_t tok = i, tok_end = i;
		while (tok_end < len && text[tok_end] != ' ') {
			/* The kernel never writes control bytes: an untrusted string holding one
			 * is hex-encoded. */
			unsigned char u = (unsigned char)text[tok_end];
			if (u < 0x20 || u == 0x7f)
				return hk_fail(err, EINVAL, "audit record at byte %zu: unexpected "
					       "control byte %s", tok_end, byte_desc(text[tok_end], d));
			tok_end++;
		}
		const char *eq = memchr(text + tok, '=', tok_end - tok);

		if (!eq) {
			/* A word without '=' continues the previous bare value: security contexts
			 * such as AppArmor's "subj=unconfined (enforce)" contain a space. */
			struct hk_audit_field *prev = out->n ? &out->items[out->n - 1] : NULL;
			if (!prev || prev->form != HK_AUDIT_BARE ||
			    hk_audit_key_is_untrusted_string(prev->key) || prev->value_offset +
			    prev->value_len + 1 != tok)
				return hk_fail(err, EINVAL, "audit record at byte %zu: expected "
					       "key=value, found a word without '='", tok);
			size_t n = prev->value_len + 1 + (tok_end - tok);
			prev->value = hk_xrealloc(prev->value, n + 1);
			prev->value[prev->value_len] = ' ';
			memcpy(prev->value + prev->value_len + 1, text + tok, tok_end - tok);
			prev->value[n] = '\0';
			prev->value_len = n;
			i = tok_end;
			continue;
		}

		size_t key_end = (size_t)(eq - text);
		if (key_end == tok)
			return hk_fail(err, EINVAL, "audit record at byte %zu: empty field name before "
				       "'='", tok);
		for (size_t k = tok; k < key_end; k++)
			if (!is_key_char(text[k]))
				return hk_fail(err, EINVAL, "audit record at byte %zu: unexpected %s "
					       "in a field name", k, byte_desc(text[k], d));

		struct hk_audit_field field = { 0 };
		field.key = hk_xstrndup(text + tok, key_end - tok);
		field.key_offset = tok;
		field.value_offset = key_end + 1;
		i = key_end + 1;

		if (i < len && text[i] == '"') {
			/* A quoted untrusted string never contains '"' (it would have been hex),
			 * so the next quote closes it. */
			const char *close = memchr(text + i + 1, '"', len - i - 1);
			if (!close) {
				int r = hk_fail(err, EINVAL, "audit record at byte %zu: unterminated "
						"quoted value of '%s'", i, field.key);
				free(field.key);
				return r;
			}
			size_t vstart = i + 1, vend = (size_t)(close - text);
			for (size_t k = tok_end; k < vend; k++) {
				unsigned char u = (unsigned char)text[k];
				if (u < 0x20 || u == 0x7f) {
					int r = hk_fail(err, EINVAL, "audit record at byte %zu: "
							"unexpected control byte %s", k,
							byte_desc(text[k], d));
					free(field.key);
					return r;
				}
			}
			if (vend + 1 < len && text[vend + 1] != ' ') {
				int r = hk_fail(err, EINVAL, "audit record at byte %zu: expected a space "
						"after the quoted value of '%s', found %s", vend + 1,
						field.key, byte_desc(text[vend + 1], d));
				free(field.key);
				return r;
			}
			field.form = HK_AUDIT_QUOTED;
			field.value = hk_xmemdupz(text + vstart, vend - vstart);
			field.value_len = vend - vstart;
			field.value_offset = vstart;
			i = vend + 1;
		} else {
			size_t vstart = i, vend = tok_end;
			const char *v = text + vstart;
			size_t vn = vend - vstart;
			if (hk_audit_key_is_untrusted_string(field.key) && vn > 0) {
				if (is_upper_hex_string(v, vn)) {
					field.form = HK_AUDIT_HEX;
					field.value = hex_decode(v, vn, &field.value_len);
				} else if (v[0] == '(' || v[0] == '<') {
					/* Kernel placeholders: exe=(null), path=<too_long>, … */
					field.form = HK_AUDIT_BARE;
				} else {
					int r = hk_fail(err, EINVAL, "audit record at byte %zu: value of "
							"'%s' is neither quoted nor uppercase hex "
							"(odd length or a non-hex digit)", vstart,
							field.key);
					free(field.key);
					return r;
				}
			}
			if (!field.value) {
				field.value = hk_xmemdupz(v, vn);
				field.value_len = vn;
			}
			i = vend;
		}
		fields_push(out, field);
	}
	return 0;
}

int hk_audit_parse_fields(const char *text, size_t len, struct hk_audit_fields *out,
			  struct hk_error *err)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	int r = parse_fields(text, len, &f, err);
	if (r < 0) {
		hk_audit_fields_free(&f);
		return r;
	}
	*out = f;
	return 0;
}

/* ---- typed records ---- */

/* Looks up a required field; the error names the record and where it ended. */
static const struct hk_audit_field *require(const struct hk_audit_fields *f, const char *key,
					    const char *record, size_t len, struct hk_error *err)
{
	const struct hk_audit_field *fl = hk_audit_field_get(f, key);
	if (!fl)
		hk_fail(err, EINVAL, "%s record at byte %zu (end of record): no '%s' field", record,
			len, key);
	return fl;
}

static int bad_number(struct hk_error *err, const char *record, const struct hk_audit_field *fl,
		      const char *what)
{
	return hk_fail(err, EINVAL, "%s record at byte %zu: '%s' is not %s", record,
		       fl->value_offset, fl->key, what);
}

static int need_bare(struct hk_error *err, const char *record, const struct hk_audit_field *fl)
{
	if (fl->form != HK_AUDIT_BARE)
		return hk_fail(err, EINVAL, "%s record at byte %zu: '%s' must be a bare value",
			       record, fl->value_offset, fl->key);
	return 0;
}

static int get_u64_dec(const struct hk_audit_field *fl, const char *record, uint64_t *out,
		       struct hk_error *err)
{
	if (need_bare(err, record, fl) < 0)
		return -err->code;
	if (!parse_u64_dec(fl->value, fl->value_len, out))
		return bad_number(err, record, fl, "an unsigned decimal number");
	return 0;
}

static int get_i64_dec(const struct hk_audit_field *fl, const char *record, int64_t *out,
		       struct hk_error *err)
{
	if (need_bare(err, record, fl) < 0)
		return -err->code;
	if (!parse_i64_dec(fl->value, fl->value_len, out))
		return bad_number(err, record, fl, "a decimal number");
	return 0;
}

static int get_domain(const struct hk_audit_fields *f, const char *record, size_t len,
		      uint64_t *out, struct hk_error *err)
{
	const struct hk_audit_field *fl = require(f, "domain", record, len, err);
	if (!fl)
		return -err->code;
	if (need_bare(err, record, fl) < 0)
		return -err->code;
	/* Written with %llx: hex without 0x, at most 16 digits. */
	if (!parse_u64_hex(fl->value, fl->value_len, out))
		return bad_number(err, record, fl, "a hexadecimal domain id");
	return 0;
}

static void copy_string(const struct hk_audit_field *fl, char **out, size_t *out_len)
{
	*out = hk_xmemdupz(fl->value, fl->value_len);
	*out_len = fl->value_len;
}

void hk_landlock_access_free(struct hk_landlock_access *a)
{
	free(a->blockers);
	free(a->path);
	free(a->dev);
	free(a->ocomm);
	memset(a, 0, sizeof(*a));
}

/* Whether the comma-separated `list` (n bytes) holds the right `name` (len bytes). */
static bool list_has(const char *list, size_t n, const char *name, size_t len)
{
	for (size_t at = 0; at < n;) {
		size_t end = at;
		while (end < n && list[end] != ',')
			end++;
		if (end - at == len && memcmp(list + at, name, len) == 0)
			return true;
		at = end + 1;
	}
	return false;
}

void hk_blockers_union(struct hk_buf *acc, const char *blockers)
{
	for (const char *p = blockers; *p;) {
		size_t len = strcspn(p, ",");
		if (len && !list_has(acc->data ? acc->data : "", acc->len, p, len)) {
			if (acc->len)
				hk_buf_putc(acc, ',');
			hk_buf_append(acc, p, len);
		}
		p += len + (p[len] == ',');
	}
}

static int access_from_fields(const struct hk_audit_fields *f, size_t len,
			      struct hk_landlock_access *a, struct hk_error *err)
{
	static const char rec[] = "LANDLOCK_ACCESS";
	const struct hk_audit_field *fl;

	if (get_domain(f, rec, len, &a->domain, err) < 0)
		return -err->code;
	if (!(fl = require(f, "blockers", rec, len, err)))
		return -err->code;
	if (need_bare(err, rec, fl) < 0)
		return -err->code;
	if (fl->value_len == 0)
		return hk_fail(err, EINVAL, "%s record at byte %zu: 'blockers' is empty", rec,
			       fl->value_offset);
	for (size_t i = 0; i < fl->value_len; i++) {
		char c = fl->value[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == ','))
			return hk_fail(err, EINVAL, "%s record at byte %zu: unexpected character in "
				       "'blockers'", rec, fl->value_offset + i);
	}
	a->blockers = hk_xstrndup(fl->value, fl->value_len);

	if ((fl = hk_audit_field_get(f, "path"))) {
		a->has_path = true;
		copy_string(fl, &a->path, &a->path_len);
	}
	if ((fl = hk_audit_field_get(f, "dev")))
		copy_string(fl, &a->dev, &a->dev_len);
	if ((fl = hk_audit_field_get(f, "ino"))) {
		if (get_u64_dec(fl, rec, &a->ino, err) < 0)
			return -err->code;
		a->has_ino = true;
	}
	if ((fl = hk_audit_field_get(f, "opid"))) {
		if (get_i64_dec(fl, rec, &a->opid, err) < 0)
			return -err->code;
		a->has_opid = true;
	}
	if ((fl = hk_audit_field_get(f, "ocomm")))
		copy_string(fl, &a->ocomm, &a->ocomm_len);
	return 0;
}

int hk_landlock_access_parse(const char *text, size_t len, struct hk_landlock_access *out,
			     struct hk_error *err)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_landlock_access a = { 0 };
	int r = hk_audit_parse_fields(text, len, &f, err);
	if (r < 0)
		return r;
	r = access_from_fields(&f, len, &a, err);
	hk_audit_fields_free(&f);
	if (r < 0) {
		hk_landlock_access_free(&a);
		return r;
	}
	*out = a;
	return 0;
}

void hk_landlock_domain_free(struct hk_landlock_domain *d)
{
	free(d->mode);
	free(d->exe);
	free(d->comm);
	memset(d, 0, sizeof(*d));
}

static int domain_from_fields(const struct hk_audit_fields *f, size_t len,
			      struct hk_landlock_domain *d, struct hk_error *err)
{
	static const char rec[] = "LANDLOCK_DOMAIN";
	const struct hk_audit_field *fl;

	if (get_domain(f, rec, len, &d->domain, err) < 0)
		return -err->code;
	if (!(fl = require(f, "status", rec, len, err)))
		return -err->code;
	if (strcmp(fl->value, "allocated") == 0 && fl->form == HK_AUDIT_BARE) {
		d->status = HK_DOMAIN_ALLOCATED;
		if (!(fl = require(f, "mode", rec, len, err)))
			return -err->code;
		d->mode = hk_xstrndup(fl->value, fl->value_len);
		if (!(fl = require(f, "pid", rec, len, err)) || get_i64_dec(fl, rec, &d->pid, err) < 0)
			return -err->code;
		if (!(fl = require(f, "uid", rec, len, err)) || get_u64_dec(fl, rec, &d->uid, err) < 0)
			return -err->code;
		if (!(fl = require(f, "exe", rec, len, err)))
			return -err->code;
		copy_string(fl, &d->exe, &d->exe_len);
		if (!(fl = require(f, "comm", rec, len, err)))
			return -err->code;
		copy_string(fl, &d->comm, &d->comm_len);
	} else if (strcmp(fl->value, "deallocated") == 0 && fl->form == HK_AUDIT_BARE) {
		d->status = HK_DOMAIN_DEALLOCATED;
		if (!(fl = require(f, "denials", rec, len, err)) ||
		    get_u64_dec(fl, rec, &d->denials, err) < 0)
			return -err->code;
	} else {
		return hk_fail(err, EINVAL, "%s record at byte %zu: unknown status (expected "
			       "allocated or deallocated)", rec, fl->value_offset);
	}
	return 0;
}

int hk_landlock_domain_parse(const char *text, size_t len, struct hk_landlock_domain *out,
			     struct hk_error *err)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_landlock_domain d = { 0 };
	int r = hk_audit_parse_fields(text, len, &f, err);
	if (r < 0)
		return r;
	r = domain_from_fields(&f, len, &d, err);
	hk_audit_fields_free(&f);
	if (r < 0) {
		hk_landlock_domain_free(&d);
		return r;
	}
	*out = d;
	return 0;
}

void hk_audit_syscall_free(struct hk_audit_syscall *s)
{
	free(s->exe);
	free(s->comm);
	memset(s, 0, sizeof(*s));
}

static int syscall_from_fields(const struct hk_audit_fields *f, size_t len,
			       struct hk_audit_syscall *s, struct hk_error *err)
{
	static const char rec[] = "SYSCALL";
	const struct hk_audit_field *fl;
	int64_t v;

	if (!(fl = require(f, "syscall", rec, len, err)) || get_i64_dec(fl, rec, &v, err) < 0)
		return -err->code;
	s->syscall = (long)v;
	if ((fl = hk_audit_field_get(f, "success"))) {
		if (strcmp(fl->value, "yes") == 0)
			s->success = true;
		else if (strcmp(fl->value, "no") == 0)
			s->success = false;
		else
			return hk_fail(err, EINVAL, "%s record at byte %zu: 'success' is neither "
				       "yes nor no", rec, fl->value_offset);
		s->has_success = true;
	}
	if ((fl = hk_audit_field_get(f, "exit"))) {
		if (get_i64_dec(fl, rec, &s->exit, err) < 0)
			return -err->code;
		s->has_exit = true;
	}
	if ((fl = hk_audit_field_get(f, "pid"))) {
		if (get_i64_dec(fl, rec, &s->pid, err) < 0)
			return -err->code;
		s->has_pid = true;
	}
	if ((fl = hk_audit_field_get(f, "uid"))) {
		if (get_u64_dec(fl, rec, &s->uid, err) < 0)
			return -err->code;
		s->has_uid = true;
	}
	if ((fl = hk_audit_field_get(f, "exe")))
		copy_string(fl, &s->exe, &s->exe_len);
	if ((fl = hk_audit_field_get(f, "comm")))
		copy_string(fl, &s->comm, &s->comm_len);
	return 0;
}

int hk_audit_syscall_parse(const char *text, size_t len, struct hk_audit_syscall *out,
			   struct hk_error *err)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_audit_syscall s = { 0 };
	int r = hk_audit_parse_fields(text, len, &f, err);
	if (r < 0)
		return r;
	r = syscall_from_fields(&f, len, &s, err);
	hk_audit_fields_free(&f);
	if (r < 0) {
		hk_audit_syscall_free(&s);
		return r;
	}
	*out = s;
	return 0;
}
