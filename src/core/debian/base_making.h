/* How a pinned base is made, as values (docs/bases.md): the request `harkaq store base
 * create` takes, the rules its words obey, what leaves the tree mmdebstrap made, and the
 * provenance the base records — written and read here, one codec.
 *
 * Pure: the engine runs mmdebstrap and touches the tree (engine/debian/base_make.c); every
 * decision it follows is made here, so a unit test can list them. */
#ifndef HK_CORE_BASE_MAKING_H
#define HK_CORE_BASE_MAKING_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/error.h"
#include "core/debian/debroot.h"
#include "core/formats/json.h"
#include "core/store/store.h"

/* Debian 12's release day: a fixed default, so that making a base again from the same
 * archive state gives the same bytes (log and shadow dates come from it). */
#define HK_BASE_DEFAULT_SOURCE_DATE_EPOCH "1686355200"
#define HK_BASE_DEFAULT_MIRROR "http://deb.debian.org/debian"
#define HK_BASE_DEFAULT_SUITE "bookworm"
#define HK_BASE_DEFAULT_VARIANT "essential"

/* A base to make.  Borrowed strings: the caller keeps them alive. */
struct hk_base_making {
	const char *name;
	const char *variant;            /* hk_base_variant_known() */
	const char *suite;              /* hk_base_suite_valid() */
	const char *mirror;             /* hk_base_mirror_valid() */
	const char *source_date_epoch;  /* decimal seconds */
	const char *const *includes;    /* each hk_base_includes_valid() */
	size_t n_includes;
};

/* mmdebstrap's variants harkaq makes bases of: essential, minbase, apt, buildd. */
bool hk_base_variant_known(const char *variant);
/* A Debian suite or codename: lowercase letters, digits and '-', at most 64. */
bool hk_base_suite_valid(const char *suite);
/* Debian package names ([a-z0-9][a-z0-9+.-]*), comma-separated, none empty. */
bool hk_base_includes_valid(const char *includes);
/* An http, https or file URL. */
bool hk_base_mirror_valid(const char *mirror);

/* Checks a whole request: its name is a valid artifact name and every word obeys its rule.
 * -EINVAL (class usage) naming the word and what is allowed. */
HK_MUST_CHECK int hk_base_making_check(const struct hk_base_making *m, struct hk_error *err);

/* What mmdebstrap copies from the machine that runs it, or what the sandbox provides itself,
 * leaves the tree, so that the same archive state gives the same tree on any machine:
 * HK_BASE_EMPTIED are directories emptied (the device nodes of /dev: the store holds no
 * special files and bubblewrap makes /dev), HK_BASE_REMOVED files removed (the host's name
 * servers, a build has no network; the host's name), and the apt sources, when the tree has
 * them, are rewritten to hk_base_sources_list() whatever mirror served the packages (the
 * mirror is recorded in the provenance). */
extern const char *const HK_BASE_EMPTIED[];
extern const size_t HK_BASE_N_EMPTIED;
extern const char *const HK_BASE_REMOVED[];
extern const size_t HK_BASE_N_REMOVED;
#define HK_BASE_SOURCES_LIST "etc/apt/sources.list"
/* The sources.list a base keeps: its suite on deb.debian.org.  Caller frees. */
char *hk_base_sources_list(const char *suite);

/* The base's version from the text of its etc/debian_version ("12.12\n" gives "12.12"):
 * the first line, ' ' and '/' made '_' ("trixie/sid" gives "trixie_sid"); "unknown" when
 * empty.  Caller frees. */
char *hk_base_version_from(const char *debian_version_text);

/* The provenance recorded in the base's metadata (not its identity: the tree is), as the JSON
 * object of its artifact's "source".  `tool` names the program ("mmdebstrap").  Caller frees. */
char *hk_base_provenance_json(const struct hk_base_making *m, const char *tool,
			      const struct hk_deb_pkglist *pkgs);

/* What a base's provenance says (strings owned by the struct). */
struct hk_base_info {
	char *variant;          /* "essential", "buildd", …; NULL if not recorded */
	char *suite;            /* "bookworm" */
	char *mirror;
	char *tool;             /* "mmdebstrap" */
	size_t n_packages;      /* dpkg packages installed in it */
};

/* Reads the provenance back from a base artifact's metadata (the one reader of what
 * hk_base_provenance_json writes). */
HK_MUST_CHECK int hk_base_info_read(const struct hk_artifact *a, struct hk_base_info *out,
				    struct hk_error *err);
void hk_base_info_free(struct hk_base_info *i);

/* One base as `harkaq store base list --json` lists it: id, name, version, tag (or null),
 * variant, suite, packages, files. */
void hk_base_list_entry_json(struct hk_json *j, const struct hk_artifact *a, const char *tag,
			     const struct hk_base_info *info);

#endif
