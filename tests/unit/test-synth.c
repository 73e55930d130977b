// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/record/synth.c against this process and the live /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/perf_data.h"
#include "record/synth.h"
#include "tap.h"

#define TRAILER 24

struct rec_comm {
	struct perf_event_header header;
	__u32 pid, tid;
	char comm[];
};

struct rec_mmap {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	char filename[];
};

struct rec_mmap2 {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	char filename[];
};

/* Offset of the NUL-terminated name in a record of that type. */
static size_t name_offset(__u32 type)
{
	switch (type) {
	case PERF_RECORD_COMM:
		return sizeof(struct rec_comm);
	case PERF_RECORD_MMAP:
		return sizeof(struct rec_mmap);
	case PERF_RECORD_MMAP2:
		return sizeof(struct rec_mmap2);
	}
	return 0;
}

/*
 * Checks that buf is a sequence of whole, 8-aligned COMM/MMAP/MMAP2 records,
 * each with its name NUL-terminated before a zero trailer of trailer bytes.
 * Returns the number of records, or -1 with a reason in *why.
 */
static long validate(const struct pm_buf *b, size_t trailer, const char **why)
{
	const struct perf_event_header *h;
	size_t off = 0, name, i;
	long nr = 0;

	while (off < b->len) {
		if (b->len - off < sizeof(*h)) {
			*why = "truncated header";
			return -1;
		}
		h = (const void *)(b->data + off);
		name = name_offset(h->type);
		if (!name) {
			*why = "unexpected record type";
			return -1;
		}
		if (h->size % 8 || h->size < name + 8 + trailer ||
		    h->size > b->len - off) {
			*why = "bad record size";
			return -1;
		}
		if (!memchr(b->data + off + name, '\0',
			    h->size - trailer - name)) {
			*why = "name not terminated before the trailer";
			return -1;
		}
		for (i = h->size - trailer; i < h->size; i++) {
			if (b->data[off + i]) {
				*why = "non-zero trailer";
				return -1;
			}
		}
		off += h->size;
		nr++;
	}
	*why = "ok";
	return nr;
}

/* The next record of type after *off, or NULL. */
static const void *next_record(const struct pm_buf *b, size_t *off, __u32 type)
{
	const struct perf_event_header *h;

	while (*off < b->len) {
		h = (const void *)(b->data + *off);
		*off += h->size;
		if (h->type == type)
			return h;
	}
	return NULL;
}

static const struct rec_comm *find_comm(const struct pm_buf *b, pid_t pid,
					pid_t tid)
{
	const struct rec_comm *c;
	size_t off = 0;

	while ((c = next_record(b, &off, PERF_RECORD_COMM))) {
		if (c->pid == (__u32)pid && c->tid == (__u32)tid)
			return c;
	}
	return NULL;
}

/* Whether /proc/self/maps mentions name (valgrind maps no vdso). */
static bool self_maps_have(const char *name)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

static pthread_barrier_t started, done;

static void *named_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "synth-worker");
	*(pid_t *)arg = gettid();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

static void test_kernel_mmap(void)
{
	static const char name[] = "[kernel.kallsyms]_text";
	struct pm_buf b = { 0 };
	const struct rec_mmap *m;
	const char *why;
	long nr;
	int err;

	err = pm_synth__kernel_mmap(&b, TRAILER);
	if (err == -EACCES && geteuid()) {
		printf("ok 1 # SKIP kallsyms addresses hidden from non-root\n");
		tap_count++;
		return;
	}
	tap_ok(!err, "kernel mmap synthesized (%d)", err);
	if (err)
		return;
	m = (const void *)b.data;
	nr = validate(&b, TRAILER, &why);
	tap_ok(nr == 1, "kernel mmap is one valid record: %s", why);
	tap_ok(m->header.type == PERF_RECORD_MMAP &&
	       m->header.misc == PERF_RECORD_MISC_KERNEL,
	       "kernel mmap type %u misc %u", m->header.type, m->header.misc);
	tap_ok(m->pid == UINT32_MAX && m->tid == 0, "kernel mmap pid -1 tid 0");
	tap_ok(!strcmp(m->filename, name) &&
	       m->header.size == sizeof(*m) + 24 + TRAILER,
	       "kernel mmap name '%s' size %u", m->filename, m->header.size);
	tap_ok(m->addr && m->len && m->pgoff == m->addr &&
	       m->addr + m->len > m->addr,
	       "kernel mmap covers _text.._etext (%#llx +%#llx)",
	       (unsigned long long)m->addr, (unsigned long long)m->len);
	tap_ok(pm_synth__kernel_mmap(&b, 4) == -EINVAL,
	       "a trailer that breaks 8-alignment is refused");
	pm_buf__exit(&b);
}

static void test_self(void)
{
	char exe[PATH_MAX], comm[17] = "";
	const struct rec_mmap2 *m;
	const struct rec_comm *c;
	struct pm_buf b = { 0 };
	bool have_exe = false, have_vdso = false, fields_ok = true;
	pid_t pid = getpid(), worker = 0;
	pthread_t thread;
	const char *why;
	struct stat st;
	size_t off = 0;
	ssize_t n;
	long nr;
	int err;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	stat(exe, &st);
	prctl(PR_GET_NAME, comm);
	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&thread, NULL, named_thread, &worker);
	pthread_barrier_wait(&started);

	err = pm_synth__task(&b, pid, TRAILER, true, NULL);
	tap_ok(!err, "pm_synth__task(getpid()) = %d", err);
	nr = validate(&b, TRAILER, &why);
	tap_ok(nr > 0, "own records are valid: %s", why);

	c = find_comm(&b, pid, pid);
	tap_ok(c && !strcmp(c->comm, comm), "COMM for the main thread is '%s'",
	       comm);
	c = find_comm(&b, pid, worker);
	tap_ok(c && !strcmp(c->comm, "synth-worker"),
	       "COMM for the second thread carries its own name");

	while ((m = next_record(&b, &off, PERF_RECORD_MMAP2))) {
		if (m->pid != (__u32)pid || m->tid != (__u32)pid ||
		    m->header.misc != PERF_RECORD_MISC_USER ||
		    !(m->prot & PROT_EXEC) || m->ino_generation)
			fields_ok = false;
		if (!strcmp(m->filename, exe) &&
		    m->prot == (PROT_READ | PROT_EXEC) &&
		    m->flags == MAP_PRIVATE && m->ino == st.st_ino && m->len)
			have_exe = true;
		if (!strcmp(m->filename, "[vdso]"))
			have_vdso = true;
	}
	tap_ok(have_exe, "an r-xp MMAP2 of our executable %s", exe);
	if (self_maps_have("[vdso]"))
		tap_ok(have_vdso, "an MMAP2 of [vdso]");
	else
		tap_ok(1, "# SKIP no [vdso] here (valgrind?)");
	tap_ok(fields_ok, "every MMAP2: pid = tid = %d, misc USER, PROT_EXEC",
	       (int)pid);

	/* Without maps: the same COMMs, and nothing else. */
	pm_buf__reset(&b);
	err = pm_synth__task(&b, pid, TRAILER, false, NULL);
	off = 0;
	tap_ok(!err && validate(&b, TRAILER, &why) == 2 && find_comm(&b, pid, pid) &&
	       find_comm(&b, pid, worker) && !next_record(&b, &off, PERF_RECORD_MMAP2),
	       "maps off: two COMMs, no MMAP2 (%d)", err);

	pthread_barrier_wait(&done);
	pthread_join(thread, NULL);

	pm_buf__reset(&b);
	err = pm_synth__task(&b, pid, 0, true, NULL);
	nr = validate(&b, 0, &why);
	tap_ok(!err && nr > 0,
	       "without a trailer the records are still valid: %s", why);

	pm_buf__reset(&b);
	pm_buf__append_u64(&b, 42);
	err = pm_synth__task(&b, INT_MAX, TRAILER, true, NULL);
	tap_ok((err == -ENOENT || err == -ESRCH) && b.len == 8,
	       "a missing pid fails (%d) and appends nothing", err);
	pm_buf__exit(&b);
}

static void *survivor(void *arg)
{
	int fd = *(int *)arg;
	pid_t tid = gettid();

	pthread_setname_np(pthread_self(), "survivor");
	if (write(fd, &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	for (;;)
		pause();
	return NULL;
}

/* Waits until the thread group leader of pid is a zombie. */
static bool leader_is_zombie(pid_t pid)
{
	char path[64], buf[512], *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = '\0';
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'Z')
				return true;
		}
		usleep(10000);
	}
	return false;
}

/*
 * A process whose main thread exited while another runs on has one thread,
 * and it is not the leader: its COMM must still be there.
 */
static void test_exited_leader(void)
{
	struct pm_buf b = { 0 };
	const struct rec_comm *c;
	pthread_t thread;
	pid_t child, tid = 0;
	int fds[2], err;

	if (pipe(fds))
		return;
	child = fork();
	if (!child) {
		close(fds[0]);
		if (pthread_create(&thread, NULL, survivor, &fds[1]))
			_exit(1);
		pthread_exit(NULL);
	}
	close(fds[1]);
	if (read(fds[0], &tid, sizeof(tid)) != sizeof(tid))
		tid = 0;
	close(fds[0]);
	tap_ok(tid > 0 && leader_is_zombie(child),
	       "child %d: leader exited, thread %d runs on", (int)child,
	       (int)tid);
	err = pm_synth__task(&b, child, TRAILER, true, NULL);
	c = find_comm(&b, child, tid);
	tap_ok(!err && c && !strcmp(c->comm, "survivor"),
	       "COMM of the surviving thread is synthesized (%d)", err);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	pm_buf__exit(&b);
}

static void test_all_tasks(void)
{
	struct pm_buf b = { 0 };
	const char *why;
	long nr;
	int err;

	err = pm_synth__all_tasks(&b, TRAILER, true, NULL);
	tap_ok(!err, "pm_synth__all_tasks = %d", err);
	nr = validate(&b, TRAILER, &why);
	tap_ok(nr > 0, "all tasks: %ld valid records: %s", nr, why);
	tap_ok(find_comm(&b, 1, 1) != NULL, "all tasks include pid 1");
	tap_ok(find_comm(&b, getpid(), getpid()) != NULL,
	       "all tasks include this process");
	pm_buf__exit(&b);
}

struct collect {
	struct pm_buf all;
	int calls;
	int fail_at;
};

static int collect_flush(struct pm_buf *out, void *arg)
{
	struct collect *c = arg;

	if (++c->calls == c->fail_at)
		return -EIO;
	if (pm_buf__append(&c->all, out->data, out->len))
		return -ENOMEM;
	pm_buf__reset(out);
	return 0;
}

static void test_all_tasks_sink(void)
{
	struct collect c = { .fail_at = -1 };
	struct pm_synth_sink sink = { .flush = collect_flush, .arg = &c, .flush_at = 1 };
	struct pm_buf b = { 0 };
	const char *why;
	long nr;
	int err;

	err = pm_synth__all_tasks(&b, TRAILER, true, &sink);
	tap_ok(!err && c.calls > 1, "sink: %d flushes, one per process (%d)", c.calls, err);
	tap_ok(b.len == 0, "sink: flush_at 1 leaves nothing behind (%zu bytes)", b.len);
	nr = validate(&c.all, TRAILER, &why);
	tap_ok(nr > 0 && find_comm(&c.all, 1, 1) && find_comm(&c.all, getpid(), getpid()),
	       "sink: %ld valid records incl. pid 1 and this process: %s", nr, why);
	pm_buf__exit(&c.all);

	c = (struct collect){ .fail_at = 2 };
	err = pm_synth__all_tasks(&b, TRAILER, true, &sink);
	tap_ok(err == -EIO && c.calls == 2, "sink: a failing flush stops synthesis (%d after %d)",
	       err, c.calls);
	pm_buf__exit(&c.all);
	pm_buf__exit(&b);
}

int main(void)
{
	test_kernel_mmap();
	test_self();
	test_exited_leader();
	test_all_tasks();
	test_all_tasks_sink();
	return tap_done();
}
