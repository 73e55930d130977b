// SPDX-License-Identifier: GPL-2.0
/*
 * cfiloop: burns SECONDS of CPU time (default 1) in main -> outer -> loopy,
 * where loopy's CFI gives the canonical frame address as an expression
 * that branches back for ever (DW_OP_lit1; DW_OP_bra -4), as a crafted
 * file may.
 * An unwinder that evaluates it must stop; libdw stops after 4096 steps
 * and leaks its evaluation stack.  No compiler writes such CFI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long cfiloop_sink;

__attribute__((noinline)) unsigned long loopy(double seconds);
__attribute__((noinline)) unsigned long outer(double seconds);

/* CPU time, not wall: on a loaded machine the loop still gets sampled. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long loopy(double seconds)
{
	volatile unsigned long x = 1;
	unsigned long rounds = 0;
	double end;
	int i;

	/*
	 * DW_CFA_def_cfa_expression, 4 bytes: push 1, branch back while it is
	 * not 0.  Before the first clock read: a sample on its return, as on
	 * any after, stops at loopy.
	 */
	__asm__ volatile(".cfi_remember_state\n\t.cfi_escape 0x0f, 0x04, 0x31, 0x28, 0xfc, 0xff");
	end = now() + seconds;
	do {
		for (i = 0; i < 1000000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
		rounds++;
	} while (now() < end);
	__asm__ volatile(".cfi_restore_state");
	return rounds + (x & 1);
}

__attribute__((noinline)) unsigned long outer(double seconds)
{
	unsigned long r = loopy(seconds);

	cfiloop_sink += r;
	return r;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;

	printf("%lu\n", outer(seconds));
	return 0;
}
