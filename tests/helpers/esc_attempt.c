/* esc_attempt: escape attempts for tests/integration/escape.sh (docs/escape-suite.md).
 * Static, so it runs inside any sandbox, needing nothing from the base root; the test ships
 * it in the recipe's source directory and runs it in a phase, as the unprivileged build user.
 *
 *   esc_attempt OP [ARG...] [, OP [ARG...]]...
 *
 * Operations are separated by a lone ",".  Each prints exactly one line
 *
 *   OP ARG...: ok[ DETAIL]        the attempt succeeded (an escape, inside the cage)
 *   OP ARG...: ERRNAME[ DETAIL]   the errno that stopped it
 *
 * and the program goes on with the next, always exiting 0: it judges nothing, the test
 * compares a caged run with the same run in the same sandbox without the cage (--no-cage).
 *
 *   ptrace-child            PTRACE_ATTACH to a child of ours (same domain, same uid)
 *   ptrace PID              PTRACE_ATTACH to PID
 *   vm-read-child           process_vm_readv from a child of ours
 *   io-uring                io_uring_setup(4)
 *   bpf                     BPF_MAP_CREATE of a one-element array
 *   userfaultfd             userfaultfd(UFFD_USER_MODE_ONLY): allowed to unprivileged users
 *   add-key                 add_key("user") into the process keyring
 *   keyctl                  keyctl(JOIN_SESSION_KEYRING)
 *   perf                    perf_event_open of our own task clock (user space only)
 *   init-module             init_module of a 4-byte image
 *   kexec-load              kexec_load with no segments
 *   mount | umount2 | open-tree | fsopen | move-mount | setns | bind-read PATH
 *                           each in a fresh child that first enters a new user and mount
 *                           namespace (unprivileged users may, inside bubblewrap too), so
 *                           that what stops the call is the cage, not a missing capability;
 *                           bind-read bind-mounts PATH's directory on /tmp and reads PATH
 *                           through the alias
 *   kill PID SIG            kill(2); PID may be @FILE: the pid is read from FILE
 *   connect-abstract NAME   connect to the abstract UNIX socket "\0NAME"
 *   tiocsti                 TIOCSTI of one byte on descriptor 0, then open("/dev/tty")
 *   tiocsti-high            the same TIOCSTI with the request's upper 32 bits set (the kernel
 *                           reads the request as an unsigned int: they change nothing)
 *   tioclinux               TIOCLINUX (TIOCL_GETSHIFTSTATE) on descriptor 0
 *   kbsent | kbent | kbdiacr | kbdiacruc | keycode
 *                           on descriptor 0, a virtual console: read one entry of the console's
 *                           keymap (a function key's string, a key's entry, the accent table,
 *                           its UCS form, a scancode's keycode) and write it back unchanged
 *   mknod-read PATH MAJ MIN make a character device MAJ:MIN at PATH, read from it
 *                           (O_NONBLOCK), unlink it; detail = bytes read
 *   mknod-block PATH MAJ MIN    make a block device at PATH, unlink it
 *   mkfifo PATH             make a FIFO at PATH, unlink it
 *   nested-domain PATH      in a child: probe the Landlock ABI (create_ruleset VERSION), make a
 *                           ruleset handling read_file, no_new_privs, landlock_restrict_self,
 *                           then read PATH.  The result is restrict_self's; the detail, the ABI
 *                           and the read's result
 *   nested-mute             in a child: landlock_restrict_self(-1, LOG_SUBDOMAINS_OFF), which
 *                           would mute the logs of every domain made below ours
 *   connect-tcp ADDR PORT   TCP connect to the IPv4 ADDR:PORT
 *   pid                     our pid, as our pid namespace numbers it
 *   read-stdin              read descriptor 0 (inherited open, not opened here); detail =
 *                           the first line
 *   await READY GO          create READY, then wait (at most 120 s) until GO exists: a point
 *                           where a test does something from outside while the phase runs
 *   read PATH               open O_RDONLY + read; detail = the first line
 *   create PATH             O_CREAT|O_EXCL + write, then unlink (leaves nothing behind)
 *   write PATH              O_WRONLY on an existing file (no truncation)
 *   symlink-read TARGET LINK    symlink LINK -> TARGET, read through LINK, unlink LINK
 *   hardlink-read TARGET LINK   link(TARGET, LINK), read LINK, unlink LINK
 *   rename FROM TO          rename(2) (not undone: FROM should be a file of our own)
 *   opath-reopen PATH       open(O_PATH) (Landlock lets it) then reopen /proc/self/fd/N
 *   handle PATH             name_to_handle_at + open_by_handle_at
 *   ldso LDSO BIN           run "LDSO BIN --version" (the loader maps BIN itself)
 *   memfd-copy BIN          copy BIN's bytes into a memfd (reading BIN is the attempt)
 *   memfd-exec SELF OP...   copy SELF into a memfd, execveat it with OP... (the rest of the
 *                           line): the program runs, in the same domain
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/kd.h>
#include <linux/keyctl.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/tiocl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static char label[1024];

static void say(int err, const char *detail)
{
	if (err) {
		const char *n = strerrorname_np(err);
		printf("%s: %s%s%s\n", label, n ? n : "errno?", detail ? " " : "", detail ? detail : "");
	} else {
		printf("%s: ok%s%s\n", label, detail ? " " : "", detail ? detail : "");
	}
	fflush(stdout);
}

/* The result of a raw syscall: 0 or the errno. */
static int rc_of(long r)
{
	return r < 0 ? errno : 0;
}

static pid_t pausing_child(void)
{
	pid_t p = fork();
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

static void reap(pid_t p)
{
	if (p > 0) {
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
	}
}

static int first_line(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = read(fd, out, size - 1);
	int e = n < 0 ? errno : 0;
	close(fd);
	if (e)
		return e;
	out[n] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static void op_read(const char *path)
{
	char buf[128];
	int e = first_line(path, buf, sizeof(buf));
	say(e, e ? NULL : buf);
}

/* In a fresh child: a new user + mount namespace, then fn().  Prints fn's result, or the
 * reason the namespaces could not be entered. */
static void in_userns(int (*fn)(const char *), const char *arg)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0) {
		say(errno, "fork");
		return;
	}
	if (p == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
			say(errno, "(unshare of a user+mount namespace)");
			_exit(0);
		}
		int e = fn(arg);
		say(e, NULL);
		_exit(0);
	}
	waitpid(p, NULL, 0);
}

static int ns_mount(const char *arg)
{
	(void)arg;
	return rc_of(mount("tmpfs", "/tmp", "tmpfs", 0, "size=1m"));
}

static int ns_umount2(const char *arg)
{
	(void)arg;
	return rc_of(umount2("/tmp", MNT_DETACH));
}

static int ns_open_tree(const char *arg)
{
	(void)arg;
	long fd = syscall(SYS_open_tree, AT_FDCWD, "/tmp", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	return rc_of(fd);
}

static int ns_fsopen(const char *arg)
{
	(void)arg;
	return rc_of(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
}

static int ns_move_mount(const char *arg)
{
	(void)arg;
	/* A fresh tmpfs moved onto /tmp; without fsopen, move an existing mount instead, so that
	 * move_mount itself is what the cage meets. */
	long fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs >= 0 && syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0) {
		long m = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
		if (m >= 0)
			return rc_of(syscall(SYS_move_mount, m, "", AT_FDCWD, "/tmp",
					     MOVE_MOUNT_F_EMPTY_PATH));
	}
	return rc_of(syscall(SYS_move_mount, AT_FDCWD, "/var/tmp", AT_FDCWD, "/tmp", 0));
}

static int ns_setns(const char *arg)
{
	(void)arg;
	/* Our own new mount namespace is owned by our new user namespace, so outside the cage
	 * re-entering it after a second unshare is allowed: only the cage can stop it. */
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (unshare(CLONE_NEWNS) < 0)
		return errno;
	return rc_of(setns(fd, CLONE_NEWNS));
}

static int ns_bind_read(const char *path)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return EINVAL;
	*slash = '\0';
	if (mount(dir, "/tmp", NULL, MS_BIND, NULL) < 0)
		return errno;
	char alias[600], buf[64];
	snprintf(alias, sizeof(alias), "/tmp/%s", slash + 1);
	return first_line(alias, buf, sizeof(buf));
}

static pid_t pid_arg(const char *s)
{
	if (s[0] == '@') {
		char buf[32];
		if (first_line(s + 1, buf, sizeof(buf)) != 0)
			return 0;
		return (pid_t)atoi(buf);
	}
	return (pid_t)atoi(s);
}

static void op_kill(const char *pid_s, const char *sig_s)
{
	pid_t pid = pid_arg(pid_s);
	char d[32];
	snprintf(d, sizeof(d), "(pid %d)", (int)pid);
	if (pid <= 0) {
		say(EINVAL, d);
		return;
	}
	say(rc_of(kill(pid, atoi(sig_s))), d);
}

static void op_connect_abstract(const char *name)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		say(errno, "socket");
		return;
	}
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	if (n > sizeof(a.sun_path) - 1)
		n = sizeof(a.sun_path) - 1;
	memcpy(a.sun_path + 1, name, n);
	int e = rc_of(connect(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)));
	close(s);
	say(e, NULL);
}

static void op_tiocsti(void)
{
	char c = '#';
	int e = rc_of(ioctl(0, TIOCSTI, &c));
	char d[64];
	int t = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	snprintf(d, sizeof(d), "(isatty(0)=%d, open /dev/tty: %s)", isatty(0),
		 t >= 0 ? "ok" : strerrorname_np(errno));
	if (t >= 0)
		close(t);
	say(e, d);
}

static void op_tiocsti_high(void)
{
	char c = '#';
	say(rc_of(syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | 1UL << 32, &c)), NULL);
}

static void op_tioclinux(void)
{
	char sub = TIOCL_GETSHIFTSTATE;
	say(rc_of(ioctl(0, TIOCLINUX, &sub)), NULL);
}

/* Reads one keymap entry of the console on fd 0 with `get` and writes it back with `set`.  A
 * console without a keyboard answers ENODEV to both: then the write is tried all the same
 * (there is nothing it could change), so that the cage's answer can be told from the
 * kernel's. */
static void op_keymap(unsigned long get, unsigned long set, void *entry)
{
	if (ioctl(0, get, entry) < 0 && errno != ENODEV) {
		say(errno, "(reading it)");
		return;
	}
	int e = rc_of(ioctl(0, set, entry));
	say(e, e ? NULL : "(written back unchanged)");
}

static void op_keymap_named(const char *what)
{
	static union {
		struct kbsentry sent;
		struct kbentry ent;
		struct kbdiacrs diacr;
		struct kbdiacrsuc diacruc;
		struct kbkeycode keycode;
	} e;
	memset(&e, 0, sizeof(e));
	if (!strcmp(what, "kbsent")) {
		e.sent.kb_func = 0;
		op_keymap(KDGKBSENT, KDSKBSENT, &e.sent);
	} else if (!strcmp(what, "kbent")) {
		e.ent.kb_index = 30;
		op_keymap(KDGKBENT, KDSKBENT, &e.ent);
	} else if (!strcmp(what, "kbdiacr")) {
		op_keymap(KDGKBDIACR, KDSKBDIACR, &e.diacr);
	} else if (!strcmp(what, "kbdiacruc")) {
		op_keymap(KDGKBDIACRUC, KDSKBDIACRUC, &e.diacruc);
	} else {
		e.keycode.scancode = 0x1e;
		op_keymap(KDGETKEYCODE, KDSETKEYCODE, &e.keycode);
	}
}

static void op_mknod(const char *path, mode_t type, const char *maj, const char *min)
{
	if (mknod(path, type | 0600, makedev(atoi(maj), atoi(min))) < 0) {
		say(errno, "(mknod)");
		return;
	}
	if (type != S_IFCHR) {
		unlink(path);
		say(0, NULL);
		return;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char buf[512], d[64];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	int e = fd < 0 || (n < 0 && errno != EAGAIN) ? errno : 0;
	if (fd >= 0)
		close(fd);
	unlink(path);
	snprintf(d, sizeof(d), "(read %zd bytes)", n < 0 ? (ssize_t)0 : n);
	say(e, e ? "(open or read)" : d);
}

/* Our own copies of the Landlock uapi (Debian 12's headers stop at ABI 3). */
struct esc_ruleset_attr {
	uint64_t handled_access_fs;
};
#define ESC_LL_VERSION (1U << 0)
#define ESC_LL_READ_FILE (1ULL << 2)
#define ESC_LL_LOG_SUBDOMAINS_OFF (1U << 2)

static void op_nested_domain(const char *path)
{
	fflush(stdout);
	pid_t p = fork();
	if (p != 0) {
		waitpid(p, NULL, 0);
		return;
	}
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, ESC_LL_VERSION);
	struct esc_ruleset_attr attr = { ESC_LL_READ_FILE };
	long rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (abi < 0 || rs < 0) {
		say(errno, "(landlock_create_ruleset)");
		_exit(0);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	int e = rc_of(syscall(SYS_landlock_restrict_self, (int)rs, 0));
	char buf[128], d[96];
	int r = first_line(path, buf, sizeof(buf));
	const char *rn = r ? strerrorname_np(r) : "ok";
	snprintf(d, sizeof(d), "(abi %ld, then read: %s)", abi, rn ? rn : "errno?");
	say(e, d);
	_exit(0);
}

static void op_nested_mute(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p != 0) {
		waitpid(p, NULL, 0);
		return;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	say(rc_of(syscall(SYS_landlock_restrict_self, -1, ESC_LL_LOG_SUBDOMAINS_OFF)), NULL);
	_exit(0);
}

static void op_connect_tcp(const char *addr, const char *port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		say(errno, "(socket)");
		return;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		close(s);
		say(EINVAL, "(address)");
		return;
	}
	int e = rc_of(connect(s, (struct sockaddr *)&a, sizeof(a)));
	close(s);
	say(e, NULL);
}

static void op_await(const char *ready, const char *go)
{
	int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		say(errno, "(creating READY)");
		return;
	}
	close(fd);
	struct stat st;
	for (int i = 0; i < 120 * 100; i++) {
		if (stat(go, &st) == 0) {
			say(0, NULL);
			return;
		}
		usleep(10000);
	}
	say(ETIMEDOUT, NULL);
}

static void op_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		say(errno, NULL);
		return;
	}
	ssize_t w = write(fd, "x", 1);
	close(fd);
	unlink(path);
	say(w == 1 ? 0 : EIO, NULL);
}

static void op_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		say(errno, NULL);
		return;
	}
	close(fd);
	say(0, "(opened for writing; nothing written)");
}

static void op_link_read(bool hard, const char *target, const char *link_path)
{
	int r = hard ? link(target, link_path) : symlink(target, link_path);
	if (r < 0) {
		say(errno, hard ? "(link)" : "(symlink)");
		return;
	}
	char buf[128];
	int e = first_line(link_path, buf, sizeof(buf));
	unlink(link_path);
	say(e, e ? "(read through the link)" : buf);
}

static void op_opath_reopen(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		say(errno, "(O_PATH)");
		return;
	}
	char p[64], buf[128];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	int e = first_line(p, buf, sizeof(buf));
	close(fd);
	say(e, e ? "(reopen; the O_PATH open itself succeeded)" : buf);
}

static void op_handle(const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char data[MAX_HANDLE_SZ];
	} h;
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	int mount_id;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0) {
		say(errno, "(name_to_handle_at)");
		return;
	}
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	int mfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_CLOEXEC);
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	say(e, e ? "(open_by_handle_at; name_to_handle_at succeeded)" : NULL);
}

static int run_wait(char *const argv[], int exec_fd)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		if (exec_fd < 0) {
			int n = open("/dev/null", O_WRONLY);
			dup2(n, 1);
			dup2(n, 2);
			execv(argv[0], argv);
		} else {
			syscall(SYS_execveat, exec_fd, "", argv, (char *const[]){ NULL }, AT_EMPTY_PATH);
		}
		_exit(200 + (errno & 31));
	}
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void op_ldso(const char *ldso, const char *bin)
{
	char *argv[] = { (char *)(uintptr_t)ldso, (char *)(uintptr_t)bin, (char *)(uintptr_t)"--version", NULL };
	int st = run_wait(argv, -1);
	char d[64];
	snprintf(d, sizeof(d), "(exit %d)", st);
	say(st == 0 ? 0 : EACCES, d);
}

/* Copies `path` into a new memfd; returns the fd or -errno. */
static int memfd_of(const char *path)
{
	int src = open(path, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -errno;
	int m = (int)syscall(SYS_memfd_create, "esc", MFD_CLOEXEC);
	if (m < 0) {
		int e = errno;
		close(src);
		return -e;
	}
	char buf[65536];
	ssize_t n;
	while ((n = read(src, buf, sizeof(buf))) > 0) {
		if (write(m, buf, (size_t)n) != n) {
			close(src);
			close(m);
			return -EIO;
		}
	}
	int e = n < 0 ? errno : 0;
	close(src);
	if (e) {
		close(m);
		return -e;
	}
	return m;
}

static void op_memfd_copy(const char *bin)
{
	int m = memfd_of(bin);
	if (m >= 0)
		close(m);
	say(m < 0 ? -m : 0, m < 0 ? "(reading the binary)" : NULL);
}

static void op_memfd_exec(const char *self, char **rest)
{
	int m = memfd_of(self);
	if (m < 0) {
		say(-m, "(copying)");
		return;
	}
	/* The program in the memfd prints its own lines (its attempts), then this one. */
	size_t n = 0;
	while (rest[n])
		n++;
	char **argv = calloc(n + 2, sizeof(char *));
	argv[0] = (char *)(uintptr_t)"esc_attempt(memfd)";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = rest[i];
	int st = run_wait(argv, m);
	close(m);
	free(argv);
	char d[64];
	snprintf(d, sizeof(d), "(exit %d)", st);
	say(st == 0 ? 0 : (st >= 200 ? st - 200 : EIO), d);
}

static int io_uring_setup_(unsigned entries, struct io_uring_params *p)
{
	return (int)syscall(SYS_io_uring_setup, entries, p);
}

static void run_op(char **a, int n)
{
	const char *op = a[0];
	size_t off = 0;
	label[0] = '\0';
	for (int i = 0; i < n && off < sizeof(label) - 1; i++)
		off += (size_t)snprintf(label + off, sizeof(label) - off, "%s%s", i ? " " : "", a[i]);
#define NEED(k)                                  \
	do {                                     \
		if (n < (k) + 1) {               \
			say(EINVAL, "(usage)");  \
			return;                  \
		}                                \
	} while (0)
	if (!strcmp(op, "ptrace-child")) {
		pid_t c = pausing_child();
		int e = rc_of(ptrace(PTRACE_ATTACH, c, 0, 0));
		reap(c);
		say(e, NULL);
	} else if (!strcmp(op, "ptrace")) {
		NEED(1);
		pid_t p = pid_arg(a[1]);
		int e = rc_of(ptrace(PTRACE_ATTACH, p, 0, 0));
		if (!e) {
			/* Detaching is only possible once the tracee is in its ptrace stop; leaving
			 * before would leave it SIGSTOPped (bwrap's init stopped hangs the build). */
			waitpid(p, NULL, __WALL);
			ptrace(PTRACE_DETACH, p, 0, 0);
		}
		say(e, NULL);
	} else if (!strcmp(op, "vm-read-child")) {
		static volatile int secret = 42;
		pid_t c = pausing_child();
		int got = 0;
		struct iovec l = { &got, sizeof(got) }, r = { (void *)(uintptr_t)&secret, sizeof(secret) };
		usleep(10000);
		int e = rc_of(syscall(SYS_process_vm_readv, c, &l, 1, &r, 1, 0));
		reap(c);
		say(e, NULL);
	} else if (!strcmp(op, "io-uring")) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		int fd = io_uring_setup_(4, &p);
		int e = rc_of(fd);
		if (fd >= 0)
			close(fd);
		say(e, NULL);
	} else if (!strcmp(op, "bpf")) {
		union bpf_attr at;
		memset(&at, 0, sizeof(at));
		at.map_type = BPF_MAP_TYPE_ARRAY;
		at.key_size = 4;
		at.value_size = 4;
		at.max_entries = 1;
		say(rc_of(syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof(at))), NULL);
	} else if (!strcmp(op, "userfaultfd")) {
		say(rc_of(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY)), NULL);
	} else if (!strcmp(op, "add-key")) {
		say(rc_of(syscall(SYS_add_key, "user", "harkaq-esc", "x", 1, KEY_SPEC_PROCESS_KEYRING)),
		    NULL);
	} else if (!strcmp(op, "keyctl")) {
		say(rc_of(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0)), NULL);
	} else if (!strcmp(op, "perf")) {
		struct perf_event_attr pa;
		memset(&pa, 0, sizeof(pa));
		pa.type = PERF_TYPE_SOFTWARE;
		pa.size = sizeof(pa);
		pa.config = PERF_COUNT_SW_TASK_CLOCK;
		pa.exclude_kernel = 1;
		pa.exclude_hv = 1;
		long fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
		if (fd >= 0)
			close((int)fd);
		say(rc_of(fd), NULL);
	} else if (!strcmp(op, "init-module")) {
		static const char image[4] = { 0x7f, 'E', 'L', 'F' };
		say(rc_of(syscall(SYS_init_module, image, sizeof(image), "")), NULL);
	} else if (!strcmp(op, "kexec-load")) {
		say(rc_of(syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0UL)), NULL);
	} else if (!strcmp(op, "mount")) {
		in_userns(ns_mount, NULL);
	} else if (!strcmp(op, "umount2")) {
		in_userns(ns_umount2, NULL);
	} else if (!strcmp(op, "open-tree")) {
		in_userns(ns_open_tree, NULL);
	} else if (!strcmp(op, "fsopen")) {
		in_userns(ns_fsopen, NULL);
	} else if (!strcmp(op, "move-mount")) {
		in_userns(ns_move_mount, NULL);
	} else if (!strcmp(op, "setns")) {
		in_userns(ns_setns, NULL);
	} else if (!strcmp(op, "bind-read")) {
		NEED(1);
		in_userns(ns_bind_read, a[1]);
	} else if (!strcmp(op, "kill")) {
		NEED(2);
		op_kill(a[1], a[2]);
	} else if (!strcmp(op, "connect-abstract")) {
		NEED(1);
		op_connect_abstract(a[1]);
	} else if (!strcmp(op, "tiocsti")) {
		op_tiocsti();
	} else if (!strcmp(op, "tiocsti-high")) {
		op_tiocsti_high();
	} else if (!strcmp(op, "tioclinux")) {
		op_tioclinux();
	} else if (!strcmp(op, "kbsent") || !strcmp(op, "kbent") || !strcmp(op, "kbdiacr") ||
		   !strcmp(op, "kbdiacruc") || !strcmp(op, "keycode")) {
		op_keymap_named(op);
	} else if (!strcmp(op, "mknod-read") || !strcmp(op, "mknod-block")) {
		NEED(3);
		op_mknod(a[1], op[6] == 'r' ? S_IFCHR : S_IFBLK, a[2], a[3]);
	} else if (!strcmp(op, "mkfifo")) {
		NEED(1);
		int e = rc_of(mkfifo(a[1], 0600));
		if (!e)
			unlink(a[1]);
		say(e, NULL);
	} else if (!strcmp(op, "nested-domain")) {
		NEED(1);
		op_nested_domain(a[1]);
	} else if (!strcmp(op, "nested-mute")) {
		op_nested_mute();
	} else if (!strcmp(op, "connect-tcp")) {
		NEED(2);
		op_connect_tcp(a[1], a[2]);
	} else if (!strcmp(op, "pid")) {
		char d[32];
		snprintf(d, sizeof(d), "(pid %d)", (int)getpid());
		say(0, d);
	} else if (!strcmp(op, "read-stdin")) {
		char buf[128];
		ssize_t got = read(0, buf, sizeof(buf) - 1);
		int e = got < 0 ? errno : 0;
		if (got >= 0) {
			buf[got] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
		}
		say(e, e ? NULL : buf);
	} else if (!strcmp(op, "await")) {
		NEED(2);
		op_await(a[1], a[2]);
	} else if (!strcmp(op, "read")) {
		NEED(1);
		op_read(a[1]);
	} else if (!strcmp(op, "create")) {
		NEED(1);
		op_create(a[1]);
	} else if (!strcmp(op, "write")) {
		NEED(1);
		op_write(a[1]);
	} else if (!strcmp(op, "symlink-read")) {
		NEED(2);
		op_link_read(false, a[1], a[2]);
	} else if (!strcmp(op, "hardlink-read")) {
		NEED(2);
		op_link_read(true, a[1], a[2]);
	} else if (!strcmp(op, "rename")) {
		NEED(2);
		say(rc_of(rename(a[1], a[2])), NULL);
	} else if (!strcmp(op, "opath-reopen")) {
		NEED(1);
		op_opath_reopen(a[1]);
	} else if (!strcmp(op, "handle")) {
		NEED(1);
		op_handle(a[1]);
	} else if (!strcmp(op, "ldso")) {
		NEED(2);
		op_ldso(a[1], a[2]);
	} else if (!strcmp(op, "memfd-copy")) {
		NEED(1);
		op_memfd_copy(a[1]);
	} else {
		say(EINVAL, "(unknown operation)");
	}
#undef NEED
}

int main(int argc, char **argv)
{
	int i = 1;
	while (i < argc) {
		int j = i;
		while (j < argc && strcmp(argv[j], ",") != 0)
			j++;
		if (j > i) {
			if (!strcmp(argv[i], "memfd-exec") && j - i >= 2) {
				/* Everything after SELF, commas included, belongs to the program run
				 * from the memfd. */
				snprintf(label, sizeof(label), "memfd-exec %s", argv[i + 1]);
				op_memfd_exec(argv[i + 1], argv + i + 2);
				return 0;
			}
			run_op(argv + i, j - i);
		}
		i = j + 1;
	}
	return 0;
}
