/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SYMARCHIVE_H
#define PMREC_SYMARCHIVE_H

/*
 * Symbols carried inside a recording (`pmrec archive`), so that it names
 * its frames on a machine that lacks the recorded files or kernel: the
 * payload of the pmrec feature HEADER_PMREC_SYMBOLS (perf_data.h).
 *
 * Layout, version 1, in the byte order of the rest of the file; every
 * part starts 8-aligned:
 *
 *	header, 32 bytes:
 *	  u8  magic[8]		"PMRECSYM"
 *	  u32 version		1
 *	  u32 nr_tables		at most PM_SYMARCHIVE_MAX_TABLES
 *	  u64 size		of the whole payload, header included
 *	  u64 reserved		0
 *	then nr_tables tables, each:
 *	  u32 kind		PM_SYMARCHIVE_FILE or PM_SYMARCHIVE_KERNEL
 *	  u32 nr_syms		at most PM_SYMARCHIVE_MAX_SYMS
 *	  u32 names_size	bytes of names, at most PM_SYMARCHIVE_MAX_NAMES
 *	  u16 path_len		bytes of path with its NUL, 1 to PM_SYMARCHIVE_MAX_PATH
 *	  u8  build_id_len	at most 20
 *	  u8  reserved		0
 *	  u8  build_id[20]	zero-padded
 *	  u8  reserved[4]	0
 *	  char path[path_len]	NUL-terminated, zero-padded to 8
 *	  nr_syms entries of	{ u64 start; u32 size; u32 name; }, start strictly
 *				increasing, size > 0, start + size not wrapping,
 *				name an offset into names: where the previous
 *				symbol's name ends (0 for the first)
 *	  char names[names_size] NUL-terminated names of at most
 *				PM_SYM_NAME_MAX bytes, one per symbol in their
 *				order, nothing after the last; zero-padded to 8
 *
 * A FILE table holds the function symbols of a mapped file, keyed by its
 * build id (never empty; one table per build id, the first one kept when
 * an older pmrec wrote a build id twice), at file offsets: a sample at ip in a mapping
 * that starts at start with page offset pgoff is at ip - start + pgoff.
 * path is the file's path when archived (for messages).  A KERNEL table
 * holds the kallsyms entries of the kernel image (path
 * "[kernel.kallsyms]") or of a module ("[name]", a name of at most
 * PM_SYMARCHIVE_MAX_MODULE bytes), at kernel addresses.  The decoder checks every size and bound above and
 * reports the first violation with its file offset.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/perf_data.h"

/* Returned by the reader, defined by symtab.h and kallsyms.h. */
struct pm_kallsyms;
struct pm_symtab;

#define PM_SYMARCHIVE_VERSION 1
#define PM_SYMARCHIVE_MAX_TABLES 65536
#define PM_SYMARCHIVE_MAX_SYMS (4u << 20)
#define PM_SYMARCHIVE_MAX_NAMES (256u << 20)
#define PM_SYMARCHIVE_MAX_PATH 4096
/* Linux's MODULE_NAME_LEN less its NUL: a module name is copied per symbol. */
#define PM_SYMARCHIVE_MAX_MODULE 55
/* What the reader loads of a feature: the payload stays below it. */
#define PM_SYMARCHIVE_MAX_SIZE (64u << 20)

enum pm_symarchive_kind {
	PM_SYMARCHIVE_FILE = 1,
	PM_SYMARCHIVE_KERNEL = 2,
};

/* --- writing ------------------------------------------------------------- */

struct pm_symarchive_sym {
	uint64_t start;
	uint32_t size;
	const char *name;
};

struct pm_symarchive_table {
	enum pm_symarchive_kind kind;
	const char *path;
	const unsigned char *build_id;
	size_t build_id_len;
	const struct pm_symarchive_sym *syms;	/* sorted by start, no overlap of starts */
	size_t nr_syms;
};

/* Starts a payload in an empty b.  0 or -ENOMEM. */
int pm_symarchive__begin(struct pm_buf *b);
/*
 * Appends a table.  0, -EINVAL for a table the layout cannot hold (see
 * above; names longer than PM_SYM_NAME_MAX are cut), -EFBIG past
 * PM_SYMARCHIVE_MAX_SIZE, -ENOMEM.
 */
int pm_symarchive__add(struct pm_buf *b, const struct pm_symarchive_table *t);
/*
 * Sorts s by start and keeps one symbol per start (the first of s's
 * order): a table's symbols as pm_symarchive__add takes them.  The count
 * kept.
 */
size_t pm_symarchive__unique(struct pm_symarchive_sym *s, size_t nr);
/*
 * Appends the FILE table of the ELF file open at fd (taken: closed before
 * it returns), named path: the function symbols of its .symtab, else its
 * .dynsym, at file offsets, keyed by its own build id, which id and
 * *id_len receive.  Not its separate debug file: a file kept for being
 * elsewhere than here is named from itself.  check, when not NULL, is
 * shown the build id first: its negative errno is returned, and nothing
 * added.  At most max_syms symbols (*cut set when there were more: the
 * lowest addresses are kept).  0, -ENOENT for a file without a build id
 * or without symbols, -ENOEXEC, or pm_symarchive__add's errors.
 */
typedef int pm_symarchive_check_fn(void *arg, const unsigned char *id, size_t len);
int pm_symarchive__add_elf(struct pm_buf *b, int fd, const char *path, size_t max_syms,
			   pm_symarchive_check_fn *check, void *arg,
			   unsigned char id[PM_BUILD_ID_SIZE], size_t *id_len, bool *cut);
/* Completes the header.  0 or -EFBIG. */
int pm_symarchive__end(struct pm_buf *b);

/* --- reading ------------------------------------------------------------- */

struct pm_symarchive;

struct pm_symarchive_error {
	uint64_t offset;	/* in the file: base + position in the payload */
	const char *reason;	/* a static string */
};

/*
 * Decodes a payload that starts at file offset base.  NULL with errno
 * EBADMSG (and *e filled) for a malformed one, ENOMEM.
 */
struct pm_symarchive *pm_symarchive__decode(const void *p, size_t len, uint64_t base,
					    struct pm_symarchive_error *e);
void pm_symarchive__delete(struct pm_symarchive *a);

size_t pm_symarchive__nr_tables(const struct pm_symarchive *a);
/*
 * The symbols of the file with build id id (file offsets), or NULL.  The
 * table lives as long as a.
 */
const struct pm_symtab *pm_symarchive__file(const struct pm_symarchive *a,
					    const unsigned char *id, size_t len);
/* True if a holds kernel symbols. */
bool pm_symarchive__has_kernel(const struct pm_symarchive *a);
/*
 * A kallsyms table of every KERNEL table of a (the caller owns it), or
 * NULL with errno ENOENT (none) or ENOMEM.
 */
struct pm_kallsyms *pm_symarchive__kallsyms(const struct pm_symarchive *a);

#endif
