/* What an executable file asks of the system before it can run: for an ELF object, its
 * program interpreter (PT_INTERP), the libraries it needs (DT_NEEDED) and where it says to
 * look for them (DT_RPATH, DT_RUNPATH); for a "#!" script, its interpreter.  This is the
 * input of the derived base runtime (design.md §5, docs/base-runtime.md): harkaq reads these
 * facts from the file itself instead of asking ldd, which would answer for the host.
 *
 * Pure: reads the descriptor it is given, nothing else (libelf from elfutils). */
#ifndef HK_ELF_H
#define HK_ELF_H

#include <stdbool.h>
#include <stdint.h>

#include "core/basic/error.h"
#include "core/basic/strset.h"

/* The parts of an ELF header the glibc loader compares before accepting a library: a
 * candidate of another class, byte order or machine is skipped, not an error (a 32-bit
 * libc.so.6 in /usr/lib32 is not a candidate for a 64-bit program). */
struct hk_elf_ident {
	unsigned char elf_class;   /* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;        /* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t machine;          /* EM_X86_64, EM_386, EM_AARCH64, … */
};

enum hk_exec_format {
	HK_EXEC_ELF = 1,
	HK_EXEC_SCRIPT = 2,
};

struct hk_exec_info {
	enum hk_exec_format format;

	/* HK_EXEC_ELF. Every string is owned and NULL when the file does not carry it. */
	struct hk_elf_ident ident;
	uint16_t elf_type;         /* ET_EXEC, ET_DYN, … */
	char *interp;              /* PT_INTERP: NULL for static programs and most libraries */
	char **needed;             /* DT_NEEDED in file order */
	size_t n_needed;
	char *soname;              /* DT_SONAME */
	char *rpath;               /* DT_RPATH, raw (unexpanded).  Kept even when runpath is set;
	                            * the loader then ignores it, and so does the closure. */
	char *runpath;             /* DT_RUNPATH, raw */
	bool nodeflib;             /* DF_1_NODEFLIB: no ld.so.cache, no default directories */

	/* HK_EXEC_SCRIPT, following the kernel's binfmt_script rules: the first line is
	 * "#!" INTERPRETER [ONE-ARGUMENT]. */
	char *script_interp;       /* as written: "/bin/sh", "/usr/bin/env" */
	char *script_arg;          /* the optional argument, trimmed; NULL if none */
	char *script_program;      /* when the interpreter is env: the program it is asked to
	                            * run ("perl" in "#!/usr/bin/env perl"), to be found through
	                            * PATH; NULL otherwise */
};

#define HK_EXEC_INFO_INIT { 0 }

/* Reads `fd` (any position; pread is used).  `name` appears in every error message.
 * Fails with -ENOEXEC for a file that is neither ELF nor a "#!" script (and for a script
 * without an interpreter), -EINVAL for a malformed ELF object.  On failure *out is empty. */
HK_MUST_CHECK int hk_exec_read_fd(int fd, const char *name, struct hk_exec_info *out, struct hk_error *err);

/* The GNU build id of an ELF object (NT_GNU_BUILD_ID in a PT_NOTE segment), in lowercase hex
 * into hex[size] (NUL-terminated): what identifies the code of a program or library that was
 * linked with one.  -ENOENT when it has none, -ENOEXEC when `fd` is not an ELF object. */
HK_MUST_CHECK int hk_elf_build_id_fd(int fd, const char *name, char *hex, size_t size,
				     struct hk_error *err);

/* Reads only the identification of an ELF object (the loader's cheap check before it maps a
 * candidate).  -ENOEXEC if `fd` is not an ELF object. */
HK_MUST_CHECK int hk_elf_read_ident_fd(int fd, const char *name, struct hk_elf_ident *out,
			 struct hk_error *err);

void hk_exec_info_free(struct hk_exec_info *info);

bool hk_elf_ident_equal(const struct hk_elf_ident *a, const struct hk_elf_ident *b);
/* "x86-64 64-bit LSB" and the like, for messages.  Returns `buf`. */
const char *hk_elf_ident_describe(const struct hk_elf_ident *id, char *buf, size_t size);

/* Debian's multiarch triplet for the identification ("x86_64-linux-gnu" for 64-bit x86,
 * "i386-linux-gnu" for 32-bit x86, …), or NULL when harkaq does not know the machine. */
const char *hk_elf_multiarch_triplet(const struct hk_elf_ident *id);

/* The glibc-hwcaps subdirectory names glibc ≥ 2.33 tries inside every search directory,
 * most capable first ("x86-64-v4", "x86-64-v3", "x86-64-v2" on x86-64); NULL-terminated,
 * possibly empty. */
const char *const *hk_elf_hwcaps_subdirs(const struct hk_elf_ident *id);

/* Splits a DT_RPATH/DT_RUNPATH value at ':' and expands the loader's dynamic string tokens,
 * appending each directory (in order, without duplicates) to `dirs`:
 *   $ORIGIN / ${ORIGIN}  → `origin`, the directory of the object inside the sandbox
 *   $LIB / ${LIB}        → "lib/<multiarch triplet>" (Debian's glibc)
 * $PLATFORM is refused (it names the running CPU, so no file list can be derived from it),
 * and so are relative or empty entries (the loader resolves them against the working
 * directory of the build, which is not part of the base root).  `object` names the file in
 * error messages. */
HK_MUST_CHECK int hk_elf_expand_search_path(const char *value, const char *origin,
			      const struct hk_elf_ident *id, const char *object,
			      struct hk_strset *dirs, struct hk_error *err);

#endif
