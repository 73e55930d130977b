// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "base/cache.h"
#include "base/file.h"
#include "dwarf/dwfile.h"
#include "dwarf/inlines.h"
#include "dwarf/unwind.h"
#include "symbols/debuginfo.h"

/* Live libdw sessions: beyond this many address spaces, the least recently used goes (RSS bound). */
#define MAX_SESSIONS 64

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

struct pm_unwinder {
	struct pm_machine *m;
	Elf *arch_elf;			/* tells libdw the architecture */
	struct session sessions[MAX_SESSIONS];
	size_t nr_sessions;
	uint64_t clock;
	uint64_t serial;
	struct cfi_rule *rules;		/* 1 << CFI_RULE_BITS, by (session, pc) */
	struct pm_inlines *inlines;
	/* The sample being unwound, for the callbacks. */
	const struct pm_sample *s;
	struct session *se;		/* the session of s */
	uint64_t sp, stack_len;
	struct pm_unwind_frame *frames;
	size_t nr;
	uint64_t last_sp;
	bool stopped;			/* by us: cap, loop, bad pc */
	bool read_failed;		/* outside the copy: libdw then ends quietly */
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
	u->inlines = pm_inlines__new();
	u->rules = calloc(1u << CFI_RULE_BITS, sizeof(*u->rules));
	if (!u->arch_elf || !u->inlines || !u->rules) {
		pm_unwinder__delete(u);
		return NULL;
	}
	return u;
}

static void sessions__clear(struct pm_unwinder *u)
{
	size_t i;

	for (i = 0; i < u->nr_sessions; i++)
		dwfl_end(u->sessions[i].dwfl);
	u->nr_sessions = 0;
}

void pm_unwinder__delete(struct pm_unwinder *u)
{
	if (!u)
		return;
	sessions__clear(u);
	pm_inlines__delete(u->inlines);
	free(u->rules);
	if (u->arch_elf)
		elf_end(u->arch_elf);
	free(u);
}

void pm_unwinder__set_demangle(struct pm_unwinder *u, bool demangle)
{
	pm_inlines__set_demangle(u->inlines, demangle);
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

/* Makes sure the file mapped at addr is known to the session. */
static void session__report(struct pm_unwinder *u, Dwfl *dwfl, int32_t pid, uint64_t addr)
{
	struct pm_map_info mi;
	Dwfl_Module *mod;
	uint64_t bias = 0;
	int fd;

	if (dwfl_addrmodule(dwfl, addr) || pm_machine__map(u->m, pid, addr, &mi))
		return;
	fd = pm_dso__open(mi.dso);
	if (fd < 0)
		return;
	dwfl_report_begin_add(dwfl);
	/* A module made takes the fd; a refused one leaves it to us. */
	mod = map__bias(&mi, fd, &bias) ? NULL :
	      dwfl_report_elf(dwfl, pm_path__base(mi.path), mi.path, fd, bias, true);
	if (!mod)
		close(fd);
	pm_debuginfo__set_dso(mod, mi.dso);
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
	.find_elf = pm_debuginfo__find_elf,
	.find_debuginfo = cb_find_debuginfo,
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
	bool activation = !u->nr;
	uint64_t lookup;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc) {
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
	/*
	 * Whether a caller's pc is an activation libdw says by unwinding from
	 * it (is its own caller a signal frame?), which must not evaluate CFI
	 * that loops: such a frame is the last, looked up as a return address.
	 */
	if (u->nr && !unwinder__rule(u, u->se, pc - 1)->loops)
		dwfl_frame_pc(state, &pc, &activation);
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
	return &u->rules[pm_cache__slot(pm_cache__mix(serial, pc), CFI_RULE_BITS)];
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

int pm_unwinder__inlined(struct pm_unwinder *u, int32_t pid, uint64_t lookup,
			 const char *const **names, size_t *nr)
{
	struct pm_map_info mi;
	struct session *se;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	uint64_t off;

	*nr = 0;
	if (pm_machine__map(u->m, pid, lookup, &mi))
		return 0;
	off = lookup - mi.start + mi.pgoff;
	if (pm_inlines__kept(u->inlines, mi.dso, off, names, nr))
		return 0;
	/* The file's address of lookup, as the unwinding found the file mapped. */
	se = unwinder__session(u, pid);
	if (!se)
		return 0;
	session__report(u, se->dwfl, pid, lookup);
	mod = dwfl_addrmodule(se->dwfl, lookup);
	if (!mod || !dwfl_module_getelf(mod, &bias))
		return 0;
	return pm_inlines__read(u->inlines, mi.dso, off, lookup - bias, names, nr);
}
