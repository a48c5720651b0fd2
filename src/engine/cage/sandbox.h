/* The sandbox: bubblewrap composed around the cage (design.md §9 "Sandbox").
 *
 *   --unshare-all (no network), --die-with-parent, --new-session
 *   the base root read-only, the deps merged over it
 *   /src and /out the only real read-write surfaces; /tmp, /var/tmp scratch tmpfs
 *   /dev and /proc from bubblewrap; a fixed minimal environment
 *
 * Debian 12's bubblewrap 0.8 has no --overlay-src, so harkaq builds the merged view itself:
 * in the phase's own (private) mount namespace, as root, it mounts a read-only overlayfs per
 * top-level directory (lowerdir = the deps' trees over the base root's), then drops to the
 * build user, whose bubblewrap binds the merged directories into the sandbox.  Landlock rules
 * are then added on the merged paths, from inside the sandbox (kernel-facts.md §6).
 *
 * The sandbox, not the policy module, reports the contract surfaces it mounted
 * (hk_sandbox_contract), because only it knows what it mounted (design.md §5, /cache). */
#ifndef HK_ENGINE_SANDBOX_H
#define HK_ENGINE_SANDBOX_H

struct hk_exec_args;

#include <stdbool.h>
#include <stddef.h>

#include "engine/common/reach.h"
#include "core/basic/error.h"
#include "core/policy/policy.h"

#define HK_SANDBOX_EXEC_PATH "/.harkaq/harkaq-exec"
#define HK_SANDBOX_POLICY_PATH "/.harkaq/policy"
#define HK_SANDBOX_COLLAPSE_PATH "/.harkaq/collapse"
#define HK_SANDBOX_STATUS_FD 3

struct hk_sandbox {
	const char *base_root;      /* "/" for the host's own system directories */
	const char *const *layers;  /* dep artifact trees, highest priority first */
	size_t n_layers;
	/* The store view (core/store/view.h): every artifact, visible but not granted, merged below
	 * the base; and its trap directory, bound at HK_VIEW_TRAP_DIR.  NULL: no view. */
	const char *view_root;
	const char *view_links;
	const char *src_dir;        /* host directory bound read-write at /src */
	const char *out_dir;        /* host directory bound read-write at /out */
	const char *cache_dir;      /* optional host directory bound at /cache */
	const char *stage_dir;      /* host directory where merged views are mounted */
	const char *exec_host_path; /* host path of harkaq-exec (bound at HK_SANDBOX_EXEC_PATH) */
	const char *policy_host_path;
	const char *collapse_host_path; /* NULL: the cage installs one rule per grant */
	const char *canary_host_path;
	const char *canary_sandbox_path; /* e.g. /.harkaq/canary-<nonce> */
	char **env;                 /* NULL-terminated "K=V" list for the build */
	/* A Debian build's package database (base + Build-Depends), bound read-only at
	 * /var/lib/dpkg, and its files (sandbox paths), granted read-only as a contract surface:
	 * dpkg-checkbuilddeps and dpkg-shlibdeps read it.  NULL: no /var/lib/dpkg. */
	const char *dpkg_db;
	const char *const *dpkg_db_files;
	size_t n_dpkg_db_files;
	bool cage;                  /* false: --no-cage, the same sandbox without harkaq-exec */
};

/* The top-level directories of the sandbox and how each is provided.  Filled by
 * hk_sandbox_plan(); used by the argv builder and by the mount step. */
enum hk_top_kind { HK_TOP_SYMLINK, HK_TOP_BIND, HK_TOP_OVERLAY };
struct hk_top {
	char *name;                 /* "usr", "etc", … */
	enum hk_top_kind kind;
	char *symlink_target;       /* HK_TOP_SYMLINK */
	char *bind_source;          /* HK_TOP_BIND: host directory */
	char **lowers;              /* HK_TOP_OVERLAY: host directories, highest first */
	size_t n_lowers;
	char *merged;               /* HK_TOP_OVERLAY: stage_dir/<name> */
};
struct hk_sandbox_plan {
	struct hk_top *tops;
	size_t n_tops;
};

/* Whether a dep file at this sandbox path is merged into the sandbox (it lies under one of the
 * base root's system directories: usr, bin, sbin, lib*, etc, opt). */
bool hk_sandbox_merges_path(const char *path);

HK_MUST_CHECK int hk_sandbox_plan(const struct hk_sandbox *s, struct hk_sandbox_plan *plan, struct hk_error *err);
void hk_sandbox_plan_free(struct hk_sandbox_plan *plan);

/* Mounts the overlays of the plan.  Must run as root in a mount namespace of the caller's
 * own (unshare(CLONE_NEWNS)); it is made private first.  harkaq build mounts once per build,
 * and every phase's bubblewrap binds the merged views. */
HK_MUST_CHECK int hk_sandbox_mount(const struct hk_sandbox_plan *plan, struct hk_error *err);
/* Unmounts what hk_sandbox_mount() mounted (lazily if still busy). */
void hk_sandbox_unmount(const struct hk_sandbox_plan *plan);

/* bubblewrap's argv (NULL-terminated, malloc'd strings), ending with the command that runs in
 * the sandbox: harkaq-exec … -- inner_argv when caged, inner_argv alone otherwise.
 * cage_args (NULL: none) carries the fault injection asked of harkaq-exec (--force-abi, the
 * test switches); the sandbox sets its paths, status descriptor and canary itself. */
HK_MUST_CHECK int hk_sandbox_argv(const struct hk_sandbox *s, const struct hk_sandbox_plan *plan,
				  const struct hk_exec_args *cage_args, char *const *inner_argv,
				  char ***out, struct hk_error *err);

/* What the build user must reach for bubblewrap to start with `argv` (hk_sandbox_argv's): every
 * --bind and --ro-bind source, a directory to be entered (X), a file to be read (R), harkaq-exec
 * to be executed (X).  Read from the argv itself, so that the check and bubblewrap never
 * disagree on what is bound.  The strings are borrowed from argv. */
void hk_sandbox_argv_binds(char *const *argv, struct hk_reach_list *l);

/* Adds the contract surfaces this sandbox mounts to a policy (design.md §5, first category). */
void hk_sandbox_contract(const struct hk_sandbox *s, struct hk_policy *p);

#endif
