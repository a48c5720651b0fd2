/* The front end's work directory, and what `harkaq build --dsc` names made a .dsc in it
 * (engine/debian/dsc_int.h; docs/debian-builds.md, "What --dsc takes"): a .dsc file as it is, an unpacked source tree, or a source package of
 * the archive by NAME[=VERSION].
 *
 * A tree is made a source package first, with `dpkg-source -b`, into the work directory, and
 * that .dsc is built as any other, rather than the tree as it is: what the build then reads is
 * exactly what the source package holds (the files a .dsc lists, each checked against its
 * SHA-256 and unpacked afresh by dpkg-source -x), so a tree's leftovers that the source package
 * would not carry cannot make a build pass, and the .dsc's digest, which the result and the
 * attestations name, stands for what was built.  Nothing of the tree is run on the host:
 * dpkg-source only reads it (a 3.0 (quilt) tree whose patches are not applied is patched in
 * place, as dpkg-source -b does for a maintainer). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/debian/dsc_int.h"
#include "engine/build/build.h"
#include "engine/common/proc.h"
#include "core/basic/file.h"
#include "core/basic/util.h"

/* The front end's work directory (in the caller's work_parent, else $TMPDIR, else /var/tmp):
 * the unpacked source, the recipe, the downloaded .debs.  Removed at the end unless --keep. */
int dsc_make_work(struct dsc_build *b)
{
	if (b->work_made)
		return 0;
	const char *parent = b->bo->work_parent;
	if (!parent) {
		const char *tmp = getenv("TMPDIR");
		parent = tmp && *tmp ? tmp : "/var/tmp";
	}
	hk_autofree char *tmpl = hk_xasprintf("%s/harkaq-dsc-XXXXXX", parent);
	if (!mkdtemp(tmpl))
		return hk_fail_errno(b->err, errno, "creating a work directory %s", tmpl);
	b->r->work = hk_xstrdup(tmpl);
	b->work_made = true;
	if (chmod(tmpl, 0755) < 0)
		return hk_fail_errno(b->err, errno, "chmod %s", tmpl);
	b->recipe_dir = hk_xasprintf("%s/recipe", tmpl);
	b->src_parent = hk_xasprintf("%s/src", b->recipe_dir);
	b->debs_dir = hk_xasprintf("%s/debs", tmpl);
	if (mkdir(b->recipe_dir, 0755) < 0 || mkdir(b->src_parent, 0755) < 0 ||
	    mkdir(b->debs_dir, 0755) < 0)
		return hk_fail_errno(b->err, errno, "creating the work directory %s", tmpl);
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* work/dsc: where the source package is made or fetched. */
static int made_dir(struct dsc_build *b, char **out)
{
	int rc = dsc_make_work(b);
	if (rc < 0)
		return rc;
	char *d = hk_xasprintf("%s/dsc", b->r->work);
	if (mkdir(d, 0755) < 0) {
		rc = hk_fail_errno(b->err, errno, "creating %s", d);
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* The one .dsc dpkg-source -b wrote into `dir`. */
static int the_dsc(struct dsc_build *b, const char *dir, const char *tree)
{
	int rc = hk_apt_source_dsc(dir, "", &b->dsc_made, b->err);
	if (rc < 0)
		return hk_fail(b->err, EIO, "dpkg-source -b %s wrote no .dsc", tree);
	return 0;
}

/* Every file of the tree's parent whose name starts with `prefix` and goes on with ".tar." or
 * "-", copied into `dir`. */
static int copy_beside(struct dsc_build *b, const char *tree, const char *dir, const char *prefix)
{
	hk_autofree char *parent = hk_xstrdup(tree);
	char *slash = strrchr(parent, '/');
	if (slash == parent)
		parent[1] = '\0';
	else if (slash)
		*slash = '\0';
	DIR *d = opendir(parent);
	if (!d)
		return 0;   /* nothing beside it to take: dpkg-source says what it misses */
	size_t pl = strlen(prefix);
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, pl) != 0 ||
		    (strncmp(e->d_name + pl, ".tar.", 5) != 0 && e->d_name[pl] != '-'))
			continue;
		hk_autofree char *from = hk_xasprintf("%s/%s", parent, e->d_name);
		struct stat st;
		if (stat(from, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		dsc_say(b, "%s: from beside the tree (%s)", e->d_name, parent);
		rc = hk_spawnl(NULL, true, b->err, "cp", "--reflink=auto", "--", from, dir, NULL);
		if (rc > 0)
			rc = hk_fail(b->err, EIO, "copying %s into the work directory failed", from);
	}
	closedir(d);
	return rc;
}

/* The upstream tarballs of a non-native tree lie beside it (../NAME_UPSTREAM.orig.tar.*, and
 * .orig-COMPONENT.tar.*, with their .asc signatures), where dpkg-source -b looks when it runs
 * in the tree's parent; it runs in work/dsc, so they are copied there first, and lie next to
 * the .dsc it writes, where a .dsc's files lie.  NAME and the upstream version are the first
 * line of debian/changelog's ("hello (2.10-3) unstable; …"); a line that is not so is left for
 * dpkg-source to refuse. */
static int take_orig_tarballs(struct dsc_build *b, const char *tree, const char *dir)
{
	hk_autofree char *path = hk_xasprintf("%s/debian/changelog", tree);
	struct hk_buf text = HK_BUF_INIT;
	struct hk_error ignored;
	if (hk_file_read(path, &text, &ignored) < 0)
		return 0;
	const char *l = hk_buf_str(&text);
	size_t name_len = strcspn(l, " (\n");
	const char *open = l + name_len;
	while (*open == ' ')
		open++;
	int rc = 0;
	if (name_len > 0 && *open == '(') {
		const char *v = open + 1, *close = strchr(v, ')');
		const char *nl = strchr(l, '\n');
		if (close && (!nl || close < nl)) {
			const char *colon = memchr(v, ':', (size_t)(close - v));
			if (colon)
				v = colon + 1;
			const char *end = close;
			for (const char *p = v; p < close; p++)
				if (*p == '-')
					end = p;
			hk_autofree char *prefix = hk_xasprintf("%.*s_%.*s.orig", (int)name_len, l,
								(int)(end - v), v);
			rc = copy_beside(b, tree, dir, prefix);
		}
	}
	hk_buf_free(&text);
	return rc;
}

/* An unpacked source tree: dpkg-source -b into work/dsc. */
static int from_tree(struct dsc_build *b, const char *arg)
{
	char tree[PATH_MAX];
	if (!realpath(arg, tree))
		return hk_fail_errno(b->err, errno, "%s", arg);
	hk_autofree char *control = hk_xasprintf("%s/debian/control", tree);
	struct stat st;
	if (stat(control, &st) < 0 || !S_ISREG(st.st_mode))
		return hk_fail(b->err, EINVAL, "%s is a directory but not an unpacked Debian source "
					       "package: it has no debian/control (--dsc takes a .dsc "
					       "file, a source tree, or NAME[=VERSION])", arg);
	hk_autofree char *dir = NULL;
	int rc = made_dir(b, &dir);
	if (rc < 0)
		return rc;
	dsc_say(b, "the source package of %s, made with dpkg-source -b in %s", tree, dir);
	rc = take_orig_tarballs(b, tree, dir);
	if (rc < 0)
		return rc;
	const char *argv[] = { "dpkg-source", "-b", tree, NULL };
	struct hk_run_result res;
	rc = hk_run_capture(argv, dir, &res, b->err);
	if (rc == 0 && res.status != 0) {
		/* dpkg-source's own words: its error line, else its last. */
		const char *e = strstr(hk_buf_str(&res.errout), "error: ");
		struct hk_buf only = HK_BUF_INIT;
		hk_buf_puts(&only, e ? e : hk_buf_str(&res.errout));
		char line[512];
		rc = hk_fail(b->err, EINVAL, "dpkg-source -b %s refused the tree: %s", tree,
			     hk_first_line(&only, line, sizeof(line)));
		hk_buf_free(&only);
	}
	hk_run_result_free(&res);
	if (rc == 0)
		rc = the_dsc(b, dir, tree);
	if (rc == 0)
		b->r->dsc_made_from = hk_xasprintf("dpkg-source -b %s", tree);
	return rc;
}

/* A source package of the archive: apt-get source --download-only into work/dsc. */
static int from_archive(struct dsc_build *b, const char *spec)
{
	hk_autofree char *dir = NULL;
	int rc = made_dir(b, &dir);
	if (rc < 0)
		return rc;
	dsc_say(b, "apt-get source --download-only %s (into %s)", spec, dir);
	rc = hk_apt_source(dir, spec, true, b->err);
	if (rc == 0) {
		hk_autofree char *name = hk_xstrndup(spec, strcspn(spec, "="));
		rc = hk_apt_source_dsc(dir, name, &b->dsc_made, b->err);
	}
	if (rc == 0)
		b->r->dsc_made_from = hk_xasprintf("apt-get source --download-only %s", spec);
	return rc;
}

int dsc_source_package(struct dsc_build *b)
{
	const char *arg = b->o->dsc_path;
	b->dsc_file = arg;
	struct stat st;
	int rc;
	if (stat(arg, &st) == 0) {
		if (S_ISREG(st.st_mode))
			return 0;   /* a .dsc, which build_dsc.c reads and checks */
		if (!S_ISDIR(st.st_mode))
			return hk_fail(b->err, EINVAL, "%s is neither a .dsc file nor a source tree",
				       arg);
		rc = from_tree(b, arg);
	} else if (errno != ENOENT) {
		return hk_fail_errno(b->err, errno, "%s", arg);
	} else if (strchr(arg, '/') || ends_with(arg, ".dsc")) {
		return hk_fail(b->err, ENOENT, "%s: no such file or directory", arg);
	} else if (!hk_apt_source_spec_ok(arg, false)) {
		return hk_fail(b->err, EINVAL, "'%s' is not a .dsc file, a source tree, nor a "
					       "source package NAME[=VERSION]", arg);
	} else {
		rc = from_archive(b, arg);
	}
	if (rc == 0)
		b->dsc_file = b->dsc_made;
	return rc;
}
