/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DEBUGINFO_H
#define PMREC_DEBUGINFO_H

/*
 * Separate debug files for libdw, found where libdw's standard lookup
 * looks, but opened through pm_file__open: libdw's own lookup opens each
 * candidate blocking and following links, so a .gnu_debuglink that names a
 * FIFO beside a mapped file would hang pmrec (and perf), and one naming a
 * device would open it.  Each candidate is kept only when it is the right
 * file: its build id is the one wanted, else (without a build id) its
 * CRC-32 is the debuglink's.  No network lookup (debuginfod) is made.
 */
#include <elfutils/libdwfl.h>

/*
 * A Dwfl_Callbacks.find_elf that finds nothing: every module is reported
 * with its file open (pm_file__open), so libdw opens no path itself.
 */
int pm_debuginfo__find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **file_name, Elf **elfp);

/*
 * A Dwfl_Callbacks.find_debuginfo.  A module whose userdata is its
 * struct pm_dso (pm_debuginfo__set_dso) finds its debug file by build id
 * as every file is found (lib/symbols/locate.h); others under
 * /usr/lib/debug/.build-id.  Then .gnu_debuglink's places.
 */
int pm_debuginfo__find(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file_name, const char *debuglink_file,
		       GElf_Word debuglink_crc, char **debuginfo_file_name);

/* mod is the file of dso (NULL: none), for pm_debuginfo__find. */
struct pm_dso;
void pm_debuginfo__set_dso(Dwfl_Module *mod, struct pm_dso *dso);

#endif
