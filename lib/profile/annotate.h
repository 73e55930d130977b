/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ANNOTATE_H
#define PMREC_ANNOTATE_H

/*
 * Where in a function the samples are: `pmrec annotate`.
 *
 * The sink (a pipeline consumer) counts the samples of one event by
 * function and by address: each sample's ip is named, and its place is
 * kept as the offset in the mapped file, so that processes that map a
 * library at different addresses add up.  An annotation then reads the
 * function's code from that file (by its symbol table), disassembles it
 * (capstone), and gives each instruction its samples, its source line and
 * the innermost function inlined there (libdw, with the separate debug
 * file found by build id), and its jump target: data, which cmd/ prints.
 *
 * Functions return 0 or a negative errno.  Nothing here is thread-safe.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "base/hashtab.h"
#include "symbols/kallsyms.h"
#include "symbols/kcore.h"
#include "symbols/naming.h"
#include "reader/pipeline.h"

/* The samples at one place of a function. */
struct pm_annotate_hit {
	uint64_t off;			/* in the mapped file; the address for the kernel */
	uint64_t period, samples;
};

/* A function with samples, as the recording names it. */
struct pm_annotate_func {
	char *sym;			/* demangled unless asked not to */
	char *dso;			/* the mapped file's path, "[kernel.kallsyms]", "[module]" */
	bool kernel;
	unsigned char build_id[PM_BUILD_ID_SIZE];	/* as recorded */
	size_t build_id_len;		/* 0: none recorded */
	uint64_t period, samples;
	struct pm_annotate_hit *hits;	/* by offset once sorted */
	size_t nr_hits, cap_hits;
	struct pm_hashtab by_off;	/* offset -> index in hits */
};

struct pm_annotate_sink {
	struct pm_namer *namer;		/* the pipeline's; set before the first record */
	int evsel;			/* the event counted (attr index); -1 until a sample */
	uint64_t period, samples;	/* of that event, in every function or none */
	struct pm_annotate_func *funcs;	/* hottest first once sorted */
	size_t nr_funcs, cap_funcs;
	struct pm_hashtab by_name;	/* (dso, sym) -> index in funcs */
};

void pm_annotate_sink__init(struct pm_annotate_sink *k);
void pm_annotate_sink__exit(struct pm_annotate_sink *k);
/*
 * A pm_consume_fn: arg is the sink.  Counts the samples of the first event
 * that has one (perf annotates each event apart; this is its first).
 * 0 or -ENOMEM.
 */
int pm_annotate_sink__record(void *arg, const struct pm_record *rec,
			     const struct pm_rec_info *in);
/* After the last record: functions hottest first, hits by offset. */
void pm_annotate_sink__sort(struct pm_annotate_sink *k);

/* One instruction of an annotated function. */
/*
 * 64 bytes: a hostile file's function may be an instruction a byte, so
 * the text is apart, in the annotation's pool (pm_annotation__mnemonic).
 */
struct pm_annotate_insn {
	uint64_t addr;			/* in the file's address space, as objdump shows it */
	uint64_t target;		/* a jump's target, in the file's address space */
	uint64_t period, samples;
	const char *file;		/* source file of the line table, or NULL */
	const char *inlined;		/* innermost function inlined here, or NULL */
	uint32_t line;			/* its line, 0: none */
	uint32_t mnemonic, operands;	/* offsets of the strings in the annotation's text */
	uint8_t size;
	bool jump;			/* a branch or call with a known target */
};

/* A source line's samples. */
struct pm_annotate_line {
	const char *file;
	uint32_t line;
	uint64_t period, samples;
};

struct pm_dwfile;

/*
 * Who owns the annotated file: its source files are shown only if they
 * could read them (pm_file__open_as).  uid 0: anything root reads.
 */
struct pm_source_owner {
	uid_t uid;
	gid_t gid;
};

struct pm_annotation {
	const struct pm_annotate_func *func;
	struct pm_source_owner owner;	/* of the file annotated (kernel: root) */
	char *sym;			/* the symbol as the file names it */
	uint64_t start, size;		/* in the file's address space */
	struct pm_annotate_insn *insns;
	size_t nr_insns;
	struct pm_buf text;		/* the instructions' mnemonics and operands */
	uint64_t period, samples;	/* on these instructions */
	uint64_t lost;			/* samples at no instruction start (skid, bad data) */
	bool has_lines;			/* the line table was found */
	struct pm_annotate_line *lines;	/* hottest first */
	size_t nr_lines;
	struct pm_dwfile *src;		/* owns the file names */
};

/* Why an annotation could not be made, beside the errno. */
enum pm_annotate_why {
	PM_ANNOTATE_OK,
	PM_ANNOTATE_OPEN,		/* the file: err */
	PM_ANNOTATE_BUILD_ID,		/* another build id than recorded */
	PM_ANNOTATE_NO_SYMBOL,		/* no symbol in the file covers the samples */
	PM_ANNOTATE_TOO_LARGE,		/* the symbol's size is over what is read */
	PM_ANNOTATE_NO_CODE,		/* no code bytes there (a NOBITS section...) */
	PM_ANNOTATE_ARCH,		/* a machine capstone is not set up for here */
	PM_ANNOTATE_KERNEL,		/* kernel code is not read (no pm_annotate_kernel) */
	PM_ANNOTATE_DISASM,		/* capstone failed */
	PM_ANNOTATE_NO_DISASSEMBLER,	/* capstone's library is not installed */
	PM_ANNOTATE_KCORE,		/* kcore cannot be opened or read: err */
	PM_ANNOTATE_KCORE_RANGE,	/* no segment of kcore holds the function */
	PM_ANNOTATE_KERNEL_OTHER,	/* kcore is another kernel's than the recording's */
	PM_ANNOTATE_NO_KALLSYMS,	/* no kernel symbols to bound the function */
};

struct pm_annotate_error {
	enum pm_annotate_why why;
	int err;
	unsigned char build_id[PM_BUILD_ID_SIZE];	/* the file's, for BUILD_ID, KERNEL_OTHER */
	size_t build_id_len;
	uint64_t addr;			/* KCORE_RANGE: the function's start */
};

/*
 * Where kernel functions are read from.  Their bounds come from ks, the
 * kernel symbols that named the samples; their code from kcore, opened on
 * the first kernel function and kept.  The kernel that runs (/proc/kcore)
 * must have the recorded kernel's build id (/sys/kernel/notes), and a
 * copy whose VMCOREINFO note gives one must have it too; a recording
 * without one is read as it is.  Modules are checked by the kernel's id.
 */
struct pm_annotate_kernel {
	const char *kcore;		/* a copy of /proc/kcore; NULL: /proc/kcore */
	const struct pm_kallsyms *ks;	/* NULL: none */
	const unsigned char *id;	/* the recorded kernel's build id */
	size_t id_len;			/* 0: none recorded */
	struct pm_kcore kc;
	int open_err;			/* of opening kc, once tried */
	bool tried;
};

void pm_annotate_kernel__exit(struct pm_annotate_kernel *k);

/*
 * Annotates f from its file (opened through cache), or a kernel function
 * from k's kcore at its kernel address (NULL k: kernel functions are
 * refused with PM_ANNOTATE_KERNEL).  Kernel code has no source lines.  0,
 * or a negative errno with e saying why.
 */
int pm_annotation__build(struct pm_annotation *a, const struct pm_annotate_func *f,
			 struct pm_dso_cache *cache, struct pm_annotate_kernel *k,
			 struct pm_annotate_error *e);
void pm_annotation__exit(struct pm_annotation *a);

static inline const char *pm_annotation__mnemonic(const struct pm_annotation *a,
						  const struct pm_annotate_insn *in)
{
	return (const char *)a->text.data + in->mnemonic;
}

static inline const char *pm_annotation__operands(const struct pm_annotation *a,
						  const struct pm_annotate_insn *in)
{
	return (const char *)a->text.data + in->operands;
}

/*
 * Source text of files named by debug info, read whole once each (opened
 * through pm_file__open_as, as the binary's owner: debug info can name any
 * path, and root must not show what the binary's owner could not read; no
 * link followed, at most PM_SOURCE_MAX bytes).
 */
#define PM_SOURCE_MAX (64u << 20)

struct pm_source_file;

struct pm_sources {
	struct pm_source_file *files;
	size_t nr, cap;
};

/*
 * Line line (from 1) of file path, as owner could read it, without its
 * newline, in *text and *len: valid as long as src.  -ENOENT when the file
 * or the line cannot be had, -EACCES when owner could not read the file.
 */
int pm_sources__line(struct pm_sources *src, const struct pm_source_owner *owner,
		     const char *path, uint32_t line, const char **text, size_t *len);

/*
 * The files withheld because their binary's owner could not read them, in
 * the order first asked for: *path and *owner of the i-th, or false past
 * the last.
 */
bool pm_sources__withheld(const struct pm_sources *src, size_t i, const char **path,
			  struct pm_source_owner *owner);
void pm_sources__exit(struct pm_sources *src);

#endif
