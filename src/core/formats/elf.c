#include "core/formats/elf.h"
#include "core/basic/buf.h"
#include "core/basic/hex.h"
#include "core/basic/util.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The kernel reads this many bytes of a file to recognise it (BINPRM_BUF_SIZE); a "#!" line
 * longer than that is cut there by binfmt_script. */
#define SHEBANG_BUF_SIZE 256

void hk_exec_info_free(struct hk_exec_info *info)
{
	free(info->interp);
	for (size_t i = 0; i < info->n_needed; i++)
		free(info->needed[i]);
	free(info->needed);
	free(info->soname);
	free(info->rpath);
	free(info->runpath);
	free(info->script_interp);
	free(info->script_arg);
	free(info->script_program);
	*info = (struct hk_exec_info)HK_EXEC_INFO_INIT;
}

bool hk_elf_ident_equal(const struct hk_elf_ident *a, const struct hk_elf_ident *b)
{
	return a->elf_class == b->elf_class && a->data == b->data && a->machine == b->machine;
}

static const char *machine_name(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_PPC: return "ppc";
	case EM_S390: return "s390";
	case EM_MIPS: return "mips";
	case EM_LOONGARCH: return "loongarch";
	default: return NULL;
	}
}

const char *hk_elf_ident_describe(const struct hk_elf_ident *id, char *buf, size_t size)
{
	const char *m = machine_name(id->machine);
	char mbuf[32];
	if (!m) {
		snprintf(mbuf, sizeof(mbuf), "machine %u", id->machine);
		m = mbuf;
	}
	snprintf(buf, size, "%s %s %s", m,
		 id->elf_class == ELFCLASS64 ? "64-bit" : id->elf_class == ELFCLASS32 ? "32-bit" : "?-bit",
		 id->data == ELFDATA2LSB ? "LSB" : id->data == ELFDATA2MSB ? "MSB" : "?");
	return buf;
}

const char *hk_elf_multiarch_triplet(const struct hk_elf_ident *id)
{
	/* Debian's multiarch tuples (https://wiki.debian.org/Multiarch/Tuples) for the ports a
	 * base root plausibly comes from; ARM hard/soft float and MIPS ABIs are not told apart
	 * by the header alone, so they are left out rather than guessed. */
	bool b64 = id->elf_class == ELFCLASS64, le = id->data == ELFDATA2LSB;
	switch (id->machine) {
	case EM_X86_64: return b64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32";
	case EM_386: return b64 ? NULL : "i386-linux-gnu";
	case EM_AARCH64: return b64 && le ? "aarch64-linux-gnu" : NULL;
	case EM_RISCV: return b64 && le ? "riscv64-linux-gnu" : NULL;
	case EM_PPC64: return b64 ? (le ? "powerpc64le-linux-gnu" : "powerpc64-linux-gnu") : NULL;
	case EM_S390: return b64 ? "s390x-linux-gnu" : NULL;
	case EM_LOONGARCH: return b64 ? "loongarch64-linux-gnu" : NULL;
	default: return NULL;
	}
}

const char *const *hk_elf_hwcaps_subdirs(const struct hk_elf_ident *id)
{
	/* glibc 2.36 sysdeps/…/dl-hwcaps-subdirs.c, most capable first. */
	static const char *const x86_64[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2", NULL };
	static const char *const ppc64le[] = { "power10", "power9", NULL };
	static const char *const s390x[] = { "z16", "z15", "z14", "z13", NULL };
	static const char *const none[] = { NULL };
	if (id->machine == EM_X86_64 && id->elf_class == ELFCLASS64)
		return x86_64;
	if (id->machine == EM_PPC64 && id->elf_class == ELFCLASS64 && id->data == ELFDATA2LSB)
		return ppc64le;
	if (id->machine == EM_S390 && id->elf_class == ELFCLASS64)
		return s390x;
	return none;
}

/* ---- "#!" scripts ------------------------------------------------------------------------ */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The program env(1) is asked to run, from the single argument the kernel passes it.  With
 * "-S" (or --split-string) env splits the argument itself; without it the whole argument is
 * one word.  Options and NAME=VALUE assignments come before the program. */
static char *env_program(const char *arg)
{
	hk_autofree char *copy = hk_xstrdup(arg);
	bool split = false;
	if (strncmp(copy, "-S", 2) == 0 || strncmp(copy, "--split-string", 14) == 0)
		split = true;
	if (!split)
		return (copy[0] == '-' || strchr(copy, '=')) ? NULL : hk_xstrdup(copy);

	char *save = NULL;
	bool skip_next = false;
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (skip_next) {
			skip_next = false;
			continue;
		}
		if (strcmp(tok, "-S") == 0 || strcmp(tok, "--split-string") == 0)
			continue;
		if (strncmp(tok, "-S", 2) == 0) {
			/* "-Sperl": the rest of the token begins the split string. */
			tok += 2;
		} else if (tok[0] == '-') {
			/* Options that take a separate operand. */
			if (strcmp(tok, "-u") == 0 || strcmp(tok, "-C") == 0 ||
			    strcmp(tok, "--unset") == 0 || strcmp(tok, "--chdir") == 0)
				skip_next = true;
			continue;
		}
		if (strchr(tok, '='))
			continue;
		return hk_xstrdup(tok);
	}
	return NULL;
}

static const char *next_non_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_blank(*p))
			return p;
	return NULL;
}

static const char *next_terminator(const char *p, const char *end)
{
	for (; p < end; p++)
		if (is_blank(*p) || *p == '\0')
			return p;
	return NULL;
}

/* binfmt_script's parser (fs/binfmt_script.c), on the same zero-padded 256-byte buffer: the
 * line ends at '\n'; the interpreter is the first word after "#!" and ends at a blank or NUL;
 * everything after the following blanks, trailing blanks removed, is ONE argument.  A '\r' is
 * not a blank: "#!/bin/sh\r" names an interpreter "/bin/sh\r", as the kernel sees it. */
static int parse_shebang(const char *buf, const char *name, struct hk_exec_info *out,
			 struct hk_error *err)
{
	const char *buf_end = buf + SHEBANG_BUF_SIZE - 1;
	const char *i_end = memchr(buf, '\n', SHEBANG_BUF_SIZE);
	if (!i_end) {
		i_end = next_non_blank(buf + 2, buf_end);
		if (!i_end)
			return hk_fail(err, ENOEXEC, "%s: \"#!\" line names no interpreter", name);
		if (!next_terminator(i_end, buf_end))
			return hk_fail(err, ENOEXEC,
				       "%s: \"#!\" interpreter path is longer than the kernel reads",
				       name);
		i_end = buf_end;
	}
	while (i_end > buf + 2 && is_blank(i_end[-1]))
		i_end--;
	const char *i_name = next_non_blank(buf + 2, i_end);
	if (!i_name || i_name == i_end)
		return hk_fail(err, ENOEXEC, "%s: \"#!\" line names no interpreter", name);
	const char *i_sep = next_terminator(i_name, i_end);
	const char *i_arg = NULL;
	if (i_sep && *i_sep != '\0')
		i_arg = next_non_blank(i_sep, i_end);

	out->format = HK_EXEC_SCRIPT;
	out->script_interp = hk_xstrndup(i_name, (size_t)((i_sep ? i_sep : i_end) - i_name));
	if (i_arg)
		out->script_arg = hk_xstrndup(i_arg, (size_t)(i_end - i_arg));   /* stops at a NUL */
	const char *base = strrchr(out->script_interp, '/');
	base = base ? base + 1 : out->script_interp;
	if (strcmp(base, "env") == 0 && out->script_arg)
		out->script_program = env_program(out->script_arg);
	return 0;
}

/* ---- ELF objects ------------------------------------------------------------------------- */

static int elf_setup(struct hk_error *err)
{
	static bool ready;
	if (!ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return hk_fail(err, ENOSYS, "libelf: %s", elf_errmsg(-1));
		ready = true;
	}
	return 0;
}

static int fail_libelf(struct hk_error *err, const char *name, const char *what)
{
	return hk_fail(err, EINVAL, "%s: %s: %s", name, what, elf_errmsg(-1));
}

static void ident_from_ehdr(const GElf_Ehdr *eh, struct hk_elf_ident *id)
{
	id->elf_class = eh->e_ident[EI_CLASS];
	id->data = eh->e_ident[EI_DATA];
	id->machine = eh->e_machine;
}

int hk_elf_read_ident_fd(int fd, const char *name, struct hk_elf_ident *out,
			 struct hk_error *err)
{
	/* e_ident (16 bytes) then e_type and e_machine (2 bytes each, the file's byte order),
	 * at the same offsets in both classes. */
	unsigned char hdr[20];
	ssize_t n = pread(fd, hdr, sizeof(hdr), 0);
	if (n < 0)
		return hk_fail_errno(err, errno, "%s: read", name);
	if ((size_t)n < sizeof(hdr) || memcmp(hdr, ELFMAG, SELFMAG) != 0)
		return hk_fail(err, ENOEXEC, "%s: not an ELF object", name);
	out->elf_class = hdr[EI_CLASS];
	out->data = hdr[EI_DATA];
	if (out->data == ELFDATA2LSB)
		out->machine = (uint16_t)(hdr[18] | hdr[19] << 8);
	else if (out->data == ELFDATA2MSB)
		out->machine = (uint16_t)(hdr[18] << 8 | hdr[19]);
	else
		return hk_fail(err, EINVAL, "%s: unknown ELF byte order %u", name, hdr[EI_DATA]);
	if (out->elf_class != ELFCLASS32 && out->elf_class != ELFCLASS64)
		return hk_fail(err, EINVAL, "%s: unknown ELF class %u", name, hdr[EI_CLASS]);
	return 0;
}

int hk_elf_build_id_fd(int fd, const char *name, char *hex, size_t size, struct hk_error *err)
{
	int rc = elf_setup(err);
	if (rc < 0)
		return rc;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return hk_fail(err, ENOEXEC, "%s: not an ELF object", name);
	}
	size_t phnum = 0;
	rc = -ENOENT;
	if (elf_getphdrnum(elf, &phnum) != 0)
		rc = fail_libelf(err, name, "program headers");
	for (size_t i = 0; rc == -ENOENT && i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						   ELF_T_NHDR);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (d && rc == -ENOENT &&
		       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
				continue;
			if (nh.n_descsz == 0 || 2 * (size_t)nh.n_descsz + 1 > size) {
				rc = hk_fail(err, EINVAL, "%s: a build id of %u bytes", name,
					     (unsigned)nh.n_descsz);
				break;
			}
			hk_hex((const uint8_t *)d->d_buf + desc_off, nh.n_descsz, hex);
			rc = 0;
		}
	}
	elf_end(elf);
	if (rc == -ENOENT)
		hk_fail(err, ENOENT, "%s: no GNU build id", name);
	return rc;
}

/* A copy of the NUL-terminated string at `off` of a string table, or NULL if it runs out. */
static char *strtab_string(const Elf_Data *strtab, uint64_t off)
{
	if (!strtab || off >= strtab->d_size)
		return NULL;
	const char *s = (const char *)strtab->d_buf + off;
	size_t room = strtab->d_size - (size_t)off;
	size_t len = strnlen(s, room);
	if (len == room)
		return NULL;
	return hk_xstrdup(s);
}

/* The loader finds the dynamic string table by its virtual address (DT_STRTAB), not through
 * section headers, which a stripped file may lack; map it back through the PT_LOAD segments. */
static int vaddr_to_offset(Elf *elf, size_t phnum, uint64_t vaddr, uint64_t size, uint64_t *off)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz &&
		    size <= ph.p_filesz - (vaddr - ph.p_vaddr)) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -1;
}

static int read_dynamic(Elf *elf, size_t phnum, const GElf_Phdr *dyn_ph, const char *name,
			struct hk_exec_info *out, struct hk_error *err)
{
	Elf_Data *dyn = elf_getdata_rawchunk(elf, (int64_t)dyn_ph->p_offset, dyn_ph->p_filesz,
					     ELF_T_DYN);
	if (!dyn)
		return fail_libelf(err, name, "cannot read PT_DYNAMIC");

	uint64_t strtab_addr = 0, strsz = 0;
	bool have_strtab = false, have_strsz = false;
	int64_t rpath_off = -1, runpath_off = -1, soname_off = -1;
	size_t n_needed = 0;
	/* First pass: locate the string table and count entries. */
	GElf_Dyn d;
	for (int i = 0; gelf_getdyn(dyn, i, &d) && d.d_tag != DT_NULL; i++) {
		switch (d.d_tag) {
		case DT_STRTAB: strtab_addr = d.d_un.d_ptr; have_strtab = true; break;
		case DT_STRSZ: strsz = d.d_un.d_val; have_strsz = true; break;
		case DT_NEEDED: n_needed++; break;
		case DT_RPATH: rpath_off = (int64_t)d.d_un.d_val; break;
		case DT_RUNPATH: runpath_off = (int64_t)d.d_un.d_val; break;
		case DT_SONAME: soname_off = (int64_t)d.d_un.d_val; break;
		case DT_FLAGS_1: out->nodeflib = (d.d_un.d_val & DF_1_NODEFLIB) != 0; break;
		default: break;
		}
	}
	if (n_needed == 0 && rpath_off < 0 && runpath_off < 0 && soname_off < 0)
		return 0;
	if (!have_strtab || !have_strsz)
		return hk_fail(err, EINVAL, "%s: dynamic section names strings but has no %s", name,
			       have_strtab ? "DT_STRSZ" : "DT_STRTAB");
	uint64_t strtab_off;
	if (vaddr_to_offset(elf, phnum, strtab_addr, strsz, &strtab_off) < 0)
		return hk_fail(err, EINVAL,
			       "%s: DT_STRTAB 0x%llx (size %llu) lies outside every PT_LOAD segment",
			       name, (unsigned long long)strtab_addr, (unsigned long long)strsz);
	Elf_Data *strtab = elf_getdata_rawchunk(elf, (int64_t)strtab_off, strsz, ELF_T_BYTE);
	if (!strtab)
		return fail_libelf(err, name, "cannot read the dynamic string table");

	out->needed = hk_xcalloc(n_needed ? n_needed : 1, sizeof(*out->needed));
	for (int i = 0; gelf_getdyn(dyn, i, &d) && d.d_tag != DT_NULL; i++) {
		if (d.d_tag != DT_NEEDED)
			continue;
		char *s = strtab_string(strtab, d.d_un.d_val);
		if (!s || !*s) {
			free(s);
			return hk_fail(err, EINVAL, "%s: DT_NEEDED entry %zu has an invalid name",
				       name, out->n_needed + 1);
		}
		out->needed[out->n_needed++] = s;
	}
	struct {
		int64_t off;
		char **dst;
		const char *tag;
	} strings[] = {
		{ rpath_off, &out->rpath, "DT_RPATH" },
		{ runpath_off, &out->runpath, "DT_RUNPATH" },
		{ soname_off, &out->soname, "DT_SONAME" },
	};
	for (size_t k = 0; k < HK_ARRAY_LEN(strings); k++) {
		if (strings[k].off < 0)
			continue;
		*strings[k].dst = strtab_string(strtab, (uint64_t)strings[k].off);
		if (!*strings[k].dst)
			return hk_fail(err, EINVAL, "%s: %s points outside the string table", name,
				       strings[k].tag);
	}
	return 0;
}

static int read_elf(int fd, const char *name, struct hk_exec_info *out, struct hk_error *err)
{
	int r = elf_setup(err);
	if (r < 0)
		return r;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return fail_libelf(err, name, "cannot open as ELF");
	r = 0;
	GElf_Ehdr eh;
	size_t phnum = 0;
	if (elf_kind(elf) != ELF_K_ELF) {
		r = hk_fail(err, ENOEXEC, "%s: not an ELF object", name);
		goto end_elf;
	}
	if (!gelf_getehdr(elf, &eh)) {
		r = fail_libelf(err, name, "cannot read the ELF header");
		goto end_elf;
	}
	out->format = HK_EXEC_ELF;
	ident_from_ehdr(&eh, &out->ident);
	out->elf_type = eh.e_type;
	if (elf_getphdrnum(elf, &phnum) != 0) {
		r = fail_libelf(err, name, "cannot count program headers");
		goto end_elf;
	}
	for (size_t i = 0; i < phnum && r == 0; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph)) {
			r = fail_libelf(err, name, "cannot read a program header");
			break;
		}
		if (ph.p_type == PT_INTERP) {
			Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
							   ELF_T_BYTE);
			if (!d) {
				r = fail_libelf(err, name, "cannot read PT_INTERP");
				break;
			}
			size_t len = strnlen(d->d_buf, d->d_size);
			if (len == 0 || len == d->d_size) {
				r = hk_fail(err, EINVAL, "%s: PT_INTERP is not a NUL-terminated path",
					    name);
				break;
			}
			free(out->interp);
			out->interp = hk_xstrdup(d->d_buf);
		} else if (ph.p_type == PT_DYNAMIC) {
			if (out->needed || out->rpath || out->runpath || out->soname) {
				r = hk_fail(err, EINVAL, "%s: more than one PT_DYNAMIC", name);
				break;
			}
			r = read_dynamic(elf, phnum, &ph, name, out, err);
		}
	}
end_elf:
	elf_end(elf);
	if (r < 0)
		hk_exec_info_free(out);
	return r;
}

int hk_exec_read_fd(int fd, const char *name, struct hk_exec_info *out, struct hk_error *err)
{
	*out = (struct hk_exec_info)HK_EXEC_INFO_INIT;
	/* Zero-padded like the kernel's buffer when the file is shorter. */
	char buf[SHEBANG_BUF_SIZE] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return hk_fail_errno(err, errno, "%s: read", name);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!')
		return parse_shebang(buf, name, out, err);
	if (n >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0)
		return read_elf(fd, name, out, err);
	return hk_fail(err, ENOEXEC, "%s: neither an ELF object nor a \"#!\" script", name);
}

/* ---- search paths ------------------------------------------------------------------------ */

/* Length of the token name at `p` (just after '$') if it is `token`, else 0; accepts the
 * braced form.  Like the loader, a bare token must end at '/' or the end of the entry. */
static size_t match_dst(const char *p, const char *token)
{
	size_t len = strlen(token);
	if (p[0] == '{') {
		if (strncmp(p + 1, token, len) == 0 && p[1 + len] == '}')
			return len + 2;
		return 0;
	}
	if (strncmp(p, token, len) == 0 && (p[len] == '\0' || p[len] == '/'))
		return len;
	return 0;
}

static int expand_entry(const char *entry, size_t n, const char *origin,
			const struct hk_elf_ident *id, const char *object, struct hk_buf *out,
			struct hk_error *err)
{
	hk_buf_reset(out);
	for (size_t i = 0; i < n; i++) {
		if (entry[i] != '$') {
			hk_buf_putc(out, entry[i]);
			continue;
		}
		hk_autofree char *rest = hk_xstrndup(entry + i + 1, n - i - 1);
		size_t k;
		if ((k = match_dst(rest, "ORIGIN"))) {
			hk_buf_puts(out, origin);
		} else if ((k = match_dst(rest, "LIB"))) {
			const char *triplet = hk_elf_multiarch_triplet(id);
			if (!triplet)
				return hk_fail(err, EINVAL,
					       "%s: search path uses $LIB, but harkaq knows no "
					       "multiarch directory for its machine", object);
			hk_buf_printf(out, "lib/%s", triplet);
		} else if ((k = match_dst(rest, "PLATFORM"))) {
			return hk_fail(err, EINVAL,
				       "%s: search path uses $PLATFORM, which names the running CPU; "
				       "no file list can be derived from it", object);
		} else {
			/* Not a token the loader knows: it keeps the '$' literally. */
			hk_buf_putc(out, '$');
			continue;
		}
		i += k;
	}
	return 0;
}

int hk_elf_expand_search_path(const char *value, const char *origin,
			      const struct hk_elf_ident *id, const char *object,
			      struct hk_strset *dirs, struct hk_error *err)
{
	struct hk_buf dir = HK_BUF_INIT;
	int r = 0;
	const char *p = value;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		r = expand_entry(p, n, origin, id, object, &dir, err);
		if (r < 0)
			break;
		/* The loader drops trailing slashes; keep "/" itself. */
		while (dir.len > 1 && dir.data[dir.len - 1] == '/')
			dir.data[--dir.len] = '\0';
		if (dir.len == 0 || dir.data[0] != '/') {
			r = hk_fail(err, EINVAL,
				    "%s: search path entry \"%.*s\" is relative; the loader would "
				    "resolve it against the build's working directory", object, (int)n, p);
			break;
		}
		hk_strset_add(dirs, hk_buf_str(&dir));
		if (!colon)
			break;
		p = colon + 1;
	}
	hk_buf_free(&dir);
	return r;
}
