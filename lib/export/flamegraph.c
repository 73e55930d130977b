// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/emit.h"
#include "base/file.h"
#include "export/flamegraph.h"
#include "export/flamegraph_int.h"
#include "export/folded.h"
#include "base/hash.h"
#include "base/hashtab.h"
#include "base/intern.h"
#include "symbols/naming.h"
#include "base/sat.h"
#include "base/utf8.h"

#define NONE PM_FLAMESTRIP_NONE
#define HIDDEN PM_FLAMESTRIP_HIDDEN

/* Geometry, in pixels (flamegraph.pl's). */
#define FONT_SIZE 12
#define FONT_WIDTH 0.59		/* average glyph width, in font sizes */
#define FRAME_HEIGHT 16
#define XPAD 10
#define OUT_BUF_SIZE 65536
#define YPAD_TOP 36		/* title and buttons */
#define YPAD_SUBTITLE 20
#define YPAD_BOTTOM 34		/* the details line */

enum kind { KIND_ROOT, KIND_COMM, KIND_USER, KIND_KERNEL, KIND_UNKNOWN };

/* Every name once (frames and comms of both trees of a differential graph). */
struct names {
	struct pm_intern in;
	/* Profile frames (stable pointers) to their name ids. */
	struct pm_hashtab frames;
	struct pm_buf scratch;
	struct pm_buf label;		/* a frame's label, before cleaning */
};

struct fnode {
	uint32_t name, parent;
	uint64_t period, samples;
	enum kind kind;
};

/* The folded stacks of one event, merged: node 0 is "all". */
struct tree {
	struct fnode *n;
	size_t nr, cap;
	struct pm_hashtab tab;	/* parent << 32 | name -> id */
	/* Of the contexts the cpu filter keeps, hidden ones included. */
	uint64_t all_period, all_samples;
	bool by_samples;	/* no period recorded: samples weigh */
	uint64_t denom;		/* the weight percentages are of */
};

/* The drawing of one node. */
struct draw {
	uint64_t off;		/* weight before it, from the root's start */
	uint32_t depth;
	uint32_t base;		/* the same stack in the base tree, or NONE */
};

struct fg {
	const struct pm_flamegraph_opts *o;
	struct names names;
	struct tree t, base;
	uint32_t *kids, *kid_start;	/* children of node i: kids[kid_start[i]..kid_start[i + 1]) */
	uint32_t *order;		/* drawn nodes, depth first */
	size_t nr_order;
	struct draw *draw;
	uint32_t *map;			/* with a time strip: profile node -> tree node, HIDDEN, NONE */
	size_t nr_map;
	uint32_t width, max_depth;
	double scale, max_delta;
	struct pm_out out;
};

/* ---- text ---- */

/* Length of the UTF-8 sequence at s that XML 1.0 allows (no controls but tab, not U+FFFE, U+FFFF), or 0. */
static size_t xml_char_len(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t len = pm_utf8__len(s, n, &c);

	if (!len || (c < 0x20 && c != '\t') || c == 0xfffe || c == 0xffff)
		return 0;
	return len;
}

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/*
 * A name as the folded stacks write it (';' as ':', what a terminal must not see as '?',
 * cut at PM_FOLDED_NAME_MAX), then made text XML can hold: a byte that is
 * not part of valid UTF-8 becomes U+FFFD.
 */
static int name__clean(struct pm_buf *out, struct pm_buf *tmp, const char *s, size_t n)
{
	const unsigned char *p;
	size_t i, len;
	int err;

	tmp->len = 0;
	out->len = 0;
	err = pm_folded__append_name(tmp, s, n);
	for (p = tmp->data, i = 0; !err && i < tmp->len; i += len ? len : 1) {
		len = xml_char_len(p + i, tmp->len - i);
		err = len ? pm_buf__append(out, p + i, len) :
			    pm_buf__append(out, REPLACEMENT, sizeof(REPLACEMENT) - 1);
	}
	return err;
}

/* Text or an attribute value: escaped, and what XML cannot hold replaced. */
void pm_flamegraph__xml(struct pm_out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, len;
	const char *esc;

	while (i < n) {
		len = xml_char_len(p + i, n - i);
		esc = !len ? (p[i] < 0x20 || p[i] == 0x7f ? "?" : REPLACEMENT) :
		      p[i] == '&' ? "&amp;" : p[i] == '<' ? "&lt;" : p[i] == '>' ? "&gt;" :
		      p[i] == '"' ? "&quot;" : p[i] == '\'' ? "&#39;" : NULL;
		if (!esc) {
			i += len;
			continue;
		}
		pm_out__mem(o, p + start, i - start);
		pm_out__str(o, esc);
		start = i += len ? len : 1;
	}
	pm_out__mem(o, p + start, i - start);
}

/* ---- names ---- */

static const char *name_at(const struct names *nm, uint32_t id, size_t *len)
{
	return pm_intern__key(&nm->in, id, len);
}

static void names__init(struct names *nm)
{
	pm_intern__init(&nm->in);
	pm_hashtab__init(&nm->frames, NULL, NULL);
}

static void names__exit(struct names *nm)
{
	pm_buf__exit(&nm->scratch);
	pm_buf__exit(&nm->label);
	pm_intern__exit(&nm->in);
	pm_hashtab__exit(&nm->frames);
}

/* The id of the name s (n bytes, already clean), added if new; NONE on ENOMEM. */
static uint32_t names__intern(struct names *nm, const char *s, size_t n)
{
	uint32_t id;

	return pm_intern__id(&nm->in, s, n, &id, NULL) ? NONE : id;
}

static uint32_t names__clean_intern(struct names *nm, const char *s, size_t n)
{
	struct pm_buf clean = { 0 };
	uint32_t id = NONE;

	if (!name__clean(&clean, &nm->scratch, s, n))
		id = names__intern(nm, (const char *)clean.data, clean.len);
	pm_buf__exit(&clean);
	return id;
}

/* A frame's name in the graph: its label (pm_frame__label), cleaned as folded stacks clean it. */
static uint32_t frame_name(struct names *nm, const struct pm_profile_frame *f)
{
	nm->label.len = 0;
	if (pm_frame__label(&nm->label, f->sym, f->dso_id ? f->dso_id : f->dso, f->in_file, f->addr))
		return NONE;
	return names__clean_intern(nm, (const char *)nm->label.data, nm->label.len);
}

/* Frames repeat along stacks: each is named once. */
static uint32_t frame_name_cached(struct names *nm, const struct pm_profile_frame *f)
{
	uint64_t found;
	uint32_t id;

	if (pm_hashtab__find_int(&nm->frames, (uintptr_t)f, &found))
		return (uint32_t)found;
	id = frame_name(nm, f);
	if (id != NONE && pm_hashtab__insert_int(&nm->frames, (uintptr_t)f, id))
		return NONE;
	return id;
}

/* ---- trees ---- */

/* The child of parent named name: found, or made when make is set. */
static uint32_t tree__child(struct tree *t, uint32_t parent, uint32_t name, enum kind kind,
			    bool make)
{
	uint64_t key = (uint64_t)parent << 32 | name, found;
	uint32_t id;

	if (pm_hashtab__find_int(&t->tab, key, &found))
		return (uint32_t)found;
	if (!make || t->nr >= UINT32_MAX / 2 ||
	    pm_array__grow((void **)&t->n, &t->cap, t->nr, sizeof(*t->n)))
		return NONE;
	id = (uint32_t)t->nr;
	if (pm_hashtab__insert_int(&t->tab, key, id))
		return NONE;
	t->nr++;
	t->n[id] = (struct fnode){ .name = name, .parent = parent, .kind = kind };
	return id;
}

static enum kind frame_kind(const struct pm_profile_frame *f)
{
	return f->kernel ? KIND_KERNEL : f->sym ? KIND_USER : KIND_UNKNOWN;
}

/* Adds profile node id to the tree (map[id]: its tree node, HIDDEN by the filter, or NONE). */
static int tree__add(struct fg *g, struct tree *t, const struct pm_profile *p, uint32_t event,
		     uint32_t id, uint32_t *map, const uint64_t *period, const uint64_t *samples)
{
	struct pm_profile_node n;
	struct pm_profile_ctx c;
	uint32_t name, node;
	bool shown;

	map[id] = NONE;
	pm_profile__node(p, id, &n, &c);
	if (n.frame) {
		if (map[n.parent] >= HIDDEN) {
			map[id] = map[n.parent];
			return 0;
		}
		name = frame_name_cached(&g->names, n.frame);
		node = name == NONE ? NONE :
		       tree__child(t, map[n.parent], name, frame_kind(n.frame), true);
	} else {
		if (c.event != event || !pm_profile_filter__keeps(g->o->filter, &c, &shown))
			return 0;
		pm_add_sat(&t->all_period, period[id]);
		t->all_samples += samples[id];
		if (!shown) {
			map[id] = HIDDEN;
			return 0;
		}
		name = names__clean_intern(&g->names, c.comm ? c.comm : "", c.comm ? strlen(c.comm) : 0);
		node = name == NONE ? NONE : tree__child(t, 0, name, KIND_COMM, true);
		if (node != NONE) {
			pm_add_sat(&t->n[0].period, period[id]);
			t->n[0].samples += samples[id];
		}
	}
	if (node == NONE)
		return -ENOMEM;
	pm_add_sat(&t->n[node].period, period[id]);
	t->n[node].samples += samples[id];
	map[id] = node;
	return 0;
}

static uint64_t weight(const struct tree *t, uint32_t id)
{
	return t->by_samples ? t->n[id].samples : t->n[id].period;
}

static int tree__build(struct fg *g, struct tree *t, const struct pm_profile *p, uint32_t event)
{
	size_t nr = pm_profile__nr_nodes(p), i;
	uint64_t *period = malloc(nr * sizeof(*period)), *samples = malloc(nr * sizeof(*samples));
	uint32_t *map = malloc(nr * sizeof(*map)), all = names__intern(&g->names, "all", 3);
	bool relative = g->o->filter && g->o->filter->relative;
	int err = -ENOMEM;

	if (!period || !samples || !map || all == NONE ||
	    tree__child(t, NONE, all, KIND_ROOT, true) != 0)
		goto out;
	pm_profile__node_totals(p, period, samples);
	map[0] = 0;
	for (i = 1, err = 0; i < nr && !err; i++)
		err = tree__add(g, t, p, event, (uint32_t)i, map, period, samples);
	/* A file without periods (none recorded, all zero) still has samples. */
	t->by_samples = !t->n[0].period;
	t->denom = relative ? weight(t, 0) : t->by_samples ? t->all_samples : t->all_period;
	if (t == &g->t && g->o->timeline) {
		g->map = map;	/* the strip's, to place the samples of each profile node */
		g->nr_map = nr;
		map = NULL;
	}
out:
	free(period);
	free(samples);
	free(map);
	return err;
}

static void tree__exit(struct tree *t)
{
	free(t->n);
	pm_hashtab__exit(&t->tab);
}

/* ---- layout ---- */

static int name_cmp(const void *a, const void *b, void *arg)
{
	const struct fg *g = arg;
	uint32_t x = g->t.n[*(const uint32_t *)a].name, y = g->t.n[*(const uint32_t *)b].name;
	size_t lx, ly;
	const char *nx = name_at(&g->names, x, &lx), *ny = name_at(&g->names, y, &ly);
	int c = memcmp(nx, ny, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/* Children lists, each in byte order of the names (flamegraph.pl sorts its stacks so). */
static int fg__children(struct fg *g)
{
	size_t nr = g->t.nr, i;
	uint32_t *fill;

	g->kid_start = calloc(nr + 1, sizeof(*g->kid_start));
	g->kids = malloc(nr * sizeof(*g->kids));
	fill = malloc(nr * sizeof(*fill));
	if (!g->kid_start || !g->kids || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 1; i < nr; i++)
		g->kid_start[g->t.n[i].parent + 1]++;
	for (i = 0; i < nr; i++)
		g->kid_start[i + 1] += g->kid_start[i];
	memcpy(fill, g->kid_start, nr * sizeof(*fill));
	for (i = 1; i < nr; i++)
		g->kids[fill[g->t.n[i].parent]++] = (uint32_t)i;
	free(fill);
	for (i = 0; i < nr; i++)
		qsort_r(g->kids + g->kid_start[i], g->kid_start[i + 1] - g->kid_start[i],
			sizeof(*g->kids), name_cmp, g);
	return 0;
}

/* The share of the total a node has, against its stack's in the base: its sign exact. */
static int delta_sign(const struct fg *g, uint32_t id, double *delta)
{
	uint64_t a = weight(&g->t, id), d = g->t.denom, e = g->base.denom;
	uint64_t b = g->draw[id].base == NONE ? 0 : weight(&g->base, g->draw[id].base);
	unsigned __int128 l = (unsigned __int128)a * e, r = (unsigned __int128)b * d;

	*delta = (d ? 100.0 * (double)a / (double)d : 0) - (e ? 100.0 * (double)b / (double)e : 0);
	return (l > r) - (l < r);
}

/*
 * Depth first from the root: offsets, the drawn nodes in order (a node
 * narrower than min_width is left out with its subtree), their depth, and
 * their stack in the base.
 */
static int fg__layout(struct fg *g)
{
	size_t nr = g->t.nr, sp = 0, k;
	uint32_t *stack = malloc(nr * sizeof(*stack)), id, c;
	uint64_t off;
	double d;

	g->order = malloc(nr * sizeof(*g->order));
	g->draw = calloc(nr, sizeof(*g->draw));
	if (!stack || !g->order || !g->draw) {
		free(stack);
		return -ENOMEM;
	}
	g->draw[0] = (struct draw){ .base = g->o->base ? 0 : NONE };
	stack[sp++] = 0;
	while (sp) {
		id = stack[--sp];
		g->order[g->nr_order++] = id;
		if (g->draw[id].depth > g->max_depth)
			g->max_depth = g->draw[id].depth;
		if (g->o->base && delta_sign(g, id, &d) && (d < 0 ? -d : d) > g->max_delta)
			g->max_delta = (d < 0 ? -d : d);
		off = g->draw[id].off;
		for (k = g->kid_start[id]; k < g->kid_start[id + 1]; k++) {
			c = g->kids[k];
			g->draw[c].off = off;
			off += weight(&g->t, c);
		}
		/* Pushed last child first: popped in name order. */
		for (k = g->kid_start[id + 1]; k-- > g->kid_start[id];) {
			c = g->kids[k];
			if ((double)weight(&g->t, c) * g->scale < g->o->min_width)
				continue;
			g->draw[c].depth = g->draw[id].depth + 1;
			g->draw[c].base = g->draw[id].base == NONE ? NONE :
				tree__child(&g->base, g->draw[id].base, g->t.n[c].name,
					    KIND_USER, false);
			stack[sp++] = c;
		}
	}
	free(stack);
	return 0;
}

/* ---- colours ---- */

struct rgb {
	unsigned r, g, b;
};

/* Deterministic per name (an unseeded hash), so that two graphs compare. */
static struct rgb name_color(const char *s, size_t n, enum kind kind)
{
	uint64_t h = pm_hash__stable(s, n);
	double v1, v2, v3;

	v1 = (double)(h & 0xff) / 255;
	v2 = (double)(h >> 8 & 0xff) / 255;
	v3 = (double)(h >> 16 & 0xff) / 255;
	switch (kind) {
	case KIND_USER:		/* red to yellow (flamegraph.pl's "hot") */
		return (struct rgb){ 205 + (unsigned)(50 * v3), (unsigned)(230 * v1), (unsigned)(55 * v2) };
	case KIND_KERNEL:	/* blue-green */
		return (struct rgb){ 50 + (unsigned)(60 * v1), 160 + (unsigned)(60 * v2),
				     180 + (unsigned)(60 * v2) };
	case KIND_UNKNOWN:	/* grey */
		return (struct rgb){ 160 + (unsigned)(50 * v1), 160 + (unsigned)(50 * v1),
				     160 + (unsigned)(50 * v1) };
	default:		/* the root and the commands: sand */
		return (struct rgb){ 210 + (unsigned)(30 * v1), 200 + (unsigned)(30 * v1),
				     150 + (unsigned)(30 * v1) };
	}
}

/*
 * Off-CPU graphs: the on-CPU scheme's channels swapped, so neither passes
 * for the other: kernel blue-greens turn amber, user reds and yellows turn
 * blue, lightened so that black names stay readable.
 */
static struct rgb offcpu_color(struct rgb c, enum kind kind)
{
	if (kind == KIND_USER)
		return (struct rgb){ 100 + c.b, 110 + c.g / 2, c.r };
	return (struct rgb){ c.b, c.g, c.r };
}

#define NEUTRAL ((struct rgb){ 220, 220, 220 })

/* Red grew, blue shrank: the larger the change (against the largest), the deeper. */
static struct rgb diff_color(const struct fg *g, uint32_t id)
{
	double d, t;
	unsigned c;
	int sign = delta_sign(g, id, &d);

	if (!sign || !g->max_delta)
		return NEUTRAL;
	t = (d < 0 ? -d : d) / g->max_delta;
	c = 40 + (unsigned)(170 * (1 - (t > 1 ? 1 : t)) + 0.5);
	return sign > 0 ? (struct rgb){ 255, c, c } : (struct rgb){ c, c, 255 };
}

/* ---- the document ---- */

static uint32_t frame_y(const struct fg *g, uint32_t depth, uint32_t height, uint32_t top)
{
	return g->o->inverted ? top + depth * FRAME_HEIGHT :
				height - YPAD_BOTTOM - (depth + 1) * FRAME_HEIGHT;
}

static void pct(char *b, size_t n, uint64_t w, uint64_t denom)
{
	snprintf(b, n, "%.2f%%", denom ? 100.0 * (double)w / (double)denom : 0.0);
}

/* The text a frame of w pixels shows: the name, cut to fit with "..", or nothing. */
static void emit_label(struct fg *g, const char *name, size_t len, double x, double w, uint32_t y)
{
	size_t fit = (size_t)(w / (FONT_SIZE * FONT_WIDTH)), chars = 0, i, cut = len;

	if (fit < 3)
		return;
	for (i = 0; i < len; i++) {
		if (((unsigned char)name[i] & 0xc0) == 0x80)
			continue;
		if (chars == fit - 2)
			cut = i;
		chars++;
	}
	pm_out__printf(&g->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 11.5);
	if (chars <= fit) {
		pm_flamegraph__xml(&g->out, name, len);
	} else {
		pm_flamegraph__xml(&g->out, name, cut);
		pm_out__str(&g->out, "..");
	}
	pm_out__str(&g->out, "</text>");
}

static void emit_frame(struct fg *g, uint32_t id, uint32_t height, uint32_t top)
{
	const struct fnode *n = &g->t.n[id];
	size_t len;
	const char *name = name_at(&g->names, n->name, &len);
	double x = XPAD + (double)g->draw[id].off * g->scale, w = (double)weight(&g->t, id) * g->scale;
	uint32_t y = frame_y(g, g->draw[id].depth, height, top);
	char now[32], was[32];
	struct rgb c;
	double d;

	if (id == 0) {
		x = XPAD;	/* the root spans the width, whatever rounding says */
		w = g->width - 2 * XPAD;
	}
	pct(now, sizeof(now), weight(&g->t, id), g->t.denom);
	pm_out__str(&g->out, "<g><title>");
	pm_flamegraph__xml(&g->out, name, len);
	pm_out__printf(&g->out, " (%llu samples, %s", (unsigned long long)n->samples, now);
	if (g->o->base) {
		pct(was, sizeof(was), g->draw[id].base == NONE ? 0 :
		    weight(&g->base, g->draw[id].base), g->base.denom);
		delta_sign(g, id, &d);
		pm_out__printf(&g->out, ", base %s, %+.2f points", was, d);
		c = diff_color(g, id);
	} else {
		c = name_color(name, len, n->kind);
		if (g->o->offcpu)
			c = offcpu_color(c, n->kind);
	}
	pm_out__printf(&g->out, ")</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		 "fill=\"rgb(%u,%u,%u)\" fg:x=\"%llu\" fg:w=\"%llu\"/>", x, y, w, FRAME_HEIGHT - 1,
		 c.r, c.g, c.b, (unsigned long long)g->draw[id].off,
		 (unsigned long long)weight(&g->t, id));
	emit_label(g, name, len, x, w, y);
	pm_out__str(&g->out, "</g>\n");
}

/*
 * The time strip: which drawn frame the samples of each profile node
 * widen (their own frame, else the nearest drawn caller: a frame left out
 * keeps its time in its caller), and each frame's parent.
 */
static int fg__strip(struct fg *g, uint32_t y)
{
	size_t nr = g->nr_map, i;
	uint32_t *pos = malloc(g->t.nr * sizeof(*pos)), *parent = malloc(g->nr_order * sizeof(*parent));
	uint32_t *node_frame = malloc(nr * sizeof(*node_frame));
	const char **name = malloc(g->nr_order * sizeof(*name));
	int err = -ENOMEM;

	if (pos && parent && node_frame && name) {
		for (i = 0; i < g->t.nr; i++)
			pos[i] = NONE;
		for (i = 0; i < g->nr_order; i++)
			pos[g->order[i]] = (uint32_t)i;
		/* Parents are numbered before their children. */
		for (i = 1; i < g->t.nr; i++)
			if (pos[i] == NONE)
				pos[i] = pos[g->t.n[i].parent];
		for (i = 0; i < g->nr_order; i++) {
			parent[i] = g->order[i] ? pos[g->t.n[g->order[i]].parent] : 0;
			name[i] = name_at(&g->names, g->t.n[g->order[i]].name, NULL);
		}
		for (i = 0; i < nr; i++)
			node_frame[i] = g->map[i] >= HIDDEN ? g->map[i] : pos[g->map[i]];
		err = pm_flamestrip__write(&g->out, &(struct pm_flamestrip){
			.tl = g->o->timeline, .clock = g->o->clock, .nr_frames = g->nr_order,
			.frame_parent = parent, .frame_name = name, .nr_nodes = nr,
			.node_frame = node_frame,
			.by_samples = g->t.by_samples, .relative = g->o->filter && g->o->filter->relative,
			.width = g->width, .xpad = XPAD, .y = y });
	}
	free(pos);
	free(parent);
	free(node_frame);
	free(name);
	return err;
}

static void emit_document(struct fg *g)
{
	const struct pm_flamegraph_opts *o = g->o;
	uint32_t strip = YPAD_TOP + (o->subtitle ? YPAD_SUBTITLE : 0);
	uint32_t top = strip + (o->timeline ? PM_FLAMESTRIP_HEIGHT : 0);
	uint32_t height = top + (g->max_depth + 1) * FRAME_HEIGHT + YPAD_BOTTOM, w = g->width;
	const char *title = o->title ? o->title :
			    o->base ? "Differential Flame Graph" :
			    o->offcpu ? (o->inverted ? "Off-CPU Icicle Graph" : "Off-CPU Flame Graph") :
			    o->inverted ? "Icicle Graph" : "Flame Graph";
	size_t i;
	int err;

	pm_out__printf(&g->out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		 "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		 "xmlns=\"http://www.w3.org/2000/svg\" ", w, height, w, height);
	pm_out__printf(&g->out, "xmlns:fg=\"urn:x-pmrec:flamegraph\" onload=\"init(evt)\" "
		 "fg:total=\"%llu\" fg:inverted=\"%d\" fg:xpad=\"%u\" fg:span=\"%u\" "
		 "fg:diff=\"%d\">\n", (unsigned long long)g->t.denom, o->inverted, XPAD,
		 w - 2 * XPAD, !!o->base);
	pm_out__str(&g->out, "<!-- drawn by pmrec report from the profile of a perf.data file -->\n");
	pm_out__str(&g->out, pm_flamegraph_style);
	pm_out__str(&g->out, pm_flamegraph_script);
	pm_out__printf(&g->out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		 "fill=\"rgb(248,248,240)\"/>\n", w, height);
	pm_out__printf(&g->out, "<text id=\"title\" x=\"%u\" y=\"24\">", w / 2);
	pm_flamegraph__xml(&g->out, title, strlen(title));
	pm_out__str(&g->out, "</text>\n");
	if (o->subtitle) {
		pm_out__printf(&g->out, "<text id=\"subtitle\" x=\"%u\" y=\"%u\">", w / 2, 24 + YPAD_SUBTITLE);
		pm_flamegraph__xml(&g->out, o->subtitle, strlen(o->subtitle));
		pm_out__str(&g->out, "</text>\n");
	}
	pm_out__printf(&g->out, "<text id=\"unzoom\" class=\"hide\" x=\"%u\" y=\"24\">Reset Zoom</text>\n"
		 "<text id=\"search\" x=\"%u\" y=\"24\">Search</text>\n"
		 "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n"
		 "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		 XPAD, w - XPAD, XPAD, height - YPAD_BOTTOM / 2, w - XPAD,
		 height - YPAD_BOTTOM / 2);
	if (!g->t.n[0].samples)
		pm_out__printf(&g->out, "<text id=\"empty\" x=\"%u\" y=\"%u\">No samples</text>\n", w / 2,
			 top + FRAME_HEIGHT * 2);
	if (o->timeline && (err = fg__strip(g, strip)) && !g->out.err)
		g->out.err = err;
	pm_out__str(&g->out, "<g id=\"frames\">\n");
	for (i = 0; i < g->nr_order; i++)
		emit_frame(g, g->order[i], height, top);
	pm_out__str(&g->out, "</g>\n</svg>\n");
}

static void fg__exit(struct fg *g)
{
	names__exit(&g->names);
	tree__exit(&g->t);
	tree__exit(&g->base);
	free(g->kids);
	free(g->kid_start);
	free(g->order);
	free(g->draw);
	free(g->map);
	pm_out__exit(&g->out);
}

int pm_flamegraph__write(const struct pm_profile *p, const struct pm_flamegraph_opts *o,
			 pm_write_fn *write, void *arg, struct pm_flamegraph_stats *st)
{
	struct fg g = { .o = o };
	uint64_t root;
	int err;

	g.width = o->width ? o->width : PM_FLAMEGRAPH_WIDTH;
	if (o->event >= pm_profile__nr_events(p) || g.width < PM_FLAMEGRAPH_WIDTH_MIN ||
	    g.width > PM_FLAMEGRAPH_WIDTH_MAX || !(o->min_width >= 0) || o->min_width > g.width ||
	    (o->base && o->base_event >= pm_profile__nr_events(o->base)))
		return -EINVAL;
	names__init(&g.names);
	pm_hashtab__init(&g.t.tab, NULL, NULL);
	pm_hashtab__init(&g.base.tab, NULL, NULL);
	err = tree__build(&g, &g.t, p, o->event);
	if (!err && o->base)
		err = tree__build(&g, &g.base, o->base, o->base_event);
	if (!err)
		err = fg__children(&g);
	if (!err) {
		root = weight(&g.t, 0);
		g.scale = root ? (double)(g.width - 2 * XPAD) / (double)root : 0;
		err = fg__layout(&g);
	}
	if (!err)
		err = pm_out__init(&g.out, write, arg, OUT_BUF_SIZE);
	if (!err) {
		emit_document(&g);
		pm_out__flush(&g.out);
		err = g.out.err;
	}
	if (!err && st)
		*st = (struct pm_flamegraph_stats){
			.frames = g.nr_order, .omitted = g.t.nr - g.nr_order,
			.samples = g.t.n[0].samples, .period = g.t.n[0].period,
			.bytes = g.out.total,
		};
	fg__exit(&g);
	return err;
}
