/* BLAKE3, written from the specification ("BLAKE3: one function, fast everywhere", §2 and the
 * reference pseudocode of its appendix).  Portable C, one compression at a time.
 *
 * Structure:
 *   - compress(): the 7-round compression function, fully unrolled over a precomputed message
 *     schedule, so no permutation is applied at run time;
 *   - a chunk state that compresses 64-byte blocks straight from the caller's buffer whenever
 *     it can (only a block that might be the chunk's last is copied, because its flags are not
 *     known until more input arrives);
 *   - whole 1024-byte chunks taken directly from the input when the chunk state is empty;
 *   - the chaining-value stack with the "lazy merge" of the reference implementation: a chunk's
 *     CV is merged into its parents only when the next chunk starts, so the stack never holds
 *     a CV that could still turn out to be the root.
 */
#include "core/basic/blake3.h"

#include <string.h>

enum {
	CHUNK_START = 1 << 0,
	CHUNK_END = 1 << 1,
	PARENT = 1 << 2,
	ROOT = 1 << 3,
	KEYED_HASH = 1 << 4,
	DERIVE_KEY_CONTEXT = 1 << 5,
	DERIVE_KEY_MATERIAL = 1 << 6,
};

static const uint32_t IV[8] = {
	0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
	0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
};

/* Message word order for each of the 7 rounds: row r is the spec's permutation
 * {2,6,3,10,7,0,4,13,1,11,12,5,9,14,15,8} applied r times to 0..15. */
static const uint8_t SCHEDULE[7][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8 },
	{ 3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1 },
	{ 10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6 },
	{ 12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4 },
	{ 9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7 },
	{ 11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13 },
};

static inline uint32_t load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store32(uint8_t *p, uint32_t w)
{
	p[0] = (uint8_t)w;
	p[1] = (uint8_t)(w >> 8);
	p[2] = (uint8_t)(w >> 16);
	p[3] = (uint8_t)(w >> 24);
}

static inline uint32_t rotr32(uint32_t w, unsigned c)
{
	return (w >> c) | (w << (32 - c));
}

#define G(a, b, c, d, x, y)                                                                \
	do {                                                                               \
		v[a] = v[a] + v[b] + (x);                                                  \
		v[d] = rotr32(v[d] ^ v[a], 16);                                            \
		v[c] = v[c] + v[d];                                                        \
		v[b] = rotr32(v[b] ^ v[c], 12);                                            \
		v[a] = v[a] + v[b] + (y);                                                  \
		v[d] = rotr32(v[d] ^ v[a], 8);                                             \
		v[c] = v[c] + v[d];                                                        \
		v[b] = rotr32(v[b] ^ v[c], 7);                                             \
	} while (0)

#define ROUND(r)                                                                           \
	do {                                                                               \
		const uint8_t *s = SCHEDULE[r];                                            \
		G(0, 4, 8, 12, m[s[0]], m[s[1]]);                                          \
		G(1, 5, 9, 13, m[s[2]], m[s[3]]);                                          \
		G(2, 6, 10, 14, m[s[4]], m[s[5]]);                                         \
		G(3, 7, 11, 15, m[s[6]], m[s[7]]);                                         \
		G(0, 5, 10, 15, m[s[8]], m[s[9]]);                                         \
		G(1, 6, 11, 12, m[s[10]], m[s[11]]);                                       \
		G(2, 7, 8, 13, m[s[12]], m[s[13]]);                                        \
		G(3, 4, 9, 14, m[s[14]], m[s[15]]);                                        \
	} while (0)

/* The 16-word state after the 7 rounds, before the final feed-forward. */
static void compress_rounds(uint32_t v[16], const uint32_t cv[8], const uint8_t block[64],
			    uint8_t block_len, uint64_t counter, uint8_t flags)
{
	uint32_t m[16];
	for (int i = 0; i < 16; i++)
		m[i] = load32(block + 4 * i);
	for (int i = 0; i < 8; i++)
		v[i] = cv[i];
	v[8] = IV[0];
	v[9] = IV[1];
	v[10] = IV[2];
	v[11] = IV[3];
	v[12] = (uint32_t)counter;
	v[13] = (uint32_t)(counter >> 32);
	v[14] = block_len;
	v[15] = flags;
	ROUND(0);
	ROUND(1);
	ROUND(2);
	ROUND(3);
	ROUND(4);
	ROUND(5);
	ROUND(6);
}

/* Compression whose output is the next chaining value (first 8 words only). */
static void compress_in_place(uint32_t cv[8], const uint8_t block[64], uint8_t block_len,
			      uint64_t counter, uint8_t flags)
{
	uint32_t v[16];
	compress_rounds(v, cv, block, block_len, counter, flags);
	for (int i = 0; i < 8; i++)
		cv[i] = v[i] ^ v[i + 8];
}

/* Full 64-byte output, used for the root's extended output. */
static void compress_xof(const uint32_t cv[8], const uint8_t block[64], uint8_t block_len,
			 uint64_t counter, uint8_t flags, uint8_t out[64])
{
	uint32_t v[16];
	compress_rounds(v, cv, block, block_len, counter, flags);
	for (int i = 0; i < 8; i++) {
		store32(out + 4 * i, v[i] ^ v[i + 8]);
		store32(out + 32 + 4 * i, v[i + 8] ^ cv[i]);
	}
}

/* The inputs of a compression not yet performed: either a chunk's last block or a parent
 * node.  Kept unevaluated because the root is compressed with ROOT and a counter per
 * 64-byte output block, a non-root with neither. */
struct output {
	uint32_t input_cv[8];
	uint8_t block[64];
	uint64_t counter;
	uint8_t block_len;
	uint8_t flags;
};

static void output_cv(const struct output *o, uint32_t cv[8])
{
	memcpy(cv, o->input_cv, 32);
	compress_in_place(cv, o->block, o->block_len, o->counter, o->flags);
}

static void output_root_bytes(const struct output *o, uint8_t *out, size_t out_len)
{
	uint8_t block_out[64];
	uint64_t output_block_counter = 0;
	while (out_len > 0) {
		compress_xof(o->input_cv, o->block, o->block_len, output_block_counter,
			     (uint8_t)(o->flags | ROOT), block_out);
		size_t n = out_len < 64 ? out_len : 64;
		memcpy(out, block_out, n);
		out += n;
		out_len -= n;
		output_block_counter++;
	}
}

static struct output parent_output(const uint32_t left[8], const uint32_t right[8],
				   const uint32_t key[8], uint8_t flags)
{
	struct output o;
	memcpy(o.input_cv, key, 32);
	for (int i = 0; i < 8; i++) {
		store32(o.block + 4 * i, left[i]);
		store32(o.block + 32 + 4 * i, right[i]);
	}
	o.counter = 0;
	o.block_len = HK_BLAKE3_BLOCK_LEN;
	o.flags = (uint8_t)(flags | PARENT);
	return o;
}

/* ---- chunk state ---- */

static void chunk_init(struct hk_blake3_chunk *c, const uint32_t key[8], uint64_t counter,
		       uint8_t flags)
{
	memcpy(c->cv, key, 32);
	c->chunk_counter = counter;
	memset(c->block, 0, sizeof(c->block));
	c->block_len = 0;
	c->blocks_compressed = 0;
	c->flags = flags;
}

static size_t chunk_len(const struct hk_blake3_chunk *c)
{
	return (size_t)c->blocks_compressed * HK_BLAKE3_BLOCK_LEN + c->block_len;
}

static uint8_t chunk_start_flag(const struct hk_blake3_chunk *c)
{
	return c->blocks_compressed == 0 ? CHUNK_START : 0;
}

/* Adds at most the room left in the chunk; returns how many bytes were consumed.  A block is
 * compressed only once it is known not to be the chunk's last (more bytes follow). */
static size_t chunk_update(struct hk_blake3_chunk *c, const uint8_t *in, size_t len)
{
	size_t room = HK_BLAKE3_CHUNK_LEN - chunk_len(c);
	size_t take = len < room ? len : room;
	size_t left = take;

	if (c->block_len > 0) {
		size_t fill = HK_BLAKE3_BLOCK_LEN - c->block_len;
		if (fill > left)
			fill = left;
		memcpy(c->block + c->block_len, in, fill);
		c->block_len = (uint8_t)(c->block_len + fill);
		in += fill;
		left -= fill;
		if (left == 0)
			return take;
		/* More input follows, so the buffered full block is not the last one. */
		compress_in_place(c->cv, c->block, HK_BLAKE3_BLOCK_LEN, c->chunk_counter,
				  (uint8_t)(c->flags | chunk_start_flag(c)));
		c->blocks_compressed++;
		c->block_len = 0;
	}
	/* Blocks straight from the input while at least one more byte follows them. */
	while (left > HK_BLAKE3_BLOCK_LEN) {
		compress_in_place(c->cv, in, HK_BLAKE3_BLOCK_LEN, c->chunk_counter,
				  (uint8_t)(c->flags | chunk_start_flag(c)));
		c->blocks_compressed++;
		in += HK_BLAKE3_BLOCK_LEN;
		left -= HK_BLAKE3_BLOCK_LEN;
	}
	memcpy(c->block, in, left);
	c->block_len = (uint8_t)left;
	return take;
}

static struct output chunk_output(const struct hk_blake3_chunk *c)
{
	struct output o;
	memcpy(o.input_cv, c->cv, 32);
	memcpy(o.block, c->block, c->block_len);
	memset(o.block + c->block_len, 0, HK_BLAKE3_BLOCK_LEN - c->block_len);
	o.counter = c->chunk_counter;
	o.block_len = c->block_len;
	o.flags = (uint8_t)(c->flags | chunk_start_flag(c) | CHUNK_END);
	return o;
}

/* CV of a whole, non-final 1024-byte chunk read directly from the input. */
static void whole_chunk_cv(const uint32_t key[8], const uint8_t *in, uint64_t counter,
			   uint8_t flags, uint32_t cv[8])
{
	memcpy(cv, key, 32);
	compress_in_place(cv, in, HK_BLAKE3_BLOCK_LEN, counter, (uint8_t)(flags | CHUNK_START));
	for (int b = 1; b < 15; b++)
		compress_in_place(cv, in + b * HK_BLAKE3_BLOCK_LEN, HK_BLAKE3_BLOCK_LEN, counter,
				  flags);
	compress_in_place(cv, in + 15 * HK_BLAKE3_BLOCK_LEN, HK_BLAKE3_BLOCK_LEN, counter,
			  (uint8_t)(flags | CHUNK_END));
}

/* ---- hasher ---- */

static void hasher_init(struct hk_blake3 *h, const uint32_t key[8], uint8_t flags)
{
	memcpy(h->key, key, 32);
	chunk_init(&h->chunk, key, 0, flags);
	h->cv_stack_len = 0;
	h->flags = flags;
}

void hk_blake3_init(struct hk_blake3 *h)
{
	hasher_init(h, IV, 0);
}

void hk_blake3_init_keyed(struct hk_blake3 *h, const uint8_t key[HK_BLAKE3_KEY_LEN])
{
	uint32_t words[8];
	for (int i = 0; i < 8; i++)
		words[i] = load32(key + 4 * i);
	hasher_init(h, words, KEYED_HASH);
}

void hk_blake3_init_derive_key(struct hk_blake3 *h, const char *context)
{
	struct hk_blake3 context_hasher;
	uint8_t context_key[HK_BLAKE3_KEY_LEN];
	uint32_t words[8];

	hasher_init(&context_hasher, IV, DERIVE_KEY_CONTEXT);
	hk_blake3_update(&context_hasher, context, strlen(context));
	hk_blake3_finalize(&context_hasher, context_key, sizeof(context_key));
	for (int i = 0; i < 8; i++)
		words[i] = load32(context_key + 4 * i);
	hasher_init(h, words, DERIVE_KEY_MATERIAL);
}

/* Pushes the CV of a completed chunk, first merging every subtree it completes: after
 * total_chunks chunks, the stack holds one CV per set bit of total_chunks. */
static void push_chunk_cv(struct hk_blake3 *h, uint32_t cv[8], uint64_t total_chunks)
{
	while ((total_chunks & 1) == 0) {
		h->cv_stack_len--;
		struct output parent = parent_output(h->cv_stack[h->cv_stack_len], cv, h->key,
						     h->flags);
		output_cv(&parent, cv);
		total_chunks >>= 1;
	}
	memcpy(h->cv_stack[h->cv_stack_len], cv, 32);
	h->cv_stack_len++;
}

void hk_blake3_update(struct hk_blake3 *h, const void *data, size_t len)
{
	const uint8_t *in = data;

	while (len > 0) {
		if (chunk_len(&h->chunk) == HK_BLAKE3_CHUNK_LEN) {
			/* The current chunk is full and more input follows: it is not the root. */
			uint32_t cv[8];
			struct output o = chunk_output(&h->chunk);
			output_cv(&o, cv);
			uint64_t total_chunks = h->chunk.chunk_counter + 1;
			push_chunk_cv(h, cv, total_chunks);
			chunk_init(&h->chunk, h->key, total_chunks, h->flags);
		}
		if (chunk_len(&h->chunk) == 0) {
			/* Whole chunks from the input, while one more byte follows each of them
			 * (the last chunk must stay in the chunk state: it may be the root). */
			while (len > HK_BLAKE3_CHUNK_LEN) {
				uint32_t cv[8];
				whole_chunk_cv(h->key, in, h->chunk.chunk_counter, h->flags, cv);
				uint64_t total_chunks = h->chunk.chunk_counter + 1;
				push_chunk_cv(h, cv, total_chunks);
				h->chunk.chunk_counter = total_chunks;
				in += HK_BLAKE3_CHUNK_LEN;
				len -= HK_BLAKE3_CHUNK_LEN;
			}
		}
		size_t n = chunk_update(&h->chunk, in, len);
		in += n;
		len -= n;
	}
}

void hk_blake3_finalize(const struct hk_blake3 *h, uint8_t *out, size_t out_len)
{
	struct output o = chunk_output(&h->chunk);
	/* Fold the stack from the top down into the root, without touching h. */
	for (size_t i = h->cv_stack_len; i > 0; i--) {
		uint32_t right[8];
		output_cv(&o, right);
		o = parent_output(h->cv_stack[i - 1], right, h->key, h->flags);
	}
	output_root_bytes(&o, out, out_len);
}

void hk_blake3_hash(const void *data, size_t len, uint8_t out[HK_BLAKE3_OUT_LEN])
{
	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_blake3_update(&h, data, len);
	hk_blake3_finalize(&h, out, HK_BLAKE3_OUT_LEN);
}

void hk_b3_id(const void *data, size_t len, char out[HK_B3_ID_LEN])
{
	uint8_t digest[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(data, len, digest);
	memcpy(out, "b3:", 3);
	hk_hex(digest, sizeof(digest), out + 3);
}
