/* How a pinned base is made, as values (core/debian/base_making.h): the words a request is
 * checked by, the version read from debian_version, and the provenance written and read back
 * by its one codec. */
#include "harness.h"

#include <errno.h>

#include "core/debian/base_making.h"
#include "core/basic/util.h"

static struct hk_base_making good(void)
{
	static const char *const inc[] = { "gcc-12,make", "zlib1g-dev" };
	return (struct hk_base_making){
		.name = "debian-12-buildd", .variant = "buildd", .suite = "bookworm",
		.mirror = HK_BASE_DEFAULT_MIRROR, .source_date_epoch = "1686355200",
		.includes = inc, .n_includes = 2,
	};
}

TEST(a_well_formed_request_passes_the_check)
{
	struct hk_base_making m = good();
	struct hk_error err = { 0 };
	CHECK_EQ_INT(0, hk_base_making_check(&m, &err));
	m.mirror = "file:///srv/mirror";
	m.suite = "trixie-backports";
	CHECK_EQ_INT(0, hk_base_making_check(&m, &err));
}

TEST(each_word_of_a_request_is_refused_by_its_own_rule_as_a_usage_error)
{
	static const struct {
		const char *field, *value, *says;
	} bad[] = {
		{ "name", "../base", "not a valid base name" },
		{ "name", "", "not a valid base name" },
		{ "variant", "custom", "unknown variant 'custom'" },
		{ "suite", "Bookworm", "not a Debian suite name" },
		{ "suite", "bookworm main", "not a Debian suite name" },
		{ "mirror", "ftp://x", "not an http, https or file URL" },
		{ "include", "gcc,,make", "not a comma-separated list" },
		{ "include", "-x", "not a comma-separated list" },
		{ "include", "a;rm", "not a comma-separated list" },
		{ "epoch", "yesterday", "not a number of seconds" },
		{ "epoch", "", "not a number of seconds" },
	};
	for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
		struct hk_base_making m = good();
		const char *inc[1] = { bad[i].value };
		if (strcmp(bad[i].field, "name") == 0)
			m.name = bad[i].value;
		else if (strcmp(bad[i].field, "variant") == 0)
			m.variant = bad[i].value;
		else if (strcmp(bad[i].field, "suite") == 0)
			m.suite = bad[i].value;
		else if (strcmp(bad[i].field, "mirror") == 0)
			m.mirror = bad[i].value;
		else if (strcmp(bad[i].field, "include") == 0)
			m.includes = inc, m.n_includes = 1;
		else
			m.source_date_epoch = bad[i].value;
		struct hk_error err = { 0 };
		if (hk_base_making_check(&m, &err) != -EINVAL || err.cls != HK_ERROR_USAGE ||
		    !strstr(err.msg, bad[i].says))
			HK_FAIL_AT("%s '%s': got '%s'", bad[i].field, bad[i].value, err.msg);
	}
}

TEST(the_version_is_the_first_line_of_debian_version_made_a_label)
{
	char *v = hk_base_version_from("12.12\n");
	CHECK_STR_EQ("12.12", v);
	free(v);
	v = hk_base_version_from("forky/sid\nignored\n");
	CHECK_STR_EQ("forky_sid", v);
	free(v);
	v = hk_base_version_from("");
	CHECK_STR_EQ("unknown", v);
	free(v);
}

TEST(the_sources_list_names_the_suite_on_the_default_mirror)
{
	char *s = hk_base_sources_list("trixie");
	CHECK_STR_EQ("deb " HK_BASE_DEFAULT_MIRROR " trixie main\n", s);
	free(s);
}

TEST(the_provenance_written_is_the_provenance_read)
{
	struct hk_base_making m = good();
	char n1[] = "base-files", v1[] = "12.4", n2[] = "make", v2[] = "4.3-4.1", arch[] = "amd64";
	struct hk_deb_pkg items[] = { { n1, v1, arch }, { n2, v2, arch } };
	struct hk_deb_pkglist pkgs = { items, 2 };
	char *source = hk_base_provenance_json(&m, "mmdebstrap", &pkgs);
	/* The bytes are the identity's: a change of order or spelling changes every base id. */
	CHECK_STR_EQ("{\"type\":\"base\",\"tool\":\"mmdebstrap\",\"variant\":\"buildd\","
		     "\"suite\":\"bookworm\",\"mirror\":\"http://deb.debian.org/debian\","
		     "\"source_date_epoch\":\"1686355200\",\"include\":[\"gcc-12,make\","
		     "\"zlib1g-dev\"],\"packages\":[[\"base-files\",\"12.4\",\"amd64\"],"
		     "[\"make\",\"4.3-4.1\",\"amd64\"]]}", source);
	struct hk_artifact a = { 0 };
	char *meta = hk_xasprintf("{\"name\":\"debian-12-buildd\",\"source\":%s}", source);
	char meta_path[] = "meta";
	a.meta_json = meta;
	a.meta_path = meta_path;
	struct hk_base_info info;
	struct hk_error err = { 0 };
	REQUIRE(hk_base_info_read(&a, &info, &err) == 0);
	CHECK_STR_EQ("buildd", info.variant);
	CHECK_STR_EQ("bookworm", info.suite);
	CHECK_STR_EQ(HK_BASE_DEFAULT_MIRROR, info.mirror);
	CHECK_STR_EQ("mmdebstrap", info.tool);
	CHECK_EQ_INT(2, info.n_packages);
	hk_base_info_free(&info);
	free(meta);
	free(source);
}
