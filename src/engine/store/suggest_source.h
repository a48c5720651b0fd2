/* The diagnosis' questions (core/evidence/suggest.h, struct hk_suggest_source) answered from disk: a
 * store's manifests and path index, and a pinned base's tree with its dpkg database. */
#ifndef HK_ENGINE_SUGGEST_SOURCE_H
#define HK_ENGINE_SUGGEST_SOURCE_H

#include "core/store/store.h"
#include "core/evidence/suggest.h"

/* A source over `store` (borrowed: it must outlive the source; NULL: no store) and the base
 * tree `base_root` (copied; NULL: no pinned base), whose package database is read on the
 * first question about the base and kept.  The source owns its context: give it to
 * hk_suggester_new, whose hk_suggester_free releases it. */
struct hk_suggest_source hk_suggest_source_disk(struct hk_store *store, const char *base_root);

#endif
