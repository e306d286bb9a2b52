#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of imtcp's test VM initramfs: load the 9p modules, mount the host's
# root read-only and the run's output directory read-write, then switch_root
# into the host root and run scripts/vm/guest-init.sh from the project.
# The kernel hands us IMTCP_TOP, IMTCP_OUT (paths on the host) and
# IMTCP_PROBE from its command line as environment variables.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

if [ -n "$IMTCP_PROBE" ]; then
	echo "imtcp-vm-probe-ok"
	echo o > /proc/sysrq-trigger
	sleep 10
fi

for m in $(cat /modules.list); do
	insmod "/modules/$m" || echo "initramfs: insmod $m failed"
done

fail() {
	echo "initramfs: $*"
	echo o > /proc/sysrq-trigger
	sleep 10
}

mkdir -p /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
	hostroot /newroot || fail "cannot mount the host root over 9p"
# Writable scratch places. When the project itself lives under one of
# them (a checkout in /tmp or /root), carry it across the tmpfs mount.
mkdir -p /top
mount --bind "/newroot$IMTCP_TOP" /top || fail "cannot find $IMTCP_TOP"
for d in tmp run var/tmp var/lib root home; do
	[ -d "/newroot/$d" ] || continue
	mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d"
	case "$IMTCP_TOP/" in
	"/$d/"*)
		mkdir -p "/newroot$IMTCP_TOP"
		mount --move /top "/newroot$IMTCP_TOP" ;;
	esac
done
chmod 0700 /newroot/root
mount -t 9p -o trans=virtio,version=9p2000.L,rw,msize=262144 \
	out "/newroot$IMTCP_OUT" || fail "cannot mount the output directory"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/sh "$IMTCP_TOP/scripts/vm/guest-init.sh"
