#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults on the path, imtcp beside the kernel's reno in the same run (the
# test bed of lib.sh: 50 Mbit/s, 20 ms each way). For each case a file
# (4 MB; 1 MB where loss keeps goodput low; 12 MB across the link flap)
# goes over imtcp, then over reno; both must arrive intact
# (SHA-256), and imtcp's goodput must not collapse against reno's
# (at least half of it: single transfers under emulation scatter, and
# this is a correctness check, not a benchmark). Each case prints both
# goodputs, their ratio, and imtcp's retransmissions; the module's
# namespace counters follow at the end (streams failed, estimates).
#   loss 5 %, loss 10 %, reorder 25 % (50 % correlation), duplicate 5 %,
#   corrupt 1 %, a 2 s link flap during the transfer, MTU 1280 and 9000,
#   IPv6 (2001:db8::/32, documentation addresses, only inside these
#   namespaces), and a zero window (the receiver reads nothing for 3 s).
source "$(dirname "$0")/lib.sh"
require_root

RATE=50mbit
DELAY=20
WORK=$(mktemp -d)
STAT=$TOP/build/userspace/imtcp-stat
PORT=5500
trap 'topo_down; rm -rf "$WORK"' EXIT

# pair_once NAME [FILE [DURING]]: the file (default 4 MB) over imtcp,
# then reno, on the path as it is now; DURING, a function, runs in the
# background from the start of each transfer. True unless imtcp's
# goodput is below half of reno's.
pair_once() {
	local name=$1 file=${2:-$WORK/file} during=${3:-} cc line f
	local -A g
	for cc in imtcp reno; do
		PORT=$((PORT + 1))
		[ -n "$during" ] && { $during & f=$!; }
		line=$(transfer $cc "$file" $PORT)
		rc=$?
		[ -n "$during" ] && wait $f
		[ $rc = 0 ] || { echo "$line"; fail "$name: $cc transfer"; }
		line=$(echo "$line" | grep '^cc=')
		g[$cc]=$(field goodput_mbps "$line")
		[ $cc = imtcp ] && g[retrans]=$(field retrans "$line")
	done
	echo "$name: imtcp ${g[imtcp]} Mbit/s (retrans ${g[retrans]}), reno ${g[reno]}, ratio $(awk -v a="${g[imtcp]}" -v b="${g[reno]}" 'BEGIN { printf "%.2f", a / b }'); both intact"
	float_ok "${g[imtcp]} >= 0.5 * ${g[reno]}"
}

# pair NAME [FILE [DURING]]: pair_once, and once more if imtcp's goodput
# collapsed. A single 1 MB transfer under 5 % loss or 1 % corruption can
# lose seconds to one retransmission timeout whichever the congestion
# control (one make test: imtcp/reno 0.15 and 0.37 where ten repeated
# pairs of the faults benchmark put imtcp at reno's level); holds going
# wrong would collapse both pairs.
#
# With JUDGE=0 the goodput is reported, not judged (the data's integrity
# still is): under 5 % loss and 1 % corruption a single 1 MB transfer is
# decided by where the losses fall. Fifteen rotated 1 MB pairs under 5 %
# loss (scripts/bench/faults.sh with BENCH_BYTES=1000000) gave imtcp
# 1.94 Mbit/s at the median, imtcp with measure=N 1.87 and reno 1.99,
# with single pairs from 0.42 to 9.1 of reno's and 0.39 to 1.33 for
# measure=N (the same Reno code without holds): one pair says nothing,
# and a rule that judged it would fail CI at random.
pair() {
	if [ "${JUDGE:-1}" = 0 ]; then
		pair_once "$@" || echo "$1: imtcp below half of reno's (not judged)"
		return 0
	fi
	pair_once "$@" && return 0
	echo "$1: once more"
	pair_once "$@" || fail "$1: imtcp's goodput collapsed against reno's twice"
}

# netem_case NAME FILE NETEM...: the pair with these netem settings on
# the data.
netem_case() {
	local name=$1 file=$2
	shift 2
	shape $RATE $DELAY "$@" || fail "netem $*"
	pair "$name" "$file"
	shape $RATE $DELAY
}

# Where loss keeps goodput at 1-5 Mbit/s, 1 MB (keeps the test short).
test_loss_5() { JUDGE=0 netem_case "loss 5%" "$WORK/small" loss 5%; }
test_loss_10() { netem_case "loss 10%" "$WORK/small" loss 10%; }
test_reorder_25() { netem_case "reorder 25%" "$WORK/file" reorder 25% 50%; }
test_duplicate_5() { netem_case "duplicate 5%" "$WORK/file" duplicate 5%; }
test_corrupt_1() { JUDGE=0 netem_case "corrupt 1%" "$WORK/small" corrupt 1%; }

# flap: the bottleneck link goes down 1 s from now, for 2 s.
flap() {
	sleep 1
	in_rtr ip link set r1 down
	sleep 2
	in_rtr ip link set r1 up
}

# The link flaps 1 s into each transfer (12 MB, so that it is still on).
test_link_flap() {
	head -c 12000000 /dev/urandom > "$WORK/big"
	pair "link flap 2 s" "$WORK/big" flap
	rm -f "$WORK/big"
}

# mtu_case MTU: the pair on a test bed of that MTU.
mtu_case() {
	topo_down
	TOPO_MTU=$1 topo_up $RATE $DELAY || fail "test bed at MTU $1"
	pair "MTU $1"
	topo_down
	topo_up $RATE $DELAY || fail "test bed"
}

test_mtu_1280() { mtu_case 1280; }
test_mtu_9000() { mtu_case 9000; }

test_ipv6() {
	in_snd ip addr add 2001:db8:1::1/64 dev s0 nodad
	in_rtr ip addr add 2001:db8:1::2/64 dev r0 nodad
	in_rtr ip addr add 2001:db8:2::1/64 dev r1 nodad
	in_rcv ip addr add 2001:db8:2::2/64 dev d0 nodad
	in_snd ip -6 route add default via 2001:db8:1::2
	in_rcv ip -6 route add default via 2001:db8:2::1
	in_rtr sysctl -qw net.ipv6.conf.all.forwarding=1
	XFER_TO=2001:db8:2::2 pair "IPv6"
}

test_zero_window() {
	XFER_RECV_OPTS="-P 3" pair "zero window 3 s"
}

load_imtcp || { echo "1..0 # SKIP cannot load imtcp"; exit $KSFT_SKIP; }
[ -x "$XFER" ] || { echo "1..0 # SKIP $XFER not built: make tools"; exit $KSFT_SKIP; }
head -c 4000000 /dev/urandom > "$WORK/file"
head -c 1000000 /dev/urandom > "$WORK/small"
topo_up $RATE $DELAY || { echo "1..0 # SKIP cannot build the test bed"; exit $KSFT_SKIP; }

tap_begin 10
run_test loss_5pct test_loss_5
run_test loss_10pct test_loss_10
run_test reorder_25pct test_reorder_25
run_test duplicate_5pct test_duplicate_5
run_test corrupt_1pct test_corrupt_1
run_test link_flap_2s test_link_flap
run_test mtu_1280 test_mtu_1280
run_test mtu_9000 test_mtu_9000
run_test ipv6 test_ipv6
run_test zero_window test_zero_window
echo "# sender namespace: $(in_snd "$STAT" -s 2>/dev/null | tr '\n' ' ')"
tap_end
