/* Importing Debian packages into the store (docs/store.md, "Debian import"): dpkg-deb,
 * apt-get and apt-cache run on the host through hk_run_capture (an argv, never a shell); the
 * control data and relations are parsed by core/debian/deb.h; the tree goes in with hk_store_add. */
#ifndef HK_ENGINE_STORE_IMPORT_H
#define HK_ENGINE_STORE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"
#include "core/store/store.h"
#include "core/basic/strv.h"

/* Imports the .deb `file` as the artifact named after its package.  *out belongs to the store;
 * *added is false when the artifact was already present.  Errors name the file: EINVAL for a
 * package that is not a valid Debian binary package, another code for the environment. */
HK_MUST_CHECK int hk_import_deb(struct hk_store *s, const char *file, const struct hk_artifact **out,
		  bool *added, struct hk_error *err);

/* Downloads each of `want` (NAME or NAME=VERSION) with `apt-get download` into a temporary
 * directory of the store, imports it, and prints one hk_print_added line for it.  With
 * `with_deps`, their dependencies too, group by group and recursively, except a group that
 * the store already satisfies, one with an alternative in `base` (printed "base NAME (needed
 * by …)" once per name), and one of only virtual packages (a warning on stderr, not imported).
 * Stops at the first failure (an unknown package is ENOENT). */
HK_MUST_CHECK int hk_import_apt(struct hk_store *s, const struct hk_strv *want, bool with_deps,
		  const char *const *base, size_t n_base, struct hk_error *err);

/* apt's reason for a failure: the first "E: " line of what it wrote on stderr (else its first
 * line), cut to size - 1 bytes, in `line`. */
const char *hk_apt_reason(struct hk_buf *errout, char *line, size_t size);

/* Appends to `out` every package installed in the base root `root` and what they provide,
 * read from ROOT/var/lib/dpkg/status (hk_deb_installed_names): the names a closure may leave to
 * that base root (`store closure --base-root`, `store export --base-root`). */
HK_MUST_CHECK int hk_base_root_names(const char *root, struct hk_strv *out, struct hk_error *err);

/* "added|present b3:<id> NAME VERSION (N files[, from FROM])" on stdout. */
void hk_print_added(const struct hk_artifact *a, bool added, const char *from);

#endif
