/* ELF and "#!" reading (src/core/formats/elf.c).  Real binaries of this machine are checked against
 * binutils' readelf (an independent parser); hand-built objects cover what Debian's binaries
 * do not carry (RPATH, RUNPATH, 32-bit, malformed tables). */
#include "harness.h"

#include "core/formats/elf.h"
#include "core/basic/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *make_tmpdir(void)
{
	char *dir = hk_xstrdup("/tmp/hk-test-elf.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	return dir;
}

static void remove_tree(const char *dir)
{
	hk_autofree char *cmd = hk_xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

static void write_file(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		abort();
	close(fd);
}

static int read_path(const char *path, struct hk_exec_info *info, struct hk_error *err)
{
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hk_fail_errno(err, errno, "%s", path);
	return hk_exec_read_fd(fd, path, info, err);
}

/* ---- a minimal ELF writer: header, one PT_LOAD over the whole file, PT_INTERP, PT_DYNAMIC,
 * no section headers (as the loader sees a file) ------------------------------------------- */

struct fake_elf {
	unsigned char elf_class;
	uint16_t machine;
	const char *interp;
	const char *needed[4];
	const char *rpath, *runpath, *soname;
	bool nodeflib;
	bool corrupt_strtab;   /* DT_STRTAB points outside every PT_LOAD */
};

#define LOAD_VADDR 0x10000u

/* Layout: ehdr | phdrs[3] | interp | strtab | dynamic. */
#define DEFINE_WRITER(BITS)                                                                  \
	static size_t build_elf##BITS(const struct fake_elf *f, unsigned char *out)           \
	{                                                                                    \
		size_t off = sizeof(Elf##BITS##_Ehdr) + 3 * sizeof(Elf##BITS##_Phdr);          \
		size_t interp_off = off;                                                     \
		size_t interp_len = f->interp ? strlen(f->interp) + 1 : 0;                   \
		memcpy(out + off, f->interp ? f->interp : "", interp_len);                   \
		off += interp_len;                                                           \
		size_t str_off = off, str_len = 1;                                           \
		out[off] = '\0';                                                             \
		Elf##BITS##_Dyn dyn[16];                                                     \
		size_t nd = 0;                                                               \
		const char *strs[7];                                                         \
		Elf##BITS##_Sxword tags[7];                                                  \
		size_t ns = 0;                                                               \
		for (size_t i = 0; i < 4 && f->needed[i]; i++) {                             \
			strs[ns] = f->needed[i];                                             \
			tags[ns++] = DT_NEEDED;                                              \
		}                                                                            \
		if (f->rpath) { strs[ns] = f->rpath; tags[ns++] = DT_RPATH; }                \
		if (f->runpath) { strs[ns] = f->runpath; tags[ns++] = DT_RUNPATH; }          \
		if (f->soname) { strs[ns] = f->soname; tags[ns++] = DT_SONAME; }             \
		for (size_t i = 0; i < ns; i++) {                                            \
			size_t l = strlen(strs[i]) + 1;                                      \
			memcpy(out + str_off + str_len, strs[i], l);                         \
			dyn[nd].d_tag = tags[i];                                             \
			dyn[nd++].d_un.d_val = (Elf##BITS##_Word)str_len;                    \
			str_len += l;                                                        \
		}                                                                            \
		dyn[nd].d_tag = DT_STRTAB;                                                   \
		dyn[nd++].d_un.d_ptr = f->corrupt_strtab ? 0x7fff0000u                       \
							 : LOAD_VADDR + (Elf##BITS##_Addr)str_off; \
		dyn[nd].d_tag = DT_STRSZ;                                                    \
		dyn[nd++].d_un.d_val = (Elf##BITS##_Word)str_len;                            \
		if (f->nodeflib) {                                                           \
			dyn[nd].d_tag = DT_FLAGS_1;                                          \
			dyn[nd++].d_un.d_val = DF_1_NODEFLIB;                                \
		}                                                                            \
		dyn[nd].d_tag = DT_NULL;                                                     \
		dyn[nd++].d_un.d_val = 0;                                                    \
		off = str_off + str_len;                                                     \
		off = (off + 7) & ~(size_t)7;                                                \
		size_t dyn_off = off;                                                        \
		memcpy(out + dyn_off, dyn, nd * sizeof(dyn[0]));                             \
		off += nd * sizeof(dyn[0]);                                                  \
		Elf##BITS##_Ehdr eh = { 0 };                                                 \
		memcpy(eh.e_ident, ELFMAG, SELFMAG);                                         \
		eh.e_ident[EI_CLASS] = ELFCLASS##BITS;                                       \
		eh.e_ident[EI_DATA] = ELFDATA2LSB;                                           \
		eh.e_ident[EI_VERSION] = EV_CURRENT;                                         \
		eh.e_type = ET_DYN;                                                          \
		eh.e_machine = f->machine;                                                   \
		eh.e_version = EV_CURRENT;                                                   \
		eh.e_phoff = sizeof(eh);                                                     \
		eh.e_ehsize = sizeof(eh);                                                    \
		eh.e_phentsize = sizeof(Elf##BITS##_Phdr);                                   \
		eh.e_phnum = 3;                                                              \
		memcpy(out, &eh, sizeof(eh));                                                \
		Elf##BITS##_Phdr ph[3] = { 0 };                                              \
		ph[0].p_type = PT_LOAD;                                                      \
		ph[0].p_vaddr = LOAD_VADDR;                                                  \
		ph[0].p_filesz = ph[0].p_memsz = (Elf##BITS##_Word)off;                      \
		ph[0].p_flags = PF_R;                                                        \
		ph[1].p_type = f->interp ? PT_INTERP : PT_NULL;                              \
		ph[1].p_offset = (Elf##BITS##_Off)interp_off;                                \
		ph[1].p_filesz = (Elf##BITS##_Word)interp_len;                               \
		ph[2].p_type = PT_DYNAMIC;                                                   \
		ph[2].p_offset = (Elf##BITS##_Off)dyn_off;                                   \
		ph[2].p_vaddr = LOAD_VADDR + (Elf##BITS##_Addr)dyn_off;                      \
		ph[2].p_filesz = (Elf##BITS##_Word)(nd * sizeof(dyn[0]));                    \
		memcpy(out + sizeof(eh), ph, sizeof(ph));                                    \
		return off;                                                                  \
	}

DEFINE_WRITER(64)
DEFINE_WRITER(32)

static void write_fake_elf(const char *path, const struct fake_elf *f)
{
	unsigned char buf[4096] = { 0 };
	size_t n = f->elf_class == ELFCLASS32 ? build_elf32(f, buf) : build_elf64(f, buf);
	write_file(path, buf, n);
}

/* ---- readelf as the oracle for real binaries -------------------------------------------- */

/* Runs `readelf ARGS FILE` and returns every text between "[" PREFIX and "]". */
static size_t readelf_bracketed(const char *args, const char *file, const char *prefix,
				char out[][256], size_t max)
{
	hk_autofree char *cmd = hk_xasprintf("LC_ALL=C readelf %s '%s'", args, file);
	FILE *p = popen(cmd, "r");
	REQUIRE(p != NULL);
	char line[1024];
	size_t n = 0;
	size_t plen = strlen(prefix);
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, prefix);
		if (!at)
			continue;
		at += plen;
		char *end = strchr(at, ']');
		if (!end || n == max)
			continue;
		snprintf(out[n++], 256, "%.*s", (int)(end - at), at);
	}
	CHECK_EQ_INT(0, pclose(p));
	return n;
}

static void check_against_readelf(const char *file)
{
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	REQUIRE(read_path(file, &info, &err) == 0);
	CHECK_EQ_INT(HK_EXEC_ELF, info.format);

	char needed[32][256];
	size_t n = readelf_bracketed("-dW", file, "Shared library: [", needed, 32);
	CHECK(n > 0);   /* a dynamically linked program: the oracle must have seen something */
	CHECK_EQ_INT(n, info.n_needed);
	for (size_t i = 0; i < n && i < info.n_needed; i++)
		CHECK_STR_EQ(needed[i], info.needed[i]);

	char interp[1][256];
	size_t ni = readelf_bracketed("-lW", file, "Requesting program interpreter: ", interp, 1);
	CHECK_EQ_INT(1, ni);
	if (ni == 1)
		CHECK_STR_EQ(interp[0], info.interp);

	CHECK_EQ_INT(ELFCLASS64, info.ident.elf_class);
	CHECK_EQ_INT(EM_X86_64, info.ident.machine);
	CHECK(info.rpath == NULL && info.runpath == NULL);
	hk_exec_info_free(&info);
}

TEST(real_programs_match_readelf)
{
	/* dash, bash and coreutils exist on every Debian 12 machine. */
	check_against_readelf("/usr/bin/dash");
	check_against_readelf("/usr/bin/bash");
	check_against_readelf("/usr/bin/ls");
}

TEST(real_library_has_soname_and_no_interp)
{
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	REQUIRE(read_path("/usr/lib/x86_64-linux-gnu/libc.so.6", &info, &err) == 0);
	CHECK_STR_EQ("libc.so.6", info.soname);
	CHECK(info.interp == NULL || strstr(info.interp, "ld-linux") != NULL);
	/* libc needs the loader by its soname; the closure relies on this to match it. */
	bool needs_loader = false;
	for (size_t i = 0; i < info.n_needed; i++)
		needs_loader |= strcmp(info.needed[i], "ld-linux-x86-64.so.2") == 0;
	CHECK(needs_loader);
	hk_exec_info_free(&info);
}

/* The GNU build id, against readelf's "Build ID: <hex>" of the same files; a file without one
 * (a crafted object, below) and a file that is not ELF are told apart. */
static void build_id_of(const char *file, char *hex, size_t size, int want_rc)
{
	struct hk_error err = { 0 };
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	CHECK_EQ_INT(want_rc, hk_elf_build_id_fd(fd, file, hex, size, &err));
	close(fd);
}

TEST(build_id_matches_readelf)
{
	const char *files[] = { "/usr/bin/dash", "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	for (size_t i = 0; i < HK_ARRAY_LEN(files); i++) {
		char ours[129] = "", theirs[1][256];
		build_id_of(files[i], ours, sizeof(ours), 0);
		hk_autofree char *cmd = hk_xasprintf("LC_ALL=C readelf -n '%s'", files[i]);
		FILE *p = popen(cmd, "r");
		REQUIRE(p != NULL);
		char line[1024];
		size_t n = 0;
		while (fgets(line, sizeof(line), p))
			if (n == 0 && sscanf(line, " Build ID: %255s", theirs[0]) == 1)
				n++;
		CHECK_EQ_INT(0, pclose(p));
		REQUIRE(n == 1);   /* the oracle saw one: a negative below means something */
		CHECK_STR_EQ(theirs[0], ours);
		char small[8];
		build_id_of(files[i], small, sizeof(small), -EINVAL);   /* no room: refused */
	}
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *text = hk_xasprintf("%s/script", dir);
	FILE *f = fopen(text, "w");
	REQUIRE(f != NULL);
	fputs("#!/bin/sh\necho not an object\n", f);
	fclose(f);
	char hex[129];
	build_id_of(text, hex, sizeof(hex), -ENOEXEC);
	hk_autofree char *obj = hk_xasprintf("%s/libplain.so", dir);
	struct fake_elf plain = { .elf_class = ELFCLASS64, .machine = EM_X86_64,
				  .needed = { "liba.so.1" } };
	write_fake_elf(obj, &plain);
	build_id_of(obj, hex, sizeof(hex), -ENOENT);   /* ELF, without a note */
	remove_tree(dir);
}

TEST(crafted_64bit_object_fields)
{
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *path = hk_xasprintf("%s/libx.so", dir);
	struct fake_elf f = { .elf_class = ELFCLASS64, .machine = EM_X86_64,
			      .interp = "/lib64/ld-linux-x86-64.so.2",
			      .needed = { "liba.so.1", "libb.so.2" },
			      .rpath = "$ORIGIN/../lib", .runpath = "/opt/r", .soname = "libx.so.1",
			      .nodeflib = true };
	write_fake_elf(path, &f);
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	REQUIRE(read_path(path, &info, &err) == 0);
	CHECK_EQ_INT(HK_EXEC_ELF, info.format);
	CHECK_STR_EQ("/lib64/ld-linux-x86-64.so.2", info.interp);
	CHECK_EQ_INT(2, info.n_needed);
	CHECK_STR_EQ("liba.so.1", info.needed[0]);
	CHECK_STR_EQ("libb.so.2", info.needed[1]);
	CHECK_STR_EQ("$ORIGIN/../lib", info.rpath);
	CHECK_STR_EQ("/opt/r", info.runpath);
	CHECK_STR_EQ("libx.so.1", info.soname);
	CHECK(info.nodeflib);
	CHECK_EQ_INT(ELFCLASS64, info.ident.elf_class);
	hk_exec_info_free(&info);

	/* Positive control for the flags: without them nothing is reported. */
	struct fake_elf plain = { .elf_class = ELFCLASS64, .machine = EM_X86_64,
				  .needed = { "liba.so.1" } };
	write_fake_elf(path, &plain);
	REQUIRE(read_path(path, &info, &err) == 0);
	CHECK(info.interp == NULL && info.rpath == NULL && info.runpath == NULL);
	CHECK(!info.nodeflib);
	CHECK_EQ_INT(1, info.n_needed);
	hk_exec_info_free(&info);
	remove_tree(dir);
}

TEST(crafted_32bit_object_and_ident)
{
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *p32 = hk_xasprintf("%s/lib32.so", dir);
	hk_autofree char *p64 = hk_xasprintf("%s/lib64.so", dir);
	struct fake_elf f32 = { .elf_class = ELFCLASS32, .machine = EM_386,
				.needed = { "libc.so.6" }, .runpath = "$ORIGIN" };
	struct fake_elf f64 = { .elf_class = ELFCLASS64, .machine = EM_X86_64,
				.needed = { "libc.so.6" } };
	write_fake_elf(p32, &f32);
	write_fake_elf(p64, &f64);
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	REQUIRE(read_path(p32, &info, &err) == 0);
	CHECK_EQ_INT(ELFCLASS32, info.ident.elf_class);
	CHECK_EQ_INT(EM_386, info.ident.machine);
	CHECK_STR_EQ("libc.so.6", info.needed[0]);
	CHECK_STR_EQ("$ORIGIN", info.runpath);
	CHECK_STR_EQ("i386-linux-gnu", hk_elf_multiarch_triplet(&info.ident));
	struct hk_elf_ident id32 = info.ident;
	hk_exec_info_free(&info);

	struct hk_elf_ident id64, quick32;
	hk_autoclose int fd64 = open(p64, O_RDONLY | O_CLOEXEC);
	hk_autoclose int fd32 = open(p32, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd64 >= 0 && fd32 >= 0);
	REQUIRE(hk_elf_read_ident_fd(fd64, p64, &id64, &err) == 0);
	REQUIRE(hk_elf_read_ident_fd(fd32, p32, &quick32, &err) == 0);
	CHECK(hk_elf_ident_equal(&id32, &quick32));   /* the quick reader agrees with libelf */
	CHECK(!hk_elf_ident_equal(&id32, &id64));
	CHECK(hk_elf_ident_equal(&id64, &id64));
	CHECK_STR_EQ("x86_64-linux-gnu", hk_elf_multiarch_triplet(&id64));
	char desc[64];
	CHECK_STR_EQ("i386 32-bit LSB", hk_elf_ident_describe(&id32, desc, sizeof(desc)));
	remove_tree(dir);
}

TEST(malformed_objects_are_errors_that_name_the_file)
{
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *path = hk_xasprintf("%s/bad.so", dir);
	struct fake_elf f = { .elf_class = ELFCLASS64, .machine = EM_X86_64,
			      .needed = { "liba.so.1" }, .corrupt_strtab = true };
	write_fake_elf(path, &f);
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	CHECK_EQ_INT(-EINVAL, read_path(path, &info, &err));
	CHECK_CONTAINS(err.msg, path);
	CHECK_CONTAINS(err.msg, "DT_STRTAB");

	/* Not ELF, not a script. */
	write_file(path, "hello world\n", 12);
	CHECK_EQ_INT(-ENOEXEC, read_path(path, &info, &err));
	CHECK_CONTAINS(err.msg, path);

	/* A truncated ELF header. */
	write_file(path, ELFMAG "\2\1", 6);
	CHECK(read_path(path, &info, &err) < 0);
	CHECK_CONTAINS(err.msg, path);
	struct hk_elf_ident id;
	hk_autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK_EQ_INT(-ENOEXEC, hk_elf_read_ident_fd(fd, path, &id, &err));
	remove_tree(dir);
}

/* ---- "#!" scripts ------------------------------------------------------------------------ */

static void check_script(const char *text, const char *interp, const char *arg,
			 const char *program)
{
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *path = hk_xasprintf("%s/script", dir);
	write_file(path, text, strlen(text));
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	int r = read_path(path, &info, &err);
	CHECK_EQ_INT(0, r);
	if (r == 0) {
		CHECK_EQ_INT(HK_EXEC_SCRIPT, info.format);
		CHECK_STR_EQ(interp, info.script_interp);
		if (arg)
			CHECK_STR_EQ(arg, info.script_arg);
		else
			CHECK(info.script_arg == NULL);
		if (program)
			CHECK_STR_EQ(program, info.script_program);
		else
			CHECK(info.script_program == NULL);
		hk_exec_info_free(&info);
	}
	remove_tree(dir);
}

TEST(shebang_lines)
{
	check_script("#!/bin/sh\necho hi\n", "/bin/sh", NULL, NULL);
	check_script("#! /bin/sh -e  \n", "/bin/sh", "-e", NULL);
	check_script("#!/usr/bin/env perl\nprint 1;\n", "/usr/bin/env", "perl", "perl");
	check_script("#!/usr/bin/env -S perl -w\n", "/usr/bin/env", "-S perl -w", "perl");
	check_script("#!/usr/bin/env -S -u HOME A=1 python3 -u\n", "/usr/bin/env",
		     "-S -u HOME A=1 python3 -u", "python3");
	/* The kernel passes one argument; env without -S runs it as a single word. */
	check_script("#!/usr/bin/python3 -u\n", "/usr/bin/python3", "-u", NULL);
	/* The kernel does not treat '\r' as a blank ("bad interpreter: ^M"). */
	check_script("#!/bin/bash\r\n", "/bin/bash\r", NULL, NULL);
	check_script("#!/bin/sh\tx y \t\n", "/bin/sh", "x y", NULL);
	/* No newline at all (a one-line file). */
	check_script("#!/bin/sh", "/bin/sh", NULL, NULL);
}

TEST(shebang_without_interpreter_is_an_error)
{
	hk_autofree char *dir = make_tmpdir();
	hk_autofree char *path = hk_xasprintf("%s/empty-shebang", dir);
	write_file(path, "#!   \nexit 0\n", 13);
	struct hk_error err = { 0 };
	struct hk_exec_info info;
	CHECK_EQ_INT(-ENOEXEC, read_path(path, &info, &err));
	CHECK_CONTAINS(err.msg, path);
	CHECK_CONTAINS(err.msg, "no interpreter");
	remove_tree(dir);
}

TEST(real_script_on_this_machine)
{
	/* Debian 12's egrep is a "#!/bin/sh" wrapper; assert what its first line says. */
	FILE *f = fopen("/usr/bin/egrep", "r");
	REQUIRE(f != NULL);
	char line[256] = "";
	REQUIRE(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	REQUIRE(strncmp(line, "#!", 2) == 0);
	line[strcspn(line, " \t\n")] = '\0';

	struct hk_error err = { 0 };
	struct hk_exec_info info;
	REQUIRE(read_path("/usr/bin/egrep", &info, &err) == 0);
	CHECK_EQ_INT(HK_EXEC_SCRIPT, info.format);
	CHECK_STR_EQ(line + 2, info.script_interp);
	hk_exec_info_free(&info);
}

/* ---- search paths ------------------------------------------------------------------------ */

TEST(search_path_expansion)
{
	struct hk_elf_ident id = { ELFCLASS64, ELFDATA2LSB, EM_X86_64 };
	struct hk_strset dirs = HK_STRSET_INIT;
	struct hk_error err = { 0 };
	REQUIRE(hk_elf_expand_search_path("$ORIGIN/../lib:/opt/x//:${ORIGIN}:/a/$FOO:/usr/$LIB:"
					  "/opt/x",
					  "/usr/bin", &id, "obj", &dirs, &err) == 0);
	REQUIRE(dirs.len == 5);
	CHECK_STR_EQ("/usr/bin/../lib", dirs.items[0]);
	CHECK_STR_EQ("/opt/x", dirs.items[1]);   /* trailing slashes dropped, duplicate once */
	CHECK_STR_EQ("/usr/bin", dirs.items[2]);
	CHECK_STR_EQ("/a/$FOO", dirs.items[3]);  /* unknown token kept literally */
	CHECK_STR_EQ("/usr/lib/x86_64-linux-gnu", dirs.items[4]);
	hk_strset_free(&dirs);

	/* "$ORIGINX" is not the token. */
	REQUIRE(hk_elf_expand_search_path("/p/$ORIGINX", "/o", &id, "obj", &dirs, &err) == 0);
	CHECK_STR_EQ("/p/$ORIGINX", dirs.items[0]);
	hk_strset_free(&dirs);

	CHECK_EQ_INT(-EINVAL, hk_elf_expand_search_path("/ok:$PLATFORM/lib", "/o", &id, "objP",
							&dirs, &err));
	CHECK_CONTAINS(err.msg, "objP");
	CHECK_CONTAINS(err.msg, "$PLATFORM");
	hk_strset_free(&dirs);
	CHECK_EQ_INT(-EINVAL, hk_elf_expand_search_path("lib", "/o", &id, "objR", &dirs, &err));
	CHECK_CONTAINS(err.msg, "relative");
	hk_strset_free(&dirs);
	CHECK_EQ_INT(-EINVAL, hk_elf_expand_search_path("/a::/b", "/o", &id, "objE", &dirs, &err));
	hk_strset_free(&dirs);

	struct hk_elf_ident unknown = { ELFCLASS64, ELFDATA2LSB, 0x1234 };
	CHECK_EQ_INT(-EINVAL, hk_elf_expand_search_path("/usr/$LIB", "/o", &unknown, "objL",
							&dirs, &err));
	hk_strset_free(&dirs);
}

TEST(hwcaps_subdirs_per_machine)
{
	struct hk_elf_ident x64 = { ELFCLASS64, ELFDATA2LSB, EM_X86_64 };
	struct hk_elf_ident i386 = { ELFCLASS32, ELFDATA2LSB, EM_386 };
	const char *const *hw = hk_elf_hwcaps_subdirs(&x64);
	REQUIRE(hw[0] != NULL);
	CHECK_STR_EQ("x86-64-v4", hw[0]);
	CHECK(hk_elf_hwcaps_subdirs(&i386)[0] == NULL);
}
