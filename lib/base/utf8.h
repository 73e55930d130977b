/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UTF8_H
#define PMREC_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length of the valid UTF-8 sequence at s (n bytes readable there, n
 * at least 1), with its code point in *cp; 0 when s starts none: a stray
 * byte, a sequence cut short, an overlong form, a surrogate or a code point
 * past U+10FFFF.  The one check behind every printer that must write valid
 * UTF-8 (JSON, text, SVG, pprof) whatever names a recording holds.
 */
size_t pm_utf8__len(const unsigned char *s, size_t n, uint32_t *cp);

/*
 * The one rule for text a recording names (symbols, comms, paths, source
 * lines) on its way to a terminal: what a terminal would act on or that
 * would reorder the line never reaches it.  The length of the longest
 * prefix of s (n bytes) safe to print as it is, and in *bad the length of
 * the unsafe sequence after it (0 at the end of s), which the printer
 * shows as one '?': a C0 control (tab too unless tab is true), DEL, a C1
 * control (U+0080-U+009F: 0x9b is CSI to xterm), a bidirectional control
 * (U+202A-U+202E, U+2066-U+2069), or a byte that starts no valid UTF-8
 * sequence (each such byte on its own).  JSON and SVG have escapes of
 * their own and do not use it.
 */
size_t pm_utf8__safe_run(const char *s, size_t n, bool tab, size_t *bad);

#endif
