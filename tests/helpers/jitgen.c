// SPDX-License-Identifier: GPL-2.0
/*
 * jitgen: a tiny JIT for the JIT naming tests.  It copies two functions of
 * machine code into anonymous memory, makes it executable and runs them hot
 * for SECONDS of CPU time (so a loaded machine samples them as an idle one
 * does): main -> run -> jit_outer -> jit_inner (a countdown loop),
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
 *   --jitdump        writes jit-PID.dump in the current directory (node
 *                    --perf-prof): a stale load over the whole code, then
 *                    a debug info and a load for each function, timed by
 *                    CLOCK_MONOTONIC; the file is mapped executable as
 *                    the marker.  Halfway through the run, jit_inner is
 *                    loaded again at its address as "jit_inner_v2" (a
 *                    re-JIT): with record -k mono, samples before that
 *                    time are jit_inner's and samples after it v2's.
 * It prints "inner ADDR SIZE" and "outer ADDR SIZE" on stdout, and exits 0.
 * x86-64 and AArch64.
 *
 * usage: jitgen [--perfmap | --perfmap-at-exit] [--jitdump] [--rwx] [SECONDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
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

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static FILE *jitdump;
static uint64_t jit_index;

/* The record prefix: id, total size, time. */
static void jd_prefix(uint32_t id, uint32_t size)
{
	uint64_t t = mono_ns();

	fwrite(&id, 4, 1, jitdump);
	fwrite(&size, 4, 1, jitdump);
	fwrite(&t, 8, 1, jitdump);
}

static void jd_load(const char *name, const unsigned char *code, uint64_t size)
{
	uint32_t pid = (uint32_t)getpid();
	uint64_t addr = (uint64_t)(uintptr_t)code, vma = addr;
	size_t n = strlen(name) + 1;

	jd_prefix(0, (uint32_t)(16 + 40 + n + size));
	fwrite(&pid, 4, 1, jitdump);
	fwrite(&pid, 4, 1, jitdump);
	fwrite(&vma, 8, 1, jitdump);
	fwrite(&addr, 8, 1, jitdump);
	fwrite(&size, 8, 1, jitdump);
	fwrite(&jit_index, 8, 1, jitdump);
	jit_index++;
	fwrite(name, 1, n, jitdump);
	fwrite(code, 1, size, jitdump);
	fflush(jitdump);
}

/* One line for the code's first address, and one more in the same file ("\xff"). */
static void jd_debug(const unsigned char *code, const char *file, int32_t line)
{
	uint64_t addr = (uint64_t)(uintptr_t)code, nr = 2, addr2 = addr + 4;
	int32_t discrim = 0, line2 = line + 1;
	size_t n = strlen(file) + 1;

	jd_prefix(2, (uint32_t)(16 + 16 + 16 + n + 16 + 2));
	fwrite(&addr, 8, 1, jitdump);
	fwrite(&nr, 8, 1, jitdump);
	fwrite(&addr, 8, 1, jitdump);
	fwrite(&line, 4, 1, jitdump);
	fwrite(&discrim, 4, 1, jitdump);
	fwrite(file, 1, n, jitdump);
	fwrite(&addr2, 8, 1, jitdump);
	fwrite(&line2, 4, 1, jitdump);
	fwrite(&discrim, 4, 1, jitdump);
	fwrite("\xff", 1, 2, jitdump);
}

/* The header and the first loads; the file mapped executable marks it for perf and pmrec. */
static int write_jitdump(const unsigned char *code)
{
	uint32_t head[6] = { 0x4A695444, 1, 40, 0, 0, (uint32_t)getpid() };
	uint64_t t = mono_ns(), flags = 0;
	char path[64];

#if defined(__x86_64__)
	head[3] = 62;	/* EM_X86_64 */
#else
	head[3] = 183;	/* EM_AARCH64 */
#endif
	snprintf(path, sizeof(path), "jit-%d.dump", (int)getpid());
	jitdump = fopen(path, "w+");
	if (!jitdump || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(jitdump), 0) ==
			MAP_FAILED) {
		perror(path);
		return -1;
	}
	fwrite(head, 4, 6, jitdump);
	fwrite(&t, 8, 1, jitdump);
	fwrite(&flags, 8, 1, jitdump);
	jd_load("stale_code", code, CODE_SIZE);
	jd_debug(code + INNER_OFF, "jit/inner.js", 10);
	jd_load("jit_inner", code + INNER_OFF, sizeof(inner_code));
	jd_load("jit_outer (tier 2)", code + OUTER_OFF, sizeof(outer_code));
	return 0;
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
	int perfmap = 0, at_exit = 0, rwx = 0, jd = 0, i;
	double seconds = 0.5;
	unsigned char *code;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--perfmap"))
			perfmap = 1;
		else if (!strcmp(argv[i], "--perfmap-at-exit"))
			at_exit = 1;
		else if (!strcmp(argv[i], "--rwx"))
			rwx = 1;
		else if (!strcmp(argv[i], "--jitdump"))
			jd = 1;
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
	if (jd && write_jitdump(code))
		return 1;
	printf("inner %lx %zx\nouter %lx %zx\n", (unsigned long)(uintptr_t)(code + INNER_OFF),
	       sizeof(inner_code), (unsigned long)(uintptr_t)(code + OUTER_OFF), sizeof(outer_code));
	fflush(stdout);
	if (jd) {
		/* Re-JIT halfway: the same address, a new name from now on. */
		run((jit_fn *)(uintptr_t)(code + OUTER_OFF), seconds / 2);
		jd_load("jit_inner_v2", code + INNER_OFF, sizeof(inner_code));
		jd_prefix(3, 16);
		fclose(jitdump);
		seconds /= 2;
	}
	run((jit_fn *)(uintptr_t)(code + OUTER_OFF), seconds);
	if (at_exit && write_perfmap(code))
		return 1;
	return 0;
}
