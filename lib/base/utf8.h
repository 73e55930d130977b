/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UTF8_H
#define PMREC_UTF8_H

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

#endif
