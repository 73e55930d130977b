// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/libcurl.h"
#include "export/uploader.h"

#define UPLOADER_MAX_WINDOWS 8
#define UPLOADER_BACKOFF_MIN_MS 250
#define UPLOADER_BACKOFF_MAX_MS 10000

struct pm_uploader {
	struct pm_pyroscope *server;	/* the thread's alone */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a window queued, or closing */
	/* The queue, oldest first; the thread sends q[0], in_flight meanwhile. */
	struct pm_pyroscope_window *q;
	size_t nr, max;
	bool in_flight, closing;
	struct pm_spool *spool;		/* older windows than q's; NULL: none */
	struct timespec give_up;	/* closing: CLOCK_MONOTONIC past which the thread stops */
	long backoff_min, backoff_max;
	struct pm_uploader_counts counts;
};

static struct timespec uploader__after(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static bool uploader__past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* Removes q[i] (locked). */
static void uploader__remove(struct pm_uploader *u, size_t i)
{
	free(u->q[i].data);
	memmove(&u->q[i], &u->q[i + 1], (u->nr - i - 1) * sizeof(*u->q));
	u->nr--;
	u->counts.queued = u->nr;
}

/* q[i] leaves memory, for room or at the end: to the spool, else dropped (locked). */
static void uploader__spill(struct pm_uploader *u, size_t i)
{
	int err = u->spool ? pm_spool__put(u->spool, &u->q[i], &u->counts.dropped) : -ENOSPC;

	if (!err) {
		u->counts.spooled++;
	} else {
		u->counts.dropped++;
		if (u->spool)
			snprintf(u->counts.last_error, sizeof(u->counts.last_error),
				 "cannot spool a window: %s", strerror(-err));
	}
	u->counts.in_spool = u->spool ? pm_spool__nr(u->spool) : 0;
	uploader__remove(u, i);
}

/* The next window to send is the spool's (locked): it holds the oldest. */
static bool uploader__from_spool(const struct pm_uploader *u)
{
	if (!u->spool || !pm_spool__nr(u->spool))
		return false;
	return !u->nr || pm_spool__head_from(u->spool) <= u->q[0].from;
}

static bool uploader__empty(const struct pm_uploader *u)
{
	return !u->nr && !(u->spool && pm_spool__nr(u->spool));
}

/* The window w taken from the spool leaves it or stays (locked). */
static void uploader__tried_spool(struct pm_uploader *u, enum pm_pyroscope_result r,
				  struct pm_pyroscope_window *w)
{
	if (r == PM_PYROSCOPE_RETRY)
		pm_spool__untake(u->spool);
	else
		pm_spool__done(u->spool);
	u->counts.in_spool = pm_spool__nr(u->spool);
	free(w->data);
}

/*
 * The outcome of a try (locked): the window, q[0] or the spool's oldest,
 * leaves or stays.
 */
static void uploader__tried(struct pm_uploader *u, enum pm_pyroscope_result r, long status,
			    const char *err, struct pm_pyroscope_window *spooled)
{
	u->counts.last_status = status;
	if (r == PM_PYROSCOPE_SENT) {
		u->counts.sent++;
	} else {
		snprintf(u->counts.last_error, sizeof(u->counts.last_error), "%s",
			 *err ? err : "the server answered an error");
		if (r == PM_PYROSCOPE_RETRY)
			u->counts.retries++;
		else
			u->counts.rejected++;
	}
	if (spooled)
		uploader__tried_spool(u, r, spooled);
	else if (r != PM_PYROSCOPE_RETRY)
		uploader__remove(u, 0);
}

/* Waits ms, or less when closing (locked). */
static void uploader__backoff(struct pm_uploader *u, long ms)
{
	struct timespec until = uploader__after(ms);

	if (u->closing && (u->give_up.tv_sec < until.tv_sec ||
			   (u->give_up.tv_sec == until.tv_sec && u->give_up.tv_nsec < until.tv_nsec)))
		until = u->give_up;
	while (!uploader__past(&until) &&
	       pthread_cond_timedwait(&u->cond, &u->lock, &until) != ETIMEDOUT)
		if (u->closing && uploader__past(&u->give_up))
			break;
}

/*
 * The oldest window into w, marked as on the wire (locked): q[0], or the
 * spool's oldest (*spooled true).  false when the spool's could not be
 * read (dropped, counted).
 */
static bool uploader__next(struct pm_uploader *u, struct pm_pyroscope_window *w, bool *spooled)
{
	int err;

	*spooled = uploader__from_spool(u);
	if (!*spooled) {
		*w = u->q[0];
		u->in_flight = true;
		return true;
	}
	err = pm_spool__take(u->spool, w);
	if (!err)
		return true;
	u->counts.dropped++;
	u->counts.in_spool = pm_spool__nr(u->spool);
	snprintf(u->counts.last_error, sizeof(u->counts.last_error),
		 "cannot read a spooled window: %s", strerror(-err));
	return false;
}

static void *uploader__thread(void *arg)
{
	struct pm_uploader *u = arg;
	char err[PM_PYROSCOPE_ERRLEN];
	long backoff = 0, status;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		struct pm_pyroscope_window w;
		enum pm_pyroscope_result r;
		bool spooled;

		while (uploader__empty(u) && !u->closing)
			pthread_cond_wait(&u->cond, &u->lock);
		if (uploader__empty(u) || (u->closing && uploader__past(&u->give_up)))
			break;
		if (!uploader__next(u, &w, &spooled))
			continue;
		pthread_mutex_unlock(&u->lock);
		r = pm_pyroscope__send(u->server, &w, &status, err);
		pthread_mutex_lock(&u->lock);
		u->in_flight = false;
		uploader__tried(u, r, status, err, spooled ? &w : NULL);
		if (r != PM_PYROSCOPE_RETRY) {
			backoff = 0;
			continue;
		}
		backoff = backoff ? backoff * 2 : u->backoff_min;
		if (backoff > u->backoff_max)
			backoff = u->backoff_max;
		uploader__backoff(u, backoff);
	}
	/* Oldest first: the spool drops the oldest for room. */
	while (u->nr)
		uploader__spill(u, 0);
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

static void uploader__free(struct pm_uploader *u)
{
	pm_spool__delete(u->spool);
	pm_pyroscope__delete(u->server);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u->q);
	free(u);
}

struct pm_uploader *pm_uploader__new(const struct pm_uploader_config *cfg)
{
	struct pm_uploader *u;
	pthread_condattr_t ca;
	int err;

	/* Not thread-safe: here, before the thread; libcurl counts the calls. */
	err = pm_libcurl__load();
	if (!err && pm_libcurl.global_init(CURL_GLOBAL_DEFAULT))
		err = -ENOMEM;
	u = err ? NULL : calloc(1, sizeof(*u));
	if (!u) {
		if (!err)
			pm_libcurl.global_cleanup();
		pm_spool__delete(cfg->spool);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	u->spool = cfg->spool;
	u->counts.in_spool = u->spool ? pm_spool__nr(u->spool) : 0;
	u->max = cfg->max_windows ? cfg->max_windows : UPLOADER_MAX_WINDOWS;
	/* Room for one window on the wire and one waiting. */
	if (u->max < 2)
		u->max = 2;
	u->backoff_min = cfg->backoff_min_ms ? cfg->backoff_min_ms : UPLOADER_BACKOFF_MIN_MS;
	u->backoff_max = cfg->backoff_max_ms ? cfg->backoff_max_ms : UPLOADER_BACKOFF_MAX_MS;
	pthread_mutex_init(&u->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->cond, &ca);
	pthread_condattr_destroy(&ca);
	u->q = calloc(u->max, sizeof(*u->q));
	u->server = pm_pyroscope__new(&cfg->server);
	err = !u->q ? ENOMEM : !u->server ? errno : 0;
	if (!err)
		err = pthread_create(&u->thread, NULL, uploader__thread, u);
	if (err) {
		uploader__free(u);
		pm_libcurl.global_cleanup();
		errno = err;
		return NULL;
	}
	return u;
}

void pm_uploader__push(struct pm_uploader *u, const struct pm_pyroscope_window *w)
{
	pthread_mutex_lock(&u->lock);
	u->counts.windows++;
	/* Full: the oldest that is not on the wire makes room. */
	if (u->nr == u->max)
		uploader__spill(u, u->in_flight ? 1 : 0);
	u->q[u->nr++] = *w;
	u->counts.queued = u->nr;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

void pm_uploader__counts(struct pm_uploader *u, struct pm_uploader_counts *c)
{
	pthread_mutex_lock(&u->lock);
	*c = u->counts;
	pthread_mutex_unlock(&u->lock);
}

void pm_uploader__close(struct pm_uploader *u, long grace_ms, struct pm_uploader_counts *c)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	u->closing = true;
	u->give_up = uploader__after(grace_ms);
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
	pthread_join(u->thread, NULL);
	if (c)
		*c = u->counts;
	uploader__free(u);
	pm_libcurl.global_cleanup();
}
