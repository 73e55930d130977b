// SPDX-License-Identifier: GPL-2.0
/*
 * seqcheck: the oracle for seqcall recordings.  Reads `perf script -F trace`
 * output of raw_syscalls:sys_enter on stdin, takes args[0] of every getppid
 * (NR 110) line as a sequence number, and prints on one line:
 *
 *   samples=S unique=U dups=D missing=M last=L
 *
 * for the expected range 1..N: S getppid samples, U distinct seqs in range,
 * D repeated seqs, M seqs of the range never seen, L 1 when N itself was seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	unsigned long long n, samples = 0, unique = 0, dups = 0, v;
	unsigned char *seen;
	char line[512];

	if (argc != 2 || !(n = strtoull(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: seqcheck N <perf-script-trace\n");
		return 2;
	}
	seen = calloc(n + 1, 1);
	if (!seen)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char *p = strstr(line, "NR 110 (");

		if (!p)
			continue;
		samples++;
		v = strtoull(p + 8, NULL, 16);
		if (v < 1 || v > n)
			continue;
		if (seen[v]++)
			dups++;
		else
			unique++;
	}
	printf("samples=%llu unique=%llu dups=%llu missing=%llu last=%d\n", samples, unique, dups,
	       n - unique, seen[n] ? 1 : 0);
	free(seen);
	return 0;
}
