/* harkaq's version, as attestations name the builder (docs/attestations.md). */
#ifndef HK_ENGINE_VERSION_H
#define HK_ENGINE_VERSION_H

#define HK_VERSION "0.1.0"

#endif
