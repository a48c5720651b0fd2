/* BLAKE3 against the official test vectors (every case, every mode, full extended output),
 * plus incremental updates, repeatable finalize and the file helper. */
#include "harness.h"

#include "core/basic/blake3.h"
#include "core/basic/blake3_file.h"
#include "core/basic/buf.h"
#include "core/basic/error.h"
#include "core/formats/json.h"
#include "core/basic/util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* The vectors are tests/data/blake3/test_vectors.json (tests/data/README.md: origin, licence),
 * found through $HARKAQ_TESTS (tests/run exports it), else relative to the repository root,
 * where tests/run starts every suite. */
static char *vectors_path(void)
{
	const char *tests = getenv("HARKAQ_TESTS");
	if (!tests || !*tests)
		tests = "tests";
	return hk_xasprintf("%s/data/blake3/test_vectors.json", tests);
}

static int read_whole_file(const char *path, struct hk_buf *out)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char block[65536];
	for (;;) {
		ssize_t n = read(fd, block, sizeof(block));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		hk_buf_append(out, block, (size_t)n);
	}
}

static struct hk_jval *load_vectors(void)
{
	hk_autofree char *path = vectors_path();
	struct hk_buf text = HK_BUF_INIT;
	int r = read_whole_file(path, &text);
	if (r < 0) {
		HK_FAIL_AT("cannot read %s: %s (run from the repository root, or set HARKAQ_TESTS)",
			   path, strerror(-r));
		hk_buf_free(&text);
		return NULL;
	}
	struct hk_jval *root = NULL;
	struct hk_error err = { 0 };
	r = hk_json_parse(hk_buf_str(&text), text.len, &root, &err);
	hk_buf_free(&text);
	if (r < 0) {
		HK_FAIL_AT("%s: %s", path, err.msg);
		return NULL;
	}
	return root;
}

static uint8_t *make_input(size_t len)
{
	uint8_t *in = hk_xmalloc(len ? len : 1);
	for (size_t i = 0; i < len; i++)
		in[i] = (uint8_t)(i % 251);
	return in;
}

enum mode { MODE_HASH, MODE_KEYED, MODE_DERIVE };

static void init_mode(struct hk_blake3 *h, enum mode mode, const uint8_t *key, const char *context)
{
	switch (mode) {
	case MODE_HASH: hk_blake3_init(h); break;
	case MODE_KEYED: hk_blake3_init_keyed(h, key); break;
	case MODE_DERIVE: hk_blake3_init_derive_key(h, context); break;
	}
}

/* Checks one (case, mode): one-shot extended output, its 32-byte prefix, a repeated finalize,
 * and an incremental update with odd split sizes. */
static void check_case(enum mode mode, const uint8_t *key, const char *context,
		       const uint8_t *input, size_t input_len, const char *expected_hex,
		       const char *label)
{
	size_t out_len = strlen(expected_hex) / 2;
	hk_autofree uint8_t *out = hk_xmalloc(out_len);
	hk_autofree char *hex = hk_xmalloc(2 * out_len + 1);
	struct hk_blake3 h;

	init_mode(&h, mode, key, context);
	hk_blake3_update(&h, input, input_len);
	hk_blake3_finalize(&h, out, out_len);
	hk_hex(out, out_len, hex);
	if (strcmp(hex, expected_hex) != 0)
		HK_FAIL_AT("%s len %zu: extended output differs\n#   expected %s\n#   got      %s",
			   label, input_len, expected_hex, hex);

	/* Default length is the prefix; finalize again gives the same bytes (state untouched). */
	uint8_t short_out[HK_BLAKE3_OUT_LEN];
	hk_blake3_finalize(&h, short_out, sizeof(short_out));
	hk_hex(short_out, sizeof(short_out), hex);
	if (strncmp(hex, expected_hex, 2 * HK_BLAKE3_OUT_LEN) != 0)
		HK_FAIL_AT("%s len %zu: 32-byte output is not the prefix", label, input_len);
	if (mode == MODE_HASH) {
		uint8_t oneshot[HK_BLAKE3_OUT_LEN];
		hk_blake3_hash(input, input_len, oneshot);
		if (memcmp(oneshot, short_out, sizeof(oneshot)) != 0)
			HK_FAIL_AT("hk_blake3_hash len %zu differs from the vector", input_len);
	}

	/* Incremental: split sizes around block and chunk boundaries. */
	static const size_t splits[] = { 1, 7, 63, 64, 65, 2, 1023, 1024, 1025, 3, 2047, 129 };
	init_mode(&h, mode, key, context);
	size_t done = 0;
	for (size_t s = 0; done < input_len; s++) {
		size_t n = splits[s % HK_ARRAY_LEN(splits)];
		if (n > input_len - done)
			n = input_len - done;
		hk_blake3_update(&h, input + done, n);
		hk_blake3_update(&h, input + done, 0); /* empty updates change nothing */
		done += n;
	}
	memset(out, 0, out_len);
	hk_blake3_finalize(&h, out, out_len);
	hk_hex(out, out_len, hex);
	if (strcmp(hex, expected_hex) != 0)
		HK_FAIL_AT("%s len %zu: incremental output differs from the vector", label,
			   input_len);
}

TEST(official_vectors_all_cases_all_modes)
{
	struct hk_jval *root = load_vectors();
	REQUIRE(root);
	const struct hk_jval *key = hk_jobj_get(root, "key");
	const struct hk_jval *context = hk_jobj_get(root, "context_string");
	const struct hk_jval *cases = hk_jobj_get(root, "cases");
	REQUIRE(key && key->type == HK_JSTR && key->len == HK_BLAKE3_KEY_LEN);
	REQUIRE(context && context->type == HK_JSTR);
	REQUIRE(cases && cases->type == HK_JARR);
	/* A run that checks nothing must not pass. */
	REQUIRE(cases->len > 0);

	size_t checked = 0;
	for (size_t c = 0; c < cases->len; c++) {
		const struct hk_jval *tc = &cases->items[c];
		const struct hk_jval *len = hk_jobj_get(tc, "input_len");
		const struct hk_jval *hash = hk_jobj_get(tc, "hash");
		const struct hk_jval *keyed = hk_jobj_get(tc, "keyed_hash");
		const struct hk_jval *derive = hk_jobj_get(tc, "derive_key");
		if (!len || !len->is_int || len->i < 0 || !hash || hash->type != HK_JSTR || !keyed ||
		    keyed->type != HK_JSTR || !derive || derive->type != HK_JSTR) {
			HK_FAIL_AT("case %zu is malformed", c);
			continue;
		}
		/* The outputs must be long enough to exercise more than one output block. */
		CHECK(hash->len > 2 * 64 && keyed->len > 2 * 64 && derive->len > 2 * 64);
		size_t n = (size_t)len->i;
		hk_autofree uint8_t *input = make_input(n);
		check_case(MODE_HASH, NULL, NULL, input, n, hash->str, "hash");
		check_case(MODE_KEYED, (const uint8_t *)key->str, NULL, input, n, keyed->str,
			   "keyed_hash");
		check_case(MODE_DERIVE, NULL, context->str, input, n, derive->str, "derive_key");
		checked++;
	}
	CHECK_EQ_INT(cases->len, checked);
	printf("# checked %zu vector cases x 3 modes\n", checked);
	hk_jval_free(root);
}

/* A known value independent of the JSON file: BLAKE3("") from the specification. */
TEST(empty_input_and_b3_id)
{
	uint8_t out[HK_BLAKE3_OUT_LEN];
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	hk_blake3_hash("", 0, out);
	hk_hex(out, sizeof(out), hex);
	CHECK_STR_EQ("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", hex);

	char id[HK_B3_ID_LEN];
	hk_b3_id("", 0, id);
	CHECK_STR_EQ("b3:af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", id);
	CHECK_EQ_INT(HK_B3_ID_LEN - 1, strlen(id));
	hk_b3_id("a", 1, id);
	CHECK(strncmp(id, "b3:", 3) == 0);
	CHECK(strcmp(id + 3, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262") != 0);

	uint8_t bytes[3] = { 0x00, 0xab, 0xff };
	char small[7];
	hk_hex(bytes, 3, small);
	CHECK_STR_EQ("00abff", small);
}

/* finalize must not modify the state: updating after a finalize continues the same stream. */
TEST(finalize_leaves_state_usable)
{
	size_t total = 5 * HK_BLAKE3_CHUNK_LEN + 17;
	hk_autofree uint8_t *input = make_input(total);
	uint8_t expected[HK_BLAKE3_OUT_LEN], got[HK_BLAKE3_OUT_LEN], mid[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(input, total, expected);

	struct hk_blake3 h;
	hk_blake3_init(&h);
	hk_blake3_update(&h, input, 3 * HK_BLAKE3_CHUNK_LEN);
	hk_blake3_finalize(&h, mid, sizeof(mid));
	hk_blake3_update(&h, input + 3 * HK_BLAKE3_CHUNK_LEN, total - 3 * HK_BLAKE3_CHUNK_LEN);
	hk_blake3_finalize(&h, got, sizeof(got));
	CHECK(memcmp(expected, got, sizeof(got)) == 0);
	/* Positive control: the mid-stream hash is a different value. */
	CHECK(memcmp(expected, mid, sizeof(mid)) != 0);
	uint8_t prefix_hash[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(input, 3 * HK_BLAKE3_CHUNK_LEN, prefix_hash);
	CHECK(memcmp(prefix_hash, mid, sizeof(mid)) == 0);
}

/* Every split point of a 3-chunk input, in two updates, gives the one-shot hash. */
TEST(every_two_way_split_matches_one_shot)
{
	size_t total = 3 * HK_BLAKE3_CHUNK_LEN + 5;
	hk_autofree uint8_t *input = make_input(total);
	uint8_t expected[HK_BLAKE3_OUT_LEN], got[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(input, total, expected);
	int mismatches = 0;
	for (size_t cut = 0; cut <= total; cut++) {
		struct hk_blake3 h;
		hk_blake3_init(&h);
		hk_blake3_update(&h, input, cut);
		hk_blake3_update(&h, input + cut, total - cut);
		hk_blake3_finalize(&h, got, sizeof(got));
		if (memcmp(expected, got, sizeof(got)) != 0)
			mismatches++;
	}
	CHECK_EQ_INT(0, mismatches);
}

static char *write_temp_file(const uint8_t *data, size_t len)
{
	char *path = hk_xstrdup("/tmp/harkaq-test-blake3.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n <= 0) {
			close(fd);
			unlink(path);
			free(path);
			return NULL;
		}
		done += (size_t)n;
	}
	close(fd);
	return path;
}

TEST(file_hash_matches_vector_and_memory)
{
	struct hk_jval *root = load_vectors();
	REQUIRE(root);
	const struct hk_jval *cases = hk_jobj_get(root, "cases");
	REQUIRE(cases && cases->type == HK_JARR && cases->len > 0);
	/* The longest case: several chunks, many tree levels. */
	const struct hk_jval *longest = NULL;
	for (size_t c = 0; c < cases->len; c++) {
		const struct hk_jval *len = hk_jobj_get(&cases->items[c], "input_len");
		if (len && len->is_int &&
		    (!longest || len->i > hk_jobj_get(longest, "input_len")->i))
			longest = &cases->items[c];
	}
	REQUIRE(longest);
	size_t n = (size_t)hk_jobj_get(longest, "input_len")->i;
	const struct hk_jval *expected = hk_jobj_get(longest, "hash");
	REQUIRE(expected && expected->type == HK_JSTR && expected->len >= 64);

	hk_autofree uint8_t *input = make_input(n);
	hk_autofree char *path = write_temp_file(input, n);
	REQUIRE(path);
	uint8_t out[HK_BLAKE3_OUT_LEN];
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_blake3_file(path, out, &err));
	hk_hex(out, sizeof(out), hex);
	CHECK(strncmp(hex, expected->str, 64) == 0);
	unlink(path);
	hk_jval_free(root);

	/* Larger than the helper's read block, not a multiple of it. */
	size_t big = 3 * 256 * 1024 + 12345;
	hk_autofree uint8_t *big_input = make_input(big);
	hk_autofree char *big_path = write_temp_file(big_input, big);
	REQUIRE(big_path);
	uint8_t in_memory[HK_BLAKE3_OUT_LEN];
	hk_blake3_hash(big_input, big, in_memory);
	CHECK_EQ_INT(0, hk_blake3_file(big_path, out, &err));
	CHECK(memcmp(in_memory, out, sizeof(out)) == 0);
	unlink(big_path);
}

TEST(file_hash_errors_name_the_path)
{
	/* Positive control: an existing empty file hashes to BLAKE3(""). */
	hk_autofree char *path = write_temp_file((const uint8_t *)"", 0);
	REQUIRE(path);
	uint8_t out[HK_BLAKE3_OUT_LEN];
	char hex[2 * HK_BLAKE3_OUT_LEN + 1];
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_blake3_file(path, out, &err));
	hk_hex(out, sizeof(out), hex);
	CHECK_STR_EQ("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", hex);
	unlink(path);

	/* The same path, now gone. */
	CHECK_EQ_INT(-ENOENT, hk_blake3_file(path, out, &err));
	CHECK_EQ_INT(ENOENT, err.code);
	CHECK_CONTAINS(err.msg, path);
	CHECK_CONTAINS(err.msg, "No such file or directory");

	/* A directory opens but cannot be read. */
	CHECK_EQ_INT(-EISDIR, hk_blake3_file("/tmp", out, &err));
	CHECK_CONTAINS(err.msg, "cannot read /tmp");
}
