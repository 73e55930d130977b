// SPDX-License-Identifier: GPL-2.0
/*
 * A FILE table made from an open ELF file: what the recorder keeps of a
 * mapped file that the path in its MMAP2 record will not find again (a
 * container's, a deleted or replaced one), read through an fd it holds.
 */
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "symbols/elf_int.h"
#include "symbols/symarchive.h"
#include "symbols/symtab_int.h"

/* The loadable segments with bytes in the file, where an address is found in it. */
struct sa_load {
	uint64_t off, filesz, vaddr;
};

static int elf__loads(Elf *elf, struct sa_load **loads, size_t *nr)
{
	size_t i, n;
	GElf_Phdr ph;

	*nr = 0;
	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	*loads = calloc(n ? n : 1, sizeof(**loads));
	if (!*loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD && ph.p_filesz)
			(*loads)[(*nr)++] = (struct sa_load){ .off = ph.p_offset,
							      .filesz = ph.p_filesz,
							      .vaddr = ph.p_vaddr };
	}
	return 0;
}

/* The symbols of st at file offsets, sized ones only, sorted, at most max. */
static size_t syms__at_offsets(const struct pm_symtab *st, const struct sa_load *loads,
			       size_t nr_loads, struct pm_symarchive_sym *out, size_t max)
{
	size_t i, j, nr = 0;
	struct pm_symbol s;

	for (i = 0; i < pm_symtab__nr(st) && nr < max; i++) {
		pm_symtab__get(st, i, &s);
		for (j = 0; s.size && j < nr_loads; j++)
			if (s.addr - loads[j].vaddr < loads[j].filesz) {
				out[nr++] = (struct pm_symarchive_sym){
					.start = s.addr - loads[j].vaddr + loads[j].off,
					.size = s.size, .name = s.name };
				break;
			}
	}
	return pm_symarchive__unique(out, nr);
}

static int symarchive__table(struct pm_buf *b, Elf *elf, const char *path, size_t max_syms,
			     const unsigned char *id, size_t id_len, bool *cut)
{
	struct pm_symarchive_sym *syms = NULL;
	struct pm_symtab st = { 0 };
	struct sa_load *loads = NULL;
	size_t nr_loads, nr, n;
	int err = elf__loads(elf, &loads, &nr_loads) ?: symtab__load_elf(&st, elf) ?:
		  symtab__add_plt(&st, elf);

	n = pm_symtab__nr(&st);
	*cut = n > max_syms;
	n = n < max_syms ? n : max_syms;
	if (!err) {
		syms = calloc(n ? n : 1, sizeof(*syms));
		err = syms ? 0 : -ENOMEM;
	}
	if (!err) {
		nr = syms__at_offsets(&st, loads, nr_loads, syms, n);
		err = !nr ? -ENOENT : pm_symarchive__add(b, &(struct pm_symarchive_table){
			.kind = PM_SYMARCHIVE_FILE, .path = path, .build_id = id,
			.build_id_len = id_len, .syms = syms, .nr_syms = nr });
	}
	free(syms);
	free(loads);
	symtab__exit(&st);
	return err;
}

int pm_symarchive__add_elf(struct pm_buf *b, int fd, const char *path, size_t max_syms,
			   pm_symarchive_check_fn *check, void *arg,
			   unsigned char id[PM_BUILD_ID_SIZE], size_t *id_len, bool *cut)
{
	struct elf_file ef;
	int err = elf_file__open_fd(&ef, fd);

	*cut = false;
	*id_len = 0;
	if (err)
		return err;
	err = elf__build_id(ef.elf, id, id_len) ?:
	      (check ? check(arg, id, *id_len) : 0) ?:
	      symarchive__table(b, ef.elf, path, max_syms, id, *id_len, cut);
	elf_file__close(&ef);
	return err;
}
