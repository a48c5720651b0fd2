/* Policy derivation for a recipe against a store, timed: the same hk_build_derive() that
 * `harkaq build` runs (store closure → file trees → base runtime → hk_derive_policy), linked
 * from the command line's objects by bench/run.  Writes the derived policy's canonical
 * encoding to OUT so the parse benchmark parses a real, large policy.
 *
 *   derive RECIPE STORE OUT [ITERS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/build/build.h"
#include "engine/common/proc.h"
#include "core/basic/buf.h"
#include "core/policy/recipe.h"
#include "core/policy/recipe_file.h"
#include "core/store/store.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: derive RECIPE STORE OUT [ITERS]\n");
		return 64;
	}
	int iters = argc > 4 ? atoi(argv[4]) : 5;
	if (iters < 1 || iters > 100)
		iters = 5;
	struct hk_error err = { 0 };
	struct hk_recipe r;
	if (hk_recipe_load(argv[1], &r, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 65;
	}
	struct hk_store *store = NULL;
	if (hk_store_open(argv[2], false, &store, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 66;
	}
	struct hk_sandbox sb = {
		.base_root = "/",
		.src_dir = "/nonexistent/src",
		.out_dir = "/nonexistent/out",
		.exec_host_path = "/nonexistent/harkaq-exec",
		.policy_host_path = "/nonexistent/policy",
		.cage = true,
	};
	double *ms = calloc((size_t)iters, sizeof(double));
	struct hk_build_plan bp;
	for (int i = 0; i < iters; i++) {
		double t0 = now_ms();
		if (hk_build_derive(&r, store, "autotools", &sb, &bp, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 70;
		}
		ms[i] = now_ms() - t0;
		if (i + 1 < iters)
			hk_build_plan_free(&bp);
	}
	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(&bp.policy, &enc);
	FILE *f = fopen(argv[3], "w");
	if (!f || fwrite(enc.data, 1, enc.len, f) != enc.len || fclose(f) != 0) {
		perror(argv[3]);
		return 73;
	}
	qsort(ms, (size_t)iters, sizeof(double), cmp_d);
	printf("{\"recipe\":\"%s\",\"closure_artifacts\":%zu,\"files\":%zu,\"symlinks\":%zu,"
	       "\"base_runtime\":%zu,\"grants\":%zu,\"policy_bytes\":%zu,\"policy_id\":\"%s\","
	       "\"iters\":%d,\"min_ms\":%.1f,\"median_ms\":%.1f}\n",
	       r.name, bp.n_closure, bp.report.files, bp.report.symlinks, bp.report.base_runtime,
	       bp.policy.n_grants, enc.len, bp.policy_id, iters, ms[0], ms[iters / 2]);
	hk_buf_free(&enc);
	hk_build_plan_free(&bp);
	hk_store_close(store);
	hk_recipe_free(&r);
	free(ms);
	return 0;
}
