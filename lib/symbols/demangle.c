// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/demangle.h"
#include "base/hashtab.h"
#include "symbols/symname.h"

bool pm_demangle__is_mangled(const char *name)
{
	return (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
	       (name[0] == '_' && name[1] == '_' && name[2] == 'Z');
}

/*
 * A PLT stub's name (symtab_plt.c): perf demangles the symbol, then adds
 * the suffix, which the demangler would drop.
 */
static char *demangle_plt(const char *name, size_t len)
{
	size_t base = len - strlen(PM_PLT_SUFFIX);
	char *copy = strndup(name, base), *d = copy ? cplus_demangle(copy, DMGL_AUTO) : NULL;
	char *out = d ? malloc(strlen(d) + sizeof(PM_PLT_SUFFIX)) : NULL;

	if (out)
		strcat(strcpy(out, d), PM_PLT_SUFFIX);
	free(copy);
	free(d);
	return out;
}

char *pm_demangle__str(const char *name)
{
	size_t len;

	if (!pm_demangle__is_mangled(name))
		return NULL;
	len = strlen(name);
	if (len > strlen(PM_PLT_SUFFIX) && !strcmp(name + len - strlen(PM_PLT_SUFFIX), PM_PLT_SUFFIX))
		return pm_sym_name__cut(demangle_plt(name, len));
	/* DMGL_AUTO picks the scheme (GNU v3 or Rust) from the name itself. */
	return pm_sym_name__cut(cplus_demangle(name, DMGL_AUTO));
}

/* Name pointer -> its demangled copy (0: the name is shown as it is). */
struct pm_demangler {
	struct pm_hashtab names;
};

struct pm_demangler *pm_demangler__new(void)
{
	struct pm_demangler *d = malloc(sizeof(*d));

	if (d)
		pm_hashtab__init(&d->names, NULL, NULL);
	return d;
}

void pm_demangler__delete(struct pm_demangler *d)
{
	size_t pos = 0;
	uint64_t key, val;

	if (!d)
		return;
	while (pm_hashtab__next(&d->names, &pos, &key, &val))
		free((char *)(uintptr_t)val);
	pm_hashtab__exit(&d->names);
	free(d);
}

const char *pm_demangler__name(struct pm_demangler *d, const char *name)
{
	uint64_t val;
	char *copy;

	if (!pm_demangle__is_mangled(name))
		return name;
	if (!pm_hashtab__find_int(&d->names, (uintptr_t)name, &val)) {
		copy = pm_demangle__str(name);
		if (pm_hashtab__insert_int(&d->names, (uintptr_t)name, (uintptr_t)copy)) {
			free(copy);
			return name;
		}
		val = (uintptr_t)copy;
	}
	return val ? (const char *)(uintptr_t)val : name;
}
