/* Debian package metadata (design.md §9, docs/store.md "Debian import"): deb822 control data,
 * package relations, and the package sets a dpkg status file describes.  Pure parsing:
 * running dpkg-deb and apt is the command line's job (src/engine/store/store_import.c). */
#ifndef HK_DEB_H
#define HK_DEB_H

#include <stddef.h>

#include "core/basic/error.h"

struct hk_deb_field {
	char *name;       /* as written */
	char *value;      /* leading/trailing blanks removed; continuation lines joined by '\n' */
};

struct hk_deb_stanza {
	struct hk_deb_field *fields;
	size_t n;
};

/* Parses deb822 control data (one or more stanzas separated by blank lines): the output of
 * `dpkg-deb -f`, `apt-cache show`, or /var/lib/dpkg/status.  Errors name filename:line. */
HK_MUST_CHECK int hk_deb_parse_control(const char *text, size_t len, const char *filename,
			 struct hk_deb_stanza **out, size_t *n, struct hk_error *err);
/* The value of a field (names compare case-insensitively), or NULL. */
const char *hk_deb_field(const struct hk_deb_stanza *st, const char *name);
void hk_deb_stanzas_free(struct hk_deb_stanza *st, size_t n);

/* One package relation: "libc6:amd64 (>= 2.34)" -> name "libc6", arch "amd64", op ">=",
 * version "2.34".  arch, op and version are NULL when absent. */
struct hk_deb_rel {
	char *name;
	char *arch;
	char *op;
	char *version;
};

struct hk_deb_rel_group {
	struct hk_deb_rel *alts;
	size_t n;
};

/* Parses a binary package relationship field (Depends, Pre-Depends, Provides, …): groups
 * separated by ',', alternatives by '|'.  `field` names the field in errors. */
HK_MUST_CHECK int hk_deb_parse_relations(const char *text, const char *field, struct hk_deb_rel_group **out,
			   size_t *n, struct hk_error *err);
void hk_deb_relations_free(struct hk_deb_rel_group *g, size_t n);

/* Names a Debian base root provides: every package of a dpkg status file's text
 * (ROOT/var/lib/dpkg/status; `status_path` names it in errors) whose status is "installed",
 * and every name they Provide.  Sorted, deduplicated; caller frees each string and the array.
 * Reading the file is core/debian/deb_status.h. */
HK_MUST_CHECK int hk_deb_installed_names_parse(const char *text, size_t len,
					       const char *status_path, char ***names, size_t *n,
					       struct hk_error *err);

/* The "pseudo-essential" set of a Debian system described by a dpkg status file's text:
 * installed packages marked Essential: yes or Priority: required, plus everything they depend
 * on (Depends and Pre-Depends, every installed alternative, transitively), plus the names
 * those Provide.  That is what any Debian base root holds (debootstrap's minbase), so
 * importing with dependencies stops there by default.  Sorted, deduplicated; caller frees. */
HK_MUST_CHECK int hk_deb_essential_closure_parse(const char *text, size_t len,
						 const char *status_path, char ***names,
						 size_t *n, struct hk_error *err);

#endif
