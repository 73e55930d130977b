// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stddef.h>

#include "base/dynlib.h"
#include "profile/libcapstone.h"

struct pm_libcapstone pm_libcapstone;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_err;

static void libcapstone__load(void)
{
	/* In struct pm_libcapstone's order. */
	static const char *const names[] = {
		"cs_open", "cs_option", "cs_malloc", "cs_disasm_iter", "cs_insn_group", "cs_free",
		"cs_close",
	};
	void *syms[sizeof(names) / sizeof(names[0])];
	void **slot = (void **)&pm_libcapstone;
	size_t i;

	_Static_assert(sizeof(pm_libcapstone) == sizeof(syms), "one name per pointer");
	load_err = pm_dynlib__load(PM_LIBCAPSTONE_SONAME, names, syms,
				   sizeof(names) / sizeof(names[0]));
	for (i = 0; !load_err && i < sizeof(syms) / sizeof(syms[0]); i++)
		slot[i] = syms[i];
}

int pm_libcapstone__load(void)
{
	pthread_once(&once, libcapstone__load);
	return load_err;
}
