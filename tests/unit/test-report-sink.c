// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the report sink (lib/profile/report_sink.c) over a stream
 * built here: a sample whose thread, CPU and call chain were met goes
 * where the first went, but only while its process's mappings hold; any
 * other difference (thread, CPU, one address, the chain's length) names
 * it anew.  Prints TAP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf_data.h"
#include "profile/report_sink.h"
#include "reader/pipeline.h"
#include "tap.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#include "pipe-stream.h"

static uint64_t now;
/* The sink's repeat slots and chain ring lowered to one slot and ring addresses. */
static bool one_slot;
/* The sink leaves the samples' CPUs out (pm_report_sink.any_cpu). */
static bool any_cpu;
static uint32_t ring;

/* sample_id_all's fields of SAMPLE_TYPE: pid, tid, time, cpu. */
static void put_id(uint32_t pid, uint32_t cpu)
{
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u64(&stream, ++now);
	pm_buf__append_u32(&stream, cpu);
	pm_buf__append_u32(&stream, 0);
}

/* A file of pid mapped at 0x400000 (none of these paths exists: frames keep the path). */
static void put_mmap(uint32_t pid, const char *path)
{
	char name[32] = { 0 };

	snprintf(name, sizeof(name), "%s", path);
	put_header_misc(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 8 + 32 + sizeof(name) + 24);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u64(&stream, 0x400000);
	pm_buf__append_u64(&stream, 0x100000);
	pm_buf__append_u64(&stream, 0);
	pm_buf__append(&stream, name, sizeof(name));
	put_id(pid, 0);
}

/* A user-mode sample of thread tid of process pid on cpu, its chain chain[0..nr). */
static void put_thread_sample(uint32_t pid, uint32_t tid, uint32_t cpu, const uint64_t *chain,
			      size_t nr)
{
	size_t i;

	put_header_misc(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
			(uint16_t)(8 + 40 + 8 + 8 * (nr + 1)));
	pm_buf__append_u64(&stream, chain[0]);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u32(&stream, tid);
	pm_buf__append_u64(&stream, ++now);
	pm_buf__append_u32(&stream, cpu);
	pm_buf__append_u32(&stream, 0);
	pm_buf__append_u64(&stream, 1);
	pm_buf__append_u64(&stream, nr + 1);
	pm_buf__append_u64(&stream, PERF_CONTEXT_USER);
	for (i = 0; i < nr; i++)
		pm_buf__append_u64(&stream, chain[i]);
}

/* The same of a process's main thread. */
static void put_chain_sample(uint32_t tid, uint32_t cpu, const uint64_t *chain, size_t nr)
{
	put_thread_sample(tid, tid, cpu, chain, nr);
}

/*
 * The stream through the pipeline into a sink, the profile queried by q:
 * its rows as "dso:tid-or-cpu:samples" (by the second key), or with
 * children "dso+offset:cpu:self/children" (a caller's offset is its return
 * address less one).
 */
static int run(const struct pm_profile_query *q, char *out, size_t size, uint64_t *repeated)
{
	int in = memfd_create("test-report-sink", MFD_CLOEXEC), err;
	struct pm_profile *prof = pm_profile__new();
	struct pm_profile_result *res = NULL;
	struct pm_report_sink k = { 0 };
	struct pm_consumer c = { pm_report_sink__record, &k };
	struct pm_pipeline p = { .names = true, .queue_size = 1 << 20, .consumers = &c,
				 .nr_consumers = 1 };
	size_t i, len = 0;

	p.r = pm_reader__new();
	if (in < 0 || !p.r || !prof || write(in, stream.data, stream.len) != (ssize_t)stream.len ||
	    lseek(in, 0, SEEK_SET))
		err = -EIO;
	else
		err = pm_reader__open_fd(p.r, in);
	if (!err)
		err = pm_pipeline__setup(&p) ?: pm_report_sink__init(&k, p.r, prof);
	if (!err) {
		k.namer = p.namer;
		k.any_cpu = any_cpu;
		if (one_slot) {
			k.repeat_bits = 0;
			k.chain_pool = ring;
		}
		err = pm_pipeline__records(&p) ?: pm_report_sink__finish(&k) ?:
		      pm_profile__query(prof, q, &res);
	}
	*repeated = k.nr_repeated;
	out[0] = '\0';
	for (i = 0; !err && i < res->nr_rows; i++) {
		const struct pm_profile_row *r = &res->rows[i];

		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : "",
					r->frame->dso ? r->frame->dso : "-");
		if (q->children)
			len += (size_t)snprintf(out + len, size - len, "+%llx:%d:%llu/%llu",
						(unsigned long long)r->frame->addr, r->cpu,
						(unsigned long long)r->self_samples,
						(unsigned long long)r->children_samples);
		else
			len += (size_t)snprintf(out + len, size - len, ":%d:%llu",
						q->keys[1] == PM_PROFILE_KEY_CPU ? r->cpu : r->tid,
						(unsigned long long)r->self_samples);
	}
	pm_profile_result__delete(res);
	pm_report_sink__exit(&k);
	pm_pipeline__end(&p);
	pm_pipeline__exit(&p);
	pm_reader__delete(p.r);
	pm_profile__delete(prof);
	if (in >= 0)
		close(in);
	return err;
}

static const uint64_t chain[] = { 0x401000, 0x402000, 0x403000 };
static const uint64_t other[] = { 0x401000, 0x402000, 0x403008 };

/* The rows, and how many samples the sink placed without naming them. */
static void check(const struct pm_profile_query *q, const char *want, uint64_t want_repeated,
		  const char *what)
{
	uint64_t repeated = 0;
	char got[512];
	int err = run(q, got, sizeof(got), &repeated);

	if (!tap_ok(!err && !strcmp(got, want) && repeated == want_repeated, "%s", what))
		printf("#   err %d, rows '%s', want '%s', %llu placed again, want %llu\n", err, got,
		       want, (unsigned long long)repeated, (unsigned long long)want_repeated);
}

/*
 * One slot and a ring of 256 addresses (16 chains of 4): each sample is
 * compared with the one before it whatever its key, and chains are
 * overwritten, yet the rows are those of the sink as it is.  Neighbours
 * differ in one thing each: CPU, thread, process, chain, length.
 */
static void test_one_slot(const struct pm_profile_query *q)
{
	char want[2048], got[2048];
	uint64_t repeated = 0, one_repeated = 0;
	int i, err;

	for (i = 0; i < 80; i++) {
		put_chain_sample(10, 0, chain, 3);
		put_chain_sample(10, 0, chain, 3);
		put_chain_sample(10, 1, chain, 3);
		put_thread_sample(10, 12, 1, chain, 3);
		put_chain_sample(11, 1, chain, 3);
		put_chain_sample(11, 1, other, 3);
		put_chain_sample(11, 1, other, 2);
	}
	err = run(q, want, sizeof(want), &repeated);
	one_slot = true;
	ring = 256;
	err = err ?: run(q, got, sizeof(got), &one_repeated);
	one_slot = false;
	if (!tap_ok(!err && !strcmp(got, want) && one_repeated >= 80 && one_repeated < repeated,
		    "one slot, a ring that wraps: the same rows, fewer samples placed again"))
		printf("#   err %d\n#   rows '%s'\n#   want '%s'\n#   placed again %llu, %llu\n", err,
		       got, want, (unsigned long long)one_repeated, (unsigned long long)repeated);
}

int main(void)
{
	static const enum pm_profile_key dso_tid[] = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_TID };
	static const enum pm_profile_key dso_cpu[] = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_CPU };
	static const enum pm_profile_key sym_cpu[] = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_CPU,
						       PM_PROFILE_KEY_SYM };
	const struct pm_profile_query by_tid = { .keys = dso_tid, .nr_keys = 2 };
	const struct pm_profile_query by_cpu = { .keys = dso_cpu, .nr_keys = 2 };
	const struct pm_profile_query callers = { .keys = sym_cpu, .nr_keys = 3, .children = true };
	int i;

	put_prologue();
	put_mmap(10, "/nonexistent/a");
	put_mmap(11, "/nonexistent/c");
	for (i = 0; i < 3; i++)
		put_chain_sample(10, 0, chain, 3);
	check(&by_tid, "a:10:3", 2, "one chain three times: one row, two samples placed again");

	put_chain_sample(11, 0, chain, 3);
	check(&by_tid, "a:10:3 c:11:1", 2,
	      "the same chain in another process: named as that process's");

	put_mmap(10, "/nonexistent/b");
	put_chain_sample(10, 0, chain, 3);
	check(&by_tid, "a:10:3 b:10:1 c:11:1", 2,
	      "the same chain after its process's mapping changed: named again");

	put_chain_sample(10, 1, chain, 3);
	put_chain_sample(10, 0, other, 3);
	put_chain_sample(10, 0, chain, 2);
	put_chain_sample(10, 0, chain, 3);
	check(&by_cpu, "b:0:4 a:0:3 b:1:1 c:0:1", 3, "another CPU is another place");
	any_cpu = true;
	check(&by_tid, "b:10:5 a:10:3 c:11:1", 4,
	      "any_cpu: the same rows; a thread's chain on another CPU is placed again");
	check(&by_cpu, "b:-1:5 a:-1:3 c:-1:1", 4, "any_cpu: the samples' CPUs are left out");
	any_cpu = false;
	check(&by_tid, "b:10:5 a:10:3 c:11:1", 3, "without it, another CPU is named again");
	check(&callers,
	      "b+1000:0:4/4 b+1fff:0:0/4 a+1000:0:3/3 a+1fff:0:0/3 a+2fff:0:0/3 b+2fff:0:0/2 "
	      "b+1000:1:1/1 c+1000:0:1/1 b+3007:0:0/1 b+1fff:1:0/1 b+2fff:1:0/1 c+1fff:0:0/1 "
	      "c+2fff:0:0/1", 3,
	      "a chain that differs in one address or in its length is another stack");
	test_one_slot(&by_tid);
	test_one_slot(&callers);
	pm_buf__exit(&stream);
	return tap_done();
}
