#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a debug kernel from Debian's linux-source-6.1 (KASAN, lockdep,
# kmemleak, sleep-in-atomic, soft lockup and hung task detectors) and run
# imtcp's kselftests on it in the test VM, then ask kmemleak for leaks.
#
#   scripts/vm/debug-kernel.sh build   build the kernel (about 30-40 min
#                                      on two cores; done once, in
#                                      build/debug-kernel/)
#   scripts/vm/debug-kernel.sh test [PROGRAM...]
#                                      build imtcp.ko for it, run the
#                                      kselftests (all, or those named)
#                                      and report; imtcp.ko is rebuilt for
#                                      the default kernel afterwards
#
# The kernel is Debian's 6.1 source with a small configuration (x86_64
# defconfig, kvm_guest.config and what the tests use, all built in), not
# Debian's own configuration: building that takes hours here. Its modules
# go to /lib/modules/VERSION (the VM mounts the host's root); no file goes
# to /boot, so run-vm.sh keeps booting Debian's kernel by default.
#
# Exit codes: 0 the tests passed and the kernel logged nothing; 1 a test
# failed; 126 the kernel reported a problem (KASAN, lockdep, kmemleak,
# WARN, BUG, lockup); 2 usage or build error.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/build/debug-kernel
src=$dir/src
suffix=-imtcp-debug

die() { echo "debug-kernel: $*" >&2; exit 2; }

# The options the kselftests and the VM need, then the detectors.
config_options() {
	cat <<-EOF
	VIRTIO_PCI NET_9P NET_9P_VIRTIO 9P_FS 9P_FS_POSIX_ACL
	VETH DUMMY OVERLAY_FS NET_NS USER_NS NET_SCHED NET_SCH_NETEM NET_SCH_TBF NET_SCH_FQ
	NET_SCH_FQ_CODEL NET_SCH_INGRESS NET_CLS_ACT
	IPV6 MPTCP MPTCP_IPV6 TCP_CONG_ADVANCED TCP_CONG_BBR TCP_CONG_CUBIC
	INET_DIAG INET_TCP_DIAG INET_UDP_DIAG INET_MPTCP_DIAG PACKET
	TUN BPF_SYSCALL BPF_JIT BPF_EVENTS KPROBES KPROBE_EVENTS UPROBE_EVENTS
	FTRACE FUNCTION_TRACER DYNAMIC_FTRACE DEBUG_FS IKCONFIG IKCONFIG_PROC
	MODULES MODULE_UNLOAD DEVTMPFS DEVTMPFS_MOUNT TMPFS CGROUPS
	KASAN KASAN_GENERIC KASAN_INLINE
	PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LOCKDEP
	DEBUG_KMEMLEAK SOFTLOCKUP_DETECTOR DETECT_HUNG_TASK DEBUG_LIST
	EOF
}

kernel_version() {
	make -s -C "$src" kernelrelease
}

build() {
	local tarball
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-6.1.tar.*: apt-get install linux-source-6.1"
	for t in flex bison bc; do
		command -v $t >/dev/null ||
			die "$t missing: apt-get install flex bison bc libelf-dev libssl-dev"
	done
	if [ ! -e "$src/Makefile" ]; then
		echo "debug-kernel: extracting $tarball"
		mkdir -p "$src"
		tar -xf "$tarball" -C "$src" --strip-components=1 || die "extract failed"
	fi
	cd "$src" || die "no $src"
	{ make -s defconfig >/dev/null && make -s kvm_guest.config >/dev/null; } ||
		die "defconfig failed"
	# shellcheck disable=SC2046
	scripts/config --set-str LOCALVERSION "$suffix" \
		--disable LOCALVERSION_AUTO --disable DEBUG_INFO_BTF \
		$(for o in $(config_options); do printf -- '--enable %s ' "$o"; done)
	make -s olddefconfig || die "olddefconfig failed"
	for o in KASAN PROVE_LOCKING DEBUG_KMEMLEAK NET_SCH_NETEM VETH 9P_FS; do
		grep -q "^CONFIG_$o=y" .config || die "CONFIG_$o did not stay on"
	done
	echo "debug-kernel: building $(kernel_version) with $(nproc) jobs"
	make -s -j"$(nproc)" bzImage modules || die "kernel build failed"
	make -s modules_install INSTALL_MOD_STRIP=1 >/dev/null || die "modules_install failed"
	# Without build/ and source/ links no default build (KDIR: the newest
	# /lib/modules/*/build) picks this kernel; test builds name $src.
	rm -f "/lib/modules/$(kernel_version)/build" "/lib/modules/$(kernel_version)/source"
	echo "debug-kernel: built $src/arch/x86/boot/bzImage ($(kernel_version))"
}

# The guest's command: the kselftests, then a kmemleak scan once imtcp is
# gone and its sockets are freed. Leaks and reports go to the VM's log,
# which run-vm.sh and this script read.
guest_test() {
	local rc
	# the detectors are on: their boot messages (run_all clears the log)
	dmesg | grep -E 'KernelAddressSanitizer|kmemleak: Kernel memory leak' |
		sed 's/^/detector: /'
	grep -E 'debug_locks:' /proc/lockdep_stats | sed 's/^ */detector: lockdep /'
	# bpftrace reads tracepoint formats with the kernel's headers
	BPFTRACE_KERNEL_SOURCE=$(pwd)/build/debug-kernel/src selftests/run_all.sh "$@"
	rc=$?
	grep -E 'debug_locks:' /proc/lockdep_stats | sed 's/^ */detector: after the tests, lockdep /' 
	rmmod imtcp 2>/dev/null
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	echo "kmemleak: $(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak) unreferenced objects"
	cat /sys/kernel/debug/kmemleak
	return $rc
}

run_test() {
	local ver rc=0 vm
	[ -e "$src/arch/x86/boot/bzImage" ] || die "no debug kernel: run $0 build"
	ver=$(kernel_version)
	[ -d "/lib/modules/$ver" ] || die "/lib/modules/$ver missing: run $0 build"
	make -C "$top" -s tools >/dev/null || die "make tools failed"
	make -C "$src" M="$top" W=1 modules >/dev/null ||
		die "imtcp.ko did not build for $ver"
	IMTCP_VM_KERNEL=$ver IMTCP_VM_VMLINUZ=$src/arch/x86/boot/bzImage \
		IMTCP_VM_BOOT_SECS=900 \
		"$top/scripts/vm/run-vm.sh" --name debug-kernel --timeout 5400 -- \
		scripts/vm/debug-kernel.sh guest "$@"
	rc=$?
	vm=$top/build/vm/debug-kernel
	make -C "$top" -s -B module >/dev/null ||
		echo "debug-kernel: rebuild imtcp.ko for the default kernel: make -B" >&2
	if grep -E 'BUG: KASAN|WARNING: .*lock|possible .*deadlock|inconsistent lock' \
		"$vm/dmesg.log" "$vm/console.log" >/dev/null 2>&1; then
		echo "debug-kernel: the kernel reported a problem (see $vm/dmesg.log)" >&2
		rc=126
	fi
	grep -h '^kmemleak: ' "$vm/guest.log"
	if ! grep -q '^kmemleak: 0 unreferenced' "$vm/guest.log"; then
		echo "debug-kernel: kmemleak found leaks or did not run (see $vm/guest.log)" >&2
		[ "$rc" = 0 ] && rc=126
	fi
	echo "debug-kernel: $ver, exit $rc; logs in $vm"
	return $rc
}

case "${1:-}" in
build) build ;;
test) shift; run_test "$@" ;;
guest) shift; guest_test "$@" ;;
*) echo "usage: $0 build | test [PROGRAM...]" >&2; exit 2 ;;
esac
