// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"
#include "symname.h"

bool pm_demangle__is_mangled(const char *name)
{
	return (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
	       (name[0] == '_' && name[1] == '_' && name[2] == 'Z');
}

char *pm_demangle__str(const char *name)
{
	if (!pm_demangle__is_mangled(name))
		return NULL;
	/* DMGL_AUTO picks the scheme (GNU v3 or Rust) from the name itself. */
	return pm_sym_name__cut(cplus_demangle(name, DMGL_AUTO));
}

/* Open addressing, name pointer -> demangled copy (NULL slot key: free). */
struct pm_demangler {
	struct slot {
		const char *key;
		char *val;		/* NULL: name is shown as it is */
	} *slot;
	size_t mask, nr;
};

struct pm_demangler *pm_demangler__new(void)
{
	return calloc(1, sizeof(struct pm_demangler));
}

void pm_demangler__delete(struct pm_demangler *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; d->slot && i <= d->mask; i++)
		free(d->slot[i].val);
	free(d->slot);
	free(d);
}

static size_t slot__hash(const char *key, size_t mask)
{
	return (size_t)(((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ULL >> 20) & mask;
}

static int demangler__grow(struct pm_demangler *d)
{
	size_t cap = d->slot ? (d->mask + 1) * 2 : 256, i, s;
	struct slot *n = calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; d->slot && i <= d->mask; i++) {
		if (!d->slot[i].key)
			continue;
		for (s = slot__hash(d->slot[i].key, cap - 1); n[s].key; s = (s + 1) & (cap - 1))
			;
		n[s] = d->slot[i];
	}
	free(d->slot);
	d->slot = n;
	d->mask = cap - 1;
	return 0;
}

const char *pm_demangler__name(struct pm_demangler *d, const char *name)
{
	size_t s;

	if (!pm_demangle__is_mangled(name))
		return name;
	if ((d->nr + 1) * 2 > (d->slot ? d->mask + 1 : 0) && demangler__grow(d))
		return name;
	for (s = slot__hash(name, d->mask); d->slot[s].key; s = (s + 1) & d->mask)
		if (d->slot[s].key == name)
			return d->slot[s].val ? d->slot[s].val : name;
	d->slot[s].key = name;
	d->slot[s].val = pm_demangle__str(name);
	d->nr++;
	return d->slot[s].val ? d->slot[s].val : name;
}
