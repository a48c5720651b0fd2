/* Libraries a failed build's log says were not found, matched to the /etc/ld.so.conf.d files
 * that name their directories (docs/debian-builds.md, "What a build can name").
 *
 * dpkg-shlibdeps reads every file /etc/ld.so.conf includes, so the store view leaves
 * /etc/ld.so.conf.d out (core/store/view.h): one visible, denied file there broke dh_shlibdeps of
 * every package.  A package needed only for such a file — its directory is where a library is
 * looked for — then leaves no denial: dpkg-shlibdeps says "cannot find library libX.so.1
 * needed by …", ld says "libX.so.1, needed by …, not found (try using -rpath or
 * -rpath-link)".  These functions are the two halves of naming it: the directories a
 * configuration file names, and the libraries a log says were not found.  Pure: text in,
 * names out. */
#ifndef HK_CORE_DSC_LDCONF_H
#define HK_CORE_DSC_LDCONF_H

#include <stddef.h>

#include "core/basic/strv.h"

/* Appends to `out` the directories an ld.so.conf file names, as ldconfig reads them: absolute
 * paths separated by blanks, ':' or ',', a '#' starting a comment; "include PATTERN" and
 * "hwcap" lines name none.  Trailing '/' removed ("/" stays); duplicates kept. */
void hk_ldconf_dirs(const char *text, size_t len, struct hk_strv *out);

/* Appends to `libs` each library a log line says was not found, and to `lines` (unless NULL)
 * that line, without its line end; in log order, duplicates dropped: dpkg-shlibdeps's
 * "cannot find library NAME needed by", and ld's "NAME, needed by …, not found".  NAME is a
 * file name (no '/'). */
void hk_ldconf_log_misses(const char *text, size_t len, struct hk_strv *libs,
			  struct hk_strv *lines);

#endif
