// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's names for the namer: /proc/kallsyms (prefetched on a
 * thread) if the recording was made on this kernel, else the symbols the
 * recording carries.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/cursor.h"
#include "format/perf_data.h"
#include "symbols/elf.h"
#include "symbols/kallsyms.h"
#include "symbols/machine.h"
#include "symbols/naming.h"
#include "symbols/naming_int.h"
#include "symbols/vdso.h"
#include "symbols/symarchive.h"

/* The file the user named, else the running kernel's symbols (cached). */
static struct pm_kallsyms *namer__read_kallsyms(const struct pm_namer *n)
{
	if (n->opts.kallsyms)
		return pm_kallsyms__load(n->opts.kallsyms);
	return pm_kallsyms__load_running(&(struct pm_kallsyms_source){
		.cache_dir = n->opts.kallsyms_cache });
}

/* The prefetched kallsyms, waited for, else read now; NULL with *err (an errno) if none. */
struct pm_kallsyms *namer__take_kallsyms(struct pm_namer *n, int *err)
{
	struct pm_kallsyms *ks;

	if (!n->prefetch.started) {
		ks = namer__read_kallsyms(n);
		*err = ks ? 0 : errno;
		return ks;
	}
	pthread_join(n->prefetch.thread, NULL);
	n->prefetch.started = false;
	ks = n->prefetch.ks;
	n->prefetch.ks = NULL;
	*err = n->prefetch.err;
	return ks;
}

/* The perf string of a feature, or NULL. */
static const char *feature_string(struct pm_reader *r, int feat)
{
	struct pm_cursor c;
	const void *p;
	uint32_t len;

	if (pm_reader__feature(r, feat, &c) || pm_cursor__u32(&c, &len) ||
	    pm_cursor__bytes(&c, len, &p) || !len || !memchr(p, '\0', len))
		return NULL;
	return p;
}

enum kernel_match { KERNEL_SAME, KERNEL_OTHER, KERNEL_UNKNOWN };

/*
 * kallsyms names the recording's kernel addresses if this is its kernel,
 * by build id, else by release.  A file that says neither (a recording
 * killed before its features were written) is named from this kernel, as
 * perf does, with a warning.
 */
static enum kernel_match namer__same_kernel(struct pm_namer *n)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	struct utsname u;
	const char *rel;
	size_t len;

	if (n->kernel_id_len)
		return !pm_elf__kernel_build_id(id, &len) && len == n->kernel_id_len &&
		       !memcmp(id, n->kernel_id, len) ? KERNEL_SAME : KERNEL_OTHER;
	rel = feature_string(n->r, HEADER_OSRELEASE);
	if (!rel)
		return KERNEL_UNKNOWN;
	return !uname(&u) && !strcmp(rel, u.release) ? KERNEL_SAME : KERNEL_OTHER;
}

int namer__expect_running_vdso(struct pm_namer *n)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t len;

	if (n->vdso_id || namer__same_kernel(n) != KERNEL_SAME || pm_vdso__build_id(id, &len))
		return 0;
	return pm_machine__expect_build_id(n->machine, PM_VDSO_NAME, id, len);
}

static void *namer__prefetch(void *arg)
{
	struct pm_namer *n = arg;

	n->prefetch.ks = namer__read_kallsyms(n);
	n->prefetch.err = n->prefetch.ks ? 0 : errno;
	__atomic_store_n(&n->prefetch.done, true, __ATOMIC_RELEASE);
	return NULL;
}

void pm_namer__prefetch_kallsyms(struct pm_namer *n)
{
	size_t i, nr = pm_reader__nr_evsels(n->r);
	bool kernel = !nr;

	for (i = 0; i < nr; i++)
		kernel |= !pm_reader__evsel(n->r, i)->attr.exclude_kernel;
	if (!kernel || n->kernel_syms || n->prefetch.started ||
	    (!n->opts.kallsyms && namer__same_kernel(n) == KERNEL_OTHER))
		return;
	n->prefetch.started = !pthread_create(&n->prefetch.thread, NULL, namer__prefetch, n);
}

bool pm_namer__kernel_pending(const struct pm_namer *n)
{
	return n->prefetch.started && !__atomic_load_n(&n->prefetch.done, __ATOMIC_ACQUIRE);
}

/* The kernel's symbols from the recording itself, if it has them. */
static bool namer__embedded_kallsyms(struct pm_namer *n, const char *why)
{
	struct pm_kallsyms *ks;

	if (!n->archive_kernel)
		return false;
	ks = pm_symarchive__kallsyms(n->archive);
	if (!ks)
		return false;
	pm_machine__set_kallsyms(n->machine, ks);
	n->kernel_syms = 1;
	namer__source(n, "[kernel.kallsyms]", why);
	return true;
}

/*
 * kallsyms of this kernel if it is the recorded one (or the file the user
 * named), else the recording's own kernel symbols, else none.
 */
void namer__load_kallsyms(struct pm_namer *n)
{
	enum kernel_match m = n->opts.kallsyms ? KERNEL_SAME : namer__same_kernel(n);
	struct pm_kallsyms *ks;
	int err;

	n->kernel_syms = -1;
	if (m == KERNEL_OTHER) {
		if (!namer__embedded_kallsyms(n, "named from the symbols embedded in the "
					     "recording (recorded on another kernel)"))
			namer__warn(n, (struct pm_warning){ .kind = PM_WARN_OTHER_KERNEL });
		return;
	}
	ks = namer__take_kallsyms(n, &err);
	if (!ks) {
		if (!namer__embedded_kallsyms(n, "named from the symbols embedded in the "
					     "recording (no kernel symbols readable here)"))
			namer__warn(n, (struct pm_warning){ .kind = PM_WARN_NO_KALLSYMS, .err = err,
							    .dso = n->opts.kallsyms });
		return;
	}
	if (m == KERNEL_UNKNOWN)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_UNKNOWN_KERNEL });
	pm_machine__set_kallsyms(n->machine, ks);
	n->kernel_syms = 1;
	namer__source(n, "[kernel.kallsyms]", n->opts.kallsyms ? "named from the file given with "
		      "--kallsyms" : "named from /proc/kallsyms (the recorded kernel runs here)");
}

const struct pm_kallsyms *pm_namer__kallsyms(struct pm_namer *n)
{
	if (!n->kernel_syms)
		namer__load_kallsyms(n);
	return pm_machine__kallsyms(n->machine);
}

size_t pm_namer__kernel_build_id(const struct pm_namer *n, const unsigned char **id)
{
	*id = n->kernel_id;
	return n->kernel_id_len;
}
