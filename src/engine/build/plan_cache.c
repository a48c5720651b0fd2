/* Kept plans in the store: the program's identity and the files (plan_cache.h). */
#include "engine/build/plan_cache.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core/basic/blake3.h"
#include "core/formats/elf.h"
#include "core/basic/file.h"
#include "core/basic/util.h"
#include "engine/common/proc.h"

struct code_walk {
	struct hk_buf ids;      /* one build id per object, hex, a line each */
	uintptr_t vdso;         /* the kernel's vDSO image (AT_SYSINFO_EHDR), or 0 */
	bool missing;           /* an object without a build id */
};

/* Appends the object's GNU build id (NT_GNU_BUILD_ID in a PT_NOTE segment); false when it
 * has none. */
static bool add_build_id(const struct dl_phdr_info *info, struct hk_buf *ids)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const unsigned char *desc =
				(const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
			const char *next = (const char *)desc + ((n->n_descsz + 3) & ~3u);
			if (next > end || next <= p)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz > 0) {
				for (unsigned k = 0; k < n->n_descsz; k++)
					hk_buf_printf(ids, "%02x", desc[k]);
				hk_buf_putc(ids, '\n');
				return true;
			}
			p = next;
		}
	}
	return false;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct code_walk *w = arg;
	if (add_build_id(info, &w->ids))
		return 0;
	/* The vDSO is the kernel's, not code of harkaq's: one without an id does not stop the
	 * cache.  Its program headers lie inside its image. */
	uintptr_t ph = (uintptr_t)info->dlpi_phdr;
	if (w->vdso && ph >= w->vdso && ph - w->vdso < 65536)
		return 0;
	w->missing = true;
	return 0;
}

const char *hk_plan_cache_code_id(void)
{
	static bool done;
	static char id[HK_B3_ID_LEN];
	static bool have;
	if (!done) {
		struct code_walk w = { .ids = HK_BUF_INIT, .vdso = getauxval(AT_SYSINFO_EHDR) };
		dl_iterate_phdr(each_object, &w);
		have = !w.missing && w.ids.len > 0;
		if (have)
			hk_b3_id(w.ids.data, w.ids.len, id);
		hk_buf_free(&w.ids);
		done = true;
	}
	return have ? id : NULL;
}

int hk_code_id_with_helpers(char out[HK_B3_ID_LEN], struct hk_error *err)
{
	const char *self = hk_plan_cache_code_id();
	if (!self)
		return hk_fail(err, ENOENT, "harkaq, or a library loaded with it, has no GNU build "
			       "id (linked without --build-id): its code cannot be told from "
			       "another's");
	static const char *const helpers[] = { "harkaq-exec", "harkaq-audit" };
	struct hk_buf text = HK_BUF_INIT;
	hk_buf_printf(&text, "harkaq %s\n", self);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < HK_ARRAY_LEN(helpers); i++) {
		char *path = NULL;
		struct hk_error missing;
		if (hk_helper_path(helpers[i], &path, &missing) < 0) {
			hk_buf_printf(&text, "%s absent\n", helpers[i]);
			continue;
		}
		char id[2 * 64 + 1];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		rc = fd < 0 ? hk_fail_errno(err, errno, "cannot open %s", path)
			    : hk_elf_build_id_fd(fd, path, id, sizeof(id), err);
		if (fd >= 0)
			close(fd);
		if (rc == 0)
			hk_buf_printf(&text, "%s %s\n", helpers[i], id);
		free(path);
	}
	if (rc == 0)
		hk_b3_id(text.data, text.len, out);
	hk_buf_free(&text);
	return rc;
}

static char *cache_path(struct hk_store *s, const char *kind, const char *key)
{
	/* "b3:<hex>": the file is named by the hex alone. */
	return hk_xasprintf("%s/.cache/%s/%s", hk_store_dir(s), kind,
			    strncmp(key, "b3:", 3) == 0 ? key + 3 : key);
}

int hk_plan_cache_read(struct hk_store *s, const char *kind, const char *key, struct hk_buf *out,
		       char **path)
{
	*path = cache_path(s, kind, key);
	struct hk_error ignored;
	return hk_file_read(*path, out, &ignored) < 0 ? -ignored.code : 0;
}

void hk_plan_cache_write(struct hk_store *s, const char *kind, const char *key,
			 const struct hk_buf *text)
{
	hk_autofree char *path = cache_path(s, kind, key);
	hk_autofree char *dir = hk_xstrdup(path);
	*strrchr(dir, '/') = '\0';
	struct hk_error ignored;
	if (hk_mkdir_p(dir, &ignored) == 0 &&
	    hk_file_write_atomic(path, text->data, text->len, 0644, &ignored) < 0) {
		/* the next build derives again */
	}
}
