// SPDX-License-Identifier: GPL-2.0
/*
 * What cmd/ says on stderr: every line starts with the command's name
 * ("pmrec report: "), put there here and nowhere else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "base/emit.h"

/* "pmrec" until main() runs a command, then its argv[0]. */
static const char *cmd_name = "pmrec";

void pm_cmd__set_name(const char *name)
{
	cmd_name = name;
}

/* The message's bytes go to stderr's stdio buffer (one write with the rest). */
static int say_write(void *arg, const void *buf, size_t n)
{
	return fwrite(buf, 1, n, arg) == n ? 0 : -EIO;
}

/*
 * Text as a terminal may show it: messages carry names a recording gave
 * (paths, symbols, comms), so they follow the one rule of what reaches a
 * terminal (pm_out__term_str).
 */
static void say_safe(const char *s)
{
	struct pm_out o;

	/* Without memory for it, no unchecked byte: the message is lost. */
	if (pm_out__init(&o, say_write, stderr, 256)) {
		fputs("(out of memory)", stderr);
		return;
	}
	pm_out__term_str(&o, s, strlen(s), true);
	pm_out__flush(&o);
	pm_out__exit(&o);
}

/* "NAME: [WHERE: ][LABEL]MESSAGE\n", in one write where stdio allows. */
static void say(const char *where, const char *label, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	flockfile(stderr);
	fprintf(stderr, "%s: ", cmd_name);
	if (where) {
		say_safe(where);
		fputs(": ", stderr);
	}
	if (label)
		fputs(label, stderr);
	say_safe(text ? text : "(out of memory)");
	fputc('\n', stderr);
	funlockfile(stderr);
	free(text);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(NULL, NULL, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(NULL, NULL, fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(NULL, "warning: ", fmt, ap);
	va_end(ap);
}

void warning_at(const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(where, "warning: ", fmt, ap);
	va_end(ap);
}

void hint(const char *fmt, ...)
{
	va_list ap;

	fputs("  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pm_cmd_msg__add(struct pm_cmd_msg *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || m->oom || pm_buf__reserve(&m->b, (size_t)n + 1)) {
		m->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf((char *)m->b.data + m->b.len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	m->b.len += (size_t)n;
}

const char *pm_cmd_msg__text(const struct pm_cmd_msg *m)
{
	return m->b.len ? (const char *)m->b.data : "";
}

void pm_cmd_msg__exit(struct pm_cmd_msg *m)
{
	pm_buf__exit(&m->b);
}
