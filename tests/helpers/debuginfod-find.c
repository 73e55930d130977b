// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod-find: drives lib/symbols/debuginfod.c, for tests against real
 * and fake servers (tests/helpers/debuginfod-server.sh).
 *
 *   debuginfod-find [-d] BUILDID...
 *
 * Asks one handle for each build id (hex) in turn, as an executable (-d: a
 * debug file), and prints one line per id, "BUILDID RC PATH" (RC 0 or
 * -errno, PATH - on failure), then the handle's statistics:
 * "stats fetched=N cached=N failed=N not_found=N timed_out=N unasked=N
 * bytes=N first_error=N".  When no handle is made it prints "new -ERRNO"
 * and nothing else, and exits 0: that is an answer, not a failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_data.h"
#include "symbols/debuginfod.h"

static int parse_id(const char *hex, unsigned char *id, size_t *len)
{
	size_t n = strlen(hex), i;
	unsigned byte;

	if (!n || n % 2 || n / 2 > PM_BUILD_ID_SIZE)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		id[i] = (unsigned char)byte;
	}
	*len = n / 2;
	return 0;
}

int main(int argc, char **argv)
{
	enum pm_debuginfod_kind kind = PM_DEBUGINFOD_EXECUTABLE;
	unsigned char id[PM_BUILD_ID_SIZE];
	struct pm_debuginfod_stats st;
	struct pm_debuginfod *d;
	const char *path;
	size_t len;
	int c, rc;

	while ((c = getopt(argc, argv, "d")) != -1) {
		if (c != 'd') {
			fprintf(stderr, "usage: debuginfod-find [-d] BUILDID...\n");
			return 2;
		}
		kind = PM_DEBUGINFOD_DEBUGINFO;
	}
	d = pm_debuginfod__new();
	if (!d) {
		printf("new %d\n", -errno);
		return 0;
	}
	for (; optind < argc; optind++) {
		if (parse_id(argv[optind], id, &len)) {
			fprintf(stderr, "debuginfod-find: bad build id '%s'\n", argv[optind]);
			return 2;
		}
		rc = pm_debuginfod__find(d, id, len, kind, &path);
		printf("%s %d %s\n", argv[optind], rc, path ? path : "-");
		fflush(stdout);
	}
	pm_debuginfod__stats(d, &st);
	printf("stats fetched=%u cached=%u failed=%u not_found=%u timed_out=%u unasked=%u "
	       "bytes=%llu first_error=%d\n", st.fetched, st.cached, st.failed, st.not_found,
	       st.timed_out, st.unasked, (unsigned long long)st.bytes, st.first_error);
	pm_debuginfod__delete(d);
	return 0;
}
