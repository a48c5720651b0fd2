/* harkaq's version, as attestations name the builder (docs/attestations.md). */
#ifndef HK_CLI_VERSION_H
#define HK_CLI_VERSION_H

#define HK_VERSION "0.1.0"

#endif
