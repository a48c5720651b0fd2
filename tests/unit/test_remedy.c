/* What `harkaq probe` tells a user whose runs would have no evidence (core/evidence/remedy.c):
 * one sentence per missing piece, naming the fix. */
#include <string.h>

#include "core/evidence/remedy.h"
#include "harness.h"

/* A machine where everything is in place: Landlock ABI 7, audit, the reader answering. */
static struct hk_evidence_facts good(void)
{
	return (struct hk_evidence_facts){
		.landlock_abi = 7, .audit_in_kernel = true, .os_id = "debian",
		.os_version_id = "13", .deb_arch = "amd64", .reader = HK_READER_ANSWERED,
		.reader_path = "/usr/libexec/harkaq/harkaq-audit", .user = "ada",
		.can_read = true, .can_control = true, .confirmed = true, .initial_userns = 1,
	};
}

static char *one(const struct hk_evidence_facts *f, bool *possible)
{
	struct hk_strv out = HK_STRV_INIT;
	*possible = hk_evidence_remedies(f, &out);
	char *s = out.n ? strdup(out.v[0]) : strdup("");
	if (out.n > 1)
		HK_FAIL_AT("expected one remedy, got %zu (second: %s)", out.n, out.v[1]);
	hk_strv_free(&out);
	return s;
}

TEST(nothing_missing_means_evidence_and_no_remedy)
{
	struct hk_evidence_facts f = good();
	bool ok;
	char *r = one(&f, &ok);
	CHECK(ok);
	CHECK_STR_EQ("", r);
	free(r);
	/* Audit off but switchable is fine too: the reader switches it on. */
	f.confirmed = false;
	f.switchable = true;
	r = one(&f, &ok);
	CHECK(ok);
	free(r);
}

TEST(an_old_kernel_on_debian_13_is_told_of_the_backports_kernel)
{
	struct hk_evidence_facts f = good();
	f.landlock_abi = 6;
	bool ok;
	char *r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "Landlock (ABI 6) cannot report denials");
	CHECK_CONTAINS(r, "apt install -t trixie-backports linux-image-amd64");
	free(r);
	f.os_version_id = "12";
	r = one(&f, &ok);
	CHECK_CONTAINS(r, "Debian 13 with its backports kernel");
	free(r);
	/* Elsewhere: what is needed, without a distribution's name. */
	f.os_id = "fedora";
	r = one(&f, &ok);
	CHECK_CONTAINS(r, "Linux 6.15 or later) is needed");
	CHECK(strstr(r, "Debian") == NULL);
	free(r);
}

TEST(landlock_disabled_at_boot_names_the_lsm_parameter)
{
	struct hk_evidence_facts f = good();
	f.landlock_abi = -1;
	f.landlock_why = "Landlock is built into this kernel but disabled at boot (add landlock "
			 "to the lsm= kernel parameter)";
	bool ok;
	char *r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "lsm=");
	free(r);
}

TEST(each_reader_problem_names_its_fix)
{
	bool ok;
	struct hk_evidence_facts f = good();
	f.reader = HK_READER_NOT_EXECUTABLE;
	f.reader_group = "harkaq";
	char *r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "sudo adduser ada harkaq");
	free(r);

	f = good();
	f.reader = HK_READER_MISSING;
	r = one(&f, &ok);
	CHECK_CONTAINS(r, "is not installed");
	free(r);

	f = good();
	f.can_read = f.can_control = false;
	r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "sudo setcap cap_audit_read,cap_audit_control+ep "
			  "/usr/libexec/harkaq/harkaq-audit");
	free(r);

	f.reader_nosuid = true;
	r = one(&f, &ok);
	CHECK_CONTAINS(r, "mounted nosuid");
	free(r);

	f.initial_userns = 0;
	r = one(&f, &ok);
	CHECK_CONTAINS(r, "inside a user namespace");
	free(r);

	f = good();
	f.can_control = false;
	r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "CAP_AUDIT_CONTROL");
	free(r);

	f = good();
	f.audit_in_kernel = false;
	r = one(&f, &ok);
	CHECK(!ok);
	CHECK_CONTAINS(r, "CONFIG_AUDIT");
	free(r);
}
