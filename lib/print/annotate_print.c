// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "print/annotate_print.h"
#include "base/file.h"

/* The hottest source lines the summary shows. */
#define SUMMARY_LINES 10

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Source text as it is, tabs too, but no control reaches the terminal. */
static void print__text(struct pm_out *o, const char *s, size_t n)
{
	pm_out__term_str(o, s, n, true);
}

/* A name from the recording or its files (symbol, path) on a terminal. */
static void print__name(struct pm_out *o, const char *s)
{
	pm_out__term_str(o, s, strlen(s), false);
}

/* An instruction's operands; a jump inside the function as objdump shows it. */
static void print__operands(struct pm_out *o, const struct pm_annotation *a,
			    const struct pm_annotate_insn *in)
{
	if (in->jump && in->target - a->start < a->size) {
		pm_out__printf(o, "%" PRIx64 " <", in->target);
		print__name(o, a->sym);
		pm_out__printf(o, "+0x%" PRIx64 ">", in->target - a->start);
	}
	else if (in->jump)
		pm_out__printf(o, "%" PRIx64, in->target);
	else
		pm_out__str(o, pm_annotation__operands(a, in));
}

static void print__summary(struct pm_annotate_print *p, const struct pm_annotation *a)
{
	size_t i;

	pm_out__str(p->out, "\nSorted summary for file ");
	print__name(p->out, a->func->dso);
	pm_out__str(p->out, "\n----------------------------------------------\n\n");
	for (i = 0; i < a->nr_lines && i < SUMMARY_LINES; i++) {
		pm_out__printf(p->out, "   %6.2f ", percent(a->lines[i].period, a->period));
		print__name(p->out, pm_path__base(a->lines[i].file));
		pm_out__printf(p->out, ":%" PRIu32 "\n", a->lines[i].line);
	}
}

/* A source line above the instructions it made: its text, else where it is. */
static void print__source(struct pm_annotate_print *p, const struct pm_annotation *a,
			  const char *file, uint32_t line)
{
	const char *text;
	size_t len;

	pm_out__printf(p->out, "         : %-6" PRIu32 " ", line);
	if (p->sources && !pm_sources__line(p->sources, &a->owner, file, line, &text, &len))
		print__text(p->out, text, len);
	else {
		print__name(p->out, pm_path__base(file));
		pm_out__printf(p->out, ":%" PRIu32, line);
	}
	pm_out__ch(p->out, '\n');
}

/* "name():", the function a run of instructions is in. */
static void print__func_line(struct pm_out *o, const char *name)
{
	pm_out__str(o, "         : ");
	print__name(o, name);
	pm_out__str(o, "():\n");
}

static void print__text_one(struct pm_annotate_print *p, const struct pm_annotation *a)
{
	const char *inlined = NULL, *file = NULL;
	uint32_t line = 0;
	int n;
	size_t i;

	if (a->nr_lines)
		print__summary(p, a);
	pm_out__ch(p->out, '\n');
	n = (int)strlen(pm_path__base(a->func->dso)) + (int)strlen(p->event) + 80;
	pm_out__str(p->out, " Percent |\tSource code & Disassembly of ");
	print__name(p->out, pm_path__base(a->func->dso));
	pm_out__str(p->out, " for ");
	print__name(p->out, p->event);
	pm_out__printf(p->out, " (%" PRIu64 " samples, percent: local period)\n", a->samples);
	while (n-- > 0)
		pm_out__ch(p->out, '-');
	pm_out__printf(p->out, "\n         :\n         : %016" PRIx64 " <", a->start);
	print__name(p->out, a->sym);
	pm_out__str(p->out, ">:\n");
	if (a->has_lines)
		print__func_line(p->out, a->sym);
	/* Kernel code comes from kcore; no vmlinux with debug info is read for its lines. */
	if (a->func->kernel)
		pm_out__str(p->out, "         : (kernel code from kcore: no source lines)\n");
	for (i = 0; i < a->nr_insns; i++) {
		const struct pm_annotate_insn *in = &a->insns[i];

		if (in->inlined != inlined && in->file) {
			print__func_line(p->out, in->inlined ? in->inlined : a->sym);
			inlined = in->inlined;
		}
		if (in->file && (in->line != line || file != in->file))
			print__source(p, a, in->file, in->line);
		if (in->file) {
			file = in->file;
			line = in->line;
		}
		pm_out__printf(p->out, "%8.2f :   %" PRIx64 ":   ", percent(in->period, a->period),
			       in->addr);
		if (*pm_annotation__operands(a, in) || in->jump) {
			pm_out__printf(p->out, "%-6s ", pm_annotation__mnemonic(a, in));
			print__operands(p->out, a, in);
		} else {
			pm_out__str(p->out, pm_annotation__mnemonic(a, in));
		}
		pm_out__ch(p->out, '\n');
	}
}

static void json__str(struct pm_out *o, const char *key, const char *s)
{
	pm_out__printf(o, "\"%s\":", key);
	pm_out__json_str(o, s, strlen(s));
}

static void print__json_lines(struct pm_annotate_print *p, const struct pm_annotation *a)
{
	const char *text;
	size_t i, len;

	pm_out__str(p->out, ",\"lines\":[");
	for (i = 0; i < a->nr_lines; i++) {
		const struct pm_annotate_line *l = &a->lines[i];

		pm_out__str(p->out, i ? ",{" : "{");
		json__str(p->out, "file", l->file);
		pm_out__printf(p->out, ",\"line\":%" PRIu32 ",\"samples\":%" PRIu64
			       ",\"period\":%" PRIu64 ",\"percent\":%.2f", l->line, l->samples,
			       l->period, percent(l->period, a->period));
		if (p->sources &&
		    !pm_sources__line(p->sources, &a->owner, l->file, l->line, &text, &len)) {
			pm_out__str(p->out, ",\"text\":");
			pm_out__json_str(p->out, text, len);
		}
		pm_out__ch(p->out, '}');
	}
	pm_out__ch(p->out, ']');
}

static void print__json_insn(struct pm_annotate_print *p, const struct pm_annotation *a,
			     const struct pm_annotate_insn *in)
{
	pm_out__printf(p->out, "{\"addr\":\"0x%" PRIx64 "\",\"size\":%u", in->addr, in->size);
	pm_out__ch(p->out, ',');
	json__str(p->out, "mnemonic", pm_annotation__mnemonic(a, in));
	pm_out__ch(p->out, ',');
	json__str(p->out, "operands", pm_annotation__operands(a, in));
	pm_out__printf(p->out, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"percent\":%.2f",
		       in->samples, in->period, percent(in->period, a->period));
	if (in->jump)
		pm_out__printf(p->out, ",\"target\":\"0x%" PRIx64 "\"", in->target);
	if (in->file) {
		pm_out__ch(p->out, ',');
		json__str(p->out, "file", in->file);
		pm_out__printf(p->out, ",\"line\":%" PRIu32, in->line);
	}
	if (in->inlined) {
		pm_out__ch(p->out, ',');
		json__str(p->out, "inlined", in->inlined);
	}
	pm_out__ch(p->out, '}');
}

static void print__json_one(struct pm_annotate_print *p, const struct pm_annotation *a)
{
	size_t i;

	pm_out__str(p->out, p->printed ? ",\n{" : "\n{");
	json__str(p->out, "symbol", a->func->sym);
	pm_out__ch(p->out, ',');
	json__str(p->out, "dso", a->func->dso);
	pm_out__ch(p->out, ',');
	json__str(p->out, "event", p->event);
	pm_out__printf(p->out, ",\"start\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"samples\":%"
		       PRIu64 ",\"period\":%" PRIu64 ",\"percent_total\":%.2f,\"unplaced\":%"
		       PRIu64, a->start, a->size, a->samples, a->period,
		       percent(a->period, p->total_period), a->lost);
	print__json_lines(p, a);
	pm_out__str(p->out, ",\"instructions\":[");
	for (i = 0; i < a->nr_insns; i++) {
		if (i)
			pm_out__ch(p->out, ',');
		print__json_insn(p, a, &a->insns[i]);
	}
	pm_out__str(p->out, "]}");
}

int pm_annotate_print__one(struct pm_annotate_print *p, const struct pm_annotation *a)
{
	if (p->json)
		print__json_one(p, a);
	else
		print__text_one(p, a);
	p->printed++;
	return p->out->err;
}

void pm_annotate_print__begin(struct pm_annotate_print *p)
{
	if (p->json)
		pm_out__ch(p->out, '[');
}

int pm_annotate_print__end(struct pm_annotate_print *p)
{
	if (p->json)
		pm_out__str(p->out, "\n]\n");
	pm_out__flush(p->out);
	return p->out->err;
}
