#include "core/formats/reader_line.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/jread.h"
#include "core/basic/util.h"

static const char *const event_names[] = {
	[HK_READER_READY] = "ready",     [HK_READER_RECORD] = "record",
	[HK_READER_OVERRUN] = "overrun", [HK_READER_END] = "end",
	[HK_READER_ERROR] = "error",     [HK_READER_WARNING] = "warning",
	[HK_READER_STATUS] = "status",
};

/* The audit status's members, in the order they are written. */
#define STATUS_FIELDS(X)                                                                       \
	X(enabled) X(failure) X(pid) X(rate_limit) X(backlog_limit) X(lost) X(backlog)           \
	X(backlog_wait_time)

void hk_audit_status_json(struct hk_json *j, const struct hk_audit_status *st)
{
	hk_json_obj_begin(j);
#define WRITE_FIELD(f)                                                                         \
	hk_json_key(j, #f);                                                                      \
	hk_json_uint(j, st->f);
	STATUS_FIELDS(WRITE_FIELD)
#undef WRITE_FIELD
	hk_json_obj_end(j);
}

static const char *cap_name(unsigned cap)
{
	switch (cap) {
	case HK_CAP_AUDIT_READ:
		return "cap_audit_read";
	case HK_CAP_AUDIT_CONTROL:
		return "cap_audit_control";
	default:
		return "cap_other";
	}
}

/* ---- encoder ---- */

static void optional_status(struct hk_json *j, const struct hk_reader_line *l)
{
	hk_json_key(j, "audit");
	if (l->has_audit)
		hk_audit_status_json(j, &l->audit);
	else
		hk_json_null(j);
}

static void optional_text(struct hk_json *j, const char *key, const char *text)
{
	if (!text)
		return;
	hk_json_key(j, key);
	hk_json_bytes(j, text, strlen(text));
}

static void uint_member(struct hk_json *j, const char *key, uint64_t v)
{
	hk_json_key(j, key);
	hk_json_uint(j, v);
}

static void privileges_json(struct hk_json *j, const struct hk_reader_privileges *p)
{
	hk_json_obj_begin(j);
	uint_member(j, "uid", p->uid);
	uint_member(j, "gid", p->gid);
	hk_json_key(j, "capabilities");
	hk_json_arr_begin(j);
	for (unsigned cap = 0; cap < 64; cap++)
		if (p->caps & (1ULL << cap))
			hk_json_str(j, cap_name(cap));
	hk_json_arr_end(j);
	hk_json_key(j, "bounding_set_dropped");
	hk_json_bool(j, p->bounding_set_dropped);
	hk_json_key(j, "no_new_privs");
	hk_json_bool(j, p->no_new_privs);
	hk_json_obj_end(j);
}

void hk_audit_changes_json(struct hk_json *j, const struct hk_audit_change *changes, size_t n)
{
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		hk_json_obj_begin(j);
		hk_json_key(j, "field");
		hk_json_str(j, changes[i].field);
		uint_member(j, "from", changes[i].from);
		uint_member(j, "to", changes[i].to);
		hk_json_obj_end(j);
	}
	hk_json_arr_end(j);
}

static void ready_members(struct hk_json *j, const struct hk_reader_line *l)
{
	hk_json_key(j, "confirmed");
	hk_json_bool(j, l->confirmed);
	optional_status(j, l);
	hk_json_key(j, "changed");
	hk_audit_changes_json(j, l->changed, l->n_changed);
	hk_json_key(j, "rcvbuf");
	hk_json_int(j, l->rcvbuf);
	hk_json_key(j, "rcvbuf_forced");
	hk_json_bool(j, l->rcvbuf_forced);
	hk_json_key(j, "privileges");
	privileges_json(j, &l->privileges);
	uint_member(j, "caller_uid", l->caller_uid);
	hk_json_key(j, "filtered");
	hk_json_bool(j, l->filtered);
	if (!l->confirmed)
		optional_text(j, "reason", l->text_reason ? l->text_reason : "");
}

static void record_members(struct hk_json *j, const struct hk_reader_line *l)
{
	uint_member(j, "type", l->type);
	hk_json_key(j, "serial");
	if (l->has_stamp)
		hk_json_uint(j, l->serial);
	else
		hk_json_null(j);
	hk_json_key(j, "time");
	if (l->has_stamp) {
		char t[48];
		int n = snprintf(t, sizeof(t), "%" PRIu64 ".%03u", l->sec, l->msec);
		hk_json_strn(j, t, (size_t)n);
	} else {
		hk_json_null(j);
	}
	hk_json_key(j, "text");
	hk_json_bytes(j, l->text ? l->text : "", l->text ? l->text_len : 0);
}

static void end_members(struct hk_json *j, const struct hk_reader_line *l)
{
	hk_json_key(j, "reason");
	hk_json_str(j, l->text_reason ? l->text_reason : "");
	optional_status(j, l);
	optional_text(j, "audit_error", l->audit_error);
	uint_member(j, "enobufs", l->enobufs);
	uint_member(j, "records_received", l->records_received);
	uint_member(j, "records_forwarded", l->records_forwarded);
	uint_member(j, "foreign", l->foreign);
	uint_member(j, "withheld", l->withheld);
	uint_member(j, "evicted", l->evicted);
	uint_member(j, "untracked", l->untracked);
}

static void status_members(struct hk_json *j, const struct hk_reader_line *l)
{
	hk_json_key(j, "confirmed");
	hk_json_bool(j, l->confirmed);
	optional_status(j, l);
	uint_member(j, "caller_uid", l->caller_uid);
	hk_json_key(j, "filtered");
	hk_json_bool(j, l->filtered);
	hk_json_key(j, "can_read");
	hk_json_bool(j, l->can_read);
	optional_text(j, "read_error", l->read_error);
	hk_json_key(j, "can_control");
	hk_json_bool(j, l->can_control);
	optional_text(j, "control_error", l->audit_error);
	hk_json_key(j, "switchable");
	hk_json_bool(j, l->switchable);
	hk_json_key(j, "evidence");
	hk_json_bool(j, l->evidence);
	hk_json_key(j, "rcvbuf");
	hk_json_int(j, l->rcvbuf);
	hk_json_key(j, "initial_userns");
	if (l->initial_userns < 0)
		hk_json_null(j);
	else
		hk_json_bool(j, l->initial_userns > 0);
	if (!l->evidence)
		optional_text(j, "reason", l->text_reason ? l->text_reason : "");
}

void hk_reader_line_encode(const struct hk_reader_line *l, struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "event");
	hk_json_str(&j, event_names[l->event]);
	switch (l->event) {
	case HK_READER_READY:
		ready_members(&j, l);
		break;
	case HK_READER_RECORD:
		record_members(&j, l);
		break;
	case HK_READER_OVERRUN:
		uint_member(&j, "enobufs", l->enobufs);
		break;
	case HK_READER_END:
		end_members(&j, l);
		break;
	case HK_READER_ERROR:
	case HK_READER_WARNING:
		hk_json_key(&j, "message");
		hk_json_bytes(&j, l->text_reason ? l->text_reason : "",
			      l->text_reason ? strlen(l->text_reason) : 0);
		break;
	case HK_READER_STATUS:
		status_members(&j, l);
		break;
	}
	hk_json_obj_end(&j);
	hk_buf_putc(out, '\n');
}

/* ---- decoder ---- */

static void status_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_reader_line *l)
{
	const struct hk_jval *a = hk_jread_member(r, v, "audit", HK_JOBJ);
	l->has_audit = a != NULL;
#define READ_FIELD(f) l->audit.f = (uint32_t)hk_jread_int(r, a, #f, 0);
	STATUS_FIELDS(READ_FIELD)
#undef READ_FIELD
}

static void privileges_decode(struct hk_jread *r, const struct hk_jval *p,
			      struct hk_reader_privileges *out)
{
	out->uid = (uint32_t)hk_jread_int(r, p, "uid", 0);
	out->gid = (uint32_t)hk_jread_int(r, p, "gid", 0);
	const struct hk_jval *caps = hk_jread_member(r, p, "capabilities", HK_JARR);
	for (size_t i = 0; caps && i < caps->len; i++) {
		const struct hk_jval *c = &caps->items[i];
		if (c->type != HK_JSTR) {
			r->bad = r->bad ? r->bad : "capabilities";
		} else if (strcmp(c->str, cap_name(HK_CAP_AUDIT_READ)) == 0) {
			out->caps |= 1ULL << HK_CAP_AUDIT_READ;
		} else if (strcmp(c->str, cap_name(HK_CAP_AUDIT_CONTROL)) == 0) {
			out->caps |= 1ULL << HK_CAP_AUDIT_CONTROL;
		} else {
			out->other_caps = true;
		}
	}
	out->bounding_set_dropped = hk_jread_bool(r, p, "bounding_set_dropped");
	out->no_new_privs = hk_jread_bool(r, p, "no_new_privs");
}

static void ready_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_reader_line *l)
{
	l->confirmed = hk_jread_bool(r, v, "confirmed");
	status_decode(r, v, l);
	const struct hk_jval *ch = hk_jread_member(r, v, "changed", HK_JARR);
	for (size_t i = 0; ch && i < ch->len && l->n_changed < HK_READER_MAX_CHANGES; i++) {
		struct hk_audit_change *c = &l->changed[l->n_changed++];
		const struct hk_jval *f = hk_jread_member(r, &ch->items[i], "field", HK_JSTR);
		snprintf(c->field, sizeof(c->field), "%s", f ? f->str : "");
		c->from = (uint32_t)hk_jread_int(r, &ch->items[i], "from", 0);
		c->to = (uint32_t)hk_jread_int(r, &ch->items[i], "to", 0);
	}
	l->rcvbuf = hk_jread_int(r, v, "rcvbuf", 0);
	l->rcvbuf_forced = hk_jread_bool(r, v, "rcvbuf_forced");
	privileges_decode(r, hk_jread_member(r, v, "privileges", HK_JOBJ), &l->privileges);
	l->caller_uid = (uint64_t)hk_jread_int(r, v, "caller_uid", 0);
	l->filtered = hk_jread_bool(r, v, "filtered");
	l->text_reason = hk_jread_bytes(r, v, "reason", NULL);
}

static void record_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_reader_line *l)
{
	l->type = (unsigned)hk_jread_int(r, v, "type", 0);
	const struct hk_jval *serial = hk_jread_member(r, v, "serial", HK_JNUM);
	l->has_stamp = serial != NULL;
	l->serial = serial ? (uint64_t)serial->i : 0;
	const struct hk_jval *t = hk_jread_member(r, v, "time", HK_JSTR);
	if (t) {
		unsigned long long sec = 0;
		unsigned msec = 0;
		if (sscanf(t->str, "%llu.%3u", &sec, &msec) == 2) {
			l->sec = sec;
			l->msec = msec;
		}
	}
	l->text = hk_jread_bytes(r, v, "text", &l->text_len);
}

static void end_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_reader_line *l)
{
	l->text_reason = hk_jread_bytes(r, v, "reason", NULL);
	status_decode(r, v, l);
	l->audit_error = hk_jread_bytes(r, v, "audit_error", NULL);
	l->enobufs = (uint64_t)hk_jread_int(r, v, "enobufs", 0);
	l->records_received = (uint64_t)hk_jread_int(r, v, "records_received", 0);
	l->records_forwarded = (uint64_t)hk_jread_int(r, v, "records_forwarded", 0);
	l->foreign = (uint64_t)hk_jread_int(r, v, "foreign", 0);
	l->withheld = (uint64_t)hk_jread_int(r, v, "withheld", 0);
	l->evicted = (uint64_t)hk_jread_int(r, v, "evicted", 0);
	l->untracked = (uint64_t)hk_jread_int(r, v, "untracked", 0);
}

static void status_line_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_reader_line *l)
{
	l->confirmed = hk_jread_bool(r, v, "confirmed");
	status_decode(r, v, l);
	l->caller_uid = (uint64_t)hk_jread_int(r, v, "caller_uid", 0);
	l->filtered = hk_jread_bool(r, v, "filtered");
	l->can_read = hk_jread_bool(r, v, "can_read");
	l->read_error = hk_jread_bytes(r, v, "read_error", NULL);
	l->can_control = hk_jread_bool(r, v, "can_control");
	l->audit_error = hk_jread_bytes(r, v, "control_error", NULL);
	l->switchable = hk_jread_bool(r, v, "switchable");
	l->evidence = hk_jread_bool(r, v, "evidence");
	l->rcvbuf = hk_jread_int(r, v, "rcvbuf", 0);
	const struct hk_jval *ns = hk_jread_member(r, v, "initial_userns", HK_JBOOL);
	l->initial_userns = ns ? ns->b : -1;
	l->text_reason = hk_jread_bytes(r, v, "reason", NULL);
}

int hk_reader_line_decode(const char *line, size_t len, struct hk_reader_line *l,
			  struct hk_error *err)
{
	memset(l, 0, sizeof(*l));
	struct hk_jval *v = NULL;
	if (hk_json_parse(line, len, &v, err) < 0)
		return hk_wrap(err, "a line of the audit reader");
	struct hk_jread r = { NULL };
	const struct hk_jval *event = hk_jread_member(&r, v, "event", HK_JSTR);
	size_t k = 0;
	while (event && k < HK_ARRAY_LEN(event_names) && strcmp(event->str, event_names[k]) != 0)
		k++;
	if (!event || k == HK_ARRAY_LEN(event_names)) {
		int rc = hk_fail(err, EINVAL, "a line of the audit reader names no known event ('%s')",
				 event ? event->str : "");
		hk_jval_free(v);
		return rc;
	}
	l->event = (enum hk_reader_event)k;
	switch (l->event) {
	case HK_READER_READY:
		ready_decode(&r, v, l);
		break;
	case HK_READER_RECORD:
		record_decode(&r, v, l);
		break;
	case HK_READER_OVERRUN:
		l->enobufs = (uint64_t)hk_jread_int(&r, v, "enobufs", 0);
		break;
	case HK_READER_END:
		end_decode(&r, v, l);
		break;
	case HK_READER_ERROR:
	case HK_READER_WARNING:
		l->text_reason = hk_jread_bytes(&r, v, "message", NULL);
		break;
	case HK_READER_STATUS:
		status_line_decode(&r, v, l);
		break;
	}
	hk_jval_free(v);
	if (r.bad) {
		hk_reader_line_free(l);
		return hk_fail(err, EINVAL, "a line of the audit reader: member \"%s\" has the wrong "
					    "type", r.bad);
	}
	return 0;
}

void hk_reader_line_free(struct hk_reader_line *l)
{
	free(l->text_reason);
	free(l->audit_error);
	free(l->read_error);
	free(l->text);
	memset(l, 0, sizeof(*l));
}
