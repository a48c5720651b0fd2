/* Audit record text -> structs, on record text in the exact form the kernel writes it
 * (kernel-facts.md §3, §4: measured on kernel 6.18 with ABI 7). */
#include "harness.h"

#include "core/formats/audit_record.h"
#include "core/basic/util.h"

#define S(lit) lit, sizeof(lit) - 1

/* ---- the event stamp ---- */

TEST(split_prefix_reads_time_and_serial)
{
	static const char raw[] = "audit(1764618003.417:38): domain=1d5374efb status=deallocated "
				  "denials=2";
	struct hk_audit_stamp st = { 0 };
	struct hk_error err = { 0 };
	size_t off = 0;
	REQUIRE(hk_audit_split_prefix(S(raw), &st, &off, &err) == 0);
	CHECK(st.sec == 1764618003u);
	CHECK_EQ_INT(417, st.msec);
	CHECK(st.serial == 38);
	CHECK_STR_EQ("domain=1d5374efb status=deallocated denials=2", raw + off);
}

TEST(split_prefix_rejects_malformed_stamps_naming_the_byte)
{
	struct hk_audit_stamp st;
	struct hk_error err = { 0 };
	size_t off;
	/* Positive control: the well-formed stamp is accepted. */
	CHECK(hk_audit_split_prefix(S("audit(1.005:7): x=1"), &st, &off, &err) == 0);
	CHECK_EQ_INT(5, st.msec);

	CHECK(hk_audit_split_prefix(S("type=1423 audit(1.005:7): x=1"), &st, &off, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 0");
	CHECK(hk_audit_split_prefix(S("audit(1x005:7): x=1"), &st, &off, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 7");
	CHECK(hk_audit_split_prefix(S("audit(1.005:): x=1"), &st, &off, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 12");
	CHECK(hk_audit_split_prefix(S("audit(1.005:7 x=1"), &st, &off, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 13");
	CHECK(hk_audit_split_prefix(S("audit(1.1000:7): x=1"), &st, &off, &err) < 0);
	CHECK_CONTAINS(err.msg, "milliseconds");
}

/* ---- generic fields ---- */

TEST(fields_bare_quoted_and_hex)
{
	static const char t[] = "domain=1d5374efb blockers=fs.read_file "
				"path=2F746D702F6B66616374732F642073702F662031 dev=\"vda\" "
				"ino=10953970";
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(S(t), &f, &err) == 0);
	CHECK_EQ_INT(5, f.n);

	const struct hk_audit_field *fl = hk_audit_field_get(&f, "path");
	REQUIRE(fl);
	CHECK_EQ_INT(HK_AUDIT_HEX, fl->form);
	CHECK_STR_EQ("/tmp/kfacts/d sp/f 1", fl->value);
	CHECK_EQ_INT(20, fl->value_len);

	fl = hk_audit_field_get(&f, "dev");
	REQUIRE(fl);
	CHECK_EQ_INT(HK_AUDIT_QUOTED, fl->form);
	CHECK_STR_EQ("vda", fl->value);

	/* Bare values of numeric keys are never hex-decoded: "10953970" is even-length and all
	 * hex digits, and "1d5374efb" would decode if treated as a string. */
	fl = hk_audit_field_get(&f, "ino");
	REQUIRE(fl);
	CHECK_EQ_INT(HK_AUDIT_BARE, fl->form);
	CHECK_STR_EQ("10953970", fl->value);
	fl = hk_audit_field_get(&f, "domain");
	REQUIRE(fl);
	CHECK_STR_EQ("1d5374efb", fl->value);
	CHECK(hk_audit_field_get(&f, "opid") == NULL);
	hk_audit_fields_free(&f);
}

TEST(fields_offsets_point_into_the_text)
{
	static const char t[] = "a=1 comm=\"cc\"";
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(S(t), &f, &err) == 0);
	REQUIRE(f.n == 2);
	CHECK_EQ_INT(4, f.items[1].key_offset);
	CHECK_EQ_INT(10, f.items[1].value_offset);
	hk_audit_fields_free(&f);
}

TEST(fields_tolerate_trailing_newline_and_nul)
{
	static const char t[] = "domain=1 status=deallocated denials=3\n\0";
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(t, sizeof(t) - 1, &f, &err) == 0);
	REQUIRE(f.n == 3);
	CHECK_STR_EQ("3", f.items[2].value);
	hk_audit_fields_free(&f);
}

TEST(fields_security_context_with_a_space_continues_the_bare_value)
{
	/* AppArmor writes "subj=unconfined (enforce)" unquoted in SYSCALL records. */
	static const char t[] = "syscall=257 subj=snap.lxd (enforce) key=(null)";
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(S(t), &f, &err) == 0);
	CHECK_EQ_INT(3, f.n);
	const struct hk_audit_field *fl = hk_audit_field_get(&f, "subj");
	REQUIRE(fl);
	CHECK_STR_EQ("snap.lxd (enforce)", fl->value);
	hk_audit_fields_free(&f);

	/* ... but a word without '=' at the start, or after a string value, is malformed. */
	CHECK(hk_audit_parse_fields(S("orphan a=1"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 0");
	CHECK(hk_audit_parse_fields(S("comm=\"cc\" stray"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 10");
}

TEST(fields_string_placeholders_stay_literal)
{
	static const char t[] = "exe=(null) path=<too_long> comm=\"\"";
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(S(t), &f, &err) == 0);
	CHECK_STR_EQ("(null)", hk_audit_field_get(&f, "exe")->value);
	CHECK_EQ_INT(HK_AUDIT_BARE, hk_audit_field_get(&f, "exe")->form);
	CHECK_STR_EQ("<too_long>", hk_audit_field_get(&f, "path")->value);
	CHECK_EQ_INT(0, hk_audit_field_get(&f, "comm")->value_len);
	CHECK_EQ_INT(HK_AUDIT_QUOTED, hk_audit_field_get(&f, "comm")->form);
	hk_audit_fields_free(&f);
}

TEST(fields_malformed_text_names_the_byte)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };

	/* Unterminated quote: the opening quote is at byte 13. */
	CHECK(hk_audit_parse_fields(S("domain=1 dev=\"vda ino=3"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 13");
	CHECK_CONTAINS(err.msg, "unterminated");
	/* Odd-length hex for an untrusted string. */
	CHECK(hk_audit_parse_fields(S("domain=1 path=2F7"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 14");
	CHECK_CONTAINS(err.msg, "'path'");
	/* Lowercase hex is not what the kernel writes for strings. */
	CHECK(hk_audit_parse_fields(S("path=2f746d70"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 5");
	/* Empty key. */
	CHECK(hk_audit_parse_fields(S("a=1 =2"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 4");
	/* Bad key character. */
	CHECK(hk_audit_parse_fields(S("a=1 b/c=2"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 5");
	/* Garbage right after a closing quote. */
	CHECK(hk_audit_parse_fields(S("comm=\"cc\"x a=1"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 9");
	/* A control byte inside the text. */
	CHECK(hk_audit_parse_fields(S("a=1 b=x\ty"), &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 7");
	CHECK_EQ_INT(0, f.n);
	/* Positive control: the same shapes, well formed. */
	CHECK(hk_audit_parse_fields(S("domain=1 dev=\"vda\" path=2F74 a=1 b-c=2"), &f, &err) == 0);
	CHECK_EQ_INT(5, f.n);
	hk_audit_fields_free(&f);
}

/* ---- LANDLOCK_ACCESS ---- */

TEST(access_filesystem_record_with_hex_path)
{
	static const char t[] = "domain=1d5374efb blockers=fs.write_file "
				"path=2F746D702F6B66616374732F642073702F662031 dev=\"vda\" "
				"ino=10953970";
	struct hk_landlock_access a;
	struct hk_error err = { 0 };
	REQUIRE(hk_landlock_access_parse(S(t), &a, &err) == 0);
	CHECK(a.domain == 0x1d5374efbULL);
	CHECK_STR_EQ("fs.write_file", a.blockers);
	CHECK(a.has_path);
	CHECK_STR_EQ("/tmp/kfacts/d sp/f 1", a.path);
	CHECK_STR_EQ("vda", a.dev);
	CHECK(a.has_ino);
	CHECK(a.ino == 10953970u);
	CHECK(!a.has_opid);
	CHECK(a.ocomm == NULL);
	hk_landlock_access_free(&a);
}

TEST(access_paths_the_kernel_writes_in_hex)
{
	/* Measured: a quote, UTF-8 and the "(deleted)" suffix all force hex. */
	static const struct {
		const char *text;
		const char *path;
	} cases[] = {
		{ "domain=146973f1f blockers=fs.read_file path=2F746D702F6B6620712278 dev=\"vda\" "
		  "ino=11", "/tmp/kf q\"x" },
		{ "domain=146973f1f blockers=fs.read_file path=2F746D702F6B665FC3A974C3A9 "
		  "dev=\"vda\" ino=12", "/tmp/kf_\xc3\xa9t\xc3\xa9" },
		{ "domain=146973f1f blockers=fs.execute,fs.read_file "
		  "path=2F746D702F6B6664656C202864656C6574656429 dev=\"overlay\" ino=13",
		  "/tmp/kfdel (deleted)" },
		{ "domain=146973f1f blockers=fs.read_file path=\"/tmp/harkaq-canary-AAAA\" "
		  "dev=\"nvme1n1p6\" ino=4457713", "/tmp/harkaq-canary-AAAA" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		struct hk_landlock_access a;
		struct hk_error err = { 0 };
		REQUIRE(hk_landlock_access_parse(cases[i].text, strlen(cases[i].text), &a, &err) == 0);
		CHECK_STR_EQ(cases[i].path, a.path);
		CHECK_EQ_INT(strlen(cases[i].path), a.path_len);
		CHECK(a.domain == 0x146973f1fULL);
		hk_landlock_access_free(&a);
	}
}

TEST(access_scope_and_network_records)
{
	struct hk_landlock_access a;
	struct hk_error err = { 0 };

	REQUIRE(hk_landlock_access_parse(S("domain=1a2b3c4d5 blockers=scope.signal opid=4242 "
					   "ocomm=\"sleep\""), &a, &err) == 0);
	CHECK_STR_EQ("scope.signal", a.blockers);
	CHECK(a.has_opid);
	CHECK(a.opid == 4242);
	CHECK_STR_EQ("sleep", a.ocomm);
	CHECK(!a.has_path);
	hk_landlock_access_free(&a);

	/* The abstract socket name starts with NUL: always hex, and kept with its length. */
	REQUIRE(hk_landlock_access_parse(S("domain=1a2b3c4d5 blockers=scope.abstract_unix_socket "
					   "path=006861726B61712D736F636B"), &a, &err) == 0);
	CHECK(a.has_path);
	CHECK_EQ_INT(12, a.path_len);
	CHECK(memcmp(a.path, "\0harkaq-sock", 12) == 0);
	CHECK(a.dev == NULL);
	CHECK(!a.has_ino);
	hk_landlock_access_free(&a);

	REQUIRE(hk_landlock_access_parse(S("domain=1a2b3c4d5 blockers=net.connect_tcp "
					   "daddr=127.0.0.1 dest=443"), &a, &err) == 0);
	CHECK_STR_EQ("net.connect_tcp", a.blockers);
	CHECK(!a.has_path);
	hk_landlock_access_free(&a);
}

TEST(access_missing_or_bad_fields_are_errors)
{
	struct hk_landlock_access a;
	struct hk_error err = { 0 };
	static const char no_domain[] = "blockers=fs.read_file path=\"/x\"";
	CHECK(hk_landlock_access_parse(S(no_domain), &a, &err) < 0);
	CHECK_CONTAINS(err.msg, "no 'domain' field");
	CHECK_CONTAINS(err.msg, "byte 31");

	CHECK(hk_landlock_access_parse(S("domain=1 path=\"/x\""), &a, &err) < 0);
	CHECK_CONTAINS(err.msg, "'blockers'");

	CHECK(hk_landlock_access_parse(S("domain=xyz blockers=fs.read_file"), &a, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 7");
	CHECK_CONTAINS(err.msg, "hexadecimal");

	CHECK(hk_landlock_access_parse(S("domain=1 blockers=fs.read_file ino=12a"), &a, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 35");

	CHECK(hk_landlock_access_parse(S("domain=1 blockers=fs.read_file ino=\"12\""), &a, &err) < 0);
	CHECK_CONTAINS(err.msg, "bare");

	/* A domain id wider than 64 bits. */
	CHECK(hk_landlock_access_parse(S("domain=11111111111111111 blockers=fs.read_file"), &a,
				       &err) < 0);

	/* Positive control. */
	CHECK(hk_landlock_access_parse(S("domain=ffffffffffffffff blockers=fs.read_file ino=12"), &a,
				       &err) == 0);
	CHECK(a.domain == UINT64_MAX);
	hk_landlock_access_free(&a);
}

/* ---- LANDLOCK_DOMAIN ---- */

TEST(domain_allocated_and_deallocated)
{
	struct hk_landlock_domain d;
	struct hk_error err = { 0 };

	REQUIRE(hk_landlock_domain_parse(S("domain=1d5374efb status=allocated mode=enforcing "
					   "pid=16379 uid=0 exe=\"/tmp/x/ll\" comm=\"ll\""), &d,
					 &err) == 0);
	CHECK(d.domain == 0x1d5374efbULL);
	CHECK_EQ_INT(HK_DOMAIN_ALLOCATED, d.status);
	CHECK_STR_EQ("enforcing", d.mode);
	CHECK(d.pid == 16379);
	CHECK(d.uid == 0);
	CHECK_STR_EQ("/tmp/x/ll", d.exe);
	CHECK_STR_EQ("ll", d.comm);
	hk_landlock_domain_free(&d);

	/* An exe path with a space comes in hex. */
	REQUIRE(hk_landlock_domain_parse(S("domain=2 status=allocated mode=enforcing pid=1 "
					   "uid=1000 exe=2F7573722F62696E2F6D7920746F6F6C "
					   "comm=612062"), &d, &err) == 0);
	CHECK_STR_EQ("/usr/bin/my tool", d.exe);
	CHECK_STR_EQ("a b", d.comm);
	CHECK(d.uid == 1000);
	hk_landlock_domain_free(&d);

	REQUIRE(hk_landlock_domain_parse(S("domain=1d5374efb status=deallocated denials=3000"), &d,
					 &err) == 0);
	CHECK_EQ_INT(HK_DOMAIN_DEALLOCATED, d.status);
	CHECK(d.denials == 3000);
	CHECK(d.exe == NULL);
	hk_landlock_domain_free(&d);
}

TEST(domain_bad_records)
{
	struct hk_landlock_domain d;
	struct hk_error err = { 0 };
	CHECK(hk_landlock_domain_parse(S("domain=1 status=deallocated"), &d, &err) < 0);
	CHECK_CONTAINS(err.msg, "'denials'");
	CHECK(hk_landlock_domain_parse(S("domain=1 status=gone denials=1"), &d, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 16");
	CHECK(hk_landlock_domain_parse(S("domain=1 status=deallocated denials=-1"), &d, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 36");
	CHECK(hk_landlock_domain_parse(S("domain=1 status=allocated mode=enforcing pid=1 uid=0 "
					 "comm=\"x\""), &d, &err) < 0);
	CHECK_CONTAINS(err.msg, "'exe'");
	/* Positive control. */
	CHECK(hk_landlock_domain_parse(S("domain=1 status=deallocated denials=0"), &d, &err) == 0);
	CHECK(d.denials == 0);
	hk_landlock_domain_free(&d);
}

/* ---- SYSCALL ---- */

TEST(syscall_record_names_who_tried)
{
	static const char t[] =
		"arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=7ffd5b2c1e30 a2=0 "
		"a3=0 items=0 ppid=16378 pid=16379 auid=4294967295 uid=1000 gid=1000 euid=1000 "
		"suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=4294967295 "
		"comm=\"cat\" exe=\"/usr/bin/cat\" key=(null)";
	struct hk_audit_syscall s;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_syscall_parse(S(t), &s, &err) == 0);
	CHECK_EQ_INT(257, s.syscall);
	CHECK(s.has_success && !s.success);
	CHECK(s.has_exit && s.exit == -13);
	CHECK(s.has_pid && s.pid == 16379);
	CHECK(s.has_uid && s.uid == 1000);
	CHECK_STR_EQ("cat", s.comm);
	CHECK_STR_EQ("/usr/bin/cat", s.exe);
	hk_audit_syscall_free(&s);

	/* Hex exe and comm. */
	REQUIRE(hk_audit_syscall_parse(S("syscall=59 success=yes exit=0 pid=7 comm=612062 "
					 "exe=2F7573722F62696E2F6D7920746F6F6C"), &s, &err) == 0);
	CHECK(s.success);
	CHECK_STR_EQ("a b", s.comm);
	CHECK_STR_EQ("/usr/bin/my tool", s.exe);
	hk_audit_syscall_free(&s);

	CHECK(hk_audit_syscall_parse(S("arch=c000003e success=no"), &s, &err) < 0);
	CHECK_CONTAINS(err.msg, "'syscall'");
	CHECK(hk_audit_syscall_parse(S("syscall=1 success=maybe"), &s, &err) < 0);
	CHECK_CONTAINS(err.msg, "byte 18");
}

TEST(proctitle_is_an_untrusted_string)
{
	struct hk_audit_fields f = HK_AUDIT_FIELDS_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_audit_parse_fields(S("proctitle=6D616B65202D6A3200616C6C"), &f, &err) == 0);
	REQUIRE(f.n == 1);
	CHECK_EQ_INT(12, f.items[0].value_len);
	CHECK(memcmp(f.items[0].value, "make -j2\0all", 12) == 0);
	hk_audit_fields_free(&f);
	REQUIRE(hk_audit_parse_fields(S("proctitle=\"bash\""), &f, &err) == 0);
	CHECK_STR_EQ("bash", f.items[0].value);
	hk_audit_fields_free(&f);
}

TEST(blockers_union_keeps_first_seen_order_without_repeats)
{
	struct hk_buf b = HK_BUF_INIT;
	hk_blockers_union(&b, "fs.read_file");
	hk_blockers_union(&b, "fs.execute,fs.read_file");
	hk_blockers_union(&b, "fs.execute");
	CHECK_STR_EQ("fs.read_file,fs.execute", hk_buf_str(&b));
	/* A right that is a prefix of another is still its own right. */
	hk_blockers_union(&b, "fs.read");
	CHECK_STR_EQ("fs.read_file,fs.execute,fs.read", hk_buf_str(&b));
	hk_buf_reset(&b);
	hk_blockers_union(&b, "");
	CHECK_EQ_INT(0, b.len);
	hk_buf_free(&b);
}
