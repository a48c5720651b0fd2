/* The build's inputs checked before anything runs: every artifact of the closure and the
 * pinned base, warm by their stat caches or in full (docs/bases.md, docs/sealing.md). */
#include <stdio.h>

#include "engine/build/build.h"
#include "engine/common/proc.h"
#include "core/store/statcache.h"
#include "sys/verity.h"

/* Every dep of the closure, and the pinned base, are checked before any sandbox starts, with
 * the check of `harkaq store verify` (hk_verity_check_artifact): its BLAKE3 tree against its
 * manifest and, if sealed, its fs-verity digests — so an artifact changed on disk, or under
 * the filesystem, is refused before anything runs, naming it and the file.  Warm when nothing
 * changed since the last full check: by the artifact's stat cache (core/store/statcache.h).
 * Returns 0 or -errno: the failing check's class stands (a dep the store lacks, or whose
 * bytes changed, is the input's; a disk that cannot be read, the environment's). */
int hk_build_verify_inputs(const struct hk_build_opts *bo, const struct hk_recipe *r,
			  struct hk_store *store, struct hk_build_result *br, struct hk_inos *inos,
			  struct hk_error *err)
{
	long long t_verify = hk_now_ms();
	size_t warm_count = 0, n_checked = 0;
	for (size_t i = 0; i <= br->plan.n_closure; i++) {
		const struct hk_artifact *dep = NULL;
		bool is_dep = i < br->plan.n_closure;
		const char *what = is_dep ? br->plan.closure_names[i] : br->plan.base.id;
		if (!what) {
			inos->incomplete = true;   /* the base's files are not counted */
			break;   /* an unpinned base: nothing of the store to verify */
		}
		bool warm = false;
		int vr = hk_store_find(store, what, &dep, err);
		if (vr == 0)
			vr = bo->verify_full ? hk_verity_check_artifact(store, dep, err)
					     : hk_statcache_verify(store, dep, hk_verity_check_artifact,
								   &warm, inos, err);
		if (vr < 0)
			return hk_wrap(err, "refusing to build %s: %s %s does not verify",
				       r->path ? r->path : r->name, is_dep ? "dep" : "base", what);
		n_checked++;
		warm_count += warm;
		if (is_dep)
			br->deps_sealed += dep->sealed;
	}
	/* A full check stat'ed nothing it kept. */
	if (bo->verify_full)
		inos->incomplete = true;
	hk_inos_finish(inos);
	if (!bo->quiet && n_checked)
		fprintf(stderr, "[deps] %zu artifact(s) verified (%zu%s sealed with fs-verity; %zu "
				"unchanged since the last full check) in %.1f s\n",
			n_checked, br->deps_sealed, br->plan.base.id ? " deps" : "", warm_count,
			(double)(hk_now_ms() - t_verify) / 1000.0);
	return 0;
}
