// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "print/profile_print.h"

/* A text printer's state: its output, and where lines and percentages are. */
struct out {
	struct pm_out *o;
	size_t width, line;	/* line: where the current line starts (pm_out's position) */
	struct pm_buf *spans;	/* the percentages' places, or NULL */
};

/* The position of the next byte in the whole output. */
static size_t at(const struct out *o)
{
	return o->o->total + o->o->len;
}

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_out__vprintf(o->o, fmt, ap);
	va_end(ap);
}

static void putn(struct out *o, const char *s, size_t n)
{
	pm_out__mem(o->o, s, n);
}

static void str(struct out *o, const char *s)
{
	pm_out__str(o->o, s);
}

static void spaces(struct out *o, size_t n)
{
	while (n--)
		pm_out__ch(o->o, ' ');
}

/* Names come from the input: control characters would drive the terminal. */
static void put_name(struct out *o, const char *s, size_t max)
{
	size_t n = max == SIZE_MAX ? strlen(s) : strnlen(s, max);

	pm_out__term_str(o->o, s, n, false);
}

static void newline(struct out *o)
{
	struct pm_out *po = o->o;
	const struct pm_color_span *sp;

	/* Only what the buffer still holds can be cut: width needs a memory output. */
	if (o->width && at(o) - o->line > o->width && o->line >= po->total) {
		po->len = o->line - po->total + o->width;
		/* A percentage the cut reaches is not one any more. */
		while (o->spans && o->spans->len &&
		       (sp = (const void *)(o->spans->data + o->spans->len - sizeof(*sp)),
			sp->off + sp->len > at(o)))
			o->spans->len -= sizeof(*sp);
	}
	pm_out__ch(po, '\n');
	o->line = at(o);
}

/*
 * A percentage with fmt (one double, ending in "%%"), its place noted for
 * colour: the number and its sign, not the padding or decorations around.
 */
static void percent(struct out *o, const char *fmt, double pct)
{
	struct pm_color_span sp;
	char tmp[352];
	size_t i, n;
	int r;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	r = snprintf(tmp, sizeof(tmp), fmt, pct);
#pragma GCC diagnostic pop
	if (r < 0)
		return;
	n = (size_t)r < sizeof(tmp) ? (size_t)r : sizeof(tmp) - 1;
	for (i = 0; i < n && (tmp[i] == ' ' || tmp[i] == '-'); i++)
		;
	sp.off = at(o) + i;
	while (i < n && tmp[i] != '%')
		i++;
	sp.len = at(o) + i + 1 - sp.off;
	sp.color = pct >= 5.0 ? PM_COLOR_RED : pct >= 0.5 ? PM_COLOR_GREEN : PM_COLOR_NONE;
	putn(o, tmp, n);
	if (o->spans && i < n && sp.color != PM_COLOR_NONE &&
	    pm_buf__append(o->spans, &sp, sizeof(sp)) && !o->o->err)
		o->o->err = -ENOMEM;
}

/* ---- text ---- */

enum col_kind { COL_CHILDREN, COL_SELF, COL_SAMPLES, COL_KEY };

struct col {
	enum col_kind kind;
	enum pm_profile_key key;
	const char *header;
	size_t width;
	bool right;
};

static size_t digits(int64_t v)
{
	char b[24];

	return (size_t)snprintf(b, sizeof(b), "%" PRId64, v);
}

/* The unresolved symbol column as perf sizes it: "[.] 0x" and 16 digits. */
#define UNRESOLVED_SYM_WIDTH (4 + 2 + 16)
#define UNRESOLVED_DSO_WIDTH 16

static size_t key_width(const struct pm_profile_row *row, enum pm_profile_key k)
{
	switch (k) {
	case PM_PROFILE_KEY_COMM:
		return strlen(row->comm);
	case PM_PROFILE_KEY_PID:
		return digits(row->pid);
	case PM_PROFILE_KEY_TID:
		return digits(row->tid);
	case PM_PROFILE_KEY_CPU:
		return digits(row->cpu) + (row->cpu < 0);
	case PM_PROFILE_KEY_STATE:
		return strlen(pm_profile_state__name(row->state));
	case PM_PROFILE_KEY_DSO:
		return row->frame->dso ? strlen(row->frame->dso) : strlen("[unknown]");
	case PM_PROFILE_KEY_SRCLINE:
		return strlen(row->frame->srcline ? row->frame->srcline : PM_SRCLINE_UNKNOWN);
	default:
		return row->frame->sym ? 4 + strlen(row->frame->sym) : UNRESOLVED_SYM_WIDTH;
	}
}

static const char *const key_headers[PM_PROFILE_KEY__NR] = {
	[PM_PROFILE_KEY_COMM] = "Command",
	[PM_PROFILE_KEY_PID] = "Pid",
	[PM_PROFILE_KEY_TID] = "Tid",
	[PM_PROFILE_KEY_CPU] = "CPU",
	[PM_PROFILE_KEY_DSO] = "Shared Object",
	[PM_PROFILE_KEY_SYM] = "Symbol",
	[PM_PROFILE_KEY_SRCLINE] = "Source:Line",
	[PM_PROFILE_KEY_STATE] = "State",
};

static size_t cols_setup(const struct pm_profile_result *r, const struct pm_profile_print_opts *po,
			 struct col *cols)
{
	bool has_sym = false;
	size_t n = 0, i, j;

	if (r->children) {
		cols[n++] = (struct col){ .kind = COL_CHILDREN, .header = "Children", .width = 8, .right = true };
		cols[n++] = (struct col){ .kind = COL_SELF, .header = "Self", .width = 8, .right = true };
	} else {
		cols[n++] = (struct col){ .kind = COL_SELF, .header = "Overhead", .width = 8, .right = true };
	}
	if (po->show_samples)
		cols[n++] = (struct col){ .kind = COL_SAMPLES, .header = "Samples", .width = 12, .right = true };
	for (i = 0; i < r->nr_keys; i++)
		has_sym |= r->keys[i] == PM_PROFILE_KEY_SYM;
	for (i = 0; i < r->nr_keys; i++) {
		enum pm_profile_key k = r->keys[i];
		struct col *c;

		if (k == PM_PROFILE_KEY_COMM && r->elide_comm)
			continue;
		c = &cols[n++];
		*c = (struct col){
			.kind = COL_KEY, .key = k, .header = key_headers[k],
			.width = strlen(key_headers[k]),
			.right = k == PM_PROFILE_KEY_PID || k == PM_PROFILE_KEY_TID ||
				 k == PM_PROFILE_KEY_CPU,
		};
		/* perf sizes columns over every row, shown or not (hists__calc_col_len). */
		for (j = 0; j < r->nr_rows; j++) {
			size_t w = key_width(&r->rows[j], k);

			/* hists__set_unres_dso_col_len: room for an address. */
			if (k == PM_PROFILE_KEY_DSO && has_sym && !r->rows[j].frame->sym &&
			    w < UNRESOLVED_DSO_WIDTH)
				w = UNRESOLVED_DSO_WIDTH;
			if (w > c->width)
				c->width = w;
		}
	}
	return n;
}

static void cell(struct out *o, const struct pm_profile_result *r, const struct pm_profile_row *row,
		 const struct col *c, bool last)
{
	size_t start = at(o), len;
	char b[48];

	switch (c->kind) {
	case COL_CHILDREN:
		percent(o, " %6.2f%%", pm_profile_result__base(r) ?
			(double)row->children_period * 100.0 / pm_profile_result__base(r) : 0.0);
		break;
	case COL_SELF:
		percent(o, " %6.2f%%", pm_profile_result__base(r) ?
			(double)row->self_period * 100.0 / pm_profile_result__base(r) : 0.0);
		break;
	case COL_SAMPLES:
		put(o, " %11" PRIu64, row->self_samples);
		break;
	default:
		switch (c->key) {
		case PM_PROFILE_KEY_COMM:
			put_name(o, row->comm, c->width);
			break;
		case PM_PROFILE_KEY_PID:
			put(o, "%*d", (int)c->width, row->pid);
			break;
		case PM_PROFILE_KEY_TID:
			put(o, "%*d", (int)c->width, row->tid);
			break;
		case PM_PROFILE_KEY_CPU:
			/* perf's "%*.*d": zero-padded to the width. */
			put(o, "%*.*d", (int)c->width, (int)c->width, row->cpu);
			break;
		case PM_PROFILE_KEY_STATE:
			put_name(o, pm_profile_state__name(row->state), c->width);
			break;
		case PM_PROFILE_KEY_DSO:
			put_name(o, row->frame->dso ? row->frame->dso : "[unknown]", c->width);
			break;
		case PM_PROFILE_KEY_SRCLINE:
			put_name(o, row->frame->srcline ? row->frame->srcline : PM_SRCLINE_UNKNOWN,
				 c->width);
			break;
		default:
			put(o, "[%c] ", row->frame->kernel ? 'k' : '.');
			if (row->frame->sym) {
				put_name(o, row->frame->sym, c->width - 4);
			} else {
				snprintf(b, sizeof(b), "%-#.*" PRIx64, 16, row->frame->addr);
				putn(o, b, strlen(b));
			}
			break;
		}
		break;
	}
	len = at(o) - start;
	/*
	 * Only the symbol and the srcline are left unpadded when last (perf
	 * pads comm and dso in their own snprintf, the others in
	 * hist_entry__snprintf_alignment).
	 */
	if ((!last || c->kind != COL_KEY ||
	     (c->key != PM_PROFILE_KEY_SYM && c->key != PM_PROFILE_KEY_SRCLINE)) && len < c->width)
		spaces(o, c->width - len);
}

/* ui/stdio/hist.c's callchain printing, graph mode. */
struct graph_out {
	struct out *o;
	const struct pm_profile_graph *g;
	uint64_t total;
};

static uint64_t bit(size_t i)
{
	return i < 64 ? 1ULL << i : 0;
}

static void margin(struct graph_out *go, size_t left)
{
	spaces(go->o, 12 + left);
}

static void graph_name(struct graph_out *go, uint32_t n)
{
	const struct pm_profile_frame *f = go->g->nodes[n].frame;

	if (f->sym)
		put_name(go->o, f->sym, SIZE_MAX);
	else
		put(go->o, "%#" PRIx64, f->addr);
	newline(go->o);
}

static void graph_line(struct graph_out *go, size_t depth, uint64_t mask, size_t left)
{
	size_t i;

	margin(go, left);
	for (i = 0; i < depth; i++)
		put(go->o, "%s", mask & bit(i) ? "|          " : "           ");
	newline(go->o);
}

static void ipchain(struct graph_out *go, uint32_t n, size_t depth, uint64_t mask, bool first,
		    size_t left)
{
	size_t i;

	margin(go, left);
	for (i = 0; i < depth; i++) {
		putn(go->o, mask & bit(i) ? "|" : " ", 1);
		if (first && i == depth - 1)
			percent(go->o, "--%.2f%%--", go->total ?
				(double)go->g->nodes[n].period * 100.0 / go->total : 0.0);
		else
			spaces(go->o, 10);
	}
	graph_name(go, n);
}

static void graph_children(struct graph_out *go, uint32_t parent, size_t depth, uint64_t mask,
			   size_t left)
{
	const struct pm_profile_graph_node *nodes = go->g->nodes;
	uint64_t new_mask = mask;
	uint32_t c, x;
	bool first;

	for (c = nodes[parent].first_child; c; c = nodes[c].next_sibling) {
		/* The last child drops its level's pipe, but the separator line keeps it. */
		if (!nodes[c].next_sibling)
			new_mask &= ~bit(depth - 1);
		graph_line(go, depth, mask, left);
		for (x = c, first = true;; x = nodes[x].first_child, first = false) {
			ipchain(go, x, depth, new_mask, first, left);
			if (!nodes[x].run || !nodes[x].first_child)
				break;
		}
		graph_children(go, x, depth + 1, new_mask | bit(depth), left);
	}
}

static void graph_print(struct out *o, const struct pm_profile_result *r,
			const struct pm_profile_row *row)
{
	struct graph_out go = { .o = o, .g = &row->graph, .total = r->total_period };
	const struct pm_profile_graph_node *nodes = row->graph.nodes;
	uint64_t parent = r->children ? row->children_period : row->self_period;
	/* perf skips the row's own function when sorting by symbol first. */
	bool skip = r->keys[0] == PM_PROFILE_KEY_SYM, printed = false;
	size_t start = at(o), left = 0;
	uint32_t root = 0, x, i;

	if (!row->graph.nr)
		return;
	x = nodes[0].first_child;
	/* One path with all the row's period: print it bare (need_percent_display). */
	if (x && !nodes[x].next_sibling && nodes[x].period == parent) {
		for (i = 0;; x = nodes[x].first_child) {
			if (!(i++ == 0 && skip)) {
				if (!printed) {
					margin(&go, left);
					str(o, "|");
					newline(o);
					margin(&go, left);
					str(o, "---");
					left += 3;
					printed = true;
				} else {
					margin(&go, left);
				}
				graph_name(&go, x);
			}
			if (!nodes[x].run || !nodes[x].first_child)
				break;
		}
		root = x;
	}
	graph_children(&go, root, 1, 1, left);
	if (at(o) != start)
		newline(o);
}

static void convert_unit(uint64_t v, uint64_t *out, char *unit)
{
	/* perf's convert_unit(): strictly over 1000 moves to the next unit. */
	static const char units[] = " KMG";
	int i = 0;

	while (i < 3 && v > 1000) {
		v /= 1000;
		i++;
	}
	*out = v;
	*unit = units[i];
}

static void section_text(struct out *o, const struct pm_profile_result *r,
			 const struct pm_profile_print_opts *po)
{
	struct col cols[3 + PM_PROFILE_KEY__NR];
	size_t nr = cols_setup(r, po, cols), i, j;
	uint64_t n;
	char unit;

	convert_unit(r->relative ? r->shown_samples : r->total_samples, &n, &unit);
	put(o, "# Samples: %" PRIu64 "%c of event '", n, unit);
	put_name(o, r->event_name, SIZE_MAX);
	str(o, "'");
	newline(o);
	put(o, "# Event count (approx.): %" PRIu64, pm_profile_result__base(r));
	newline(o);
	str(o, "#");
	newline(o);
	str(o, "# ");
	for (i = 0; i < nr; i++)
		put(o, "%s%*s", i ? "  " : "", cols[i].right ? (int)cols[i].width : -(int)cols[i].width,
		    cols[i].header);
	newline(o);
	str(o, "# ");
	for (i = 0; i < nr; i++) {
		if (i)
			str(o, "  ");
		for (j = 0; j < cols[i].width; j++)
			str(o, ".");
	}
	newline(o);
	str(o, "#");
	newline(o);
	for (i = 0; i < r->nr_shown; i++) {
		for (j = 0; j < nr; j++) {
			str(o, "  ");
			cell(o, r, &r->rows[i], &cols[j], j == nr - 1);
		}
		newline(o);
		if (r->graph)
			graph_print(o, r, &r->rows[i]);
	}
	newline(o);
	newline(o);
}

void pm_profile__print_text(struct pm_out *out, struct pm_profile_result *const *res, size_t nr,
			    const struct pm_profile_print_opts *po)
{
	struct out o = { .o = out, .width = po->width, .spans = po->spans };
	size_t i;

	o.line = at(&o);
	str(&o, "#");
	newline(&o);
	put(&o, "# Total Lost Samples: %" PRIu64, po->lost_samples);
	newline(&o);
	str(&o, "#");
	newline(&o);
	for (i = 0; i < nr; i++)
		section_text(&o, res[i], po);
}

/* ---- JSON ---- */

static void json_frame(struct pm_out *o, const struct pm_profile_frame *f)
{
	pm_out__str(o, "\"sym\":");
	pm_out__json_cstr(o, f->sym);
	pm_out__str(o, ",\"dso\":");
	pm_out__json_cstr(o, f->dso);
	if (!f->sym)
		pm_out__printf(o, ",\"addr\":\"%#" PRIx64 "\"", f->addr);
	pm_out__printf(o, ",\"kernel\":%s", f->kernel ? "true" : "false");
}

static void json_graph(struct pm_out *o, const struct pm_profile_graph *g, uint32_t parent)
{
	uint32_t c;

	pm_out__ch(o, '[');
	for (c = g->nodes[parent].first_child; c; c = g->nodes[c].next_sibling) {
		pm_out__ch(o, '{');
		json_frame(o, g->nodes[c].frame);
		pm_out__printf(o, ",\"period\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"next\":",
			       g->nodes[c].period, g->nodes[c].samples);
		json_graph(o, g, c);
		pm_out__str(o, g->nodes[c].next_sibling ? "}," : "}");
	}
	pm_out__ch(o, ']');
}

static void json_key(struct pm_out *o, const struct pm_profile_row *row, enum pm_profile_key k)
{
	switch (k) {
	case PM_PROFILE_KEY_COMM:
		pm_out__str(o, "\"comm\":");
		pm_out__json_cstr(o, row->comm);
		break;
	case PM_PROFILE_KEY_PID:
		pm_out__printf(o, "\"pid\":%d", row->pid);
		break;
	case PM_PROFILE_KEY_TID:
		pm_out__printf(o, "\"tid\":%d", row->tid);
		break;
	case PM_PROFILE_KEY_CPU:
		pm_out__printf(o, "\"cpu\":%d", row->cpu);
		break;
	case PM_PROFILE_KEY_STATE:
		pm_out__printf(o, "\"state\":\"%s\"", pm_profile_state__name(row->state));
		break;
	case PM_PROFILE_KEY_DSO:
		pm_out__str(o, "\"dso\":");
		pm_out__json_cstr(o, row->frame->dso);
		break;
	case PM_PROFILE_KEY_SRCLINE:
		pm_out__str(o, "\"srcline\":");
		pm_out__json_cstr(o, row->frame->srcline ? row->frame->srcline : PM_SRCLINE_UNKNOWN);
		break;
	default:
		pm_out__str(o, "\"sym\":");
		pm_out__json_cstr(o, row->frame->sym);
		if (!row->frame->sym)
			pm_out__printf(o, ",\"addr\":\"%#" PRIx64 "\"", row->frame->addr);
		pm_out__printf(o, ",\"kernel\":%s", row->frame->kernel ? "true" : "false");
		break;
	}
}

void pm_profile__print_json_row(struct pm_out *o, const struct pm_profile_result *r,
				const struct pm_profile_row *row)
{
	size_t i;

	pm_out__ch(o, '{');
	for (i = 0; i < r->nr_keys; i++) {
		json_key(o, row, r->keys[i]);
		pm_out__ch(o, ',');
	}
	pm_out__printf(o, "\"percent\":%.2f,\"self_period\":%" PRIu64 ",\"self_samples\":%" PRIu64,
		       pm_profile_result__percent(r, row), row->self_period, row->self_samples);
	if (r->children)
		pm_out__printf(o, ",\"children_period\":%" PRIu64 ",\"children_samples\":%" PRIu64,
			       row->children_period, row->children_samples);
	if (r->graph && row->graph.nr) {
		pm_out__str(o, ",\"callchain\":");
		json_graph(o, &row->graph, 0);
	}
	pm_out__ch(o, '}');
}

void pm_profile__print_json(struct pm_out *o, struct pm_profile_result *const *res, size_t nr,
			    const struct pm_profile_print_opts *po)
{
	size_t i, j;

	pm_out__printf(o, "{\"lost_samples\":%" PRIu64 ",\"events\":[", po->lost_samples);
	for (i = 0; i < nr; i++) {
		const struct pm_profile_result *r = res[i];

		pm_out__str(o, i ? ",{\"event\":" : "{\"event\":");
		pm_out__json_cstr(o, r->event_name);
		pm_out__printf(o, ",\"mode\":\"%s\",\"order\":\"%s\",\"sort\":[",
			       r->children ? "children" : "self",
			       r->order == PM_PROFILE_ORDER_CALLER ? "caller" : "callee");
		for (j = 0; j < r->nr_keys; j++)
			pm_out__printf(o, "%s\"%s\"", j ? "," : "", pm_profile_key__name(r->keys[j]));
		pm_out__printf(o, "],\"samples\":%" PRIu64 ",\"period\":%" PRIu64
			       ",\"shown_samples\":%" PRIu64 ",\"shown_period\":%" PRIu64 ",\"rows\":[",
			       r->total_samples, r->total_period, r->shown_samples, r->shown_period);
		for (j = 0; j < r->nr_shown; j++) {
			if (j)
				pm_out__ch(o, ',');
			pm_profile__print_json_row(o, r, &r->rows[j]);
		}
		pm_out__str(o, "]}");
	}
	pm_out__str(o, "]}\n");
}
