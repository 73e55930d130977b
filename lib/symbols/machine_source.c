// SPDX-License-Identifier: GPL-2.0
/*
 * Which file names a mapping: the recording's own symbols of its build id,
 * else any file with that build id (locate.h), else, without a recorded
 * build id, the file at its path if it is still the one mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "symbols/dso.h"
#include "symbols/machine_int.h"
#include "symbols/symarchive.h"

void machine__refuse(struct pm_machine *m, struct pm_map *map, const char *why,
			    struct pm_frame *f)
{
	size_t i;

	map->state = MAP_REFUSED;
	m->gen++;
	/* Once per path: a replaced file can stand behind several DSOs. */
	for (i = 0; i < m->nr_reported; i++)
		if (!strcmp(pm_dso__path(m->reported[i]), pm_dso__path(map->dso)))
			return;
	if (!pm_array__grow((void **)&m->reported, &m->cap_reported, m->nr_reported, sizeof(*m->reported)))
		m->reported[m->nr_reported++] = map->dso;
	f->refused_now = true;
	f->refusal = why;
}

/*
 * Where a file's names come from, said once per file: source, then the
 * file used when it is not at the recorded path, and the candidates passed
 * over.
 */
static void machine__note(struct pm_machine *m, const struct pm_map *map, const char *source,
			  struct pm_frame *f)
{
	uint64_t key = (uint64_t)(uintptr_t)map->dso;
	const char *found = pm_dso__found(map->dso), *passed = pm_dso__passed(map->dso);
	char *text;

	if (pm_hashtab__find_int(&m->noted, key, NULL) ||
	    pm_hashtab__insert_int(&m->noted, key, 0))
		return;
	f->source_now = true;
	f->source = source;
	if (map->state == MAP_EMBEDDED || (!passed && (!found || !strcmp(found, pm_dso__path(map->dso)))))
		return;
	if (pm_array__grow((void **)&m->notes, &m->cap_notes, m->nr_notes, sizeof(*m->notes)) ||
	    asprintf(&text, "%s%s%s%s%s%s", source, found && strcmp(found, pm_dso__path(map->dso)) ?
			 ": " : "", found && strcmp(found, pm_dso__path(map->dso)) ? found : "",
		     passed ? " (passed over: " : "", passed ? passed : "", passed ? ")" : "") < 0)
		return;
	m->notes[m->nr_notes++] = text;
	f->source = text;
}

/* The build id the recording saw for map's file: 0, or its length. */
static size_t machine__wanted(struct pm_machine *m, const struct pm_map *map,
			      const unsigned char **want)
{
	const struct pm_expect *e;

	*want = map->id;
	if (map->id_len)
		return map->id_len;
	e = machine__expected(m, pm_dso__path(map->dso));
	if (!e)
		return 0;
	*want = e->id;
	return e->len;
}

/*
 * Why the file at the recorded path is not used, when it is there but is
 * another one; NULL when it is missing (not worth a warning: said with -v).
 */
static const char *machine__why_not(struct pm_dso *here, const unsigned char *want,
				    size_t want_len)
{
	const unsigned char *have;
	size_t have_len;
	int err;

	if (!here)
		return NULL;
	err = pm_dso__build_id(here, &have, &have_len);
	if (err == -ESTALE)
		return "the file was replaced since the recording";
	if (!err && (have_len != want_len || memcmp(have, want, want_len)))
		return "its build id differs from the recorded one";
	return NULL;
}

/*
 * Which file names map?  Where the recording knows the build id, its own
 * symbols of that id first, then any file with that id (locate.h); a file
 * without a recorded id is trusted by identity.
 */
void machine__check(struct pm_machine *m, struct pm_map *map, struct pm_frame *f)
{
	const unsigned char *want, *have;
	size_t want_len = machine__wanted(m, map, &want), have_len;
	struct pm_dso *dso, *here;
	const char *why;

	map->state = MAP_OK;
	if (!want_len) {
		machine__note(m, map, "named from the file (no build id recorded)", f);
		return;
	}
	map->emb = m->archive ? pm_symarchive__file(m->archive, want, want_len) : NULL;
	if (map->emb) {
		map->state = MAP_EMBEDDED;
		machine__note(m, map, "named from the symbols embedded in the recording", f);
		return;
	}
	dso = map->id_len ? map->dso :
			    pm_dso_cache__findnew_id(m->dsos, pm_dso__path(map->dso), want, want_len);
	if (dso)
		map->dso = dso;
	if (dso && !pm_dso__build_id(dso, &have, &have_len)) {
		machine__note(m, map, "named from the file (build id matches)", f);
		return;
	}
	/* The build id decides: the file now at the path, whatever its inode. */
	here = pm_dso_cache__findnew(m->dsos, pm_dso__path(map->dso), 0, 0);
	why = here ? machine__why_not(here, want, want_len) : NULL;
	if (why)
		machine__refuse(m, map, why, f);
	else
		machine__note(m, map, "not named: build id not found (no file here has the "
			      "recorded build id, and the recording carries no symbols for it)", f);
}

