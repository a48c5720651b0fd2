/* The store view's names, as values (core/store/view_trap.h): pure, beside view.c, which makes the
 * view on disk. */
#include "core/store/view_trap.h"

#include <string.h>

#include "core/basic/util.h"

/* An artifact's directory name starts with the 64 hex digits of its id. */
#define HEX_LEN 64

/* What tools read WHOLE, every entry, failing on the first they cannot open: there one visible
 * and denied file breaks the build of a package that never needed it, so the view shows
 * nothing and a file is either granted (declared) or absent, as on a machine without its
 * package.  Each measured on real Debian builds (docs/debian-corpus.md):
 *   /usr/share/aclocal/          aclocal reads every .m4 to learn which macros exist
 *                                ("cannot open /usr/share/aclocal/pkg.m4: Permission denied");
 *   /etc/ld.so.conf.d/           dpkg-shlibdeps reads every file /etc/ld.so.conf includes
 *                                (libc6-i386's zz_i386-biarch-compat.conf broke dh_shlibdeps);
 *   /usr/lib/python3/dist-packages/ *.egg-info, *.dist-info
 *                                importlib.metadata and pkg_resources read every installed
 *                                distribution's metadata (PermissionError on Babel's PKG-INFO);
 *   /usr/lib32/, /usr/libx32/    dpkg-shlibdeps looks for each needed library in every
 *                                default library directory and reads the ELF header of each
 *                                candidate that exists, to compare its ABI: libc6-i386's
 *                                /usr/lib32/libc.so.6, visible once any closure held it, broke
 *                                the dh_shlibdeps of every later package linking libc ("cannot
 *                                read /usr/lib32/libc.so.6: Permission denied").
 * `suffix`: only entries whose first component beneath `dir` ends so. */
static const struct {
	const char *dir, *suffix;
} scanned[] = {
	{ "/usr/share/aclocal/", NULL },
	{ "/etc/ld.so.conf.d/", NULL },
	{ "/usr/lib/python3/dist-packages/", ".egg-info" },
	{ "/usr/lib/python3/dist-packages/", ".dist-info" },
	{ "/usr/lib32/", NULL },
	{ "/usr/libx32/", NULL },
};

bool hk_view_hides(const char *path)
{
	for (size_t i = 0; i < HK_ARRAY_LEN(scanned); i++) {
		size_t n = strlen(scanned[i].dir);
		if (strncmp(path, scanned[i].dir, n) != 0)
			continue;
		if (!scanned[i].suffix)
			return true;
		size_t c = strcspn(path + n, "/"), k = strlen(scanned[i].suffix);
		if (c > k && memcmp(path + n + c - k, scanned[i].suffix, k) == 0)
			return true;
	}
	return false;
}

bool hk_view_trap_parse(const char *path, char **artifact_dirname, char **link_path)
{
	static const char prefix[] = HK_VIEW_TRAP_DIR "/";
	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *rest = path + sizeof(prefix) - 1;
	const char *slash = strchr(rest, '/');
	/* "<64 hex>-<name>/<path>" */
	if (!slash || slash - rest < HEX_LEN + 2 || rest[HEX_LEN] != '-' || !slash[1])
		return false;
	*artifact_dirname = hk_xstrndup(rest, (size_t)(slash - rest));
	*link_path = hk_xstrdup(slash);
	return true;
}
