/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_KCORE_H
#define PMREC_KCORE_H

/*
 * Kernel code from an ELF core image of kernel memory: /proc/kcore, or a
 * copy of it (perf record --kcore saves one as perf.data/kcore_dir/kcore).
 * kcore is an ELF64 ET_CORE file whose PT_LOAD segments map kernel
 * virtual addresses to file offsets; its size (st_size) says nothing (the
 * size of the address space, or 0), so only the headers and the bytes
 * asked for are read, each read bounded here.
 *
 * Functions return 0 or a negative errno.
 */
#include <stddef.h>
#include <stdint.h>

#include "symbols/elf.h"

/* At most this many bytes of code are read at once. */
#define PM_KCORE_READ_MAX (1u << 20)

struct pm_kcore_seg {
	uint64_t vaddr, size, offset;	/* p_vaddr, p_filesz, p_offset */
};

struct pm_kcore {
	int fd;
	int machine;			/* e_machine: EM_X86_64, EM_AARCH64... */
	struct pm_kcore_seg *segs;	/* the PT_LOAD segments with bytes in the file */
	size_t nr_segs;
	/* The kernel's build id from its VMCOREINFO note ("BUILD-ID="), 0: none. */
	unsigned char build_id[PM_BUILD_ID_SIZE];
	size_t build_id_len;
};

/*
 * Opens path (through pm_file__open: a regular file, no link followed)
 * and reads its headers.  -ENOENT, -EPERM (/proc/kcore needs
 * CAP_SYS_RAWIO) and the like from open(); -ENOEXEC for a file that is
 * not an ELF64 core file of this byte order.  At most 65535 program
 * headers (e_phnum's bound; a kcore has one per memory range) are read.
 */
int pm_kcore__open(struct pm_kcore *kc, const char *path);
void pm_kcore__close(struct pm_kcore *kc);

/*
 * The file offset of the size bytes at kernel address addr, which one
 * segment must hold whole.  -ERANGE if none does.
 */
int pm_kcore__offset(const struct pm_kcore *kc, uint64_t addr, uint64_t size, uint64_t *off);

/*
 * Reads size bytes (at most PM_KCORE_READ_MAX) at kernel address addr into
 * a malloc'd *buf.  -ERANGE as above, -EFBIG over the bound, -EIO when the
 * file ends before them.
 */
int pm_kcore__read(const struct pm_kcore *kc, uint64_t addr, uint64_t size, unsigned char **buf);

#endif
