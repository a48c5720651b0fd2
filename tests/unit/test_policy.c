/* The policy format: parser strictness (every rejection with its exact FILE:LINE:COL and a
 * positive control), escaping, canonical encoding, PolicyId, finish and lookups. */
#include "core/policy/policy.h"

#include "core/policy/policy_file.h"
#include "core/basic/util.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#define HDR "harkaq-policy 1\n"

/* Parses n bytes; returns the parser's result, leaving the message in err. */
static int parse_n(const char *text, size_t n, struct hk_policy *p, struct hk_error *err)
{
	hk_error_clear(err);
	return hk_policy_parse(text, n, "policy.txt", p, err);
}

static int parse(const char *text, struct hk_policy *p, struct hk_error *err)
{
	return parse_n(text, strlen(text), p, err);
}

/* Asserts `text` is rejected with exactly `msg` and that nothing is left in the output. */
#define CHECK_REJECTS(text_in, want_msg)                                                           \
	do {                                                                               \
		struct hk_policy pol_ = HK_POLICY_INIT;                                      \
		struct hk_error perr_;                                                        \
		CHECK_EQ_INT(-EINVAL, parse((text_in), &pol_, &perr_));                            \
		CHECK_EQ_INT(EINVAL, perr_.code);                                             \
		CHECK_STR_EQ((want_msg), perr_.msg);                                               \
		CHECK_EQ_INT(0, pol_.n_grants + pol_.n_expects);                               \
		CHECK(pol_.grants == NULL && pol_.expects == NULL);                            \
		hk_policy_free(&pol_);                                                       \
	} while (0)

/* Asserts `text` parses; the parsed policy is left in *out when out is non-NULL. */
#define CHECK_PARSES_INTO(text_in, out_ptr)                                                       \
	do {                                                                               \
		struct hk_policy pol_ = HK_POLICY_INIT;                                      \
		struct hk_error perr_;                                                        \
		int pres_ = parse((text_in), &pol_, &perr_);                                          \
		if (pres_ != 0)                                                               \
			HK_FAIL_AT("expected to parse, got: %s", perr_.msg);                  \
		CHECK(pol_.finished);                                                        \
		struct hk_policy *pout_ = (out_ptr);                                              \
		if (pout_)                                                                    \
			*pout_ = pol_;                                                          \
		else                                                                       \
			hk_policy_free(&pol_);                                               \
	} while (0)
#define CHECK_PARSES(text) CHECK_PARSES_INTO(text, NULL)

static char *encode(const struct hk_policy *p)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_policy_encode(p, &b);
	return hk_buf_steal(&b);
}

static char *escape(const char *path)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_policy_escape_path(path, &b);
	return hk_buf_steal(&b);
}

/* ------------------------------------------------------------------ header */

TEST(header_missing_is_reported_at_end_of_file)
{
	CHECK_REJECTS("", "policy.txt:1:1: missing header: expected 'harkaq-policy 1' as the "
			  "first directive");
	CHECK_REJECTS("# only a comment\n\n", "policy.txt:3:1: missing header: expected "
					      "'harkaq-policy 1' as the first directive");
	CHECK_REJECTS("# no newline", "policy.txt:1:13: missing header: expected "
				      "'harkaq-policy 1' as the first directive");
	CHECK_PARSES("# comments and blank lines may come first\n\n" HDR);
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR, &p);
	CHECK_EQ_INT(0, p.n_grants + p.n_expects + p.scopes);
	hk_policy_free(&p);
}

TEST(header_must_be_the_first_directive)
{
	CHECK_REJECTS("# c\nro /usr\n" HDR, "policy.txt:2:1: expected 'harkaq-policy 1' as the "
					    "first directive, found 'ro'");
	CHECK_PARSES("# c\n" HDR "ro /usr\n");
}

TEST(header_version_must_be_1)
{
	CHECK_REJECTS("harkaq-policy 2\n", "policy.txt:1:15: unsupported policy version '2' "
					   "(expected 'harkaq-policy 1')");
	CHECK_REJECTS("harkaq-policy 10\n", "policy.txt:1:15: unsupported policy version '10' "
					    "(expected 'harkaq-policy 1')");
	CHECK_REJECTS("harkaq-policy\n", "policy.txt:1:14: missing argument after "
					 "'harkaq-policy' (expected one space, then the version: 1)");
	CHECK_REJECTS("harkaq-policy 1 x\n", "policy.txt:1:16: unexpected space after "
					     "'harkaq-policy 1' (a directive takes one argument)");
	CHECK_PARSES("harkaq-policy 1\n");
}

TEST(header_appears_once)
{
	CHECK_REJECTS(HDR "ro /a\n" HDR, "policy.txt:3:1: second header (the header "
					 "'harkaq-policy 1' is at line 1 and must appear once)");
	CHECK_PARSES(HDR "ro /a\n");
}

/* ------------------------------------------------------------------ keywords, layout */

TEST(unknown_keyword)
{
	CHECK_REJECTS(HDR "# c\n\nro /usr\nrox /usr/lib\n",
		      "policy.txt:5:1: unknown keyword 'rox' (expected ro, list, rw, scope, "
		      "expect or base)");
	/* Keywords are case-sensitive. */
	CHECK_REJECTS(HDR "RO /usr\n", "policy.txt:2:1: unknown keyword 'RO' (expected ro, list, "
				       "rw, scope, expect or base)");
	/* Non-printable bytes in the token are quoted escaped. */
	CHECK_REJECTS(HDR "r\xffo /usr\n", "policy.txt:2:1: unknown keyword 'r\\xffo' (expected "
					   "ro, list, rw, scope, expect or base)");
	/* A comment starts only at column 1. */
	CHECK_REJECTS(HDR "ro /a # note\n", "policy.txt:2:6: unescaped space in path (write "
					    "\\x20 to mean it)");
	CHECK_PARSES(HDR "# c\n\nro /usr\nro /usr/lib\nlist /usr/share\nrw /tmp\nexpect /x\n"
		     "scope signal\n");
}

TEST(exactly_one_space_between_keyword_and_argument)
{
	CHECK_REJECTS(HDR "ro  /usr\n", "policy.txt:2:4: more than one space after 'ro' "
					"(expected exactly one space between keyword and argument)");
	CHECK_REJECTS(HDR "list\t/usr\n", "policy.txt:2:5: tab after 'list' (expected exactly "
					  "one space between keyword and argument)");
	CHECK_PARSES(HDR "list /usr\n");
}

TEST(leading_and_blank_line_whitespace)
{
	CHECK_REJECTS(HDR " ro /usr\n", "policy.txt:2:1: leading whitespace (directives start "
					"at column 1)");
	CHECK_REJECTS(HDR "\t# comment\n", "policy.txt:2:1: leading whitespace (directives start "
					   "at column 1)");
	CHECK_REJECTS(HDR "ro /a\n  \n", "policy.txt:3:1: whitespace on a blank line (blank lines "
					 "must be empty)");
	CHECK_PARSES(HDR "ro /usr\n\n# comment with trailing space \n");
}

TEST(trailing_whitespace_is_an_error)
{
	CHECK_REJECTS(HDR "ro /usr/lib \n", "policy.txt:2:12: trailing whitespace (write \\x20 to "
					    "mean a space at the end of a path)");
	CHECK_REJECTS(HDR "ro /usr/lib\t\t\n", "policy.txt:2:12: trailing whitespace (write "
					       "\\x20 to mean a space at the end of a path)");
	CHECK_REJECTS(HDR "scope signal \n", "policy.txt:2:13: trailing whitespace");
	CHECK_REJECTS("harkaq-policy 1 \n", "policy.txt:1:16: trailing whitespace");
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /usr/lib\\x20\n", &p);
	REQUIRE(p.n_grants == 1);
	CHECK_STR_EQ("/usr/lib ", p.grants[0].path);
	hk_policy_free(&p);
}

TEST(unescaped_space_or_tab_inside_a_path)
{
	CHECK_REJECTS(HDR "ro /my dir/f\n", "policy.txt:2:7: unescaped space in path (write "
					    "\\x20 to mean it)");
	CHECK_REJECTS(HDR "ro /my\tdir/f\n", "policy.txt:2:7: unescaped tab in path (write \\x09 "
					     "to mean it)");
	CHECK_REJECTS(HDR "scope signal abstract-unix-socket\n",
		      "policy.txt:2:13: unexpected space after 'scope signal' (a directive takes "
		      "one argument)");
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /my\\x20dir/f\nro /my\\x09dir/f\n", &p);
	REQUIRE(p.n_grants == 2);
	CHECK_STR_EQ("/my\tdir/f", p.grants[0].path);
	CHECK_STR_EQ("/my dir/f", p.grants[1].path);
	hk_policy_free(&p);
}

TEST(empty_path)
{
	CHECK_REJECTS(HDR "ro\n", "policy.txt:2:3: empty path after 'ro' (expected one space, "
				  "then an absolute path)");
	CHECK_REJECTS(HDR "expect \n", "policy.txt:2:8: empty path after 'expect' (expected one "
				       "space, then an absolute path)");
	CHECK_REJECTS(HDR "scope\n", "policy.txt:2:6: missing argument after 'scope' (expected "
				     "one space, then a scope name: abstract-unix-socket or signal)");
	CHECK_PARSES(HDR "ro /\nexpect /e\nscope signal\n");
}

TEST(last_line_without_newline_is_accepted)
{
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /a\nrw /b", &p);
	REQUIRE(p.n_grants == 2);
	CHECK_STR_EQ("/b", p.grants[1].path);
	CHECK_EQ_INT(HK_GRANT_RW, p.grants[1].kind);
	CHECK_EQ_INT(3, p.grants[1].line);
	hk_policy_free(&p);
	/* ... and errors on it still get the right position. */
	CHECK_REJECTS(HDR "ro /a\nrw b", "policy.txt:3:4: relative path 'b' (paths must start "
					 "with '/')");
}

/* ------------------------------------------------------------------ bytes */

TEST(carriage_return_is_an_error)
{
	CHECK_REJECTS(HDR "ro /a\r\n", "policy.txt:2:6: carriage return: write \\x0d to mean it "
				       "in a path (lines end with LF alone)");
	CHECK_REJECTS("harkaq-policy 1\r\n", "policy.txt:1:16: carriage return: write \\x0d to "
					     "mean it in a path (lines end with LF alone)");
	CHECK_REJECTS(HDR "# comment\r\n", "policy.txt:2:10: carriage return: write \\x0d to "
					   "mean it in a path (lines end with LF alone)");
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /a\\x0d\n", &p);
	REQUIRE(p.n_grants == 1);
	CHECK_STR_EQ("/a\r", p.grants[0].path);
	hk_policy_free(&p);
}

TEST(nul_byte_anywhere_is_an_error)
{
	static const char in_path[] = HDR "ro /a\0b\n";
	static const char in_comment[] = HDR "#\0\n";
	static const char msg_path[] = "policy.txt:2:6: NUL byte (a policy is text; write no NUL, "
				       "paths cannot contain it)";
	static const char msg_comment[] = "policy.txt:2:2: NUL byte (a policy is text; write no "
					  "NUL, paths cannot contain it)";
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	CHECK_EQ_INT(-EINVAL, parse_n(in_path, sizeof(in_path) - 1, &p, &err));
	CHECK_STR_EQ(msg_path, err.msg);
	CHECK_EQ_INT(-EINVAL, parse_n(in_comment, sizeof(in_comment) - 1, &p, &err));
	CHECK_STR_EQ(msg_comment, err.msg);
	/* Positive control: the same bytes without the NUL. */
	static const char fixed[] = HDR "ro /ab\n#\n";
	CHECK_EQ_INT(0, parse_n(fixed, sizeof(fixed) - 1, &p, &err));
	hk_policy_free(&p);
}

TEST(raw_control_bytes_in_paths_are_errors)
{
	CHECK_REJECTS(HDR "ro /a\x01z\n", "policy.txt:2:6: control byte 0x01 in path (write \\x01 "
					  "to mean it)");
	CHECK_REJECTS(HDR "ro /a\x7fz\n", "policy.txt:2:6: control byte 0x7f in path (write \\x7f "
					  "to mean it)");
	CHECK_PARSES(HDR "ro /a\\x01z\nro /a\\x7fz\n");
}

TEST(raw_non_ascii_bytes_are_accepted_and_canonicalised)
{
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /usr/share/\xc3\xa9t\xc3\xa9\n", &p);
	REQUIRE(p.n_grants == 1);
	CHECK_STR_EQ("/usr/share/\xc3\xa9t\xc3\xa9", p.grants[0].path);
	hk_autofree char *text = encode(&p);
	CHECK_STR_EQ(HDR "ro /usr/share/\\xc3\\xa9t\\xc3\\xa9\n", text);
	hk_policy_free(&p);
}

/* ------------------------------------------------------------------ escapes */

TEST(bad_escapes)
{
	CHECK_REJECTS(HDR "ro /a\\qb\n", "policy.txt:2:6: bad escape '\\q' (expected '\\\\' or "
					 "'\\xHH')");
	CHECK_REJECTS(HDR "ro /a\\x4g\n", "policy.txt:2:6: bad escape '\\x4g' (expected '\\\\' or "
					  "'\\xHH')");
	CHECK_REJECTS(HDR "ro /a\\x4\n", "policy.txt:2:6: bad escape '\\x4' (expected '\\\\' or "
					 "'\\xHH')");
	CHECK_REJECTS(HDR "ro /a\\X41\n", "policy.txt:2:6: bad escape '\\X' (expected '\\\\' or "
					  "'\\xHH')");
	CHECK_REJECTS(HDR "ro /a\\\n", "policy.txt:2:6: bad escape '\\' at end of line (expected "
				       "'\\\\' or '\\xHH')");
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /a\\\\b\nro /a\\x4a\n", &p);
	REQUIRE(p.n_grants == 2);
	CHECK_STR_EQ("/aJ", p.grants[0].path); /* 'J' 0x4a sorts before backslash 0x5c */
	CHECK_STR_EQ("/a\\b", p.grants[1].path);
	hk_policy_free(&p);
}

TEST(upper_and_lower_hex_and_escaped_literals_decode_to_the_same_bytes)
{
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "ro /a\\x4A\nro /a\\x4b\nro /\\x61\nro /\\xC3\\xa9\n", &p);
	REQUIRE(p.n_grants == 4);
	CHECK_STR_EQ("/a", p.grants[0].path);
	CHECK_STR_EQ("/aJ", p.grants[1].path);
	CHECK_STR_EQ("/aK", p.grants[2].path);
	CHECK_STR_EQ("/\xc3\xa9", p.grants[3].path);
	hk_policy_free(&p);
	/* '/a\x4A' and '/aJ' are one path written two ways: granted twice. */
	CHECK_REJECTS(HDR "ro /aJ\nro /a\\x4A\n", "policy.txt:3:4: '/aJ' granted twice: 'ro' here "
						  "and 'ro' at line 2");
}

TEST(escaped_nul_is_rejected)
{
	CHECK_REJECTS(HDR "ro /a\\x00\n", "policy.txt:2:6: escaped NUL '\\x00' (paths cannot "
					  "contain NUL)");
	CHECK_PARSES(HDR "ro /a\\x01\n");
}

/* The parser takes a path of ordinary bytes eight at a time; a byte that needs the careful
 * checks must be caught in every position of a word and of the tail, and a byte of 0x80 and
 * above (a UTF-8 name) must stay ordinary. */
TEST(special_bytes_are_caught_in_every_position)
{
	static const struct {
		char byte;
		const char *msg; /* after "FILE:LINE:COL: " */
	} specials[] = {
		{ ' ', "unescaped space in path (write \\x20 to mean it)" },
		{ '\t', "unescaped tab in path (write \\x09 to mean it)" },
		{ 0x01, "control byte 0x01 in path (write \\x01 to mean it)" },
		{ 0x1f, "control byte 0x1f in path (write \\x1f to mean it)" },
		{ 0x7f, "control byte 0x7f in path (write \\x7f to mean it)" },
		{ '\\', "bad escape '\\q' (expected '\\\\' or '\\xHH')" },
	};
	for (size_t k = 1; k < 21; k++) {
		char path[32];
		memset(path, 'a', sizeof(path));
		path[0] = '/';
		path[22] = '\0'; /* k never reaches the last byte: that would be trailing */
		/* Positive control: the same line, ordinary bytes only, parses. */
		char text[64];
		snprintf(text, sizeof(text), HDR "ro %s\n", path);
		CHECK_PARSES(text);
		for (size_t s = 0; s < HK_ARRAY_LEN(specials); s++) {
			char bad[32];
			memcpy(bad, path, sizeof(bad));
			bad[k] = specials[s].byte;
			if (specials[s].byte == '\\')
				bad[k + 1] = 'q';
			snprintf(text, sizeof(text), HDR "ro %s\n", bad);
			char want[160];
			snprintf(want, sizeof(want), "policy.txt:2:%zu: %s", k + 4, specials[s].msg);
			CHECK_REJECTS(text, want);
		}
		/* 0x80..0xff stand for themselves, wherever they are. */
		char high[32];
		memcpy(high, path, sizeof(high));
		high[k] = (char)(k % 2 ? 0x80 : 0xff);
		snprintf(text, sizeof(text), HDR "ro %s\n", high);
		struct hk_policy p;
		CHECK_PARSES_INTO(text, &p);
		CHECK_EQ_INT(1, p.n_grants);
		CHECK_STR_EQ(high, p.grants[0].path);
		hk_policy_free(&p);
	}
	/* A problem found after copying verbatim points at its own column: '//' in the tail and
	 * in a word. */
	CHECK_REJECTS(HDR "ro /abcdefghijklmn//x\n", "policy.txt:2:20: non-normalised path "
						  "'/abcdefghijklmn//x': empty component '//'");
	CHECK_REJECTS(HDR "ro /ab//cdefghijklmnop\n", "policy.txt:2:8: non-normalised path "
						   "'/ab//cdefghijklmnop': empty component '//'");
}

/* ------------------------------------------------------------------ paths */

TEST(relative_path)
{
	CHECK_REJECTS(HDR "# c\n\n\nro usr/lib\n", "policy.txt:5:4: relative path 'usr/lib' "
						   "(paths must start with '/')");
	CHECK_REJECTS(HDR "expect gcc\n", "policy.txt:2:8: relative path 'gcc' (paths must start "
					  "with '/')");
	/* An escaped first byte is still relative; the column is the escape's. */
	CHECK_REJECTS(HDR "rw \\x20/x\n", "policy.txt:2:4: relative path '\\x20/x' (paths must "
					  "start with '/')");
	CHECK_PARSES(HDR "# c\n\n\nro /usr/lib\nexpect /gcc\n");
}

TEST(non_normalised_paths_give_the_exact_reason)
{
	CHECK_REJECTS(HDR "ro /usr//lib\n", "policy.txt:2:9: non-normalised path '/usr//lib': "
					    "empty component '//'");
	CHECK_REJECTS(HDR "ro /usr/./lib\n", "policy.txt:2:9: non-normalised path '/usr/./lib': "
					     "'.' component");
	CHECK_REJECTS(HDR "ro /usr/.\n", "policy.txt:2:9: non-normalised path '/usr/.': '.' "
					 "component");
	CHECK_REJECTS(HDR "list /usr/../lib\n", "policy.txt:2:11: non-normalised path "
						"'/usr/../lib': '..' component");
	CHECK_REJECTS(HDR "rw /..\n", "policy.txt:2:5: non-normalised path '/..': '..' component");
	CHECK_REJECTS(HDR "ro /usr/lib/\n", "policy.txt:2:12: non-normalised path '/usr/lib/': "
					    "trailing '/' (only the root, and expect lines meaning "
					    "'beneath', end with '/')");
	/* The column follows the source through escapes: "\x2f" decodes to '/'. */
	CHECK_REJECTS(HDR "ro /usr\\x2f/lib\n", "policy.txt:2:12: non-normalised path "
						"'/usr//lib': empty component '//'");
	CHECK_REJECTS(HDR "expect /usr/lib//\n", "policy.txt:2:17: non-normalised path "
						 "'/usr/lib//': empty component '//'");
	/* Names that merely contain dots are fine; so are the root and expect's beneath form. */
	CHECK_PARSES(HDR "ro /usr/lib\nro /usr/.hidden\nro /usr/..x\nro /usr/...\nrw /\n"
		     "expect /usr/lib/gcc/\n");
}

TEST(expect_of_the_whole_root_is_rejected)
{
	CHECK_REJECTS(HDR "expect /\n", "policy.txt:2:8: expect path '/' would expect every "
					"denial (name the directory whose contents are expected, "
					"ending with '/')");
	CHECK_PARSES(HDR "expect /usr/\n");
}

/* ------------------------------------------------------------------ whole-file rules */

TEST(path_granted_twice)
{
	CHECK_REJECTS(HDR "# c\nrw /usr/lib\nro /usr/lib\n",
		      "policy.txt:4:4: '/usr/lib' granted twice: 'ro' here and 'rw' at line 3");
	CHECK_REJECTS(HDR "ro /usr/lib\nro /usr/lib\n",
		      "policy.txt:3:4: '/usr/lib' granted twice: 'ro' here and 'ro' at line 2");
	CHECK_REJECTS(HDR "ro /x\nlist /usr/lib\nrw /y\nlist /usr/lib\n",
		      "policy.txt:5:6: '/usr/lib' granted twice: 'list' here and 'list' at line 3");
	/* Of several duplicates the earliest offending line is reported, whatever the sort
	 * order of the paths: '/b' (line 3) before '/a' (line 4). */
	CHECK_REJECTS(HDR "ro /b\nro /a\nrw /b\nro /a\nro /a\n",
		      "policy.txt:4:4: '/b' granted twice: 'rw' here and 'ro' at line 2");
	/* Escaped names are quoted escaped. */
	CHECK_REJECTS(HDR "ro /a\\x20b\nro /a\\x20b\n",
		      "policy.txt:3:4: '/a\\x20b' granted twice: 'ro' here and 'ro' at line 2");
	CHECK_PARSES(HDR "rw /usr/lib\nro /usr/lib/x\nlist /usr\n");
}

TEST(path_expected_twice)
{
	CHECK_REJECTS(HDR "expect /usr/bin/gcc\nexpect /usr/bin/gcc\n",
		      "policy.txt:3:8: '/usr/bin/gcc' expected twice (first at line 2)");
	CHECK_PARSES(HDR "expect /usr/bin/gcc\nexpect /usr/bin/gcc/\n");
}

TEST(path_both_expected_and_granted)
{
	CHECK_REJECTS(HDR "\n\n\n\n\nro /usr/bin/gcc\n\nexpect /usr/bin/gcc\n",
		      "policy.txt:9:8: '/usr/bin/gcc' is both expected and granted (line 7)");
	/* Reported at the expect line even when the grant comes later. */
	CHECK_REJECTS(HDR "expect /usr/bin/gcc\nlist /usr/bin/gcc\n",
		      "policy.txt:2:8: '/usr/bin/gcc' is both expected and granted (line 3)");
	/* The beneath form names what is under a directory, not the directory. */
	CHECK_PARSES(HDR "list /usr/lib/gcc\nexpect /usr/lib/gcc/\nro /usr/bin/cc\n"
		     "expect /usr/bin/gcc\n");
}

TEST(unknown_and_repeated_scopes)
{
	CHECK_REJECTS(HDR "scope network\n", "policy.txt:2:7: unknown scope 'network' (expected "
					     "abstract-unix-socket or signal)");
	CHECK_REJECTS(HDR "scope signal\nro /a\nscope signal\n",
		      "policy.txt:4:7: scope 'signal' given twice (first at line 2)");
	struct hk_policy p;
	CHECK_PARSES_INTO(HDR "scope signal\nscope abstract-unix-socket\n", &p);
	CHECK_EQ_INT(HK_SCOPE_SIGNAL | HK_SCOPE_ABSTRACT_UNIX_SOCKET, p.scopes);
	hk_policy_free(&p);
}

#define B3_ID "b3:e58099e187b686d6bbeed1848bff72babccef07685af192467a989354a9e8ead"

TEST(base_line_names_the_base_once_and_enters_the_id)
{
	CHECK_PARSES(HDR "base " B3_ID "\nro /a\n");
	CHECK_PARSES(HDR "base host\n");
	CHECK_PARSES(HDR "ro /a\nbase root\n");
	CHECK_REJECTS(HDR "base debian\n", "policy.txt:2:6: invalid base 'debian' (expected "
					  "b3:<64 lowercase hex digits> for a pinned base, or host "
					  "or root for an unpinned one)");
	CHECK_REJECTS(HDR "base b3:e58099e1\n", "policy.txt:2:6: invalid base 'b3:e58099e1'"
						" (expected b3:<64 lowercase hex digits> for a "
						"pinned base, or host or root for an unpinned one)");
	CHECK_REJECTS(HDR "base host\nbase root\n",
		      "policy.txt:3:1: base given twice (first at line 2)");
	/* The encoding puts it right after the header, and the id covers it: the same grants
	 * on another base are another policy. */
	struct hk_policy a = HK_POLICY_INIT, b = HK_POLICY_INIT, c = HK_POLICY_INIT;
	struct hk_error e;
	static const char ta[] = HDR "ro /a\nbase " B3_ID "\n";
	static const char tb[] = HDR "ro /a\nbase host\n";
	static const char tc[] = HDR "ro /a\n";
	REQUIRE(hk_policy_parse(ta, sizeof(ta) - 1, NULL, &a, &e) == 0);
	REQUIRE(hk_policy_parse(tb, sizeof(tb) - 1, NULL, &b, &e) == 0);
	REQUIRE(hk_policy_parse(tc, sizeof(tc) - 1, NULL, &c, &e) == 0);
	struct hk_buf enc = HK_BUF_INIT;
	hk_policy_encode(&a, &enc);
	CHECK_STR_EQ(HDR "base " B3_ID "\nro /a\n", hk_buf_str(&enc));
	hk_buf_free(&enc);
	char ia[HK_B3_ID_LEN], ib[HK_B3_ID_LEN], ic[HK_B3_ID_LEN];
	hk_policy_id(&a, ia);
	hk_policy_id(&b, ib);
	hk_policy_id(&c, ic);
	CHECK(strcmp(ia, ib) != 0);
	CHECK(strcmp(ia, ic) != 0);
	CHECK(strcmp(ib, ic) != 0);
	CHECK(!hk_policy_equal(&a, &b));
	/* Control: the same text, the same policy and id. */
	struct hk_policy a2 = HK_POLICY_INIT;
	REQUIRE(hk_policy_parse(ta, sizeof(ta) - 1, NULL, &a2, &e) == 0);
	CHECK(hk_policy_equal(&a, &a2));
	char ia2[HK_B3_ID_LEN];
	hk_policy_id(&a2, ia2);
	CHECK_STR_EQ(ia, ia2);
	hk_policy_free(&a);
	hk_policy_free(&a2);
	hk_policy_free(&b);
	hk_policy_free(&c);
}

TEST(error_prefix_without_filename)
{
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	CHECK_EQ_INT(-EINVAL, hk_policy_parse("x\n", 2, NULL, &p, &err));
	CHECK_STR_EQ("<policy>:1:1: expected 'harkaq-policy 1' as the first directive, found 'x'",
		     err.msg);
	CHECK_EQ_INT(0, hk_policy_parse(HDR, strlen(HDR), NULL, &p, &err));
	hk_policy_free(&p);
}

/* ------------------------------------------------------------------ canonical form */

static const char messy[] = "# a hand-written policy, out of order\n"
			    "\n"
			    "harkaq-policy 1\n"
			    "expect /usr/lib/gcc/\n"
			    "rw /tmp\n"
			    "scope signal\n"
			    "ro /usr/include/zlib.h\n"
			    "# escapes in either case, and escaped printable bytes\n"
			    "ro /odd/\\x41\\x4A\\x4b\n"
			    "list /usr/include\n"
			    "expect /usr/bin/gcc\n"
			    "scope abstract-unix-socket\n"
			    "ro /odd/sp\\x20ace\"q\\x0anl\\xFF\\\\bs";

static const char messy_canonical[] = "harkaq-policy 1\n"
				      "scope abstract-unix-socket\n"
				      "scope signal\n"
				      "ro /odd/AJK\n"
				      "ro /odd/sp\\x20ace\"q\\x0anl\\xff\\\\bs\n"
				      "rw /tmp\n"
				      "list /usr/include\n"
				      "ro /usr/include/zlib.h\n"
				      "expect /usr/bin/gcc\n"
				      "expect /usr/lib/gcc/\n";

TEST(encode_is_canonical_and_round_trips)
{
	struct hk_policy a, b;
	CHECK_PARSES_INTO(messy, &a);
	hk_autofree char *text = encode(&a);
	CHECK_STR_EQ(messy_canonical, text);
	CHECK_PARSES_INTO(text, &b);
	CHECK(hk_policy_equal(&a, &b));
	hk_autofree char *again = encode(&b);
	CHECK_STR_EQ(text, again);
	/* Positive control for hk_policy_equal: a different policy is not equal. */
	hk_policy_add_grant(&b, HK_GRANT_RO, "/extra");
	REQUIRE(hk_policy_finish(&b, &(struct hk_error){ 0 }) == 0);
	CHECK(!hk_policy_equal(&a, &b));
	hk_policy_free(&a);
	hk_policy_free(&b);
}

TEST(escaping_is_exact)
{
	hk_autofree char *s1 = escape("/a b\"c\nd\xff\\e\tf");
	CHECK_STR_EQ("/a\\x20b\"c\\x0ad\\xff\\\\e\\x09f", s1);
	/* Bytes 0x21..0x7e other than backslash are literal; 0x20 and 0x7f are not. */
	hk_autofree char *s2 = escape("!~\x7f ");
	CHECK_STR_EQ("!~\\x7f\\x20", s2);
	struct hk_buf b = HK_BUF_INIT;
	hk_policy_escape_bytes("a\0b", 3, &b);
	CHECK_STR_EQ("a\\x00b", hk_buf_str(&b));
	hk_buf_free(&b);
}

TEST(awkward_paths_round_trip_byte_exact_through_memory)
{
	static const char *const paths[] = {
		"/sp ace", "/quo\"te", "/new\nline", "/\xff\xfe", "/back\\slash", "/tab\t",
		"/del\x7f", "/\x01", "/#hash", "/cr\r",
	};
	struct hk_policy p = HK_POLICY_INIT, q;
	for (size_t i = 0; i < HK_ARRAY_LEN(paths); i++)
		hk_policy_add_grant(&p, HK_GRANT_RO, paths[i]);
	hk_policy_add_expect(&p, "/exp ect/");
	struct hk_error err;
	REQUIRE(hk_policy_finish(&p, &err) == 0);
	hk_autofree char *text = encode(&p);
	/* The encoding is one line per directive: no raw newline, CR, tab or space in a path. */
	size_t lines = 0;
	for (const char *c = text; *c; c++) {
		lines += *c == '\n';
		CHECK(*c != '\r' && *c != '\t');
	}
	CHECK_EQ_INT(1 + HK_ARRAY_LEN(paths) + 1, lines);
	CHECK_PARSES_INTO(text, &q);
	CHECK(hk_policy_equal(&p, &q));
	for (size_t i = 0; i < HK_ARRAY_LEN(paths); i++)
		CHECK(hk_policy_find_grant(&q, paths[i]) != NULL);
	CHECK(hk_policy_expects(&q, "/exp ect/x"));
	hk_policy_free(&p);
	hk_policy_free(&q);
}

TEST(encoding_is_independent_of_input_order)
{
	static const struct {
		enum hk_grant_kind kind;
		const char *path;
	} g[] = {
		{ HK_GRANT_RO, "/usr/lib/libz.so.1" }, { HK_GRANT_LIST, "/usr/lib" },
		{ HK_GRANT_RW, "/tmp" },	       { HK_GRANT_RO, "/usr/lib/libz.so" },
		{ HK_GRANT_RO, "/usr/lib-x" },	       { HK_GRANT_RO, "/usr/lib\xc3" },
	};
	static const char *const e[] = { "/usr/bin/gcc", "/usr/bin/c99", "/usr/lib/gcc/" };
	struct hk_policy fwd = HK_POLICY_INIT, rev = HK_POLICY_INIT;
	for (size_t i = 0; i < HK_ARRAY_LEN(g); i++) {
		hk_policy_add_grant(&fwd, g[i].kind, g[i].path);
		hk_policy_add_grant(&rev, g[HK_ARRAY_LEN(g) - 1 - i].kind,
				    g[HK_ARRAY_LEN(g) - 1 - i].path);
	}
	for (size_t i = 0; i < HK_ARRAY_LEN(e); i++) {
		hk_policy_add_expect(&fwd, e[i]);
		hk_policy_add_expect(&rev, e[HK_ARRAY_LEN(e) - 1 - i]);
	}
	/* Identical grants twice are harmless in memory. */
	hk_policy_add_grant(&rev, HK_GRANT_RW, "/tmp");
	hk_policy_add_expect(&rev, "/usr/bin/gcc");
	fwd.scopes = rev.scopes = HK_SCOPE_SIGNAL;
	struct hk_error err;
	REQUIRE(hk_policy_finish(&fwd, &err) == 0);
	REQUIRE(hk_policy_finish(&rev, &err) == 0);
	CHECK_EQ_INT(HK_ARRAY_LEN(g), rev.n_grants);
	CHECK_EQ_INT(HK_ARRAY_LEN(e), rev.n_expects);
	hk_autofree char *a = encode(&fwd);
	hk_autofree char *b = encode(&rev);
	CHECK_STR_EQ(a, b);
	/* Sorted by path bytes (memcmp order: '-' 0x2d < '/' 0x2f < 0xc3). */
	CHECK_STR_EQ("harkaq-policy 1\n"
		     "scope signal\n"
		     "rw /tmp\n"
		     "list /usr/lib\n"
		     "ro /usr/lib-x\n"
		     "ro /usr/lib/libz.so\n"
		     "ro /usr/lib/libz.so.1\n"
		     "ro /usr/lib\\xc3\n"
		     "expect /usr/bin/c99\n"
		     "expect /usr/bin/gcc\n"
		     "expect /usr/lib/gcc/\n",
		     a);
	hk_policy_free(&fwd);
	hk_policy_free(&rev);
}

static void id_of_text(const char *text, char id[HK_B3_ID_LEN])
{
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	if (parse(text, &p, &err) != 0) {
		HK_FAIL_AT("parse failed: %s", err.msg);
		id[0] = '\0';
		return;
	}
	hk_policy_id(&p, id);
	hk_policy_free(&p);
}

TEST(policy_id_is_stable_and_changes_with_any_grant)
{
	static const char base[] = HDR "scope signal\nro /a\nlist /d\nrw /tmp\nexpect /e\n";
	char id[HK_B3_ID_LEN], id2[HK_B3_ID_LEN], other[HK_B3_ID_LEN];
	id_of_text(base, id);
	/* Same policy written differently: same id. */
	id_of_text("# reordered\n" HDR "expect /e\nrw /tmp\nlist /d\nro /\\x61\nscope signal", id2);
	CHECK_STR_EQ(id, id2);

	/* The id is "b3:" + BLAKE3 hex of the canonical encoding. */
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	REQUIRE(parse(base, &p, &err) == 0);
	hk_autofree char *text = encode(&p);
	char direct[HK_B3_ID_LEN];
	hk_b3_id(text, strlen(text), direct);
	CHECK_STR_EQ(direct, id);
	CHECK_EQ_INT(HK_B3_ID_LEN - 1, strlen(id));
	CHECK(strncmp(id, "b3:", 3) == 0);
	hk_policy_free(&p);

	static const char *const variants[] = {
		HDR "scope signal\nro /b\nlist /d\nrw /tmp\nexpect /e\n",	  /* path */
		HDR "scope signal\nlist /a\nlist /d\nrw /tmp\nexpect /e\n",	  /* kind */
		HDR "scope signal\nro /a\nlist /d\nrw /tmp\nro /z\nexpect /e\n", /* added */
		HDR "scope signal\nro /a\nrw /tmp\nexpect /e\n",		  /* removed */
		HDR "scope signal\nro /a\nlist /d\nrw /tmp\nexpect /e/\n",	  /* expect */
		HDR "ro /a\nlist /d\nrw /tmp\nexpect /e\n",			  /* scope */
		HDR "scope signal\nro /a\nlist /d\nrw /tmp\n",			  /* no expect */
		HDR "scope signal\nro /a\\x20\nlist /d\nrw /tmp\nexpect /e\n",	  /* one byte */
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(variants); i++) {
		id_of_text(variants[i], other);
		if (strcmp(id, other) == 0)
			HK_FAIL_AT("variant %zu has the base policy's id %s", i, id);
	}
}

/* ------------------------------------------------------------------ finish */

TEST(finish_dedups_identical_and_rejects_conflicts)
{
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	hk_policy_add_grant(&p, HK_GRANT_RO, "/usr/lib/x");
	hk_policy_add_grant(&p, HK_GRANT_RO, "/usr/lib/x");
	hk_policy_add_grant(&p, HK_GRANT_LIST, "/usr/lib");
	hk_policy_add_expect(&p, "/gcc");
	hk_policy_add_expect(&p, "/gcc");
	CHECK_EQ_INT(0, hk_policy_finish(&p, &err));
	CHECK_EQ_INT(2, p.n_grants);
	CHECK_EQ_INT(1, p.n_expects);
	CHECK(p.finished);

	hk_policy_add_grant(&p, HK_GRANT_RW, "/usr/lib");
	CHECK(!p.finished);
	CHECK_EQ_INT(-EINVAL, hk_policy_finish(&p, &err));
	CHECK_STR_EQ("policy: '/usr/lib' granted twice with different kinds: 'list' and 'rw'",
		     err.msg);
	CHECK(!p.finished);
	/* The policy is intact after the error: every path still owned once (ASan checks). */
	CHECK_EQ_INT(3, p.n_grants);
	hk_policy_free(&p);
}

TEST(finish_checks_paths_like_the_parser)
{
	static const struct {
		bool expect;
		const char *path;
		const char *msg;
	} bad[] = {
		{ false, "usr/lib", "policy grant 'ro': relative path 'usr/lib' (paths must start "
				    "with '/')" },
		{ false, "", "policy grant 'ro': empty path '' (expected an absolute path)" },
		{ false, "/a//b", "policy grant 'ro': non-normalised path '/a//b': empty "
				  "component '//'" },
		{ false, "/a/", "policy grant 'ro': non-normalised path '/a/': trailing '/' "
				"(only the root, and expect lines meaning 'beneath', end with "
				"'/')" },
		{ true, "/a/../b", "policy expectation: non-normalised path '/a/../b': '..' "
				   "component" },
		{ true, "/", "policy expectation: expect path '/' would expect every denial "
			     "(name the directory whose contents are expected, ending with '/')" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_policy p = HK_POLICY_INIT;
		struct hk_error err;
		if (bad[i].expect)
			hk_policy_add_expect(&p, bad[i].path);
		else
			hk_policy_add_grant(&p, HK_GRANT_RO, bad[i].path);
		CHECK_EQ_INT(-EINVAL, hk_policy_finish(&p, &err));
		CHECK_STR_EQ(bad[i].msg, err.msg);
		hk_policy_free(&p);
	}
	/* An expect equal to a grant: the encoding would not parse, so finish refuses it. */
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	hk_policy_add_grant(&p, HK_GRANT_RO, "/usr/bin/gcc");
	hk_policy_add_expect(&p, "/usr/bin/gcc");
	CHECK_EQ_INT(-EINVAL, hk_policy_finish(&p, &err));
	CHECK_STR_EQ("policy: '/usr/bin/gcc' is both expected and granted ('ro')", err.msg);
	hk_policy_free(&p);
	/* Positive control: the corrected versions finish. */
	hk_policy_add_grant(&p, HK_GRANT_RO, "/usr/lib");
	hk_policy_add_grant(&p, HK_GRANT_RW, "/");
	hk_policy_add_expect(&p, "/a/b");
	hk_policy_add_expect(&p, "/usr/bin/gcc");
	hk_policy_add_expect(&p, "/usr/lib/gcc/");
	CHECK_EQ_INT(0, hk_policy_finish(&p, &err));
	hk_policy_free(&p);
}

/* ------------------------------------------------------------------ lookups */

static void check_lookups(const struct hk_policy *p)
{
	/* expects: exact, and strictly beneath a "dir/" expect. */
	CHECK(hk_policy_expects(p, "/usr/bin/gcc"));
	CHECK(!hk_policy_expects(p, "/usr/bin/gcc-12"));
	CHECK(!hk_policy_expects(p, "/usr/bin"));
	CHECK(hk_policy_expects(p, "/usr/lib/gcc/x86_64/12/lto.so"));
	CHECK(hk_policy_expects(p, "/usr/lib/gcc/a"));
	CHECK(!hk_policy_expects(p, "/usr/lib/gcc"));
	CHECK(!hk_policy_expects(p, "/usr/lib/gcc-cross/a"));
	CHECK(!hk_policy_expects(p, "/usr/lib/gc"));

	/* reads: ro exactly, rw exactly or beneath; list never. */
	CHECK(hk_policy_grants_read(p, "/usr/include/zlib.h"));
	CHECK(!hk_policy_grants_read(p, "/usr/include/stdio.h"));
	CHECK(!hk_policy_grants_read(p, "/usr/include"));
	CHECK(!hk_policy_grants_read(p, "/usr/include/zlib.h/x"));
	CHECK(hk_policy_grants_read(p, "/tmp"));
	CHECK(hk_policy_grants_read(p, "/tmp/a/b/c"));
	CHECK(!hk_policy_grants_read(p, "/tmpx"));
	CHECK(!hk_policy_grants_read(p, "/tmpx/a"));
	CHECK(!hk_policy_grants_read(p, "/"));
	CHECK(!hk_policy_grants_read(p, "/usr/bin/gcc"));

	const struct hk_policy_grant *g = hk_policy_find_grant(p, "/usr/include");
	REQUIRE(g != NULL);
	CHECK_EQ_INT(HK_GRANT_LIST, g->kind);
	CHECK(hk_policy_find_grant(p, "/usr/includ") == NULL);
	CHECK(hk_policy_find_grant(p, "/usr/include/") == NULL);
}

static void add_lookup_fixture(struct hk_policy *p)
{
	hk_policy_add_grant(p, HK_GRANT_LIST, "/usr/include");
	hk_policy_add_grant(p, HK_GRANT_RO, "/usr/include/zlib.h");
	hk_policy_add_grant(p, HK_GRANT_RW, "/tmp");
	hk_policy_add_grant(p, HK_GRANT_RO, "/tmpx/b");
	hk_policy_add_grant(p, HK_GRANT_LIST, "/usr");
	hk_policy_add_expect(p, "/usr/bin/gcc");
	hk_policy_add_expect(p, "/usr/lib/gcc/");
}

TEST(lookups_on_finished_and_unfinished_policies)
{
	struct hk_policy p = HK_POLICY_INIT;
	add_lookup_fixture(&p);
	check_lookups(&p); /* linear fallback */
	struct hk_error err;
	REQUIRE(hk_policy_finish(&p, &err) == 0);
	check_lookups(&p); /* binary search */
	hk_policy_free(&p);

	/* A root rw grant makes every path readable. */
	add_lookup_fixture(&p);
	CHECK(!hk_policy_grants_read(&p, "/etc/passwd"));
	hk_policy_add_grant(&p, HK_GRANT_RW, "/");
	REQUIRE(hk_policy_finish(&p, &err) == 0);
	CHECK(hk_policy_grants_read(&p, "/etc/passwd"));
	CHECK(hk_policy_grants_read(&p, "/"));
	hk_policy_free(&p);
}

/* ------------------------------------------------------------------ scale, load */

TEST(hundred_thousand_grants_parse)
{
	enum { N = 100000 };
	struct hk_buf text = HK_BUF_INIT;
	hk_buf_puts(&text, HDR "rw /tmp\n");
	/* Written in descending order so the parser has to sort. */
	for (int i = N - 2; i >= 0; i--)
		hk_buf_printf(&text, "ro /usr/share/d%03d/file\\x20%06d\n", i % 1000, i);
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	int r = parse_n(text.data, text.len, &p, &err);
	if (r != 0)
		HK_FAIL_AT("%s", err.msg);
	REQUIRE(r == 0);
	CHECK_EQ_INT(N, p.n_grants);
	for (size_t i = 1; i < p.n_grants; i++)
		if (strcmp(p.grants[i - 1].path, p.grants[i].path) >= 0) {
			HK_FAIL_AT("grants not sorted at %zu", i);
			break;
		}
	CHECK(hk_policy_grants_read(&p, "/usr/share/d123/file 000123"));
	CHECK(!hk_policy_grants_read(&p, "/usr/share/d123/file 000124"));
	CHECK(hk_policy_grants_read(&p, "/tmp/x"));
	hk_policy_free(&p);

	/* A duplicate at the very end is found, with its line. */
	hk_buf_puts(&text, "ro /usr/share/d007/file\\x20000007\n");
	CHECK_EQ_INT(-EINVAL, parse_n(text.data, text.len, &p, &err));
	CHECK_STR_EQ("policy.txt:100002:4: '/usr/share/d007/file\\x20000007' granted twice: "
		     "'ro' here and 'ro' at line 99994",
		     err.msg);
	hk_buf_free(&text);
}

TEST(load_reads_a_file_and_names_it)
{
	char path[] = "/tmp/hk-test-policy-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	static const char body[] = HDR "ro /a\nrox /b\n";
	REQUIRE(write(fd, body, sizeof(body) - 1) == (ssize_t)(sizeof(body) - 1));
	close(fd);
	struct hk_policy p = HK_POLICY_INIT;
	struct hk_error err;
	CHECK_EQ_INT(-EINVAL, hk_policy_load(path, &p, &err));
	char want[256];
	snprintf(want, sizeof(want),
		 "%s:3:1: unknown keyword 'rox' (expected ro, list, rw, scope, expect or base)",
		 path);
	CHECK_STR_EQ(want, err.msg);

	fd = open(path, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	static const char fixed[] = HDR "ro /a\nro /b\n";
	REQUIRE(write(fd, fixed, sizeof(fixed) - 1) == (ssize_t)(sizeof(fixed) - 1));
	close(fd);
	CHECK_EQ_INT(0, hk_policy_load(path, &p, &err));
	CHECK_EQ_INT(2, p.n_grants);
	hk_policy_free(&p);
	unlink(path);

	CHECK_EQ_INT(-ENOENT, hk_policy_load(path, &p, &err));
	snprintf(want, sizeof(want), "cannot open policy file '%s': No such file or directory",
		 path);
	CHECK_STR_EQ(want, err.msg);
}

/* The example of docs/policy-format.md, and its canonical form as printed there. */
TEST(documented_example)
{
	static const char doc[] = "# Derived for zlib-dev; comments start with '#' in column 1.\n"
				  "harkaq-policy 1\n"
				  "base " B3_ID "\n"
				  "scope abstract-unix-socket\n"
				  "scope signal\n"
				  "list /usr/include\n"
				  "ro /usr/include/zlib.h\n"
				  "ro /usr/lib/x86_64-linux-gnu/libz.so.1.3\n"
				  "rw /tmp\n"
				  "ro /usr/share/doc/my\\x20package/README\n"
				  "expect /usr/bin/gcc\n"
				  "expect /usr/lib/gcc/\n";
	struct hk_policy p;
	CHECK_PARSES_INTO(doc, &p);
	hk_autofree char *text = encode(&p);
	CHECK_STR_EQ("harkaq-policy 1\n"
		     "base " B3_ID "\n"
		     "scope abstract-unix-socket\n"
		     "scope signal\n"
		     "rw /tmp\n"
		     "list /usr/include\n"
		     "ro /usr/include/zlib.h\n"
		     "ro /usr/lib/x86_64-linux-gnu/libz.so.1.3\n"
		     "ro /usr/share/doc/my\\x20package/README\n"
		     "expect /usr/bin/gcc\n"
		     "expect /usr/lib/gcc/\n",
		     text);
	CHECK(hk_policy_expects(&p, "/usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so"));
	CHECK(!hk_policy_expects(&p, "/usr/lib/gcc"));
	hk_policy_free(&p);
}
