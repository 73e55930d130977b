// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "symbols/kallsyms.h"
#include "symbols/kallsyms_int.h"
#include "symbols/symtab_int.h"

static const char *kallsyms__module(const struct pm_kallsyms *ks, const struct pm_sym *s);

#define KSYM_PAGE 4096

const char *kallsyms__sym_module(const struct pm_symtab *st, const struct pm_sym *s)
{
	const char *name = sym__name(st, s);

	return name + strlen(name) + 1;
}

static bool is_text_type(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static unsigned char kallsyms_rank(char type)
{
	unsigned char rank = RANK_SIZED;

	if (type == 'T')
		rank |= RANK_STRONG | RANK_GLOBAL;
	else if (type == 't')
		rank |= RANK_STRONG;
	return rank;
}

/* Hex digit values plus one, else zero: parsing addresses dominates. */
static const unsigned char hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

struct kallsyms_parser {
	struct pm_symtab *st;
	size_t cap;
	/* Each entry: name, NUL, module, NUL. */
	struct pm_buf names;
	bool hidden;
};

/* One "ADDR TYPE NAME[\t[MODULE]]" line; all but text symbols are skipped. */
static int kallsyms__add_line(struct kallsyms_parser *kp, const char *p,
			      const char *eol)
{
	const char *q, *name, *nend, *mod = "";
	struct pm_symtab *st = kp->st;
	size_t nlen, mlen = 0, cap;
	struct pm_sym *syms;
	uint64_t addr = 0;
	int digits, d;
	char *w;

	for (q = p; q < eol && (d = hex_value[(unsigned char)*q]); q++)
		addr = addr << 4 | (d - 1);
	digits = q - p;
	if (!digits || digits > 16 || eol - q < 4 || q[0] != ' ' ||
	    q[2] != ' ' || !is_text_type(q[1]))
		return 0;
	name = q + 3;
	nend = memchr(name, '\t', eol - name);
	if (!nend) {
		nend = eol;
	} else if (eol - nend >= 3 && nend[1] == '[' && eol[-1] == ']') {
		mod = nend + 2;
		mlen = eol - 1 - mod;
	}
	nlen = nend - name;
	if (!nlen)
		return 0;

	if (st->nr == kp->cap) {
		cap = kp->cap ? 2 * kp->cap : 4096;
		syms = realloc(st->syms, cap * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		st->syms = syms;
		kp->cap = cap;
	}
	if (kp->names.len + nlen + mlen + 2 >= SYM_NAMES_MAX)
		return -EFBIG;
	if (pm_buf__reserve(&kp->names, nlen + mlen + 2))
		return -ENOMEM;
	w = (char *)kp->names.data + kp->names.len;
	memcpy(w, name, nlen);
	w[nlen] = '\0';
	memcpy(w + nlen + 1, mod, mlen);
	w[nlen + 1 + mlen] = '\0';
	st->syms[st->nr++] = (struct pm_sym){
		.addr = addr,
		.name = (uint32_t)kp->names.len,
		.rank = kallsyms_rank(q[1]),
	};
	kp->names.len += nlen + mlen + 2;
	if (addr)
		kp->hidden = false;
	return 0;
}

/*
 * Parses as it reads, a chunk at a time, so that the text is still in the
 * cache when parsed and never held whole.
 */
#define KALLSYMS_CHUNK (64 * 1024)

static int kallsyms__read(struct kallsyms_parser *kp, int fd)
{
	char *buf, *p, *eol;
	size_t have = 0;
	ssize_t n;
	int err = 0;

	buf = malloc(KALLSYMS_CHUNK);
	if (!buf)
		return -ENOMEM;
	do {
		n = read(fd, buf + have, KALLSYMS_CHUNK - have);
		if (n < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		have += n;
		for (p = buf; !err && (eol = memchr(p, '\n', buf + have - p));
		     p = eol + 1)
			err = kallsyms__add_line(kp, p, eol);
		/* At EOF the last line may lack its newline. */
		if (!err && !n && p < buf + have) {
			err = kallsyms__add_line(kp, p, buf + have);
			p = buf + have;
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == KALLSYMS_CHUNK)
			err = -EINVAL;
	} while (!err && n);
	free(buf);
	return err;
}

/*
 * kallsyms has no sizes: a function runs to the next one of the same
 * module; the last one of a module gets up to the end of the next page, as
 * in perf.
 */
static void kallsyms__set_sizes(struct pm_symtab *st)
{
	struct pm_sym *s, *next;
	uint64_t size;
	size_t i;

	for (i = 0; i < st->nr; i++) {
		s = &st->syms[i];
		next = i + 1 < st->nr ? s + 1 : NULL;
		if (next &&
		    !strcmp(kallsyms__sym_module(st, s), kallsyms__sym_module(st, next))) {
			s->size = clamp_size(next->addr - s->addr);
			continue;
		}
		size = KSYM_PAGE - (s->addr & (KSYM_PAGE - 1));
		if (s->addr & (KSYM_PAGE - 1))
			size += KSYM_PAGE;
		if (next && next->addr - s->addr < size)
			size = next->addr - s->addr;
		s->size = size;
	}
}

int kallsyms__parse(struct pm_kallsyms *ks, const char *path)
{
	struct kallsyms_parser kp = { .st = &ks->st, .hidden = true };
	int fd, err;

	fd = pm_file__open(path ? path : "/proc/kallsyms", O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return fd;
	err = kallsyms__read(&kp, fd);
	close(fd);
	ks->st.names = (char *)kp.names.data;
	if (!err && !ks->st.nr)
		err = -ENOENT;
	else if (!err && kp.hidden)
		err = -EACCES;
	if (err) {
		symtab__exit(&ks->st);
		memset(&ks->st, 0, sizeof(ks->st));
		return err;
	}
	symtab__sort(&ks->st, true);
	kallsyms__set_sizes(&ks->st);
	return 0;
}

struct pm_kallsyms *pm_kallsyms__load(const char *path)
{
	struct pm_kallsyms *ks = calloc(1, sizeof(*ks));
	int err;

	if (!ks)
		return NULL;
	err = kallsyms__parse(ks, path);
	if (err) {
		free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

void pm_kallsyms__delete(struct pm_kallsyms *ks)
{
	if (!ks)
		return;
	if (ks->map)
		munmap(ks->map, ks->map_len);
	else
		symtab__exit(&ks->st);
	if (ks->old_map)
		munmap(ks->old_map, ks->old_map_len);
	free(ks->kallsyms);
	free(ks);
}

/*
 * A cached table gives way to kallsyms read now, once it is asked what it
 * cannot answer alike.  The answers it gave stay right: the two agree on
 * every symbol it answers for, and the names it gave stay mapped (they
 * were unmapped here once, and a report's or archive's names read
 * whatever was mapped there next).  Const to its callers, as a lookup is.
 */
static void kallsyms__refresh(const struct pm_kallsyms *cks)
{
	struct pm_kallsyms *ks = (struct pm_kallsyms *)cks, fresh = { 0 };

	if (!ks->map || kallsyms__parse(&fresh, ks->kallsyms))
		return;
	ks->old_map = ks->map;
	ks->old_map_len = ks->map_len;
	ks->map = NULL;
	ks->key = NULL;
	ks->st = fresh.st;
}

/* The symbol containing addr, as /proc/kallsyms names it now. */
static const struct pm_sym *kallsyms__symbol(const struct pm_kallsyms *ks, uint64_t addr)
{
	const struct pm_sym *s = symtab__lookup(&ks->st, addr);

	if (!ks->map || kallsyms_cache__answers(ks, addr, s))
		return s;
	kallsyms__refresh(ks);
	return symtab__lookup(&ks->st, addr);
}

int pm_kallsyms__find(const struct pm_kallsyms *ks, uint64_t addr,
		      const char **name, const char **module, uint64_t *off)
{
	const struct pm_sym *s = kallsyms__symbol(ks, addr);

	if (!s)
		return -ENOENT;
	*name = sym__name(&ks->st, s);
	*module = kallsyms__module(ks, s);
	*off = addr - s->addr;
	return 0;
}

static const char *kallsyms__module(const struct pm_kallsyms *ks, const struct pm_sym *s)
{
	const char *module = kallsyms__sym_module(&ks->st, s);

	return *module ? module : NULL;
}

int pm_kallsyms__lookup(const struct pm_kallsyms *ks, uint64_t addr, struct pm_symbol *s,
			const char **module)
{
	const struct pm_sym *sym = kallsyms__symbol(ks, addr);

	if (!sym)
		return -ENOENT;
	pm_symtab__get(&ks->st, (size_t)(sym - ks->st.syms), s);
	*module = kallsyms__module(ks, sym);
	return 0;
}

size_t pm_kallsyms__nr(const struct pm_kallsyms *ks)
{
	/* The whole table: what kallsyms holds now, dynamic code included. */
	kallsyms__refresh(ks);
	return ks->st.nr;
}

void pm_kallsyms__get(const struct pm_kallsyms *ks, size_t i, struct pm_symbol *s,
		      const char **module)
{
	pm_symtab__get(&ks->st, i, s);
	*module = kallsyms__module(ks, &ks->st.syms[i]);
}

struct pm_kallsyms *kallsyms__adopt(struct pm_symtab *st)
{
	struct pm_kallsyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->st = *st;
	memset(st, 0, sizeof(*st));
	symtab__sort(&ks->st, true);
	return ks;
}
