/* A Debian build's dpkg state (docs/debian-builds.md, "What dpkg leaves"): what installing the
 * closure of a source package's Build-Depends over a pinned base leaves beyond the packages'
 * own files.
 *
 * A store artifact per package holds what its .deb ships, but a Debian build relies on what
 * the maintainer scripts and triggers then make: the update-alternatives links (/usr/bin/yacc
 * -> /etc/alternatives/yacc -> /usr/bin/bison.yacc, lex, awk…), the linker cache, byte-compiled
 * Python, and above all the package database that dpkg-checkbuilddeps, dpkg-shlibdeps and
 * dpkg-genbuildinfo read.  So harkaq installs the closure once, with dpkg itself, over the
 * base (a writable overlay; bubblewrap as root: no network, its own pid, IPC and UTS
 * namespaces; the maintainer scripts of archive packages get the trust `apt-get install` gives
 * them on any Debian machine), and keeps, as one store artifact of origin "state":
 *
 *   - every entry of the merged system directories (usr, etc, …) the installation created or
 *     changed, except the files and links that are byte for byte those of a closure package's
 *     artifact (those are granted from the artifact itself);
 *   - the whole package database, var/lib/dpkg (base + closure), without locks and "-old"
 *     copies: bound read-only at /var/lib/dpkg in the build's sandbox.
 *
 * It is made once per closure id (hk_debstate_id) and found again by it.  A maintainer script
 * that removes a file of the base cannot be represented by a layer above the base: that is an
 * error naming the path. */
#ifndef HK_ENGINE_DEBSTATE_H
#define HK_ENGINE_DEBSTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/blake3.h"
#include "core/basic/error.h"
#include "core/store/store.h"

/* The state artifact's name; its version is the closure id's hex digits. */
#define HK_DEBSTATE_NAME "dpkg-state"

/* The closure id: BLAKE3 over "harkaq-dpkg-state 1\n", the base's id and the closure
 * artifacts' ids (sorted), one per line.  `hex` receives 64 hex digits. */
void hk_debstate_id(const struct hk_artifact *base, const struct hk_artifact *const *closure,
		    size_t n, char hex[2 * HK_BLAKE3_OUT_LEN + 1]);

struct hk_debstate_input {
	struct hk_store *store;
	const struct hk_artifact *base;
	const struct hk_artifact *const *closure;   /* store artifacts of the closure's packages */
	size_t n_closure;
	const char *debs_dir;         /* a directory holding exactly the closure's .deb files */
	const char *id_hex;           /* hk_debstate_id */
	const char *source_date_epoch;   /* for what the scripts date */
	const char *log_path;         /* dpkg's output goes there (outside the store) */
	bool quiet;
};

/* Installs the closure over the base and adds the state artifact (see above).  On failure
 * nothing is left in the store, and err names the step: dpkg's own last lines, or the path a
 * maintainer script removed.  Must run as root; mounts only in a mount namespace of its own
 * (this process's, made private). */
HK_MUST_CHECK int hk_debstate_make(const struct hk_debstate_input *in, const struct hk_artifact **out,
		     struct hk_error *err);

#endif
