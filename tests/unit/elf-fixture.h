/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ELF_FIXTURE_H
#define PMREC_ELF_FIXTURE_H

/*
 * What the unit tests of build ids (test-elf.c), mapped files (test-dso.c)
 * and kallsyms (test-kallsyms.c) share: a scratch directory and the files
 * they write there, and ELF notes built by hand.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static char tmpdir[PATH_MAX];
static char self[PATH_MAX];

/*
 * Sets self to this test's binary and makes tmpdir, a new directory named
 * after the test.  Returns 0, or -1 with errno set.
 */
static inline int fixture__init(const char *test)
{
	const char *t = getenv("TMPDIR");
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	snprintf(tmpdir, sizeof(tmpdir), "%s/pmrec-%s.XXXXXX",
		 t && *t ? t : "/tmp", test);
	if (n <= 0 || !mkdtemp(tmpdir))
		return -1;
	self[n] = '\0';
	return 0;
}

static inline void skip(const char *what, const char *why)
{
	tap_ok(1, "%s # SKIP %s", what, why);
}

static inline const char *tmp_path(const char *name)
{
	static char bufs[4][PATH_MAX + 64];
	static int n;
	char *p = bufs[n++ % 4];

	snprintf(p, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return p;
}

static inline int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	size_t n;

	if (!f)
		return -1;
	n = fwrite(data, 1, len, f);
	return fclose(f) || n != len ? -1 : 0;
}

static inline size_t put_note(unsigned char *p, uint32_t type, const char *name,
		       uint32_t namesz, const void *desc, uint32_t descsz)
{
	size_t pos = 12;

	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
	memcpy(p + pos, name, namesz);
	pos += (namesz + 3) & ~3U;
	memcpy(p + pos, desc, descsz);
	return pos + ((descsz + 3) & ~3U);
}

#endif
