// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's symbols without their formatting: /proc/kallsyms
 * costs the kernel tens of milliseconds to print, every time.  Once
 * parsed, the table (sorted symbols and their names) is kept in the
 * user's cache directory, one file per kernel build id, and mapped as it
 * is by the next run whose key matches: the kernel's build id and the
 * modules loaded (name, address, size).
 *
 * What the key cannot see is code the kernel makes at run time (BPF
 * programs, ftrace and kprobe trampolines: "modules" /proc/modules does
 * not list).  So a cached table answers only for a symbol of the kernel
 * image or of a listed module that the next symbol of the same file
 * bounds, and for no symbol in the user's half; any other address
 * (run-time code, a file's last symbol, no symbol at all in the kernel's
 * half) reads /proc/kallsyms in place (kallsyms.c).  Run-time
 * code is never inside the kernel's or a module's text, so the answers
 * the cache gives are the ones /proc/kallsyms would.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/output.h"
#include "symbols/elf.h"
#include "symbols/kallsyms.h"
#include "symbols/kallsyms_int.h"

#define KCACHE_MAGIC "PMKSYMS"
/* 2: an address's last kallsyms alias names it, as perf names it. */
#define KCACHE_VERSION 2
/* Written and read by the same build: native byte order, checked. */
#define KCACHE_ORDER 0x01020304u
/* Bounds what is mapped: /proc/kallsyms lists a few hundred thousand symbols. */
#define KCACHE_MAX_SIZE (256u << 20)
#define KCACHE_MODULES_MAX (1u << 20)

struct kcache_header {
	char magic[8];
	uint32_t version, order;
	uint32_t sym_size, key_len;
	uint64_t nr, names_len;
};

/* The key, then the symbols, then their names, each 8-byte aligned. */
static size_t kcache__align(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* One /proc/modules line, "NAME SIZE REFS DEPS STATE ADDR ...", into the key. */
static int kcache__module(struct pm_buf *key, const char *line)
{
	char name[256], state[32], deps[4096];
	unsigned long long size, addr;
	unsigned refs;
	char text[320];
	int n;

	if (sscanf(line, "%255s %llu %u %4095s %31s %llx", name, &size, &refs, deps, state,
		   &addr) != 6)
		return 0;
	n = snprintf(text, sizeof(text), "module %s %llx %llu\n", name, addr, size);
	return n > 0 && (size_t)n < sizeof(text) ? pm_buf__append(key, text, (size_t)n) : 0;
}

/*
 * What the cache must match: "build-id HEX" and one "module NAME ADDR SIZE"
 * line per loaded module.  0, -ENOENT (no build id to key on) or -errno.
 */
static int kcache__key(const struct pm_kallsyms_source *src, struct pm_buf *key,
		       char hex[2 * PM_BUILD_ID_SIZE + 1])
{
	unsigned char id[PM_BUILD_ID_SIZE];
	char *text = NULL, *line, *save;
	size_t len, i;
	int fd, err;

	fd = pm_file__open(src->notes ? src->notes : "/sys/kernel/notes", O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return fd;
	err = pm_file__read_all(fd, 1 << 16, &text, &len);
	close(fd);
	err = err ?: pm_elf__build_id_from_notes(text, len, id, &len);
	free(text);
	if (err)
		return err;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	err = pm_buf__append(key, "build-id ", 9) ?: pm_buf__append(key, hex, 2 * len) ?:
	      pm_buf__append(key, "\n", 1);
	if (err)
		return err;
	/* No /proc/modules: a kernel without modules. */
	fd = pm_file__open(src->modules ? src->modules : "/proc/modules", O_RDONLY, 0, 0, NULL);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	text = NULL;
	err = pm_file__read_all(fd, KCACHE_MODULES_MAX, &text, &len);
	close(fd);
	for (line = err ? NULL : strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save))
		err = kcache__module(key, line);
	free(text);
	return err;
}

static int kcache__path(char *path, size_t size, const char *dir, const char *hex)
{
	int n = snprintf(path, size, "%s/kallsyms-%s", dir, hex);

	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* A file only its owner, this user, can have written. */
static bool kcache__trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The mapped file's parts, checked against its size; false when they do not fit. */
static bool kcache__layout(const struct kcache_header *h, size_t size, size_t *syms_off,
			   size_t *names_off)
{
	uint64_t syms_len;

	if (memcmp(h->magic, KCACHE_MAGIC, sizeof(KCACHE_MAGIC)) ||
	    h->version != KCACHE_VERSION || h->order != KCACHE_ORDER ||
	    h->sym_size != sizeof(struct pm_sym) || h->nr > KCACHE_MAX_SIZE ||
	    h->names_len < 2 || h->names_len > SYM_NAMES_MAX || h->key_len > KCACHE_MAX_SIZE)
		return false;
	*syms_off = kcache__align(sizeof(*h) + h->key_len);
	syms_len = h->nr * sizeof(struct pm_sym);
	*names_off = *syms_off + kcache__align(syms_len);
	return *names_off <= size && size - *names_off == h->names_len;
}

/*
 * Every name offset leaves room for the name and its module before the
 * end (whose last two bytes are NULs), and the addresses are in order.
 */
static bool kcache__valid(const struct pm_symtab *st, size_t names_len)
{
	size_t i;

	if (st->names[names_len - 1] || st->names[names_len - 2])
		return false;
	for (i = 0; i < st->nr; i++)
		if (st->syms[i].name >= names_len - 1 ||
		    (i && st->syms[i].addr < st->syms[i - 1].addr))
			return false;
	return true;
}

/* The cached table of key in fd, or NULL when it is not one. */
static struct pm_kallsyms *kcache__map(int fd, const struct stat *st, const struct pm_buf *key)
{
	const struct kcache_header *h;
	size_t syms_off, names_off;
	struct pm_kallsyms *ks;
	void *map;

	if (!kcache__trusted(st) || st->st_size < (off_t)sizeof(*h))
		return NULL;
	map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	h = map;
	ks = calloc(1, sizeof(*ks));
	if (!ks || !kcache__layout(h, (size_t)st->st_size, &syms_off, &names_off) ||
	    h->key_len != key->len || memcmp(h + 1, key->data, key->len))
		goto refuse;
	ks->map = map;
	ks->map_len = (size_t)st->st_size;
	ks->key = (const char *)(h + 1);
	ks->key_len = h->key_len;
	ks->st = (struct pm_symtab){ .syms = (struct pm_sym *)((char *)map + syms_off),
				     .nr = h->nr, .names = (char *)map + names_off };
	if (kcache__valid(&ks->st, h->names_len))
		return ks;
refuse:
	free(ks);
	munmap(map, (size_t)st->st_size);
	return NULL;
}

static struct pm_kallsyms *kcache__open(const char *path, const struct pm_buf *key)
{
	struct pm_kallsyms *ks;
	struct stat st;
	int fd;

	fd = pm_file__open(path, O_RDONLY, 0, KCACHE_MAX_SIZE, &st);
	if (fd < 0)
		return NULL;
	ks = kcache__map(fd, &st, key);
	close(fd);
	return ks;
}

/*
 * The cache directory, made if need be (and its parent: ~/.cache may not
 * be there yet); false when it is not this user's alone.
 */
static bool kcache__dir(const char *dir)
{
	int len = pm_path__dir_len(dir);
	char parent[PATH_MAX];
	struct stat st;

	if (len > 0 && (size_t)len < sizeof(parent)) {
		memcpy(parent, dir, (size_t)len);
		parent[len] = '\0';
		mkdir(parent, 0700);
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	return !lstat(dir, &st) && S_ISDIR(st.st_mode) && kcache__trusted(&st);
}

/* Writes ks under key to path, atomically; a failure leaves no cache, and no harm. */
static void kcache__write(const char *path, const struct pm_buf *key, const struct pm_kallsyms *ks)
{
	static const char pad[8];
	struct kcache_header h = { .magic = KCACHE_MAGIC, .version = KCACHE_VERSION,
				   .order = KCACHE_ORDER, .sym_size = sizeof(struct pm_sym),
				   .key_len = (uint32_t)key->len, .nr = ks->st.nr };
	size_t syms_len = ks->st.nr * sizeof(struct pm_sym), i, names_len = 0;
	struct pm_outfile f;
	int err;

	/* The names end with the last symbol's module, and a NUL to bound it. */
	for (i = 0; i < ks->st.nr; i++) {
		const char *mod = kallsyms__sym_module(&ks->st, &ks->st.syms[i]);
		size_t end = (size_t)(mod - ks->st.names) + strlen(mod) + 1;

		if (end > names_len)
			names_len = end;
	}
	h.names_len = names_len + 1;
	if (pm_outfile__open(&f, path))
		return;
	f.mode = 0600;
	err = pm_write_all(f.fd, &h, sizeof(h)) ?: pm_write_all(f.fd, key->data, key->len) ?:
	      pm_write_all(f.fd, pad, kcache__align(sizeof(h) + key->len) - sizeof(h) - key->len) ?:
	      pm_write_all(f.fd, ks->st.syms, syms_len) ?:
	      pm_write_all(f.fd, pad, kcache__align(syms_len) - syms_len) ?:
	      pm_write_all(f.fd, ks->st.names, names_len) ?: pm_write_all(f.fd, pad, 1);
	pm_outfile__close(&f, path, err);
}

struct pm_kallsyms *pm_kallsyms__load_running(const struct pm_kallsyms_source *src)
{
	char hex[2 * PM_BUILD_ID_SIZE + 1], path[PATH_MAX];
	struct pm_buf key = { 0 };
	struct pm_kallsyms *ks = NULL;
	bool cache;
	int err;

	cache = src->cache_dir && !kcache__key(src, &key, hex) &&
		!kcache__path(path, sizeof(path), src->cache_dir, hex) && kcache__dir(src->cache_dir);
	if (cache)
		ks = kcache__open(path, &key);
	if (!ks) {
		ks = pm_kallsyms__load(src->kallsyms);
		if (ks && cache)
			kcache__write(path, &key, ks);
	}
	err = errno;
	if (ks && src->kallsyms && !ks->kallsyms) {
		ks->kallsyms = strdup(src->kallsyms);
		if (!ks->kallsyms) {
			pm_kallsyms__delete(ks);
			ks = NULL;
			err = ENOMEM;
		}
	}
	pm_buf__exit(&key);
	errno = err;
	return ks;
}

/* Whether the key lists module mod. */
static bool kcache__listed(const struct pm_kallsyms *ks, const char *mod)
{
	size_t len = strlen(mod);
	const char *p = ks->key, *end = ks->key + ks->key_len;

	while ((p = memmem(p, (size_t)(end - p), "\nmodule ", 8))) {
		p += 8;
		if ((size_t)(end - p) > len && !memcmp(p, mod, len) && p[len] == ' ')
			return true;
	}
	return false;
}

/*
 * No text symbol is in the user's half of the address space of a kernel
 * whose own text is in the other (x86-64, arm64, riscv64, ppc64: run-time
 * code too), so /proc/kallsyms read now would find none there either: a
 * kernel-mode frame of such an address (a stack's garbage) keeps the cache.
 */
static bool kcache__user_half(const struct pm_kallsyms *ks, uint64_t addr)
{
	return ks->st.nr && ks->st.syms[0].addr >> 63 && !(addr >> 63);
}

bool kallsyms_cache__answers(const struct pm_kallsyms *ks, uint64_t addr, const struct pm_sym *s)
{
	const struct pm_sym *end = ks->st.syms + ks->st.nr;
	const char *mod;

	if (!s)
		return kcache__user_half(ks, addr);
	if (s + 1 == end)
		return false;
	mod = kallsyms__sym_module(&ks->st, s);
	return !strcmp(mod, kallsyms__sym_module(&ks->st, s + 1)) &&
	       (!*mod || kcache__listed(ks, mod));
}
