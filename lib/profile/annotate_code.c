// SPDX-License-Identifier: GPL-2.0
/*
 * An annotation: a function's code read from its file, disassembled by
 * capstone, its samples placed on its instructions, and each instruction's
 * source line and inlined function from libdw.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/annotate.h"
#include "profile/libcapstone.h"
#include "symbols/elf.h"
#include "base/file.h"
#include "dwarf/dwfile.h"
#include "symbols/symname.h"
#include "symbols/symtab.h"

/*
 * A function larger than this is not read: few compilers make one, a
 * hostile file may, and each byte may be an instruction of ~75 bytes here
 * (its entry and the text of a ".byte").
 */
#define CODE_MAX (256u << 10)
_Static_assert(sizeof(struct pm_annotate_insn) <= 64, "an instruction per byte of CODE_MAX");

/* The innermost function with a name inlined at vaddr, or NULL. */
static const char *annotation__inlined(struct pm_annotation *a, uint64_t vaddr)
{
	const char *names[PM_DWFILE_MAX_INLINED];
	size_t i, nr;

	if (pm_dwfile__inlined(a->src, vaddr, PM_DWFILE_NAME, names, &nr))
		return NULL;
	for (i = 0; i < nr; i++)
		if (names[i])
			return names[i];
	return NULL;
}

/* Source lines and inlined functions of every instruction. */
static void annotation__lines(struct pm_annotation *a)
{
	size_t i;

	for (i = 0; i < a->nr_insns; i++) {
		struct pm_annotate_insn *in = &a->insns[i];

		if (pm_dwfile__line(a->src, in->addr, &in->file, &in->line)) {
			in->file = NULL;
			in->line = 0;
		}
		a->has_lines |= in->file != NULL;
		in->inlined = annotation__inlined(a, in->addr);
	}
}

/* The function's bytes, from the executable section that holds them. */
static int code__read(struct pm_dso *dso, uint64_t start, uint64_t size, unsigned char **code,
		      int *machine)
{
	int fd = pm_dso__open(dso);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Data *d;
	Elf *elf;
	int err;

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? -ENOENT : -ENOEXEC;
	if (elf && gelf_getehdr(elf, &eh))
		*machine = eh.e_machine;
	while (err == -ENOENT && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || start < sh.sh_addr ||
		    start - sh.sh_addr >= sh.sh_size || size > sh.sh_size - (start - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size) {
			err = -ENOEXEC;
			break;
		}
		*code = malloc(size);
		if (!*code) {
			err = -ENOMEM;
			break;
		}
		memcpy(*code, (const unsigned char *)d->d_buf + (start - sh.sh_addr), size);
		err = 0;
	}
	elf_end(elf);
	close(fd);
	return err;
}

/* A direct branch's or call's target. */
static bool insn__target(csh cs, const cs_insn *ci, int machine, uint64_t *target)
{
	if (!ci->detail || (!pm_libcapstone.insn_group(cs, ci, CS_GRP_JUMP) && !pm_libcapstone.insn_group(cs, ci, CS_GRP_CALL)))
		return false;
	if (machine == EM_X86_64 && ci->detail->x86.op_count == 1 &&
	    ci->detail->x86.operands[0].type == X86_OP_IMM) {
		*target = (uint64_t)ci->detail->x86.operands[0].imm;
		return true;
	}
	if (machine == EM_AARCH64) {
		uint8_t i;

		for (i = 0; i < ci->detail->arm64.op_count; i++) {
			if (ci->detail->arm64.operands[i].type == ARM64_OP_IMM) {
				*target = (uint64_t)ci->detail->arm64.operands[i].imm;
				return true;
			}
		}
	}
	return false;
}

/* s, with its NUL, into a's text: *off is where. */
static int code__text(struct pm_annotation *a, const char *s, uint32_t *off)
{
	*off = (uint32_t)a->text.len;
	return pm_buf__append(&a->text, s, strlen(s) + 1);
}

static int code__disasm(struct pm_annotation *a, const unsigned char *code, int machine)
{
	const uint8_t *p = code;
	size_t left = a->size, cap = 0;
	uint64_t addr = a->start;
	cs_insn *ci;
	csh cs;
	int err = 0;

	if (machine != EM_X86_64 && machine != EM_AARCH64)
		return -ENOTSUP;
	if (pm_libcapstone__load())
		return -ENOSYS;
	if (machine == EM_X86_64) {
		if (pm_libcapstone.open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			return -ENOTSUP;
		/* objdump's syntax, which perf annotate shows. */
		pm_libcapstone.option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	} else if (machine == EM_AARCH64) {
		if (pm_libcapstone.open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
			return -ENOTSUP;
	} else {
		return -ENOTSUP;
	}
	pm_libcapstone.option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	/* Bytes that decode to nothing become ".byte" lines, not the end of the function. */
	pm_libcapstone.option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	ci = pm_libcapstone.malloc(cs);
	if (!ci) {
		pm_libcapstone.close(&cs);
		return -ENOMEM;
	}
	while (left && pm_libcapstone.disasm_iter(cs, &p, &left, &addr, ci)) {
		struct pm_annotate_insn *in;

		if (pm_array__grow((void **)&a->insns, &cap, a->nr_insns, sizeof(*a->insns))) {
			err = -ENOMEM;
			break;
		}
		in = &a->insns[a->nr_insns++];
		*in = (struct pm_annotate_insn){ .addr = ci->address, .size = (uint8_t)ci->size };
		err = code__text(a, ci->mnemonic, &in->mnemonic);
		if (!err)
			err = code__text(a, ci->op_str, &in->operands);
		if (err)
			break;
		in->jump = insn__target(cs, ci, machine, &in->target);
	}
	pm_libcapstone.free(ci, 1);
	pm_libcapstone.close(&cs);
	return err;
}

/* The instruction that holds vaddr, or NULL. */
static struct pm_annotate_insn *annotation__insn(struct pm_annotation *a, uint64_t vaddr)
{
	size_t lo = 0, hi = a->nr_insns, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->insns[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr - a->insns[lo - 1].addr >= a->insns[lo - 1].size)
		return NULL;
	return &a->insns[lo - 1];
}

/* Each sample on its instruction: by file offset, or by address for the kernel (NULL dso). */
static void annotation__place(struct pm_annotation *a, struct pm_dso *dso)
{
	const struct pm_annotate_func *f = a->func;
	struct pm_annotate_insn *in;
	uint64_t vaddr;
	size_t i;

	for (i = 0; i < f->nr_hits; i++) {
		const struct pm_annotate_hit *h = &f->hits[i];

		if (!dso)
			vaddr = h->off;
		in = dso && pm_dso__offset_vaddr(dso, h->off, &vaddr) ? NULL :
		     annotation__insn(a, vaddr);
		if (!in) {
			a->lost += h->samples;
			continue;
		}
		in->period += h->period;
		in->samples += h->samples;
		a->period += h->period;
		a->samples += h->samples;
	}
}

static int line__cmp_place(const void *x, const void *y)
{
	const struct pm_annotate_line *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

static int line__cmp_hot(const void *x, const void *y)
{
	const struct pm_annotate_line *a = x, *b = y;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	return line__cmp_place(x, y);
}

/* The source lines with samples, hottest first. */
static int annotation__sum_lines(struct pm_annotation *a)
{
	size_t i, n = 0;

	a->lines = calloc(a->nr_insns ? a->nr_insns : 1, sizeof(*a->lines));
	if (!a->lines)
		return -ENOMEM;
	for (i = 0; i < a->nr_insns; i++)
		if (a->insns[i].file && a->insns[i].samples)
			a->lines[n++] = (struct pm_annotate_line){
				.file = a->insns[i].file, .line = a->insns[i].line,
				.period = a->insns[i].period, .samples = a->insns[i].samples };
	qsort(a->lines, n, sizeof(*a->lines), line__cmp_place);
	for (i = 0, a->nr_lines = 0; i < n; i++) {
		struct pm_annotate_line *last = a->nr_lines ? &a->lines[a->nr_lines - 1] : NULL;

		if (last && !line__cmp_place(last, &a->lines[i])) {
			last->period += a->lines[i].period;
			last->samples += a->lines[i].samples;
		} else {
			a->lines[a->nr_lines++] = a->lines[i];
		}
	}
	qsort(a->lines, a->nr_lines, sizeof(*a->lines), line__cmp_hot);
	return 0;
}

/*
 * The file of f: any with the recorded build id (lib/symbols/locate.h),
 * else the one at its path, checked below.  NULL on ENOMEM.
 */
static struct pm_dso *annotation__dso(struct pm_dso_cache *cache, const struct pm_annotate_func *f)
{
	struct pm_dso *dso;
	const unsigned char *id;
	size_t len;

	if (!f->build_id_len)
		return pm_dso_cache__findnew(cache, f->dso, 0, 0);
	dso = pm_dso_cache__findnew_id(cache, f->dso, f->build_id, f->build_id_len);
	if (dso && !pm_dso__build_id(dso, &id, &len) && pm_dso__has_code(dso))
		return dso;
	return pm_dso_cache__findnew(cache, f->dso, 0, 0);
}

/* The file's build id must be the recording's: else the code shown is not the code run. */
static int annotation__check_file(struct pm_dso *dso, const struct pm_annotate_func *f,
				  struct pm_annotate_error *e)
{
	const unsigned char *id;
	size_t len;
	int err = pm_dso__build_id(dso, &id, &len);

	if (err && err != -ENOENT) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_OPEN, .err = err };
		return err;
	}
	if (!f->build_id_len || (!err && len == f->build_id_len && !memcmp(id, f->build_id, len)))
		return 0;
	*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_BUILD_ID, .err = -ESTALE };
	if (!err) {
		memcpy(e->build_id, id, len);
		e->build_id_len = len;
	}
	return -ESTALE;
}

/* The symbol that covers the samples, in the file's address space. */
static int annotation__symbol(struct pm_annotation *a, struct pm_dso *dso,
			      struct pm_annotate_error *e)
{
	const struct pm_symtab *st;
	const char *name;
	uint64_t vaddr;
	int err;

	err = pm_dso__symtab(dso, &st);
	if (err) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_OPEN, .err = err };
		return err;
	}
	if (!a->func->nr_hits || pm_dso__offset_vaddr(dso, a->func->hits[0].off, &vaddr) ||
	    pm_symtab__find_range(st, vaddr, &name, &a->start, &a->size) || !a->size) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_NO_SYMBOL, .err = -ENOENT };
		return -ENOENT;
	}
	if (a->size > CODE_MAX) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_TOO_LARGE, .err = -EFBIG };
		return -EFBIG;
	}
	a->sym = pm_sym_name__cut(strndup(name, PM_SYM_NAME_MAX + 1));
	return a->sym ? 0 : -ENOMEM;
}

/* e for a kernel other than the recording's, whose build id is id (len 0: unknown). */
static int kernel__other(struct pm_annotate_error *e, const unsigned char *id, size_t len)
{
	*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_KERNEL_OTHER, .err = -ESTALE };
	memcpy(e->build_id, id, len);
	e->build_id_len = len;
	return -ESTALE;
}

/*
 * kcore is the recorded kernel's, as far as can be told: /proc/kcore is the
 * running kernel's, whose build id /sys/kernel/notes gives; a copy's
 * VMCOREINFO note may give one.  Checked before /proc/kcore is opened, so
 * that another kernel's recording is told so, not what opening needs.
 */
static int kernel__check(const struct pm_annotate_kernel *k, bool opened,
			 struct pm_annotate_error *e)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t len = 0;

	if (!k->id_len)
		return 0;
	if (!k->kcore && !opened) {
		if (pm_elf__kernel_build_id(id, &len))
			len = 0;
		if (len != k->id_len || memcmp(id, k->id, len))
			return kernel__other(e, id, len);
	}
	if (opened && k->kc.build_id_len && (k->kc.build_id_len != k->id_len ||
					     memcmp(k->kc.build_id, k->id, k->id_len)))
		return kernel__other(e, k->kc.build_id, k->kc.build_id_len);
	return 0;
}

/* The kernel function's bounds (kallsyms) and its code (kcore). */
static int kernel__code(struct pm_annotation *a, const struct pm_annotate_func *f,
			struct pm_annotate_kernel *k, unsigned char **code, int *machine,
			struct pm_annotate_error *e)
{
	struct pm_symbol s;
	const char *module;
	int err;

	if (!k->ks) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_NO_KALLSYMS, .err = -ENOENT };
		return -ENOENT;
	}
	err = kernel__check(k, false, e);
	if (err)
		return err;
	if (!k->tried) {
		k->open_err = pm_kcore__open(&k->kc, k->kcore ? k->kcore : "/proc/kcore");
		k->tried = true;
	}
	if (k->open_err) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_KCORE, .err = k->open_err };
		return k->open_err;
	}
	err = kernel__check(k, true, e);
	if (err)
		return err;
	if (!f->nr_hits || pm_kallsyms__lookup(k->ks, f->hits[0].off, &s, &module) || !s.size) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_NO_SYMBOL, .err = -ENOENT };
		return -ENOENT;
	}
	a->start = s.addr;
	a->size = s.size;
	if (a->size > CODE_MAX) {
		*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_TOO_LARGE, .err = -EFBIG };
		return -EFBIG;
	}
	a->sym = pm_sym_name__cut(strndup(s.name, PM_SYM_NAME_MAX + 1));
	if (!a->sym)
		return -ENOMEM;
	*machine = k->kc.machine;
	err = pm_kcore__read(&k->kc, a->start, a->size, code);
	if (err && err != -ENOMEM)
		*e = (struct pm_annotate_error){ .why = err == -ERANGE ? PM_ANNOTATE_KCORE_RANGE :
						 PM_ANNOTATE_KCORE, .err = err, .addr = a->start };
	return err;
}

/* A user-space function's bounds (its file's symbols) and code (its file). */
static int file__code(struct pm_annotation *a, const struct pm_annotate_func *f,
		      struct pm_dso *dso, unsigned char **code, int *machine,
		      struct pm_annotate_error *e)
{
	int err = annotation__check_file(dso, f, e) ?: annotation__symbol(a, dso, e);

	if (err)
		return err;
	err = code__read(dso, a->start, a->size, code, machine);
	if (err)
		*e = (struct pm_annotate_error){ .why = err == -ENOMEM ? PM_ANNOTATE_OK :
						 PM_ANNOTATE_NO_CODE, .err = err };
	return err;
}

void pm_annotate_kernel__exit(struct pm_annotate_kernel *k)
{
	if (k->tried && !k->open_err)
		pm_kcore__close(&k->kc);
	k->tried = false;
}

/*
 * The file's owner and group, whose reading rights its source files get: a
 * file that cannot be looked at now gets nobody's, which shows no source
 * root alone can read.
 */
static struct pm_source_owner annotation__owner(struct pm_dso *dso)
{
	struct stat st;
	int fd = pm_dso__open(dso);

	if (fd >= 0 && fstat(fd, &st)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return (struct pm_source_owner){ .uid = 65534, .gid = 65534 };
	close(fd);
	return (struct pm_source_owner){ .uid = st.st_uid, .gid = st.st_gid };
}

int pm_annotation__build(struct pm_annotation *a, const struct pm_annotate_func *f,
			 struct pm_dso_cache *cache, struct pm_annotate_kernel *k,
			 struct pm_annotate_error *e)
{
	unsigned char *code = NULL;
	struct pm_dso *dso = NULL;
	int err, machine = EM_NONE;

	*a = (struct pm_annotation){ .func = f };
	*e = (struct pm_annotate_error){ 0 };
	if (f->kernel || f->dso[0] != '/') {
		if (!f->kernel || !k) {
			*e = (struct pm_annotate_error){ .why = PM_ANNOTATE_KERNEL, .err = -ENOTSUP };
			return -ENOTSUP;
		}
		err = kernel__code(a, f, k, &code, &machine, e);
	} else {
		dso = annotation__dso(cache, f);
		if (!dso)
			return -ENOMEM;
		err = file__code(a, f, dso, &code, &machine, e);
	}
	if (err)
		return err;
	err = code__disasm(a, code, machine);
	free(code);
	if (err) {
		*e = (struct pm_annotate_error){ .why = err == -ENOTSUP ? PM_ANNOTATE_ARCH :
						 err == -ENOSYS ? PM_ANNOTATE_NO_DISASSEMBLER :
						 PM_ANNOTATE_DISASM, .err = err };
		return err;
	}
	annotation__place(a, dso);
	/* No vmlinux with debug info is looked for: the kernel's code has no lines. */
	if (dso) {
		a->owner = annotation__owner(dso);
		a->src = pm_dwfile__open(dso);
		if (!a->src)
			return -ENOMEM;
		annotation__lines(a);
	}
	return annotation__sum_lines(a);
}

void pm_annotation__exit(struct pm_annotation *a)
{
	free(a->sym);
	free(a->insns);
	pm_buf__exit(&a->text);
	free(a->lines);
	pm_dwfile__close(a->src);
	*a = (struct pm_annotation){ 0 };
}
