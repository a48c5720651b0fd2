/* Drivers for the pure core's hot paths, linked against build/libharkaq-core.a by bench/run
 * (not by the Makefile: the benchmark is not part of the product).  Each mode does one thing
 * N times so that `valgrind --tool=callgrind --toggle-collect=FUNC` can count the
 * instructions of exactly that function, and the wall clock can time it without valgrind.
 *
 *   hotpaths blake3-file FILE            hash FILE (hk_blake3_file), print hex and MiB/s
 *   hotpaths blake3-mem MIB              hash MIB MiB of memory (no I/O), print MiB/s
 *   hotpaths policy-parse FILE ITERS     parse the policy in FILE ITERS times
 *   hotpaths audit ITERS                 parse ITERS x 3 typical Landlock/syscall records
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/formats/audit_record.h"
#include "core/basic/blake3.h"
#include "core/basic/blake3_file.h"
#include "core/basic/error.h"
#include "core/policy/policy.h"
#include "core/basic/util.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	struct hk_buf b = HK_BUF_INIT;
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		hk_buf_append(&b, tmp, n);
	fclose(f);
	*len = b.len;
	return hk_buf_steal(&b);
}

static int blake3_file(const char *path)
{
	uint8_t out[HK_BLAKE3_OUT_LEN];
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	struct hk_error err;
	double t0 = now_s();
	if (hk_blake3_file(path, out, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double dt = now_s() - t0;
	hk_hex(out, sizeof(out), hex);
	printf("%s  %s  %.3f s\n", hex, path, dt);
	return 0;
}

static int blake3_mem(long mib)
{
	size_t len = (size_t)mib << 20;
	uint8_t *buf = hk_xmalloc(len);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	uint8_t out[HK_BLAKE3_OUT_LEN];
	double t0 = now_s();
	hk_blake3_hash(buf, len, out);
	double dt = now_s() - t0;
	printf("blake3-mem %ld MiB in %.3f s = %.0f MiB/s (first byte %02x)\n", mib, dt,
	       (double)mib / dt, out[0]);
	free(buf);
	return 0;
}

static int policy_parse(const char *path, long iters)
{
	size_t len;
	char *text = slurp(path, &len);
	size_t grants = 0;
	double t0 = now_s();
	for (long i = 0; i < iters; i++) {
		struct hk_policy p;
		struct hk_error err;
		if (hk_policy_parse(text, len, path, &p, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		grants = p.n_grants;
		hk_policy_free(&p);
	}
	double dt = now_s() - t0;
	printf("policy-parse %zu grants (%zu bytes) x %ld: %.1f ms each\n", grants, len, iters,
	       dt * 1000.0 / (double)iters);
	free(text);
	return 0;
}

/* As the kernel writes them (kernel-facts.md §3): a hex-encoded path, a quoted one, a domain
 * record and the event's SYSCALL record. */
static const char *const access_recs[] = {
	"domain=1d5374efb blockers=fs.read_file path=2F7573722F6C69622F782038362F6C6962782E736F "
	"dev=\"overlay\" ino=10953970",
	"domain=1d5374efb blockers=fs.execute,fs.read_file path=\"/usr/bin/x86_64-linux-gnu-gcc-12\" "
	"dev=\"overlay\" ino=393219",
};
static const char domain_rec[] =
	"domain=1d5374efb status=allocated mode=enforcing pid=16379 uid=65534 "
	"exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"";
static const char syscall_rec[] =
	"arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=7ffd2a1b a2=0 a3=0 items=1 "
	"ppid=16378 pid=16380 auid=4294967295 uid=65534 gid=65534 euid=65534 suid=65534 "
	"fsuid=65534 egid=65534 sgid=65534 fsgid=65534 tty=(none) ses=4294967295 comm=\"cc1\" "
	"exe=\"/usr/libexec/gcc/x86_64-linux-gnu/12/cc1\" key=(null)";

static int audit(long iters)
{
	double t0 = now_s();
	for (long i = 0; i < iters; i++) {
		struct hk_error err;
		const char *a = access_recs[i & 1];
		struct hk_landlock_access acc;
		if (hk_landlock_access_parse(a, strlen(a), &acc, &err) < 0) {
			fprintf(stderr, "access: %s\n", err.msg);
			return 1;
		}
		hk_landlock_access_free(&acc);
		struct hk_landlock_domain d;
		if (hk_landlock_domain_parse(domain_rec, sizeof(domain_rec) - 1, &d, &err) < 0) {
			fprintf(stderr, "domain: %s\n", err.msg);
			return 1;
		}
		hk_landlock_domain_free(&d);
		struct hk_audit_syscall s;
		if (hk_audit_syscall_parse(syscall_rec, sizeof(syscall_rec) - 1, &s, &err) < 0) {
			fprintf(stderr, "syscall: %s\n", err.msg);
			return 1;
		}
		hk_audit_syscall_free(&s);
	}
	double dt = now_s() - t0;
	printf("audit %ld x (access+domain+syscall): %.2f us per event\n", iters,
	       dt * 1e6 / (double)iters);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "blake3-file") == 0)
		return blake3_file(argv[2]);
	if (argc == 3 && strcmp(argv[1], "blake3-mem") == 0)
		return blake3_mem(atol(argv[2]));
	if (argc == 4 && strcmp(argv[1], "policy-parse") == 0)
		return policy_parse(argv[2], atol(argv[3]));
	if (argc == 3 && strcmp(argv[1], "audit") == 0)
		return audit(atol(argv[2]));
	fprintf(stderr, "usage: hotpaths blake3-file FILE | blake3-mem MIB | "
			"policy-parse FILE ITERS | audit ITERS\n");
	return 64;
}
