#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall as a user runs them, inside the test VM
# only: /lib/modules/<kernel> and /usr/local get a writable overlay in
# memory over the host's read-only root, so nothing reaches the host.
#   - DESTDIR stages the files under PREFIX, with no depmod;
#   - installed, `modprobe imtcp` loads it by name, the sysctl autoloads
#     it through its tcp-imtcp alias, imtcp-stat and its man page are
#     found on the default paths;
#   - uninstalled, modprobe no longer finds it and the files are gone.
source "$(dirname "$0")/lib.sh"
require_root

KVER=$(uname -r)
MODS=/lib/modules/$KVER
DEFAULT=/proc/sys/net/ipv4/tcp_congestion_control


cleanup() {
	sysctl -qw net.ipv4.tcp_congestion_control=reno 2>/dev/null
	rmmod imtcp 2>/dev/null
	overlays_down
	rm -rf "$WORK"
}

test_destdir() {
	local d=$WORK/stage f
	make -s -C "$TOP" install DESTDIR="$d" > "$WORK/stage.out" 2>&1 ||
		{ cat "$WORK/stage.out"; fail "make install DESTDIR failed"; }
	(cd "$d" && find . -type f | sort)
	for f in "lib/modules/$KVER/updates/imtcp.ko" usr/local/bin/imtcp-stat \
		 usr/local/share/man/man8/imtcp-stat.8 usr/local/bin/imtcp-media \
		 usr/local/share/man/man1/imtcp-media.1 \
		 usr/local/bin/imtcp-mptcp-backup \
		 usr/local/share/man/man8/imtcp-mptcp-backup.8 \
		 usr/local/share/imtcp/bpftrace/imtcp-estimates.bt \
		 usr/local/share/imtcp/bpftrace/imtcp-streams.bt \
		 usr/local/share/imtcp/bpftrace/imtcp-holds.bt; do
		[ -f "$d/$f" ] || fail "$f not staged"
	done
	[ -x "$d/usr/local/bin/imtcp-stat" ] || fail "imtcp-stat not executable"
	[ -x "$d/usr/local/bin/imtcp-media" ] || fail "imtcp-media not executable"
	[ -x "$d/usr/local/bin/imtcp-mptcp-backup" ] ||
		fail "imtcp-mptcp-backup not executable"
	[ -e "$d/lib/modules/$KVER/modules.dep" ] && fail "depmod ran on DESTDIR"
	grep -q depmod "$WORK/stage.out" && fail "depmod ran on DESTDIR"
	make -s -C "$TOP" uninstall DESTDIR="$d" || fail "make uninstall DESTDIR failed"
	[ -z "$(find "$d" -type f)" ] || fail "uninstall left $(find "$d" -type f)"
	[ -d "$d/usr/local/share/imtcp" ] && fail "uninstall left share/imtcp"
	return 0
}

test_install_loads_by_name() {
	local old
	make -s -C "$TOP" install || fail "make install failed"
	[ -f "$MODS/updates/imtcp.ko" ] || fail "no $MODS/updates/imtcp.ko"
	modprobe imtcp || fail "modprobe imtcp failed"
	lsmod | grep -w '^imtcp' || fail "modprobe did not load imtcp"
	[ "$(modinfo -n imtcp)" = "$MODS/updates/imtcp.ko" ] ||
		fail "modinfo finds $(modinfo -n imtcp)"
	rmmod imtcp || fail "rmmod after modprobe failed"
	# the sysctl loads it through the tcp-imtcp alias
	old=$(cat $DEFAULT)
	sysctl -qw net.ipv4.tcp_congestion_control=imtcp ||
		fail "sysctl did not autoload imtcp"
	[ "$(cat $DEFAULT)" = imtcp ] || fail "default is $(cat $DEFAULT)"
	lsmod | grep -qw '^imtcp' || fail "imtcp not loaded by the sysctl"
	sysctl -qw net.ipv4.tcp_congestion_control="$old"
	rmmod imtcp || fail "rmmod after the sysctl failed"
	PATH=/usr/local/bin:/usr/bin:/bin imtcp-stat -V || fail "imtcp-stat not on PATH"
	PATH=/usr/local/bin:/usr/bin:/bin imtcp-media -V || fail "imtcp-media not on PATH"
	PATH=/usr/local/bin:/usr/bin:/bin imtcp-mptcp-backup -V ||
		fail "imtcp-mptcp-backup not on PATH"
	[ -x /usr/local/share/imtcp/bpftrace/imtcp-estimates.bt ] ||
		fail "bpftrace scripts not installed"
	if command -v man >/dev/null; then
		MANPATH=/usr/local/share/man man -w imtcp-stat ||
			fail "man page not found"
		MANPATH=/usr/local/share/man man -w imtcp-media ||
			fail "imtcp-media's man page not found"
		MANPATH=/usr/local/share/man man -w imtcp-mptcp-backup ||
			fail "imtcp-mptcp-backup's man page not found"
	fi
}

test_uninstall() {
	make -s -C "$TOP" uninstall || fail "make uninstall failed"
	[ -e "$MODS/updates/imtcp.ko" ] && fail "imtcp.ko still installed"
	[ -e /usr/local/bin/imtcp-stat ] && fail "imtcp-stat still installed"
	[ -e /usr/local/share/man/man8/imtcp-stat.8 ] && fail "man page still installed"
	[ -e /usr/local/bin/imtcp-media ] && fail "imtcp-media still installed"
	[ -e /usr/local/share/man/man1/imtcp-media.1 ] && fail "imtcp-media.1 still installed"
	[ -e /usr/local/bin/imtcp-mptcp-backup ] &&
		fail "imtcp-mptcp-backup still installed"
	[ -e /usr/local/share/imtcp ] && fail "bpftrace scripts still installed"
	modprobe -n imtcp 2>/dev/null && fail "modprobe still finds imtcp"
	return 0
}

[ -n "${IMTCP_IN_VM:-}" ] ||
	{ echo "1..0 # SKIP installs only inside the test VM"; exit $KSFT_SKIP; }
[ -f "$TOP/imtcp.ko" ] || { echo "1..0 # SKIP no imtcp.ko: run make"; exit $KSFT_SKIP; }
imtcp_loaded && { unload_imtcp || { echo "1..0 # SKIP imtcp is in use"; exit $KSFT_SKIP; }; }
WORK=$(mktemp -d)
trap cleanup EXIT
overlay "$MODS" && overlay /usr/local ||
	{ echo "1..0 # SKIP no overlayfs over the VM's root"; exit $KSFT_SKIP; }

tap_begin 3
run_test destdir_stages_without_depmod test_destdir
run_test install_loads_by_name test_install_loads_by_name
run_test uninstall_removes_it test_uninstall
tap_end
