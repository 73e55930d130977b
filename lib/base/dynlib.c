// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>

#include "base/dynlib.h"

int pm_dynlib__load(const char *soname, const char *const *names, void **syms, size_t n)
{
	/* dlopen counts references: a second load of the same library is cheap. */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h)
		return -ENOSYS;
	for (i = 0; i < n; i++) {
		syms[i] = dlsym(h, names[i]);
		if (!syms[i])
			return -ENOSYS;
	}
	return 0;
}
