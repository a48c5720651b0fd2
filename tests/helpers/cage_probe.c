/* cage_probe: small filesystem, signal, socket and descriptor probes for tests/integration/
 * cage.sh.  Static, so it runs in a cage that grants nothing but itself.
 *
 *   cage_probe OP ARG [OP ARG...]
 *
 * Each operation prints one line "OP ARG: ok[ DETAIL]" or "OP ARG: ERRNAME" and the program
 * goes on with the next, so one caged run answers several questions.  Exit 0 when every
 * operation succeeded, 1 otherwise.  The probe judges nothing: the test script compares.
 *
 *   read PATH            open O_RDONLY and read; detail = the bytes read
 *   list DIR             opendir + readdir; detail = number of entries besides . and ..
 *   create PATH          create (O_CREAT|O_EXCL) and write "x"
 *   rename FROM:TO       rename(2)
 *   unlink PATH          unlink(2)
 *   mkdir PATH           mkdir(2)
 *   rmdir PATH           rmdir(2)
 *   truncate PATH        truncate(2) to 0 bytes
 *   fd N                 read from the inherited descriptor N
 *   kill PID             kill(PID, SIGCONT)
 *   connect-abstract N   connect to the abstract UNIX socket "\0N"
 *   listen-abstract N    bind + listen on "\0N", print "listening", then wait for SIGTERM
 *   noop -               nothing (the run itself is what is measured)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int failures;

static void result(const char *op, const char *arg, int err, const char *detail)
{
	if (err) {
		failures++;
		const char *name = strerrorname_np(err);
		printf("%s %s: %s\n", op, arg, name ? name : "errno?");
	} else if (detail && *detail) {
		printf("%s %s: ok %s\n", op, arg, detail);
	} else {
		printf("%s %s: ok\n", op, arg);
	}
	fflush(stdout);
}

static int read_fd(int fd, char *out, size_t size)
{
	ssize_t n = read(fd, out, size - 1);
	if (n < 0)
		return errno;
	out[n] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strnlen(name, sizeof(a->sun_path) - 2);
	memcpy(a->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void op_read(const char *arg)
{
	char buf[256] = "";
	int fd = open(arg, O_RDONLY | O_CLOEXEC);
	int err = fd < 0 ? errno : read_fd(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	result("read", arg, err, buf);
}

static void op_list(const char *arg)
{
	DIR *d = opendir(arg);
	if (!d) {
		result("list", arg, errno, NULL);
		return;
	}
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	char detail[32];
	snprintf(detail, sizeof(detail), "%d", n);
	result("list", arg, 0, detail);
}

static void op_create(const char *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int err = fd < 0 ? errno : 0;
	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			err = errno;
		close(fd);
	}
	result("create", arg, err, NULL);
}

static void op_rename(const char *arg)
{
	char from[4096];
	snprintf(from, sizeof(from), "%s", arg);
	char *to = strchr(from, ':');
	if (!to) {
		result("rename", arg, EINVAL, NULL);
		return;
	}
	*to++ = '\0';
	result("rename", arg, rename(from, to) < 0 ? errno : 0, NULL);
}

static void op_listen(const char *arg)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, arg);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0 || listen(s, 16) < 0) {
		result("listen-abstract", arg, errno, NULL);
		return;
	}
	result("listen-abstract", arg, 0, "listening");
	for (;;)
		pause();
}

static void op_connect(const char *arg)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, arg);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = s < 0 ? errno : connect(s, (struct sockaddr *)&a, len) < 0 ? errno : 0;
	if (s >= 0)
		close(s);
	result("connect-abstract", arg, err, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: cage_probe OP ARG [OP ARG...]\n");
		return 2;
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *op = argv[i], *arg = argv[i + 1];
		if (!strcmp(op, "read")) {
			op_read(arg);
		} else if (!strcmp(op, "list")) {
			op_list(arg);
		} else if (!strcmp(op, "create")) {
			op_create(arg);
		} else if (!strcmp(op, "rename")) {
			op_rename(arg);
		} else if (!strcmp(op, "unlink")) {
			result(op, arg, unlink(arg) < 0 ? errno : 0, NULL);
		} else if (!strcmp(op, "mkdir")) {
			result(op, arg, mkdir(arg, 0755) < 0 ? errno : 0, NULL);
		} else if (!strcmp(op, "rmdir")) {
			result(op, arg, rmdir(arg) < 0 ? errno : 0, NULL);
		} else if (!strcmp(op, "truncate")) {
			result(op, arg, truncate(arg, 0) < 0 ? errno : 0, NULL);
		} else if (!strcmp(op, "fd")) {
			char buf[256] = "";
			result(op, arg, read_fd(atoi(arg), buf, sizeof(buf)), buf);
		} else if (!strcmp(op, "kill")) {
			result(op, arg, kill((pid_t)atoi(arg), SIGCONT) < 0 ? errno : 0, NULL);
		} else if (!strcmp(op, "connect-abstract")) {
			op_connect(arg);
		} else if (!strcmp(op, "listen-abstract")) {
			op_listen(arg);
		} else if (!strcmp(op, "noop")) {
			result(op, arg, 0, NULL);
		} else {
			fprintf(stderr, "cage_probe: unknown operation '%s'\n", op);
			return 2;
		}
	}
	return failures ? 1 : 0;
}
