// SPDX-License-Identifier: GPL-2.0
/* The speedscope document: the threads' lines (speedscope.c) written as JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/emit.h"
#include "base/intern.h"
#include "format/clock.h"
#include "export/speedscope.h"
#include "export/speedscope_int.h"

#define SS_OUT_BUF (256u << 10)

static const char *ss__event_name(struct pm_speedscope *s, int evsel)
{
	return evsel == SS_EV_OFFCPU ? "offcpu-time" : evsel == SS_EV_WALL ? "wall-time" :
	       pm_evsel__name(pm_reader__evsel(s->r, (size_t)evsel));
}

static uint64_t runs__get(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
	}
	return v;
}

struct ss_writer {
	struct pm_speedscope *s;
	struct pm_out *o;
	uint64_t base, end;		/* the event's span */
	bool first;			/* no item written yet in the list */
};

static void ss__item(struct ss_writer *w)
{
	if (!w->first)
		pm_out__ch(w->o, ',');
	w->first = false;
}

/* A stack as frame ids, outermost first; node 0 (not sampled) is []. */
static void ss__stack(struct ss_writer *w, uint32_t node, uint64_t weight)
{
	struct pm_speedscope *s = w->s;
	size_t n = 0;

	(void)weight;
	for (; node; node = s->nodes[node].parent)
		s->path[n++] = s->nodes[node].frame;
	ss__item(w);
	pm_out__ch(w->o, '[');
	while (n) {
		pm_out__u64(w->o, s->path[--n]);
		if (n)
			pm_out__ch(w->o, ',');
	}
	pm_out__ch(w->o, ']');
}

static void ss__weight(struct ss_writer *w, uint32_t node, uint64_t weight)
{
	(void)node;
	ss__item(w);
	pm_out__u64(w->o, weight);
}

/*
 * Each of a thread's runs as a sample of its stack weighing its length,
 * after an empty sample for the time before it in which the thread was not
 * sampled; the last up to the event's end, so that every thread of the
 * event spans the same time.
 */
static void ss__runs(struct ss_writer *w, const struct ss_thread *t,
		     void (*put)(struct ss_writer *w, uint32_t node, uint64_t weight))
{
	const unsigned char *p = t->runs.data, *end = p + t->runs.len;
	uint64_t at = 0, prev = w->base, start, len;
	uint32_t node;

	w->first = true;
	while (p < end) {
		node = (uint32_t)runs__get(&p, end);
		start = at + runs__get(&p, end);
		len = runs__get(&p, end);
		at = start + len;
		if (start > prev)
			put(w, 0, start - prev);
		put(w, node, len);
		prev = at;
	}
	if (w->end > prev)
		put(w, 0, w->end - prev);
}

/*
 * "comm tid", the idle task's CPU, and the event when several are
 * exported.  The idle task is swapper, as the machine names it.
 */
static int ss__name(struct pm_speedscope *s, const struct ss_thread *t, bool events)
{
	const char *comm = t->comm;
	char num[64];
	int n;

	s->key.len = 0;
	if (comm && (pm_buf__append(&s->key, comm, strlen(comm)) ||
		     pm_buf__append(&s->key, " ", 1)))
		return -ENOMEM;
	n = t->cpu >= 0 ? snprintf(num, sizeof(num), "%d (CPU %d)", t->tid, t->cpu) :
			  snprintf(num, sizeof(num), "%d", t->tid);
	if (pm_buf__append(&s->key, num, (size_t)n))
		return -ENOMEM;
	if (events) {
		const char *ev = ss__event_name(s, t->evsel);

		if (pm_buf__append(&s->key, " ", 1) || pm_buf__append(&s->key, ev, strlen(ev)))
			return -ENOMEM;
	}
	return 0;
}

static int ss__profile(struct ss_writer *w, const struct ss_thread *t, bool events)
{
	const struct ss_event *ev = speedscope__event_at(w->s, t->evsel);
	struct pm_out *o = w->o;
	int err = ss__name(w->s, t, events);

	if (err)
		return err;
	/* Counts have no time to line up on: no sample for the end of the others'. */
	w->base = ev->first;
	w->end = ev->timed ? ev->last : 0;
	pm_out__str(o, "{\"type\":\"sampled\",\"name\":");
	pm_out__json_str(o, (const char *)w->s->key.data, w->s->key.len);
	pm_out__str(o, ev->timed ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"");
	pm_out__str(o, ",\"startValue\":0,\"endValue\":");
	pm_out__u64(o, ev->last - ev->first);
	pm_out__str(o, ",\n\"samples\":[");
	ss__runs(w, t, ss__stack);
	pm_out__str(o, "],\n\"weights\":[");
	ss__runs(w, t, ss__weight);
	pm_out__str(o, "]}");
	return 0;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct ss_thread *x = *(const struct ss_thread *const *)a;
	const struct ss_thread *y = *(const struct ss_thread *const *)b;

	if (x->evsel != y->evsel)
		return x->evsel < y->evsel ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Ends every line; the threads in the profiles' order. */
static int ss__finish(struct pm_speedscope *s, struct ss_thread ***order)
{
	size_t i;
	int err = speedscope__end(s);

	if (err)
		return err;
	*order = malloc((s->nr_threads ? s->nr_threads : 1) * sizeof(**order));
	if (!*order)
		return -ENOMEM;
	for (i = 0; i < s->nr_threads; i++)
		(*order)[i] = &s->threads[i];
	qsort(*order, s->nr_threads, sizeof(**order), thread_cmp);
	return 0;
}

static void ss__frames(struct pm_speedscope *s, struct pm_out *o)
{
	const char *key;
	size_t i, n, len;

	for (i = 0; i < pm_intern__nr(&s->frames); i++) {
		key = pm_intern__key(&s->frames, (uint32_t)i, &n);
		len = strlen(key);
		pm_out__str(o, i ? ",{\"name\":" : "{\"name\":");
		pm_out__json_str(o, key, len);
		if (n > len + 1) {
			pm_out__str(o, ",\"file\":");
			pm_out__json_str(o, key + len + 1, n - len - 1);
		}
		pm_out__ch(o, '}');
	}
}

/*
 * The document's name: the input's, and where the recording has a clock
 * reference (CLOCK_DATA), the wall-clock time its timelines start at:
 * speedscope shows times from the start only.
 */
static int ss__doc_name(struct pm_speedscope *s)
{
	uint64_t first = UINT64_MAX, wall;
	struct pm_clock_ref ref;
	char when[80];
	struct tm tm;
	time_t sec;
	size_t i, n;

	s->key.len = 0;
	for (i = 0; i < s->nr_events + SS_NR_SYNTH; i++) {
		const struct ss_event *ev = i < s->nr_events ? &s->events[i] :
					    &s->synth[i - s->nr_events];

		if (ev->timed && ev->spanned && ev->first < first)
			first = ev->first;
	}
	if (pm_buf__append(&s->key, s->o.name, strlen(s->o.name)))
		return -ENOMEM;
	if (first == UINT64_MAX || pm_reader__clock_data(s->r, &ref))
		return 0;
	wall = ref.wall_ns + (first - ref.clock_ns);	/* modular: first may precede clock_ns */
	sec = (time_t)(wall / 1000000000);
	if (!gmtime_r(&sec, &tm))
		return 0;
	n = strftime(when, sizeof(when), ", from %Y-%m-%d %H:%M:%S", &tm);
	if (!n)
		return 0;
	n += (size_t)snprintf(when + n, sizeof(when) - n, ".%06u UTC",
			      (unsigned int)(wall % 1000000000 / 1000));
	return pm_buf__append(&s->key, when, n);
}

int pm_speedscope__write(struct pm_speedscope *s, pm_write_fn *write, void *arg,
			 struct pm_speedscope_stats *st)
{
	struct ss_writer w = { .s = s };
	struct ss_thread **order = NULL;
	size_t i, active = 0, nr_events = 0;
	struct pm_out o;
	int err;

	err = ss__finish(s, &order);
	if (!err)
		err = pm_out__init(&o, write, arg, SS_OUT_BUF);
	if (err) {
		free(order);
		return err;
	}
	w.o = &o;
	for (i = 0; i < s->nr_events; i++)
		nr_events += s->events[i].any;
	for (i = 0; i < SS_NR_SYNTH; i++)
		nr_events += s->synth[i].any;
	/* The busiest thread is the one shown first. */
	for (i = 1; i < s->nr_threads; i++)
		if (order[i]->samples > order[active]->samples)
			active = i;
	err = ss__doc_name(s);
	pm_out__str(&o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			"\"exporter\":\"pmrec report --speedscope\",\"name\":");
	pm_out__json_str(&o, (const char *)s->key.data, s->key.len);
	pm_out__str(&o, ",\"activeProfileIndex\":");
	pm_out__u64(&o, active);
	pm_out__str(&o, ",\n\"profiles\":[");
	for (i = 0; i < s->nr_threads && !err; i++) {
		pm_out__str(&o, i ? ",\n" : "\n");
		err = ss__profile(&w, order[i], nr_events > 1);
	}
	pm_out__str(&o, "],\n\"shared\":{\"frames\":[");
	ss__frames(s, &o);
	pm_out__str(&o, "]}}\n");
	pm_out__flush(&o);
	if (!err)
		err = o.err;
	if (st) {
		*st = (struct pm_speedscope_stats){ .profiles = s->nr_threads,
						    .frames = pm_intern__nr(&s->frames), .runs = s->runs,
						    .bytes = o.total };
		for (i = 0; i < s->nr_threads; i++)
			st->samples += s->threads[i].samples;
	}
	pm_out__exit(&o);
	free(order);
	return err;
}
