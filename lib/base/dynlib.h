/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DYNLIB_H
#define PMREC_DYNLIB_H

/*
 * Libraries loaded when first used: libdebuginfod (only with
 * DEBUGINFOD_URLS) and libcurl (only for pmrec agent).  Linked in, they
 * and what they pull (TLS, HTTP/2, Kerberos, LDAP...) doubled the memory
 * of every pmrec run, record's too, whether it used them or not.
 */
#include <stddef.h>

/*
 * Loads the library soname (once per process; never unloaded) and points
 * syms[i] at its symbol names[i].  0, or -ENOSYS when the library or a
 * symbol is missing.  Thread-safe.
 */
int pm_dynlib__load(const char *soname, const char *const *names, void **syms, size_t n);

#endif
