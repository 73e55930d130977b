// SPDX-License-Identifier: GPL-2.0
/* --header: the file header, events and features. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "format/perf_data.h"
#include "print/print_int.h"

/* Header lines: text "# key : value"; JSON members of one object. */
static void h_key(struct pm_emit *e, const char *key)
{
	if (e->json) {
		pm_emit__key(e, key);
		return;
	}
	pm_out__printf(&e->out, "# %s : ", key);
}

static void h_end(struct pm_emit *e)
{
	if (!e->json)
		pm_out__ch(&e->out, '\n');
}

static void h_str(struct pm_emit *e, const char *key, const char *s, size_t n)
{
	h_key(e, key);
	if (e->json)
		pm_out__json_str(&e->out, s, n);
	else
		pm_out__mem(&e->out, s, n);
	h_end(e);
}

static void h_u64(struct pm_emit *e, const char *key, uint64_t v)
{
	h_key(e, key);
	pm_out__u64(&e->out, v);
	h_end(e);
}

static void h_bad(struct pm_emit *e, const char *key, const struct pm_cursor *c)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "<malformed at offset 0x%llx>",
		 (unsigned long long)pm_cursor__offset(c));
	h_str(e, key, msg, strlen(msg));
}

static void h_perf_string(struct pm_emit *e, struct pm_reader *r, int feat, const char *key)
{
	struct pm_cursor c;
	const char *s;
	size_t n;

	if (pm_reader__feature(r, feat, &c))
		return;
	if (pm_cursor__perf_string(&c, &s, &n))
		h_bad(e, key, &c);
	else
		h_str(e, key, s, n);
}

/* perf string list joined by sep (CMDLINE, CPU_TOPOLOGY sibling lists). */
static int h_string_list(struct pm_emit *e, struct pm_cursor *c, const char *key, const char *sep)
{
	uint32_t nr, i;
	const char *s;
	size_t n;

	if (pm_cursor__u32(c, &nr))
		return -EBADMSG;
	h_key(e, key);
	if (e->json)
		pm_out__ch(&e->out, '[');
	for (i = 0; i < nr; i++) {
		if (pm_cursor__perf_string(c, &s, &n))
			break;
		if (i)
			pm_out__str(&e->out, e->json ? "," : sep);
		if (e->json)
			pm_out__json_str(&e->out, s, n);
		else
			pm_out__text_str(&e->out, s, n);
	}
	if (e->json)
		pm_out__ch(&e->out, ']');
	h_end(e);
	return i == nr ? 0 : -EBADMSG;
}

static void h_nrcpus(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;
	uint32_t avail, online;

	if (pm_reader__feature(r, HEADER_NRCPUS, &c))
		return;
	if (pm_cursor__u32(&c, &avail) || pm_cursor__u32(&c, &online)) {
		h_bad(e, "nrcpus", &c);
		return;
	}
	h_u64(e, "nrcpus online", online);
	h_u64(e, "nrcpus avail", avail);
}

static void h_u64_feature(struct pm_emit *e, struct pm_reader *r, int feat, const char *key,
			  const char *unit)
{
	struct pm_cursor c;
	uint64_t v;

	if (pm_reader__feature(r, feat, &c))
		return;
	if (pm_cursor__u64(&c, &v)) {
		h_bad(e, key, &c);
		return;
	}
	h_key(e, key);
	pm_out__u64(&e->out, v);
	if (!e->json)
		pm_out__str(&e->out, unit);
	h_end(e);
}

static void h_sample_time(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;
	uint64_t first, last;

	if (pm_reader__feature(r, HEADER_SAMPLE_TIME, &c))
		return;
	if (pm_cursor__u64(&c, &first) || pm_cursor__u64(&c, &last)) {
		h_bad(e, "sample time", &c);
		return;
	}
	if (e->json) {
		pm_emit__u64(e, "first_sample_time", first);
		pm_emit__u64(e, "last_sample_time", last);
		return;
	}
	pm_out__str(&e->out, "# time of first sample : ");
	pm_out__time(&e->out, first);
	pm_out__str(&e->out, "\n# time of last sample : ");
	pm_out__time(&e->out, last);
	pm_out__ch(&e->out, '\n');
}

/* -k: the sample clock and the instant it was read at with the wall clock. */
static void h_clock_data(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_clock_ref ref;
	struct pm_cursor c;
	const char *name;
	char date[48];
	struct tm tm;
	int err = pm_reader__clock_data(r, &ref);

	if (err == -ENOENT)
		return;
	if (err) {
		pm_reader__feature(r, HEADER_CLOCK_DATA, &c);
		h_bad(e, "clockid", &c);
		return;
	}
	name = pm_clock__name(ref.clockid);
	if (e->json) {
		pm_emit__u64(e, "clockid", (uint32_t)ref.clockid);
		if (name)
			pm_emit__cstr(e, "clock", name);
		pm_emit__u64(e, "clock_ref_wall_ns", ref.wall_ns);
		pm_emit__u64(e, "clock_ref_clock_ns", ref.clock_ns);
		return;
	}
	pm_out__printf(&e->out, "# clockid : %s (%d)\n", name ? name : "unknown", ref.clockid);
	pm_out__str(&e->out, "# clock reference : ");
	if (gmtime_r(&(time_t){ (time_t)(ref.wall_ns / 1000000000) }, &tm) &&
	    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC = ", &tm))
		pm_out__str(&e->out, date);
	pm_out__time(&e->out, ref.wall_ns);
	pm_out__str(&e->out, " (wall clock) = ");
	pm_out__time(&e->out, ref.clock_ns);
	pm_out__printf(&e->out, " (%s)\n", name ? name : "clock");
}

static void h_cmdline(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;

	if (pm_reader__feature(r, HEADER_CMDLINE, &c))
		return;
	if (h_string_list(e, &c, "cmdline", " "))
		h_bad(e, "cmdline", &c);
}

static void h_cpu_topology(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;

	if (pm_reader__feature(r, HEADER_CPU_TOPOLOGY, &c))
		return;
	if (h_string_list(e, &c, "sibling sockets", " ; ") ||
	    h_string_list(e, &c, "sibling threads", " ; "))
		h_bad(e, "cpu topology", &c);
}

static void h_pmu_mappings(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;
	uint32_t nr, i, type;
	const char *s;
	size_t n;

	if (pm_reader__feature(r, HEADER_PMU_MAPPINGS, &c))
		return;
	if (pm_cursor__u32(&c, &nr)) {
		h_bad(e, "pmu mappings", &c);
		return;
	}
	h_key(e, "pmu mappings");
	if (e->json)
		pm_out__ch(&e->out, '{');
	for (i = 0; i < nr; i++) {
		if (pm_cursor__u32(&c, &type) || pm_cursor__perf_string(&c, &s, &n))
			break;
		if (e->json) {
			pm_out__str(&e->out, i ? "," : "");
			pm_out__json_str(&e->out, s, n);
			pm_out__ch(&e->out, ':');
			pm_out__u64(&e->out, type);
		} else {
			pm_out__str(&e->out, i ? ", " : "");
			pm_out__text_str(&e->out, s, n);
			pm_out__printf(&e->out, " = %u", type);
		}
	}
	if (e->json)
		pm_out__ch(&e->out, '}');
	h_end(e);
}

static void h_build_ids(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_build_id_entry bid;
	struct pm_cursor c;

	if (pm_reader__feature(r, HEADER_BUILD_ID, &c))
		return;
	if (e->json)
		pm_emit__list_begin(e, "build_ids");
	while (pm_build_id_entry__next(&c, &bid) > 0) {
		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_print__build_id_entry(e, &bid);
			pm_emit__obj_end(e);
		} else {
			pm_out__str(&e->out, "# build id :");
			pm_print__build_id_entry(e, &bid);
			pm_out__ch(&e->out, '\n');
		}
	}
	if (e->json)
		pm_emit__list_end(e);
	if (pm_cursor__left(&c))
		h_bad(e, "build id", &c);
}

/* The bit fields of an attr, as one number: the u64 at offset 40. */
static uint64_t attr_flags(const struct perf_event_attr *attr)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)attr + 40, sizeof(v));
	return v;
}

static void h_event(struct pm_emit *e, struct pm_evsel *ev)
{
	size_t i;

	if (e->json) {
		pm_emit__obj_begin(e, NULL);
		pm_emit__cstr(e, "name", pm_evsel__name(ev));
		pm_print__attr(e, &ev->attr);
		pm_emit__u64(e, "attr_size", ev->attr.size);
		pm_emit__hex(e, "flags", attr_flags(&ev->attr));
		pm_emit__u64_list(e, "ids", ev->ids, ev->nr_ids);
		pm_emit__obj_end(e);
		return;
	}
	pm_out__str(&e->out, "# event :");
	pm_emit__cstr(e, "name", pm_evsel__name(ev));
	pm_print__attr(e, &ev->attr);
	pm_emit__u64(e, "attr_size", ev->attr.size);
	pm_emit__hex(e, "flags", attr_flags(&ev->attr));
	pm_emit__list_begin(e, "ids");
	for (i = 0; i < ev->nr_ids; i++) {
		pm_emit__item(e);
		pm_out__u64(&e->out, ev->ids[i]);
	}
	pm_emit__list_end(e);
	pm_out__ch(&e->out, '\n');
}

static void h_tracing(struct pm_emit *e, struct pm_reader *r)
{
	const struct pm_tp_data *tp = pm_reader__tracing(r);
	struct pm_cursor c;
	size_t i;

	if (!tp)
		return;
	if (!pm_reader__feature(r, HEADER_TRACING_DATA, &c))
		h_u64(e, "tracing data size", c.len);
	h_key(e, "tracepoint formats");
	if (e->json)
		pm_out__ch(&e->out, '[');
	for (i = 0; i < tp->nr_events; i++) {
		if (i)
			pm_out__str(&e->out, e->json ? "," : " ");
		if (e->json)
			pm_out__json_str(&e->out, tp->events[i].full_name,
				      strlen(tp->events[i].full_name));
		else
			pm_out__printf(&e->out, "%s(%llu)", tp->events[i].full_name,
				    (unsigned long long)tp->events[i].id);
	}
	if (e->json)
		pm_out__ch(&e->out, ']');
	h_end(e);
}

static void h_file_layout(struct pm_emit *e, struct pm_reader *r)
{
	const struct perf_file_header *h = pm_reader__header(r);

	h_str(e, "mode", pm_reader__is_pipe(r) ? "pipe" : "file", 4);
	h_u64(e, "header size", h->size);
	if (pm_reader__is_pipe(r))
		return;
	h_u64(e, "attr size", h->attr_size);
	h_key(e, "attrs");
	pm_out__printf(&e->out, e->json ? "{\"offset\":%llu,\"size\":%llu}" :
		    "offset 0x%llx, size %llu", (unsigned long long)h->attrs.offset,
		    (unsigned long long)h->attrs.size);
	h_end(e);
	h_key(e, "data");
	pm_out__printf(&e->out, e->json ? "{\"offset\":%llu,\"size\":%llu}" :
		    "offset 0x%llx, size %llu", (unsigned long long)h->data.offset,
		    (unsigned long long)h->data.size);
	h_end(e);
}

static void h_features(struct pm_emit *e, struct pm_reader *r)
{
	struct pm_cursor c;
	bool any = false;
	char buf[16];
	int feat;

	h_key(e, "features");
	if (e->json)
		pm_out__ch(&e->out, '{');
	for (feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		const char *name = pm_feature__name(feat);

		if (pm_reader__feature(r, feat, &c))
			continue;
		if (!name) {
			snprintf(buf, sizeof(buf), "%d", feat);
			name = buf;
		}
		if (e->json) {
			pm_out__str(&e->out, any ? ",\"" : "\"");
			pm_out__str(&e->out, name);
			pm_out__str(&e->out, "\":");
			pm_out__u64(&e->out, c.len);
		} else {
			pm_out__printf(&e->out, "%s%s(%zu)", any ? " " : "", name, c.len);
		}
		any = true;
	}
	if (e->json)
		pm_out__ch(&e->out, '}');
	h_end(e);
}

void pm_header__print(struct pm_emit *e, struct pm_reader *r)
{
	size_t i;

	if (e->json) {
		pm_out__str(&e->out, "{\"type\":\"HEADER\"");
		e->first = false;
	}
	h_file_layout(e, r);
	h_perf_string(e, r, HEADER_HOSTNAME, "hostname");
	h_perf_string(e, r, HEADER_OSRELEASE, "os release");
	h_perf_string(e, r, HEADER_VERSION, "perf version");
	h_perf_string(e, r, HEADER_ARCH, "arch");
	h_nrcpus(e, r);
	h_perf_string(e, r, HEADER_CPUDESC, "cpudesc");
	h_perf_string(e, r, HEADER_CPUID, "cpuid");
	h_u64_feature(e, r, HEADER_TOTAL_MEM, "total memory", " kB");
	h_cmdline(e, r);
	if (e->json)
		pm_emit__list_begin(e, "events");
	for (i = 0; i < pm_reader__nr_evsels(r); i++)
		h_event(e, pm_reader__evsel(r, i));
	if (e->json)
		pm_emit__list_end(e);
	h_sample_time(e, r);
	h_u64_feature(e, r, HEADER_CLOCKID, "clockid frequency", " ns resolution");
	h_clock_data(e, r);
	h_cpu_topology(e, r);
	h_pmu_mappings(e, r);
	h_build_ids(e, r);
	h_tracing(e, r);
	h_features(e, r);
	if (e->json)
		pm_out__str(&e->out, "}\n");
}

