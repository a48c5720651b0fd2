/* Shared by the fuzz harnesses (fuzz/fuzz_*.c): the libFuzzer entry point, and a check that
 * aborts (so the fuzzer and the regression driver both report it) when an invariant a harness
 * asserts does not hold.  Harnesses never print: the bytes are hostile, the output is noise. */
#ifndef HK_FUZZ_H
#define HK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                            \
		}                                                                           \
	} while (0)

#endif
