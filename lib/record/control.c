// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/control.h"
#include "base/file.h"

static void control__init(struct pm_control *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = -1;
}

/*
 * A fifo opened read-write: no wait for the other end, no EOF when it
 * closes; non-blocking, so an ack fifo nobody reads fails (EAGAIN) once
 * full instead of stopping the recording.
 */
static int control__open_fifo(const char *path, int *fd)
{
	/* The fd is checked, not the path: a swap after a stat() cannot redirect acks. */
	*fd = pm_file__open(path, O_RDWR, PM_FILE_FIFO, 0, NULL);
	return *fd < 0 ? *fd : 0;
}

static int control__check_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1 << 30)
		return -EINVAL;
	if (fcntl((int)v, F_GETFD) < 0)
		return -EBADF;
	*fd = (int)v;
	return 0;
}

static int control__fail(struct pm_control_error *e, const char *what, const char *name, int err)
{
	e->what = what;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->err = err;
	return err;
}

int pm_control__check_spec(const char *spec)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	const char *ctl = spec + (fifo ? 5 : 3), *comma;
	size_t i;

	if (!fifo && strncmp(spec, "fd:", 3))
		return -EINVAL;
	comma = strchr(ctl, ',');
	if (!*ctl || comma == ctl || (comma && (!comma[1] || strchr(comma + 1, ','))))
		return -EINVAL;
	for (i = 0; !fifo && ctl[i]; i++)
		if (ctl[i] != ',' && (ctl[i] < '0' || ctl[i] > '9'))
			return -EINVAL;
	return 0;
}

int pm_control__open(struct pm_control *c, const char *spec, struct pm_control_error *e)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char *ctl, *ack;
	int err = 0;

	control__init(c);
	memset(e, 0, sizeof(*e));
	if (pm_control__check_spec(spec))
		return -EINVAL;
	ctl = strdup(spec + (fifo ? 5 : 3));
	if (!ctl)
		return -ENOMEM;
	ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	c->own = fifo;
	if (fifo) {
		err = control__open_fifo(ctl, &c->ctl_fd);
		if (err)
			control__fail(e, "control fifo", ctl, err);
		if (!err && ack && (err = control__open_fifo(ack, &c->ack_fd)))
			control__fail(e, "ack fifo", ack, err);
	} else {
		err = control__check_fd(ctl, &c->ctl_fd);
		if (err)
			control__fail(e, "control fd", ctl, err);
		if (!err && ack && (err = control__check_fd(ack, &c->ack_fd)))
			control__fail(e, "ack fd", ack, err);
		/* An inherited fd may block: the poll loop must not. */
		if (!err)
			fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK);
	}
	free(ctl);
	if (err)
		pm_control__exit(c);
	return err;
}

static enum pm_control_cmd control__word(const char *w)
{
	static const struct {
		const char *word;
		enum pm_control_cmd cmd;
	} words[] = {
		{ "enable", PM_CONTROL_ENABLE },	{ "disable", PM_CONTROL_DISABLE },
		{ "snapshot", PM_CONTROL_SNAPSHOT },	{ "stop", PM_CONTROL_STOP },
		{ "ping", PM_CONTROL_PING },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i].word))
			return words[i].cmd;
	return PM_CONTROL_UNKNOWN;
}

/*
 * The word for messages: printable ASCII as it is, any other byte as \xNN,
 * cut to fit, so a writer cannot send escape sequences to the terminal.
 */
static void control__show(struct pm_control *c, const char *w, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < n && o + 5 <= sizeof(c->word) - 4; i++) {
		unsigned char ch = (unsigned char)w[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			c->word[o++] = (char)ch;
			continue;
		}
		c->word[o++] = '\\';
		c->word[o++] = 'x';
		c->word[o++] = hex[ch >> 4];
		c->word[o++] = hex[ch & 15];
	}
	if (i < n) {
		memcpy(c->word + o, "...", 3);
		o += 3;
	}
	c->word[o] = '\0';
}

/* A word in buf ending at end (its terminator): taken out of buf. */
static enum pm_control_cmd control__take(struct pm_control *c, size_t end)
{
	enum pm_control_cmd cmd;
	size_t n = end;

	while (n && (c->buf[n - 1] == ' ' || c->buf[n - 1] == '\r' || c->buf[n - 1] == '\t'))
		n--;
	c->buf[n] = '\0';
	cmd = strlen(c->buf) == n ? control__word(c->buf) : PM_CONTROL_UNKNOWN;
	control__show(c, c->buf, n);
	memmove(c->buf, c->buf + end + 1, c->len - end - 1);
	c->len -= end + 1;
	if (c->overlong)
		cmd = PM_CONTROL_UNKNOWN;
	return cmd;
}

int pm_control__next(struct pm_control *c, enum pm_control_cmd *cmd)
{
	ssize_t n;
	size_t i;

	*cmd = PM_CONTROL_NONE;
	for (;;) {
		for (i = 0; i < c->len && c->buf[i] != '\n' && c->buf[i] != '\0'; i++)
			;
		if (i < c->len && c->skipping) {
			/* The end of a line already answered as unknown. */
			memmove(c->buf, c->buf + i + 1, c->len - i - 1);
			c->len -= i + 1;
			c->skipping = c->overlong = false;
			continue;
		}
		if (i < c->len) {
			*cmd = control__take(c, i);
			if (*cmd == PM_CONTROL_UNKNOWN && !c->word[0])
				continue;	/* an empty line: nothing */
			return 0;
		}
		if (c->skipping) {
			c->len = 0;
		} else if (c->len == sizeof(c->buf)) {
			/*
			 * A line longer than any word: one unknown now,
			 * and the rest of it, however long, dropped.
			 */
			c->overlong = true;
			*cmd = control__take(c, c->len - 1);
			c->len = 0;
			c->skipping = true;
			return 0;
		}
		n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (!n)
			return 0;
		c->len += n;
	}
}

int pm_control__reply(struct pm_control *c, const char *line)
{
	char msg[320];
	int len;

	if (c->ack_fd < 0)
		return 0;
	len = line ? snprintf(msg, sizeof(msg), "error: %s\n", line) : snprintf(msg, sizeof(msg), "ack\n");
	if (len >= (int)sizeof(msg))
		len = sizeof(msg) - 1;
	errno = 0;
	if (write(c->ack_fd, msg, len) != len)
		return errno ? -errno : -EIO;
	return 0;
}

void pm_control__exit(struct pm_control *c)
{
	if (c->own && c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->own && c->ack_fd >= 0)
		close(c->ack_fd);
	c->ctl_fd = c->ack_fd = -1;
}
