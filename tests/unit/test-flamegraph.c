// SPDX-License-Identifier: GPL-2.0
/*
 * lib/flamegraph over a hand-built profile with a total period of 1000 in
 * an image 1200 pixels wide (1180 for the frames, 1.18 per unit of period),
 * so that every position is exact: the layout of known frames, the
 * inverted one, --min-width leaving narrow frames out, XML escaping of
 * hostile names, and the colours of a differential graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "export/flamegraph.h"
#include "profile/profile.h"
#include "tap.h"

#define F(d, s) { .dso = d, .sym = s }
#define K(s) { .dso = "[kernel.kallsyms]", .sym = s, .kernel = true }

static const struct pm_profile_frame hot_c1[] = { F("prog", "hot"), F("prog", "c1"), F("prog", "main") };
static const struct pm_profile_frame hot_c2[] = { F("prog", "hot"), F("prog", "c2"), F("prog", "main") };
static const struct pm_profile_frame pf_c1[] = { K("page_fault"), F("prog", "hot"), F("prog", "c1"), F("prog", "main") };
static const struct pm_profile_frame mset[] = { F("libc.so.6", "memset"), F("prog", "main") };
static const struct pm_profile_frame nosym[] = { { .dso = "prog", .dso_id = "/usr/bin/prog", .addr = 0x1234 }, F("prog", "main") };
static const struct pm_profile_frame hostile[] = { F("prog", "x<y>&\"z'"), F("prog", "main") };
static const struct pm_profile_frame semi[] = { F("other", "f;g\n") };
static const struct pm_profile_frame extra[] = { F("prog", "extra"), F("prog", "main") };

struct spec {
	const struct pm_profile_frame *f;
	uint32_t nr;
	const char *comm;
	uint64_t period;
};

#define S(a) a, sizeof(a) / sizeof(a[0])

static const struct spec now[] = {
	{ S(hot_c1), "prog", 400 }, { S(pf_c1), "prog", 100 }, { S(hot_c2), "prog", 200 },
	{ S(mset), "prog", 100 }, { S(nosym), "prog", 50 }, { S(hostile), "prog", 50 },
	{ S(semi), "a<b>", 100 },
};

/* c1 250 (now 500: grew), c2 200 (same share), memset 200 (now 100: shrank). */
static const struct spec before[] = {
	{ S(hot_c1), "prog", 250 }, { S(hot_c2), "prog", 200 }, { S(mset), "prog", 200 },
	{ S(nosym), "prog", 50 }, { S(hostile), "prog", 50 }, { S(semi), "a<b>", 100 },
	{ S(extra), "prog", 150 },
};

static struct pm_profile *build(const struct spec *sp, size_t n)
{
	struct pm_profile *p = pm_profile__new();
	size_t i;
	int ok = p && pm_profile__add_event(p, "cycles") == 0;

	for (i = 0; ok && i < n; i++) {
		struct pm_profile_sample s = {
			.comm = sp[i].comm, .pid = 100, .tid = 100, .cpu = 0, .time = i + 1,
			.period = sp[i].period, .frames = sp[i].f, .nr_frames = sp[i].nr,
		};

		ok = pm_profile__add(p, &s) == 0;
	}
	if (!ok) {
		printf("Bail out! cannot build the profile\n");
		exit(1);
	}
	return p;
}

static int to_buf(void *arg, const void *data, size_t len)
{
	return pm_buf__append(arg, data, len);
}

static int fail_write(void *arg, const void *data, size_t len)
{
	return -EIO;
}

/* The document, NUL-terminated (freed by the caller), or NULL. */
static char *draw(const struct pm_profile *p, const struct pm_flamegraph_opts *o,
		  struct pm_flamegraph_stats *st)
{
	struct pm_buf b = { 0 };

	if (pm_flamegraph__write(p, o, to_buf, &b, st) || pm_buf__append(&b, "", 1)) {
		pm_buf__exit(&b);
		return NULL;
	}
	return (char *)b.data;
}

struct rect {
	double x, w;
	unsigned y, r, g, b;
};

/* The rect of the nth frame (0 first) whose tooltip starts with name + " (". */
static bool frame(const char *doc, const char *name, int nth, struct rect *out)
{
	char key[256];
	const char *p = doc;

	snprintf(key, sizeof(key), "<title>%s (", name);
	while (doc && (p = strstr(p, key))) {
		if (nth-- == 0) {
			p = strstr(p, "<rect ");
			return p && sscanf(p, "<rect x=\"%lf\" y=\"%u\" width=\"%lf\" height=\"15\" "
					   "fill=\"rgb(%u,%u,%u)\"", &out->x, &out->y, &out->w,
					   &out->r, &out->g, &out->b) == 6;
		}
		p++;
	}
	return false;
}

static bool at(const char *doc, const char *name, int nth, double x, double w)
{
	struct rect r;

	return frame(doc, name, nth, &r) && r.x == x && r.w == w;
}

static size_t count(const char *doc, const char *needle)
{
	size_t n = 0;

	while (doc && (doc = strstr(doc, needle))) {
		n++;
		doc++;
	}
	return n;
}

static void test_layout(const struct pm_profile *p)
{
	struct pm_flamegraph_opts o = { .min_width = 0 };
	struct pm_flamegraph_stats st;
	char *doc = draw(p, &o, &st);
	struct rect r;

	tap_ok(doc != NULL, "a document");
	tap_ok(st.frames == 13 && !st.omitted && st.samples == 7 && st.period == 1000,
	       "13 frames, 7 samples, period 1000 (got %zu %zu %llu %llu)", st.frames, st.omitted,
	       (unsigned long long)st.samples, (unsigned long long)st.period);
	tap_ok(doc && !strncmp(doc, "<?xml ", 6) && strstr(doc, "</svg>\n") &&
	       strstr(doc, "width=\"1200\" height=\"166\""), "an SVG 1200 x 166");
	tap_ok(at(doc, "all", 0, 10, 1180), "root: x 10, width 1180");
	tap_ok(at(doc, "a&lt;b&gt;", 0, 10, 118) && at(doc, "prog", 0, 128, 1062),
	       "commands in name order: a<b> 10+118, prog 128+1062");
	tap_ok(at(doc, "main", 0, 128, 1062), "main spans prog");
	tap_ok(at(doc, "[prog]", 0, 128, 59) && at(doc, "c1", 0, 187, 590) &&
	       at(doc, "c2", 0, 777, 236) && at(doc, "memset", 0, 1013, 118),
	       "callees of main in name order: [prog] 128+59, c1 187+590, c2 777+236, memset 1013+118");
	tap_ok(at(doc, "hot", 0, 187, 590) && at(doc, "hot", 1, 777, 236) &&
	       at(doc, "page_fault", 0, 187, 118), "hot under c1 and c2, page_fault under hot");
	tap_ok(frame(doc, "all", 0, &r) && r.y == 166 - 34 - 16 && frame(doc, "page_fault", 0, &r) &&
	       r.y == 166 - 34 - 6 * 16, "the root at the bottom, callees above");
	tap_ok(strstr(doc ? doc : "", "<title>c1 (2 samples, 50.00%)</title>") != NULL,
	       "tooltip: name, samples, percentage");
	tap_ok(strstr(doc ? doc : "", "fg:total=\"1000\"") && count(doc, "fg:w=\"") == 13,
	       "exact weights for the script");
	tap_ok(frame(doc, "page_fault", 0, &r) && r.b > r.r && frame(doc, "hot", 0, &r) &&
	       r.r > r.b && frame(doc, "[prog]", 0, &r) && r.r == r.g && r.g == r.b,
	       "colours: kernel blue-green, user red-yellow, unknown grey");
	tap_ok(strstr(doc ? doc : "", "href") == NULL && strstr(doc ? doc : "", "url(") == NULL &&
	       strstr(doc ? doc : "", "@import") == NULL && strstr(doc ? doc : "", "src=") == NULL,
	       "nothing loaded from outside");
	free(doc);
}

static void test_inverted(const struct pm_profile *p)
{
	struct pm_flamegraph_opts o = { .inverted = true, .title = "Down" };
	char *doc = draw(p, &o, NULL);
	struct rect r;

	tap_ok(frame(doc, "all", 0, &r) && r.y == 36 && frame(doc, "page_fault", 0, &r) &&
	       r.y == 36 + 5 * 16, "inverted: the root at the top, callees below");
	tap_ok(strstr(doc ? doc : "", ">Down</text>") != NULL, "title");
	free(doc);
}

static void test_min_width(const struct pm_profile *p)
{
	struct pm_flamegraph_opts o = { .min_width = 60 };
	struct pm_flamegraph_stats st;
	char *doc = draw(p, &o, &st);

	tap_ok(st.frames == 11 && st.omitted == 2 && !strstr(doc, "[prog]") &&
	       !strstr(doc, "x&lt;y") && at(doc, "main", 0, 128, 1062) && at(doc, "all", 0, 10, 1180),
	       "min-width 60: the two 59 px frames left out, their callers as wide");
	free(doc);
	o.min_width = 120;
	doc = draw(p, &o, &st);
	tap_ok(st.frames == 7 && !strstr(doc, "memset") && !strstr(doc, "a&lt;b") &&
	       !strstr(doc, "page_fault") && at(doc, "hot", 0, 187, 590),
	       "min-width 120: frames of 118 px and their callees left out (%zu frames)", st.frames);
	free(doc);
}

static void test_escaping(const struct pm_profile *p)
{
	struct pm_flamegraph_opts o = { .title = "t<&>\"'\x01", .subtitle = "s\xff" };
	char *doc = draw(p, &o, NULL);

	tap_ok(doc && strstr(doc, "<title>x&lt;y&gt;&amp;&quot;z&#39; (") &&
	       strstr(doc, "<title>f:g? (") && strstr(doc, ">t&lt;&amp;&gt;&quot;&#39;?</text>") &&
	       strstr(doc, ">s\xef\xbf\xbd</text>"),
	       "names and titles escaped (&<>\"'), ';' as ':', control bytes as '?', bad UTF-8 as U+FFFD");
	tap_ok(doc && !strstr(doc, "<b>") && !strstr(doc, "x<y") && !strchr(doc, '\x01'),
	       "no raw markup from names");
	free(doc);
}

static void test_diff(const struct pm_profile *p, const struct pm_profile *base)
{
	struct pm_flamegraph_opts o = { .base = base, .min_width = 0 };
	char *doc = draw(p, &o, NULL), *same;
	struct rect r;

	tap_ok(frame(doc, "c1", 0, &r) && r.r == 255 && r.g < 100 && r.g == r.b,
	       "diff: c1 (25%% to 50%%, the largest change) deep red");
	tap_ok(frame(doc, "memset", 0, &r) && r.b == 255 && r.r == r.g && r.r > 40 && r.r < 220,
	       "diff: memset (20%% to 10%%) blue, paler");
	tap_ok(frame(doc, "c2", 0, &r) && r.r == 220 && r.g == 220 && r.b == 220 &&
	       frame(doc, "main", 0, &r) && r.r == 220 && r.g == 220,
	       "diff: c2 and main (same share) grey");
	tap_ok(frame(doc, "page_fault", 0, &r) && r.r == 255 && r.g > 40,
	       "diff: page_fault (new) red");
	tap_ok(strstr(doc ? doc : "", "<title>c1 (2 samples, 50.00%, base 25.00%, +25.00 points)") &&
	       !strstr(doc ? doc : "", "extra"), "diff: tooltips with both shares; widths of FILE");
	o.base = p;
	same = draw(p, &o, NULL);
	tap_ok(same && count(same, "fill=\"rgb(220,220,220)\"") == 13,
	       "diff of identical profiles: every frame grey");
	free(doc);
	free(same);
}

static void test_errors(const struct pm_profile *p)
{
	struct pm_flamegraph_opts o = { .width = 100 };
	struct pm_buf b = { 0 };

	tap_ok(pm_flamegraph__write(p, &o, to_buf, &b, NULL) == -EINVAL, "width 100: -EINVAL");
	o = (struct pm_flamegraph_opts){ .event = 1 };
	tap_ok(pm_flamegraph__write(p, &o, to_buf, &b, NULL) == -EINVAL, "unknown event: -EINVAL");
	o = (struct pm_flamegraph_opts){ .min_width = 2000 };
	tap_ok(pm_flamegraph__write(p, &o, to_buf, &b, NULL) == -EINVAL, "min-width > width: -EINVAL");
	o = (struct pm_flamegraph_opts){ 0 };
	tap_ok(pm_flamegraph__write(p, &o, fail_write, NULL, NULL) == -EIO, "a write error returns");
	pm_buf__exit(&b);
}

static void test_filter(const struct pm_profile *p)
{
	const char *comms[] = { "prog" };
	struct pm_profile_filter f = { .comms = comms, .nr_comms = 1 };
	struct pm_flamegraph_opts o = { .filter = &f };
	char *doc = draw(p, &o, NULL), *rel;

	tap_ok(doc && !strstr(doc, "a&lt;b") && at(doc, "prog", 0, 10, 1180) &&
	       strstr(doc, "<title>prog (6 samples, 90.00%)"),
	       "--comm: other commands hidden, percentages of the whole");
	f.relative = true;
	rel = draw(p, &o, NULL);
	tap_ok(rel && strstr(rel, "<title>prog (6 samples, 100.00%)"),
	       "--percentage relative: of what is shown");
	free(doc);
	free(rel);
}

int main(void)
{
	struct pm_profile *p = build(now, sizeof(now) / sizeof(now[0]));
	struct pm_profile *base = build(before, sizeof(before) / sizeof(before[0]));

	test_layout(p);
	test_inverted(p);
	test_min_width(p);
	test_escaping(p);
	test_diff(p, base);
	test_errors(p);
	test_filter(p);
	pm_profile__delete(p);
	pm_profile__delete(base);
	return tap_done();
}
