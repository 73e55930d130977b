// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf_data.h"
#include "record/synth.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* perf keeps COMM names in char[16], like the kernel's TASK_COMM_LEN. */
#define COMM_MAX 15

/* Payloads of the synthesized records, before the file name. */
struct comm_head {
	struct perf_event_header header;
	__u32 pid;
	__u32 tid;
};

struct mmap_head {
	struct perf_event_header header;
	__u32 pid;
	__u32 tid;
	__u64 addr;
	__u64 len;
	__u64 pgoff;
};

struct mmap2_head {
	struct perf_event_header header;
	__u32 pid;
	__u32 tid;
	__u64 addr;
	__u64 len;
	__u64 pgoff;
	__u32 maj;
	__u32 min;
	__u64 ino;
	__u64 ino_generation;
	__u32 prot;
	__u32 flags;
};

/* Buffers reused across files and processes: synthesis runs over thousands. */
struct synth {
	struct pm_buf *out;
	size_t trailer;
	bool maps;		/* MMAP2 records too, not just COMMs */
	int procfd;
	char *file;
	size_t file_cap;
	char stat[2048];
	char dents[16384];
};

/*
 * Appends header (hlen bytes), then name NUL-terminated and zero-padded to 8,
 * then the zero trailer; header->size is filled in here.
 */
static int emit(struct pm_buf *out, size_t trailer, void *header, size_t hlen,
		const char *name, size_t name_len)
{
	size_t size = hlen + ALIGN8(name_len + 1) + trailer;
	struct perf_event_header *h = header;
	unsigned char *p;

	if (size > UINT16_MAX)
		return -E2BIG;
	h->size = (__u16)size;
	p = pm_buf__alloc(out, size);
	if (!p)
		return -ENOMEM;
	memcpy(p, header, hlen);
	memcpy(p + hlen, name, name_len);
	return 0;
}

/*
 * x86-64 lists the vsyscall page after every other mapping, at an address no
 * user mapping can have: seeing it means the end of the file was read.
 */
static bool maps_ends_with_gate(const char *buf, size_t len)
{
	static const char gate[] = "ffffffffff600000-ffffffffff601000 ";
	static const char tail[] = "[vsyscall]\n";
	const char *line;

	if (len < sizeof(tail) - 1 ||
	    memcmp(buf + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1))
		return false;
	line = memrchr(buf, '\n', len - 1);
	line = line ? line + 1 : buf;
	return (size_t)(buf + len - line) > sizeof(gate) - 1 &&
	       !memcmp(line, gate, sizeof(gate) - 1);
}

/*
 * Reads /proc/PID/maps into s->file.  It is a seq_file, which returns at most
 * a page per read() whatever the buffer size, so a short read is not EOF:
 * loop until read() returns 0, or until the last mapping has been seen.
 */
static int read_maps(struct synth *s, const char *path, size_t *lenp)
{
	size_t len = 0, cap;
	ssize_t n;
	char *p;
	int fd, err = 0;

	*lenp = 0;
	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len == s->file_cap) {
			cap = s->file_cap ? s->file_cap * 2 : 65536;
			p = realloc(s->file, cap);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			s->file = p;
			s->file_cap = cap;
		}
		n = read(fd, s->file + len, s->file_cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
		if (maps_ends_with_gate(s->file, len))
			break;
	}
	close(fd);
	*lenp = len;
	return err;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses lowercase hex as /proc prints it; advances *pp past the digits. */
static uint64_t parse_hex(const char **pp, const char *end)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	while (p < end && (d = hexval(*p)) >= 0) {
		v = v << 4 | d;
		p++;
	}
	*pp = p;
	return v;
}

static uint64_t parse_dec(const char **pp, const char *end)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (p < end && *p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	*pp = p;
	return v;
}

/*
 * One /proc/PID/maps line "start-end perms offset maj:min inode   path".
 * Returns 0 and fills m and the file name for an executable mapping, 1 to
 * skip the line, -EINVAL when it does not parse.
 */
static int parse_maps_line(const char *p, const char *end,
			   struct mmap2_head *m, const char **name,
			   size_t *name_len)
{
	const char *perms;
	uint64_t start, stop;

	start = parse_hex(&p, end);
	if (p == end || *p++ != '-')
		return -EINVAL;
	stop = parse_hex(&p, end);
	if (end - p < 6 || *p++ != ' ')
		return -EINVAL;
	perms = p;
	/* Only code needs a map for symbol resolution; skip the rest early. */
	if (perms[2] != 'x')
		return 1;
	p += 4;
	if (*p++ != ' ')
		return -EINVAL;
	m->addr = start;
	m->len = stop - start;
	m->pgoff = parse_hex(&p, end);
	if (p == end || *p++ != ' ')
		return -EINVAL;
	m->maj = (__u32)parse_hex(&p, end);
	if (p == end || *p++ != ':')
		return -EINVAL;
	m->min = (__u32)parse_hex(&p, end);
	if (p == end || *p++ != ' ')
		return -EINVAL;
	m->ino = parse_dec(&p, end);
	m->ino_generation = 0;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	while (p < end && *p == ' ')
		p++;
	if (p == end) {
		/* perf's name for anonymous code (JIT): it is what it resolves. */
		*name = "//anon";
		*name_len = 6;
	} else {
		*name = p;
		*name_len = end - p;
	}
	return 0;
}

/* MMAP2 for each executable mapping in the maps text s->file[0..len). */
static int synth_maps(struct synth *s, pid_t pid, size_t len)
{
	struct mmap2_head m = {
		.header = {
			.type = PERF_RECORD_MMAP2,
			.misc = PERF_RECORD_MISC_USER,
		},
		.pid = (__u32)pid,
		.tid = (__u32)pid,
	};
	const char *p = s->file, *end = s->file + len, *nl, *name;
	size_t name_len;
	int err;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		err = parse_maps_line(p, nl, &m, &name, &name_len);
		if (err > 0)
			continue;
		if (err)
			return err;
		err = emit(s->out, s->trailer, &m, sizeof(m), name, name_len);
		if (err)
			return err;
	}
	return 0;
}

static int emit_comm(struct synth *s, pid_t pid, pid_t tid, const char *comm,
		     size_t len)
{
	struct comm_head c = {
		.header.type = PERF_RECORD_COMM,
		.pid = (__u32)pid,
		.tid = (__u32)tid,
	};

	return emit(s->out, s->trailer, &c, sizeof(c), comm,
		    len < COMM_MAX ? len : COMM_MAX);
}

/*
 * Writes the decimal digits of v at p and returns the end.  The paths below
 * are built by hand: snprintf's "%s" costs a strnlen per call, and synthesis
 * builds three paths for each of thousands of processes.
 */
static char *put_dec(char *p, unsigned int v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "pid/name" into path, which holds at least 11 + sizeof(name) bytes. */
static void proc_path(char *path, pid_t pid, const char *name, size_t name_size)
{
	char *p = put_dec(path, (unsigned int)pid);

	*p++ = '/';
	memcpy(p, name, name_size);
}

/* COMM for thread tid from /proc/PID/task/TID/comm. */
static int synth_thread_comm(struct synth *s, pid_t pid, pid_t tid)
{
	char path[64], comm[64], *p;
	ssize_t n;
	int fd;

	p = put_dec(path, (unsigned int)pid);
	memcpy(p, "/task/", 6);
	p = put_dec(p + 6, (unsigned int)tid);
	memcpy(p, "/comm", sizeof("/comm"));
	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One read: the file is a single short line. */
	n = read(fd, comm, sizeof(comm));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	/* Only the last newline is the file's: a comm may contain one. */
	if (n && comm[n - 1] == '\n')
		n--;
	return emit_comm(s, pid, tid, comm, n);
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

static bool vanished(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

/* COMM for every thread listed in /proc/PID/task. */
static int synth_threads(struct synth *s, pid_t pid)
{
	struct dirent64 *d;
	char path[32];
	ssize_t n, off;
	int fd, err = 0, nr = 0;

	proc_path(path, pid, "task", sizeof("task"));
	fd = openat(s->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!err && (n = getdents64(fd, s->dents, sizeof(s->dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct dirent64 *)(s->dents + off);
			if (!is_number(d->d_name))
				continue;
			err = synth_thread_comm(s, pid,
						(pid_t)strtol(d->d_name, NULL, 10));
			/* A thread that exited since the listing is no error. */
			if (vanished(err))
				err = 0;
			else if (err)
				break;
			else
				nr++;
		}
	}
	if (n < 0 && !err)
		err = -errno;
	close(fd);
	if (!err && !nr)
		err = -ESRCH;
	return err;
}

/* The fields of /proc/PID/stat that decide how to synthesize a process. */
struct task_stat {
	const char *comm;
	size_t comm_len;
	unsigned long flags;
	unsigned long nr_threads;
};

/* include/linux/sched.h: the task is a kernel thread. */
#define PF_KTHREAD 0x00200000UL

static int read_stat(struct synth *s, const char *path, struct task_stat *ts)
{
	const char *p, *end, *open, *close_paren;
	unsigned long v;
	ssize_t n;
	int fd, field;

	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One record of well under 2 KB: a single read returns all of it. */
	n = read(fd, s->stat, sizeof(s->stat));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	/* "pid (comm) state ppid ...": comm is raw and may hold ") ". */
	open = memchr(s->stat, '(', n);
	close_paren = memrchr(s->stat, ')', n);
	if (!open || !close_paren || close_paren < open ||
	    s->stat + n - close_paren < 4)
		return -EINVAL;
	ts->comm = open + 1;
	ts->comm_len = close_paren - open - 1;
	/* Skip ") " and the state letter. */
	p = close_paren + 3;
	end = s->stat + n;
	/* Fields 4 (ppid) to 20 (num_threads); 9 is flags. */
	for (field = 4; field <= 20; field++) {
		if (p >= end || *p++ != ' ')
			return -EINVAL;
		if (*p == '-')
			p++;
		v = (unsigned long)parse_dec(&p, end);
		if (field == 9)
			ts->flags = v;
	}
	ts->nr_threads = v;
	return 0;
}

/*
 * COMM for each thread of pid, then MMAP2 for its code.  Maps that cannot be
 * read for lack of permission leave just the COMMs, as perf does for other
 * users' processes; *denied (when not NULL) says it happened.
 */
static int synth_task(struct synth *s, pid_t pid, bool *denied)
{
	struct task_stat ts = { 0 };
	char path[32];
	size_t len;
	int err;

	proc_path(path, pid, "stat", sizeof("stat"));
	err = read_stat(s, path, &ts);
	if (err)
		return err;
	/*
	 * Syscalls dominate the cost of synthesis, so the stat line stands in
	 * for the thread listing when it can: kernel threads are alone and
	 * have no maps, and a lone thread is the leader (a leader that exited
	 * before its other threads still counts until they are all gone).
	 */
	if (ts.flags & PF_KTHREAD)
		return emit_comm(s, pid, pid, ts.comm, ts.comm_len);
	if (ts.nr_threads == 1)
		err = emit_comm(s, pid, pid, ts.comm, ts.comm_len);
	else
		err = synth_threads(s, pid);
	if (err || !s->maps)
		return err;
	proc_path(path, pid, "maps", sizeof("maps"));
	err = read_maps(s, path, &len);
	if (err == -EACCES || err == -EPERM) {
		if (denied)
			*denied = true;
		return 0;
	}
	if (err)
		return err;
	return synth_maps(s, pid, len);
}

static int synth__init(struct synth *s, struct pm_buf *out, size_t trailer, bool maps)
{
	/* Records must stay 8-aligned and the trailer is made of u64s. */
	if (trailer % 8)
		return -EINVAL;
	s->out = out;
	s->trailer = trailer;
	s->maps = maps;
	s->file = NULL;
	s->file_cap = 0;
	s->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return s->procfd < 0 ? -errno : 0;
}

static void synth__exit(struct synth *s)
{
	close(s->procfd);
	free(s->file);
}

int pm_synth__task(struct pm_buf *out, pid_t pid, size_t trailer_size, bool maps,
		   bool *maps_denied)
{
	struct synth *s = malloc(sizeof(*s));
	size_t start = out->len;
	int err;

	if (!s)
		return -ENOMEM;
	err = synth__init(s, out, trailer_size, maps);
	if (!err) {
		err = synth_task(s, pid, maps_denied);
		synth__exit(s);
	}
	free(s);
	/* All of a task or nothing: a half-described process misleads. */
	if (err)
		out->len = start;
	return err;
}

int pm_synth__all_tasks(struct pm_buf *out, size_t trailer_size, bool maps,
			const struct pm_synth_sink *sink)
{
	struct synth *s = malloc(sizeof(*s));
	/* Separate from s->dents, which synth_task reuses for each process. */
	char *dents = malloc(32768);
	size_t start = out->len, mark;
	struct dirent64 *d;
	ssize_t n = 0, off;
	int err;

	if (!s || !dents) {
		err = -ENOMEM;
		goto out;
	}
	err = synth__init(s, out, trailer_size, maps);
	if (err)
		goto out;
	/* The listing's file position does not affect openat() on procfd. */
	while (!err && (n = getdents64(s->procfd, dents, 32768)) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct dirent64 *)(dents + off);
			if (!is_number(d->d_name))
				continue;
			mark = out->len;
			err = synth_task(s, (pid_t)strtol(d->d_name, NULL, 10),
					 NULL);
			if (vanished(err)) {
				out->len = mark;
				err = 0;
			} else if (err) {
				break;
			}
			if (sink && out->len >= sink->flush_at) {
				err = sink->flush(out, sink->arg);
				if (err)
					break;
				start = out->len;
			}
		}
	}
	if (n < 0 && !err)
		err = -errno;
	synth__exit(s);
out:
	free(dents);
	free(s);
	if (err)
		out->len = start;
	return err;
}

/*
 * Finds the "_text" and "_etext" lines of /proc/kallsyms in buf[0..len),
 * which holds whole lines only.
 */
static void find_text_syms(const char *buf, size_t len, uint64_t *text,
			   uint64_t *etext, bool *have_text, bool *have_etext)
{
	const char *end = buf + len, *p = buf, *hit, *line, *name;

	/* Both names end in "text\n"; most lines do not, so search for that. */
	while ((hit = memmem(p, end - p, "text\n", 5))) {
		p = hit + 5;
		line = hit;
		while (line > buf && line[-1] != '\n')
			line--;
		name = hit;
		while (name > line && name[-1] != ' ')
			name--;
		if (hit + 4 - name == 5 && !memcmp(name, "_text", 5)) {
			*text = parse_hex(&line, end);
			*have_text = true;
		} else if (hit + 4 - name == 6 && !memcmp(name, "_etext", 6)) {
			*etext = parse_hex(&line, end);
			*have_etext = true;
		}
		if (*have_text && *have_etext)
			return;
	}
}

/*
 * Size of the kernel's text from /proc/iomem: on x86 "Kernel code" spans
 * __pa(_text) .. __pa(_etext) - 1.  _etext sits near the end of
 * /proc/kallsyms, which the kernel formats line by line (~60 ms here), while
 * iomem is a few KiB.  Returns 0 when unknown (not root: addresses are 0).
 */
static uint64_t kernel_code_size(void)
{
	char buf[16384], *p, *end;
	uint64_t lo, hi;
	ssize_t n;
	int fd = open("/proc/iomem", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, " : Kernel code\n");
	if (!p)
		return 0;
	while (p > buf && p[-1] != '\n')
		p--;
	while (*p == ' ')
		p++;
	lo = strtoull(p, &end, 16);
	if (*end != '-')
		return 0;
	hi = strtoull(end + 1, NULL, 16);
	return hi > lo ? hi - lo + 1 : 0;
}

/*
 * Reads /proc/kallsyms from fd, cap bytes of buf at a time, until _text
 * and _etext are found; with code_size (from iomem), _text alone does.
 * 0 or a negative errno.
 */
static int read_text_range(int fd, char *buf, size_t cap, uint64_t code_size, uint64_t *text,
			   uint64_t *etext)
{
	bool have_text = false, have_etext = false;
	size_t len = 0, whole;
	char *nl;
	ssize_t n;

	while (!(have_text && have_etext)) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENOENT;
		len += n;
		nl = memrchr(buf, '\n', len);
		if (!nl) {
			/* No line is that long: this is not kallsyms. */
			if (len == cap)
				return -EINVAL;
			continue;
		}
		whole = nl + 1 - buf;
		find_text_syms(buf, whole, text, etext, &have_text, &have_etext);
		/* kptr_restrict shows every address as 0: no need to go on. */
		if (have_text && !*text)
			break;
		/* _text is near the start; iomem gave the rest. */
		if (have_text && code_size) {
			*etext = *text + code_size;
			break;
		}
		/* Keep the partial last line for the next read. */
		memmove(buf, buf + whole, len - whole);
		len -= whole;
	}
	return 0;
}

/* The kernel's text, _text.._etext (0 where unknown): 0 or a negative errno. */
static int kernel_text_range(uint64_t *text, uint64_t *etext)
{
	const size_t cap = 65536;
	uint64_t code_size = kernel_code_size();
	char *buf;
	int fd, err;

	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	err = read_text_range(fd, buf, cap, code_size, text, etext);
	free(buf);
	close(fd);
	return err;
}

int pm_synth__kernel_mmap(struct pm_buf *out, size_t trailer_size)
{
	static const char name[] = "[kernel.kallsyms]_text";
	struct mmap_head m = {
		.header = {
			.type = PERF_RECORD_MMAP,
			.misc = PERF_RECORD_MISC_KERNEL,
		},
		/* perf's HOST_KERNEL_ID: the map belongs to no process. */
		.pid = (__u32)-1,
		.tid = 0,
	};
	uint64_t text = 0, etext = 0;
	int err;

	if (trailer_size % 8)
		return -EINVAL;
	err = kernel_text_range(&text, &etext);
	if (err)
		return err;
	if (!text || !etext)
		return -EACCES;
	if (etext < text)
		return -EINVAL;
	m.addr = text;
	m.len = etext - text;
	m.pgoff = text;
	return emit(out, trailer_size, &m, sizeof(m), name, sizeof(name) - 1);
}
