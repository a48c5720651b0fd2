/* Reading a dpkg status file: the file system side of core/debian/deb.h's parsers. */
#ifndef HK_DEB_STATUS_H
#define HK_DEB_STATUS_H

#include <stddef.h>

#include "core/debian/deb.h"
#include "core/basic/error.h"

/* hk_deb_installed_names_parse of the file `status_path` (ROOT/var/lib/dpkg/status). */
HK_MUST_CHECK int hk_deb_installed_names(const char *status_path, char ***names, size_t *n,
			   struct hk_error *err);

/* hk_deb_essential_closure_parse of the file `status_path`. */
HK_MUST_CHECK int hk_deb_essential_closure(const char *status_path, char ***names, size_t *n,
			     struct hk_error *err);

#endif
