/* Evidence objects (design.md §10, docs/evidence-objects.md): canonical bytes, addressed by their
 * BLAKE3, stored atomically, and verification that refuses any change. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/blake3.h"
#include "core/evidence/evidence.h"
#include "core/evidence/evobj.h"
#include "core/evidence/evobj_store.h"
#include "core/basic/file.h"
#include "core/formats/json.h"
#include "core/evidence/suggest.h"
#include "core/basic/util.h"
#include "core/evidence/verdict.h"

#define CANARY "/.harkaq/canary-77c2d94b0b5e1f0a"
#define DOMAIN "3a5374efb"

#include "audit_fixture.h"

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
	feed_records(&ev, records);
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
	/* The entries of the object as a reader decodes it. */
	struct hk_evobj obj;
	REQUIRE(hk_evobj_decode_bytes(b.data, b.len, &obj, &err) == 0);
	CHECK_EQ_INT(5, obj.diag.n);
	struct hk_evobj_entry *e = NULL;
	size_t n = hk_evobj_entries(&obj.verdict, &obj.diag, HK_DIAG_IRREDUCIBLE, &e);
	REQUIRE(n == 4);
	CHECK_STR_EQ("/usr/bin/dd", e[0].den->path);
	CHECK_STR_EQ("fs.read_file,fs.execute", e[0].blockers);
	CHECK_EQ_INT(3, e[0].count);
	CHECK_EQ_INT(2, e[0].n_denials);
	CHECK(e[0].dia == &obj.diag.items[0]);
	CHECK_STR_EQ("/usr/bin/make", e[1].den->path);
	CHECK_STR_EQ("fs.read_file", e[1].blockers);
	CHECK_EQ_INT(1, e[1].n_denials);
	CHECK_STR_EQ("scope.signal", e[2].blockers);
	CHECK_STR_EQ("scope.abstract_unix_socket", e[3].blockers);
	hk_evobj_entries_free(e, n);
	/* Another class holds none of them. */
	CHECK_EQ_INT(0, hk_evobj_entries(&obj.verdict, &obj.diag, HK_DIAG_DECLARABLE, &e));
	hk_evobj_entries_free(e, 0);
	hk_evobj_free(&obj);
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

/* ---- decoding: the one reader of an object's members ---- */

static char *dup_bytes(const char *p, size_t n)
{
	return hk_xmemdupz(p, n);
}

/* A verdict with every member set, each byte string in its awkward form (a byte that is not
 * UTF-8, a NUL inside a path, a control byte), and its diagnosis with every class and every
 * kind of provider.  NoEvidence, so that it has reasons and still shows its denials. */
static void full_verdict(struct hk_verdict *v, struct hk_diagnosis *d)
{
	memset(v, 0, sizeof(*v));
	v->state = HK_NOEVIDENCE;
	v->n_reasons = 2;
	v->reasons = hk_xcalloc(2, sizeof(*v->reasons));
	v->reasons[0] = (struct hk_verdict_reason){ HK_REASON_RECORDS_LOST,
						    hk_xstrdup("records lost: 8 of 9 arrived") };
	v->reasons[1] = (struct hk_verdict_reason){ HK_REASON_TIMED_OUT,
						    hk_xstrdup("timed out \x1b[31m\t (café)") };
	v->abi = 6;
	v->kernel_abi = 7;
	v->policy_id = hk_xstrdup("b3:00112233");
	v->recipe_hash = hk_xstrdup("b3:44556677");
	v->artifact_hash = hk_xstrdup("b3:8899aabb");
	v->phase = hk_xstrdup("build");
	v->deps_sealed = hk_xstrdup("some");
	v->base = (struct hk_verdict_base){ hk_xstrdup("b3:e58099e1"), hk_xstrdup("debian-12"), true,
					    147, hk_xstrdup("b3:666250f6") };
	v->canary_path = hk_xstrdup(CANARY);
	v->canary_seen = true;
	v->domain = 0x3a5374efbULL;
	v->dealloc_seen = true;
	v->kernel_denials = 9;
	v->records_received = 8;
	v->canary_records = 1;
	v->lost_before = 5;
	v->lost_after = 7;
	v->enobufs = 2;
	v->collapsed_dirs = 185;
	v->has_exit_code = true;
	v->exit_code = 137;
	v->n_denials = 4;
	v->denials = hk_xcalloc(4, sizeof(*v->denials));
	v->denials[0] = (struct hk_denial){
		.cls = HK_DENIAL_DEBT, .blockers = hk_xstrdup("fs.read_file"), .has_path = true,
		.path = dup_bytes("/tmp/x\xe9", 7), .path_len = 7, .dev = dup_bytes("overlay", 7),
		.dev_len = 7, .has_ino = true, .ino = 42, .exe = dup_bytes("/usr/bin/c\xe4t", 12),
		.exe_len = 12, .comm = dup_bytes("c\xe4t", 3), .comm_len = 3, .count = 3,
	};
	v->denials[1] = (struct hk_denial){
		.cls = HK_DENIAL_DEBT, .blockers = hk_xstrdup("fs.execute,fs.read_file"),
		.has_path = true, .path = dup_bytes("/a\0b", 4), .path_len = 4, .count = 1,
	};
	v->denials[2] = (struct hk_denial){
		.cls = HK_DENIAL_DEBT, .blockers = hk_xstrdup("scope.signal"), .has_opid = true,
		.opid = 4242, .ocomm = dup_bytes("sshd", 4), .ocomm_len = 4,
		.exe = dup_bytes("/bin/sh", 7), .exe_len = 7, .comm = dup_bytes("sh", 2),
		.comm_len = 2, .count = 1,
	};
	v->denials[3] = (struct hk_denial){
		.cls = HK_DENIAL_EXPECTED, .blockers = hk_xstrdup("fs.execute,fs.read_file"),
		.has_path = true, .path = dup_bytes("/usr/bin/c99", 12), .path_len = 12,
		.dev = dup_bytes("vda", 3), .dev_len = 3, .has_ino = true, .ino = 7, .count = 2,
	};
	v->n_debt = 3;
	v->n_expected = 1;

	memset(d, 0, sizeof(*d));
	d->n = 4;
	d->items = hk_xcalloc(4, sizeof(*d->items));
	struct hk_provider *ps = hk_xcalloc(3, sizeof(*ps));
	ps[0] = (struct hk_provider){ hk_xstrdup("make"), hk_xstrdup("4.3-4.1"), hk_xstrdup("b3:aa"),
				      HK_PROVIDES_FILE, NULL, 0, hk_xstrdup("make"), "deb" };
	ps[1] = (struct hk_provider){ hk_xstrdup("make-guile"), hk_xstrdup("4.3-4.1"),
				      hk_xstrdup("b3:bb"), HK_PROVIDES_ALIAS,
				      hk_xstrdup("/usr/bin/m\xe4ke"), 0, hk_xstrdup("make-guile"),
				      "build" };
	ps[2] = (struct hk_provider){ hk_xstrdup("coreutils"), hk_xstrdup("9.1-1"), NULL,
				      HK_PROVIDES_LINK, NULL, 0, NULL, "base" };
	d->items[0] = (struct hk_diag_item){ HK_DIAG_DECLARABLE, NULL, ps, 3,
					     hk_xstrdup("declare dep: make"), hk_xstrdup("gcc-12") };
	d->items[1] = (struct hk_diag_item){ HK_DIAG_IRREDUCIBLE, hk_xstrdup("nobody provides it"),
					     NULL, 0, NULL, NULL };
	d->items[2] = (struct hk_diag_item){ HK_DIAG_POLICY_BUG, hk_xstrdup("a harkaq bug"), NULL, 0,
					     NULL, NULL };
	d->items[3] = (struct hk_diag_item){ HK_DIAG_EXPECTED,
					     hk_xstrdup("harkaq-debian-expect 1: c99: a probe"), NULL,
					     0, NULL, NULL };
	d->n_expected = d->n_declarable = d->n_irreducible = d->n_policy_bug = 1;
}

/* The least a verdict can say: every nullable member null, no denial. */
static void empty_verdict(struct hk_verdict *v, struct hk_diagnosis *d)
{
	memset(v, 0, sizeof(*v));
	memset(d, 0, sizeof(*d));
	v->state = HK_HERMETIC;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	return (!a && !b) || (a && b && an == bn && memcmp(a, b, an) == 0);
}

/* Names the member in `diff` when `cond` does not hold. */
#define SAME(cond, member)                                                                  \
	do {                                                                                \
		if (!(cond))                                                                \
			hk_buf_printf(diff, "%s%s", diff->len ? ", " : "", member);         \
	} while (0)

/* Every member of the object, compared; the names of those that differ go to `diff`.  Fields
 * that are no member of the object (count_complete, a provider's hops) are not compared. */
static void differences(const struct hk_verdict *a, const struct hk_diagnosis *da,
			const struct hk_verdict *b, const struct hk_diagnosis *db, struct hk_buf *diff)
{
	SAME(a->state == b->state, "state");
	SAME(a->n_reasons == b->n_reasons, "reasons");
	for (size_t i = 0; i < a->n_reasons && i < b->n_reasons; i++) {
		SAME(a->reasons[i].code == b->reasons[i].code, "reasons[].code");
		SAME(same_str(a->reasons[i].message, b->reasons[i].message), "reasons[].message");
	}
	SAME(a->abi == b->abi && a->kernel_abi == b->kernel_abi, "abi, kernel_abi");
	SAME(same_str(a->policy_id, b->policy_id), "policy_id");
	SAME(same_str(a->recipe_hash, b->recipe_hash), "recipe_hash");
	SAME(same_str(a->artifact_hash, b->artifact_hash), "artifact_hash");
	SAME(same_str(a->phase, b->phase), "phase");
	SAME(same_str(a->deps_sealed, b->deps_sealed), "deps_sealed");
	SAME(same_str(a->base.id, b->base.id) && same_str(a->base.name, b->base.name) &&
		     a->base.pinned == b->base.pinned && a->base.packages == b->base.packages &&
		     same_str(a->base.view, b->base.view), "base");
	SAME(same_str(a->canary_path, b->canary_path), "canary.path");
	SAME(a->canary_seen == b->canary_seen && a->domain == b->domain, "canary.seen, domain");
	SAME(a->dealloc_seen == b->dealloc_seen && a->kernel_denials == b->kernel_denials,
	     "kernel.denials");
	SAME(a->records_received == b->records_received && a->canary_records == b->canary_records &&
		     a->lost_before == b->lost_before && a->lost_after == b->lost_after &&
		     a->enobufs == b->enobufs, "kernel");
	SAME(a->collapsed_dirs == b->collapsed_dirs, "collapsed_dirs (blind_spots)");
	SAME(a->has_exit_code == b->has_exit_code && a->exit_code == b->exit_code, "exit_code");
	SAME(a->n_debt == b->n_debt && a->n_expected == b->n_expected, "n_debt, n_expected");
	SAME(a->n_denials == b->n_denials, "denials");
	for (size_t i = 0; i < a->n_denials && i < b->n_denials; i++) {
		const struct hk_denial *x = &a->denials[i], *y = &b->denials[i];
		SAME(x->cls == y->cls, "denials[].class");
		SAME(same_str(x->blockers, y->blockers), "denials[].blockers");
		SAME(x->has_path == y->has_path && same_bytes(x->path, x->path_len, y->path,
							      y->path_len), "denials[].path");
		SAME(same_bytes(x->dev, x->dev_len, y->dev, y->dev_len), "denials[].dev");
		SAME(x->has_ino == y->has_ino && x->ino == y->ino, "denials[].ino");
		SAME(x->has_opid == y->has_opid && x->opid == y->opid, "denials[].opid");
		SAME(same_bytes(x->ocomm, x->ocomm_len, y->ocomm, y->ocomm_len), "denials[].ocomm");
		SAME(same_bytes(x->exe, x->exe_len, y->exe, y->exe_len), "denials[].exe");
		SAME(same_bytes(x->comm, x->comm_len, y->comm, y->comm_len), "denials[].comm");
		SAME(x->count == y->count, "denials[].count");
	}
	SAME(da->n == db->n, "diagnosis");
	SAME(da->n_expected == db->n_expected && da->n_declarable == db->n_declarable &&
		     da->n_irreducible == db->n_irreducible && da->n_policy_bug == db->n_policy_bug,
	     "the diagnosis' counts");
	for (size_t i = 0; i < da->n && i < db->n; i++) {
		const struct hk_diag_item *x = &da->items[i], *y = &db->items[i];
		SAME(x->cls == y->cls, "diagnosis[].class");
		SAME(same_str(x->reason, y->reason), "diagnosis[].reason");
		SAME(same_str(x->line, y->line), "diagnosis[].line");
		SAME(same_str(x->exe_declared_by, y->exe_declared_by), "diagnosis[].exe_declared_by");
		SAME(x->n_providers == y->n_providers, "diagnosis[].providers");
		for (size_t k = 0; k < x->n_providers && k < y->n_providers; k++) {
			const struct hk_provider *p = &x->providers[k], *q = &y->providers[k];
			SAME(same_str(p->name, q->name) && same_str(p->version, q->version) &&
				     same_str(p->id, q->id), "providers[].name, version, id");
			SAME(p->how == q->how, "providers[].how");
			SAME(same_str(p->via, q->via), "providers[].via");
			SAME(same_str(p->spec, q->spec), "providers[].spec");
			SAME(same_str(p->origin, q->origin), "providers[].origin");
		}
	}
}

static void free_pair(struct hk_verdict *v, struct hk_diagnosis *d)
{
	hk_verdict_free(v);
	hk_diagnosis_free(d);
}

TEST(decoding_an_encoded_object_gives_back_its_verdict_and_diagnosis)
{
	void (*makers[])(struct hk_verdict *, struct hk_diagnosis *) = { full_verdict,
									  empty_verdict };
	const char *names[] = { "every member set", "every nullable member null" };
	for (size_t m = 0; m < HK_ARRAY_LEN(makers); m++) {
		struct hk_verdict v;
		struct hk_diagnosis d;
		makers[m](&v, &d);
		struct hk_buf b = HK_BUF_INIT;
		hk_evobj_encode(&v, &d, &b);
		struct hk_evobj o;
		struct hk_error err = { 0 };
		if (hk_evobj_decode_bytes(b.data, b.len, &o, &err) < 0) {
			HK_FAIL_AT("%s: %s", names[m], err.msg);
		} else {
			struct hk_buf diff = HK_BUF_INIT;
			differences(&v, &d, &o.verdict, &o.diag, &diff);
			if (diff.len)
				HK_FAIL_AT("%s: decoding changed %s", names[m], hk_buf_str(&diff));
			hk_buf_free(&diff);
			/* The blind spots, as data: the writer's, and the collapsed directories'
			 * where there were some. */
			CHECK_EQ_INT(hk_n_blind_spots + (v.collapsed_dirs > 0), o.n_blind_spots);
			CHECK_STR_EQ(hk_blind_spots[0].code, o.blind_spots[0].code);
			CHECK_STR_EQ(hk_blind_spots[0].text, o.blind_spots[0].text);
			hk_evobj_free(&o);
		}
		hk_buf_free(&b);
		free_pair(&v, &d);
	}
	/* Control: the comparison sees a member that differs. */
	struct hk_verdict a, b;
	struct hk_diagnosis da, db;
	full_verdict(&a, &da);
	full_verdict(&b, &db);
	struct hk_buf diff = HK_BUF_INIT;
	differences(&a, &da, &b, &db, &diff);
	CHECK_STR_EQ("", hk_buf_str(&diff));
	b.denials[1].path[2] = 'c';
	db.items[3].reason[0] = 'H';
	hk_buf_free(&diff);
	differences(&a, &da, &b, &db, &diff);
	CHECK_STR_EQ("denials[].path, diagnosis[].reason", hk_buf_str(&diff));
	hk_buf_free(&diff);
	free_pair(&a, &da);
	free_pair(&b, &db);
}

static char *data_path(const char *name)
{
	const char *tests = getenv("HARKAQ_TESTS");
	return hk_xasprintf("%s/data/evobj/%s", tests && *tests ? tests : "tests", name);
}

/* Objects that real builds wrote (tests/data/evobj): decoding and encoding again gives the
 * same bytes. */
TEST(real_objects_decode_and_encode_back_to_their_bytes)
{
	const char *files[] = { "impure-probe-compile.json", "noevidence-forced-abi-configure.json",
				"impure-failed-dsc-build.json", "hermetic-zlib-install.json" };
	for (size_t f = 0; f < HK_ARRAY_LEN(files); f++) {
		hk_autofree char *path = data_path(files[f]);
		struct hk_buf bytes = HK_BUF_INIT, again = HK_BUF_INIT;
		struct hk_error err = { 0 };
		struct hk_evobj o;
		if (hk_file_read(path, &bytes, &err) < 0) {
			HK_FAIL_AT("%s (run from the repository root, or set HARKAQ_TESTS)", err.msg);
			continue;
		}
		if (hk_evobj_decode_bytes(bytes.data, bytes.len, &o, &err) < 0) {
			HK_FAIL_AT("%s: %s", files[f], err.msg);
			hk_buf_free(&bytes);
			continue;
		}
		hk_evobj_encode(&o.verdict, &o.diag, &again);
		if (again.len != bytes.len || memcmp(again.data, bytes.data, bytes.len) != 0)
			HK_FAIL_AT("%s: encoding the decoded object gives other bytes", files[f]);
		/* What each was chosen for was read. */
		if (f == 0) {
			CHECK_EQ_INT(HK_IMPURE, o.verdict.state);
			CHECK_EQ_INT(7, o.verdict.n_denials);
			CHECK(o.verdict.denials[6].has_opid && !o.verdict.denials[6].has_path);
			CHECK_EQ_INT(2, o.diag.items[0].n_providers);
			CHECK_EQ_INT(HK_PROVIDES_ALIAS, o.diag.items[0].providers[1].how);
			CHECK_EQ_INT(1, o.diag.n_policy_bug);
			CHECK_EQ_INT(3, o.diag.n_declarable);   /* dd's two denials count once */
			CHECK_EQ_INT(1, o.verdict.collapsed_dirs);
		} else if (f == 1) {
			CHECK_EQ_INT(HK_NOEVIDENCE, o.verdict.state);
			CHECK(hk_verdict_has_reason(&o.verdict, HK_REASON_FORCED_ABI));
			CHECK_EQ_INT(6, o.verdict.abi);
		} else if (f == 2) {
			CHECK(o.verdict.has_exit_code && o.verdict.exit_code == 2);
			CHECK_EQ_INT(1, o.diag.n_expected);
			CHECK_STR_EQ("build", o.verdict.phase);
		} else {
			CHECK_EQ_INT(HK_HERMETIC, o.verdict.state);
			CHECK(o.verdict.artifact_hash != NULL && o.verdict.base.pinned);
		}
		hk_evobj_free(&o);
		hk_buf_free(&bytes);
		hk_buf_free(&again);
	}
}

/* The object with `from` replaced by `to`: it still passes hk_evobj_check (so the decoder is
 * what refuses it); returns hk_evobj_decode_bytes' result, its message in msg. */
static int decode_mutated(const struct hk_buf *orig, const char *from, const char *to, char *msg,
			  size_t msg_len)
{
	char *at = strstr(orig->data, from);
	if (!at) {
		HK_FAIL_AT("'%s' is not in the object", from);
		return 0;
	}
	struct hk_buf m = HK_BUF_INIT;
	hk_buf_append(&m, orig->data, (size_t)(at - orig->data));
	hk_buf_puts(&m, to);
	hk_buf_puts(&m, at + strlen(from));
	struct hk_error err = { 0 };
	if (hk_evobj_check(m.data, m.len, NULL, NULL, &err) < 0)
		HK_FAIL_AT("'%s' -> '%s' is refused before decoding: %s", from, to, err.msg);
	struct hk_evobj o;
	int r = hk_evobj_decode_bytes(m.data, m.len, &o, &err);
	snprintf(msg, msg_len, "%s", r < 0 ? err.msg : "");
	if (r == 0)
		hk_evobj_free(&o);
	hk_buf_free(&m);
	return r;
}

TEST(a_malformed_object_is_refused_naming_the_member)
{
	struct hk_verdict v;
	struct hk_diagnosis d;
	full_verdict(&v, &d);
	struct hk_buf b = HK_BUF_INIT;
	hk_evobj_encode(&v, &d, &b);
	free_pair(&v, &d);
	struct hk_evobj o;
	struct hk_error err = { 0 };
	/* Control: the same object, unmodified, decodes. */
	REQUIRE(hk_evobj_decode_bytes(b.data, b.len, &o, &err) == 0);
	hk_evobj_free(&o);

	static const struct {
		const char *from, *to, *named;
	} cases[] = {
		{ "\"state\":\"NoEvidence\"", "\"state\":\"Hermetic\"", "member 'state' has reasons" },
		{ "\"state\":\"NoEvidence\"", "\"state\":\"Unvouched\"", "member 'state' is not one of" },
		{ "\"code\":\"records_lost\"", "\"code\":\"records_gone\"", "'reasons[0].code'" },
		{ "\"abi\":6", "\"abi\":-6", "'abi' is -6" },
		{ "\"deps_sealed\":\"some\"", "\"deps_sealed\":\"most\"", "'deps_sealed'" },
		{ "\"pinned\":true", "\"pinned\":1", "'base.pinned'" },
		{ "\"domain\":\"3a5374efb\"", "\"domain\":\"03a5374efb\"", "'canary.domain'" },
		{ "\"seen\":true", "\"seen\":false", "'canary.domain' is not null" },
		{ "\"kernel\":{\"denials\":9", "\"kernel\":{\"denials\":\"9\"", "'kernel.denials'" },
		{ "\"class\":\"debt\"", "\"class\":\"owed\"", "'denials[0].class'" },
		{ "\"blockers\":\"fs.read_file\"", "\"blockers\":7", "'denials[0].blockers'" },
		{ "\"count\":3", "\"count\":0", "'denials[0].count' is 0" },
		{ "\"dev\":\"overlay\",\"ino\":42", "\"ino\":42,\"dev\":\"overlay\"",
		  "'denials[0]' has 'ino' where 'dev' belongs" },
		{ "{\"hex\":\"2f746d702f78e9\"}", "{\"hex\":\"2F746D702F78E9\"}", "'denials[0].path'" },
		{ "\"exit_code\":137", "\"exit_code\":\"137\"", "'exit_code'" },
		{ "\"denial\":1,", "\"denial\":2,", "'diagnosis[1].denial'" },
		{ "\"denial\":3,\"class\":\"expected\"", "\"denial\":3,\"class\":\"irreducible\"",
		  "'diagnosis[3].class'" },
		{ "\"origin\":\"deb\"", "\"origin\":\"ppa\"", "'diagnosis[0].providers[0].origin'" },
		{ "\"origin\":\"deb\"}", "\"origin\":\"deb\",\"note\":1}",
		  "'diagnosis[0].providers[0]' has a member 'note'" },
		{ "\"how\":\"alias\"", "\"how\":\"copy\"", "'diagnosis[0].providers[1].how'" },
		{ "\"via\":{\"hex\":\"2f7573722f62696e2f6de46b65\"}", "\"via\":{\"hex\":\"2f00\"}",
		  "'diagnosis[0].providers[1].via' holds a NUL" },
		{ "\"phase\":\"build\"", "\"phase\":\"bu\\u0000ild\"", "'phase' holds U+0000" },
		{ "\"kind\":\"harkaq.verdict.v1\"", "\"kind\":\"harkaq.verdict.v1\\u0000x\"",
		  "member 'kind'" },
		{ "\"text\":\"185 directories", "\"text\":\"many directories",
		  "'blind_spots[10].text'" },
	};
	char msg[HK_ERROR_MSG_MAX];
	for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
		int r = decode_mutated(&b, cases[i].from, cases[i].to, msg, sizeof(msg));
		if (r != -EBADMSG)
			HK_FAIL_AT("'%s' -> '%s' decoded (%d)", cases[i].from, cases[i].to, r);
		else if (!strstr(msg, cases[i].named))
			HK_FAIL_AT("'%s' -> '%s': \"%s\" does not say %s", cases[i].from,
				   cases[i].to, msg, cases[i].named);
	}
	hk_buf_free(&b);
}
