// SPDX-License-Identifier: GPL-2.0
/*
 * The signal and poll set-up record and top share: the signals that stop
 * them are blocked and read from a signalfd, which the drain loop polls
 * with the rings (with the control channel or the terminal, through an
 * epoll set).
 */
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "record.h"

int sigwatch__open(const sigset_t *set, sigset_t *old)
{
	int fd;

	if (sigprocmask(SIG_BLOCK, set, old))
		return -errno;
	/* A closed pipe is a write error (EPIPE), handled where it happens. */
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sigwatch__next(int sigfd)
{
	struct signalfd_siginfo si;

	return read(sigfd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo : 0;
}

int sigwatch__epoll(const int *fds, size_t nr)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int epfd = epoll_create1(EPOLL_CLOEXEC), err;
	size_t i;

	if (epfd < 0)
		return -errno;
	for (i = 0; i < nr; i++) {
		ev.data.fd = fds[i];
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i], &ev)) {
			err = -errno;
			close(epfd);
			return err;
		}
	}
	return epfd;
}
