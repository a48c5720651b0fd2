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
#include "sys/auditnl.h"
#include "sys/caps.h"
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
			       "of the cage that applies and why, the audit state (AUDIT_GET), whether this\n"
			       "process has what the audit reader needs, which syscall entry points the\n"
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

	struct hk_audit_status st;
	struct hk_error aerr = { 0 };
	bool audit_ok = hk_audit_query_status(&st, &aerr) == 0;

	struct hk_caps caps;
	bool caps_ok = hk_caps_get(&caps) == 0;
	bool cap_read = caps_ok && hk_caps_has(caps.effective, HK_CAP_AUDIT_READ);
	bool cap_control = caps_ok && hk_caps_has(caps.effective, HK_CAP_AUDIT_CONTROL);

	struct hk_entry_points eps;
	hk_entry_points_probe(&eps);

	struct bwrap_info bw;
	probe_bwrap(&bw);
	struct utsname u;
	uname(&u);

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
		if (audit_ok) {
			hk_audit_status_json(&j, &st);
		} else {
			hk_json_obj_begin(&j);
			hk_json_kv_str(&j, "error", aerr.msg);
			hk_json_obj_end(&j);
		}
		hk_json_key(&j, "reader_privileges");
		hk_json_obj_begin(&j);
		hk_json_kv_bool(&j, "cap_audit_read", cap_read);
		hk_json_kv_bool(&j, "cap_audit_control", cap_control);
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
		return HK_EXIT_OK;
	}

	printf("Landlock     ABI %d", ll->abi);
	if (ll->abi > 0)
		printf(", errata 0x%x (asked with landlock_create_ruleset, not uname)\n", ll->errata);
	else
		printf(": %s\n", hk_landlock_unavailable_reason(ll->unavailable));
	printf("tier         %s: %s\n", tier, why);
	if (audit_ok)
		printf("audit        enabled=%u failure=%u pid=%u rate_limit=%u backlog_limit=%u lost=%u "
		       "backlog=%u backlog_wait_time=%u\n",
		       st.enabled, st.failure, st.pid, st.rate_limit, st.backlog_limit, st.lost,
		       st.backlog, st.backlog_wait_time);
	else
		printf("audit        unknown: %s\n", aerr.msg);
	printf("reader       CAP_AUDIT_READ %s, CAP_AUDIT_CONTROL %s%s\n", cap_read ? "yes" : "no",
	       cap_control ? "yes" : "no",
	       cap_read ? "" : " (the audit reader cannot subscribe: verdicts would be NoEvidence)");
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
	return HK_EXIT_OK;
}
