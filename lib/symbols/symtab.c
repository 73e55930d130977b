// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symname.h"
#include "symbols/symtab.h"
#include "symbols/symtab_int.h"

/*
 * Bytes of a name the alias rules look at: names are as long as the file
 * makes them, and one address can have thousands of aliases.
 */
#define SYM_CMP_MAX 4096

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

static int sym__cmp_addr(const void *a, const void *b)
{
	const struct pm_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases in table order: names are laid out in it. */
	return (x->name > y->name) - (x->name < y->name);
}

/*
 * Whether x, met after y, names their address better, the way perf chooses
 * (choose_best_symbol): sized, strong, global, fewer leading underscores,
 * the longer name; else the one met first, first in the symbol table
 * (pthread_rwlock_rdlock@GLIBC_2.2.5 before its @@GLIBC_2.34).
 */
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
	return lx > ly;
}

void symtab__sort(struct pm_symtab *st, bool last_alias)
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
			if (last_alias || sym__better(st, &st->syms[i], &st->syms[j - 1]))
				st->syms[j - 1] = st->syms[i];
			continue;
		}
		st->syms[j++] = st->syms[i];
	}
	st->nr = j;
}

void symtab__exit(struct pm_symtab *st)
{
	free(st->syms);
	free(st->names);
}

size_t pm_symtab__nr(const struct pm_symtab *st)
{
	return st->nr;
}

const struct pm_sym *symtab__lookup(const struct pm_symtab *st, uint64_t addr)
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

int pm_symtab__find_range(const struct pm_symtab *st, uint64_t addr, const char **name,
			  uint64_t *start, uint64_t *size)
{
	const struct pm_sym *s = symtab__lookup(st, addr);

	if (!s)
		return -ENOENT;
	*name = sym__name(st, s);
	*start = s->addr;
	*size = s->size;
	return 0;
}

void pm_symtab__get(const struct pm_symtab *st, size_t i, struct pm_symbol *s)
{
	*s = (struct pm_symbol){ .addr = st->syms[i].addr, .size = st->syms[i].size,
				 .name = sym__name(st, &st->syms[i]) };
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
	size_t idx;		/* in the symbol table: the first of equal aliases wins */
	unsigned char rank;
	bool dropped;		/* its name runs off the string table */
};

static int elf_cand__cmp_name(const void *a, const void *b)
{
	const struct elf_cand *x = a, *y = b;

	return (x->name > y->name) - (x->name < y->name);
}

/* By address, aliases in table order: symtab__sort keeps that order. */
static int elf_cand__cmp_addr(const void *a, const void *b)
{
	const struct elf_cand *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
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

/* A symbol section and its string table. */
struct elf_symsec {
	Elf_Data *data;
	size_t nr;		/* symbols; 0 when the file has no usable section */
	const char *strtab;
	size_t strsz;
};

/* The symbols of elf's .symtab, else its .dynsym: 0 or -ENOEXEC. */
static int elf_symsec__find(struct elf_symsec *ss, Elf *elf)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;

	memset(ss, 0, sizeof(*ss));
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
	ss->data = elf_getdata(symscn, NULL);
	if (!ss->data)
		return -ENOEXEC;
	if (elf__strtab(elf, &symsh, &ss->strtab, &ss->strsz))
		return 0;
	ss->nr = symsh.sh_size / symsh.sh_entsize;
	return 0;
}

/* A function whose name is in the section's string table, and not empty. */
static bool elf_symsec__keeps(const struct elf_symsec *ss, Elf *elf, const GElf_Sym *sym)
{
	return elf_sym__is_function(elf, sym) && sym->st_name < ss->strsz &&
	       ss->strtab[sym->st_name];
}

/* The candidates of ss in table order, in *out (NULL when *nr is 0): 0 or -ENOMEM. */
static int elf_symsec__cands(const struct elf_symsec *ss, Elf *elf, struct elf_cand **out,
			     size_t *nr)
{
	struct elf_cand *cands;
	size_t i, n = 0;
	GElf_Sym sym;

	*out = NULL;
	*nr = 0;
	/* Count first: the candidates take one allocation. */
	for (i = 0; i < ss->nr && gelf_getsym(ss->data, i, &sym); i++)
		n += elf_symsec__keeps(ss, elf, &sym);
	if (!n)
		return 0;
	cands = malloc(n * sizeof(*cands));
	if (!cands)
		return -ENOMEM;
	for (i = 0, n = 0; i < ss->nr && gelf_getsym(ss->data, i, &sym); i++) {
		if (!elf_symsec__keeps(ss, elf, &sym))
			continue;
		cands[n++] = (struct elf_cand){
			.addr = sym.st_value,
			.size = elf_sym__size(elf, &sym),
			.name = sym.st_name,
			.idx = i,
			.rank = elf_sym__rank(&sym),
		};
	}
	*out = cands;
	*nr = n;
	return 0;
}

/*
 * Fills the empty st with the nr cands (their order is changed) and copies
 * of their names: 0, -EFBIG or -ENOMEM.
 */
static int symtab__fill(struct pm_symtab *st, struct elf_cand *cands, size_t nr,
			const struct elf_symsec *ss)
{
	size_t i, bytes;

	/*
	 * Names are slices of one copy of the string table's names: a table
	 * whose symbols all name one long string costs that string once.
	 */
	qsort(cands, nr, sizeof(*cands), elf_cand__cmp_name);
	bytes = elf_cands__copy_names(cands, nr, ss->strtab, ss->strsz, NULL);
	if (bytes >= SYM_NAMES_MAX)
		return -EFBIG;
	st->syms = malloc(nr * sizeof(*st->syms));
	st->names = malloc(bytes ? bytes : 1);
	if (!st->syms || !st->names) {
		symtab__exit(st);
		memset(st, 0, sizeof(*st));
		return -ENOMEM;
	}
	elf_cands__copy_names(cands, nr, ss->strtab, ss->strsz, st->names);
	st->names_len = bytes;
	qsort(cands, nr, sizeof(*cands), elf_cand__cmp_addr);
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
	return 0;
}

void symtab__fit(struct pm_symtab *st)
{
	size_t i;

	symtab__sort(st, false);
	/* Lookups take the last symbol at or below an address; sizes agree. */
	for (i = 0; i + 1 < st->nr; i++) {
		uint64_t gap = st->syms[i + 1].addr - st->syms[i].addr;

		if (st->syms[i].size > gap)
			st->syms[i].size = gap;
	}
}

int symtab__load_elf(struct pm_symtab *st, Elf *elf)
{
	struct elf_symsec ss;
	struct elf_cand *cands = NULL;
	size_t nr = 0;
	int err;

	err = elf_symsec__find(&ss, elf);
	if (!err)
		err = elf_symsec__cands(&ss, elf, &cands, &nr);
	if (err || !nr)
		return err;
	err = symtab__fill(st, cands, nr, &ss);
	free(cands);
	if (err)
		return err;
	symtab__fit(st);
	return 0;
}
