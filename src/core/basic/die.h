/* The last words of a process that cannot go on: out of memory, or a bug in the caller that
 * continuing would turn into wrong output (an unfinished policy encoded, invalid JSON).
 *
 * The one write of the pure core (tests/integration/core_pure.sh lists it as its only
 * exception): a line on descriptor 2, then abort().  Not an error path: errors are returned
 * (core/basic/error.h); this is for states no caller can report honestly around. */
#ifndef HK_DIE_H
#define HK_DIE_H

/* Writes "harkaq: <what><detail>\n" to descriptor 2 (detail may be NULL) and aborts.  Formats
 * nothing and allocates nothing, so it works when memory is exhausted. */
__attribute__((noreturn)) void hk_die(const char *what, const char *detail);

#endif
