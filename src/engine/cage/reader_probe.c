#include "engine/cage/reader_probe.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/basic/util.h"
#include "engine/common/proc.h"
#include "sys/auditnl.h"
#include "sys/landlock.h"

static void reader_probe_run(struct hk_reader_probe *p)
{
	memset(p, 0, sizeof(*p));
	struct hk_error err;
	hk_error_clear(&err);
	int r = hk_helper_find("harkaq-audit", &p->path, &err);
	if (p->path) {
		struct stat st;
		struct statvfs vfs;
		if (stat(p->path, &st) == 0 && !(st.st_mode & S_IXOTH) && (st.st_mode & S_IXGRP)) {
			struct group *g = getgrgid(st.st_gid);
			p->group = g ? hk_xstrdup(g->gr_name) : hk_xasprintf("%u", (unsigned)st.st_gid);
		}
		p->nosuid = statvfs(p->path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
	}
	if (r < 0) {
		p->found = p->path ? HK_READER_NOT_EXECUTABLE : HK_READER_MISSING;
		p->error = hk_xstrdup(err.msg);
		return;
	}
	const char *argv[] = { p->path, "--status", NULL };
	struct hk_run_result res;
	p->found = HK_READER_NO_ANSWER;
	if (hk_run_capture(argv, NULL, &res, &err) < 0) {
		p->error = hk_xstrdup(err.msg);
		hk_run_result_free(&res);
		return;
	}
	const char *out = hk_buf_str(&res.out);
	size_t len = strcspn(out, "\n");
	if (hk_reader_line_decode(out, len, &p->status, &err) == 0 &&
	    p->status.event == HK_READER_STATUS) {
		p->found = HK_READER_ANSWERED;
	} else {
		char line[256];
		if (p->status.event == HK_READER_ERROR && p->status.text_reason)
			p->error = hk_xstrdup(p->status.text_reason);
		else
			p->error = hk_xasprintf("exit status %d, %s", res.status,
						hk_first_line(&res.errout, line, sizeof(line)));
		hk_reader_line_free(&p->status);
	}
	hk_run_result_free(&res);
}

static void reader_probe_free(struct hk_reader_probe *p)
{
	free(p->path);
	free(p->group);
	free(p->error);
	hk_reader_line_free(&p->status);
	memset(p, 0, sizeof(*p));
}

/* ID and VERSION_ID of /etc/os-release (for the remedy that names a distribution's kernel). */
struct os_release {
	char id[64], version_id[64];
};

static void read_os_release(struct os_release *os)
{
	memset(os, 0, sizeof(*os));
	FILE *f = fopen("/etc/os-release", "re");
	if (!f)
		f = fopen("/usr/lib/os-release", "re");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		char *dst = NULL;
		char *v = NULL;
		if (strncmp(line, "ID=", 3) == 0) {
			dst = os->id;
			v = line + 3;
		} else if (strncmp(line, "VERSION_ID=", 11) == 0) {
			dst = os->version_id;
			v = line + 11;
		}
		if (!dst)
			continue;
		v[strcspn(v, "\n")] = '\0';
		size_t n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		snprintf(dst, sizeof(os->id), "%s", v);
	}
	fclose(f);
}

/* Debian's name for the machine's architecture, as a kernel package is named. */
static const char *deb_arch(const char *machine)
{
	static const char *const names[][2] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "ppc64le", "ppc64el" },
		{ "s390x", "s390x" }, { "riscv64", "riscv64" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
		if (strcmp(machine, names[i][0]) == 0)
			return names[i][1];
	return NULL;
}

void hk_evidence_probe_run(struct hk_evidence_probe *p)
{
	memset(p, 0, sizeof(*p));
	struct hk_error aerr;
	hk_error_clear(&aerr);
	p->audit_ok = hk_audit_query_status(&p->audit, &aerr) == 0;
	bool audit_in_kernel = p->audit_ok || aerr.code != EPROTONOSUPPORT;
	if (!p->audit_ok)
		snprintf(p->audit_error, sizeof(p->audit_error), "%s", aerr.msg);

	/* The reader as this user's runs would start it: the only judge of its capabilities
	 * (file capabilities, a group, a nosuid mount, a user namespace). */
	struct hk_reader_probe *rp = &p->reader;
	reader_probe_run(rp);
	bool answered = rp->found == HK_READER_ANSWERED;
	if (!p->audit_ok && answered && rp->status.has_audit) {
		p->audit = rp->status.audit;
		p->audit_ok = true;
	}
	p->can_read = answered && rp->status.can_read;
	p->can_control = answered && rp->status.can_control;

	const struct hk_landlock_probe *ll = hk_landlock_probe();
	struct os_release os;
	read_os_release(&os);
	struct passwd *pw = getpwuid(getuid());
	struct utsname u;
	uname(&u);
	const struct hk_evidence_facts facts = {
		.landlock_abi = ll->abi,
		.landlock_why = ll->abi > 0 ? NULL : hk_landlock_unavailable_reason(ll->unavailable),
		.audit_in_kernel = audit_in_kernel,
		.os_id = os.id[0] ? os.id : NULL,
		.os_version_id = os.version_id[0] ? os.version_id : NULL,
		.deb_arch = deb_arch(u.machine),
		.reader = rp->found,
		.reader_path = rp->path,
		.reader_group = rp->group,
		.reader_error = rp->error,
		.reader_nosuid = rp->nosuid,
		.user = pw ? pw->pw_name : NULL,
		.root = getuid() == 0,
		.can_read = p->can_read,
		.can_control = p->can_control,
		.confirmed = answered && rp->status.confirmed,
		.switchable = answered && rp->status.switchable,
		.initial_userns = answered ? rp->status.initial_userns : -1,
		.read_error = answered ? rp->status.read_error : NULL,
		.control_error = answered ? rp->status.audit_error : NULL,
	};
	p->possible = hk_evidence_remedies(&facts, &p->remedies);
}

void hk_evidence_probe_free(struct hk_evidence_probe *p)
{
	reader_probe_free(&p->reader);
	hk_strv_free(&p->remedies);
}
