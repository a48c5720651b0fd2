/* Autoconf macros: those an m4 file defines, those a failed build's log names
 * (src/core/aclocal.c).  The texts are bookworm's pkg.m4 and the messages autoconf, bash and
 * dash print. */
#include "harness.h"

#include "core/aclocal.h"
#include "core/util.h"

static const char *joined(const struct hk_strv *v, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < v->n; i++) {
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", i ? " " : "", v->v[i]);
	}
	return buf;
}

TEST(defuns_quoted_unquoted_and_obsolete)
{
	static const char m4[] =
		"# pkg.m4 - Macros to locate and use pkg-config.   -*- Autoconf -*-\n"
		"dnl PKG_PREREQ(MIN-VERSION)\n"
		"AC_DEFUN([PKG_PREREQ],\n[m4_define([PKG_MACROS_VERSION], [0.29.2])])\n"
		"AC_DEFUN([PKG_PROG_PKG_CONFIG],\n"
		"[m4_pattern_forbid([^_?PKG_[A-Z_]+$])\n"
		"AC_DEFUN_ONCE( [PKG_INSTALLDIR],\n"    /* m4 skips the blank before an argument */
		"AC_DEFUN([PKG_HALF ], [])\n"           /* not a whole name */
		"AC_DEFUN_ONCE([PKG_NOARCH_INSTALLDIR], [])\n"
		"AU_DEFUN([PKG_CHECK_MODULES_STATIC], [])\n"
		"AC_DEFUN(PLAIN_NAME, [x])\n"
		"MY_AC_DEFUN([NOT_THIS], [])\n"
		"AC_DEFUN([$1_EXPANDED], [])\n"
		"AC_DEFUN([";                          /* cut short: nothing, no overrun */
	hk_autostrv struct hk_strv out = HK_STRV_INIT;
	char buf[512];
	hk_aclocal_defuns(m4, sizeof(m4) - 1, &out);
	CHECK_STR_EQ("PKG_PREREQ PKG_PROG_PKG_CONFIG PKG_INSTALLDIR PKG_NOARCH_INSTALLDIR "
		     "PKG_CHECK_MODULES_STATIC PLAIN_NAME",
		     joined(&out, buf, sizeof(buf)));
	hk_strv_free(&out);
	hk_aclocal_defuns("", 0, &out);
	CHECK_EQ_INT(0, out.n);
}

TEST(log_misses_from_autoconf_bash_and_dash)
{
	static const char log[] =
		"checking for gcc... gcc\n"
		"configure.ac:3: error: possibly undefined macro: PKG_PROG_PKG_CONFIG\n"
		"      If this token and others are legitimate, please use m4_pattern_allow.\n"
		"./configure: line 1712: PKG_CHECK_MODULES_X: command not found\r\n"
		"./configure: 1713: AX_CXX_COMPILE_STDCXX: not found\n"
		"./configure: 1714: PKG_PROG_PKG_CONFIG: not found\n"   /* seen already */
		"/bin/sh: 1: makeinfo: not found\n"                     /* a command, not a macro */
		"./configure: 12: FOO: not found\n"                     /* no '_': not a macro */
		"sh: 1: Foo_Bar: not found\n"                           /* lower case: not one */
		"make: *** [debian/rules:9: build] Error 127\n"
		"tail without newline: LAST_MACRO: not found";
	hk_autostrv struct hk_strv macros = HK_STRV_INIT;
	hk_autostrv struct hk_strv lines = HK_STRV_INIT;
	char buf[512];
	hk_aclocal_log_misses(log, sizeof(log) - 1, &macros, &lines);
	CHECK_STR_EQ("PKG_PROG_PKG_CONFIG PKG_CHECK_MODULES_X AX_CXX_COMPILE_STDCXX LAST_MACRO",
		     joined(&macros, buf, sizeof(buf)));
	REQUIRE(lines.n == 4);
	CHECK_STR_EQ("configure.ac:3: error: possibly undefined macro: PKG_PROG_PKG_CONFIG",
		     lines.v[0]);
	CHECK_STR_EQ("./configure: line 1712: PKG_CHECK_MODULES_X: command not found", lines.v[1]);
	/* The control: a log without such lines names nothing. */
	hk_autostrv struct hk_strv none = HK_STRV_INIT;
	static const char ok[] = "checking for pkg-config... /usr/bin/pkg-config\nconfigure: done\n";
	hk_aclocal_log_misses(ok, sizeof(ok) - 1, &none, NULL);
	CHECK_EQ_INT(0, none.n);
}
