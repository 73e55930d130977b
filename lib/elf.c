// SPDX-License-Identifier: GPL-2.0
/* libelf first: "elf.h" below relies on <elf.h> being the C library's. */
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "elf.h"
#include "file.h"
#include "symname.h"

struct pm_sym {
	uint64_t addr;
	uint32_t size;
	/*
	 * Offset of the name in the table's names; kallsyms names are
	 * followed by the module name ("" for the kernel image).  rank says
	 * how the symbol stands among its aliases (RANK_* bits).
	 */
	uint32_t name : 29;
	uint32_t rank : 3;
};

/* A table's names stay below this: offsets fit pm_sym.name. */
#define SYM_NAMES_MAX (1u << 29)
/*
 * Bytes of a name the alias rules look at: names are as long as the file
 * makes them, and one address can have thousands of aliases.
 */
#define SYM_CMP_MAX 4096

struct pm_symtab {
	struct pm_sym *syms;
	size_t nr;
	char *names;
};

struct pm_seg {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

struct pm_dso {
	/* Hash chain, or the cache's list of replaced DSOs. */
	struct pm_dso *next;
	uint64_t dev;
	uint64_t ino;			/* 0: known by path only */
	struct timespec mtime;
	bool has_mtime;
	bool hdr_done;
	bool syms_done;
	bool has_build_id;
	int hdr_err;
	int syms_err;
	size_t build_id_len;
	unsigned char build_id[PM_BUILD_ID_SIZE];
	struct pm_seg *segs;
	size_t nr_segs;
	struct pm_symtab symtab;
	char path[];
};

struct pm_dso_cache {
	struct pm_dso **buckets;
	size_t nr_buckets;		/* a power of two */
	size_t nr;
	/* Superseded by a newer file, but callers may still hold them. */
	struct pm_dso *replaced;
};

struct pm_kallsyms {
	struct pm_symtab st;
};

#define PM_DEBUG_DIR "/usr/lib/debug"

/* Rank bits: what makes one alias a better name than another. */
#define RANK_SIZED	4
#define RANK_STRONG	2
#define RANK_GLOBAL	1

#define KSYM_PAGE 4096

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static bool elf_ready;

static void elf_init(void)
{
	elf_ready = elf_version(EV_CURRENT) != EV_NONE;
}

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file__open(struct elf_file *ef, const char *path, unsigned accept,
			  struct stat *st)
{
	int err;

	ef->elf = NULL;
	pthread_once(&elf_once, elf_init);
	if (!elf_ready)
		return -ELIBBAD;
	/* A mapped path may name a FIFO or a device: never block on it. */
	ef->fd = pm_file__open(path, O_RDONLY, accept, 0, st);
	if (ef->fd < 0)
		return ef->fd == -EINVAL || ef->fd == -EISDIR ? -ENOEXEC : ef->fd;
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf) {
		err = -ENOEXEC;
		goto out_close;
	}
	if (elf_kind(ef->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out_end;
	}
	return 0;

out_end:
	elf_end(ef->elf);
out_close:
	close(ef->fd);
	return err;
}

static void elf_file__close(struct elf_file *ef)
{
	elf_end(ef->elf);
	close(ef->fd);
}

static void copy_build_id(unsigned char *id, size_t *len, const void *desc,
			  size_t descsz)
{
	*len = descsz < PM_BUILD_ID_SIZE ? descsz : PM_BUILD_ID_SIZE;
	memcpy(id, desc, *len);
}

static int data_build_id(Elf_Data *data, unsigned char *id, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	const char *buf = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID &&
		    nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(buf + name_off, ELF_NOTE_GNU,
			    sizeof(ELF_NOTE_GNU))) {
			copy_build_id(id, len, buf + desc_off, nh.n_descsz);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

static int elf__build_id(Elf *elf, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i, nr;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_NOTE || !ph.p_filesz)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
							      ELF_T_NHDR);
		if (data && !data_build_id(data, id, len))
			return 0;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && !data_build_id(data, id, len))
			return 0;
	}
	return -ENOENT;
}

int pm_elf__build_id(const char *path, unsigned char id[PM_BUILD_ID_SIZE],
		     size_t *len)
{
	struct elf_file ef;
	struct stat st;
	int err;

	err = elf_file__open(&ef, path, 0, &st);
	if (err)
		return err;
	err = elf__build_id(ef.elf, id, len);
	elf_file__close(&ef);
	return err;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t align4(uint64_t n)
{
	return (n + 3) & ~3ULL;
}

int pm_elf__build_id_from_notes(const void *notes, size_t size,
				unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	const unsigned char *p = notes, *name;
	uint64_t namesz, descsz;
	uint32_t type;
	size_t pos = 0;

	while (size - pos >= 12) {
		namesz = get_u32(p + pos);
		descsz = get_u32(p + pos + 4);
		type = get_u32(p + pos + 8);
		pos += 12;
		if (align4(namesz) > size - pos)
			break;
		name = p + pos;
		pos += align4(namesz);
		if (descsz > size - pos)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			copy_build_id(id, len, p + pos, descsz);
			return 0;
		}
		if (align4(descsz) > size - pos)
			break;
		pos += align4(descsz);
	}
	return -ENOENT;
}

/* Notes files of sysfs: the module's name comes from the recording. */
#define NOTES_MAX (1u << 20)

static int read_all(const char *path, char **bufp, size_t *lenp)
{
	int fd = pm_file__open(path, O_RDONLY, 0, 0, NULL), err;

	if (fd < 0)
		return fd;
	err = pm_file__read_all(fd, NOTES_MAX, bufp, lenp);
	close(fd);
	return err;
}

static int notes_file_build_id(const char *path, unsigned char *id,
			       size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	int err;

	err = read_all(path, &buf, &size);
	if (err)
		return err;
	err = pm_elf__build_id_from_notes(buf, size, id, len);
	free(buf);
	return err;
}

int pm_elf__kernel_build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	return notes_file_build_id("/sys/kernel/notes", id, len);
}

int pm_elf__module_build_id(const char *module,
			    unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	char path[PATH_MAX];
	int n;

	if (!*module || strchr(module, '/') || !strcmp(module, ".") ||
	    !strcmp(module, ".."))
		return -EINVAL;
	n = snprintf(path, sizeof(path),
		     "/sys/module/%s/notes/.note.gnu.build-id", module);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return notes_file_build_id(path, id, len);
}

static const char *sym__name(const struct pm_symtab *st,
			     const struct pm_sym *s)
{
	return st->names + s->name;
}

static unsigned char sym__rank(const struct pm_sym *s)
{
	return s->rank;
}

static size_t leading_underscores(const char *name)
{
	size_t n = 0;

	while (n < SYM_CMP_MAX && name[n] == '_')
		n++;
	return n;
}

static const char *sym__module(const struct pm_symtab *st,
			       const struct pm_sym *s)
{
	const char *name = sym__name(st, s);

	return name + strlen(name) + 1;
}

static int sym__cmp_addr(const void *a, const void *b)
{
	const struct pm_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* Which of two aliases names their address better, the way perf chooses. */
static bool sym__better(const struct pm_symtab *st, const struct pm_sym *x,
			const struct pm_sym *y)
{
	const char *nx = sym__name(st, x), *ny = sym__name(st, y);
	size_t lx, ly;

	if (sym__rank(x) != sym__rank(y))
		return sym__rank(x) > sym__rank(y);
	if (nx == ny)
		return false;
	lx = leading_underscores(nx);
	ly = leading_underscores(ny);
	if (lx != ly)
		return lx < ly;
	lx = strnlen(nx, SYM_CMP_MAX);
	ly = strnlen(ny, SYM_CMP_MAX);
	if (lx != ly)
		return lx > ly;
	return strncmp(nx, ny, SYM_CMP_MAX) < 0;
}

/* Sorts by address and keeps the best named symbol at each address. */
static void symtab__sort(struct pm_symtab *st)
{
	size_t i, j = 0;

	/* kallsyms comes sorted: checking is much cheaper than sorting. */
	for (i = 1; i < st->nr; i++) {
		if (st->syms[i - 1].addr > st->syms[i].addr) {
			qsort(st->syms, st->nr, sizeof(*st->syms),
			      sym__cmp_addr);
			break;
		}
	}
	for (i = 0; i < st->nr; i++) {
		if (j && st->syms[j - 1].addr == st->syms[i].addr) {
			if (sym__better(st, &st->syms[i], &st->syms[j - 1]))
				st->syms[j - 1] = st->syms[i];
			continue;
		}
		st->syms[j++] = st->syms[i];
	}
	st->nr = j;
}

static uint32_t clamp_size(uint64_t size)
{
	return size < UINT32_MAX ? size : UINT32_MAX;
}

static void symtab__exit(struct pm_symtab *st)
{
	free(st->syms);
	free(st->names);
}

size_t pm_symtab__nr(const struct pm_symtab *st)
{
	return st->nr;
}

static const struct pm_sym *symtab__lookup(const struct pm_symtab *st,
					   uint64_t addr)
{
	size_t lo = 0, hi = st->nr, mid;
	const struct pm_sym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &st->syms[lo - 1];
	return addr - s->addr < s->size ? s : NULL;
}

int pm_symtab__find(const struct pm_symtab *st, uint64_t addr,
		    const char **name, uint64_t *off)
{
	const struct pm_sym *s = symtab__lookup(st, addr);

	if (!s)
		return -ENOENT;
	*name = sym__name(st, s);
	*off = addr - s->addr;
	return 0;
}

/* Functions, and untyped labels in code (_start in assembly), as in perf. */
static bool elf_sym__is_function(Elf *elf, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	/* Linked files never have enough sections to need SHN_XINDEX. */
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	return type != STT_NOTYPE ||
	       (gelf_getshdr(elf_getscn(elf, sym->st_shndx), &sh) && (sh.sh_flags & SHF_EXECINSTR));
}

static unsigned char elf_sym__rank(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);
	unsigned char rank = 0;

	if (sym->st_size)
		rank |= RANK_SIZED;
	if (bind != STB_WEAK)
		rank |= RANK_STRONG;
	if (bind == STB_GLOBAL || bind == STB_GNU_UNIQUE)
		rank |= RANK_GLOBAL;
	return rank;
}

/* Sizeless symbols (often hand-written assembly) run to their section's end. */
static uint64_t elf_sym__size(Elf *elf, const GElf_Sym *sym)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (sym->st_size)
		return sym->st_size;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return sh.sh_addr + sh.sh_size - sym->st_value;
}

/* A function symbol before its name is copied. */
struct elf_cand {
	uint64_t addr;
	uint64_t size;
	size_t name;		/* offset in the string table, then in the names */
	unsigned char rank;
	bool dropped;		/* its name runs off the string table */
};

static int elf_cand__cmp_name(const void *a, const void *b)
{
	const struct elf_cand *x = a, *y = b;

	return (x->name > y->name) - (x->name < y->name);
}

/*
 * Copies the names of cands (sorted by name offset) out of the string table,
 * each byte of it at most once: names that start inside one another end at
 * the same NUL and share the copy.  A name longer than PM_SYM_NAME_MAX gets
 * a copy of its own, cut to that length and ending in "..." (one for all
 * the symbols that start there), so a hostile table cannot make every
 * later step hash, compare and print megabytes per sample.  With names
 * NULL, only sizes them.  Returns the bytes needed.
 */
static size_t elf_cands__copy_names(struct elf_cand *c, size_t nr, const char *strtab,
				    size_t strsz, char *names)
{
	size_t i, end = 0, shared = 0, base = 0, pos = 0, cut_off = 0, cut_base = 0;
	bool open = false, cut = false;
	const char *nul;

	for (i = 0; i < nr; i++) {
		size_t off = c[i].name;

		if (!open || off > end) {
			nul = memchr(strtab + off, '\0', strsz - off);
			if (!nul) {
				c[i].dropped = true;
				continue;
			}
			end = (size_t)(nul - strtab);
			/* Only the tail that short names can start in is shared. */
			shared = end - off > PM_SYM_NAME_MAX ? end - PM_SYM_NAME_MAX : off;
			base = pos;
			pos += end - shared + 1;
			open = true;
			cut = false;
			if (names)
				memcpy(names + base, strtab + shared, end - shared + 1);
		}
		if (end - off <= PM_SYM_NAME_MAX) {
			if (names)
				c[i].name = base + (off - shared);
			continue;
		}
		if (!cut || off != cut_off) {
			cut = true;
			cut_off = off;
			cut_base = pos;
			pos += PM_SYM_NAME_MAX + 1;
			if (names) {
				memcpy(names + cut_base, strtab + off, PM_SYM_NAME_MAX - 3);
				memcpy(names + cut_base + PM_SYM_NAME_MAX - 3, "...", 4);
			}
		}
		if (names)
			c[i].name = cut_base;
	}
	return pos;
}

/* The string table of a symbol section, if it is one. */
static int elf__strtab(Elf *elf, const GElf_Shdr *symsh, const char **strtab, size_t *strsz)
{
	Elf_Scn *scn = elf_getscn(elf, symsh->sh_link);
	Elf_Data *data;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return -ENOEXEC;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return -ENOEXEC;
	*strtab = data->d_buf;
	*strsz = data->d_size;
	return 0;
}

static int symtab__load_elf(struct pm_symtab *st, Elf *elf)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	size_t i, nr_syms, nr = 0, strsz, bytes;
	struct elf_cand *cands;
	GElf_Shdr sh, symsh;
	const char *strtab;
	Elf_Data *data;
	GElf_Sym sym;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_SYMTAB ||
		    (sh.sh_type == SHT_DYNSYM && !symscn)) {
			symscn = scn;
			symsh = sh;
		}
		if (sh.sh_type == SHT_SYMTAB)
			break;
	}
	if (!symscn || !symsh.sh_entsize)
		return 0;
	data = elf_getdata(symscn, NULL);
	if (!data)
		return -ENOEXEC;
	if (elf__strtab(elf, &symsh, &strtab, &strsz))
		return 0;
	nr_syms = symsh.sh_size / symsh.sh_entsize;

	/* Count first: the candidates take one allocation. */
	for (i = 0; i < nr_syms && gelf_getsym(data, i, &sym); i++)
		nr += elf_sym__is_function(elf, &sym) && sym.st_name < strsz && strtab[sym.st_name];
	if (!nr)
		return 0;
	cands = malloc(nr * sizeof(*cands));
	if (!cands)
		return -ENOMEM;
	for (i = 0, nr = 0; i < nr_syms && gelf_getsym(data, i, &sym); i++) {
		if (!elf_sym__is_function(elf, &sym) || sym.st_name >= strsz || !strtab[sym.st_name])
			continue;
		cands[nr++] = (struct elf_cand){
			.addr = sym.st_value,
			.size = elf_sym__size(elf, &sym),
			.name = sym.st_name,
			.rank = elf_sym__rank(&sym),
		};
	}
	/*
	 * Names are slices of one copy of the string table's names: a table
	 * whose symbols all name one long string costs that string once.
	 */
	qsort(cands, nr, sizeof(*cands), elf_cand__cmp_name);
	bytes = elf_cands__copy_names(cands, nr, strtab, strsz, NULL);
	if (bytes >= SYM_NAMES_MAX) {
		free(cands);
		return -EFBIG;
	}
	st->syms = malloc(nr * sizeof(*st->syms));
	st->names = malloc(bytes ? bytes : 1);
	if (!st->syms || !st->names) {
		free(cands);
		symtab__exit(st);
		memset(st, 0, sizeof(*st));
		return -ENOMEM;
	}
	elf_cands__copy_names(cands, nr, strtab, strsz, st->names);
	for (i = 0; i < nr; i++) {
		if (cands[i].dropped)
			continue;
		st->syms[st->nr++] = (struct pm_sym){
			.addr = cands[i].addr,
			.size = clamp_size(cands[i].size),
			.name = (uint32_t)cands[i].name,
			.rank = cands[i].rank,
		};
	}
	free(cands);
	symtab__sort(st);
	/* Lookups take the last symbol at or below an address; sizes agree. */
	for (i = 0; i + 1 < st->nr; i++) {
		uint64_t gap = st->syms[i + 1].addr - st->syms[i].addr;

		if (st->syms[i].size > gap)
			st->syms[i].size = gap;
	}
	return 0;
}

static int elf__read_segments(Elf *elf, struct pm_seg **segsp, size_t *nrp)
{
	struct pm_seg *segs;
	size_t i, nr, n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	if (!nr)
		return 0;
	segs = calloc(nr, sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, i, &ph)) {
			free(segs);
			return -ENOEXEC;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		segs[n++] = (struct pm_seg){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
		};
	}
	*segsp = segs;
	*nrp = n;
	return 0;
}

static int dso__read_headers(struct pm_dso *dso, Elf *elf)
{
	size_t len;
	int err;

	err = elf__build_id(elf, dso->build_id, &len);
	if (!err) {
		dso->has_build_id = true;
		dso->build_id_len = len;
	} else if (err != -ENOENT) {
		return err;
	}
	return elf__read_segments(elf, &dso->segs, &dso->nr_segs);
}

/*
 * Only the inode is compared: an MMAP2 record carries the device of the
 * filesystem holding the inode (an overlayfs layer, a btrfs volume), stat()
 * the device of the mount the path goes through.
 */
static int dso__check_file(struct pm_dso *dso, const struct stat *st)
{
	if (dso->ino && (uint64_t)st->st_ino != dso->ino)
		return -ESTALE;
	if (dso->has_mtime && (st->st_mtim.tv_sec != dso->mtime.tv_sec ||
			       st->st_mtim.tv_nsec != dso->mtime.tv_nsec))
		return -ESTALE;
	dso->mtime = st->st_mtim;
	dso->has_mtime = true;
	return 0;
}

int pm_elf__debug_path(char path[PM_DEBUG_PATH_MAX], const unsigned char *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *p;
	size_t i;

	if (len < 2 || len > PM_BUILD_ID_SIZE)
		return -EINVAL;
	p = path + sprintf(path, "%s/.build-id/", PM_DEBUG_DIR);
	for (i = 0; i < len; i++) {
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 15];
		if (!i)
			*p++ = '/';
	}
	strcpy(p, ".debug");
	return 0;
}

/*
 * Distributions strip .symtab and ship it in a debug file named after the
 * build id (Debian's *-dbgsym, libc6-dbg): perf looks there first, so does
 * pmrec.  The file must carry the same build id and some symbols.
 */
static int dso__load_debug_symtab(struct pm_dso *dso)
{
	char path[PM_DEBUG_PATH_MAX];
	unsigned char id[PM_BUILD_ID_SIZE];
	struct elf_file ef;
	struct stat st;
	size_t len;
	int err;

	if (!dso->has_build_id || pm_elf__debug_path(path, dso->build_id, dso->build_id_len))
		return -ENOENT;
	/* The system's debug tree, whose entries are symlinks on some distributions. */
	err = elf_file__open(&ef, path, PM_FILE_FOLLOW, &st);
	if (err)
		return err;
	err = elf__build_id(ef.elf, id, &len);
	if (!err && (len != dso->build_id_len || memcmp(id, dso->build_id, len)))
		err = -ESTALE;
	if (!err)
		err = symtab__load_elf(&dso->symtab, ef.elf);
	if (!err && !dso->symtab.nr)
		err = -ENOENT;
	if (err) {
		symtab__exit(&dso->symtab);
		memset(&dso->symtab, 0, sizeof(dso->symtab));
	}
	elf_file__close(&ef);
	return err;
}

/* Reads what is wanted and not yet read (headers, symbols) in one open. */
static void dso__load(struct pm_dso *dso, bool want_syms)
{
	bool need_hdr = !dso->hdr_done;
	bool need_syms = want_syms && !dso->syms_done;
	struct elf_file ef;
	struct stat st;
	int err;

	if (!need_hdr && !need_syms)
		return;
	if (dso->hdr_err) {
		dso->syms_done = true;
		dso->syms_err = dso->hdr_err;
		return;
	}
	err = elf_file__open(&ef, dso->path, 0, &st);
	if (!err) {
		err = dso__check_file(dso, &st);
		if (err)
			elf_file__close(&ef);
	}
	if (need_hdr) {
		dso->hdr_done = true;
		dso->hdr_err = err ? err : dso__read_headers(dso, ef.elf);
	}
	if (need_syms) {
		dso->syms_done = true;
		if (err || dso->hdr_err)
			dso->syms_err = err ? err : dso->hdr_err;
		else if (dso__load_debug_symtab(dso))
			dso->syms_err = symtab__load_elf(&dso->symtab, ef.elf);
	}
	if (!err)
		elf_file__close(&ef);
}

const char *pm_dso__path(const struct pm_dso *dso)
{
	return dso->path;
}

int pm_dso__build_id(struct pm_dso *dso, const unsigned char **id, size_t *len)
{
	dso__load(dso, false);
	if (dso->hdr_err)
		return dso->hdr_err;
	if (!dso->has_build_id)
		return -ENOENT;
	*id = dso->build_id;
	*len = dso->build_id_len;
	return 0;
}

int pm_dso__symtab(struct pm_dso *dso, const struct pm_symtab **st)
{
	dso__load(dso, true);
	if (dso->syms_err)
		return dso->syms_err;
	*st = &dso->symtab;
	return 0;
}

int pm_dso__resolve(struct pm_dso *dso, uint64_t map_start, uint64_t map_pgoff,
		    uint64_t ip, const char **sym, uint64_t *off)
{
	const struct pm_symtab *st;
	uint64_t foff;
	size_t i;
	int err;

	err = pm_dso__symtab(dso, &st);
	if (err)
		return err;
	foff = ip - map_start + map_pgoff;
	for (i = 0; i < dso->nr_segs; i++) {
		const struct pm_seg *seg = &dso->segs[i];

		if (foff - seg->off < seg->filesz)
			return pm_symtab__find(st, foff - seg->off + seg->vaddr,
					       sym, off);
	}
	return -ENOENT;
}

static uint64_t hash_id(uint64_t dev, uint64_t ino)
{
	uint64_t h = ino ^ (dev * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static uint64_t dso__hash(const struct pm_dso *dso)
{
	return dso->ino ? hash_id(dso->dev, dso->ino) : hash_str(dso->path);
}

struct pm_dso_cache *pm_dso_cache__new(void)
{
	struct pm_dso_cache *cache = calloc(1, sizeof(*cache));

	if (!cache)
		return NULL;
	cache->nr_buckets = 64;
	cache->buckets = calloc(cache->nr_buckets, sizeof(*cache->buckets));
	if (!cache->buckets) {
		free(cache);
		return NULL;
	}
	return cache;
}

static void dso__delete(struct pm_dso *dso)
{
	symtab__exit(&dso->symtab);
	free(dso->segs);
	free(dso);
}

static void dso_list__delete(struct pm_dso *dso)
{
	struct pm_dso *next;

	for (; dso; dso = next) {
		next = dso->next;
		dso__delete(dso);
	}
}

void pm_dso_cache__delete(struct pm_dso_cache *cache)
{
	size_t i;

	if (!cache)
		return;
	for (i = 0; i < cache->nr_buckets; i++)
		dso_list__delete(cache->buckets[i]);
	dso_list__delete(cache->replaced);
	free(cache->buckets);
	free(cache);
}

/* Growing is optional: a failed allocation only makes chains longer. */
static void dso_cache__grow(struct pm_dso_cache *cache)
{
	size_t i, n = cache->nr_buckets * 2;
	struct pm_dso **b, *dso, *next;

	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (i = 0; i < cache->nr_buckets; i++) {
		for (dso = cache->buckets[i]; dso; dso = next) {
			next = dso->next;
			dso->next = b[dso__hash(dso) & (n - 1)];
			b[dso__hash(dso) & (n - 1)] = dso;
		}
	}
	free(cache->buckets);
	cache->buckets = b;
	cache->nr_buckets = n;
}

static bool dso__is(const struct pm_dso *dso, const char *path, uint64_t dev,
		    uint64_t ino)
{
	if (ino)
		return dso->ino == ino && dso->dev == dev;
	return !dso->ino && !strcmp(dso->path, path);
}

struct pm_dso *pm_dso_cache__findnew(struct pm_dso_cache *cache,
				     const char *path, uint64_t dev,
				     uint64_t ino)
{
	struct pm_dso **pp, *dso;
	bool has_mtime = false;
	struct stat st;
	size_t len;

	if (!ino && !stat(path, &st)) {
		dev = st.st_dev;
		ino = st.st_ino;
		has_mtime = true;
	}
	pp = &cache->buckets[(ino ? hash_id(dev, ino) : hash_str(path)) &
			     (cache->nr_buckets - 1)];
	for (; *pp; pp = &(*pp)->next) {
		dso = *pp;
		if (!dso__is(dso, path, dev, ino))
			continue;
		if (!has_mtime)
			return dso;
		if (!dso->has_mtime) {
			/* Its open then checks that it reads this version. */
			dso->mtime = st.st_mtim;
			dso->has_mtime = true;
			return dso;
		}
		if (dso->mtime.tv_sec == st.st_mtim.tv_sec &&
		    dso->mtime.tv_nsec == st.st_mtim.tv_nsec)
			return dso;
		*pp = dso->next;
		dso->next = cache->replaced;
		cache->replaced = dso;
		cache->nr--;
		break;
	}

	len = strlen(path) + 1;
	dso = calloc(1, sizeof(*dso) + len);
	if (!dso)
		return NULL;
	memcpy(dso->path, path, len);
	dso->dev = ino ? dev : 0;
	dso->ino = ino;
	if (has_mtime) {
		dso->mtime = st.st_mtim;
		dso->has_mtime = true;
	}
	if (cache->nr >= cache->nr_buckets)
		dso_cache__grow(cache);
	pp = &cache->buckets[dso__hash(dso) & (cache->nr_buckets - 1)];
	dso->next = *pp;
	*pp = dso;
	cache->nr++;
	return dso;
}

static bool is_text_type(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static unsigned char kallsyms_rank(char type)
{
	unsigned char rank = RANK_SIZED;

	if (type == 'T')
		rank |= RANK_STRONG | RANK_GLOBAL;
	else if (type == 't')
		rank |= RANK_STRONG;
	return rank;
}

/* Hex digit values plus one, else zero: parsing addresses dominates. */
static const unsigned char hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

struct kallsyms_parser {
	struct pm_symtab *st;
	size_t cap;
	/* Each entry: name, NUL, module, NUL. */
	struct pm_buf names;
	bool hidden;
};

/* One "ADDR TYPE NAME[\t[MODULE]]" line; all but text symbols are skipped. */
static int kallsyms__add_line(struct kallsyms_parser *kp, const char *p,
			      const char *eol)
{
	const char *q, *name, *nend, *mod = "";
	struct pm_symtab *st = kp->st;
	size_t nlen, mlen = 0, cap;
	struct pm_sym *syms;
	uint64_t addr = 0;
	int digits, d;
	char *w;

	for (q = p; q < eol && (d = hex_value[(unsigned char)*q]); q++)
		addr = addr << 4 | (d - 1);
	digits = q - p;
	if (!digits || digits > 16 || eol - q < 4 || q[0] != ' ' ||
	    q[2] != ' ' || !is_text_type(q[1]))
		return 0;
	name = q + 3;
	nend = memchr(name, '\t', eol - name);
	if (!nend) {
		nend = eol;
	} else if (eol - nend >= 3 && nend[1] == '[' && eol[-1] == ']') {
		mod = nend + 2;
		mlen = eol - 1 - mod;
	}
	nlen = nend - name;
	if (!nlen)
		return 0;

	if (st->nr == kp->cap) {
		cap = kp->cap ? 2 * kp->cap : 4096;
		syms = realloc(st->syms, cap * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		st->syms = syms;
		kp->cap = cap;
	}
	if (kp->names.len + nlen + mlen + 2 >= SYM_NAMES_MAX)
		return -EFBIG;
	if (pm_buf__reserve(&kp->names, nlen + mlen + 2))
		return -ENOMEM;
	w = (char *)kp->names.data + kp->names.len;
	memcpy(w, name, nlen);
	w[nlen] = '\0';
	memcpy(w + nlen + 1, mod, mlen);
	w[nlen + 1 + mlen] = '\0';
	st->syms[st->nr++] = (struct pm_sym){
		.addr = addr,
		.name = (uint32_t)kp->names.len,
		.rank = kallsyms_rank(q[1]),
	};
	kp->names.len += nlen + mlen + 2;
	if (addr)
		kp->hidden = false;
	return 0;
}

/*
 * Parses as it reads, a chunk at a time, so that the text is still in the
 * cache when parsed and never held whole.
 */
#define KALLSYMS_CHUNK (64 * 1024)

static int kallsyms__read(struct kallsyms_parser *kp, int fd)
{
	char *buf, *p, *eol;
	size_t have = 0;
	ssize_t n;
	int err = 0;

	buf = malloc(KALLSYMS_CHUNK);
	if (!buf)
		return -ENOMEM;
	do {
		n = read(fd, buf + have, KALLSYMS_CHUNK - have);
		if (n < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		have += n;
		for (p = buf; !err && (eol = memchr(p, '\n', buf + have - p));
		     p = eol + 1)
			err = kallsyms__add_line(kp, p, eol);
		/* At EOF the last line may lack its newline. */
		if (!err && !n && p < buf + have) {
			err = kallsyms__add_line(kp, p, buf + have);
			p = buf + have;
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == KALLSYMS_CHUNK)
			err = -EINVAL;
	} while (!err && n);
	free(buf);
	return err;
}

/*
 * kallsyms has no sizes: a function runs to the next one of the same
 * module; the last one of a module gets up to the end of the next page, as
 * in perf.
 */
static void kallsyms__set_sizes(struct pm_symtab *st)
{
	struct pm_sym *s, *next;
	uint64_t size;
	size_t i;

	for (i = 0; i < st->nr; i++) {
		s = &st->syms[i];
		next = i + 1 < st->nr ? s + 1 : NULL;
		if (next &&
		    !strcmp(sym__module(st, s), sym__module(st, next))) {
			s->size = clamp_size(next->addr - s->addr);
			continue;
		}
		size = KSYM_PAGE - (s->addr & (KSYM_PAGE - 1));
		if (s->addr & (KSYM_PAGE - 1))
			size += KSYM_PAGE;
		if (next && next->addr - s->addr < size)
			size = next->addr - s->addr;
		s->size = size;
	}
}

struct pm_kallsyms *pm_kallsyms__load(const char *path)
{
	struct kallsyms_parser kp = { .hidden = true };
	struct pm_kallsyms *ks;
	int fd, err;

	fd = pm_file__open(path ? path : "/proc/kallsyms", O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		close(fd);
		return NULL;
	}
	kp.st = &ks->st;
	err = kallsyms__read(&kp, fd);
	close(fd);
	ks->st.names = (char *)kp.names.data;
	if (!err && !ks->st.nr)
		err = -ENOENT;
	else if (!err && kp.hidden)
		err = -EACCES;
	if (err) {
		pm_kallsyms__delete(ks);
		errno = -err;
		return NULL;
	}
	symtab__sort(&ks->st);
	kallsyms__set_sizes(&ks->st);
	return ks;
}

void pm_kallsyms__delete(struct pm_kallsyms *ks)
{
	if (!ks)
		return;
	symtab__exit(&ks->st);
	free(ks);
}

int pm_kallsyms__find(const struct pm_kallsyms *ks, uint64_t addr,
		      const char **name, const char **module, uint64_t *off)
{
	const struct pm_sym *s = symtab__lookup(&ks->st, addr);

	if (!s)
		return -ENOENT;
	*name = sym__name(&ks->st, s);
	*module = *sym__module(&ks->st, s) ? sym__module(&ks->st, s) : NULL;
	*off = addr - s->addr;
	return 0;
}
