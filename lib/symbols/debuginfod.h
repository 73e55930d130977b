/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DEBUGINFOD_H
#define PMREC_DEBUGINFOD_H

/*
 * Executables and debug files by build id from debuginfod servers, through
 * elfutils' libdebuginfod: the last step of the lookup order, used only
 * when DEBUGINFOD_URLS names a server (as elfutils and perf do).  The
 * client keeps what it fetched in its own cache (DEBUGINFOD_CACHE_PATH,
 * else ~/.cache/debuginfod_client) and honours DEBUGINFOD_TIMEOUT.
 *
 * A run must not wait on a server much longer than that timeout: a query
 * that has not had 100 KiB within DEBUGINFOD_TIMEOUT seconds (90 when
 * unset, none when 0), or later no byte for as long, is given up
 * (libdebuginfod alone would ask twice more), and after one query timed
 * out no other is sent: every later one fails at once.
 *
 * The file named may have another build id than asked (a server may lie):
 * the caller checks it as it checks every candidate.  One thread only.
 */
#include <stddef.h>
#include <stdint.h>

struct pm_debuginfod;

enum pm_debuginfod_kind {
	PM_DEBUGINFOD_EXECUTABLE,
	PM_DEBUGINFOD_DEBUGINFO,
};

/* What one handle did, for a one-line summary. */
struct pm_debuginfod_stats {
	unsigned fetched;	/* files a server sent */
	unsigned cached;	/* files already in the client's cache: no request */
	unsigned failed;	/* files not had, each (id, kind) counted once */
	unsigned not_found;	/* of failed: no server has it (-ENOENT) */
	unsigned timed_out;	/* of failed: a server stalled (-ETIMEDOUT) */
	unsigned unasked;	/* of timed_out: not asked, after an earlier query timed out */
	uint64_t bytes;		/* the size of the files fetched or cached */
	int first_error;	/* the first failure other than -ENOENT (-errno), 0 if none */
};

/*
 * NULL with errno ENOENT when DEBUGINFOD_URLS is unset or empty: no
 * request is ever made then.  NULL with errno ENOMEM.
 */
struct pm_debuginfod *pm_debuginfod__new(void);
void pm_debuginfod__delete(struct pm_debuginfod *d);

/*
 * The path of the file of build id id (len bytes, 1 to PM_BUILD_ID_SIZE)
 * and this kind, a regular file in libdebuginfod's client cache, from that
 * cache or fetched.  The path is d's, valid until pm_debuginfod__delete.
 * Each (id, kind) is asked at most once per d: a failure is remembered.
 * 0, or -errno: -ENOENT (no server has it), -ETIMEDOUT (a server stalled),
 * -EINVAL (a bad length), -EIO (libdebuginfod named no regular file of
 * its cache), or what the client met (-ECONNREFUSED...).
 */
int pm_debuginfod__find(struct pm_debuginfod *d, const unsigned char *id, size_t len,
			enum pm_debuginfod_kind kind, const char **path);

void pm_debuginfod__stats(const struct pm_debuginfod *d, struct pm_debuginfod_stats *st);

#endif
