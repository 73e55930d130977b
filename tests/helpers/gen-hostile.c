// SPDX-License-Identifier: GPL-2.0
/*
 * gen-hostile: writes perf.data inputs built to exhaust a reader's memory
 * or time, small on disk (streams, sparse files), for the bound tests of
 * t0550-dump-bounds.sh.
 *
 *   gen-hostile queue N [--file]	N 16-byte samples in random time order,
 *					no FINISHED_ROUND (a pipe stream, or
 *					file-mode data written to a pipe)
 *   gen-hostile ids N -o FILE		one attr with N sample ids that collide
 *					under a fixed multiplicative hash
 *   gen-hostile shared-ids A N -o FILE	A attrs naming one section of N ids,
 *					a sparse file
 *   gen-hostile attrs KIB K		a pipe stream of KIB KiB of HEADER_ATTR
 *					records with K distinct ids each
 *   gen-hostile elf ELF N [LEN] -o FILE	writes ELF, a shared object of 2000
 *					functions that share one name of LEN
 *					bytes (1 MiB), and FILE: its MMAP2 and
 *					N samples in it
 *   gen-hostile comm NAME -o FILE	a COMM record naming pid 100 NAME (up
 *					to 15 bytes, any bytes but NUL; empty
 *					too) and 3 samples of it
 *   gen-hostile threads N -o FILE	N threads whose tids (and pids) are
 *					the multiples of 65536 from 65536 on,
 *					each a COMM "t<i>" and one sample: keys
 *					that share their low 16 bits
 *
 * Output goes to stdout without -o.  Built standalone, like gen-perfdata.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_data.h"

static FILE *out;

static void die(const char *what)
{
	fprintf(stderr, "gen-hostile: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void put(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, out) != n)
		die("write");
}

static void put_u32(uint32_t v)
{
	put(&v, sizeof(v));
}

static void put_u64(uint64_t v)
{
	put(&v, sizeof(v));
}

static void put_header(uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };

	put(&h, sizeof(h));
}

static struct perf_event_attr make_attr(uint64_t sample_type)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = PM_FILE_ATTR_SIZE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000,
		.sample_type = sample_type,
		.mmap = 1,
		.comm = 1,
	};
}

static void put_attr(const struct perf_event_attr *attr)
{
	unsigned char buf[PM_FILE_ATTR_SIZE] = { 0 };

	memcpy(buf, attr, sizeof(*attr) < sizeof(buf) ? sizeof(*attr) : sizeof(buf));
	put(buf, sizeof(buf));
}

static void put_pipe_header(void)
{
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };

	put(&h, sizeof(h));
}

/* A file header for attrs (each with its id section) then data, no features. */
static void put_file_header(uint64_t nr_attrs, uint64_t attrs_off, uint64_t data_off,
			    uint64_t data_size)
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section),
		.attrs = { .offset = attrs_off,
			   .size = nr_attrs * (PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section)) },
		.data = { .offset = data_off, .size = data_size },
	};

	put(&h, sizeof(h));
}

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* SAMPLE with sample_type TIME: the smallest record with a time. */
static void gen_queue(uint64_t n, bool file)
{
	struct perf_event_attr attr = make_attr(PERF_SAMPLE_TIME);
	uint64_t i;

	if (file) {
		uint64_t attrs_off = PERF_FILE_HEADER_SIZE;
		uint64_t data_off = attrs_off + PM_FILE_ATTR_SIZE + 16;

		put_file_header(1, attrs_off, data_off, n * 16);
		put_attr(&attr);
		put_u64(0);
		put_u64(0);
	} else {
		put_pipe_header();
		put_header(PERF_RECORD_HEADER_ATTR, 0, 8 + PM_FILE_ATTR_SIZE);
		put_attr(&attr);
	}
	for (i = 0; i < n; i++) {
		put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 16);
		put_u64(1000000 + rnd() % (n * 16));
	}
}

/* The inverse of an odd number modulo 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

#define SAMPLE_ID_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME)

static void put_id_sample(uint64_t id, uint64_t ip, uint64_t time)
{
	put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 40);
	put_u64(id);
	put_u64(ip);
	put_u32(100);
	put_u32(100);
	put_u64(time);
}

/*
 * id * 0x9e3779b97f4a7c15 = i: bits 32 and up are 0 for every i < 2^32, so
 * (id * k) >> 32 is 0 whatever the table size.
 */
static void gen_ids(uint64_t n)
{
	struct perf_event_attr attr = make_attr(SAMPLE_ID_TYPE);
	uint64_t inv = inverse(0x9e3779b97f4a7c15ULL), i, nr_samples = 1000;
	uint64_t ids_off = PERF_FILE_HEADER_SIZE, attrs_off = ids_off + n * 8;
	uint64_t data_off = attrs_off + PM_FILE_ATTR_SIZE + 16;

	put_file_header(1, attrs_off, data_off, nr_samples * 40);
	for (i = 0; i < n; i++)
		put_u64((i + 1) * inv);
	put_attr(&attr);
	put_u64(ids_off);
	put_u64(n * 8);
	for (i = 0; i < nr_samples; i++)
		put_id_sample((i % n + 1) * inv, 0x401000, 1000 + i);
}

/* The id section lies past the data, in a hole of the file. */
static void gen_shared_ids(uint64_t nr_attrs, uint64_t n)
{
	struct perf_event_attr attr = make_attr(SAMPLE_ID_TYPE);
	uint64_t attrs_off = PERF_FILE_HEADER_SIZE, nr_samples = 100, i;
	uint64_t data_off = attrs_off + nr_attrs * (PM_FILE_ATTR_SIZE + 16);
	uint64_t ids_off = (data_off + nr_samples * 40 + 4095) & ~4095ULL;

	put_file_header(nr_attrs, attrs_off, data_off, nr_samples * 40);
	for (i = 0; i < nr_attrs; i++) {
		put_attr(&attr);
		put_u64(ids_off);
		put_u64(n * 8);
	}
	for (i = 0; i < nr_samples; i++)
		put_id_sample(0, 0x401000, 1000 + i);
	if (fflush(out) || ftruncate(fileno(out), (off_t)(ids_off + n * 8)))
		die("ftruncate");
}

/* HEADER_ATTR records until kib KiB, then a few samples of the first. */
static void gen_attrs(uint64_t kib, uint64_t k)
{
	/* Without ids, samples carry none: the first attr is theirs. */
	struct perf_event_attr attr = make_attr(k ? SAMPLE_ID_TYPE : SAMPLE_ID_TYPE &
						~(uint64_t)PERF_SAMPLE_IDENTIFIER);
	uint64_t done = 16, id = 1, i;
	size_t size = 8 + PM_FILE_ATTR_SIZE + k * 8;

	if (size > 65528) {
		errno = EINVAL;
		die("too many ids for one record");
	}
	put_pipe_header();
	while (done < kib << 10) {
		put_header(PERF_RECORD_HEADER_ATTR, 0, size);
		put_attr(&attr);
		for (i = 0; i < k; i++)
			put_u64(id++);
		done += size;
	}
	for (i = 0; i < 100; i++) {
		if (k) {
			put_id_sample(1, 0x401000, 1000 + i);
			continue;
		}
		put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32);
		put_u64(0x401000);
		put_u32(100);
		put_u32(100);
		put_u64(1000 + i);
	}
}

/* --- a shared object whose symbols share one huge name ------------------- */

#define ELF_NR_SYMS 2000
#define ELF_TEXT 0x1000

static void write_elf(const char *path, size_t name_len)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t text_size = ELF_NR_SYMS * 16, i;
	size_t str_off = ELF_TEXT + text_size, str_size = name_len + 2;
	size_t sym_off = (str_off + str_size + 7) & ~(size_t)7;
	size_t sym_size = (ELF_NR_SYMS + 1) * sizeof(Elf64_Sym);
	size_t shstr_off = sym_off + sym_size, sh_off = (shstr_off + sizeof(shstr) + 7) & ~(size_t)7;
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr),
		.e_shoff = sh_off,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = 1,
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 5,
		.e_shstrndx = 4,
	};
	Elf64_Phdr ph = {
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0,
		.p_filesz = ELF_TEXT + text_size, .p_memsz = ELF_TEXT + text_size, .p_align = 0x1000,
	};
	Elf64_Shdr sh[5] = {
		[1] = { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			.sh_addr = ELF_TEXT, .sh_offset = ELF_TEXT, .sh_size = text_size,
			.sh_addralign = 16 },
		[2] = { .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = sym_off,
			.sh_size = sym_size, .sh_link = 3, .sh_info = 1, .sh_addralign = 8,
			.sh_entsize = sizeof(Elf64_Sym) },
		[3] = { .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = str_off,
			.sh_size = str_size, .sh_addralign = 1 },
		[4] = { .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = shstr_off,
			.sh_size = sizeof(shstr), .sh_addralign = 1 },
	};
	unsigned char *img = calloc(1, sh_off + sizeof(sh));
	Elf64_Sym *syms;
	FILE *f;

	if (!img)
		die("calloc");
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + eh.e_phoff, &ph, sizeof(ph));
	memset(img + str_off + 1, 'n', name_len);
	syms = (Elf64_Sym *)(img + sym_off);
	for (i = 0; i < ELF_NR_SYMS; i++)
		syms[i + 1] = (Elf64_Sym){
			/* Names that start inside one another end together. */
			.st_name = (uint32_t)(1 + i % 1000 % name_len),
			.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = 1,
			.st_value = ELF_TEXT + 16 * i,
			.st_size = 16,
		};
	memcpy(img + shstr_off, shstr, sizeof(shstr));
	memcpy(img + sh_off, sh, sizeof(sh));
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, sh_off + sizeof(sh), f) != sh_off + sizeof(sh) || fclose(f))
		die(path);
	free(img);
}

/* The file: one MMAP2 of the object at 0x400000 for pid 100, n samples in it. */
static void gen_elf(const char *path, uint64_t n, uint64_t sym_len)
{
	struct perf_event_attr attr = make_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME);
	size_t name_len = (strlen(path) + 8) & ~(size_t)7, mmap_size = 8 + 64 + name_len;
	uint64_t attrs_off = PERF_FILE_HEADER_SIZE, data_off = attrs_off + PM_FILE_ATTR_SIZE + 16;
	char *name = calloc(1, name_len);
	uint64_t i;

	if (!name)
		die("calloc");
	if (!sym_len || sym_len > 1u << 30) {
		errno = EINVAL;
		die("name length");
	}
	write_elf(path, (size_t)sym_len);
	attr.mmap2 = 1;
	put_file_header(1, attrs_off, data_off, mmap_size + n * 32);
	put_attr(&attr);
	put_u64(0);
	put_u64(0);
	put_header(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, mmap_size);
	put_u32(100);
	put_u32(100);
	put_u64(0x400000);
	put_u64(0x100000);
	put_u64(0);
	put_u32(0);		/* maj, min, ino 0: known by the path */
	put_u32(0);
	put_u64(0);
	put_u64(0);
	put_u32(5);		/* PROT_READ | PROT_EXEC */
	put_u32(2);		/* MAP_PRIVATE */
	memcpy(name, path, strlen(path));
	put(name, name_len);
	for (i = 0; i < n; i++) {
		put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32);
		put_u64(0x400000 + ELF_TEXT + 16 * (i % ELF_NR_SYMS) + 4);
		put_u32(100);
		put_u32(100);
		put_u64(1000 + i);
	}
	free(name);
}

/* COMM then samples: what a process renamed with prctl(PR_SET_NAME) leaves. */
static void gen_comm(const char *comm)
{
	struct perf_event_attr attr = make_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME);
	uint64_t attrs_off = PERF_FILE_HEADER_SIZE, data_off = attrs_off + PM_FILE_ATTR_SIZE + 16;
	char name[16] = { 0 };
	uint64_t i;

	strncpy(name, comm, sizeof(name) - 1);
	put_file_header(1, attrs_off, data_off, 32 + 3 * 32);
	put_attr(&attr);
	put_u64(0);
	put_u64(0);
	put_header(PERF_RECORD_COMM, PERF_RECORD_MISC_USER, 32);
	put_u32(100);
	put_u32(100);
	put(name, sizeof(name));
	for (i = 0; i < 3; i++) {
		put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32);
		put_u64(0x401000 + i);
		put_u32(100);
		put_u32(100);
		put_u64(1000 + i);
	}
}

/*
 * Thread i is pid = tid = (i + 1) << 16, named "t<i>", with one sample at
 * time i: a thread map that hashes only the low bits puts all in one slot.
 */
static void gen_threads(uint64_t n)
{
	struct perf_event_attr attr = make_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME);
	uint64_t attrs_off = PERF_FILE_HEADER_SIZE, data_off = attrs_off + PM_FILE_ATTR_SIZE + 16;
	uint64_t i;

	if (n > INT32_MAX >> 16) {
		fprintf(stderr, "gen-hostile: at most %d threads\n", INT32_MAX >> 16);
		exit(2);
	}
	put_file_header(1, attrs_off, data_off, n * (32 + 32));
	put_attr(&attr);
	put_u64(0);
	put_u64(0);
	for (i = 0; i < n; i++) {
		uint32_t tid = (uint32_t)(i + 1) << 16;
		char name[16] = { 0 };

		snprintf(name, sizeof(name), "t%llu", (unsigned long long)i);
		put_header(PERF_RECORD_COMM, 0, 32);
		put_u32(tid);
		put_u32(tid);
		put(name, sizeof(name));
	}
	for (i = 0; i < n; i++) {
		uint32_t tid = (uint32_t)(i + 1) << 16;

		put_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32);
		put_u64(0x401000);
		put_u32(tid);
		put_u32(tid);
		put_u64(1000 + i);
	}
}

static uint64_t arg_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "gen-hostile: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: gen-hostile queue N [--file] | ids N | shared-ids ATTRS N |\n"
			"                   attrs KIB K | elf ELF_PATH N [LEN] | comm NAME |\n"
			"                   threads N    [-o FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	char *args[4];
	bool file = false;
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--file"))
			file = true;
		else if (n < 4)
			args[n++] = argv[i];
		else
			usage();
	}
	if (!n)
		usage();
	out = path ? fopen(path, "wb") : stdout;
	if (!out)
		die(path);
	if (!strcmp(args[0], "queue") && n == 2)
		gen_queue(arg_u64(args[1]), file);
	else if (!strcmp(args[0], "ids") && n == 2)
		gen_ids(arg_u64(args[1]));
	else if (!strcmp(args[0], "shared-ids") && n == 3 && path)
		gen_shared_ids(arg_u64(args[1]), arg_u64(args[2]));
	else if (!strcmp(args[0], "attrs") && n == 3)
		gen_attrs(arg_u64(args[1]), arg_u64(args[2]));
	else if (!strcmp(args[0], "comm") && n == 2 && path)
		gen_comm(args[1]);
	else if (!strcmp(args[0], "threads") && n == 2 && path)
		gen_threads(arg_u64(args[1]));
	else if (!strcmp(args[0], "elf") && (n == 3 || n == 4) && path)
		gen_elf(args[1], arg_u64(args[2]), n == 4 ? arg_u64(args[3]) : 1u << 20);
	else
		usage();
	if (fflush(out) || (path && fclose(out)))
		die("write");
	return 0;
}
