#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module as DKMS builds it (make dkms-build, which make test runs on
# the host: dkms add and build in build/dkms against Debian's 6.1
# headers), installed by dkms and loaded by name, inside the test VM
# only: /lib/modules/<kernel> and build/dkms get a writable overlay in
# memory, so nothing reaches the host.
#   - dkms install puts it in updates/dkms and modprobe imtcp loads that
#     copy (modinfo -n), which registers the congestion control;
#   - dkms remove takes it away again: modprobe no longer finds it.
source "$(dirname "$0")/lib.sh"
require_root

KVER=$(uname -r)
MODS=/lib/modules/$KVER
DKMS=$TOP/build/dkms
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")


cleanup() {
	rmmod imtcp 2>/dev/null
	overlays_down
}

dkms_do() {
	dkms "$@" -m imtcp -v "$VERSION" -k "$KVER" \
		--sourcetree "$DKMS/src" --dkmstree "$DKMS/tree"
}

test_dkms_install_loads() {
	dkms_do install || fail "dkms install failed"
	[ -f "$MODS/updates/dkms/imtcp.ko" ] || fail "not in $MODS/updates/dkms"
	modprobe imtcp || fail "modprobe imtcp failed"
	[ "$(modinfo -n imtcp)" = "$MODS/updates/dkms/imtcp.ko" ] ||
		fail "modinfo finds $(modinfo -n imtcp)"
	grep -qw imtcp $AVAIL || fail "imtcp not registered: $(cat $AVAIL)"
	lsmod | grep -w '^imtcp'
	dkms status -m imtcp --dkmstree "$DKMS/tree"
	rmmod imtcp || fail "rmmod failed"
}

test_dkms_remove() {
	dkms_do remove || fail "dkms remove failed"
	[ -e "$MODS/updates/dkms/imtcp.ko" ] && fail "imtcp.ko still installed"
	modprobe -n imtcp 2>/dev/null && fail "modprobe still finds imtcp"
	return 0
}

[ -n "${IMTCP_IN_VM:-}" ] ||
	{ echo "1..0 # SKIP installs only inside the test VM"; exit $KSFT_SKIP; }
command -v dkms >/dev/null || { echo "1..0 # SKIP no dkms (make deps)"; exit $KSFT_SKIP; }
[ -n "$(find "$DKMS/tree" -path "*/$KVER/*/module/imtcp.ko*" 2>/dev/null)" ] ||
	{ echo "1..0 # SKIP no DKMS build for $KVER: make dkms-build"; exit $KSFT_SKIP; }
imtcp_loaded && { unload_imtcp || { echo "1..0 # SKIP imtcp is in use"; exit $KSFT_SKIP; }; }
trap cleanup EXIT
overlay "$MODS" && overlay "$DKMS" ||
	{ echo "1..0 # SKIP no overlayfs over the VM's root"; exit $KSFT_SKIP; }

tap_begin 2
run_test dkms_install_loads_by_name test_dkms_install_loads
run_test dkms_remove_unloads test_dkms_remove
tap_end
