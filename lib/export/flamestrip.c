// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph's time strip (flamegraph_int.h): the bars of the
 * samples' weight per time column above the frames, the data the script
 * redraws the frames from, and the script.
 *
 * The data is one JSON object in a script element of type
 * application/json, numbers only: "p" each drawn frame's parent (document
 * order, the root's 0), "c" per column the frames its samples widen as
 * flat tuples (frame, weight) or, when periods weigh, (frame, period,
 * samples), "a" per column the weight of every sample the percentages
 * are of (hidden ones too), "k" the tuple size, "rel" whether percentages
 * are of the samples shown.  So its size is bounded by the columns times
 * the frames active in each, whatever the number of samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/flamegraph_int.h"
#include "base/sat.h"

#define BAR_TOP 2		/* below the strip's top */
#define BAR_HEIGHT 46
#define LABEL_Y (BAR_TOP + BAR_HEIGHT + 14)
#define LEGEND_Y (LABEL_Y + 15)
#define FONT_WIDTH (12 * 0.59)	/* an average glyph, as the frames' labels count */
/* Lines of the commands with the most weight, when there are several. */
#define MAX_LINES 4
#define LEGEND_CHARS 24

/* One column's samples in one frame (or HIDDEN). */
struct cell {
	int64_t col;			/* from the strip's first */
	uint32_t frame;
	uint64_t samples, period;
};

struct strip {
	const struct pm_flamestrip *s;
	struct cell *cells;
	size_t nr;
	int64_t first;			/* the timeline's column of the strip's first */
	uint32_t cols;
	uint64_t *shown, *all;		/* weight per column: in frames, and every one */
};

static int cell_cmp(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return (x->frame > y->frame) - (x->frame < y->frame);
}

static uint64_t cell_weight(const struct strip *st, const struct cell *c)
{
	return st->s->by_samples ? c->samples : c->period;
}

/* The timeline's entries of this graph's frames, per strip column and frame, in that order. */
static int strip__cells(struct strip *st)
{
	const struct pm_flamestrip *s = st->s;
	size_t n = pm_timeline__nr_entries(s->tl), i, j;
	struct pm_timeline_entry e;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint32_t f;

	st->cells = malloc((n ? n : 1) * sizeof(*st->cells));
	if (!st->cells)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pm_timeline__entry(s->tl, i, &e);
		f = e.node < s->nr_nodes ? s->node_frame[e.node] : PM_FLAMESTRIP_NONE;
		if (f == PM_FLAMESTRIP_NONE)
			continue;
		lo = e.column < lo ? e.column : lo;
		hi = e.column > hi ? e.column : hi;
		/* The timeline's column for now; made the strip's below. */
		st->cells[st->nr++] = (struct cell){ .col = e.column, .frame = f,
						     .samples = e.samples, .period = e.period };
	}
	if (!st->nr)
		return 0;
	st->first = lo;
	st->cols = (uint32_t)(hi - lo + 1);	/* at most the timeline's columns */
	for (i = 0; i < st->nr; i++)
		st->cells[i].col -= lo;
	qsort(st->cells, st->nr, sizeof(*st->cells), cell_cmp);
	for (i = 0, j = 0; i < st->nr; i++) {
		if (j && !cell_cmp(&st->cells[j - 1], &st->cells[i])) {
			pm_add_sat(&st->cells[j - 1].samples, st->cells[i].samples);
			pm_add_sat(&st->cells[j - 1].period, st->cells[i].period);
		} else {
			st->cells[j++] = st->cells[i];
		}
	}
	st->nr = j;
	return 0;
}

static int strip__columns(struct strip *st)
{
	size_t i;

	st->shown = calloc(st->cols, sizeof(*st->shown));
	st->all = calloc(st->cols, sizeof(*st->all));
	if (!st->shown || !st->all)
		return -ENOMEM;
	for (i = 0; i < st->nr; i++) {
		pm_add_sat(&st->all[st->cells[i].col], cell_weight(st, &st->cells[i]));
		if (st->cells[i].frame != PM_FLAMESTRIP_HIDDEN)
			pm_add_sat(&st->shown[st->cells[i].col], cell_weight(st, &st->cells[i]));
	}
	return 0;
}

/* The wall-clock time of t (the samples' clock), ns since the epoch. */
static uint64_t wall_ns(const struct pm_clock_ref *c, uint64_t t)
{
	return c->wall_ns + (t - c->clock_ns);	/* modular: t may precede clock_ns */
}

/* "HH:MM:SS.mmm" (UTC), or with date "YYYY-MM-DD HH:MM:SS.mmm UTC". */
static void out_wall(struct pm_out *o, uint64_t ns, bool date)
{
	time_t sec = (time_t)(ns / 1000000000);
	const char *fmt = date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S";
	char b[64];
	struct tm tm;

	if (!gmtime_r(&sec, &tm) || !strftime(b, sizeof(b), fmt, &tm)) {
		pm_out__str(o, "?");
		return;
	}
	pm_out__printf(o, "%s.%03u%s", b, (unsigned int)(ns % 1000000000 / 1000000), date ? " UTC" : "");
}

/* A time on the strip: wall-clock, or seconds from its start. */
static void out_label(struct strip *st, struct pm_out *o, uint64_t t)
{
	uint64_t start = pm_timeline__column_start(st->s->tl, st->first);

	if (st->s->clock)
		out_wall(o, wall_ns(st->s->clock, t), false);
	else
		pm_out__printf(o, "%.3f s", (double)(t - start) / 1e9);
}

static const char *const line_color[MAX_LINES] = {
	"rgb(30,60,200)", "rgb(10,130,50)", "rgb(150,30,160)", "rgb(20,20,20)",
};

/* The commands (children of the root) with the most weight, most first; how many. */
static size_t strip__top_commands(struct strip *st, const uint32_t *cmd, uint32_t *top)
{
	uint64_t *total = calloc(st->s->nr_frames, sizeof(*total)), best;
	size_t i, k, nr = 0, all = 0;

	if (!total)
		return 0;
	for (i = 0; i < st->nr; i++)
		if (st->cells[i].frame != PM_FLAMESTRIP_HIDDEN && st->cells[i].frame)
			pm_add_sat(&total[cmd[st->cells[i].frame]], cell_weight(st, &st->cells[i]));
	for (i = 1; i < st->s->nr_frames; i++)
		all += total[i] > 0;
	for (k = 0; all > 1 && k < MAX_LINES; k++, nr++) {
		for (i = 1, top[k] = 0, best = 0; i < st->s->nr_frames; i++)
			if (total[i] > best) {
				best = total[i];
				top[k] = (uint32_t)i;
			}
		if (!best)
			break;
		total[top[k]] = 0;
	}
	free(total);
	return nr;
}

/* One command's weight per column, as a line over the bars, and its entry in the legend. */
static void strip__line(struct strip *st, struct pm_out *o, const uint32_t *cmd, uint32_t c,
			uint64_t max, size_t k, double *legend_x)
{
	const struct pm_flamestrip *s = st->s;
	double colw = (s->width - 2.0 * s->xpad) / st->cols, h;
	size_t i = 0, len = strlen(s->frame_name[c]);
	uint64_t w;
	uint32_t col;

	pm_out__printf(o, "<polyline fill=\"none\" stroke=\"%s\" points=\"", line_color[k]);
	for (col = 0; col < st->cols; col++) {
		for (w = 0; i < st->nr && st->cells[i].col == (int64_t)col; i++)
			if (st->cells[i].frame != PM_FLAMESTRIP_HIDDEN && st->cells[i].frame &&
			    cmd[st->cells[i].frame] == c)
				pm_add_sat(&w, cell_weight(st, &st->cells[i]));
		h = max ? (double)BAR_HEIGHT * (double)w / (double)max : 0;
		pm_out__printf(o, "%s%.2f,%.1f", col ? " " : "", s->xpad + (col + 0.5) * colw,
			       s->y + BAR_TOP + BAR_HEIGHT - h);
	}
	pm_out__str(o, "\"><title>");
	pm_flamegraph__xml(o, s->frame_name[c], len);
	pm_out__printf(o, "</title></polyline>\n<text class=\"strip-legend\" x=\"%.2f\" y=\"%u\" "
		       "fill=\"%s\">", *legend_x, s->y + LEGEND_Y, line_color[k]);
	/* A long name is cut (at a character) so that four fit the width. */
	for (i = 0, w = 0; i < len && w < LEGEND_CHARS; i++)
		w += ((unsigned char)s->frame_name[c][i] & 0xc0) != 0x80;
	while (i < len && ((unsigned char)s->frame_name[c][i] & 0xc0) == 0x80)
		i++;
	pm_out__str(o, "\xe2\x80\x94 ");	/* an em dash, as the line */
	pm_flamegraph__xml(o, s->frame_name[c], i);
	pm_out__str(o, i < len ? "..</text>\n" : "</text>\n");
	*legend_x += (double)(w + 4) * FONT_WIDTH + 12;
}

/* Each of the busiest commands' weight over time, when the graph has several. */
static void strip__lines(struct strip *st, struct pm_out *o, uint64_t max)
{
	const struct pm_flamestrip *s = st->s;
	uint32_t *cmd = malloc(s->nr_frames * sizeof(*cmd)), top[MAX_LINES];
	double legend_x = s->xpad;
	size_t i, nr;

	if (!cmd)
		return;
	/* Parents come before their children: each frame's command is its parent's. */
	cmd[0] = 0;
	for (i = 1; i < s->nr_frames; i++)
		cmd[i] = s->frame_parent[i] ? cmd[s->frame_parent[i]] : (uint32_t)i;
	nr = strip__top_commands(st, cmd, top);
	for (i = 0; i < nr; i++)
		strip__line(st, o, cmd, top[i], max, i, &legend_x);
	free(cmd);
}

/* The bars, the selection's rectangle and the labels: a picture without script. */
static void strip__markup(struct strip *st, struct pm_out *o)
{
	const struct pm_flamestrip *s = st->s;
	uint64_t start = pm_timeline__column_start(s->tl, st->first), max = 0;
	uint64_t width = pm_timeline__column_width(s->tl), end = start + width * st->cols;
	double span = s->width - 2.0 * s->xpad, colw = span / st->cols;
	uint32_t y = s->y + BAR_TOP, c;

	for (c = 0; c < st->cols; c++)
		max = st->shown[c] > max ? st->shown[c] : max;
	pm_out__printf(o, "<g id=\"strip\" fg:t0=\"%llu\" fg:tw=\"%llu\" fg:cols=\"%u\"",
		       (unsigned long long)start, (unsigned long long)width, st->cols);
	if (s->clock)
		pm_out__printf(o, " fg:wall=\"%.3f\"", (double)wall_ns(s->clock, start) / 1e6);
	pm_out__printf(o, " fg:bar-top=\"%u\" fg:bar-height=\"%u\">\n<rect id=\"strip-bg\" x=\"%u\" "
		       "y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"rgb(236,236,226)\"/>\n<g id=\"strip-bars\">",
		       y, BAR_HEIGHT, s->xpad, y, span, BAR_HEIGHT);
	for (c = 0; c < st->cols; c++) {
		double h = max ? (double)BAR_HEIGHT * (double)st->shown[c] / (double)max : 0;

		if (st->shown[c])
			pm_out__printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>",
				       s->xpad + c * colw, y + BAR_HEIGHT - h, colw, h);
	}
	pm_out__str(o, "</g>\n");
	strip__lines(st, o, max);
	pm_out__printf(o, "<rect id=\"strip-sel\" class=\"hide\" x=\"%u\" y=\"%u\" width=\"0\" "
		       "height=\"%u\"/>\n<text id=\"strip-start\" x=\"%u\" y=\"%u\">", s->xpad, y,
		       BAR_HEIGHT, s->xpad, s->y + LABEL_Y);
	out_label(st, o, start);
	pm_out__printf(o, "</text>\n<text id=\"strip-end\" x=\"%u\" y=\"%u\">", s->width - s->xpad,
		       s->y + LABEL_Y);
	out_label(st, o, end);
	pm_out__printf(o, "</text>\n<text id=\"strip-info\" x=\"%u\" y=\"%u\">", s->width / 2,
		       s->y + LABEL_Y);
	if (s->clock) {
		pm_out__str(o, "from ");
		out_wall(o, wall_ns(s->clock, start), true);
		pm_out__str(o, ", ");
	}
	pm_out__printf(o, "%.3f s in %u columns of %.3f ms: drag to select a range</text>\n</g>\n",
		       (double)(end - start) / 1e9, st->cols, (double)width / 1e6);
}

static void strip__data(struct strip *st, struct pm_out *o)
{
	const struct pm_flamestrip *s = st->s;
	size_t i, k = 0;
	uint32_t c;

	pm_out__str(o, "<script type=\"application/json\" id=\"strip-data\">{\"p\":[");
	for (i = 0; i < s->nr_frames; i++) {
		if (i)
			pm_out__ch(o, ',');
		pm_out__u64(o, s->frame_parent[i]);
	}
	pm_out__printf(o, "],\"k\":%d,\"rel\":%d,\"c\":[", s->by_samples ? 2 : 3, s->relative);
	for (c = 0; c < st->cols; c++) {
		pm_out__str(o, c ? ",[" : "[");
		for (i = 0; k < st->nr && st->cells[k].col == (int64_t)c; k++) {
			if (st->cells[k].frame == PM_FLAMESTRIP_HIDDEN)
				continue;
			if (i++)
				pm_out__ch(o, ',');
			pm_out__u64(o, st->cells[k].frame);
			pm_out__ch(o, ',');
			pm_out__u64(o, cell_weight(st, &st->cells[k]));
			if (!s->by_samples) {
				pm_out__ch(o, ',');
				pm_out__u64(o, st->cells[k].samples);
			}
		}
		pm_out__ch(o, ']');
	}
	pm_out__str(o, "],\"a\":[");
	for (c = 0; c < st->cols; c++) {
		if (c)
			pm_out__ch(o, ',');
		pm_out__u64(o, st->all[c]);
	}
	pm_out__str(o, "]}</script>\n");
}

int pm_flamestrip__write(struct pm_out *o, const struct pm_flamestrip *s)
{
	struct strip st = { .s = s };
	int err = strip__cells(&st);

	if (!err && !st.nr)
		pm_out__printf(o, "<text id=\"strip-info\" x=\"%u\" y=\"%u\">No samples over time"
			       "</text>\n", s->width / 2, s->y + LABEL_Y);
	if (!err && st.nr)
		err = strip__columns(&st);
	if (!err && st.nr) {
		strip__markup(&st, o);
		strip__data(&st, o);
		pm_out__str(o, pm_flamestrip_script);
	}
	free(st.cells);
	free(st.shown);
	free(st.all);
	return err;
}
