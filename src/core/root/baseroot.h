/* The derived base runtime (design.md §5, design.md §5, docs/base-runtime.md): the few files
 * of a base root every build of a given shape needs — a short list of entry programs per base
 * profile, plus everything the kernel and the dynamic loader open to start them.
 *
 * Everything is resolved INSIDE the base root, as the sandbox will see it: symlinks (even
 * absolute ones such as /lib64/ld-linux-x86-64.so.2 -> /lib/x86_64-linux-gnu/…) are followed
 * by harkaq's own component walk relative to the root, never by the host's path resolution,
 * and libraries are found by the glibc loader's search rules applied to the root's files —
 * never by ldd, which answers for the host.
 *
 * Output paths are absolute sandbox paths in CANONICAL form (no symlinked directory on the
 * way): Landlock rules attach to inodes and the kernel reports the resolved path, so
 * /usr/bin/dash is the one name under which /bin/sh is both granted and reported. */
#ifndef HK_BASEROOT_H
#define HK_BASEROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/basic/error.h"
#include "core/root/rootpath.h"
#include "core/basic/strset.h"

/* ---- closures ---------------------------------------------------------------------------- */

struct hk_runtime_closure {
	/* Every non-directory object reached: programs, scripts, program interpreters, shared
	 * libraries, data files; canonical paths.  These are what a policy grants `ro`. */
	struct hk_strset files;
	/* Every symlink met on the way to one of them (the link inodes themselves), canonical
	 * location.  Granting a link grants nothing through it (kernel-facts.md §6); they are
	 * listed so a policy names the short paths builds open (libc.so.6 -> libc-2.x.so). */
	struct hk_strset file_links;
	/* Directory symlinks met (/bin, /lib, /lib64, /sbin on merged-/usr).  Informational:
	 * never grant them `ro` — a rule opened through /bin would cover all of /usr/bin. */
	struct hk_strset dir_links;
};

#define HK_RUNTIME_CLOSURE_INIT { HK_STRSET_INIT, HK_STRSET_INIT, HK_STRSET_INIT }

void hk_runtime_closure_free(struct hk_runtime_closure *c);
/* files ∪ file_links, sorted: the list "emit both symlinks and their targets" (design.md §5). */
void hk_runtime_closure_paths(const struct hk_runtime_closure *c, struct hk_strset *out);

/* The search PATH inside the sandbox for entry programs given by bare name. */
#define HK_BASE_PATH "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

/* Closure of entry programs inside the root directory `root` ("/" for the host).  Each entry
 * is an absolute sandbox path or a bare name looked up through HK_BASE_PATH.  Collected into
 * `out` (which may already hold items — closures accumulate):
 *   - the entry, and for a "#!" script its interpreter (recursively; `#!/usr/bin/env perl`
 *     also looks up perl through the PATH);
 *   - for an ELF program its PT_INTERP and, recursively, its DT_NEEDED libraries found by the
 *     glibc rules: DT_RPATH of the object and of the objects that loaded it (unless the
 *     object has DT_RUNPATH), DT_RUNPATH, then — unless DF_1_NODEFLIB — the directories of
 *     the root's /etc/ld.so.conf (standing for /etc/ld.so.cache, only when the root has
 *     one), then /lib/<triplet>, /usr/lib/<triplet>, /lib, /usr/lib; in each directory the
 *     glibc-hwcaps subdirectories first; candidates of another ELF class, byte order or
 *     machine are skipped;
 *   - /etc/ld.so.cache when a search consulted it, and /etc/ld.so.preload (and what it
 *     names) when the root has one.
 * An entry or a library that cannot be found is an error: the program would not start. */
HK_MUST_CHECK int hk_elf_closure(const char *root, const char *const *entries, size_t n,
		   struct hk_runtime_closure *out, struct hk_error *err);

/* ---- base profiles ----------------------------------------------------------------------- */

enum hk_entry_kind {
	HK_ENTRY_PROGRAM = 0,   /* resolved through the PATH if bare, closure computed */
	HK_ENTRY_DATA = 1,      /* a data file at an absolute path: itself and its links */
	HK_ENTRY_LDCONF = 2,    /* an ld.so.conf-format file: itself and every file it includes */
};

struct hk_runtime_entry {
	const char *name;
	enum hk_entry_kind kind;
	bool optional;          /* absent from the root → skipped, not an error */
};

struct hk_base_profile {
	const char *name;
	const char *summary;
	const struct hk_runtime_entry *entries;
	size_t n_entries;
};

/* The built-in profiles ("minimal", "autotools"), or NULL.  The name "host" is accepted as
 * an alias of "autotools" (the host base's configure shape). */
const struct hk_base_profile *hk_base_profile_find(const char *name);
/* NULL-terminated list of the profile names, for help texts and error messages. */
const char *const *hk_base_profile_names(void);

/* The base runtime of `profile` inside `root`, with the loader files that closure needs. */
HK_MUST_CHECK int hk_base_runtime_closure(const char *root, const char *profile,
			    struct hk_runtime_closure *out, struct hk_error *err);
/* The same as one sorted, deduplicated list of absolute sandbox paths: targets and file
 * links (directory links excluded).  `out_paths` may already hold items. */
HK_MUST_CHECK int hk_base_runtime(const char *root, const char *profile, struct hk_strset *out_paths,
		    struct hk_error *err);

#endif
