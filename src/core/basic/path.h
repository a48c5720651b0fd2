/* Paths as strings: lexical operations, no file system access. */
#ifndef HK_CORE_PATH_H
#define HK_CORE_PATH_H

/* Resolves `target` of a symlink at `link_path` to an absolute, normalised path (no symlink
 * resolution beyond the lexical: "..", "." and "//" are folded).  Returns malloc'd string. */
char *hk_path_join_normalise(const char *link_path, const char *target);

#endif
