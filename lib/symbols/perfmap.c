// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "symbols/jitbudget.h"
#include "symbols/perfmap.h"
#include "symbols/symname.h"

/* The longest line kept whole: two 64-bit numbers in hex, and a name that symname.h cuts. */
#define LINE_KEEP (PM_SYM_NAME_MAX + 64)
#define READ_CHUNK (64u << 10)

/* A hexadecimal number of at most 64 bits, "0x" allowed; advances *p. */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return -EINVAL;
		*v = *v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*p = s;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A number after blanks (strtoull skips them for perf), then one blank. */
static int parse_field(const char **p, const char *end, uint64_t *v)
{
	while (*p < end && is_blank(**p))
		(*p)++;
	if (parse_hex(p, end, v) || *p == end || !is_blank(**p))
		return -EINVAL;
	(*p)++;
	return 0;
}

int pm_perfmap__parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			   const char **name, size_t *name_len)
{
	const char *p = line, *end = line + len;

	if (parse_field(&p, end, start) || parse_field(&p, end, size) || p == end)
		return -EINVAL;
	/* A NUL ends the name as it would end perf's. */
	*name = p;
	*name_len = strnlen(p, (size_t)(end - p));
	if (!*name_len || !*size || *start + *size < *start)
		return -EINVAL;
	return 0;
}

int pm_perfmap__open(int root_fd, const char *path, uid_t uid, uid_t uid2)
{
	struct stat st;
	int fd = root_fd < 0 ? pm_file__open(path, O_RDONLY, 0, 0, &st) :
			       pm_file__open_in_root(root_fd, path, O_RDONLY, 0, 0, &st);

	if (fd < 0)
		return fd;
	/* Anyone can write in /tmp: only root's or the process's own map names its code. */
	if (st.st_uid && st.st_uid != uid && st.st_uid != uid2) {
		close(fd);
		return -EPERM;
	}
	/* Holes read back as zeros, gigabytes of them: no runtime writes a file so. */
	if (pm_jit__sparse(&st)) {
		close(fd);
		return -EFBIG;
	}
	return fd;
}

struct map_reader {
	struct pm_jitsyms *t;
	int32_t pid;
	const char *dso, *dso_short;
	struct pm_perfmap_stats *st;
	char line[LINE_KEEP + 1];
	size_t len;			/* bytes of the current line kept */
};

/* One whole line; -E2BIG when the table is full. */
static int map_reader__line(struct map_reader *m)
{
	struct pm_jitsym_add a = { .pid = m->pid, .dso = m->dso, .dso_short = m->dso_short };
	int err;

	m->st->lines++;
	if (pm_perfmap__parse_line(m->line, m->len, &a.start, &a.size, &a.name, &a.name_len)) {
		m->st->malformed++;
		return 0;
	}
	/*
	 * A line longer than kept has a name longer than PM_SYM_NAME_MAX
	 * (the numbers take at most 40 bytes): the table cuts it, marked.
	 */
	err = pm_jitsyms__add(m->t, &a);
	if (err == -EINVAL) {
		m->st->malformed++;
		return 0;
	}
	if (!err)
		m->st->added++;
	return err;
}

/* Feeds n bytes of the file; a line ends at '\n'.  0, 1 at a bound, or -errno. */
static int map_reader__feed(struct map_reader *m, const char *p, size_t n)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n, room = LINE_KEEP - m->len;
		int err;

		memcpy(m->line + m->len, p, take < room ? take : room);
		m->len += take < room ? take : room;
		if (!nl)
			return 0;
		p += take + 1;
		n -= take + 1;
		m->line[m->len] = '\0';
		err = map_reader__line(m);
		m->len = 0;
		if (err)
			return err == -E2BIG ? 1 : err;
		if (m->st->lines >= PM_PERFMAP_MAX_LINES)
			return 1;
	}
	return 0;
}

/* Reads up to n bytes into buf within b: the count, 0 at the end, or -errno (-EFBIG, -ETIME: b's). */
static ssize_t map_reader__read(int fd, struct pm_jit_budget *b, char *buf, size_t n)
{
	ssize_t got;
	int err;

	if (n > pm_jit_budget__left(b))
		n = (size_t)pm_jit_budget__left(b);
	err = pm_jit_budget__charge(b, n);
	if (err || !n)
		return err ? err : -EFBIG;
	do
		got = read(fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	/* Charged n, read got: the budget counts what was read. */
	b->bytes -= n - (size_t)got;
	return got;
}

int pm_perfmap__read(int fd, struct pm_jitsyms *t, int32_t pid, const char *dso,
		     const char *dso_short, const struct pm_jit_limits *lim,
		     struct pm_perfmap_stats *st)
{
	struct map_reader *m = malloc(sizeof(*m));
	struct pm_jit_budget b;
	char *buf = malloc(READ_CHUNK);
	int err = 0;

	*st = (struct pm_perfmap_stats){ 0 };
	if (!m || !buf) {
		err = -ENOMEM;
		goto out;
	}
	*m = (struct map_reader){ .t = t, .pid = pid, .dso = dso, .dso_short = dso_short,
				  .st = st };
	pm_jit_budget__start(&b, lim, PM_PERFMAP_MAX_BYTES);
	for (;;) {
		ssize_t n = map_reader__read(fd, &b, buf, READ_CHUNK);

		if (n == -EFBIG || n == -ETIME) {
			st->cut = (int)n;
			err = 1;
		} else if (n < 0) {
			err = (int)n;
		} else if (n) {
			err = map_reader__feed(m, buf, (size_t)n);
		}
		/*
		 * n 0: the end of the file as it is now: a runtime may be
		 * appending, and its last line may be unfinished (that one is
		 * left out).
		 */
		if (err || !n)
			break;
	}
	st->bytes = b.bytes;
	if (err == 1) {
		st->truncated = true;
		err = 0;
	}
out:
	free(buf);
	free(m);
	return err;
}

int pm_perfmap__list_tmp(struct pm_hashtab *pids)
{
	DIR *dir = opendir("/tmp");
	struct dirent *d;
	int pid, len, err = 0;

	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir))) {
		len = 0;
		if (sscanf(d->d_name, "perf-%d.map%n", &pid, &len) == 1 && pid > 0 && len &&
		    !d->d_name[len])
			err = pm_hashtab__insert_int(pids, (uint32_t)pid, 0) == -ENOMEM ? -ENOMEM : 0;
	}
	closedir(dir);
	return err;
}
