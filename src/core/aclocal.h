/* Autoconf macros named by a failed build's log, matched to the m4 files that define them
 * (docs/debian-builds.md, "What a build can name").
 *
 * aclocal reads every .m4 of /usr/share/aclocal, so the store view leaves that directory out
 * (core/view.h): a visible, denied pkg.m4 would break every autoreconf.  A package needed only
 * for its macros there then leaves no denial: aclocal does not find the macro, and the failure
 * shows only in the log, as autoconf's "possibly undefined macro: PKG_PROG_PKG_CONFIG" or, once
 * the unexpanded name reaches configure, the shell's "PKG_PROG_PKG_CONFIG: command not found"
 * (bash) or "PKG_PROG_PKG_CONFIG: not found" (dash, Debian's /bin/sh).  These functions are
 * the two halves of naming it: the macros an m4 file defines, and the macros a log says were
 * missing.  Pure: text in, names out. */
#ifndef HK_CORE_ACLOCAL_H
#define HK_CORE_ACLOCAL_H

#include <stddef.h>

#include "core/strv.h"

/* Appends to `out` the names the m4 text defines with AC_DEFUN, AC_DEFUN_ONCE or AU_DEFUN,
 * quoted ("AC_DEFUN([PKG_PROG_PKG_CONFIG],") or not, in order of appearance, duplicates
 * kept.  Only the first argument of each call is a name; a call spelt inside a comment (dnl,
 * #) counts too, which at worst names a macro the file does not define. */
void hk_aclocal_defuns(const char *text, size_t len, struct hk_strv *out);

/* Appends to `macros` each name a log line says was an unexpanded macro, and to `lines` (unless
 * NULL) that line, without its newline: "possibly undefined macro: NAME" (autoconf), and a
 * line ending in "NAME: command not found" or "NAME: not found" where NAME looks like a macro
 * (upper-case letters, digits and '_', with at least one '_' — no command is spelt so).  In
 * log order, duplicates dropped. */
void hk_aclocal_log_misses(const char *text, size_t len, struct hk_strv *macros,
			   struct hk_strv *lines);

#endif
