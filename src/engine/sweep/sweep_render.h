/* The sweep rendered for people (docs/sweep.md), from a result document: the command line's
 * part, beside engine/build/report.h. */
#ifndef HK_ENGINE_SWEEP_RENDER_H
#define HK_ENGINE_SWEEP_RENDER_H

#include "core/basic/buf.h"
#include "core/sweep/sweep.h"

/* The human table (stdout of `harkaq sweep`). */
void hk_sweep_table(const struct hk_sweep_doc *d, struct hk_buf *out);
/* A self-contained HTML report: inline CSS and SVG, no external resource, every text
 * escaped. */
void hk_sweep_html(const struct hk_sweep_doc *d, struct hk_buf *out);

/* Escapes text for HTML element content and attribute values (& < > " '). */
void hk_html_escape(struct hk_buf *out, const char *s);

#endif
