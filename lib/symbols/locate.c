// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "symbols/elf.h"
#include "symbols/debuginfod.h"
#include "symbols/elf_int.h"
#include "symbols/locate.h"
#include "symbols/vdso.h"

#define SYSTEM_DEBUG_ROOT "/usr/lib/debug"

/* The candidates, in the order tried (see locate.h). */
enum locate_step {
	STEP_SYMFS_PATH,
	STEP_SYMFS_BASE,
	STEP_PATH,
	STEP_CACHE_LINK,
	STEP_CACHE_PATH,
	STEP_RUNNING_VDSO,
	STEP_SYSTEM_DEBUG,
	STEP_FETCH,
	STEP_END,
};

struct pm_locator {
	struct pm_locator_opts o;
	char *cache;			/* the build-id cache's root; NULL: none */
	/* Made when first asked: most runs find every file before. */
	struct pm_debuginfod *debuginfod;
	int debuginfod_err;
};

static int locate__debuginfod(void *arg, const unsigned char *id, size_t len, bool debug,
			      const char **path)
{
	struct pm_locator *l = arg;

	if (!l->debuginfod && !l->debuginfod_err) {
		l->debuginfod = pm_debuginfod__new();
		l->debuginfod_err = l->debuginfod ? 0 : -errno;
	}
	if (!l->debuginfod)
		return l->debuginfod_err == -ENOMEM ? -ENOMEM : -ENOENT;
	return pm_debuginfod__find(l->debuginfod, id, len, debug ? PM_DEBUGINFOD_DEBUGINFO :
							  PM_DEBUGINFOD_EXECUTABLE, path);
}

struct pm_locator *pm_locator__new(const struct pm_locator_opts *o)
{
	struct pm_locator *l = calloc(1, sizeof(*l));
	const char *home = getenv("HOME");

	if (!l)
		return NULL;
	l->o = *o;
	/* As elfutils and perf: no server is asked unless the user names one. */
	if (!o->fetch && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS")) {
		l->o.fetch = locate__debuginfod;
		l->o.fetch_arg = l;
	}
	if (o->buildid_dir)
		l->cache = strdup(o->buildid_dir);
	else if (home && *home && asprintf(&l->cache, "%s/.debug", home) < 0)
		l->cache = NULL;
	if (o->buildid_dir && !l->cache) {
		pm_locator__delete(l);
		return NULL;
	}
	return l;
}

void pm_locator__delete(struct pm_locator *l)
{
	if (!l)
		return;
	pm_debuginfod__delete(l->debuginfod);
	free(l->cache);
	free(l);
}

bool pm_locator__debuginfod_stats(const struct pm_locator *l, struct pm_debuginfod_stats *st)
{
	if (!l->debuginfod)
		return false;
	pm_debuginfod__stats(l->debuginfod, st);
	return st->fetched || st->cached || st->failed;
}

void pm_located__exit(struct pm_located *loc)
{
	free(loc->path);
	loc->path = NULL;
}

/* One candidate: root + rel, rel resolved inside root when in_root. */
struct locate_cand {
	const char *root;
	char rel[PATH_MAX];
	bool in_root;
	bool recorded;
	bool no_code;
	bool vdso;		/* the running kernel's vDSO, not a path */
};

/*
 * Fills c for step, for the file recorded as path of build id hex ("": none
 * known).  false when the step does not apply.
 */
static bool locate__cand(const struct pm_locator *l, enum locate_step step, const char *path,
			 const char *hex, struct locate_cand *c)
{
	bool absolute = path[0] == '/', is_vdso = !strcmp(path, PM_VDSO_NAME);
	int n = -1;

	*c = (struct locate_cand){ .in_root = true };
	switch (step) {
	case STEP_SYMFS_PATH:
	case STEP_SYMFS_BASE:
		if (!l->o.symfs || !absolute)
			return false;
		c->root = l->o.symfs;
		n = snprintf(c->rel, sizeof(c->rel), "%s",
			     step == STEP_SYMFS_PATH ? path : pm_path__base(path));
		break;
	case STEP_PATH:
		if (!absolute)
			return false;
		c->in_root = false;
		c->recorded = !*hex;
		n = snprintf(c->rel, sizeof(c->rel), "%s", path);
		break;
	case STEP_CACHE_LINK:
	case STEP_CACHE_PATH:
		if (!*hex || !l->cache)
			return false;
		c->root = l->cache;
		/* perf keeps a vDSO as "[vdso]/BUILDID/vdso". */
		n = step == STEP_CACHE_LINK ?
			    snprintf(c->rel, sizeof(c->rel), ".build-id/%.2s/%s/%s", hex, hex + 2,
				     is_vdso ? "vdso" : "elf") :
			    snprintf(c->rel, sizeof(c->rel), "%s/%s/%s", path, hex,
				     is_vdso ? "vdso" : "elf");
		break;
	case STEP_RUNNING_VDSO:
		if (!*hex || !is_vdso)
			return false;
		c->in_root = false;
		c->vdso = true;
		n = snprintf(c->rel, sizeof(c->rel), "the running kernel's vDSO");
		break;
	case STEP_SYSTEM_DEBUG:
		if (!*hex)
			return false;
		c->root = SYSTEM_DEBUG_ROOT;
		c->no_code = true;
		n = snprintf(c->rel, sizeof(c->rel), ".build-id/%.2s/%s.debug", hex, hex + 2);
		break;
	default:
		return false;
	}
	return n > 0 && (size_t)n < sizeof(c->rel);
}

/* Opens c: the fd, or -errno. */
static int locate__open_cand(const struct locate_cand *c, struct stat *st)
{
	int root_fd, fd;

	if (c->vdso) {
		fd = pm_vdso__memfd();
		if (fd >= 0 && fstat(fd, st)) {
			close(fd);
			fd = -errno;
		}
		return fd;
	}
	if (!c->in_root)
		return pm_file__open(c->rel, O_RDONLY, 0, 0, st);
	/* The root itself is the user's or root's own: it may be a symlink. */
	root_fd = pm_file__open(c->root, O_RDONLY, PM_FILE_DIR | PM_FILE_FOLLOW, 0, NULL);
	if (root_fd < 0)
		return root_fd;
	fd = pm_file__open_in_root(root_fd, c->rel, O_RDONLY, PM_FILE_FOLLOW, 0, st);
	close(root_fd);
	return fd;
}

/* "ROOT/REL" or "PATH", as said to the user and kept to open it again. */
static char *locate__name(const struct locate_cand *c, size_t *root_len)
{
	char *s;

	*root_len = 0;
	if (!c->in_root)
		return strdup(c->rel);
	if (asprintf(&s, "%s/%s", c->root, c->rel + (c->rel[0] == '/')) < 0)
		return NULL;
	*root_len = strlen(c->root);
	return s;
}

static void locate__say(struct pm_buf *trail, const char *name, const char *why)
{
	if (!trail)
		return;
	if (trail->len)
		pm_buf__append(trail, "; ", 2);
	pm_buf__append(trail, name, strlen(name));
	pm_buf__append(trail, ": ", 2);
	pm_buf__append(trail, why, strlen(why));
}

/* Is ef the file wanted: an ELF file with build id id (len 0: any)? NULL, or why not. */
static const char *locate__verdict(struct elf_file *ef, const unsigned char *id, size_t len)
{
	unsigned char have[PM_BUILD_ID_SIZE];
	size_t have_len;

	if (!len)
		return NULL;
	if (elf__build_id(ef->elf, have, &have_len))
		return "it has no build id";
	if (have_len != len || memcmp(have, id, len))
		return "its build id differs from the recorded one";
	return NULL;
}

static const char *locate__open_error(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		return "not there";
	case -ENOEXEC:
		return "not an ELF file";
	case -EXDEV:
	case -ELOOP:
		return "a symlink leading out of its tree";
	case -EACCES:
	case -EPERM:
		return "permission denied";
	default:
		return strerror(-err);
	}
}

/* Tries one candidate: 0 (ef open), 1 passed over (said in trail), or -ENOMEM. */
static int locate__try(const struct locate_cand *c, const unsigned char *id, size_t len,
		       struct elf_file *ef, struct pm_located *loc, struct pm_buf *trail)
{
	const char *why;
	struct stat st;
	size_t root_len;
	char *name = locate__name(c, &root_len);
	int fd, err;

	if (!name)
		return -ENOMEM;
	fd = locate__open_cand(c, &st);
	err = fd < 0 ? fd : elf_file__open_fd(ef, fd);
	if (err == -EINVAL || err == -EISDIR)
		err = -ENOEXEC;
	why = err ? locate__open_error(err) : locate__verdict(ef, id, len);
	if (!err && why)
		elf_file__close(ef);
	if (why) {
		locate__say(trail, name, why);
		free(name);
		return 1;
	}
	*loc = (struct pm_located){ .path = name, .root_len = root_len, .recorded = c->recorded,
				    .no_code = c->no_code, .vdso = c->vdso, .dev = st.st_dev,
				    .ino = st.st_ino };
	return 0;
}

/* The last resort: the fetcher's copy, checked as any candidate. */
static int locate__fetch(struct pm_locator *l, const unsigned char *id, size_t len,
			 struct elf_file *ef, struct pm_located *loc, struct pm_buf *trail)
{
	struct locate_cand c = { .in_root = false };
	const char *got;
	int err;

	if (!l->o.fetch || !len)
		return 1;
	err = l->o.fetch(l->o.fetch_arg, id, len, false, &got);
	if (err) {
		locate__say(trail, "debuginfod", err == -ENOENT ? "not found" :
				 err == -ETIMEDOUT ? "timed out" : strerror(-err));
		return 1;
	}
	if (snprintf(c.rel, sizeof(c.rel), "%s", got) >= (int)sizeof(c.rel))
		return 1;
	return locate__try(&c, id, len, ef, loc, trail);
}

int pm_locator__open(struct pm_locator *l, const char *path, const unsigned char *id,
		     size_t len, struct elf_file *ef, struct pm_located *loc,
		     struct pm_buf *trail)
{
	char hex[PM_BUILD_ID_HEX_MAX];
	struct locate_cand c;
	enum locate_step step;
	int err;

	*loc = (struct pm_located){ 0 };
	pm_elf__build_id_hex(hex, id, len);
	for (step = 0; step < STEP_FETCH; step++) {
		if (!locate__cand(l, step, path, hex, &c))
			continue;
		err = locate__try(&c, id, len, ef, loc, trail);
		if (err <= 0)
			return err;
	}
	err = locate__fetch(l, id, len, ef, loc, trail);
	return err == 1 ? -ENOENT : err;
}

int pm_locator__open_debug(struct pm_locator *l, const unsigned char *id, size_t len,
			   bool fetch, struct elf_file *ef, char **path)
{
	struct locate_cand c = { .in_root = true, .root = SYSTEM_DEBUG_ROOT };
	char hex[PM_BUILD_ID_HEX_MAX];
	struct pm_located loc;
	const char *got;
	int err;

	if (len < 2)
		return -ENOENT;
	pm_elf__build_id_hex(hex, id, len);
	snprintf(c.rel, sizeof(c.rel), ".build-id/%.2s/%s.debug", hex, hex + 2);
	err = locate__try(&c, id, len, ef, &loc, NULL);
	if (err == 1 && l->cache) {
		c.root = l->cache;
		snprintf(c.rel, sizeof(c.rel), ".build-id/%.2s/%s/debug", hex, hex + 2);
		err = locate__try(&c, id, len, ef, &loc, NULL);
	}
	if (err == 1 && fetch && l->o.fetch && !l->o.fetch(l->o.fetch_arg, id, len, true, &got) &&
	    strlen(got) < sizeof(c.rel)) {
		c = (struct locate_cand){ .in_root = false };
		strcpy(c.rel, got);
		err = locate__try(&c, id, len, ef, &loc, NULL);
	}
	if (!err && path)
		*path = loc.path;
	else if (!err)
		pm_located__exit(&loc);
	return err == 1 ? -ENOENT : err;
}

int pm_locator__reopen(struct pm_locator *l, const struct pm_located *loc)
{
	struct locate_cand c = { .in_root = loc->root_len > 0 };
	char root[PATH_MAX];
	struct stat st;
	int fd;

	(void)l;
	if (loc->vdso)
		return pm_vdso__memfd();
	if (!loc->path || strlen(loc->path) >= sizeof(c.rel) || loc->root_len >= sizeof(root))
		return -ENOENT;
	if (c.in_root) {
		memcpy(root, loc->path, loc->root_len);
		root[loc->root_len] = '\0';
		c.root = root;
		strcpy(c.rel, loc->path + loc->root_len + 1);
	} else {
		strcpy(c.rel, loc->path);
	}
	fd = locate__open_cand(&c, &st);
	if (fd >= 0 && (st.st_dev != loc->dev || st.st_ino != loc->ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
