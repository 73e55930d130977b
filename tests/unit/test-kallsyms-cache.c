// SPDX-License-Identifier: GPL-2.0
/*
 * The cache of the running kernel's symbols, on hand-written kallsyms,
 * notes and modules files: a cache is used only while its key (build id,
 * modules) matches and its file is this user's alone, and a cached table
 * answers as the kallsyms file would, reading it for what the key cannot
 * vouch for (run-time code, a file's last symbol).
 *
 * Whether the cache was used shows in the names: the kallsyms file is
 * rewritten with other names at the same addresses after the cache was
 * written, so a table from the cache still says the old ones.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-fixture.h"
#include "symbols/kallsyms.h"
#include "tap.h"

/* Names are 5 letters: prefix "old" or "new", then the symbol's own two. */
static void write_kallsyms(const char *prefix)
{
	char text[1024];
	int n = snprintf(text, sizeof(text),
			 "ffffffff81000000 T %s_a\n"
			 "ffffffff81000100 t %s_b\n"
			 "ffffffff81000200 T %s_c\n"
			 "ffffffffc0000000 t %s_d\t[mymod]\n"
			 "ffffffffc0000040 T %s_e\t[mymod]\n"
			 "ffffffffc0001000 t %s_f\t[bpf]\n",
			 prefix, prefix, prefix, prefix, prefix, prefix);

	write_file(tmp_path("kallsyms"), text, (size_t)n);
}

static void write_notes(unsigned char first)
{
	unsigned char notes[64], id[20];
	size_t len;

	memset(id, 0x5a, sizeof(id));
	id[0] = first;
	len = put_note(notes, 3, "GNU", 4, id, sizeof(id));
	write_file(tmp_path("notes"), notes, len);
}

static void write_modules(const char *extra)
{
	char text[512];
	int n = snprintf(text, sizeof(text),
			 "mymod 16384 0 - Live 0xffffffffc0000000\n%s", extra);

	write_file(tmp_path("modules"), text, (size_t)n);
}

static const struct pm_kallsyms_source *source(void)
{
	static struct pm_kallsyms_source src;
	static char dir[PATH_MAX], ksyms[PATH_MAX], notes[PATH_MAX], modules[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", tmp_path("cache/pmrec"));
	snprintf(ksyms, sizeof(ksyms), "%s", tmp_path("kallsyms"));
	snprintf(notes, sizeof(notes), "%s", tmp_path("notes"));
	snprintf(modules, sizeof(modules), "%s", tmp_path("modules"));
	src = (struct pm_kallsyms_source){ .cache_dir = dir, .kallsyms = ksyms,
					   .notes = notes, .modules = modules };
	return &src;
}

/* The name a table gives addr, "" for none; the table is read and dropped. */
static const char *name_at(uint64_t addr)
{
	static char out[64];
	struct pm_kallsyms *ks = pm_kallsyms__load_running(source());
	const char *name, *mod;
	uint64_t off;

	out[0] = '\0';
	if (ks && !pm_kallsyms__find(ks, addr, &name, &mod, &off))
		snprintf(out, sizeof(out), "%s", name);
	pm_kallsyms__delete(ks);
	return out;
}

/* The cache of build id first: written, then used while the key holds. */
static const char *cache_file(unsigned char first)
{
	static char path[PATH_MAX];
	char hex[41];
	int i;

	for (i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", i ? 0x5a : first);
	snprintf(path, sizeof(path), "%s/kallsyms-%s", source()->cache_dir, hex);
	return path;
}

static void test_cache_key(void)
{
	struct stat st;

	write_notes(1);
	write_modules("");
	write_kallsyms("old");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "old_a"), "first read: from kallsyms");
	tap_ok(!stat(cache_file(1), &st) && (st.st_mode & 0777) == 0600,
	       "the cache is written, 0600");
	write_kallsyms("new");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "old_a") &&
		       !strcmp(name_at(0xffffffffc0000010), "old_d"),
	       "same build id and modules: the cache answers (kernel and module)");
	write_modules("other 8192 0 - Live 0xffffffffc0010000\n");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "new_a"),
	       "a module loaded since: the cache is not used");
	write_kallsyms("old");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "new_a"),
	       "and it was written again for the new modules");
	write_modules("");
	write_kallsyms("new");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "new_a"),
	       "the module unloaded: the key changed again, kallsyms read");
	write_notes(2);
	write_kallsyms("old");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "old_a"),
	       "another kernel's build id: its own cache, not the other's");
	tap_ok(!access(cache_file(2), F_OK), "one cache file per build id");
}

static void test_cache_trust(void)
{
	const char *path = cache_file(3);

	write_notes(3);
	write_modules("");
	write_kallsyms("old");
	name_at(0xffffffff81000010);
	write_kallsyms("new");
	chmod(path, 0620);
	tap_ok(!strcmp(name_at(0xffffffff81000010), "new_a"),
	       "a group-writable cache is not used");
	write_kallsyms("old");
	tap_ok(!strcmp(name_at(0xffffffff81000010), "new_a"),
	       "the cache written in its place is 0600 and used");
	write_kallsyms("new");
	if (geteuid()) {
		skip("a cache of another user is not used", "not root");
	} else {
		tap_ok(!chown(path, 65534, 65534) &&
			       !strcmp(name_at(0xffffffff81000010), "new_a"),
		       "a cache of another user is not used");
	}
	write_kallsyms("old");
	tap_ok(!truncate(path, 100) &&
		       !strcmp(name_at(0xffffffff81000010), "old_a"),
	       "a truncated cache is not used");
	write_file(path, "PMKSYMS", 8);
	tap_ok(!strcmp(name_at(0xffffffff81000010), "old_a"), "nor a bare header");
}

/* What the key cannot vouch for is read from kallsyms, as it is now. */
static void test_cache_answers(void)
{
	struct pm_kallsyms *ks;
	struct pm_symbol s;
	const char *mod;

	write_notes(4);
	write_modules("");
	write_kallsyms("old");
	name_at(0xffffffff81000010);
	write_kallsyms("new");
	tap_ok(!strcmp(name_at(0xffffffff81000110), "old_b"), "cached: a bounded symbol");
	tap_ok(!strcmp(name_at(0xffffffffc0001010), "new_f"),
	       "run-time code ([bpf], no module listed): read from kallsyms");
	tap_ok(!strcmp(name_at(0xffffffff81000210), "new_c"),
	       "the kernel's last symbol (its end unknown): read from kallsyms");
	tap_ok(!strcmp(name_at(0xffffffffc0000050), "new_e"),
	       "a module's last symbol: read from kallsyms");
	ks = pm_kallsyms__load_running(source());
	tap_ok(ks && pm_kallsyms__nr(ks) == 6, "the whole table: kallsyms as it is now");
	if (ks) {
		pm_kallsyms__get(ks, 0, &s, &mod);
		tap_ok(!strcmp(s.name, "new_a") && !mod, "and its symbols are the new ones");
	}
	pm_kallsyms__delete(ks);
}

/*
 * A name the cache gave is still that name after a later lookup made the
 * table read kallsyms (archive and report hold names across lookups).
 */
static void test_cache_names_kept(void)
{
	struct pm_kallsyms *ks;
	const char *before = NULL, *after = NULL, *mod;
	uint64_t off;

	write_notes(4);
	write_modules("");
	write_kallsyms("old");
	name_at(0xffffffff81000010);
	ks = pm_kallsyms__load_running(source());
	if (ks && pm_kallsyms__find(ks, 0xffffffff81000110, &before, &mod, &off))
		before = NULL;
	write_kallsyms("new");
	if (ks && pm_kallsyms__find(ks, 0xffffffffc0001010, &after, &mod, &off))
		after = NULL;
	tap_ok(before && after && !strcmp(after, "new_f") && !strcmp(before, "old_b"),
	       "a cached name stays readable once kallsyms is read in its place");
	pm_kallsyms__delete(ks);
}

/* A kernel frame in the user's half (a stack's garbage) names nothing, and keeps the cache. */
static void test_cache_user_half(void)
{
	struct pm_kallsyms *ks;
	const char *name = NULL, *mod;
	uint64_t off;

	write_notes(4);
	write_modules("");
	write_kallsyms("old");
	name_at(0xffffffff81000010);
	write_kallsyms("new");
	ks = pm_kallsyms__load_running(source());
	tap_ok(ks && pm_kallsyms__find(ks, 13, &name, &mod, &off) == -ENOENT,
	       "an address in the user's half: no symbol");
	tap_ok(ks && !pm_kallsyms__find(ks, 0xffffffff81000110, &name, &mod, &off) &&
	       !strcmp(name, "old_b"), "and the cache still answers");
	pm_kallsyms__delete(ks);
}

static void cleanup(void)
{
	static const char *const files[] = { "kallsyms", "notes", "modules" };
	unsigned char id;
	size_t i;

	for (id = 1; id <= 4; id++)
		unlink(cache_file(id));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmp_path("cache/pmrec"));
	rmdir(tmp_path("cache"));
	rmdir(tmpdir);
}

int main(void)
{
	if (fixture__init("test-kallsyms-cache")) {
		printf("Bail out! cannot set up: %s\n", strerror(errno));
		return 1;
	}
	test_cache_key();
	test_cache_trust();
	test_cache_answers();
	test_cache_names_kept();
	test_cache_user_half();
	cleanup();
	return tap_done();
}
