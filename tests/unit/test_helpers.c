/* The small helpers several core modules share (hex digits, whole-fd reads, directory
 * listing, byte copies): one implementation each, so each is checked here once. */
#include "harness.h"

#include "core/buf.h"
#include "core/dir.h"
#include "core/error.h"
#include "core/hex.h"
#include "core/store.h"
#include "core/tree.h"
#include "core/util.h"

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
