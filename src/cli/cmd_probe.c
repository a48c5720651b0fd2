/* harkaq probe [--json]: what this machine can do, measured, not guessed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/commands.h"
#include "engine/common/proc.h"
#include "core/basic/buf.h"
#include "core/formats/json.h"
#include "core/formats/abi_tier.h"
#include "core/formats/reader_line.h"
#include "core/basic/util.h"
#include "engine/cage/reader_probe.h"
#include "sys/auditnl.h"
#include "sys/entrypoints.h"
#include "sys/landlock.h"

struct bwrap_info {
	bool found;
	char version[64];
	bool overlay_src;
};

/* Runs `bwrap ARG` and captures what it prints (no shell).  0 if it exited with status 0. */
static int capture(const char *bwrap, const char *arg, struct hk_buf *out)
{
	const char *argv[] = { bwrap, arg, NULL };
	struct hk_run_result res;
	struct hk_error ignored;
	if (hk_run_capture(argv, NULL, &res, &ignored) < 0)
		return -ENOEXEC;
	hk_buf_append(out, res.out.data, res.out.len);
	hk_buf_append(out, res.errout.data, res.errout.len);
	int r = res.status == 0 ? 0 : -ENOEXEC;
	hk_run_result_free(&res);
	return r;
}

static void probe_bwrap(struct bwrap_info *b)
{
	memset(b, 0, sizeof(*b));
	const char *bwrap = getenv("HARKAQ_BWRAP");
	if (!bwrap || !*bwrap)
		bwrap = "/usr/bin/bwrap";
	struct hk_buf out = HK_BUF_INIT;
	if (capture(bwrap, "--version", &out) == 0) {
		b->found = true;
		const char *v = hk_buf_str(&out);
		const char *sp = strchr(v, ' ');
		snprintf(b->version, sizeof(b->version), "%.*s", (int)strcspn(sp ? sp + 1 : v, "\n"),
			 sp ? sp + 1 : v);
		hk_buf_reset(&out);
		capture(bwrap, "--help", &out);
		b->overlay_src = strstr(hk_buf_str(&out), "--overlay-src") != NULL;
	}
	hk_buf_free(&out);
}

static const char *found_name(enum hk_reader_found f)
{
	switch (f) {
	case HK_READER_ANSWERED:
		return "answered";
	case HK_READER_MISSING:
		return "missing";
	case HK_READER_NOT_EXECUTABLE:
		return "not_executable";
	case HK_READER_NO_ANSWER:
		return "no_answer";
	}
	return "?";
}

static void reader_json(struct hk_json *j, const struct hk_reader_probe *rp)
{
	const struct hk_reader_line *st = &rp->status;
	bool ans = rp->found == HK_READER_ANSWERED;
	hk_json_obj_begin(j);
	hk_json_key(j, "path");
	if (rp->path)
		hk_json_str(j, rp->path);
	else
		hk_json_null(j);
	hk_json_kv_str(j, "found", found_name(rp->found));
	hk_json_key(j, "group");
	if (rp->group)
		hk_json_str(j, rp->group);
	else
		hk_json_null(j);
	hk_json_kv_bool(j, "nosuid", rp->nosuid);
	hk_json_key(j, "error");
	if (rp->error)
		hk_json_str(j, rp->error);
	else
		hk_json_null(j);
	hk_json_key(j, "caller_uid");
	if (ans)
		hk_json_uint(j, st->caller_uid);
	else
		hk_json_null(j);
	hk_json_kv_bool(j, "filtered", ans && st->filtered);
	hk_json_kv_bool(j, "can_read", ans && st->can_read);
	hk_json_key(j, "read_error");
	if (ans && st->read_error)
		hk_json_str(j, st->read_error);
	else
		hk_json_null(j);
	hk_json_kv_bool(j, "can_control", ans && st->can_control);
	hk_json_key(j, "control_error");
	if (ans && st->audit_error)
		hk_json_str(j, st->audit_error);
	else
		hk_json_null(j);
	hk_json_kv_bool(j, "confirmed", ans && st->confirmed);
	hk_json_kv_bool(j, "switchable", ans && st->switchable);
	hk_json_kv_int(j, "rcvbuf", ans ? st->rcvbuf : 0);
	hk_json_key(j, "initial_userns");
	if (ans && st->initial_userns >= 0)
		hk_json_bool(j, st->initial_userns > 0);
	else
		hk_json_null(j);
	hk_json_obj_end(j);
}

int cmd_probe(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: harkaq probe [--json]\n\n"
			       "Prints what this machine can do, measured with the syscalls themselves:\n"
			       "the Landlock ABI and errata (landlock_create_ruleset, never uname), the tier\n"
			       "of the cage that applies and why, the audit state (AUDIT_GET), whether the\n"
			       "audit reader, run as this user (harkaq-audit --status), can read the audit\n"
			       "stream and confirm audit is on, so that this user's runs would have\n"
			       "evidence, and if not what fixes it; which syscall entry points the\n"
			       "kernel offers (x86_64, i386 through int $0x80, x32: each called, in a\n"
			       "child where a missing one can only kill the child), and bubblewrap's\n"
			       "version and whether it supports --overlay-src.\n\n"
			       "The seccomp filter covers every entry point whether the kernel offers it\n"
			       "or not; \"entry_points\" says which ones a build could really use.\n");
			return HK_EXIT_OK;
		} else {
			fprintf(stderr, "harkaq probe: unknown option '%s'\n", argv[i]);
			return HK_EXIT_USAGE;
		}
	}

	const struct hk_landlock_probe *ll = hk_landlock_probe();
	const char *tier = hk_tier_name(hk_tier_of_abi(ll->abi)), *why;
	if (ll->abi <= 0) {
		why = hk_landlock_unavailable_reason(ll->unavailable);
	} else if (hk_tier_of_abi(ll->abi) == HK_TIER_NONE) {
		why = "Landlock ABI below 3 (no REFER/TRUNCATE): the build runs under the sandbox "
		      "alone and the verdict is NoEvidence";
	} else if (hk_tier_of_abi(ll->abi) == HK_TIER_ENFORCE) {
		why = "Landlock ABI 3-6: the cage is enforced but the kernel cannot report denials, "
		      "so the verdict is NoEvidence";
	} else {
		why = "Landlock ABI 7 or later: the cage is enforced and denials are audited";
	}

	struct hk_evidence_probe ep;
	hk_evidence_probe_run(&ep);
	const struct hk_reader_probe *rp = &ep.reader;
	bool answered = rp->found == HK_READER_ANSWERED;
	const struct hk_audit_status st = ep.audit;
	struct utsname u;
	uname(&u);

	struct hk_entry_points eps;
	hk_entry_points_probe(&eps);

	struct bwrap_info bw;
	probe_bwrap(&bw);

	if (json) {
		struct hk_buf b = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &b, 2);
		hk_json_obj_begin(&j);
		hk_json_key(&j, "landlock");
		hk_json_obj_begin(&j);
		hk_json_kv_int(&j, "abi", ll->abi);
		hk_json_kv_uint(&j, "errata", ll->errata);
		hk_json_key(&j, "unavailable");
		if (ll->abi > 0)
			hk_json_null(&j);
		else
			hk_json_str(&j, hk_landlock_unavailable_reason(ll->unavailable));
		hk_json_obj_end(&j);
		hk_json_kv_str(&j, "tier", tier);
		hk_json_kv_str(&j, "tier_reason", why);
		hk_json_key(&j, "audit");
		if (ep.audit_ok) {
			hk_audit_status_json(&j, &st);
		} else {
			hk_json_obj_begin(&j);
			hk_json_kv_str(&j, "error", ep.audit_error);
			hk_json_obj_end(&j);
		}
		hk_json_key(&j, "reader_privileges");
		hk_json_obj_begin(&j);
		hk_json_kv_bool(&j, "cap_audit_read", ep.can_read);
		hk_json_kv_bool(&j, "cap_audit_control", ep.can_control);
		hk_json_obj_end(&j);
		hk_json_key(&j, "reader");
		reader_json(&j, rp);
		hk_json_key(&j, "evidence");
		hk_json_obj_begin(&j);
		hk_json_kv_bool(&j, "possible", ep.possible);
		hk_json_key(&j, "remedies");
		hk_json_arr_begin(&j);
		for (size_t i = 0; i < ep.remedies.n; i++)
			hk_json_str(&j, ep.remedies.v[i]);
		hk_json_arr_end(&j);
		hk_json_obj_end(&j);
		hk_json_key(&j, "entry_points");
		hk_json_arr_begin(&j);
		for (size_t i = 0; i < eps.n; i++) {
			hk_json_obj_begin(&j);
			hk_json_kv_str(&j, "arch", eps.v[i].arch);
			hk_json_kv_str(&j, "name", eps.v[i].label);
			hk_json_kv_str(&j, "state", hk_entry_state_name(eps.v[i].state));
			hk_json_kv_str(&j, "evidence", eps.v[i].evidence);
			hk_json_obj_end(&j);
		}
		hk_json_arr_end(&j);
		hk_json_key(&j, "bubblewrap");
		hk_json_obj_begin(&j);
		hk_json_kv_bool(&j, "found", bw.found);
		hk_json_key(&j, "version");
		if (bw.found)
			hk_json_str(&j, bw.version);
		else
			hk_json_null(&j);
		hk_json_kv_bool(&j, "overlay_src", bw.overlay_src);
		hk_json_obj_end(&j);
		hk_json_kv_str(&j, "kernel_release", u.release);
		hk_json_obj_end(&j);
		printf("%s\n", hk_buf_str(&b));
		hk_buf_free(&b);
		hk_evidence_probe_free(&ep);
		return HK_EXIT_OK;
	}

	printf("Landlock     ABI %d", ll->abi);
	if (ll->abi > 0)
		printf(", errata 0x%x (asked with landlock_create_ruleset, not uname)\n", ll->errata);
	else
		printf(": %s\n", hk_landlock_unavailable_reason(ll->unavailable));
	printf("tier         %s: %s\n", tier, why);
	if (ep.audit_ok)
		printf("audit        enabled=%u failure=%u pid=%u rate_limit=%u backlog_limit=%u lost=%u "
		       "backlog=%u backlog_wait_time=%u\n",
		       st.enabled, st.failure, st.pid, st.rate_limit, st.backlog_limit, st.lost,
		       st.backlog, st.backlog_wait_time);
	else
		printf("audit        unknown: %s\n", ep.audit_error);
	if (answered)
		printf("reader       %s, run as uid %llu: reads the audit stream %s, reads the audit "
		       "status %s%s\n",
		       rp->path, (unsigned long long)rp->status.caller_uid, ep.can_read ? "yes" : "no",
		       ep.can_control ? "yes" : "no",
		       rp->status.filtered ? " (hands over this user's records only)" : "");
	else
		printf("reader       %s\n", rp->error ? rp->error : "not found");
	if (ep.possible) {
		printf("evidence     yes: this user's runs would have evidence\n");
	} else {
		printf("evidence     no: this user's verdicts would be NoEvidence; to fix it:\n");
		for (size_t i = 0; i < ep.remedies.n; i++)
			printf("  - %s\n", ep.remedies.v[i]);
	}
	for (size_t i = 0; i < eps.n; i++)
		printf("%-12s %s %s: %s\n", i == 0 ? "entry points" : "", eps.v[i].label,
		       hk_entry_state_name(eps.v[i].state), eps.v[i].evidence);
	if (bw.found)
		printf("bubblewrap   %s, --overlay-src %s\n", bw.version,
		       bw.overlay_src ? "supported"
				      : "not supported (harkaq mounts the merged view itself)");
	else
		printf("bubblewrap   not found (install the bubblewrap package; needed by harkaq build)\n");
	printf("kernel       %s (for information only; capabilities were probed, not inferred)\n",
	       u.release);
	hk_evidence_probe_free(&ep);
	return HK_EXIT_OK;
}
