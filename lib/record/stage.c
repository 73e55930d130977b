// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "record/stage.h"

/* Large writes cost fewer calls; smaller ones give room back sooner. */
#define STAGE_BATCH (1u << 20)

int pm_stage__init(struct pm_stage *s, size_t cap, const struct pm_drain_sink *sink)
{
	memset(s, 0, sizeof(*s));
	s->room_fd = -1;
	cap = (cap + 7) & ~(size_t)7;
	/* Untouched pages cost nothing: the memory grows only as far as it fills. */
	s->buf = malloc(cap);
	if (!s->buf)
		return -ENOMEM;
	s->cap = cap;
	s->batch = cap / 4 < STAGE_BATCH ? cap / 4 : STAGE_BATCH;
	s->sink = *sink;
	s->room_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->room_fd < 0 || pthread_mutex_init(&s->lock, NULL)) {
		int err = -errno;

		free(s->buf);
		if (s->room_fd >= 0)
			close(s->room_fd);
		memset(s, 0, sizeof(*s));
		s->room_fd = -1;
		return err ? err : -ENOMEM;
	}
	pthread_cond_init(&s->cond, NULL);
	return 0;
}

static void *stage__thread(void *arg)
{
	struct pm_stage *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (!s->nr_passes && !s->stop && !s->err)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stop || s->err) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		pthread_mutex_unlock(&s->lock);
		pm_stage__write(s);
	}
}

int pm_stage__start(struct pm_stage *s)
{
	int err;

	/* The drain blocks the stop signals; the writer inherits that. */
	err = pthread_create(&s->thread, NULL, stage__thread, s);
	if (err)
		return -err;
	s->running = true;
	return 0;
}

int pm_stage__reserve(struct pm_stage *s, size_t len)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (!s->err && len > s->cap - (s->head - s->tail)) {
		s->waiting = true;
		s->stats.deferred++;
		err = -ENOSPC;
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

void pm_stage__clear_room(struct pm_stage *s)
{
	uint64_t v;

	if (read(s->room_fd, &v, sizeof(v)) < 0)
		return;	/* EAGAIN: nothing to clear */
}

/* Copies len bytes to stage position pos, across the end if need be. */
static void stage__copy_in(struct pm_stage *s, uint64_t pos, const void *p, size_t len)
{
	size_t off = (pos - s->base) % s->cap, first = s->cap - off;

	if (first >= len) {
		memcpy(s->buf + off, p, len);
		return;
	}
	memcpy(s->buf + off, p, first);
	memcpy(s->buf, (const unsigned char *)p + first, len - first);
}

static int stage__push(struct pm_stage *s, uint64_t end, uint64_t samples)
{
	if (s->nr_passes == s->cap_passes) {
		size_t n = s->cap_passes ? 2 * s->cap_passes : 64, i;
		struct pm_stage_pass *p = malloc(n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		/* Unrolled, oldest first. */
		for (i = 0; i < s->nr_passes; i++)
			p[i] = s->passes[(s->first + i) % s->cap_passes];
		free(s->passes);
		s->passes = p;
		s->first = 0;
		s->cap_passes = n;
	}
	s->passes[(s->first + s->nr_passes++) % s->cap_passes] =
		(struct pm_stage_pass){ .end = end, .samples = samples };
	return 0;
}

int pm_stage__append(struct pm_stage *s, const struct iovec *iov, int iovcnt, uint64_t samples)
{
	uint64_t pos, len = 0;
	int i, err;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	pthread_mutex_lock(&s->lock);
	err = s->err;
	if (!err && len > s->cap - (s->head - s->tail))
		err = -ENOSPC;
	/*
	 * An empty buffer starts over at buf[0]: the pages in use are then as
	 * many as the most ever staged, not all of them as it went round.
	 */
	if (s->head == s->tail)
		s->base = s->head;
	pos = s->head;
	pthread_mutex_unlock(&s->lock);
	if (!err) {
		/* [head, tail + cap) is the drain's: the writer never reads it. */
		for (i = 0; i < iovcnt; i++) {
			stage__copy_in(s, pos, iov[i].iov_base, iov[i].iov_len);
			pos += iov[i].iov_len;
		}
		pthread_mutex_lock(&s->lock);
		err = s->err ? s->err : stage__push(s, pos, samples);
		if (!err) {
			s->head = pos;
			if (s->head - s->tail > s->stats.peak)
				s->stats.peak = s->head - s->tail;
			pthread_cond_broadcast(&s->cond);
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (err && err != -ENOSPC) {
		pthread_mutex_lock(&s->lock);
		s->stats.dropped_samples += samples;
		s->stats.dropped_bytes += len;
		pthread_mutex_unlock(&s->lock);
	}
	return err;
}

/* After a write: the room made is the drain's to know, if it waits. */
static void stage__wake_drain(struct pm_stage *s)
{
	uint64_t one = 1;

	if (!s->waiting)
		return;
	s->waiting = false;
	if (write(s->room_fd, &one, sizeof(one)) < 0)
		return;	/* the counter is already non-zero */
}

int pm_stage__write(struct pm_stage *s)
{
	uint64_t start, end, base, samples = 0;
	struct iovec iov[2];
	size_t n = 0, off, first;
	int err, cnt = 1;

	pthread_mutex_lock(&s->lock);
	err = s->err;
	if (err || !s->nr_passes) {
		pthread_mutex_unlock(&s->lock);
		return err;
	}
	start = s->tail;
	base = s->base;
	/* Whole passes, one at least: every commit ends on a FINISHED_ROUND. */
	do {
		const struct pm_stage_pass *p = &s->passes[(s->first + n) % s->cap_passes];

		end = p->end;
		samples += p->samples;
		n++;
	} while (n < s->nr_passes &&
		 s->passes[(s->first + n) % s->cap_passes].end - start <= s->batch);
	pthread_mutex_unlock(&s->lock);

	/* [tail, head) is the writer's: the drain never writes it, nor rebases. */
	off = (start - base) % s->cap;
	first = s->cap - off;
	iov[0] = (struct iovec){ .iov_base = s->buf + off, .iov_len = end - start };
	if (first < end - start) {
		iov[0].iov_len = first;
		iov[1] = (struct iovec){ .iov_base = s->buf, .iov_len = end - start - first };
		cnt = 2;
	}
	err = s->sink.writev(s->sink.arg, iov, cnt);
	if (!err)
		err = s->sink.commit(s->sink.arg);

	pthread_mutex_lock(&s->lock);
	if (err) {
		/* Nothing staged will be written: all of it is dropped. */
		s->err = err;
		while (s->nr_passes) {
			s->stats.dropped_samples += s->passes[s->first].samples;
			s->first = (s->first + 1) % s->cap_passes;
			s->nr_passes--;
		}
		s->stats.dropped_bytes += s->head - s->tail;
		s->tail = s->head;
		s->waiting = true;	/* a waiting drain must learn of it */
	} else {
		s->tail = end;
		s->first = (s->first + n) % s->cap_passes;
		s->nr_passes -= n;
		s->stats.samples += samples;
		s->stats.bytes += end - start;
	}
	stage__wake_drain(s);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return err;
}

int pm_stage__flush(struct pm_stage *s)
{
	int err;

	if (!s->running) {
		while (!(err = pm_stage__write(s)) && s->nr_passes)
			;
		return err;
	}
	pthread_mutex_lock(&s->lock);
	while (s->nr_passes && !s->err)
		pthread_cond_wait(&s->cond, &s->lock);
	err = s->err;
	pthread_mutex_unlock(&s->lock);
	return err;
}


void pm_stage__stats(struct pm_stage *s, struct pm_stage_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->stats;
	pthread_mutex_unlock(&s->lock);
}

void pm_stage__exit(struct pm_stage *s)
{
	if (!s->buf)
		return;
	if (s->running) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	close(s->room_fd);
	free(s->buf);
	free(s->passes);
	memset(s, 0, sizeof(*s));
	s->room_fd = -1;
}
