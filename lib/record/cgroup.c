// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/cgroup.h"
#include "base/file.h"

/* The kernel writes a space, tab, newline or backslash in a mount field as \ooo. */
static void unescape_field(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static bool has_option(char *opts, const char *want)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, want))
			return true;
	return false;
}

static int copy_path(char *buf, size_t len, const char *path)
{
	if (strlen(path) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, path);
	return 0;
}

int pm_cgroup__find_mount(FILE *mounts, char *buf, size_t len)
{
	char *line = NULL, *v2 = NULL, *save, *dir, *type, *opts;
	size_t cap = 0;
	int err = -ENOENT;

	while (getline(&line, &cap, mounts) > 0) {
		save = NULL;
		if (!strtok_r(line, " \n", &save) || !(dir = strtok_r(NULL, " \n", &save)) ||
		    !(type = strtok_r(NULL, " \n", &save)) || !(opts = strtok_r(NULL, " \n", &save)))
			continue;
		unescape_field(dir);
		/* A v1 hierarchy with the controller wins, as in perf. */
		if (!strcmp(type, "cgroup") && has_option(opts, "perf_event")) {
			err = copy_path(buf, len, dir);
			break;
		}
		if (!strcmp(type, "cgroup2")) {
			free(v2);
			v2 = strdup(dir);
			if (!v2) {
				err = -ENOMEM;
				break;
			}
		}
	}
	if (err == -ENOENT && v2)
		err = copy_path(buf, len, v2);
	free(v2);
	free(line);
	return err;
}

/* NAME stays below the mount point: no ".." component. */
static bool name_is_below(const char *name)
{
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

int pm_cgroup__open(const char *name, struct pm_cgroup_error *e)
{
	char mnt[sizeof(e->path)];
	FILE *f;
	int err;

	e->path[0] = '\0';
	if (!*name || !name_is_below(name))
		return -EINVAL;
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	err = pm_cgroup__find_mount(f, mnt, sizeof(mnt));
	fclose(f);
	if (err)
		return err;
	while (*name == '/')
		name++;
	if ((size_t)snprintf(e->path, sizeof(e->path), "%s/%s", mnt, name) >= sizeof(e->path))
		return -ENAMETOOLONG;
	return pm_file__open(e->path, O_RDONLY, PM_FILE_DIR, 0, NULL);
}
