/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DEMANGLE_H
#define PMREC_DEMANGLE_H

/*
 * C++ (_Z) and Rust (legacy _ZN..17h<hash>E and v0 _R) symbol names made
 * readable with libiberty's demangler, as perf shows them by default:
 * without parameter lists ("ns::f<int>", "main::{lambda()#1}::operator()").
 * Results are cached by the address of the name, so names must outlive the
 * cache (symbol tables do: they live as long as the namer).
 */
#include <stdbool.h>

/* Is name in a mangled form this demangler knows? */
bool pm_demangle__is_mangled(const char *name);
/* The demangled name, malloc'ed, or NULL if name is not mangled or on error. */
char *pm_demangle__str(const char *name);

struct pm_demangler;

struct pm_demangler *pm_demangler__new(void);
void pm_demangler__delete(struct pm_demangler *d);
/*
 * name demangled, valid as long as d; name itself when it is not mangled,
 * cannot be demangled, or memory runs out.
 */
const char *pm_demangler__name(struct pm_demangler *d, const char *name);

#endif
