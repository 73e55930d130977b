/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LIBCAPSTONE_H
#define PMREC_LIBCAPSTONE_H

/*
 * capstone, loaded by the first pm_libcapstone__load (base/dynlib.h): only
 * annotate disassembles, and linked in, capstone's 77,000 relocations cost
 * every command 6 ms and 380 page faults at start (pmrec --version 10.5
 * ms, a 12 MB report 86).  Calls go through pm_libcapstone's pointers,
 * typed as capstone.h declares the functions.
 */
#include <capstone/capstone.h>

struct pm_libcapstone {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
};

/* Valid after pm_libcapstone__load returned 0. */
extern struct pm_libcapstone pm_libcapstone;

/*
 * The library of the capstone.h built against (libcapstone.so.4 for
 * capstone 4: the instruction details' layout is the header's).
 */
#define PM_LIBCAPSTONE_SONAME PM_LIBCAPSTONE__STR("libcapstone.so.", CS_API_MAJOR)
/* Debian's package of that library: libcapstone4 for capstone 4. */
#define PM_LIBCAPSTONE_PACKAGE PM_LIBCAPSTONE__STR("libcapstone", CS_API_MAJOR)
#define PM_LIBCAPSTONE__STR(s, major) PM_LIBCAPSTONE__STR2(s, major)
#define PM_LIBCAPSTONE__STR2(s, major) s #major

/* Loads PM_LIBCAPSTONE_SONAME once: 0, or -ENOSYS when it is not installed. */
int pm_libcapstone__load(void);

#endif
