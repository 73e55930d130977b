// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/file.h"
#include "base/smallfile.h"

int pm_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err = 0;

	fd = pm_file__open(path, O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return fd;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

int pm_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;
	int err = pm_read_small(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

int pm_read_int(const char *path, int *out)
{
	char buf[64], *end;
	long v;
	int err = pm_read_small(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}
