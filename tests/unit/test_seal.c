/* The core half of sealing (src/core/store/store_seal.c, docs/sealing.md): the seal record, its binding
 * to the manifest, and the comparison of recorded and measured digests.  The kernel is
 * replaced by a fake hk_seal_fn that keeps a set of "sealed" paths and derives a digest from
 * the content — the kernel half runs for real in tests/integration/verity.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#include "core/basic/blake3.h"
#include "core/basic/blake3_file.h"
#include "core/basic/buf.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"

/* ---- a fake fs-verity ---------------------------------------------------------------------- */

/* Like the kernel, the fake keeps the seal on the inode, not the name: a sealed temporary
 * file renamed into place stays sealed, and a file replaced by a copy is not. */
struct fake_fs {
	struct { dev_t dev; ino_t ino; } sealed[64];
	size_t n;
	int fail_with;          /* non-zero: every call fails with -fail_with */
	bool skew;              /* measure reports a digest other than the content's */
	size_t calls;
};

static bool fake_is_sealed(const struct fake_fs *f, const char *path, size_t *at)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return false;
	for (size_t i = 0; i < f->n; i++)
		if (f->sealed[i].dev == st.st_dev && f->sealed[i].ino == st.st_ino) {
			if (at)
				*at = i;
			return true;
		}
	return false;
}

static void fake_mark(struct fake_fs *f, const char *path)
{
	struct stat st;
	if (fake_is_sealed(f, path, NULL) || lstat(path, &st) < 0 || f->n == HK_ARRAY_LEN(f->sealed))
		return;
	f->sealed[f->n].dev = st.st_dev;
	f->sealed[f->n].ino = st.st_ino;
	f->n++;
}

static void fake_unseal(struct fake_fs *f, const char *path)
{
	size_t i;
	if (fake_is_sealed(f, path, &i))
		f->sealed[i] = f->sealed[--f->n];
}

static int fake_digest(const struct fake_fs *f, const char *path, char out[HK_SEAL_DIGEST_MAX],
		       struct hk_error *err)
{
	uint8_t d[HK_BLAKE3_OUT_LEN];
	int r = hk_blake3_file(path, d, err);
	if (r < 0)
		return r;
	if (f->skew)
		d[0] ^= 1;
	memcpy(out, "sha256:", 7);
	hk_hex(d, sizeof(d), out + 7);
	return 0;
}

static int fake_seal(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
		     struct hk_error *err)
{
	struct fake_fs *f = ctx;
	f->calls++;
	if (f->fail_with)
		return hk_fail(err, f->fail_with, "fake: %s cannot be sealed", path);
	fake_mark(f, path);
	return fake_digest(f, path, out, err);
}

static int fake_measure(void *ctx, const char *path, char out[HK_SEAL_DIGEST_MAX],
			struct hk_error *err)
{
	struct fake_fs *f = ctx;
	f->calls++;
	if (f->fail_with)
		return hk_fail(err, f->fail_with, "fake: %s cannot be measured", path);
	if (!fake_is_sealed(f, path, NULL))
		return hk_fail(err, ENODATA, "%s has no fs-verity", path);
	return fake_digest(f, path, out, err);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static void put(const char *dir, const char *rel, const char *content, mode_t mode)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", dir, rel);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	chmod(p, 0644);
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	close(fd);
	REQUIRE(chmod(p, mode) == 0);
}

struct fixture {
	char *dir;
	char *store_dir;
	struct hk_store *s;
	const struct hk_artifact *a;
};

/* A store with one artifact: two regular files (one executable) and a symlink. */
static void setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->dir = hk_xstrdup("/tmp/hk-test-seal.XXXXXX");
	REQUIRE(mkdtemp(fx->dir) != NULL);
	hk_autofree char *tree = hk_xasprintf("%s/tree", fx->dir);
	mkdir(tree, 0755);
	put(tree, "usr/share/d/blob", "some bytes\n", 0644);
	put(tree, "usr/bin/tool", "#!/bin/sh\n", 0755);
	hk_autofree char *link = hk_xasprintf("%s/usr/bin/tool-link", tree);
	REQUIRE(symlink("tool", link) == 0);
	fx->store_dir = hk_xasprintf("%s/store", fx->dir);
	struct hk_error err;
	REQUIRE(hk_store_open(fx->store_dir, true, &fx->s, &err) == 0);
	struct hk_artifact_spec spec = { .name = "d", .version = "1" };
	REQUIRE(hk_store_add(fx->s, tree, &spec, 0, &fx->a, NULL, &err) == 0);
}

static void teardown(struct fixture *fx)
{
	hk_store_close(fx->s);
	struct hk_error err;
	CHECK_EQ_INT(0, hk_store_remove_tree(fx->dir, &err));
	free(fx->store_dir);
	free(fx->dir);
}

static char *record_text(struct fixture *fx)
{
	hk_autofree char *p = hk_store_seal_path(fx->s, fx->a);
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct hk_buf b = HK_BUF_INIT;
	char buf[4096];
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		hk_buf_append(&b, buf, (size_t)r);
	close(fd);
	return hk_buf_steal(&b);
}

static void write_record(struct fixture *fx, const char *text)
{
	hk_autofree char *p = hk_store_seal_path(fx->s, fx->a);
	chmod(p, 0644);
	int fd = open(p, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* ---- tests --------------------------------------------------------------------------------- */

TEST(seal_records_every_regular_file_and_keeps_the_id)
{
	struct fixture fx;
	setup(&fx);
	struct fake_fs f = { 0 };
	struct hk_error err = { 0 };
	char id[HK_B3_ID_LEN];
	memcpy(id, fx.a->id, sizeof(id));
	CHECK(!fx.a->sealed);
	REQUIRE(hk_store_seal(fx.s, fx.a, fake_seal, &f, &err) == 0);
	CHECK(fx.a->sealed);
	CHECK_STR_EQ(id, fx.a->id);
	/* Two files and the record: symlinks have no fs-verity. */
	CHECK_EQ_INT(3, f.n);
	hk_autofree char *rec = hk_store_seal_path(fx.s, fx.a);
	CHECK(fake_is_sealed(&f, rec, NULL));

	hk_autofree char *text = record_text(&fx);
	REQUIRE(text != NULL);
	CHECK(strncmp(text, "harkaq-seal 1\n", 14) == 0);
	CHECK_CONTAINS(text, " usr/bin/tool\n");
	CHECK_CONTAINS(text, " usr/share/d/blob\n");
	CHECK(strstr(text, "tool-link") == NULL);

	struct hk_seal seal = { 0 };
	REQUIRE(hk_store_seal_read(fx.s, fx.a, &seal, &err) == 0);
	CHECK_EQ_INT(2, seal.n);
	/* The recorded BLAKE3 is the file's content hash, as in the manifest. */
	hk_autofree char *blob = hk_xasprintf("%s/usr/share/d/blob", fx.a->path);
	uint8_t d[HK_BLAKE3_OUT_LEN];
	REQUIRE(hk_blake3_file(blob, d, &err) == 0);
	CHECK_STR_EQ("usr/share/d/blob", seal.entries[1].path);
	CHECK(memcmp(d, seal.entries[1].b3, sizeof(d)) == 0);
	hk_seal_free(&seal);

	CHECK_EQ_INT(0, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));

	/* A fresh handle sees the artifact as sealed, with the same id. */
	struct hk_store *s2 = NULL;
	const struct hk_artifact *a2 = NULL;
	REQUIRE(hk_store_open(fx.store_dir, false, &s2, &err) == 0);
	REQUIRE(hk_store_find(s2, "d", &a2, &err) == 0);
	CHECK(a2->sealed);
	CHECK_STR_EQ(id, a2->id);
	hk_store_close(s2);
	teardown(&fx);
}

TEST(verify_seal_names_the_file_that_lost_its_seal_or_changed_digest)
{
	struct fixture fx;
	setup(&fx);
	struct fake_fs f = { 0 };
	struct hk_error err = { 0 };
	REQUIRE(hk_store_seal(fx.s, fx.a, fake_seal, &f, &err) == 0);
	REQUIRE(hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err) == 0);

	f.skew = true;
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));
	CHECK_CONTAINS(err.msg, "artifact d b3:");
	CHECK_CONTAINS(err.msg, "was altered: /usr/bin/tool: fs-verity digest differs (the seal "
				"sha256:");
	f.skew = false;

	hk_autofree char *tool = hk_xasprintf("%s/usr/bin/tool", fx.a->path);
	fake_unseal(&f, tool);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));
	CHECK_CONTAINS(err.msg, "was altered: /usr/bin/tool lost its fs-verity seal");

	/* A filesystem that no longer reports fs-verity (the store copied elsewhere). */
	f.fail_with = EOPNOTSUPP;
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));
	CHECK_CONTAINS(err.msg, "no longer protected by fs-verity");
	/* Any other failure is not called tampering. */
	f.fail_with = EIO;
	CHECK_EQ_INT(-EIO, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));
	f.fail_with = 0;

	/* The record itself must keep its fs-verity. */
	fake_mark(&f, tool);
	REQUIRE(hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err) == 0);
	hk_autofree char *rec = hk_store_seal_path(fx.s, fx.a);
	fake_unseal(&f, rec);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_seal(fx.s, fx.a, fake_measure, &f, &err));
	CHECK_CONTAINS(err.msg, "its seal record");
	CHECK_CONTAINS(err.msg, "is no longer protected by fs-verity (replaced?)");
	teardown(&fx);
}

TEST(seal_refuses_a_tampered_artifact_and_records_nothing)
{
	struct fixture fx;
	setup(&fx);
	struct fake_fs f = { 0 };
	struct hk_error err = { 0 };
	put(fx.a->path, "usr/share/d/blob", "other bytes\n", 0444);
	CHECK_EQ_INT(-EBADMSG, hk_store_seal(fx.s, fx.a, fake_seal, &f, &err));
	CHECK_CONTAINS(err.msg, "refusing to record a seal: artifact d b3:");
	CHECK_CONTAINS(err.msg, "/usr/share/d/blob: content differs");
	CHECK(!fx.a->sealed);
	CHECK(record_text(&fx) == NULL);
	teardown(&fx);
}

TEST(seal_on_a_filesystem_that_cannot_records_nothing)
{
	struct fixture fx;
	setup(&fx);
	struct fake_fs f = { .fail_with = EOPNOTSUPP };
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EOPNOTSUPP, hk_store_seal(fx.s, fx.a, fake_seal, &f, &err));
	CHECK_EQ_INT(1, f.calls);   /* stopped at the first file */
	CHECK(!fx.a->sealed);
	CHECK(record_text(&fx) == NULL);
	teardown(&fx);
}

TEST(seal_record_must_match_the_manifest)
{
	struct fixture fx;
	setup(&fx);
	struct fake_fs f = { 0 };
	struct hk_error err = { 0 };
	REQUIRE(hk_store_seal(fx.s, fx.a, fake_seal, &f, &err) == 0);
	hk_autofree char *good = record_text(&fx);
	REQUIRE(good != NULL);
	struct hk_seal seal = { 0 };

	/* A line dropped: the record no longer lists a file of the manifest. */
	char *second = strchr(strchr(good, '\n') + 1, '\n') + 1;   /* after header + line 1 */
	hk_autofree char *dropped = hk_xasprintf("harkaq-seal 1\n%s", second);
	write_record(&fx, dropped);
	CHECK_EQ_INT(-EBADMSG, hk_store_seal_read(fx.s, fx.a, &seal, &err));
	CHECK_CONTAINS(err.msg, "does not list /usr/bin/tool");

	/* Another BLAKE3 for a file (a record taken from another artifact). */
	hk_autofree char *other = hk_xstrdup(good);
	char *b3 = strchr(strchr(other, '\n') + 1, ' ') + 1;
	*b3 = *b3 == '0' ? '1' : '0';
	write_record(&fx, other);
	CHECK_EQ_INT(-EBADMSG, hk_store_seal_read(fx.s, fx.a, &seal, &err));
	CHECK_CONTAINS(err.msg, "has another BLAKE3 hash for /usr/bin/tool");

	/* An extra file. */
	hk_autofree char *extra = hk_xasprintf("%ssha256:%064d %064d usr/zz\n", good, 0, 0);
	write_record(&fx, extra);
	CHECK_EQ_INT(-EBADMSG, hk_store_seal_read(fx.s, fx.a, &seal, &err));
	CHECK_CONTAINS(err.msg, "lists a file absent from the manifest: /usr/zz");

	write_record(&fx, good);
	CHECK_EQ_INT(0, hk_store_seal_read(fx.s, fx.a, &seal, &err));
	hk_seal_free(&seal);
	teardown(&fx);
}

TEST(seal_parse_refuses_malformed_records)
{
	struct hk_seal seal = { 0 };
	struct hk_error err = { 0 };
	char b3[65];
	memset(b3, 'a', 64);
	b3[64] = '\0';
	hk_autofree char *ok = hk_xasprintf("harkaq-seal 1\nsha256:%s %s usr/a\\x20b\n", b3, b3);
	REQUIRE(hk_seal_parse(ok, strlen(ok), "r", &seal, &err) == 0);
	CHECK_EQ_INT(1, seal.n);
	CHECK_STR_EQ("usr/a b", seal.entries[0].path);
	hk_autofree char *want = hk_xasprintf("sha256:%s", b3);
	CHECK_STR_EQ(want, seal.entries[0].digest);
	hk_seal_free(&seal);

	/* '@' stands for 64 hex digits. */
	const char *bad[] = {
		"harkaq-seal 2\n",
		"harkaq-seal 1\nmd5:abcd @ usr/a\n",
		"harkaq-seal 1\nsha256:@ @\n",
		"harkaq-seal 1\nsha256:@ @ usr/a",          /* not terminated */
		"harkaq-seal 1\nsha256:@ ZZ usr/a\n",
		"harkaq-seal 1\nsha256:@ @ usr/\\xZZ\n",
		"harkaq-seal 1\nsha256:abc @ usr/a\n",      /* digest too short */
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_buf text = HK_BUF_INIT;
		for (const char *c = bad[i]; *c; c++) {
			if (*c == '@')
				hk_buf_puts(&text, b3);
			else
				hk_buf_putc(&text, *c);
		}
		CHECK_EQ_INT(-EBADMSG, hk_seal_parse(hk_buf_str(&text), text.len, "r", &seal, &err));
		CHECK_CONTAINS(err.msg, "r:");
		hk_buf_free(&text);
	}
}

TEST(deps_sealed_word_and_verdict_field)
{
	CHECK(hk_deps_sealed_word(0, 0) == NULL);
	CHECK_STR_EQ("all", hk_deps_sealed_word(3, 3));
	CHECK_STR_EQ("some", hk_deps_sealed_word(1, 3));
	CHECK_STR_EQ("none", hk_deps_sealed_word(0, 3));

	struct hk_verdict_input in = { .abi = 7, .kernel_abi = 7, .deps_sealed = "some" };
	struct hk_verdict v;
	hk_verdict_compute(&in, &v);
	struct hk_buf b = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &b, 0);
	hk_verdict_json(&v, &j);
	CHECK_CONTAINS(hk_buf_str(&b), "\"phase\":null,\"deps_sealed\":\"some\"");
	hk_verdict_set_deps_sealed(&v, "all");
	hk_buf_reset(&b);
	hk_json_init(&j, &b, 0);
	hk_verdict_json(&v, &j);
	CHECK_CONTAINS(hk_buf_str(&b), "\"deps_sealed\":\"all\"");
	hk_verdict_set_deps_sealed(&v, NULL);
	hk_buf_reset(&b);
	hk_json_init(&j, &b, 0);
	hk_verdict_json(&v, &j);
	CHECK_CONTAINS(hk_buf_str(&b), "\"deps_sealed\":null");
	hk_buf_free(&b);
	hk_verdict_free(&v);
}
