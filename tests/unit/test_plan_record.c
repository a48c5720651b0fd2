/* Kept plans (core/policy/plan_record.h): a kept policy reads back as the policy derived, with the
 * id it was derived as; a kept record that was changed, truncated or kept under another key
 * is refused; and every input of a derivation changes its key, while the same inputs give
 * the same key (the positive control of each negative). */
#include "core/policy/plan_record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/util.h"
#include "harness.h"

#define KEY_A "b3:1111111111111111111111111111111111111111111111111111111111111111"
#define KEY_B "b3:2222222222222222222222222222222222222222222222222222222222222222"

/* A policy derived as a build derives one: contract surfaces, a closure with a file, a
 * link to it and a dangling link, a base runtime, an expectation. */
static void derived(struct hk_plan_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->policy = (struct hk_policy)HK_POLICY_INIT;
	hk_policy_set_base(&rec->policy, KEY_B);
	hk_policy_add_grant(&rec->policy, HK_GRANT_RW, "/src");
	hk_policy_add_grant(&rec->policy, HK_GRANT_LIST, "/");
	const struct hk_derive_entry closure[] = {
		{ "/usr/include/zlib.h", NULL, "zlib" },
		{ "/usr/lib/libz.so", "libz.so.1", "zlib" },
		{ "/usr/lib/libz.so.1", NULL, "zlib" },
		{ "/usr/lib/libgone.so", "/usr/lib/gone/libgone.so.9", "zlib" },
		{ "/usr/share/doc/with space", NULL, "zlib" },
	};
	struct hk_strset runtime = HK_STRSET_INIT;
	hk_strset_add(&runtime, "/usr/bin/dash");
	const char *expects[] = { "/usr/bin/gcc" };
	struct hk_derive_input in = {
		.closure = closure,
		.n_closure = HK_ARRAY_LEN(closure),
		.base_runtime = &runtime,
		.expects = expects,
		.n_expects = 1,
		.scopes = HK_SCOPE_ABSTRACT_UNIX_SOCKET | HK_SCOPE_SIGNAL,
	};
	struct hk_error err;
	int rc = hk_derive_policy(&in, &rec->policy, &rec->report, &err);
	hk_strset_free(&runtime);
	REQUIRE(rc == 0);
	hk_policy_id(&rec->policy, rec->policy_id);
	rec->n_closure = 3;
	rec->n_base_packages = 12;
	rec->n_unmerged = 4;
}

TEST(a_kept_policy_reads_back_as_the_policy_derived)
{
	struct hk_plan_record rec, back;
	derived(&rec);
	REQUIRE(rec.report.dangling.len == 1);
	struct hk_buf text = HK_BUF_INIT;
	hk_plan_record_encode(&rec, KEY_A, &text);
	struct hk_error err;
	REQUIRE(hk_plan_record_decode(text.data, text.len, KEY_A, "kept", &back, &err) == 0);
	CHECK(hk_policy_equal(&rec.policy, &back.policy));
	CHECK_STR_EQ(rec.policy_id, back.policy_id);
	char again[HK_B3_ID_LEN];
	hk_policy_id(&back.policy, again);
	CHECK_STR_EQ(rec.policy_id, again);
	CHECK_STR_EQ(KEY_B, back.policy.base);
	CHECK_EQ_INT(rec.report.files, back.report.files);
	CHECK_EQ_INT(rec.report.symlinks, back.report.symlinks);
	CHECK_EQ_INT(rec.report.base_runtime, back.report.base_runtime);
	CHECK_EQ_INT(1, back.report.dangling.len);
	CHECK(hk_strset_contains(&back.report.dangling, rec.report.dangling.items[0]));
	CHECK_EQ_INT(3, back.n_closure);
	CHECK_EQ_INT(12, back.n_base_packages);
	CHECK_EQ_INT(4, back.n_unmerged);
	for (size_t i = 0; i < back.policy.n_grants; i++)
		CHECK_EQ_INT(0, back.policy.grants[i].line);
	hk_plan_record_free(&back);
	hk_plan_record_free(&rec);
	hk_buf_free(&text);
}

/* The text of rec kept under KEY_A, with `from` replaced by `to` once. */
static char *edited(const struct hk_plan_record *rec, const char *from, const char *to)
{
	struct hk_buf text = HK_BUF_INIT;
	hk_plan_record_encode(rec, KEY_A, &text);
	const char *s = hk_buf_str(&text);
	const char *at = strstr(s, from);
	if (!at)
		abort();
	char *out = hk_xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	hk_buf_free(&text);
	return out;
}

TEST(a_kept_policy_whose_grants_changed_is_refused)
{
	struct hk_plan_record rec, back;
	derived(&rec);
	struct hk_error err;
	/* The control: the same edit machinery, changing nothing, reads back. */
	hk_autofree char *same = edited(&rec, "ro /usr/include/zlib.h", "ro /usr/include/zlib.h");
	CHECK_EQ_INT(0, hk_plan_record_decode(same, strlen(same), KEY_A, "kept", &back, &err));
	hk_plan_record_free(&back);
	/* Another header granted in its place: a valid policy, but not the one derived. */
	hk_autofree char *other = edited(&rec, "ro /usr/include/zlib.h", "ro /usr/include/zlia.h");
	CHECK_EQ_INT(-EBADMSG, hk_plan_record_decode(other, strlen(other), KEY_A, "kept", &back,
						     &err));
	CHECK_CONTAINS(err.msg, "kept: the kept policy hashes to b3:");
	CHECK_CONTAINS(err.msg, rec.policy_id);
	CHECK_EQ_INT(0, back.policy.n_grants);
	/* A grant removed: the length recorded no longer matches. */
	hk_autofree char *shorter = edited(&rec, "ro /usr/include/zlib.h\n", "");
	CHECK_EQ_INT(-EBADMSG, hk_plan_record_decode(shorter, strlen(shorter), KEY_A, "kept",
						     &back, &err));
	hk_plan_record_free(&rec);
}

TEST(a_record_kept_under_another_key_or_cut_short_is_refused)
{
	struct hk_plan_record rec, back;
	derived(&rec);
	struct hk_buf text = HK_BUF_INIT;
	hk_plan_record_encode(&rec, KEY_A, &text);
	struct hk_error err;
	CHECK_EQ_INT(0, hk_plan_record_decode(text.data, text.len, KEY_A, "kept", &back, &err));
	hk_plan_record_free(&back);
	CHECK_EQ_INT(-EBADMSG, hk_plan_record_decode(text.data, text.len, KEY_B, "kept", &back,
						     &err));
	CHECK_CONTAINS(err.msg, "kept:2: kept under another key");
	for (size_t cut = 0; cut < text.len; cut += 97)
		CHECK_EQ_INT(-EBADMSG, hk_plan_record_decode(text.data, cut, KEY_A, "kept", &back,
							     &err));
	/* Bytes after the policy's text. */
	hk_buf_puts(&text, "ro /etc/shadow\n");
	CHECK_EQ_INT(-EBADMSG, hk_plan_record_decode(text.data, text.len, KEY_A, "kept", &back,
						     &err));
	hk_buf_free(&text);
	hk_plan_record_free(&rec);
}

/* ---- keys ---- */

struct key_fixture {
	const char *closure[3];
	const char *wanted[2];
	const char *expects[1];
	struct hk_policy contract;
	struct hk_plan_key_input in;
};

static void key_fixture(struct key_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->closure[0] = "aaaa-zlib1g";
	f->closure[1] = "bbbb-zlib1g-dev";
	f->closure[2] = "cccc-dpkg-state";
	f->wanted[0] = "libc6";
	f->wanted[1] = "libgcc-s1";
	f->expects[0] = "/usr/bin/gcc";
	f->contract = (struct hk_policy)HK_POLICY_INIT;
	hk_policy_add_grant(&f->contract, HK_GRANT_RW, "/src");
	hk_policy_add_grant(&f->contract, HK_GRANT_RO, "/var/lib/dpkg/status");
	struct hk_error err;
	if (hk_policy_finish(&f->contract, &err) < 0)
		abort();
	f->in = (struct hk_plan_key_input){
		.code_id = KEY_A,
		.base_id = KEY_B,
		.profile = "autotools",
		.closure = f->closure,
		.n_closure = 3,
		.base_wanted = f->wanted,
		.n_base_wanted = 2,
		.contract = &f->contract,
		.expects = f->expects,
		.n_expects = 1,
		.scopes = HK_SCOPE_ABSTRACT_UNIX_SOCKET | HK_SCOPE_SIGNAL,
	};
}

static void add_surface(struct hk_policy *contract, const char *path)
{
	struct hk_error err;
	hk_policy_add_grant(contract, HK_GRANT_RW, path);
	if (hk_policy_finish(contract, &err) < 0)
		abort();
}

TEST(the_same_inputs_give_the_same_key_and_every_input_changes_it)
{
	struct key_fixture f, g;
	key_fixture(&f);
	char k0[HK_B3_ID_LEN], k[HK_B3_ID_LEN];
	hk_plan_key(&f.in, k0);
	/* Positive control: the same inputs, built again, and the base packages in another
	 * order (a set), give the same key. */
	key_fixture(&g);
	g.wanted[0] = "libgcc-s1";
	g.wanted[1] = "libc6";
	hk_plan_key(&g.in, k);
	CHECK_STR_EQ(k0, k);
	hk_policy_free(&g.contract);

#define VARY(what, change)                                                                 \
	do {                                                                               \
		key_fixture(&g);                                                           \
		change;                                                                    \
		hk_plan_key(&g.in, k);                                                     \
		if (strcmp(k, k0) == 0)                                                    \
			HK_FAIL_AT("the key does not change with %s", what);               \
		hk_policy_free(&g.contract);                                               \
	} while (0)
	VARY("the program", g.in.code_id = KEY_B);
	VARY("the base", g.in.base_id = KEY_A);
	VARY("the profile", g.in.profile = "minimal");
	VARY("a closure artifact", g.closure[1] = "bbbc-zlib1g-dev");
	VARY("the closure's order", (g.closure[0] = "bbbb-zlib1g-dev", g.closure[1] = "aaaa-zlib1g"));
	VARY("a closure one shorter", g.in.n_closure = 2);
	VARY("a base package", g.wanted[1] = "libgcc-s2");
	VARY("a base package fewer", g.in.n_base_wanted = 1);
	VARY("an expectation", g.expects[0] = "/usr/bin/cc");
	VARY("no expectation", g.in.n_expects = 0);
	VARY("the scopes", g.in.scopes = HK_SCOPE_SIGNAL);
	VARY("a contract surface", add_surface(&g.contract, "/cache"));
	VARY("no contract", g.in.contract = NULL);
	/* Lengths are part of the serialisation: a value cannot run into the next. */
	VARY("a name moved between two fields",
	     (g.closure[0] = "aaaa-zlib1gbbbb-zlib1g-dev", g.closure[1] = "", g.in.n_closure = 2));
#undef VARY
	hk_policy_free(&f.contract);
}

TEST(a_collapse_key_changes_with_the_policy_the_view_the_plan_and_the_program)
{
	char k0[HK_B3_ID_LEN], k[HK_B3_ID_LEN];
	hk_plan_collapse_key(KEY_A, KEY_B, KEY_A, KEY_B, k0);
	hk_plan_collapse_key(KEY_A, KEY_B, KEY_A, KEY_B, k);
	CHECK_STR_EQ(k0, k);
	hk_plan_collapse_key(KEY_B, KEY_B, KEY_A, KEY_B, k);
	CHECK(strcmp(k0, k) != 0);
	hk_plan_collapse_key(KEY_A, KEY_A, KEY_A, KEY_B, k);
	CHECK(strcmp(k0, k) != 0);
	hk_plan_collapse_key(KEY_A, KEY_B, KEY_B, KEY_B, k);
	CHECK(strcmp(k0, k) != 0);
	hk_plan_collapse_key(KEY_A, KEY_B, KEY_A, NULL, k);
	CHECK(strcmp(k0, k) != 0);
}

/* ---- collapse records ---- */

static void some_dirs(struct hk_strset *dirs, struct hk_collapse_stats *st)
{
	*dirs = (struct hk_strset)HK_STRSET_INIT;
	hk_strset_add(dirs, "/usr/share/perl5");
	hk_strset_add(dirs, "/usr/include/linux");
	hk_strset_add(dirs, "/usr/share/odd dir");
	hk_strset_sort(dirs);
	*st = (struct hk_collapse_stats){ .dirs = dirs->len, .covered = 812, .base_dirs_read = 40 };
}

TEST(a_kept_collapse_plan_reads_back_and_a_changed_one_is_refused)
{
	struct hk_strset dirs, back = HK_STRSET_INIT;
	struct hk_collapse_stats st, bst;
	some_dirs(&dirs, &st);
	struct hk_buf text = HK_BUF_INIT;
	hk_collapse_record_encode(&dirs, &st, KEY_A, &text);
	struct hk_error err;
	REQUIRE(hk_collapse_record_decode(text.data, text.len, KEY_A, "kept", &back, &bst, &err) == 0);
	REQUIRE(back.len == 3);
	for (size_t i = 0; i < 3; i++)
		CHECK_STR_EQ(dirs.items[i], back.items[i]);
	CHECK_EQ_INT(3, bst.dirs);
	CHECK_EQ_INT(812, bst.covered);
	CHECK_EQ_INT(40, bst.base_dirs_read);
	/* Another directory in the place of one planned: its checksum no longer matches. */
	const char *s = hk_buf_str(&text);
	const char *at = strstr(s, "/usr/share/perl5");
	REQUIRE(at);
	hk_autofree char *other = hk_xasprintf("%.*s/usr/share/perl6%s", (int)(at - s), s,
					       at + strlen("/usr/share/perl5"));
	CHECK_EQ_INT(-EBADMSG, hk_collapse_record_decode(other, strlen(other), KEY_A, "kept",
							 &back, &bst, &err));
	CHECK_CONTAINS(err.msg, "kept: the kept collapse plan hashes to b3:");
	CHECK_EQ_INT(0, back.len);
	/* A count that does not cover every directory listed. */
	at = strstr(s, "dirs 3\n");
	REQUIRE(at);
	hk_autofree char *fewer = hk_xasprintf("%.*sdirs 2%s", (int)(at - s), s, at + 6);
	CHECK_EQ_INT(-EBADMSG, hk_collapse_record_decode(fewer, strlen(fewer), KEY_A, "kept",
							 &back, &bst, &err));
	/* Another key, a cut text, bytes after the sum. */
	CHECK_EQ_INT(-EBADMSG, hk_collapse_record_decode(text.data, text.len, KEY_B, "kept", &back,
							 &bst, &err));
	CHECK_EQ_INT(-EBADMSG, hk_collapse_record_decode(text.data, text.len - 1, KEY_A, "kept",
							 &back, &bst, &err));
	hk_buf_puts(&text, "/usr\n");
	CHECK_EQ_INT(-EBADMSG, hk_collapse_record_decode(text.data, text.len, KEY_A, "kept", &back,
							 &bst, &err));
	hk_buf_free(&text);
	hk_strset_free(&dirs);
	hk_strset_free(&back);
}
