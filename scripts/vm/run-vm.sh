#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a QEMU VM that boots Debian's 6.1 kernel with the
# host's root file system mounted read-only over 9p, so that the freshly
# built imtcp.ko, the test programs and host tools (iperf3, bpftrace, ss)
# are all there. The command runs as root in the project directory; its
# exit code becomes this script's.
#
#   scripts/vm/run-vm.sh [--name NAME] [--timeout SEC] [--quiet] -- CMD [ARG...]
#
# Output of the run goes to build/vm/NAME/: console.log (serial console),
# guest.log (the command's output), dmesg.log, rc.
#
# Environment:
#   IMTCP_VM_KERNEL  kernel version to boot (default: the newest one that
#                    has both /boot/vmlinuz-VER and /lib/modules/VER)
#   IMTCP_VM_VMLINUZ kernel image to boot (default /boot/vmlinuz-VER; set
#                    by scripts/vm/debug-kernel.sh for its debug kernel)
#   IMTCP_VM_ACCEL   tcg, kvm or auto (default auto: KVM only if a probe
#                    boot with it works, else software emulation)
#   IMTCP_VM_MEM     guest memory (default 2G)
#   IMTCP_VM_CPUS    guest CPUs (default 2)
#   IMTCP_VM_CLOCK   the guest's clock under TCG: tsc (default; the kernel
#                    is told the TSC is reliable) or hpet (its own pick)
#   IMTCP_VM_BOOT_SECS  seconds the guest may take to reach its init
#                    (default 300; a boot takes 2-15 s under TCG). A boot
#                    that hangs before it (seen once under TCG, in the
#                    kernel's early PCI setup) is stopped and tried once
#                    more.
#   BENCH_*, RECORD_* passed on to the command (benchmark, make record),
#                    and IMTCP_TESTS (which selftest cases run)
# The command also finds IMTCP_HOST_CPU: the host's CPU counters, renewed
# each second while the VM runs (sample_host below).
#
# Exit codes: the command's; 124 on timeout; 125 when the VM did not
# report a result; 126 when the kernel logged a WARN, BUG, Oops or lockup.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
name=run
timeout=1800
quiet=0
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--) shift; break ;;
	*) echo "run-vm: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: run-vm.sh [--name N] [--timeout S] -- CMD..." >&2; exit 2; }

die() { echo "run-vm: $*" >&2; exit 125; }

pick_kernel() {
	local v
	if [ -n "${IMTCP_VM_KERNEL:-}" ]; then
		echo "$IMTCP_VM_KERNEL"
		return
	fi
	for v in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V -r); do
		if [ -d "/lib/modules/$v/kernel" ]; then
			echo "$v"
			return
		fi
	done
}

kver=$(pick_kernel)
[ -n "$kver" ] || die "no kernel to boot: apt-get install linux-image-amd64 (or: make deps)"
kernel=${IMTCP_VM_VMLINUZ:-/boot/vmlinuz-$kver}
[ -r "$kernel" ] || die "cannot read $kernel"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (or: make deps)"
[ -x /bin/busybox ] || die "/bin/busybox missing: apt-get install busybox-static"
clock=${IMTCP_VM_CLOCK:-tsc}
case $clock in
tsc|hpet) ;;
*) die "IMTCP_VM_CLOCK: tsc or hpet" ;;
esac
boot_secs=${IMTCP_VM_BOOT_SECS:-300}
case $boot_secs in
''|*[!0-9]*|0) die "IMTCP_VM_BOOT_SECS: a number of seconds" ;;
esac

vmdir=$top/build/vm
mkdir -p "$vmdir"

# The 9p modules, in load order (dependencies first).
module_order() {
	local seen="" out=""
	visit() {
		local m=$1 d
		case " $seen " in *" $m "*) return ;; esac
		seen="$seen $m"
		for d in $(modinfo -k "$kver" -F depends "$m" | tr ',' ' '); do
			visit "$d"
		done
		out="$out $m"
	}
	for m in virtio_pci 9pnet_virtio 9p; do
		visit "$m"
	done
	echo "$out"
}

build_initramfs() {
	local img=$1 work m path
	work=$(mktemp -d)
	mkdir -p "$work/bin" "$work/modules" "$work/proc" "$work/sys" "$work/dev"
	cp /bin/busybox "$work/bin/busybox"
	cp "$top/scripts/vm/initramfs-init.sh" "$work/init"
	chmod 755 "$work/init"
	: > "$work/modules.list"
	for m in $(module_order); do
		path=$(modinfo -k "$kver" -n "$m") || return 1
		case "$path" in
		/*) ;;
		*) continue ;;	# built in
		esac
		case "$path" in
		*.xz) xz -dc "$path" > "$work/modules/$m.ko" ;;
		*.zst) zstd -qdc "$path" > "$work/modules/$m.ko" ;;
		*) cp "$path" "$work/modules/$m.ko" ;;
		esac
		echo "$m.ko" >> "$work/modules.list"
	done
	(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.tmp" &&
		mv "$img.tmp" "$img"
	rm -rf "$work"
}

sum=$(cat "$top/scripts/vm/initramfs-init.sh" /bin/busybox | md5sum | cut -c1-12)
initrd=$vmdir/initramfs-$kver-$sum.cpio.gz
if [ ! -s "$initrd" ]; then
	rm -f "$vmdir"/initramfs-*.cpio.gz
	build_initramfs "$initrd" || die "could not build the initramfs"
fi

# Fill the array QEMU with the command line for accelerator $1 and
# output directory $2.
qemu_cmd() {
	local accel=$1 out=$2 cpu=max acc=$1
	if [ "$accel" = kvm ]; then
		cpu=host
	else
		acc=tcg,thread=multi
	fi
	QEMU=(qemu-system-x86_64 -accel "$acc" -cpu "$cpu"
		-smp "${IMTCP_VM_CPUS:-2}" -m "${IMTCP_VM_MEM:-2G}"
		-display none -monitor none -serial stdio -no-reboot
		-kernel "$kernel" -initrd "$initrd"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$out,mount_tag=out,security_model=none")
}

# KVM only if a probe boot with it reaches our init and powers off.
pick_accel() {
	local want=${IMTCP_VM_ACCEL:-auto} cache=$vmdir/accel-$kver probe
	case "$want" in
	tcg|kvm) echo "$want"; return ;;
	esac
	if [ -s "$cache" ]; then
		cat "$cache"
		return
	fi
	local acc=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		probe=$(mktemp -d)
		qemu_cmd kvm "$probe"
		if timeout 30 "${QEMU[@]}" \
			-append "console=ttyS0 panic=-1 IMTCP_PROBE=1" </dev/null 2>&1 |
			grep -q imtcp-vm-probe-ok; then
			acc=kvm
		fi
		rm -rf "$probe"
	fi
	echo "$acc" > "$cache"
	echo "$acc"
}

# One VM at a time on this machine (two cores): wait for any other.
exec 9> /tmp/imtcp-vm.lock
if ! flock -n 9; then
	echo "run-vm: another VM runs; waiting for /tmp/imtcp-vm.lock" >&2
	flock 9
fi
accel=$(pick_accel)
out=$vmdir/$name
rm -rf "$out"
mkdir -p "$out"

# The command, quoted for sh, with its exit code written where we read it;
# BENCH_* and RECORD_* settings of the caller go with it, and
# IMTCP_TESTS (the selftests' cases to run, selftests/lib.sh).
{
	printf 'cd %q || exit 1\n' "$top"
	for v in $(compgen -v BENCH_) $(compgen -v RECORD_) $(compgen -v IMTCP_TESTS); do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'export IMTCP_HOST_CPU=%q\n' "$out/host-cpu"
	printf '%q ' "$@"
	printf '\necho $? > %q\n' "$out/rc.tmp"
} > "$out/cmd"

# IMTCP_VM_CMDLINE: more kernel parameters, e.g. for debugging
# "loglevel=7 softlockup_all_cpu_backtrace=1".
append="console=ttyS0 panic=-1 loglevel=5 softlockup_all_cpu_backtrace=1 IMTCP_TOP=$top IMTCP_OUT=$out"
# Under TCG the guest's clock is the TSC: the 6.1 kernel would rule the
# emulated AMD CPU's TSCs unsynchronized by rule (unsynchronized_tsc(),
# no measurement) and read the emulated HPET instead, on which the test
# bed carries less of its capacity (Documentation/benchmarks.rst, The
# path check). The kernel's own warp test at boot still runs.
if [ "$accel" = tcg ] && [ "$clock" = tsc ]; then
	append="$append tsc=reliable"
fi
append="$append ${IMTCP_VM_CMDLINE:-}"

# watch_boot: stop QEMU (its PID in $out/qemu.pid) if the guest's init
# has not said "guest: ..." on the console within boot_secs.
watch_boot() {
	local i
	for i in $(seq "$boot_secs"); do
		sleep 1
		grep -q '^guest: ' "$out/console.log" 2>/dev/null && return 0
	done
	echo "run-vm: the guest did not reach its init in $boot_secs s; stopping it" >&2
	: > "$out/boot-hung"
	kill "$(cat "$out/qemu.pid" 2>/dev/null)" 2>/dev/null
}

# sample_host: once a second, this host's CPU counters since boot into
# $out/host-cpu (one line, replaced whole), for the guest to read over
# 9p (IMTCP_HOST_CPU; host_cpu_mark and host_cpu_since in
# selftests/lib.sh): ticks of all CPUs, of steal (the hypervisor running
# someone else on our CPUs), of idle and iowait, and QEMU's own. Under
# TCG the emulation runs only as fast as the host gives it CPU; a path
# check that fails with the guest idle can then be told from a test bed
# that is wrong.
sample_host() {
	local cpu u n s i w q si st rest qt pid hz ncpu
	hz=$(getconf CLK_TCK)
	ncpu=$(nproc)
	while :; do
		read -r cpu u n s i w q si st rest < /proc/stat
		qt=0
		pid=$(cat "$out/qemu.pid" 2>/dev/null)
		if [ -n "$pid" ] && [ -r "/proc/$pid/stat" ]; then
			# utime and stime: fields 14 and 15, after the
			# command name in parentheses
			qt=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
		fi
		echo "host_cpu hz=$hz cpus=$ncpu total=$((u + n + s + i + w + q + si + st)) steal=$st idle=$((i + w)) qemu=${qt:-0}" \
			> "$out/host-cpu.tmp" && mv "$out/host-cpu.tmp" "$out/host-cpu"
		sleep 1
	done
}

# boot_vm: one boot; sets qrc to QEMU's (or timeout's) exit code.
boot_vm() {
	local watcher sampler
	rm -f "$out/console.log" "$out/boot-hung" "$out/qemu.pid"
	watch_boot &
	watcher=$!
	sample_host &
	sampler=$!
	if [ "$quiet" = 1 ]; then
		timeout "$timeout" "${QEMU[@]}" -pidfile "$out/qemu.pid" \
			-append "$append" </dev/null > "$out/console.log" 2>&1
		qrc=$?
	else
		timeout "$timeout" "${QEMU[@]}" -pidfile "$out/qemu.pid" \
			-append "$append" </dev/null 2>&1 | tee "$out/console.log"
		qrc=${PIPESTATUS[0]}
	fi
	kill "$watcher" "$sampler" 2>/dev/null
	wait "$watcher" "$sampler" 2>/dev/null
}

echo "run-vm: booting $kver ($accel) for: $*" >&2
start=$(date +%s)
qemu_cmd "$accel" "$out"
boot_vm
if [ -e "$out/boot-hung" ]; then
	echo "run-vm: booting again" >&2
	mv "$out/console.log" "$out/console-hung.log"
	boot_vm
	[ -e "$out/boot-hung" ] && die "the guest hung twice while booting (see $out/console.log)"
fi
echo "run-vm: VM ran $(( $(date +%s) - start )) s" >&2

if [ "$qrc" = 124 ]; then
	echo "run-vm: timed out after $timeout s (see $out/console.log)" >&2
	exit 124
fi
[ -s "$out/rc" ] || die "the VM reported no result (see $out/console.log)"
rc=$(cat "$out/rc")

if grep -E 'WARNING:|BUG:|Oops|soft lockup|hung_task|blocked for more than|Call Trace' \
	"$out/dmesg.log" "$out/console.log" >/dev/null 2>&1; then
	echo "run-vm: the kernel logged a warning (see $out/dmesg.log):" >&2
	grep -E -m 5 'WARNING:|BUG:|Oops|soft lockup|hung_task|blocked for more|Call Trace' \
		"$out/dmesg.log" "$out/console.log" >&2
	exit 126
fi
exit "$rc"
