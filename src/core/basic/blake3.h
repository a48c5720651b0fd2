/* BLAKE3, written from its specification (hash mode, keyed hash, derive key, extended output).
 * Checked against the official test vectors in tests/unit/test_blake3.c. */
#ifndef HK_BLAKE3_H
#define HK_BLAKE3_H

#include <stddef.h>
#include <stdint.h>

/* Digests travel as hex (hk_hex, hk_unhex): every user of the ids below needs it too. */
#include "core/basic/hex.h"

#include "core/basic/error.h"

#define HK_BLAKE3_OUT_LEN 32
#define HK_BLAKE3_KEY_LEN 32
#define HK_BLAKE3_BLOCK_LEN 64
#define HK_BLAKE3_CHUNK_LEN 1024
#define HK_BLAKE3_MAX_DEPTH 54

struct hk_blake3_chunk {
	uint32_t cv[8];
	uint64_t chunk_counter;
	uint8_t block[HK_BLAKE3_BLOCK_LEN];
	uint8_t block_len;
	uint8_t blocks_compressed;
	uint8_t flags;
};

struct hk_blake3 {
	uint32_t key[8];
	struct hk_blake3_chunk chunk;
	uint8_t cv_stack_len;
	uint32_t cv_stack[HK_BLAKE3_MAX_DEPTH + 1][8];
	uint8_t flags;
};

void hk_blake3_init(struct hk_blake3 *h);
void hk_blake3_init_keyed(struct hk_blake3 *h, const uint8_t key[HK_BLAKE3_KEY_LEN]);
void hk_blake3_init_derive_key(struct hk_blake3 *h, const char *context);
void hk_blake3_update(struct hk_blake3 *h, const void *data, size_t len);
/* Extended output: any length; does not modify the state (may be called repeatedly). */
void hk_blake3_finalize(const struct hk_blake3 *h, uint8_t *out, size_t out_len);

/* One-shot convenience: 32-byte hash of data. */
void hk_blake3_hash(const void *data, size_t len, uint8_t out[HK_BLAKE3_OUT_LEN]);
/* "b3:<64 hex>" of data into out (68 bytes with NUL). */
#define HK_B3_ID_LEN (3 + 2 * HK_BLAKE3_OUT_LEN + 1)
void hk_b3_id(const void *data, size_t len, char out[HK_B3_ID_LEN]);

/* Hashing a file is core/basic/blake3_file.h. */

#endif
