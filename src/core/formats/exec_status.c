#include "core/formats/exec_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/jread.h"
#include "core/basic/util.h"

static const char *const canary_names[] = {
	[HK_CANARY_DENIED] = "denied",
	[HK_CANARY_OPENED] = "opened",
	[HK_CANARY_ERROR] = "error",
};

const char *hk_canary_result_name(enum hk_canary_result r)
{
	return (unsigned)r < HK_ARRAY_LEN(canary_names) ? canary_names[r] : "error";
}

/* ---- encoder ---- */

static void names_json(struct hk_json *j, const char *key, const struct hk_exec_names *n,
		       bool bytes)
{
	hk_json_key(j, key);
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n->n; i++) {
		if (bytes)
			hk_json_bytes(j, n->v[i], strlen(n->v[i]));
		else
			hk_json_str(j, n->v[i]);
	}
	hk_json_arr_end(j);
}

static void uint_member(struct hk_json *j, const char *key, uint64_t v)
{
	hk_json_key(j, key);
	hk_json_uint(j, v);
}

static void bool_member(struct hk_json *j, const char *key, bool v)
{
	hk_json_key(j, key);
	hk_json_bool(j, v);
}

static void double_member(struct hk_json *j, const char *key, double v)
{
	hk_json_key(j, key);
	hk_json_double(j, v);
}

void hk_cage_report_setup_json(const struct hk_cage_report *c, struct hk_json *j)
{
	hk_json_obj_begin(j);
	double_member(j, "policy", c->setup_policy_ms);
	double_member(j, "rules", c->setup_rules_ms);
	double_member(j, "restrict", c->setup_restrict_ms);
	double_member(j, "seccomp", c->setup_seccomp_ms);
	hk_json_obj_end(j);
}

static void cage_members(const struct hk_cage_report *c, struct hk_json *j)
{
	hk_json_key(j, "abi");
	hk_json_int(j, c->abi);
	hk_json_key(j, "real_abi");
	hk_json_int(j, c->real_abi);
	uint_member(j, "errata", c->errata);
	bool_member(j, "forced", c->forced);
	hk_json_key(j, "tier");
	hk_json_str(j, hk_tier_name(c->tier));
	names_json(j, "handled_fs", &c->handled_fs, false);
	names_json(j, "dropped_fs", &c->dropped_fs, false);
	names_json(j, "scopes", &c->scopes, false);
	names_json(j, "dropped_scopes", &c->dropped_scopes, false);
	hk_json_key(j, "log_flags");
	hk_json_arr_begin(j);
	if (c->log_new_exec_on)
		hk_json_str(j, "log_new_exec_on");
	hk_json_arr_end(j);
	bool_member(j, "log_flag_withheld", c->log_flag_withheld);
	bool_member(j, "tsync", c->tsync);
	uint_member(j, "rules", c->rules);
	uint_member(j, "ancestors", c->ancestors);
	uint_member(j, "ro_dirs", c->ro_dirs);
	uint_member(j, "beneath", c->beneath);
	uint_member(j, "covered", c->covered);
	uint_member(j, "declined", c->declined);
	uint_member(j, "ro_sb_truncate", c->ro_sb_truncate);
	uint_member(j, "installers", c->installers);
	names_json(j, "missing", &c->missing, true);
	names_json(j, "not_dirs", &c->not_dirs, true);
	hk_json_key(j, "seccomp");
	hk_json_obj_begin(j);
	bool_member(j, "installed", c->seccomp_installed);
	uint_member(j, "syscalls", c->seccomp_syscalls);
	names_json(j, "arches", &c->seccomp_arches, false);
	names_json(j, "reachable", &c->seccomp_reachable, false);
	hk_json_obj_end(j);
	hk_json_key(j, "setup_ms");
	hk_cage_report_setup_json(c, j);
	hk_json_key(j, "closed_fds");
	if (c->closed_fds < 0)
		hk_json_null(j);
	else
		hk_json_int(j, c->closed_fds);
	hk_json_key(j, "canary_probe");
	hk_json_str(j, c->canary_after_exec ? "after_exec" : "skipped");
}

void hk_cage_report_json(const struct hk_cage_report *c, struct hk_json *j)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "event");
	hk_json_str(j, "cage");
	cage_members(c, j);
	hk_json_obj_end(j);
}

void hk_exec_event_encode(const struct hk_exec_event *ev, struct hk_buf *out)
{
	struct hk_json j;
	hk_json_init(&j, out, 0);
	if (ev->kind == HK_EXEC_EVENT_CAGE) {
		hk_cage_report_json(&ev->cage, &j);
		return;
	}
	hk_json_obj_begin(&j);
	hk_json_key(&j, "event");
	if (ev->kind == HK_EXEC_EVENT_CANARY) {
		hk_json_str(&j, "canary");
		hk_json_key(&j, "result");
		hk_json_str(&j, hk_canary_result_name(ev->canary));
		hk_json_key(&j, "errno");
		hk_json_int(&j, ev->canary_errno);
		hk_json_key(&j, "path");
		const char *p = ev->canary_path ? ev->canary_path : "";
		hk_json_bytes(&j, p, strlen(p));
	} else {
		hk_json_str(&j, "error");
		hk_json_key(&j, "layer");
		hk_json_str(&j, ev->layer ? ev->layer : "unknown");
		hk_json_key(&j, "message");
		const char *m = ev->message ? ev->message : "";
		hk_json_bytes(&j, m, strlen(m));
		if (ev->exit_code >= 0) {
			hk_json_key(&j, "exit");
			hk_json_int(&j, ev->exit_code);
		}
	}
	hk_json_obj_end(&j);
}

/* ---- decoder ---- */

static void names_of(struct hk_jread *r, const struct hk_jval *obj, const char *key,
		     struct hk_exec_names *out)
{
	const struct hk_jval *a = hk_jread_member(r, obj, key, HK_JARR);
	out->v = hk_xcalloc((a ? a->len : 0) + 1, sizeof(char *));
	out->n = 0;
	for (size_t i = 0; a && i < a->len; i++) {
		size_t len;
		char *s = hk_jval_bytes(&a->items[i], &len);
		if (!s) {
			if (!r->bad)
				r->bad = key;
			continue;
		}
		out->v[out->n++] = s;
	}
}

static void names_free(struct hk_exec_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	n->v = NULL;
	n->n = 0;
}

static void cage_decode(struct hk_jread *r, const struct hk_jval *v, struct hk_cage_report *c)
{
	c->abi = (int)hk_jread_int(r, v, "abi", -1);
	c->real_abi = (int)hk_jread_int(r, v, "real_abi", c->abi);
	c->errata = (uint64_t)hk_jread_int(r, v, "errata", 0);
	c->forced = hk_jread_bool(r, v, "forced");
	const struct hk_jval *tier = hk_jread_member(r, v, "tier", HK_JSTR);
	if (!tier || !hk_tier_from_name(tier->str, &c->tier))
		c->tier = hk_tier_of_abi(c->abi);
	names_of(r, v, "handled_fs", &c->handled_fs);
	names_of(r, v, "dropped_fs", &c->dropped_fs);
	names_of(r, v, "scopes", &c->scopes);
	names_of(r, v, "dropped_scopes", &c->dropped_scopes);
	struct hk_exec_names flags;
	names_of(r, v, "log_flags", &flags);
	for (size_t i = 0; i < flags.n; i++)
		c->log_new_exec_on |= strcmp(flags.v[i], "log_new_exec_on") == 0;
	names_free(&flags);
	c->log_flag_withheld = hk_jread_bool(r, v, "log_flag_withheld");
	c->tsync = hk_jread_bool(r, v, "tsync");
	c->rules = (uint64_t)hk_jread_int(r, v, "rules", 0);
	c->ancestors = (uint64_t)hk_jread_int(r, v, "ancestors", 0);
	c->ro_dirs = (uint64_t)hk_jread_int(r, v, "ro_dirs", 0);
	c->beneath = (uint64_t)hk_jread_int(r, v, "beneath", 0);
	c->covered = (uint64_t)hk_jread_int(r, v, "covered", 0);
	c->declined = (uint64_t)hk_jread_int(r, v, "declined", 0);
	c->ro_sb_truncate = (uint64_t)hk_jread_int(r, v, "ro_sb_truncate", 0);
	c->installers = (uint64_t)hk_jread_int(r, v, "installers", 0);
	names_of(r, v, "missing", &c->missing);
	names_of(r, v, "not_dirs", &c->not_dirs);
	const struct hk_jval *sc = hk_jread_member(r, v, "seccomp", HK_JOBJ);
	c->seccomp_installed = hk_jread_bool(r, sc, "installed");
	c->seccomp_syscalls = (uint64_t)hk_jread_int(r, sc, "syscalls", 0);
	names_of(r, sc, "arches", &c->seccomp_arches);
	names_of(r, sc, "reachable", &c->seccomp_reachable);
	const struct hk_jval *ms = hk_jread_member(r, v, "setup_ms", HK_JOBJ);
	c->setup_policy_ms = hk_jread_double(r, ms, "policy");
	c->setup_rules_ms = hk_jread_double(r, ms, "rules");
	c->setup_restrict_ms = hk_jread_double(r, ms, "restrict");
	c->setup_seccomp_ms = hk_jread_double(r, ms, "seccomp");
	c->closed_fds = (long)hk_jread_int(r, v, "closed_fds", -1);
	const struct hk_jval *probe = hk_jread_member(r, v, "canary_probe", HK_JSTR);
	c->canary_after_exec = probe && strcmp(probe->str, "after_exec") == 0;
}

int hk_exec_event_decode(const char *line, size_t len, struct hk_exec_event *ev,
			 struct hk_error *err)
{
	memset(ev, 0, sizeof(*ev));
	ev->exit_code = -1;
	struct hk_jval *v = NULL;
	int rc = hk_json_parse(line, len, &v, err);
	if (rc < 0)
		return hk_wrap(err, "a status line of harkaq-exec");
	struct hk_jread r = { NULL };
	const struct hk_jval *event = hk_jread_member(&r, v, "event", HK_JSTR);
	const char *name = event ? event->str : "";
	if (strcmp(name, "cage") == 0) {
		ev->kind = HK_EXEC_EVENT_CAGE;
		cage_decode(&r, v, &ev->cage);
	} else if (strcmp(name, "canary") == 0) {
		ev->kind = HK_EXEC_EVENT_CANARY;
		const struct hk_jval *res = hk_jread_member(&r, v, "result", HK_JSTR);
		ev->canary = HK_CANARY_ERROR;
		for (unsigned k = 0; res && k < HK_ARRAY_LEN(canary_names); k++)
			if (strcmp(res->str, canary_names[k]) == 0)
				ev->canary = (enum hk_canary_result)k;
		ev->canary_errno = (int)hk_jread_int(&r, v, "errno", 0);
		ev->canary_path = hk_jread_bytes(&r, v, "path", NULL);
	} else if (strcmp(name, "error") == 0) {
		ev->kind = HK_EXEC_EVENT_ERROR;
		ev->layer = hk_jread_bytes(&r, v, "layer", NULL);
		ev->message = hk_jread_bytes(&r, v, "message", NULL);
		ev->exit_code = (int)hk_jread_int(&r, v, "exit", -1);
	} else {
		rc = hk_fail(err, EINVAL, "a status line of harkaq-exec names no known event ('%s')",
			     name);
		hk_jval_free(v);
		return rc;
	}
	hk_jval_free(v);
	if (r.bad) {
		hk_exec_event_free(ev);
		return hk_fail(err, EINVAL, "a status line of harkaq-exec: member \"%s\" has the "
					    "wrong type", r.bad);
	}
	return 0;
}

void hk_cage_report_free(struct hk_cage_report *c)
{
	names_free(&c->handled_fs);
	names_free(&c->dropped_fs);
	names_free(&c->scopes);
	names_free(&c->dropped_scopes);
	names_free(&c->missing);
	names_free(&c->not_dirs);
	names_free(&c->seccomp_arches);
	names_free(&c->seccomp_reachable);
}

void hk_exec_event_free(struct hk_exec_event *ev)
{
	if (ev->kind == HK_EXEC_EVENT_CAGE)
		hk_cage_report_free(&ev->cage);
	free(ev->canary_path);
	free(ev->layer);
	free(ev->message);
	memset(ev, 0, sizeof(*ev));
	ev->exit_code = -1;
}
