// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel code from /proc/kcore or a copy: the ELF header, the PT_LOAD
 * segments (address -> offset), the build id of the VMCOREINFO note, and
 * preads of the bytes asked for.  Nothing is mapped and st_size is not
 * trusted: every read is bounded by the caller's size or the limits below.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "symbols/kcore.h"

/* The notes read from each PT_NOTE segment, and how many such segments. */
#define NOTES_MAX (64u << 10)
#define NOTE_SEGS_MAX 8
/* Program headers read at once. */
#define PHDRS_AT_ONCE 64

static int kcore__ehdr(struct pm_kcore *kc, Elf64_Ehdr *eh)
{
	int err = pm_file__pread_all(kc->fd, eh, sizeof(*eh), 0);

	if (err)
		return err == -EIO ? -ENOEXEC : err;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
#else
	    eh->e_ident[EI_DATA] != ELFDATA2MSB ||
#endif
	    eh->e_type != ET_CORE || eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum)
		return -ENOEXEC;
	kc->machine = eh->e_machine;
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "BUILD-ID=<hex>" in the text of a VMCOREINFO note (Linux 5.13 on). */
static void kcore__vmcoreinfo(struct pm_kcore *kc, const char *text, size_t len)
{
	static const char key[] = "BUILD-ID=";
	const char *p = text, *end = text + len, *nl;
	size_t n;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) <= sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1))
			continue;
		p += sizeof(key) - 1;
		for (n = 0; n < PM_BUILD_ID_SIZE && nl - p >= 2 && hex_digit(p[0]) >= 0 &&
		     hex_digit(p[1]) >= 0; n++, p += 2)
			kc->build_id[n] = (unsigned char)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
		kc->build_id_len = p == nl ? n : 0;
		return;
	}
}

/* The notes of one PT_NOTE segment: only VMCOREINFO is read. */
static int kcore__notes(struct pm_kcore *kc, const Elf64_Phdr *ph)
{
	size_t len = ph->p_filesz < NOTES_MAX ? (size_t)ph->p_filesz : NOTES_MAX, at = 0;
	unsigned char *buf = malloc(len ? len : 1);
	Elf64_Nhdr nh;
	size_t name, desc;
	int err;

	if (!buf)
		return -ENOMEM;
	err = pm_file__pread_all(kc->fd, buf, len, ph->p_offset);
	while (!err && len - at >= sizeof(nh)) {
		memcpy(&nh, buf + at, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		at += sizeof(nh);
		if (name > len - at || desc > len - at - name)
			break;
		if (nh.n_namesz == sizeof("VMCOREINFO") && !memcmp(buf + at, "VMCOREINFO", 11))
			kcore__vmcoreinfo(kc, (const char *)buf + at + name, nh.n_descsz);
		at += name + desc;
	}
	free(buf);
	/* A note cut short says nothing: the code can still be read. */
	return err == -EIO || err == -EINVAL ? 0 : err;
}

/*
 * The program headers, read a few at a time: memory grows with the
 * segments the file holds, not with the count its header claims.
 */
static int kcore__phdrs(struct pm_kcore *kc, const Elf64_Ehdr *eh)
{
	Elf64_Phdr ph[PHDRS_AT_ONCE];
	size_t n = eh->e_phnum, i, j, got, cap = 0, notes = 0;
	int err = 0;

	for (i = 0; !err && i < n; i += got) {
		got = n - i < PHDRS_AT_ONCE ? n - i : PHDRS_AT_ONCE;
		err = pm_file__pread_all(kc->fd, ph, got * sizeof(*ph),
					 eh->e_phoff + i * sizeof(*ph));
		if (err == -EIO || err == -EINVAL)
			return -ENOEXEC;
		for (j = 0; !err && j < got; j++) {
			const Elf64_Phdr *p = &ph[j];

			if (p->p_type == PT_NOTE && notes++ < NOTE_SEGS_MAX)
				err = kcore__notes(kc, p);
			if (err || p->p_type != PT_LOAD || !p->p_filesz ||
			    p->p_vaddr + p->p_filesz < p->p_vaddr ||
			    p->p_offset + p->p_filesz < p->p_offset)
				continue;
			if (pm_array__grow((void **)&kc->segs, &cap, kc->nr_segs, sizeof(*kc->segs)))
				return -ENOMEM;
			kc->segs[kc->nr_segs++] = (struct pm_kcore_seg){
				.vaddr = p->p_vaddr, .size = p->p_filesz, .offset = p->p_offset };
		}
	}
	return err;
}

int pm_kcore__open(struct pm_kcore *kc, const char *path)
{
	Elf64_Ehdr eh;
	int err;

	*kc = (struct pm_kcore){ .fd = -1 };
	/* No size bound: st_size is the address space's, reads are bounded instead. */
	kc->fd = pm_file__open(path, O_RDONLY, 0, 0, NULL);
	if (kc->fd < 0) {
		err = kc->fd;
		kc->fd = -1;
		return err;
	}
	err = kcore__ehdr(kc, &eh) ?: kcore__phdrs(kc, &eh);
	if (err)
		pm_kcore__close(kc);
	return err;
}

void pm_kcore__close(struct pm_kcore *kc)
{
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc->segs);
	*kc = (struct pm_kcore){ .fd = -1 };
}

int pm_kcore__offset(const struct pm_kcore *kc, uint64_t addr, uint64_t size, uint64_t *off)
{
	size_t i;

	for (i = 0; i < kc->nr_segs; i++) {
		const struct pm_kcore_seg *s = &kc->segs[i];

		if (addr < s->vaddr || addr - s->vaddr >= s->size || size > s->size - (addr - s->vaddr))
			continue;
		*off = s->offset + (addr - s->vaddr);
		return 0;
	}
	return -ERANGE;
}

int pm_kcore__read(const struct pm_kcore *kc, uint64_t addr, uint64_t size, unsigned char **buf)
{
	uint64_t off;
	int err;

	*buf = NULL;
	if (size > PM_KCORE_READ_MAX)
		return -EFBIG;
	err = pm_kcore__offset(kc, addr, size, &off);
	if (err)
		return err;
	*buf = malloc(size ? (size_t)size : 1);
	if (!*buf)
		return -ENOMEM;
	err = pm_file__pread_all(kc->fd, *buf, (size_t)size, off);
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err == -EINVAL ? -EIO : err;
}
