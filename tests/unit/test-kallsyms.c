// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols against independent oracles: /proc/kallsyms read line by
 * line, and hand-written kallsyms files whose every answer is known in
 * advance.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf-fixture.h"
#include "symbols/kallsyms.h"
#include "tap.h"

/* want_mod NULL: in the kernel image. */
static bool ks_is(const struct pm_kallsyms *ks, uint64_t addr,
		  const char *want, const char *want_mod, uint64_t want_off)
{
	const char *name, *mod;
	uint64_t off;

	if (pm_kallsyms__find(ks, addr, &name, &mod, &off))
		return false;
	if (!want_mod != !mod || (mod && strcmp(mod, want_mod)))
		return false;
	return !strcmp(name, want) && off == want_off;
}

static void test_kallsyms_fake(void)
{
	static const char text[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 t srso_alias\n"
		"ffffffff81000100 T alpha\n"
		"ffffffff81000200 W weak_fn\n"
		"ffffffff81000200 t __weak_fn\n"
		"ffffffff81000300 D some_data\n"
		"ffffffff81000400 T last_core\n"
		"ffffffffc0000000 t mod_fn\t[mymod]\n"
		"ffffffffc0000040 T mod_fn2\t[mymod]\n"
		"ffffffffc0001000 t bpf_prog_x\t[bpf]";
	const char *name = NULL, *mod = NULL;
	struct pm_kallsyms *ks;
	uint64_t off = 0;

	write_file(tmp_path("kallsyms"), text, strlen(text));
	ks = pm_kallsyms__load(tmp_path("kallsyms"));
	tap_ok(ks != NULL, "synthetic kallsyms loads");
	if (!ks)
		return;
	tap_ok(ks_is(ks, 0xffffffff81000000, "srso_alias", NULL, 0) &&
		       ks_is(ks, 0xffffffff810000ff, "srso_alias", NULL, 0xff),
	       "kallsyms: an address's last alias names it, as perf keeps it");
	tap_ok(ks_is(ks, 0xffffffff81000250, "__weak_fn", NULL, 0x50) &&
		       ks_is(ks, 0xffffffff81000300, "__weak_fn", NULL, 0x100),
	       "kallsyms: the last alias whatever its binding; data symbols are skipped");
	tap_ok(ks_is(ks, 0xffffffff81001fff, "last_core", NULL, 0x1bff) &&
		       pm_kallsyms__find(ks, 0xffffffff81002000, &name, &mod,
					 &off) == -ENOENT,
	       "kallsyms: the kernel's last function ends a page later");
	tap_ok(ks_is(ks, 0xffffffffc0000010, "mod_fn", "mymod", 0x10) &&
		       ks_is(ks, 0xffffffffc0000fff, "mod_fn2", "mymod", 0xfbf),
	       "kallsyms: module functions carry their module");
	tap_ok(ks_is(ks, 0xffffffffc0001fff, "bpf_prog_x", "bpf", 0xfff) &&
		       pm_kallsyms__find(ks, 0xffffffffc0002000, &name, &mod,
					 &off) == -ENOENT &&
		       pm_kallsyms__find(ks, 0xffffffff80000000, &name, &mod,
					 &off) == -ENOENT,
	       "kallsyms: nothing after the last or before the first");
	pm_kallsyms__delete(ks);
}

/* Far more lines than one read takes, so that many straddle two reads. */
static void test_kallsyms_big(void)
{
	enum { NR = 40000 };
	struct pm_kallsyms *ks;
	char want[32];
	int i, bad = 0;
	FILE *f;

	f = fopen(tmp_path("kallsyms"), "w");
	if (!f) {
		tap_ok(0, "write a big kallsyms");
		return;
	}
	/* Descending, so that the loader has to sort. */
	for (i = NR - 1; i >= 0; i--)
		fprintf(f, "%016llx %c function_%d%s\n",
			0xffffffff81000000ULL + 16ULL * i, "tT"[i & 1], i,
			i % 7 ? "" : "\t[mod]");
	fclose(f);
	ks = pm_kallsyms__load(tmp_path("kallsyms"));
	for (i = 0; ks && i < NR; i++) {
		snprintf(want, sizeof(want), "function_%d", i);
		bad += !ks_is(ks, 0xffffffff81000000ULL + 16ULL * i + 3, want,
			      i % 7 ? NULL : "mod", 3);
	}
	tap_ok(ks && !bad, "kallsyms of %d lines: %d lookups wrong", NR,
	       ks ? bad : NR);
	pm_kallsyms__delete(ks);
}

static void test_kallsyms_refused(void)
{
	static const char hidden[] = "0000000000000000 T _text\n"
				     "0000000000000000 T schedule\n";
	struct pm_kallsyms *ks;

	write_file(tmp_path("kallsyms"), hidden, strlen(hidden));
	errno = 0;
	ks = pm_kallsyms__load(tmp_path("kallsyms"));
	tap_ok(!ks && errno == EACCES, "kallsyms with hidden addresses: EACCES");
	pm_kallsyms__delete(ks);
	write_file(tmp_path("kallsyms"), "", 0);
	errno = 0;
	ks = pm_kallsyms__load(tmp_path("kallsyms"));
	tap_ok(!ks && errno == ENOENT, "empty kallsyms: ENOENT");
	pm_kallsyms__delete(ks);
	errno = 0;
	ks = pm_kallsyms__load(tmp_path("missing"));
	tap_ok(!ks && errno == ENOENT, "missing kallsyms: ENOENT");
}

/* Address of the first text symbol named want. */
static bool kallsyms_addr(const char *want, uint64_t *addr)
{
	char line[1024], name[512], type;
	unsigned long long a;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &a, &type, name) == 3 &&
		    strchr("tT", type) && !strcmp(name, want)) {
			*addr = a;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool kallsyms_has_alias(uint64_t addr, const char *alias)
{
	char line[1024], name[512], type;
	unsigned long long a;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %511s", &a, &type, name) == 3 &&
			a == addr && strchr("tTwW", type) &&
			!strcmp(name, alias);
	fclose(f);
	return found;
}

static void test_kallsyms_real(void)
{
	uint64_t sched = 0, text = 0, off = 0;
	const char *name = NULL, *mod = NULL;
	struct pm_kallsyms *ks;
	int err;

	if (!kallsyms_addr("schedule", &sched) || !kallsyms_addr("_text", &text) ||
	    !sched || !text) {
		skip("/proc/kallsyms lookups",
		     "addresses hidden (kernel.kptr_restrict) or no kallsyms");
		return;
	}
	ks = pm_kallsyms__load(NULL);
	tap_ok(ks != NULL, "/proc/kallsyms loads%s%s", ks ? "" : ": ",
	       ks ? "" : strerror(errno));
	if (!ks)
		return;
	err = pm_kallsyms__find(ks, sched, &name, &mod, &off);
	tap_ok(!err && !strcmp(name, "schedule") && !mod && off == 0,
	       "schedule's address is schedule+0 in the kernel image");
	err = pm_kallsyms__find(ks, sched + 5, &name, &mod, &off);
	tap_ok(!err && !strcmp(name, "schedule") && off == 5,
	       "and +5 is schedule+5");
	err = pm_kallsyms__find(ks, text, &name, &mod, &off);
	tap_ok(!err && off == 0 && kallsyms_has_alias(text, name),
	       "_text's address is %s+0, one of its aliases", err ? "?" : name);
	pm_kallsyms__delete(ks);
}

static void cleanup(void)
{
	static const char *const files[] = {
		"kallsyms",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmpdir);
}

int main(void)
{
	if (fixture__init("test-kallsyms")) {
		printf("Bail out! cannot set up: %s\n", strerror(errno));
		return 1;
	}
	test_kallsyms_fake();
	test_kallsyms_big();
	test_kallsyms_refused();
	test_kallsyms_real();
	cleanup();
	return tap_done();
}
