# pmrec — build, test, install.  See README.md.
VERSION := 0.1.0

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

# Build directory: `make SAN=1` builds an AddressSanitizer/UBSan tree beside
# the normal one so both can coexist.
ifeq ($(SAN),1)
O ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
O ?= build
SAN_FLAGS :=
endif

ELF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
ELF_LIBS := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null || echo -lelf)
ifeq ($(strip $(ELF_LIBS)),)
ELF_LIBS := -lelf
endif

ZSTD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libzstd 2>/dev/null)
ZSTD_LIBS := $(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null || echo -lzstd)
ifeq ($(strip $(ZSTD_LIBS)),)
ZSTD_LIBS := -lzstd
endif

# pprof files are gzip-compressed (zlib).
ZLIB_CFLAGS := $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
ifeq ($(strip $(ZLIB_LIBS)),)
ZLIB_LIBS := -lz
endif

# DWARF unwinding (libdw, from elfutils) and demangling (libiberty, a static
# library without a .pc file).
DW_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdw 2>/dev/null)
DW_LIBS := $(shell $(PKG_CONFIG) --libs libdw 2>/dev/null)
ifeq ($(strip $(DW_LIBS)),)
DW_LIBS := -ldw
endif
IBERTY_LIBS ?= -liberty

# Files by build id from debuginfod servers (libdebuginfod, from elfutils):
# its header only; the library is loaded when a server is named (base/dynlib.h).
DEBUGINFOD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdebuginfod 2>/dev/null)

# Disassembly for annotate (capstone: BSD-licensed; GNU libopcodes is GPL-3):
# its header only; annotate loads the library (profile/libcapstone.c).
CAPSTONE_CFLAGS := $(shell $(PKG_CONFIG) --cflags capstone 2>/dev/null)

# pmrec agent's uploads to Pyroscope (libcurl: http, https, proxies, timeouts):
# its header only; agent loads the library (export/libcurl.c).
CURL_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcurl 2>/dev/null)

# pmrec top's interactive view (ncurses); only the pmrec binary links it.
CURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncurses 2>/dev/null)
CURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncurses 2>/dev/null)
ifeq ($(strip $(CURSES_LIBS)),)
CURSES_LIBS := -lncurses
endif

# Project flags live apart from CFLAGS so `make CFLAGS=...` keeps them.
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DPMREC_VERSION='"$(VERSION)"' -iquote lib \
	-Wall -Wextra -Wno-unused-parameter $(ELF_CFLAGS) $(ZSTD_CFLAGS) $(ZLIB_CFLAGS) $(DW_CFLAGS) \
	$(DEBUGINFOD_CFLAGS) $(CAPSTONE_CFLAGS) $(CURL_CFLAGS) $(CURSES_CFLAGS) -MMD -MP
PM_CFLAGS := $(BASE_CFLAGS) $(SAN_FLAGS)
PM_LDFLAGS := $(SAN_FLAGS)
PM_LIBS := $(DW_LIBS) $(ELF_LIBS) $(ZSTD_LIBS) $(ZLIB_LIBS) $(IBERTY_LIBS) -lpthread
# diff's confidence intervals (sqrt, erfc).
PM_LIBS += -lm

ifneq ($(V),1)
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
msg =
endif

LIB_SRC := $(sort $(wildcard lib/*.c lib/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
DEMO_SRC := $(sort $(wildcard demo/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(O)/%.o)
UNIT_BIN := $(UNIT_SRC:%.c=$(O)/%)
HELPER_BIN := $(HELPER_SRC:%.c=$(O)/%) $(O)/tests/helpers/spin-nofp \
	$(O)/tests/helpers/hotline-nodebug
BENCH_BIN := $(BENCH_SRC:%.c=$(O)/%)
DEMO_BIN := $(DEMO_SRC:%.c=$(O)/%)
LIBPM := $(O)/libpmrec.a
PMREC := $(O)/pmrec
MANPAGES := $(sort $(wildcard man/*.1))

all: $(PMREC) $(UNIT_BIN) $(HELPER_BIN) $(DEMO_BIN)

# Every program of the tree, benchmark helpers included (CI builds this with
# clang and -Werror: the code must build clean with both compilers).
build-all: all $(BENCH_BIN)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(PM_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBPM): $(LIB_OBJ)
	$(call msg,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(PMREC): $(CMD_OBJ) $(LIBPM)
	$(call msg,LINK,$@)$(CC) $(PM_LDFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIBPM) $(PM_LIBS) $(CURSES_LIBS) $(LDLIBS)

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(LIBPM)
	$(call msg,LINK,$@)$(CC) $(PM_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIBPM) $(PM_LIBS) $(LDLIBS)

# Test helpers are workloads, not code under test: no sanitizer runtime (it
# makes system calls of its own, getppid among them, that would pollute the
# exact syscall oracles), and frame pointers so call-chain tests can unwind.
$(O)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -lpthread $(LDLIBS)

# debuginfod-find drives lib/symbols/debuginfod.c, code under test: built and
# linked as the unit tests are.
$(O)/tests/helpers/debuginfod-find: $(O)/tests/helpers/debuginfod-find.o $(LIBPM)
	$(call msg,LINK,$@)$(CC) $(PM_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIBPM) $(PM_LIBS) $(LDLIBS)

# The same call chain built the way distributions build: optimized, without
# frame pointers, so only DWARF unwinding (--call-graph dwarf) recovers it.
$(O)/tests/helpers/spin-nofp: tests/helpers/spin.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -O2 -fomit-frame-pointer $(LDFLAGS) -o $@ $< $(LDLIBS)

# annotate's workload: its line table and inlining must be an optimized
# build's whatever CFLAGS say.
# hotline-nodebug is the same code without debug info (and another build id).
$(O)/tests/helpers/hotline: tests/helpers/hotline.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -O2 -g $(LDFLAGS) -o $@ $< $(LDLIBS)

$(O)/tests/helpers/hotline-nodebug: tests/helpers/hotline.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -O2 -g0 $(LDFLAGS) -o $@ $< $(LDLIBS)

# Benchmark helpers are workloads and meters, like the test helpers: no
# sanitizer, and frame pointers so that burn's -g call chains unwind.
$(O)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -lpthread $(LDLIBS)

# The demo's workload, likewise.
$(O)/demo/%: demo/%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -lpthread $(LDLIBS)

deps-build:
	$(Q).ci/deps build

deps-test:
	$(Q).ci/deps test

# Records the whole machine with call chains while a bundled workload runs
# for 3 seconds, prints the hottest functions and writes a flame graph
# (demo/run).  Builds only what it runs, on every CPU.
demo: deps-build
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) $(PMREC) $(DEMO_BIN)
	$(Q)demo/run $(PMREC) $(O)/demo/primes

lint-man: $(PMREC)
	$(Q)for m in $(MANPAGES); do \
		out=$$(LC_ALL=C.UTF-8 MANROFFSEQ='' groff -man -ww -z $$m 2>&1); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
	done

# The test files run TEST_JOBS at a time: most of them sleep or wait on the
# kernel much of their time.  The tests that must have the machine to
# themselves say so (test_alone in tests/test-lib.sh), and run alone.
TEST_JOBS ?= 3
TESTS := $(sort $(wildcard tests/t[0-9]*.sh))
# The longest files start first (prove keeps the order given), so that the
# three lanes end together instead of one long file ending alone.
SLOW_TESTS := $(addprefix tests/,t0160-record-zstd.sh t0200-record-task.sh t0700-report.sh \
	t0590-dump-dwarf.sh t0140-record-killed.sh t0720-report-flamegraph.sh t0610-valgrind.sh \
	t0520-dump-malformed.sh t0400-record-flight.sh t0740-report-pprof.sh \
	t0790-annotate.sh t0761-report-jitdump-node.sh t0765-report-offcpu.sh t0780-top.sh \
	t0190-jit-perfmap.sh)

# Each file runs under tests/run-one: a file that hangs is killed after
# PMREC_TEST_TIMEOUT seconds (900) and fails by name; --timer prints how
# long each took.  A failed file's reasons are printed again after the
# summary (tests/failures).
# The build inside check uses every CPU unless make was given -j already.
BUILD_JOBS := $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

check: deps-test
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) all
	$(Q)$(MAKE) --no-print-directory lint-man
	$(Q)rm -rf $(O)/test-logs && mkdir -p $(O)/test-logs
	$(Q)PMREC_BUILD=$(CURDIR)/$(O) PMREC_SANITIZED=$(if $(filter 1,$(SAN)),1,0) \
		PMREC_TEST_LOGS=$(CURDIR)/$(O)/test-logs \
		prove --exec tests/run-one --timer -j$(TEST_JOBS) $(PROVE_FLAGS) $(SLOW_TESTS) \
		$(filter-out $(SLOW_TESTS),$(TESTS)) $(UNIT_BIN) || \
		{ tests/failures $(O)/test-logs; exit 1; }

bench: deps-test $(PMREC) $(HELPER_BIN) $(BENCH_BIN)
	$(Q)PMREC_BUILD=$(CURDIR)/$(O) bench/run

# pmrec against perf in qemu guests of 16 and 64 CPUs under TCG with
# Debian's cloud kernel (bench/smp/run; SMP="8 16 64" chooses): bench only,
# it installs qemu-system-x86 and busybox-static itself.
bench-smp: $(PMREC)
	$(Q)PMREC_BUILD=$(CURDIR)/$(O) bench/smp/run

# Fuzzes the perf.data reader, the symbol loader, the DWARF unwinder,
# report's pipeline with its consumers' thread, the jitdump parser and the
# symbols a recording carries (tests/fuzz/run): FUZZ_TIME seconds for each
# of the nine runs (file and pipe input x libFuzzer and AFL++; ELF,
# unwinder, pipeline, jitdump and embedded symbols x libFuzzer), 54 minutes
# by default.
FUZZ_TIME ?= 360
FUZZ_ENGINE ?= both
fuzz: deps-test $(PMREC) $(HELPER_BIN)
	$(Q)PMREC_BUILD=$(CURDIR)/$(O) tests/fuzz/run --time $(FUZZ_TIME) --engine $(FUZZ_ENGINE)

install: $(PMREC)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PMREC) $(DESTDIR)$(BINDIR)/pmrec
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pmrec
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))

clean:
	rm -rf build build-san build-clang

.PHONY: all build-all deps-build deps-test demo lint-man check bench bench-smp fuzz install uninstall clean
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
