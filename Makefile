# harkaq build system.
#
#   make            release build into build/
#   make SAN=1      ASan+UBSan build into build-san/ (used by the test suite's unit tests)
#   make test       build, then run every test (tests/run)
#   make install    harkaq in $(BINDIR), its helpers in $(LIBEXECDIR), the man pages in
#                   $(MANDIR) (PREFIX=/usr/local by default; DESTDIR stages it elsewhere:
#                   docs/install.md); installed into the running system, harkaq-audit is
#                   then given its group and capabilities
#
# Layout mirrors the dependency law (design.md §2):
#   src/core   pure library: no Landlock/seccomp/netlink calls, unit-testable anywhere
#   src/sys    the only files that talk to the kernel: Landlock, seccomp, audit, capabilities,
#              mounts and namespaces, pidfds, fs-verity
#   src/exec   harkaq-exec, statically linked, runs inside the sandbox
#   src/audit  harkaq-audit, the privileged reader on the host
#   src/engine the engine: builds (recipes and Debian), the cage's orchestration, the store's
#              imports and bundles, attestation; called with structs, never includes src/cli
#   src/cli    harkaq, the command line: argv, rendering for people, exit statuses
# src/core and src/engine are split into families, one folder each (src/core/basic,
# src/core/store, src/engine/debian, …), in an order design.md "Families" gives and
# tests/integration/families.sh checks; every source of every family is built the same way.

CC      ?= cc
SAN     ?= 0
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/harkaq
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
ifeq ($(SAN),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD   ?= build
SANFLAGS =
endif

WARN    = -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
          -Wpointer-arith -Wcast-qual -Wvla -Wnull-dereference -Wimplicit-fallthrough \
          -Wundef -Wwrite-strings -Wno-missing-field-initializers
CFLAGS  ?= -O2 -g
ALLCFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE -Isrc -I$(BUILD)/gen \
            -MMD -MP
LDFLAGS ?=

CORE_SRC  := $(sort $(wildcard src/core/*/*.c))
SYS_SRC   := $(sort $(wildcard src/sys/*.c))
EXEC_SRC  := $(sort $(wildcard src/exec/*.c))
AUDIT_SRC := $(sort $(wildcard src/audit/*.c))
ENGINE_SRC:= $(sort $(wildcard src/engine/*/*.c))
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
KTEST_SRC := $(sort $(wildcard tests/kernel/test_*.c))
HELPER_SRC:= $(sort $(wildcard tests/helpers/*.c))
PRELOAD_SRC:= $(sort $(wildcard tests/preload/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

CORE_LIB  := $(BUILD)/libharkaq-core.a
SYS_LIB   := $(BUILD)/libharkaq-sys.a
ENGINE_LIB:= $(BUILD)/libharkaq-engine.a
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC)) \
             $(patsubst tests/kernel/%.c,$(BUILD)/tests/kernel/%,$(KTEST_SRC))
HARNESS_OBJ := $(BUILD)/obj/tests/unit/harness_main.o
HELPER_BINS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(HELPER_SRC))
PRELOAD_LIBS := $(patsubst tests/preload/%.c,$(BUILD)/tests/preload/%.so,$(PRELOAD_SRC))

SECCOMP_LIBS := -lseccomp
ELF_LIBS     := -lelf
# Ed25519 and SHA-256 of the attestations (src/cli/sign.c): the command line only, so the
# core library and its unit tests never need libsodium.
SODIUM_LIBS  := -lsodium

# harkaq-exec runs inside arbitrary base roots, so it carries its own libc and libseccomp.
# Sanitizer runtimes cannot be linked statically; the SAN build links it dynamically.
ifeq ($(SAN),1)
EXEC_LINK = 
else
EXEC_LINK = -static
endif

BINS := $(if $(CLI_SRC),$(BUILD)/harkaq) $(if $(EXEC_SRC),$(BUILD)/harkaq-exec) \
        $(if $(AUDIT_SRC),$(BUILD)/harkaq-audit)

all: $(BINS) $(UNIT_BINS) $(HELPER_BINS) $(PRELOAD_LIBS)

# What is installed, and nothing of the tests (debian/rules builds these).
programs: $(BINS) man

# The directories harkaq looks for its helpers in (hk_helper_path, src/engine/common/proc.c),
# rewritten only when they change, so another PREFIX rebuilds that one file.
INSTALL_DIRS_H := $(BUILD)/gen/install_dirs.h
$(INSTALL_DIRS_H): FORCE
	@mkdir -p $(dir $@)
	@printf '#define HK_BINDIR "%s"\n#define HK_LIBEXECDIR "%s"\n' '$(BINDIR)' '$(LIBEXECDIR)' >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
$(BUILD)/obj/src/engine/common/proc.o: $(INSTALL_DIRS_H)

# The man pages, made by help2man from each command's --help (man/gen): one page per command
# `harkaq --help` lists, harkaq(1) and harkaq-audit(8).
$(BUILD)/man/.made: $(BINS) man/gen $(wildcard man/*.h2m)
	man/gen $(BUILD) $(BUILD)/man
	@touch $@
man: $(BUILD)/man/.made

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c $< -o $@

$(CORE_LIB): $(call obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SYS_LIB): $(call obj,$(SYS_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(ENGINE_LIB): $(call obj,$(ENGINE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/harkaq-exec: $(call obj,$(EXEC_SRC)) $(SYS_LIB) $(CORE_LIB)
	$(CC) $(ALLCFLAGS) $(EXEC_LINK) -o $@ $^ $(SECCOMP_LIBS) $(LDFLAGS)

$(BUILD)/harkaq-audit: $(call obj,$(AUDIT_SRC)) $(SYS_LIB) $(CORE_LIB)
	$(CC) $(ALLCFLAGS) -o $@ $^ $(LDFLAGS)

$(BUILD)/harkaq: $(call obj,$(CLI_SRC)) $(ENGINE_LIB) $(SYS_LIB) $(CORE_LIB)
	$(CC) $(ALLCFLAGS) -o $@ $^ $(SECCOMP_LIBS) $(ELF_LIBS) $(SODIUM_LIBS) $(LDFLAGS)

$(BUILD)/tests/kernel/%: $(BUILD)/obj/tests/kernel/%.o $(HARNESS_OBJ) $(SYS_LIB) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -o $@ $^ $(SECCOMP_LIBS) $(ELF_LIBS) $(LDFLAGS)

# The unit tests are the core's: they link the core library alone (and libelf, which the core
# parses ELF with), so a core that called into src/sys or libseccomp would not link.
# An object linked beside the core (below) comes first, so the core resolves what it needs.
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(HARNESS_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -o $@ $(filter-out $(CORE_LIB),$^) $(CORE_LIB) $(ELF_LIBS) $(LDFLAGS)

# The sweep's table and HTML are the engine's (src/engine/sweep/sweep_render.c), yet pure: the
# sweep's unit test links that one object beside the core.
$(BUILD)/tests/test_sweep: $(BUILD)/obj/src/engine/sweep/sweep_render.o
# The exit-status table is the engine's edge (src/engine/common/status.c), yet pure: likewise.
$(BUILD)/tests/test_status: $(BUILD)/obj/src/engine/common/status.o

# harkaq-audit's filter (src/audit/filter.c) is pure: its unit test links that one object beside
# the core.
$(BUILD)/tests/test_reader_filter: $(BUILD)/obj/src/audit/filter.o

# The diagnosis' source on disk is the engine's (src/engine/store/suggest_source.c): its unit test
# links that one object beside the core, whose store it reads.
$(BUILD)/tests/test_suggest_source: $(BUILD)/obj/src/engine/store/suggest_source.o

# Small programs the integration tests run inside the cage (escape attempts, probes).  Static
# and without sanitizers: they run inside arbitrary roots, as an unprivileged user.
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -Isrc -static -o $@ $< $(LDFLAGS)

# The converse's fanotify watch, exercised as the build runs it: links src/sys and the core.
$(BUILD)/tests/helpers/openwatch_once: tests/helpers/openwatch_once.c $(BUILD)/libharkaq-sys.a $(BUILD)/libharkaq-core.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g $(SANFLAGS) -D_GNU_SOURCE -Isrc -o $@ $< $(BUILD)/libharkaq-sys.a $(BUILD)/libharkaq-core.a $(LDFLAGS)

# The control-file editor on a file, for the test that holds it against wrap-and-sort: links
# the core (its pure editor and its file helpers).
$(BUILD)/tests/helpers/control_edit: tests/helpers/control_edit.c $(BUILD)/libharkaq-core.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g $(SANFLAGS) -D_GNU_SOURCE -Isrc -o $@ $< $(BUILD)/libharkaq-core.a $(ELF_LIBS) $(LDFLAGS)

# Fault injection preloaded into harkaq by the integration tests (a failing getrandom): shared
# objects, without sanitizers (the tests run the release build, which links dynamically).
$(BUILD)/tests/preload/%.so: tests/preload/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -fPIC -shared -o $@ $<

test: all
	tests/run

# harkaq-audit is installed without privilege (0755): the group and the capabilities are set
# where it is installed for real, by the package's postinst (debian/postinst) or below, never
# in a DESTDIR, whose files are not yet anyone's (docs/install.md).
install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BUILD)/harkaq $(DESTDIR)$(BINDIR)/harkaq
	install -m 0755 $(BUILD)/harkaq-exec $(BUILD)/harkaq-audit $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(BUILD)/man/*.8 $(DESTDIR)$(MANDIR)/man8/
ifeq ($(DESTDIR),)
	deploy/audit-privilege set $(LIBEXECDIR)/harkaq-audit
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/harkaq $(DESTDIR)$(LIBEXECDIR)/harkaq-exec \
		$(DESTDIR)$(LIBEXECDIR)/harkaq-audit
	-rmdir $(DESTDIR)$(LIBEXECDIR)
	cd $(BUILD)/man && for f in *.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$$f; done
	cd $(BUILD)/man && for f in *.8; do rm -f $(DESTDIR)$(MANDIR)/man8/$$f; done

clean:
	rm -rf build build-san

FORCE:
.PHONY: all programs man test install uninstall clean FORCE
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
