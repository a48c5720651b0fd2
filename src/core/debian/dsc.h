/* Debian source packages (docs/debian-builds.md): the .dsc control file and the source
 * package relations it carries.  Pure parsing: reading the files it names, checking their
 * bytes, running dpkg-source and apt are the command line's job (src/engine/debian/build_dsc.c).
 *
 * A .dsc is one deb822 stanza (core/debian/deb.h), usually clear-signed with OpenPGP.  The armour is
 * removed here without verifying the signature (dpkg-source checks it with the keyrings the
 * machine has); the checksums the stanza lists are what harkaq checks before anything else
 * reads the files.
 *
 * Source relations (Build-Depends and friends) are binary relations plus two restrictions per
 * alternative, which decide whether the alternative exists for a given build:
 *
 *     libfoo-dev (>= 1.2) [linux-any !hurd-i386] <!nocheck> <stage1 cross>
 *
 * An architecture list holds either only positive or only negated names (a positive list keeps
 * the alternative on a matching architecture, a negated one on any other); names are Debian
 * architectures or wildcards such as linux-any and any-amd64, matched as dpkg matches them
 * (by the four-part tuple abi-libc-os-cpu).  A restriction formula is one or more <…> groups:
 * the alternative stays when every term of some group holds (`p` when profile p is active,
 * `!p` when it is not).  Reducing a field drops the alternatives whose restrictions fail, and
 * the groups left empty (dpkg's deps_parse with reduce_restrictions).
 *
 * Ownership: every string of the structures below belongs to them; the *_free functions
 * release everything. */
#ifndef HK_DSC_H
#define HK_DSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/basic/buf.h"
#include "core/debian/deb.h"
#include "core/basic/error.h"

/* One file the .dsc names (Checksums-Sha256, cross-checked with Files). */
struct hk_dsc_file {
	char *name;          /* a plain file name next to the .dsc: no '/', not "." or ".." */
	uint64_t size;
	char sha256[65];     /* lowercase hex */
};

/* The source relation fields, in this order everywhere (enum hk_dsc_field). */
enum hk_dsc_field {
	HK_DSC_BUILD_DEPENDS = 0,
	HK_DSC_BUILD_DEPENDS_ARCH,
	HK_DSC_BUILD_DEPENDS_INDEP,
	HK_DSC_BUILD_CONFLICTS,
	HK_DSC_BUILD_CONFLICTS_ARCH,
	HK_DSC_BUILD_CONFLICTS_INDEP,
	HK_DSC_FIELD_COUNT,
};

/* "Build-Depends", "Build-Depends-Arch", … */
const char *hk_dsc_field_name(enum hk_dsc_field f);

struct hk_dsc {
	char *source;        /* Source: a Debian source package name */
	char *version;       /* Version: a Debian version (epoch and revision included) */
	char *format;        /* Format: "3.0 (quilt)", … (dpkg-source decides what it accepts) */
	char *architecture;  /* Architecture, or NULL */
	char *binary;        /* Binary: the binary packages, or NULL */
	char *relations[HK_DSC_FIELD_COUNT];   /* raw field values (NULL when absent) */
	unsigned relation_line[HK_DSC_FIELD_COUNT];   /* where each field starts (1-based) */
	struct hk_dsc_file *files;
	size_t n_files;
	bool signed_;        /* the stanza was clear-signed (the signature is not checked here) */
};

/* Parses a .dsc's bytes.  Errors name `filename`, the line, the field and the reason, e.g.
 *   foo.dsc:14: Checksums-Sha256: 'abc 12 foo.tar.xz': expected "SHA256 SIZE NAME" with a
 *   64-digit SHA-256
 * Checked: exactly one stanza; Format, Source, Version, Files and Checksums-Sha256 present;
 * Source and Version valid; every listed file a plain name, listed once, in both Files and
 * Checksums-Sha256 with the same size; every source relation field parses.  On error *out is
 * zeroed. */
HK_MUST_CHECK int hk_dsc_parse(const char *text, size_t len, const char *filename, struct hk_dsc *out,
		 struct hk_error *err);
void hk_dsc_free(struct hk_dsc *d);

/* The date of a debian/changelog's latest entry, in seconds since the epoch, as
 * dpkg-parsechangelog -STimestamp gives it: the first trailer line
 * " -- NAME <EMAIL>  [DAY, ]DD MON YYYY HH:MM:SS +ZZZZ".  Returns 0, or -1 when the text has
 * no such line in that form (the caller then asks dpkg-parsechangelog, whose parser is the
 * reference: this one answers only for the form it is sure of). */
HK_MUST_CHECK int hk_changelog_timestamp(const char *text, size_t len, long long *out);

/* The machine a build is for: its Debian architecture and the tuple dpkg knows it by
 * (dpkg-architecture's DEB_HOST_ARCH, _ABI, _LIBC, _OS, _CPU: "amd64" = base-gnu-linux-amd64). */
struct hk_deb_arch {
	const char *arch, *abi, *libc, *os, *cpu;
};

/* Whether the architecture restriction token `token` (without '!': "amd64", "linux-any",
 * "any-amd64", "any") names `host` (dpkg's debarch_is). */
bool hk_deb_arch_matches(const struct hk_deb_arch *host, const char *token);

/* Parses the source relation field `text` (field names it in errors) and reduces it for
 * `host` and the active build profiles (`profiles`, n_profiles names).  The groups left are
 * plain binary relations (core/debian/deb.h): restrictions removed, arch qualifiers (:any, :native)
 * kept.  Syntax errors name the field and the relation. */
HK_MUST_CHECK int hk_dsc_relations_reduce(const char *text, const char *field, const struct hk_deb_arch *host,
			    const char *const *profiles, size_t n_profiles,
			    struct hk_deb_rel_group **out, size_t *n, struct hk_error *err);

/* The relation groups as a relation field again: "a (>= 1) | b:any, c" (for apt-get satisfy,
 * whose parser then sees exactly what harkaq reduced).  Appends to `out`. */
void hk_deb_relations_text(const struct hk_deb_rel_group *g, size_t n, struct hk_buf *out);

#endif
