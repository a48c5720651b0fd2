/* What m4 files define (macros, substituted variables, conditionals) and what a failed
 * build's log says was missing (src/core/debian/aclocal.c).  The texts are bookworm's pkg.m4,
 * libtool.m4, lib-link.m4, expat.m4 and ltdl.m4, and the messages autoconf, automake 1.16.5,
 * bash and dash print (automake's taken from autoreconf run without /usr/share/aclocal, as the
 * store view shows it to a build that declares neither pkgconf, libtool nor gtk-doc-tools). */
#include "harness.h"

#include "core/debian/aclocal.h"
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
	hk_aclocal_log_misses(log, sizeof(log) - 1, HK_ACLOCAL_MACRO, &macros, &lines);
	CHECK_STR_EQ("PKG_PROG_PKG_CONFIG PKG_CHECK_MODULES_X AX_CXX_COMPILE_STDCXX LAST_MACRO",
		     joined(&macros, buf, sizeof(buf)));
	REQUIRE(lines.n == 4);
	CHECK_STR_EQ("configure.ac:3: error: possibly undefined macro: PKG_PROG_PKG_CONFIG",
		     lines.v[0]);
	CHECK_STR_EQ("./configure: line 1712: PKG_CHECK_MODULES_X: command not found", lines.v[1]);
	/* The control: a log without such lines names nothing. */
	hk_autostrv struct hk_strv none = HK_STRV_INIT;
	static const char ok[] = "checking for pkg-config... /usr/bin/pkg-config\nconfigure: done\n";
	hk_aclocal_log_misses(ok, sizeof(ok) - 1, HK_ACLOCAL_MACRO, &none, NULL);
	CHECK_EQ_INT(0, none.n);
}

TEST(variables_and_conditionals_an_m4_file_defines)
{
	static const char m4[] =
		/* pkg.m4, PKG_INSTALLDIR and PKG_HAVE_WITH_MODULES */
		"AC_ARG_WITH([pkgconfigdir],\n"
		"    [AS_HELP_STRING([--with-pkgconfigdir], pkg_description)],,\n"
		"    [with_pkgconfigdir=]pkg_default)\n"
		"AC_SUBST([pkgconfigdir], [$with_pkgconfigdir])\n"
		"AC_SUBST([noarch_pkgconfigdir], [$with_noarch_pkgconfigdir])\n"
		"AM_CONDITIONAL([HAVE_][$1],\n"                 /* a name put together: not one */
		"               [test \"$AS_TR_SH([with_]m4_tolower([$1]))\" = \"yes\"])\n"
		/* libtool.m4 */
		"LIBTOOL='$(SHELL) $(top_builddir)/libtool'\n"
		"AC_SUBST(LIBTOOL)dnl\n"
		/* lib-link.m4: computed names, and the word in a comment */
		"dnl Sets and AC_SUBSTs the LIB${NAME} and LTLIB${NAME} variables and\n"
		"  AC_SUBST([LIB]NAME)\n"
		"  AC_SUBST([$1][_CFLAGS])\n"
		"AC_SUBST_FILE([hk_fragment])\n"
		/* expat.m4 and ltdl.m4 */
		"  AM_CONDITIONAL(EXPAT_INSTALLED, test $with_expat != no)\n"
		"m4_ifdef([AM_CONDITIONAL],\n"
		"[AM_CONDITIONAL(INSTALL_LTDL, test no != \"${enable_ltdl_install-no}\")\n"
		"AC_DEFUN([PKG_INSTALLDIR],\n";
	hk_autostrv struct hk_strv vars = HK_STRV_INIT;
	hk_autostrv struct hk_strv conds = HK_STRV_INIT;
	hk_autostrv struct hk_strv macros = HK_STRV_INIT;
	char buf[512];
	hk_aclocal_names(m4, sizeof(m4) - 1, HK_ACLOCAL_VARIABLE, &vars);
	CHECK_STR_EQ("pkgconfigdir noarch_pkgconfigdir LIBTOOL hk_fragment",
		     joined(&vars, buf, sizeof(buf)));
	hk_aclocal_names(m4, sizeof(m4) - 1, HK_ACLOCAL_CONDITIONAL, &conds);
	CHECK_STR_EQ("EXPAT_INSTALLED INSTALL_LTDL", joined(&conds, buf, sizeof(buf)));
	/* The control: each kind names only its own calls. */
	hk_aclocal_names(m4, sizeof(m4) - 1, HK_ACLOCAL_MACRO, &macros);
	CHECK_STR_EQ("PKG_INSTALLDIR", joined(&macros, buf, sizeof(buf)));
	CHECK_STR_EQ("variable", hk_aclocal_kind_name(HK_ACLOCAL_VARIABLE));
	CHECK_STR_EQ("conditional", hk_aclocal_kind_name(HK_ACLOCAL_CONDITIONAL));
}

TEST(log_misses_from_automake)
{
	/* autoreconf -fi of a configure.ac calling PKG_INSTALLDIR, GTK_DOC_CHECK and LT_INIT,
	 * none of whose m4 files aclocal could read, and lzo2 2.10-2's line. */
	static const char log[] =
		"configure.ac:3: installing './compile'\n"
		"Makefile.am:4: error: ENABLE_GTK_DOC does not appear in AM_CONDITIONAL\n"
		"Makefile.am:2: error: Libtool library used but 'LIBTOOL' is undefined\n"
		"Makefile.am:2:   The usual way to define 'LIBTOOL' is to add 'LT_INIT'\n"
		"Makefile.am:2:   to 'configure.ac' and run 'aclocal' and 'autoconf' again.\n"
		"Makefile.am:2:   If 'LT_INIT' is in 'configure.ac', make sure\n"
		"Makefile.am:2:   its definition is in aclocal's search path.\n"
		"Makefile.am:1: error: 'pkgconfig_DATA' is used but 'pkgconfigdir' is undefined\r\n"
		"Makefile.am:5: error: required directory ./docs does not exist\n"
		"Makefile.am:17: error: 'pkgconfig_DATA' is used but 'pkgconfigdir' is undefined\n"
		"doc/Makefile.am:12: error: HAVE_DOXYGEN does not appear in AM_CONDITIONAL\n"
		"autoreconf: error: automake failed with exit status: 1\n"
		/* not automake's: no quoted name, or no name at all */
		"configure: WARNING: variable HOST is undefined\n"
		"Makefile.am: error: ' is undefined\n"
		"make: *** [debian/rules:9: build] Error 1";
	hk_autostrv struct hk_strv vars = HK_STRV_INIT;
	hk_autostrv struct hk_strv var_lines = HK_STRV_INIT;
	hk_autostrv struct hk_strv conds = HK_STRV_INIT;
	hk_autostrv struct hk_strv macros = HK_STRV_INIT;
	char buf[512];
	hk_aclocal_log_misses(log, sizeof(log) - 1, HK_ACLOCAL_VARIABLE, &vars, &var_lines);
	CHECK_STR_EQ("LIBTOOL pkgconfigdir", joined(&vars, buf, sizeof(buf)));
	REQUIRE(var_lines.n == 2);
	CHECK_STR_EQ("Makefile.am:2: error: Libtool library used but 'LIBTOOL' is undefined",
		     var_lines.v[0]);
	CHECK_STR_EQ("Makefile.am:1: error: 'pkgconfig_DATA' is used but 'pkgconfigdir' is "
		     "undefined", var_lines.v[1]);
	hk_aclocal_log_misses(log, sizeof(log) - 1, HK_ACLOCAL_CONDITIONAL, &conds, NULL);
	CHECK_STR_EQ("ENABLE_GTK_DOC HAVE_DOXYGEN", joined(&conds, buf, sizeof(buf)));
	/* The control: automake's lines name no macro, and the macro lines above name no
	 * variable. */
	hk_aclocal_log_misses(log, sizeof(log) - 1, HK_ACLOCAL_MACRO, &macros, NULL);
	CHECK_EQ_INT(0, macros.n);
	hk_autostrv struct hk_strv none = HK_STRV_INIT;
	static const char shell[] =
		"configure.ac:3: error: possibly undefined macro: PKG_PROG_PKG_CONFIG\n"
		"./configure: line 1712: PKG_CHECK_MODULES_X: command not found\n";
	hk_aclocal_log_misses(shell, sizeof(shell) - 1, HK_ACLOCAL_VARIABLE, &none, NULL);
	hk_aclocal_log_misses(shell, sizeof(shell) - 1, HK_ACLOCAL_CONDITIONAL, &none, NULL);
	CHECK_EQ_INT(0, none.n);
}
