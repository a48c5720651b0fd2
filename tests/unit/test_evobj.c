/* Evidence objects (design.md §10, docs/evidence-objects.md): canonical bytes, addressed by their
 * BLAKE3, stored atomically, and verification that refuses any change. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/blake3.h"
#include "core/evidence.h"
#include "core/evobj.h"
#include "core/json.h"
#include "core/suggest.h"
#include "core/util.h"
#include "core/verdict.h"

#define CANARY "/.harkaq/canary-77c2d94b0b5e1f0a"
#define DOMAIN "3a5374efb"

static void feed(struct hk_evidence *ev, const char *log)
{
	const char *p = log;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *end;
		unsigned long type = strtoul(p + 5, &end, 10);
		const char *raw = end + 1;
		struct hk_error err = { 0 };
		if (hk_evidence_feed_raw(ev, (unsigned)type, raw, n - (size_t)(raw - p), &err) < 0)
			HK_FAIL_AT("fixture line rejected: %s", err.msg);
		p += n + (eol ? 1 : 0);
	}
}

/* The canary's denial and the domain's allocation: how every run's records begin. */
#define CANARY_RECORDS                                                                        \
	"type=1423 audit(1764618003.100:10): domain=" DOMAIN " blockers=fs.read_file path=\""   \
	CANARY "\" dev=\"tmpfs\" ino=3\n"                                                       \
	"type=1424 audit(1764618003.100:10): domain=" DOMAIN " status=allocated "              \
	"mode=enforcing pid=20200 uid=65534 exe=\"/.harkaq/harkaq-exec\" comm=\"harkaq-exec\"\n"

/* The verdict of a compile phase whose records are `records` (CANARY_RECORDS first). */
static void verdict_of(const char *records, struct hk_verdict *v)
{
	struct hk_evidence ev;
	hk_evidence_init(&ev, CANARY);
	feed(&ev, records);
	struct hk_verdict_input in = { 0 };
	in.abi = 7;
	in.kernel_abi = 7;
	in.audit_confirmed = true;
	in.evidence = &ev;
	in.policy_id = "b3:00112233";
	in.recipe_hash = "b3:44556677";
	in.artifact_hash = "b3:8899aabb";
	in.phase = "compile";
	hk_verdict_compute(&in, v);
	hk_evidence_free(&ev);
}

/* An Impure verdict: one undeclared read of a path with a non-UTF-8 byte (hex in the audit
 * record, {"hex":…} in JSON) and one of /usr/bin/make. */
static void impure_verdict(struct hk_verdict *v)
{
	verdict_of(CANARY_RECORDS
		   "type=1423 audit(1764618003.200:11): domain=" DOMAIN " blockers=fs.execute,"
		   "fs.read_file path=\"/usr/bin/make\" dev=\"overlay\" ino=41\n"
		   "type=1423 audit(1764618003.200:12): domain=" DOMAIN " blockers=fs.read_file"
		   " path=2F746D702F78E9 dev=\"overlay\" ino=42\n"
		   "type=1424 audit(1764618003.900:99): domain=" DOMAIN " status=deallocated "
		   "denials=3",
		   v);
}

static void encode_collapsed(struct hk_buf *out, size_t collapsed_dirs)
{
	struct hk_verdict v;
	impure_verdict(&v);
	v.collapsed_dirs = collapsed_dirs;
	struct hk_suggest_input in = { 0 };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_diagnosis d;
	struct hk_error err = { 0 };
	REQUIRE(hk_diagnose(s, &v, &d, &err) == 0);
	hk_evobj_encode(&v, &d, out);
	hk_diagnosis_free(&d);
	hk_suggester_free(s);
	hk_verdict_free(&v);
}

static void encode(struct hk_buf *out)
{
	encode_collapsed(out, 0);
}

static char *scratch(void)
{
	char *d = hk_xstrdup("/tmp/hk-test-evobj.XXXXXX");
	REQUIRE(mkdtemp(d) != NULL);
	return d;
}

TEST(the_object_is_canonical_and_deterministic)
{
	struct hk_buf a = HK_BUF_INIT, b = HK_BUF_INIT;
	encode(&a);
	encode(&b);
	REQUIRE(a.len > 0);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	/* Compact: no newline, no space between tokens. */
	CHECK(memchr(a.data, '\n', a.len) == NULL);
	CHECK(strstr(a.data, "\": ") == NULL && strstr(a.data, ", \"") == NULL);
	CHECK(strncmp(a.data, "{\"kind\":\"harkaq.verdict.v1\",\"state\":\"Impure\",", 44) == 0);
	/* The non-UTF-8 path in its exact, reversible form; integers only. */
	CHECK_CONTAINS(a.data, "{\"hex\":\"2f746d702f78e9\"}");
	CHECK(strchr(a.data, '.') == NULL || strstr(a.data, "harkaq.verdict.v1") != NULL);
	struct hk_jval *v = NULL;
	struct hk_error err = { 0 };
	char id[HK_B3_ID_LEN];
	hk_b3_id(a.data, a.len, id);
	if (hk_evobj_check(a.data, a.len, id, &v, &err) < 0)
		HK_FAIL_AT("check: %s", err.msg);
	REQUIRE(v != NULL);
	const struct hk_jval *spots = hk_jobj_get(v, "blind_spots");
	REQUIRE(spots && spots->type == HK_JARR);
	CHECK_EQ_INT(hk_n_blind_spots, spots->len);
	const char *want[] = { "existence_checks", "dac_blocked", "inherited_descriptors",
			       "network_inert", "kernel_trusted", "standard_streams",
			       "preexisting_links", "seccomp_refusals", "followed_symlinks" };
	for (size_t i = 0; i < HK_ARRAY_LEN(want); i++) {
		bool found = false;
		for (size_t k = 0; k < spots->len; k++) {
			const struct hk_jval *c = hk_jobj_get(&spots->items[k], "code");
			found = found || (c && strcmp(c->str, want[i]) == 0);
		}
		if (!found)
			HK_FAIL_AT("blind spot %s missing", want[i]);
	}
	const struct hk_jval *diag = hk_jobj_get(v, "diagnosis");
	REQUIRE(diag && diag->type == HK_JARR && diag->len == 2);
	CHECK_STR_EQ("irreducible", hk_jobj_get(&diag->items[0], "class")->str);
	CHECK_STR_EQ("b3:44556677", hk_jobj_get(v, "recipe_hash")->str);
	hk_jval_free(v);
	hk_buf_free(&a);
	hk_buf_free(&b);
}

static int check_mutated(const struct hk_buf *orig, const char *from, const char *to,
			 bool with_id, char *msg, size_t msg_len)
{
	char *at = strstr(orig->data, from);
	REQUIRE(at != NULL);
	struct hk_buf m = HK_BUF_INIT;
	hk_buf_append(&m, orig->data, (size_t)(at - orig->data));
	hk_buf_puts(&m, to);
	hk_buf_puts(&m, at + strlen(from));
	char id[HK_B3_ID_LEN];
	hk_b3_id(orig->data, orig->len, id);
	struct hk_error err = { 0 };
	int r = hk_evobj_check(m.data, m.len, with_id ? id : NULL, NULL, &err);
	snprintf(msg, msg_len, "%s", err.msg);
	hk_buf_free(&m);
	return r;
}

/* The blind spot of collapsed directories is carried exactly where the cage used them, with
 * their number; the object stays canonical and verifies. */
TEST(collapsed_directories_add_their_blind_spot_only_when_used)
{
	const size_t cases[] = { 0, 1, 185 };
	for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
		struct hk_buf a = HK_BUF_INIT;
		encode_collapsed(&a, cases[c]);
		char id[HK_B3_ID_LEN];
		hk_b3_id(a.data, a.len, id);
		struct hk_jval *v = NULL;
		struct hk_error err = { 0 };
		if (hk_evobj_check(a.data, a.len, id, &v, &err) < 0)
			HK_FAIL_AT("check: %s", err.msg);
		REQUIRE(v != NULL);
		const struct hk_jval *spots = hk_jobj_get(v, "blind_spots");
		REQUIRE(spots && spots->type == HK_JARR);
		CHECK_EQ_INT(hk_n_blind_spots + (cases[c] > 0), spots->len);
		const struct hk_jval *last = &spots->items[spots->len - 1];
		const char *code = hk_jobj_str(last, "code"), *text = hk_jobj_str(last, "text");
		REQUIRE(code && text);
		if (cases[c] == 0) {
			CHECK(strcmp(code, hk_blind_spot_collapsed_code) != 0);
		} else {
			CHECK_STR_EQ(hk_blind_spot_collapsed_code, code);
			CHECK_CONTAINS(text, cases[c] == 1 ? "1 directory whose" : "185 directories whose");
			CHECK_CONTAINS(text, "read without a denial");
		}
		hk_jval_free(v);
		hk_buf_free(&a);
	}
}

TEST(verification_refuses_every_change)
{
	struct hk_buf a = HK_BUF_INIT;
	encode(&a);
	char id[HK_B3_ID_LEN], msg[HK_ERROR_MSG_MAX];
	hk_b3_id(a.data, a.len, id);
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_evobj_check(a.data, a.len, id, NULL, &err));   /* control */

	/* One flipped byte: the hash no longer matches the name. */
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "Impure", "Impurf", true, msg, sizeof(msg)));
	CHECK_CONTAINS(msg, "the object was changed");
	/* The same changes without the name to compare with are caught by form. */
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "\"kind\":\"harkaq.verdict.v1\"",
					     "\"kind\":\"harkaq.verdict.v2\"", false, msg, sizeof(msg)));
	CHECK_CONTAINS(msg, "kind");
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "\"abi\":7", "\"abi\": 7", false, msg, sizeof(msg)));
	CHECK_CONTAINS(msg, "canonical");
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "\"abi\":7", "\"abi\":7.0", false, msg, sizeof(msg)));
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "\"abi\":7,\"kernel_abi\":7",
					     "\"kernel_abi\":7,\"abi\":7", false, msg, sizeof(msg)));
	CHECK_CONTAINS(msg, "fixed order");
	CHECK_EQ_INT(-EBADMSG, check_mutated(&a, "{\"kind\"", "{{\"kind\"", false, msg, sizeof(msg)));
	CHECK_CONTAINS(msg, "not JSON");
	/* Trailing newline. */
	struct hk_buf nl = HK_BUF_INIT;
	hk_buf_append(&nl, a.data, a.len);
	hk_buf_putc(&nl, '\n');
	CHECK_EQ_INT(-EBADMSG, hk_evobj_check(nl.data, nl.len, NULL, NULL, &err));
	hk_buf_free(&nl);
	hk_buf_free(&a);
}

TEST(stored_atomically_by_hash_and_found_by_id_prefix_or_path)
{
	char *dir = scratch();
	struct hk_buf a = HK_BUF_INIT;
	encode(&a);
	char id[HK_B3_ID_LEN], want[HK_B3_ID_LEN];
	hk_b3_id(a.data, a.len, want);
	char *path = NULL;
	struct hk_error err = { 0 };
	REQUIRE(hk_evobj_write(dir, a.data, a.len, id, &path, &err) == 0);
	CHECK_STR_EQ(want, id);
	char *expect_path = hk_xasprintf("%s/.evidence/%s.json", dir, want + 3);
	CHECK_STR_EQ(expect_path, path);
	struct hk_buf back = HK_BUF_INIT;
	REQUIRE(hk_evobj_read(path, &back, &err) == 0);
	CHECK(back.len == a.len && memcmp(back.data, a.data, a.len) == 0);
	/* Writing it again is harmless; nothing temporary is left behind. */
	REQUIRE(hk_evobj_write(dir, a.data, a.len, id, NULL, &err) == 0);
	char *edir = hk_xasprintf("%s/.evidence", dir);
	DIR *d = opendir(edir);
	REQUIRE(d != NULL);
	int entries = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' || strncmp(de->d_name, ".tmp-", 5) == 0)
			entries++;
	closedir(d);
	CHECK_EQ_INT(1, entries);

	char **ids;
	size_t n;
	REQUIRE(hk_evobj_list(dir, &ids, &n, &err) == 0);
	REQUIRE(n == 1);
	CHECK_STR_EQ(want, ids[0]);
	free(ids[0]);
	free(ids);

	char *found = NULL;
	char prefix[12];
	snprintf(prefix, sizeof(prefix), "%.8s", want + 3);
	const char *queries[] = { want, want + 3, prefix, path };
	for (size_t i = 0; i < HK_ARRAY_LEN(queries); i++) {
		if (hk_evobj_find(dir, queries[i], &found, id, &err) < 0) {
			HK_FAIL_AT("find %s: %s", queries[i], err.msg);
			continue;
		}
		CHECK_STR_EQ(expect_path, found);
		CHECK_STR_EQ(want, id);
		free(found);
	}
	CHECK_EQ_INT(-ENOENT, hk_evobj_find(dir, "b3:00000000", &found, id, &err));
	CHECK_EQ_INT(-EINVAL, hk_evobj_find(dir, "abc", &found, id, &err));

	hk_buf_free(&back);
	hk_buf_free(&a);
	free(edir);
	free(path);
	free(expect_path);
	CHECK_EQ_INT(0, hk_store_remove_tree(dir, &err));
	free(dir);
}

TEST(no_directory_means_no_objects)
{
	char *dir = scratch();
	char **ids = NULL;
	size_t n = 7;
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_evobj_list(dir, &ids, &n, &err));
	CHECK_EQ_INT(0, n);
	rmdir(dir);
	free(dir);
}

/* A report has one entry per path and class (docs/diagnosis.md, "One path, one entry"): the
 * object keeps /usr/bin/dd's two denials (read, then executed), the entries merge them —
 * rights united, records summed — and keep other paths, and pathless denials, apart. */
TEST(entries_merge_the_denials_of_one_path)
{
	struct hk_verdict v;
	verdict_of(CANARY_RECORDS
		   "type=1423 audit(1764618003.200:11): domain=" DOMAIN " blockers=fs.read_file"
		   " path=\"/usr/bin/dd\" dev=\"overlay\" ino=41\n"
		   "type=1423 audit(1764618003.200:12): domain=" DOMAIN " blockers=fs.execute,"
		   "fs.read_file path=\"/usr/bin/dd\" dev=\"overlay\" ino=41\n"
		   "type=1423 audit(1764618003.200:13): domain=" DOMAIN " blockers=fs.execute,"
		   "fs.read_file path=\"/usr/bin/dd\" dev=\"overlay\" ino=41\n"
		   "type=1423 audit(1764618003.200:14): domain=" DOMAIN " blockers=fs.read_file"
		   " path=\"/usr/bin/make\" dev=\"overlay\" ino=42\n"
		   "type=1423 audit(1764618003.300:15): domain=" DOMAIN " blockers=scope.signal"
		   " opid=4242 ocomm=\"sshd\"\n"
		   "type=1423 audit(1764618003.300:16): domain=" DOMAIN
		   " blockers=scope.abstract_unix_socket path=00666F6F\n"
		   "type=1424 audit(1764618003.900:99): domain=" DOMAIN " status=deallocated "
		   "denials=7",
		   &v);
	/* Control: the object keeps every denial the kernel reported. */
	REQUIRE(v.n_denials == 5);
	struct hk_suggest_input si = { 0 };
	struct hk_suggester *s = hk_suggester_new(&si);
	struct hk_diagnosis d;
	struct hk_error err = { 0 };
	REQUIRE(hk_diagnose(s, &v, &d, &err) == 0);
	/* Without a store everything is irreducible: dd, make and the two pathless denials. */
	CHECK_EQ_INT(4, d.n_irreducible);
	struct hk_buf b = HK_BUF_INIT;
	hk_evobj_encode(&v, &d, &b);
	hk_diagnosis_free(&d);
	hk_suggester_free(s);
	hk_verdict_free(&v);
	struct hk_jval *obj = NULL;
	REQUIRE(hk_evobj_check(b.data, b.len, NULL, &obj, &err) == 0);
	CHECK_EQ_INT(5, hk_jobj_get(obj, "diagnosis")->len);
	struct hk_evobj_entry *e = NULL;
	size_t n = hk_evobj_entries(obj, "irreducible", &e);
	REQUIRE(n == 4);
	CHECK_STR_EQ("/usr/bin/dd", hk_jobj_str(e[0].den, "path"));
	CHECK_STR_EQ("fs.read_file,fs.execute", e[0].blockers);
	CHECK_EQ_INT(3, e[0].count);
	CHECK_EQ_INT(2, e[0].n_denials);
	CHECK_STR_EQ("/usr/bin/make", hk_jobj_str(e[1].den, "path"));
	CHECK_STR_EQ("fs.read_file", e[1].blockers);
	CHECK_EQ_INT(1, e[1].n_denials);
	CHECK_STR_EQ("scope.signal", e[2].blockers);
	CHECK_STR_EQ("scope.abstract_unix_socket", e[3].blockers);
	hk_evobj_entries_free(e, n);
	/* Another class holds none of them. */
	CHECK_EQ_INT(0, hk_evobj_entries(obj, "declarable", &e));
	hk_evobj_entries_free(e, 0);
	hk_jval_free(obj);
	hk_buf_free(&b);
}

/* The object says how the phase exited, next to a verdict that cannot: a Hermetic phase may
 * have failed (docs/diagnosis.md); a run without a command says null. */
TEST(the_object_carries_the_phase_exit_status)
{
	struct hk_verdict v;
	impure_verdict(&v);
	struct hk_suggest_input in = { 0 };
	struct hk_suggester *s = hk_suggester_new(&in);
	struct hk_diagnosis d;
	struct hk_error err = { 0 };
	REQUIRE(hk_diagnose(s, &v, &d, &err) == 0);
	struct hk_buf a = HK_BUF_INIT, b = HK_BUF_INIT;
	hk_evobj_encode(&v, &d, &a);
	v.has_exit_code = true;
	v.exit_code = 2;
	hk_evobj_encode(&v, &d, &b);
	CHECK_CONTAINS(a.data, "],\"exit_code\":null,\"diagnosis\":[");
	CHECK_CONTAINS(b.data, "],\"exit_code\":2,\"diagnosis\":[");
	struct hk_jval *obj = NULL;
	CHECK_EQ_INT(0, hk_evobj_check(b.data, b.len, NULL, &obj, &err));
	hk_jval_free(obj);
	hk_buf_free(&a);
	hk_buf_free(&b);
	hk_diagnosis_free(&d);
	hk_suggester_free(s);
	hk_verdict_free(&v);
}
