/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SMALLFILE_H
#define PMREC_SMALLFILE_H

/* Small files of /proc and /sys read whole: sysctls, CPU lists, task status. */
#include <stddef.h>
#include <stdint.h>

/* Reads up to size - 1 bytes into buf, NUL-terminated, without the final \n. */
int pm_read_small(const char *path, char *buf, size_t size);
/* A file holding one unsigned decimal number; -EINVAL if it holds anything else. */
int pm_read_u64(const char *path, uint64_t *out);
/* A file holding one decimal number, possibly negative (perf_event_paranoid). */
int pm_read_int(const char *path, int *out);

#endif
