/* The files a build opened among those its policy allowed (docs/debian-builds.md, "The
 * report"): the converse of a missing Build-Depends — a declared one none of whose files was
 * opened — needs them, and Landlock reports only what it denies.  fanotify (sys/openwatch.h)
 * reports every open and execution on the filesystems of the merged views harkaq mounted for
 * the build: overlays of its own, which only this build's sandbox uses.
 *
 * What it sees (kernel-facts.md §12): successful opens (read, write, O_PATH excepted) and
 * executions of files in the merged system directories, through any mount of them.  What it does not: stat, access, readlink, listing (existence
 * checks); files of a top-level directory the sandbox binds without an overlay; /var/lib/dpkg,
 * /src, /tmp.  A thread drains the events while the phases run. */
#ifndef HK_ENGINE_READS_H
#define HK_ENGINE_READS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/basic/inos.h"
#include "engine/cage/sandbox.h"
#include "core/basic/error.h"
#include "core/basic/strset.h"

struct hk_reads {
	int fd;                        /* the fanotify descriptor, -1 when not started */
	int stop[2];                   /* a pipe: the thread stops when it is readable */
	pthread_t thread;
	bool running;
	char **host, **sandbox;        /* merged view mount point -> sandbox top ("/usr") */
	size_t n_tops;
	/* The files of the views' layers, by inode: NULL when a layer was not counted or the
	 * layers are on more than one filesystem (an inode number then names no one file). */
	const struct hk_inos *inos;
	/* After hk_reads_stop: */
	struct hk_strset paths;        /* sandbox paths opened, deduplicated */
	uint64_t events;
	bool overflow;                 /* the kernel dropped events: the set is incomplete */
};

/* Starts watching the overlays of `plan` (mounted).  `inos` (borrowed until hk_reads_stop;
 * NULL: none) counts the files of the overlays' layers, the trees the build verified
 * (hk_build_verify_inputs): a file opened whose inode has one name among them is reported
 * once, whatever its link count (core/basic/inos.h).  On failure nothing runs and err says why (a
 * kernel without fanotify, no CAP_SYS_ADMIN). */
HK_MUST_CHECK int hk_reads_start(struct hk_reads *r, const struct hk_sandbox_plan *plan,
				 const struct hk_inos *inos, struct hk_error *err);
/* Drains what is left and stops the thread (idempotent). */
void hk_reads_stop(struct hk_reads *r);
void hk_reads_free(struct hk_reads *r);

#endif
