// SPDX-License-Identifier: GPL-2.0
/*
 * A file's PLT stubs as symbols, named as perf names them
 * (dso__synthesize_plt_symbols): stub i of .plt, after the header, jumps
 * through the i-th GOT slot of the PLT, which relocation i of .rela.plt
 * (or .rel.plt) fills once sorted by slot, and is called after the
 * .dynsym symbol that relocation binds: "realloc@plt".  An IRELATIVE
 * relocation binds none: its stub is named after the function at its
 * addend (the IFUNC, without its version), "memmove@plt", or "@plt"
 * without one.  Without them
 * a sample in a stub is an address where perf shows a name.  perf 6.1
 * takes the relocations in table order, and so names the stubs of a file
 * whose IRELATIVE relocations come last (libc) after other stubs' targets;
 * perf 6.2 sorts them, as here, and as objdump reads the stubs.  Only
 * .plt, as perf 6.1: not .plt.sec or .plt.got.
 */
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_int.h"
#include "symbols/symname.h"
#include "symbols/symtab_int.h"

/* A relocation of the PLT's GOT slots. */
struct plt_rel {
	uint64_t slot;		/* r_offset */
	uint64_t addend;
	uint32_t sym;		/* in .dynsym */
	bool irelative;
};

/* What naming the stubs needs from the file. */
struct plt {
	struct plt_rel *rels;
	Elf_Data *syms;
	const char *strtab;
	size_t strsz;
	uint64_t first;		/* address of the first stub, after the header */
	uint64_t entry;		/* bytes per stub */
	size_t nr;		/* stubs: relocations that have one inside .plt */
	const struct pm_symtab *st;	/* the file's functions, for IFUNCs */
};

/* perf's header and entry sizes; the section's entry size where it knows none. */
static void plt__sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *header,
		       uint64_t *entry)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*header = 20, *entry = 12;
		break;
	case EM_AARCH64:
		*header = 32, *entry = 16;
		break;
	case EM_SPARC:
		*header = 48, *entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128, *entry = 32;
		break;
	default:
		*header = *entry = plt->sh_entsize;
		break;
	}
}

static bool plt__is_irelative(const GElf_Ehdr *eh, uint64_t info)
{
	return (eh->e_machine == EM_X86_64 && GELF_R_TYPE(info) == R_X86_64_IRELATIVE) ||
	       (eh->e_machine == EM_386 && GELF_R_TYPE(info) == R_386_IRELATIVE);
}

static int plt_rel__cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

/* The relocations of data, sorted by GOT slot on x86 as perf sorts them. */
static int plt__read_rels(struct plt *p, Elf_Data *data, bool rela, const GElf_Ehdr *eh)
{
	size_t i;

	p->rels = malloc(p->nr * sizeof(*p->rels));
	if (!p->rels)
		return -ENOMEM;
	for (i = 0; i < p->nr; i++) {
		GElf_Rela ra = { 0 };
		GElf_Rel r;

		if (rela ? !gelf_getrela(data, (int)i, &ra) : !gelf_getrel(data, (int)i, &r))
			break;
		if (!rela)
			ra = (GElf_Rela){ .r_offset = r.r_offset, .r_info = r.r_info };
		p->rels[i] = (struct plt_rel){
			.slot = ra.r_offset, .addend = (uint64_t)ra.r_addend,
			.sym = (uint32_t)GELF_R_SYM(ra.r_info),
			.irelative = plt__is_irelative(eh, ra.r_info),
		};
	}
	p->nr = i;
	if (eh->e_machine == EM_X86_64 || eh->e_machine == EM_386)
		qsort(p->rels, p->nr, sizeof(*p->rels), plt_rel__cmp);
	return 0;
}

/* 0; -ENOENT when elf has no PLT to name (a debug file's is NOBITS), -ENOMEM. */
static int plt__find(struct plt *p, Elf *elf)
{
	GElf_Shdr rel, plt, dynsym, str;
	Elf_Scn *rel_scn, *sym_scn, *str_scn;
	uint64_t header, room;
	Elf_Data *strs, *rels;
	GElf_Ehdr eh;

	rel_scn = elf__section(elf, ".rela.plt", &rel);
	if (!rel_scn)
		rel_scn = elf__section(elf, ".rel.plt", &rel);
	if (!rel_scn || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || !rel.sh_entsize ||
	    !elf__section(elf, ".plt", &plt) || plt.sh_type != SHT_PROGBITS || !gelf_getehdr(elf, &eh))
		return -ENOENT;
	sym_scn = elf_getscn(elf, rel.sh_link);
	if (!sym_scn || !gelf_getshdr(sym_scn, &dynsym) || dynsym.sh_type != SHT_DYNSYM)
		return -ENOENT;
	str_scn = elf_getscn(elf, dynsym.sh_link);
	if (!str_scn || !gelf_getshdr(str_scn, &str) || str.sh_type != SHT_STRTAB)
		return -ENOENT;
	rels = elf_getdata(rel_scn, NULL);
	p->syms = elf_getdata(sym_scn, NULL);
	strs = elf_getdata(str_scn, NULL);
	if (!rels || !p->syms || !strs || !strs->d_buf || !strs->d_size)
		return -ENOENT;
	p->strtab = strs->d_buf;
	p->strsz = strs->d_size;
	plt__sizes(&eh, &plt, &header, &p->entry);
	if (!p->entry || header > plt.sh_size)
		return -ENOENT;
	p->first = plt.sh_addr + header;
	/* Only stubs inside the section: a table cannot claim more. */
	room = (plt.sh_size - header) / p->entry;
	p->nr = rel.sh_size / rel.sh_entsize;
	p->nr = p->nr < room ? p->nr : room;
	if (!p->nr)
		return -ENOENT;
	return plt__read_rels(p, rels, rel.sh_type == SHT_RELA, &eh);
}

/*
 * The name stub i is called after, *len bytes (not NUL-terminated: it may
 * be a symbol table's), or NULL when the file's tables are broken.
 */
static const char *plt__target(const struct plt *p, size_t i, size_t *len)
{
	const struct plt_rel *r = &p->rels[i];
	const struct pm_sym *f;
	GElf_Sym sym;

	if (r->irelative) {
		f = symtab__lookup(p->st, r->addend);
		if (!f || f->addr != r->addend) {
			*len = 0;
			return "";
		}
		/* Without its version: "memcpy", not "memcpy@@GLIBC_2.14". */
		*len = strcspn(sym__name(p->st, f), "@");
		return sym__name(p->st, f);
	}
	if (!gelf_getsym(p->syms, (int)r->sym, &sym) || sym.st_name >= p->strsz)
		return NULL;
	*len = strnlen(p->strtab + sym.st_name, p->strsz - sym.st_name);
	if (sym.st_name + *len == p->strsz)
		return NULL;
	return p->strtab + sym.st_name;
}

/*
 * Appends stub i's name to names at *pos: at most PM_SYM_NAME_MAX bytes
 * with the suffix, a cut name ending in "...@plt".
 */
static void plt__put_name(char *names, size_t *pos, const char *name, size_t len)
{
	size_t keep = PM_SYM_NAME_MAX - strlen(PM_PLT_SUFFIX);

	if (len > keep) {
		memcpy(names + *pos, name, keep - 3);
		memcpy(names + *pos + keep - 3, "...", 3);
		len = keep;
	} else {
		memcpy(names + *pos, name, len);
	}
	memcpy(names + *pos + len, PM_PLT_SUFFIX, sizeof(PM_PLT_SUFFIX));
	*pos += len + sizeof(PM_PLT_SUFFIX);
}

/* Merges st's symbols with the nr stubs (by address, both sorted) into one array. */
static int symtab__merge(struct pm_symtab *st, const struct pm_sym *stubs, size_t nr)
{
	struct pm_sym *all = malloc((st->nr + nr) * sizeof(*all));
	size_t i = 0, j = 0, n = 0;

	if (!all)
		return -ENOMEM;
	while (i < st->nr || j < nr)
		all[n++] = j == nr || (i < st->nr && st->syms[i].addr <= stubs[j].addr) ?
			   st->syms[i++] : stubs[j++];
	free(st->syms);
	st->syms = all;
	st->nr = n;
	return 0;
}

int symtab__add_plt(struct pm_symtab *st, Elf *elf)
{
	size_t i, n = 0, len, bytes = 0, pos, budget;
	struct pm_sym *stubs;
	const char *name;
	struct plt p;
	char *names;
	int err;

	memset(&p, 0, sizeof(p));
	p.st = st;
	err = plt__find(&p, elf);
	if (err) {
		free(p.rels);
		return err == -ENOENT ? 0 : err;
	}
	/*
	 * Relocations may all name one long string: the names may take twice
	 * the string table and a little more, as real files' do, no more.
	 */
	budget = 2 * p.strsz + 65536;
	for (i = 0; i < p.nr && (name = plt__target(&p, i, &len)); i++) {
		len = len < PM_SYM_NAME_MAX ? len : PM_SYM_NAME_MAX;
		if (bytes + len + sizeof(PM_PLT_SUFFIX) > budget)
			break;
		bytes += len + sizeof(PM_PLT_SUFFIX);
	}
	p.nr = i;
	pos = st->names_len;
	if (!p.nr || pos + bytes >= SYM_NAMES_MAX) {
		free(p.rels);
		return 0;
	}
	stubs = malloc(p.nr * sizeof(*stubs));
	names = malloc(pos + bytes);
	if (!stubs || !names) {
		free(stubs);
		free(names);
		free(p.rels);
		return -ENOMEM;
	}
	/* A copy: IFUNC names are read from the old names while writing. */
	if (pos)
		memcpy(names, st->names, pos);
	for (i = 0; i < p.nr; i++) {
		name = plt__target(&p, i, &len);
		stubs[n++] = (struct pm_sym){
			.addr = p.first + i * p.entry, .size = clamp_size(p.entry),
			.name = (uint32_t)pos, .rank = RANK_SIZED | RANK_STRONG | RANK_GLOBAL,
		};
		plt__put_name(names, &pos, name, len);
	}
	free(st->names);
	st->names = names;
	st->names_len = pos;
	free(p.rels);
	err = symtab__merge(st, stubs, n);
	free(stubs);
	if (!err)
		symtab__fit(st);
	return err;
}
