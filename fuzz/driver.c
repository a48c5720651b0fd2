/* The regression driver: replays files through a harness without libFuzzer, so that the
 * saved corpus (fuzz/corpus/NAME/, crashers included) runs under ASan+UBSan with any C
 * compiler, quickly, in CI (tests/integration/fuzz_regress.sh).
 *
 *   fuzz_NAME-replay FILE|DIR...       exit 0 when every input ran; a sanitizer aborts */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

static long n_run;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	/* An exact-size copy, as libFuzzer gives, so an overread is caught. */
	unsigned char *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	n_run++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **names;
	int k = scandir(path, &names, NULL, alphasort);
	if (k < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < k; i++) {
		if (names[i]->d_name[0] != '.') {
			char *p = malloc(strlen(path) + strlen(names[i]->d_name) + 2);
			sprintf(p, "%s/%s", path, names[i]->d_name);
			if (run_path(p) < 0)
				rc = -1;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) < 0)
			rc = 1;
	printf("%ld inputs replayed\n", n_run);
	return rc;
}
