// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec top's interactive view: a header, then report's table of the last
 * interval (pm_profile__print_text, cut to the screen), drawn with ncurses.
 * Signals arrive through top.c's signalfd, never as handlers, so the
 * terminal is given back on every way out by top_view__delete.
 */
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/buf.h"
#include "builtin.h"
#include "print/profile_print.h"
#include "top.h"

enum view_mode { VIEW_ALL, VIEW_KERNEL, VIEW_USER };

struct top_view {
	struct top *t;
	SCREEN *screen;
	size_t sort;			/* 0: --sort, then the presets */
	enum view_mode mode;
	char filter[64];		/* rows whose command or symbol holds it */
	char typed[64];			/* the filter being typed */
	bool typing;
	bool graph;			/* the selected row's call graph */
	size_t selected, first;		/* row under the cursor, first row on screen */
	size_t scroll;			/* first line of the call graph on screen */
	size_t nr_rows;			/* rows of the last table drawn */
	struct pm_out text;
};

/* What s cycles through after the --sort keys. */
static const struct {
	enum pm_profile_key keys[3];
	size_t nr;
} presets[] = {
	{ { PM_PROFILE_KEY_SYM }, 1 },
	{ { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM }, 2 },
	{ { PM_PROFILE_KEY_COMM }, 1 },
	{ { PM_PROFILE_KEY_PID, PM_PROFILE_KEY_COMM }, 2 },
	{ { PM_PROFILE_KEY_DSO }, 1 },
};

#define NR_SORTS (1 + sizeof(presets) / sizeof(presets[0]))

static const enum pm_profile_key default_keys[] = {
	PM_PROFILE_KEY_COMM, PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM,
};

static void view__keys(const struct top_view *v, const enum pm_profile_key **keys, size_t *nr)
{
	const struct top_opts *o = v->t->o;

	if (v->sort) {
		*keys = presets[v->sort - 1].keys;
		*nr = presets[v->sort - 1].nr;
	} else if (o->nr_keys) {
		*keys = o->keys;
		*nr = o->nr_keys;
	} else {
		*keys = default_keys;
		*nr = sizeof(default_keys) / sizeof(default_keys[0]);
	}
}

/*
 * Whether the view shows row.  A row's frame and command mean something
 * only when a key names them (dso or sym, comm): k and u keep rows
 * without a frame, the filter looks at what the keys name.
 */
static bool view__keeps(const struct top_view *v, const struct pm_profile_result *res,
			const struct pm_profile_row *row)
{
	const struct pm_profile_frame *f = row->frame;
	const char *comm = row->comm;
	bool framed = false, named = false;
	size_t i;

	for (i = 0; i < res->nr_keys; i++) {
		framed |= res->keys[i] == PM_PROFILE_KEY_DSO || res->keys[i] == PM_PROFILE_KEY_SYM;
		named |= res->keys[i] == PM_PROFILE_KEY_COMM;
	}
	if (!framed)
		f = NULL;
	if (!named)
		comm = NULL;
	if (v->mode != VIEW_ALL && f && f->kernel != (v->mode == VIEW_KERNEL))
		return false;
	if (!v->filter[0])
		return true;
	return (comm && strstr(comm, v->filter)) ||
	       (f && f->sym && strstr(f->sym, v->filter));
}

/*
 * The rows the view keeps, as report prints them, into v->text: a copy of
 * the result whose rows are those kept (only the selected one, with its
 * call graph, in the graph view).
 */
static int view__table(struct top_view *v, struct pm_profile_result *res)
{
	struct pm_profile_print_opts po = { .width = (size_t)COLS };
	struct pm_profile_result shown = *res;
	struct pm_profile_row *rows;
	size_t i, n = 0;

	rows = calloc(res->nr_shown ? res->nr_shown : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < res->nr_shown; i++)
		if (view__keeps(v, res, &res->rows[i]))
			rows[n++] = res->rows[i];
	v->nr_rows = n;
	if (v->selected >= n)
		v->selected = n ? n - 1 : 0;
	if (v->graph && n) {
		rows[0] = rows[v->selected];
		n = 1;
	}
	shown.rows = rows;
	shown.nr_rows = shown.nr_shown = n;
	v->text.len = 0;
	pm_profile__print_text(&v->text, &(struct pm_profile_result *){ &shown }, 1, &po);
	free(rows);
	return v->text.err;
}

/* A line at y, cut to the screen's width: a longer one would wrap onto the next. */
__attribute__((format(printf, 2, 3)))
static void view__line(int y, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* The last column of the last line would scroll the screen. */
	mvaddnstr(y, 0, line, y == LINES - 1 ? COLS - 1 : COLS);
}

static void view__header(struct top_view *v)
{
	const struct top *t = v->t;
	const struct pm_live_interval *iv = &t->iv;
	const enum pm_profile_key *keys;
	char sort[64] = "";
	size_t nr, i;

	view__keys(v, &keys, &nr);
	for (i = 0; i < nr; i++) {
		strcat(sort, i ? "," : "");
		strcat(sort, pm_profile_key__name(keys[i]));
	}
	attron(A_BOLD);
	view__line(0, "pmrec top: interval %llu, %.0f samples/s, %llu lost, %llu unprocessed, "
		 "%zu CPUs, event %s", (unsigned long long)iv->number,
		 iv->seconds > 0 ? (double)iv->counts.samples / iv->seconds : 0.0,
		 (unsigned long long)iv->counts.lost, (unsigned long long)iv->counts.unprocessed,
		 t->rec.cpus.nr, t->o->rec.evlist.events[0].name);
	attroff(A_BOLD);
	view__line(1, "sort %s%s%s%s%s%s%s", sort,
		 v->mode == VIEW_KERNEL ? ", kernel only" : v->mode == VIEW_USER ? ", user only" : "",
		 v->filter[0] ? ", filter '" : "", v->filter, v->filter[0] ? "'" : "",
		 t->frozen ? ", FROZEN" : "", t->o->decay ? ", decaying" : "");
	if (v->typing)
		view__line(LINES - 1, "filter: %s", v->typed);
	else
		view__line(LINES - 1, "q quit  s sort  k kernel  u user  / filter  f freeze  z zero%s",
			 t->o->rec.callchain ? "  Enter call graph" : "");
}

/* The table's lines under the header: its column titles, then the rows from v->first. */
static void view__rows(struct top_view *v)
{
	const char *p = v->text.buf, *end = p + v->text.len;
	int y = 3, last = LINES - 2;
	size_t row = 0, line = 0;

	if (v->selected < v->first)
		v->first = v->selected;
	if (last >= 4 && v->selected >= v->first + (size_t)(last - 3))
		v->first = v->selected - (size_t)(last - 4);
	while (p < end && y <= last) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int len = (int)((nl ? nl : end) - p);

		if (!strncmp(p, "# Overhead", 10)) {
			attron(A_BOLD);
			view__line(2, "%.*s", len - 1, p + 1);
			attroff(A_BOLD);
		} else if (v->graph) {
			if (len && p[0] != '#' && line++ >= v->scroll)
				view__line(y++, "%.*s", len, p);
		} else if (len && p[0] != '#') {
			if (row >= v->first) {
				if (row == v->selected)
					attron(A_REVERSE);
				view__line(y++, "%-*.*s", COLS, len, p);
				attroff(A_REVERSE);
			}
			row++;
		}
		p = nl ? nl + 1 : end;
	}
}

void top_view__draw(struct top_view *v)
{
	struct top *t = v->t;
	struct pm_profile_result *res = NULL;
	const enum pm_profile_key *keys;
	size_t nr;
	int err = 0;

	erase();
	view__header(v);
	if (!t->profile) {
		view__line(3, "waiting for the first interval (%.2f s)", t->o->delay);
	} else {
		view__keys(v, &keys, &nr);
		err = top__query(t, keys, nr, v->graph && t->o->rec.callchain, &res);
		if (!err)
			err = view__table(v, res);
		if (!err)
			view__rows(v);
		else
			view__line(3, "cannot build the table: %s", strerror(-err));
		pm_profile_result__delete(res);
	}
	refresh();
}

void top_view__resize(struct top_view *v)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	/* What the terminal kept of the old size is not what curses thinks it shows. */
	clearok(curscr, TRUE);
	top_view__draw(v);
}

/* A key while the filter is typed: Enter applies it, Escape drops it. */
static void view__type(struct top_view *v, int ch)
{
	size_t len = strlen(v->typed);

	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		memcpy(v->filter, v->typed, sizeof(v->filter));
		v->typing = false;
		v->selected = v->first = 0;
	} else if (ch == 27) {
		v->typing = false;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len) {
		v->typed[len - 1] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(v->typed)) {
		v->typed[len] = (char)ch;
		v->typed[len + 1] = '\0';
	}
}

/* Up, Down, Page Up, Page Down: the selected row, or the call graph's first line. */
static bool view__move(struct top_view *v, int ch)
{
	size_t page = LINES > 6 ? (size_t)LINES - 5 : 1;
	size_t *at = v->graph ? &v->scroll : &v->selected;
	size_t max = v->graph ? SIZE_MAX : (v->nr_rows ? v->nr_rows - 1 : 0);

	switch (ch) {
	case KEY_UP:
		*at -= *at > 0;
		return true;
	case KEY_DOWN:
		*at += *at < max;
		return true;
	case KEY_PPAGE:
		*at = *at > page ? *at - page : 0;
		return true;
	case KEY_NPAGE:
		*at = max - *at > page ? *at + page : max;
		return true;
	default:
		return false;
	}
}

int top_view__keys(struct top_view *v)
{
	struct top *t = v->t;
	int ch;

	while ((ch = getch()) != ERR) {
		if (v->typing) {
			view__type(v, ch);
			continue;
		}
		if (view__move(v, ch))
			continue;
		if (v->graph) {
			/* Any other key leaves the call graph; q leaves it, not pmrec. */
			v->graph = false;
			continue;
		}
		switch (ch) {
		case 'q':
			return 1;
		case 's':
			v->sort = (v->sort + 1) % NR_SORTS;
			v->selected = v->first = 0;
			break;
		case 'k':
			v->mode = v->mode == VIEW_KERNEL ? VIEW_ALL : VIEW_KERNEL;
			break;
		case 'u':
			v->mode = v->mode == VIEW_USER ? VIEW_ALL : VIEW_USER;
			break;
		case '/':
			v->typing = true;
			v->typed[0] = '\0';
			break;
		case 'f':
			t->frozen = !t->frozen;
			break;
		case 'z':
			pm_live__zero(t->live);
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			v->graph = t->o->rec.callchain && t->profile;
			v->scroll = 0;
			break;
		default:
			break;
		}
	}
	top_view__draw(v);
	return 0;
}

struct top_view *top_view__new(struct top *t)
{
	struct top_view *v = calloc(1, sizeof(*v));

	if (!v) {
		error("out of memory");
		return NULL;
	}
	v->t = t;
	v->screen = newterm(NULL, stdout, stdin);
	if (!v->screen) {
		error("cannot drive the terminal (TERM=%s); use --batch",
		      getenv("TERM") ? getenv("TERM") : "");
		free(v);
		return NULL;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	return v;
}

void top_view__delete(struct top_view *v)
{
	if (!v)
		return;
	endwin();
	delscreen(v->screen);
	pm_out__exit(&v->text);
	free(v);
}
