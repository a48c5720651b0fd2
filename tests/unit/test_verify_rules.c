/* The rules a Statement is verified by (core/attest/verify_rules.h): subject names that would
 * leave the tree they are checked against, with hostile names first; the artifact a Statement
 * names; the embedded evidence's refusal. */
#include "harness.h"

#include "core/attest/verify_rules.h"
#include "core/basic/util.h"

TEST(subject_names_inside_the_tree_are_accepted)
{
	CHECK(hk_attest_subject_name_ok("hello"));
	CHECK(hk_attest_subject_name_ok("usr/bin/hello"));
	CHECK(hk_attest_subject_name_ok("usr/share/doc/hello/changelog.Debian.gz"));
	CHECK(hk_attest_subject_name_ok("a b/c d"));      /* spaces are a file's own business */
	CHECK(hk_attest_subject_name_ok("..hidden/x..y")); /* dots inside a name are not ".." */
}

TEST(subject_names_that_leave_the_tree_are_refused)
{
	static const char *const hostile[] = {
		"", "/", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "./a", "a/./b", ".",
		"a//b", "a/", "a/b/", "//a", "a/../b/../..",
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(hostile); i++)
		if (hk_attest_subject_name_ok(hostile[i]))
			HK_FAIL_AT("'%s' was accepted", hostile[i]);
	CHECK(!hk_attest_subject_name_ok(NULL));
}

TEST(the_statement_names_its_artifact_by_the_verdict_or_the_provenance)
{
	struct hk_error err = { 0 };
	struct hk_jval *v = NULL;
	const char *verdict = "{\"predicate\":{\"artifact\":{\"dirname\":\"b3x-zlib\"}}}";
	REQUIRE(hk_json_parse(verdict, strlen(verdict), &v, &err) == 0);
	CHECK_STR_EQ("b3x-zlib", hk_attest_statement_artifact(v));
	hk_jval_free(v);
	const char *prov = "{\"predicate\":{\"runDetails\":{\"byproducts\":["
			   "{\"name\":\"log\",\"uri\":\"harkaq:artifact:nope\"},"
			   "{\"name\":\"artifact\",\"uri\":\"harkaq:artifact:b3y-hello\"}]}}}";
	REQUIRE(hk_json_parse(prov, strlen(prov), &v, &err) == 0);
	CHECK_STR_EQ("b3y-hello", hk_attest_statement_artifact(v));
	hk_jval_free(v);
	const char *none = "{\"predicate\":{\"runDetails\":{\"byproducts\":["
			   "{\"name\":\"artifact\",\"uri\":\"file:///elsewhere\"}]}}}";
	REQUIRE(hk_json_parse(none, strlen(none), &v, &err) == 0);
	CHECK(hk_attest_statement_artifact(v) == NULL);
	hk_jval_free(v);
}

TEST(an_embedded_evidence_object_that_is_not_one_is_refused_naming_the_phase)
{
	struct hk_error err = { 0 };
	struct hk_jval *v = NULL;
	/* Control: a verdict without evidence objects (a phase that never ran) passes. */
	const char *empty = "{\"predicate\":{\"phases\":[{\"phase\":\"configure\",\"evidence\":null}]}}";
	REQUIRE(hk_json_parse(empty, strlen(empty), &v, &err) == 0);
	CHECK_EQ_INT(0, hk_attest_check_embedded_evidence(v, &err));
	hk_jval_free(v);
	const char *forged = "{\"predicate\":{\"phases\":[{\"phase\":\"compile\",\"evidenceId\":"
			     "\"b3:00\",\"evidence\":{\"kind\":\"harkaq.verdict.v1\"}}]}}";
	REQUIRE(hk_json_parse(forged, strlen(forged), &v, &err) == 0);
	CHECK(hk_attest_check_embedded_evidence(v, &err) < 0);
	CHECK(strstr(err.msg, "phase compile") != NULL);
	CHECK_EQ_INT(HK_ERROR_INPUT, err.cls);
	hk_jval_free(v);
}
