/* Unified diffs of two texts of one file, as `diff -u` writes them: what a person reads of a
 * change harkaq suggests, and what `patch -p1` applies (the recipe `harkaq declare` edits,
 * the debian/control of a Debian build's suggestion: docs/debian-builds.md, "The change to
 * make").
 *
 *     --- a/debian/control
 *     +++ b/debian/control
 *     @@ -5,3 +5,4 @@
 *      Build-Depends: bison,
 *     +               libncurses-dev,
 *                     zlib1g-dev
 *
 * Lines are compared whole, with their line ending; a last line without one is marked
 * "\ No newline at end of file", as diff does, so the patch restores the file byte for byte.
 * The edit script is Myers' shortest one; past HK_UDIFF_MAX_EDITS differing lines it gives up
 * looking for the shortest and replaces the differing middle whole (still a correct patch). */
#ifndef HK_UDIFF_H
#define HK_UDIFF_H

#include <stddef.h>

#include "core/basic/buf.h"

#define HK_UDIFF_CONTEXT 3
#define HK_UDIFF_MAX_EDITS 4000

/* Appends to `out` the diff from `a` to `b` (alen, blen bytes), both named `path` ("a/PATH",
 * "b/PATH" on the header lines).  Nothing when the texts are equal. */
void hk_udiff(const char *path, const char *a, size_t alen, const char *b, size_t blen,
	      struct hk_buf *out);

#endif
