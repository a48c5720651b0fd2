/* The audit netlink client against the running kernel (design.md §6; kernel-facts.md §5, §8, §9).
 *
 * Runs as root on a kernel with audit and Landlock ABI >= 7.  Every audit setting a test
 * changes is restored exactly before the test ends, whatever its checks found.  The audit
 * stream is global, so records are matched by this test's own unique path and by domain id,
 * never by "the next record". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/basic/buf.h"
#include "core/formats/json.h"
#include "core/basic/util.h"
#include "../unit/harness.h"
#include "sys/auditnl.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#define TEST_LL_ACCESS_FS_READ_FILE (1ULL << 2)

/* ---- helpers ---- */

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A private directory with one readable file; *file_out is malloc'd. */
static char *make_secret_file(char **file_out)
{
	char tmpl[] = "/tmp/hk-auditnl.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir)
		return NULL;
	char *file = hk_xasprintf("%s/secret", dir);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(file);
		return NULL;
	}
	if (write(fd, "x\n", 2) != 2) {
		close(fd);
		free(file);
		return NULL;
	}
	close(fd);
	*file_out = file;
	return hk_xstrdup(dir);
}

static void remove_secret_file(char *dir, char *file)
{
	if (file)
		unlink(file);
	if (dir)
		rmdir(dir);
	free(file);
	free(dir);
}

/* In a forked child (the restriction is irreversible): prove the file is readable, enter a
 * Landlock domain handling READ_FILE with no rule, then try `attempts` times to open it.
 * Exit status: 0 when every attempt failed with EACCES; 10+ for each way it went wrong. */
static void child_denied_opens(const char *path, int attempts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(10); /* the positive control: before the domain, DAC lets us read it */
	close(fd);

	struct { uint64_t handled_access_fs; } attr = { TEST_LL_ACCESS_FS_READ_FILE };
	int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		_exit(11);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(12);
	/* flags 0: same-exec logging is on by default (kernel-facts.md §2). */
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0)
		_exit(13);
	close(ruleset);
	for (int i = 0; i < attempts; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			_exit(14);
		if (errno != EACCES)
			_exit(15);
	}
	_exit(0);
}

/* Forks the child above and reaps it (a zombie keeps the domain alive, kernel-facts.md §3).
 * Returns the child's pid, or -1; *status gets its wait status. */
static pid_t run_denied_opens(const char *path, int attempts, int *status)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child_denied_opens(path, attempts);
	if (waitpid(pid, status, 0) != pid)
		return -1;
	return pid;
}

/* Copies a message's body into a NUL-terminated string (for strstr and sscanf). */
static char *body_str(const struct hk_audit_msg *m)
{
	return hk_xstrndup(m->body, m->body_len);
}

/* "domain=HEX" at the start of a Landlock record's body. */
static int record_domain(const char *body, uint64_t *domain)
{
	return sscanf(body, "domain=%" SCNx64, domain) == 1 ? 0 : -1;
}

/* Makes sure audit is on for the duration of a test; *restore_to is the value to put back
 * (UINT32_MAX = nothing to restore). */
static int ensure_enabled(struct hk_audit_ctl *ctl, uint32_t *restore_to, struct hk_error *err)
{
	struct hk_audit_status st;
	*restore_to = UINT32_MAX;
	if (hk_audit_get(ctl, &st, err) < 0)
		return -1;
	if (hk_audit_status_on(&st))
		return 0;
	if (hk_audit_set(ctl, HK_AUDIT_SET_ENABLED, 1, NULL, err) < 0)
		return -1;
	*restore_to = st.enabled;
	return 0;
}

static void restore_enabled(struct hk_audit_ctl *ctl, uint32_t restore_to)
{
	struct hk_error err;
	if (restore_to == UINT32_MAX)
		return;
	if (hk_audit_set(ctl, HK_AUDIT_SET_ENABLED, restore_to, NULL, &err) < 0)
		HK_FAIL_AT("could not restore enabled=%u: %s", restore_to, err.msg);
}

/* ---- AUDIT_GET ---- */

TEST(audit_get_returns_the_status_reply_not_the_ack)
{
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_error err;
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);

	/* The ACK (sent first, kernel-facts.md §5) is an nlmsgerr of 0 followed by our request's
	 * header: read as a status it would say mask=0, enabled=36 (the header length),
	 * backlog_limit=0.  A real status has a positive backlog_limit and enabled <= 2. */
	struct hk_audit_status first;
	int r = hk_audit_get(&ctl, &first, &err);
	if (r < 0)
		HK_FAIL_AT("AUDIT_GET: %s", err.msg);
	CHECK_EQ_INT(0, r);
	CHECK(first.backlog_limit > 0);
	CHECK(first.enabled <= 2);
	CHECK(first.failure <= 2);
	/* backlog_wait_time defaults to 60 * HZ; 0 would mean the reply was not parsed. */
	CHECK(first.backlog_wait_time > 0);

	/* Three more in a row on the same socket: a late ACK from one request must not be taken
	 * for the next request's reply (sequence numbers differ). */
	for (int i = 0; i < 3; i++) {
		struct hk_audit_status again;
		r = hk_audit_get(&ctl, &again, &err);
		if (r < 0)
			HK_FAIL_AT("AUDIT_GET #%d: %s", i + 2, err.msg);
		CHECK_EQ_INT(first.backlog_wait_time, again.backlog_wait_time);
		CHECK(again.backlog_limit > 0);
	}
	hk_audit_ctl_close(&ctl);
	CHECK_EQ_INT(-1, ctl.fd);
}

TEST(query_status_one_shot_matches_a_control_socket)
{
	struct hk_error err;
	struct hk_audit_status a, b;
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	REQUIRE(hk_audit_get(&ctl, &a, &err) == 0);
	hk_audit_ctl_close(&ctl);
	int r = hk_audit_query_status(&b, &err);
	if (r < 0)
		HK_FAIL_AT("hk_audit_query_status: %s", err.msg);
	CHECK_EQ_INT(0, r);
	CHECK_EQ_INT(a.failure, b.failure);
	CHECK_EQ_INT(a.backlog_wait_time, b.backlog_wait_time);
	CHECK(b.backlog_limit > 0);
}

TEST(status_json_names_every_field)
{
	struct hk_audit_status st = { 1, 1, 0, 0, 8192, 3, 0, 15000 };
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 0);
	hk_audit_status_json(&j, &st);
	CHECK_STR_EQ("{\"enabled\":1,\"failure\":1,\"pid\":0,\"rate_limit\":0,\"backlog_limit\":8192,"
		     "\"lost\":3,\"backlog\":0,\"backlog_wait_time\":15000}",
		     hk_buf_str(&out));
	hk_buf_free(&out);
}

/* ---- AUDIT_SET ---- */

TEST(set_backlog_limit_round_trips_and_is_restored)
{
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_error err;
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	struct hk_audit_status orig;
	REQUIRE(hk_audit_get(&ctl, &orig, &err) == 0);
	REQUIRE(orig.backlog_limit > 0);

	/* Upwards, so that concurrent users of audit on this machine lose nothing meanwhile. */
	uint32_t probe = orig.backlog_limit + 17;
	int r = hk_audit_set(&ctl, HK_AUDIT_SET_BACKLOG_LIMIT, probe, NULL, &err);
	if (orig.enabled == 2) {
		/* Locked audit (until reboot) refuses every change: what is checked there is
		 * that the refusal comes back as one, and nothing changed (kernel-facts.md §13). */
		CHECK_EQ_INT(-EPERM, r);
		struct hk_audit_status locked;
		REQUIRE(hk_audit_get(&ctl, &locked, &err) == 0);
		CHECK_EQ_INT(orig.backlog_limit, locked.backlog_limit);
		hk_audit_ctl_close(&ctl);
		return;
	}
	if (r < 0)
		HK_FAIL_AT("AUDIT_SET backlog_limit: %s", err.msg);
	CHECK_EQ_INT(0, r);
	struct hk_audit_status changed;
	if (hk_audit_get(&ctl, &changed, &err) == 0)
		CHECK_EQ_INT(probe, changed.backlog_limit);
	else
		HK_FAIL_AT("AUDIT_GET after set: %s", err.msg);

	/* Restore, whatever the checks above said. */
	r = hk_audit_set(&ctl, HK_AUDIT_SET_BACKLOG_LIMIT, orig.backlog_limit, NULL, &err);
	if (r < 0)
		HK_FAIL_AT("restoring backlog_limit=%u: %s", orig.backlog_limit, err.msg);
	struct hk_audit_status restored;
	if (hk_audit_get(&ctl, &restored, &err) == 0)
		CHECK_EQ_INT(orig.backlog_limit, restored.backlog_limit);
	else
		HK_FAIL_AT("AUDIT_GET after restore: %s", err.msg);
	hk_audit_ctl_close(&ctl);
}

TEST(set_refusal_is_reported_with_the_kernels_errno)
{
	/* The negative: the kernel refuses enabled=3 (only 0, 1, 2 exist) with EINVAL, and the
	 * refusal must come back as -EINVAL, not as success.  The positive control in the same
	 * test: setting enabled to its current value is accepted. */
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_error err;
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	struct hk_audit_status st;
	REQUIRE(hk_audit_get(&ctl, &st, &err) == 0);
	hk_error_clear(&err);
	CHECK_EQ_INT(-EINVAL, hk_audit_set(&ctl, HK_AUDIT_SET_ENABLED, 3, NULL, &err));
	CHECK_EQ_INT(EINVAL, err.code);
	CHECK_CONTAINS(err.msg, "AUDIT_SET enabled=3");
	if (st.enabled != 2) /* locked audit refuses every change, even a same-value one */
		CHECK_EQ_INT(0, hk_audit_set(&ctl, HK_AUDIT_SET_ENABLED, st.enabled, NULL, &err));
	struct hk_audit_status after;
	REQUIRE(hk_audit_get(&ctl, &after, &err) == 0);
	CHECK_EQ_INT(st.enabled, after.enabled);
	hk_audit_ctl_close(&ctl);
}

/* ---- the multicast subscriber ---- */

TEST(subscriber_reports_its_effective_receive_buffer)
{
	struct hk_audit_sub sub = HK_AUDIT_SUB_INIT;
	struct hk_error err;
	int r = hk_audit_sub_open(&sub, 8 * 1024 * 1024, &err);
	if (r < 0)
		HK_FAIL_AT("subscribe: %s", err.msg);
	REQUIRE(r == 0);
	/* As root SO_RCVBUFFORCE is accepted and the kernel doubles the request; rmem_max
	 * (4 MiB here) does not cap it. */
	CHECK(sub.rcvbuf_forced);
	CHECK_EQ_INT(16 * 1024 * 1024, sub.rcvbuf);
	hk_audit_sub_close(&sub);

	/* A small request is granted as asked (doubled), proving the value is read back, not
	 * echoed. */
	REQUIRE(hk_audit_sub_open(&sub, 64 * 1024, &err) == 0);
	CHECK_EQ_INT(128 * 1024, sub.rcvbuf);
	hk_audit_sub_close(&sub);
	CHECK_EQ_INT(-1, sub.fd);
}

TEST(subscriber_receives_a_landlock_denial_and_its_deallocation)
{
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_audit_sub sub = HK_AUDIT_SUB_INIT;
	struct hk_error err;
	uint32_t restore_to = UINT32_MAX;
	char *file = NULL;
	char *dir = make_secret_file(&file);
	REQUIRE(dir != NULL);
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	if (ensure_enabled(&ctl, &restore_to, &err) < 0)
		HK_FAIL_AT("enable audit: %s", err.msg);
	/* Subscribed before the denial happens, as harkaq-audit does before the build. */
	int r = hk_audit_sub_open(&sub, 0, &err);
	if (r < 0)
		HK_FAIL_AT("subscribe: %s", err.msg);

	int status = -1;
	pid_t child = r == 0 ? run_denied_opens(file, 1, &status) : -1;
	CHECK(child > 0);
	CHECK(WIFEXITED(status));
	CHECK_EQ_INT(0, WEXITSTATUS(status));

	/* The denial, then the deallocation about 50 ms after the child is reaped. */
	char *want_path = hk_xasprintf("path=\"%s\"", file);
	bool seen_access = false, seen_allocated = false, seen_dealloc = false;
	bool seen_syscall = false;
	uint64_t domain = 0, access_serial = 0;
	uint64_t dealloc_denials = UINT64_MAX;
	int64_t deadline = mono_ms() + 2500;
	while (r == 0 && child > 0 && !seen_dealloc && mono_ms() < deadline) {
		struct hk_audit_msg m;
		int got = hk_audit_sub_recv(&sub, &m, (int)(deadline - mono_ms()), &err);
		if (got == -ENOBUFS)
			continue;
		if (got < 0) {
			HK_FAIL_AT("receive: %s", err.msg);
			break;
		}
		if (got == 0)
			break;
		hk_autofree char *body = body_str(&m);
		if (m.type == AUDIT_LANDLOCK_ACCESS && strstr(body, want_path)) {
			seen_access = true;
			CHECK(m.has_stamp);
			CHECK(m.serial > 0);
			CHECK(m.sec > 1700000000u);
			CHECK(strncmp(m.text, "audit(", 6) == 0);
			CHECK_CONTAINS(body, "blockers=fs.read_file ");
			CHECK_EQ_INT(0, record_domain(body, &domain));
			access_serial = m.serial;
		} else if (seen_access && m.type == AUDIT_SYSCALL && m.serial == access_serial) {
			/* "Who tried" travels in the same event (design.md §6). */
			seen_syscall = true;
			CHECK_CONTAINS(body, "success=no");
			CHECK_CONTAINS(body, "exit=-13");
		} else if (seen_access && m.type == AUDIT_LANDLOCK_DOMAIN) {
			uint64_t d = 0;
			if (record_domain(body, &d) != 0 || d != domain)
				continue;
			if (strstr(body, "status=allocated")) {
				seen_allocated = true;
				char *want_pid = hk_xasprintf(" pid=%d ", (int)child);
				CHECK_CONTAINS(body, want_pid);
				free(want_pid);
			} else if (strstr(body, "status=deallocated")) {
				seen_dealloc = true;
				const char *p = strstr(body, "denials=");
				if (p)
					dealloc_denials = strtoull(p + 8, NULL, 10);
			}
		}
	}
	CHECK(seen_access);
	CHECK(domain > 0xffffffffull); /* ids start at 2^32 + random (kernel-facts.md §3) */
	CHECK(seen_syscall);
	CHECK(seen_allocated);
	CHECK(seen_dealloc);
	CHECK_EQ_INT(1, dealloc_denials);
	CHECK_EQ_INT(0, sub.enobufs);

	free(want_path);
	hk_audit_sub_close(&sub);
	restore_enabled(&ctl, restore_to);
	hk_audit_ctl_close(&ctl);
	remove_secret_file(dir, file);
}

TEST(overrun_is_reported_as_enobufs_and_reading_continues)
{
	/* Two subscribers see the same burst of denials: one with a tiny receive buffer that is
	 * not read meanwhile (it must overflow: -ENOBUFS, counted, and then the queued records
	 * are still readable), one large (the control: no overrun, and the deallocation record
	 * counts every denial). */
	enum { DENIALS = 30 };
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_audit_sub tiny = HK_AUDIT_SUB_INIT, big = HK_AUDIT_SUB_INIT;
	struct hk_error err;
	uint32_t restore_to = UINT32_MAX;
	char *file = NULL;
	char *dir = make_secret_file(&file);
	REQUIRE(dir != NULL);
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	if (ensure_enabled(&ctl, &restore_to, &err) < 0)
		HK_FAIL_AT("enable audit: %s", err.msg);
	int r1 = hk_audit_sub_open(&tiny, 1, &err);
	if (r1 < 0)
		HK_FAIL_AT("subscribe tiny: %s", err.msg);
	int r2 = hk_audit_sub_open(&big, 0, &err);
	if (r2 < 0)
		HK_FAIL_AT("subscribe big: %s", err.msg);

	int status = -1;
	pid_t child = (r1 == 0 && r2 == 0) ? run_denied_opens(file, DENIALS, &status) : -1;
	CHECK(child > 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* Drain the big one until the domain's deallocation record. */
	char *want_path = hk_xasprintf("path=\"%s\"", file);
	uint64_t domain = 0, denials = UINT64_MAX;
	int access_records = 0;
	int64_t deadline = mono_ms() + 3000;
	while (child > 0 && denials == UINT64_MAX && mono_ms() < deadline) {
		struct hk_audit_msg m;
		int got = hk_audit_sub_recv(&big, &m, (int)(deadline - mono_ms()), &err);
		if (got <= 0) {
			if (got < 0)
				HK_FAIL_AT("receive (big): %s", err.msg);
			if (got == -ENOBUFS)
				continue;
			break;
		}
		hk_autofree char *body = body_str(&m);
		if (m.type == AUDIT_LANDLOCK_ACCESS && strstr(body, want_path)) {
			access_records++;
			if (domain == 0)
				record_domain(body, &domain);
		} else if (m.type == AUDIT_LANDLOCK_DOMAIN && domain != 0) {
			uint64_t d = 0;
			const char *p = strstr(body, "status=deallocated denials=");
			if (p && record_domain(body, &d) == 0 && d == domain)
				denials = strtoull(p + strlen("status=deallocated denials="), NULL, 10);
		}
	}
	CHECK_EQ_INT(0, big.enobufs);
	CHECK_EQ_INT(DENIALS, denials);
	CHECK(access_records > 0);
	CHECK(access_records <= DENIALS);

	/* The tiny one: the overrun is reported distinctly, then records keep coming. */
	int overruns = 0, after_overrun = 0;
	for (int i = 0; i < 10000; i++) {
		struct hk_audit_msg m;
		hk_error_clear(&err);
		int got = hk_audit_sub_recv(&tiny, &m, 0, &err);
		if (got == -ENOBUFS) {
			overruns++;
			CHECK_EQ_INT(ENOBUFS, err.code);
			CHECK_CONTAINS(err.msg, "overflowed");
			continue;
		}
		if (got <= 0)
			break;
		if (overruns > 0)
			after_overrun++;
	}
	CHECK(overruns >= 1);
	CHECK_EQ_INT(overruns, tiny.enobufs);
	CHECK(after_overrun > 0);

	free(want_path);
	hk_audit_sub_close(&tiny);
	hk_audit_sub_close(&big);
	restore_enabled(&ctl, restore_to);
	hk_audit_ctl_close(&ctl);
	remove_secret_file(dir, file);
}

TEST(messages_not_from_the_kernel_are_ignored)
{
	/* Root (CAP_NET_ADMIN) may unicast to any netlink port; such a message must never be
	 * taken for a kernel record.  The forged record is sent first, then a genuine denial
	 * happens: the subscriber must skip the forgery (counting it) and still deliver the
	 * genuine record — the positive control. */
	struct hk_audit_ctl ctl = HK_AUDIT_CTL_INIT;
	struct hk_audit_sub sub = HK_AUDIT_SUB_INIT;
	struct hk_error err;
	uint32_t restore_to = UINT32_MAX;
	char *file = NULL;
	char *dir = make_secret_file(&file);
	REQUIRE(dir != NULL);
	REQUIRE(hk_audit_ctl_open(&ctl, &err) == 0);
	if (ensure_enabled(&ctl, &restore_to, &err) < 0)
		HK_FAIL_AT("enable audit: %s", err.msg);
	REQUIRE(hk_audit_sub_open(&sub, 0, &err) == 0);

	struct sockaddr_nl me;
	socklen_t len = sizeof(me);
	REQUIRE(getsockname(sub.fd, (struct sockaddr *)&me, &len) == 0);
	int forger = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	REQUIRE(forger >= 0);
	char forged_text[512];
	int n = snprintf(forged_text, sizeof(forged_text),
			 "audit(1700000000.000:1): domain=100000001 blockers=fs.read_file "
			 "path=\"%s\" dev=\"vda\" ino=1", file);
	struct {
		struct nlmsghdr h;
		char text[512];
	} forged;
	memset(&forged, 0, sizeof(forged));
	forged.h.nlmsg_len = (uint32_t)NLMSG_LENGTH((size_t)n);
	forged.h.nlmsg_type = AUDIT_LANDLOCK_ACCESS;
	memcpy(forged.text, forged_text, (size_t)n);
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = me.nl_pid };
	ssize_t sent = sendto(forger, &forged, forged.h.nlmsg_len, 0, (struct sockaddr *)&to,
			      sizeof(to));
	CHECK_EQ_INT((ssize_t)forged.h.nlmsg_len, sent);
	close(forger);

	int status = -1;
	pid_t child = run_denied_opens(file, 1, &status);
	CHECK(child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);

	char *want_path = hk_xasprintf("path=\"%s\"", file);
	int genuine = 0, forged_seen = 0;
	int64_t deadline = mono_ms() + 2000;
	while (genuine == 0 && mono_ms() < deadline) {
		struct hk_audit_msg m;
		int got = hk_audit_sub_recv(&sub, &m, (int)(deadline - mono_ms()), &err);
		if (got == -ENOBUFS)
			continue;
		if (got <= 0)
			break;
		hk_autofree char *body = body_str(&m);
		if (m.type == AUDIT_LANDLOCK_ACCESS && strstr(body, want_path)) {
			if (strstr(body, "domain=100000001 "))
				forged_seen++;
			else
				genuine++;
		}
	}
	CHECK_EQ_INT(0, forged_seen);
	CHECK_EQ_INT(1, genuine);
	CHECK_EQ_INT(1, sub.foreign);

	free(want_path);
	hk_audit_sub_close(&sub);
	restore_enabled(&ctl, restore_to);
	hk_audit_ctl_close(&ctl);
	remove_secret_file(dir, file);
}
