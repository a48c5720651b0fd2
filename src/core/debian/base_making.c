/* How a pinned base is made, as values (base_making.h). */
#include "core/debian/base_making.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/util.h"
#include "core/formats/json.h"
#include "core/formats/store_names.h"

static const char *const variants[] = { "essential", "minbase", "apt", "buildd" };

bool hk_base_variant_known(const char *variant)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(variants); i++)
		if (strcmp(variants[i], variant) == 0)
			return true;
	return false;
}

bool hk_base_suite_valid(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

bool hk_base_includes_valid(const char *s)
{
	bool start = true;
	for (; *s; s++) {
		bool alnum = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9');
		if (*s == ',') {
			if (start)
				return false;
			start = true;
		} else if (start) {
			if (!alnum)
				return false;
			start = false;
		} else if (!alnum && *s != '+' && *s != '.' && *s != '-') {
			return false;
		}
	}
	return !start;
}

bool hk_base_mirror_valid(const char *m)
{
	return strncmp(m, "http://", 7) == 0 || strncmp(m, "https://", 8) == 0 ||
	       strncmp(m, "file://", 7) == 0;
}

int hk_base_making_check(const struct hk_base_making *m, struct hk_error *err)
{
	if (!m->name || !hk_artifact_name_valid(m->name))
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
				  "'%s' is not a valid base name (letters, digits, '+', '.', '_' "
				  "and '-', starting with a letter or digit)", m->name ? m->name : "");
	if (!hk_base_variant_known(m->variant))
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
				  "unknown variant '%s' (essential, minbase, apt or buildd)",
				  m->variant);
	if (!hk_base_suite_valid(m->suite))
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL, "'%s' is not a Debian suite name",
				  m->suite);
	if (!hk_base_mirror_valid(m->mirror))
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
				  "the mirror '%s' is not an http, https or file URL", m->mirror);
	for (size_t i = 0; i < m->n_includes; i++)
		if (!hk_base_includes_valid(m->includes[i]))
			return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
					  "--include '%s' is not a comma-separated list of Debian "
					  "package names", m->includes[i]);
	const char *e = m->source_date_epoch;
	if (!e || !*e || strspn(e, "0123456789") != strlen(e) || strlen(e) > 19)
		return hk_fail_as(err, HK_ERROR_USAGE, EINVAL,
				  "SOURCE_DATE_EPOCH '%s' is not a number of seconds", e ? e : "");
	return 0;
}

const char *const HK_BASE_EMPTIED[] = { "dev" };
const size_t HK_BASE_N_EMPTIED = HK_ARRAY_LEN(HK_BASE_EMPTIED);
const char *const HK_BASE_REMOVED[] = { "etc/resolv.conf", "etc/hostname" };
const size_t HK_BASE_N_REMOVED = HK_ARRAY_LEN(HK_BASE_REMOVED);

char *hk_base_sources_list(const char *suite)
{
	return hk_xasprintf("deb " HK_BASE_DEFAULT_MIRROR " %s main\n", suite);
}

char *hk_base_version_from(const char *text)
{
	size_t n = strcspn(text, "\n");
	if (n == 0)
		return hk_xstrdup("unknown");
	char *v = hk_xstrndup(text, n);
	for (char *c = v; *c; c++)
		if (*c == ' ' || *c == '/')
			*c = '_';
	return v;
}

char *hk_base_provenance_json(const struct hk_base_making *m, const char *tool,
			      const struct hk_deb_pkglist *pkgs)
{
	struct hk_buf out = HK_BUF_INIT;
	struct hk_json j;
	hk_json_init(&j, &out, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "type");
	hk_json_str(&j, "base");
	hk_json_key(&j, "tool");
	hk_json_str(&j, tool);
	hk_json_key(&j, "variant");
	hk_json_str(&j, m->variant);
	hk_json_key(&j, "suite");
	hk_json_str(&j, m->suite);
	hk_json_key(&j, "mirror");
	hk_json_str(&j, m->mirror);
	hk_json_key(&j, "source_date_epoch");
	hk_json_str(&j, m->source_date_epoch);
	hk_json_key(&j, "include");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < m->n_includes; i++)
		hk_json_str(&j, m->includes[i]);
	hk_json_arr_end(&j);
	hk_json_key(&j, "packages");
	hk_json_arr_begin(&j);
	for (size_t i = 0; i < pkgs->n; i++) {
		hk_json_arr_begin(&j);
		hk_json_str(&j, pkgs->items[i].name);
		hk_json_str(&j, pkgs->items[i].version);
		hk_json_str(&j, pkgs->items[i].arch);
		hk_json_arr_end(&j);
	}
	hk_json_arr_end(&j);
	hk_json_obj_end(&j);
	return hk_buf_steal(&out);
}

static char *dup_member(const struct hk_jval *obj, const char *key)
{
	const char *v = hk_jobj_str(obj, key);
	return v ? hk_xstrdup(v) : NULL;
}

int hk_base_info_read(const struct hk_artifact *a, struct hk_base_info *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_jval *v = NULL;
	int r = hk_json_parse(a->meta_json, strlen(a->meta_json), &v, err);
	if (r < 0)
		return hk_wrap(err, "%s", a->meta_path);
	const struct hk_jval *src = hk_jobj_get(v, "source");
	out->variant = dup_member(src, "variant");
	out->suite = dup_member(src, "suite");
	out->mirror = dup_member(src, "mirror");
	out->tool = dup_member(src, "tool");
	const struct hk_jval *pkgs = hk_jobj_get(src, "packages");
	out->n_packages = pkgs && pkgs->type == HK_JARR ? pkgs->len : 0;
	hk_jval_free(v);
	return 0;
}

void hk_base_info_free(struct hk_base_info *i)
{
	free(i->variant);
	free(i->suite);
	free(i->mirror);
	free(i->tool);
	memset(i, 0, sizeof(*i));
}

/* JSON null for a NULL string. */
static void str_or_null(struct hk_json *j, const char *s)
{
	if (s)
		hk_json_str(j, s);
	else
		hk_json_null(j);
}

void hk_base_list_entry_json(struct hk_json *j, const struct hk_artifact *a, const char *tag,
			     const struct hk_base_info *info)
{
	hk_json_obj_begin(j);
	hk_json_key(j, "id");
	hk_json_str(j, a->id);
	hk_json_key(j, "name");
	hk_json_str(j, a->name);
	hk_json_key(j, "version");
	hk_json_str(j, a->version);
	hk_json_key(j, "tag");
	str_or_null(j, tag);
	hk_json_key(j, "variant");
	str_or_null(j, info->variant);
	hk_json_key(j, "suite");
	str_or_null(j, info->suite);
	hk_json_key(j, "packages");
	hk_json_uint(j, info->n_packages);
	hk_json_key(j, "files");
	hk_json_uint(j, a->file_count);
	hk_json_obj_end(j);
}
