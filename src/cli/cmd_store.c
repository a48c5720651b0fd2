/* harkaq store: the content-addressed store (docs/store.md) — add trees, import Debian
 * packages, list, look up path providers, verify.
 *
 * Debian tools (dpkg-deb, apt-get, apt-cache, sha256sum) run on the host through fork/exec with
 * an argv, never through a shell, so a file name is never interpreted. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/blake3.h"
#include "core/buf.h"
#include "core/deb.h"
#include "core/error.h"
#include "core/json.h"
#include "core/store.h"
#include "core/tree.h"
#include "core/usrmerge.h"
#include "core/util.h"
#include "sys/verity.h"

static const char store_usage[] =
	"usage: harkaq store [--store DIR] SUBCOMMAND [ARGS...]\n"
	"\n"
	"The content-addressed store of artifacts: each artifact is a tree laid out as it appears\n"
	"in the sandbox (STORE/<blake3-hex>-<name>/usr/...), with its name, version and runtime\n"
	"dependencies.  Layout and formats: docs/store.md.\n"
	"\n"
	"subcommands:\n"
	"  add DIR --name N --version V [--dep NAME[|ALT...]]... [--provides NAME]...\n"
	"                      add the tree DIR as an artifact (a no-op if already present)\n"
	"  import-deb FILE.deb...\n"
	"                      unpack Debian packages (dpkg-deb) and add each as an artifact named\n"
	"                      after the package, with its Depends and Pre-Depends as runtime deps\n"
	"  import-apt NAME[=VERSION]... [--with-deps] [--include-base] [--base-root DIR]\n"
	"                      download packages with 'apt-get download' (on the host) and import\n"
	"                      them; --with-deps also imports their dependencies, recursively,\n"
	"                      except those already in the store and those of the base root's\n"
	"                      pseudo-essential set (Essential/Priority: required packages and what\n"
	"                      they depend on, read from DIR/var/lib/dpkg/status, DIR defaulting\n"
	"                      to /); --include-base imports those too\n"
	"  list [--json]       every artifact: id, name, version, file count\n"
	"  show ID             an artifact's metadata (JSON)\n"
	"  files ID            an artifact's entries: d DIR, f FILE, x EXECUTABLE, l LINK -> TARGET\n"
	"  which PATH...       the artifacts that provide each sandbox path (/usr/bin/make)\n"
	"  closure ID... [--base-root DIR] [--base NAME]...\n"
	"                      the transitive runtime closure; a dep the store lacks is accepted\n"
	"                      only if the base root (dpkg status of DIR) or --base provides it\n"
	"  seal [ID...]        enable fs-verity on every file of artifacts (all by default) and\n"
	"                      record each file's fs-verity digest (docs/sealing.md); refused,\n"
	"                      with nothing recorded, on a filesystem without fs-verity\n"
	"  verify [ID...]      re-hash artifacts (all by default) and, for sealed ones, measure\n"
	"                      their fs-verity digests again; report any tampering\n"
	"  reindex             rebuild the path index from every artifact's manifest\n"
	"\n"
	"ID is a name, NAME=VERSION, an id or id prefix (b3:1f2e... or at least 8 hex digits),\n"
	"or the directory name <hex>-<name>.  The store is --store DIR, else $HARKAQ_STORE,\n"
	"else ./store.\n"
	"\n"
	"exit status: 0 success; 1 'which' found no provider for some path; 64 usage error;\n"
	"65 bad input (a malformed package, an unknown or ambiguous ID, a tampered artifact);\n"
	"70 environment error (a tool failed, I/O).\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "harkaq store: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'harkaq store --help')\n");
	return HK_EXIT_USAGE;
}

static int fail_exit(const struct hk_error *err)
{
	fprintf(stderr, "harkaq store: %s\n", err->msg);
	switch (err->code) {
	case EINVAL:
	case EBADMSG:
	case ENOENT:
	case EEXIST:
	case ELOOP:
	case ENOTDIR:
		return HK_EXIT_DATAERR;
	default:
		return HK_EXIT_SOFTWARE;
	}
}

/* ---- running host tools ------------------------------------------------------------------- */

struct prog_result {
	int status;              /* exit status; 128+signal if killed */
	struct hk_buf out, errout;
};

static void prog_result_free(struct prog_result *r)
{
	hk_buf_free(&r->out);
	hk_buf_free(&r->errout);
}

/* First line of a tool's stderr, for a one-sentence error. */
static const char *first_line(struct hk_buf *b, char *line, size_t size)
{
	const char *s = hk_buf_str(b);
	while (*s == '\n')
		s++;
	size_t n = strcspn(s, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(line, s, n);
	line[n] = '\0';
	return line[0] ? line : "(no message)";
}

/* Runs argv[0] (looked up in PATH) with stdin from /dev/null, collecting stdout and stderr.
 * Returns 0 when the program ran (whatever its exit status, in res->status), or an error when
 * it could not be started. */
static int run_prog(const char *const *argv, const char *cwd, struct prog_result *res,
		    struct hk_error *err)
{
	memset(res, 0, sizeof(*res));
	int out_p[2], err_p[2], exec_p[2];
	if (pipe2(out_p, O_CLOEXEC) < 0)
		return hk_fail_errno(err, errno, "cannot run %s", argv[0]);
	if (pipe2(err_p, O_CLOEXEC) < 0) {
		int e = errno;
		close(out_p[0]);
		close(out_p[1]);
		return hk_fail_errno(err, e, "cannot run %s", argv[0]);
	}
	if (pipe2(exec_p, O_CLOEXEC) < 0) {
		int e = errno;
		close(out_p[0]);
		close(out_p[1]);
		close(err_p[0]);
		close(err_p[1]);
		return hk_fail_errno(err, e, "cannot run %s", argv[0]);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(out_p[0]);
		close(out_p[1]);
		close(err_p[0]);
		close(err_p[1]);
		close(exec_p[0]);
		close(exec_p[1]);
		return hk_fail_errno(err, e, "cannot run %s", argv[0]);
	}
	if (pid == 0) {
		int e = 0;
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_p[1], 1) < 0 ||
		    dup2(err_p[1], 2) < 0)
			e = errno;
		else if (cwd && chdir(cwd) < 0)
			e = errno;
		if (e == 0) {
			/* The argv is only read by execvp; the cast drops the const the exec family
			 * never had. */
			execvp(argv[0], (char *const *)(uintptr_t)argv);
			e = errno;
		}
		ssize_t w = write(exec_p[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	close(out_p[1]);
	close(err_p[1]);
	close(exec_p[1]);
	struct pollfd fds[2] = { { out_p[0], POLLIN, 0 }, { err_p[0], POLLIN, 0 } };
	struct hk_buf *bufs[2] = { &res->out, &res->errout };
	int open_fds = 2;
	char buf[1 << 14];
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0) {
				hk_buf_append(bufs[i], buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int exec_errno = 0;
	ssize_t n = read(exec_p[0], &exec_errno, sizeof(exec_errno));
	close(exec_p[0]);
	if (n == (ssize_t)sizeof(exec_errno) && exec_errno) {
		prog_result_free(res);
		return hk_fail_errno(err, exec_errno, "cannot run %s", argv[0]);
	}
	res->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

/* ---- argument helpers ---------------------------------------------------------------------- */

struct strv {
	char **v;
	size_t n;
};

static void strv_push(struct strv *s, const char *x)
{
	s->v = hk_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = hk_xstrdup(x);
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static bool strv_has(const struct strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return true;
	return false;
}

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]; advances *i past the value. */
static bool take_value(int argc, char **argv, int *i, const char *opt, const char **value)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n) != 0)
		return false;
	if (argv[*i][n] == '=') {
		*value = argv[*i] + n + 1;
		return true;
	}
	if (argv[*i][n] != '\0')
		return false;
	if (*i + 1 >= argc) {
		*value = NULL;
		return true;
	}
	*value = argv[++*i];
	return true;
}

static bool is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* ---- Debian import ------------------------------------------------------------------------- */

static void json_relations(struct hk_json *j, const struct hk_deb_rel_group *g, size_t n)
{
	hk_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		hk_json_arr_begin(j);
		for (size_t k = 0; k < g[i].n; k++) {
			const struct hk_deb_rel *r = &g[i].alts[k];
			hk_json_obj_begin(j);
			hk_json_key(j, "name");
			hk_json_str(j, r->name);
			if (r->arch) {
				hk_json_key(j, "arch");
				hk_json_str(j, r->arch);
			}
			if (r->op) {
				hk_json_key(j, "op");
				hk_json_str(j, r->op);
				hk_json_key(j, "version");
				hk_json_str(j, r->version);
			}
			hk_json_obj_end(j);
		}
		hk_json_arr_end(j);
	}
	hk_json_arr_end(j);
}

static void json_opt_str(struct hk_json *j, const char *key, const char *v)
{
	hk_json_key(j, key);
	if (v)
		hk_json_str(j, v);
	else
		hk_json_null(j);
}

struct deb_relations {
	struct hk_deb_rel_group *depends, *pre_depends, *provides;
	size_t n_depends, n_pre_depends, n_provides;
};

static void deb_relations_free(struct deb_relations *r)
{
	hk_deb_relations_free(r->depends, r->n_depends);
	hk_deb_relations_free(r->pre_depends, r->n_pre_depends);
	hk_deb_relations_free(r->provides, r->n_provides);
	memset(r, 0, sizeof(*r));
}

static int sha256_of(const char *path, char out[65], struct hk_error *err)
{
	const char *argv[] = { "sha256sum", "--", path, NULL };
	struct prog_result res;
	int r = run_prog(argv, NULL, &res, err);
	if (r < 0)
		return r;
	const char *o = hk_buf_str(&res.out);
	bool ok = res.status == 0 && strlen(o) >= 64 && strspn(o, "0123456789abcdef") == 64;
	if (ok) {
		memcpy(out, o, 64);
		out[64] = '\0';
	} else {
		char line[256];
		r = hk_fail(err, EIO, "sha256sum %s failed: %s", path,
			    first_line(&res.errout, line, sizeof(line)));
	}
	prog_result_free(&res);
	return r;
}

/* Imports one .deb: control fields with `dpkg-deb -f`, files with `dpkg-deb -x` into a
 * temporary directory of the store, then hk_store_add (which moves it into place). */
static int import_deb(struct hk_store *s, const char *file, const struct hk_artifact **out,
		      bool *added, struct hk_error *err)
{
	hk_autofree char *path = realpath(file, NULL);
	if (!path)
		return hk_fail_errno(err, errno, "%s", file);
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return hk_fail(err, EINVAL, "%s is not a regular file", file);

	/* Absolute path: it starts with '/', so dpkg-deb can never read it as an option. */
	const char *ctl_argv[] = { "dpkg-deb", "-f", path, NULL };
	struct prog_result res;
	int r = run_prog(ctl_argv, NULL, &res, err);
	if (r < 0)
		return r;
	if (res.status != 0) {
		char line[512];
		r = hk_fail(err, EINVAL, "%s: not a readable Debian package (dpkg-deb -f: %s)", file,
			    first_line(&res.errout, line, sizeof(line)));
		prog_result_free(&res);
		return r;
	}
	struct hk_deb_stanza *stz = NULL;
	size_t n_stz = 0;
	hk_autofree char *ctl_name = hk_xasprintf("%s (control)", file);
	r = hk_deb_parse_control(hk_buf_str(&res.out), res.out.len, ctl_name, &stz, &n_stz, err);
	prog_result_free(&res);
	if (r < 0)
		return r;
	struct deb_relations rel = { 0 };
	struct hk_dep_group *deps = NULL;
	size_t n_deps = 0;
	struct strv provides = { 0 };
	char *tmp = NULL;
	struct hk_buf src = HK_BUF_INIT;
	const char *pkg = n_stz == 1 ? hk_deb_field(&stz[0], "Package") : NULL;
	const char *version = pkg ? hk_deb_field(&stz[0], "Version") : NULL;
	const char *arch = pkg ? hk_deb_field(&stz[0], "Architecture") : NULL;
	if (!pkg || !version || !arch) {
		r = hk_fail(err, EINVAL, "%s: the control data lacks Package, Version or "
			    "Architecture", file);
		goto out;
	}
	const char *depends = hk_deb_field(&stz[0], "Depends");
	const char *pre_depends = hk_deb_field(&stz[0], "Pre-Depends");
	const char *provides_f = hk_deb_field(&stz[0], "Provides");
	if (depends)
		r = hk_deb_parse_relations(depends, "Depends", &rel.depends, &rel.n_depends, err);
	if (r == 0 && pre_depends)
		r = hk_deb_parse_relations(pre_depends, "Pre-Depends", &rel.pre_depends,
					   &rel.n_pre_depends, err);
	if (r == 0 && provides_f)
		r = hk_deb_parse_relations(provides_f, "Provides", &rel.provides, &rel.n_provides,
					   err);
	if (r < 0) {
		hk_wrap(err, "%s", file);
		goto out;
	}
	/* Runtime deps are names only (docs/store.md): version constraints and architecture
	 * qualifiers stay in the recorded source, the store resolves by name. */
	deps = hk_xcalloc(rel.n_depends + rel.n_pre_depends + 1, sizeof(*deps));
	for (int which = 0; which < 2; which++) {
		const struct hk_deb_rel_group *g = which ? rel.pre_depends : rel.depends;
		size_t ng = which ? rel.n_pre_depends : rel.n_depends;
		for (size_t i = 0; i < ng; i++) {
			struct hk_dep_group *d = &deps[n_deps++];
			d->alts = hk_xcalloc(g[i].n, sizeof(char *));
			for (size_t k = 0; k < g[i].n; k++)
				d->alts[d->n_alts++] = hk_xstrdup(g[i].alts[k].name);
		}
	}
	for (size_t i = 0; i < rel.n_provides; i++)
		for (size_t k = 0; k < rel.provides[i].n; k++)
			strv_push(&provides, rel.provides[i].alts[k].name);

	char sha256[65];
	uint8_t b3[HK_BLAKE3_OUT_LEN];
	char b3hex[2 * HK_BLAKE3_OUT_LEN + 1];
	r = sha256_of(path, sha256, err);
	if (r == 0)
		r = hk_tree_hash_file(AT_FDCWD, path, file, b3, err);
	if (r < 0)
		goto out;
	hk_hex(b3, sizeof(b3), b3hex);

	struct hk_json j;
	hk_json_init(&j, &src, 0);
	hk_json_obj_begin(&j);
	hk_json_key(&j, "type");
	hk_json_str(&j, "deb");
	hk_json_key(&j, "file");
	const char *base = strrchr(path, '/');
	hk_json_bytes(&j, base + 1, strlen(base + 1));
	hk_json_key(&j, "sha256");
	hk_json_str(&j, sha256);
	hk_json_key(&j, "blake3");
	hk_json_str(&j, b3hex);
	hk_json_key(&j, "package");
	hk_json_str(&j, pkg);
	hk_json_key(&j, "version");
	hk_json_str(&j, version);
	hk_json_key(&j, "architecture");
	hk_json_str(&j, arch);
	json_opt_str(&j, "essential", hk_deb_field(&stz[0], "Essential"));
	json_opt_str(&j, "priority", hk_deb_field(&stz[0], "Priority"));
	json_opt_str(&j, "depends", depends);
	json_opt_str(&j, "pre_depends", pre_depends);
	json_opt_str(&j, "provides", provides_f);
	hk_json_key(&j, "relations");
	hk_json_obj_begin(&j);
	hk_json_key(&j, "depends");
	json_relations(&j, rel.depends, rel.n_depends);
	hk_json_key(&j, "pre_depends");
	json_relations(&j, rel.pre_depends, rel.n_pre_depends);
	hk_json_key(&j, "provides");
	json_relations(&j, rel.provides, rel.n_provides);
	hk_json_obj_end(&j);
	hk_json_obj_end(&j);

	r = hk_store_mktemp(s, &tmp, err);
	if (r < 0)
		goto out;
	const char *x_argv[] = { "dpkg-deb", "-x", path, tmp, NULL };
	r = run_prog(x_argv, NULL, &res, err);
	if (r == 0 && res.status != 0) {
		char line[512];
		r = hk_fail(err, EINVAL, "%s: dpkg-deb -x failed: %s", file,
			    first_line(&res.errout, line, sizeof(line)));
	}
	if (r == 0)
		prog_result_free(&res);
	/* Laid out as a merged-/usr sandbox sees it (Debian 12's base roots are merged). */
	if (r == 0 && hk_root_is_merged_usr("/")) {
		int m = hk_usrmerge_tree(tmp, err);
		if (m < 0)
			r = hk_wrap(err, "%s", file);
	}
	if (r < 0) {
		struct hk_error ignored;
		hk_store_remove_tree(tmp, &ignored);
		goto out;
	}
	struct hk_artifact_spec spec = {
		.name = pkg, .version = version, .deps = deps, .n_deps = n_deps,
		.provides = (const char *const *)provides.v, .n_provides = provides.n,
		.source_json = hk_buf_str(&src),
	};
	/* The temporary directory is consumed: moved into place, or removed on failure. */
	r = hk_store_add(s, tmp, &spec, HK_STORE_ADD_CONSUME, out, added, err);
	if (r < 0)
		hk_wrap(err, "%s", file);
out:
	free(tmp);
	hk_buf_free(&src);
	hk_dep_groups_free(deps, n_deps);
	strv_free(&provides);
	deb_relations_free(&rel);
	hk_deb_stanzas_free(stz, n_stz);
	return r;
}

static void print_added(const struct hk_artifact *a, bool added, const char *from)
{
	printf("%s %s %s %s (%zu files%s%s)\n", added ? "added" : "present", a->id, a->name,
	       a->version, a->file_count, from ? ", from " : "", from ? from : "");
}

/* ---- subcommands ----------------------------------------------------------------------- */

static int open_for(const char *dir, bool create, struct hk_store **s)
{
	struct hk_error err = { 0 };
	if (hk_store_open(hk_store_choose_dir(dir), create, s, &err) < 0)
		return fail_exit(&err);
	return 0;
}

static int sub_add(const char *store_dir, int argc, char **argv)
{
	const char *dir = NULL, *name = NULL, *version = NULL;
	struct strv deps = { 0 }, provides = { 0 };
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v = "";
		const char *opt = argv[i];
		if (is_help(opt)) {
			fputs(store_usage, stdout);
			goto done;
		} else if (take_value(argc, argv, &i, "--name", &v)) {
			name = v;
		} else if (take_value(argc, argv, &i, "--version", &v)) {
			version = v;
		} else if (take_value(argc, argv, &i, "--dep", &v)) {
			if (v)
				strv_push(&deps, v);
		} else if (take_value(argc, argv, &i, "--provides", &v)) {
			if (v)
				strv_push(&provides, v);
		} else if (opt[0] == '-') {
			rc = usage_error("add: unknown option '%s'", opt);
		} else if (dir) {
			rc = usage_error("add: one directory at a time ('%s' is extra)", opt);
		} else {
			dir = opt;
		}
		if (rc == 0 && !v)
			rc = usage_error("add: %s needs a value", opt);
	}
	if (rc)
		goto done;
	if (!dir || !name || !version) {
		rc = usage_error("add: DIR, --name and --version are required");
		goto done;
	}
	struct hk_dep_group *groups = hk_xcalloc(deps.n + 1, sizeof(*groups));
	for (size_t i = 0; i < deps.n; i++) {
		const char *p = deps.v[i];
		for (;;) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			hk_autofree char *alt = hk_xstrndup(p, len);
			char *a = alt, *e = alt + strlen(alt);
			while (*a == ' ')
				a++;
			while (e > a && e[-1] == ' ')
				*--e = '\0';
			groups[i].alts = hk_xrealloc(groups[i].alts,
						     (groups[i].n_alts + 1) * sizeof(char *));
			groups[i].alts[groups[i].n_alts++] = hk_xstrdup(a);
			if (!bar)
				break;
			p = bar + 1;
		}
	}
	struct hk_store *s = NULL;
	rc = open_for(store_dir, true, &s);
	if (rc == 0) {
		struct hk_artifact_spec spec = {
			.name = name, .version = version, .deps = groups, .n_deps = deps.n,
			.provides = (const char *const *)provides.v, .n_provides = provides.n,
		};
		/* Provenance of a hand-added tree: nothing beyond what the user said. */
		const char *source = "{\"type\":\"directory\"}";
		spec.source_json = source;
		const struct hk_artifact *a = NULL;
		bool added = false;
		struct hk_error err = { 0 };
		if (hk_store_add(s, dir, &spec, 0, &a, &added, &err) < 0)
			rc = fail_exit(&err);
		else
			print_added(a, added, NULL);
		hk_store_close(s);
	}
	hk_dep_groups_free(groups, deps.n);
done:
	strv_free(&deps);
	strv_free(&provides);
	return rc;
}

static int sub_import_deb(const char *store_dir, int argc, char **argv)
{
	int first = 1;
	if (argc > 1 && is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && strcmp(argv[i], "-") != 0)
			return usage_error("import-deb: unknown option '%s'", argv[i]);
	if (argc < 2)
		return usage_error("import-deb: give at least one FILE.deb");
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, true, &s);
	for (int i = first; rc == 0 && i < argc; i++) {
		const struct hk_artifact *a = NULL;
		bool added = false;
		struct hk_error err = { 0 };
		if (import_deb(s, argv[i], &a, &added, &err) < 0)
			rc = fail_exit(&err);
		else
			print_added(a, added, argv[i]);
	}
	hk_store_close(s);
	return rc;
}

/* Is `name` something apt can download (a real package, not a purely virtual one)? */
static int apt_is_real(const char *name, bool *real, struct hk_error *err)
{
	const char *argv[] = { "apt-cache", "show", "--no-all-versions", name, NULL };
	struct prog_result res;
	int r = run_prog(argv, NULL, &res, err);
	if (r < 0)
		return r;
	*real = false;
	if (res.status == 0) {
		struct hk_deb_stanza *st = NULL;
		size_t n = 0;
		struct hk_error ignored;
		if (hk_deb_parse_control(hk_buf_str(&res.out), res.out.len, "apt-cache", &st, &n,
					 &ignored) == 0) {
			*real = n > 0 && hk_deb_field(&st[0], "Package") != NULL;
			hk_deb_stanzas_free(st, n);
		}
	}
	prog_result_free(&res);
	return 0;
}

static bool store_has(struct hk_store *s, const char *name)
{
	const struct hk_artifact *a;
	struct hk_error err;
	int r = hk_store_find(s, name, &a, &err);
	/* Ambiguous means several artifacts answer to the name: present. */
	return r == 0 || r == -EEXIST;
}

/* Downloads `spec` (NAME or NAME=VERSION) into `dldir` and returns the .deb's path. */
static int apt_download(const char *spec, const char *dldir, char **deb, struct hk_error *err)
{
	const char *argv[] = { "apt-get", "download", "-q", spec, NULL };
	struct prog_result res;
	int r = run_prog(argv, dldir, &res, err);
	if (r < 0)
		return r;
	if (res.status != 0) {
		/* apt prints "E: ..." lines; the first of them is the reason. */
		const char *e = strstr(hk_buf_str(&res.errout), "E: ");
		char line[512];
		struct hk_buf only = HK_BUF_INIT;
		hk_buf_puts(&only, e ? e : hk_buf_str(&res.errout));
		/* An unknown package is bad input; anything else (network, archive) is the
		 * environment. */
		bool unknown = strstr(hk_buf_str(&only), "Unable to locate package") ||
			       strstr(hk_buf_str(&only), "Version '");
		r = hk_fail(err, unknown ? ENOENT : EIO, "apt-get download %s failed: %s", spec,
			    first_line(&only, line, sizeof(line)));
		hk_buf_free(&only);
		prog_result_free(&res);
		return r;
	}
	prog_result_free(&res);
	DIR *d = opendir(dldir);
	if (!d)
		return hk_fail_errno(err, errno, "cannot list %s", dldir);
	char *found = NULL;
	int count = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 4 && strcmp(de->d_name + n - 4, ".deb") == 0) {
			count++;
			free(found);
			found = hk_xasprintf("%s/%s", dldir, de->d_name);
		}
	}
	closedir(d);
	if (count != 1) {
		free(found);
		return hk_fail(err, EIO, "apt-get download %s left %d .deb files in %s (expected 1)",
			       spec, count, dldir);
	}
	*deb = found;
	return 0;
}

static int sub_import_apt(const char *store_dir, int argc, char **argv)
{
	bool with_deps = false, include_base = false;
	const char *base_root = "/";
	struct strv want = { 0 };
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (is_help(argv[i])) {
			fputs(store_usage, stdout);
			strv_free(&want);
			return 0;
		} else if (strcmp(argv[i], "--with-deps") == 0) {
			with_deps = true;
		} else if (strcmp(argv[i], "--include-base") == 0) {
			include_base = true;
		} else if (take_value(argc, argv, &i, "--base-root", &v)) {
			if (!v) {
				strv_free(&want);
				return usage_error("import-apt: --base-root needs a directory");
			}
			base_root = v;
		} else if (argv[i][0] == '-') {
			strv_free(&want);
			return usage_error("import-apt: unknown option '%s'", argv[i]);
		} else {
			strv_push(&want, argv[i]);
		}
	}
	if (want.n == 0)
		return usage_error("import-apt: give at least one package NAME");

	struct hk_error err = { 0 };
	char **base = NULL;
	size_t n_base = 0;
	if (with_deps && !include_base) {
		hk_autofree char *status =
			hk_xasprintf("%s/var/lib/dpkg/status", strcmp(base_root, "/") ? base_root : "");
		if (hk_deb_essential_closure(status, &base, &n_base, &err) < 0) {
			hk_wrap(&err, "the base root's package set (use --include-base to import "
				"every dependency)");
			strv_free(&want);
			return fail_exit(&err);
		}
	}
	struct hk_store *s = NULL;
	rc = open_for(store_dir, true, &s);
	char *dldir = NULL;
	if (rc == 0 && hk_store_mktemp(s, &dldir, &err) < 0)
		rc = fail_exit(&err);
	/* A queue of package specs; explicit ones are always imported (a no-op if present),
	 * dependencies only when the store lacks them. */
	struct strv queue = { 0 }, seen = { 0 }, told_base = { 0 };
	for (size_t i = 0; i < want.n; i++)
		strv_push(&queue, want.v[i]);
	for (size_t q = 0; rc == 0 && q < queue.n; q++) {
		const char *spec = queue.v[q];
		hk_autofree char *name = hk_xstrndup(spec, strcspn(spec, "="));
		if (strv_has(&seen, name))
			continue;
		strv_push(&seen, name);
		char *deb = NULL;
		const struct hk_artifact *a = NULL;
		bool added = false;
		if (apt_download(spec, dldir, &deb, &err) < 0 ||
		    import_deb(s, deb, &a, &added, &err) < 0) {
			rc = fail_exit(&err);
		} else {
			const char *slash = strrchr(deb, '/');
			print_added(a, added, slash + 1);
		}
		if (deb) {
			unlink(deb);
			free(deb);
		}
		if (rc || !with_deps)
			continue;
		for (size_t i = 0; rc == 0 && i < a->n_deps; i++) {
			const struct hk_dep_group *g = &a->deps[i];
			hk_autofree char *gs = hk_dep_group_str(g);
			bool done = false;
			for (size_t k = 0; k < g->n_alts && !done; k++)
				done = store_has(s, g->alts[k]) || strv_has(&seen, g->alts[k]);
			for (size_t k = 0; k < g->n_alts && !done; k++) {
				for (size_t b = 0; b < n_base && !done; b++)
					done = strcmp(base[b], g->alts[k]) == 0;
				if (done && !strv_has(&told_base, g->alts[k])) {
					printf("base %s (needed by %s: the base root provides it)\n",
					       g->alts[k], a->name);
					strv_push(&told_base, g->alts[k]);
				}
			}
			for (size_t k = 0; k < g->n_alts && !done; k++) {
				bool real = false;
				if (apt_is_real(g->alts[k], &real, &err) < 0) {
					rc = fail_exit(&err);
					break;
				}
				if (real) {
					strv_push(&queue, g->alts[k]);
					done = true;
				}
			}
			if (rc == 0 && !done)
				fprintf(stderr, "harkaq store: warning: no package to download for "
					"'%s' (a dependency of %s): only virtual packages; not "
					"imported\n", gs, a->name);
		}
	}
	if (dldir) {
		struct hk_error ignored;
		hk_store_remove_tree(dldir, &ignored);
		free(dldir);
	}
	for (size_t i = 0; i < n_base; i++)
		free(base[i]);
	free(base);
	strv_free(&queue);
	strv_free(&seen);
	strv_free(&told_base);
	strv_free(&want);
	hk_store_close(s);
	return rc;
}

static int sub_list(const char *store_dir, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(store_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else {
			return usage_error("list: unexpected argument '%s'", argv[i]);
		}
	}
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	const struct hk_artifact *const *list = NULL;
	size_t n = 0;
	struct hk_error err = { 0 };
	if (hk_store_list(s, &list, &n, &err) < 0) {
		hk_store_close(s);
		return fail_exit(&err);
	}
	if (json) {
		struct hk_buf out = HK_BUF_INIT;
		struct hk_json j;
		hk_json_init(&j, &out, 2);
		hk_json_arr_begin(&j);
		for (size_t i = 0; i < n; i++) {
			struct hk_jval *v = NULL;
			if (hk_json_parse(list[i]->meta_json, strlen(list[i]->meta_json), &v, &err) <
			    0) {
				hk_buf_free(&out);
				hk_store_close(s);
				return fail_exit(&err);
			}
			hk_json_value(&j, v);
			hk_jval_free(v);
		}
		hk_json_arr_end(&j);
		printf("%s\n", hk_buf_str(&out));
		hk_buf_free(&out);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %zu\n", list[i]->id, list[i]->name, list[i]->version,
			       list[i]->file_count);
	}
	hk_store_close(s);
	return 0;
}

static int find_one(struct hk_store *s, const char *query, const struct hk_artifact **a)
{
	struct hk_error err = { 0 };
	if (hk_store_find(s, query, a, &err) < 0)
		return fail_exit(&err);
	return 0;
}

static int sub_show_or_files(const char *store_dir, int argc, char **argv, bool files)
{
	if (argc > 1 && is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc != 2)
		return usage_error("%s: give exactly one ID", argv[0]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	const struct hk_artifact *a = NULL;
	rc = find_one(s, argv[1], &a);
	if (rc == 0 && !files) {
		fputs(a->meta_json, stdout);
	} else if (rc == 0) {
		struct hk_tree t = HK_TREE_INIT;
		struct hk_error err = { 0 };
		if (hk_store_files(s, a, &t, &err) < 0) {
			rc = fail_exit(&err);
		} else {
			struct hk_buf line = HK_BUF_INIT;
			for (size_t i = 0; i < t.n; i++) {
				const struct hk_tree_entry *e = &t.entries[i];
				hk_buf_reset(&line);
				hk_buf_printf(&line, "%c /", e->type == HK_TREE_DIR ? 'd' :
					      e->type == HK_TREE_SYMLINK ? 'l' :
					      e->exec ? 'x' : 'f');
				hk_tree_escape(e->path, strlen(e->path), &line);
				if (e->type == HK_TREE_SYMLINK) {
					hk_buf_puts(&line, " -> ");
					hk_tree_escape(e->target, e->target_len, &line);
				}
				printf("%s\n", hk_buf_str(&line));
			}
			hk_buf_free(&line);
			hk_tree_free(&t);
		}
	}
	hk_store_close(s);
	return rc;
}

static int sub_which(const char *store_dir, int argc, char **argv)
{
	if (argc > 1 && is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc < 2)
		return usage_error("which: give at least one sandbox PATH");
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '/')
			return usage_error("which: '%s' is not an absolute sandbox path", argv[i]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	bool missing = false;
	for (int i = 1; rc == 0 && i < argc; i++) {
		const struct hk_artifact **p = NULL;
		size_t n = 0;
		struct hk_error err = { 0 };
		if (hk_store_providers(s, argv[i], &p, &n, &err) < 0) {
			rc = fail_exit(&err);
			break;
		}
		if (n == 0) {
			fprintf(stderr, "harkaq store: %s: no artifact in the store provides it\n",
				argv[i]);
			missing = true;
		}
		/* Escaped like the index, so that a path with spaces stays one field. */
		struct hk_buf shown = HK_BUF_INIT;
		hk_tree_escape(argv[i], strlen(argv[i]), &shown);
		for (size_t k = 0; k < n; k++)
			printf("%s %s %s %s\n", hk_buf_str(&shown), p[k]->name, p[k]->version,
			       p[k]->id);
		hk_buf_free(&shown);
		free(p);
	}
	hk_store_close(s);
	if (rc)
		return rc;
	return missing ? 1 : 0;
}

static int sub_closure(const char *store_dir, int argc, char **argv)
{
	struct strv queries = { 0 }, base = { 0 };
	const char *base_root = NULL;
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *v;
		if (is_help(argv[i])) {
			fputs(store_usage, stdout);
			goto done;
		} else if (take_value(argc, argv, &i, "--base-root", &v)) {
			if (!v)
				rc = usage_error("closure: --base-root needs a directory");
			base_root = v;
		} else if (take_value(argc, argv, &i, "--base", &v)) {
			if (!v)
				rc = usage_error("closure: --base needs a package name");
			else
				strv_push(&base, v);
		} else if (argv[i][0] == '-') {
			rc = usage_error("closure: unknown option '%s'", argv[i]);
		} else {
			strv_push(&queries, argv[i]);
		}
	}
	if (rc)
		goto done;
	if (queries.n == 0) {
		rc = usage_error("closure: give at least one ID");
		goto done;
	}
	struct hk_error err = { 0 };
	if (base_root) {
		hk_autofree char *status = hk_xasprintf("%s/var/lib/dpkg/status", base_root);
		char **names = NULL;
		size_t n = 0;
		if (hk_deb_installed_names(status, &names, &n, &err) < 0) {
			rc = fail_exit(&err);
			goto done;
		}
		for (size_t i = 0; i < n; i++) {
			strv_push(&base, names[i]);
			free(names[i]);
		}
		free(names);
	}
	struct hk_store *s = NULL;
	rc = open_for(store_dir, false, &s);
	if (rc)
		goto done;
	const struct hk_artifact **roots = hk_xcalloc(queries.n, sizeof(*roots));
	for (size_t i = 0; rc == 0 && i < queries.n; i++)
		rc = find_one(s, queries.v[i], &roots[i]);
	if (rc == 0) {
		const struct hk_artifact **out = NULL;
		size_t n = 0;
		if (hk_store_closure(s, roots, queries.n, (const char *const *)base.v, base.n, &out,
				     &n, &err) < 0) {
			rc = fail_exit(&err);
		} else {
			for (size_t i = 0; i < n; i++)
				printf("%s %s %s\n", out[i]->id, out[i]->name, out[i]->version);
			free(out);
		}
	}
	free(roots);
	hk_store_close(s);
done:
	strv_free(&queries);
	strv_free(&base);
	return rc;
}

/* What `verify` and `seal` act on: the artifacts named by argv[1..], or every artifact when
 * none is named.  *list is the caller's to free (also on failure). */
static int named_or_all(struct hk_store *s, int argc, char **argv,
			const struct hk_artifact ***list, size_t *n)
{
	if (argc > 1) {
		*list = hk_xcalloc((size_t)argc, sizeof(**list));
		for (int i = 1; i < argc; i++) {
			int rc = find_one(s, argv[i], &(*list)[*n]);
			if (rc)
				return rc;
			(*n)++;
		}
		return 0;
	}
	const struct hk_artifact *const *all = NULL;
	struct hk_error err = { 0 };
	if (hk_store_list(s, &all, n, &err) < 0)
		return fail_exit(&err);
	*list = hk_xcalloc(*n ? *n : 1, sizeof(**list));
	for (size_t i = 0; i < *n; i++)
		(*list)[i] = all[i];
	return 0;
}

/* The start `verify` and `seal` share: --help, opening the store, choosing the artifacts.
 * Returns -1 when the subcommand goes on (*s and *list are then its to close and free), else
 * the exit status, with nothing left open. */
static int open_named(const char *store_dir, int argc, char **argv, struct hk_store **s,
		      const struct hk_artifact ***list, size_t *n)
{
	if (argc > 1 && is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	int rc = open_for(store_dir, false, s);
	if (rc)
		return rc;
	rc = named_or_all(*s, argc, argv, list, n);
	if (rc) {
		free(*list);
		hk_store_close(*s);
		return rc;
	}
	return -1;
}

/* Runs `body` on the artifacts `verify` or `seal` was given, then closes what open_named
 * opened; returns the exit status. */
static int run_named(const char *store_dir, int argc, char **argv,
		     int (*body)(struct hk_store *s, const struct hk_artifact **list, size_t n))
{
	struct hk_store *s = NULL;
	const struct hk_artifact **list = NULL;
	size_t n = 0;
	int rc = open_named(store_dir, argc, argv, &s, &list, &n);
	if (rc >= 0)
		return rc;
	rc = body(s, list, n);
	free(list);
	hk_store_close(s);
	return rc;
}

static int verify_named(struct hk_store *s, const struct hk_artifact **list, size_t n)
{
	struct hk_error err = { 0 };
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		/* The same check `harkaq build` makes of every dep (sys/verity.h). */
		if (hk_verity_check_artifact(s, list[i], &err) < 0) {
			fprintf(stderr, "harkaq store: %s\n", err.msg);
			bad = err.code == EBADMSG ? HK_EXIT_DATAERR : HK_EXIT_SOFTWARE;
		} else {
			printf("ok %s %s %s%s\n", list[i]->id, list[i]->name, list[i]->version,
			       list[i]->sealed ? " (sealed: fs-verity digests match)" : "");
		}
	}
	return bad;
}

static int sub_verify(const char *store_dir, int argc, char **argv)
{
	return run_named(store_dir, argc, argv, verify_named);
}

static int seal_named(struct hk_store *s, const struct hk_artifact **list, size_t n)
{
	int rc = 0;
	struct hk_error err = { 0 };
	/* Asked once, before any artifact is touched: a filesystem that cannot seal is said so,
	 * and nothing is changed or recorded. */
	if (rc == 0 && hk_verity_probe_dir(hk_store_dir(s), &err) < 0)
		rc = fail_exit(&err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct hk_artifact *a = list[i];
		if (hk_store_seal(s, a, hk_verity_seal_cb, NULL, &err) < 0) {
			rc = fail_exit(&err);
			break;
		}
		printf("sealed %s %s %s (%zu files, fs-verity sha256)\n", a->id, a->name,
		       a->version, a->file_count);
	}
	return rc;
}

static int sub_seal(const char *store_dir, int argc, char **argv)
{
	return run_named(store_dir, argc, argv, seal_named);
}

static int sub_reindex(const char *store_dir, int argc, char **argv)
{
	if (argc > 1 && is_help(argv[1])) {
		fputs(store_usage, stdout);
		return 0;
	}
	if (argc > 1)
		return usage_error("reindex: unexpected argument '%s'", argv[1]);
	struct hk_store *s = NULL;
	int rc = open_for(store_dir, false, &s);
	if (rc)
		return rc;
	struct hk_error err = { 0 };
	if (hk_store_reindex(s, &err) < 0)
		rc = fail_exit(&err);
	hk_store_close(s);
	return rc;
}

int cmd_store(int argc, char **argv)
{
	/* --store may come before or after the subcommand; it is removed from argv here so
	 * that each subcommand sees only its own arguments. */
	const char *store_dir = NULL;
	char **args = hk_xcalloc((size_t)argc + 1, sizeof(char *));
	int n = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (take_value(argc, argv, &i, "--store", &v)) {
			if (!v) {
				free(args);
				return usage_error("--store needs a directory");
			}
			store_dir = v;
			continue;
		}
		args[n++] = argv[i];
	}
	int rc;
	if (n == 0) {
		fputs(store_usage, stderr);
		rc = HK_EXIT_USAGE;
	} else if (is_help(args[0]) || strcmp(args[0], "help") == 0) {
		fputs(store_usage, stdout);
		rc = 0;
	} else if (strcmp(args[0], "add") == 0) {
		rc = sub_add(store_dir, n, args);
	} else if (strcmp(args[0], "import-deb") == 0) {
		rc = sub_import_deb(store_dir, n, args);
	} else if (strcmp(args[0], "import-apt") == 0) {
		rc = sub_import_apt(store_dir, n, args);
	} else if (strcmp(args[0], "list") == 0) {
		rc = sub_list(store_dir, n, args);
	} else if (strcmp(args[0], "show") == 0) {
		rc = sub_show_or_files(store_dir, n, args, false);
	} else if (strcmp(args[0], "files") == 0) {
		rc = sub_show_or_files(store_dir, n, args, true);
	} else if (strcmp(args[0], "which") == 0) {
		rc = sub_which(store_dir, n, args);
	} else if (strcmp(args[0], "closure") == 0) {
		rc = sub_closure(store_dir, n, args);
	} else if (strcmp(args[0], "seal") == 0) {
		rc = sub_seal(store_dir, n, args);
	} else if (strcmp(args[0], "verify") == 0) {
		rc = sub_verify(store_dir, n, args);
	} else if (strcmp(args[0], "reindex") == 0) {
		rc = sub_reindex(store_dir, n, args);
	} else {
		rc = usage_error("unknown subcommand '%s'", args[0]);
	}
	free(args);
	return rc;
}
