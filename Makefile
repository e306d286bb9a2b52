# SPDX-License-Identifier: GPL-2.0
#
# imtcp: top-level targets.
#
#   make              build imtcp.ko against KDIR (W=1)
#   make check        checkpatch --strict (with spelling) and sparse on the module
#   make unit         userspace unit tests of the kernel-independent logic
#   make tools        userspace programs: imtcp-stat, test and benchmark
#                     helpers (build/userspace, build/selftests)
#   make test         install missing packages, build, unit tests, then
#                     the kselftests inside a VM; ends "N passed, N failed"
#   make vm-test      only the kselftests inside a VM
#   make bench        goodput benchmark, imtcp against reno, inside a VM
#   make bench-path   is the benchmarks' test bed faithful? (VM; exit 1 if not)
#   make bench-accuracy  the estimate against a known available bandwidth
#   make bench-media  imtcp-media picking its bitrate from imtcp's estimate,
#                     from tcpi_delivery_rate, or fixed, as the room changes
#   make bench-mptcp  one MPTCP transfer over two paths: imtcp, reno and
#                     imtcp without measurement, goodput and split per path
#   make bench-mptcp-backup  a 5 Mbit/s MPTCP media sender over a good and
#                     a lossy path that thins, with and without
#                     imtcp-mptcp-backup: frames late
#   make record       record the module's measurements in a VM as replay
#                     files for the unit tests (build/replays)
#   make demo         the main job: a shaped transfer with cross traffic in a
#                     VM, ss -ti and imtcp's estimates as it runs
#   make deps         install what all of the above need (Debian 12, as root)
#   make install      imtcp.ko under /lib/modules/<its kernel>/updates (then
#                     depmod), imtcp-stat, imtcp-media, imtcp-mptcp-backup,
#                     their man pages and the bpftrace scripts under PREFIX
#                     (/usr/local); DESTDIR honoured
#                     (then no depmod)
#   make uninstall    remove what make install put there
#   make dkms-install the module through DKMS (rebuilt for each new kernel):
#                     sources to /usr/src/imtcp-<version>, dkms add,
#                     build and install for DKMS_KVER (default: KDIR's)
#   make dkms-uninstall  dkms remove, and the sources
#   make dkms-build   dkms add and build in build/dkms only (no system
#                     change; make test runs it)
#   make deb          Debian packages imtcp-dkms and imtcp-tools in
#                     build/deb (dpkg-buildpackage; make test runs it)
#   make debug-kernel build a 6.1 debug kernel (KASAN, lockdep, kmemleak)
#                     from linux-source-6.1 in build/debug-kernel (30 min)
#   make vm-test-debug   the kselftests on it, then a kmemleak scan
#
# KDIR defaults to the running kernel's build directory, or where that is
# missing (a machine without module support), the newest one installed.

KVER ?= $(shell uname -r)
KDIR ?= $(or $(wildcard /lib/modules/$(KVER)/build),\
	     $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1))
BUILD := $(CURDIR)/build
SRCTREE := $(BUILD)/ksrc

MODSRC := $(wildcard $(CURDIR)/kmod/*.c $(CURDIR)/kmod/*.h \
		     $(CURDIR)/kmod/core/*.c $(CURDIR)/kmod/core/*.h \
		     $(CURDIR)/kmod/uapi/*.h)

.PHONY: all module clean check style unit tools test vm-test bench demo deps \
	ksrc bench-accuracy bench-media bench-mptcp bench-mptcp-backup bench-path record install uninstall stat \
	dkms-install dkms-uninstall dkms-build debug-kernel vm-test-debug \
	install-tools dkms-source deb

all: module

module: imtcp.ko

imtcp.ko: $(MODSRC) Kbuild
	@if [ -z "$(KDIR)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "imtcp: no kernel build directory (KDIR)." >&2; \
		echo "imtcp: install one: apt-get install linux-headers-amd64," >&2; \
		echo "imtcp: or run: make deps" >&2; exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

clean:
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C tests/unit clean
	$(MAKE) -C selftests clean
	$(MAKE) -C userspace clean
	rm -rf $(BUILD)

# Kernel source pieces (checkpatch, kselftest headers) from linux-source-6.1.
ksrc: $(SRCTREE)/.done

$(SRCTREE)/.done: scripts/fetch-ksrc.sh
	scripts/fetch-ksrc.sh $(SRCTREE)

# CAMELCASE is ignored for one reason: rates carry their unit in their
# names, and bytes per second is _Bps (bits per second _bps), so that the
# two cannot be mixed up where sk_pacing_rate takes bytes. Spelling is
# checked with codespell's dictionary (Debian's codespell package keeps
# it where checkpatch does not look), when it is installed.
CODESPELL_DICT := /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt
SPELLING := $(if $(wildcard $(CODESPELL_DICT)),--codespell --codespellfile $(CODESPELL_DICT))

check: module ksrc
	@[ -n "$(SPELLING)" ] || echo "check: codespell not installed, spelling not checked (make deps)"
	perl $(SRCTREE)/scripts/checkpatch.pl --no-tree --strict --terse \
		--show-types --ignore CAMELCASE $(SPELLING) -f $(MODSRC)
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules 2>&1 | \
		tee $(BUILD)/sparse.log
	@if grep -E '(warning|error):' $(BUILD)/sparse.log; then \
		echo "sparse: findings above" >&2; exit 1; fi
	@echo "check: checkpatch and sparse clean"

style: check

unit:
	$(MAKE) -C tests/unit run

tools: ksrc
	$(MAKE) -C selftests KSFT_INC=$(SRCTREE)/tools/testing/selftests
	$(MAKE) -C userspace

vm-test: deps module tools
	scripts/vm/run-vm.sh --name selftests -- selftests/run_all.sh

test:
	scripts/test-all.sh

bench: deps module tools
	scripts/vm/run-vm.sh --name bench --timeout 3600 -- \
		scripts/bench/goodput.sh $(BENCH_ARGS)

bench-path: module tools
	scripts/vm/run-vm.sh --name path --timeout 900 -- scripts/bench/path.sh

bench-accuracy: module tools
	scripts/install-deps.sh --bench
	scripts/vm/run-vm.sh --name accuracy --timeout 3600 -- \
		scripts/bench/accuracy.sh

bench-media: module tools
	scripts/vm/run-vm.sh --name media --timeout 1200 -- \
		scripts/bench/media.sh

bench-mptcp: module tools
	scripts/vm/run-vm.sh --name mptcp-bench --timeout 1200 -- \
		scripts/bench/mptcp.sh

bench-mptcp-backup: module tools
	scripts/vm/run-vm.sh --name mptcp-backup --timeout 1500 -- \
		scripts/bench/mptcp-backup.sh

record: module tools
	scripts/vm/run-vm.sh --name record --timeout 600 -- scripts/bench/record.sh
	@mkdir -p $(BUILD)/replays
	@for t in $(BUILD)/vm/record/rec-x*.trace; do \
		n=$$(basename $$t .trace); \
		python3 tests/unit/trace2replay.py $$t "VM (TCG) recording by make \
record, $$(date +%F), module $$(git describe --always --dirty): bulk \
sender, tbf burst of two frames, 20 ms each way, \
$$(cat $(BUILD)/vm/record/$$n.truth)" > $(BUILD)/replays/$$n.replay && \
		echo "$(BUILD)/replays/$$n.replay"; \
	done

debug-kernel:
	scripts/vm/debug-kernel.sh build

vm-test-debug: deps tools
	scripts/vm/debug-kernel.sh test

demo: deps module tools
	scripts/install-deps.sh --bench
	scripts/vm/run-vm.sh --name demo -- scripts/demo.sh

deps:
	scripts/install-deps.sh

# Installation, as packagers expect: DESTDIR stages it, PREFIX places the
# tools. The module goes where its own vermagic says (the kernel KDIR
# built it for), under updates/ so that it wins over any in-tree copy;
# depmod runs on the live system only (a package runs it on install).
PREFIX ?= /usr/local
MODVER = $(shell modinfo -F vermagic $(CURDIR)/imtcp.ko 2>/dev/null | cut -d' ' -f1)
MODDIR = $(DESTDIR)/lib/modules/$(MODVER)/updates
BINDIR = $(DESTDIR)$(PREFIX)/bin
MAN8DIR = $(DESTDIR)$(PREFIX)/share/man/man8
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BTDIR = $(DESTDIR)$(PREFIX)/share/imtcp/bpftrace
BTFILES = $(notdir $(wildcard userspace/bpftrace/*.bt))

stat:
	$(MAKE) -C userspace

# The tools alone: imtcp-stat, imtcp-media, imtcp-mptcp-backup, their man
# pages, the bpftrace scripts (what the imtcp-tools package holds).
install-tools: stat
	install -D -m 755 $(BUILD)/userspace/imtcp-stat $(BINDIR)/imtcp-stat
	install -D -m 755 $(BUILD)/userspace/imtcp-media $(BINDIR)/imtcp-media
	install -D -m 755 $(BUILD)/userspace/imtcp-mptcp-backup \
		$(BINDIR)/imtcp-mptcp-backup
	install -D -m 644 userspace/imtcp-stat.8 $(MAN8DIR)/imtcp-stat.8
	install -D -m 644 userspace/imtcp-mptcp-backup.8 \
		$(MAN8DIR)/imtcp-mptcp-backup.8
	install -D -m 644 userspace/imtcp-media.1 $(MAN1DIR)/imtcp-media.1
	install -d $(BTDIR)
	install -m 755 $(addprefix userspace/bpftrace/,$(BTFILES)) $(BTDIR)/

install: module install-tools
	@if [ -z "$(MODVER)" ]; then \
		echo "imtcp: cannot read the kernel version of imtcp.ko (modinfo)" >&2; \
		exit 1; fi
	install -D -m 644 imtcp.ko $(MODDIR)/imtcp.ko
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(MODVER)"; \
		depmod -a $(MODVER); fi
	@echo "imtcp: installed for $(MODVER); load it with: modprobe imtcp"

uninstall:
	@if [ -z "$(MODVER)" ]; then \
		echo "imtcp: cannot read the kernel version of imtcp.ko (modinfo);" >&2; \
		echo "imtcp: remove /lib/modules/*/updates/imtcp.ko by hand" >&2; \
		exit 1; fi
	rm -f $(MODDIR)/imtcp.ko $(BINDIR)/imtcp-stat $(MAN8DIR)/imtcp-stat.8 \
		$(BINDIR)/imtcp-media $(MAN1DIR)/imtcp-media.1 \
		$(BINDIR)/imtcp-mptcp-backup $(MAN8DIR)/imtcp-mptcp-backup.8 \
		$(addprefix $(BTDIR)/,$(BTFILES))
	-rmdir $(BTDIR) $(dir $(BTDIR)) 2>/dev/null
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(MODVER)"; \
		depmod -a $(MODVER); fi

# DKMS. The source tree DKMS builds from is Kbuild, kmod/ and dkms.conf;
# its version is dkms.conf's. DKMS_KVER, the kernel to build for,
# defaults to the one KDIR belongs to.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_KVER ?= $(notdir $(patsubst %/,%,$(dir $(KDIR))))
DKMS_NAME := imtcp/$(DKMS_VERSION)

# dkms-src DIR: copy the module's sources into DIR/imtcp-<version>.
define dkms-src
	rm -rf $(1)/imtcp-$(DKMS_VERSION)
	install -d $(1)/imtcp-$(DKMS_VERSION)/kmod/core $(1)/imtcp-$(DKMS_VERSION)/kmod/uapi
	install -m 644 Kbuild dkms.conf $(1)/imtcp-$(DKMS_VERSION)/
	install -m 644 $(wildcard kmod/*.c kmod/*.h) $(1)/imtcp-$(DKMS_VERSION)/kmod/
	install -m 644 $(wildcard kmod/core/*.c kmod/core/*.h) $(1)/imtcp-$(DKMS_VERSION)/kmod/core/
	install -m 644 $(wildcard kmod/uapi/*.h) $(1)/imtcp-$(DKMS_VERSION)/kmod/uapi/
endef

# The module's sources as DKMS takes them, under DESTDIR/usr/src (what
# the imtcp-dkms package holds).
dkms-source:
	install -d $(DESTDIR)/usr/src
	$(call dkms-src,$(DESTDIR)/usr/src)

# Debian packages, imtcp-dkms and imtcp-tools (debian/), built with
# dpkg-buildpackage from a copy of what they are made of (no build
# products) in build/deb, where the .deb files land.
DEB_SRC := Makefile Kbuild dkms.conf README debian kmod userspace
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "imtcp: debhelper or dh-dkms missing (make deps)" >&2; exit 1; }
	rm -rf $(BUILD)/deb
	mkdir -p $(BUILD)/deb/imtcp-$(DKMS_VERSION)
	tar -cf - --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
		--exclude='*.mod' --exclude='*.mod.c' $(DEB_SRC) | \
		tar -xf - -C $(BUILD)/deb/imtcp-$(DKMS_VERSION)
	cd $(BUILD)/deb/imtcp-$(DKMS_VERSION) && dpkg-buildpackage -us -uc -b
	@ls $(BUILD)/deb/*.deb

dkms-check:
	@command -v dkms >/dev/null || { echo "imtcp: dkms missing: apt-get install dkms (or: make deps)" >&2; exit 1; }
	@[ -n "$(DKMS_KVER)" ] && [ -d /lib/modules/$(DKMS_KVER)/build ] || \
		{ echo "imtcp: no headers for kernel '$(DKMS_KVER)': apt-get install linux-headers-$(DKMS_KVER)" >&2; exit 1; }

dkms-install: dkms-check
	$(call dkms-src,/usr/src)
	dkms status $(DKMS_NAME) | grep -q . || dkms add $(DKMS_NAME)
	dkms install $(DKMS_NAME) -k $(DKMS_KVER)

dkms-uninstall:
	@command -v dkms >/dev/null || { echo "imtcp: dkms missing" >&2; exit 1; }
	-dkms remove $(DKMS_NAME) --all
	rm -rf /usr/src/imtcp-$(DKMS_VERSION)

# Build through DKMS inside build/dkms only (sources in src/, DKMS's tree
# in tree/): what make test checks, and what its VM step installs.
dkms-build: dkms-check
	rm -rf $(BUILD)/dkms
	$(call dkms-src,$(BUILD)/dkms/src)
	mkdir -p $(BUILD)/dkms/tree
	dkms add -m imtcp -v $(DKMS_VERSION) --sourcetree $(BUILD)/dkms/src \
		--dkmstree $(BUILD)/dkms/tree
	dkms build -m imtcp -v $(DKMS_VERSION) -k $(DKMS_KVER) \
		--sourcetree $(BUILD)/dkms/src --dkmstree $(BUILD)/dkms/tree
