/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LOCATE_H
#define PMREC_LOCATE_H

/*
 * Where the file a recording names is found today, in one order for every
 * reader (report, dump, annotate, archive, top, the DWARF unwinder, source
 * lines), perf's:
 *
 *   1. --symfs DIR: the recorded path inside DIR, else DIR/its base name;
 *   2. the recorded path;
 *   3. perf's build-id cache (--buildid-dir, else $HOME/.debug): the
 *      .build-id/xx/rest link's "elf", then PATH/BUILDID/elf ("vdso" for
 *      "[vdso]", as perf keeps it);
 *   4. for "[vdso]", the running kernel's (vdso.h), when it has that id;
 *   5. /usr/lib/debug/.build-id/xx/rest.debug (symbols, headers, DWARF;
 *      no code);
 *   6. a fetcher by build id (debuginfod), last.
 *
 * The symbols a recording carries come before all of these: the caller's.
 * Where the recording knows the file's build id, the build id decides: a
 * candidate is used when it has that id, whatever its inode or age, and
 * passed over otherwise.  Without one, only 1 and 2 are tried, and the
 * recorded path is the caller's to check against the recorded inode.
 *
 * Symlinks inside DIR and inside the cache resolve within them (an absolute
 * link from their top, ".." stops there): a container image or another
 * machine's tree is read as its own filesystem, and a link planted in the
 * cache leads nowhere else.  Every open is pm_file__open's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct elf_file;
struct pm_buf;

/* The fetcher: the path of a local copy of the file of build id id, or -errno. */
typedef int pm_locate_fetch_fn(void *arg, const unsigned char *id, size_t len, bool debug,
			       const char **path);

struct pm_locator_opts {
	const char *symfs;		/* NULL: none */
	const char *buildid_dir;	/* NULL: $HOME/.debug */
	/*
	 * The fetcher; NULL: debuginfod (symbols/debuginfod.h) when
	 * DEBUGINFOD_URLS names a server, else none.
	 */
	pm_locate_fetch_fn *fetch;
	void *fetch_arg;
};

struct pm_locator;

/* NULL with errno ENOMEM.  The strings in o must outlive the locator. */
struct pm_locator *pm_locator__new(const struct pm_locator_opts *o);
void pm_locator__delete(struct pm_locator *l);

/*
 * What its debuginfod client did, for a summary: false when it has none
 * (DEBUGINFOD_URLS unset) or asked nothing.
 */
struct pm_debuginfod_stats;
bool pm_locator__debuginfod_stats(const struct pm_locator *l, struct pm_debuginfod_stats *st);

/* Where a file was found, to open it again (pm_locator__reopen). */
struct pm_located {
	char *path;		/* as said to the user; NULL: nothing found */
	size_t root_len;	/* >0: path[root_len..] resolved inside path[..root_len) */
	bool recorded;		/* the recorded path itself, no build id to check */
	bool no_code;		/* a separate debug file: headers, symbols, DWARF */
	bool vdso;		/* the running kernel's vDSO (vdso.h), reopened as a copy */
	dev_t dev;
	ino_t ino;
};

void pm_located__exit(struct pm_located *loc);

/*
 * Opens the file recorded as path with build id id (len 0: none known) as
 * an ELF file, the first candidate of the order above that is one (and has
 * that build id), and fills *loc.  trail, when not NULL, receives one line
 * per candidate passed over, and why ("/x/y: its build id differs").
 * Returns 0, -ENOENT when no candidate fits, -ENOMEM.
 */
int pm_locator__open(struct pm_locator *l, const char *path, const unsigned char *id,
		     size_t len, struct elf_file *ef, struct pm_located *loc,
		     struct pm_buf *trail);

/*
 * A separate debug file (symbols, DWARF; no code) of build id id: perf's
 * cache's .build-id/xx/rest/debug, /usr/lib/debug/.build-id/xx/rest.debug,
 * and, with fetch, the fetcher's.  0 (ef open; its path in *path when
 * path is not NULL, to free), -ENOENT, -ENOMEM.
 */
int pm_locator__open_debug(struct pm_locator *l, const unsigned char *id, size_t len,
			   bool fetch, struct elf_file *ef, char **path);

/* The file found before, again: its fd, -ESTALE if it is another file now, or -errno. */
int pm_locator__reopen(struct pm_locator *l, const struct pm_located *loc);

#endif
