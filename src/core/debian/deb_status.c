/* Reading a dpkg status file (core/debian/deb_status.h). */
#include "core/debian/deb_status.h"

#include "core/basic/buf.h"
#include "core/basic/file.h"

int hk_deb_installed_names(const char *status_path, char ***names, size_t *n,
			   struct hk_error *err)
{
	struct hk_buf text = HK_BUF_INIT;
	int r = hk_file_read(status_path, &text, err);
	if (r == 0)
		r = hk_deb_installed_names_parse(hk_buf_str(&text), text.len, status_path, names, n,
						 err);
	hk_buf_free(&text);
	return r;
}

int hk_deb_essential_closure(const char *status_path, char ***names, size_t *n,
			     struct hk_error *err)
{
	struct hk_buf text = HK_BUF_INIT;
	int r = hk_file_read(status_path, &text, err);
	if (r == 0)
		r = hk_deb_essential_closure_parse(hk_buf_str(&text), text.len, status_path, names,
						   n, err);
	hk_buf_free(&text);
	return r;
}
