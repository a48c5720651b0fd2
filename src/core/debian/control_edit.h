/* debian/control edited as a maintainer would: a Build-Depends added or dropped in the source
 * paragraph, every other byte kept, the field laid out as wrap-and-sort lays it out when the
 * file is in that layout (docs/debian-builds.md, "The change to make").
 *
 * The layout is read from the file, never assumed:
 *   - a relation field is "one line" (`Build-Depends: a, b`), "wrapped" (one item a line,
 *     continuation lines indented alike: under the value, `Build-Depends: a,` then
 *     `               b`, or by one space after an empty first line, wrap-and-sort's -s), or
 *     "free" (anything else).  A field is taken as one line or wrapped only when rendering its
 *     items so gives back its bytes exactly; a free field gets the smallest edit instead (the
 *     item written after the last one, or cut out with its comma);
 *   - a trailing comma (wrap-and-sort's -t) is the field's own;
 *   - the whole file's relation fields say -a (every one wrapped) and -s (wrapped ones
 *     indented by one space), which decide how a one-line field that grows past wrap-and-sort's
 *     79 columns is wrapped, and how a new field is written;
 *   - the order: items sorted as devscripts 2.23.4 sorts them (package names before
 *     substvars, then by the item's text), or as newer devscripts do (build-system packages
 *     first: debhelper, debhelper-compat, dh-*, dpkg-dev, dpkg-build-api); a new item goes
 *     where that order puts it (2.23.4's when both fit), at the end of the package names
 *     when the field is in neither.  Alternatives stay one item, `a | b`, sorted by its text.
 * Comment lines (`#` in column 0) stay above the item they precede.
 *
 * The result is checked before it is returned: parsed again, the field holds the old items
 * with the one added or without the one dropped, and nothing else changed.
 *
 * Ownership: every string of a layout or result is static or the caller's. */
#ifndef HK_CONTROL_EDIT_H
#define HK_CONTROL_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/basic/buf.h"
#include "core/basic/error.h"

enum hk_control_op {
	HK_CONTROL_ADD = 0,
	HK_CONTROL_DROP,
};

struct hk_control_change {
	enum hk_control_op op;
	/* "Build-Depends", "Build-Depends-Indep", "Build-Depends-Arch": the source paragraph's
	 * field (made, for an ADD, when the paragraph has none). */
	const char *field;
	/* ADD: the item as written, "libncurses-dev" or "a | b" (EEXIST when the field names
	 * one of its packages already).  DROP: the package names of the item to drop, "a | b":
	 * the item whose alternatives name exactly these, whatever versions, architectures or
	 * profiles it adds (ENOENT when none does). */
	const char *item;
};

enum hk_control_order {
	HK_CONTROL_UNSORTED = 0,
	HK_CONTROL_SORTED,              /* devscripts 2.23.4's order */
	HK_CONTROL_SORTED_BUILD_FIRST,  /* newer devscripts': build-system packages first */
};

/* "unsorted", "sorted", "sorted-build-system-first" */
const char *hk_control_order_name(enum hk_control_order o);

struct hk_control_layout {
	bool wrap_always;       /* -a: every relation field of the file wrapped */
	bool short_indent;      /* -s: wrapped fields indented by one space */
	bool trailing_comma;    /* -t: every relation field ends with a comma */
	enum hk_control_order order;   /* of the edited field(s), before the edit */
	bool edited_free;       /* an edited field was in no layout: the smallest edit */
	bool comments;          /* the file has comment lines */
	/* Every relation field of the file is as `wrap-and-sort` with these options writes it
	 * (sorted in either order, one line or wrapped by its rule, alternatives spaced): the
	 * edit keeps that. */
	bool wrap_and_sort;
};

/* "-ast", "-a", "" …: the wrap-and-sort options the layout is of. */
void hk_control_layout_options(const struct hk_control_layout *l, char out[8]);

/* Applies `changes` (n of them, in order) to the control file `text` (len bytes; `filename`
 * names it in errors): the edited text is appended to `out`, and the layout read before the
 * first change into *layout.  On failure `out` is left as it was. */
HK_MUST_CHECK int hk_control_edit(const char *text, size_t len, const char *filename,
				  const struct hk_control_change *changes, size_t n,
				  struct hk_buf *out, struct hk_control_layout *layout,
				  struct hk_error *err);

#endif
