/* What the steps of a Debian build share (engine/debian/build_dsc.h): build_dsc.c drives them; the
 * closure, its imports and the dpkg state are dsc_closure.c's; the converse is
 * dsc_converse.c's.  Internal to those three files. */
#ifndef HK_ENGINE_DSC_INT_H
#define HK_ENGINE_DSC_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/debian/dsc_common.h"
#include "engine/common/proc.h"
#include "core/debian/deb.h"
#include "core/basic/strv.h"

/* A step run in a thread beside the steps that do not need its answer (build_dsc.c's
 * side_start and side_join). */
struct dsc_side {
	pthread_t thread;
	bool started, joined;
};

/* dpkg-source -x of the source, run beside the steps that do not need it (build_dsc.c). */
struct dsc_unpack {
	struct dsc_side side;
	char *dest;                 /* where it unpacks: src/<source>-<upstream version> */
	long long ms;               /* how long it took, start to end */
	/* What the thread found, read once joined: 0 and the changelog's date, or the
	 * failure. */
	int rc;
	struct hk_error err;
	char *source_date_epoch;
	bool date_from_changelog;   /* read by harkaq, not asked of dpkg-parsechangelog */
};

/* dpkg-architecture, run in a thread beside the base's opening (build_dsc.c). */
struct dsc_host_arch_run {
	struct dsc_side side;
	int rc;                     /* hk_run_capture's, read once joined */
	struct hk_error err;
	struct hk_run_result res;
};

/* Everything one Debian build holds while it runs. */
struct dsc_build {
	const struct hk_build_opts *bo;
	const struct hk_dsc_opts *o;
	struct hk_dsc_result *r;
	struct hk_error *err;
	struct hk_store *store;
	const struct hk_artifact *base;
	/* The .dsc built: the one given, or the one made from a tree or fetched by name
	 * (dsc_source.c), which errors name. */
	const char *dsc_file;
	char *dsc_made;             /* that .dsc when made or fetched (owned), else NULL */
	char *dsc_dir;              /* the directory of the .dsc: its files lie there */
	char *recipe_dir, *src_parent, *debs_dir;
	struct hk_deb_arch host;
	char host_strings[5][64];
	struct hk_deb_rel_group *groups[HK_DSC_FIELD_COUNT];
	size_t n_groups[HK_DSC_FIELD_COUNT];
	struct hk_deb_stanza *base_status;  /* the base's installed packages */
	size_t n_base_status;
	const struct hk_artifact **closure_arts;
	const struct hk_artifact *state;
	struct hk_strv dpkg_db_files;
	char *dpkg_db;
	bool work_made;
	struct dsc_unpack unpack;
	struct dsc_host_arch_run arch_run;
	/* The unpacking and the expectations it brings, once joined (dsc_source_join): 0 or
	 * the failure, which is the build's. */
	int source_rc;
	bool source_joined;
	/* The engine's environment, whose SOURCE_DATE_EPOCH slot the join fills. */
	struct hk_strv engine_env;
	size_t sde_slot;
};

/* The front end's work directory, made once (dsc_source.c). */
HK_MUST_CHECK int dsc_make_work(struct dsc_build *b);

/* What --dsc names, made a .dsc (dsc_source.c; docs/debian-builds.md, "What --dsc takes"): a
 * .dsc file is taken as it is; an unpacked source tree is made a source package with
 * `dpkg-source -b`, and a NAME[=VERSION] fetched as `apt-get source` fetches it, both into
 * the work directory.  Sets b->dsc_file (and r->dsc_made_from); bad input is said so. */
HK_MUST_CHECK int dsc_source_package(struct dsc_build *b);

/* What every Debian build may use without declaring it besides the Essential packages
 * (dsc_closure.c says why). */
#define DSC_N_IMPLICIT 2
extern const char *const dsc_implicit_deps[DSC_N_IMPLICIT];

static inline bool dsc_is_conflicts(enum hk_dsc_field f)
{
	return f >= HK_DSC_BUILD_CONFLICTS;
}

/* "[dsc] …" on stderr unless --quiet. */
void dsc_say(const struct dsc_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* dsc_closure.c: the base and its package database; the fields used, reduced; the closure apt
 * resolves; --see; the imports and the dpkg state.  Each returns 0 or -errno with b->err. */
HK_MUST_CHECK int dsc_open_base(struct dsc_build *b);
/* That the base is of the architecture the build is for (b->host, read after the base). */
HK_MUST_CHECK int dsc_check_base_arch(struct dsc_build *b);
HK_MUST_CHECK int dsc_reduce_fields(struct dsc_build *b);
HK_MUST_CHECK int dsc_resolve_closure(struct dsc_build *b);
HK_MUST_CHECK int dsc_import_visible(struct dsc_build *b);
HK_MUST_CHECK int dsc_import_closure(struct dsc_build *b);
/* A stanza of the base's status file whose package is installed. */
bool dsc_installed(const struct hk_deb_stanza *st);
/* The base's installed package named `name`, or providing it (*virtual_ then true), or NULL. */
const struct hk_deb_stanza *dsc_base_pkg(const struct dsc_build *b, const char *name,
					 bool *virtual_);
bool dsc_closure_has(const struct hk_dsc_result *r, const char *name);

/* dsc_converse.c: the used Build-Depends none of whose declared packages had a file opened
 * (into b->r). */
HK_MUST_CHECK int dsc_find_unread(struct dsc_build *b);

/* dsc_decide.c: --decide-probes.  The first build ran with its /out kept at `first_out`; the
 * extra builds run with the engine options `eo` (the first build's).  Fills b->r->decide;
 * a build that cannot be run is said there, never taken for an answer.  Returns 0, or -errno
 * when the work directory cannot be used. */
HK_MUST_CHECK int dsc_decide_probes(struct dsc_build *b, const struct hk_build_opts *eo, const char *first_out);
void dsc_decide_free(struct hk_dsc_decide *d);

/* dsc_log_aclocal.c: the build's stderr, copied to the user's and kept while the engine runs; the
 * store packages whose /usr/share/aclocal files define a macro it says was missing (into
 * b->r->macro_needs). */
struct dsc_log {
	struct hk_buf text;         /* what came, its tail when long */
	int saved_err, pipe_r, stop[2];
	pthread_t thread;
	bool on;
};
HK_MUST_CHECK int dsc_log_start(struct dsc_log *l, struct hk_error *err);
/* stderr is the user's again; the text stays. */
void dsc_log_stop(struct dsc_log *l);
void dsc_log_free(struct dsc_log *l);
HK_MUST_CHECK int dsc_find_macro_needs(struct dsc_build *b, const struct dsc_log *log);
/* The findings named from the log (r->macro_needs), kept by both of its readers: whether
 * `package` is already named for `name` of that kind, and one more (copied). */
bool dsc_log_need_named(const struct hk_dsc_result *r, const char *package,
			enum hk_dsc_log_kind kind, const char *name);
void dsc_log_need_add(struct hk_dsc_result *r, const struct hk_artifact *a,
		      enum hk_dsc_log_kind kind, const char *name, const char *file,
		      const char *dir, const char *line);

/* dsc_log_ldconf.c: the store packages whose /etc/ld.so.conf.d file names the directory of a
 * library the log says was not found (into b->r->macro_needs). */
HK_MUST_CHECK int dsc_find_library_needs(struct dsc_build *b, const struct dsc_log *log);

#endif
