// SPDX-License-Identifier: GPL-2.0
/*
 * cputime: run a command and report what it cost, measured by the parent.
 *
 *   cputime [-o FILE] [-i SECONDS] -- COMMAND [ARGS...]
 *
 * Forks COMMAND, waits for it with wait4() and prints one line
 *
 *   wall=S user=S sys=S cpu=S maxrss_kb=K status=N
 *
 * to FILE (default stderr).  user/sys are the rusage of COMMAND and of the
 * descendants it waited for itself; the benchmark gives the recorders only a
 * tiny gate process as workload, so this is the recorder's own cost.  maxrss
 * is the largest resident set of that process tree (not a sum).  status is
 * the exit code, or 128+N when COMMAND died of signal N.
 *
 *   -i SECONDS  send SIGINT to COMMAND after SECONDS (a stop by ^C)
 *
 * SIGINT, SIGTERM and SIGHUP received by cputime are passed on to COMMAND,
 * so that killing the benchmark never leaves a recorder behind.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (child_pid > 0)
		kill(child_pid, SIGINT);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

static void usage(void)
{
	fprintf(stderr, "usage: cputime [-o FILE] [-i SECONDS] -- COMMAND [ARGS...]\n");
	exit(64);
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	double interrupt_after = 0, t0, wall;
	struct sigaction sa;
	struct rusage ru;
	int opt, status, code;
	FILE *out = stderr;
	pid_t pid;
	char *end;

	while ((opt = getopt(argc, argv, "+o:i:")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case 'i':
			interrupt_after = strtod(optarg, &end);
			if (end == optarg || *end || interrupt_after < 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "cputime: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	if (interrupt_after > 0) {
		struct itimerval it = { 0 };

		it.it_value.tv_sec = (time_t)interrupt_after;
		it.it_value.tv_usec = (suseconds_t)((interrupt_after - (time_t)interrupt_after) * 1e6);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("cputime: wait4");
			return 1;
		}
	}
	wall = now() - t0;
	child_pid = 0;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (out_path && !(out = fopen(out_path, "w"))) {
		fprintf(stderr, "cputime: cannot write '%s': %s\n", out_path, strerror(errno));
		return 1;
	}
	fprintf(out, "wall=%.4f user=%.4f sys=%.4f cpu=%.4f maxrss_kb=%ld status=%d\n", wall,
		tv(ru.ru_utime), tv(ru.ru_stime), tv(ru.ru_utime) + tv(ru.ru_stime), ru.ru_maxrss,
		code);
	if (out != stderr)
		fclose(out);
	return 0;
}
