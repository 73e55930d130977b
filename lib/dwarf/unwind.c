// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "base/buf.h"
#include "symbols/debuginfo.h"
#include "symbols/demangle.h"
#include "base/file.h"
#include "symbols/symname.h"
#include "dwarf/unwind.h"

/* Live libdw sessions: beyond this many address spaces, the least recently used goes (RSS bound). */
#define MAX_SESSIONS 64
/* Inline cache entries kept before it is emptied (RSS bound). */
#define MAX_INLINE_ENTRIES (1u << 20)

/* perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h). */
enum {
	PERF_X86_AX, PERF_X86_BX, PERF_X86_CX, PERF_X86_DX, PERF_X86_SI, PERF_X86_DI,
	PERF_X86_BP, PERF_X86_SP, PERF_X86_IP, PERF_X86_R8 = 16,
};
/* DWARF x86-64 register n is perf register dwarf_to_perf[n]; 16 is the return address (ip). */
static const unsigned char dwarf_to_perf[17] = {
	PERF_X86_AX, PERF_X86_DX, PERF_X86_CX, PERF_X86_BX, PERF_X86_SI, PERF_X86_DI,
	PERF_X86_BP, PERF_X86_SP, PERF_X86_R8, PERF_X86_R8 + 1, PERF_X86_R8 + 2,
	PERF_X86_R8 + 3, PERF_X86_R8 + 4, PERF_X86_R8 + 5, PERF_X86_R8 + 6, PERF_X86_R8 + 7,
	PERF_X86_IP,
};
#define DWARF_SP 7

struct session {
	int32_t pid;
	Dwfl *dwfl;
	uint64_t used;			/* clock of the last use */
	uint64_t serial;		/* never reused: keys its CFI rules */
};

/*
 * How one pc steps to its caller, as libdw's CFI says it (dwarf_frame_cfa,
 * dwarf_frame_register), kept so that the next sample at that pc steps
 * with arithmetic instead of libdw's interpreter and its allocations.
 * Only the forms x86-64 code uses are kept (CFA = register + offset;
 * registers undefined, same, at CFA + n or equal to CFA + n); a pc with
 * any other form, a signal frame or no CFI is unwound by libdw.
 */
enum { RULE_UNDEF, RULE_SAME, RULE_AT_CFA, RULE_CFA_PLUS };
#define NR_DWARF_REGS 17
#define DWARF_RA 16
#define CFI_RULE_BITS 11

struct cfi_rule {
	uint64_t session;		/* serial; 0: empty */
	uint64_t pc;			/* as libdw looks it up: a return address one back */
	int64_t cfa_off;
	int64_t off[NR_DWARF_REGS];
	uint8_t cfa_reg;
	uint8_t kind[NR_DWARF_REGS];
	bool libdw;			/* not kept: libdw unwinds samples that reach it */
	bool loops;			/* an expression may branch back: unwinding stops here */
};

/* A file in the inline session, by the machine's DSO. */
struct inline_file {
	const struct pm_dso *dso;
	Dwfl_Module *mod;		/* NULL: not usable */
};

/*
 * The scopes with code of one compilation unit, found once: a look-up then
 * searches them by address instead of walking the unit's tree (the walk
 * stepped over every DIE before the function, most of the inline cost).
 */
struct cu_scope {
	Dwarf_Addr start, end;
	Dwarf_Addr max_end;		/* the largest end up to this one, by start */
	uint32_t order;			/* in the walk: the first match wins, as in die__path */
	int nest;
	Dwarf_Die die;
};

struct cu_index {
	const Dwarf_Die *cu;		/* libdwfl's, stable while the module lives */
	struct cu_scope *scopes;
	size_t nr, cap;
	struct cu_index *next;
};
#define CU_BUCKETS 256

struct inline_entry {
	const struct pm_dso *dso;
	uint64_t off;			/* file offset of the address */
	char **names;
	size_t nr;
	struct inline_entry *next;
};

struct pm_unwinder {
	struct pm_machine *m;
	Elf *arch_elf;			/* tells libdw the architecture */
	struct session sessions[MAX_SESSIONS];
	size_t nr_sessions;
	uint64_t clock;
	uint64_t serial;
	struct cfi_rule *rules;		/* 1 << CFI_RULE_BITS, by (session, pc) */
	/*
	 * Inlines are a property of a file, not of a process: one offline
	 * session holds every file once, so each file's DWARF is read once.
	 */
	Dwfl *inline_dwfl;
	struct inline_file *files;
	size_t nr_files, cap_files;
	/* The sample being unwound, for the callbacks. */
	const struct pm_sample *s;
	struct session *se;		/* the session of s */
	uint64_t sp, stack_len;
	struct pm_unwind_frame *frames;
	size_t nr;
	uint64_t last_sp;
	bool stopped;			/* by us: cap, loop, bad pc */
	bool read_failed;		/* outside the copy: libdw then ends quietly */
	bool demangle;
	struct cu_index *cus[CU_BUCKETS];
	/* Inlined names, hashed by (dso, offset). */
	struct inline_entry **buckets;
	size_t nr_buckets, nr_entries;
};

/* An empty x86-64 ELF header: libdw takes the architecture of a session from it. */
static Elf *arch_elf__new(void)
{
	static Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	return elf_memory((char *)&eh, sizeof(eh));
}

struct pm_unwinder *pm_unwinder__new(struct pm_machine *m)
{
	struct pm_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->m = m;
	u->arch_elf = arch_elf__new();
	u->nr_buckets = 4096;
	u->buckets = calloc(u->nr_buckets, sizeof(*u->buckets));
	u->rules = calloc(1u << CFI_RULE_BITS, sizeof(*u->rules));
	if (!u->arch_elf || !u->buckets || !u->rules) {
		pm_unwinder__delete(u);
		return NULL;
	}
	return u;
}

static void inline_cache__clear(struct pm_unwinder *u)
{
	size_t i, j;

	for (i = 0; i < u->nr_buckets; i++) {
		while (u->buckets[i]) {
			struct inline_entry *e = u->buckets[i];

			u->buckets[i] = e->next;
			for (j = 0; j < e->nr; j++)
				free(e->names[j]);
			free(e->names);
			free(e);
		}
	}
	u->nr_entries = 0;
}

static void sessions__clear(struct pm_unwinder *u)
{
	size_t i;

	for (i = 0; i < u->nr_sessions; i++)
		dwfl_end(u->sessions[i].dwfl);
	u->nr_sessions = 0;
}

static void cu_index__delete_all(struct pm_unwinder *u)
{
	struct cu_index *ix, *next;
	size_t i;

	for (i = 0; i < CU_BUCKETS; i++) {
		for (ix = u->cus[i]; ix; ix = next) {
			next = ix->next;
			free(ix->scopes);
			free(ix);
		}
		u->cus[i] = NULL;
	}
}

void pm_unwinder__delete(struct pm_unwinder *u)
{
	if (!u)
		return;
	cu_index__delete_all(u);
	sessions__clear(u);
	if (u->inline_dwfl)
		dwfl_end(u->inline_dwfl);
	free(u->files);
	if (u->buckets)
		inline_cache__clear(u);
	free(u->buckets);
	free(u->rules);
	if (u->arch_elf)
		elf_end(u->arch_elf);
	free(u);
}

void pm_unwinder__set_demangle(struct pm_unwinder *u, bool demangle)
{
	u->demangle = demangle;
}

void pm_unwinder__forget(struct pm_unwinder *u, int32_t pid)
{
	size_t i;

	for (i = 0; i < u->nr_sessions; i++) {
		if (u->sessions[i].pid == pid) {
			dwfl_end(u->sessions[i].dwfl);
			u->sessions[i] = u->sessions[--u->nr_sessions];
			return;
		}
	}
}

/* The value of perf register reg in the sample, if it was recorded. */
static bool sample__reg(const struct pm_sample *s, unsigned int reg, uint64_t *val)
{
	uint64_t mask = s->evsel->attr.sample_regs_user;
	unsigned int idx;

	if (!(mask & (1ULL << reg)))
		return false;
	idx = (unsigned int)__builtin_popcountll(mask & ((1ULL << reg) - 1));
	if (idx >= s->regs_user.nr)
		return false;
	*val = s->regs_user.regs[idx];
	return true;
}

bool pm_unwind__possible(const struct pm_sample *s)
{
	uint64_t v;

	return (s->fields & PERF_SAMPLE_REGS_USER) && (s->fields & PERF_SAMPLE_STACK_USER) &&
	       s->evsel && s->regs_user.abi == PERF_SAMPLE_REGS_ABI_64 &&
	       sample__reg(s, PERF_X86_IP, &v) && sample__reg(s, PERF_X86_SP, &v);
}

/*
 * The load bias of the file mapped at mi: where the mapping starts less
 * the virtual address its file offset has in the segment that holds it.
 * Segments need not sit at their file offsets (lld lays them out apart).
 */
static int map__bias(const struct pm_map_info *mi, int fd, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, nr;
	int err = -ENOENT;

	if (elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC) {
		*bias = 0;
		err = 0;
	} else if (elf && !elf_getphdrnum(elf, &nr)) {
		/*
		 * Two segments can share the page at pgoff (the end of one,
		 * the start of the next): the later one starts in it.
		 */
		for (i = 0; i < nr; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    mi->pgoff < (ph.p_offset & ~(uint64_t)0xfff) ||
			    mi->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = mi->start - (ph.p_vaddr - (ph.p_offset - mi->pgoff));
			err = 0;
		}
	}
	elf_end(elf);
	return err;
}

/*
 * The file mapped at mi, opened here and handed to libdw as an fd: libdw
 * would open the recording's path itself, blocking on a FIFO.
 */
static int map__open(const struct pm_map_info *mi)
{
	return mi->path[0] == '/' ? pm_file__open(mi->path, O_RDONLY, 0, 0, NULL) : -ENOENT;
}

/* Makes sure the file mapped at addr is known to the session. */
static void session__report(struct pm_unwinder *u, Dwfl *dwfl, int32_t pid, uint64_t addr)
{
	struct pm_map_info mi;
	uint64_t bias = 0;
	int fd;

	if (dwfl_addrmodule(dwfl, addr) || pm_machine__map(u->m, pid, addr, &mi))
		return;
	fd = map__open(&mi);
	if (fd < 0)
		return;
	dwfl_report_begin_add(dwfl);
	/* A module made takes the fd; a refused one leaves it to us. */
	if (map__bias(&mi, fd, &bias) || !dwfl_report_elf(dwfl, pm_path__base(mi.path), mi.path, fd,
							 bias, true))
		close(fd);
	dwfl_report_end(dwfl, NULL, NULL);
}

static pid_t cb_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct pm_unwinder *u = dwfl_arg;

	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->s->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	*thread_argp = dwfl_arg;
	return true;
}

/* Memory is the stack copy: what lies outside it is not known. */
static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct pm_unwinder *u = dwfl_arg;

	if (addr < u->sp || addr - u->sp > u->stack_len || u->stack_len - (addr - u->sp) < 8) {
		u->read_failed = true;
		return false;
	}
	memcpy(result, u->s->stack_user + (addr - u->sp), sizeof(*result));
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct pm_unwinder *u = thread_arg;
	Dwarf_Word regs[17];
	size_t i;

	for (i = 0; i < 17; i++) {
		uint64_t v = 0;

		sample__reg(u->s, dwarf_to_perf[i], &v);
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* Every module is reported with its ELF open: libdw must open nothing itself. */
static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	*elfp = NULL;
	return -1;
}

/*
 * The unwinding sessions read a separate debug file only for files without
 * .eh_frame: every session would read (and inflate) it again, and
 * .eh_frame is what the unwinding needs.
 */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Phdr ph;
	size_t i, nr;

	if (elf && !elf_getphdrnum(elf, &nr))
		for (i = 0; i < nr; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
				return -1;
	return pm_debuginfo__find(mod, userdata, modname, base, file_name, debuglink_file,
				  debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = cb_find_elf,
	.find_debuginfo = cb_find_debuginfo,
};

static const Dwfl_Callbacks inline_callbacks = {
	.find_elf = cb_find_elf,
	.find_debuginfo = pm_debuginfo__find,
	.section_address = dwfl_offline_section_address,
};

/* The session of process pid, made on first use. */
static struct session *unwinder__session(struct pm_unwinder *u, int32_t pid)
{
	struct session *se;
	Dwfl *dwfl;
	size_t i;

	for (i = 0; i < u->nr_sessions; i++) {
		if (u->sessions[i].pid == pid) {
			u->sessions[i].used = ++u->clock;
			return &u->sessions[i];
		}
	}
	if (u->nr_sessions == MAX_SESSIONS) {
		size_t lru = 0;

		for (i = 1; i < u->nr_sessions; i++)
			if (u->sessions[i].used < u->sessions[lru].used)
				lru = i;
		dwfl_end(u->sessions[lru].dwfl);
		u->sessions[lru] = u->sessions[--u->nr_sessions];
	}
	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return NULL;
	if (!dwfl_attach_state(dwfl, u->arch_elf, pid, &callbacks, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	se = &u->sessions[u->nr_sessions++];
	se->pid = pid;
	se->dwfl = dwfl;
	se->used = ++u->clock;
	se->serial = ++u->serial;
	return se;
}

static const struct cfi_rule *unwinder__rule(struct pm_unwinder *u, struct session *se,
					      uint64_t lookup);

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct pm_unwinder *u = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp;
	bool activation;
	uint64_t lookup;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc) {
		u->stopped = true;
		return DWARF_CB_ABORT;
	}
	/*
	 * The stack grows down: a caller's frame lies above its callee's.  A
	 * stack pointer that goes back down means a loop in the copy.
	 */
	if (u->nr && dwfl_frame_reg(state, DWARF_SP, &sp) == 0) {
		if (sp < u->last_sp || (sp == u->last_sp && pc == u->frames[u->nr - 1].ip)) {
			u->stopped = true;
			return DWARF_CB_ABORT;
		}
		u->last_sp = sp;
	}
	lookup = activation ? pc : pc - 1;
	u->frames[u->nr++] = (struct pm_unwind_frame){ .ip = pc, .lookup = lookup };
	/* libdw unwinds from this frame next, with its CFI: not when it loops. */
	if (u->nr == PM_UNWIND_MAX_FRAMES || unwinder__rule(u, u->se, lookup)->loops) {
		u->stopped = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* ---- the kept CFI rules ---- */

static struct cfi_rule *rule__slot(struct pm_unwinder *u, uint64_t serial, uint64_t pc)
{
	uint64_t h = (pc ^ serial * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;

	return &u->rules[h >> (64 - CFI_RULE_BITS)];
}

/* Register regno's rule in frame, if of a kept form. */
static bool rule__reg(Dwarf_Frame *frame, int regno, uint8_t *kind, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool value = false;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return false;
	if (!nops) {
		*kind = ops ? RULE_UNDEF : RULE_SAME;
		return !ops || ops == mem;
	}
	if (ops[nops - 1].atom == DW_OP_stack_value) {
		value = true;
		nops--;
	}
	if (!nops || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa ||
	    (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
		return false;
	*off = nops == 2 ? (int64_t)ops[1].number : 0;
	*kind = value ? RULE_CFA_PLUS : RULE_AT_CFA;
	return true;
}

/*
 * Whether an expression branches back, so may loop.  libdw stops a loop
 * after 4096 steps but leaks its evaluation stack doing so (elfutils 0.188,
 * expr_eval), and compilers write no such CFI: the unwinding stops there.
 */
static bool ops__branch_back(const Dwarf_Op *ops, size_t nops)
{
	size_t i;

	for (i = 0; i < nops; i++)
		if ((ops[i].atom == DW_OP_bra || ops[i].atom == DW_OP_skip) &&
		    (int16_t)ops[i].number <= -3)
			return true;
	return false;
}

static bool frame__loops(Dwarf_Frame *frame)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int i;

	if (!dwarf_frame_cfa(frame, &ops, &nops) && ops__branch_back(ops, nops))
		return true;
	for (i = 0; i < NR_DWARF_REGS; i++)
		if (!dwarf_frame_register(frame, i, mem, &ops, &nops) && ops__branch_back(ops, nops))
			return true;
	return false;
}

/* The rule of frame, where every part is of a kept form. */
static bool rule__from_frame(struct cfi_rule *r, Dwarf_Frame *frame)
{
	Dwarf_Op *ops;
	size_t nops;
	bool signal;
	int i;

	if (dwarf_frame_info(frame, NULL, NULL, &signal) != DWARF_RA || signal ||
	    dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= NR_DWARF_REGS)
		return false;
	r->cfa_reg = (uint8_t)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	for (i = 0; i < NR_DWARF_REGS; i++)
		if (!rule__reg(frame, i, &r->kind[i], &r->off[i]))
			return false;
	return true;
}

/* The CFI of pc as libdw's unwinder finds it: .eh_frame first, then .debug_frame. */
static void rule__fill(struct cfi_rule *r, Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	r->libdw = true;
	if (!mod)
		return;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		frame = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
			return;
	}
	r->loops = frame__loops(frame);
	r->libdw = r->loops || !rule__from_frame(r, frame);
	free(frame);
}

/* The rule at lookup in session se, filled on first use. */
static const struct cfi_rule *unwinder__rule(struct pm_unwinder *u, struct session *se,
					      uint64_t lookup)
{
	struct cfi_rule *slot = rule__slot(u, se->serial, lookup);

	if (slot->session != se->serial || slot->pc != lookup) {
		session__report(u, se->dwfl, (int32_t)u->s->pid, lookup);
		*slot = (struct cfi_rule){ .session = se->serial, .pc = lookup };
		rule__fill(slot, se->dwfl, lookup);
	}
	return slot;
}

/*
 * Unwinds u->s with the kept rules, frame by frame as libdw would (its
 * checks in cb_frame, its step in handle_cfi: every register evaluated,
 * a read outside the copy leaves that register unknown).  Returns false
 * when a pc needs libdw: the caller starts the sample over with libdw.
 */
static bool unwinder__fast(struct pm_unwinder *u, struct session *se)
{
	uint64_t regs[NR_DWARF_REGS], next[NR_DWARF_REGS], pc, lookup, cfa;
	uint32_t set = (1u << NR_DWARF_REGS) - 1, nset;
	const struct cfi_rule *r;
	bool initial = true, cfa_known;
	int i;

	for (i = 0; i < NR_DWARF_REGS; i++) {
		regs[i] = 0;
		sample__reg(u->s, dwarf_to_perf[i], &regs[i]);
	}
	for (;;) {
		pc = regs[DWARF_RA];
		if (!pc) {
			u->stopped = true;
			return true;
		}
		if (u->nr && (set & 1u << DWARF_SP)) {
			if (regs[DWARF_SP] < u->last_sp ||
			    (regs[DWARF_SP] == u->last_sp && pc == u->frames[u->nr - 1].ip)) {
				u->stopped = true;
				return true;
			}
			u->last_sp = regs[DWARF_SP];
		}
		lookup = initial ? pc : pc - 1;
		r = unwinder__rule(u, se, lookup);
		u->frames[u->nr++] = (struct pm_unwind_frame){ .ip = pc, .lookup = lookup };
		if (u->nr == PM_UNWIND_MAX_FRAMES || r->loops) {
			u->stopped = true;
			return true;
		}
		if (r->libdw)
			return false;
		cfa_known = set & 1u << r->cfa_reg;
		cfa = regs[r->cfa_reg] + (uint64_t)r->cfa_off;
		nset = 0;
		for (i = 0; i < NR_DWARF_REGS; i++) {
			switch (r->kind[i]) {
			case RULE_SAME:
				next[i] = regs[i];
				nset |= set & 1u << i;
				break;
			case RULE_CFA_PLUS:
				next[i] = cfa + (uint64_t)r->off[i];
				nset |= cfa_known ? 1u << i : 0;
				break;
			case RULE_AT_CFA:
				if (cfa_known && cb_memory_read(NULL, cfa + (uint64_t)r->off[i], &next[i], u))
					nset |= 1u << i;
				break;
			default:
				break;
			}
		}
		/* No return address, or 0: the outermost frame, and libdw ends there quietly. */
		if (!(nset & 1u << DWARF_RA) || !next[DWARF_RA])
			return true;
		memcpy(regs, next, sizeof(regs));
		set = nset;
		initial = false;
	}
}

/* The libdw unwinding of u->s, from its first frame. */
static int unwinder__libdw(struct pm_unwinder *u, Dwfl *dwfl)
{
	u->nr = 0;
	u->last_sp = u->sp;
	u->stopped = false;
	u->read_failed = false;
	return dwfl_getthread_frames(dwfl, (pid_t)u->s->tid, cb_frame, u);
}

int pm_unwinder__unwind(struct pm_unwinder *u, const struct pm_sample *s,
			struct pm_unwind_frame *frames, size_t *nr, bool *partial)
{
	uint64_t ip = 0, sp = 0;
	struct session *se;
	int ret = 0;

	*nr = 0;
	*partial = true;
	if (!pm_unwind__possible(s))
		return 0;
	sample__reg(s, PERF_X86_IP, &ip);
	sample__reg(s, PERF_X86_SP, &sp);
	se = unwinder__session(u, (int32_t)s->pid);
	if (!se) {
		frames[(*nr)++] = (struct pm_unwind_frame){ .ip = ip, .lookup = ip };
		return 0;
	}
	u->s = s;
	u->se = se;
	u->sp = sp;
	u->stack_len = s->stack_user_size;
	if (s->stack_user_dyn_size && s->stack_user_dyn_size < u->stack_len)
		u->stack_len = s->stack_user_dyn_size;
	u->frames = frames;
	u->nr = 0;
	u->last_sp = sp;
	u->stopped = false;
	u->read_failed = false;
	session__report(u, se->dwfl, (int32_t)s->pid, ip);
	if (!unwinder__fast(u, se))
		ret = unwinder__libdw(u, se->dwfl);
	*nr = u->nr;
	/*
	 * libdw returns 0 when the CFI says the outermost frame was reached,
	 * and also when a return address could not be read.
	 */
	*partial = ret != 0 || u->stopped || u->read_failed;
	if (!*nr)
		frames[(*nr)++] = (struct pm_unwind_frame){ .ip = ip, .lookup = ip };
	u->s = NULL;
	return 0;
}

static size_t inline__hash(const struct pm_dso *dso, uint64_t off, size_t nr)
{
	return (size_t)((((uintptr_t)dso >> 4) ^ off) * 0x9e3779b97f4a7c15ULL >> 32) & (nr - 1);
}

/* The name DWARF gives the function a DIE stands for, mangled if it has a linkage name. */
static const char *die__function_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return name;
}

/* DIEs a chain of scopes may go through: the subprogram, its inlined calls and blocks. */
#define INLINE_MAX_DEPTH 64

/*
 * The DIEs with code at pc below parent, outermost first, from path[depth]
 * on; returns the depth reached.  One walk down the tree, pruned by pc:
 * dwarf_getscopes then dwarf_getscopes_die walked it twice per address.
 * Namespaces and types are searched but not part of the chain: Rust
 * defines its functions in them, and dwarf_getscopes (elfutils 0.188) does
 * not look there; an imported unit (dwz) is searched as if in place.
 */
static int die__path(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth, int nest)
{
	Dwarf_Attribute a;
	Dwarf_Die child, unit;
	int n;

	if (depth >= INLINE_MAX_DEPTH || nest > INLINE_MAX_DEPTH || dwarf_child(parent, &child))
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_imported_unit:
			if (!dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit))
				break;
			n = die__path(&unit, pc, path, depth, nest + 1);
			if (n > depth)
				return n;
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			n = die__path(&child, pc, path, depth, nest + 1);
			if (n > depth)
				return n;
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) > 0) {
				path[depth] = child;
				return die__path(&child, pc, path, depth + 1, nest + 1);
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

static bool die__is_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

static bool die__is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static int cu_index__add(struct cu_index *ix, Dwarf_Die *die, uint32_t order, int nest)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (pm_array__grow((void **)&ix->scopes, &ix->cap, ix->nr, sizeof(*ix->scopes)))
			return -ENOMEM;
		ix->scopes[ix->nr++] = (struct cu_scope){ .start = start, .end = end, .order = order,
							  .nest = nest, .die = *die };
	}
	return 0;
}

/* The scopes die__path could start from, in its order (see there). */
static int cu_index__walk(struct cu_index *ix, Dwarf_Die *parent, uint32_t *order, int nest)
{
	Dwarf_Attribute a;
	Dwarf_Die child, unit;
	int tag, err = 0;

	if (nest > INLINE_MAX_DEPTH || dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_imported_unit) {
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit))
				err = cu_index__walk(ix, &unit, order, nest + 1);
		} else if (die__is_container(tag)) {
			err = cu_index__walk(ix, &child, order, nest + 1);
		} else if (die__is_scope(tag)) {
			err = cu_index__add(ix, &child, (*order)++, nest);
		}
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

static int scope__cmp(const void *a, const void *b)
{
	const struct cu_scope *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The index of unit cu, built on first use; NULL on ENOMEM. */
static struct cu_index *unwinder__cu_index(struct pm_unwinder *u, Dwarf_Die *cu)
{
	size_t h = ((uintptr_t)cu >> 4) % CU_BUCKETS, i;
	uint32_t order = 0;
	struct cu_index *ix;

	for (ix = u->cus[h]; ix; ix = ix->next)
		if (ix->cu == cu)
			return ix;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	ix->cu = cu;
	if (cu_index__walk(ix, cu, &order, 0)) {
		free(ix->scopes);
		free(ix);
		return NULL;
	}
	if (ix->nr)
		qsort(ix->scopes, ix->nr, sizeof(*ix->scopes), scope__cmp);
	for (i = 0; i < ix->nr; i++)
		ix->scopes[i].max_end = i && ix->scopes[i - 1].max_end > ix->scopes[i].end ?
					ix->scopes[i - 1].max_end : ix->scopes[i].end;
	ix->next = u->cus[h];
	u->cus[h] = ix;
	return ix;
}

/* The first scope of ix, in die__path's order, with code at pc; NULL if none. */
static const struct cu_scope *cu_index__find(const struct cu_index *ix, Dwarf_Addr pc)
{
	const struct cu_scope *best = NULL;
	size_t lo = 0, hi = ix->nr;

	/* The scopes that start at or before pc: [0, lo). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->scopes[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && ix->scopes[lo].max_end > pc)
		if (ix->scopes[lo].end > pc && (!best || ix->scopes[lo].order < best->order))
			best = &ix->scopes[lo];
	return best;
}

/* The inline session's module of the file mapped at mi, reported on first use. */
static Dwfl_Module *unwinder__inline_module(struct pm_unwinder *u, const struct pm_map_info *mi)
{
	Dwfl_Module *mod;
	size_t i;
	int fd;

	for (i = 0; i < u->nr_files; i++)
		if (u->files[i].dso == mi->dso)
			return u->files[i].mod;
	if (!u->inline_dwfl) {
		u->inline_dwfl = dwfl_begin(&inline_callbacks);
		if (!u->inline_dwfl)
			return NULL;
	}
	if (u->nr_files == u->cap_files) {
		size_t cap = u->cap_files ? u->cap_files * 2 : 16;
		struct inline_file *f = realloc(u->files, cap * sizeof(*f));

		if (!f)
			return NULL;
		u->files = f;
		u->cap_files = cap;
	}
	fd = map__open(mi);
	dwfl_report_begin_add(u->inline_dwfl);
	mod = fd < 0 ? NULL : dwfl_report_offline(u->inline_dwfl, pm_path__base(mi->path), mi->path, fd);
	dwfl_report_end(u->inline_dwfl, NULL, NULL);
	if (fd >= 0 && !mod)
		close(fd);
	u->files[u->nr_files++] = (struct inline_file){ .dso = mi->dso, .mod = mod };
	return mod;
}

/*
 * Reads the inlined scopes at vaddr (a virtual address of the file of mod)
 * into a new cache entry e.
 */
static int inline_entry__fill(struct pm_unwinder *u, struct inline_entry *e, Dwfl_Module *mod,
			      uint64_t vaddr)
{
	Dwarf_Die path[INLINE_MAX_DEPTH], *cu;
	const struct cu_scope *scope;
	Dwarf_Addr bias, lookup;
	struct cu_index *ix;
	bool demangle = u->demangle;
	int i, n;

	if (!mod || !dwfl_module_getelf(mod, &bias))
		return 0;
	lookup = vaddr + bias;
	cu = dwfl_module_addrdie(mod, lookup, &bias);
	if (!cu)
		return 0;
	ix = unwinder__cu_index(u, cu);
	if (!ix)
		return -ENOMEM;
	scope = cu_index__find(ix, lookup - bias);
	if (!scope)
		return 0;
	path[0] = scope->die;
	n = die__path(&path[0], lookup - bias, path, 1, scope->nest + 1);
	e->names = calloc((size_t)n, sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	/* Innermost first, out to the function the calls are inlined into. */
	for (i = n - 1; i >= 0; i--) {
		int tag = dwarf_tag(&path[i]);
		const char *name;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		name = die__function_name(&path[i]);
		if (!name)
			name = "[inlined]";
		e->names[e->nr] = demangle ? pm_demangle__str(name) : NULL;
		if (!e->names[e->nr])
			e->names[e->nr] = pm_sym_name__cut(strndup(name, PM_SYM_NAME_MAX + 1));
		if (!e->names[e->nr])
			return -ENOMEM;
		e->nr++;
	}
	return 0;
}

int pm_unwinder__inlined(struct pm_unwinder *u, int32_t pid, uint64_t lookup,
			 const char *const **names, size_t *nr)
{
	struct pm_map_info mi;
	struct inline_entry *e;
	struct session *se;
	uint64_t off;
	size_t h, i;
	Dwfl *dwfl;

	*nr = 0;
	if (pm_machine__map(u->m, pid, lookup, &mi))
		return 0;
	off = lookup - mi.start + mi.pgoff;
	h = inline__hash(mi.dso, off, u->nr_buckets);
	for (e = u->buckets[h]; e; e = e->next)
		if (e->dso == mi.dso && e->off == off)
			break;
	if (!e) {
		Dwfl_Module *smod;
		Dwarf_Addr sbias;

		se = unwinder__session(u, pid);
		if (!se)
			return 0;
		dwfl = se->dwfl;
		session__report(u, dwfl, pid, lookup);
		smod = dwfl_addrmodule(dwfl, lookup);
		if (!smod || !dwfl_module_getelf(smod, &sbias))
			return 0;
		if (u->nr_entries >= MAX_INLINE_ENTRIES)
			inline_cache__clear(u);
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->dso = mi.dso;
		e->off = off;
		if (inline_entry__fill(u, e, unwinder__inline_module(u, &mi), lookup - sbias)) {
			for (i = 0; i < e->nr; i++)
				free(e->names[i]);
			free(e->names);
			free(e);
			return -ENOMEM;
		}
		e->next = u->buckets[h];
		u->buckets[h] = e;
		u->nr_entries++;
	}
	*names = (const char *const *)e->names;
	*nr = e->nr;
	return 0;
}
