// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/smallfile.h"
#include "record/tracing.h"

#define TRACEFS_MNT "/sys/kernel/tracing"

static bool has_events(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int copy_path(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -ENAMETOOLONG;
	strcpy(dst, src);
	return 0;
}

int pm_tracing__dir(char *path, size_t len)
{
	/* debugfs automounts tracefs here on kernels that have both. */
	static const char *const dirs[] = {
		TRACEFS_MNT,
		"/sys/kernel/debug/tracing",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (has_events(dirs[i]))
			return copy_path(path, len, dirs[i]);
	}
	/* EBUSY: another thread or process mounted it in the meantime. */
	if (mount("nodev", TRACEFS_MNT, "tracefs", 0, NULL) && errno != EBUSY)
		return -errno;
	if (!has_events(TRACEFS_MNT))
		return -ENOENT;
	return copy_path(path, len, TRACEFS_MNT);
}

/* A tracefs path component: no way out of events/ and nothing hidden. */
static bool valid_component(const char *s, size_t n)
{
	return n && !memchr(s, '/', n) && !memmem(s, n, "..", 2) &&
	       !(n == 1 && s[0] == '.');
}

static int event_path(char *path, size_t len, const char *sys, size_t sys_len,
		      const char *name, const char *file)
{
	char dir[PATH_MAX];
	int err, n;

	if (!valid_component(sys, sys_len) ||
	    !valid_component(name, strlen(name)))
		return -EINVAL;
	err = pm_tracing__dir(dir, sizeof(dir));
	if (err)
		return err;
	n = snprintf(path, len, "%s/events/%.*s/%s/%s", dir, (int)sys_len, sys,
		     name, file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Appends the whole of the file at path; tracefs files have no usable size. */
static int append_file(struct pm_buf *out, const char *path)
{
	ssize_t n;
	int fd, err = 0;

	/* The path holds the event name the user gave. */
	fd = pm_file__open(path, O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return fd;
	for (;;) {
		err = pm_buf__reserve(out, 16384);
		if (err)
			break;
		n = read(fd, out->data + out->len, out->cap - out->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		out->len += n;
	}
	close(fd);
	return err;
}

/* u64 size then the contents of path, as every file in the blob. */
static int append_sized_file(struct pm_buf *out, const char *path)
{
	size_t at = out->len;
	uint64_t size;
	int err;

	err = pm_buf__append_u64(out, 0);
	if (!err)
		err = append_file(out, path);
	if (err)
		return err;
	size = out->len - at - sizeof(size);
	memcpy(out->data + at, &size, sizeof(size));
	return 0;
}

int pm_tracing__event_id(const char *sys, const char *name, uint64_t *id)
{
	char path[PATH_MAX];
	int err = event_path(path, sizeof(path), sys, strlen(sys), name, "id");

	return err ? err : pm_read_u64(path, id);
}

/* One requested event, split at the colon; sys points into the caller's. */
struct tp {
	const char *sys;
	size_t sys_len;
	const char *name;
	bool done;
};

static bool same_sys(const struct tp *a, const struct tp *b)
{
	return a->sys_len == b->sys_len && !memcmp(a->sys, b->sys, a->sys_len);
}

static bool is_ftrace(const struct tp *t)
{
	return t->sys_len == 6 && !memcmp(t->sys, "ftrace", 6);
}

/*
 * Formats of the events in tps[from..nr) of tps[from]'s system, each once,
 * marking them done.  Returns how many were written, or -errno.
 */
static int append_system_formats(struct pm_buf *out, struct tp *tps, size_t nr,
				 size_t from)
{
	char path[PATH_MAX];
	size_t i, j;
	int err, count = 0;

	for (i = from; i < nr; i++) {
		if (tps[i].done || !same_sys(&tps[i], &tps[from]))
			continue;
		for (j = i; j < nr; j++) {
			if (same_sys(&tps[j], &tps[i]) &&
			    !strcmp(tps[j].name, tps[i].name))
				tps[j].done = true;
		}
		err = event_path(path, sizeof(path), tps[i].sys,
				 tps[i].sys_len, tps[i].name, "format");
		if (!err)
			err = append_sized_file(out, path);
		if (err)
			return err;
		count++;
	}
	return count;
}

static void put_u32(struct pm_buf *out, size_t at, uint32_t v)
{
	memcpy(out->data + at, &v, sizeof(v));
}

static int append_tracing_data(struct pm_buf *out, struct tp *tps, size_t nr)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					       'c', 'i', 'n', 'g' };
	const unsigned int one = 1;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	uint32_t nr_systems = 0;
	size_t i, count_at, sys_at;
	unsigned char endian;
	int err, n;

	err = pm_tracing__dir(dir, sizeof(dir));
	if (err)
		return err;
	/* The reader swaps integers when this differs from its own order. */
	endian = *(const unsigned char *)&one ? 0 : 1;
	if (pm_buf__append(out, magic, sizeof(magic)) ||
	    pm_buf__append(out, "0.6", 4) ||
	    pm_buf__append(out, &endian, 1) ||
	    pm_buf__append(out, &(unsigned char){ sizeof(long) }, 1) ||
	    pm_buf__append_u32(out, (uint32_t)sysconf(_SC_PAGESIZE)) ||
	    pm_buf__append(out, "header_page", 12))
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	err = append_sized_file(out, path);
	if (err)
		return err;
	if (pm_buf__append(out, "header_event", 13))
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	err = append_sized_file(out, path);
	if (err)
		return err;

	/* perf reads the ftrace system's formats apart, with no name. */
	count_at = out->len;
	if (pm_buf__append_u32(out, 0))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!tps[i].done && is_ftrace(&tps[i])) {
			n = append_system_formats(out, tps, nr, i);
			if (n < 0)
				return n;
			put_u32(out, count_at, (uint32_t)n);
			break;
		}
	}

	count_at = out->len;
	if (pm_buf__append_u32(out, 0))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (tps[i].done)
			continue;
		if (pm_buf__append(out, tps[i].sys, tps[i].sys_len) ||
		    pm_buf__append(out, "", 1))
			return -ENOMEM;
		sys_at = out->len;
		if (pm_buf__append_u32(out, 0))
			return -ENOMEM;
		n = append_system_formats(out, tps, nr, i);
		if (n < 0)
			return n;
		put_u32(out, sys_at, (uint32_t)n);
		nr_systems++;
	}
	put_u32(out, count_at, nr_systems);

	/* kallsyms and printk formats: perf needs neither to decode fields. */
	if (pm_buf__append_u32(out, 0) || pm_buf__append_u32(out, 0) ||
	    pm_buf__append_u64(out, 0))
		return -ENOMEM;
	return 0;
}

int pm_tracing__data(struct pm_buf *out, const char *const *events, size_t nr)
{
	size_t start = out->len, i;
	const char *colon;
	struct tp *tps;
	int err = 0;

	tps = calloc(nr ? nr : 1, sizeof(*tps));
	if (!tps)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		colon = strchr(events[i], ':');
		if (!colon) {
			err = -EINVAL;
			break;
		}
		tps[i].sys = events[i];
		tps[i].sys_len = colon - events[i];
		tps[i].name = colon + 1;
		if (!valid_component(tps[i].sys, tps[i].sys_len) ||
		    !valid_component(tps[i].name, strlen(tps[i].name)))
			err = -EINVAL;
	}
	if (!err)
		err = append_tracing_data(out, tps, nr);
	free(tps);
	if (err)
		out->len = start;
	return err;
}
