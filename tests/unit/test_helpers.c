/* The small helpers several core modules share (hex digits, whole-fd reads, directory
 * listing, byte copies, string vectors, file writes, positioned errors, JSON members): one
 * implementation each, so each is checked here once. */
#include "harness.h"

#include "core/basic/buf.h"
#include "core/basic/buf_fd.h"
#include "core/basic/dir.h"
#include "core/basic/error.h"
#include "core/basic/file.h"
#include "core/basic/hex.h"
#include "core/formats/json.h"
#include "core/store/store.h"
#include "core/basic/strv.h"
#include "core/formats/tree.h"
#include "core/basic/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(hex_value_accepts_exactly_the_hex_digits)
{
	static const char digits[] = "0123456789abcdef";
	int accepted = 0;
	for (int c = -128; c < 128; c++) {
		int v = hk_hex_value((char)c);
		const char *lower = c > 0 ? strchr(digits, c >= 'A' && c <= 'F' ? c + 32 : c) : NULL;
		if (lower) {
			CHECK_EQ_INT((int)(lower - digits), v);
			accepted++;
		} else {
			CHECK_EQ_INT(-1, v);
		}
	}
	CHECK_EQ_INT(22, accepted); /* 0-9, a-f, A-F */
}

TEST(hex_round_trip_and_refusal)
{
	const uint8_t bytes[] = { 0x00, 0x7f, 0x80, 0xab, 0xff };
	char hex[2 * sizeof(bytes) + 1];
	hk_hex(bytes, sizeof(bytes), hex);
	CHECK_STR_EQ("007f80abff", hex);
	uint8_t back[sizeof(bytes)] = { 0 };
	CHECK_EQ_INT(0, hk_unhex("007F80ABff", sizeof(back), back));
	CHECK(memcmp(back, bytes, sizeof(bytes)) == 0);
	CHECK_EQ_INT(-EINVAL, hk_unhex("007g", 2, back));
}

TEST(is_lower_hex_accepts_only_what_harkaq_writes)
{
	CHECK(hk_is_lower_hex("0123456789abcdef", 16));
	CHECK(hk_is_lower_hex("", 0));
	CHECK(!hk_is_lower_hex("0A", 2));   /* hk_unhex reads it; the store never writes it */
	CHECK(!hk_is_lower_hex("0g", 2));
	CHECK(hk_is_lower_hex("ab\0", 2));   /* exactly n characters are looked at */
}

TEST(buf_read_fd_reads_to_the_end_bytes_exact)
{
	int p[2];
	REQUIRE(pipe(p) == 0);
	/* More than one read's worth, with NUL bytes: the length, not strlen, counts. */
	enum { N = 10000 };
	static char data[N];
	for (size_t i = 0; i < N; i++)
		data[i] = (char)(i % 251);
	REQUIRE(write(p[1], data, N) == N);
	close(p[1]);
	struct hk_buf b = HK_BUF_INIT;
	hk_buf_append(&b, "x", 1); /* appends: what was there stays */
	CHECK_EQ_INT(0, hk_buf_read_fd(&b, p[0]));
	close(p[0]);
	CHECK_EQ_INT(N + 1, (int)b.len);
	CHECK(b.data[0] == 'x' && memcmp(b.data + 1, data, N) == 0);
	CHECK(b.data[b.len] == '\0');
	hk_buf_free(&b);

	CHECK_EQ_INT(-EBADF, hk_buf_read_fd(&b, -1));
	hk_buf_free(&b);
}

TEST(dir_next_lists_every_entry_but_dot_and_dotdot)
{
	char *d = hk_xstrdup("/tmp/hk-test-helpers.XXXXXX");
	REQUIRE(mkdtemp(d) != NULL);
	const char *names[] = { "a", ".hidden", "sub" };
	for (size_t i = 0; i < 2; i++) {
		hk_autofree char *p = hk_xasprintf("%s/%s", d, names[i]);
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		REQUIRE(fd >= 0);
		close(fd);
	}
	hk_autofree char *sub = hk_xasprintf("%s/sub", d);
	REQUIRE(mkdir(sub, 0755) == 0);

	struct hk_error err = { 0 };
	DIR *dir = NULL;
	REQUIRE(hk_dir_fdopen(open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC), d, &dir, &err) == 0);
	int seen = 0, r;
	struct dirent *de;
	while ((r = hk_dir_next(dir, d, &de, &err)) == 0 && de) {
		CHECK(strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0);
		for (size_t i = 0; i < 3; i++)
			if (strcmp(de->d_name, names[i]) == 0)
				seen |= 1 << i;
		CHECK(seen != 0);
	}
	CHECK_EQ_INT(0, r);
	CHECK(de == NULL);
	CHECK_EQ_INT(7, seen);
	closedir(dir);

	/* A descriptor that is not a directory: refused, closed, named. */
	hk_autofree char *file = hk_xasprintf("%s/a", d);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	CHECK_EQ_INT(-ENOTDIR, hk_dir_fdopen(fd, file, &dir, &err));
	CHECK(dir == NULL);
	CHECK_CONTAINS(err.msg, "cannot list ");
	CHECK_CONTAINS(err.msg, file);
	CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);

	struct hk_error ignored = { 0 };
	CHECK_EQ_INT(0, hk_store_remove_tree(d, &ignored));
	free(d);
}

TEST(memdupz_copies_embedded_nul)
{
	hk_autofree char *p = hk_xmemdupz("a\0b", 3);
	CHECK(p[0] == 'a' && p[1] == '\0' && p[2] == 'b' && p[3] == '\0');
	hk_autofree char *e = hk_xmemdupz(NULL, 0);
	CHECK(e[0] == '\0');
}

TEST(special_kind_names_the_type)
{
	CHECK_STR_EQ("a FIFO", hk_tree_special_kind(S_IFIFO | 0644));
	CHECK_STR_EQ("a socket", hk_tree_special_kind(S_IFSOCK));
	CHECK_STR_EQ("a character device", hk_tree_special_kind(S_IFCHR));
	CHECK_STR_EQ("a block device", hk_tree_special_kind(S_IFBLK));
	CHECK_STR_EQ("a file of unknown type", hk_tree_special_kind(0));
}

TEST(strv_keeps_copies_in_order_null_terminated)
{
	hk_autostrv struct hk_strv v = HK_STRV_INIT;
	CHECK(v.v == NULL && v.n == 0);
	char name[] = "make";
	hk_strv_push(&v, name);
	name[0] = 'f';   /* a copy was pushed: the vector does not see the change */
	hk_strv_push(&v, "libc6");
	hk_strv_push_owned(&v, hk_xstrdup("make"));
	REQUIRE(v.n == 3);
	CHECK_STR_EQ("make", v.v[0]);
	CHECK_STR_EQ("libc6", v.v[1]);
	CHECK(v.v[3] == NULL);   /* an argv for execv() as it is */
	CHECK(hk_strv_has(&v, "libc6"));
	CHECK(!hk_strv_has(&v, "fake"));
	/* More than one growth step, still terminated. */
	for (int i = 0; i < 100; i++)
		hk_strv_push_owned(&v, hk_xasprintf("n%03d", i));
	CHECK_EQ_INT(103, (int)v.n);
	CHECK(v.v[v.n] == NULL);
	CHECK_STR_EQ("n099", v.v[102]);
}

TEST(strv_sort_unique_and_steal)
{
	hk_autostrv struct hk_strv v = HK_STRV_INIT;
	const char *in[] = { "b", "a", "c", "a", "b" };
	for (size_t i = 0; i < HK_ARRAY_LEN(in); i++)
		hk_strv_push(&v, in[i]);
	hk_strv_sort_unique(&v);
	REQUIRE(v.n == 3);
	CHECK_STR_EQ("a", v.v[0]);
	CHECK_STR_EQ("b", v.v[1]);
	CHECK_STR_EQ("c", v.v[2]);
	CHECK(v.v[3] == NULL);
	char **stolen = hk_strv_steal(&v);
	CHECK(v.v == NULL && v.n == 0 && v.cap == 0);   /* empty again, reusable */
	CHECK_STR_EQ("c", stolen[2]);
	CHECK(stolen[3] == NULL);
	hk_strfreev(stolen);
	char **none = hk_strv_steal(&v);   /* an empty vector still hands out an array */
	REQUIRE(none != NULL);
	CHECK(none[0] == NULL);
	hk_strfreev(none);
	hk_strfreev(NULL);
	hk_strv_push(&v, "again");   /* freed by hk_autostrv at the end of the scope */
	CHECK_EQ_INT(1, (int)v.n);
}

/* A fresh temporary directory for the file tests; removed by the caller. */
static char *file_test_dir(void)
{
	char *d = hk_xstrdup("/tmp/hk-test-file.XXXXXX");
	if (!mkdtemp(d)) {
		free(d);
		return NULL;
	}
	return d;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

TEST(file_write_atomic_replaces_with_the_exact_mode)
{
	hk_autofree char *d = file_test_dir();
	REQUIRE(d != NULL);
	hk_autofree char *path = hk_xasprintf("%s/f", d);
	struct hk_error err = { 0 };
	mode_t old_umask = umask(077);
	int r1 = hk_file_write_atomic(path, "first", 5, 0644, &err);
	int r2 = hk_file_write_atomic(path, "second\0x", 8, 0444, &err);
	umask(old_umask);
	CHECK_EQ_INT(0, r1);
	CHECK_EQ_INT(0, r2);
	struct hk_buf b = HK_BUF_INIT;
	CHECK_EQ_INT(0, hk_file_read(path, &b, &err));
	CHECK_EQ_INT(8, (int)b.len);
	CHECK(b.len == 8 && memcmp(b.data, "second\0x", 8) == 0);
	hk_buf_free(&b);
	struct stat st;
	REQUIRE(stat(path, &st) == 0);
	CHECK_EQ_INT(0444, (int)(st.st_mode & 07777));   /* the umask 077 did not apply */
	CHECK_EQ_INT(1, count_entries(d));                /* no temporary file left */

	/* The temporary file of a multi-file commit: closed, in the directory, ours to rename. */
	char *tmp = NULL;
	CHECK_EQ_INT(0, hk_file_write_temp(d, "t", 1, 0600, HK_FILE_SYNC, &tmp, &err));
	REQUIRE(tmp != NULL);
	CHECK(strncmp(tmp, d, strlen(d)) == 0 && strstr(tmp, "/.tmp-") != NULL);
	REQUIRE(stat(tmp, &st) == 0);
	CHECK_EQ_INT(0600, (int)(st.st_mode & 07777));
	CHECK_EQ_INT(2, count_entries(d));
	unlink(tmp);
	free(tmp);

	struct hk_error ignored = { 0 };
	CHECK_EQ_INT(0, hk_store_remove_tree(d, &ignored));
}

TEST(file_write_atomic_failure_leaves_the_old_file_and_nothing_else)
{
	hk_autofree char *d = file_test_dir();
	REQUIRE(d != NULL);
	struct hk_error err = { 0 };
	/* Positive control: the same call succeeds where the target can be replaced. */
	hk_autofree char *ok = hk_xasprintf("%s/ok", d);
	CHECK_EQ_INT(0, hk_file_write_atomic(ok, "x", 1, 0644, &err));
	/* A directory in the way: rename(2) refuses to replace it. */
	hk_autofree char *sub = hk_xasprintf("%s/sub", d);
	REQUIRE(mkdir(sub, 0755) == 0);
	CHECK_EQ_INT(-EISDIR, hk_file_write_atomic(sub, "new", 3, 0644, &err));
	CHECK_CONTAINS(err.msg, "cannot write ");
	CHECK_CONTAINS(err.msg, sub);
	struct stat st;
	CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ_INT(2, count_entries(d));   /* ok and sub: the temporary file is gone */
	/* A directory that does not exist: named, nothing created. */
	hk_autofree char *missing = hk_xasprintf("%s/no/f", d);
	CHECK_EQ_INT(-ENOENT, hk_file_write_atomic(missing, "x", 1, 0644, &err));
	CHECK_CONTAINS(err.msg, "cannot create a temporary file in ");
	CHECK_CONTAINS(err.msg, "/no");
	/* hk_file_read names what it could not open, with the errno. */
	CHECK_EQ_INT(-ENOENT, hk_file_read(missing, &(struct hk_buf)HK_BUF_INIT, &err));
	CHECK_EQ_INT(ENOENT, err.code);
	CHECK_CONTAINS(err.msg, missing);
	struct hk_error ignored = { 0 };
	CHECK_EQ_INT(0, hk_store_remove_tree(d, &ignored));
}

TEST(fail_at_names_file_line_and_column)
{
	struct hk_error err = { 0 };
	CHECK_EQ_INT(-EINVAL, hk_fail_at(&err, EINVAL, "recipe.toml", 3, 5, "unknown key '%s'",
					 "nmae"));
	CHECK_EQ_INT(EINVAL, err.code);
	CHECK_STR_EQ("recipe.toml:3:5: unknown key 'nmae'", err.msg);
	/* Column 0: a line-oriented format, no column. */
	CHECK_EQ_INT(-EBADMSG, hk_fail_at(&err, EBADMSG, "paths", 12, 0, "malformed index line"));
	CHECK_STR_EQ("paths:12: malformed index line", err.msg);
}

TEST(json_member_writers_equal_key_then_value)
{
	struct hk_buf a = HK_BUF_INIT, b = HK_BUF_INIT;
	struct hk_json ja, jb;
	hk_json_init(&ja, &a, 0);
	hk_json_init(&jb, &b, 0);
	hk_json_obj_begin(&ja);
	hk_json_kv_str(&ja, "s", "x\"y");
	hk_json_kv_str(&ja, "absent", NULL);
	hk_json_kv_bytes(&ja, "raw", "\xff", 1);
	hk_json_kv_int(&ja, "i", -3);
	hk_json_kv_uint(&ja, "u", 18446744073709551615u);
	hk_json_kv_bool(&ja, "t", true);
	hk_json_obj_end(&ja);
	hk_json_obj_begin(&jb);
	hk_json_key(&jb, "s");
	hk_json_str(&jb, "x\"y");
	hk_json_key(&jb, "absent");
	hk_json_null(&jb);
	hk_json_key(&jb, "raw");
	hk_json_bytes(&jb, "\xff", 1);
	hk_json_key(&jb, "i");
	hk_json_int(&jb, -3);
	hk_json_key(&jb, "u");
	hk_json_uint(&jb, 18446744073709551615u);
	hk_json_key(&jb, "t");
	hk_json_bool(&jb, true);
	hk_json_obj_end(&jb);
	CHECK_STR_EQ(hk_buf_str(&b), hk_buf_str(&a));
	CHECK_STR_EQ("{\"s\":\"x\\\"y\",\"absent\":null,\"raw\":{\"hex\":\"ff\"},\"i\":-3,"
		     "\"u\":18446744073709551615,\"t\":true}", hk_buf_str(&a));
	hk_buf_free(&a);
	hk_buf_free(&b);
}
