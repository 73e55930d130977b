// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "print/print.h"
#include "format/perf_data.h"
#include "format/record_body.h"
#include "print/stats.h"

void pm_stats__count_rare(struct pm_stats *st, const struct pm_record *rec,
			  const struct pm_rec_info *in)
{
	uint32_t type = rec->header->type;
	uint64_t id, lost;
	size_t i;

	if (type == PERF_RECORD_LOST || type == PERF_RECORD_LOST_SAMPLES) {
		if (pm_lost_body__decode(rec->header, in->body_len, &id, &lost))
			return;
		if (type == PERF_RECORD_LOST) {
			st->lost_records += lost;
		} else {
			st->lost_samples += lost;
			st->have_lost_samples = true;
		}
		return;
	}
	for (i = 0; i < st->nr_other; i++)
		if (st->other[i].type == type) {
			st->other[i].n++;
			return;
		}
	if (st->nr_other < PM_STATS_MAX_OTHER) {
		st->other[st->nr_other].type = type;
		st->other[st->nr_other++].n = 1;
	} else {
		st->other_rest++;
	}
}

int pm_stats__grow(struct pm_stats *st, size_t idx)
{
	size_t n = idx + 16;
	uint64_t *p = realloc(st->by_evsel, n * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memset(p + st->nr_by_evsel, 0, (n - st->nr_by_evsel) * sizeof(*p));
	st->by_evsel = p;
	st->nr_by_evsel = n;
	return 0;
}

/* Text: "KIND NAME VALUE", padded into columns; names quoted if need be. */
static void stats__text_begin(struct pm_emit *e, const char *kind, const char *name)
{
	size_t n = strlen(name), col = e->out.len;

	pm_out__printf(&e->out, "%-6s ", kind);
	pm_out__text_str(&e->out, name, n);
	/* The buffer may have been flushed: padding is then best effort. */
	col = e->out.len > col ? e->out.len - col : 0;
	while (col++ < 32)
		pm_out__ch(&e->out, ' ');
	pm_out__ch(&e->out, ' ');
}

static void stats__line(struct pm_emit *e, const char *kind, const char *name, uint64_t n)
{
	if (e->json) {
		pm_emit__u64(e, name, n);
		return;
	}
	stats__text_begin(e, kind, name);
	pm_out__printf(&e->out, "%12llu\n", (unsigned long long)n);
}

static void stats__print_types(const struct pm_stats *st, struct pm_emit *e)
{
	char buf[32];
	uint32_t t;
	size_t i;

	for (t = 0; t < PERF_RECORD_HEADER_MAX; t++)
		if (st->by_type[t])
			stats__line(e, "type", pm_record_type__label(t, buf, sizeof(buf)),
				    st->by_type[t]);
	for (i = 0; i < st->nr_other; i++)
		stats__line(e, "type", pm_record_type__label(st->other[i].type, buf, sizeof(buf)),
			    st->other[i].n);
	if (st->other_rest)
		stats__line(e, "type", "UNKNOWN_OTHER", st->other_rest);
}

static void stats__print_events(const struct pm_stats *st, struct pm_emit *e,
				struct pm_reader *r)
{
	size_t i;

	for (i = 0; i < st->nr_by_evsel; i++)
		if (st->by_evsel[i])
			stats__line(e, "event", pm_evsel__name(pm_reader__evsel(r, i)),
				    st->by_evsel[i]);
}

static void stats__print_time(struct pm_emit *e, const char *key, uint64_t t)
{
	if (e->json) {
		pm_emit__u64(e, key, t);
		return;
	}
	stats__text_begin(e, "time", key);
	pm_out__time(&e->out, t);
	pm_out__ch(&e->out, '\n');
}

void pm_stats__print(const struct pm_stats *st, struct pm_emit *e, struct pm_reader *r)
{
	if (e->json) {
		pm_out__str(&e->out, "{\"type\":\"STATS\"");
		e->first = false;
		pm_emit__u64(e, "records", st->records);
		pm_emit__u64(e, "samples", st->samples);
		pm_emit__u64(e, "lost", pm_stats__lost(st));
		if (st->have_time) {
			stats__print_time(e, "first_sample_time", st->first_time);
			stats__print_time(e, "last_sample_time", st->last_time);
		}
		pm_emit__key(e, "by_type");
		pm_out__ch(&e->out, '{');
		e->first = true;
		stats__print_types(st, e);
		pm_out__str(&e->out, "},\"by_event\":{");
		e->first = true;
		stats__print_events(st, e, r);
		pm_out__str(&e->out, "}}\n");
		return;
	}
	stats__print_types(st, e);
	stats__print_events(st, e, r);
	stats__line(e, "total", "records", st->records);
	stats__line(e, "total", "samples", st->samples);
	stats__line(e, "total", "lost", pm_stats__lost(st));
	if (st->have_time) {
		stats__print_time(e, "first_sample", st->first_time);
		stats__print_time(e, "last_sample", st->last_time);
	}
}

int pm_stats__consume(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in)
{
	return pm_stats__count(ctx, rec, in);
}

void pm_stats__exit(struct pm_stats *st)
{
	free(st->by_evsel);
	st->by_evsel = NULL;
	st->nr_by_evsel = 0;
}
