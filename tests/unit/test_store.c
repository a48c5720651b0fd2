/* Tree hash and store: identity, atomic add, path index, closure, verification, and the
 * Debian metadata parsers.  Every test works on fresh temporary trees. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/basic/blake3.h"
#include "core/basic/buf.h"
#include "core/debian/deb.h"
#include "core/debian/deb_status.h"
#include "core/basic/file.h"
#include "core/store/store.h"
#include "core/formats/tree.h"
#include "core/formats/tree_scan.h"
#include "core/basic/util.h"
#include "core/store/view.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static char *scratch(void)
{
	char *d = hk_xstrdup("/tmp/hk-test-store.XXXXXX");
	REQUIRE(mkdtemp(d) != NULL);
	return d;
}

static void rm_rf(const char *path)
{
	struct hk_error err;
	CHECK_EQ_INT(0, hk_store_remove_tree(path, &err));
}

static void put(const char *dir, const char *rel, const char *content, mode_t mode)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", dir, rel);
	/* Parents first, like mkdir -p. */
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	close(fd);
	REQUIRE(chmod(p, mode) == 0);
}

static void link_to(const char *dir, const char *rel, const char *target)
{
	hk_autofree char *p = hk_xasprintf("%s/%s", dir, rel);
	unlink(p);
	REQUIRE(symlink(target, p) == 0);
}

static void mkdir_in(const char *dir, const char *rel)
{
	hk_autofree char *p = hk_xasprintf("%s/%s/", dir, rel);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		REQUIRE(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
}

static void tree_hash(const char *dir, char out[HK_B3_ID_LEN])
{
	struct hk_tree t = HK_TREE_INIT;
	struct hk_error err = { 0 };
	int r = hk_tree_scan(dir, &t, &err);
	if (r < 0)
		fprintf(stderr, "#   scan %s: %s\n", dir, err.msg);
	REQUIRE(r == 0);
	hk_tree_id(&t, out);
	hk_tree_free(&t);
}

/* A small package-like tree. */
static void sample_tree(const char *dir)
{
	put(dir, "usr/bin/make", "#!/bin/sh\necho make\n", 0755);
	link_to(dir, "usr/bin/gmake", "make");
	put(dir, "usr/include/zlib.h", "/* zlib */\n", 0644);
	mkdir_in(dir, "usr/share/empty");
}

static size_t count_temp_dirs(const char *store)
{
	DIR *d = opendir(store);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, ".tmp-", 5) == 0)
			n++;
	closedir(d);
	hk_autofree char *meta = hk_xasprintf("%s/.meta", store);
	d = opendir(meta);
	if (d) {
		while ((de = readdir(d)))
			if (strncmp(de->d_name, ".tmp-", 5) == 0)
				n++;
		closedir(d);
	}
	return n;
}

static const struct hk_artifact *add_ok(struct hk_store *s, const char *dir, const char *name,
					const char *version, const char *const *deps,
					size_t n_deps, bool *added)
{
	struct hk_dep_group groups[8];
	char *alts[8][4];
	size_t ng = 0;
	for (size_t i = 0; i < n_deps; i++) {
		/* "a|b" is a group of alternatives. */
		groups[ng].alts = alts[ng];
		groups[ng].n_alts = 0;
		const char *p = deps[i];
		for (;;) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			alts[ng][groups[ng].n_alts++] = hk_xstrndup(p, len);
			if (!bar)
				break;
			p = bar + 1;
		}
		ng++;
	}
	struct hk_artifact_spec spec = { .name = name, .version = version, .deps = groups,
					 .n_deps = ng };
	const struct hk_artifact *a = NULL;
	struct hk_error err = { 0 };
	int r = hk_store_add(s, dir, &spec, 0, &a, added, &err);
	for (size_t i = 0; i < ng; i++)
		for (size_t k = 0; k < groups[i].n_alts; k++)
			free(groups[i].alts[k]);
	if (r < 0)
		fprintf(stderr, "#   add %s: %s\n", name, err.msg);
	REQUIRE(r == 0);
	return a;
}

static struct hk_store *open_store(const char *dir)
{
	struct hk_store *s = NULL;
	struct hk_error err = { 0 };
	int r = hk_store_open(dir, true, &s, &err);
	if (r < 0)
		fprintf(stderr, "#   open %s: %s\n", dir, err.msg);
	REQUIRE(r == 0);
	return s;
}

/* ---- tree hash ---------------------------------------------------------------------------- */

TEST(tree_hash_ignores_times_owner_modes_and_creation_order)
{
	hk_autofree char *a = scratch(), *b = scratch();
	sample_tree(a);
	/* Same tree built in the opposite order, with other non-exec modes, other times and
	 * (as root) another owner. */
	mkdir_in(b, "usr");
	mkdir_in(b, "usr/share");
	mkdir_in(b, "usr/share/empty");
	put(b, "usr/include/zlib.h", "/* zlib */\n", 0600);
	put(b, "usr/bin/make", "#!/bin/sh\necho make\n", 0100);   /* any x bit is "executable" */
	link_to(b, "usr/bin/gmake", "make");
	hk_autofree char *h = hk_xasprintf("%s/usr/include/zlib.h", b);
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	REQUIRE(utimensat(AT_FDCWD, h, old, 0) == 0);
	if (geteuid() == 0)
		REQUIRE(lchown(h, 65534, 65534) == 0);
	char ha[HK_B3_ID_LEN], hb[HK_B3_ID_LEN];
	tree_hash(a, ha);
	tree_hash(b, hb);
	CHECK_STR_EQ(ha, hb);
	/* Positive control: the hash does see the trees (one byte of content differs). */
	put(b, "usr/include/zlib.h", "/* zlib! */\n", 0600);
	tree_hash(b, hb);
	CHECK(strcmp(ha, hb) != 0);
	rm_rf(a);
	rm_rf(b);
}

TEST(tree_hash_changes_with_content_exec_bit_target_name_and_type)
{
	hk_autofree char *d = scratch();
	sample_tree(d);
	char base[HK_B3_ID_LEN], h[HK_B3_ID_LEN];
	tree_hash(d, base);

	put(d, "usr/include/zlib.h", "/* zlib */\n/**/", 0644);         /* content */
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	put(d, "usr/include/zlib.h", "/* zlib */\n", 0644);              /* restored */
	tree_hash(d, h);
	CHECK_STR_EQ(base, h);

	put(d, "usr/include/zlib.h", "/* zlib */\n", 0654);              /* exec bit */
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	put(d, "usr/include/zlib.h", "/* zlib */\n", 0644);

	link_to(d, "usr/bin/gmake", "./make");                          /* symlink target */
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	link_to(d, "usr/bin/gmake", "make");

	hk_autofree char *from = hk_xasprintf("%s/usr/include/zlib.h", d);   /* name */
	hk_autofree char *to = hk_xasprintf("%s/usr/include/zlib2.h", d);
	REQUIRE(rename(from, to) == 0);
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	REQUIRE(rename(to, from) == 0);

	mkdir_in(d, "usr/share/empty/sub");                              /* an empty dir */
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	hk_autofree char *sub = hk_xasprintf("%s/usr/share/empty/sub", d);
	REQUIRE(rmdir(sub) == 0);

	/* A symlink and a file with the same bytes as its target are different trees. */
	put(d, "usr/bin/gmake", "make", 0644);
	tree_hash(d, h);
	CHECK(strcmp(base, h) != 0);
	link_to(d, "usr/bin/gmake", "make");

	tree_hash(d, h);
	CHECK_STR_EQ(base, h);
	rm_rf(d);
}

static void ser_u64(struct hk_buf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		hk_buf_putc(b, (char)(v >> (8 * i)));
}

static void ser_rec(struct hk_buf *b, char type, const char *name, const void *payload,
		    size_t n)
{
	hk_buf_putc(b, type);
	ser_u64(b, strlen(name));
	hk_buf_puts(b, name);
	ser_u64(b, n);
	hk_buf_append(b, payload, n);
}

TEST(tree_hash_follows_the_documented_serialisation)
{
	/* Recomputes, byte for byte as docs/store.md describes, the hash of:
	 *     bin/            (directory)
	 *     bin/tool        executable, content "x"
	 *     bin-data        regular file, content "" — sorts after bin/ because children are
	 *                     sorted per directory ("bin" < "bin-data")
	 *     lnk -> bin/tool symlink
	 */
	hk_autofree char *d = scratch();
	put(d, "bin/tool", "x", 0755);
	put(d, "bin-data", "", 0644);
	link_to(d, "lnk", "bin/tool");
	char got[HK_B3_ID_LEN];
	tree_hash(d, got);

	static const char magic[] = "harkaq-tree-v1";
	uint8_t tool[32], empty[32], bindir[32], root[32];
	hk_blake3_hash("x", 1, tool);
	hk_blake3_hash("", 0, empty);
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_append(&b, magic, sizeof(magic));
	ser_rec(&b, 'x', "tool", tool, 32);
	hk_blake3_hash(b.data, b.len, bindir);
	hk_buf_reset(&b);
	hk_buf_append(&b, magic, sizeof(magic));
	ser_rec(&b, 'd', "bin", bindir, 32);
	ser_rec(&b, 'f', "bin-data", empty, 32);
	ser_rec(&b, 'l', "lnk", "bin/tool", 8);
	hk_blake3_hash(b.data, b.len, root);
	hk_buf_free(&b);
	char want[HK_B3_ID_LEN] = "b3:";
	hk_hex(root, 32, want + 3);
	CHECK_STR_EQ(want, got);
	rm_rf(d);
}

TEST(tree_scan_rejects_special_files_naming_them)
{
	hk_autofree char *d = scratch();
	sample_tree(d);
	struct hk_tree t = HK_TREE_INIT;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_tree_scan(d, &t, &err));   /* positive control */
	hk_tree_free(&t);

	hk_autofree char *fifo = hk_xasprintf("%s/usr/share/fifo", d);
	REQUIRE(mkfifo(fifo, 0644) == 0);
	CHECK_EQ_INT(-EINVAL, hk_tree_scan(d, &t, &err));
	CHECK_CONTAINS(err.msg, fifo);
	CHECK_CONTAINS(err.msg, "is a FIFO");
	CHECK_EQ_INT(0, (long long)t.n);
	unlink(fifo);

	hk_autofree char *sock = hk_xasprintf("%s/usr/sock", d);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	REQUIRE(fd >= 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	REQUIRE(strlen(sock) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, sock);
	REQUIRE(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd);
	CHECK_EQ_INT(-EINVAL, hk_tree_scan(d, &t, &err));
	CHECK_CONTAINS(err.msg, "usr/sock is a socket");
	unlink(sock);

	if (geteuid() == 0) {
		hk_autofree char *dev = hk_xasprintf("%s/usr/null", d);
		REQUIRE(mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0);
		CHECK_EQ_INT(-EINVAL, hk_tree_scan(d, &t, &err));
		CHECK_CONTAINS(err.msg, "usr/null is a character device");
		unlink(dev);
	}
	CHECK_EQ_INT(0, hk_tree_scan(d, &t, &err));   /* and fine again once they are gone */
	hk_tree_free(&t);
	rm_rf(d);
}

TEST(tree_compute_checks_paths_parents_and_duplicates)
{
	struct hk_error err = { 0 };
	uint8_t z[32] = { 0 };
	struct hk_tree t = HK_TREE_INIT;
	hk_tree_add(&t, "usr", HK_TREE_DIR, false, NULL, NULL, 0);
	hk_tree_add(&t, "usr/a", HK_TREE_FILE, false, z, NULL, 0);
	CHECK_EQ_INT(0, hk_tree_compute(&t, &err));
	hk_tree_add(&t, "usr/a", HK_TREE_FILE, false, z, NULL, 0);
	CHECK_EQ_INT(-EINVAL, hk_tree_compute(&t, &err));
	CHECK_CONTAINS(err.msg, "/usr/a appears twice");
	hk_tree_free(&t);

	hk_tree_add(&t, "etc/passwd", HK_TREE_FILE, false, z, NULL, 0);
	CHECK_EQ_INT(-EINVAL, hk_tree_compute(&t, &err));
	CHECK_CONTAINS(err.msg, "its parent /etc is missing");
	hk_tree_free(&t);

	hk_tree_add(&t, "usr/../etc", HK_TREE_FILE, false, z, NULL, 0);
	CHECK_EQ_INT(-EINVAL, hk_tree_compute(&t, &err));
	CHECK_CONTAINS(err.msg, "not a valid path");
	hk_tree_free(&t);

	/* Canonical order: a directory's subtree directly after it. */
	hk_tree_add(&t, "a-b", HK_TREE_FILE, false, z, NULL, 0);
	hk_tree_add(&t, "a/z", HK_TREE_FILE, false, z, NULL, 0);
	hk_tree_add(&t, "a", HK_TREE_DIR, false, NULL, NULL, 0);
	CHECK_EQ_INT(0, hk_tree_compute(&t, &err));
	CHECK_STR_EQ("a", t.entries[0].path);
	CHECK_STR_EQ("a/z", t.entries[1].path);
	CHECK_STR_EQ("a-b", t.entries[2].path);
	hk_tree_free(&t);
}

TEST(escape_round_trips_every_byte)
{
	char all[255];
	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	struct hk_buf e = HK_BUF_INIT, back = HK_BUF_INIT;
	hk_tree_escape(all, sizeof(all), &e);
	CHECK(strchr(hk_buf_str(&e), ' ') == NULL);   /* the index splits on spaces */
	CHECK_EQ_INT(0, hk_tree_unescape(e.data, e.len, &back));
	CHECK_EQ_INT(sizeof(all), back.len);
	CHECK(back.len == sizeof(all) && memcmp(all, back.data, sizeof(all)) == 0);
	hk_buf_reset(&back);
	CHECK_EQ_INT(-EINVAL, hk_tree_unescape("a\\x4", 4, &back));
	CHECK_EQ_INT(-EINVAL, hk_tree_unescape("a\\q41", 5, &back));
	hk_buf_free(&e);
	hk_buf_free(&back);
}

/* ---- store --------------------------------------------------------------------------------- */

TEST(add_twice_is_a_noop_with_the_same_id)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	bool added = false;
	const struct hk_artifact *a = add_ok(s, src, "make", "4.3", NULL, 0, &added);
	CHECK(added);
	char id[HK_B3_ID_LEN], tree_id[HK_B3_ID_LEN];
	memcpy(id, a->id, sizeof(id));
	memcpy(tree_id, a->tree_id, sizeof(tree_id));
	hk_autofree char *expect_dir = hk_xasprintf("%s/%s-make", sdir, id + 3);
	CHECK_STR_EQ(expect_dir, a->path);
	/* The tree is laid out as in the sandbox, directly under the artifact directory. */
	hk_autofree char *zh = hk_xasprintf("%s/usr/include/zlib.h", a->path);
	CHECK_EQ_INT(0, access(zh, R_OK));

	const struct hk_artifact *again = add_ok(s, src, "make", "4.3", NULL, 0, &added);
	CHECK(!added);
	CHECK_STR_EQ(id, again->id);
	hk_store_close(s);

	/* Another process (a new handle) adding the same content: still the same id. */
	s = open_store(sdir);
	again = add_ok(s, src, "make", "4.3", NULL, 0, &added);
	CHECK(!added);
	CHECK_STR_EQ(id, again->id);
	/* Identity covers the metadata too: name, version and deps each change the id. */
	const char *dep[] = { "libc6" };
	const struct hk_artifact *other = add_ok(s, src, "make", "4.4", NULL, 0, &added);
	CHECK(added && strcmp(other->id, id) != 0);
	other = add_ok(s, src, "gmake", "4.3", NULL, 0, &added);
	CHECK(added && strcmp(other->id, id) != 0);
	other = add_ok(s, src, "make", "4.3", dep, 1, &added);
	CHECK(added && strcmp(other->id, id) != 0);
	CHECK_STR_EQ(tree_id, other->tree_id);   /* same files, same tree hash */
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(stored_tree_has_normalised_permissions_and_kept_times)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	put(src, "bin/suid", "x", 04755);
	put(src, "etc/secret", "y", 0600);
	hk_autofree char *f = hk_xasprintf("%s/etc/secret", src);
	struct timespec t[2] = { { 12345, 0 }, { 12345, 0 } };
	REQUIRE(utimensat(AT_FDCWD, f, t, 0) == 0);
	struct hk_store *s = open_store(sdir);
	const struct hk_artifact *a = add_ok(s, src, "perm", "1", NULL, 0, NULL);
	struct stat st;
	hk_autofree char *suid = hk_xasprintf("%s/bin/suid", a->path);
	hk_autofree char *secret = hk_xasprintf("%s/etc/secret", a->path);
	hk_autofree char *bin = hk_xasprintf("%s/bin", a->path);
	REQUIRE(stat(suid, &st) == 0);
	CHECK_EQ_INT(0555, st.st_mode & 07777);
	REQUIRE(stat(secret, &st) == 0);
	CHECK_EQ_INT(0444, st.st_mode & 07777);
	CHECK_EQ_INT(12345, st.st_mtim.tv_sec);
	REQUIRE(stat(bin, &st) == 0);
	CHECK_EQ_INT(0755, st.st_mode & 07777);
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(failed_add_leaves_nothing_behind)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	hk_autofree char *fifo = hk_xasprintf("%s/usr/share/empty/pipe", src);
	REQUIRE(mkfifo(fifo, 0644) == 0);
	struct hk_store *s = open_store(sdir);
	struct hk_artifact_spec spec = { .name = "bad", .version = "1" };
	const struct hk_artifact *a = NULL;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINVAL, hk_store_add(s, src, &spec, 0, &a, NULL, &err));
	CHECK_CONTAINS(err.msg, fifo);          /* names the source path */
	CHECK_CONTAINS(err.msg, "is a FIFO");
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	const struct hk_artifact *const *list;
	size_t n = 99;
	REQUIRE(hk_store_list(s, &list, &n, &err) == 0);
	CHECK_EQ_INT(0, (long long)n);

	/* Invalid metadata is refused before anything is written. */
	unlink(fifo);
	struct hk_artifact_spec bad_name = { .name = "../evil", .version = "1" };
	CHECK_EQ_INT(-EINVAL, hk_store_add(s, src, &bad_name, 0, &a, NULL, &err));
	CHECK_CONTAINS(err.msg, "'../evil' is not a valid artifact name");
	struct hk_artifact_spec bad_src = { .name = "x", .version = "1", .source_json = "[1" };
	CHECK_EQ_INT(-EINVAL, hk_store_add(s, src, &bad_src, 0, &a, NULL, &err));
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));

	/* A directory holding the store itself cannot be added (the copy would copy itself). */
	CHECK_EQ_INT(-EINVAL, hk_store_add(s, root, &spec, 0, &a, NULL, &err));
	CHECK_CONTAINS(err.msg, "it contains the store");
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));

	/* Positive control: the same tree without the FIFO is accepted. */
	a = add_ok(s, src, "good", "1", NULL, 0, NULL);
	CHECK(a != NULL);
	REQUIRE(hk_store_list(s, &list, &n, &err) == 0);
	CHECK_EQ_INT(1, (long long)n);
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(consume_mode_moves_a_store_temp_dir)
{
	hk_autofree char *root = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	struct hk_store *s = open_store(sdir);
	char *tmp = NULL;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_mktemp(s, &tmp, &err) == 0);
	sample_tree(tmp);
	struct hk_artifact_spec spec = { .name = "make", .version = "4.3" };
	const struct hk_artifact *a = NULL;
	bool added = false;
	REQUIRE(hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, &a, &added, &err) == 0);
	CHECK(added);
	CHECK(access(tmp, F_OK) != 0);
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	free(tmp);
	/* A directory that is not a temp dir of the store is not consumed. */
	hk_autofree char *outside = scratch();
	CHECK_EQ_INT(-EINVAL, hk_store_add(s, outside, &spec, HK_STORE_ADD_CONSUME, &a, NULL,
					   &err));
	CHECK_EQ_INT(0, access(outside, F_OK));
	hk_store_close(s);
	rm_rf(root);
	rm_rf(outside);
}

/* A staged tree (a build's /out before its verdicts) has the id hk_store_add gives it, and
 * nothing of it is in the store until it is added: removed, it leaves nothing behind. */
TEST(a_staged_tree_has_the_id_of_its_add_and_is_not_in_the_store)
{
	hk_autofree char *root = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	hk_autofree char *src = hk_xasprintf("%s/out", root);
	mkdir(src, 0755);
	sample_tree(src);
	/* A mode the store normalises: the id is that of the normal form. */
	hk_autofree char *zlib = hk_xasprintf("%s/usr/include/zlib.h", src);
	chmod(zlib, 0600);
	struct hk_store *s = open_store(sdir);
	struct hk_artifact_spec spec = { .name = "make", .version = "4.3" };
	struct hk_error err = { 0 };
	char *tmp = NULL;
	char id[HK_B3_ID_LEN] = "";
	REQUIRE(hk_store_stage(s, src, &spec, &tmp, id, &err) == 0);
	CHECK(strncmp(id, "b3:", 3) == 0);
	const struct hk_artifact *a = NULL;
	CHECK_EQ_INT(-ENOENT, hk_store_find(s, "make", &a, &err));
	CHECK_EQ_INT(1, (long long)count_temp_dirs(sdir));
	struct hk_error rm;
	CHECK_EQ_INT(0, hk_store_remove_tree(tmp, &rm));
	free(tmp);
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	CHECK_EQ_INT(-ENOENT, hk_store_find(s, "make", &a, &err));
	/* Staged again and added: the same id. */
	char id2[HK_B3_ID_LEN] = "";
	REQUIRE(hk_store_stage(s, src, &spec, &tmp, id2, &err) == 0);
	CHECK_STR_EQ(id, id2);
	bool added = false;
	REQUIRE(hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, &a, &added, &err) == 0);
	free(tmp);
	CHECK(added);
	CHECK_STR_EQ(id, a->id);
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	/* Control: a plain add of the source gives that id too. */
	const struct hk_artifact *again = add_ok(s, src, "make", "4.3", NULL, 0, &added);
	CHECK(!added);
	CHECK_STR_EQ(id, again->id);
	hk_store_close(s);
	rm_rf(root);
}

TEST(files_and_path_index)
{
	hk_autofree char *root = scratch(), *src = scratch(), *src2 = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	put(src2, "usr/bin/make", "other make", 0755);
	put(src2, "usr/lib/odd name\n", "spaces and newline", 0644);
	struct hk_store *s = open_store(sdir);
	const struct hk_artifact *make = add_ok(s, src, "make", "4.3", NULL, 0, NULL);
	const struct hk_artifact *remake = add_ok(s, src2, "remake", "1", NULL, 0, NULL);

	struct hk_tree t = HK_TREE_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_files(s, make, &t, &err) == 0);
	/* usr usr/bin usr/bin/gmake usr/bin/make usr/include usr/include/zlib.h usr/share
	 * usr/share/empty */
	CHECK_EQ_INT(8, (long long)t.n);
	CHECK_EQ_INT(3, (long long)make->file_count);
	bool saw_link = false;
	for (size_t i = 0; i < t.n; i++)
		if (strcmp(t.entries[i].path, "usr/bin/gmake") == 0)
			saw_link = t.entries[i].type == HK_TREE_SYMLINK &&
				   strcmp(t.entries[i].target, "make") == 0;
	CHECK(saw_link);
	hk_tree_free(&t);

	const struct hk_artifact **p = NULL;
	size_t n = 0;
	REQUIRE(hk_store_providers(s, "/usr/bin/make", &p, &n, &err) == 0);
	CHECK_EQ_INT(2, (long long)n);
	if (n == 2)
		CHECK((p[0] == make && p[1] == remake) || (p[0] == remake && p[1] == make));
	free(p);
	REQUIRE(hk_store_providers(s, "/usr/bin/gmake", &p, &n, &err) == 0);   /* symlink */
	CHECK(n == 1 && p[0] == make);
	free(p);
	REQUIRE(hk_store_providers(s, "/usr/lib/odd name\n", &p, &n, &err) == 0);
	CHECK(n == 1 && p[0] == remake);
	free(p);
	REQUIRE(hk_store_providers(s, "/usr/bin", &p, &n, &err) == 0);   /* directories: no */
	CHECK_EQ_INT(0, (long long)n);
	free(p);
	REQUIRE(hk_store_providers(s, "/usr/bin/mak", &p, &n, &err) == 0);
	CHECK_EQ_INT(0, (long long)n);
	free(p);
	hk_store_close(s);

	/* A deleted index is named, and reindex rebuilds the same answers. */
	hk_autofree char *idx = hk_xasprintf("%s/.index/paths", sdir);
	REQUIRE(unlink(idx) == 0);
	s = open_store(sdir);
	CHECK_EQ_INT(-ENOENT, hk_store_providers(s, "/usr/bin/make", &p, &n, &err));
	CHECK_CONTAINS(err.msg, "harkaq store reindex");
	REQUIRE(hk_store_reindex(s, &err) == 0);
	REQUIRE(hk_store_providers(s, "/usr/bin/make", &p, &n, &err) == 0);
	CHECK_EQ_INT(2, (long long)n);
	free(p);
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
	rm_rf(src2);
}

/* How many artifacts the path index names for `path` (the look-up must work). */
static long long providers_count(struct hk_store *s, const char *path)
{
	const struct hk_artifact **p = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_providers(s, path, &p, &n, &err) == 0);
	free(p);
	return (long long)n;
}

static char *read_text(const char *path)
{
	struct hk_buf b = HK_BUF_INIT;
	struct hk_error err = { 0 };
	if (hk_file_read(path, &b, &err) < 0) {
		hk_buf_free(&b);
		return hk_xstrdup("");
	}
	char *text = hk_xstrdup(hk_buf_str(&b));
	hk_buf_free(&b);
	return text;
}

static void write_text(const char *path, const char *text)
{
	struct hk_error err = { 0 };
	REQUIRE(hk_file_write_atomic(path, text, strlen(text), 0644, &err) == 0);
}

/* An add merges its lines into an index that covers the store's other artifacts; the result is
 * the index a rebuild from every manifest writes, byte for byte.  An index that does not cover
 * them (one add behind, of version 1) is rebuilt. */
TEST(path_index_merged_on_add_equals_rebuilt)
{
	hk_autofree char *root = scratch(), *a1 = scratch(), *a2 = scratch(), *a3 = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	hk_autofree char *idx = hk_xasprintf("%s/.index/paths", sdir);
	sample_tree(a1);
	put(a2, "usr/bin/make", "other make", 0755);
	put(a2, "usr/lib/odd name\n", "spaces and newline", 0644);
	put(a2, "usr/include/zz.h", "zz", 0644);
	put(a3, "usr/bin/awk", "awk", 0755);
	put(a3, "usr/bin/make", "a third make", 0755);
	struct hk_store *s = open_store(sdir);
	struct hk_error err = { 0 };
	add_ok(s, a1, "make", "4.3", NULL, 0, NULL);
	hk_autofree char *after_one = read_text(idx);
	CHECK(strncmp(after_one, "harkaq-path-index 2\ncovers 1 b3:", 32) == 0);
	add_ok(s, a2, "remake", "1", NULL, 0, NULL);
	hk_autofree char *merged = read_text(idx);
	CHECK(strncmp(merged, "harkaq-path-index 2\ncovers 2 b3:", 32) == 0);
	REQUIRE(hk_store_reindex(s, &err) == 0);
	hk_autofree char *rebuilt = read_text(idx);
	CHECK_STR_EQ(rebuilt, merged);

	/* That the add merged rather than rebuilt: a line planted in a covering index (sorted
	 * first, naming a real artifact) survives the next add; a rebuild would drop it. */
	const char *nl = strchr(strchr(merged, '\n') + 1, '\n');
	const struct hk_artifact *make = NULL;
	REQUIRE(hk_store_find(s, "make", &make, &err) == 0);
	/* The same tree, name and version make the same directory name in the second store. */
	hk_autofree char *make_dir = hk_xstrdup(make->dirname);
	hk_autofree char *planted = hk_xasprintf("%.*s/aaa-planted %s\n%s", (int)(nl + 1 - merged),
						 merged, make_dir, nl + 1);
	write_text(idx, planted);
	add_ok(s, a3, "awk", "1", NULL, 0, NULL);
	hk_autofree char *with_plant = read_text(idx);
	CHECK_CONTAINS(with_plant, "/aaa-planted ");
	CHECK(strncmp(with_plant, "harkaq-path-index 2\ncovers 3 b3:", 32) == 0);
	CHECK_EQ_INT(3, providers_count(s, "/usr/bin/make"));
	CHECK_EQ_INT(1, providers_count(s, "/usr/bin/awk"));
	hk_store_close(s);

	/* One add behind (the index of before the last add, as a crash between the commit and the
	 * index's rename leaves it): the next add rebuilds, and lists the artifact it missed. */
	hk_autofree char *sdir2 = hk_xasprintf("%s/store2", root);
	free(idx);
	idx = hk_xasprintf("%s/.index/paths", sdir2);
	s = open_store(sdir2);
	add_ok(s, a1, "make", "4.3", NULL, 0, NULL);
	hk_autofree char *behind = read_text(idx);
	add_ok(s, a2, "remake", "1", NULL, 0, NULL);
	write_text(idx, behind);
	CHECK_EQ_INT(0, providers_count(s, "/usr/include/zz.h"));   /* control: the stale index misses it */
	add_ok(s, a3, "awk", "1", NULL, 0, NULL);
	CHECK_EQ_INT(1, providers_count(s, "/usr/include/zz.h"));
	hk_autofree char *caught_up = read_text(idx);
	REQUIRE(hk_store_reindex(s, &err) == 0);
	hk_autofree char *rebuilt3 = read_text(idx);
	CHECK_STR_EQ(rebuilt3, caught_up);

	/* A covering index with a line out of order is not merged into: the add rebuilds it. */
	const char *first = strchr(strchr(rebuilt3, '\n') + 1, '\n') + 1;
	hk_autofree char *unsorted = hk_xasprintf("%.*s/zzz-last %s\n%s", (int)(first - rebuilt3),
						  rebuilt3, make_dir, first);
	write_text(idx, unsorted);
	hk_autofree char *a4 = scratch();
	put(a4, "usr/bin/sed", "sed", 0755);
	add_ok(s, a4, "sed", "1", NULL, 0, NULL);
	hk_autofree char *repaired = read_text(idx);
	CHECK(strstr(repaired, "/zzz-last ") == NULL);
	CHECK_CONTAINS(repaired, "/usr/bin/sed ");
	CHECK(strncmp(repaired, "harkaq-path-index 2\ncovers 4 b3:", 32) == 0);
	rm_rf(a4);

	/* A version-1 index (no covers line) is read, and the next add rewrites it whole. */
	const char *body = strchr(strchr(rebuilt3, '\n') + 1, '\n') + 1;
	hk_autofree char *v1 = hk_xasprintf("harkaq-path-index 1\n%s", body);
	write_text(idx, v1);
	hk_store_close(s);
	s = open_store(sdir2);
	CHECK_EQ_INT(1, providers_count(s, "/usr/bin/awk"));
	CHECK_EQ_INT(0, providers_count(s, "/usr/bin/sed"));   /* control: that old index predates sed */
	hk_autofree char *a5 = scratch();
	put(a5, "usr/bin/grep", "grep", 0755);
	add_ok(s, a5, "grep", "1", NULL, 0, NULL);
	hk_autofree char *from_v1 = read_text(idx);
	CHECK(strncmp(from_v1, "harkaq-path-index 2\ncovers 5 b3:", 32) == 0);
	CHECK_CONTAINS(from_v1, "/usr/bin/sed ");
	CHECK_CONTAINS(from_v1, "/usr/bin/grep ");
	rm_rf(a5);
	/* A damaged covers line is named with its line. */
	write_text(idx, "harkaq-path-index 2\ncovers x\n");
	hk_store_close(s);
	s = open_store(sdir2);
	const struct hk_artifact **p = NULL;
	size_t n = 0;
	CHECK_EQ_INT(-EBADMSG, hk_store_providers(s, "/usr/bin/awk", &p, &n, &err));
	CHECK_CONTAINS(err.msg, "paths:2");
	hk_store_close(s);
	rm_rf(root);
	rm_rf(a1);
	rm_rf(a2);
	rm_rf(a3);
}

TEST(verify_detects_tampering_and_names_the_file)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const struct hk_artifact *a = add_ok(s, src, "make", "4.3", NULL, 0, NULL);
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_store_verify_artifact(s, a, &err));   /* positive control */

	hk_autofree char *f = hk_xasprintf("%s/usr/include/zlib.h", a->path);
	REQUIRE(chmod(f, 0644) == 0);
	put(a->path, "usr/include/zlib.h", "/* evil */\n", 0444);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_artifact(s, a, &err));
	CHECK_CONTAINS(err.msg, "/usr/include/zlib.h: content differs");
	put(a->path, "usr/include/zlib.h", "/* zlib */\n", 0444);
	CHECK_EQ_INT(0, hk_store_verify_artifact(s, a, &err));

	REQUIRE(chmod(f, 0555) == 0);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_artifact(s, a, &err));
	CHECK_CONTAINS(err.msg, "/usr/include/zlib.h: executable in the store");
	REQUIRE(chmod(f, 0444) == 0);

	put(a->path, "usr/include/extra.h", "", 0444);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_artifact(s, a, &err));
	CHECK_CONTAINS(err.msg, "/usr/include/extra.h: a regular file in the store, absent from "
		       "the manifest");
	hk_autofree char *extra = hk_xasprintf("%s/usr/include/extra.h", a->path);
	unlink(extra);

	link_to(a->path, "usr/bin/gmake", "/usr/bin/evil");
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_artifact(s, a, &err));
	CHECK_CONTAINS(err.msg, "/usr/bin/gmake: symlink target differs");
	link_to(a->path, "usr/bin/gmake", "make");
	CHECK_EQ_INT(0, hk_store_verify_artifact(s, a, &err));

	/* The manifest is bound to the id: editing it is caught too. */
	hk_autofree char *man = hk_xasprintf("%s/.meta/%s.files", sdir, a->dirname);
	struct hk_buf text = HK_BUF_INIT;
	FILE *fp = fopen(man, "r");
	REQUIRE(fp);
	char line[512];
	while (fgets(line, sizeof(line), fp))
		if (!strstr(line, "zlib.h"))
			hk_buf_puts(&text, line);
	fclose(fp);
	fp = fopen(man, "w");
	REQUIRE(fp);
	fputs(hk_buf_str(&text), fp);
	fclose(fp);
	hk_buf_free(&text);
	CHECK_EQ_INT(-EBADMSG, hk_store_verify_artifact(s, a, &err));
	CHECK_CONTAINS(err.msg, "the manifest was altered");
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(edited_metadata_is_refused)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const char *dep[] = { "libc6" };
	const struct hk_artifact *a = add_ok(s, src, "make", "4.3", dep, 1, NULL);
	hk_autofree char *meta = hk_xstrdup(a->meta_path);
	hk_autofree char *json = hk_xstrdup(a->meta_json);
	hk_store_close(s);

	/* Positive control: reopening the untouched store works. */
	struct hk_error err = { 0 };
	s = open_store(sdir);
	const struct hk_artifact *const *list;
	size_t n;
	CHECK_EQ_INT(0, hk_store_list(s, &list, &n, &err));
	CHECK_EQ_INT(1, (long long)n);
	hk_store_close(s);

	/* Drop the dependency from the metadata: the identity no longer matches. */
	char *p = strstr(json, "\"libc6\"");
	REQUIRE(p);
	memcpy(p, "\"libc7\"", 7);
	FILE *fp = fopen(meta, "w");
	REQUIRE(fp);
	fputs(json, fp);
	fclose(fp);
	s = open_store(sdir);
	CHECK_EQ_INT(-EBADMSG, hk_store_list(s, &list, &n, &err));
	CHECK_CONTAINS(err.msg, meta);
	CHECK_CONTAINS(err.msg, "the metadata was altered");
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(find_by_name_id_prefix_and_ambiguity)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const struct hk_artifact *m1 = add_ok(s, src, "make", "4.3", NULL, 0, NULL);
	const struct hk_artifact *m2 = add_ok(s, src, "make", "4.4", NULL, 0, NULL);
	const struct hk_artifact *z = add_ok(s, src, "zlib1g", "1.2", NULL, 0, NULL);
	const struct hk_artifact *got = NULL;
	struct hk_error err = { 0 };

	CHECK_EQ_INT(0, hk_store_find(s, "zlib1g", &got, &err));
	CHECK(got == z);
	CHECK_EQ_INT(-EEXIST, hk_store_find(s, "make", &got, &err));
	CHECK_CONTAINS(err.msg, "'make' is ambiguous");
	CHECK_CONTAINS(err.msg, "make 4.3");
	CHECK_CONTAINS(err.msg, "make 4.4");
	CHECK_EQ_INT(0, hk_store_find(s, "make=4.4", &got, &err));
	CHECK(got == m2);
	CHECK_EQ_INT(0, hk_store_find(s, m1->dirname, &got, &err));
	CHECK(got == m1);
	CHECK_EQ_INT(0, hk_store_find(s, m1->id, &got, &err));
	CHECK(got == m1);
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "b3:%.10s", m2->id + 3);
	CHECK_EQ_INT(0, hk_store_find(s, prefix, &got, &err));
	CHECK(got == m2);
	CHECK_EQ_INT(0, hk_store_find(s, prefix + 3, &got, &err));   /* bare hex prefix */
	CHECK(got == m2);
	CHECK_EQ_INT(-ENOENT, hk_store_find(s, "bash", &got, &err));
	CHECK_CONTAINS(err.msg, "no artifact 'bash'");
	CHECK_EQ_INT(-EINVAL, hk_store_find(s, "b3:xyz", &got, &err));
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(closure_resolves_deps_alternatives_provides_and_base)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const char *app_deps[] = { "libfoo", "missing-alt|libbar", "libc6" };
	const char *foo_deps[] = { "virtual-baz" };
	const struct hk_artifact *app = add_ok(s, src, "app", "1", app_deps, 3, NULL);
	const struct hk_artifact *foo = add_ok(s, src, "libfoo", "1", foo_deps, 1, NULL);
	const struct hk_artifact *bar = add_ok(s, src, "libbar", "1", NULL, 0, NULL);
	const char *prov[] = { "virtual-baz" };
	struct hk_artifact_spec spec = { .name = "baz-impl", .version = "1", .provides = prov,
					 .n_provides = 1 };
	const struct hk_artifact *baz = NULL;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_add(s, src, &spec, 0, &baz, NULL, &err) == 0);

	const struct hk_artifact **out = NULL;
	size_t n = 0;
	/* libc6 is in neither the store nor the base: an error naming it. */
	CHECK_EQ_INT(-ENOENT, hk_store_closure(s, &app, 1, NULL, 0, &out, &n, &err));
	CHECK_CONTAINS(err.msg, "app 1 depends on 'libc6', which is neither in the store");
	const char *base[] = { "base-files", "libc6" };
	REQUIRE(hk_store_closure(s, &app, 1, base, 2, &out, &n, &err) == 0);
	/* deps before dependents: bar, baz-impl, libfoo, app (groups sorted by name). */
	CHECK_EQ_INT(4, (long long)n);
	if (n == 4) {
		CHECK(out[n - 1] == app);
		size_t ibaz = 9, ifoo = 9;
		bool has_bar = false;
		for (size_t i = 0; i < n; i++) {
			if (out[i] == baz)
				ibaz = i;
			if (out[i] == foo)
				ifoo = i;
			if (out[i] == bar)
				has_bar = true;
		}
		CHECK(has_bar);
		CHECK(ibaz < ifoo);
	}
	free(out);
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(closure_accepts_a_runtime_cycle)
{
	/* Debian's runtime deps may be cyclic (libc6 <-> libgcc-s1): the closure is the set. */
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const char *a_deps[] = { "b" }, *b_deps[] = { "c" }, *c_deps[] = { "a" };
	const struct hk_artifact *a = add_ok(s, src, "a", "1", a_deps, 1, NULL);
	add_ok(s, src, "b", "1", b_deps, 1, NULL);
	add_ok(s, src, "c", "1", c_deps, 1, NULL);
	const struct hk_artifact **out = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_store_closure(s, &a, 1, NULL, 0, &out, &n, &err));
	CHECK_EQ_INT(3, (long long)n);
	bool seen[3] = { false, false, false };
	for (size_t i = 0; i < n; i++)
		seen[out[i]->name[0] - 'a'] = true;
	CHECK(seen[0] && seen[1] && seen[2]);
	free(out);
	out = NULL;
	/* Positive control: a chain without a back edge resolves. */
	const char *d_deps[] = { "e" };
	const struct hk_artifact *d = add_ok(s, src, "d", "1", d_deps, 1, NULL);
	add_ok(s, src, "e", "1", NULL, 0, NULL);
	CHECK_EQ_INT(0, hk_store_closure(s, &d, 1, NULL, 0, &out, &n, &err));
	CHECK_EQ_INT(2, (long long)n);
	free(out);
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

/* Two handles on one new store, and two sources to add: usr/bin/one and usr/bin/two. */
struct two_handles {
	char *root, *src1, *src2, *sdir;
	struct hk_store *a, *b;
};

static void two_handles_open(struct two_handles *t)
{
	t->root = scratch();
	t->src1 = scratch();
	t->src2 = scratch();
	t->sdir = hk_xasprintf("%s/store", t->root);
	put(t->src1, "usr/bin/one", "1", 0755);
	put(t->src2, "usr/bin/two", "2", 0755);
	t->a = open_store(t->sdir);
	t->b = open_store(t->sdir);
}

static void two_handles_close(struct two_handles *t)
{
	hk_store_close(t->a);
	hk_store_close(t->b);
	rm_rf(t->root);
	rm_rf(t->src1);
	rm_rf(t->src2);
	free(t->root);
	free(t->src1);
	free(t->src2);
	free(t->sdir);
}

TEST(two_handles_adding_keep_one_complete_index)
{
	struct two_handles t;
	two_handles_open(&t);
	struct hk_store *s1 = t.a, *s2 = t.b;
	const struct hk_artifact *const *list;
	size_t n;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_list(s2, &list, &n, &err) == 0);   /* s2 loaded before s1 adds */
	CHECK_EQ_INT(0, (long long)n);
	add_ok(s1, t.src1, "one", "1", NULL, 0, NULL);
	add_ok(s2, t.src2, "two", "1", NULL, 0, NULL);
	const struct hk_artifact **p = NULL;
	REQUIRE(hk_store_providers(s2, "/usr/bin/one", &p, &n, &err) == 0);
	CHECK_EQ_INT(1, (long long)n);    /* s2's add did not drop s1's entries */
	free(p);
	REQUIRE(hk_store_providers(s2, "/usr/bin/two", &p, &n, &err) == 0);
	CHECK_EQ_INT(1, (long long)n);
	free(p);
	two_handles_close(&t);
}

/* One handle held twice (a Debian build and its engine): the second holder's close leaves it
 * open for the first; hk_store_refresh shows what another handle added since, and a seal record
 * written or removed since, as a store opened now would; artifacts handed out stay valid. */
TEST(a_held_store_refreshed_sees_what_others_did)
{
	struct two_handles t;
	two_handles_open(&t);
	struct hk_store *s = t.a, *other = t.b;
	struct hk_error err = { 0 };
	const struct hk_artifact *one = add_ok(s, t.src1, "one", "1", NULL, 0, NULL);
	REQUIRE(hk_store_ref(s) == s);
	hk_store_close(s);                     /* the second holder's close */
	CHECK_STR_EQ("one", one->name);        /* still open: ASan would see a freed artifact */
	add_ok(other, t.src2, "two", "1", NULL, 0, NULL);
	const struct hk_artifact *two = NULL;
	CHECK_EQ_INT(-ENOENT, hk_store_find(s, "two", &two, &err));   /* the control: not yet */
	REQUIRE(hk_store_refresh(s, &err) == 0);
	REQUIRE(hk_store_find(s, "two", &two, &err) == 0);
	CHECK_STR_EQ("two", two->name);
	const struct hk_artifact *again = NULL;
	REQUIRE(hk_store_find(s, "one", &again, &err) == 0);
	CHECK(again == one);                   /* the same artifact, not a reload */
	/* A seal record appears (as `harkaq store seal` of another process writes it): seen at
	 * the refresh, not before; gone again, not sealed again. */
	hk_autofree char *seal_rel = hk_xasprintf(".meta/%s.verity", one->dirname);
	hk_autofree char *seal = hk_xasprintf("%s/%s", t.sdir, seal_rel);
	put(t.sdir, seal_rel, "x", 0644);
	CHECK(!one->sealed);
	REQUIRE(hk_store_refresh(s, &err) == 0);
	CHECK(one->sealed);
	CHECK(!two->sealed);
	REQUIRE(unlink(seal) == 0);
	REQUIRE(hk_store_refresh(s, &err) == 0);
	CHECK(!one->sealed);
	two_handles_close(&t);
}

TEST(an_interrupted_add_is_repaired_by_the_next)
{
	hk_autofree char *root = scratch(), *src = scratch();
	hk_autofree char *sdir = hk_xasprintf("%s/store", root);
	sample_tree(src);
	struct hk_store *s = open_store(sdir);
	const struct hk_artifact *a = add_ok(s, src, "make", "4.3", NULL, 0, NULL);
	hk_autofree char *path = hk_xstrdup(a->path);
	hk_autofree char *meta = hk_xstrdup(a->meta_path);
	hk_autofree char *man = hk_xasprintf("%s/.meta/%s.files", sdir, a->dirname);
	hk_store_close(s);
	/* What a crash between moving the tree and writing the metadata leaves: a tree under
	 * its final name (here even damaged) and no metadata. */
	REQUIRE(unlink(meta) == 0);
	REQUIRE(unlink(man) == 0);
	hk_autofree char *zh = hk_xasprintf("%s/usr/include/zlib.h", path);
	REQUIRE(chmod(zh, 0644) == 0);
	put(path, "usr/include/zlib.h", "half-written", 0444);
	s = open_store(sdir);
	const struct hk_artifact *const *list;
	size_t n;
	struct hk_error err = { 0 };
	REQUIRE(hk_store_list(s, &list, &n, &err) == 0);
	CHECK_EQ_INT(0, (long long)n);           /* the orphan tree is not an artifact */
	bool added = false;
	a = add_ok(s, src, "make", "4.3", NULL, 0, &added);
	CHECK(added);
	CHECK_STR_EQ(path, a->path);
	CHECK_EQ_INT(0, hk_store_verify_artifact(s, a, &err));
	CHECK_EQ_INT(0, (long long)count_temp_dirs(sdir));
	hk_store_close(s);
	rm_rf(root);
	rm_rf(src);
}

TEST(open_refuses_a_foreign_directory)
{
	hk_autofree char *root = scratch();
	put(root, "notes.txt", "mine", 0644);
	struct hk_store *s = NULL;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EEXIST, hk_store_open(root, true, &s, &err));
	CHECK_CONTAINS(err.msg, "not empty and not a harkaq store");
	hk_autofree char *missing = hk_xasprintf("%s/none", root);
	CHECK_EQ_INT(-ENOENT, hk_store_open(missing, false, &s, &err));
	CHECK_CONTAINS(err.msg, missing);
	CHECK_EQ_INT(0, hk_store_open(missing, true, &s, &err));   /* created when asked */
	hk_store_close(s);
	CHECK_EQ_INT(0, hk_store_open(missing, false, &s, &err));
	hk_store_close(s);
	rm_rf(root);
}

/* ---- Debian metadata ----------------------------------------------------------------------- */

TEST(deb_control_and_relations)
{
	const char *ctl =
		"Package: make\n"
		"Version: 4.3-4.1\n"
		"Architecture: amd64\n"
		"Depends: libc6 (>= 2.34), debconf (>= 0.5) | debconf-2.0,\n"
		" python3:any (<< 3.12)\n"
		"Description: utility for directing compilation\n"
		" GNU Make is a utility.\n"
		" .\n"
		" More.\n";
	struct hk_deb_stanza *st = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	REQUIRE(hk_deb_parse_control(ctl, strlen(ctl), "control", &st, &n, &err) == 0);
	REQUIRE(n == 1);
	CHECK_STR_EQ("make", hk_deb_field(&st[0], "package"));
	CHECK_STR_EQ("utility for directing compilation\nGNU Make is a utility.\n\nMore.",
		     hk_deb_field(&st[0], "Description"));
	const char *dep = hk_deb_field(&st[0], "Depends");
	REQUIRE(dep);
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	REQUIRE(hk_deb_parse_relations(dep, "Depends", &g, &ng, &err) == 0);
	REQUIRE(ng == 3);
	CHECK_STR_EQ("libc6", g[0].alts[0].name);
	CHECK_STR_EQ(">=", g[0].alts[0].op);
	CHECK_STR_EQ("2.34", g[0].alts[0].version);
	CHECK_EQ_INT(2, (long long)g[1].n);
	CHECK_STR_EQ("debconf-2.0", g[1].alts[1].name);
	CHECK(g[1].alts[1].op == NULL);
	CHECK_STR_EQ("python3", g[2].alts[0].name);
	CHECK_STR_EQ("any", g[2].alts[0].arch);
	CHECK_STR_EQ("<<", g[2].alts[0].op);
	hk_deb_relations_free(g, ng);
	hk_deb_stanzas_free(st, n);

	CHECK_EQ_INT(-EINVAL, hk_deb_parse_relations("foo (>= )", "Depends", &g, &ng, &err));
	CHECK_CONTAINS(err.msg, "Depends: cannot parse the relation in 'foo (>= )'");
	CHECK_EQ_INT(-EINVAL, hk_deb_parse_relations("foo [amd64]", "Depends", &g, &ng, &err));
	CHECK_CONTAINS(err.msg, "source package relations");
	CHECK_EQ_INT(-EINVAL, hk_deb_parse_relations("foo (~ 1)", "Depends", &g, &ng, &err));
	CHECK_EQ_INT(0, hk_deb_parse_relations("", "Depends", &g, &ng, &err));
	CHECK_EQ_INT(0, (long long)ng);
	hk_deb_relations_free(g, ng);

	CHECK_EQ_INT(-EINVAL, hk_deb_parse_control(" x\n", 3, "ctl", &st, &n, &err));
	CHECK_CONTAINS(err.msg, "ctl:1: continuation line outside a field");
}

TEST(deb_status_installed_and_pseudo_essential)
{
	hk_autofree char *d = scratch();
	put(d, "status",
	    "Package: coreutils\nStatus: install ok installed\nEssential: yes\n"
	    "Priority: required\nPre-Depends: libc6 (>= 2.34), libacl1\n\n"
	    "Package: libc6\nStatus: install ok installed\nPriority: optional\n"
	    "Depends: libgcc-s1\n\n"
	    "Package: libgcc-s1\nStatus: install ok installed\nPriority: optional\n"
	    "Depends: libc6\n\n"
	    "Package: mawk\nStatus: install ok installed\nPriority: required\n"
	    "Provides: awk\n\n"
	    "Package: make\nStatus: install ok installed\nPriority: optional\n"
	    "Depends: libc6\n\n"
	    "Package: gone\nStatus: deinstall ok config-files\nPriority: required\n",
	    0644);
	hk_autofree char *status = hk_xasprintf("%s/status", d);
	char **names = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	REQUIRE(hk_deb_essential_closure(status, &names, &n, &err) == 0);
	struct hk_buf all = HK_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		hk_buf_printf(&all, "%s ", names[i]);
		free(names[i]);
	}
	free(names);
	/* libacl1 is not installed here, so not part of it; make is installed but optional and
	 * needed by nothing essential. */
	CHECK_STR_EQ("awk coreutils libc6 libgcc-s1 mawk ", hk_buf_str(&all));
	hk_buf_reset(&all);
	REQUIRE(hk_deb_installed_names(status, &names, &n, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		hk_buf_printf(&all, "%s ", names[i]);
		free(names[i]);
	}
	free(names);
	CHECK_STR_EQ("awk coreutils libc6 libgcc-s1 make mawk ", hk_buf_str(&all));
	hk_buf_free(&all);
	rm_rf(d);
}

/* ---- the store view: scanned directories, maintainer-made links ---------------------------- */

static const struct hk_artifact *add_with_source(struct hk_store *s, const char *dir,
						 const char *name, const char *source_json)
{
	struct hk_artifact_spec spec = { .name = name, .version = "1", .source_json = source_json };
	const struct hk_artifact *a = NULL;
	struct hk_error err = { 0 };
	int r = hk_store_add(s, dir, &spec, 0, &a, NULL, &err);
	if (r < 0)
		fprintf(stderr, "#   add %s: %s\n", name, err.msg);
	REQUIRE(r == 0);
	return a;
}

/* The merged system directories, as the sandbox's first component decides them. */
static bool usr_or_etc(const char *path)
{
	size_t n = strcspn(path + 1, "/");
	return (n == 3 && strncmp(path + 1, "usr", 3) == 0) ||
	       (n == 3 && strncmp(path + 1, "etc", 3) == 0);
}

TEST(view_hides_scanned_directories_and_shows_state_links_as_traps)
{
	CHECK(hk_view_hides("/usr/share/aclocal/pkg.m4"));
	CHECK(!hk_view_hides("/usr/share/aclocal-1.16/amversion.m4"));
	CHECK(!hk_view_hides("/usr/share/aclocalx"));
	CHECK(hk_view_hides("/etc/ld.so.conf.d/zz_i386-biarch-compat.conf"));
	CHECK(hk_view_hides("/usr/lib/python3/dist-packages/Babel-2.10.3.egg-info/PKG-INFO"));
	CHECK(hk_view_hides("/usr/lib/python3/dist-packages/tomli-2.0.1.dist-info"));
	CHECK(!hk_view_hides("/usr/lib/python3/dist-packages/tomli/__init__.py"));
	CHECK(!hk_view_hides("/usr/lib/python3/dist-packages/x/y.egg-info"));
	CHECK(hk_view_hides("/usr/lib32/libc.so.6"));
	CHECK(hk_view_hides("/usr/libx32/libc.so.6"));
	CHECK(!hk_view_hides("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	hk_autofree char *root = scratch();
	hk_autofree char *store = hk_xasprintf("%s/store", root);
	hk_autofree char *bison = hk_xasprintf("%s/bison", root);
	hk_autofree char *pkgconf = hk_xasprintf("%s/pkgconf", root);
	hk_autofree char *state = hk_xasprintf("%s/state", root);
	REQUIRE(mkdir(bison, 0755) == 0 && mkdir(pkgconf, 0755) == 0 && mkdir(state, 0755) == 0);
	put(bison, "usr/bin/bison.yacc", "#!/bin/sh\nexec bison -y \"$@\"\n", 0755);
	put(pkgconf, "usr/bin/pkgconf", "pkgconf\n", 0755);
	put(pkgconf, "usr/share/aclocal/pkg.m4", "dnl pkg.m4\n", 0644);
	/* What bison's postinst left: the alternatives chain; and a link to nothing any artifact
	 * ships, which the view leaves out. */
	mkdir_in(state, "usr/bin");
	mkdir_in(state, "etc/alternatives");
	link_to(state, "usr/bin/yacc", "/etc/alternatives/yacc");
	link_to(state, "etc/alternatives/yacc", "/usr/bin/bison.yacc");
	link_to(state, "usr/bin/orphan", "/usr/bin/nowhere");
	put(state, "etc/ld.so.cache", "cache\n", 0644);
	struct hk_store *s = open_store(store);
	const struct hk_artifact *b = add_with_source(s, bison, "bison", "{\"type\":\"deb\"}");
	add_with_source(s, pkgconf, "pkgconf", "{\"type\":\"deb\"}");
	add_with_source(s, state, "dpkg-state", "{\"type\":\"dpkg-state\"}");
	struct hk_view v;
	struct hk_error err = { 0 };
	int r = hk_view_ensure(s, NULL, usr_or_etc, &v, &err);
	if (r < 0)
		fprintf(stderr, "#   %s\n", err.msg);
	REQUIRE(r == 0);
	hk_autofree char *m4 = hk_xasprintf("%s/usr/share/aclocal/pkg.m4", v.path);
	hk_autofree char *tool = hk_xasprintf("%s/usr/bin/pkgconf", v.path);
	struct stat st;
	CHECK(lstat(m4, &st) < 0 && errno == ENOENT);
	CHECK(lstat(tool, &st) == 0 && S_ISREG(st.st_mode));   /* the control: its package is in */
	hk_autofree char *yacc = hk_xasprintf("%s/usr/bin/yacc", v.path);
	char target[4096] = "";
	ssize_t n = readlink(yacc, target, sizeof(target) - 1);
	REQUIRE(n > 0);
	target[n] = '\0';
	char *art = NULL, *link = NULL;
	REQUIRE(hk_view_trap_parse(target, &art, &link));
	CHECK_STR_EQ(b->dirname, art);
	CHECK_STR_EQ("/usr/bin/yacc", link);
	free(art);
	free(link);
	hk_autofree char *orphan = hk_xasprintf("%s/usr/bin/orphan", v.path);
	CHECK(lstat(orphan, &st) < 0 && errno == ENOENT);
	/* The state is not merged otherwise: its own files do not appear (bison's do). */
	hk_autofree char *cache = hk_xasprintf("%s/etc/ld.so.cache", v.path);
	hk_autofree char *plain = hk_xasprintf("%s/usr/bin/bison.yacc", v.path);
	CHECK(lstat(cache, &st) < 0 && errno == ENOENT);
	CHECK(lstat(plain, &st) == 0 && S_ISREG(st.st_mode));
	hk_view_release(&v);
	hk_store_close(s);
	rm_rf(root);
}
