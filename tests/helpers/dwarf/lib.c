// SPDX-License-Identifier: GPL-2.0
/* b of prog.c, in a shared library: calls back into the program. */
volatile unsigned long lib_sink;

__attribute__((noinline)) unsigned long b(unsigned long (*fn)(double), double seconds)
{
	unsigned long r = fn(seconds);

	lib_sink += r;
	return r;
}
