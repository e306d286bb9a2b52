#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bulk transfers through a shaped bottleneck (50 Mbit/s, 20 ms each way;
# see the diagram in lib.sh), checked end to end with SHA-256: with imtcp
# and with the kernel's reno in the same run, clean, with 1 % loss and
# with reordering; an application's pacing cap that holds; a socket
# whose measurement state could not be allocated.
source "$(dirname "$0")/lib.sh"
require_root

RATE=50mbit
DELAY=20
WORK=$(mktemp -d)
trap 'topo_down; rm -rf "$WORK"' EXIT

make_file() {
	head -c "$2" /dev/urandom > "$WORK/$1"
}

# Goodput of imtcp and reno on the clean path, bytes intact, within a
# bound that holds on a noisy, emulated machine.
test_clean_path() {
	local a b ga gb
	a=$(transfer imtcp "$WORK/big" 5401) || { echo "$a"; fail "imtcp transfer"; }
	echo "$a"
	b=$(transfer reno "$WORK/big" 5402) || { echo "$b"; fail "reno transfer"; }
	echo "$b"
	ga=$(field goodput_mbps "$(echo "$a" | grep '^cc=')")
	gb=$(field goodput_mbps "$(echo "$b" | grep '^cc=')")
	echo "goodput imtcp $ga Mbit/s, reno $gb Mbit/s"
	float_ok "$ga > 0.4 * 50" || fail "imtcp goodput $ga below 40 % of the bottleneck"
	float_ok "$ga >= 0.75 * $gb && $ga <= 1.33 * $gb" ||
		fail "imtcp/reno goodput ratio outside 0.75-1.33"
}

# With random loss the transfer completes intact and loss recovery ran.
test_lossy_path() {
	local a
	shape $RATE $DELAY loss 1% || fail "cannot add loss"
	a=$(transfer imtcp "$WORK/small" 5403) || { echo "$a"; fail "imtcp transfer"; }
	echo "$a"
	[ "$(field retrans "$(echo "$a" | grep '^cc=')")" -gt 0 ] ||
		fail "no retransmissions: the loss did not happen"
	a=$(transfer reno "$WORK/small" 5404) || { echo "$a"; fail "reno transfer"; }
	echo "$a"
}

# Reordering: 5 % of segments skip the delay line and overtake others.
test_reordering_path() {
	local a
	shape $RATE $DELAY reorder 5% 50% || fail "cannot add reordering"
	a=$(transfer imtcp "$WORK/mid" 5405) || { echo "$a"; fail "imtcp transfer"; }
	echo "$a"
}

# The application's pacing cap (SO_MAX_PACING_RATE, 8 Mbit/s through the
# 50 Mbit/s bottleneck) holds on an imtcp socket as on reno: the
# measurement switches its internal pacing off between streams, but not
# where the application asked for it, and a hold's end keeps what the
# cap owes. Goodput within 4-8.2 (the cap counts payload; the stack
# gives back up to half a gap after a late send). Until 2026-11-29
# imtcp carried 7.98-8.83 here in ten CI runs (a stream's end forgot
# the cap's debt), reno 7.5-7.9; since, 7.81-7.82 in five VM runs.
test_pacing_cap() {
	local a g
	shape $RATE $DELAY || fail "shape"
	for cc in imtcp reno; do
		a=$(timed_send $cc 5406 6 -M 8) || fail "$cc transfer"
		echo "$a"
		g=$(field goodput_mbps "$a")
		float_ok "$g >= 4 && $g <= 8.2" ||
			fail "$cc with an 8 Mbit/s cap carried $g Mbit/s"
	done
}

# A socket whose measurement state cannot be allocated (made to fail on
# demand: fail_alloc_every=1) runs as plain Reno: its data arrives
# intact, TCP_CC_INFO reports nothing (xfer prints no cc_est_bps), the
# namespace's alloc_failed counter counts it, and the next socket, with
# the knob back at 0, measures again.
test_alloc_failure() {
	local a before after p=/sys/module/imtcp/parameters/fail_alloc_every
	local stat=$TOP/build/userspace/imtcp-stat
	shape $RATE $DELAY || fail "shape"
	before=$(in_snd "$stat" -s | awk '$1 == "alloc_failed" { print $2 }')
	echo 1 > $p || fail "fail_alloc_every=1 refused"
	a=$(transfer imtcp "$WORK/small" 5407)
	rc=$?
	echo 0 > $p
	echo "$a"
	[ $rc = 0 ] || fail "transfer without measurement state"
	echo "$a" | grep -q "cc_est_bps" && fail "TCP_CC_INFO reported measurement figures"
	after=$(in_snd "$stat" -s | awk '$1 == "alloc_failed" { print $2 }')
	echo "alloc_failed $before -> $after"
	[ "$after" -gt "$before" ] || fail "the failure was not counted"
	a=$(transfer imtcp "$WORK/small" 5408) || fail "transfer after"
	echo "$a" | grep -q "cc_est_bps" || fail "the next socket does not measure"
}

load_imtcp || { echo "1..0 # SKIP cannot load imtcp"; exit $KSFT_SKIP; }
[ -x "$XFER" ] || { echo "1..0 # SKIP $XFER not built: make tools"; exit $KSFT_SKIP; }
make_file big 24000000
make_file mid 8000000
make_file small 3000000
topo_up $RATE $DELAY || { echo "1..0 # SKIP cannot build the test bed"; exit $KSFT_SKIP; }

tap_begin 5
run_test clean_path_imtcp_vs_reno test_clean_path
run_test loss_1pct_intact test_lossy_path
run_test reordering_intact test_reordering_path
run_test pacing_cap_kept test_pacing_cap
run_test alloc_failure_runs_as_reno test_alloc_failure
tap_end
