// SPDX-License-Identifier: GPL-2.0
/*
 * The opener of named files (pm_file__open) and the writer of named
 * outputs (pm_outfile): what each accepts, that nothing blocks on a FIFO,
 * and that a failed output leaves what was there; pm_file__pread_all,
 * whose caller bounds each read (kcore), and pm_file__pwrite_all, the one
 * positioned write loop (perf.data headers, archives).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/output.h"
#include "tap.h"

static char dir[] = "/tmp/pmrec-test-file.XXXXXX";

static const char *at(const char *name)
{
	static char path[4][128];
	static int i;

	if (name[0] == '/')
		return name;
	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void put(const char *name, const char *text)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || pm_write_all(fd, text, strlen(text)) || close(fd))
		exit(2);
}

static int opens(const char *name, int oflags, unsigned accept, uint64_t max)
{
	int fd = pm_file__open(at(name), oflags, accept, max, NULL);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

static void test_open(void)
{
	put("reg", "0123456789");
	if (symlink("reg", at("link")) || mkfifo(at("fifo"), 0600) || mkdir(at("dir"), 0700))
		exit(2);
	tap_ok(!opens("reg", O_RDONLY, 0, 0), "a regular file opens");
	tap_ok(opens("link", O_RDONLY, 0, 0) == -ELOOP, "a symlink is not followed");
	tap_ok(!opens("link", O_RDONLY, PM_FILE_FOLLOW, 0), "... unless the caller allows it");
	/* Would block for ever in open() without O_NONBLOCK: no writer. */
	tap_ok(opens("fifo", O_RDONLY, 0, 0) == -EINVAL, "a FIFO is refused, without blocking");
	tap_ok(!opens("fifo", O_RDWR, PM_FILE_FIFO, 0), "... taken where a FIFO is wanted");
	tap_ok(opens("reg", O_RDWR, PM_FILE_FIFO, 0) == -EINVAL, "a FIFO-only caller refuses a file");
	tap_ok(opens("/dev/null", O_RDONLY, 0, 0) == -EINVAL, "a device is refused");
	tap_ok(!opens("/dev/null", O_RDONLY, PM_FILE_STREAM, 0), "... but is a stream");
	tap_ok(opens("reg", O_RDONLY, 0, 9) == -EFBIG, "a file past max_size is refused");
	tap_ok(!opens("reg", O_RDONLY, 0, 10), "one of max_size opens");
	tap_ok(opens("dir", O_RDONLY, 0, 0) == -EISDIR, "a directory is refused");
	tap_ok(!opens("dir", O_RDONLY, PM_FILE_DIR, 0), "... taken where a directory is wanted");
	tap_ok(opens("reg", O_RDONLY, PM_FILE_DIR, 0) == -ENOTDIR, "a directory-only caller refuses a file");
}

/* What path opens to under root (a directory of dir), as its first bytes; "" when refused. */
static int in_root(const char *root, const char *path, unsigned accept, char *buf, size_t len)
{
	int rfd = open(at(root), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = rfd < 0 ? -errno : pm_file__open_in_root(rfd, path, O_RDONLY, accept, 0, NULL);
	ssize_t n = 0;

	if (rfd >= 0)
		close(rfd);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return fd < 0 ? fd : 0;
}

/*
 * A container's tree: its absolute symlinks and ".." resolve inside it,
 * never to the host's file of the same name.
 */
static void test_in_root(void)
{
	char buf[32];

	if (mkdir(at("root"), 0755) || mkdir(at("root/in"), 0755) || mkdir(at("root/tmp"), 0755) ||
	    symlink("/in", at("root/abs")) || symlink(at("secret"), at("root/host")) ||
	    symlink("../../../../../in", at("root/up")))
		exit(2);
	put("secret", "host");
	put("root/in/f", "inside");
	tap_ok(in_root("root", "in/f", 0, buf, sizeof(buf)) == 0 && !strcmp(buf, "inside"),
	       "in root: a plain path opens");
	tap_ok(in_root("root", "abs/f", 0, buf, sizeof(buf)) == -ELOOP,
	       "in root: no symlink without PM_FILE_FOLLOW");
	tap_ok(in_root("root", "abs/f", PM_FILE_FOLLOW, buf, sizeof(buf)) == 0 &&
	       !strcmp(buf, "inside"), "in root: an absolute symlink resolves from the root");
	tap_ok(in_root("root", "up/f", PM_FILE_FOLLOW, buf, sizeof(buf)) == 0 &&
	       !strcmp(buf, "inside"), "in root: \"..\" stops at the root");
	tap_ok(in_root("root", "host", PM_FILE_FOLLOW, buf, sizeof(buf)) == -ENOENT && !buf[0],
	       "in root: a link to a host path finds that path inside, not the host's file");
	tap_ok(in_root("root", "tmp", PM_FILE_FOLLOW | PM_FILE_DIR, buf, sizeof(buf)) == 0,
	       "in root: a directory where one is wanted");
}

static int slurp(const char *name, char *buf, size_t len)
{
	int fd = pm_file__open(at(name), O_RDONLY, 0, 0, NULL);
	size_t n = 0;
	char *p;
	int err;

	if (fd < 0)
		return fd;
	err = pm_file__read_all(fd, len - 1, &p, &n);
	close(fd);
	if (err)
		return err;
	/* The text comes NUL-terminated: a parser may treat it as a string. */
	err = p[n] == '\0' ? 0 : -EILSEQ;
	memcpy(buf, p, n + 1);
	free(p);
	return err;
}

static int entries(void)
{
	char cmd[256];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_outfile(void)
{
	struct pm_outfile f;
	char buf[64];
	struct stat st;
	int before;

	put("out", "precious");
	chmod(at("out"), 0640);
	before = entries();
	tap_ok(!pm_outfile__open(&f, at("out")) && !pm_outfile__write(&f, "half", 4) &&
	       pm_outfile__close(&f, at("out"), -ENOSPC) == -ENOSPC &&
	       !slurp("out", buf, sizeof(buf)) && !strcmp(buf, "precious") && entries() == before,
	       "a failed output leaves the file as it was and no temporary");
	tap_ok(!pm_outfile__open(&f, at("out")) && !pm_outfile__write(&f, "new", 3) &&
	       !pm_outfile__close(&f, at("out"), 0) && !slurp("out", buf, sizeof(buf)) &&
	       !strcmp(buf, "new") && !stat(at("out"), &st) && (st.st_mode & 07777) == 0640,
	       "a complete output replaces the file, keeping its mode");
	put("target", "kept");
	if (symlink("target", at("planted")))
		exit(2);
	tap_ok(!pm_outfile__open(&f, at("planted")) && !pm_outfile__write(&f, "x", 1) &&
	       !pm_outfile__close(&f, at("planted"), 0) && !lstat(at("planted"), &st) &&
	       S_ISREG(st.st_mode) && !slurp("target", buf, sizeof(buf)) && !strcmp(buf, "kept"),
	       "a symlink at the output is replaced, its target untouched");
	tap_ok(!pm_outfile__open(&f, "/dev/null") && !f.tmp.tmp &&
	       !pm_outfile__write(&f, "x", 1) && pm_outfile__close(&f, "/dev/null", -EIO) == -EIO &&
	       !stat("/dev/null", &st) && S_ISCHR(st.st_mode),
	       "a device is written in place and never removed, even after an error");
	tap_ok(!pm_outfile__open(&f, "-") && f.fd == STDOUT_FILENO && f.borrowed &&
	       !pm_outfile__close(&f, "-", 0) && fcntl(STDOUT_FILENO, F_GETFD) >= 0,
	       "\"-\" is standard output, left open");
	tap_ok(pm_outfile__open(&f, at("dir")) == -EISDIR, "a directory is no output");
}

static void test_pread_all(void)
{
	char buf[8] = "";
	int fd, a, b, c, d;

	put("pread", "0123456789");
	fd = pm_file__open(at("pread"), O_RDONLY, 0, 0, NULL);
	a = pm_file__pread_all(fd, buf, 4, 3);
	b = pm_file__pread_all(fd, buf + 4, 4, 8);
	c = pm_file__pread_all(fd, buf + 4, 0, 100);
	d = pm_file__pread_all(fd, buf + 4, 4, UINT64_MAX - 1);
	tap_ok(fd >= 0 && !a && !memcmp(buf, "3456", 4),
	       "pread_all: the bytes at the offset (%d)", a);
	tap_ok(b == -EIO && !c, "pread_all: the file ending first is -EIO, nothing to read is 0");
	tap_ok(d == -EINVAL, "pread_all: an offset past off_t is refused (%d)", d);
	if (fd >= 0)
		close(fd);
}

static void test_pwrite_all(void)
{
	struct rlimit old, small;
	char buf[16] = "";
	int fd, a, b, c, d;

	put("pwrite", "0123456789");
	fd = pm_file__open(at("pwrite"), O_RDWR, 0, 0, NULL);
	a = pm_file__pwrite_all(fd, "abc", 3, 2);
	b = pm_file__pwrite_all(fd, "XY", 2, 12);
	tap_ok(fd >= 0 && !a && !b && !pm_file__pread_all(fd, buf, 14, 0) &&
	       !memcmp(buf, "01abc56789\0\0XY", 14),
	       "pwrite_all: the bytes at the offsets, past the end too (%d, %d)", a, b);
	c = pm_file__pwrite_all(fd, "x", 1, UINT64_MAX - 1);
	tap_ok(c == -EINVAL, "pwrite_all: an offset past off_t is refused (%d)", c);
	/* A file size limit: a short write, then EFBIG; no loop, no signal. */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = 20;
	d = setrlimit(RLIMIT_FSIZE, &small) ? 0 : pm_file__pwrite_all(fd, "0123456789", 10, 16);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	tap_ok(d == -EFBIG, "pwrite_all: the error after a short write is returned (%d)", d);
	if (fd >= 0)
		close(fd);
	fd = open("/dev/null", O_RDONLY);
	tap_ok(pm_file__pwrite_all(fd, "x", 1, 0) == -EBADF, "pwrite_all: a read-only fd is -EBADF");
	if (fd >= 0)
		close(fd);
}

static void test_paths(void)
{
	tap_ok(!strcmp(pm_path__base("/usr/lib/libc.so.6"), "libc.so.6") &&
	       !strcmp(pm_path__base("libc.so.6"), "libc.so.6") &&
	       !strcmp(pm_path__base("/usr/lib/"), "/usr/lib/"),
	       "path base: the last component, or the path when it ends in /");
	tap_ok(pm_path__dir_len("/usr/lib/libc.so.6") == 8 && pm_path__dir_len("/a") == 0 &&
	       pm_path__dir_len("libc.so.6") == -1,
	       "path dir_len: up to the last slash, -1 without one");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_open();
	test_in_root();
	test_outfile();
	test_pread_all();
	test_pwrite_all();
	test_paths();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return tap_done();
}
