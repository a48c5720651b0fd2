/* Reading a recipe file (core/policy/recipe_file.h): the file system side of core/policy/recipe.h. */
#include "core/policy/recipe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/basic/util.h"

static int read_small_file(const char *path, char **text, size_t *len, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "cannot open recipe %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return hk_fail_errno(err, errno, "cannot stat recipe %s", path);
	if (!S_ISREG(st.st_mode))
		return hk_fail(err, EINVAL, "recipe %s is not a regular file", path);
	if (st.st_size > HK_RECIPE_FILE_MAX)
		return hk_fail(err, EFBIG, "recipe %s is larger than %d bytes", path,
			       HK_RECIPE_FILE_MAX);
	/* Sized from fstat, but read until EOF: the size is only a hint if the file changes. */
	size_t cap = (size_t)st.st_size + 1;
	hk_autofree char *buf = hk_xmalloc(cap);
	size_t n = 0;
	for (;;) {
		if (n + 1 == cap) {
			cap *= 2;
			buf = hk_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return hk_fail_errno(err, errno, "cannot read recipe %s", path);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > HK_RECIPE_FILE_MAX)
			return hk_fail(err, EFBIG, "recipe %s is larger than %d bytes", path,
				       HK_RECIPE_FILE_MAX);
	}
	buf[n] = '\0';
	*text = hk_steal_ptr(&buf);
	*len = n;
	return 0;
}

int hk_recipe_file_read(const char *path, struct hk_recipe_text *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	hk_autofree char *text = NULL;
	size_t len = 0;
	int rc = read_small_file(path, &text, &len, err);
	if (rc < 0)
		return rc;
	/* The directory of the real file, so a symlinked or relative path still resolves the
	 * recipe's neighbours (its source dir, and the deps the resolver looks up next to it). */
	hk_autofree char *real = realpath(path, NULL);
	if (!real)
		return hk_fail_errno(err, errno, "cannot resolve the path of recipe %s", path);
	char *slash = strrchr(real, '/');
	out->dir = slash == real ? hk_xstrdup("/") : hk_xstrndup(real, (size_t)(slash - real));
	out->real = hk_steal_ptr(&real);
	out->text = hk_steal_ptr(&text);
	out->len = len;
	return 0;
}

void hk_recipe_text_free(struct hk_recipe_text *t)
{
	free(t->text);
	free(t->real);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

int hk_recipe_load(const char *path, struct hk_recipe *out, struct hk_error *err)
{
	memset(out, 0, sizeof(*out));
	struct hk_recipe_text t;
	int rc = hk_recipe_file_read(path, &t, err);
	if (rc < 0)
		return rc;
	rc = hk_recipe_parse(t.text, t.len, path, t.dir, out, err);
	if (rc == 0)
		out->path = hk_steal_ptr(&t.real);
	hk_recipe_text_free(&t);
	return rc;
}
