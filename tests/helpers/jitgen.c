// SPDX-License-Identifier: GPL-2.0
/*
 * jitgen: a tiny JIT for the JIT naming tests.  It copies two functions of
 * machine code into anonymous memory, makes it executable and runs them hot
 * for SECONDS: main -> run -> jit_outer -> jit_inner (a countdown loop),
 * with frame pointers, so call-graph tests know every frame.  It describes
 * its code the way runtimes do:
 *
 *   --perfmap        writes /tmp/perf-PID.map when the code is made (Node's
 *                    --perf-basic-prof), first a stale line that the right
 *                    one overlaps (later lines win, as perf reads them)
 *   --perfmap-at-exit  writes it only as it exits (Java's DumpPerfMapAtExit)
 *   --rwx            maps the code writable and executable at once, instead
 *                    of writing it then mprotect()ing it read-execute
 *
 * Other describers (jitdump) are meant to be added as options beside these.
 * It prints "inner ADDR SIZE" and "outer ADDR SIZE" on stdout, and exits 0.
 * x86-64 and AArch64.
 *
 * usage: jitgen [--perfmap | --perfmap-at-exit] [--rwx] [SECONDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define INNER_OFF 0x100
#define OUTER_OFF 0x200
#define CODE_SIZE 0x1000

#if defined(__x86_64__)
/* push rbp; mov rbp,rsp; mov rax,rdi; 1: dec rax; jnz 1b; pop rbp; ret */
static const unsigned char inner_code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48,
					    0xff, 0xc8, 0x75, 0xfb, 0x5d, 0xc3 };
/* push rbp; mov rbp,rsp; call inner; pop rbp; ret (the call's offset patched in) */
static const unsigned char outer_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3 };

static void outer__link(unsigned char *outer, const unsigned char *inner)
{
	int32_t rel = (int32_t)(inner - (outer + 9));

	memcpy(outer + 5, &rel, 4);
}
#elif defined(__aarch64__)
/* stp x29,x30,[sp,#-16]!; mov x29,sp; 1: subs x0,x0,#1; b.ne 1b; ldp x29,x30,[sp],#16; ret */
static const uint32_t inner_code[] = { 0xa9bf7bfd, 0x910003fd, 0xf1000400, 0x54ffffe1,
				       0xa8c17bfd, 0xd65f03c0 };
/* stp x29,x30,[sp,#-16]!; mov x29,sp; bl inner; ldp x29,x30,[sp],#16; ret */
static const uint32_t outer_code[] = { 0xa9bf7bfd, 0x910003fd, 0x94000000, 0xa8c17bfd,
				       0xd65f03c0 };

static void outer__link(unsigned char *outer, const unsigned char *inner)
{
	uint32_t bl = 0x94000000 | (((uint32_t)((inner - (outer + 8)) / 4)) & 0x03ffffff);

	memcpy(outer + 8, &bl, 4);
}
#else
#error "jitgen: no machine code for this architecture"
#endif

typedef long jit_fn(long n);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_perfmap(const unsigned char *code)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	/* Appended to, as runtimes do: what is already there stays (tests and benchmarks prepend). */
	f = fopen(path, "a");
	if (!f) {
		perror(path);
		return -1;
	}
	/* A stale line first: the code that was there before, overlapped by what follows. */
	fprintf(f, "%lx %x stale_code\n", (unsigned long)(uintptr_t)code, CODE_SIZE);
	fprintf(f, "%lx %zx jit_inner\n", (unsigned long)(uintptr_t)(code + INNER_OFF),
		sizeof(inner_code));
	fprintf(f, "%lx %zx jit_outer (tier 2)\n", (unsigned long)(uintptr_t)(code + OUTER_OFF),
		sizeof(outer_code));
	return fclose(f);
}

__attribute__((noinline)) long run(jit_fn *outer, double seconds)
{
	double end = now() + seconds;
	long rounds = 0;

	do {
		rounds += outer(20000000) == 0;
	} while (now() < end);
	return rounds;
}

int main(int argc, char **argv)
{
	int perfmap = 0, at_exit = 0, rwx = 0, i;
	double seconds = 0.5;
	unsigned char *code;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--perfmap"))
			perfmap = 1;
		else if (!strcmp(argv[i], "--perfmap-at-exit"))
			at_exit = 1;
		else if (!strcmp(argv[i], "--rwx"))
			rwx = 1;
		else
			seconds = atof(argv[i]);
	}
	code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | (rwx ? PROT_EXEC : 0),
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(code + INNER_OFF, inner_code, sizeof(inner_code));
	memcpy(code + OUTER_OFF, outer_code, sizeof(outer_code));
	outer__link(code + OUTER_OFF, code + INNER_OFF);
	__builtin___clear_cache((char *)code, (char *)code + CODE_SIZE);
	if (!rwx && mprotect(code, CODE_SIZE, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	if (perfmap && write_perfmap(code))
		return 1;
	printf("inner %lx %zx\nouter %lx %zx\n", (unsigned long)(uintptr_t)(code + INNER_OFF),
	       sizeof(inner_code), (unsigned long)(uintptr_t)(code + OUTER_OFF), sizeof(outer_code));
	fflush(stdout);
	run((jit_fn *)(uintptr_t)(code + OUTER_OFF), seconds);
	if (at_exit && write_perfmap(code))
		return 1;
	return 0;
}
