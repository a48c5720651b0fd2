/* What the m4 files of /usr/share/aclocal define, matched to what a failed build's log says
 * was missing (docs/debian-builds.md, "What a build can name").
 *
 * aclocal reads every .m4 of /usr/share/aclocal, so the store view leaves that directory out
 * (core/store/view.h): a visible, denied pkg.m4 would break every autoreconf.  A package needed only
 * for its files there then leaves no denial, and the failure shows only in the log, in one of
 * three ways, one for each kind of name an m4 file defines:
 *   - a macro: aclocal does not find it, and autoconf says "possibly undefined macro:
 *     PKG_PROG_PKG_CONFIG", or, once the unexpanded name reaches configure, the shell says
 *     "PKG_PROG_PKG_CONFIG: command not found" (bash) or "PKG_PROG_PKG_CONFIG: not found"
 *     (dash, Debian's /bin/sh);
 *   - a variable the macro would have substituted (AC_SUBST): automake says
 *     "'pkgconfig_DATA' is used but 'pkgconfigdir' is undefined" (lzo2 without pkg-config:
 *     PKG_INSTALLDIR, unknown to aclocal, is not expanded, and autoconf does not object to a
 *     name outside its forbidden patterns);
 *   - a conditional the macro would have defined (AM_CONDITIONAL): automake says
 *     "ENABLE_GTK_DOC does not appear in AM_CONDITIONAL".
 * These functions are the two halves of naming it: the names an m4 file defines, and the names
 * a log says were missing.  Pure: text in, names out. */
#ifndef HK_CORE_ACLOCAL_H
#define HK_CORE_ACLOCAL_H

#include <stddef.h>

#include "core/basic/strv.h"

enum hk_aclocal_kind {
	HK_ACLOCAL_MACRO,           /* AC_DEFUN, AC_DEFUN_ONCE, AU_DEFUN */
	HK_ACLOCAL_VARIABLE,        /* AC_SUBST, AC_SUBST_FILE */
	HK_ACLOCAL_CONDITIONAL,     /* AM_CONDITIONAL */
	HK_ACLOCAL_KINDS
};

/* "macro", "variable", "conditional". */
const char *hk_aclocal_kind_name(enum hk_aclocal_kind kind);

/* Appends to `out` the names of `kind` the m4 text defines, in order of appearance,
 * duplicates kept: the first argument of each call, quoted ("AC_SUBST([pkgconfigdir],") or
 * not, when it is a whole name ("AM_CONDITIONAL([HAVE_][$1], …)" is computed, and skipped).
 * A call spelt inside a comment (dnl, #) counts too, which at worst names something the file
 * does not define. */
void hk_aclocal_names(const char *text, size_t len, enum hk_aclocal_kind kind,
		      struct hk_strv *out);

/* The macros: hk_aclocal_names with HK_ACLOCAL_MACRO. */
void hk_aclocal_defuns(const char *text, size_t len, struct hk_strv *out);

/* Appends to `names` each name of `kind` a log line says was missing, and to `lines` (unless
 * NULL) that line, without its newline; in log order, duplicates dropped:
 *   - macro: "possibly undefined macro: NAME" (autoconf), and a line ending in
 *     "NAME: command not found" or "NAME: not found" where NAME looks like a macro (upper-case
 *     letters, digits and '_', with at least one '_' — no command is spelt so);
 *   - variable: a line ending in "'NAME' is undefined" (automake; "`NAME' is undefined" in
 *     its older spelling);
 *   - conditional: a line ending in "NAME does not appear in AM_CONDITIONAL" (automake). */
void hk_aclocal_log_misses(const char *text, size_t len, enum hk_aclocal_kind kind,
			   struct hk_strv *names, struct hk_strv *lines);

#endif
