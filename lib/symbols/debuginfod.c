// SPDX-License-Identifier: GPL-2.0
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/dynlib.h"
#include "base/hashtab.h"
#include "base/output.h"
#include "format/perf_data.h"
#include "symbols/debuginfod.h"
#include "symbols/jitbudget.h"

/* libdebuginfod, loaded when a server is named (base/dynlib.h). */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_executable)(debuginfod_client *c, const unsigned char *id, int len,
			       char **path);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int len,
			      char **path);
	void *(*get_user_data)(debuginfod_client *c);
	void (*set_user_data)(debuginfod_client *c, void *data);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
} dd;
static pthread_once_t dd_once = PTHREAD_ONCE_INIT;
static int dd_err;

static void dd__load(void)
{
	static const char *const names[] = {
		"debuginfod_begin", "debuginfod_end", "debuginfod_find_executable",
		"debuginfod_find_debuginfo", "debuginfod_get_user_data",
		"debuginfod_set_user_data", "debuginfod_set_progressfn",
	};
	void *syms[sizeof(names) / sizeof(names[0])];

	dd_err = pm_dynlib__load("libdebuginfod.so.1", names, syms, sizeof(names) / sizeof(names[0]));
	if (dd_err)
		return;
	*(void **)&dd.begin = syms[0];
	*(void **)&dd.end = syms[1];
	*(void **)&dd.find_executable = syms[2];
	*(void **)&dd.find_debuginfo = syms[3];
	*(void **)&dd.get_user_data = syms[4];
	*(void **)&dd.set_user_data = syms[5];
	*(void **)&dd.set_progressfn = syms[6];
}

/* libdebuginfod's DEBUGINFOD_TIMEOUT when unset, in seconds. */
#define DEBUGINFOD_DEFAULT_TIMEOUT 90
#define NSEC_PER_SEC 1000000000ull
/* What libdebuginfod wants from a server within DEBUGINFOD_TIMEOUT. */
#define DEBUGINFOD_MIN_BYTES (100 * 1024)

/* One (id, kind) asked, and its answer. */
struct debuginfod_entry {
	unsigned char id[PM_BUILD_ID_SIZE];
	uint8_t len;
	uint8_t kind;
	int rc;
	char *path;		/* NULL unless rc is 0 */
};

struct pm_debuginfod {
	debuginfod_client *client;
	struct debuginfod_entry *entries;
	size_t nr, cap;
	struct pm_hashtab tab;	/* (id, kind) to its index in entries */
	uint64_t timeout_ns;	/* 0: none */
	bool stalled;		/* a query timed out: no more are sent */
	/* The query under way, for debuginfod__progress. */
	uint64_t start;
	uint64_t last_progress;	/* its last byte, or its start */
	long last_bytes;
	bool received;		/* a server sent bytes: fetched, not from the cache */
	bool cancelled;
	struct pm_debuginfod_stats st;
};

static const char *const debuginfod_kind_name[] = {
	[PM_DEBUGINFOD_EXECUTABLE] = "executable",
	[PM_DEBUGINFOD_DEBUGINFO] = "debuginfo",
};

static uint64_t debuginfod__hash(const struct pm_hashtab *t, const unsigned char *id, size_t len,
				 unsigned kind)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_bytes(t, id, len), kind);
}

static uint64_t debuginfod__rehash(const struct pm_hashtab *t, uint64_t i, void *arg)
{
	const struct debuginfod_entry *e = &((const struct pm_debuginfod *)arg)->entries[i];

	return debuginfod__hash(t, e->id, e->len, e->kind);
}

static bool debuginfod__equal(uint64_t i, const void *key, void *arg)
{
	const struct debuginfod_entry *e = &((const struct pm_debuginfod *)arg)->entries[i];
	const struct debuginfod_entry *k = key;

	return e->len == k->len && e->kind == k->kind && !memcmp(e->id, k->id, k->len);
}

static const struct pm_hashtab_ops debuginfod_ops = {
	.hash = debuginfod__rehash,
	.equal = debuginfod__equal,
};

/*
 * Called by libdebuginfod about once a second while it waits on servers
 * (and per file when it cleans its cache, once a day).  Its own
 * DEBUGINFOD_TIMEOUT skips a server that sends less than 100 KiB within
 * that many seconds, but then asks again twice: a server that accepts and
 * never answers, or trickles, costs three timeouts per file.  Here the
 * query as a whole is given up when it has not had 100 KiB within the
 * timeout, or later no byte for as long.  Before a server sends the file's
 * first bytes b is 0 and a counts the calls; then b is the size (-1:
 * unknown) and a counts the bytes.
 */
static int debuginfod__progress(debuginfod_client *c, long a, long b)
{
	struct pm_debuginfod *d = dd.get_user_data(c);
	uint64_t now = pm_jit__now();
	uint64_t since;

	if (b)
		d->received = true;
	if (b && a != d->last_bytes) {
		d->last_bytes = a;
		d->last_progress = now;
	}
	since = b && a >= DEBUGINFOD_MIN_BYTES ? d->last_progress : d->start;
	if (d->timeout_ns && now - since > d->timeout_ns) {
		d->cancelled = true;
		return 1;
	}
	return 0;
}

/* DEBUGINFOD_TIMEOUT as libdebuginfod reads it (atoi; 0 or less: none), in ns. */
static uint64_t debuginfod__timeout(void)
{
	const char *s = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	long sec = s ? strtol(s, NULL, 10) : DEBUGINFOD_DEFAULT_TIMEOUT;

	if (sec <= 0 || (unsigned long)sec > UINT64_MAX / NSEC_PER_SEC)
		return 0;
	return (uint64_t)sec * NSEC_PER_SEC;
}

struct pm_debuginfod *pm_debuginfod__new(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	struct pm_debuginfod *d;

	if (!urls || !*urls) {
		errno = ENOENT;
		return NULL;
	}
	pthread_once(&dd_once, dd__load);
	if (dd_err) {
		errno = -dd_err;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->client = dd.begin();
	if (!d || !d->client) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	dd.set_user_data(d->client, d);
	/*
	 * Also replaces the progress line libdebuginfod prints on stderr
	 * under DEBUGINFOD_PROGRESS: lib/ never prints.
	 */
	dd.set_progressfn(d->client, debuginfod__progress);
	d->timeout_ns = debuginfod__timeout();
	pm_hashtab__init(&d->tab, &debuginfod_ops, d);
	return d;
}

void pm_debuginfod__delete(struct pm_debuginfod *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr; i++)
		free(d->entries[i].path);
	free(d->entries);
	pm_hashtab__exit(&d->tab);
	dd.end(d->client);
	free(d);
}

/*
 * Where libdebuginfod keeps e's file (debuginfod-client.c, the same from
 * 0.179 to 0.192): DEBUGINFOD_CACHE_PATH, else ~/.debuginfod_client_cache
 * when it exists, else $XDG_CACHE_HOME or ~/.cache, + /debuginfod_client;
 * then /HEXID/KIND.  NULL when out of memory.
 */
static char *debuginfod__cache_file(const struct debuginfod_entry *e)
{
	const char *var = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
	const char *home = getenv("HOME") ?: "/";
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *kind = debuginfod_kind_name[e->kind];
	char hex[2 * PM_BUILD_ID_SIZE + 1], *legacy, *p;
	struct stat st;
	size_t i;
	int n;

	for (i = 0; i < e->len; i++)
		snprintf(hex + 2 * i, 3, "%02x", e->id[i]);
	hex[2 * i] = '\0';
	if (var && *var)
		n = asprintf(&p, "%s/%s/%s", var, hex, kind);
	else if (asprintf(&legacy, "%s/.debuginfod_client_cache", home) < 0)
		return NULL;
	else {
		if (!stat(legacy, &st))
			n = asprintf(&p, "%s/%s/%s", legacy, hex, kind);
		else if (xdg && *xdg)
			n = asprintf(&p, "%s/debuginfod_client/%s/%s", xdg, hex, kind);
		else
			n = asprintf(&p, "%s/.cache/debuginfod_client/%s/%s", home, hex, kind);
		free(legacy);
	}
	return n < 0 ? NULL : p;
}

/*
 * The caller reopens path through pm_file__open: path must be the cache's
 * file for e, a regular file (not a link), the very file of fd.  Its size
 * in *size.
 */
static int debuginfod__check(const struct debuginfod_entry *e, int fd, const char *path,
			     uint64_t *size)
{
	char *want = debuginfod__cache_file(e);
	struct stat fst, lst;
	int rc = -EIO;

	if (!want)
		return -ENOMEM;
	if (!strcmp(want, path) && !fstat(fd, &fst) && !lstat(path, &lst) &&
	    S_ISREG(fst.st_mode) && S_ISREG(lst.st_mode) && fst.st_dev == lst.st_dev &&
	    fst.st_ino == lst.st_ino) {
		*size = (uint64_t)fst.st_size;
		rc = 0;
	}
	free(want);
	return rc;
}

/*
 * libdebuginfod ends a query its progress function gave up as a miss: it
 * creates an empty file, its mark of "no server has it", and for the next
 * 10 minutes (cache_miss_s) no run would ask again.  A stall is no answer:
 * the mark this query made goes (its directory stays, empty, as
 * libdebuginfod's own cleaning leaves it until its next pass).
 */
static void debuginfod__forget_miss(const struct debuginfod_entry *e)
{
	char *p = debuginfod__cache_file(e);
	struct stat st;

	if (!p)
		return;
	if (!lstat(p, &st) && S_ISREG(st.st_mode) && !st.st_size)
		(void)pm_output__remove_own(p);
	free(p);
}

/* Asks libdebuginfod for e: e->path, its size in *size and 0, or -errno. */
static int debuginfod__query(struct pm_debuginfod *d, struct debuginfod_entry *e, uint64_t *size)
{
	char *path = NULL;
	int fd, rc;

	d->start = d->last_progress = pm_jit__now();
	d->last_bytes = -1;
	d->received = d->cancelled = false;
	if (e->kind == PM_DEBUGINFOD_EXECUTABLE)
		fd = dd.find_executable(d->client, e->id, e->len, &path);
	else
		fd = dd.find_debuginfo(d->client, e->id, e->len, &path);
	/* A file had wins over a cancel (which may have only cut a cleaning short). */
	if (fd < 0 && d->cancelled) {
		debuginfod__forget_miss(e);
		return -ETIMEDOUT;
	}
	if (fd < 0)
		return fd == -ETIME ? -ETIMEDOUT : fd;
	rc = debuginfod__check(e, fd, path, size);
	close(fd);
	if (rc)
		free(path);
	else
		e->path = path;
	return rc;
}

static void debuginfod__count(struct pm_debuginfod *d, int rc, uint64_t size, bool unasked)
{
	if (!rc) {
		d->st.bytes += size;
		if (d->received)
			d->st.fetched++;
		else
			d->st.cached++;
		return;
	}
	d->st.failed++;
	if (rc == -ENOENT)
		d->st.not_found++;
	else if (!d->st.first_error)
		d->st.first_error = rc;
	if (rc == -ETIMEDOUT)
		d->st.timed_out++;
	if (unasked)
		d->st.unasked++;
}

int pm_debuginfod__find(struct pm_debuginfod *d, const unsigned char *id, size_t len,
			enum pm_debuginfod_kind kind, const char **path)
{
	struct debuginfod_entry *e;
	uint64_t h, i, size = 0;
	bool unasked;

	*path = NULL;
	if (!len || len > PM_BUILD_ID_SIZE ||
	    (kind != PM_DEBUGINFOD_EXECUTABLE && kind != PM_DEBUGINFOD_DEBUGINFO))
		return -EINVAL;
	e = &(struct debuginfod_entry){ .len = (uint8_t)len, .kind = (uint8_t)kind };
	memcpy(e->id, id, len);
	h = debuginfod__hash(&d->tab, id, len, kind);
	if (pm_hashtab__find(&d->tab, h, e, &i)) {
		*path = d->entries[i].path;
		return d->entries[i].rc;
	}
	if (d->nr >= UINT32_MAX - 1 ||
	    pm_array__grow((void **)&d->entries, &d->cap, d->nr, sizeof(*d->entries)))
		return -ENOMEM;
	d->entries[d->nr] = *e;
	e = &d->entries[d->nr];
	unasked = d->stalled;
	e->rc = unasked ? -ETIMEDOUT : debuginfod__query(d, e, &size);
	if (e->rc == -ETIMEDOUT)
		d->stalled = true;
	/* The table may re-seed: it hashes this entry, which must be counted. */
	d->nr++;
	if (pm_hashtab__insert(&d->tab, h, d->nr - 1)) {
		free(e->path);
		d->nr--;
		return -ENOMEM;
	}
	debuginfod__count(d, e->rc, size, unasked);
	*path = e->path;
	return e->rc;
}

void pm_debuginfod__stats(const struct pm_debuginfod *d, struct pm_debuginfod_stats *st)
{
	*st = d->st;
}
