#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of imtcp's test VM, inside the host's (read-only) root: set up a
# minimal system, run the command that run-vm.sh left in $IMTCP_OUT/cmd,
# write its exit code to $IMTCP_OUT/rc and power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 IMTCP_IN_VM=1
mkdir -p /dev/pts /dev/shm
# What udev would make: bash's <(...) and dkms need /dev/fd.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ip link set lo up
hostname imtcp-vm
echo 1 > /proc/sys/kernel/sysrq

cd "$IMTCP_TOP" || exit 1
echo "guest: $(uname -r), $(nproc) cpus"
sh "$IMTCP_OUT/cmd" </dev/null 2>&1 | tee "$IMTCP_OUT/guest.log"
# The pipeline's status is tee's; the command writes its own to rc.tmp.
rc=$(cat "$IMTCP_OUT/rc.tmp" 2>/dev/null || echo 125)
dmesg > "$IMTCP_OUT/dmesg.log"
echo "$rc" > "$IMTCP_OUT/rc"
sync
echo o > /proc/sysrq-trigger
# PID 1 must not exit while the power-off runs, or the kernel panics
# ("Attempted to kill init") and the run looks like a kernel failure.
# sleep lives on the 9p root, which the power-off may already have taken
# away (seen once: "sleep: Input/output error"); then spin in the shell.
sleep 30 2>/dev/null
while :; do :; done
