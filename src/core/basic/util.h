/* Small shared helpers: cleanup attributes and ownership transfer. */
#ifndef HK_UTIL_H
#define HK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

static inline void hk_freep(void *p)
{
	free(*(void **)p);
}

static inline void hk_closep(int *fd)
{
	/* Never retried on EINTR: on Linux the descriptor is gone either way. */
	if (*fd >= 0)
		close(*fd);
}

#define hk_autofree  __attribute__((cleanup(hk_freep)))
#define hk_autoclose __attribute__((cleanup(hk_closep)))

/* Takes ownership out of a cleanup-managed variable. */
#define hk_steal_ptr(pp) __extension__({ __typeof__(*(pp)) _v = *(pp); *(pp) = NULL; _v; })
#define hk_steal_fd(pfd) __extension__({ int _fd = *(pfd); *(pfd) = -1; _fd; })

#define HK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Aborts on allocation failure: out of memory is not a condition harkaq can report honestly
 * around, and checking every small allocation in the same way is error-prone. */
void *hk_xmalloc(size_t n);
void *hk_xcalloc(size_t n, size_t size);
void *hk_xrealloc(void *p, size_t n);
char *hk_xstrdup(const char *s);
char *hk_xstrndup(const char *s, size_t n);
/* Exactly n bytes (which may include NUL, unlike hk_xstrndup), then a terminating NUL. */
char *hk_xmemdupz(const void *p, size_t n);
char *hk_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The next line of text[0..len) from *pos, for readers of logs and small line formats: *line
 * and its length *n, without its '\n' nor the '\r's before it; *pos moves past it.  False
 * once *pos has reached len. */
bool hk_text_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n);

#endif
