/* The directories ld.so.conf files name, and the libraries a failed build's log says were not
 * found (src/core/debian/dsc_ldconf.c).  The files are bookworm's (libc6-i386, libfakeroot, libc-bin,
 * libc6, /etc/ld.so.conf); the log lines are dpkg-shlibdeps 1.21.22's and GNU ld 2.40's, run
 * on a binary whose library lies in a directory only an ld.so.conf.d file names. */
#include "harness.h"

#include "core/debian/dsc_ldconf.h"
#include "core/basic/util.h"

static const char *joined(const struct hk_strv *v, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < v->n; i++) {
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", i ? " " : "", v->v[i]);
	}
	return buf;
}

TEST(dirs_of_real_configuration_files)
{
	static const char conf[] =
		"# Legacy biarch compatibility support\n"
		"/lib32\n"
		"/usr/lib32\n"
		"/usr/lib/x86_64-linux-gnu/libfakeroot\n"
		"# libc default configuration\n"
		"/usr/local/lib\n"
		"include /etc/ld.so.conf.d/*.conf\n"        /* names files, not a directory */
		"hwcap 1 nosegneg\n"
		"  /opt/hk/lib/ /opt/hk/lib64:/opt/hk/x,/opt/hk/y # two on a line, and a comment\r\n"
		"relative/dir\n"                           /* not absolute: ldconfig ignores it */
		"/\n"
		"/usr/lib/hkfoo";                          /* no newline at the end */
	hk_autostrv struct hk_strv dirs = HK_STRV_INIT;
	char buf[512];
	hk_ldconf_dirs(conf, sizeof(conf) - 1, &dirs);
	CHECK_STR_EQ("/lib32 /usr/lib32 /usr/lib/x86_64-linux-gnu/libfakeroot /usr/local/lib "
		     "/opt/hk/lib /opt/hk/lib64 /opt/hk/x /opt/hk/y / /usr/lib/hkfoo",
		     joined(&dirs, buf, sizeof(buf)));
	hk_strv_free(&dirs);
	hk_ldconf_dirs("# nothing\n\n", 12, &dirs);
	CHECK_EQ_INT(0, dirs.n);
}

TEST(libraries_a_log_says_were_not_found)
{
	static const char log[] =
		"dh_shlibdeps\n"
		"dpkg-shlibdeps: error: cannot find library libhkfoo.so.1 needed by "
		"debian/hkx/usr/bin/hkx (ELF format: 'elf64-x86-64' abi: '0201003e00000000'; "
		"RPATH: '')\n"
		"dpkg-shlibdeps: warning: binaries to analyze should already be installed in their "
		"package's directory\n"
		"dpkg-shlibdeps: error: cannot continue due to the error above\n"
		"Note: libraries are not searched in other binary packages that do not have any "
		"shlibs or symbols file.\n"
		"/usr/bin/ld: warning: libhkbar.so.2, needed by bar/libhkbaz.so, not found (try "
		"using -rpath or -rpath-link)\r\n"
		"/usr/bin/ld: bar/libhkbaz.so: undefined reference to `hkbar'\n"
		"dpkg-shlibdeps: error: cannot find library libhkfoo.so.1 needed by "
		"debian/hkx/usr/bin/other (ELF format: 'elf64-x86-64')\n"   /* seen already */
		/* not those messages */
		"checking for library containing dlopen... none needed\n"
		"cc1: fatal error: hk.h: No such file or directory, not found (try using -rpath "
		"or -rpath-link)\n"
		"error: cannot find library needed by nothing\n";
	hk_autostrv struct hk_strv libs = HK_STRV_INIT;
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	char buf[512];
	hk_ldconf_log_misses(log, sizeof(log) - 1, &libs, &lines);
	CHECK_STR_EQ("libhkfoo.so.1 libhkbar.so.2", joined(&libs, buf, sizeof(buf)));
	REQUIRE(lines.n == 2);
	CHECK_STR_EQ("/usr/bin/ld: warning: libhkbar.so.2, needed by bar/libhkbaz.so, not found "
		     "(try using -rpath or -rpath-link)", lines.v[1]);
	/* The control: a log of a build that found its libraries names none. */
	hk_autostrv struct hk_strv none = HK_STRV_INIT;
	static const char ok[] = "dpkg-shlibdeps -Tdebian/hkx.substvars debian/hkx/usr/bin/hkx\n"
				 "shlibs:Depends=libc6 (>= 2.34)\n";
	hk_ldconf_log_misses(ok, sizeof(ok) - 1, &none, NULL);
	CHECK_EQ_INT(0, none.n);
}
