// SPDX-License-Identifier: GPL-2.0
/*
 * lib/unwind and lib/demangle: this process's own stack, captured as
 * --call-graph dwarf would (registers and a copy of the stack above sp),
 * unwinds to main through its own CFI; hostile samples (garbage registers,
 * a stack copy of one return address repeated, a copy too short for the
 * CFI) end with a partial frame list, never a hang; names demangle.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "symbols/machine.h"
#include "dwarf/unwind.h"
#include "tap.h"

/* perf's x86-64 user register mask for --call-graph dwarf: all but ds, es, fs, gs. */
#define REGS_MASK 0xff0fffULL
#define NR_REGS 20
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_CS, R_SS,
       R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15 };

struct capture {
	uint64_t regs[NR_REGS];
	unsigned char stack[8192];
	uint64_t size;
};

static struct pm_evsel evsel;
static uint64_t stack_end;

/* MMAP2 records for this process's file mappings, from /proc/self/maps. */
static int feed_maps(struct pm_machine *m, int32_t pid)
{
	char line[4096], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, pgoff;
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_gen;
			uint32_t prot, flags;
			char name[4096];
		} r;
		size_t len;

		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &pgoff, path) < 3)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_end = end;
		if (path[0] != '/')
			continue;
		memset(&r, 0, sizeof(r));
		len = strlen(path) + 1;
		r.h.type = PERF_RECORD_MMAP2;
		r.h.misc = PERF_RECORD_MISC_USER;
		r.pid = r.tid = (uint32_t)pid;
		r.start = start;
		r.len = end - start;
		r.pgoff = pgoff;
		memcpy(r.name, path, len);
		r.h.size = (uint16_t)(offsetof(__typeof__(r), name) + (len + 7) / 8 * 8);
		pm_machine__event(m, &r.h, r.h.size - sizeof(r.h));
		n++;
	}
	fclose(f);
	return n;
}

/*
 * A copy of raw stack memory, as the kernel makes it: AddressSanitizer's
 * redzones between the frames' variables are part of it.
 */
static __attribute__((noinline, no_sanitize_address)) void copy_stack(unsigned char *dst,
								     uint64_t src, size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)src;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = p[i];
}

/* The registers of this point and the stack above it, as the kernel samples them. */
static __attribute__((noinline)) void capture_here(struct capture *c)
{
	uint64_t *r = c->regs, sp;

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, %c[ip](%0)\n\t"
			 "mov %%rsp, %c[sp](%0)\n\t"
			 "mov %%rbp, %c[bp](%0)\n\t"
			 "mov %%rbx, %c[bx](%0)\n\t"
			 "mov %%r12, %c[r12](%0)\n\t"
			 "mov %%r13, %c[r13](%0)\n\t"
			 "mov %%r14, %c[r14](%0)\n\t"
			 "mov %%r15, %c[r15](%0)\n\t"
			 : : "r"(r), [ip] "i"(R_IP * 8), [sp] "i"(R_SP * 8), [bp] "i"(R_BP * 8),
			   [bx] "i"(R_BX * 8), [r12] "i"(R_R12 * 8), [r13] "i"(R_R13 * 8),
			   [r14] "i"(R_R14 * 8), [r15] "i"(R_R15 * 8)
			 : "rax", "memory");
	sp = r[R_SP];
	c->size = stack_end > sp && stack_end - sp < sizeof(c->stack) ? stack_end - sp :
									sizeof(c->stack);
	copy_stack(c->stack, sp, c->size);
}

static __attribute__((noinline)) void outer_frame(struct capture *c)
{
	capture_here(c);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

static void sample_of(struct pm_sample *s, struct capture *c, int32_t pid)
{
	memset(s, 0, sizeof(*s));
	s->evsel = &evsel;
	s->fields = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	s->pid = s->tid = (uint32_t)pid;
	s->regs_user = (struct pm_regs){ .abi = PERF_SAMPLE_REGS_ABI_64, .nr = NR_REGS,
					 .regs = c->regs };
	s->stack_user = c->stack;
	s->stack_user_size = c->size;
	s->stack_user_dyn_size = c->size;
}

static bool frames_have(struct pm_machine *m, int32_t pid, const struct pm_unwind_frame *fr,
			size_t nr, const char *name)
{
	struct pm_frame f;
	size_t i;

	for (i = 0; i < nr; i++) {
		pm_machine__resolve(m, pid, PERF_RECORD_MISC_USER, fr[i].lookup, &f);
		/* gcc may name a clone "name.constprop.0". */
		if (f.sym && !strncmp(f.sym, name, strlen(name)) &&
		    (!f.sym[strlen(name)] || f.sym[strlen(name)] == '.'))
			return true;
	}
	return false;
}

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static void test_hostile(struct pm_unwinder *u, struct capture *good, int32_t pid)
{
	static struct pm_unwind_frame fr[PM_UNWIND_MAX_FRAMES];
	struct capture c;
	struct pm_sample s;
	bool partial, ok = true;
	size_t nr = 0, i, j;

	/* Garbage registers and stack contents. */
	for (i = 0; i < 2000; i++) {
		for (j = 0; j < NR_REGS; j++)
			c.regs[j] = rnd();
		if (i & 1)	/* an ip with CFI, the rest garbage */
			c.regs[R_IP] = good->regs[R_IP];
		for (j = 0; j < sizeof(c.stack); j += 8) {
			uint64_t v = (i & 2) ? good->regs[R_IP] : rnd();

			memcpy(c.stack + j, &v, 8);
		}
		c.size = sizeof(c.stack);
		sample_of(&s, &c, pid);
		if (pm_unwinder__unwind(u, &s, fr, &nr, &partial) || !nr ||
		    nr > PM_UNWIND_MAX_FRAMES)
			ok = false;
	}
	tap_ok(ok, "garbage registers and stacks: every unwinding ends, 1..%d frames",
	       PM_UNWIND_MAX_FRAMES);

	/* One return address over and over: the frames end with the copy. */
	c = *good;
	for (j = 0; j < sizeof(c.stack); j += 8)
		memcpy(c.stack + j, &good->regs[R_IP], 8);
	c.size = sizeof(c.stack);
	sample_of(&s, &c, pid);
	ok = !pm_unwinder__unwind(u, &s, fr, &nr, &partial);
	tap_ok(ok && partial && nr <= PM_UNWIND_MAX_FRAMES,
	       "a stack of one repeated return address: partial, %zu frames", nr);

	/* A stack pointer that points back below the copy. */
	c = *good;
	c.regs[R_BP] = c.regs[R_SP] - 4096;
	c.regs[R_IP] = 0x1000;	/* no CFI: libdw falls back to the frame pointer */
	sample_of(&s, &c, pid);

	ok = !pm_unwinder__unwind(u, &s, fr, &nr, &partial);
	tap_ok(ok && partial && nr >= 1 && nr <= 2,
	       "a frame pointer below the stack: partial, %zu frames", nr);

	/* CFI that needs memory outside the copy. */
	c = *good;
	c.size = 8;
	sample_of(&s, &c, pid);

	tap_ok(!pm_unwinder__unwind(u, &s, fr, &nr, &partial) && partial && nr >= 1 &&
	       fr[0].ip == good->regs[R_IP], "a copy too short for the CFI: partial, keeps the leaf");

	/* No stack copy, or a 32-bit task: nothing to unwind. */
	sample_of(&s, good, pid);
	s.regs_user.abi = PERF_SAMPLE_REGS_ABI_32;
	tap_ok(!pm_unwind__possible(&s), "a 32-bit task's registers are not unwound");
}

static void test_demangle(void)
{
	struct pm_demangler *d = pm_demangler__new();
	const char *cxx = "_ZN6pmtest6WorkerImE6crunchEd", *plain = "main";
	char *s;

	s = pm_demangle__str(cxx);
	tap_ok(s && !strcmp(s, "pmtest::Worker<unsigned long>::crunch"), "C++: %s", s);
	free(s);
	s = pm_demangle__str("_ZN4rust6pmtest6crunch17h0123456789abcdefE");
	tap_ok(s && !strcmp(s, "rust::pmtest::crunch"), "Rust legacy: %s", s);
	free(s);
	s = pm_demangle__str("_RNvNtCs1234_4rust6pmtest6crunch");
	tap_ok(s && !strcmp(s, "rust::pmtest::crunch"), "Rust v0: %s", s);
	free(s);
	/* libiberty would drop the suffix: "crunch". */
	s = pm_demangle__str("_ZN6pmtest6WorkerImE6crunchEd@plt");
	tap_ok(s && !strcmp(s, "pmtest::Worker<unsigned long>::crunch@plt"), "a PLT stub: %s", s);
	free(s);
	tap_ok(!pm_demangle__str("_Zgarbage!@plt") && !pm_demangle__str("@plt"),
	       "a broken name's stub is not demangled");
	tap_ok(!pm_demangle__str(plain) && !pm_demangle__str("_Zgarbage!"),
	       "plain and broken names are not demangled");
	tap_ok(d && pm_demangler__name(d, plain) == plain &&
	       !strcmp(pm_demangler__name(d, cxx), "pmtest::Worker<unsigned long>::crunch") &&
	       pm_demangler__name(d, cxx) == pm_demangler__name(d, cxx),
	       "the demangler caches by name and keeps plain names");
	pm_demangler__delete(d);
}

int main(void)
{
	static struct pm_unwind_frame fr[PM_UNWIND_MAX_FRAMES], first[PM_UNWIND_MAX_FRAMES];
	bool partial_first;
	size_t nr_first;
	static struct capture good;
	struct pm_machine *m = pm_machine__new();
	struct pm_unwinder *u = m ? pm_unwinder__new(m) : NULL;
	int32_t pid = 4242;
	struct pm_sample s;
	bool partial, ok;
	size_t nr;

	evsel.attr.sample_regs_user = REGS_MASK;
	tap_ok(u && feed_maps(m, pid) > 0 && stack_end, "a machine with this process's mappings");
	if (!u)
		return tap_done();
	outer_frame(&good);
	sample_of(&s, &good, pid);
	tap_ok(pm_unwind__possible(&s), "a sample with registers and a stack copy can be unwound");
	ok = !pm_unwinder__unwind(u, &s, fr, &nr, &partial);
	tap_ok(ok && nr >= 3, "own stack: %zu frames", nr);
	tap_ok(frames_have(m, pid, fr, nr, "capture_here") && frames_have(m, pid, fr, nr, "outer_frame") &&
	       frames_have(m, pid, fr, nr, "main"), "own stack: capture_here, outer_frame, main");
	memcpy(first, fr, nr * sizeof(*fr));
	nr_first = nr;
	partial_first = partial;
	tap_ok(!pm_unwinder__unwind(u, &s, fr, &nr, &partial) && frames_have(m, pid, fr, nr, "main"),
	       "the session is reused for a second sample");
	/* The second steps by the CFI rules the first kept. */
	tap_ok(nr == nr_first && partial == partial_first && !memcmp(fr, first, nr * sizeof(*fr)),
	       "kept CFI rules step to the same %zu frames as the first unwinding", nr);
	test_hostile(u, &good, pid);
	test_demangle();
	pm_unwinder__delete(u);
	pm_machine__delete(m);
	return tap_done();
}
