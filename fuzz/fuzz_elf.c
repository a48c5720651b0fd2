/* The ELF and "#!" reader behind the derived base runtime and `harkaq run`'s program
 * closure: it reads binaries of the base root and of the store, which come from outside.
 * The bytes go into a memfd, as a file would be read. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/formats/elf.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	size_t off = 0;
	while (off < size) {
		ssize_t w = pwrite(fd, data + off, size - off, (off_t)off);
		FUZZ_CHECK(w > 0);
		off += (size_t)w;
	}
	struct hk_exec_info info = HK_EXEC_INFO_INIT;
	struct hk_error err;
	if (hk_exec_read_fd(fd, "fuzz.bin", &info, &err) == 0)
		hk_exec_info_free(&info);
	struct hk_elf_ident id;
	(void)hk_elf_read_ident_fd(fd, "fuzz.bin", &id, &err);
	return 0;
}
