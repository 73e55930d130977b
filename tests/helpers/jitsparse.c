// SPDX-License-Identifier: GPL-2.0
/*
 * jitsparse: a hostile jitdump for the recorder's bounds.  It writes
 * /tmp/jit-PID.dump as a runtime would start it (a valid header), then
 * one 16-byte record every 16 MiB, each claiming 16 MiB (the largest
 * record pmrec reads), up to SIZE GiB made of holes (lseek and
 * ftruncate: nothing is stored between the records).  It maps the file
 * executable, the runtime's marker that makes a recorder read it, prints
 * the path, lives SECONDS more (default 0.5: a recorder notes who it is
 * meanwhile) and exits: its EXIT record is what makes pmrec record read
 * the file during the recording.
 *
 * usage: jitsparse SIZE_GIB [SECONDS]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STEP (16u << 20)

struct header {
	uint32_t magic, version, total_size, elf_mach, pad, pid;
	uint64_t timestamp, flags;
};

struct prefix {
	uint32_t id, total_size;
	uint64_t timestamp;
};

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct header h = { .magic = 0x4A695444, .version = 1, .total_size = sizeof(h),
			    .elf_mach = 62, .pid = (uint32_t)getpid(), .timestamp = now() };
	/* An id perf and pmrec skip (not a load): the record is its size alone. */
	struct prefix r = { .id = 99, .total_size = STEP };
	uint64_t size, off;
	char path[64];
	void *marker;
	int fd;

	if (argc < 2 || argc > 3 || (size = strtoull(argv[1], NULL, 10) << 30) < STEP) {
		fprintf(stderr, "usage: jitsparse SIZE_GIB [SECONDS]\n");
		return 64;
	}
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, &h, sizeof(h), 0) != sizeof(h)) {
		perror(path);
		return 1;
	}
	for (off = sizeof(h); off + STEP <= size; off += STEP) {
		r.timestamp = now();
		if (pwrite(fd, &r, sizeof(r), (off_t)off) != sizeof(r)) {
			perror(path);
			return 1;
		}
	}
	if (ftruncate(fd, (off_t)off)) {
		perror(path);
		return 1;
	}
	marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (marker == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("%s\n", path);
	fflush(stdout);
	usleep((useconds_t)((argc == 3 ? atof(argv[2]) : 0.5) * 1e6));
	return 0;
}
